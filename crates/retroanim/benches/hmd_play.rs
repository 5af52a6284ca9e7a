//! HMD playback and export throughput.
//!
//! `cargo bench -p retroanim --bench hmd_play` plays every animated corpus HMD for 1,000 frames
//! (updates alone, and updates plus the per-frame pose report with world matrices, MIMe weights
//! and deformed vectors), exports the largest animated HMD to glTF (player sampling, scene
//! building, GLB writing), then prints frames per second and where the time goes. The corpus
//! comes from `$RETROANIM_CORPUS` (default `../shared/corpus` beside the repository).

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput};
use retroanim::formats::hmd::{self, Hmd, PlayOptions, Player, RegionBody, SceneOptions};

const FRAMES: usize = 1000;

fn corpus_dir() -> PathBuf {
    std::env::var_os("RETROANIM_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus"))
}

/// Distinct animated HMDs of the corpus with their sizes in bytes.
fn animated() -> Vec<(String, usize, Hmd)> {
    let dir = corpus_dir();
    let Ok(manifest) = std::fs::read_to_string(dir.join("MANIFEST.tsv")) else {
        eprintln!("no corpus at {}: nothing to measure", dir.display());
        return Vec::new();
    };
    let mut seen = std::collections::HashSet::new();
    manifest
        .lines()
        .filter_map(|l| {
            let mut c = l.split('\t');
            let (file, kind) = (c.next()?, c.next()?);
            let bytes = (kind == "HMD").then(|| std::fs::read(dir.join(file)).ok())??;
            let m = hmd::read(&bytes).ok()?;
            (!m.animations().is_empty() && seen.insert(bytes.clone()))
                .then(|| (file.to_string(), bytes.len(), m))
        })
        .collect()
}

/// Vector sections (vertices, normals) a frame report includes.
fn vector_sections(m: &Hmd) -> Vec<u32> {
    m.regions
        .iter()
        .filter_map(|r| match &r.body {
            RegionBody::Section(s) if matches!(s.data, hmd::SectionData::Vectors { .. }) => {
                Some(r.offset)
            }
            _ => None,
        })
        .collect()
}

fn play(files: &[(String, usize, Hmd)], report: bool) {
    for (_, _, m) in files {
        let sections = if report {
            vector_sections(m)
        } else {
            Vec::new()
        };
        let mut p = Player::new(m, &PlayOptions::default());
        for _ in 0..FRAMES {
            p.step().unwrap();
            if report {
                black_box(p.frame());
                for &s in &sections {
                    black_box(p.vectors(s, false));
                }
            }
        }
        black_box(&p);
    }
}

/// Mean time of `f` over at least `budget` (at least two runs).
fn time(budget: Duration, mut f: impl FnMut()) -> Duration {
    f();
    let start = Instant::now();
    let mut n = 0u32;
    while n < 2 || start.elapsed() < budget {
        f();
        n += 1;
    }
    start.elapsed() / n
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    let files = animated();
    if files.is_empty() {
        return;
    }
    let n = files.len();
    let mut g = c.benchmark_group("hmd_play");
    g.throughput(Throughput::Elements((n * FRAMES) as u64));
    g.bench_function("updates (1000 frames, every animated HMD)", |b| {
        b.iter(|| play(&files, false))
    });
    g.bench_function("updates + frame report", |b| b.iter(|| play(&files, true)));
    g.finish();

    let (name, bytes, largest) = files.iter().max_by_key(|(_, b, _)| *b).unwrap();
    let options = SceneOptions::default();
    let scene = largest.to_scene(&options).unwrap();
    let exported_frames: u64 = scene
        .animations
        .iter()
        .map(|a| a.extras["frames"].as_u64().unwrap_or(0))
        .sum();
    let sequences = scene.animations.len();
    // What the export's sampling costs on its own: the player over the same frames.
    let sample = || {
        for a in &scene.animations {
            let k = a.extras["sequence"].as_u64().unwrap_or(0) as usize;
            let mut p = Player::new(
                largest,
                &PlayOptions {
                    sequence: Some(k),
                    ..PlayOptions::default()
                },
            );
            for _ in 0..a.extras["frames"].as_u64().unwrap_or(0) {
                p.step().unwrap();
                black_box(p.frame());
            }
        }
    };
    let build = || black_box(largest.to_scene(&options).unwrap());
    let write = || black_box(retroanim::export::gltf::write_glb(&scene).unwrap());
    let mut g = c.benchmark_group("hmd_gltf");
    g.bench_function("largest animated HMD: player sampling", |b| b.iter(sample));
    g.bench_function("largest animated HMD: to_scene", |b| b.iter(build));
    g.bench_function("largest animated HMD: write glb", |b| b.iter(write));
    g.finish();
    c.final_summary();

    let budget = Duration::from_millis(300);
    let t_step = time(budget, || play(&files, false));
    let t_frame = time(budget, || play(&files, true));
    let t_sample = time(budget, sample);
    let t_build = time(budget, || {
        build();
    });
    let t_write = time(budget, || {
        write();
    });
    let fps = |t: Duration, frames: f64| frames / t.as_secs_f64();
    let pct = |a: Duration, b: Duration| 100.0 * a.as_secs_f64() / b.as_secs_f64();
    let total_frames = (n * FRAMES) as f64;
    println!("\nHMD playback, {n} animated corpus HMDs × {FRAMES} frames:");
    println!(
        "  updates only            {:>10.0} frames/s ({:.1} ms)",
        fps(t_step, total_frames),
        t_step.as_secs_f64() * 1e3
    );
    println!(
        "  updates + frame report  {:>10.0} frames/s ({:.1} ms): {:.0}% interpolation/MIMe, {:.0}% pose report (world matrices, devices, vectors)",
        fps(t_frame, total_frames),
        t_frame.as_secs_f64() * 1e3,
        pct(t_step, t_frame),
        100.0 - pct(t_step, t_frame)
    );
    let t_export = t_build + t_write;
    println!("glTF export of the largest animated HMD ({name}, {bytes} bytes, {sequences} animations, {exported_frames} frames):");
    println!(
        "  total {:.1} ms = to_scene {:.1} ms + write glb {:.1} ms; {:.0} exported frames/s",
        t_export.as_secs_f64() * 1e3,
        t_build.as_secs_f64() * 1e3,
        t_write.as_secs_f64() * 1e3,
        fps(t_export, exported_frames as f64)
    );
    println!(
        "  share: playback (sampling the player) {:.0}%, scene building {:.0}%, glTF writing {:.0}%",
        pct(t_sample, t_export),
        (pct(t_build, t_export) - pct(t_sample, t_export)).max(0.0),
        pct(t_write, t_export)
    );
}
