//! `retroanim scan`: find every asset inside disc images, archives, executables and folders.
//!
//! Output contract (`--json`, the shape of `docs/json.md`): one JSON object per find and line,
//! with `path`, `container`, `offset`, `image_offset`, `format`, `size`, `summary`, `status`,
//! `ok` and `findings`; a failure line per container that could not be read; and a last line
//! `{"summary": {...}}`. Human output: one line per find, then a summary line. `--report DIR`
//! writes the browsable report (`retroanim::gallery`) and says where on standard error.

use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::path::Path;
use std::sync::Arc;

use anyhow::{bail, Context, Result};
use retroanim::assemble::USE_FROM;
use retroanim::scan::{self, Find, Report, ScanOptions};
use retroanim::text::escape;
use retroanim::Format;
use serde_json::json;

use crate::cli::ScanArgs;
use crate::Outcome;

/// Runs `retroanim scan`.
pub fn run(args: &ScanArgs) -> Result<Outcome> {
    let opts = options(args)?;
    if let Some(j) = super::global().jobs {
        if j == 0 {
            bail!("--jobs 0: give at least one thread");
        }
    }
    let convert = match args.convert.as_deref() {
        None => None,
        Some(name) => match Format::from_name(name) {
            Some(f @ (Format::Glb | Format::Gltf | Format::Png)) => Some(f),
            _ => bail!("--convert {name}: choose glb, gltf or png"),
        },
    };
    let bar = progress_bar(&args.paths);
    let mut opts = opts;
    if let Some(b) = &bar {
        let b = b.clone();
        opts.progress = Arc::new(move |n| b.inc(n));
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(super::global().jobs.unwrap_or(0))
        .build()
        .context("cannot start the worker threads")?;
    let mut clock = Timings::default();
    let mut report = pool.install(|| scan::scan_paths(&args.paths, &opts));
    clock.lap("scan");
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    if let Some(path) = &args.vram {
        if let Some(state) = report.vram.first() {
            bail!(
                "--vram {}: does not apply to a savestate ({} is one, and its own VRAM is the texture source); scan the savestate alone, or the RAM dump with --vram",
                path.display(),
                escape(&state.path)
            );
        }
        let bytes =
            crate::io::read_named(path, retroanim::vram::DUMP_BYTES as u64).context("--vram")?;
        let dump = retroanim::assemble::VramDump::new(path.display().to_string(), &bytes)
            .with_context(|| format!("{}: not a VRAM dump", path.display()))?;
        let cut = pool.install(|| retroanim::assemble::vram_finds(&report.finds, &dump));
        report.finds.extend(cut);
    }
    let mut converted = Conversions::default();
    let mut not_extracted = 0;
    if let Some(dir) = &args.extract {
        not_extracted = extract(
            &report,
            &args.paths,
            dir,
            convert,
            args.force,
            &mut converted,
        )?;
        clock.lap("extract (and convert)");
    }
    print(&report, args.json, &converted)?;
    clock.lap("print");
    if let Some(dir) = &args.report {
        let written = pool
            .install(|| {
                retroanim::gallery::write_report(
                    &report,
                    &args.paths,
                    dir,
                    &retroanim::gallery::Options {
                        force: args.force,
                        ..Default::default()
                    },
                )
            })
            .with_context(|| format!("{}: cannot write the report", dir.display()))?;
        for note in &written.index.notes {
            eprintln!("retroanim: note: report: {note}");
        }
        eprintln!(
            "retroanim: report: {} ({} assets, {} files)",
            dir.join("index.html").display(),
            written.index.assets.len(),
            written.files
        );
        clock.lap("report");
    }
    if args.timings {
        clock.print(&report);
    }
    for e in &report.errors {
        eprintln!(
            "retroanim: error: {}: {}",
            retroanim::text::escape(&e.container),
            escape(&e.error.to_string())
        );
    }
    Ok(if report.errors.is_empty() && not_extracted == 0 {
        Outcome::Clean
    } else {
        Outcome::Failed
    })
}

/// Wall time of each step of a scan (`--timings`).
struct Timings {
    last: std::time::Instant,
    steps: Vec<(&'static str, f64)>,
}

impl Default for Timings {
    fn default() -> Self {
        Timings {
            last: std::time::Instant::now(),
            steps: Vec::new(),
        }
    }
}

impl Timings {
    /// Ends the step `name`.
    fn lap(&mut self, name: &'static str) {
        let now = std::time::Instant::now();
        self.steps
            .push((name, now.duration_since(self.last).as_secs_f64()));
        self.last = now;
    }

    fn print(&self, report: &Report) {
        use std::sync::atomic::Ordering::Relaxed;
        let s = &report.stats;
        let ns = |v: &std::sync::atomic::AtomicU64| v.load(Relaxed) as f64 / 1e9;
        eprintln!("retroanim: timings (seconds):");
        for (name, t) in &self.steps {
            eprintln!("retroanim:   {name:<28} {t:8.3}");
        }
        eprintln!(
            "retroanim:   of the scan, summed over threads: candidate pass {:.3} ({} candidates), full readers {:.3} ({} rejected); {} finds, {:.1} MB",
            ns(&s.candidate_ns),
            s.candidates.load(Relaxed),
            ns(&s.parse_ns),
            s.rejected.load(Relaxed),
            report.finds.len(),
            s.bytes.load(Relaxed) as f64 / 1e6
        );
    }
}

fn options(args: &ScanArgs) -> Result<ScanOptions> {
    let mut opts = ScanOptions::new(&args.formats, args.align, args.min_size)?;
    opts.base = args.base;
    opts.follow_links = args.follow_links;
    // A savestate's VRAM textures the models of its RAM: cut as each savestate is scanned.
    opts.vram_cutter = Some(retroanim::assemble::savestate_vram_cutter());
    Ok(opts)
}

fn progress_bar(paths: &[std::path::PathBuf]) -> Option<indicatif::ProgressBar> {
    if !std::io::stderr().is_terminal() {
        return None;
    }
    let total: u64 = paths
        .iter()
        .filter_map(|p| std::fs::metadata(p).ok())
        .filter(|m| m.is_file())
        .map(|m| m.len())
        .sum();
    let bar = indicatif::ProgressBar::new(total);
    if let Ok(style) = indicatif::ProgressStyle::with_template(
        "{bar:40} {bytes}/{total_bytes} {bytes_per_sec} {eta}",
    ) {
        bar.set_style(style);
    }
    Some(bar)
}

#[derive(Default)]
struct Conversions {
    done: usize,
    /// Notes of the conversions (in the manifest, beside each conversion).
    notes: usize,
    not_offered: BTreeMap<String, usize>,
    /// Animations not converted: no model to convert them with.
    no_model: usize,
    failed: Vec<String>,
    /// Animations converted to GLB on a model, each holding the whole model, and their bytes.
    glb_on_model: (usize, u64),
}

fn print(report: &Report, json: bool, conv: &Conversions) -> Result<()> {
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for f in &report.finds {
        *counts.entry(f.format.name()).or_default() += 1;
        if json {
            outln!("{}", serde_json::to_string(f)?);
        } else {
            let at = match f.image_offset {
                Some(i) => format!(" (image byte {i})"),
                None => String::new(),
            };
            let inner = if f.contains.is_empty() {
                String::new()
            } else {
                format!(", {} inside", f.contains.len())
            };
            let tmds = match &f.tmd_candidates {
                Some(c) if c.first().is_some_and(|m| m.confidence >= USE_FROM) => format!(
                    ", model {}@{} (confidence {:.2})",
                    escape(&c[0].container),
                    c[0].offset,
                    c[0].confidence
                ),
                Some(c) if !c.is_empty() => format!(
                    ", no confident model (best candidate {}@{}, confidence {:.2})",
                    escape(&c[0].container),
                    c[0].offset,
                    c[0].confidence
                ),
                Some(_) => ", no fitting TMD found".into(),
                None => String::new(),
            };
            let mut notes = String::new();
            if !f.size_exact {
                notes.push_str(", size not known from its structure (runs to its container's end)");
            }
            if let Some(a) = f.mapped_address {
                notes.push_str(&format!(", mapped at 0x{a:08x} (read unmapped)"));
            }
            if let Some(fix) = &f.lenient {
                notes.push_str(&format!(", lenient: {}", fix.warning));
            }
            outln!(
                "{}@{}{at}: {} {} bytes, {}{inner}{tmds}{notes}",
                escape(&f.container),
                f.offset,
                f.format,
                f.size,
                match f.status {
                    scan::Status::Clean => "clean".to_string(),
                    scan::Status::Warnings => format!("{} warnings", f.warnings),
                }
            );
        }
    }
    for s in &report.skipped {
        if !json {
            outln!(
                "{}: skipped ({}, {} bytes)",
                escape(&s.container),
                escape(&s.reason),
                s.size
            );
        }
    }
    if !json && report.skipped_unlisted.count > 0 {
        outln!(
            "... and {} more skipped ({} bytes), not listed",
            report.skipped_unlisted.count,
            report.skipped_unlisted.bytes
        );
    }
    if json {
        // A container that could not be walked is a failed item, as an unreadable file is
        // for the other commands.
        for e in &report.errors {
            let mut line = super::jsonl::lib_failure(&e.container, &e.error);
            line["container"] = json!(e.container);
            outln!("{}", serde_json::to_string(&line)?);
        }
    }
    if super::global().verbose && !json {
        let mut list = report
            .stats
            .rejections
            .lock()
            .map(|l| l.clone())
            .unwrap_or_default();
        list.sort_by_key(|r| r.offset);
        for r in &list {
            outln!(
                "rejected {} candidate at {}: {} ({})",
                r.format,
                r.offset,
                r.reason,
                r.detail
            );
        }
    }
    let mut summary = report.summary();
    if let Some(map) = summary.as_object_mut() {
        map.insert("converted".into(), json!(conv.done));
        map.insert("conversion_notes".into(), json!(conv.notes));
        map.insert("not_converted".into(), json!(conv.not_offered));
        map.insert("animations_without_model".into(), json!(conv.no_model));
        map.insert("conversion_failures".into(), json!(conv.failed));
    }
    let bytes = report
        .stats
        .bytes
        .load(std::sync::atomic::Ordering::Relaxed);
    let mb_s = bytes as f64 / 1e6 / report.seconds.max(1e-9);
    if json {
        outln!("{}", json!({ "summary": summary }));
    } else {
        let per: Vec<String> = counts.iter().map(|(k, v)| format!("{v} {k}")).collect();
        outln!(
            "{} finds ({}), {} skipped, {} errors; {:.2} MB scanned in {:.2} s ({:.0} MB/s)",
            report.finds.len(),
            if per.is_empty() {
                "none".into()
            } else {
                per.join(", ")
            },
            report.skipped.len() as u64 + report.skipped_unlisted.count,
            report.errors.len(),
            bytes as f64 / 1e6,
            report.seconds,
            mb_s
        );
        if super::global().verbose {
            if let Ok(by) = report.stats.rejected_by.lock() {
                for (reason, n) in by.iter() {
                    outln!("rejected: {n} candidates ({reason})");
                }
            }
        }
        if !conv.not_offered.is_empty() {
            for (what, n) in &conv.not_offered {
                outln!("not converted: {n} finds ({what}; extracted as they are)");
            }
        }
        if conv.no_model > 0 {
            outln!(
                "not converted: {} animations or MIMe differences without a model (see the warnings)",
                conv.no_model
            );
        }
        if conv.glb_on_model.0 > 1 {
            outln!(
                "{} animation GLBs each hold their model ({:.1} MB in all); --convert gltf writes each model once for all its animations",
                conv.glb_on_model.0,
                conv.glb_on_model.1 as f64 / 1e6
            );
        }
        if conv.notes > 0 {
            outln!(
                "{} conversion notes (what the converted files leave out): see manifest.json",
                conv.notes
            );
        }
    }
    Ok(())
}

/// Longest file name written (bytes): most file systems allow 255.
const MAX_NAME: usize = 255;

/// A find's file below the extract folder: the scanned input's own name (with the folders
/// that set it apart from the other inputs, below their common folder), the folders below it, the container's path inside an image or archive (each `:/` a folder), then `@OFFSET.FMT`
/// with the offset as scan prints it (`disc.bin:/DATA/X.TIX@2064` is extracted as
/// `disc.bin/DATA/X.TIX@2064.tim`). Each part keeps ASCII letters, digits, `.`, `-` and `_`
/// (anything else becomes `_`). The tree keeps the folders and the name keeps the container
/// and offset, so a `convert` or `scan` of the extracted files pairs them as the finds paired
/// ([`retroanim::assemble::Source::origin`]).
fn file_name(f: &Find, roots: &[Root]) -> String {
    let file = Path::new(&f.path);
    let mut parts: Vec<String> = Vec::new();
    let mut add = |p: &str| {
        if p.is_empty() || p == "." {
            return;
        }
        let clean: String = p
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_') {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        parts.push(if clean.chars().all(|c| c == '.') {
            "_".into()
        } else {
            clean
        });
    };
    let inner = match f.container.strip_prefix(f.path.as_str()) {
        Some(inner) => {
            // The input's folders below the scanned inputs' common folder, then its name.
            let root = roots
                .iter()
                .filter(|r| file.starts_with(&r.given))
                .max_by_key(|r| r.given.components().count());
            match root {
                Some(r) => {
                    let below = file.strip_prefix(&r.given).unwrap_or(file);
                    for c in r.shown.iter().chain(below.iter()) {
                        add(&c.to_string_lossy());
                    }
                }
                None => add(&file.file_name().unwrap_or_default().to_string_lossy()),
            }
            inner
        }
        None => f.container.as_str(),
    };
    for p in inner.split([':', '/', '\\']) {
        add(p);
    }
    if parts.is_empty() {
        parts.push("_".into());
    }
    format!("{}@{}.{}", parts.join("/"), f.offset, f.format.name())
}

