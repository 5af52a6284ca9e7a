//! TMD: hand-built files with every primitive layout of the manual's table (lines, sprites and
//! most unlit/gradation variants occur in no corpus file), byte layouts checked against the
//! table, meshes checked, and hostile input.

use proptest::prelude::*;
use retroanim::formats::tmd::{self, *};

fn rgb(r: u8, g: u8, b: u8, x: u8) -> Rgbx {
    Rgbx { r, g, b, x }
}

fn uv(u: u8, v: u8, extra: u16) -> Uv {
    Uv { u, v, extra }
}

/// A polygon primitive filled to the layout its mode and flag select.
fn polygon(mode_byte: u8, flag_byte: u8, olen: u8) -> Primitive {
    let l = PolygonLayout::of(mode_byte, flag_byte);
    let n = l.vertices as u16;
    Primitive {
        olen,
        flag: flag_byte,
        mode: mode_byte,
        data: PrimitiveData::Polygon(Polygon {
            colors: (0..l.colors as u8)
                .map(|k| rgb(10 + k, 20 + k, 30 + k, if k == 0 { mode_byte } else { 0 }))
                .collect(),
            uvs: (0..l.uvs as u8)
                .map(|k| uv(k * 16, k * 8, [0x7FC0, 0x0085, 0, 0][k as usize]))
                .collect(),
            normals: (0..l.normals as u16).collect(),
            vertices: (0..n).collect(),
            pad: 0,
        }),
    }
}

/// The manual's table: (mode, flag, ilen, olen) for every polygon layout.
const TABLE: [(u8, u8, usize, u8); 20] = [
    (0x20, 0x00, 3, 4),
    (0x30, 0x00, 4, 6),
    (0x20, 0x04, 5, 6),
    (0x30, 0x04, 6, 6),
    (0x24, 0x00, 5, 7),
    (0x34, 0x00, 6, 9),
    (0x28, 0x00, 4, 5),
    (0x38, 0x00, 5, 8),
    (0x28, 0x04, 7, 8),
    (0x38, 0x04, 8, 8),
    (0x2c, 0x00, 7, 9),
    (0x3c, 0x00, 8, 12),
    (0x21, 0x01, 3, 4),
    (0x31, 0x01, 5, 6),
    (0x25, 0x01, 6, 7),
    (0x35, 0x01, 8, 9),
    (0x29, 0x01, 3, 5),
    (0x39, 0x01, 6, 8),
    (0x2d, 0x01, 7, 9),
    (0x3d, 0x01, 10, 12),
];

fn model(primitives: Vec<Primitive>) -> Tmd {
    let v = |x, y, z| SVector { x, y, z, pad: 0 };
    let mut t = Tmd {
        flags: 0,
        address_base: 0,
        objects: vec![Object {
            vert_top: 0,
            normal_top: 0,
            primitive_top: 0,
            scale: 0,
            vertices: vec![v(0, 0, 0), v(100, 0, 0), v(0, 100, 0), v(100, 100, 0)],
            normals: vec![v(0, 0, -4096); 4],
            primitives,
        }],
        gaps: vec![],
    };
    t.pack();
    t
}

#[test]
fn every_polygon_layout_has_the_manuals_length_and_round_trips() {
    let prims: Vec<Primitive> = TABLE
        .iter()
        .map(|&(m, f, ilen, olen)| {
            let p = polygon(m, f, olen);
            assert_eq!(p.ilen(), ilen, "mode {m:02x} flag {f:02x}");
            p
        })
        .collect();
    let t = model(prims);
    let bytes = tmd::write(&t).unwrap();
    let back = tmd::read(&bytes).unwrap();
    assert_eq!(back, t);
    assert!(
        tmd::validate(&back).is_empty(),
        "{:?}",
        tmd::validate(&back)
    );
    // Triangles: 10 triangle packets, 10 quads → 30.
    assert_eq!(back.meshes()[0].triangles.len(), 30);
}

