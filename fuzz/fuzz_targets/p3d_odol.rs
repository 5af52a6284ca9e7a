//! P3D ODOL v7 reader: the input follows the `ODOL` magic and version 7; any bytes → Ok or Err, never a
//! panic; what reads must write back identically and survive validation and the summary.
#![no_main]

use libfuzzer_sys::fuzz_target;
use retroanim::formats::p3d;

fuzz_target!(|data: &[u8]| {
    let mut input = b"ODOL\x07\0\0\0".to_vec();
    input.extend_from_slice(data);
    if let Ok(model) = p3d::read(&input) {
        let _ = p3d::validate(&model);
        let _ = model.summary();
        let written = p3d::write(&model).expect("a model read from bytes writes");
        assert_eq!(written, input, "round trip differs");
    }
});
