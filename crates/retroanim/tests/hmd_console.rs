//! HMD playback started as Sony's own programs start it (`../shared/notes/console_semantics.md`
//! §2): INTR IDX 0xFFFF, AFRAME 0xFFFF, SPEED 0x10 where the file stores 0, and the options
//! that override each; from hand-built files and from the corpus samples the defaults change.

mod common;

use common::hmd_anim::*;
use retroanim::formats::hmd::{self, *};
use retroanim::Error;

const K0: [i32; 3] = [0, 0, 0];
const K1: [i32; 3] = [1600, -3200, 480];

/// Every sequence pointer of the model, changed by `f` (as a file storing other values).
fn set_pointers(m: &mut Hmd, f: impl Fn(&mut SequencePointer)) {
    for r in &mut m.regions {
        if let RegionBody::Primitive(p) = &mut r.body {
            for t in &mut p.types {
                if let TypeData::Sequences(s) = &mut t.data {
                    s.iter_mut().for_each(&f);
                }
            }
        }
    }
}

/// K0 (descriptor 0, parameter word 0) → K1 in 10 frames → back to K0 in 10 frames → JUMP to
/// descriptor 1: an endless oscillation, with the file's INTR IDX 0 and AFRAME 0 as Sony's
/// files store them.
fn oscillation(speed: i8) -> Hmd {
    let mut p = ptr(0x0400_0001, 0);
    p.speed = speed;
    let params: Vec<u32> = [K0, K1].iter().flatten().map(|&v| v as u32).collect();
    let mut m = read_built(&anim_file(
        1,
        &[0x0300_0001],
        &[p],
        &[key(0, 0, 0), key(0, 10, 3), key(0, 10, 0), jump(0, 0, 1)],
        &params,
    ));
    set_pointers(&mut m, |s| {
        s.intr_idx = 0;
        s.aframe = 0;
    });
    m
}

fn translations(m: &Hmd, opts: &PlayOptions, n: usize) -> Vec<[i32; 3]> {
    let mut p = Player::start(m, opts).unwrap();
    (0..n)
        .map(|_| {
            p.step().unwrap();
            p.frame().coordinates[0].local.t
        })
        .collect()
}

#[test]
fn file_intr_idx_and_aframe_zero_play_endlessly_without_overwriting_key_frame_0() {
    let m = oscillation(16);
    let t = translations(&m, &PlayOptions::default(), 100);
    // AFRAME 0 in the file: the pointer still runs (Sony's programs set 0xFFFF).
    assert_eq!(t[0], K0);
    assert_eq!(t[10], K1);
    assert_eq!(t[20], K0, "back at K0 after the first loop");
    // INTR IDX 0xFFFF: key frame 0 keeps its values, so every loop is the first one.
    for f in 0..80 {
        assert_eq!(t[f], t[f + 20], "frame {f} vs {}", f + 20);
    }
    assert!(!Player::start(&m, &PlayOptions::default())
        .unwrap()
        .finished());
}

#[test]
fn explicit_intr_idx_writes_the_pose_back_as_the_file_asks() {
    let m = oscillation(16);
    // INTR IDX 0 as stored: each update writes the interpolated value into key frame 0 (the
    // target of the return interval), so the way back is cut short after the first loop.
    let opts = PlayOptions {
        intr_idx: Some(0),
        ..PlayOptions::default()
    };
    let t = translations(&m, &opts, 60);
    assert_eq!(t[10], K1);
    assert_ne!(
        t[20], K0,
        "key frame 0 was overwritten with the last pose before it"
    );
    let default = translations(&m, &PlayOptions::default(), 60);
    assert_ne!(t, default);
}

#[test]
fn aframe_option_counts_updates_then_stops() {
    let m = oscillation(16);
    let opts = PlayOptions {
        aframe: Some(5),
        ..PlayOptions::default()
    };
    let mut p = Player::start(&m, &opts).unwrap();
    let mut t = Vec::new();
    for _ in 0..8 {
        p.step().unwrap();
        t.push(p.frame().coordinates[0].local.t);
    }
    // Five updates move; the sixth finds AFRAME 0 and changes nothing.
    assert_ne!(t[4], t[3]);
    assert_eq!(t[5], t[4]);
    assert_eq!(t[7], t[4]);
    assert!(p.finished());
}

