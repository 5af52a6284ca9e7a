//! Rendering: any bytes read as a TMD, TIM or other model, or as a raw VRAM dump, and drawn as
//! the console draws them → a picture or an error, never a panic (crafted vertex and normal
//! indices, texture pages and CLUT positions, projections at the edge of the GTE's range).
#![no_main]

use libfuzzer_sys::fuzz_target;
use retroanim::render::{render_file, Input, RenderOptions, View};

fuzz_target!(|data: &[u8]| {
    // The first byte picks a camera, so odd views are tried as well as the default one.
    let (pick, body) = data.split_first().unwrap_or((&0, &[]));
    let view = View {
        yaw: (pick & 1 == 1).then(|| f64::from(*pick) * 3.0),
        pitch: f64::from(pick >> 1) - 64.0,
        width: 32,
        height: 24,
        ..View::default()
    };
    let opts = RenderOptions {
        view,
        view_set: true,
        ..RenderOptions::default()
    };
    let _ = render_file(body, &opts);
    let tims_and_model = RenderOptions {
        view: View {
            width: 16,
            height: 16,
            ..View::default()
        },
        ..RenderOptions::default()
    };
    let _ = render_file(body, &tims_and_model);
    if body.len() == 1024 * 512 * 2 {
        let dump = RenderOptions {
            input: Input::VramDump,
            ..RenderOptions::default()
        };
        let _ = render_file(body, &dump);
    }
});
