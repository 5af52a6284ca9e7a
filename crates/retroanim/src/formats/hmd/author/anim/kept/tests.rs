//! Unit tests of the driver pacing, playback and Bezier parts the kept flow is checked with.
use super::*;
use crate::formats::hmd::play::{bspline_cof, horner};

fn key(tframe: u8) -> SequenceDescriptor {
    SequenceDescriptor::KeyFrame {
        type_idx: 0,
        tframe,
        param_idx: 0,
    }
}

/// A sequence follows jumps whose condition is its stream ID (taking their destination's),
/// passes those it does not meet, and paces its intervals at SPEED with the first
/// interval starting RFRAME into it.
#[test]
fn paths_follow_stream_id_jumps_at_speed_and_phase() {
    let jump = |sid_dst, sid_cnd, seq_idx| SequenceDescriptor::Jump {
        sid_dst,
        sid_cnd,
        seq_idx,
    };
    // 0: key, 1: key T=10, 2: if SID 2 → 5, 3: loop to 0, 5: key T=4, 6: END.
    let d = [
        key(0),
        key(10),
        jump(0, 2, 5),
        jump(0, 0, 0),
        key(1),
        key(4),
        SequenceDescriptor::Control {
            code: CONTROL_END,
            p1: 0,
            p2: 0,
        },
    ];
    let at = |p: &[Visit]| p.iter().map(|v| (v.at, v.update)).collect::<Vec<_>>();
    let half = Pace {
        speed: 8,
        offset: 0,
    };
    // SID 1 loops 0 → 1 → 0 (T 0 reached at once); 16·10 / 8 = 20 updates an interval.
    let p = path(&d, (0, 1), half, 45).unwrap();
    assert_eq!(at(&p)[..4], [(0, 0), (1, 20), (0, 20), (1, 40)]);
    // SID 2 leaves the loop for descriptor 5 and ends.
    let p = path(&d, (0, 2), half, 1000).unwrap();
    assert_eq!(at(&p), [(0, 0), (1, 20), (5, 28)]);
    // RFRAME 64 into the first interval: 160 − 64 = 96 → 12 updates at SPEED 8.
    let phased = Pace {
        speed: 8,
        offset: 64,
    };
    let p = path(&d, (0, 2), phased, 1000).unwrap();
    assert_eq!(at(&p), [(0, 0), (1, 12), (5, 20)]);
}

/// Key 0 at update 0 (value 0), key 1 four updates later (TFRAME 4, x = 400).
fn one_interval() -> ([Visit; 2], BTreeMap<usize, [i32; 9]>) {
    let visit = |at, update, tframe| Visit { at, update, tframe };
    let value = [(0, [0; 9]), (1, [400, 0, 0, 0, 0, 0, 0, 0, 0])].into();
    ([visit(0, 0, 0), visit(1, 4, 4)], value)
}

/// Played as the driver plays: linear from key to key, a TFRAME 0 key at once, and at END
/// the last value driven held (the final key itself is never shown).
#[test]
fn play_holds_the_last_value_driven_at_end() {
    let (visits, value) = one_interval();
    let pace = Pace {
        speed: 16,
        offset: 0,
    };
    let codes: BTreeMap<usize, u32> = [(0, 1), (1, 1)].into();
    let got: Vec<i32> = play(
        &visits,
        Keys::new(&value, &Controls::new(), (&codes, &BTreeMap::new())),
        pace,
        6,
    )
    .unwrap()
    .iter()
    .map(|v| v.unwrap().0[0])
    .collect();
    assert_eq!(got, [0, 100, 200, 300, 300, 300, 300]);
}
/// A Bezier part runs from the source key's P0 through its control points to the target's
/// P0: control points on the line give the line, both at the start ease in.
#[test]
fn play_follows_a_bezier_part_through_the_source_key_s_control_points() {
    let (visits, value) = one_interval();
    let codes: BTreeMap<usize, u32> = [(0, BEZIER), (1, BEZIER)].into();
    let pace = Pace {
        speed: 16,
        offset: 0,
    };
    let at = |p1: i32, p2: i32| -> Vec<i32> {
        let ctl: Controls = [(
            0,
            [[p1, 0, 0, 0, 0, 0, 0, 0, 0], [p2, 0, 0, 0, 0, 0, 0, 0, 0]],
        )]
        .into();
        play(
            &visits,
            Keys::new(&value, &ctl, (&codes, &BTreeMap::new())),
            pace,
            4,
        )
        .unwrap()
        .iter()
        .map(|v| v.unwrap().0[0])
        .collect()
    };
    let line = at(133, 267);
    for (m, v) in line.iter().take(4).enumerate() {
        assert!((v - 100 * m as i32).abs() <= 1, "{line:?}");
    }
    let eased = at(0, 400);
    assert!(eased[1] < 100 && (eased[2] - 200).abs() <= 1, "{eased:?}");
    // Without its control points the interval is not followed.
    let (none, params) = (Controls::new(), BTreeMap::new());
    let keys = Keys::new(&value, &none, (&codes, &params));
    assert!(play(&visits, keys, pace, 4).is_none());
}