#[test]
fn speed_zero_in_the_file_plays_at_normal_rate_and_explicit_zero_stalls() {
    let zero = oscillation(0);
    let normal = oscillation(16);
    assert_eq!(
        translations(&zero, &PlayOptions::default(), 45),
        translations(&normal, &PlayOptions::default(), 45),
        "a file SPEED of 0 runs at 0x10"
    );
    // An explicit SPEED 0 is what the console does with it: time stands still.
    let opts = PlayOptions {
        speed: Some(0),
        ..PlayOptions::default()
    };
    let t = translations(&zero, &opts, 10);
    assert!(t.iter().all(|&v| v == K0), "{t:?}");
    // Any other file SPEED is kept: 8 takes twice the frames to reach K1.
    let half = translations(&oscillation(8), &PlayOptions::default(), 21);
    assert_eq!(half[20], K1);
}

#[test]
fn sequence_and_stream_ids_beyond_the_file_are_errors_naming_what_exists() {
    let m = oscillation(16);
    let err = Player::start(
        &m,
        &PlayOptions {
            sequence: Some(3),
            ..PlayOptions::default()
        },
    )
    .expect_err("sequence 3 does not exist");
    assert!(matches!(err, Error::Parameter { .. }), "{err}");
    assert!(err.to_string().contains("sequences 0..=0"), "{err}");
    let err = Player::start(
        &m,
        &PlayOptions {
            stream_id: Some(9),
            ..PlayOptions::default()
        },
    )
    .expect_err("stream ID 9 is not named");
    assert!(err.to_string().contains("stream IDs 0"), "{err}");
    // The scene builder refuses them too instead of exporting no animation.
    let err = m
        .to_scene(&SceneOptions {
            sequence: Some(1),
            ..SceneOptions::default()
        })
        .expect_err("sequence 1 does not exist");
    assert!(err.to_string().contains("sequence 1"), "{err}");
    assert_eq!(hmd::sequence_count(&m), 1);
    assert_eq!(
        hmd::stream_ids(&m).into_iter().collect::<Vec<_>>(),
        vec![0u8]
    );
}

fn locals(m: &Hmd, opts: &PlayOptions, n: usize) -> Vec<Vec<retroanim::formats::gte::Mat>> {
    let mut p = Player::start(m, opts).unwrap();
    (0..n)
        .map(|_| {
            p.step().unwrap();
            p.frame().coordinates.iter().map(|c| c.local).collect()
        })
        .collect()
}

/// PYRAMID5's sequence starts with key frame 0 and loops through a JUMP; the file stores INTR
/// IDX 0 (and SPEED 0). Played as the file stores it, key frame 0 is overwritten during the first loop and
/// the pyramid stops moving; as the tutorial program plays it (INTR IDX 0xFFFF) it swings on.
#[test]
fn pyramid5_keeps_oscillating_as_the_tutorial_plays_it() {
    let Some(m) = common::corpus_hmd("TUTO/PYRAMID/PYRAMID5.HMD") else {
        return;
    };
    let console = locals(&m, &PlayOptions::default(), 600);
    let moving = |frames: &[Vec<retroanim::formats::gte::Mat>]| {
        frames[300..].iter().any(|f| *f != frames[300])
    };
    assert!(moving(&console), "the oscillation goes on after frame 300");
    let as_stored = locals(
        &m,
        &PlayOptions {
            intr_idx: Some(0),
            ..PlayOptions::default()
        },
        600,
    );
    assert!(
        !moving(&as_stored),
        "with the file's INTR IDX 0 key frame 0 is overwritten and the motion dies out"
    );
}

/// TRI.HMD and PYRAMID5.HMD store SPEED 0 (the program sets the rate): they animate at 1×.
#[test]
fn speed_zero_samples_animate() {
    for name in ["ANIM/TRI3/TRI.HMD", "TUTO/PYRAMID/PYRAMID5.HMD"] {
        let Some(m) = common::corpus_hmd(name) else {
            return;
        };
        let file_speeds: Vec<i8> = m
            .animations()
            .iter()
            .flat_map(|a| a.sequences.iter().map(|s| s.speed))
            .collect();
        assert!(file_speeds.contains(&0), "{name} stores SPEED 0");
        let frames = locals(&m, &PlayOptions::default(), 120);
        assert!(
            frames.iter().any(|f| *f != frames[0]),
            "{name}: the coordinates move"
        );
        let stalled = locals(
            &m,
            &PlayOptions {
                speed: Some(0),
                ..PlayOptions::default()
            },
            120,
        );
        assert!(frames != stalled, "{name}: SPEED 0x10 is not SPEED 0");
        let scene = m.to_scene(&SceneOptions::default()).unwrap();
        let keys = scene
            .animations
            .iter()
            .flat_map(|a| &a.channels)
            .map(|c| c.times.len())
            .max()
            .unwrap_or(0);
        assert!(keys > 1, "{name}: the export has animation ({keys} keys)");
    }
}
