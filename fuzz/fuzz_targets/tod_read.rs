//! TOD reader: any bytes → Ok or Err, never a panic; what reads must write back identically.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(tod) = retroanim::formats::tod::read(data) {
        let _ = retroanim::formats::tod::validate(&tod);
        let written = retroanim::formats::tod::write(&tod).expect("a model read from bytes writes");
        assert_eq!(written, data, "round trip differs");
    }
});
