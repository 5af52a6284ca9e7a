//! P3D ODOL reader: the first input byte picks the version (7: OFP/CWA; 50, 73: Arma, whose LOD
//! walk, address table and LZO decoder this reaches), the rest follows the `ODOL` magic and
//! version; any bytes → Ok or Err, never a panic; what reads must write back identically and
//! survive validation, the summary and the mesh decode.
#![no_main]

use libfuzzer_sys::fuzz_target;
use retroanim::formats::p3d::{self, P3d};

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let version: u32 = [7, 50, 73][pick as usize % 3];
    let mut input = b"ODOL".to_vec();
    input.extend_from_slice(&version.to_le_bytes());
    input.extend_from_slice(rest);
    if let Ok(model) = p3d::read(&input) {
        let _ = p3d::validate(&model);
        let _ = model.summary();
        if let P3d::Odol(o) = &model {
            for i in 0..o.lods.len() {
                let _ = o.lod_mesh(i);
            }
        }
        let written = p3d::write(&model).expect("a model read from bytes writes");
        assert_eq!(written, input, "round trip differs");
    }
});
