//! HMD read and write throughput over the corpus, next to a plain copy of the same bytes (the
//! issue's target: within 2× of the copy). Needs the corpus (`RETROANIM_CORPUS`).

use std::path::PathBuf;

use criterion::{criterion_main, Criterion, Throughput};

fn corpus() -> Vec<Vec<u8>> {
    let dir = std::env::var_os("RETROANIM_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus")
        });
    let Ok(manifest) = std::fs::read_to_string(dir.join("MANIFEST.tsv")) else {
        eprintln!("no corpus at {}: nothing to measure", dir.display());
        return Vec::new();
    };
    manifest
        .lines()
        .filter_map(|l| {
            let mut c = l.split('\t');
            let (file, kind) = (c.next()?, c.next()?);
            (kind == "HMD").then(|| std::fs::read(dir.join(file)).ok())?
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let files = corpus();
    let bytes: usize = files.iter().map(Vec::len).sum();
    let models: Vec<_> = files
        .iter()
        .filter_map(|f| retroanim::formats::hmd::read(f).ok())
        .collect();
    let mut g = c.benchmark_group("hmd");
    g.throughput(Throughput::Bytes(bytes as u64));
    g.bench_function("copy", |b| {
        b.iter(|| files.iter().map(|f| f.to_vec().len()).sum::<usize>())
    });
    g.bench_function("read", |b| {
        b.iter(|| {
            files
                .iter()
                .filter_map(|f| retroanim::formats::hmd::read(f).ok())
                .count()
        })
    });
    g.bench_function("write", |b| {
        b.iter(|| {
            models
                .iter()
                .filter_map(|m| retroanim::formats::hmd::write(m).ok())
                .map(|v| v.len())
                .sum::<usize>()
        })
    });
    g.finish();
}

// The criterion macros define undocumented items.
#[allow(missing_docs)]
mod group {
    criterion::criterion_group!(benches, super::bench);
}
criterion_main!(group::benches);
