//! Read and write throughput over the corpus, reported as a ratio to copying the same bytes.
//!
//! `cargo bench -p retroanim --bench throughput` runs criterion's measurements, then prints one
//! line per format: MB/s for an in-memory copy, a plain `fs::read` of the same files, our read
//! and our write, and read/write time as a multiple of the copy and of the plain read.
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

/// A file's path and bytes.
type Named = (PathBuf, Vec<u8>);

/// Distinct files of a manifest kind: their paths and bytes.
fn corpus(kind: &str) -> Vec<Named> {
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
            let path = dir.join(file);
            (k == kind)
                .then(|| std::fs::read(&path).ok().map(|b| (path, b)))
                .flatten()
        })
        .filter(|(_, b)| seen.insert(b.clone()))
        .collect()
}

/// Time of one call of each of `fs`. They take turns over seven rounds, each spending a
/// seventh of `budget` on every function, and each keeps its best round: all see the same
/// conditions on a machine that is running other work too.
fn times(budget: Duration, fs: &[&dyn Fn()]) -> Vec<Duration> {
    const ROUNDS: u32 = 7;
    fs.iter().for_each(|f| f());
    let mut best = vec![Duration::MAX; fs.len()];
    for _ in 0..ROUNDS {
        for (f, b) in fs.iter().zip(&mut best) {
            let start = Instant::now();
            let mut n = 0u32;
            while start.elapsed() < budget / ROUNDS {
                f();
                n += 1;
            }
            *b = (*b).min(start.elapsed() / n.max(1));
        }
    }
    best
}

/// The corpus TIMs split into PXL (pixels) and, where they have one, CLT (CLUT) files, written
/// to `dir`: the same texels as the TIMs, so PXL/CLT throughput compares with TIM's byte for
/// byte (the corpus holds one small CLT and no PXL).
fn split_tims(dir: &Path) -> (Vec<Named>, Vec<Named>) {
    use retroanim::formats::{clt, pxl, tim};
    let (mut pxls, mut clts) = (Vec::new(), Vec::new());
    for (i, (_, b)) in corpus("TIM").into_iter().enumerate() {
        let Some((p, c)) = tim::read(&b).ok().and_then(|t| pxl::split_tim(&t).ok()) else {
            continue;
        };
        let put = |ext: &str, bytes: Vec<u8>, out: &mut Vec<Named>| {
            let path = dir.join(format!("{i}.{ext}"));
            if std::fs::write(&path, &bytes).is_ok() {
                out.push((path, bytes));
            }
        };
        if let Ok(bytes) = pxl::write(&p) {
            put("pxl", bytes, &mut pxls);
        }
        if let Some(bytes) = c.and_then(|c| clt::write(&c).ok()) {
            put("clt", bytes, &mut clts);
        }
    }
    (pxls, clts)
}

/// One format's codec as seen by the benchmark: bytes → model → bytes.
struct Codec<M> {
    kind: &'static str,
    name: &'static str,
    read: fn(&[u8]) -> retroanim::Result<M>,
    write: fn(&M) -> retroanim::Result<Vec<u8>>,
}

fn bench_codec<M>(c: &mut Criterion, codec: &Codec<M>, ratios: &mut Vec<String>) {
    bench_files(c, codec, corpus(codec.kind), ratios);
}

