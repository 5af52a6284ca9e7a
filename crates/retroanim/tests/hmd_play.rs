//! HMD playback: hand-built animations checked against values computed from the manual's
//! formulas (floating point, independent of the player's integer code), corpus files played
//! to their END or through a loop, and the INTERP sample's key frames against its `.LAB`.
#![allow(clippy::needless_range_loop)] // matrices are indexed as the formulas write them

mod common;

use common::hmd_anim::*;
use common::hmd_asm::h;
use retroanim::formats::hmd::{self, *};

/// Translations of coordinate `c` for `n` updates.
fn translations(m: &Hmd, opts: &PlayOptions, c: usize, n: usize) -> Vec<[i32; 3]> {
    let mut p = Player::new(m, opts);
    (0..n)
        .map(|_| {
            p.step().unwrap();
            p.frame().coordinates[c].local.t
        })
        .collect()
}

fn lerp(a: f64, b: f64, s: f64) -> f64 {
    a + (b - a) * s
}

const K0: [i32; 3] = [0, 0, 0];
const K1: [i32; 3] = [1600, -3200, 480];
const K2: [i32; 3] = [-800, 0, 4000];

fn linear_params() -> Vec<u32> {
    [K0, K1, K2].iter().flatten().map(|&v| v as u32).collect()
}

/// Linear translation K0 → K1 (10 frames) → K2 (5 frames) → END.
fn linear_file(speed: i8, start: u16) -> Hmd {
    let mut p = ptr(0x0400_0001, start);
    p.speed = speed;
    read_built(&anim_file(
        1,
        &[0x0300_0001],
        &[p],
        &[key(0, 0, 0), key(0, 10, 3), key(0, 5, 6), END],
        &linear_params(),
    ))
}

fn expected_linear(a: [i32; 3], b: [i32; 3], s: f64) -> [f64; 3] {
    [0, 1, 2].map(|i| lerp(a[i] as f64, b[i] as f64, s))
}

fn assert_near(got: [i32; 3], want: [f64; 3], tol: f64, what: &str) {
    for i in 0..3 {
        assert!(
            (got[i] as f64 - want[i]).abs() <= tol,
            "{what}: got {got:?}, want {want:?}"
        );
    }
}

#[test]
fn linear_forward_reaches_each_key_frame_and_stops_at_end() {
    let m = linear_file(16, 0);
    let t = translations(&m, &PlayOptions::default(), 0, 20);
    for (f, got) in t.iter().enumerate().take(15) {
        let want = if f < 10 {
            expected_linear(K0, K1, f as f64 / 10.0)
        } else {
            expected_linear(K1, K2, (f - 10) as f64 / 5.0)
        };
        assert_near(*got, want, 1.0, &format!("frame {f}"));
    }
    assert_eq!(t[0], K0);
    assert_eq!(t[10], K1);
    // END after K2's interval: the pose holds the last interpolated frame.
    assert_eq!(t[15], t[14]);
    let mut p = Player::new(&m, &PlayOptions::default());
    for _ in 0..16 {
        p.step().unwrap();
    }
    assert!(p.finished(), "END stops the pointer (AFRAME 0)");
}

#[test]
fn reverse_speed_plays_backwards_from_the_start_descriptor() {
    let m = linear_file(-16, 2);
    let t = translations(&m, &PlayOptions::default(), 0, 16);
    // First interval K2 → K1 (K2's TFRAME, 5 frames), then K1 → K0 (10 frames).
    for (f, got) in t.iter().enumerate().take(15) {
        let want = if f < 5 {
            expected_linear(K2, K1, f as f64 / 5.0)
        } else {
            expected_linear(K1, K0, (f - 5) as f64 / 10.0)
        };
        assert_near(*got, want, 1.0, &format!("frame {f}"));
    }
    assert_eq!(t[5], K1);
    // Before K0 there is nothing: the walk leaves the section, which ends the sequence.
    assert_eq!(t[15], t[14]);
}

