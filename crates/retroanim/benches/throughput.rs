//! Read and write throughput over the corpus, reported as a ratio to copying the same bytes.
//!
//! `cargo bench -p retroanim --bench throughput` runs criterion's measurements, then prints one
//! line per format: MB/s for copy, read, write, and read/write time as a multiple of the copy.
//! The corpus comes from `$RETROANIM_CORPUS` (default `../shared/corpus` beside the repository).

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput};

fn corpus_dir() -> PathBuf {
    std::env::var_os("RETROANIM_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus"))
}

/// Distinct files of a manifest kind.
fn corpus(kind: &str) -> Vec<Vec<u8>> {
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
            let (file, k) = (c.next()?, c.next()?);
            (k == kind)
                .then(|| std::fs::read(dir.join(file)).ok())
                .flatten()
        })
        .filter(|b| seen.insert(b.clone()))
        .collect()
}

/// Mean time of `f` over at least `budget`.
fn time(budget: Duration, mut f: impl FnMut()) -> Duration {
    f();
    let start = Instant::now();
    let mut n = 0u32;
    while start.elapsed() < budget {
        f();
        n += 1;
    }
    start.elapsed() / n.max(1)
}

/// One format's codec as seen by the benchmark: bytes → model → bytes.
struct Codec<M> {
    kind: &'static str,
    name: &'static str,
    read: fn(&[u8]) -> retroanim::Result<M>,
    write: fn(&M) -> retroanim::Result<Vec<u8>>,
}

fn bench_codec<M>(c: &mut Criterion, codec: &Codec<M>, ratios: &mut Vec<String>) {
    let files = corpus(codec.kind);
    if files.is_empty() {
        return;
    }
    let total: usize = files.iter().map(Vec::len).sum();
    let models: Vec<M> = files.iter().map(|f| (codec.read)(f).unwrap()).collect();
    let copy = || {
        for f in &files {
            black_box(f.to_vec());
        }
    };
    let read = || {
        for f in &files {
            black_box((codec.read)(black_box(f)).unwrap());
        }
    };
    let write = || {
        for m in &models {
            black_box((codec.write)(black_box(m)).unwrap());
        }
    };
    let mut g = c.benchmark_group(codec.name);
    g.throughput(Throughput::Bytes(total as u64));
    g.bench_function("copy", |b| b.iter(copy));
    g.bench_function("read", |b| b.iter(read));
    g.bench_function("write", |b| b.iter(write));
    g.finish();

    let budget = Duration::from_millis(500);
    let (tc, tr, tw) = (time(budget, copy), time(budget, read), time(budget, write));
    let mbs = |t: Duration| total as f64 / t.as_secs_f64() / 1e6;
    ratios.push(format!(
        "{:<6} {:>4} files {:>9} bytes | copy {:>8.0} MB/s | read {:>7.0} MB/s = {:>5.2}x copy time | write {:>7.0} MB/s = {:>5.2}x copy time",
        codec.name,
        files.len(),
        total,
        mbs(tc),
        mbs(tr),
        tr.as_secs_f64() / tc.as_secs_f64(),
        mbs(tw),
        tw.as_secs_f64() / tc.as_secs_f64(),
    ));
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    let mut ratios = Vec::new();
    bench_codec(
        &mut c,
        &Codec {
            kind: "TOD",
            name: "tod",
            read: retroanim::formats::tod::read,
            write: retroanim::formats::tod::write,
        },
        &mut ratios,
    );
    c.final_summary();
    println!("\nthroughput over the corpus (distinct files), as a ratio to copying the bytes:");
    for r in ratios {
        println!("{r}");
    }
}