#[test]
fn packet_bytes_match_the_table() {
    // lit F3: [r g b m] [n0 v0] [v1 v2]
    let t = model(vec![polygon(0x20, 0, 4)]);
    let b = tmd::write(&t).unwrap();
    let p = 12 + 28;
    assert_eq!(
        &b[p..p + 16],
        &[4, 3, 0, 0x20, 10, 20, 30, 0x20, 0, 0, 0, 0, 1, 0, 2, 0]
    );
    // lit F4: [r g b m] [n0 v0] [v1 v2] [v3 -]
    let b = tmd::write(&model(vec![polygon(0x28, 0, 5)])).unwrap();
    assert_eq!(&b[p + 8..p + 20], &[0, 0, 0, 0, 1, 0, 2, 0, 3, 0, 0, 0]);
    // unlit FT3: 3 uv words, [r g b -], [v0 v1] [v2 -]
    let b = tmd::write(&model(vec![polygon(0x25, 1, 7)])).unwrap();
    assert_eq!(&b[p + 4..p + 8], &[0, 0, 0xC0, 0x7F], "u0 v0 CBA");
    assert_eq!(&b[p + 8..p + 12], &[16, 8, 0x85, 0x00], "u1 v1 TSB");
    assert_eq!(&b[p + 16..p + 20], &[10, 20, 30, 0x25]);
    assert_eq!(&b[p + 20..p + 28], &[0, 0, 1, 0, 2, 0, 0, 0]);
    // lit G3: [r g b m] [n0 v0] [n1 v1] [n2 v2]
    let b = tmd::write(&model(vec![polygon(0x30, 0, 6)])).unwrap();
    assert_eq!(&b[p + 8..p + 20], &[0, 0, 0, 0, 1, 0, 1, 0, 2, 0, 2, 0]);
}

#[test]
fn lines_and_sprites_round_trip() {
    let prims = vec![
        Primitive {
            olen: 3,
            flag: 1,
            mode: 0x40,
            data: PrimitiveData::Line(Line {
                colors: [rgb(1, 2, 3, 0x40)].into_iter().collect(),
                vertices: [0, 1],
            }),
        },
        Primitive {
            olen: 4,
            flag: 1,
            mode: 0x50,
            data: PrimitiveData::Line(Line {
                colors: [rgb(1, 2, 3, 0x50), rgb(4, 5, 6, 0)].into(),
                vertices: [2, 3],
            }),
        },
        Primitive {
            olen: 5,
            flag: 1,
            mode: 0x64,
            data: PrimitiveData::Sprite(Sprite {
                vertex: 1,
                tsb: 0x0085,
                uv: uv(8, 16, 0x7FC0),
                size: Some([32, 48]),
            }),
        },
        Primitive {
            olen: 4,
            flag: 1,
            mode: 0x7c,
            data: PrimitiveData::Sprite(Sprite {
                vertex: 2,
                tsb: 0,
                uv: uv(0, 0, 0),
                size: None,
            }),
        },
    ];
    let t = model(prims);
    let bytes = tmd::write(&t).unwrap();
    let p = 12 + 28;
    assert_eq!(
        &bytes[p..p + 12],
        &[3, 2, 1, 0x40, 1, 2, 3, 0x40, 0, 0, 1, 0]
    );
    let back = tmd::read(&bytes).unwrap();
    assert_eq!(back, t);
    let mesh = &back.meshes()[0];
    assert_eq!((mesh.triangles.len(), mesh.skipped), (0, 4));
}

#[test]
fn quads_split_in_gpu_order_with_colours_uvs_and_texture() {
    let t = model(vec![polygon(0x3d, 1, 12)]);
    let m = &t.meshes()[0];
    let tri: Vec<Vec<u16>> = m
        .triangles
        .iter()
        .map(|t| t.corners.iter().map(|c| c.vertex).collect())
        .collect();
    assert_eq!(tri, [vec![0, 1, 2], vec![1, 3, 2]]);
    let c = &m.triangles[1].corners[1];
    assert_eq!(c.position, [100, 100, 0]);
    assert_eq!(c.color, Some([13, 23, 33]));
    assert_eq!(c.uv, Some([48, 24]));
    assert_eq!(c.normal, None);
    assert_eq!(m.triangles[0].texture, Some([0x0085, 0x7FC0]));
    assert!(!m.triangles[0].lit);
    assert_eq!(Tsb::from_bits(0x0085).tpf, 1);
    assert_eq!(cba_position(0x7FC0), (0, 511));
}

