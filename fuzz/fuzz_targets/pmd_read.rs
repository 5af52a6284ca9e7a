//! PMD reader: any bytes → Ok or Err, never a panic; what reads must write back identically,
//! validate, and convert to a TMD (or refuse) without panicking.
#![no_main]

use libfuzzer_sys::fuzz_target;
use retroanim::formats::pmd;

fuzz_target!(|data: &[u8]| {
    if let Ok(model) = pmd::read(data) {
        let _ = pmd::validate(&model);
        let _ = model.summary();
        let _ = model.structural_len();
        if let Ok((t, _)) = pmd::to_tmd(&model) {
            let _ = pmd::from_tmd(&t, &Default::default());
        }
        let written = pmd::write(&model).expect("a model read from bytes writes");
        assert_eq!(written, data, "round trip differs");
    }
});
