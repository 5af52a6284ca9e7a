//! RTM + a binarised (ODOL) P3D → a skinned, animated glTF: the corpus's v50 `tablet.p3d`
//! through its named selections (unweighted in LOD 0, weighted in LOD 1), and the KAM v73
//! model with a skeleton and vertex bone references spliced in (the corpus has no skinned
//! ODOL). Every skinned vertex must sit, at several frames, where the RTM's matrices put its
//! rest position with the weights decoded here (selection byte / 255; none = 1); the Khronos
//! validator must accept each export; damaged arrays are errors naming their byte.

mod common;

use std::collections::HashMap;

use common::gltf_read::Gltf;
use retroanim::convert::{self, Options, RtmInput};
use retroanim::formats::p3d::{self, Odol, OdolMesh, P3d};
use retroanim::formats::rtm::{self, BoneTransform, Frame, Name32};
use retroanim::{Error, Format, Model};

fn odol(suffix: &str) -> Option<Odol> {
    let path = common::corpus_file("p3d-odol", suffix)?;
    match p3d::read(&std::fs::read(path).unwrap()).unwrap() {
        P3d::Odol(o) => Some(o),
        P3d::Mlod(_) => panic!("not an ODOL"),
    }
}

fn reread(o: &Odol) -> Odol {
    match p3d::read(&p3d::write(&P3d::Odol(o.clone())).unwrap()).unwrap() {
        P3d::Odol(o) => o,
        P3d::Mlod(_) => unreachable!(),
    }
}

fn options(p3d: P3d, lod: Option<f64>) -> Options {
    let mut o = Options {
        rtm: RtmInput {
            skeletons: None,
            p3d: Some(p3d),
            ..Default::default()
        },
        ..Options::default()
    };
    o.p3d.lod = lod;
    o
}

/// A rotation of `deg` degrees about Y then a move, as the RTM's 12 numbers.
fn about_y(deg: f32, pos: [f32; 3]) -> [f32; 12] {
    let (s, c) = deg.to_radians().sin_cos();
    [c, 0.0, -s, 0.0, 1.0, 0.0, s, 0.0, c, pos[0], pos[1], pos[2]]
}

/// Three frames: rest, then each bone turned and moved differently.
fn rtm_of(bones: &[&str]) -> rtm::Mlod {
    let frame = |phase: f32, k: f32| Frame {
        phase,
        transforms: bones
            .iter()
            .enumerate()
            .map(|(i, b)| BoneTransform {
                bone: Name32::new(*b),
                matrix: about_y(
                    k * 30.0 * (i as f32 + 1.0),
                    [k * 0.1, k * 0.2 * i as f32, 0.0],
                ),
            })
            .collect(),
    };
    rtm::Mlod {
        mdat: None,
        displacement: [0.0; 3],
        v0100: false,
        bones: bones.iter().map(|b| Name32::new(*b)).collect(),
        frames: vec![frame(0.0, 0.0), frame(0.5, 1.0), frame(1.0, 2.0)],
    }
}

/// Where `rest` (model axes) lands at frame `f` with influences (RTM bone, weight): the four
/// largest, scaled to sum to 1; none: it stays.
fn place(m: &rtm::Mlod, f: usize, inf: &[(usize, f64)], rest: [f64; 3]) -> [f64; 3] {
    let mut inf: Vec<(usize, f64)> = inf.iter().copied().filter(|e| e.1 > 0.0).collect();
    if inf.is_empty() {
        return rest;
    }
    inf.sort_by(|a, b| b.1.total_cmp(&a.1));
    inf.truncate(4);
    let sum: f64 = inf.iter().map(|e| e.1).sum();
    let mut out = [0.0; 3];
    for (b, w) in inf {
        let a = m.frames[f].transforms[b].matrix.map(|v| v as f64);
        for i in 0..3 {
            out[i] +=
                w / sum * (a[i] * rest[0] + a[3 + i] * rest[1] + a[6 + i] * rest[2] + a[9 + i]);
        }
    }
    out
}

