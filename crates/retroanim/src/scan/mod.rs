//! Finding assets inside disc images, archives, executables and folders.
//!
//! An input is walked as the container it is, detected from its content (a `.cue` sheet by its
//! extension, since cue sheets are text):
//!
//! | container | detected by | walked as | layout |
//! |---|---|---|---|
//! | cue sheet | `.cue` extension | its data tracks; audio tracks listed, skipped | [`cue`] |
//! | raw CD image | sync pattern at byte 0, a whole number of 2352-byte sectors | the 2048-byte user data of each sector, as one run | [`raw`] |
//! | ISO 9660 | `CD001` at sector 16 (of the raw user data or the file) | each file; Form 2 / interleaved files listed, skipped | [`iso`] |
//! | PBO | an empty name and `Vers` at byte 0, or a `.pbo` extension | each entry, LZSS-packed ones unpacked ([`lzss`]); encrypted entries listed, skipped | [`pbo`] |
//! | PCSX savestate | `STv4 PCSX` at byte 0, inside gzip or RetroArch's RZIP / `RASTATE` too | its RAM as a RAM dump (`STATE:/RAM`); its VRAM kept in [`Report::vram`] | [`savestate`] |
//! | blob | anything else | every offset `align` allows | [`blob`] |
//!
//! Every byte is read through a [`Source`] a bounded number of bytes at a time (4 MiB chunks,
//! whose buffer a candidate's window running past the chunk extends by at most
//! [`ScanOptions::max_asset`], one per worker thread), so memory does not grow with the image;
//! each byte is read about once (a window past a chunk's end is read again by the next chunk).
//! The user data of raw sectors is scatter-read straight into the chunk (`preadv`). Files and
//! chunks are scanned in parallel with rayon.
//!
//! Each find carries where it is (the input path, the container path inside it such as
//! `disc.bin:/DATA/CHARA.BIN`, the offset in that file and in the raw image), its format, its size
//! from its own structure, its summary as `retroanim info --json` gives it, and its validation
//! status. A find that lies inside a larger find (a TIM inside an HMD's image data) is reported
//! once, in its parent's [`Find::contains`]. Each TOD lists the TMD finds that could be its model
//! ([`Find::tmd_candidates`]): every TMD ID its TMD-ID packets set is an object of the TMD (ID k
//! is object k − 1, see `formats::tod::play`), ranked by evidence with a confidence each, as
//! [`crate::assemble::models`] ranks them (below 0.5: a candidate, not a model).

pub mod blob;
pub mod cue;
mod find;
pub mod iso;
pub mod lenient;
mod loose;
pub mod lzss;
pub mod pbo;
mod pretest;
pub mod ram;
pub mod raw;
pub mod savestate;
mod sink;
pub mod source;
mod types;

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use rayon::prelude::*;

pub use blob::{Rejection, Stats};
pub use savestate::SavestateVram;
pub use sink::MAX_SKIPPED_LISTED;
pub use source::{FileSource, MemSource, Source, SubSource};
pub use types::*;

use crate::error::Result;
use crate::input::FileId;
use crate::Model;
use sink::Sink;

/// The top-level image a source belongs to: offsets in it are image offsets.
#[derive(Debug)]
struct ImageRoot(Arc<dyn Source>);

