//! PLACE: a find named the way `scan` prints it, `CONTAINER@OFFSET` (`CONTAINER+OFFSET` is
//! read too), and the container chain it leads to inside an image.
//!
//! CONTAINER is the find's container, the image's own name optional (`disc.bin:/DATA/PACK.BIN`
//! as scan prints it is `/DATA/PACK.BIN` of the image `disc.bin`, [`parse_in`]): `/DATA/PACK.BIN` (a file of
//! the ISO), `/ADDONS/A.PBO:/data/m.p3d` (an entry of a PBO inside the ISO), `/data/m.p3d`
//! (an entry of a PBO given as the image), empty for a plain file, optionally opened by
//! `#trackNN:` when a cue sheet lists several tracks. OFFSET is the byte offset in that
//! container (decimal, or hex with `0x`).

use std::sync::Arc;

use super::image::{Image, Kind};
use crate::error::{Error, Result};
use crate::scan::iso::IsoFile;
use crate::scan::pbo::{self, Pbo};
use crate::scan::source::{MemSource, Source, SubSource};
use crate::scan::{self, iso, Find, ScanOptions};

/// A parsed PLACE.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Place {
    /// The text as given.
    pub text: String,
    /// `#trackNN`, when given.
    pub track: Option<u32>,
    /// Path segments: the ISO file, then a PBO entry (without leading `/`).
    pub segments: Vec<String>,
    /// Byte offset in the innermost container.
    pub offset: u64,
}

fn bad(text: &str, why: &str) -> Error {
    Error::Parameter {
        what: format!("place {text:?}: {why} (a place reads CONTAINER@OFFSET as `scan` prints it, e.g. disc.bin:/DATA/PACK.BIN@4096 or /DATA/PACK.BIN@4096)"),
    }
}

/// A place's container and offset text: split at its last `@` followed by a number, else at its
/// last `+`.
pub fn split(text: &str) -> Option<(&str, &str)> {
    let number = |o: &str| {
        let o = o.trim();
        match o.strip_prefix("0x").or_else(|| o.strip_prefix("0X")) {
            Some(h) => !h.is_empty() && h.bytes().all(|b| b.is_ascii_hexdigit()),
            None => !o.is_empty() && o.bytes().all(|b| b.is_ascii_digit()),
        }
    };
    text.rsplit_once('@')
        .filter(|(_, o)| number(o))
        .or_else(|| text.rsplit_once('+'))
}

/// Parses a PLACE of the image `image`: as [`parse`], the image's own name before its first
/// `:` (or as the whole container, for a plain file) left out, as `scan IMAGE` prints it.
pub fn parse_in(text: &str, image: &std::path::Path) -> Result<Place> {
    let mut p = parse(&without_image(text, image))?;
    p.text = text.to_string();
    Ok(p)
}

/// `text` without the image's own name (its path as given, or its file name) in front of
/// the container: `disc.bin:/DATA/X.TIX@2064` of `disc.bin` is `:/DATA/X.TIX@2064`.
pub fn without_image(text: &str, image: &std::path::Path) -> String {
    let Some((container, off)) = split(text) else {
        return text.to_string();
    };
    let shown = image.display().to_string();
    let name = image
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    for own in [shown.as_str(), name.as_str()] {
        if own.is_empty() {
            continue;
        }
        match container.strip_prefix(own) {
            Some(rest) if rest.is_empty() || rest.starts_with(':') => {
                return format!("{rest}@{off}");
            }
            _ => {}
        }
    }
    text.to_string()
}

