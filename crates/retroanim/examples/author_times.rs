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
//! files whose path holds TEXT (for a profiler). `docs/authoring.md` holds the figures; the
//! bench `author` measures the slowest files with criterion (the same cases, from
//! `benches/common/author.rs`).

#[path = "../benches/common/author.rs"]
#[allow(dead_code)] // what the bench reads and this example does not (`Case::collection`)
mod cases;

use std::path::PathBuf;
use std::time::Duration;

fn corpus_dir() -> PathBuf {
    std::env::args_os()
        .nth(1)
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("RETROANIM_CORPUS").map(PathBuf::from))
        .unwrap_or_else(|| PathBuf::from("../shared/corpus"))
}

fn main() {
    let dir = corpus_dir();
    let only = std::env::var("RETROANIM_AUTHOR_ONLY").unwrap_or_default();
    let mut rows: Vec<(Duration, String)> = Vec::new();
    let mut failed = Vec::new();
    let export_failed =
        cases::for_each_case(&dir, &only, |c| match cases::time_author(&c.glb, c.to) {
            Ok(d) => rows.push((d, format!("{:8} {}", c.what, c.name))),
            Err(e) => failed.push(format!("{}: author: {e}", c.name)),
        });
    failed.extend(export_failed);
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