impl Source for ImageRoot {
    fn len(&self) -> u64 {
        self.0.len()
    }
    fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<()> {
        self.0.read_at(offset, buf)
    }
    fn read_vectored_at(&self, offset: u64, bufs: &mut [std::io::IoSliceMut<'_>]) -> Result<()> {
        self.0.read_vectored_at(offset, bufs)
    }
    fn image_offset(&self, offset: u64) -> Option<u64> {
        Some(offset)
    }
    fn next_data(&self, offset: u64) -> u64 {
        self.0.next_data(offset)
    }
}

/// Most containers nested in one another (an archive in an image in an image…).
const MAX_DEPTH: usize = 4;

/// Bytes one input may have scanned, as a multiple of its size: a container whose files
/// overlap (directory records sharing extents, cue tracks over one file) cannot make a scan
/// read its bytes over and over.
pub const READ_FACTOR: u64 = 4;
/// Bytes every input may have scanned whatever its size (packed PBO entries unpack to more
/// than they take).
pub const READ_FLOOR: u64 = 64 << 20;

struct Ctx<'a> {
    opts: &'a ScanOptions,
    sink: &'a Sink,
    stats: &'a Stats,
    path: &'a str,
    /// Bytes this input may still have scanned (see [`READ_FACTOR`]).
    budget: &'a std::sync::atomic::AtomicU64,
}

/// The read budget of an input of `len` bytes.
fn budget_for(len: u64) -> std::sync::atomic::AtomicU64 {
    std::sync::atomic::AtomicU64::new(len.saturating_mul(READ_FACTOR).max(READ_FLOOR))
}

impl Ctx<'_> {
    /// Takes `n` bytes from the read budget; false (nothing taken) when fewer are left.
    fn take(&self, n: u64) -> bool {
        use std::sync::atomic::Ordering::Relaxed;
        self.budget
            .fetch_update(Relaxed, Relaxed, |left| left.checked_sub(n))
            .is_ok()
    }

    /// Gives back `n` bytes taken for work that is charged again later (an unpacked entry,
    /// charged when unpacked and again when scanned, counts once).
    fn give_back(&self, n: u64) {
        use std::sync::atomic::Ordering::Relaxed;
        self.budget
            .fetch_update(Relaxed, Relaxed, |left| Some(left.saturating_add(n)))
            .ok();
    }
}

/// Scans files and folders (recursively; symbolic links to folders are not followed, links
/// inside a folder to files outside it are listed as skipped unless
/// [`ScanOptions::follow_links`]). Each file is scanned once however many names reach it (hard
/// links, symbolic links, a path given twice): its other names are listed as skipped.
pub fn scan_paths(paths: &[PathBuf], opts: &ScanOptions) -> Report {
    let start = Instant::now();
    let sink = Sink::default();
    let stats = Stats::default();
    let mut files = Vec::new();
    for p in paths {
        collect_files(p, &mut files, &sink, opts.follow_links);
    }
    // A .bin that a listed cue sheet names is scanned through the cue sheet only.
    let mut via_cue = HashSet::new();
    for f in files.iter().filter(|f| is_cue(f)) {
        if let Ok(text) = cue::read_sheet(f) {
            if let Ok(tracks) = cue::parse(&text, f.parent().unwrap_or(Path::new("."))) {
                via_cue.extend(tracks.iter().filter_map(|t| FileId::of(&t.file)));
            }
        }
    }
    files.retain(|f| is_cue(f) || FileId::of(f).map_or(true, |id| !via_cue.contains(&id)));
    once_each(&mut files, &sink);
    files.par_iter().for_each(|f| {
        let name = f.display().to_string();
        let budget = budget_for(std::fs::metadata(f).map_or(0, |m| m.len()));
        let cx = Ctx {
            opts,
            sink: &sink,
            stats: &stats,
            path: &name,
            budget: &budget,
        };
        if let Err(e) = scan_file(f, &cx) {
            sink.error(&name, e);
        }
    });
    finish(sink, stats, start)
}

/// Scans one source (an image, archive or blob already open) under the name `name`.
pub fn scan_source(src: Arc<dyn Source>, name: &str, opts: &ScanOptions) -> Report {
    scan_source_as(src, name, false, opts)
}

