//! The patcher's reading of an image (raw sectors, every ISO 9660 tree with its path tables
//! and record positions, the free sectors after the volume, PBO headers, then every find by
//! its place) over any bytes, and its PLACE parser: errors, never a panic.
#![no_main]

use std::sync::Arc;

use libfuzzer_sys::fuzz_target;
use retroanim::patch;
use retroanim::scan::MemSource;

fuzz_target!(|data: &[u8]| {
    let src = Arc::new(MemSource(Arc::from(data)));
    let _ = patch::inspect(src.clone(), false);
    let _ = patch::inspect(src, true);
    if let Ok(text) = std::str::from_utf8(&data[..data.len().min(256)]) {
        let _ = patch::place::parse(text);
    }
});
