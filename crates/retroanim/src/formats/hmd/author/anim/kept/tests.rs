//! Unit tests of the driver pacing, playback and Bezier parts the kept flow is checked with.
use super::*;

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
    let got: Vec<i32> = play(&visits, (&value, &codes, &Controls::new()), pace, 6)
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
        play(&visits, (&value, &codes, &ctl), pace, 4)
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
    assert!(play(&visits, (&value, &codes, &Controls::new()), pace, 4).is_none());
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
