//! Putting assets back: replacing finds inside disc images, PBO archives and plain files.
//!
//! | image | a replacement of the same size or smaller | a larger one | module |
//! |---|---|---|---|
//! | ISO 9660 (2048-byte sectors) | written over the old bytes, padded with zeros | a whole file: kept in its sectors if they hold it, else moved past the last used sector (inside the data track, or appended when the track may grow); its directory records and the volume space size updated | [`iso`] |
//! | raw CD image (2352-byte sectors, `.cue` or not) | as ISO, through the sectors' user data | as ISO; every sector written gets its EDC and ECC again | [`sector`], [`image`] |
//! | PBO | the entry's bytes, padded | a whole entry: the archive written again with its header sizes and SHA-1 footer | [`pbo`] |
//! | any other file | written over the old bytes, padded | an error | |
//!
//! A replacement names a find by its place as `scan` prints it ([`place`]); the new bytes
//! must read as the format found there and validate without errors (unless
//! [`Options::force`]). The output is written to a temporary file beside it, read back (every
//! replacement found at its place with its bytes), then renamed into place; the input is
//! never written. A cue sheet that describes the image is written beside the output, naming it.

pub mod image;
pub mod iso;
pub mod pbo;
pub mod place;
pub mod sector;

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use image::{Image, Kind};
use place::{Place, Resolved};

use crate::error::{Error, Result};
use crate::output::{Claim, Role};
use crate::scan::iso::SECTOR;
use crate::scan::source::{read_vec, Source};
use crate::{Format, Limits, Severity};

/// One asset to put back.
#[derive(Debug, Clone)]
pub struct Replacement {
    /// Where: a find's place as `scan` prints it (`disc.bin:/DATA/PACK.BIN@4096`, or without
    /// the image's name, `/DATA/PACK.BIN@4096`; `+4096` is read too).
    pub place: String,
    /// The new bytes.
    pub data: Vec<u8>,
}

/// How to patch.
#[derive(Debug, Clone, Copy, Default)]
pub struct Options {
    /// Put bytes that are not a valid file of the kind found at the place.
    pub force: bool,
    /// Work out every change, write nothing.
    pub dry_run: bool,
    /// Replace existing output files (the CLI's `--force` sets both). Never a file the image
    /// is made of.
    pub replace: bool,
}

/// One replacement done (or, in a dry run, to be done).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// The place.
    pub place: String,
    /// Format of the find there.
    pub format: Format,
    /// Its size.
    pub old_size: u64,
    /// The replacement's size.
    pub new_size: u64,
    /// What was done, in words.
    pub how: String,
}

/// What a patch did.
#[derive(Debug, Clone, Default)]
pub struct Patched {
    /// Each replacement.
    pub changes: Vec<Change>,
    /// Notes (padding added).
    pub notes: Vec<String>,
    /// Bytes the image grew by.
    pub grown: u64,
    /// Files written (none in a dry run): the image, then its cue sheet.
    pub written: Vec<PathBuf>,
}

/// An edit of one container: bytes over bytes, or the whole container anew.
#[derive(Debug, Clone)]
enum Edit {
    At(u64, Vec<u8>),
    Whole(Vec<u8>),
}

/// Largest archive rewritten in memory (a PBO inside a disc image).
const MAX_IN_MEMORY: u64 = 1 << 30;

struct Job {
    r: Resolved,
    edit: Edit,
}

