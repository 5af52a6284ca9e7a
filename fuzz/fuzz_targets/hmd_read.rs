//! HMD reader: any bytes → Ok or Err, never a panic; what reads must write back identically,
//! and the same bytes at an odd address (converted, not borrowed as words) read the same.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let read = retroanim::formats::hmd::read(data);
    let mut shifted = vec![0u8; data.len() + 1];
    shifted[1..].copy_from_slice(data);
    let unaligned = retroanim::formats::hmd::read(&shifted[1..]);
    match (&read, &unaligned) {
        (Ok(a), Ok(b)) => assert_eq!(a, b, "aligned and unaligned reads differ"),
        (Err(_), Err(_)) => {}
        _ => panic!("aligned and unaligned reads disagree on success"),
    }
    if let Ok(hmd) = read {
        let _ = retroanim::formats::hmd::validate(&hmd);
        let _ = hmd.summary();
        let written = retroanim::formats::hmd::write(&hmd).expect("a model read from bytes writes");
        assert_eq!(written, data, "round trip differs");
    }
});