/// A scanned input and the folders it is extracted under.
struct Root {
    /// The path as given.
    given: std::path::PathBuf,
    /// Its path below the common folder of all the inputs (its name, for one input): inputs
    /// keep their places to each other, so the folder evidence of pairings stays the same.
    shown: std::path::PathBuf,
}

impl Root {
    fn all(given: &[std::path::PathBuf]) -> Vec<Root> {
        let full: Vec<std::path::PathBuf> = given
            .iter()
            .map(|g| std::fs::canonicalize(g).unwrap_or_else(|_| g.clone()))
            .collect();
        let mut common: Option<std::path::PathBuf> = None;
        for f in &full {
            let parent = f.parent().unwrap_or(Path::new("")).to_path_buf();
            common = Some(match common {
                None => parent,
                Some(mut c) => {
                    while !parent.starts_with(&c) {
                        match c.parent() {
                            Some(p) => c = p.to_path_buf(),
                            None => break,
                        }
                    }
                    c
                }
            });
        }
        let common = common.unwrap_or_default();
        given
            .iter()
            .zip(full)
            .map(|(g, f)| Root {
                given: g.clone(),
                shown: f
                    .strip_prefix(&common)
                    .map(Path::to_path_buf)
                    .unwrap_or_else(|_| f.file_name().map(Into::into).unwrap_or_default()),
            })
            .collect()
    }
}