#[test]
fn fractional_speeds_slow_down_and_speed_up() {
    // 0.5×: every interval takes twice the frames.
    let m = linear_file(8, 0);
    let t = translations(&m, &PlayOptions::default(), 0, 20);
    for (f, got) in t.iter().enumerate() {
        assert_near(
            *got,
            expected_linear(K0, K1, f as f64 / 20.0),
            1.0,
            &format!("0.5x frame {f}"),
        );
    }
    // 1.5×: RFRAME 160, 136, ... 16, then the overshoot is dropped: frame 7 shows K1.
    let m = linear_file(0x18, 0);
    let t = translations(&m, &PlayOptions::default(), 0, 8);
    for (f, got) in t.iter().enumerate().take(7) {
        assert_near(
            *got,
            expected_linear(K0, K1, f as f64 * 1.5 / 10.0),
            1.0,
            &format!("1.5x frame {f}"),
        );
    }
    assert_eq!(t[7], K1);
    // The speed option overrides the file's.
    let opts = PlayOptions {
        speed: Some(32),
        ..PlayOptions::default()
    };
    let t = translations(&linear_file(16, 0), &opts, 0, 6);
    assert_eq!(t[5], K1);
}

/// K0 → K1, then a jump back to K0 taken while SID is 2, else K2 and END.
fn jump_file(jump_word: u32, sid: u8) -> Hmd {
    let mut p = ptr(0x0400_0001, 0);
    p.sid = sid;
    p.extra = vec![(1, 5)];
    read_built(&anim_file(
        1,
        &[0x0300_0001],
        &[p],
        // K0 has a TFRAME too: a jump back to a TFRAME 0 key frame would pass it at once.
        &[key(0, 2, 0), key(0, 2, 3), jump_word, key(0, 2, 6), END],
        &linear_params(),
    ))
}

fn key_frames_seen(m: &Hmd, opts: &PlayOptions, n: usize) -> Vec<(u16, u16, u8)> {
    let mut p = Player::new(m, opts);
    (0..n)
        .map(|_| {
            p.step().unwrap();
            let s = &p.sequences()[0];
            (s.ctr_idx, s.tctr_idx, s.sid)
        })
        .collect()
}

#[test]
fn jumps_follow_the_stream_id() {
    // SID 2 takes the jump (0 → 1 → 0 → 1 ...), keeping SID 2 (DST 0 with CND ≠ 0 sets SID 0!).
    let loop_keep = jump_file(jump(2, 2, 0), 2);
    let seen = key_frames_seen(&loop_keep, &PlayOptions::default(), 8);
    assert_eq!(seen[0], (0, 1, 2));
    assert_eq!(seen[2], (1, 0, 2), "jump taken at K1");
    assert_eq!(seen[4], (0, 1, 2));
    // DST 0 and CND 2: the jump is taken once and SID becomes 0, which no longer matches.
    let once = jump_file(jump(0, 2, 0), 2);
    let seen = key_frames_seen(&once, &PlayOptions::default(), 8);
    assert_eq!(seen[2], (1, 0, 0));
    assert_eq!(seen[4], (0, 1, 0));
    assert_eq!(seen[6], (1, 3, 0), "SID 0 does not match CND 2");
    // SID 1 never takes it.
    let seen = key_frames_seen(
        &loop_keep,
        &PlayOptions {
            stream_id: Some(1),
            ..PlayOptions::default()
        },
        4,
    );
    assert_eq!(seen[2], (1, 3, 1));
    // CND 0 matches any SID; with DST ≠ 0 the SID changes.
    let any = jump_file(jump(9, 0, 0), 4);
    let seen = key_frames_seen(&any, &PlayOptions::default(), 3);
    assert_eq!(seen[2], (1, 0, 9));
    // SID 127 (the "matches nothing" ID) does not take a CND 2 jump.
    let seen = key_frames_seen(
        &loop_keep,
        &PlayOptions {
            stream_id: Some(127),
            ..PlayOptions::default()
        },
        4,
    );
    assert_eq!(seen[2], (1, 3, 127));
}