fn key(p: [f64; 3]) -> [u32; 3] {
    p.map(|v| (v as f32 + 0.0).to_bits())
}

/// Converts, validates with Khronos, and checks every glTF vertex at every frame against
/// [`place`] for the ODOL vertices at its rest position (x negated back); returns the notes,
/// the glTF and how far the farthest vertex moved.
fn check(
    m: &rtm::Mlod,
    opts: &Options,
    positions: &[[f32; 3]],
    influences: &[Vec<(usize, f64)>],
) -> (Vec<convert::Note>, Gltf, f64) {
    let model = Model::Rtm(rtm::Rtm::Mlod(m.clone()));
    let out = convert::convert(&model, Format::Gltf, opts).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("skinned.gltf");
    std::fs::write(&path, &out.bytes).unwrap();
    common::assert_khronos_clean(&path);
    let g = Gltf::parse(&out.bytes);
    let rest: Vec<[f64; 3]> = g
        .mesh_positions()
        .into_iter()
        .map(|v| [-v[0], v[1], v[2]])
        .collect();
    let mut at: HashMap<[u32; 3], Vec<usize>> = HashMap::new();
    for (v, p) in positions.iter().enumerate() {
        at.entry(key(p.map(f64::from))).or_default().push(v);
    }
    let candidates: Vec<&Vec<usize>> = rest.iter().map(|r| &at[&key(*r)]).collect();
    let mut moved: f64 = 0.0;
    for f in 0..m.frames.len() {
        let skinned = g.skinned_positions(&g.world_matrices(Some((0, f))));
        assert_eq!(skinned.len(), rest.len());
        for (i, s) in skinned.iter().enumerate() {
            let got = [-s[0], s[1], s[2]];
            let best = candidates[i]
                .iter()
                .map(|&v| {
                    let want = place(m, f, &influences[v], rest[i]);
                    (0..3).map(|c| (got[c] - want[c]).abs()).fold(0.0, f64::max)
                })
                .fold(f64::INFINITY, f64::min);
            assert!(
                best <= 1e-5,
                "frame {f} glTF vertex {i} (ODOL vertices {:?}) is {best} m off",
                candidates[i]
            );
            moved = moved.max(
                (0..3)
                    .map(|c| (got[c] - rest[i][c]).abs())
                    .fold(0.0, f64::max),
            );
        }
    }
    (out.notes, g, moved)
}

fn note<'a>(notes: &'a [convert::Note], code: &str) -> Option<&'a str> {
    notes
        .iter()
        .find(|n| n.code == code)
        .map(|n| n.message.as_str())
}

/// Each vertex's influences from the selections named after the RTM's bones: byte / 255, or 1
/// for a selection without weight bytes.
fn selection_influences(m: &rtm::Mlod, mesh: &OdolMesh) -> Vec<Vec<(usize, f64)>> {
    let mut inf = vec![Vec::new(); mesh.positions.len()];
    for s in &mesh.selections {
        let name = String::from_utf8_lossy(s.name.as_bytes()).to_lowercase();
        let Some(b) = m.bones.iter().position(|x| x.name.to_lowercase() == name) else {
            continue;
        };
        for (k, &v) in s.vertices.iter().enumerate() {
            let w = s.weights.get(k).map_or(1.0, |&b| f64::from(b) / 255.0);
            inf[v as usize].push((b, w));
        }
    }
    inf
}