/// Each find's file (a path with `/`): [`file_name`], its last part cut to fit [`MAX_NAME`]
/// bytes with room for the converted copy's extension (the middle replaced by a hash of the whole name, so cut names stay
/// distinct), and `_2`, `_3`… before the extension where two finds would still share one. Names
/// are compared ignoring ASCII case, for case-insensitive file systems.
fn unique_names(finds: &[Find], roots: &[std::path::PathBuf]) -> Vec<String> {
    let roots = Root::all(roots);
    let roots = &roots[..];
    let mut taken = std::collections::HashSet::new();
    finds
        .iter()
        .map(|f| {
            let full = file_name(f, roots);
            let (folder, leaf) = match full.rfind('/') {
                Some(i) => (&full[..=i], &full[i + 1..]),
                None => ("", full.as_str()),
            };
            // Room for `_NNNNNN` and the longest conversion suffix (`.gltf`).
            let name = format!("{folder}{}", shorten(leaf, MAX_NAME - 12));
            let (stem, ext) = match name.rfind('.').filter(|&i| i > folder.len()) {
                Some(i) => (&name[..i], &name[i..]),
                None => (name.as_str(), ""),
            };
            let mut candidate = name.clone();
            let mut n = 2;
            while !taken.insert(candidate.to_ascii_lowercase()) {
                candidate = format!("{stem}_{n}{ext}");
                n += 1;
            }
            candidate
        })
        .collect()
}

