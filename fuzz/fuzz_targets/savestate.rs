//! PCSX-family savestates: any bytes (gzip, RZIP, RetroArch's RASTATE or a plain stream, by
//! their first bytes) read to a RAM and VRAM of the layout's sizes or to an error, never a
//! panic, and never unpack to more than the cap.
#![no_main]

use libfuzzer_sys::fuzz_target;
use retroanim::scan::savestate;

fuzz_target!(|data: &[u8]| {
    let _ = savestate::sniff(data);
    if let Ok(u) = savestate::unpack(data, savestate::STREAM_CAP) {
        assert!(u.bytes.len() <= savestate::STREAM_CAP);
    }
    if let Ok(s) = savestate::read_bytes(data) {
        assert_eq!(s.ram.len(), savestate::RAM_SIZE);
        assert_eq!(s.vram.len(), savestate::VRAM_SIZE);
    }
});