/// Parses a PLACE.
pub fn parse(text: &str) -> Result<Place> {
    let (container, off) = split(text).ok_or_else(|| bad(text, "no @OFFSET"))?;
    let off = off.trim();
    let offset = match off.strip_prefix("0x").or_else(|| off.strip_prefix("0X")) {
        Some(h) => u64::from_str_radix(h, 16),
        None => off.parse(),
    }
    .map_err(|_| bad(text, "the offset is not a number"))?;
    let mut rest = container.trim().trim_start_matches(':');
    let mut track = None;
    if let Some(r) = rest.strip_prefix("#track") {
        let (n, after) = r.split_once(':').unwrap_or((r, ""));
        track = Some(n.parse().map_err(|_| bad(text, "unreadable #trackNN"))?);
        rest = after;
    }
    let segments = if rest.is_empty() {
        Vec::new()
    } else {
        rest.split(":/")
            .map(|s| s.trim_start_matches('/').to_string())
            .collect()
    };
    if segments.len() > 2 || segments.iter().any(String::is_empty) {
        return Err(bad(
            text,
            "at most an image file and an archive entry can be named",
        ));
    }
    Ok(Place {
        text: text.to_string(),
        track,
        segments,
        offset,
    })
}

/// Where a place leads.
#[derive(Debug, Clone)]
pub struct Resolved {
    /// The data track (disc images).
    pub track: Option<usize>,
    /// The ISO file.
    pub file: Option<IsoFile>,
    /// The PBO holding the entry, its bytes and the entry's index.
    pub entry: Option<(Pbo, Arc<dyn Source>, usize)>,
    /// The innermost container's bytes (a packed entry's unpacked bytes).
    pub container: Arc<dyn Source>,
    /// Whether the innermost container is named like a PBO.
    pub pbo_name: bool,
}

fn not_found(what: String) -> Error {
    Error::Parameter { what }
}

/// Follows a place into the image.
pub fn resolve(img: &Image, p: &Place) -> Result<Resolved> {
    let mut segs = p.segments.iter();
    let mut r = Resolved {
        track: None,
        file: None,
        entry: None,
        container: img.src.clone(),
        pbo_name: false,
    };
    let mut is_pbo = matches!(img.kind, Kind::Pbo);
    if let Kind::Disc(tracks) = &img.kind {
        let ti = match p.track {
            Some(n) => tracks
                .iter()
                .position(|t| t.number == Some(n))
                .ok_or_else(|| not_found(format!("{}: no data track {n}", p.text)))?,
            None => 0,
        };
        let t = &tracks[ti];
        r.track = Some(ti);
        r.container = t.view.clone();
        is_pbo = false;
        if iso::looks_like(t.view.as_ref()) {
            if let Some(name) = segs.next() {
                let files = iso::list(t.view.as_ref())?;
                let mut same = files
                    .into_iter()
                    .filter(|f| f.path.trim_start_matches('/') == name);
                let f = same.next().ok_or_else(|| {
                    not_found(format!("{}: no file /{name} in the image", p.text))
                })?;
                if let Some(g) = same.find(|g| (g.offset, g.size) != (f.offset, f.size)) {
                    return Err(not_found(format!(
                        "{}: the image has two files named /{name} (at bytes {} and {} of the track); the place is ambiguous, nothing patched",
                        p.text, f.offset, g.offset
                    )));
                }
                if f.is_stream() {
                    return Err(not_found(format!(
                        "{}: /{name} is a Mode 2 Form 2 / interleaved stream, which holds no asset",
                        p.text
                    )));
                }
                r.container = Arc::new(SubSource::new(t.view.clone(), f.offset, f.size)?);
                is_pbo = name.to_ascii_lowercase().ends_with(".pbo")
                    || pbo::looks_like(r.container.as_ref());
                r.pbo_name = name.to_ascii_lowercase().ends_with(".pbo");
                r.file = Some(f);
            }
        }
    }
    if let Some(name) = segs.next() {
        if !is_pbo {
            return Err(not_found(format!(
                "{}: {name} is inside a file that is not a PBO archive",
                p.text
            )));
        }
        let src = r.container.clone();
        let archive = pbo::read(src.as_ref())?;
        let same: Vec<usize> = (0..archive.entries.len())
            .filter(|&k| archive.entries[k].name == *name)
            .collect();
        let i = *same
            .first()
            .ok_or_else(|| not_found(format!("{}: no entry {name} in the archive", p.text)))?;
        if same.len() > 1 {
            // Which of them the user means cannot be told: refuse, naming every one.
            let places: Vec<String> = same
                .iter()
                .map(|&k| {
                    let e = &archive.entries[k];
                    format!(
                        "entry {} (data at byte {}, {} bytes)",
                        k + 1,
                        e.offset,
                        e.data_size
                    )
                })
                .collect();
            return Err(not_found(format!(
                "{}: the archive has {} entries named {name}: {}; the place is ambiguous, nothing patched",
                p.text,
                same.len(),
                places.join(" and ")
            )));
        }
        let e = &archive.entries[i];
        if e.is_encrypted() {
            return Err(not_found(format!("{}: {name} is encrypted", p.text)));
        }
        r.container = if e.is_packed() {
            if e.original_size as u64 > ScanOptions::default().max_asset {
                return Err(not_found(format!(
                    "{}: {name} unpacks to {} bytes, more than the largest asset read",
                    p.text, e.original_size
                )));
            }
            Arc::new(MemSource(pbo::unpack_entry(src.as_ref(), e)?.into()))
        } else {
            Arc::new(SubSource::new(src.clone(), e.offset, e.data_size as u64)?)
        };
        r.pbo_name = false;
        r.entry = Some((archive, src, i));
    } else if r.file.is_none() && matches!(img.kind, Kind::Pbo) {
        return Err(not_found(format!("{}: name an entry of the PBO", p.text)));
    }
    Ok(r)
}

