//! Arma ODOL (v50, v73): the corpus files read to their LODs and frames, their counts agree with
//! the files' own redundant fields, frames added to them survive write → read and the point
//! cache round trip, and what is not understood is refused at the right byte.

mod common;

use retroanim::formats::p3d::{self, frames::NewFrame, scene, P3d};
use retroanim::{Error, Format};

fn file(suffix: &str) -> Option<Vec<u8>> {
    Some(std::fs::read(common::corpus_file("p3d-odol", suffix)?).unwrap())
}

fn u32_at(d: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(d[at..at + 4].try_into().unwrap())
}

fn odol(data: &[u8]) -> p3d::Odol {
    match p3d::read(data).unwrap() {
        P3d::Odol(o) => o,
        P3d::Mlod(_) => panic!("not an ODOL"),
    }
}

/// The address table of a corpus file, read straight from the bytes: start and end of each
/// LOD, and for non-permanent LODs the face count (and, from v51, vertex count) the loadable
/// LOD info repeats.
struct Table {
    starts: Vec<u32>,
    ends: Vec<u32>,
    loadable: Vec<Option<(u32, Option<u32>)>>,
}

fn table(d: &[u8], at: usize, n: usize, version: u32) -> Table {
    let starts = (0..n).map(|i| u32_at(d, at + 4 * i)).collect();
    let ends = (0..n).map(|i| u32_at(d, at + 4 * n + 4 * i)).collect();
    let mut info = at + 8 * n + n;
    let loadable = (0..n)
        .map(|i| {
            (d[at + 8 * n + i] == 0).then(|| {
                let faces = u32_at(d, info);
                let vertices = (version >= 51).then(|| u32_at(d, info + 17));
                info += if version >= 51 { 25 } else { 17 };
                (faces, vertices)
            })
        })
        .collect();
    Table {
        starts,
        ends,
        loadable,
    }
}

#[test]
fn alive_tablet_v50_reads_its_five_lods() {
    let Some(d) = file("m_tablet/tablet.p3d") else {
        return;
    };
    let o = odol(&d);
    assert_eq!(o.version, 50);
    assert_eq!(
        o.resolutions(),
        [0.0, 4.0, 10001.0, 1e13_f32, 11000.0],
        "resolutions"
    );
    // The model info and (absent) animations end at byte 262, where the table starts: the
    // first LOD (the geometry, 1e13, written first) starts right after it.
    let t = table(&d, 262, 5, 50);
    assert_eq!(
        t.starts,
        o.lod_starts().iter().map(|&s| s as u32).collect::<Vec<_>>()
    );
    assert_eq!(*t.starts.iter().min().unwrap(), 262 + 8 * 5 + 5 + 3 * 17);
    assert_eq!(*t.ends.iter().max().unwrap() as usize, d.len());
    let counts: Vec<_> = (0..5).map(|i| o.lod_counts(i).unwrap()).collect();
    for (i, c) in counts.iter().enumerate() {
        if let Some((faces, _)) = t.loadable[i] {
            assert_eq!(
                c.1, faces as usize,
                "LOD {i}: faces against the loadable LOD info"
            );
        }
        // The vertex table's position count is checked against this when reading.
        assert_eq!(o.lod_mesh(i).unwrap().positions.len(), c.0, "LOD {i}");
        assert!(o.lods[i].frames.is_empty());
    }
    assert_eq!(
        counts,
        [
            (6595, 5865),
            (2308, 2177),
            (852, 1136),
            (144, 284),
            (318, 284)
        ]
    );
    // LZO: LOD 0's 6595 positions (79,140 bytes) are a compressed array.
    let m = o.lod_mesh(0).unwrap();
    assert!(m.positions.iter().flatten().all(|c| c.abs() < 1.0));
    assert_eq!(m.textures.len(), 3);
}

