//! The files under `samples/` are made by the project itself: this test regenerates each one from
//! its script with the library's own writer and checks the committed copy is identical
//! (`UPDATE_SAMPLES=1` rewrites them).

mod common;

use common::samples::{check_sample, sine_4096};
use retroanim::formats::tod::{self, *};

/// A chain of four links hanging from a root, swinging about Z: frame 0 creates the links, gives
/// them a TMD ID, a parent and an absolute pose; later frames rotate each link; the last link
/// turns semi-transparent half-way and is killed on the final frame.
pub fn swinging_chain() -> Tod {
    const LINKS: u16 = 4;
    const FRAMES: u32 = 48;
    let mut frames = Vec::new();
    let mut first = Vec::new();
    for id in 1..=LINKS {
        first.push(Packet::new(
            id,
            PacketData::ObjectControl(ObjectControl::Create),
        ));
        first.push(Packet::new(id, PacketData::TmdId(IdValue::new(1))));
        if id > 1 {
            first.push(Packet::new(id, PacketData::Parent(IdValue::new(id - 1))));
        }
        first.push(Packet::new(
            id,
            PacketData::Coordinate(Coordinate {
                differential: false,
                rotation: Some([0, 0, 0]),
                scale: Some(Scale::ONE),
                // The PlayStation's Y points down: each link hangs 200 units below its parent.
                translation: Some([0, if id == 1 { 0 } else { 200 }, 0]),
            }),
        ));
    }
    frames.push(first);
    for f in 1..FRAMES {
        let mut packets = Vec::new();
        for id in 1..=LINKS {
            // 30 degrees at the root, less further down, each link a little late.
            let amplitude = 30 * 4096 / id as i64;
            let angle =
                amplitude * sine_4096(f as i64 * 4 - id as i64 * 3, FRAMES as i64 * 2) / 4096;
            packets.push(Packet::new(
                id,
                PacketData::Coordinate(Coordinate {
                    rotation: Some([0, 0, angle as i32]),
                    ..Coordinate::default()
                }),
            ));
        }
        if f == FRAMES / 2 {
            let a = Attribute::unchanged()
                .with(AttributeItem::SemiTransparency, 1)
                .with(AttributeItem::SemiTransparencyRate, 0);
            packets.push(Packet::new(LINKS, PacketData::Attribute(a)));
        }
        if f == FRAMES - 1 {
            packets.push(Packet::new(
                LINKS,
                PacketData::ObjectControl(ObjectControl::Kill),
            ));
        }
        frames.push(packets);
    }
    Tod {
        header: Header {
            version: 0,
            resolution: 2,
        },
        frames: frames
            .into_iter()
            .enumerate()
            .map(|(n, packets)| Frame {
                number: n as u32,
                packets,
                extra_words: Vec::new(),
                size_override: None,
            })
            .collect(),
        trailing: Vec::new(),
    }
}

#[test]
fn swing_tod_is_regenerated_identically() {
    let chain = swinging_chain();
    let issues = tod::validate(&chain);
    assert!(
        issues
            .iter()
            .all(|i| i.severity == retroanim::Severity::Info),
        "{issues:#?}"
    );
    let bytes = tod::write(&chain).unwrap();
    assert_eq!(tod::read(&bytes).unwrap(), chain);
    check_sample("swing.tod", &bytes);
}

#[test]
fn integer_sine_is_a_sine() {
    assert_eq!(sine_4096(0, 96), 0);
    assert_eq!(sine_4096(24, 96), 4096);
    assert_eq!(sine_4096(72, 96), -4096);
    assert!((sine_4096(8, 96) - 2048).abs() < 20, "sin 30° ~ 0.5");
}