/// The image on disk a place names in front of its container, as `scan` prints it:
/// `disc.bin:/DATA/X.TIX@2064` → `disc.bin`, `pack.dat@4096` → `pack.dat`. `None` when `text`
/// is no place or no such file exists (the longest existing prefix ending at a `:` wins).
pub fn image_of(text: &str) -> Option<std::path::PathBuf> {
    let (container, _) = split(text)?;
    let file = |p: &str| {
        let p = std::path::Path::new(p);
        p.is_file().then(|| p.to_path_buf())
    };
    file(container).or_else(|| {
        container
            .char_indices()
            .filter(|&(_, c)| c == ':')
            .filter_map(|(i, _)| file(&container[..i]))
            .next_back()
    })
}

/// The find at a place given with its image (`disc.bin:/DATA/X.TIX@2064`, as `scan` prints
/// it): `None` when `text` names no existing image ([`image_of`]); an error naming the nearest
/// finds when no asset starts there. Lets every command read a find where a file is expected.
pub fn find_at(text: &str) -> Result<Option<Find>> {
    let Some(image) = image_of(text) else {
        return Ok(None);
    };
    let img = Image::open(&image)?;
    let p = parse_in(text, &image)?;
    let r = match resolve(&img, &p) {
        Ok(r) => r,
        Err(Error::Parameter { what }) => return Err(nearest(&p, &what, &all_finds(&img))),
        Err(e) => return Err(e),
    };
    let finds = finds_in(&r);
    if let Some(f) = finds.iter().find(|f| f.offset == p.offset) {
        return Ok(Some(f.clone()));
    }
    let container = split(&p.text).map_or("", |c| c.0);
    let named: Vec<(String, Find)> = finds
        .into_iter()
        .map(|f| (format!("{container}@{}", f.offset), f))
        .collect();
    Err(nearest(
        &p,
        &format!("{}: no asset starts there", p.text),
        &named,
    ))
}

/// The scan options the patcher finds assets with: every byte offset.
pub fn scan_options() -> ScanOptions {
    ScanOptions {
        align: 1,
        ..ScanOptions::default()
    }
}

/// The finds directly in a container (not in containers inside it).
pub fn finds_in(r: &Resolved) -> Vec<Find> {
    scan::scan_source_as(r.container.clone(), "", r.pbo_name, &scan_options())
        .finds
        .into_iter()
        .filter(|f| f.container.is_empty())
        .collect()
}

