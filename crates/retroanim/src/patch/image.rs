//! The image being patched: what kind of file it is, its data tracks, and the stream that
//! writes it again with edited sectors.
//!
//! Readings taken:
//! - A `.bin` with a cue sheet beside it (same name, `.cue`) is read through the cue sheet, so
//!   its tracks are known; without one, a raw image is one data track, which may grow only when
//!   every sector after the volume's last used one is a data sector (an audio track after it
//!   would otherwise end up between the volume and the moved file).
//! - A data track may get sectors past its end only when it is the last thing in its file.
//! - Raw sectors written anew get the track's mode (the mode of its first sector), a header
//!   counted on from the track's first sector's address, and for Mode 2 the subheader given.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::iso::Sectors;
use super::pbo::copy;
use super::sector;
use crate::error::{Error, Result};
use crate::scan::raw::{self, RAW_SECTOR, SYNC, USER_DATA};
use crate::scan::source::{FileSource, Source, SubSource};
use crate::scan::{cue, iso, pbo};

/// Bytes that replace the file's (byte offset → bytes), and bytes appended after its end.
pub type FilePatches = (BTreeMap<u64, Vec<u8>>, Vec<u8>);

/// How a data track stores its sectors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// 2048 bytes each (an ISO file, a MODE1/2048 track).
    Cooked,
    /// Raw 2352-byte sectors.
    Raw,
}

/// One data track.
#[derive(Debug, Clone)]
pub struct Track {
    /// Its cue sheet track number when the sheet has several tracks (finds are named
    /// `file#trackNN:...` then).
    pub number: Option<u32>,
    /// Sector layout.
    pub layout: Layout,
    /// Byte offset of its first sector in the file.
    pub start: u64,
    /// Sectors it holds.
    pub sectors: u64,
    /// True when it is the last thing in its file.
    pub last_in_file: bool,
    /// True when its end comes from a cue sheet (else from the file's length).
    pub from_cue: bool,
    /// Its 2048-byte user data.
    pub view: Arc<dyn Source>,
}

/// What the image is.
#[derive(Debug, Clone)]
pub enum Kind {
    /// A disc image: its data tracks.
    Disc(Vec<Track>),
    /// A PBO archive.
    Pbo,
    /// Any other file (in-place replacements only).
    Plain,
}

/// An opened image.
#[derive(Debug, Clone)]
pub struct Image {
    /// The file holding the data (the `.bin` of a cue sheet).
    pub file: PathBuf,
    /// Its bytes.
    pub src: Arc<dyn Source>,
    /// What it is.
    pub kind: Kind,
    /// The cue sheet that describes it: its path and text.
    pub cue: Option<(PathBuf, String)>,
}

fn is_ext(p: &Path, ext: &str) -> bool {
    p.extension().is_some_and(|e| e.eq_ignore_ascii_case(ext))
}

impl Image {
    /// Opens an image, a cue sheet, a PBO or any file.
    pub fn open(path: &Path) -> Result<Image> {
        if is_ext(path, "cue") {
            let text = cue::read_sheet(path)?;
            return Image::from_cue(path, text);
        }
        let beside = path.with_extension("cue");
        if beside.is_file() {
            if let Ok(text) = cue::read_sheet(&beside) {
                let dir = beside.parent().unwrap_or(Path::new("."));
                let names_it = cue::parse(&text, dir).is_ok_and(|t| {
                    t.iter()
                        .any(|t| same_file(&t.file, path) && t.mode != cue::TrackMode::Audio)
                });
                if names_it {
                    return Image::from_cue(&beside, text);
                }
            }
        }
        let src: Arc<dyn Source> = Arc::new(FileSource::open(path)?);
        Image::from_source(path.to_path_buf(), src, is_ext(path, "pbo"))
    }