#[test]
fn tablet_selections_move_exactly_their_vertices() {
    let Some(o) = odol("m_tablet/tablet.p3d") else {
        return;
    };
    for (lod, res, weighted) in [(0, None, false), (1, Some(4.0), true)] {
        let mesh = o.lod_mesh(lod).unwrap();
        // The selections' vertex lists index the vertex table: each lists every vertex of the
        // polygons it selects, and no index passes the table.
        for s in &mesh.selections {
            assert!(s
                .vertices
                .iter()
                .all(|&v| (v as usize) < mesh.positions.len()));
            for &f in &s.faces {
                assert!(mesh.faces[f as usize]
                    .1
                    .iter()
                    .all(|v| s.vertices.contains(v)));
            }
            assert_eq!(
                !s.weights.is_empty(),
                weighted && s.name.as_bytes() != b"rubber"
            );
        }
        let m = rtm_of(&["Buttons", "screen", "RUBBER", "Pelvis"]);
        let inf = selection_influences(&m, &mesh);
        let (notes, g, moved) = check(
            &m,
            &options(P3d::Odol(o.clone()), res),
            &mesh.positions,
            &inf,
        );
        assert!(moved > 0.1, "the selections move ({moved})");
        assert!(note(&notes, "bones-without-selection").is_some_and(|n| n.starts_with("1 of")));
        // Everything outside the three selections stays.
        let still = inf.iter().filter(|i| i.is_empty()).count();
        assert!(still > 0);
        assert!(
            note(&notes, "vertices-on-root").is_some(),
            "{notes:?} ({still} still)"
        );
        assert_eq!(
            note(&notes, "partial-selection-weights").is_some(),
            weighted,
            "{notes:?}"
        );
        if lod == 0 {
            assert!(note(&notes, "other-lods").is_some(), "{notes:?}");
        }
        assert_eq!(g.json["skins"][0]["joints"].as_array().unwrap().len(), 5);
    }
}

#[test]
fn partial_weights_blend_as_byte_over_255() {
    let Some(o) = odol("m_tablet/tablet.p3d") else {
        return;
    };
    // No vertex of the file is in two bone selections with a partial weight, and a lone
    // partial weight is scaled to 1 whatever it reads as: so LOD 1's "screen" lists, in place
    // of some partially weighted vertices, vertices of "buttons" (indices patched in place).
    let mesh = o.lod_mesh(1).unwrap();
    let (buttons, screen) = (&mesh.selections[0], &mesh.selections[2]);
    assert_eq!(screen.name.as_bytes(), b"screen");
    let mut spare = buttons
        .vertices
        .iter()
        .filter(|v| !screen.vertices.contains(v));
    let (lod_at, _) = starts(&o, 1);
    let rel = (screen.vertices_at - lod_at) as usize + 4;
    let mut patched = o.clone();
    let mut bytes = Vec::new();
    for (k, &w) in screen.weights.iter().enumerate() {
        if (1..255).contains(&w) && bytes.len() < 12 {
            let v = *spare.next().unwrap() as u16;
            patched.lods[1].geometry.0[rel + 2 * k..rel + 2 * k + 2]
                .copy_from_slice(&v.to_le_bytes());
            bytes.push(w);
        }
    }
    let patched = reread(&patched);
    let mesh = patched.lod_mesh(1).unwrap();
    let m = rtm_of(&["Buttons", "screen"]);
    let inf = selection_influences(&m, &mesh);
    let blended = inf
        .iter()
        .filter(|i| i.len() == 2 && i.iter().any(|e| e.1 < 1.0))
        .count();
    assert_eq!(blended, bytes.len(), "{bytes:?}");
    let (notes, _, moved) = check(
        &m,
        &options(P3d::Odol(patched), Some(4.0)),
        &mesh.positions,
        &inf,
    );
    assert!(moved > 0.1);
    assert!(
        note(&notes, "partial-selection-weights").is_some(),
        "{notes:?}"
    );
}

/// LOD `lod`'s start and the offset of its tail (after its frames) in the written file.
fn starts(o: &Odol, lod: usize) -> (u64, u64) {
    let at = o.lod_starts()[lod];
    let frames: u64 = o.lods[lod]
        .frames
        .iter()
        .map(|f| 8 + 12 * f.positions.len() as u64)
        .sum();
    (at, at + o.lods[lod].geometry.0.len() as u64 + 4 + frames)
}

