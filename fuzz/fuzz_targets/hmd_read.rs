//! HMD reader: any bytes → Ok or Err, never a panic; what reads must write back identically.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(hmd) = retroanim::formats::hmd::read(data) {
        let _ = retroanim::formats::hmd::validate(&hmd);
        let _ = hmd.summary();
        let written = retroanim::formats::hmd::write(&hmd).expect("a model read from bytes writes");
        assert_eq!(written, data, "round trip differs");
    }
});