/// `name` if it has at most `max` bytes, else its start, a hash of the whole, and its end.
fn shorten(name: &str, max: usize) -> String {
    if name.len() <= max {
        return name.to_string();
    }
    // FNV-1a: stable across runs and platforms.
    let hash = name.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ b as u64).wrapping_mul(0x100_0000_01b3)
    });
    let tag = format!("~{hash:016x}~");
    // Names are ASCII (see `file_name`), so byte cuts are character cuts.
    let keep = max - tag.len();
    let tail = keep / 2;
    format!(
        "{}{tag}{}",
        &name[..keep - tail],
        &name[name.len() - tail..]
    )
}

/// Writes each find (and its conversion) into `dir` with a `manifest.json`. Names are planned
/// first; files already in `dir` stop it before anything is written unless `force`. A find that
/// cannot be read or written is reported and the others are still written; its error is
/// returned at the end.
fn extract(
    report: &Report,
    roots: &[std::path::PathBuf],
    dir: &Path,
    to: Option<Format>,
    force: bool,
    conv: &mut Conversions,
) -> Result<usize> {
    let names = unique_names(&report.finds, roots);
    crate::io::run_inputs(
        report.finds.iter().map(|f| std::path::Path::new(&f.path)),
        force,
    );
    // Conversions pair as the report and `convert` do: one assembly of every find.
    let assembly = to.map(|_| retroanim::assemble::from_finds(&report.finds));
    let converted = |name: &str, f: &Find| {
        to.filter(|t| retroanim::convert::targets(f.format).contains(t) && *t != Format::Json)
            .map(|t| format!("{name}.{}", t.name()))
    };
    // Everything this run writes, checked before the first byte is written.
    let mut planned: Vec<std::path::PathBuf> = vec![dir.join("manifest.json")];
    for (f, name) in report.finds.iter().zip(&names) {
        planned.push(dir.join(name));
        planned.extend(converted(name, f).map(|c| dir.join(c)));
        if to == Some(Format::Gltf) && f.format == Format::Tod {
            planned.extend(["bin", "model.bin"].map(|e| dir.join(format!("{name}.{e}"))));
        }
    }
    let existing: Vec<&std::path::PathBuf> = planned
        .iter()
        .filter(|p| std::fs::symlink_metadata(p).is_ok())
        .collect();
    if !force && !existing.is_empty() {
        bail!(
            "{}: {} of the files --extract would write exist already ({}{}); pass --force to replace them, or extract into a new folder",
            crate::io::shown_path(dir),
            existing.len(),
            existing
                .iter()
                .take(3)
                .map(|p| crate::io::shown_path(p))
                .collect::<Vec<_>>()
                .join(", "),
            if existing.len() > 3 { ", …" } else { "" }
        );
    }
    for p in &existing {
        retroanim::output::check_replaceable(p)?;
    }
    std::fs::create_dir_all(dir)
        .with_context(|| format!("cannot create {}", crate::io::shown_path(dir)))?;
    let mut manifest = Vec::new();
    let mut failed = 0usize;
    let mut model_parts = ModelParts::default();
    for (i, (f, name)) in report.finds.iter().zip(&names).enumerate() {
        let at = format!("{}@{}", retroanim::text::escape(&f.container), f.offset);
        let written = f
            .bytes()
            .with_context(|| format!("{at}: cannot read the find again"))
            .and_then(|bytes| {
                let path = dir.join(name);
                if let Some(parent) = path.parent() {
                    std::fs::create_dir_all(parent)
                        .with_context(|| format!("cannot create {}", parent.display()))?;
                }
                crate::io::write_derived(&path, &bytes, force)?;
                Ok(bytes)
            });
        let bytes = match written {
            Ok(b) => b,
            Err(e) => {
                eprintln!(
                    "retroanim: error: {at}: not extracted: {}",
                    crate::shown_error(&e)
                );
                failed += 1;
                continue;
            }
        };
        let mut entry = json!({
            "file": name,
            "path": f.path,
            "container": f.container,
            "offset": f.offset,
            "image_offset": f.image_offset,
            "format": f.format,
            "size": f.size,
        });
        if let (Some(target), Some(assembly)) = (to, &assembly) {
            let readable = match &f.lenient {
                Some(_) => match f.readable_bytes() {
                    Ok(b) => b,
                    Err(e) => {
                        conv.failed.push(format!("{name}: {e:#}"));
                        manifest.push(entry);
                        continue;
                    }
                },
                None => bytes.clone(),
            };
            let result = convert_find(
                &readable,
                assembly,
                &assembly.assets[i],
                target,
                &mut |parts| model_parts.write(dir, name, parts, force),
            );
            if let Ok(Err(why)) = &result {
                eprintln!(
                    "retroanim: warning: {at}: {}: not converted ({why}); convert it with --tmd MODEL.TMD",
                    retroanim::assemble::without_model(f.format)
                );
                conv.no_model += 1;
                entry["not_converted"] = json!(format!(
                    "{}: {why}",
                    retroanim::assemble::without_model(f.format)
                ));
                manifest.push(entry);
                continue;
            }
            match result.map(|c| c.ok().flatten()) {
                Ok(Some(out)) => {
                    let cname =
                        converted(name, f).unwrap_or_else(|| format!("{name}.{}", target.name()));
                    let cpath = dir.join(&cname);
                    if let Err(e) = crate::io::write_derived(&cpath, &out.bytes, force) {
                        conv.failed.push(format!("{name}: {e:#}"));
                        manifest.push(entry);
                        continue;
                    }
                    entry["converted"] = json!(cname);
                    // Files that go with it (the other TIMs of a file of several) and what
                    // the conversion left out, as `convert` reports them.
                    let mut extra = std::mem::take(&mut model_parts.beside);
                    for e in &out.extra {
                        let p = e.path_beside(&cpath);
                        crate::io::write_derived(&p, &e.bytes, force)?;
                        extra.extend(p.file_name().map(|n| n.to_string_lossy().into_owned()));
                    }
                    if !extra.is_empty() {
                        entry["converted_extra"] = json!(extra);
                    }
                    if !out.notes.is_empty() {
                        entry["notes"] = json!(out.notes);
                        conv.notes += out.notes.len();
                    }
                    conv.done += 1;
                    if target == Format::Glb && f.format == Format::Tod {
                        conv.glb_on_model.0 += 1;
                        conv.glb_on_model.1 += out.bytes.len() as u64;
                    }
                }
                Ok(None) => {
                    *conv
                        .not_offered
                        .entry(format!("{} → {target} is not offered", f.format))
                        .or_default() += 1;
                }
                Err(e) => conv.failed.push(format!("{name}: {e:#}")),
            }
        }
        manifest.push(entry);
    }
    let text = serde_json::to_string_pretty(&json!({ "finds": manifest }))?;
    crate::io::write_derived(&dir.join("manifest.json"), text.as_bytes(), force)?;
    for e in &conv.failed {
        eprintln!(
            "retroanim: warning: conversion failed: {}",
            retroanim::text::escape(e)
        );
    }
    Ok(failed)
}