#[test]
fn stream_id_switching_leaves_a_loop_at_the_next_key_frame() {
    let m = jump_file(jump(2, 2, 0), 2);
    let mut p = Player::new(&m, &PlayOptions::default());
    for _ in 0..5 {
        p.step().unwrap();
    }
    assert!(!p.finished());
    p.set_stream_id(1);
    for _ in 0..20 {
        p.step().unwrap();
    }
    assert!(p.finished(), "with SID 1 the loop is left and END reached");
    // The extra sequence (start 1, SID 5) starts at K1.
    let seen = key_frames_seen(
        &m,
        &PlayOptions {
            sequence: Some(1),
            ..PlayOptions::default()
        },
        1,
    );
    assert_eq!(seen[0], (1, 3, 5));
}

#[test]
fn end_with_a_stream_id_condition_stops_only_that_stream() {
    let mut p0 = ptr(0x0400_0001, 0);
    p0.sid = 3;
    let words = [key(0, 0, 0), key(0, 2, 3), ctrl(1, 4, 0), key(0, 2, 6), END];
    let m = read_built(&anim_file(
        1,
        &[0x0300_0001],
        &[p0],
        &words,
        &linear_params(),
    ));
    let seen = key_frames_seen(&m, &PlayOptions::default(), 4);
    assert_eq!(seen[2], (1, 3, 3), "END P1 = 4 does not stop SID 3");
    let mut p = Player::new(
        &m,
        &PlayOptions {
            stream_id: Some(4),
            ..PlayOptions::default()
        },
    );
    for _ in 0..3 {
        p.step().unwrap();
    }
    assert!(p.finished(), "END P1 = 4 stops SID 4");
}

#[test]
fn a_jump_cycle_is_bounded() {
    let words = [key(0, 0, 0), jump(0, 0, 2), jump(0, 0, 1)];
    let m = read_built(&anim_file(
        1,
        &[0x0300_0001],
        &[ptr(0x0400_0001, 0)],
        &words,
        &linear_params(),
    ));
    let mut p = Player::new(&m, &PlayOptions::default());
    let r = p.step();
    assert!(
        matches!(r, Err(retroanim::Error::LimitExceeded { .. })),
        "{r:?}"
    );
    // TFRAME 0 key frames jumping to each other never use time either.
    let words = [key(0, 0, 0), key(0, 0, 3), jump(0, 0, 0)];
    let m = read_built(&anim_file(
        1,
        &[0x0300_0001],
        &[ptr(0x0400_0001, 0)],
        &words,
        &linear_params(),
    ));
    assert!(Player::new(&m, &PlayOptions::default()).step().is_err());
}

fn bezier(p: [f64; 4], s: f64) -> f64 {
    let u = 1.0 - s;
    u * u * u * p[0] + 3.0 * u * u * s * p[1] + 3.0 * u * s * s * p[2] + s * s * s * p[3]
}

#[test]
fn bezier_translation_follows_the_cubic() {
    // Key A: P0 (0,0,0), P1 (3000, 0, -600), P2 (3000, 3000, 1200); key B: P0 (0, 3000, 0).
    let a = [[0, 0, 0], [3000, 0, -600], [3000, 3000, 1200]];
    let b = [[0, 3000, 0], [0, 0, 0], [0, 0, 0]];
    let params: Vec<u32> = a.iter().chain(&b).flatten().map(|&v| v as u32).collect();
    let m = read_built(&anim_file(
        1,
        &[0x0300_0002],
        &[ptr(0x0400_0001, 0)],
        &[key(0, 0, 0), key(0, 8, 9), END],
        &params,
    ));
    let t = translations(&m, &PlayOptions::default(), 0, 8);
    for (f, got) in t.iter().enumerate() {
        let s = f as f64 / 8.0;
        let want =
            [0, 1, 2].map(|i| bezier([a[0][i], a[1][i], a[2][i], b[0][i]].map(|v| v as f64), s));
        // t is 16-bit and every step truncates: allow a few units.
        assert_near(*got, want, 4.0, &format!("frame {f}"));
    }
    assert_eq!(t[0], [0, 0, 0]);
}