/// The link the swinging chain animates (TMD ID 1 = object 0): a 40 × 200 × 40 box hanging
/// down from its origin (the PlayStation's +Y is down), six lit flat quads with their own
/// colours and normals, front faces clockwise as the console draws them.
pub fn chain_link() -> retroanim::formats::tmd::Tmd {
    use retroanim::formats::tmd::*;
    let v = |x: i16, y: i16, z: i16| SVector { x, y, z, pad: 0 };
    let corner = |i: usize| {
        v(
            if i & 1 != 0 { 20 } else { -20 },
            if i & 2 != 0 { 200 } else { 0 },
            if i & 4 != 0 { 20 } else { -20 },
        )
    };
    let vertices: Vec<SVector> = (0..8).map(corner).collect();
    // (axis, side): the face's four corners in Z order, and its outward normal.
    let faces = [(0, 1), (0, 0), (1, 1), (1, 0), (2, 1), (2, 0)];
    let colors = [
        (200, 60, 40),
        (160, 50, 30),
        (60, 200, 40),
        (50, 160, 30),
        (40, 60, 200),
        (30, 50, 160),
    ];
    let mut normals = Vec::new();
    let mut primitives = Vec::new();
    for (k, &(axis, side)) in faces.iter().enumerate() {
        let mut quad: Vec<u16> = (0..8u16)
            .filter(|&i| (i as usize >> axis) & 1 == side)
            .collect();
        let mut n = [0i16; 3];
        n[axis] = if side == 1 { 4096 } else { -4096 };
        normals.push(v(n[0], n[1], n[2]));
        // Clockwise front: (v1 - v0) × (v2 - v0) must point against the normal.
        let p = |i: u16| {
            let c = &vertices[i as usize];
            [c.x as i32, c.y as i32, c.z as i32]
        };
        let (a, b, c) = (p(quad[0]), p(quad[1]), p(quad[2]));
        let e1 = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
        let e2 = [c[0] - a[0], c[1] - a[1], c[2] - a[2]];
        let cross = [
            e1[1] * e2[2] - e1[2] * e2[1],
            e1[2] * e2[0] - e1[0] * e2[2],
            e1[0] * e2[1] - e1[1] * e2[0],
        ];
        if cross[axis] * n[axis] as i32 > 0 {
            quad.swap(1, 2);
        }
        let (r, g, b) = colors[k];
        primitives.push(Primitive {
            olen: 5,
            flag: 0,
            mode: 0x28,
            data: PrimitiveData::Polygon(Polygon {
                colors: [Rgbx { r, g, b, x: 0x28 }].into_iter().collect(),
                uvs: Default::default(),
                normals: [k as u16].into_iter().collect(),
                vertices: quad.into_iter().collect(),
                pad: 0,
            }),
        });
    }
    let mut model = Tmd {
        flags: 0,
        address_base: 0,
        objects: vec![Object {
            vert_top: 0,
            normal_top: 0,
            primitive_top: 0,
            scale: 0,
            vertices,
            normals,
            primitives,
        }],
        gaps: vec![],
    };
    model.pack();
    model
}

#[test]
fn link_tmd_is_regenerated_identically() {
    use retroanim::formats::tmd;
    let link = chain_link();
    assert!(
        tmd::validate(&link).is_empty(),
        "{:#?}",
        tmd::validate(&link)
    );
    let bytes = tmd::write(&link).unwrap();
    assert_eq!(tmd::read(&bytes).unwrap(), link);
    assert_eq!(link.meshes()[0].triangles.len(), 12);
    check_sample("link.tmd", &bytes);
}

/// A 16 × 16 4-bit texture with its CLUT: a checkerboard of two colours in 4 × 4 squares, a
/// transparent (colour 0x0000) one-pixel frame, and one semi-transparent (STP) square.
pub fn checker_tim() -> retroanim::formats::tim::Tim {
    use retroanim::formats::tim::{Block, Tim};
    let rgb = |r: u16, g: u16, b: u16| r | g << 5 | b << 10;
    let mut clut = vec![0u16; 16];
    clut[1] = rgb(31, 24, 4);
    clut[2] = rgb(4, 8, 24);
    clut[3] = rgb(31, 31, 31) | 0x8000;
    let index = |x: usize, y: usize| -> u16 {
        if x == 0 || y == 0 || x == 15 || y == 15 {
            0
        } else if (4..8).contains(&x) && (4..8).contains(&y) {
            3
        } else {
            1 + ((x / 4 + y / 4) % 2) as u16
        }
    };
    let mut data = Vec::new();
    for y in 0..16 {
        for x4 in 0..4 {
            let px = |k: usize| index(x4 * 4 + k, y) << (4 * k);
            data.push(px(0) | px(1) | px(2) | px(3));
        }
    }
    Tim {
        version: 0,
        id_reserved: 0,
        pmode: 0,
        flags_reserved: 0,
        clut: Some(Block {
            x: 0,
            y: 480,
            width: 16,
            height: 1,
            data: clut,
            extra: vec![],
        }),
        image: Block {
            x: 640,
            y: 0,
            width: 4,
            height: 16,
            data,
            extra: vec![],
        },
        trailing: vec![],
    }
}

#[test]
fn checker_tim_is_regenerated_identically() {
    use retroanim::formats::tim;
    let t = checker_tim();
    assert!(tim::validate(&t).is_empty(), "{:#?}", tim::validate(&t));
    let bytes = tim::write(&t).unwrap();
    assert_eq!(tim::read(&bytes).unwrap(), t);
    let img = t.to_rgba(&tim::DecodeOptions::default()).unwrap();
    assert_eq!((img.width, img.height), (16, 16));
    assert_eq!(img.pixels[..4], [0, 0, 0, 0], "the frame is transparent");
    check_sample("checker.tim", &bytes);
}
