//! Helpers the benchmarks share.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// The corpus folder: `$RETROANIM_CORPUS`, else `../shared/corpus` beside the repository.
pub fn corpus_dir() -> PathBuf {
    match std::env::var_os("RETROANIM_CORPUS") {
        Some(p) => PathBuf::from(p),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus"),
    }
}

/// This process's peak resident memory so far (VmHWM, kB; 0 without /proc).
pub fn peak_rss_kb() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}