/// [`bench_codec`] over the given files (path, bytes).
fn bench_files<M>(
    c: &mut Criterion,
    codec: &Codec<M>,
    corpus: Vec<Named>,
    ratios: &mut Vec<String>,
) {
    // Files the codec rejects (deliberately broken corpus files) are left out.
    let (paths, files, models): (Vec<PathBuf>, Vec<Vec<u8>>, Vec<M>) = corpus
        .into_iter()
        .filter_map(|(p, f)| (codec.read)(&f).ok().map(|m| (p, f, m)))
        .fold(Default::default(), |(mut ps, mut fs, mut ms), (p, f, m)| {
            ps.push(p);
            fs.push(f);
            ms.push(m);
            (ps, fs, ms)
        });
    if files.is_empty() {
        return;
    }
    let total: usize = files.iter().map(Vec::len).sum();
    let copy = || {
        for f in &files {
            black_box(f.to_vec());
        }
    };
    // A plain read of the same bytes from the (page-cached) files.
    let fs_read = || {
        for p in &paths {
            black_box(std::fs::read(p).unwrap());
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
    g.bench_function("fs_read", |b| b.iter(fs_read));
    g.bench_function("read", |b| b.iter(read));
    g.bench_function("write", |b| b.iter(write));
    g.finish();

    let t = times(
        Duration::from_millis(1500),
        &[&copy, &fs_read, &read, &write],
    );
    let (tc, tf, tr, tw) = (t[0], t[1], t[2], t[3]);
    let mbs = |t: Duration| total as f64 / t.as_secs_f64() / 1e6;
    let x = |t: Duration, base: Duration| t.as_secs_f64() / base.as_secs_f64();
    ratios.push(format!(
        "{} ({} files, {} bytes): copy {:.0} MB/s, fs::read {:.0} MB/s | read {:.0} MB/s = {:.1}x copy, {:.2}x fs::read | write {:.0} MB/s = {:.1}x copy, {:.2}x fs::read",
        codec.name,
        files.len(),
        total,
        mbs(tc),
        mbs(tf),
        mbs(tr),
        x(tr, tc),
        x(tr, tf),
        mbs(tw),
        x(tw, tc),
        x(tw, tf),
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
    bench_codec(
        &mut c,
        &Codec {
            kind: "HMD",
            name: "hmd",
            read: retroanim::formats::hmd::read,
            write: retroanim::formats::hmd::write,
        },
        &mut ratios,
    );
    bench_codec(
        &mut c,
        &Codec {
            kind: "TMD",
            name: "tmd",
            read: retroanim::formats::tmd::read,
            write: retroanim::formats::tmd::write,
        },
        &mut ratios,
    );
    bench_codec(
        &mut c,
        &Codec {
            kind: "TIM",
            name: "tim",
            read: retroanim::formats::tim::read,
            write: retroanim::formats::tim::write,
        },
        &mut ratios,
    );
    // PMD and CLT beside TMD and TIM: the same byte throughput is the aim (issue #40).
    bench_codec(
        &mut c,
        &Codec {
            kind: "PMD",
            name: "pmd",
            read: retroanim::formats::pmd::read,
            write: retroanim::formats::pmd::write,
        },
        &mut ratios,
    );
    bench_codec(
        &mut c,
        &Codec {
            kind: "CLT",
            name: "clt",
            read: |b| retroanim::formats::clt::read_raw(b, &retroanim::Limits::default()),
            write: retroanim::formats::clt::write,
        },
        &mut ratios,
    );
    // PXL and CLT split from the corpus TIMs: the same texels, so the same bytes to read.
    if let Ok(dir) = tempfile::tempdir() {
        let (pxls, clts) = split_tims(dir.path());
        bench_files(
            &mut c,
            &Codec {
                kind: "TIM",
                name: "pxl (from the TIMs)",
                read: retroanim::formats::pxl::read,
                write: retroanim::formats::pxl::write,
            },
            pxls,
            &mut ratios,
        );
        bench_files(
            &mut c,
            &Codec {
                kind: "TIM",
                name: "clt (from the TIMs)",
                read: retroanim::formats::clt::read,
                write: retroanim::formats::clt::write,
            },
            clts,
            &mut ratios,
        );
    }
    bench_codec(
        &mut c,
        &Codec {
            kind: "p3d-mlod",
            name: "p3d-mlod",
            read: retroanim::formats::p3d::read,
            write: retroanim::formats::p3d::write,
        },
        &mut ratios,
    );
    bench_playback(&mut c);
    c.final_summary();
    println!("\nthroughput over the corpus (distinct files), as a ratio to copying the bytes:");
    for r in ratios {
        println!("{r}");
    }
}

/// TOD playback of every corpus TOD to its last frame, and the glTF export of the largest TOD
/// with a TMD beside it (the janken hand's APPEAR.TOD with TE.TMD).
fn bench_playback(c: &mut Criterion) {
    use retroanim::formats::{tmd, tod};
    let anims: Vec<tod::Tod> = corpus("TOD")
        .iter()
        .map(|(_, b)| tod::read(b).unwrap())
        .collect();
    if anims.is_empty() {
        return;
    }
    let mut g = c.benchmark_group("tod_play");
    g.throughput(Throughput::Elements(
        anims.iter().map(|a| a.frames.len() as u64).sum(),
    ));
    g.bench_function("whole corpus", |b| {
        b.iter(|| {
            for a in &anims {
                black_box(tod::Player::new(a, None).last());
            }
        })
    });
    g.finish();
    let find = |kind: &str, tail: &str| {
        corpus(kind)
            .into_iter()
            .find(|(p, _)| p.ends_with(tail))
            .map(|(_, b)| b)
    };
    let hand = find("TMD", "TE.TMD").map(|b| tmd::read(&b).unwrap());
    let appear = find("TOD", "APPEAR.TOD").map(|b| tod::read(&b).unwrap());
    if let (Some(hand), Some(appear)) = (hand, appear) {
        let opts = retroanim::formats::tod::scene::PsxOptions::default();
        c.bench_function("tod_gltf/largest TOD+TMD to glb", |b| {
            b.iter(|| {
                let scene =
                    retroanim::formats::tod::scene::tod_scene(&appear, Some(&hand), &opts).unwrap();
                black_box(retroanim::export::gltf::write_glb(&scene).unwrap())
            })
        });
    }
}
