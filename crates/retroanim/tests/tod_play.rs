//! The TOD player: hand-built animations for each packet type, with expected matrices computed
//! independently in floating point, and the PsyQ janken animations played end to end.

mod common;

use retroanim::formats::gte::Mat;
use retroanim::formats::tmd;
use retroanim::formats::tod::*;

/// Degrees to the file's rotation unit (4096 = 1°).
fn deg(d: f64) -> i32 {
    (d * 4096.0).round() as i32
}

/// The rotation the player should build for file angles `r` (degrees × 4096): the file value
/// divided by 360 in integers is a 4096-per-turn angle; Rx·Ry·Rz, scaled by 4096.
fn expected_rotation(r: [i32; 3]) -> [[f64; 3]; 3] {
    let a = r.map(|v| (v / 360) as f64 / 4096.0 * std::f64::consts::TAU);
    let (sx, cx) = a[0].sin_cos();
    let (sy, cy) = a[1].sin_cos();
    let (sz, cz) = a[2].sin_cos();
    let rx = [[1.0, 0.0, 0.0], [0.0, cx, -sx], [0.0, sx, cx]];
    let ry = [[cy, 0.0, sy], [0.0, 1.0, 0.0], [-sy, 0.0, cy]];
    let rz = [[cz, -sz, 0.0], [sz, cz, 0.0], [0.0, 0.0, 1.0]];
    mul(&mul(&rx, &ry), &rz)
}

fn mul(a: &[[f64; 3]; 3], b: &[[f64; 3]; 3]) -> [[f64; 3]; 3] {
    let mut o = [[0.0; 3]; 3];
    for i in 0..3 {
        for j in 0..3 {
            o[i][j] = (0..3).map(|k| a[i][k] * b[k][j]).sum();
        }
    }
    o
}

fn assert_matrix_near(got: &Mat, want: [[f64; 3]; 3], tol: f64, what: &str) {
    for (i, (row, want_row)) in got.m.iter().zip(want).enumerate() {
        for (j, (&g, w)) in row.iter().zip(want_row).enumerate() {
            let w = w * 4096.0;
            assert!(
                (g as f64 - w).abs() <= tol,
                "{what}: m[{i}][{j}] = {g}, expected {w:.1} (±{tol})\n{got:?}"
            );
        }
    }
}

fn frame(number: u32, packets: Vec<Packet>) -> Frame {
    Frame {
        number,
        packets,
        extra_words: vec![],
        size_override: None,
    }
}

/// Builds the file, reads it back (so the bytes are what is played) and plays every tick.
fn play(frames: Vec<Frame>, model: Option<&tmd::Tmd>) -> (Vec<Pose>, Vec<String>) {
    let anim = Tod {
        header: Header {
            version: 0,
            resolution: 2,
        },
        frames,
        trailing: vec![],
    };
    let anim = read(&write(&anim).unwrap()).unwrap();
    let mut player = Player::new(&anim, model);
    let poses: Vec<Pose> = player.by_ref().collect();
    (poses, player.notes().to_vec())
}

fn create(id: u16) -> Packet {
    Packet::new(id, PacketData::ObjectControl(ObjectControl::Create))
}

fn coord(id: u16, c: Coordinate) -> Packet {
    Packet::new(id, PacketData::Coordinate(c))
}

fn object(p: &Pose, id: u16) -> &ObjectPose {
    p.objects
        .iter()
        .find(|o| o.id == id)
        .unwrap_or_else(|| panic!("object {id} not alive at frame {}", p.frame))
}

#[test]
fn create_gives_a_visible_identity_object() {
    let (poses, notes) = play(vec![frame(0, vec![create(1)])], None);
    assert_eq!(poses.len(), 1);
    let o = object(&poses[0], 1);
    assert!(o.visible);
    assert_eq!(o.attribute, 0);
    assert_eq!(o.local, Mat::IDENTITY);
    assert_eq!(o.world, Mat::IDENTITY);
    assert_eq!(o.parent, None);
    assert!(notes.is_empty());
}