#[test]
fn kam_v73_files_read_and_agree_with_their_loadable_lod_info() {
    for (suffix, faces, vertices) in [("AAT_Kit/AAT.p3d", 175, 216), ("iv/kat_iv.p3d", 592, 483)] {
        let Some(d) = file(suffix) else {
            return;
        };
        let o = odol(&d);
        assert_eq!(o.version, 73);
        assert_eq!(o.resolutions(), [1.0]);
        let t = table(&d, 302, 1, 73);
        assert_eq!(t.loadable[0], Some((faces, Some(vertices))), "{suffix}");
        assert_eq!(t.starts[0] as u64, o.lod_starts()[0]);
        assert_eq!(
            o.lod_counts(0),
            Some((vertices as usize, faces as usize)),
            "{suffix}"
        );
        // 36 bytes follow the last LOD; they are kept.
        assert_eq!(d.len() - t.ends[0] as usize, 36);
        assert_eq!(o.arma.as_ref().unwrap().trailing.0.len(), 36);
    }
}

#[test]
fn frames_added_to_arma_lods_survive_write_read_and_point_caches() {
    for suffix in ["m_tablet/tablet.p3d", "AAT_Kit/AAT.p3d"] {
        let Some(d) = file(suffix) else {
            return;
        };
        let mut model = p3d::read(&d).unwrap();
        let lod = model.lod_count() - 1;
        let width = model.frame_width(lod).unwrap();
        let frames: Vec<NewFrame> = (0..3)
            .map(|k| NewFrame {
                time: k as f32 * 0.5,
                positions: (0..width)
                    .map(|i| [i as f32, k as f32, -(i as f32) * 0.25])
                    .collect(),
            })
            .collect();
        model.set_frames(lod, frames.clone()).unwrap();
        let bytes = p3d::write(&model).unwrap();
        // The LOD grew by the frames; the reader walks the rewritten address table.
        assert_eq!(bytes.len(), d.len() + 3 * (8 + 12 * width));
        let back = p3d::read(&bytes).unwrap();
        assert_eq!(back, model, "{suffix}");
        let got = back.frames(lod);
        assert_eq!(got.len(), 3);
        assert_eq!(got[2].time, 1.0);
        assert_eq!(got[1].positions, &frames[1].positions[..]);
        let s = back.summary();
        assert_eq!(s.lods[lod].frames, 3);
        assert_eq!(s.lods[lod].frame_times, [0.0, 0.5, 1.0]);
        // Point cache out and back in restores the bytes.
        let cache =
            scene::to_point_cache(&back, lod, scene::CacheAxes::ObjectBuilder, 1.0).unwrap();
        let mut again = model.clone();
        again.set_frames(lod, Vec::new()).unwrap();
        assert_eq!(p3d::write(&again).unwrap(), d, "{suffix}: frames removed");
        scene::apply_point_cache(
            &mut again,
            lod,
            &cache,
            scene::CacheAxes::ObjectBuilder,
            1.0,
        )
        .unwrap();
        assert_eq!(p3d::write(&again).unwrap(), bytes, "{suffix}");
        // The LOD exports to glTF with the frames as morph targets.
        let sc = scene::to_scene(&back, lod, scene::SceneAxes::Gltf, 1.0).unwrap();
        assert!(sc.check().is_empty(), "{:?}", sc.check());
        assert!(sc.meshes[0].primitives.iter().all(|p| p.targets.len() == 3));
    }
}

#[test]
fn arma_lods_export_to_gltf_that_validates() {
    let Some(d) = file("iv/kat_iv.p3d") else {
        return;
    };
    let model = p3d::read(&d).unwrap();
    let s = scene::to_scene(&model, 0, scene::SceneAxes::Gltf, 1.0).unwrap();
    assert!(s.check().is_empty(), "{:?}", s.check());
    let tris: usize = s.meshes[0]
        .primitives
        .iter()
        .map(|p| p.indices.len() / 3)
        .sum();
    // 592 polygons, quads split in two.
    assert!(tris >= 592, "{tris}");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("kat_iv.glb");
    std::fs::write(&path, retroanim::export::gltf::write_glb(&s).unwrap()).unwrap();
    common::assert_khronos_clean(&path);
}

fn unsupported_at(data: &[u8]) -> (u64, String) {
    match p3d::read(data) {
        Err(Error::Unsupported {
            format: Format::P3d,
            offset,
            feature,
        }) => (offset, feature),
        other => panic!("expected Unsupported, got {other:?}"),
    }
}