/// The one conversion step of `scan --convert`, through `retroanim::convert`: TIM → PNG; TMD,
/// HMD, P3D (default LOD), TOD and VDF/NDF (on their base TMD) → glTF, paired as `assembly` pairs `asset` (the same
/// [`retroanim::assemble::Assembly::pair_asset`] as `convert` and the report). `Ok(Ok(None))`
/// where the find's format does not convert to `to`; `Ok(Err(why))` for an animation with no
/// model to convert with.
///
/// A TOD on its model converted to `.gltf` keeps its model's meshes, materials and textures in
/// a `.model.bin` shared by every animation of that model ([`ModelParts`], as the report does):
/// `write_parts` writes them and gives the `.gltf` and the files beside it.
fn convert_find(
    bytes: &[u8],
    assembly: &retroanim::assemble::Assembly,
    asset: &retroanim::assemble::Asset,
    to: Format,
    write_parts: &mut dyn FnMut(&retroanim::export::gltf::Parts) -> Result<Vec<u8>>,
) -> Result<std::result::Result<Option<retroanim::convert::Conversion>, String>> {
    // A loose VDF/NDF find is read as the format scan listed it as (they have no magic).
    let model = retroanim::read_as(bytes, Some(asset.format), &retroanim::Limits::default())?;
    if !retroanim::convert::targets(model.format()).contains(&to) || to == Format::Json {
        return Ok(Ok(None));
    }
    let mut opts = retroanim::convert::Options {
        name: Some(asset.source.name()),
        ..Default::default()
    };
    let mut notes = Vec::new();
    if matches!(to, Format::Glb | Format::Gltf) {
        notes = assembly.pair_asset(asset, &mut opts)?;
        if let Some(why) = assembly.missing_model(asset, &opts) {
            return Ok(Err(why));
        }
    }
    if let (retroanim::Model::Tod(anim), Format::Gltf, true) = (&model, to, opts.tod.tmd.is_some())
    {
        let (parts, mut more) = retroanim::convert::tod_gltf_parts(anim, &opts)?;
        notes.append(&mut more);
        return Ok(Ok(Some(retroanim::convert::Conversion {
            bytes: write_parts(&parts)?,
            format: Format::Gltf,
            notes,
            extra: Vec::new(),
        })));
    }
    let mut done = retroanim::convert::convert(&model, to, &opts)?;
    notes.append(&mut done.notes);
    done.notes = notes;
    Ok(Ok(Some(done)))
}