#[test]
fn absolute_rotation_scale_translation() {
    let r = [deg(30.0), deg(45.0), deg(60.0)];
    let (poses, _) = play(
        vec![frame(
            0,
            vec![
                create(1),
                coord(
                    1,
                    Coordinate {
                        differential: false,
                        rotation: Some(r),
                        scale: Some(Scale {
                            x: 8192,
                            y: 4096,
                            z: 2048,
                            pad: 0,
                        }),
                        translation: Some([100, -200, 300]),
                    },
                ),
            ],
        )],
        None,
    );
    let o = object(&poses[0], 1);
    let mut want = expected_rotation(r);
    for row in &mut want {
        row[0] *= 2.0;
        row[2] *= 0.5;
    }
    assert_matrix_near(&o.local, want, 3.0, "R·S");
    assert_eq!(o.local.t, [100, -200, 300]);
    assert_eq!(o.world, o.local);
}

#[test]
fn absolute_rotation_alone_drops_an_earlier_scale_and_keeps_translation() {
    let (poses, _) = play(
        vec![
            frame(
                0,
                vec![
                    create(1),
                    coord(
                        1,
                        Coordinate {
                            scale: Some(Scale {
                                x: 8192,
                                y: 8192,
                                z: 8192,
                                pad: 0,
                            }),
                            translation: Some([5, 6, 7]),
                            ..Coordinate::default()
                        },
                    ),
                ],
            ),
            frame(
                1,
                vec![coord(
                    1,
                    Coordinate {
                        rotation: Some([0, 0, deg(90.0)]),
                        ..Coordinate::default()
                    },
                )],
            ),
        ],
        None,
    );
    assert_eq!(object(&poses[0], 1).local.m[0][0], 8192);
    let o = object(&poses[1], 1);
    assert_eq!(o.local.m, [[0, -4096, 0], [4096, 0, 0], [0, 0, 4096]]);
    assert_eq!(o.local.t, [5, 6, 7]);
}

#[test]
fn differential_rotation_and_translation_add_and_scale_multiplies() {
    let (poses, _) = play(
        vec![
            frame(
                0,
                vec![
                    create(1),
                    coord(
                        1,
                        Coordinate {
                            rotation: Some([deg(10.0), 0, 0]),
                            scale: Some(Scale::ONE),
                            translation: Some([100, 0, 0]),
                            ..Coordinate::default()
                        },
                    ),
                ],
            ),
            frame(
                1,
                vec![coord(
                    1,
                    Coordinate {
                        differential: true,
                        rotation: Some([deg(20.0), 0, 0]),
                        scale: Some(Scale {
                            x: 2048,
                            y: 2048,
                            z: 2048,
                            pad: 0,
                        }),
                        translation: Some([5, -5, 1]),
                    },
                )],
            ),
        ],
        None,
    );
    let o = object(&poses[1], 1);
    // 10° and 20° each truncate to 113 and 227 units of 1/4096 turn.
    let a = (113.0 + 227.0) / 4096.0 * std::f64::consts::TAU;
    let want = [
        [0.5, 0.0, 0.0],
        [0.0, 0.5 * a.cos(), -0.5 * a.sin()],
        [0.0, 0.5 * a.sin(), 0.5 * a.cos()],
    ];
    assert_matrix_near(&o.local, want, 2.0, "differential");
    assert_eq!(o.local.t, [105, -5, 1]);
}

