//! Decoded values of corpus HMDs checked against their labp sources (the `.LAB` files beside
//! them), and edits of corpus files written and read back.

mod common;

use retroanim::formats::hmd::{self, *};
use retroanim::Severity;

/// The corpus HMD whose manifest path ends with `suffix`, read; `None` without the corpus.
fn corpus(suffix: &str) -> Option<(Vec<u8>, Hmd)> {
    let path = common::corpus_file("HMD", suffix)?;
    let data = std::fs::read(path).unwrap();
    let m = hmd::read(&data).unwrap();
    Some((data, m))
}

fn sections(m: &Hmd, role: SectionRole) -> Vec<(u32, &SectionData)> {
    m.regions
        .iter()
        .filter_map(|r| match &r.body {
            RegionBody::Section(s) if s.role == role => Some((r.offset, &s.data)),
            _ => None,
        })
        .collect()
}

fn sequences(m: &Hmd) -> Vec<SequencePointer> {
    m.primitives()
        .flat_map(|(_, p)| &p.types)
        .filter_map(|t| match &t.data {
            TypeData::Sequences(s) => Some(s.clone()),
            _ => None,
        })
        .flatten()
        .collect()
}

#[test]
fn joint_matches_joint_lab() {
    let Some((_, m)) = corpus("TUTO/PYRAMID/JOINT.HMD") else {
        return;
    };
    assert_eq!(m.map_flag, 0);
    assert_eq!(m.blocks.len(), 4);
    assert_eq!(m.blocks[0], 0, "no pre-process");
    let coords = m.coordinates().unwrap();
    assert_eq!(coords.len(), 2);
    // Coord_0001: rot (0, 512, 0), a 45° matrix, translation (0, 150, 0), parent Coord_0000.
    assert_eq!(coords[1].rot.v, [0, 512, 0]);
    assert_eq!(
        coords[1].matrix.m,
        [[2896, 0, 2896], [0, 4096, 0], [-2896, 0, 2896]]
    );
    assert_eq!(coords[1].matrix.t, [0, 150, 0]);
    assert_eq!(coords[1].parent, 4 + 4 + 1, "super = Coord_0000 / 4");
    assert_eq!(coords[0].matrix.t, [0, -100, 0]);
    // PolyPrimSet_pyramid: INI|TRI × 4 and QUAD × 1; then the pre-calculation.
    let (_, pyramid) = m.primitives().find(|(at, _)| *at == m.blocks[1]).unwrap();
    let t: Vec<(u32, u16)> = pyramid
        .types
        .iter()
        .map(|t| (t.type_code, t.count))
        .collect();
    assert_eq!(t, vec![(0x0080_0008, 4), (0x0000_0010, 1)]);
    let (_, shared) = m.primitives().find(|(at, _)| *at == pyramid.next).unwrap();
    assert_eq!(shared.next, TERMINATE);
    let TypeData::PreCalculation(pc) = &shared.types[0].data else {
        panic!("pre-calculation")
    };
    assert_eq!((pc.vertices, pc.normals), (4, 4));
    // Poly_pyramid_F3: blue, norm0 3, vertices 0 5 6.
    let polys = sections(&m, SectionRole::Polygon);
    let SectionData::Polygons(items) = polys[0].1 else {
        panic!()
    };
    let PolygonItem::Packets(run) = &items[0] else {
        panic!()
    };
    assert_eq!(run.primitive_type(), 0x08);
    assert_eq!(run.len(), 4);
    let p0 = run.get(0).unwrap();
    assert_eq!(p0.colors.to_vec(), vec![[0, 0, 255, 0x20]]);
    assert_eq!(p0.normals.to_vec(), vec![3]);
    assert_eq!(p0.vertices.to_vec(), vec![0, 5, 6]);
    // The POST-PROCESS shared quads: STP | QUAD | IIP, 4 of them.
    let (_, post) = m.primitives().find(|(at, _)| *at == m.blocks[3]).unwrap();
    assert_eq!(
        (post.types[0].type_code, post.types[0].count),
        (0x0120_0014, 4)
    );
    // VertSect: vert[0] = (0, -100, 0), vert[1] = (-150, 150, -150).
    let SectionData::Vectors { vectors, .. } = sections(&m, SectionRole::Vertex)[0].1 else {
        panic!()
    };
    assert_eq!(vectors[0].v, [0, -100, 0]);
    assert_eq!(vectors[1].v, [-150, 150, -150]);
}

