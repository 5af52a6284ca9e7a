//! VDF/NDF reader: any bytes → Ok or Err, never a panic; what reads writes back identically;
//! playing it onto vectors of any shape never panics.
#![no_main]

use libfuzzer_sys::fuzz_target;
use retroanim::formats::mime;
use retroanim::formats::tmd::SVector;

fuzz_target!(|data: &[u8]| {
    if let Ok(d) = mime::read_with(data, retroanim::Format::Vdf, &retroanim::Limits::default()) {
        let _ = mime::validate(&d, None, false);
        let base = vec![vec![SVector::default(); 16]; 2];
        let _ = mime::play(&d, &base, &[4096, -4096, 70000, 1]);
        assert_eq!(mime::write(&d).expect("a read diff writes"), data, "round trip differs");
    }
});