#[test]
fn what_is_not_understood_is_refused_at_its_byte() {
    let Some(d) = file("AAT_Kit/AAT.p3d") else {
        return;
    };
    // Another Arma version: refused at the version field.
    let mut v = d.clone();
    v[4] = 72;
    let (at, what) = unsupported_at(&v);
    assert_eq!(at, 4);
    assert!(what.contains("ODOL version 72"), "{what}");
    // A compression method other than 0 (raw) or 2 (LZO): the positions' flag is at 4369.
    assert_eq!(d[4369], 2);
    let mut m = d.clone();
    m[4369] = 1;
    let (at, what) = unsupported_at(&m);
    assert_eq!(at, 4369);
    assert!(what.contains("compression method 1"), "{what}");
    // An address table that does not start the LOD where the header walk ends.
    let mut t = d.clone();
    t[302] += 1;
    let (at, what) = unsupported_at(&t);
    assert_eq!(at, 302);
    assert!(what.contains("address table"), "{what}");
    // The polygon size word (175 polygons, 3172 units) must match the polygons.
    let poly = d
        .windows(8)
        .position(|w| w == [0xaf, 0, 0, 0, 0x64, 0x0c, 0, 0])
        .unwrap();
    let mut p = d.clone();
    p[poly + 4] = 0x63;
    let (at, what) = unsupported_at(&p);
    assert_eq!(at as usize, poly + 4);
    assert!(what.contains("polygon data size 3171"), "{what}");
    // The section (faces 0..3172): a v67+ flag of 1 is where the sources disagree.
    let sec = d
        .windows(8)
        .position(|w| w == [0, 0, 0, 0, 0x64, 0x0c, 0, 0])
        .unwrap();
    let mut at = sec + 8 + 12 + 2 + 4;
    if u32_at(&d, at) == u32::MAX {
        at += 4 + d[at + 4..].iter().position(|&b| b == 0).unwrap() + 1;
    } else {
        at += 4;
    }
    at += 4 + 4 * u32_at(&d, at) as usize;
    assert_eq!(u32_at(&d, at), 0, "section flag");
    let mut f = d.clone();
    f[at] = 1;
    let (got, what) = unsupported_at(&f);
    assert_eq!(got as usize, at);
    assert!(what.contains("section flag 1"), "{what}");
    // The vertex-table size word (after the frame count and 13 bytes of colours and flags).
    let o = odol(&d);
    let size_at = o.lod_starts()[0] as usize + o.lods[0].geometry.0.len() + 4 + 13;
    let mut z = d.clone();
    z[size_at] ^= 4;
    let (got, what) = unsupported_at(&z);
    assert_eq!(got as usize, size_at);
    assert!(what.contains("vertex table declares"), "{what}");
    // A LOD end address short of where its walk ends.
    let mut e = d.clone();
    let end = u32_at(&d, 306) - 1;
    e[306..310].copy_from_slice(&end.to_le_bytes());
    assert!(p3d::read(&e).is_err());
}

#[test]
fn truncated_and_flipped_arma_files_never_panic() {
    for suffix in ["m_tablet/tablet.p3d", "AAT_Kit/AAT.p3d", "iv/kat_iv.p3d"] {
        let Some(d) = file(suffix) else {
            return;
        };
        // Bytes after the last LOD are kept as they are: a cut there still reads.
        let lods_end = odol(&d).arma.unwrap().trailing.0.len();
        let lods_end = d.len() - lods_end;
        let step = (d.len() / 211).max(1);
        for cut in (0..d.len()).step_by(step) {
            match p3d::read(&d[..cut]) {
                Err(e) => {
                    assert!(cut < lods_end, "{suffix} cut {cut}: {e}");
                    assert!(
                        e.offset().is_none_or(|o| o <= cut as u64),
                        "{suffix} cut {cut}: {e}"
                    );
                }
                Ok(m) => {
                    assert!(cut >= lods_end, "{suffix}: a cut at {cut} read");
                    assert_eq!(p3d::write(&m).unwrap(), &d[..cut]);
                }
            }
        }
        let mut rng = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..300 {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            let mut f = d.clone();
            let at = (rng % f.len() as u64) as usize;
            f[at] ^= 1 << (rng >> 32 & 7);
            if let Ok(m) = p3d::read(&f) {
                let _ = p3d::validate(&m);
                let _ = m.summary();
                assert_eq!(p3d::write(&m).unwrap(), f, "{suffix}: flip at {at}");
            }
        }
    }
}

