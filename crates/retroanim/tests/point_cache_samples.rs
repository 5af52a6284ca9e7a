//! `samples/wave.mdd` and `samples/wave.pc2` are made by this script with the library's own
//! writers; the test regenerates them and checks the committed copies are identical
//! (`UPDATE_SAMPLES=1` rewrites them).

mod common;

use common::samples::check_sample;
use retroanim::formats::{mdd, pc2};

/// sin(π·x) for x in 0..2 by Bhaskara I's rational approximation: only +, −, ×, ÷, so every
/// machine computes the same bits.
fn sine_half_turns(x: f64) -> f64 {
    let x = x.rem_euclid(2.0);
    let (x, sign) = if x < 1.0 { (x, 1.0) } else { (x - 1.0, -1.0) };
    sign * 16.0 * x * (1.0 - x) / (5.0 - 4.0 * x * (1.0 - x))
}

/// A 1 m × 1 m flag of 6 × 4 points in the XY plane, a wave running along X in Z, 24 frames at
/// 24 fps (frame times f / 24 s).
pub fn waving_flag() -> mdd::Mdd {
    const COLS: usize = 6;
    const ROWS: usize = 4;
    const FRAMES: usize = 24;
    let frames = (0..FRAMES)
        .map(|f| {
            let mut pts = Vec::with_capacity(COLS * ROWS);
            for r in 0..ROWS {
                for c in 0..COLS {
                    let x = c as f64 / (COLS - 1) as f64;
                    let y = r as f64 / (ROWS - 1) as f64;
                    // Amplitude grows from the pole (x = 0) to the free edge.
                    let z = 0.1 * x * sine_half_turns(2.0 * x - 2.0 * f as f64 / FRAMES as f64);
                    pts.push([x as f32, y as f32, z as f32]);
                }
            }
            pts
        })
        .collect();
    mdd::Mdd {
        points: (COLS * ROWS) as u32,
        times: (0..FRAMES).map(|f| (f as f64 / 24.0) as f32).collect(),
        rest_frame: None,
        frames,
    }
}

#[test]
fn wave_samples_are_regenerated_identically() {
    let flag = waving_flag();
    assert!(mdd::validate(&flag).is_empty());
    let bytes = mdd::write(&flag).unwrap();
    check_sample("wave.mdd", &bytes);
    let cache = flag.to_point_cache();
    assert_eq!(cache.guess_fps(), Some(24.0));
    let p = pc2::Pc2::from_point_cache(&cache, 24.0).unwrap();
    assert!(pc2::validate(&p).is_empty());
    check_sample("wave.pc2", &pc2::write(&p).unwrap());
}

#[test]
fn bhaskara_sine_is_a_sine() {
    assert_eq!(sine_half_turns(0.0), 0.0);
    assert_eq!(sine_half_turns(0.5), 1.0);
    assert_eq!(sine_half_turns(1.5), -1.0);
    assert!((sine_half_turns(1.0 / 6.0) - 0.5).abs() < 2e-3);
}