fn bspline(p: [f64; 4], s: f64) -> f64 {
    let u = 1.0 - s;
    (u * u * u * p[0]
        + (3.0 * s * s * s - 6.0 * s * s + 4.0) * p[1]
        + (-3.0 * s * s * s + 3.0 * s * s + 3.0 * s + 1.0) * p[2]
        + s * s * s * p[3])
        / 6.0
}

#[test]
fn bspline_needs_its_work_area_and_history() {
    // WORK at 0 (work area at parameter word 12), three TFRAME 0 keys prime the history, then
    // the sequence K0..K3 loops.
    let k = [[1200, 0, 0], [0, 1200, 0], [-1200, 0, 600], [0, -1200, 0]];
    let mut params: Vec<u32> = k.iter().flatten().map(|&v| v as u32).collect();
    params.extend([0, 0, 0, 0]);
    let words = [
        ctrl(2, 0, 12),
        key(0, 0, 3),
        key(0, 0, 6),
        key(0, 0, 9),
        jump(0, 0, 5),
        key(0, 10, 0),
        key(0, 10, 3),
        key(0, 10, 6),
        key(0, 10, 9),
        jump(0, 0, 5),
    ];
    let m = read_built(&anim_file(
        1,
        &[0x0300_0003],
        &[ptr(0x0400_0001, 0)],
        &words,
        &params,
    ));
    let t = translations(&m, &PlayOptions::default(), 0, 30);
    // Frame 0: history K1 K2 K3 K0; frame 10: K2 K3 K0 K1; frame 20: K3 K0 K1 K2.
    for (f, got) in t.iter().enumerate() {
        let seg = f / 10;
        let s = (f % 10) as f64 / 10.0;
        let idx = [1, 2, 3, 0].map(|i| k[(i + seg) % 4]);
        let want = [0, 1, 2].map(|c| bspline(idx.map(|p| p[c] as f64), s));
        assert_near(*got, want, 3.0, &format!("frame {f}"));
    }
}

/// Axis rotation matrices, floating point.
fn rot(axis: usize, a: f64) -> [[f64; 3]; 3] {
    let (s, c) = a.sin_cos();
    match axis {
        0 => [[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]],
        1 => [[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]],
        _ => [[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]],
    }
}

fn mul(a: [[f64; 3]; 3], b: [[f64; 3]; 3]) -> [[f64; 3]; 3] {
    let mut o = [[0.0; 3]; 3];
    for i in 0..3 {
        for j in 0..3 {
            o[i][j] = (0..3).map(|k| a[i][k] * b[k][j]).sum();
        }
    }
    o
}

#[test]
fn every_rotation_order_composes_the_axes_as_named() {
    // Rotation-only linear (0x0300R010), rot (0,0,0) → (400, 800, 1200) over 2 frames; frame 1
    // is the midpoint (200, 400, 600).
    let params = [0u32, 0, h(400, 800), h(1200, 0)];
    let orders: [[usize; 3]; 6] = [
        [0, 1, 2],
        [0, 2, 1],
        [1, 0, 2],
        [1, 2, 0],
        [2, 0, 1],
        [2, 1, 0],
    ];
    for (order, axes) in orders.iter().enumerate() {
        let code = 0x0300_0010 | (order as u32) << 12;
        let m = read_built(&anim_file(
            1,
            &[code],
            &[ptr(0x0400_0001, 0)],
            &[key(0, 0, 0), key(0, 2, 2), END],
            &params,
        ));
        let mut p = Player::new(&m, &PlayOptions::default());
        p.step().unwrap();
        p.step().unwrap();
        let c = &p.frame().coordinates[0];
        assert_eq!(c.rot, [200, 400, 600], "order {order}");
        let ang = |v: i16| v as f64 * std::f64::consts::TAU / 4096.0;
        let r = [ang(200), ang(400), ang(600)];
        let want = mul(
            mul(rot(axes[0], r[axes[0]]), rot(axes[1], r[axes[1]])),
            rot(axes[2], r[axes[2]]),
        );
        for i in 0..3 {
            for j in 0..3 {
                let got = c.local.m[i][j] as f64 / 4096.0;
                assert!(
                    (got - want[i][j]).abs() < 4.0 / 4096.0,
                    "order {order} m[{i}][{j}]: {got} vs {}",
                    want[i][j]
                );
            }
        }
    }
}

