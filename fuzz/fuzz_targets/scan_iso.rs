//! ISO 9660 walker: any image → a file list or an error, never a panic or an endless walk;
//! every listed file lies inside the image.
#![no_main]

use std::sync::Arc;

use libfuzzer_sys::fuzz_target;
use retroanim::scan::{iso, MemSource};

fuzz_target!(|data: &[u8]| {
    // Small inputs fill the system area: put them at the primary volume descriptor.
    let mut img = vec![0u8; 16 * 2048];
    img.extend_from_slice(data);
    let src = MemSource(Arc::from(img));
    if let Ok(files) = iso::list(&src) {
        for f in files {
            assert!(f.offset + f.size <= src.0.len() as u64);
        }
    }
});
