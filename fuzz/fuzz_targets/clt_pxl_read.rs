//! CLT and PXL readers (and the headerless palette): any bytes → Ok or Err, never a panic;
//! what reads writes back identically; joining and splitting never panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use retroanim::formats::{clt, pxl, tim};

fuzz_target!(|data: &[u8]| {
    let limits = retroanim::Limits::default();
    let palette = clt::read_raw(data, &limits).ok();
    if let Some(c) = &palette {
        let _ = clt::validate(c);
        assert_eq!(clt::write(c).expect("a read CLT writes"), data, "CLT round trip differs");
    }
    if let Ok(p) = pxl::read(data) {
        let _ = pxl::validate(&p);
        let _ = p.summary();
        assert_eq!(pxl::write(&p).expect("a read PXL writes"), data, "PXL round trip differs");
        let t = pxl::to_tim(&p, palette.as_ref().map(|c| &c.clut));
        let _ = t.to_rgba(&tim::DecodeOptions::default());
        let (back, _) = pxl::split_tim(&t).expect("a PXL's TIM splits");
        assert_eq!(back.image, p.image);
    }
});