/// Patches `image` into `out` (see the module docs).
pub fn patch(image: &Path, reps: &[Replacement], out: &Path, opts: Options) -> Result<Patched> {
    if reps.is_empty() {
        return Err(Error::Parameter {
            what: "nothing to replace: give at least one PLACE and NEWFILE".into(),
        });
    }
    // Places as scan prints them name the image too: left out here.
    let reps: &[Replacement] = &reps
        .iter()
        .map(|r| Replacement {
            place: place::without_image(&r.place, image),
            data: r.data.clone(),
        })
        .collect::<Vec<_>>();
    let img = Image::open(image)?;
    let (out_bin, out_cue) = outputs(&img, out);
    // The image's files are the run's inputs: the image as named, its data file, its cue sheet
    // and every FILE the sheet names (an audio track's too), links resolved.
    let rule = crate::output::Outputs::new(opts.replace);
    rule.input(image);
    rule.input(&img.file);
    if let Some((cue_path, text)) = &img.cue {
        rule.input(cue_path);
        let dir = cue_path.parent().unwrap_or(Path::new("."));
        if let Ok(tracks) = crate::scan::cue::parse(text, dir) {
            rule.inputs(tracks.iter().map(|t| t.file.as_path()));
        }
    }
    for o in std::iter::once(&out_bin).chain(&out_cue) {
        if rule.is_input(o) {
            return Err(Error::Parameter {
                what: format!(
                    "{}: the output would replace a file the image is made of; the image is never modified",
                    crate::text::escape(&o.display().to_string())
                ),
            });
        }
    }
    let mut done = Patched::default();
    let mut all: Option<Vec<(String, crate::scan::Find)>> = None;
    let mut jobs = Vec::new();
    for rep in reps {
        let p = place::parse(&rep.place)?;
        let r = match place::resolve(&img, &p) {
            Ok(r) => r,
            Err(Error::Parameter { what }) => {
                let finds = all.get_or_insert_with(|| place::all_finds(&img));
                return Err(place::nearest(&p, &what, finds));
            }
            Err(e) => return Err(e),
        };
        let finds = place::finds_in(&r);
        let Some(find) = finds.iter().find(|f| f.offset == p.offset) else {
            let named: Vec<(String, crate::scan::Find)> = finds
                .iter()
                .map(|f| {
                    (
                        format!("{}@{}", place::split(&p.text).map_or("", |c| c.0), f.offset),
                        f.clone(),
                    )
                })
                .collect();
            return Err(place::nearest(
                &p,
                &format!("{}: no asset starts there", p.text),
                &named,
            ));
        };
        if !opts.force {
            check_valid(&p, find.format, &rep.data)?;
        }
        let (old, new) = (find.size, rep.data.len() as u64);
        let growable = r.file.is_some() || r.entry.is_some();
        let edit = if new <= old {
            let mut b = rep.data.clone();
            b.resize(old as usize, 0);
            if new < old {
                done.notes.push(format!(
                    "{}: the new {} is {} bytes smaller than the old; padded with {} zero bytes",
                    p.text,
                    find.format,
                    old - new,
                    old - new
                ));
            }
            Edit::At(p.offset, b)
        } else if p.offset == 0 && old == r.container.len() && growable {
            Edit::Whole(rep.data.clone())
        } else {
            let why = if p.offset == 0 && old == r.container.len() {
                "the image is not a disc image or PBO, so nothing can move"
            } else {
                "it lies inside a larger file (only a whole file of a disc image or a whole PBO entry can grow)"
            };
            return Err(Error::Parameter {
                what: format!(
                    "{}: the new {} is {new} bytes, the old {old}: {} bytes are missing, and {why}",
                    p.text,
                    find.format,
                    new - old
                ),
            });
        };
        done.changes.push(Change {
            place: p.text.clone(),
            format: find.format,
            old_size: old,
            new_size: new,
            how: String::new(),
        });
        jobs.push(Job { r, edit });
    }
    let (patches, append, pbo_top) = plan(&img, jobs, &mut done)?;
    if opts.dry_run {
        return Ok(done);
    }
    // The cue sheet beside the image the user named is written when the user named it, or
    // when its name is new; an existing one is replaced only with `replace`, else left (noted).
    let named_cue = out
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("cue"));
    let (role_bin, role_cue) = if named_cue {
        (Role::Derived, Role::Named)
    } else {
        (Role::Named, Role::Derived)
    };
    let bin_claim = rule.claim(&out_bin, role_bin, None)?;
    let cue_text = img.cue.as_ref().map(|(cue_in, text)| {
        let cue_dir = cue_in.parent().unwrap_or(Path::new("."));
        image::cue_for(text, cue_dir, &img.file, &out_bin)
    });
    let cue_claim = match (&out_cue, cue_text) {
        (Some(c), Some(text)) => match rule.claim(c, role_cue, Some(text.as_bytes())) {
            Ok(claim) => Some((claim, text)),
            Err(Error::Refused { .. }) if !named_cue && !opts.replace => {
                done.notes.push(format!(
                    "{}: exists, not replaced (name it as the output, -o {}, or pass --force to write the new cue sheet)",
                    crate::text::escape(&c.display().to_string()),
                    crate::text::escape(&c.display().to_string())
                ));
                None
            }
            Err(e) => return Err(e),
        },
        _ => None,
    };
    write(
        &img, bin_claim, cue_claim, reps, &patches, &append, pbo_top, opts, &mut done,
    )?;
    Ok(done)
}

