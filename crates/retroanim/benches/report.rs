//! `scan --report` speed and memory: the PlayStation part of the corpus (`corpus/ps1`, ~900
//! files) scanned, then its report written (every find's bytes, GLB and PNG, index.json,
//! index.html) into a temporary folder, against the scan alone.
//!
//! `cargo bench -p retroanim --bench report` (`RETROANIM_BENCH_THREADS`, default 2, as the
//! target names "2 cores"). Prints: scan and scan + report wall time (best of three), their
//! ratio, the files written, peak RSS of the whole run. Target: scan + report ≤ 30 s on 2
//! cores, ≤ 500 MB peak.

mod common;

use std::time::Instant;

use common::{corpus_dir, peak_rss_kb};
use retroanim::gallery;
use retroanim::scan::{self, ScanOptions};

fn main() {
    // `cargo test --benches` runs this with --bench absent: do nothing then.
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    let ps1 = corpus_dir().join("ps1");
    if !ps1.is_dir() {
        eprintln!("*** no corpus at {}: nothing to measure ***", ps1.display());
        return;
    }
    let threads: usize = std::env::var("RETROANIM_BENCH_THREADS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    let inputs = vec![ps1.clone()];
    let opts = ScanOptions::default();
    let mut scan_best = f64::MAX;
    let mut report_best = f64::MAX;
    let mut written = None;
    for _ in 0..3 {
        let t = Instant::now();
        let only = pool.install(|| scan::scan_paths(&inputs, &opts));
        assert!(only.errors.is_empty(), "{:?}", only.errors);
        drop(only);
        scan_best = scan_best.min(t.elapsed().as_secs_f64());
        let out = tempfile::tempdir().unwrap();
        let t = Instant::now();
        let found = pool.install(|| scan::scan_paths(&inputs, &opts));
        let w = pool
            .install(|| {
                gallery::write_report(&found, &inputs, out.path(), &gallery::Options::default())
            })
            .unwrap();
        report_best = report_best.min(t.elapsed().as_secs_f64());
        written = Some((found.finds.len(), w.files));
    }
    let (finds, files) = written.unwrap_or_default();
    println!(
        "report/ps1 ({threads} threads): {finds} finds, {files} files written; scan {scan_best:.2} s, \
         scan + report {report_best:.2} s (ratio {:.1}); peak RSS {} MB",
        report_best / scan_best.max(1e-9),
        peak_rss_kb() / 1024
    );
}
