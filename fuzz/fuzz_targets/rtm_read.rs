//! RTM reader (both forms, BMTR's LZO arrays included): any bytes → Ok or Err, never a panic;
//! what reads writes back identically, and validating, decoding a BMTR's frames, playing and
//! building the glTF scene of it never panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use retroanim::formats::rtm::{self, PlayOptions, SceneOptions};

fuzz_target!(|data: &[u8]| {
    let Ok(r) = rtm::read(data) else { return };
    let _ = rtm::validate(&r);
    let written = rtm::write(&r).expect("a model read from bytes writes");
    assert_eq!(written, data, "round trip differs");
    let (m, _) = r.to_mlod(None);
    for phase in [0.0, 0.37, 1.0] {
        let _ = rtm::pose(&m, phase, PlayOptions { with_step: true });
    }
    if let Ok((scene, _)) = rtm::to_scene(&m, &SceneOptions::default()) {
        let _ = rtm::from_scene(&scene, &Default::default());
    }
});