#[test]
fn damaged_selection_arrays_are_errors_at_their_byte() {
    let Some(o) = odol("m_tablet/tablet.p3d") else {
        return;
    };
    let m = rtm_of(&["screen"]);
    let (lod_at, _) = starts(&o, 1);
    let sel = o.lod_mesh(1).unwrap().selections[2].clone();
    assert_eq!(sel.name.as_bytes(), b"screen");
    let rel = (sel.vertices_at - lod_at) as usize;
    // A vertex index past the vertex table (v50: u16 indices, stored raw below 1024 bytes).
    let mut bad = o.clone();
    bad.lods[1].geometry.0[rel + 4..rel + 6].copy_from_slice(&u16::MAX.to_le_bytes());
    let bad = reread(&bad);
    match rtm::skinned_scene(&m, &P3d::Odol(bad), 1, &Default::default()) {
        Err(Error::Malformed {
            format,
            offset,
            what,
        }) => {
            assert_eq!(format, Format::P3d);
            assert_eq!(offset, sel.vertices_at);
            assert!(
                what.contains("ODOL LOD 1, selection \"screen\": vertex index 65535"),
                "{what}"
            );
        }
        other => panic!("{other:?}"),
    }
    // One vertex fewer than weight bytes: the count word and the last index removed.
    let mut bad = o.clone();
    let g = &mut bad.lods[1].geometry.0;
    let n = sel.vertices.len();
    g[rel..rel + 4].copy_from_slice(&(n as u32 - 1).to_le_bytes());
    g.drain(rel + 4 + 2 * (n - 1)..rel + 4 + 2 * n);
    let bad = reread(&bad);
    let at = bad.lod_mesh(1).unwrap().selections[2].weights_at;
    assert_eq!(at, sel.weights_at - 2);
    match rtm::skinned_scene(&m, &P3d::Odol(bad), 1, &Default::default()) {
        Err(e @ Error::Malformed { .. }) => {
            assert_eq!(e.offset(), Some(at));
            let what = e.to_string();
            assert!(
                what.contains(&format!("{n} vertex weight bytes for {} vertices", n - 1)),
                "{what}"
            );
        }
        other => panic!("{other:?}"),
    }
}

/// The bone references the skeleton test writes for vertex `v`: (count, pairs).
fn planned(v: usize) -> (i32, [(u8, u8); 4]) {
    match v % 4 {
        0 => (1, [(0, 255), (0, 0), (0, 0), (0, 0)]),
        1 => (2, [(0, 128), (1, 127), (0, 0), (0, 0)]),
        2 => (0, [(1, 255), (0, 0), (0, 0), (0, 0)]), // count 0: the pair is unused
        _ => (2, [(1, 200), (2, 55), (0, 0), (0, 0)]),
    }
}

/// KAM's v73 `AAT.p3d` with a skeleton (bone1; bone2 and bone3 under bone1), LOD 0's
/// sub-skeleton map (0, 1, 2) and raw vertex bone references `refs(v)` spliced in.
fn skinned_aat(refs: impl Fn(usize) -> (i32, [(u8, u8); 4])) -> Option<Odol> {
    let mut o = odol("AAT_Kit/AAT.p3d")?;
    let mesh = o.lod_mesh(0).unwrap();
    let (lod_at, tail_at) = starts(&o, 0);
    // The skeleton: in this file its (empty) name is byte 237, the model info starts at 21.
    let info = &mut o.model_info.0;
    assert_eq!(info[237 - 21], 0);
    let skeleton = b"sk\0\0\x03\0\0\0bone1\0\0bone2\0bone1\0bone3\0bone1\0\0";
    info.splice(237 - 21..237 - 21 + 1, skeleton.iter().copied());
    // The sub-skeleton map (empty) at the LOD's start.
    let rel = (mesh.sub_skeleton_at - lod_at) as usize;
    let g = &mut o.lods[0].geometry.0;
    assert_eq!(g[rel..rel + 4], [0; 4]);
    let map: Vec<u8> = [3i32, 0, 1, 2]
        .iter()
        .flat_map(|x| x.to_le_bytes())
        .collect();
    g.splice(rel..rel + 4, map);
    // The bone references (empty): count, raw flag, records; the vertex table grows by as much.
    let n = mesh.positions.len();
    let rel = (mesh.bone_refs_at - tail_at) as usize;
    let t = &mut o.lods[0].tail.0;
    assert_eq!(t[rel..rel + 4], [0; 4]);
    let mut add = (n as u32).to_le_bytes().to_vec();
    add.push(0);
    for v in 0..n {
        let (count, pairs) = refs(v);
        add.extend(count.to_le_bytes());
        for (b, w) in pairs {
            add.extend([b, w]);
        }
    }
    let grown = add.len() as u32 - 4;
    t.splice(rel..rel + 4, add);
    let size = u32::from_le_bytes(t[13..17].try_into().unwrap()) + grown;
    t[13..17].copy_from_slice(&size.to_le_bytes());
    Some(reread(&o))
}

