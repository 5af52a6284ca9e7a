//! The whole container walk over any bytes (raw sectors, ISO, PBO or blob, every offset):
//! a report, never a panic; every find's bytes read back.
#![no_main]

use std::sync::Arc;

use libfuzzer_sys::fuzz_target;
use retroanim::scan::{self, MemSource, ScanOptions};

fuzz_target!(|data: &[u8]| {
    let opts = ScanOptions {
        align: 1,
        ..ScanOptions::default()
    };
    let report = scan::scan_source(Arc::new(MemSource(Arc::from(data))), "fuzz", &opts);
    for f in &report.finds {
        assert_eq!(f.bytes().map(|b| b.len() as u64).ok(), Some(f.size));
    }
    let _ = scan::scan_bytes(data, &opts);
});
