//! Cue sheet parser: any text → tracks or an error, never a panic; resolved tracks lie inside
//! their (pretended 1 MB) files.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use retroanim::scan::cue;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Ok(mut tracks) = cue::parse(&text, Path::new("/d")) {
        if cue::resolve(&mut tracks, &|_| Ok(1 << 20)).is_ok() {
            for t in tracks {
                assert!(t.start <= t.end && t.end <= 1 << 20);
            }
        }
    }
});