    /// An image in `src`, detected from its content (`pbo`: a `.pbo` file name).
    pub fn from_source(file: PathBuf, src: Arc<dyn Source>, pbo_name: bool) -> Result<Image> {
        let kind = if raw::looks_raw(src.as_ref()) {
            let sectors = src.len() / RAW_SECTOR as u64;
            Kind::Disc(vec![Track {
                number: None,
                layout: Layout::Raw,
                start: 0,
                sectors,
                last_in_file: true,
                from_cue: false,
                view: Arc::new(raw::SectorView::new(src.clone(), 0, sectors)?),
            }])
        } else if iso::looks_like(src.as_ref()) {
            Kind::Disc(vec![Track {
                number: None,
                layout: Layout::Cooked,
                start: 0,
                sectors: src.len() / USER_DATA as u64,
                last_in_file: true,
                from_cue: false,
                view: src.clone(),
            }])
        } else if pbo_name || pbo::looks_like(src.as_ref()) {
            Kind::Pbo
        } else {
            Kind::Plain
        };
        Ok(Image {
            file,
            src,
            kind,
            cue: None,
        })
    }

    fn from_cue(path: &Path, text: String) -> Result<Image> {
        let dir = path.parent().unwrap_or(Path::new("."));
        let mut tracks = cue::parse(&text, dir)?;
        cue::resolve(&mut tracks, &|f| Ok(std::fs::metadata(f)?.len()))?;
        let many = tracks.len() > 1;
        let data: Vec<&cue::Track> = tracks
            .iter()
            .filter(|t| matches!(t.mode, cue::TrackMode::Raw2352 | cue::TrackMode::Cooked2048))
            .collect();
        let Some(first) = data.first() else {
            return Err(Error::Parameter {
                what: format!("{}: the cue sheet lists no data track", path.display()),
            });
        };
        let file = first.file.clone();
        if data.iter().any(|t| t.file != file) {
            return Err(Error::Parameter {
                what: format!(
                    "{}: data tracks in several files; patch the .bin that holds the data track instead",
                    path.display()
                ),
            });
        }
        let src: Arc<dyn Source> = Arc::new(FileSource::open(&file)?);
        let len = src.len();
        let mut out = Vec::new();
        for t in data {
            let (layout, size) = match t.mode {
                cue::TrackMode::Raw2352 => (Layout::Raw, RAW_SECTOR as u64),
                _ => (Layout::Cooked, USER_DATA as u64),
            };
            let sectors = (t.end - t.start) / size;
            let view: Arc<dyn Source> = match layout {
                Layout::Raw => Arc::new(raw::SectorView::new(src.clone(), t.start, sectors)?),
                Layout::Cooked => Arc::new(SubSource::new(src.clone(), t.start, sectors * size)?),
            };
            out.push(Track {
                number: many.then_some(t.number),
                layout,
                start: t.start,
                sectors,
                last_in_file: t.end == len,
                from_cue: true,
                view,
            });
        }
        Ok(Image {
            file,
            src,
            kind: Kind::Disc(out),
            cue: Some((path.to_path_buf(), text)),
        })
    }

    /// The same image read from `path`, where it was written with `grown` more sectors at the
    /// end of the last data track.
    pub fn reopen(&self, path: &Path, grown: u64) -> Result<Image> {
        let src: Arc<dyn Source> = Arc::new(FileSource::open(path)?);
        let kind = match &self.kind {
            Kind::Disc(tracks) => {
                let mut out = Vec::new();
                for t in tracks {
                    let mut t = t.clone();
                    if t.last_in_file {
                        t.sectors += grown;
                    }
                    t.view = match t.layout {
                        Layout::Raw => {
                            Arc::new(raw::SectorView::new(src.clone(), t.start, t.sectors)?)
                        }
                        Layout::Cooked => Arc::new(SubSource::new(
                            src.clone(),
                            t.start,
                            (t.sectors * USER_DATA as u64).min(src.len() - t.start.min(src.len())),
                        )?),
                    };
                    out.push(t);
                }
                Kind::Disc(out)
            }
            k => k.clone(),
        };
        Ok(Image {
            file: path.to_path_buf(),
            src,
            kind,
            cue: self.cue.clone(),
        })
    }