#[test]
fn ufo_animation_matches_ufo_lab() {
    let Some((_, m)) = corpus("ANIM/UFO/UFO.HMD") else {
        return;
    };
    let seqs = sequences(&m);
    // UfoRot, Ufo, Foot: coordinates 0, 0, 1; starts 5, 1, 12 (label + 1); speed SPD (16).
    assert_eq!(seqs.len(), 3);
    let starts: Vec<u16> = seqs.iter().map(|s| s.start).collect();
    assert_eq!(starts, vec![5, 1, 12]);
    let coords: Vec<Option<usize>> = seqs.iter().map(|s| s.update.coordinate()).collect();
    assert_eq!(coords, vec![Some(0), Some(0), Some(1)]);
    assert!(seqs
        .iter()
        .all(|s| s.speed == 16 && s.src_intr_idx == 0xFFFF && s.update.section == 4));
    // The size field says 7 for three 7-word sequence pointers: kept and warned about.
    let anim = m
        .primitives()
        .flat_map(|(_, p)| &p.types)
        .find(|t| t.type_code == 0x0380_0000)
        .unwrap();
    assert_eq!(anim.size_override, Some(7));
    let issues = hmd::validate(&m);
    assert!(issues
        .iter()
        .any(|i| i.code == "type-size" && i.severity == Severity::Warning));
    // InterpLinear, InterpRot, InterpBezier.
    let SectionData::InterpolationTable { types, .. } =
        sections(&m, SectionRole::InterpolationTable)[0].1
    else {
        panic!()
    };
    assert_eq!(types, &vec![0x0300_0001, 0x0300_0010, 0x0300_0002]);
    let SectionData::SequenceControl(ds) = sections(&m, SectionRole::SequenceControl)[0].1 else {
        panic!()
    };
    assert_eq!(
        ds[0],
        SequenceDescriptor::Jump {
            sid_dst: 0,
            sid_cnd: 0,
            seq_idx: 2
        }
    );
    assert_eq!(
        ds[1],
        SequenceDescriptor::KeyFrame {
            type_idx: 0,
            tframe: 50,
            param_idx: 0
        }
    );
    assert_eq!(
        ds[2],
        SequenceDescriptor::KeyFrame {
            type_idx: 0,
            tframe: 50,
            param_idx: 3
        }
    );
    assert_eq!(
        ds[5],
        SequenceDescriptor::KeyFrame {
            type_idx: 1,
            tframe: 0,
            param_idx: 6
        }
    );
    // LinearKey0 (0, -147, 424); RotKey1 SVECTOR(0, ONE/4, 0).
    let SectionData::Parameters(items) = sections(&m, SectionRole::Parameters)[0].1 else {
        panic!()
    };
    let (code, kf) = key_frame_at(items, 0).unwrap();
    assert_eq!(code, 0x0300_0001);
    assert_eq!(
        kf,
        &KeyFrame::Coordinate {
            translation: [0, -147, 424].into_iter().collect(),
            rotation: Default::default(),
            scale: Default::default(),
            pad: 0
        }
    );
    let (_, kf) = key_frame_at(items, 8).unwrap();
    assert_eq!(
        kf,
        &KeyFrame::Coordinate {
            translation: Default::default(),
            rotation: [0, 1024, 0].into_iter().collect(),
            scale: Default::default(),
            pad: 0
        }
    );
}