/// A 16-bit Bezier translation (nibble 0xA, BALLOON's `TI_BEZIER_S`) is written with its
/// control points in the layout the driver reads (nine 16-bit values), and plays as Bezier.
#[test]
fn a_16_bit_bezier_translation_keeps_its_control_points() {
    let code = 0x0300_000A;
    let pose = [100.0, -200.0, 300.0, 0.0, 0.0, 0.0, 4096.0, 4096.0, 4096.0];
    let (p1, p2) = (pose.map(|v| v + 1.0), pose.map(|v| v + 2.0));
    let frame = key_frame_of(&pose, &(p1, p2), code).expect("fits");
    let layout = InterpolationType::from_code(code).layout().unwrap();
    let mut words = Vec::new();
    frame
        .encode(layout, &mut words)
        .expect("encodes in its layout");
    assert_eq!(words.len(), layout.words());
    let KeyFrame::Coordinate { translation, .. } = frame else {
        panic!("a coordinate key frame");
    };
    assert_eq!(
        translation.as_slice(),
        [100, -200, 300, 101, -199, 301, 102, -198, 302]
    );
    assert!(bezier(0xA) && bezier(BEZIER) && !bezier(9));
    assert!(short(0xA) && short(9) && !short(2));
}

/// A B-spline sequence as Sony's INTERP writes one: three TFRAME 0 key frames fill the WORK
/// history (the driver writes nothing there), then each timed interval runs over the last
/// four key frames reached, by parameter index. A timed key reached before the history is
/// full, or a source equal to the history's second key frame (the driver's branch that
/// leaves the interval at once), is not followed.
#[test]
fn play_runs_a_b_spline_over_its_work_history() {
    const T: u32 = 3;
    let visit = |at, update, tframe| Visit { at, update, tframe };
    let x = |v: i32| [v, 0, 0, 0, 0, 0, 0, 0, 0];
    // Descriptors 1..=4: key frames of parameters 10..=13 (x = 0, 400, 800, 1200); 5 and 6:
    // parameters 10 and 11 again, TFRAME 4.
    let value: BTreeMap<usize, [i32; 9]> = [
        (1, x(0)),
        (2, x(400)),
        (3, x(800)),
        (4, x(1200)),
        (5, x(0)),
        (6, x(400)),
    ]
    .into();
    let params: BTreeMap<usize, u16> = (1..=6).map(|i| (i, 10 + ((i as u16 - 1) % 4))).collect();
    let codes: BTreeMap<usize, u32> = (1..=6).map(|i| (i, T)).collect();
    let pace = Pace {
        speed: 16,
        offset: 0,
    };
    // The WORK prelude: descriptors 1..=4 at update 0, TFRAME 0; then two timed keys.
    let after = |k: [(usize, u64); 2]| -> Vec<Visit> {
        (1..=4)
            .map(|at| visit(at, 0, 0))
            .chain(k.map(|(at, update)| visit(at, update, 4)))
            .collect()
    };
    let visits = after([(5, 4), (6, 8)]);
    let ctl = Controls::new();
    let got: Vec<i32> = play(&visits, Keys::new(&value, &ctl, (&codes, &params)), pace, 8)
        .unwrap()
        .iter()
        .map(|v| v.unwrap().0[0])
        .collect();
    let spline = |p: [i32; 4], m: i32| {
        let t16 = (16 * m).wrapping_mul(0xFFFF) / 64;
        horner(bspline_cof(p[0], p[1], p[2], p[3]), t16)
    };
    // Updates 0..3 run over 400, 800, 1200, 0 (the history after the jump back to key 10),
    // 4..7 over 800, 1200, 0, 400; END holds the last.
    let want: Vec<i32> = (0..4)
        .map(|m| spline([400, 800, 1200, 0], m))
        .chain((0..4).map(|m| spline([800, 1200, 0, 400], m)))
        .chain([spline([800, 1200, 0, 400], 3)])
        .collect();
    assert_eq!(got, want);
    // At its start the curve is (a + 4b + c) / 6 of the first three: near 800, not a key.
    assert!((got[0] - 800).abs() <= 2, "{got:?}");
    // A timed key before the history is full.
    let early = [visit(1, 0, 0), visit(2, 0, 0), visit(5, 4, 4)];
    let keys = Keys::new(&value, &ctl, (&codes, &params));
    assert!(play(&early, keys, pace, 8).is_none());
    // Parameter 12 reached again (descriptor 7) and then the source of an interval while it
    // is the history's second key frame.
    let again = after([(7, 4), (5, 8)]);
    let (mut v2, mut p2, mut c2) = (value.clone(), params.clone(), codes.clone());
    v2.insert(7, x(800));
    p2.insert(7, 12);
    c2.insert(7, T);
    assert!(play(&again, Keys::new(&v2, &ctl, (&c2, &p2)), pace, 8).is_none());
    // The same key frame with its own parameter index is followed.
    p2.insert(7, 20);
    assert!(play(&again, Keys::new(&v2, &ctl, (&c2, &p2)), pace, 8).is_some());
}