    /// For a raw track found without a cue sheet: the sectors from `from` on that are data
    /// sectors, up to the first that is not; with `true` when they reach the end of the file.
    pub fn data_run(&self, t: &Track, from: u64) -> Result<(u64, bool)> {
        if t.from_cue || t.layout == Layout::Cooked {
            return Ok((t.sectors, t.last_in_file));
        }
        let mut h = [0u8; 16];
        for i in from..t.sectors {
            self.src.read_at(t.start + i * RAW_SECTOR as u64, &mut h)?;
            if h[..12] != SYNC || !matches!(h[15], 1 | 2) {
                return Ok((i, false));
            }
        }
        Ok((t.sectors, t.last_in_file))
    }

    /// The Mode 2 subheader of sector `lba` of a raw track (a data subheader elsewhere).
    pub fn subheader(&self, t: &Track, lba: u64) -> [u8; 4] {
        let mut h = [0u8; 20];
        let ok = t.layout == Layout::Raw
            && lba < t.sectors
            && self
                .src
                .read_at(t.start + lba * RAW_SECTOR as u64, &mut h)
                .is_ok()
            && h[15] == 2;
        if ok {
            [h[16], h[17], h[18], h[19]]
        } else {
            [0, 0, 0x08, 0]
        }
    }

    /// The raw sectors (or 2048-byte blocks) that replace the file's, by byte offset, and
    /// the bytes appended after its end, for the edits of each track (by index).
    pub fn patches(&self, edits: &[(usize, &Sectors)]) -> Result<FilePatches> {
        let Kind::Disc(tracks) = &self.kind else {
            return Ok(Default::default());
        };
        let mut out = BTreeMap::new();
        let mut append = Vec::new();
        for &(ti, s) in edits {
            let t = &tracks[ti];
            let first = self.first_sector(t)?;
            let mut next_new = t.sectors;
            for (&lba, e) in &s.map {
                let bytes = match t.layout {
                    Layout::Cooked => e.data.to_vec(),
                    Layout::Raw => self.raw_sector(t, &first, lba, e)?.to_vec(),
                };
                if lba < t.sectors {
                    out.insert(t.start + lba * t.sector_size(), bytes);
                    continue;
                }
                if !t.last_in_file {
                    return Err(Error::Parameter {
                        what: format!("sector {lba} lies past the end of the data track, which another track follows"),
                    });
                }
                while next_new < lba {
                    // A gap: zero sectors, so the track stays contiguous.
                    let zero = super::iso::Edited {
                        data: Box::new([0; USER_DATA]),
                        fresh: Some([0, 0, 0x08, 0]),
                    };
                    match t.layout {
                        Layout::Cooked => append.extend_from_slice(&zero.data[..]),
                        Layout::Raw => append
                            .extend_from_slice(&self.raw_sector(t, &first, next_new, &zero)?[..]),
                    }
                    next_new += 1;
                }
                append.extend_from_slice(&bytes);
                next_new += 1;
            }
        }
        Ok((out, append))
    }

    fn first_sector(&self, t: &Track) -> Result<[u8; 16]> {
        let mut h = [0u8; 16];
        if t.layout == Layout::Raw && t.sectors > 0 {
            self.src.read_at(t.start, &mut h)?;
        }
        Ok(h)
    }

