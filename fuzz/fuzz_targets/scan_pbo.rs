//! PBO header reader and LZSS unpacker: any bytes → entries or an error, never a panic; every
//! entry's data lies inside the archive, and a packed entry unpacks to exactly its original
//! size or gives an error.
#![no_main]

use std::sync::Arc;

use libfuzzer_sys::fuzz_target;
use retroanim::scan::{lzss, pbo, MemSource};

fuzz_target!(|data: &[u8]| {
    let src = MemSource(Arc::from(data));
    if let Ok(p) = pbo::read(&src) {
        for e in p.entries {
            assert!(e.offset + e.data_size as u64 <= data.len() as u64);
            // The scanner bounds the original size by its largest asset; so does this target.
            if e.is_packed() && e.original_size <= 1 << 20 {
                if let Ok(v) = pbo::unpack_entry(&src, &e) {
                    assert_eq!(v.len(), e.original_size as usize);
                }
            }
        }
    }
    // The stream alone, with a size from the first bytes.
    let size = data.first().map_or(0, |&b| b as usize * 97);
    if let Ok(v) = lzss::unpack(data, size, 0) {
        assert_eq!(v.len(), size);
    }
});
