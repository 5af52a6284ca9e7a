//! glTF → VDF/NDF from a mesh a tool wrote again: its vertices split (one per corner, as
//! Blender splits them at UV seams) and re-ordered are matched to the TMD's by rest position,
//! and the sample's VDF and NDF come back byte for byte; a vertex that lies where no TMD
//! vertex does, or two copies of one TMD vertex moved differently, is an error naming them.

mod common;

use std::path::Path;

use retroanim::convert::{self, Options};
use retroanim::formats::{mime, tmd};
use retroanim::scene::{Primitive, Scene};
use retroanim::{Format, Limits, Model};

const DIR: &str = "3.6/PSX/SAMPLE/GRAPHICS/TMDVIEW/MIME/";

fn corpus(kind: &str, name: &str) -> Option<Vec<u8>> {
    let p = common::corpus_file(kind, &format!("{DIR}{name}"))?;
    Some(std::fs::read(p).unwrap())
}

use common::diff_bytes;

/// TMD + differences → glTF (the library's export).
fn export(base: &tmd::Tmd, vdf: Option<&[u8]>, ndf: Option<&[u8]>) -> Vec<u8> {
    let mut o = Options::default();
    let read = |b: &[u8], f| mime::read_with(b, f, &Limits::default()).unwrap();
    o.mime.vdf = vdf.map(|b| read(b, Format::Vdf));
    o.mime.ndf = ndf.map(|b| read(b, Format::Ndf));
    convert::convert(&Model::Tmd(base.clone()), Format::Gltf, &o)
        .unwrap()
        .bytes
}

/// The vertices of `p` listed in `order` (each attribute and target alike).
fn keep_only(p: &mut Primitive, order: &[usize]) {
    fn pick<T: Copy>(v: &[T], order: &[usize]) -> Vec<T> {
        if v.is_empty() {
            Vec::new()
        } else {
            order.iter().map(|&i| v[i]).collect()
        }
    }
    p.positions = pick(&p.positions, order);
    p.normals = pick(&p.normals, order);
    p.uvs = pick(&p.uvs, order);
    p.colors = pick(&p.colors, order);
    for t in &mut p.targets {
        t.positions = pick(&t.positions, order);
        t.normals = pick(&t.normals, order);
    }
}

/// Every primitive's vertices split into one per corner, then listed backwards.
fn split_and_reverse(p: &mut Primitive) {
    let corners: Vec<usize> = if p.indices.is_empty() {
        (0..p.positions.len()).collect()
    } else {
        p.indices.iter().map(|&i| i as usize).collect()
    };
    let order: Vec<usize> = corners.iter().rev().copied().collect();
    keep_only(p, &order);
    // Corner c is now vertex n − 1 − c.
    let n = order.len() as u32;
    p.indices = (0..n).map(|c| n - 1 - c).collect();
}

/// Vertices equal in every attribute (targets too) made one, as Blender's exporter does.
fn merge_equal(p: &mut Primitive) {
    let key = |i: usize| -> Vec<u32> {
        let mut k: Vec<u32> = p.positions[i].iter().map(|c| c.to_bits()).collect();
        k.extend(p.normals.get(i).into_iter().flatten().map(|c| c.to_bits()));
        k.extend(p.uvs.get(i).into_iter().flatten().map(|c| c.to_bits()));
        k.extend(p.colors.get(i).into_iter().flatten().map(|c| c.to_bits()));
        for t in &p.targets {
            k.extend(
                t.positions
                    .get(i)
                    .into_iter()
                    .flatten()
                    .map(|c| c.to_bits()),
            );
            k.extend(t.normals.get(i).into_iter().flatten().map(|c| c.to_bits()));
        }
        k
    };
    let mut first = std::collections::HashMap::new();
    let mut keep = Vec::new();
    let remap: Vec<u32> = (0..p.positions.len())
        .map(|i| {
            *first.entry(key(i)).or_insert_with(|| {
                keep.push(i);
                keep.len() as u32 - 1
            })
        })
        .collect();
    keep_only(p, &keep);
    let corners: Vec<u32> = if p.indices.is_empty() {
        (0..remap.len() as u32).collect()
    } else {
        p.indices.clone()
    };
    p.indices = corners.iter().map(|&c| remap[c as usize]).collect();
}

fn reindexed(gltf: &[u8], edit: impl FnOnce(&mut Scene)) -> Vec<u8> {
    let mut scene = retroanim::import::gltf::read(gltf, &Limits::default())
        .unwrap()
        .scene;
    for m in &mut scene.meshes {
        for p in &mut m.primitives {
            split_and_reverse(p);
        }
    }
    edit(&mut scene);
    retroanim::export::gltf::write(&scene, Format::Gltf).unwrap()
}

fn author(gltf: &[u8], target: Format, base: &tmd::Tmd) -> retroanim::Result<convert::Conversion> {
    let o = Options {
        tod: convert::TodInput {
            tmd: Some(base.clone()),
            ..Default::default()
        },
        ..Options::default()
    };
    convert::convert_bytes(gltf, None, target, &o)
}