#[test]
fn parent_chain_composes_world_matrices() {
    let (poses, _) = play(
        vec![frame(
            0,
            vec![
                create(1),
                create(2),
                coord(
                    1,
                    Coordinate {
                        rotation: Some([0, 0, deg(90.0)]),
                        translation: Some([100, 0, 0]),
                        ..Coordinate::default()
                    },
                ),
                coord(
                    2,
                    Coordinate {
                        translation: Some([10, 0, 0]),
                        ..Coordinate::default()
                    },
                ),
                Packet::new(2, PacketData::Parent(IdValue::new(1))),
            ],
        )],
        None,
    );
    let child = object(&poses[0], 2);
    assert_eq!(child.parent, Some(1));
    assert_eq!(child.local.t, [10, 0, 0]);
    // The parent's 90° turn about Z maps the child's +X offset onto +Y.
    assert_eq!(child.world.t, [100, 10, 0]);
    assert_eq!(child.world.m, [[0, -4096, 0], [4096, 0, 0], [0, 0, 4096]]);
}

#[test]
fn parent_zero_or_ffff_clears_and_dead_parent_is_noted() {
    let (poses, notes) = play(
        vec![
            frame(
                0,
                vec![
                    create(1),
                    create(2),
                    Packet::new(2, PacketData::Parent(IdValue::new(1))),
                ],
            ),
            frame(
                1,
                vec![Packet::new(2, PacketData::Parent(IdValue::new(0xFFFF)))],
            ),
            frame(2, vec![Packet::new(2, PacketData::Parent(IdValue::new(9)))]),
        ],
        None,
    );
    assert_eq!(object(&poses[0], 2).parent, Some(1));
    assert_eq!(object(&poses[1], 2).parent, None);
    assert_eq!(object(&poses[2], 2).parent, None);
    assert!(notes.iter().any(|n| n.contains("parent 9")), "{notes:?}");
}

#[test]
fn matrix_packet_sets_the_coordinate() {
    let m = Matrix {
        m: [[0, 0, 4096], [0, 4096, 0], [-4096, 0, 0]],
        pad: 0,
        t: [1, 2, 3],
    };
    let (poses, _) = play(
        vec![frame(
            0,
            vec![
                create(1),
                create(2),
                Packet::new(1, PacketData::Matrix(m)),
                Packet::new(2, PacketData::Parent(IdValue::new(1))),
                coord(
                    2,
                    Coordinate {
                        translation: Some([0, 0, 100]),
                        ..Coordinate::default()
                    },
                ),
            ],
        )],
        None,
    );
    assert_eq!(object(&poses[0], 1).local, Mat { m: m.m, t: m.t });
    // Ry(90°) sends +Z to +X.
    assert_eq!(object(&poses[0], 2).world.t, [101, 2, 3]);
}

#[test]
fn attribute_display_bit_hides_and_shows() {
    let hide = Attribute {
        mask: 0x7FFF_FFFF,
        value: 0x8000_0000,
    };
    let show = Attribute {
        mask: 0x7FFF_FFFF,
        value: 0,
    };
    let (poses, _) = play(
        vec![
            frame(0, vec![create(1)]),
            frame(1, vec![Packet::new(1, PacketData::Attribute(hide))]),
            frame(
                2,
                vec![Packet::new(
                    1,
                    PacketData::Attribute(
                        Attribute::unchanged().with(AttributeItem::ForceLighting, 1),
                    ),
                )],
            ),
            frame(3, vec![Packet::new(1, PacketData::Attribute(show))]),
        ],
        None,
    );
    let vis: Vec<bool> = poses.iter().map(|p| object(p, 1).visible).collect();
    assert_eq!(vis, [true, false, false, true]);
    assert_eq!(object(&poses[2], 1).attribute, 0x8000_0040);
}

#[test]
fn lights_absolute_and_differential() {
    let light = |differential, direction, color| {
        Packet::new(
            0,
            PacketData::Light(Light {
                differential,
                direction,
                color,
            }),
        )
    };
    let c = |r, g, b| Color { r, g, b, pad: 0 };
    let (poses, _) = play(
        vec![
            frame(
                0,
                vec![light(false, Some([100, 0, -100]), Some(c(200, 100, 50)))],
            ),
            frame(1, vec![light(true, Some([1, 2, 3]), Some(c(100, 1, 1)))]),
        ],
        None,
    );
    assert_eq!(poses[0].lights[0].direction, [100, 0, -100]);
    assert_eq!(poses[0].lights[0].color, [200, 100, 50]);
    assert_eq!(poses[1].lights[0].direction, [101, 2, -97]);
    // Colours are bytes: 200 + 100 wraps as on the console.
    assert_eq!(poses[1].lights[0].color, [44, 101, 51]);
}