#[test]
fn arma_skeleton_bone_references_move_the_vertices() {
    let Some(o) = skinned_aat(planned) else {
        return;
    };
    let mesh = o.lod_mesh(0).unwrap();
    assert_eq!(mesh.sub_skeleton, [0, 1, 2]);
    assert_eq!(mesh.bone_refs.len(), mesh.positions.len());
    let s = o.skeleton().unwrap().unwrap();
    assert_eq!(s.bones.len(), 3);
    // RTM bones: bone1 and bone2 (bone3 is not moved), and one the skeleton lacks.
    let m = rtm_of(&["BONE1", "bone2", "Head"]);
    let inf: Vec<Vec<(usize, f64)>> = (0..mesh.positions.len())
        .map(|v| {
            let (count, pairs) = planned(v);
            pairs[..count as usize]
                .iter()
                .filter(|(b, _)| *b < 2) // bone3 is no RTM bone
                .map(|&(b, w)| (b as usize, f64::from(w) / 255.0))
                .collect()
        })
        .collect();
    let (notes, g, moved) = check(&m, &options(P3d::Odol(o), None), &mesh.positions, &inf);
    assert!(moved > 0.1, "{moved}");
    for code in [
        "skeleton-weights",
        "skeleton-from-p3d",
        "skeleton-bones-not-in-rtm",
        "vertices-on-root",
        "weights-rescaled",
        "bones-without-selection",
    ] {
        assert!(note(&notes, code).is_some(), "{code}: {notes:?}");
    }
    assert!(note(&notes, "skeleton-bones-not-in-rtm")
        .unwrap()
        .contains("bone3"));
    // The skeleton is the hierarchy: bone2's joint hangs under BONE1's.
    let nodes = g.json["nodes"].as_array().unwrap();
    let index = |name: &str| nodes.iter().position(|n| n["name"] == name).unwrap();
    let (b1, b2) = (index("BONE1"), index("bone2"));
    assert!(
        nodes[b1]["children"]
            .as_array()
            .is_some_and(|c| c.iter().any(|k| k.as_u64() == Some(b2 as u64))),
        "{:?}",
        nodes[b1]
    );
}

#[test]
fn damaged_bone_references_are_errors_at_their_byte() {
    let m = rtm_of(&["bone1"]);
    for (v, refs, says) in [
        (5, (5, [(0, 255); 4]), "vertex 5: bone reference count 5"),
        (
            6,
            (1, [(3, 255); 4]),
            "vertex 6: LOD bone 3, but the sub-skeleton map has 3 bones",
        ),
    ] {
        let Some(o) = skinned_aat(|k| if k == v { refs } else { planned(k) }) else {
            return;
        };
        let mesh = o.lod_mesh(0).unwrap();
        let record = mesh.bone_refs_raw_at.unwrap() + 12 * v as u64;
        let want = if refs.0 == 5 { record } else { record + 4 };
        match rtm::skinned_scene(&m, &P3d::Odol(o), 0, &Default::default()) {
            Err(e @ Error::Malformed { .. }) => {
                assert_eq!(e.offset(), Some(want), "{e}");
                assert!(e.to_string().contains(says), "{e}");
            }
            other => panic!("{other:?}"),
        }
    }
}
