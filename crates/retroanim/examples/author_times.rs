//! Authoring time over the whole corpus: every distinct TOD (with the TMD of its folder, or of a
//! sibling `TMD` folder, that holds every TMD ID it uses) and every distinct HMD is exported to
//! GLB with default options, then authored back (`convert X.glb Y.tod` / `Y.hmd`, default
//! options) and timed. Prints one line per file, slowest first, and the totals.
//!
//! ```text
//! cargo run --release -p retroanim --example author_times [CORPUS_DIR]
//! ```
//!
//! The corpus is `CORPUS_DIR`, else `$RETROANIM_CORPUS`, else `../shared/corpus`; its
//! `MANIFEST.tsv` lists the files (path, kind). `RETROANIM_AUTHOR_ONLY=TEXT` times only the
//! files whose path holds TEXT (for a profiler). `docs/authoring.md` holds the figures.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use retroanim::convert::{self, Options, TodInput};
use retroanim::formats::{tmd, tod};
use retroanim::{Format, Model};

fn corpus_dir() -> PathBuf {
    std::env::args_os()
        .nth(1)
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("RETROANIM_CORPUS").map(PathBuf::from))
        .unwrap_or_else(|| PathBuf::from("../shared/corpus"))
}

/// The manifest's files of `kind`.
fn files(dir: &Path, kind: &str) -> Vec<PathBuf> {
    let manifest = std::fs::read_to_string(dir.join("MANIFEST.tsv")).unwrap_or_default();
    manifest
        .lines()
        .filter_map(|l| {
            let mut cols = l.split('\t');
            let path = cols.next()?;
            (cols.next()? == kind).then(|| dir.join(path))
        })
        .collect()
}

/// The one TMD of the TOD's folder or of a sibling `TMD` folder that has every TMD ID it uses.
fn model_for(path: &Path, anim: &tod::Tod, tmds: &[PathBuf]) -> Option<tmd::Tmd> {
    let dir = path.parent()?;
    let sibling = dir.parent().map(|p| p.join("TMD"));
    let want = retroanim::assemble::tmd_ids(anim)
        .into_iter()
        .max()
        .unwrap_or(0);
    let models: Vec<tmd::Tmd> = tmds
        .iter()
        .filter(|p| p.parent() == Some(dir) || p.parent() == sibling.as_deref())
        .filter_map(|p| tmd::read(&std::fs::read(p).ok()?).ok())
        .filter(|m| m.objects.len() as u32 >= want)
        .collect();
    (models.len() == 1)
        .then(|| models.into_iter().next())
        .flatten()
}

/// Authors `glb` as `to`; the wall time, or the error.
fn author(glb: &[u8], to: Format) -> Result<Duration, String> {
    let t = Instant::now();
    convert::convert_bytes(glb, None, to, &Options::default()).map_err(|e| e.to_string())?;
    Ok(t.elapsed())
}

fn main() {
    let dir = corpus_dir();
    let tmds = files(&dir, "TMD");
    let mut rows: Vec<(Duration, String)> = Vec::new();
    let mut failed = Vec::new();
    let mut seen = BTreeSet::new();
    let only = std::env::var("RETROANIM_AUTHOR_ONLY").unwrap_or_default();
    for path in files(&dir, "TOD").into_iter().chain(files(&dir, "HMD")) {
        if !path.to_string_lossy().contains(&only) {
            continue;
        }
        let Ok(bytes) = std::fs::read(&path) else {
            continue;
        };
        if !seen.insert(bytes.clone()) {
            continue;
        }
        let name = path
            .strip_prefix(&dir)
            .unwrap_or(&path)
            .display()
            .to_string();
        let (model, to, what) = match retroanim::read_any(&bytes) {
            Ok(Model::Tod(t)) => {
                let tmd = model_for(&path, &t, &tmds);
                let what = if tmd.is_some() { "TOD+TMD" } else { "TOD" };
                let opts = Options {
                    tod: TodInput {
                        tmd,
                        ..TodInput::default()
                    },
                    ..Options::default()
                };
                (
                    convert::convert(&Model::Tod(t), Format::Glb, &opts),
                    Format::Tod,
                    what,
                )
            }
            Ok(m @ Model::Hmd(_)) => (
                convert::convert(&m, Format::Glb, &Options::default()),
                Format::Hmd,
                "HMD",
            ),
            _ => continue,
        };
        let glb = match model {
            Ok(out) => out.bytes,
            Err(e) => {
                failed.push(format!("{name}: export: {e}"));
                continue;
            }
        };
        match author(&glb, to) {
            Ok(d) => rows.push((d, format!("{what:8} {name}"))),
            Err(e) => failed.push(format!("{name}: author: {e}")),
        }
    }
    rows.sort_by_key(|r| std::cmp::Reverse(r.0));
    for (d, name) in &rows {
        println!("{:8.3} s  {name}", d.as_secs_f64());
    }
    let total: Duration = rows.iter().map(|r| r.0).sum();
    println!(
        "{} files authored in {:.2} s (slowest {:.3} s); {} failed",
        rows.len(),
        total.as_secs_f64(),
        rows.first().map_or(0.0, |r| r.0.as_secs_f64()),
        failed.len()
    );
    for f in &failed {
        println!("failed: {f}");
    }
}