#[test]
fn scale_short_and_one_parameter_variants() {
    // 0x03000111: translation, rotation, scale all linear; scale 4096 → 8192 (2×).
    let kf = |t: [i32; 3], s: i16| -> Vec<u32> {
        let mut v: Vec<u32> = t.iter().map(|&x| x as u32).collect();
        v.extend([h(0, 0), h(0, s as u16), h(s as u16, s as u16)]);
        v
    };
    let mut params = kf([0, 0, 0], 4096);
    params.extend(kf([100, 200, 300], 8192));
    let m = read_built(&anim_file(
        1,
        &[0x0300_0111],
        &[ptr(0x0400_0001, 0)],
        &[key(0, 0, 0), key(0, 4, 6), END],
        &params,
    ));
    let mut p = Player::new(&m, &PlayOptions::default());
    for _ in 0..3 {
        p.step().unwrap();
    }
    let c = &p.frame().coordinates[0];
    // Frame 2 = halfway: scale 1.5, translation (50, 100, 150).
    assert_eq!(c.local.t, [50, 100, 150]);
    assert_eq!(c.local.m, [[6144, 0, 0], [0, 6144, 0], [0, 0, 6144]]);
    // 0x03000919: int16 translation, linear rotation, one scale value.
    let kf16 = |t: [i16; 3], s: i16| {
        vec![
            h(t[0] as u16, t[1] as u16),
            h(t[2] as u16, 0),
            h(0, 0),
            h(s as u16, 0),
        ]
    };
    let mut params = kf16([0, 0, 0], 4096);
    params.extend(kf16([-400, 800, -1200], 2048));
    let m = read_built(&anim_file(
        1,
        &[0x0300_0919],
        &[ptr(0x0400_0001, 0)],
        &[key(0, 0, 0), key(0, 4, 4), END],
        &params,
    ));
    let mut p = Player::new(&m, &PlayOptions::default());
    for _ in 0..2 {
        p.step().unwrap();
    }
    let c = &p.frame().coordinates[0];
    // Frame 1 = a quarter: translation (-100, 200, -300), scale 0.875.
    assert_eq!(c.local.t, [-100, 200, -300]);
    assert_eq!(c.local.m, [[3584, 0, 0], [0, 3584, 0], [0, 0, 3584]]);
}

#[test]
fn general_updates_write_the_masked_units() {
    // 0x03010151: linear, WRITE mask 0b0101, 16-bit units: units 0 and 2 of target word 0..1.
    let params = [h(0, 0), h(1000, (-2000i16) as u16)];
    let m = read_built(&anim_file(
        1,
        &[0x0301_0151],
        &[ptr(0x0500_0000, 0)],
        &[key(0, 0, 0), key(0, 2, 1), END],
        &params,
    ));
    let target = m
        .regions
        .iter()
        .find_map(|r| match &r.body {
            RegionBody::Section(s) if s.role == SectionRole::AnimationTarget => Some(r.offset),
            _ => None,
        })
        .expect("target section");
    let mut p = Player::new(&m, &PlayOptions::default());
    p.step().unwrap();
    p.step().unwrap();
    let w = p.section_words(target).unwrap();
    // Unit 0 = low half of word 0 = 500; unit 1 untouched; unit 2 = low half of word 1 = -1000.
    assert_eq!(w[0], 500);
    assert_eq!(w[1] as u16 as i16, -1000);
    assert_eq!(w[1] >> 16, 0);
    // 32-bit unit (0x03010110): the whole word.
    let params = [0u32, 4096];
    let m = read_built(&anim_file(
        1,
        &[0x0301_0110],
        &[ptr(0x0500_0002, 0)],
        &[key(0, 0, 0), key(0, 4, 1), END],
        &params,
    ));
    let mut p = Player::new(&m, &PlayOptions::default());
    for _ in 0..4 {
        p.step().unwrap();
    }
    assert_eq!(p.section_words(target).unwrap()[2], 3072);
}

