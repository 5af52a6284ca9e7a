//! HMD files built by hand from the spec (a tiny labp-like assembler below), covering what no
//! corpus file uses: every listed polygon type, preset packets, TGT = 1 key frames, the short and
//! one-parameter key-frame layouts, FIX camera, every light, images with CLUT, ground, MIMe,
//! user-defined and unknown types.

mod common;

use retroanim::formats::hmd::{self, *};
use retroanim::{detect, Format, Severity};

use common::hmd_asm::{assemble, cs, h, It, It::*};

fn coord_unit(parent: Option<&'static str>) -> Vec<It> {
    let mut v = vec![W(0)];
    // matrix: identity, pad, translation (10, 20, 30)
    v.extend([
        W(h(4096, 0)),
        W(h(0, 0)),
        W(h(4096, 0)),
        W(h(0, 0)),
        W(h(4096, 0)),
    ]);
    v.extend([W(10), W(20), W(30)]);
    v.extend((0..8).map(|_| W(0)));
    v.extend([W(h(0, 1024)), W(h(0, 0))]);
    v.push(match parent {
        Some(p) => Ptr(p),
        None => W(0),
    });
    v
}

/// Packet words for a polygon type: distinctive values, vertex and normal indices small.
fn packet(n: usize, seed: u32) -> Vec<It> {
    (0..n as u32)
        .map(|i| W(((seed + i) % 7) | (((seed + i) % 5) << 16)))
        .collect()
}

const POLY_TYPES: [(u32, usize); 40] = [
    (0x08, 3),
    (0x0c, 4),
    (0x0a, 5),
    (0x0e, 6),
    (0x09, 5),
    (0x0d, 6),
    (0x0b, 8),
    (0x0f, 9),
    (0x10, 4),
    (0x14, 5),
    (0x12, 7),
    (0x16, 8),
    (0x11, 6),
    (0x15, 7),
    (0x13, 10),
    (0x17, 11),
    (0x0004_0048, 3),
    (0x0004_004c, 5),
    (0x0004_0049, 5),
    (0x0004_004d, 7),
    (0x0004_0050, 3),
    (0x0004_0054, 6),
    (0x0004_0051, 6),
    (0x0004_0055, 9),
    (0x209, 6),
    (0x20d, 7),
    (0x20b, 9),
    (0x20f, 10),
    (0x211, 7),
    (0x215, 8),
    (0x213, 11),
    (0x217, 12),
    (0x0004_0249, 6),
    (0x0004_024d, 8),
    (0x0004_0251, 7),
    (0x0004_0255, 10),
    // Division parameter and driver bits do not change the packet.
    (0x0011_0008, 3),
    (0x0002_0014, 5),
    (0x0020_0011, 6),
    (0x0080_000c, 4),
];

