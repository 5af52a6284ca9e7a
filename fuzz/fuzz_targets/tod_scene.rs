//! TOD → glTF: any TOD that reads becomes a scene and a glTF document or an error, never a
//! panic; sparse frame numbers must not cost memory (the player skips idle ticks).
#![no_main]

use libfuzzer_sys::fuzz_target;
use retroanim::formats::tod;
use retroanim::formats::tod::scene::{tod_scene, PsxOptions};

fuzz_target!(|data: &[u8]| {
    if let Ok(anim) = tod::read(data) {
        if let Ok(scene) = tod_scene(&anim, None, &PsxOptions::default()) {
            let _ = retroanim::export::gltf::write_glb(&scene);
        }
    }
});
