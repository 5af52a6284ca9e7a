//! Authoring time of the slowest corpus files: glTF (GLB bytes) → TOD or HMD bytes, the step
//! `retroanim convert X.glb Y.tod` / `Y.hmd` takes with default options.
//!
//! `cargo bench -p retroanim --bench author` (about two minutes on 2 cores). The setup exports
//! every distinct corpus TOD (with its TMD where its folder has one) and HMD to GLB and times
//! authoring each once, as the example `author_times` does (the same cases:
//! `benches/common/author.rs`). From that sweep it measures the [`SLOWEST`] slowest TODs, the
//! slowest TOD of each other collection of the manifest (its `repo` column: the janken hand of
//! the PsyQ samples beside LSD's objects) and the [`SLOWEST`] slowest HMDs, authoring alone
//! (the export is not timed): criterion with [`SAMPLES`] samples of one authoring each, so it
//! warns that the samples do not fit its target time — that is meant. Then prints, per file,
//! the CPU time per authoring and the share of the wall time the thread spent waiting for a
//! CPU (`/proc/thread-self/schedstat`: how much other load inflated criterion's wall times).
//! Without the corpus (`$RETROANIM_CORPUS`, default `../shared/corpus`) it says so and
//! measures nothing; `cargo test --benches` runs nothing. `docs/authoring.md` holds the figures.

mod common;

use std::cell::Cell;
use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Criterion, SamplingMode};

use common::author::{self, Case};
use common::{corpus_dir, thread_sched_ns};
use retroanim::Format;

/// How many of the slowest TODs, and of the slowest HMDs, are measured.
const SLOWEST: usize = 2;
/// Criterion's samples per file (its least).
const SAMPLES: usize = 10;

fn main() {
    // `cargo test --benches` runs this with --bench absent: the sweep alone takes 20 s.
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    let dir = corpus_dir();
    if !dir.join("MANIFEST.tsv").is_file() {
        eprintln!("*** no corpus at {}: nothing to measure ***", dir.display());
        return;
    }
    // The sweep: every case authored once, kept with its time.
    let mut swept: Vec<(Duration, Case)> = Vec::new();
    let failed = author::for_each_case(&dir, "", |c| match author::time_author(&c.glb, c.to) {
        Ok(d) => swept.push((d, c)),
        Err(e) => eprintln!("{}: author: {e}", c.name),
    });
    let total: Duration = swept.iter().map(|s| s.0).sum();
    eprintln!(
        "sweep: {} files authored once in {:.2} s; {} exports failed",
        swept.len(),
        total.as_secs_f64(),
        failed.len()
    );
    for f in &failed {
        eprintln!("{f}");
    }
    swept.sort_by_key(|s| std::cmp::Reverse(s.0));
    let chosen = choose(&swept);

    let mut c = Criterion::default()
        .sample_size(SAMPLES)
        .configure_from_args();
    let mut g = c.benchmark_group("author");
    g.sampling_mode(SamplingMode::Flat)
        .sample_size(SAMPLES)
        // One run to warm up, one authoring per sample.
        .warm_up_time(Duration::from_nanos(1))
        .measurement_time(Duration::from_millis(1));
    let mut cpu = Vec::new();
    for (_, case) in &chosen {
        let runs = Cell::new(0u32);
        let (t0, s0) = (Instant::now(), thread_sched_ns());
        g.bench_function(format!("{} {}", case.what, case.name), |b| {
            b.iter(|| {
                runs.set(runs.get() + 1);
                black_box(author::author(black_box(&case.glb), case.to))
            })
        });
        let wall = t0.elapsed().as_secs_f64();
        cpu.push(thread_sched_ns().zip(s0).map(|(s1, s0)| {
            let on = (s1.0 - s0.0) as f64 / 1e9;
            let waited = (s1.1 - s0.1) as f64 / 1e9;
            (on / f64::from(runs.get().max(1)), waited / wall.max(1e-9))
        }));
    }
    g.finish();
    c.final_summary();
    println!("\nper file: sweep time (one run), CPU time per authoring, share of wall time spent waiting for a CPU:");
    for ((d, case), cpu) in chosen.iter().zip(&cpu) {
        let (on, wait) = cpu.map_or(("?".to_string(), "?".to_string()), |(on, w)| {
            (format!("{on:.3} s"), format!("{:.0} %", w * 100.0))
        });
        println!(
            "{:7.3} s  cpu {on:>8}  waiting {wait:>4}  {:8} {} ({} KB of GLB)",
            d.as_secs_f64(),
            case.what,
            case.name,
            case.glb.len() / 1024
        );
    }
}

/// The [`SLOWEST`] slowest TODs, the slowest TOD of every other collection and the
/// [`SLOWEST`] slowest HMDs of `swept` (slowest first).
fn choose(swept: &[(Duration, Case)]) -> Vec<&(Duration, Case)> {
    let tods: Vec<&(Duration, Case)> = swept.iter().filter(|s| s.1.to == Format::Tod).collect();
    let mut chosen: Vec<&(Duration, Case)> = tods.iter().take(SLOWEST).copied().collect();
    for s in &tods {
        if !chosen.iter().any(|c| c.1.collection == s.1.collection) {
            chosen.push(s);
        }
    }
    chosen.extend(swept.iter().filter(|s| s.1.to == Format::Hmd).take(SLOWEST));
    chosen
}