/// [`scan_source`], walking the source as a PBO archive when `pbo` is true (as a `.pbo` file
/// name makes [`scan_paths`] do).
pub fn scan_source_as(src: Arc<dyn Source>, name: &str, pbo: bool, opts: &ScanOptions) -> Report {
    let start = Instant::now();
    let sink = Sink::default();
    let stats = Stats::default();
    let budget = budget_for(src.len());
    let cx = Ctx {
        opts,
        sink: &sink,
        stats: &stats,
        path: name,
        budget: &budget,
    };
    walk(src, name, pbo, 0, &cx);
    finish(sink, stats, start)
}

fn finish(mut sink: Sink, stats: Stats, start: Instant) -> Report {
    let (skipped, skipped_unlisted) = sink.take_skipped();
    let mut finds = sink.finds.into_inner().unwrap_or_default();
    finds.sort_by(|a, b| (&a.path, &a.container, a.offset).cmp(&(&b.path, &b.container, b.offset)));
    link_tods(&mut finds);
    let mut errors = sink.errors.into_inner().unwrap_or_default();
    errors.sort_by(|a, b| a.container.cmp(&b.container));
    let mut vram = sink.vram.into_inner().unwrap_or_default();
    vram.sort_by(|a, b| a.container.cmp(&b.container));
    Report {
        finds,
        skipped,
        skipped_unlisted,
        errors,
        vram,
        stats,
        seconds: start.elapsed().as_secs_f64(),
    }
}

fn is_cue(p: &Path) -> bool {
    p.extension().is_some_and(|e| e.eq_ignore_ascii_case("cue"))
}

/// Keeps the first name of each file (by [`FileId`]); its other names are listed as skipped.
fn once_each(files: &mut Vec<PathBuf>, sink: &Sink) {
    let mut first: std::collections::HashMap<FileId, PathBuf> = Default::default();
    files.retain(|f| {
        let Some(id) = FileId::of(f) else { return true };
        match first.entry(id) {
            std::collections::hash_map::Entry::Vacant(e) => {
                e.insert(f.clone());
                true
            }
            std::collections::hash_map::Entry::Occupied(e) => {
                sink.skip(
                    f.display().to_string(),
                    std::fs::metadata(f).map_or(0, |m| m.len()),
                    &format!(
                        "the same file as {} (scanned there)",
                        crate::text::escape(&e.get().display().to_string())
                    ),
                );
                false
            }
        }
    });
}

fn collect_files(p: &Path, out: &mut Vec<PathBuf>, sink: &Sink, follow_links: bool) {
    let meta = match std::fs::metadata(p) {
        Ok(m) => m,
        Err(e) => return sink.error(&p.display().to_string(), e.into()),
    };
    if meta.is_file() {
        out.push(p.to_path_buf());
        return;
    }
    if !meta.is_dir() {
        return;
    }
    let top = p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
    let mut stack = vec![p.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let entries = match std::fs::read_dir(&dir) {
            Ok(e) => e,
            Err(e) => {
                sink.error(&dir.display().to_string(), e.into());
                continue;
            }
        };
        let mut names: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
        names.sort();
        for n in names.into_iter().rev() {
            match std::fs::symlink_metadata(&n) {
                Ok(m) if m.is_dir() => stack.push(n),
                Ok(m) if m.is_file() => out.push(n),
                Ok(m) if m.file_type().is_symlink() && n.is_file() => match n.canonicalize() {
                    Ok(t) if follow_links || t.starts_with(&top) => out.push(n),
                    Ok(t) => sink.skip(
                        n.display().to_string(),
                        std::fs::metadata(&n).map_or(0, |m| m.len()),
                        &format!(
                            "a symbolic link to {}, outside the scanned folder: not read \
                                 (--follow-links reads it)",
                            crate::text::escape(&t.display().to_string())
                        ),
                    ),
                    Err(e) => sink.error(&n.display().to_string(), e.into()),
                },
                _ => {}
            }
        }
    }
    out[..].sort();
}

