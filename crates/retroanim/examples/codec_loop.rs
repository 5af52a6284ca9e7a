//! Reads (or writes) every distinct corpus file of one kind in a loop, for instruction-count
//! profiling, and prints the allocations and bytes per pass.
//!
//! ```text
//! cargo build --release -p retroanim --example codec_loop
//! valgrind --tool=callgrind --collect-atstart=no --toggle-collect='*codec_loop::pass*' \
//!     target/release/examples/codec_loop hmd read 10
//! ```
//!
//! KIND is `hmd`, `tmd` or `p3d-mlod`; OP is `read` or `write`. Instruction counts are
//! repeatable on a loaded machine where wall-clock timings are not. The corpus comes from
//! `$RETROANIM_CORPUS` (default `../shared/corpus` beside the repository).
#![allow(unsafe_code)] // a GlobalAlloc wrapper needs `unsafe impl`; the library itself forbids unsafe.

use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

struct Counting;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Distinct files of a manifest kind.
fn corpus(kind: &str) -> Vec<Vec<u8>> {
    let dir = std::env::var_os("RETROANIM_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus"));
    let manifest = std::fs::read_to_string(dir.join("MANIFEST.tsv")).unwrap_or_default();
    let mut seen = std::collections::HashSet::new();
    manifest
        .lines()
        .filter_map(|l| {
            let mut c = l.split('\t');
            let (file, k) = (c.next()?, c.next()?);
            (k == kind).then(|| std::fs::read(dir.join(file)).ok())?
        })
        .filter(|b| seen.insert(b.clone()))
        .collect()
}

/// One pass over the files: the code callgrind measures.
#[inline(never)]
fn pass<M>(files: &[Vec<u8>], models: &[M], op: &str, read: fn(&[u8]) -> Option<M>, write: fn(&M)) {
    if op == "write" {
        models.iter().for_each(write);
    } else {
        for f in files {
            black_box(read(black_box(f)));
        }
    }
}

fn run<M>(kind: &str, op: &str, n: usize, read: fn(&[u8]) -> Option<M>, write: fn(&M)) {
    // Files the codec rejects (deliberately broken corpus files) are left out.
    let files: Vec<Vec<u8>> = corpus(kind)
        .into_iter()
        .filter(|f| read(f).is_some())
        .collect();
    let models: Vec<M> = files.iter().filter_map(|f| read(f)).collect();
    let bytes: usize = files.iter().map(Vec::len).sum();
    let before = ALLOCATIONS.load(Ordering::Relaxed);
    for _ in 0..n {
        pass(&files, &models, op, read, write);
    }
    let allocations = ALLOCATIONS.load(Ordering::Relaxed) - before;
    println!(
        "{kind} {op}: {} files, {bytes} bytes per pass, {n} passes, {:.1} allocations per file",
        files.len(),
        allocations as f64 / (n * files.len().max(1)) as f64
    );
}

fn main() {
    use retroanim::formats::{hmd, p3d, tmd};
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [kind, op, n] = &args[..] else {
        eprintln!("usage: codec_loop hmd|tmd|p3d-mlod read|write PASSES");
        std::process::exit(2);
    };
    let n: usize = n.parse().unwrap_or(1);
    match kind.as_str() {
        "hmd" => run(
            "HMD",
            op,
            n,
            |b| hmd::read(b).ok(),
            |m| drop(black_box(hmd::write(m))),
        ),
        "tmd" => run(
            "TMD",
            op,
            n,
            |b| tmd::read(b).ok(),
            |m| drop(black_box(tmd::write(m))),
        ),
        "p3d-mlod" => run(
            "p3d-mlod",
            op,
            n,
            |b| p3d::read(b).ok(),
            |m| drop(black_box(p3d::write(m))),
        ),
        _ => {
            eprintln!("unknown kind {kind}");
            std::process::exit(2);
        }
    }
}