#[test]
fn snowman_devices_match_snowman_lab() {
    let Some((_, m)) = corpus("EQUIP/SNOWMAN/SNOWMAN.HMD") else {
        return;
    };
    let devs = sections(&m, SectionRole::DeviceParameters);
    let cams: Vec<&DeviceItem> = devs
        .iter()
        .filter_map(|(_, d)| match d {
            SectionData::Devices(items) => Some(items),
            _ => None,
        })
        .flatten()
        .collect();
    assert!(cams.contains(&&DeviceItem::Camera(CameraParameters {
        projection: 200,
        rot: 0,
        position: [0, -2000, -5000],
        reference: [0, 0, 0]
    })));
    assert!(cams.contains(&&DeviceItem::Light {
        index: 0,
        color: [0, 255, 255, 0],
        position: [0; 3],
        reference: [0; 3]
    }));
    assert!(cams.contains(&&DeviceItem::Light {
        index: 7,
        color: [255, 0, 255, 0],
        position: [0; 3],
        reference: [0, 0, 100]
    }));
    assert!(cams.contains(&&DeviceItem::Light {
        index: 14,
        color: [255, 255, 0, 0],
        position: [-100; 3],
        reference: [0; 3]
    }));
    let kinds: Vec<DeviceKind> = m
        .primitives()
        .flat_map(|(_, p)| &p.types)
        .filter_map(|t| DeviceKind::from_code(t.type_code))
        .collect();
    for k in [
        DeviceKind::Projection,
        DeviceKind::WorldCamera,
        DeviceKind::AimLight,
        DeviceKind::FixLight,
        DeviceKind::WorldLight,
    ] {
        assert!(kinds.contains(&k), "{k:?}");
    }
}

#[test]
fn editing_a_key_frame_changes_only_its_words() {
    let Some((data, mut m)) = corpus("ANIM/UFO/UFO.HMD") else {
        return;
    };
    let (at, _) = sections(&m, SectionRole::Parameters)[0];
    let SectionData::Parameters(items) = &mut m.section_at_mut(at).unwrap().data else {
        panic!()
    };
    let Some(ParameterItem::KeyFrame {
        frame: KeyFrame::Coordinate { translation, .. },
        ..
    }) = items.first_mut()
    else {
        panic!()
    };
    translation[2] = 1000;
    let out = hmd::write(&m).unwrap();
    assert_eq!(out.len(), data.len());
    let diff: Vec<usize> = (0..data.len()).filter(|&i| out[i] != data[i]).collect();
    let z = (at as usize + 2) * 4;
    assert!(
        !diff.is_empty() && diff.iter().all(|&i| (z..z + 4).contains(&i)),
        "{diff:?}"
    );
    let back = hmd::read(&out).unwrap();
    let SectionData::Parameters(items) = &back.section_at(at).unwrap().data else {
        panic!()
    };
    assert_eq!(
        key_frame_at(items, 0).unwrap().1,
        &KeyFrame::Coordinate {
            translation: [0, -147, 1000].into_iter().collect(),
            rotation: Default::default(),
            scale: Default::default(),
            pad: 0
        }
    );
}