    fn raw_sector(
        &self,
        t: &Track,
        first: &[u8; 16],
        lba: u64,
        e: &super::iso::Edited,
    ) -> Result<Box<[u8; RAW_SECTOR]>> {
        let mut s = Box::new([0u8; RAW_SECTOR]);
        if lba < t.sectors {
            self.src
                .read_at(t.start + lba * RAW_SECTOR as u64, &mut s[..])?;
        }
        let is_data = s[..12] == SYNC && matches!(s[15], 1 | 2);
        let fresh = match e.fresh {
            Some(sub) => Some(sub),
            None if !is_data => Some([0, 0, 0x08, 0]),
            None if s[15] == 2 && sector::is_form2(&s) => {
                Some([s[16], s[17], s[18] & !0x20, s[19]])
            }
            None => None,
        };
        match fresh {
            Some(sub) => {
                let bcd = |b: u8| (b >> 4) as u64 * 10 + (b & 15) as u64;
                let base = if first[..12] == SYNC {
                    ((bcd(first[12]) * 60 + bcd(first[13])) * 75 + bcd(first[14]))
                        .saturating_sub(150)
                } else {
                    t.start / RAW_SECTOR as u64
                };
                let mode2 = first[15] != 1;
                Ok(sector::new_sector(
                    base + lba,
                    mode2.then_some(sub),
                    &e.data,
                ))
            }
            None => {
                let at = sector::data_at(&s);
                s[at..at + USER_DATA].copy_from_slice(&e.data[..]);
                sector::seal(&mut s);
                Ok(s)
            }
        }
    }

    /// Streams the file to `w` with `patches` (byte offset → bytes of the same length) and
    /// `append` after its end; returns the bytes written.
    pub fn write_patched(
        &self,
        patches: &BTreeMap<u64, Vec<u8>>,
        append: &[u8],
        w: &mut dyn Write,
    ) -> Result<u64> {
        let len = self.src.len();
        let mut at = 0u64;
        for (&off, bytes) in patches {
            if off < at || off + bytes.len() as u64 > len {
                return Err(Error::Parameter {
                    what: format!("overlapping or out-of-range edit at byte {off}"),
                });
            }
            copy(self.src.as_ref(), at, off - at, w)?;
            w.write_all(bytes)?;
            at = off + bytes.len() as u64;
        }
        copy(self.src.as_ref(), at, len - at, w)?;
        w.write_all(append)?;
        Ok(len + append.len() as u64)
    }
}

impl Track {
    /// Bytes per sector in the file.
    pub fn sector_size(&self) -> u64 {
        match self.layout {
            Layout::Cooked => USER_DATA as u64,
            Layout::Raw => RAW_SECTOR as u64,
        }
    }
}

/// True when two paths name the same file.
pub fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// The cue sheet `text` (read from `cue_dir`) for the image written as `out_bin`: the FILE
/// naming `data_file` names `out_bin` (beside the new sheet); other files keep their names when
/// the new sheet sits in the same folder, else are named by their full path.
pub fn cue_for(text: &str, cue_dir: &Path, data_file: &Path, out_bin: &Path) -> String {
    let out_dir = match out_bin.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let same_dir = same_file(cue_dir, out_dir);
    let mut out = String::with_capacity(text.len() + 64);
    for line in text.split_inclusive('\n') {
        let l = line.trim_start();
        let rest = match (l.get(..4), l.get(4..)) {
            (Some(k), Some(r))
                if k.eq_ignore_ascii_case("FILE") && r.starts_with(char::is_whitespace) =>
            {
                r
            }
            _ => {
                out.push_str(line);
                continue;
            }
        };
        let rest = rest.trim_start();
        let (name, tail) = match rest.strip_prefix('"') {
            Some(r) => match r.split_once('"') {
                Some((n, t)) => (n, t),
                None => (r.trim_end(), ""),
            },
            None => rest
                .split_once(char::is_whitespace)
                .unwrap_or((rest.trim_end(), "")),
        };
        let file = cue_dir.join(name);
        let new_name = if same_file(&file, data_file) {
            out_bin
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default()
        } else if same_dir {
            name.to_string()
        } else {
            file.canonicalize().unwrap_or(file).display().to_string()
        };
        let indent = &line[..line.len() - l.len()];
        let tail = tail.trim_end_matches(['\r', '\n']);
        let eol = &line[line.trim_end_matches(['\r', '\n']).len()..];
        out.push_str(&format!(
            "{indent}FILE \"{new_name}\"{}{tail}{eol}",
            if tail.starts_with(' ') { "" } else { " " }
        ));
    }
    out
}