/// The glTF parts (`.model.bin`, `.bin`) an extraction wrote, by content: the first animation
/// of a model names its model part, the later ones point at it (as the report does).
#[derive(Default)]
struct ModelParts {
    /// By (is a model part, SHA-1 of the bytes).
    written: std::collections::HashMap<(bool, [u8; 20]), String>,
    /// The files the last animation's `.gltf` points at (its extracted names).
    beside: Vec<String>,
}

impl ModelParts {
    /// Writes an animation's parts beside `name` ([`retroanim::export::gltf::Parts::files`]:
    /// `NAME.model.bin` and `NAME.bin`, or an earlier file of the same bytes) and gives the
    /// `.gltf` that points at them (their names in [`ModelParts::beside`]).
    fn write(
        &mut self,
        dir: &Path,
        name: &str,
        parts: &retroanim::export::gltf::Parts,
        force: bool,
    ) -> Result<Vec<u8>> {
        let written = &mut self.written;
        let (gltf, beside) = parts.files(name, |rel, bytes| -> Result<String> {
            let model_part = rel.ends_with(".model.bin");
            let key = (model_part, sha1_smol::Sha1::from(bytes).digest().bytes());
            if let Some(first) = written.get(&key) {
                return Ok(first.clone());
            }
            crate::io::write_derived(&dir.join(&rel), bytes, force)?;
            written.insert(key, rel.clone());
            Ok(rel)
        })?;
        self.beside = beside;
        Ok(gltf)
    }
}