fn scan_file(path: &Path, cx: &Ctx<'_>) -> Result<()> {
    if is_cue(path) {
        return scan_cue(path, cx);
    }
    let src: Arc<dyn Source> = Arc::new(FileSource::open(path)?);
    if loose::rsd_set(path, &src, cx) || loose::diff_file(path, &src, cx) {
        return Ok(());
    }
    let pbo_ext = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("pbo"));
    walk(src, cx.path, pbo_ext, 0, cx);
    Ok(())
}

fn scan_cue(path: &Path, cx: &Ctx<'_>) -> Result<()> {
    let text = cue::read_sheet(path)?;
    let mut tracks = cue::parse(&text, path.parent().unwrap_or(Path::new(".")))?;
    // One file however the sheet names it (another spelling, a hard or symbolic link): the
    // first name of each file stands for it.
    let mut first_name: std::collections::HashMap<FileId, PathBuf> = Default::default();
    let mut names: std::collections::HashMap<PathBuf, PathBuf> = Default::default();
    for t in &tracks {
        if let Some(id) = FileId::of(&t.file) {
            let first = first_name.entry(id).or_insert_with(|| t.file.clone());
            names.insert(t.file.clone(), first.clone());
        }
    }
    cue::resolve_with(&mut tracks, &|f| Ok(std::fs::metadata(f)?.len()), &|f| {
        names.get(f).cloned().unwrap_or_else(|| f.to_path_buf())
    })?;
    // The budget of a cue sheet: its files (each once), not the sheet's few bytes.
    let mut seen = HashSet::new();
    let total: u64 = tracks
        .iter()
        .filter(|t| seen.insert(names.get(&t.file).unwrap_or(&t.file).clone()))
        .filter_map(|t| std::fs::metadata(&t.file).ok())
        .map(|m| m.len())
        .fold(0u64, u64::saturating_add);
    let budget = budget_for(total);
    let cx = &Ctx {
        budget: &budget,
        ..*cx
    };
    let many = tracks.len() > 1;
    let name_of = |t: &cue::Track| {
        if many {
            format!("{}#track{:02}", t.file.display(), t.number)
        } else {
            t.file.display().to_string()
        }
    };
    for t in &tracks {
        let name = name_of(t);
        if let Some(n) = t.same_as {
            let first = tracks.iter().find(|o| o.number == n).map(name_of);
            cx.sink.skip(
                name,
                t.end - t.start,
                &format!(
                    "the same bytes as {} (read once)",
                    first.unwrap_or_else(|| format!("track {n}"))
                ),
            );
            continue;
        }
        match t.mode {
            cue::TrackMode::Audio => cx.sink.skip(name, t.end - t.start, "audio track"),
            cue::TrackMode::Mode2_2336 => {
                cx.sink
                    .skip(name, t.end - t.start, "MODE2/2336 track (not read)")
            }
            mode => {
                let file: Arc<dyn Source> = Arc::new(FileSource::open(&t.file)?);
                let root: Arc<dyn Source> = Arc::new(ImageRoot(file));
                let track: Arc<dyn Source> = if mode == cue::TrackMode::Raw2352 {
                    Arc::new(raw::SectorView::new(
                        root,
                        t.start,
                        (t.end - t.start) / raw::RAW_SECTOR as u64,
                    )?)
                } else {
                    Arc::new(SubSource::new(root, t.start, t.end - t.start)?)
                };
                walk_image(track, &name, 0, cx);
            }
        }
    }
    Ok(())
}

/// A container whose structure is damaged, scanned as bytes: at every offset (what it held
/// need not start at a multiple of 4 of it, as a PBO entry's data does not).
fn scan_damaged(src: Arc<dyn Source>, name: &str, cx: &Ctx<'_>) {
    let opts = ScanOptions {
        align: 1,
        ..cx.opts.clone()
    };
    scan_blob(src, name, &Ctx { opts: &opts, ..*cx });
}