/// The image file and cue sheet to write: OUT (a `.cue` OUT names the sheet, the image beside
/// it as `.bin`), and a sheet beside the image when the input came with one.
fn outputs(img: &Image, out: &Path) -> (PathBuf, Option<PathBuf>) {
    let is_cue = out
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("cue"));
    match (&img.cue, is_cue) {
        (Some(_), true) => (out.with_extension("bin"), Some(out.to_path_buf())),
        (Some(_), false) => (out.to_path_buf(), Some(out.with_extension("cue"))),
        (None, _) => (out.to_path_buf(), None),
    }
}

fn check_valid(p: &Place, format: Format, data: &[u8]) -> Result<()> {
    let model =
        crate::read_as(data, Some(format), &Limits::default()).map_err(|e| Error::Parameter {
            what: format!(
                "{}: the new file is not a valid {format} ({e}); --force puts it anyway",
                p.text
            ),
        })?;
    if let Some(i) = model
        .validate()
        .into_iter()
        .find(|i| i.severity == Severity::Error)
    {
        return Err(Error::Parameter {
            what: format!(
                "{}: the new {format} does not validate ({i}); --force puts it anyway",
                p.text
            ),
        });
    }
    // What the scanner accepts (it also bounds sizes and checks where structures end), so
    // that the check after writing finds it.
    let found = crate::scan::scan_bytes(data, &place::scan_options());
    if !found.iter().any(|f| f.offset == 0 && f.format == format) {
        return Err(Error::Parameter {
            what: format!(
                "{}: the new file reads as a {format}, but `scan` would not accept it at its start; --force puts it anyway",
                p.text
            ),
        });
    }
    Ok(())
}

/// Which container a job edits, as a key: track, ISO file, PBO entry.
fn key(r: &Resolved) -> (Option<usize>, Option<u64>, Option<usize>) {
    (
        r.track,
        r.file.as_ref().map(|f| f.record),
        r.entry.as_ref().map(|e| e.2),
    )
}

/// Applies the edits of one container to its bytes (`None`: the container anew).
fn merge(edits: &[Edit], text: &str) -> Result<Option<Vec<u8>>> {
    if let [Edit::Whole(b)] = edits {
        return Ok(Some(b.clone()));
    }
    if edits.iter().any(|e| matches!(e, Edit::Whole(_))) {
        return Err(Error::Parameter {
            what: format!("{text}: a whole-file replacement and another in the same file"),
        });
    }
    let mut spans: Vec<(u64, u64)> = edits
        .iter()
        .filter_map(|e| match e {
            Edit::At(o, b) => Some((*o, o + b.len() as u64)),
            Edit::Whole(_) => None,
        })
        .collect();
    spans.sort_unstable();
    if spans.windows(2).any(|w| w[1].0 < w[0].1) {
        return Err(Error::Parameter {
            what: format!("{text}: two replacements overlap"),
        });
    }
    Ok(None)
}

type Plan = (
    BTreeMap<u64, Vec<u8>>,
    Vec<u8>,
    Option<BTreeMap<usize, pbo::EntryData>>,
);

/// An archive's place, its new entries, and the replacements that made them.
type Archive = (Resolved, BTreeMap<usize, pbo::EntryData>, Vec<usize>);

