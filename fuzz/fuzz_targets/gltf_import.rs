//! glTF / GLB → scene → TMD, TOD and HMD: any bytes become a scene and console files or an error,
//! never a panic; counts and offsets are checked before anything is allocated.
#![no_main]

use libfuzzer_sys::fuzz_target;
use retroanim::convert::{convert_bytes, Options};
use retroanim::{Format, Limits};

fuzz_target!(|data: &[u8]| {
    let limits = Limits {
        max_items: 1 << 16,
        max_bytes: 1 << 22,
        max_steps: 1 << 16,
        ..Limits::default()
    };
    if let Ok(imported) = retroanim::import::gltf::read(data, &limits) {
        assert!(imported.scene.check().is_empty());
    }
    let opts = Options {
        limits,
        ..Options::default()
    };
    for (from, to) in [
        (Format::Glb, Format::Tmd),
        (Format::Gltf, Format::Tod),
        (Format::Glb, Format::Tod),
        (Format::Glb, Format::Hmd),
    ] {
        let _ = convert_bytes(data, Some(from), to, &opts);
    }
});
