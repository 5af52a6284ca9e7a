//! HMD player: any bytes that read as an HMD play 64 frames (with and without an overridden
//! stream ID, a reverse speed, the file's own INTR IDX and a finite AFRAME) without a panic; an update may only fail on its step limit.
#![no_main]

use libfuzzer_sys::fuzz_target;
use retroanim::formats::hmd::{PlayOptions, Player};

fuzz_target!(|data: &[u8]| {
    let Ok(hmd) = retroanim::formats::hmd::read(data) else {
        return;
    };
    // Sony's defaults, then an overridden stream ID, reverse speed and the file's own INTR IDX
    // and a finite AFRAME (INTR IDX 0 writes interpolated values back into key frame 0).
    for (sid, speed, intr_idx) in [(None, None, None), (Some(2), Some(-24), Some(0))] {
        let options = PlayOptions {
            stream_id: sid,
            speed,
            sequence: Some(1),
            intr_idx,
            aframe: intr_idx.map(|_| 40),
            limits: retroanim::Limits {
                max_steps: 1 << 12,
                ..retroanim::Limits::default()
            },
        };
        let mut player = Player::new(&hmd, &options);
        for _ in 0..64 {
            match player.step() {
                Ok(()) => {}
                Err(retroanim::Error::LimitExceeded { .. }) => break,
                Err(e) => panic!("unexpected error {e}"),
            }
            let frame = player.frame();
            for c in &frame.coordinates {
                let _ = player.vectors(c.index as u32, false);
            }
        }
    }
});