/// A file with one coordinate, every polygon type, a preset packet, a strip, an animation with
/// TGT 0 and TGT 1 key frames, devices, an image, ground, MIMe and odd types.
fn everything() -> Vec<u8> {
    let mut v = vec![
        W(0x50),
        W(0),
        Ptr("phs"),
        W(3),
        Ptr("pre"),
        Ptr("poly"),
        Ptr("post"),
        Label("coords"),
        W(1),
        Label("coord0"),
    ];
    v.extend(coord_unit(None));
    v.extend([
        Label("phs"),
        W(7),
        Label("h_poly"),
        W(4),
        M("polys"),
        M("verts"),
        M("norms"),
        M("coords"),
        Label("h_anim"),
        W(6),
        W(6),
        M("interp"),
        M("ctrl"),
        M("params"),
        M("coords"),
        M("weights"),
        Label("h_cam"),
        W(3),
        M("devparams"),
        M("coord0"),
        M("coord0"),
        Label("h_img"),
        W(2),
        M("pixels"),
        M("clut"),
        Label("h_ground"),
        W(5),
        M("gpoly"),
        M("ggrid"),
        M("gvert"),
        M("norms"),
        M("guv"),
        Label("h_mime"),
        W(5),
        M("coords"),
        W(0),
        W(1),
        W(0),
        M("mdiff"),
        Label("h_user"),
        W(1),
        W(0x1234),
    ]);
    // PRE-PROCESS: animation, devices, image, ground, MIMe, user and unknown types.
    v.extend([
        Label("pre"),
        Ptr("pre_dev"),
        Ptr("h_anim"),
        W(0x8000_0001),
        W(0x0380_0000),
        cs(1 + 7 + 7 + 1, 2),
        // sequence pointer 0: coordinate 0, one extra sequence
        W(0x0400_0001),
        W(h(8, 2)),
        W(h(0xFFFF, 0)),
        W(0xFFFF_1000),
        W(0),
        W(0),
        W(h(1, 0)),
        W(h(7, 3)),
        // sequence pointer 1: general update of the MIMe weights (section 5)
        W(0x0500_0000),
        W(h(7, 1)),
        W(h(0xFFFF, 0xFFFF)),
        W(0xFFFF_1000),
        W(0),
        W(0),
        W(h(9, 0)),
        Label("pre_dev"),
        Ptr("pre_img"),
        Ptr("h_cam"),
        W(0x8000_0006),
        W(0x0702_0100), // FIX camera
        cs(1, 0),
        W(0x0700_0100), // projection
        cs(1, 0),
        W(0x0700_0200), // ambient light 0, parameters at 8
        cs(2, 1),
        W(h(0, 8)),
        W(0x0701_0200), // WORLD light 1 at 9
        cs(2, 1),
        W(h(1, 9)),
        W(0x0702_0200), // FIX light 2 at 16
        cs(2, 1),
        W(h(2, 16)),
        W(0x0703_0200), // AIM light 0 at 23
        cs(2, 1),
        W(h(0, 23)),
        Label("pre_img"),
        Ptr("pre_ground"),
        Ptr("h_img"),
        W(0x8000_0002),
        W(0x0200_0001),
        cs(7, 1),
        W(h(640, 0)),
        W(h(4, 2)),
        W(0),
        W(h(0, 480)),
        W(h(16, 1)),
        W(0),
        W(0x0200_0000),
        cs(4, 1),
        W(h(700, 0)),
        W(h(2, 1)),
        W(2),
        Label("pre_ground"),
        Ptr("pre_mime"),
        Ptr("h_ground"),
        W(0x8000_0001),
        W(0x0500_0001),
        cs(4, 0),
        W(0),
        W(0),
        W(0),
        Label("pre_mime"),
        Ptr("pre_user"),
        Ptr("h_mime"),
        W(0x8000_0001),
        W(0x0401_0010),
        cs(2, 1),
        W(0),
        Label("pre_user"),
        W(0xFFFF_FFFF),
        Ptr("h_user"),
        W(0x8000_0002),
        W(0xF000_0042),
        cs(3, 1),
        W(0xDEAD_BEEF),
        W(0xCAFE_F00D),
        W(0x0900_0000),
        cs(2, 1),
        W(7),
    ]);
    // Block 1: every polygon type, then a preset packet and a strip.
    v.extend([
        Label("poly"),
        W(0xFFFF_FFFF),
        Ptr("h_poly"),
        W(0x8000_0000 | (POLY_TYPES.len() as u32 + 2)),
    ]);
    let mut at = 0u32;
    for (code, n) in POLY_TYPES {
        v.extend([
            W(code),
            cs(2, 1),
            W(at | if code == 0x0011_0008 { 0x0300_0000 } else { 0 }),
        ]);
        at += n as u32;
    }
    let preset_at = at;
    v.extend([W(0x0004_0148), cs(2, 1), W(preset_at)]);
    let strip_at = preset_at + 12;
    v.extend([W(0x0000_001c), cs(2, 1), W(strip_at)]);
    // POST-PROCESS: empty chain terminator primitive.
    v.extend([Label("post"), W(0xFFFF_FFFF), Ptr("h_poly"), W(0x8000_0000)]);
    // Sections.
    v.push(Label("polys"));
    for (i, (code, n)) in POLY_TYPES.iter().enumerate() {
        let mut p = packet(*n, i as u32);
        if code & 0x200 != 0 {
            // window word: TUM 1, TVM 2, TUA 3, TVA 4
            p[0] = W(0xE200_0000 | 1 | 2 << 5 | 3 << 10 | 4 << 15);
        }
        v.extend(p);
    }
    // A preset flat triangle (p. 2-82): twice [DMA tag, colour, 3 screen XY], then indices.
    for copy in 0..2u32 {
        v.extend([
            W(0x0400_0000 + copy),
            W(0x2000_00FF),
            W(h(10, 20)),
            W(h(30, 40)),
            W(h(50, 60)),
        ]);
    }
    v.extend([W(h(1, 2)), W(h(3, 0))]);
    // A Gouraud strip of 2 triangles: [num 0], first triangle, one extra group.
    v.extend([
        W(h(2, 0)),
        W(0x3000_00FF),
        W(h(0, 1)),
        W(h(1, 2)),
        W(h(2, 3)),
        W(0x3000_FF00),
        W(h(1, 2)),
        W(h(3, 4)),
    ]);
    v.push(Label("verts"));
    for i in 0..6u16 {
        v.extend([W(h(i, i + 100)), W(h(i + 200, 0))]);
    }
    v.push(Label("norms"));
    for _ in 0..5 {
        v.extend([W(h(0, 4096)), W(0)]);
    }
    v.extend([
        Label("interp"),
        W(0x8000_0005),
        W(0x0300_0001), // T linear
        W(0x0300_191a), // T bezier16, R linear, S one-parameter linear, order XZY
        W(0x0301_0171), // TGT 1 linear, mask 0b0111, 16-bit
        W(0x0301_0222), // TGT 1 bezier, mask 0b0010, 8-bit
        W(0x0300_0003), // T B-spline
        Label("ctrl"),
        W(0x0005_0000),                     // 0: key frame type 0, 5 frames, param 0
        W(0x0103_0003),                     // 1: type 1, 3 frames, param 3
        W(0x8000_0000 | 2 << 23 | 1 << 16), // 2: jump to 0 if sid 1, set sid 2
        W(0xC000_0000 | 1 << 23),           // 3: END
        W(0xC000_0000 | 2 << 23 | 19),      // 4: WORK at 19
        W(0x0400_0017),                     // 5: type 4, 0 frames, param 23
        W(0x0000_001a),                     // 6: type 0, 0 frames, param 26
        W(0x8000_000d),                     // 7: jump to 13, outside the 10 descriptors
        W(0x020a_0011),                     // 8: type 2 (general 16-bit x3), param 17
        W(0x030a_001d),                     // 9: type 3 (general bezier 8-bit), param 29
        Label("params"),
        W(1),
        W(2u32.wrapping_neg()),
        W(3),
    ]);
    // param 3: 0x0300911a: 9 t halfwords, 3 r halfwords, 1 scale, pad = 14 halfwords = 7 words
    for i in 0..7u16 {
        v.push(W(h(i * 2, i * 2 + 1)));
    }
    // params 10..16: filler the descriptors do not name
    v.extend((0..7).map(|i| W(0xAAAA_0000 + i)));
    // param 17: general 16-bit, 3 values -> [p0 p1] [p2 pad]
    v.extend([W(h(100, 0xFF9C)), W(h(300, 0))]);
    // param 19: WORK area
    v.extend([W(0), W(0), W(0), W(0)]);
    // param 23: B-spline translation
    v.extend([W(7), W(8), W(9)]);
    // param 26: linear translation
    v.extend([W(10), W(11), W(12)]);
    // param 29..: general bezier 8-bit, one unit: 3 bytes + pad
    v.extend([W(0x00_FE_02_01)]);
    v.extend([
        Label("weights"),
        W(0),
        W(0),
        Label("devparams"),
        // camera: proj, rot, position, reference
        W(300),
        W(0),
        W(1),
        W(2),
        W(3),
        W(4),
        W(5),
        W(6),
        // ambient at 8
        W(0x0010_2030),
        // WORLD light at 9
        W(0x00FF_0000),
        W(0),
        W(0),
        W(0),
        W(100),
        W(200),
        W(300),
        // FIX light at 16
        W(0x0000_FF00),
        W(1),
        W(1),
        W(1),
        W(0),
        W(0),
        W(0),
        // AIM light at 23
        W(0x0000_00FF),
        W(5),
        W(5),
        W(5),
        W(6),
        W(6),
        W(6),
        Label("pixels"),
        W(0x7FFF_0000),
        W(0x0001_0002),
        W(0x1111_2222),
        Label("clut"),
        W(0x0000_7C00),
        W(0x03E0_001F),
        Label("gpoly"),
        W(h(0, 0)),
        W(h(64, 64)),
        W(h(1, 1)),
        W(h(1, 0)),
        W(h(0, 1)),
        Label("ggrid"),
        W(h(0, 0)),
        Label("gvert"),
        W(h(0, 0)),
        Label("guv"),
        W(0),
        W(0),
        W(0),
        Label("mdiff"),
        W(h(0, 1)),
        W(1),
        W(0),
        W(0),
        W(0),
        W(0),
        W(0),
        W(0),
        W(0),
        W(0),
        W(0),
        W(0),
    ]);
    assemble(&v)
}

