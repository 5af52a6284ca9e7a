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

/// This thread's time on a CPU and time waiting for one while runnable, so far (nanoseconds,
/// `/proc/thread-self/schedstat`; `None` without it). The wait is what other processes' load
/// adds to wall time.
pub fn thread_sched_ns() -> Option<(u64, u64)> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let mut f = s.split_whitespace().map(|v| v.parse::<u64>().ok());
    Some((f.next()??, f.next()??))
}

pub mod author;