#[test]
fn adding_a_sequence_recomputes_every_pointer() {
    let Some((_, mut m)) = corpus("ANIM/UFO/UFO.HMD") else {
        return;
    };
    let before_frames: Vec<ParameterItem> = match sections(&m, SectionRole::Parameters)[0].1 {
        SectionData::Parameters(items) => items.clone(),
        _ => panic!(),
    };
    // A new sequence: key frame LinearKey1 held for 10 frames, then END.
    let (ctl, _) = sections(&m, SectionRole::SequenceControl)[0];
    let SectionData::SequenceControl(ds) = &mut m.section_at_mut(ctl).unwrap().data else {
        panic!()
    };
    let start = ds.len() as u16;
    ds.push(SequenceDescriptor::KeyFrame {
        type_idx: 0,
        tframe: 10,
        param_idx: 3,
    });
    ds.push(SequenceDescriptor::Control {
        code: CONTROL_END,
        p1: 0,
        p2: 0,
    });
    for r in &mut m.regions {
        let RegionBody::Primitive(p) = &mut r.body else {
            continue;
        };
        for t in &mut p.types {
            if let TypeData::Sequences(seqs) = &mut t.data {
                let mut s = seqs[0].clone();
                s.start = start;
                seqs.push(s);
                t.count += 1;
            }
        }
    }
    let out = hmd::write(&m).unwrap();
    let back = hmd::read(&out).unwrap();
    assert_eq!(sequences(&back).len(), 4);
    assert_eq!(sequences(&back)[3].start, start);
    let SectionData::SequenceControl(ds) = sections(&back, SectionRole::SequenceControl)[0].1
    else {
        panic!()
    };
    assert_eq!(ds.len(), start as usize + 2);
    // The parameter section moved but kept every key frame.
    let SectionData::Parameters(items) = sections(&back, SectionRole::Parameters)[0].1 else {
        panic!()
    };
    assert_eq!(items, &before_frames);
    assert!(
        hmd::validate(&back)
            .iter()
            .all(|i| i.severity != Severity::Error),
        "{:?}",
        hmd::validate(&back)
    );
    // Writing the re-read model gives the same bytes again.
    assert!(hmd::write(&back).unwrap() == out);
}

#[test]
fn moving_a_vertex_changes_only_that_vertex() {
    let Some((data, mut m)) = corpus("TUTO/PYRAMID/JOINT.HMD") else {
        return;
    };
    let (at, _) = sections(&m, SectionRole::Vertex)[0];
    let SectionData::Vectors { vectors, .. } = &mut m.section_at_mut(at).unwrap().data else {
        panic!()
    };
    vectors[1].v = [-151, 152, -153];
    let out = hmd::write(&m).unwrap();
    let diff: Vec<usize> = (0..data.len()).filter(|&i| out[i] != data[i]).collect();
    let v = (at as usize + 2) * 4;
    assert!(
        !diff.is_empty() && diff.iter().all(|&i| (v..v + 6).contains(&i)),
        "{diff:?}"
    );
}

#[test]
fn ufo_animation_view_walks_from_a_sequence_to_its_key_frames() {
    let Some((_, m)) = corpus("ANIM/UFO/UFO.HMD") else {
        return;
    };
    let anims = m.animations();
    assert_eq!(anims.len(), 1);
    let a = &anims[0];
    assert_eq!(a.sequences.len(), 3);
    assert_eq!(
        a.sections[4],
        m.regions
            .iter()
            .find(|r| matches!(r.body, RegionBody::Coordinates(_)))
            .map(|r| r.offset)
    );
    // Ufo starts at descriptor 1: LinearKey0, linear translation.
    let (ty, kf) = a.key_frame(a.sequences[1].start as usize).unwrap();
    assert_eq!(
        ty,
        InterpolationType::Coordinate {
            rot_order: 0,
            scale: 0,
            rotation: 0,
            translation: 1
        }
    );
    assert_eq!(
        kf,
        &KeyFrame::Coordinate {
            translation: [0, -147, 424].into_iter().collect(),
            rotation: Default::default(),
            scale: Default::default(),
            pad: 0
        }
    );
    // Every key-frame descriptor of the file resolves.
    for (i, d) in a.descriptors.iter().enumerate() {
        if matches!(d, SequenceDescriptor::KeyFrame { .. }) {
            assert!(a.key_frame(i).is_some(), "descriptor {i}");
        }
    }
}

