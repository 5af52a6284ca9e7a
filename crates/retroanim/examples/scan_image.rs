//! Scans the files given (as `retroanim scan` does), for instruction-count profiling of the
//! scanner, and prints the scan's totals; with `--finds` first, each find as a JSON line before
//! them (to compare two builds' finds).
//!
//! ```text
//! RETROANIM_SCAN_BENCH_MB=25 RETROANIM_SCAN_BENCH_KEEP=/tmp/scan.bin \
//!     cargo bench -p retroanim --bench scan
//! cargo build --release -p retroanim --example scan_image
//! valgrind --tool=callgrind --collect-atstart=no --toggle-collect='*scan::scan_paths*' \
//!     target/release/examples/scan_image /tmp/scan.bin
//! ```
//!
//! Instruction counts are repeatable on a loaded machine where wall-clock timings are not.

use std::path::PathBuf;

use retroanim::scan::{self, ScanOptions};

fn main() {
    let mut args: Vec<PathBuf> = std::env::args_os().skip(1).map(PathBuf::from).collect();
    let finds = args.first().is_some_and(|a| a.as_os_str() == "--finds");
    let paths = if finds { args.split_off(1) } else { args };
    if paths.is_empty() {
        eprintln!("usage: scan_image [--finds] FILE...");
        std::process::exit(2);
    }
    // `RETROANIM_SCAN_FORMATS=p3d` (as `--formats`) times the read and candidate passes with
    // (almost) nothing to parse; `tim,tmd` or `tod,hmd` one family's parsing on top.
    let opts = match std::env::var("RETROANIM_SCAN_FORMATS") {
        Ok(f) => match ScanOptions::new(&f.split(',').collect::<Vec<_>>(), 4, 0) {
            Ok(o) => o,
            Err(e) => {
                eprintln!("{e}");
                std::process::exit(2);
            }
        },
        Err(_) => ScanOptions::default(),
    };
    let report = scan::scan_paths(&paths, &opts);
    if finds {
        for f in &report.finds {
            println!("{}", serde_json::to_string(f).unwrap_or_default());
        }
    }
    println!("{}", report.summary());
}