#[test]
fn world_matrices_follow_the_parent_chain() {
    // Two coordinates, coordinate 1 a child of 0; 0 moves to (1000, 0, 0) and turns 90° about Z.
    let params = [0, 0, 0, h(0, 0), h(0, 0), 1000, 0, 0, h(0, 0), h(1024, 0)];
    let m = read_built(&anim_file(
        2,
        &[0x0300_0011],
        &[ptr(0x0400_0001, 0)],
        &[key(0, 0, 0), key(0, 1, 5), key(0, 1, 5), END],
        &params,
    ));
    // (The last key frame before END is never shown: END stops the pointer at the switch.)
    let mut p = Player::new(&m, &PlayOptions::default());
    p.step().unwrap();
    p.step().unwrap();
    let f = p.frame();
    assert_eq!(f.coordinates[1].parent, Some(0));
    assert_eq!(f.coordinates[0].local.t, [1000, 0, 0]);
    assert_eq!(f.coordinates[1].world.t, [1000, 0, 0]);
    assert_eq!(
        f.coordinates[1].world.m,
        [[0, -4096, 0], [4096, 0, 0], [0, 0, 4096]]
    );
}

#[test]
fn immediate_switching_continues_from_the_current_pose() {
    // Linear K0 → K1 (10 frames); descriptor 3 is a dummy key frame, descriptor 4 targets K2.
    let words = [
        key(0, 0, 0),
        key(0, 10, 3),
        END,
        key(0, 0, 9),
        key(0, 4, 6),
        END,
    ];
    let mut params = linear_params();
    params.extend([0, 0, 0]);
    let m = read_built(&anim_file(
        1,
        &[0x0300_0001],
        &[ptr(0x0400_0001, 0)],
        &words,
        &params,
    ));
    let mut p = Player::new(&m, &PlayOptions::default());
    for _ in 0..5 {
        p.step().unwrap();
    }
    assert!(p.switch_now(0, 0, 3, 4, 4, 0).unwrap());
    // The driver saves the pose of the update after the switch request: frame 5 of K0 → K1.
    let here = [800, -1600, 240];
    let mut t = Vec::new();
    for _ in 0..4 {
        p.step().unwrap();
        t.push(p.frame().coordinates[0].local.t);
    }
    // The first frame after the switch shows where it was switched (the dummy key frame).
    assert_near(t[0], here.map(|v| v as f64), 1.0, "switch start");
    assert_near(t[2], expected_linear(here, K2, 0.5), 1.0, "halfway to K2");
}

// ----------------------------------------------------------------- corpus

#[test]
fn every_animated_corpus_hmd_plays_to_end_or_through_a_loop() {
    let files = common::corpus_files("HMD");
    let mut animated = 0;
    for (name, path) in &files {
        let m = hmd::read(&std::fs::read(path).unwrap()).unwrap();
        if m.animations().is_empty() {
            continue;
        }
        animated += 1;
        let mut p = Player::new(&m, &PlayOptions::default());
        let start = p.frame();
        let mut moved = false;
        for n in 0..1000 {
            p.step()
                .unwrap_or_else(|e| panic!("{name}: update {n}: {e}"));
            let f = p.frame();
            moved |= f.coordinates != start.coordinates || f.mime != start.mime;
            if p.finished() {
                break;
            }
        }
        assert!(
            moved || p.finished(),
            "{name}: nothing moved in 1000 frames"
        );
        // Every sequence pointer either stopped or keeps cycling: the descriptors it visits
        // after 1000 frames are key frames.
        for s in p.sequences() {
            assert!(
                s.aframe == 0 || s.tframe > 0 || s.ctr_idx == s.tctr_idx,
                "{name}: {s:?}"
            );
        }
    }
    if !files.is_empty() {
        assert!(animated >= 15, "only {animated} animated HMDs");
    }
}