/// Turns the jobs into file patches (or, for a PBO image, entry data).
fn plan(img: &Image, jobs: Vec<Job>, done: &mut Patched) -> Result<Plan> {
    let mut groups: BTreeMap<_, Vec<(usize, Job)>> = BTreeMap::new();
    for (i, j) in jobs.into_iter().enumerate() {
        groups.entry(key(&j.r)).or_default().push((i, j));
    }
    // PBO entries first: each archive's entries become its new bytes.
    let mut archives: BTreeMap<(Option<usize>, Option<u64>), Archive> = BTreeMap::new();
    let mut file_jobs: Vec<(Vec<usize>, Resolved, Vec<Edit>)> = Vec::new();
    for ((track, file, entry), list) in groups {
        let r = list[0].1.r.clone();
        let ids: Vec<usize> = list.iter().map(|x| x.0).collect();
        let edits: Vec<Edit> = list.into_iter().map(|x| x.1.edit).collect();
        let text = &done.changes[ids[0]].place;
        let whole = merge(&edits, text)?;
        let Some(ei) = entry else {
            file_jobs.push((ids, r, edits));
            continue;
        };
        let (archive, _, _) = r.entry.as_ref().ok_or_else(|| Error::Parameter {
            what: "no entry".into(),
        })?;
        let e = &archive.entries[ei];
        let mut bytes = match whole {
            Some(b) => b,
            None => read_vec(r.container.as_ref(), 0, r.container.len() as usize)?,
        };
        for ed in &edits {
            if let Edit::At(o, b) = ed {
                bytes[*o as usize..*o as usize + b.len()].copy_from_slice(b);
            }
        }
        let data = if e.is_packed() {
            pbo::EntryData {
                original_size: Some(bytes.len() as u32),
                bytes: crate::scan::lzss::pack(&bytes),
            }
        } else {
            pbo::EntryData {
                bytes,
                original_size: None,
            }
        };
        for &i in &ids {
            done.changes[i].how = format!(
                "entry {:?} of the PBO written again ({} bytes)",
                e.name,
                data.bytes.len()
            );
        }
        let slot = archives
            .entry((track, file))
            .or_insert_with(|| (r.clone(), BTreeMap::new(), Vec::new()));
        slot.1.insert(ei, data);
        slot.2.extend(ids);
    }
    let mut pbo_top = None;
    for ((_, file), (r, entries, ids)) in archives {
        let Some((archive, src, _)) = &r.entry else {
            continue;
        };
        if file.is_none() && matches!(img.kind, Kind::Pbo) {
            pbo_top = Some(entries);
            continue;
        }
        let mut bytes = Vec::new();
        let mut limited = LimitedWriter {
            inner: &mut bytes,
            left: MAX_IN_MEMORY,
        };
        pbo::rewrite(src.as_ref(), archive, &entries, &mut limited)?;
        let mut outer = r.clone();
        outer.entry = None;
        outer.container = src.clone();
        file_jobs.push((ids, outer, vec![Edit::Whole(bytes)]));
    }
    // Then files of the disc and plain bytes.
    let mut per_track: BTreeMap<usize, iso::Sectors> = BTreeMap::new();
    let mut volumes: BTreeMap<usize, iso::Volume> = BTreeMap::new();
    let mut patches = BTreeMap::new();
    for (ids, r, edits) in file_jobs {
        let Kind::Disc(tracks) = &img.kind else {
            for e in edits {
                if let Edit::At(o, b) = e {
                    patches.insert(o, b);
                }
            }
            for &i in &ids {
                done.changes[i].how = "written in place".into();
            }
            continue;
        };
        let ti = r.track.unwrap_or(0);
        let t = &tracks[ti];
        let view = t.view.as_ref();
        let sectors = per_track.entry(ti).or_default();
        let base = r.file.as_ref().map_or(0, |f| f.offset);
        let mut how = "written in place".to_string();
        for e in edits {
            match e {
                Edit::At(o, b) => sectors.write(view, base + o, &b)?,
                Edit::Whole(b) => {
                    let file = r.file.as_ref().ok_or_else(|| Error::Parameter {
                        what: "no file".into(),
                    })?;
                    let vol = match volumes.entry(ti) {
                        std::collections::btree_map::Entry::Occupied(o) => o.into_mut(),
                        std::collections::btree_map::Entry::Vacant(v) => {
                            v.insert(iso::volume(view)?)
                        }
                    };
                    let (room, grow) = img.data_run(t, vol.used_end)?;
                    let (first, old_sec) =
                        (file.offset / SECTOR, file.size.div_ceil(SECTOR).max(1));
                    let sub = |k: u64, n: u64| {
                        if k + 1 == n {
                            img.subheader(t, first + old_sec - 1)
                        } else {
                            let mut s = img.subheader(t, first);
                            s[2] &= !0x81;
                            s
                        }
                    };
                    let placed = iso::put_file(vol, view, sectors, file, &b, room, grow, &sub)?;
                    how = match placed {
                        iso::Placed::InPlace => format!(
                            "{} written in its own sectors, its size set to {}",
                            file.path,
                            b.len()
                        ),
                        iso::Placed::Moved { extent, appended } => {
                            done.grown += appended * t.sector_size();
                            format!(
                                "{} moved to sector {extent}{}; its directory records updated",
                                file.path,
                                if appended > 0 {
                                    format!(", the image grown by {appended} sectors")
                                } else {
                                    String::new()
                                }
                            )
                        }
                    };
                }
            }
        }
        for &i in &ids {
            if done.changes[i].how.is_empty() {
                done.changes[i].how = how.clone();
            } else {
                done.changes[i].how = format!("{}; {how}", done.changes[i].how);
            }
        }
    }
    let edits: Vec<(usize, &iso::Sectors)> = per_track.iter().map(|(k, v)| (*k, v)).collect();
    let (disc, append) = img.patches(&edits)?;
    patches.extend(disc);
    Ok((patches, append, pbo_top))
}

