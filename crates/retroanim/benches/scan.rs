//! Scan throughput: a raw Mode 2 disc image built from corpus files and filler (xorriso when
//! installed, else the sectors of one blob), scanned against `cat` of the same file.
//!
//! `cargo bench -p retroanim --bench scan` builds a 70 MB image; `RETROANIM_SCAN_BENCH_MB=700`
//! for the large one. The sparse image puts 4 KiB of random filler before each asset;
//! `RETROANIM_SCAN_BENCH_DENSE=1` packs the assets densely instead (0–60 bytes of filler
//! between them, the corpus repeated to size: thousands of finds per 100 MB).
//! `RETROANIM_SCAN_BENCH_CACHE=1` keeps the built image in `target/scan-bench/` and reuses it
//! (building 700 MB takes longer than scanning it). Prints: cat (best of two) and scan (best and worst of three) wall time and
//! their ratio, the candidate and full-parse passes (thread time), candidates rejected per MB of
//! random data, peak RSS.

mod common;

use std::path::Path;
use std::process::Command;
use std::sync::atomic::Ordering;
use std::time::Instant;

use common::{corpus_dir, peak_rss_kb};
use retroanim::scan::{self, ScanOptions};

/// Corpus TOD/TMD/TIM/HMD files (empty without the corpus).
fn assets() -> Vec<Vec<u8>> {
    let dir = corpus_dir();
    let Ok(text) = std::fs::read_to_string(dir.join("MANIFEST.tsv")) else {
        eprintln!(
            "*** no corpus at {}: the image holds filler only ***",
            dir.display()
        );
        return Vec::new();
    };
    text.lines()
        .skip(1)
        .filter_map(|l| {
            let mut c = l.split('\t');
            let (file, kind) = (c.next()?, c.next()?);
            ["TOD", "TMD", "TIM", "HMD"]
                .contains(&kind)
                .then(|| std::fs::read(dir.join(file)).ok())
                .flatten()
        })
        .collect()
}

fn noise(seed: u64, n: usize) -> Vec<u8> {
    let mut x = seed | 1;
    let mut v = Vec::with_capacity(n + 8);
    while v.len() < n {
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        v.extend_from_slice(&x.wrapping_mul(0x2545_F491_4F6C_DD1D).to_le_bytes());
    }
    v.truncate(n);
    v
}

/// A folder of `mb` megabytes: the corpus assets packed into 4 MB archives with filler (4 KiB
/// before each asset, or 0–60 bytes when `dense`).
fn tree(dir: &Path, mb: usize, dense: bool) -> u64 {
    let assets = assets();
    std::fs::create_dir_all(dir).unwrap();
    let mut total = 0u64;
    let mut i = 0usize;
    let mut n = 0;
    while total < (mb as u64) << 20 {
        let mut blob = Vec::with_capacity(4 << 20);
        while blob.len() < 4 << 20 {
            let filler = if dense { (i * 13) % 61 } else { 4096 };
            blob.extend_from_slice(&noise(n as u64 * 7 + i as u64, filler));
            if let Some(a) = assets.get(i % assets.len().max(1)) {
                if !assets.is_empty() {
                    blob.extend_from_slice(a);
                }
            }
            i += 1;
        }
        total += blob.len() as u64;
        std::fs::write(dir.join(format!("PACK{n:04}.BIN")), &blob).unwrap();
        n += 1;
    }
    total
}

fn main() {
    // `cargo test --benches` runs this with --bench absent: build nothing then.
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    let mb: usize = std::env::var("RETROANIM_SCAN_BENCH_MB")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(70);
    let dense = std::env::var_os("RETROANIM_SCAN_BENCH_DENSE").is_some();
    let t = tempfile::tempdir().unwrap();
    let cache = std::env::var_os("RETROANIM_SCAN_BENCH_CACHE").map(|_| {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/scan-bench");
        std::fs::create_dir_all(&dir).unwrap();
        dir.join(format!(
            "{}-{mb}.bin",
            if dense { "dense" } else { "sparse" }
        ))
    });
    let bin = match &cache {
        Some(c) if c.exists() => c.clone(),
        _ => {
            let bin = build_image(t.path(), mb, dense);
            match &cache {
                Some(c) => {
                    std::fs::rename(&bin, c)
                        .or_else(|_| std::fs::copy(&bin, c).map(|_| ()))
                        .unwrap();
                    c.clone()
                }
                None => bin,
            }
        }
    };
    let size = std::fs::metadata(&bin).unwrap().len();
    run(&bin, size, t.path(), dense);
}