#[test]
fn cameras_of_both_types() {
    let (poses, _) = play(
        vec![
            frame(
                0,
                vec![
                    Packet::new(
                        0,
                        PacketData::Camera(Camera::LookAt(LookAtCamera {
                            differential: false,
                            position: Some([0, -1000, -5000, 0, 0, 0]),
                            z_angle: Some(0),
                        })),
                    ),
                    Packet::new(
                        1,
                        PacketData::Camera(Camera::RotTrans(RotTransCamera {
                            differential: false,
                            rotation: Some([0, deg(90.0), 0]),
                            translation: Some([1, 2, 3]),
                        })),
                    ),
                ],
            ),
            frame(
                1,
                vec![Packet::new(
                    0,
                    PacketData::Camera(Camera::LookAt(LookAtCamera {
                        differential: true,
                        position: Some([10, 0, 0, 0, 5, 0]),
                        z_angle: None,
                    })),
                )],
            ),
        ],
        None,
    );
    match poses[1].cameras[0] {
        CameraState::LookAt {
            position,
            reference,
            ..
        } => {
            assert_eq!(position, [10, -1000, -5000]);
            assert_eq!(reference, [0, 5, 0]);
        }
        other => panic!("{other:?}"),
    }
    match poses[1].cameras[1] {
        CameraState::RotTrans { matrix, .. } => {
            assert_eq!(matrix.m, [[0, 0, 4096], [0, 4096, 0], [-4096, 0, 0]]);
            assert_eq!(matrix.t, [1, 2, 3]);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn kill_removes_and_create_reuses_the_slot() {
    let (poses, notes) = play(
        vec![
            frame(0, vec![create(1), create(2)]),
            frame(
                1,
                vec![Packet::new(
                    1,
                    PacketData::ObjectControl(ObjectControl::Kill),
                )],
            ),
            frame(2, vec![create(3)]),
            frame(
                3,
                vec![Packet::new(
                    7,
                    PacketData::ObjectControl(ObjectControl::Kill),
                )],
            ),
        ],
        None,
    );
    let ids = |p: &Pose| p.objects.iter().map(|o| (o.id, o.slot)).collect::<Vec<_>>();
    assert_eq!(ids(&poses[0]), [(1, 0), (2, 1)]);
    assert_eq!(ids(&poses[1]), [(2, 1)]);
    assert_eq!(ids(&poses[2]), [(3, 0), (2, 1)]);
    assert!(
        notes.iter().any(|n| n.contains("kill of object 7")),
        "{notes:?}"
    );
}

#[test]
fn frames_wait_for_their_number_and_apply_one_per_tick() {
    let t = |x| {
        coord(
            1,
            Coordinate {
                translation: Some([x, 0, 0]),
                ..Coordinate::default()
            },
        )
    };
    let (poses, _) = play(
        vec![
            frame(2, vec![create(1), t(1)]),
            frame(5, vec![t(2)]),
            frame(5, vec![t(3)]),
        ],
        None,
    );
    let seen: Vec<(u32, Option<usize>, i32)> = poses
        .iter()
        .map(|p| (p.frame, p.applied, object(p, 1).local.t[0]))
        .collect();
    assert_eq!(
        seen,
        [
            (2, Some(0), 1),
            (3, None, 1),
            (4, None, 1),
            (5, Some(1), 2),
            (6, Some(2), 3)
        ]
    );
    // Resolution 2: two 1/60 s ticks per frame.
    assert!((poses[3].time - 5.0 * 2.0 / 60.0).abs() < 1e-9);
}

#[test]
fn tmd_ids_link_one_based_objects() {
    let obj = tmd::Object {
        vert_top: 0,
        normal_top: 0,
        primitive_top: 0,
        scale: 0,
        vertices: vec![],
        normals: vec![],
        primitives: vec![],
    };
    let mut model = tmd::Tmd {
        flags: 0,
        address_base: 0,
        objects: vec![obj.clone(), obj],
        gaps: vec![],
    };
    model.pack();
    let (poses, notes) = play(
        vec![frame(
            0,
            vec![
                create(1),
                create(2),
                Packet::new(1, PacketData::TmdId(IdValue::new(2))),
                Packet::new(2, PacketData::TmdId(IdValue::new(3))),
            ],
        )],
        Some(&model),
    );
    assert_eq!(object(&poses[0], 1).model, Some(1));
    assert_eq!(object(&poses[0], 2).model, None);
    assert_eq!(object(&poses[0], 2).tmd_id, Some(3));
    assert!(notes.iter().any(|n| n.contains("TMD ID 3")), "{notes:?}");
}

/// The janken sample's folder in each SDK copy: its TODs and the TE.TMD they animate.
fn janken_sets() -> Vec<(std::path::PathBuf, Vec<std::path::PathBuf>)> {
    let tods = common::corpus_files("TOD");
    let mut sets = Vec::new();
    for (_, tmd_path) in common::corpus_files("TMD") {
        if !tmd_path.ends_with("JANKEN/TMD/TE.TMD") {
            continue;
        }
        let dir = tmd_path.parent().unwrap().parent().unwrap().join("TOD");
        let mine: Vec<_> = tods
            .iter()
            .filter(|(_, p)| p.parent() == Some(dir.as_path()))
            .map(|(_, p)| p.clone())
            .collect();
        sets.push((tmd_path, mine));
    }
    sets
}

#[test]
fn janken_animations_play_first_to_last_frame() {
    let sets = janken_sets();
    if common::corpus_files("TOD").is_empty() {
        return;
    }
    assert!(sets.len() >= 3, "janken folders: {}", sets.len());
    for (tmd_path, tods) in sets {
        assert_eq!(tods.len(), 9, "{}", tmd_path.display());
        let model = tmd::read(&std::fs::read(&tmd_path).unwrap()).unwrap();
        let files: Vec<Tod> = tods
            .iter()
            .map(|p| read(&std::fs::read(p).unwrap()).unwrap())
            .collect();
        let appear = tods.iter().position(|p| p.ends_with("APPEAR.TOD")).unwrap();
        // APPEAR creates the hand; every other animation moves it afterwards.
        let mut player = Player::new(&files[appear], Some(&model));
        let mut last = None;
        for pose in player.by_ref() {
            last = Some(pose);
        }
        let last = last.unwrap();
        assert_eq!(last.applied, Some(files[appear].frames.len() - 1));
        let linked = last.objects.iter().filter(|o| o.model.is_some()).count();
        assert_eq!(linked, model.objects.len(), "every TE.TMD part is linked");
        for (i, anim) in files.iter().enumerate() {
            if i == appear {
                continue;
            }
            let mut p = player.clone().then(anim);
            let mut n = 0;
            let mut pose = None;
            for x in p.by_ref() {
                n += 1;
                pose = Some(x);
            }
            let pose = pose.unwrap();
            assert_eq!(
                pose.applied,
                Some(anim.frames.len() - 1),
                "{}",
                tods[i].display()
            );
            // `Player::after` chains the prelude as the loop above does.
            let after = Player::after([&files[appear]], anim, Some(&model)).last();
            assert_eq!(
                serde_json::to_value(after.unwrap()).unwrap(),
                serde_json::to_value(&pose).unwrap(),
                "{}",
                tods[i].display()
            );
            assert!(n >= anim.frames.len());
            assert!(
                p.notes().is_empty(),
                "{}: {:?}",
                tods[i].display(),
                p.notes()
            );
            for o in &pose.objects {
                // Rigid motion: every world rotation row stays a unit vector.
                for row in o.world.m {
                    let len = row.iter().map(|&v| (v as f64).powi(2)).sum::<f64>().sqrt();
                    assert!(
                        (len - 4096.0).abs() < 40.0,
                        "{} object {}: {row:?}",
                        tods[i].display(),
                        o.id
                    );
                }
            }
        }
    }
}

#[test]
fn a_walk_the_file_claims_is_counted_and_bounded_before_it_is_taken() {
    // Two frames a billion ticks apart: a few bytes that claim a billion poses.
    let anim = Tod {
        header: Header {
            version: 0,
            resolution: 1,
        },
        frames: vec![frame(5, vec![create(1)]), frame(1_000_000_005, vec![])],
        trailing: vec![],
    };
    let player = Player::new(&anim, None);
    assert_eq!(player.walk_ticks(5, Some(14)), 10);
    // Ticks 5 ..= 1,000,000,005 at least (the bound allows for frames that wait longer).
    let whole = player.walk_ticks(5, None);
    assert!((1_000_000_001..1_000_000_010).contains(&whole), "{whole}");
    let limits = retroanim::Limits::default();
    assert_eq!(player.check_walk(5, Some(14), &limits).unwrap(), 10);
    let e = player.check_walk(5, None, &limits).unwrap_err();
    assert!(
        matches!(e, retroanim::Error::LimitExceeded { requested, .. } if requested == whole),
        "{e:?}"
    );
}

#[test]
fn parent_loops_are_cut_and_noted() {
    let parent = |id, p| Packet::new(id, PacketData::Parent(IdValue::new(p)));
    let (poses, notes) = play(
        vec![
            frame(0, vec![create(1), create(2), parent(1, 2), parent(2, 1)]),
            frame(1, vec![]),
        ],
        None,
    );
    assert_eq!(poses.len(), 2);
    assert_eq!(object(&poses[1], 1).world, Mat::IDENTITY);
    assert_eq!(
        notes.iter().filter(|n| n.contains("loops")).count(),
        2,
        "{notes:?}"
    );
}

mod hostile {
    use super::*;
    use proptest::prelude::*;

    fn arb_packet() -> impl Strategy<Value = Packet> {
        let id = 0u16..4;
        prop_oneof![
            id.clone().prop_map(create),
            id.clone()
                .prop_map(|i| Packet::new(i, PacketData::ObjectControl(ObjectControl::Kill))),
            (id.clone(), 0u16..5)
                .prop_map(|(i, p)| Packet::new(i, PacketData::Parent(IdValue::new(p)))),
            (
                id.clone(),
                any::<[i32; 3]>(),
                any::<[i16; 3]>(),
                any::<bool>()
            )
                .prop_map(|(i, r, s, differential)| coord(
                    i,
                    Coordinate {
                        differential,
                        rotation: Some(r),
                        scale: Some(Scale {
                            x: s[0],
                            y: s[1],
                            z: s[2],
                            pad: 0
                        }),
                        translation: Some(r),
                    }
                )),
            (id, any::<u32>(), any::<u32>()).prop_map(|(i, mask, value)| Packet::new(
                i,
                PacketData::Attribute(Attribute { mask, value })
            )),
        ]
    }

    proptest! {
        #[test]
        fn any_packet_sequence_plays_to_the_end(
            frames in prop::collection::vec((0u32..6, prop::collection::vec(arb_packet(), 0..6)), 1..8)
        ) {
            let frames: Vec<Frame> = frames.into_iter().map(|(n, p)| frame(n, p)).collect();
            let count = frames.len();
            let (poses, _) = play(frames, None);
            prop_assert_eq!(poses.last().and_then(|p| p.applied), Some(count - 1));
        }
    }
}