#[test]
fn wrong_ilen_is_kept_raw_and_reported() {
    let t = model(vec![polygon(0x20, 0, 4)]);
    let mut bytes = tmd::write(&t).unwrap();
    let p = 12 + 28;
    bytes[p + 1] = 2; // ilen 2 instead of 3; the last word becomes part of the vertices
    let back = tmd::read(&bytes).unwrap();
    assert!(matches!(
        back.objects[0].primitives[0].data,
        PrimitiveData::Raw { .. }
    ));
    assert_eq!(tmd::write(&back).unwrap(), bytes);
    let issues = tmd::validate(&back);
    assert!(issues
        .iter()
        .any(|i| i.code == "primitive-length" && i.offset == p as u64 + 1));
}

#[test]
fn fixp_files_read_with_their_address_base() {
    let mut t = model(vec![polygon(0x20, 0, 4)]);
    t.flags = 1;
    t.address_base = 0x800C_0010;
    t.pack();
    assert_eq!(t.objects[0].primitive_top, 0x800C_0010 + 28);
    let bytes = tmd::write(&t).unwrap();
    assert_eq!(tmd::read(&bytes).unwrap(), t);
}

#[test]
fn hostile_inputs_fail_with_offsets() {
    let t = model(TABLE.iter().map(|&(m, f, _, o)| polygon(m, f, o)).collect());
    let bytes = tmd::write(&t).unwrap();
    for n in 0..bytes.len() {
        match tmd::read(&bytes[..n]) {
            Err(e) => assert!(e.offset().is_some_and(|o| o <= n as u64), "{n}: {e}"),
            Ok(m) => panic!("{n} bytes read as {} objects", m.objects.len()),
        }
    }
    let mut huge = bytes.clone();
    huge[8..12].copy_from_slice(&0x0100_0000u32.to_le_bytes());
    assert_eq!(tmd::read(&huge).unwrap_err().offset(), Some(8));
    let mut far = bytes.clone();
    far[12..16].copy_from_slice(&0x7FFF_FFF0u32.to_le_bytes());
    assert_eq!(tmd::read(&far).unwrap_err().offset(), Some(12));
    let mut many = bytes;
    many[16..20].copy_from_slice(&0x0100_0000u32.to_le_bytes());
    assert_eq!(tmd::read(&many).unwrap_err().offset(), Some(16));
}

#[test]
fn unexplained_holes_are_refused_by_the_writer() {
    let mut t = model(vec![polygon(0x20, 0, 4)]);
    t.objects[0].vert_top += 64;
    assert!(matches!(
        tmd::write(&t),
        Err(retroanim::Error::Unencodable { .. })
    ));
}

fn arb_primitive() -> impl Strategy<Value = Primitive> {
    (0usize..TABLE.len(), any::<u8>(), any::<u8>(), any::<bool>()).prop_map(|(k, a, b, fce)| {
        let (m, f, _, o) = TABLE[k];
        let mut p = polygon(m, f | if fce { 2 } else { 0 }, o);
        if let PrimitiveData::Polygon(poly) = &mut p.data {
            for c in &mut poly.colors {
                c.r = a;
                c.b = b;
            }
            for v in &mut poly.vertices {
                *v = (*v + a as u16) % 4;
            }
        }
        p
    })
}

proptest! {
    #[test]
    fn model_pack_write_read_is_identity(
        prims in prop::collection::vec(arb_primitive(), 0..12),
        more in prop::collection::vec(arb_primitive(), 0..5),
        scale in -3i32..3,
    ) {
        let mut t = model(prims);
        let mut second = t.objects[0].clone();
        second.primitives = more;
        second.scale = scale;
        t.objects.push(second);
        t.pack();
        let bytes = tmd::write(&t).unwrap();
        prop_assert_eq!(tmd::read(&bytes).unwrap(), t);
    }

    #[test]
    fn arbitrary_bytes_never_panic_and_reread_exactly(
        mut data in prop::collection::vec(any::<u8>(), 12..300),
        n in 0u32..4,
    ) {
        data[..4].copy_from_slice(&0x41u32.to_le_bytes());
        data[8..12].copy_from_slice(&n.to_le_bytes());
        if let Ok(t) = tmd::read(&data) {
            prop_assert_eq!(tmd::write(&t).unwrap(), data);
            let _ = t.meshes();
            let _ = tmd::validate(&t);
            let _ = t.summary();
        }
    }
}