/// Every find of the image, with its place.
pub fn all_finds(img: &Image) -> Vec<(String, Find)> {
    let opts = scan_options();
    let reports = match &img.kind {
        Kind::Disc(tracks) => tracks
            .iter()
            .map(|t| {
                let name = t
                    .number
                    .map(|n| format!("#track{n:02}"))
                    .unwrap_or_default();
                scan::scan_source(t.view.clone(), &name, &opts)
            })
            .collect(),
        Kind::Pbo => vec![scan::scan_source_as(img.src.clone(), "", true, &opts)],
        Kind::Plain => vec![scan::scan_source(img.src.clone(), "", &opts)],
    };
    reports
        .into_iter()
        .flat_map(|r| r.finds)
        .map(|f| {
            (
                format!("{}@{}", f.container.trim_start_matches(':'), f.offset),
                f,
            )
        })
        .collect()
}

/// The error for a place that names no find: the nearest finds (same container by offset,
/// else by the longest shared prefix of the name).
pub fn nearest(place: &Place, why: &str, finds: &[(String, Find)]) -> Error {
    let container = split(&place.text)
        .map_or("", |c| c.0)
        .trim_start_matches(':');
    let mut ranked: Vec<(usize, u64, &String, &Find)> = finds
        .iter()
        .map(|(p, f)| {
            let c = split(p).map_or("", |c| c.0);
            let shared = c
                .chars()
                .zip(container.chars())
                .take_while(|(a, b)| a == b)
                .count();
            let same = usize::from(c == container) * 10_000;
            (
                usize::MAX - same - shared,
                f.offset.abs_diff(place.offset),
                p,
                f,
            )
        })
        .collect();
    ranked.sort_by(|a, b| (a.0, a.1, a.2).cmp(&(b.0, b.1, b.2)));
    let list: Vec<String> = ranked
        .iter()
        .take(5)
        .map(|(_, _, p, f)| format!("{p} ({} {} bytes)", f.format, f.size))
        .collect();
    Error::Parameter {
        what: format!(
            "{why}; nearest finds: {}",
            if list.is_empty() {
                "none (the image holds no asset)".to_string()
            } else {
                list.join(", ")
            }
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn places_parse() {
        let p = parse("/DATA/PACK.BIN+4096").unwrap();
        assert_eq!(
            (p.track, p.segments.clone(), p.offset),
            (None, vec!["DATA/PACK.BIN".to_string()], 4096)
        );
        let p = parse("#track02:/A.PBO:/data/m.p3d+0x10").unwrap();
        assert_eq!(p.track, Some(2));
        assert_eq!(p.segments, vec!["A.PBO".to_string(), "data/m.p3d".into()]);
        assert_eq!(p.offset, 16);
        assert_eq!(parse("+12").unwrap().segments.len(), 0);
        for bad in ["/A", "/A+x", "/A:/b:/c+0", "#trackx:/A+0"] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn places_parse_as_scan_prints_them() {
        let img = std::path::Path::new("dir/disc.bin");
        for text in [
            "dir/disc.bin:/DATA/PACK.BIN@4096",
            "disc.bin:/DATA/PACK.BIN@4096",
            "/DATA/PACK.BIN@4096",
            "/DATA/PACK.BIN@0x1000",
            "/DATA/PACK.BIN+4096",
        ] {
            let p = parse_in(text, img).unwrap();
            assert_eq!(
                (p.segments.clone(), p.offset),
                (vec!["DATA/PACK.BIN".to_string()], 4096),
                "{text}"
            );
            assert_eq!(p.text, text);
        }
        let p = parse_in("dir/disc.bin@12", img).unwrap();
        assert_eq!((p.segments.len(), p.offset), (0, 12));
        // An `@` in a name is part of the name.
        let p = parse("/A@B.TIM@8").unwrap();
        assert_eq!((p.segments[0].as_str(), p.offset), ("A@B.TIM", 8));
    }
}