#[test]
fn switch_joint_mime_differences_match_switch_lab() {
    let Some((_, m)) = corpus("COMB/WALKRUN/SWITCH.HMD") else {
        return;
    };
    let diffs = sections(&m, SectionRole::MimeDiff);
    let joints: Vec<&JointDiff> = diffs
        .iter()
        .filter_map(|(_, d)| match d {
            SectionData::MimeDiff(items) => Some(items),
            _ => None,
        })
        .flatten()
        .filter_map(|i| match i {
            MimeDiffItem::Joint(j) => Some(j),
            _ => None,
        })
        .collect();
    assert_eq!(joints.len(), 6, "AxesMIMeDiff_0000..0005");
    assert_eq!((joints[0].coord_id, joints[0].dflags), (1, 1));
    assert_eq!(joints[0].differences[0].rotation, [800, 0, 0]);
    assert_eq!(joints[0].differences[0].dtp, 1);
    assert_eq!((joints[1].coord_id, joints[1].dflags), (2, 2));
    assert_eq!(joints[1].differences[0].rotation, [-1024, 0, 0]);
    assert!(matches!(joints[0].reset, JointReset::Axes(_)));
    let kinds: Vec<(MimeKind, bool)> = m
        .primitives()
        .flat_map(|(_, p)| &p.types)
        .filter_map(|t| MimeKind::from_code(t.type_code).filter(|_| t.kind().category() == 4))
        .collect();
    assert!(
        kinds.contains(&(MimeKind::JointAxes, false))
            && kinds.contains(&(MimeKind::JointAxes, true))
    );
}

#[test]
fn twinp_vertex_mime_differences_match_puyo_lab() {
    let Some((_, m)) = corpus("MIME/TWINP/TWINP.HMD") else {
        return;
    };
    let items: Vec<MimeDiffItem> = sections(&m, SectionRole::MimeDiff)
        .into_iter()
        .filter_map(|(_, d)| match d {
            SectionData::MimeDiff(items) => Some(items.clone()),
            _ => None,
        })
        .flatten()
        .collect();
    assert!(
        items.iter().all(|i| !matches!(i, MimeDiffItem::Raw(_))),
        "every DIFF block typed"
    );
    // VertMIMeDiff_0000: onum 1, four keys (dflags 0xf), 136 deltas each, diff[0] (-220, -124, -220).
    let v = items
        .iter()
        .find_map(|i| match i {
            MimeDiffItem::Vertex(v) => Some(v),
            _ => None,
        })
        .unwrap();
    assert_eq!((v.dflags, v.keys.len(), v.reset_offsets.len()), (0xf, 4, 1));
    assert_eq!(v.keys[0].deltas.len(), 136);
    assert_eq!(v.keys[0].deltas[0].v, [-220, -124, -220]);
    // RstVertMIMeDiff_0000: one record, vstart 0, ostart 0, vnum 136.
    let r = items
        .iter()
        .find_map(|i| match i {
            MimeDiffItem::VertexReset(r) => Some(r),
            _ => None,
        })
        .unwrap();
    assert_eq!(
        r.records,
        vec![VertexReset {
            vstart: 0,
            ostart: 0,
            changed: 0,
            vnum: 136
        }]
    );
    // The reset offset names the reset record's `changed` word.
    assert_eq!(v.reset_offsets[0], r.index + 3);
}

#[test]
fn ground_grids_of_both_ground_types_decode() {
    let Some((_, m)) = corpus("BASIC/GROUND.HMD") else {
        return;
    };
    let SectionData::GroundPolygon(g) = sections(&m, SectionRole::GroundPolygon)[0].1 else {
        panic!()
    };
    assert_eq!(
        (g.origin, g.cell, g.counts),
        ([-300, -300], [100, 100], [7, 7])
    );
    assert_eq!(g.rows.len(), 6);
    assert!(g.rows.iter().all(|r| r.grids == 6));
    let SectionData::Grid(items) = sections(&m, SectionRole::GroundGrid)[0].1 else {
        panic!()
    };
    let kinds: Vec<(Option<u32>, usize)> = items.iter().map(|i| (i.index(), i.words())).collect();
    // The textured primitive's 36 one-word entries at 0, the flat one's 36 two-word entries at 36.
    assert_eq!(kinds, vec![(Some(0), 36), (Some(36), 72)]);
    let SectionData::GroundUv(uv) = sections(&m, SectionRole::GroundUv)[0].1 else {
        panic!()
    };
    assert_eq!(
        uv,
        &vec![UvGroup {
            uv: [[0, 0], [0, 63], [63, 0], [63, 63]],
            cba: 0x7800,
            tsb: 0x000a
        }]
    );
}