/// Walks a source as whatever container it is.
fn walk(src: Arc<dyn Source>, name: &str, pbo_hint: bool, depth: usize, cx: &Ctx<'_>) {
    if depth <= MAX_DEPTH {
        if savestate::looks_like(src.as_ref()) {
            return savestate::walk(src.as_ref(), name, cx);
        }
        if raw::looks_raw(src.as_ref()) {
            let sectors = src.len() / raw::RAW_SECTOR as u64;
            let root: Arc<dyn Source> = if depth == 0 {
                Arc::new(ImageRoot(src))
            } else {
                src
            };
            match raw::SectorView::new(root, 0, sectors) {
                Ok(v) => walk_image(Arc::new(v), name, depth, cx),
                Err(e) => cx.sink.error(name, e),
            }
            return;
        }
        if iso::looks_like(src.as_ref()) {
            let root: Arc<dyn Source> = if depth == 0 {
                Arc::new(ImageRoot(src))
            } else {
                src
            };
            walk_image(root, name, depth, cx);
            return;
        }
        if pbo_hint || pbo::looks_like(src.as_ref()) {
            walk_pbo(src, name, depth, cx);
            return;
        }
    }
    scan_blob(src, name, cx);
}

/// A run of 2048-byte sectors: an ISO 9660 file system, or else a blob.
fn walk_image(view: Arc<dyn Source>, name: &str, depth: usize, cx: &Ctx<'_>) {
    if !iso::looks_like(view.as_ref()) {
        return scan_blob(view, name, cx);
    }
    let files = match iso::list(view.as_ref()) {
        Ok(f) => f,
        Err(e) => {
            // A bad record must not hide the whole image: the damage is reported, and the
            // image's bytes are scanned as they are (files start at sector boundaries).
            cx.sink.error(name, e);
            return scan_blob(view, name, cx);
        }
    };
    // Records that share an extent are one file's bytes: the first (in directory order) is
    // scanned, the others listed as its aliases.
    let mut first_of: std::collections::HashMap<(u64, u64), &str> = Default::default();
    let mut alias_of: Vec<Option<&str>> = Vec::with_capacity(files.len());
    for f in &files {
        alias_of.push(if f.size == 0 || f.is_stream() {
            None
        } else {
            match first_of.entry((f.offset, f.size)) {
                std::collections::hash_map::Entry::Occupied(e) => Some(*e.get()),
                std::collections::hash_map::Entry::Vacant(e) => {
                    e.insert(&f.path);
                    None
                }
            }
        });
    }
    files.par_iter().zip(&alias_of).for_each(|(f, alias)| {
        let fname = format!("{name}:{}", f.path);
        if f.is_stream() {
            return cx
                .sink
                .skip(fname, f.size, "Mode 2 Form 2 / interleaved stream");
        }
        if let Some(first) = alias {
            return cx.sink.skip(
                fname,
                f.size,
                &format!("the same extent as {name}:{first} (scanned there)"),
            );
        }
        match SubSource::new(view.clone(), f.offset, f.size) {
            Ok(s) => walk(
                Arc::new(s),
                &fname,
                f.path.to_ascii_lowercase().ends_with(".pbo"),
                depth + 1,
                cx,
            ),
            Err(e) => cx.sink.error(&fname, e),
        }
    });
}

