//! TIM reader: any bytes → Ok or Err, never a panic; what reads must write back identically,
//! and decoding to RGBA must not panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use retroanim::formats::tim;

fuzz_target!(|data: &[u8]| {
    if let Ok(image) = tim::read(data) {
        let _ = tim::validate(&image);
        let _ = image.summary();
        for stp in [tim::Stp::Opaque, tim::Stp::SemiTransparent] {
            let _ = image.to_rgba(&tim::DecodeOptions { clut_row: 1, stp });
        }
        let written = tim::write(&image).expect("a model read from bytes writes");
        assert_eq!(written, data, "round trip differs");
    }
});
