//! TMD reader: any bytes → Ok or Err, never a panic; what reads must write back identically,
//! and its meshes, summary and validation must not panic either.
#![no_main]

use libfuzzer_sys::fuzz_target;
use retroanim::formats::tmd;

fuzz_target!(|data: &[u8]| {
    if let Ok(model) = tmd::read(data) {
        let _ = tmd::validate(&model);
        let _ = model.meshes();
        let _ = model.summary();
        let written = tmd::write(&model).expect("a model read from bytes writes");
        assert_eq!(written, data, "round trip differs");
    }
});