fn walk_pbo(src: Arc<dyn Source>, name: &str, depth: usize, cx: &Ctx<'_>) {
    let pbo = match pbo::read(src.as_ref()) {
        Ok(p) => p,
        Err(e) => {
            // The damage is reported, and the archive's bytes are scanned as they are.
            cx.sink.error(name, e);
            return scan_damaged(src, name, cx);
        }
    };
    pbo.entries.par_iter().for_each(|e| {
        let ename = format!("{name}:/{}", e.name);
        if e.is_encrypted() {
            return cx
                .sink
                .skip(ename, e.data_size as u64, "encrypted PBO entry");
        }
        if !e.is_packed() {
            return match SubSource::new(src.clone(), e.offset, e.data_size as u64) {
                Ok(s) => walk(Arc::new(s), &ename, false, depth + 1, cx),
                Err(err) => cx.sink.error(&ename, err),
            };
        }
        if e.original_size as u64 > cx.opts.max_asset {
            return cx.sink.skip(
                ename,
                e.data_size as u64,
                "packed PBO entry larger than the largest asset read",
            );
        }
        // Unpacked bytes count against the read budget before they are unpacked.
        if !cx.take(e.original_size as u64) {
            return cx.sink.skip(ename, e.data_size as u64, OVER_BUDGET);
        }
        let unpacked = pbo::unpack_entry(src.as_ref(), e);
        cx.give_back(e.original_size as u64);
        match unpacked {
            Ok(data) => walk(
                Arc::new(MemSource(data.into())),
                &ename,
                false,
                depth + 1,
                cx,
            ),
            Err(err) => cx.sink.error(&ename, err),
        }
    });
}

// The message below states the budget in words.
const _: () = assert!(READ_FACTOR == 4 && READ_FLOOR == 64 << 20);

/// Why a part of an input is not read when its read budget is spent.
const OVER_BUDGET: &str = "not scanned: the input's read budget is spent (its files overlap or \
     unpack to more than it holds, and reading them all would read more than 4 times its size, \
     or 64 MiB for a small input)";

fn scan_blob(src: Arc<dyn Source>, name: &str, cx: &Ctx<'_>) {
    let finds = blob_finds(src, name, cx);
    cx.sink.add(finds);
}

/// The finds of a blob, not yet in the sink (the caller may add to them); a skip or an error
/// goes to the sink.
fn blob_finds(src: Arc<dyn Source>, name: &str, cx: &Ctx<'_>) -> Vec<Find> {
    if !cx.take(src.len()) {
        cx.sink.skip(name.to_string(), src.len(), OVER_BUDGET);
        return Vec::new();
    }
    match blob::scan(src.as_ref(), cx.opts, cx.stats) {
        Ok(found) => nest(found, |f| make_find(f, &src, name, cx.path)),
        Err(e) => {
            cx.sink.error(name, e);
            Vec::new()
        }
    }
}

fn make_find(f: blob::Found, src: &Arc<dyn Source>, container: &str, path: &str) -> Find {
    Find {
        path: path.to_string(),
        container: container.to_string(),
        offset: f.offset,
        image_offset: src.image_offset(f.offset),
        format: f.format,
        size: f.size,
        summary: f.summary,
        status: if f.warnings == 0 {
            Status::Clean
        } else {
            Status::Warnings
        },
        warnings: f.warnings,
        ok: true,
        findings: f.findings,
        size_exact: f.size_exact,
        mapped_address: f.mapped_address,
        lenient: f.fix,
        tmd_candidates: None,
        contains: Vec::new(),
        source: Some(src.clone()),
        link: f.link,
    }
}

/// What TOD ↔ TMD matching needs of a model.
pub(crate) fn link_of(model: &Model) -> Link {
    match model {
        Model::Tod(t) => Link::Tod(crate::pairing::tmd_ids(t)),
        Model::Tmd(t) => Link::Tmd(t.objects.len()),
        _ => Link::None,
    }
}