/// The KAM v73 model with a skeleton and an animation block spliced into its model info (the
/// corpus has neither): the writer lays the address table out anew, and the reader must walk
/// the new structures exactly to find its LODs where the table says.
fn with_skeleton_and_animations(kind: u32, bone: i32) -> Option<(p3d::Odol, Vec<u8>)> {
    let d = file("AAT_Kit/AAT.p3d")?;
    let mut o = odol(&d);
    let mut info = o.model_info.0.clone();
    // In this file the skeleton name (empty) is at byte 237, the model info starts at 21, and
    // the animations flag (0) is its last byte.
    assert_eq!(info[237 - 21], 0);
    let skeleton = b"sk\0\0\x02\0\0\0bone1\0\0bone2\0bone1\0\0";
    info.splice(237 - 21..237 - 21 + 1, skeleton.iter().copied());
    assert_eq!(info.pop(), Some(0));
    let mut a = vec![1u8];
    a.extend(1u32.to_le_bytes()); // one animation class
    a.extend(kind.to_le_bytes());
    a.extend(b"door\0user\0");
    for x in [0.0f32, 1.0, 0.0, 1.0, 0.0, 0.0] {
        a.extend(x.to_le_bytes()); // phases, values, period, initial phase (v56+)
    }
    a.extend(0u32.to_le_bytes()); // source address
    a.extend(0.5f32.to_le_bytes());
    a.extend(1.5f32.to_le_bytes()); // rotation angles
    a.extend(1u32.to_le_bytes()); // one LOD in the bone maps
    a.extend(2u32.to_le_bytes()); // two bones
    a.extend(1u32.to_le_bytes());
    a.extend(0u32.to_le_bytes()); // bone 0: animation 0
    a.extend(0u32.to_le_bytes()); // bone 1: none
    a.extend(bone.to_le_bytes());
    if bone != -1 {
        for x in [0.0f32, 0.1, 0.2, 0.0, 1.0, 0.0] {
            a.extend(x.to_le_bytes()); // axis position and direction
        }
    }
    info.extend(a);
    o.model_info = p3d::Bytes(info);
    let bytes = p3d::write(&P3d::Odol(o.clone())).unwrap();
    Some((o, bytes))
}

#[test]
fn skeleton_and_animation_blocks_are_walked_exactly() {
    for bone in [0, -1] {
        let Some((o, bytes)) = with_skeleton_and_animations(0, bone) else {
            return;
        };
        let back = odol(&bytes);
        assert_eq!(back, o);
        assert_eq!(back.lod_counts(0), Some((216, 175)));
    }
    // An animation type no source knows is refused at its type field: 21 bytes of header,
    // the model info up to the animations, the flag, the class count.
    let Some((o, mut bytes)) = with_skeleton_and_animations(0, 0) else {
        return;
    };
    let anims = o.model_info.0.len() - (1 + 4 + 4 + 10 + 24 + 4 + 8 + 4 + 4 + 4 + 4 + 4 + 4 + 24);
    let kind_at = 21 + anims + 1 + 4;
    assert_eq!(bytes[kind_at], 0);
    bytes[kind_at] = 10;
    let (at, what) = unsupported_at(&bytes);
    assert_eq!(at as usize, kind_at);
    assert!(what.contains("animation type 10"), "{what}");
    // A direct (type 8) class read where a rotation was written shifts the walk: the table
    // no longer follows, and the file is refused there rather than misread.
    bytes[kind_at] = 8;
    let (at, what) = unsupported_at(&bytes);
    assert!(at as usize > kind_at, "{at}");
    assert!(
        what.contains("address table") || what.contains("not laid out"),
        "{what}"
    );
}
