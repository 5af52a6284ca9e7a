//! HMDs as libhmd's `GsMapUnit` leaves them in RAM: any bytes at any address unmap to an HMD
//! or to nothing, never a panic; what unmaps maps back to the same bytes where it reads.
#![no_main]

use libfuzzer_sys::fuzz_target;
use retroanim::scan::ram;

fuzz_target!(|data: &[u8]| {
    if data.len() < 4 {
        return;
    }
    let address = 0x8000_0000 | (u32::from_le_bytes([data[0], data[1], data[2], 0]) & 0x1f_fffc);
    let body = &data[4..];
    let _ = ram::looks_mapped(body);
    let _ = ram::hmd_address(body, 0, None);
    let _ = ram::hmd_address(body, 0, Some(u64::from(address)));
    if let Some(file) = ram::unmap_hmd(body, address) {
        let _ = retroanim::formats::hmd::read(&file);
        let _ = ram::map_hmd(&file, address);
    }
    let _ = ram::map_hmd(body, address);
});