pub(crate) fn compact_summary(model: &Model) -> Box<serde_json::value::RawValue> {
    // Serialised straight from the typed summary (the same text as `Model::summary`'s value,
    // whose maps keep their order), not through a `Value` first.
    use serde_json::value::to_raw_value as raw;
    let text = match model {
        Model::Tod(t) => raw(&t.summary()),
        Model::Tmd(t) => raw(&t.summary()),
        Model::Tim(t) => raw(&t.summary()),
        Model::P3d(p) => raw(&p.summary()),
        Model::Mdd(m) => raw(&m.summary()),
        Model::Pc2(p) => raw(&p.summary()),
        Model::Hmd(h) => raw(&h.summary()),
        Model::Pmd(p) => raw(&p.summary()),
        Model::Clt(c) => raw(&c.summary()),
        Model::Pxl(p) => raw(&p.summary()),
        Model::Vdf(d) => raw(&d.summary(crate::Format::Vdf)),
        Model::Ndf(d) => raw(&d.summary(crate::Format::Ndf)),
        Model::Rtm(r) => raw(&r.summary()),
    };
    text.or_else(|_| raw(&model.summary())).unwrap_or_else(|_| {
        serde_json::value::RawValue::from_string("null".into())
            .unwrap_or_else(|_| unreachable!("null is JSON"))
    })
}

/// Puts each find that lies inside a larger (or earlier, same-sized) one into its `contains`.
fn nest(mut found: Vec<blob::Found>, make: impl Fn(blob::Found) -> Find) -> Vec<Find> {
    found.sort_by(|a, b| {
        (a.offset, std::cmp::Reverse(a.size), a.format).cmp(&(
            b.offset,
            std::cmp::Reverse(b.size),
            b.format,
        ))
    });
    let mut out: Vec<Find> = Vec::new();
    for f in found {
        if let Some(parent) = out.last_mut() {
            if f.offset + f.size <= parent.offset + parent.size {
                parent.contains.push(Nested {
                    format: f.format,
                    offset: f.offset,
                    size: f.size,
                });
                continue;
            }
        }
        out.push(make(f));
    }
    out
}

fn link_tods(finds: &mut [Find]) {
    use crate::pairing::{evidence::Source, models};
    let source = |f: &Find| Source {
        path: f.path.clone(),
        container: f.container.clone(),
        offset: f.offset,
        size: f.size,
    };
    let tmds: Vec<(usize, Source, usize)> = finds
        .iter()
        .enumerate()
        .filter_map(|(i, f)| match f.link {
            Link::Tmd(n) => Some((i, source(f), n)),
            _ => None,
        })
        .collect();
    let keys: Vec<models::TmdKey<'_>> = tmds
        .iter()
        .map(|(_, s, n)| models::TmdKey {
            source: s,
            objects: *n,
        })
        .collect();
    let tods: Vec<(usize, Source, &[u32])> = finds
        .iter()
        .enumerate()
        .filter_map(|(i, f)| match &f.link {
            Link::Tod(ids) => Some((i, source(f), ids.as_slice())),
            _ => None,
        })
        .collect();
    let tod_keys: Vec<models::TodKey<'_>> = tods
        .iter()
        .map(|(_, s, ids)| models::TodKey { source: s, ids })
        .collect();
    let ranked = models::rank_all(&tod_keys, &keys);
    let all: Vec<(usize, Vec<TmdCandidate>)> = tods
        .iter()
        .zip(ranked)
        .map(|((i, _, _), ranked)| {
            let list = ranked
                .into_iter()
                .map(|r| {
                    let (_, s, objects) = &tmds[r.tmd];
                    TmdCandidate {
                        path: s.path.clone(),
                        container: s.container.clone(),
                        offset: s.offset,
                        size: s.size,
                        objects: *objects,
                        confidence: r.confidence,
                    }
                })
                .collect();
            (*i, list)
        })
        .collect();
    for (i, list) in all {
        finds[i].tmd_candidates = Some(list);
    }
}

/// Scans bytes in memory as a blob (no container detection): the entry point of the fuzz
/// target and of tests of the candidate pass.
pub fn scan_bytes(data: &[u8], opts: &ScanOptions) -> Vec<Find> {
    let src: Arc<dyn Source> = Arc::new(MemSource(Arc::from(data)));
    let stats = Stats::default();
    match blob::scan(src.as_ref(), opts, &stats) {
        Ok(found) => nest(found, |f| make_find(f, &src, "memory", "memory")),
        Err(_) => Vec::new(),
    }
}