/// Builds the raw Mode 2 image in `dir`.
fn build_image(dir: &Path, mb: usize, dense: bool) -> std::path::PathBuf {
    let files = dir.join("tree");
    tree(&files, mb, dense);
    let iso = dir.join("bench.iso");
    let xorriso = Command::new("xorriso")
        .args(["-as", "mkisofs", "-quiet", "-o"])
        .arg(&iso)
        .arg(&files)
        .status()
        .is_ok_and(|s| s.success());
    if !xorriso {
        eprintln!("*** xorriso not installed: the image is the sectors of one blob ***");
        let mut all = Vec::new();
        for e in std::fs::read_dir(&files).unwrap() {
            all.extend(std::fs::read(e.unwrap().path()).unwrap());
        }
        std::fs::write(&iso, all).unwrap();
    }
    std::fs::remove_dir_all(&files).unwrap();
    let bin = dir.join("bench.bin");
    {
        let mut input = std::io::BufReader::new(std::fs::File::open(&iso).unwrap());
        let mut out = std::io::BufWriter::new(std::fs::File::create(&bin).unwrap());
        scan::raw::write_mode2_image(&mut input, &mut out).unwrap();
    }
    std::fs::remove_file(&iso).unwrap();
    if let Some(keep) = std::env::var_os("RETROANIM_SCAN_BENCH_KEEP") {
        std::fs::copy(&bin, keep).unwrap();
    }
    bin
}

fn run(bin: &Path, size: u64, tmp: &Path, dense: bool) {
    let cat = || {
        let t0 = Instant::now();
        let ok = Command::new("cat")
            .arg(bin)
            .stdout(std::process::Stdio::null())
            .status()
            .unwrap()
            .success();
        assert!(ok);
        t0.elapsed().as_secs_f64()
    };
    cat(); // warm the page cache
    let cat_s = cat().min(cat());

    let rss_before = peak_rss_kb();
    let opts = ScanOptions::default();
    // Three scans (as `cat`'s best of two): the best and the worst wall time are reported.
    let mut times = Vec::new();
    let mut report = None;
    for _ in 0..3 {
        let t0 = Instant::now();
        let r = scan::scan_paths(&[bin.to_path_buf()], &opts);
        times.push(t0.elapsed().as_secs_f64());
        report = Some(r);
    }
    let report = report.expect("three scans ran");
    let scan_s = times.iter().copied().fold(f64::INFINITY, f64::min);
    let scan_worst = times.iter().copied().fold(0.0, f64::max);
    let st = &report.stats;
    let cand_s = st.candidate_ns.load(Ordering::Relaxed) as f64 / 1e9;
    let parse_s = st.parse_ns.load(Ordering::Relaxed) as f64 / 1e9;
    assert!(report.errors.is_empty(), "{:?}", report.errors);
    let rss_scan = peak_rss_kb();

    // Random data: candidates rejected per MB.
    let random = tmp.join("random.bin");
    {
        let mut w = std::io::BufWriter::new(std::fs::File::create(&random).unwrap());
        for i in 0..64 {
            std::io::Write::write_all(&mut w, &noise(99 + i, 1 << 20)).unwrap();
        }
    }
    let r = scan::scan_paths(&[random], &opts);
    let rejected = r.stats.rejected.load(Ordering::Relaxed) as f64 / 64.0;
    let r1 = scan::scan_paths(
        &[tmp.join("random.bin")],
        &ScanOptions {
            align: 1,
            ..ScanOptions::default()
        },
    );
    let rejected1 = r1.stats.rejected.load(Ordering::Relaxed) as f64 / 64.0;

    println!(
        "scan bench: {} raw Mode 2 image of {:.1} MB, {} finds ({})",
        if dense { "dense" } else { "sparse" },
        size as f64 / 1e6,
        report.finds.len(),
        report.summary()["formats"]
    );
    println!(
        "  cat:  {cat_s:.3} s ({:.0} MB/s)",
        size as f64 / 1e6 / cat_s
    );
    println!(
        "  scan: {scan_s:.3} s ({:.0} MB/s) = {:.2} x cat (best of 3; worst {scan_worst:.3} s = {:.2} x)",
        size as f64 / 1e6 / scan_s,
        scan_s / cat_s,
        scan_worst / cat_s
    );
    println!("  candidate pass {cand_s:.3} s, full-parse pass {parse_s:.3} s (thread time, {} candidates, {} rejected)",
        st.candidates.load(Ordering::Relaxed), st.rejected.load(Ordering::Relaxed));
    println!("  random data: {rejected:.2} candidates rejected per MB at --align 4, {rejected1:.2} at --align 1; clean finds: {}",
        r.finds.iter().chain(&r1.finds).filter(|f| f.status == scan::Status::Clean).count());
    println!(
        "  peak RSS {:.1} MB after the image scan (before it {:.1} MB)",
        rss_scan as f64 / 1024.0,
        rss_before as f64 / 1024.0
    );
}