#[test]
fn the_sample_comes_back_from_a_reindexed_gltf_byte_for_byte() {
    let (Some(t), Some(vdf), Some(ndf)) = (
        corpus("TMD", "MD0.TMD"),
        corpus("VDF", "MD0.VDF"),
        corpus("NDF", "MD0.NDF"),
    ) else {
        return;
    };
    let base = tmd::read(&t).unwrap();
    let gltf = export(&base, Some(&vdf), Some(&ndf));
    let again = reindexed(&gltf, |_| {});
    let points = |g: &[u8]| gltf_scene(g).meshes[0].primitives[0].positions.clone();
    assert_ne!(
        points(&again),
        points(&gltf),
        "the test's glTF is re-ordered"
    );
    for (target, want) in [(Format::Vdf, &vdf), (Format::Ndf, &ndf)] {
        let back = author(&again, target, &base).unwrap();
        assert!(&back.bytes == want, "{target} from the re-indexed glTF");
        let codes: Vec<&str> = back.notes.iter().map(|n| n.code).collect();
        assert_eq!(codes, vec!["mime-reindexed"], "{target}");
    }
}

#[test]
fn hand_built_differences_come_back_from_a_reindexed_gltf() {
    let base = tmd::read(
        &std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../samples/link.tmd"))
            .unwrap(),
    )
    .unwrap();
    // link.tmd: a box, 8 vertices, 6 normals. Key 0 lifts vertices 2..4, key 1 pushes 6..7.
    let vdf = diff_bytes(&[
        (0, 2, &[[0, -30, 0], [5, -30, 0], [0, -30, 5]]),
        (0, 6, &[[7, 0, 0], [-7, 0, 0]]),
    ]);
    let ndf = diff_bytes(&[(0, 1, &[[0, 0, 100]]), (0, 3, &[[100, 0, 0], [0, 100, 0]])]);
    let gltf = export(&base, Some(&vdf), Some(&ndf));
    let again = reindexed(&gltf, |_| {});
    assert_eq!(author(&again, Format::Vdf, &base).unwrap().bytes, vdf);
    assert_eq!(author(&again, Format::Ndf, &base).unwrap().bytes, ndf);
    // Corners equal in everything merged into one vertex, as Blender writes them.
    let mut s = gltf_scene(&again);
    let before = s.meshes[0].primitives[0].positions.len();
    merge_equal(&mut s.meshes[0].primitives[0]);
    assert!(s.meshes[0].primitives[0].positions.len() < before);
    let merged = retroanim::export::gltf::write(&s, Format::Gltf).unwrap();
    assert_eq!(author(&merged, Format::Vdf, &base).unwrap().bytes, vdf);
    assert_eq!(author(&merged, Format::Ndf, &base).unwrap().bytes, ndf);
    // A vertex moved at rest: nothing lies there in the TMD.
    let moved = reindexed(&gltf, |s| s.meshes[0].primitives[0].positions[4][0] += 0.5);
    match author(&moved, Format::Vdf, &base) {
        Err(retroanim::Error::Malformed { what, .. }) => assert!(
            what.contains("meshes[0] primitive 0 vertex 4 lies at")
                && what.contains("no vertex of TMD object 0"),
            "{what}"
        ),
        other => panic!("{other:?}"),
    }
    // One copy of a TMD vertex moved differently from the others.
    let p = &gltf_scene(&again).meshes[0].primitives[0];
    let key0 = &p.targets[0].positions;
    let (a, b) = copies_moved(p, key0);
    let split = reindexed(&gltf, |s| {
        s.meshes[0].primitives[0].targets[0].positions[b][1] += 1.0 / 4096.0;
    });
    match author(&split, Format::Vdf, &base) {
        Err(retroanim::Error::Unencodable { what, .. }) => assert!(
            what.contains("morph target 0 moves TMD object 0 vertex")
                && what.contains(&format!("primitive 0 vertex {a}"))
                && what.contains(&format!("primitive 0 vertex {b}"))
                && what.contains("one difference per vertex"),
            "{what}"
        ),
        other => panic!("{other:?}"),
    }
    // The same edit in the export's own order is refused alike.
    let mut s = gltf_scene(&gltf);
    let p = &mut s.meshes[0].primitives[0];
    let k0 = p.targets[0].positions.clone();
    let (_, b) = copies_moved(p, &k0);
    p.targets[0].positions[b][1] += 1.0 / 4096.0;
    let edited = retroanim::export::gltf::write(&s, Format::Gltf).unwrap();
    assert!(matches!(
        author(&edited, Format::Vdf, &base),
        Err(retroanim::Error::Unencodable { .. })
    ));
}

fn gltf_scene(g: &[u8]) -> Scene {
    retroanim::import::gltf::read(g, &Limits::default())
        .unwrap()
        .scene
}

/// Two vertices of `p` at one rest point that key 0 moves (the first, the later).
fn copies_moved(p: &Primitive, key0: &[[f32; 3]]) -> (usize, usize) {
    for (b, (pb, kb)) in p.positions.iter().zip(key0).enumerate() {
        if *kb == [0.0; 3] {
            continue;
        }
        if let Some(a) = p.positions[..b].iter().position(|pa| pa == pb) {
            return (a, b);
        }
    }
    panic!("no two copies of a moved vertex in the primitive");
}
