//! PBO header reader: any bytes → entries or an error, never a panic; every entry's data lies
//! inside the archive.
#![no_main]

use std::sync::Arc;

use libfuzzer_sys::fuzz_target;
use retroanim::scan::{pbo, MemSource};

fuzz_target!(|data: &[u8]| {
    let src = MemSource(Arc::from(data));
    if let Ok(p) = pbo::read(&src) {
        for e in p.entries {
            assert!(e.offset + e.data_size as u64 <= data.len() as u64);
        }
    }
});
