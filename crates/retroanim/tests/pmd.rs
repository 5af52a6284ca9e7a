//! PMD: every corpus file read, validated and written back byte for byte; hand-built files of
//! each of the 16 packet structures (Filefrmt pp. 2-38..2-39) built from the manual's tables,
//! not from our writer; damaged files named by offset; PMD ↔ TMD and PMD → glTF.

mod common;

use retroanim::formats::pmd::{self, Kind, Vertices};
use retroanim::formats::tmd::{self, PrimitiveData};
use retroanim::{Format, Severity};

fn le(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// libgpu.h's POLY_* sizes in words, tag included, by (quad, gouraud, textured).
fn gpu_words(quad: bool, gouraud: bool, textured: bool) -> usize {
    match (gouraud, textured, quad) {
        (false, false, false) => 5, // POLY_F3
        (false, true, false) => 8,  // POLY_FT3
        (true, false, false) => 7,  // POLY_G3
        (true, true, false) => 10,  // POLY_GT3
        (false, false, true) => 6,  // POLY_F4
        (false, true, true) => 10,  // POLY_FT4
        (true, false, true) => 9,   // POLY_G4
        (true, true, true) => 13,   // POLY_GT4
    }
}

/// A POLY_* as libgpu lays it out: tag, then per vertex colour (first always, others when
/// Gouraud) `[r g b code]`, XY, UV `[u v clut|tpage|pad]` when textured.
fn gpu(quad: bool, gouraud: bool, textured: bool) -> Vec<u32> {
    let n = if quad { 4 } else { 3 };
    let code = 0x20 | (quad as u32) << 3 | (textured as u32) << 2 | (gouraud as u32) << 4;
    let mut w = vec![((gpu_words(quad, gouraud, textured) - 1) as u32) << 24];
    for i in 0..n {
        if i == 0 || gouraud {
            let c = 0x10 * (i as u32 + 1);
            w.push(c | (c + 1) << 8 | (c + 2) << 16 | if i == 0 { code << 24 } else { 0 });
        }
        w.push(0); // XY, filled by libgs
        if textured {
            let extra = [0x7FC0u32, 0x0085, 0, 0][i];
            w.push((i as u32 * 16) | (i as u32 * 8) << 8 | extra << 16);
        }
    }
    assert_eq!(w.len(), gpu_words(quad, gouraud, textured));
    w
}

/// A one-object, one-group, one-packet PMD of TYPE `t` (bits 0..3), built word by word.
fn one_packet(t: u32) -> Vec<u8> {
    let (quad, gouraud, textured, shared) = (t & 1 != 0, t & 2 != 0, t & 4 == 0, t & 8 != 0);
    let n = if quad { 4 } else { 3 };
    let prim_point = 16 + 8;
    let prim = gpu(quad, gouraud, textured);
    let group_bytes = 4 + 8 * prim.len() + n * if shared { 4 } else { 8 };
    let vert_point = if shared { prim_point + group_bytes } else { 0 };
    let mut w = vec![
        0x42,
        prim_point as u32,
        vert_point as u32,
        1,
        1,
        prim_point as u32,
    ];
    w.push(t << 16 | 1);
    w.extend(&prim);
    w.extend(&prim);
    let corner = |i: usize| [100 * i as i16, -50 * i as i16, 7 * i as i16];
    if shared {
        // vp: byte offsets of vertices n-1 .. 0 (reversed, so the order is checked).
        w.extend((0..n).map(|i| ((n - 1 - i) * 8) as u32));
        for i in 0..n {
            let [x, y, z] = corner(n - 1 - i);
            w.push(x as u16 as u32 | (y as u16 as u32) << 16);
            w.push(z as u16 as u32);
        }
    } else {
        for i in 0..n {
            let [x, y, z] = corner(i);
            w.push(x as u16 as u32 | (y as u16 as u32) << 16);
            w.push(z as u16 as u32);
        }
    }
    le(&w)
}

#[test]
fn every_corpus_pmd_reads_validates_and_writes_back_exactly() {
    let files = common::corpus_files("PMD");
    for (name, path) in &files {
        let bytes = std::fs::read(path).unwrap();
        assert_eq!(retroanim::detect(&bytes), Some(Format::Pmd), "{name}");
        let p = pmd::read(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        let errors: Vec<_> = pmd::validate(&p)
            .into_iter()
            .filter(|i| i.severity >= Severity::Warning)
            .collect();
        assert!(errors.is_empty(), "{name}: {errors:?}");
        assert_eq!(pmd::write(&p).unwrap(), bytes, "{name}");
        assert!(p.groups.iter().all(|g| !g.packets.is_empty()), "{name}");
    }
}

/// A polygon corner: position, colour and UV.
type Corner = ([i16; 3], [u8; 3], [u8; 2]);

/// Each corner of each polygon, by object.
fn corners(t: &tmd::Tmd) -> Vec<Vec<Vec<Corner>>> {
    t.objects
        .iter()
        .map(|o| {
            o.primitives
                .iter()
                .map(|p| {
                    let PrimitiveData::Polygon(poly) = &p.data else {
                        panic!("not a polygon")
                    };
                    (0..poly.vertices.len())
                        .map(|i| {
                            let v = o.vertices[poly.vertices[i] as usize];
                            let c = poly
                                .colors
                                .get(i)
                                .or(poly.colors.first())
                                .copied()
                                .unwrap_or_default();
                            let uv = poly.uvs.get(i).map_or([0; 2], |u| [u.u, u.v]);
                            ([v.x, v.y, v.z], [c.r, c.g, c.b], uv)
                        })
                        .collect()
                })
                .collect()
        })
        .collect()
}

#[test]
fn shared_and_independent_samples_are_the_same_model() {
    // Sony's PMD sample ships one model twice: SHARE.PMD (TMD2PMD -s) and NOSHARE.PMD.
    let (Some(s), Some(n)) = (
        common::corpus_file("PMD", "3.6/PSX/SAMPLE/GRAPHICS/PMD/SHARE.PMD"),
        common::corpus_file("PMD", "3.6/PSX/SAMPLE/GRAPHICS/PMD/NOSHARE.PMD"),
    ) else {
        return;
    };
    let s = pmd::read(&std::fs::read(s).unwrap()).unwrap();
    let n = pmd::read(&std::fs::read(n).unwrap()).unwrap();
    assert!(s.groups.iter().all(|g| g.kind.shared));
    assert!(n.groups.iter().all(|g| !g.kind.shared));
    let (ts, notes_s) = pmd::to_tmd(&s).unwrap();
    let (tn, notes_n) = pmd::to_tmd(&n).unwrap();
    assert!(
        notes_s.is_empty() && notes_n.is_empty(),
        "{notes_s:?} {notes_n:?}"
    );
    assert_eq!(ts.objects.len(), 8);
    assert_eq!(corners(&ts), corners(&tn));
    // The shared model's objects keep only the vertices they use.
    assert!(ts.objects.iter().map(|o| o.vertices.len()).sum::<usize>() <= s.vertices.len() * 8);
    assert!(tmd::validate(&ts)
        .iter()
        .all(|i| i.severity != Severity::Error));
    // And back: TMD → PMD (independent, as TMD2PMD's default) holds NOSHARE's packets, object
    // by object, group by group.
    let (back, notes) = pmd::from_tmd(&ts, &Default::default()).unwrap();
    assert!(notes.is_empty(), "{notes:?}");
    for (a, b) in back.objects.iter().zip(&n.objects) {
        let ga: Vec<_> = a.groups.iter().map(|&g| &back.groups[g]).collect();
        let gb: Vec<_> = b.groups.iter().map(|&g| &n.groups[g]).collect();
        for (x, y) in ga.iter().zip(&gb) {
            assert_eq!(x.kind, y.kind);
            assert_eq!(x.type_bits, y.type_bits);
            assert_eq!(x.packets, y.packets);
        }
    }
    // Shared: the same packets as SHARE.PMD where the vertex offsets name the same vertices.
    let opts = pmd::FromTmdOptions {
        shared: true,
        ..Default::default()
    };
    let (shared, _) = pmd::from_tmd(&ts, &opts).unwrap();
    let (again, _) = pmd::to_tmd(&shared).unwrap();
    assert_eq!(corners(&again), corners(&ts));
}

#[test]
fn a_tmd_made_pmd_keeps_the_tmds_triangles() {
    for suffix in ["GRAPHICS/PMD/DINO.TMD", "GRAPHICS/PMD/EARTH.TMD"] {
        let Some(path) = common::corpus_file("TMD", &format!("3.6/PSX/SAMPLE/{suffix}")) else {
            return;
        };
        let t = tmd::read(&std::fs::read(path).unwrap()).unwrap();
        let (p, notes) = pmd::from_tmd(&t, &Default::default()).unwrap();
        // DINO and EARTH are lit: their normals have no place in a PMD, and a note says so.
        assert!(
            notes.iter().any(|(c, _)| *c == "normals-dropped"),
            "{notes:?}"
        );
        let bytes = pmd::write(&p).unwrap();
        assert_eq!(pmd::read(&bytes).unwrap(), p);
        assert!(pmd::validate(&p)
            .iter()
            .all(|i| i.severity == Severity::Info));
        let (back, _) = pmd::to_tmd(&p).unwrap();
        let pos = |t: &tmd::Tmd| -> Vec<Vec<[i16; 3]>> {
            corners(t)
                .into_iter()
                .flatten()
                .map(|poly| poly.into_iter().map(|c| c.0).collect())
                .collect()
        };
        let mut a = pos(&t);
        let mut b = pos(&back);
        // The PMD groups polygons by kind: compare as sets.
        a.sort();
        b.sort();
        assert_eq!(a, b, "{suffix}");
    }
}

#[test]
fn hand_built_files_of_every_packet_structure_read_as_the_manual_says() {
    for t in 0..16u32 {
        let bytes = one_packet(t);
        assert_eq!(retroanim::detect(&bytes), Some(Format::Pmd), "TYPE {t:x}");
        let p = pmd::read(&bytes).unwrap_or_else(|e| panic!("TYPE {t:x}: {e}"));
        assert_eq!(pmd::write(&p).unwrap(), bytes, "TYPE {t:x}");
        assert!(
            pmd::validate(&p)
                .iter()
                .all(|i| i.severity == Severity::Info),
            "TYPE {t:x}: {:?}",
            pmd::validate(&p)
        );
        let g = &p.groups[0];
        let kind = Kind::from_type(t as u16);
        assert_eq!(g.kind, kind);
        assert_eq!(
            matches!(g.packets[0].vertices, Vertices::Shared(_)),
            t & 8 != 0
        );
        let (tm, _) = pmd::to_tmd(&p).unwrap();
        let o = &tm.objects[0];
        let prim = &o.primitives[0];
        let PrimitiveData::Polygon(poly) = &prim.data else {
            panic!("TYPE {t:x}: not a polygon")
        };
        let n = if t & 1 != 0 { 4 } else { 3 };
        assert_eq!(poly.vertices.len(), n);
        assert_eq!(
            prim.mode & 0x1F,
            (gpu(t & 1 != 0, t & 2 != 0, t & 4 == 0)[1] >> 24) as u8 & 0x1F
        );
        // Corner i sits at (100 i, -50 i, 7 i), shared or not.
        for (i, &v) in poly.vertices.iter().enumerate() {
            let v = o.vertices[v as usize];
            assert_eq!(
                [v.x, v.y, v.z],
                [100 * i as i16, -50 * i as i16, 7 * i as i16],
                "TYPE {t:x}"
            );
        }
        // Colours: vertex i's is 0x10 (i+1) + (0, 1, 2) when Gouraud, vertex 0's when flat.
        let want = |i: usize| {
            let c = 0x10 * (i as u8 + 1);
            [c, c + 1, c + 2]
        };
        for (i, c) in poly.colors.iter().enumerate() {
            assert_eq!([c.r, c.g, c.b], want(i), "TYPE {t:x}");
        }
        assert_eq!(poly.colors.len(), if t & 2 != 0 { n } else { 1 });
        if t & 4 == 0 {
            assert_eq!(poly.cba(), Some(0x7FC0));
            assert_eq!(poly.tsb(), Some(0x0085));
            assert_eq!((poly.uvs[2].u, poly.uvs[2].v), (32, 16));
        } else {
            assert!(poly.uvs.is_empty());
        }
    }
}

#[test]
fn a_bare_group_reads_as_walk_ships_it() {
    // TYPE/NPACKET, then packets: TYPE in WALK's own numbering (0x0001 for independent G3).
    let prim = gpu(false, true, false);
    let mut w = vec![1 << 16 | 2];
    for _ in 0..2 {
        w.extend(&prim);
        w.extend(&prim);
        w.extend([0x0002_0001, 3, 0x0005_0004, 6, 0x0008_0007, 9]);
    }
    let bytes = le(&w);
    assert_eq!(retroanim::detect(&bytes), Some(Format::Pmd));
    let p = pmd::read(&bytes).unwrap();
    assert!(p.header.is_none());
    assert_eq!(p.groups[0].kind, Kind::from_gpu_code(0x30, false).unwrap());
    assert_eq!(p.groups[0].type_bits, 1);
    assert_eq!(pmd::write(&p).unwrap(), bytes);
    let (t, _) = pmd::to_tmd(&p).unwrap();
    assert_eq!(t.objects[0].vertices[2].z, 9);
}

fn malformed_offset(bytes: &[u8]) -> (u64, String) {
    match pmd::read(bytes) {
        Err(e @ retroanim::Error::Malformed { offset, .. }) => (offset, e.to_string()),
        other => panic!("expected a malformed error, got {other:?}"),
    }
}

#[test]
fn damaged_files_are_refused_naming_the_offset() {
    // A POINTER into the middle of a group.
    let mut b = one_packet(0);
    b[20..24].copy_from_slice(&28u32.to_le_bytes());
    let (at, msg) = malformed_offset(&b);
    assert_eq!(at, 20, "{msg}");
    assert!(msg.contains("POINTER"), "{msg}");
    // NPACKET past the end of the file: the count field is blamed.
    let mut b = one_packet(5);
    b[24..26].copy_from_slice(&1000u16.to_le_bytes());
    let (at, msg) = malformed_offset(&b);
    assert_eq!(at, 24, "{msg}");
    assert!(msg.contains("NPACKET"), "{msg}");
    // PRIM POINT inside the object table.
    let mut b = one_packet(0);
    b[4..8].copy_from_slice(&8u32.to_le_bytes());
    let (at, msg) = malformed_offset(&b);
    assert_eq!(at, 4, "{msg}");
    // VERT POINT past the end.
    let mut b = one_packet(8);
    b[8..12].copy_from_slice(&0x10000u32.to_le_bytes());
    let (at, _) = malformed_offset(&b);
    assert_eq!(at, 8);
    // Cut short anywhere: an error, never a panic.
    let b = one_packet(11);
    for cut in 0..b.len() {
        assert!(pmd::read(&b[..cut]).is_err() || cut >= 4 && pmd::read(&b[..cut]).is_ok());
    }
}

#[test]
fn validation_names_what_libgs_would_misdraw() {
    // A shared vertex offset past the VERTEX group: an error at the vp field (TYPE 0x0c:
    // POLY_F3, 5 words, shared).
    let mut b = one_packet(12);
    let vp_at = 28 + 8 * 5;
    b[vp_at..vp_at + 4].copy_from_slice(&0x100u32.to_le_bytes());
    let p = pmd::read(&b).unwrap();
    let issues = pmd::validate(&p);
    let e = issues
        .iter()
        .find(|i| i.code == "vertex-offset")
        .expect("vertex-offset");
    assert_eq!((e.severity, e.offset), (Severity::Error, vp_at as u64));
    // A GPU code that is not the group's primitive.
    let mut b = one_packet(0);
    b[28 + 7] = 0x30;
    let p = pmd::read(&b).unwrap();
    let e = pmd::validate(&p)
        .into_iter()
        .find(|i| i.code == "gpu-code")
        .expect("gpu-code");
    assert_eq!(e.offset, 28 + 7);
}

#[test]
fn pmd_to_gltf_passes_the_khronos_validator() {
    let Some(path) = common::corpus_file("PMD", "3.6/PSX/SAMPLE/GRAPHICS/PMD/SHARE.PMD") else {
        return;
    };
    let data = std::fs::read(path).unwrap();
    let out =
        retroanim::convert::convert_bytes(&data, None, Format::Glb, &Default::default()).unwrap();
    // The textured groups have no TIM: said in a note, never silently.
    assert!(
        out.notes.iter().any(|n| n.message.contains("no TIM")),
        "{:?}",
        out.notes
    );
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("share.glb");
    std::fs::write(&f, &out.bytes).unwrap();
    common::assert_khronos_clean(&f);
    // A lit file's note: a hand-built file with TYPE bit 20.
    let mut b = one_packet(4);
    b[26] |= 0x10;
    let out =
        retroanim::convert::convert_bytes(&b, None, Format::Tmd, &Default::default()).unwrap();
    assert!(
        out.notes.iter().any(|n| n.code == "lighting-dropped"),
        "{:?}",
        out.notes
    );
}
