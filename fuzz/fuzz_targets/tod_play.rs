//! TOD player: any TOD that reads plays to its end without a panic or an endless loop (frame
//! numbers are bounded so a run stays short).
#![no_main]

use libfuzzer_sys::fuzz_target;
use retroanim::formats::tod;

fuzz_target!(|data: &[u8]| {
    if let Ok(anim) = tod::read(data) {
        let mut player = tod::Player::new(&anim, None);
        if player.tick_bound() > 10_000 {
            return;
        }
        for pose in player.by_ref() {
            let _ = pose.objects.len();
        }
    }
});
