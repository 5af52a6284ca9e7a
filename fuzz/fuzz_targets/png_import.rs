//! PNG → TIM at every depth: any bytes become a TIM or an error, never a panic; a PNG's
//! declared size is checked against the limits before a pixel is decoded.
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
    for bpp in [None, Some(4), Some(8), Some(16)] {
        let mut opts = Options {
            limits,
            ..Options::default()
        };
        opts.textures.bpp = bpp;
        if let Ok(done) = convert_bytes(data, Some(Format::Png), Format::Tim, &opts) {
            // What is written reads back as a TIM.
            retroanim::formats::tim::read(&done.bytes).expect("written TIM reads back");
        }
    }
});