fn read_everything() -> (Vec<u8>, Hmd) {
    let data = everything();
    assert_eq!(detect(&data), Some(Format::Hmd));
    let m = hmd::read(&data).expect("the hand-built file reads");
    assert_eq!(hmd::write(&m).unwrap(), data, "hand-built file round-trips");
    (data, m)
}

fn section(m: &Hmd, role: SectionRole) -> &SectionData {
    m.regions
        .iter()
        .find_map(|r| match &r.body {
            RegionBody::Section(s) if s.role == role => Some(&s.data),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no {role:?} section"))
}

#[test]
fn every_polygon_type_decodes_into_packets() {
    let (_, m) = read_everything();
    let SectionData::Polygons(items) = section(&m, SectionRole::Polygon) else {
        panic!("polygon section not decoded")
    };
    let runs: Vec<&PacketRun> = items
        .iter()
        .filter_map(|i| match i {
            PolygonItem::Packets(r) => Some(r),
            _ => None,
        })
        .collect();
    assert_eq!(
        runs.len(),
        POLY_TYPES.len() + 1,
        "one run per listed type and the preset"
    );
    for (run, (code, _)) in runs.iter().zip(POLY_TYPES) {
        assert_eq!(run.primitive_type(), code as u16);
        let p = run.get(0).unwrap();
        let quad = code & 0x10 != 0;
        assert_eq!(
            p.vertices.len(),
            if quad { 4 } else { 3 },
            "type 0x{code:x}"
        );
        let lit = code & 0x40 == 0;
        let gouraud = code & 4 != 0;
        let normals = match (lit, gouraud) {
            (false, _) => 0,
            (true, false) => 1,
            (true, true) if quad => 4,
            (true, true) => 3,
        };
        assert_eq!(p.normals.len(), normals, "type 0x{code:x}");
        if code & 0x200 != 0 {
            let w = p.window.expect("tiled packets carry a window word");
            assert_eq!(
                (w & 31, (w >> 5) & 31, (w >> 10) & 31, (w >> 15) & 31),
                (1, 2, 3, 4)
            );
        }
    }
    // The preset packet: both GPU packets and the indices.
    let preset = items
        .iter()
        .find_map(|i| match i {
            PolygonItem::Packets(r) if r.primitive_type() == 0x148 => r.get(0),
            _ => None,
        })
        .expect("the preset packet is typed");
    assert_eq!(preset.tags.to_vec(), vec![0x0400_0000, 0x0400_0001]);
    assert_eq!(
        preset.screen.to_vec(),
        [[10, 20], [30, 40], [50, 60]].repeat(2)
    );
    assert_eq!(preset.colors.to_vec(), vec![[0xFF, 0, 0, 0x20]; 2]);
    assert_eq!(preset.vertices.to_vec(), vec![1, 2, 3]);
    let strip = items
        .iter()
        .find_map(|i| match i {
            PolygonItem::Strips(s) => Some(s),
            _ => None,
        })
        .expect("the strip is typed");
    let strips: Vec<_> = strip.strips().collect();
    assert_eq!(strips[0].extra.len(), 1);
    assert_eq!(strips[0].extra[0].vertices.to_vec(), vec![4]);
    assert_eq!(strips[0].extra[0].normals.to_vec(), vec![1, 2, 3]);
    // The division parameter of the DIV primitive.
    let divs: Vec<u8> = m
        .primitives()
        .flat_map(|(_, p)| &p.types)
        .filter_map(|t| match t.data {
            TypeData::PolygonIndex { division, .. } if division != 0 => Some(division),
            _ => None,
        })
        .collect();
    assert_eq!(divs, vec![3]);
}

#[test]
fn animation_key_frames_of_both_targets_decode() {
    let (_, m) = read_everything();
    let SectionData::InterpolationTable {
        types, unscanned, ..
    } = section(&m, SectionRole::InterpolationTable)
    else {
        panic!()
    };
    assert!(unscanned);
    assert_eq!(
        InterpolationType::from_code(types[1]),
        InterpolationType::Coordinate {
            rot_order: 1,
            scale: 9,
            rotation: 1,
            translation: 0xa
        }
    );
    assert_eq!(
        InterpolationType::from_code(types[2]),
        InterpolationType::General {
            algorithm: 1,
            write_mask: 7,
            length: 1
        }
    );
    let SectionData::SequenceControl(ds) = section(&m, SectionRole::SequenceControl) else {
        panic!()
    };
    assert_eq!(
        ds[0],
        SequenceDescriptor::KeyFrame {
            type_idx: 0,
            tframe: 5,
            param_idx: 0
        }
    );
    assert_eq!(
        ds[2],
        SequenceDescriptor::Jump {
            sid_dst: 2,
            sid_cnd: 1,
            seq_idx: 0
        }
    );
    assert_eq!(
        ds[3],
        SequenceDescriptor::Control {
            code: CONTROL_END,
            p1: 0,
            p2: 0
        }
    );
    assert_eq!(
        ds[4],
        SequenceDescriptor::Control {
            code: CONTROL_WORK,
            p1: 0,
            p2: 19
        }
    );
    let SectionData::Parameters(items) = section(&m, SectionRole::Parameters) else {
        panic!()
    };
    let (code, kf) = key_frame_at(items, 0).unwrap();
    assert_eq!(code, 0x0300_0001);
    assert_eq!(
        kf,
        &KeyFrame::Coordinate {
            translation: [1, -2, 3].into_iter().collect(),
            rotation: Default::default(),
            scale: Default::default(),
            pad: 0
        }
    );
    // Bezier short translation: 9 halfwords, then 3 rotation, 1 scale, 1 pad.
    let (_, kf) = key_frame_at(items, 3).unwrap();
    assert_eq!(
        kf,
        &KeyFrame::Coordinate {
            translation: (0..9).collect(),
            rotation: [9, 10, 11].into_iter().collect(),
            scale: [12].into_iter().collect(),
            pad: 13
        }
    );
    let (_, kf) = key_frame_at(items, 17).unwrap();
    assert_eq!(
        kf,
        &KeyFrame::General {
            values: [100, -100, 300].into_iter().collect(),
            pad: [0, 0].into_iter().collect()
        }
    );
    assert!(items
        .iter()
        .any(|i| matches!(i, ParameterItem::Work { index: 19, .. })));
    let (_, kf) = key_frame_at(items, 23).unwrap();
    assert_eq!(
        kf,
        &KeyFrame::Coordinate {
            translation: [7, 8, 9].into_iter().collect(),
            rotation: Default::default(),
            scale: Default::default(),
            pad: 0
        }
    );
    // Sequence pointers: the extra sequence and the general-purpose target.
    let seqs: Vec<&SequencePointer> = m
        .primitives()
        .flat_map(|(_, p)| &p.types)
        .filter_map(|t| match &t.data {
            TypeData::Sequences(s) => Some(s),
            _ => None,
        })
        .flatten()
        .collect();
    assert_eq!(seqs.len(), 2);
    assert_eq!(seqs[0].update.coordinate(), Some(0));
    assert_eq!(seqs[0].num, 2);
    assert_eq!(
        seqs[0].extra,
        vec![ExtraSequence {
            start: 7,
            sid: 3,
            pad: 0
        }]
    );
    assert_eq!(seqs[0].speed, 0x10);
    assert_eq!(seqs[1].update.section, 5);
    assert_eq!(seqs[1].aframe, 0xFFFF);
}

#[test]
fn cameras_and_lights_decode() {
    let (_, m) = read_everything();
    let SectionData::Devices(items) = section(&m, SectionRole::DeviceParameters) else {
        panic!()
    };
    assert_eq!(
        items[0],
        DeviceItem::Camera(CameraParameters {
            projection: 300,
            rot: 0,
            position: [1, 2, 3],
            reference: [4, 5, 6]
        })
    );
    assert_eq!(
        items[1],
        DeviceItem::Ambient {
            index: 8,
            color: [0x30, 0x20, 0x10, 0]
        }
    );
    assert_eq!(
        items[2],
        DeviceItem::Light {
            index: 9,
            color: [0, 0, 0xFF, 0],
            position: [0, 0, 0],
            reference: [100, 200, 300]
        }
    );
    assert!(matches!(
        items[4],
        DeviceItem::Light {
            index: 23,
            position: [5, 5, 5],
            ..
        }
    ));
    let kinds: Vec<DeviceKind> = m
        .primitives()
        .flat_map(|(_, p)| &p.types)
        .filter_map(|t| DeviceKind::from_code(t.type_code))
        .collect();
    assert_eq!(
        kinds,
        vec![
            DeviceKind::FixCamera,
            DeviceKind::Projection,
            DeviceKind::Ambient,
            DeviceKind::WorldLight,
            DeviceKind::FixLight,
            DeviceKind::AimLight
        ]
    );
}

#[test]
fn images_ground_mime_and_odd_types() {
    let (_, m) = read_everything();
    let all: Vec<&DataSection> = m.primitives().flat_map(|(_, p)| &p.types).collect();
    let images: Vec<&ImageEntry> = all
        .iter()
        .filter_map(|t| match &t.data {
            TypeData::Images(v) => Some(v),
            _ => None,
        })
        .flatten()
        .collect();
    assert_eq!(images.len(), 2);
    assert_eq!(images[0].image.xywh, [640, 0, 4, 2]);
    assert_eq!(images[0].clut.unwrap().xywh, [0, 480, 16, 1]);
    assert_eq!(images[1].clut, None);
    assert!(all
        .iter()
        .any(|t| t.type_code == 0x0500_0001
            && matches!(&t.data, TypeData::Offsets(v) if v.len() == 3)));
    assert!(all
        .iter()
        .any(|t| t.type_code == 0x0401_0010
            && matches!(&t.data, TypeData::Offsets(v) if v.len() == 1)));
    for role in [
        SectionRole::GroundPolygon,
        SectionRole::GroundGrid,
        SectionRole::Image,
        SectionRole::Clut,
        SectionRole::MimeDiff,
    ] {
        section(&m, role);
    }
    assert_eq!(
        section(&m, SectionRole::Image),
        &SectionData::Vram(vec![0, 0x7FFF, 2, 1, 0x2222, 0x1111])
    );
    assert_eq!(
        section(&m, SectionRole::Clut),
        &SectionData::Vram(vec![0x7C00, 0, 0x001F, 0x03E0])
    );
    let SectionData::GroundPolygon(g) = section(&m, SectionRole::GroundPolygon) else {
        panic!("ground polygon section typed")
    };
    assert_eq!((g.origin, g.cell, g.counts), ([0, 0], [64, 64], [1, 1]));
    assert_eq!(
        section(&m, SectionRole::GroundGrid),
        &SectionData::Grid(vec![GridItem::Entries {
            index: 0,
            entries: vec![GridEntry::Textured { normal: 0, uv: 0 }]
        }])
    );
    assert_eq!(
        g.rows,
        vec![GroundRow {
            vertex_start: 0,
            grids: 1
        }]
    );
    assert!(
        matches!(section(&m, SectionRole::GroundVertex), SectionData::Heights { heights } if heights == &vec![0, 0])
    );
    let issues = hmd::validate(&m);
    let codes: Vec<(&str, Severity)> = issues
        .iter()
        .map(|i| (i.code.as_str(), i.severity))
        .collect();
    assert!(codes.contains(&("user-type", Severity::Info)), "{codes:?}");
    assert!(
        codes.contains(&("unknown-type", Severity::Warning)),
        "{codes:?}"
    );
    // Descriptor 7 jumps to 13, past the 10 descriptors.
    assert!(
        issues
            .iter()
            .any(|i| i.code == "jump-range" && i.message.contains("descriptor 7")),
        "{issues:?}"
    );
    let summary = m.summary();
    assert_eq!(summary.blocks, 3);
    assert_eq!(summary.coordinates, 1);
    assert_eq!(summary.images, 2);
    assert_eq!(summary.sequences, 2);
    assert_eq!(summary.vertices, 6);
    assert_eq!(
        summary.primitive_types_by_category["0"],
        POLY_TYPES.len() + 2
    );
    assert_eq!(summary.primitive_types_by_category["7"], 6);
}

#[test]
fn a_grown_section_moves_everything_after_it_and_every_pointer_follows() {
    let (data, mut m) = read_everything();
    let verts_at = m
        .regions
        .iter()
        .find(|r| matches!(&r.body, RegionBody::Section(s) if s.role == SectionRole::Vertex))
        .unwrap()
        .offset;
    let SectionData::Vectors { vectors, .. } = &mut m.section_at_mut(verts_at).unwrap().data else {
        panic!()
    };
    vectors.push(SVector {
        v: [-1, -2, -3],
        pad: 0,
    });
    let out = hmd::write(&m).unwrap();
    assert_eq!(out.len(), data.len() + 8);
    let back = hmd::read(&out).unwrap();
    // Everything before the vertex section is untouched except pointers past it.
    let before = verts_at as usize * 4;
    let moved = |at: u32| if at > verts_at { at + 2 } else { at };
    assert_eq!(
        back.blocks,
        m.blocks.iter().map(|&b| moved(b)).collect::<Vec<_>>()
    );
    assert_eq!(back.regions.len(), m.regions.len());
    for (a, b) in m.regions.iter().zip(&back.regions) {
        assert_eq!(moved(a.offset), b.offset);
    }
    let SectionData::Vectors { vectors, .. } = &back.section_at(verts_at).unwrap().data else {
        panic!()
    };
    assert_eq!(vectors.len(), 7);
    assert_eq!(vectors[6].v, [-1, -2, -3]);
    // The normal section after it kept its contents and is still pointed to.
    let h = back.headers();
    let poly_header = h.values().find(|h| h.words.len() == 4).unwrap();
    assert_eq!(
        poly_header.words[2],
        HeaderEntry::Pointer(moved(verts_at + 12))
    );
    // The file up to the primitive header section (whose pointers move) is unchanged, and
    // every section and gap kept its contents.
    let phs = m.primitive_header_section as usize * 4;
    assert!(
        out[12..phs] == data[12..phs],
        "header and coordinates unchanged"
    );
    assert!(before > phs);
    for (a, b) in m.regions.iter().zip(&back.regions) {
        if matches!(a.body, RegionBody::Section(_) | RegionBody::Gap(_)) {
            assert_eq!(a.body, b.body, "region read at {}", a.offset);
        }
    }
    assert!(hmd::validate(&back).iter().all(|i| i.code != "pointer"));
}

#[test]
fn two_regions_claiming_one_offset_are_refused_by_the_writer() {
    let (_, mut m) = read_everything();
    let last = m.regions.len() - 1;
    m.regions[last].offset = m.regions[1].offset;
    match hmd::write(&m) {
        Err(retroanim::Error::Unencodable { what, .. }) => {
            assert!(
                what.contains(&format!("two regions have offset {}", m.regions[1].offset)),
                "{what}"
            )
        }
        other => panic!("expected Unencodable, got {other:?}"),
    }
}

fn malformed_offset(data: &[u8]) -> u64 {
    match hmd::read(data) {
        Err(retroanim::Error::Malformed { offset, .. }) => offset,
        other => panic!("expected Malformed, got {other:?}"),
    }
}

fn set_word(data: &mut [u8], word: usize, v: u32) {
    data[word * 4..word * 4 + 4].copy_from_slice(&v.to_le_bytes());
}

#[test]
fn each_malformed_case_names_its_offset() {
    let good = everything();
    let mut d = good.clone();
    set_word(&mut d, 0, 0x51);
    assert_eq!(malformed_offset(&d), 0, "version");
    let mut d = good.clone();
    set_word(&mut d, 3, 100_000);
    assert_eq!(malformed_offset(&d), 12, "block count past the end");
    let mut d = good.clone();
    set_word(&mut d, 2, 1 << 20);
    assert_eq!(malformed_offset(&d), 8, "primitive header section outside");
    let mut d = good.clone();
    set_word(&mut d, 5, 1 << 20);
    assert_eq!(malformed_offset(&d), 20, "block pointer outside");
    // The first primitive of block 0: its first count/size word with size 0.
    let pre = u32::from_le_bytes(good[16..20].try_into().unwrap()) as usize;
    let mut d = good.clone();
    set_word(&mut d, pre + 4, 0x8002_0000);
    assert_eq!(malformed_offset(&d), (pre as u64 + 4) * 4, "size 0");
    // A block pointing into the coordinate section: the primitive overlaps it.
    let mut d = good.clone();
    set_word(&mut d, 4, 9);
    let e = hmd::read(&d).unwrap_err();
    assert!(e.offset().is_some(), "{e}");
    // A chain that loops back on itself reads (the loop is cut) and validate reports it.
    let mut d = good.clone();
    set_word(&mut d, pre, pre as u32);
    let m = hmd::read(&d).unwrap();
    assert!(hmd::validate(&m).iter().any(|i| i.code == "chain-loop"));
    assert_eq!(hmd::write(&m).unwrap(), d);
    // A type count far too large for the rest of the file.
    let mut d = good.clone();
    set_word(&mut d, pre + 2, 0x8FFF_FFFF);
    assert_eq!(malformed_offset(&d), (pre as u64 + 2) * 4, "type count");
    // A header count far too large.
    let phs = u32::from_le_bytes(good[8..12].try_into().unwrap()) as usize;
    let mut d = good.clone();
    set_word(&mut d, phs, u32::MAX);
    assert_eq!(malformed_offset(&d), phs as u64 * 4);
}

#[test]
fn truncations_and_bit_flips_never_panic_and_what_reads_writes_back() {
    let good = everything();
    for n in 0..good.len() {
        let d = &good[..n];
        match hmd::read(d) {
            Ok(m) => assert_eq!(hmd::write(&m).unwrap(), d, "truncated at {n}"),
            Err(e) => assert!(e.offset().is_none_or(|o| o <= n as u64), "{e}"),
        }
    }
    for bit in (0..good.len() * 8).step_by(3) {
        let mut d = good.clone();
        d[bit / 8] ^= 1 << (bit % 8);
        if let Ok(m) = hmd::read(&d) {
            let _ = hmd::validate(&m);
            let _ = m.summary();
            assert!(hmd::write(&m).unwrap() == d, "bit {bit}");
        }
    }
}

mod props {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        #[test]
        fn arbitrary_bytes_after_the_magic_never_panic(tail in proptest::collection::vec(any::<u8>(), 0..512)) {
            let mut d = vec![0x50, 0, 0, 0];
            d.extend(tail);
            if let Ok(m) = hmd::read(&d) {
                let _ = hmd::validate(&m);
                prop_assert!(hmd::write(&m).unwrap() == d);
            }
        }

        #[test]
        fn edited_values_write_and_read_back(
            verts in proptest::collection::vec(any::<[i16; 3]>(), 6),
            t in any::<[i32; 3]>(),
            color in any::<[u8; 4]>(),
            desc in (0u8..128, any::<u8>(), any::<u16>()),
        ) {
            let (_, mut m) = read_everything();
            for r in &mut m.regions {
                let RegionBody::Section(s) = &mut r.body else { continue };
                match (&s.role, &mut s.data) {
                    (SectionRole::Vertex, SectionData::Vectors { vectors, .. }) => {
                        for (v, n) in vectors.iter_mut().zip(&verts) {
                            v.v = *n;
                        }
                    }
                    (_, SectionData::Parameters(items)) => {
                        if let Some(ParameterItem::KeyFrame { frame: KeyFrame::Coordinate { translation, .. }, .. }) = items.first_mut() {
                            translation.copy_from_slice(&t);
                        }
                    }
                    (_, SectionData::Polygons(items)) => {
                        if let Some(PolygonItem::Packets(run)) = items.first_mut() {
                            let mut p = run.get(0).unwrap();
                            p.colors[0] = color;
                            run.set(0, &p).unwrap();
                        }
                    }
                    (_, SectionData::SequenceControl(ds)) => {
                        ds[2] = SequenceDescriptor::Jump { sid_dst: desc.0, sid_cnd: desc.1 & 0x7F, seq_idx: desc.2 };
                    }
                    _ => {}
                }
            }
            let out = hmd::write(&m).unwrap();
            let back = hmd::read(&out).unwrap();
            prop_assert_eq!(back, m);
        }
    }
}

/// A preset packet exports as a triangle at the vertices its indices name (its screen
/// coordinates are what the GPU drew once; the model is the vertex section): turning the preset
/// type into an unknown one (kept raw) takes exactly that triangle away.
#[test]
fn a_preset_packet_exports_as_its_triangle() {
    let (data, m) = read_everything();
    let options = SceneOptions::default();
    let positions = |m: &Hmd| -> Vec<[f32; 3]> {
        let scene = m.to_scene(&options).unwrap();
        scene
            .meshes
            .iter()
            .flat_map(|mesh| &mesh.primitives)
            .flat_map(|p| p.positions.clone())
            .collect()
    };
    let with = positions(&m);
    let at = data
        .chunks_exact(4)
        .position(|w| w == 0x0004_0148u32.to_le_bytes())
        .unwrap();
    let mut other = data.clone();
    set_word(&mut other, at, 0x0004_01c8); // an undefined preset bit pattern: kept raw
    let without = positions(&hmd::read(&other).unwrap());
    assert_eq!(with.len(), without.len() + 3, "the preset's triangle");
    // The preset's corners are inserted where its packet lies, the rest unchanged.
    let i = (0..without.len())
        .find(|&i| with[i] != without[i])
        .unwrap_or(without.len());
    assert_eq!(with[i + 3..], without[i..]);
    // Vertex k is (k, k + 100, k + 200); indices 1 2 3, corners in glTF's counter-clockwise
    // order (1 3 2); +Y up (y and z negated), 4096 units = 1 m.
    for (got, k) in with[i..i + 3].iter().zip([1.0f32, 3.0, 2.0]) {
        let want = [k, -(k + 100.0), -(k + 200.0)].map(|c| c / 4096.0);
        assert!(
            got.iter().zip(want).all(|(g, w)| (g - w).abs() < 1e-6),
            "corner {got:?}, want {want:?}"
        );
    }
}