/// A writer into memory that refuses to go past a limit.
struct LimitedWriter<'a> {
    inner: &'a mut Vec<u8>,
    left: u64,
}

impl Write for LimitedWriter<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if buf.len() as u64 > self.left {
            return Err(std::io::Error::other(format!(
                "an archive rewritten in memory grows past {MAX_IN_MEMORY} bytes"
            )));
        }
        self.left -= buf.len() as u64;
        self.inner.extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Writes the output to a temporary file, reads every replacement back, renames it into place
/// (the output rule's writer, [`crate::output::Claim`]); then the new cue sheet, if claimed.
#[allow(clippy::too_many_arguments)]
fn write(
    img: &Image,
    out_bin: Claim,
    out_cue: Option<(Claim, String)>,
    reps: &[Replacement],
    patches: &BTreeMap<u64, Vec<u8>>,
    append: &[u8],
    pbo_top: Option<BTreeMap<usize, pbo::EntryData>>,
    opts: Options,
    done: &mut Patched,
) -> Result<()> {
    let bin_path = out_bin.path().to_path_buf();
    let sector = match &img.kind {
        Kind::Disc(t) => t.first().map_or(SECTOR, |t| t.sector_size()),
        _ => SECTOR,
    };
    out_bin.write_checked(
        |w| {
            match &pbo_top {
                Some(entries) => {
                    let archive = crate::scan::pbo::read(img.src.as_ref())?;
                    pbo::rewrite(img.src.as_ref(), &archive, entries, w)?;
                }
                None => {
                    img.write_patched(patches, append, w)?;
                }
            }
            Ok(())
        },
        |tmp| {
            let again = img.reopen(tmp, append.len() as u64 / sector)?;
            for (rep, c) in reps.iter().zip(&done.changes) {
                verify(&again, rep, c, opts)?;
            }
            Ok(())
        },
    )?;
    done.written.push(bin_path.clone());
    if let Some((cue_out, text)) = out_cue {
        let path = cue_out.path().to_path_buf();
        cue_out.write(text.as_bytes())?;
        done.written.push(path);
    }
    Ok(())
}

/// Reads a replacement back from the written image: its bytes at its place (and, unless
/// forced, an asset of its format found there).
fn verify(img: &Image, rep: &Replacement, c: &Change, opts: Options) -> Result<()> {
    let p = place::parse(&rep.place)?;
    let failed = |what: String| Error::Parameter {
        what: format!(
            "{}: read back from the output: {what}; nothing was written",
            p.text
        ),
    };
    let r = place::resolve(img, &p).map_err(|e| failed(e.to_string()))?;
    let n = rep.data.len().max(c.old_size as usize);
    let got = read_vec(r.container.as_ref(), p.offset, n).map_err(|e| failed(e.to_string()))?;
    let mut want = rep.data.clone();
    want.resize(n, 0);
    if got != want {
        return Err(failed("other bytes than the replacement's".into()));
    }
    if !opts.force
        && !place::finds_in(&r)
            .iter()
            .any(|f| f.offset == p.offset && f.format == c.format)
    {
        return Err(failed(format!("no {} found there", c.format)));
    }
    Ok(())
}

/// Reads a disc image, PBO or file the way the patcher does (container walk, every ISO tree,
/// PBO header) without writing: the fuzz target's entry point. Returns the number of places
/// found.
pub fn inspect(src: Arc<dyn Source>, pbo_name: bool) -> Result<usize> {
    let img = Image::from_source(PathBuf::from("fuzz"), src, pbo_name)?;
    if let Kind::Disc(tracks) = &img.kind {
        for t in tracks {
            if crate::scan::iso::looks_like(t.view.as_ref()) {
                let vol = iso::volume(t.view.as_ref())?;
                img.data_run(t, vol.used_end)?;
            }
        }
    }
    Ok(place::all_finds(&img).len())
}