#[test]
fn interp_sample_meets_its_lab_key_frames() {
    let Some(m) = common::corpus_hmd("ANIM/INTERP/INTERP.HMD") else {
        eprintln!("corpus missing: skipped");
        return;
    };
    // INTERP.LAB: PX0..PZ3 = (1000,1000,1000) (1000,-1000,0) (-1000,-1000,0) (-1000,1000,0),
    // TFRAME 50 everywhere, coordinates Linear = 5, Bezier = 6, BSpline = 7.
    let p = [
        [1000, 1000, 1000],
        [1000, -1000, 0],
        [-1000, -1000, 0],
        [-1000, 1000, 0],
    ];
    let mut player = Player::new(&m, &PlayOptions::default());
    let mut frames = Vec::new();
    for _ in 0..=200 {
        player.step().unwrap();
        frames.push(player.frame());
    }
    let t = |f: usize, c: usize| frames[f].coordinates[c].local.t;
    // Linear: key k at frame 50k; after K3 the jump returns to K0.
    for (k, want) in p.iter().enumerate() {
        assert_eq!(t(50 * k, 5), *want, "linear key {k}");
    }
    assert_eq!(t(200, 5), p[0], "linear loops to key 0");
    // Bezier: key frame k's P0 is (P0, P3, P2, P1)[k].
    for (k, pi) in [0, 3, 2, 1].iter().enumerate() {
        assert_eq!(t(50 * k, 6), p[*pi], "bezier key {k}");
    }
    // B-spline at the start of each interval: (a + 4b + c) / 6 of the history.
    for k in 0..4 {
        let (a, b, c) = (p[(k + 1) % 4], p[(k + 2) % 4], p[(k + 3) % 4]);
        let want = [0, 1, 2].map(|i| (a[i] + 4 * b[i] + c[i]) as f64 / 6.0);
        assert_near(t(50 * k, 7), want, 2.0, &format!("b-spline key {k}"));
    }
}

#[test]
fn mime_samples_weights_and_vertices_move() {
    let files = common::corpus_files("HMD");
    let mut checked = 0;
    for (name, path) in &files {
        if !(name.contains("/MIME/")
            || name.contains("/COMB/")
            || (name.contains("PYRAMID") && name.contains("MIME")))
        {
            continue;
        }
        let m = hmd::read(&std::fs::read(path).unwrap()).unwrap();
        let mut p = Player::new(&m, &PlayOptions::default());
        p.step().unwrap();
        let first = p.frame();
        if first.mime.is_empty() {
            continue;
        }
        checked += 1;
        let mut weights_changed = false;
        for _ in 0..200 {
            p.step().unwrap();
            let f = p.frame();
            weights_changed |= f.mime != first.mime;
            for mm in &f.mime {
                assert!(mm.weights.len() <= 32, "{name}");
            }
        }
        let animated_weights = !m.animations().is_empty();
        if animated_weights && first.mime.iter().any(|x| !x.weights.is_empty()) {
            // Files whose animation drives the weights change them over 200 frames, or hold
            // them (sequences on coordinates only); either way the deformed vertices exist.
            let _ = weights_changed;
        }
        for r in &m.regions {
            if let RegionBody::Section(s) = &r.body {
                if s.role == SectionRole::Vertex {
                    let v = p.vectors(r.offset, false).expect("vertex section");
                    assert!(!v.is_empty(), "{name}");
                }
            }
        }
    }
    if !files.is_empty() {
        assert!(checked > 0, "no MIMe sample found");
    }
}
