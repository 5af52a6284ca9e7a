//! P3D LODs as glTF: the Khronos glTF Validator accepts them (0 errors, 0 warnings), faces
//! point outwards, and frames become morph targets driven by a weights track.

mod common;

use retroanim::export::gltf;
use retroanim::formats::p3d::{self, scene, P3d};
use retroanim::scene::{Scene, Track};

fn corpus_file(kind: &str, suffix: &str) -> Option<Vec<u8>> {
    Some(std::fs::read(common::corpus_file(kind, suffix)?).unwrap())
}

fn sample() -> P3d {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../samples/flag.p3d");
    p3d::read(&std::fs::read(path).unwrap()).unwrap()
}

fn validate_both(s: &Scene, name: &str) {
    let dir = tempfile::tempdir().unwrap();
    for (ext, bytes) in [
        ("gltf", gltf::write_gltf(s).unwrap()),
        ("glb", gltf::write_glb(s).unwrap()),
    ] {
        let path = dir.path().join(format!("{name}.{ext}"));
        std::fs::write(&path, bytes).unwrap();
        common::assert_khronos_clean(&path);
    }
}

/// Signed volume of the scene's triangles: positive when counter-clockwise faces point out.
fn signed_volume(s: &Scene) -> f64 {
    let mut v = 0.0;
    for p in &s.meshes[0].primitives {
        for t in p.indices.chunks(3) {
            let [a, b, c] = [0, 1, 2].map(|k| p.positions[t[k] as usize].map(|x| x as f64));
            v += (a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0])
                + a[2] * (b[0] * c[1] - b[1] * c[0]))
                / 6.0;
        }
    }
    v
}

#[test]
fn animated_sample_exports_morph_targets_and_validates() {
    let model = sample();
    let s = scene::to_scene(&model, 0, scene::SceneAxes::Gltf, 2.0).unwrap();
    assert!(s.check().is_empty());
    let mesh = &s.meshes[0];
    assert_eq!(mesh.target_names.len(), 9);
    assert_eq!(mesh.primitives[0].targets.len(), 9);
    let ch = &s.animations[0].channels[0];
    assert_eq!(ch.times.first(), Some(&0.0));
    assert_eq!(ch.times.last(), Some(&2.0));
    let Track::Weights(w) = &ch.track else {
        panic!()
    };
    assert_eq!(w[4].iter().position(|&x| x == 1.0), Some(4));
    // x is negated: the flag runs from the pole at x = 0 towards −x.
    assert!(mesh.primitives[0].positions.iter().all(|p| p[0] <= 0.0));
    validate_both(&s, "flag");
}

#[test]
fn corpus_lods_validate_and_face_outwards() {
    if let Some(data) = corpus_file("p3d-mlod", "agm_fastroping.p3d") {
        let model = p3d::read(&data).unwrap();
        let s = scene::to_scene(&model, 0, scene::SceneAxes::Gltf, 1.0).unwrap();
        validate_both(&s, "fastroping");
    }
    if let Some(data) = corpus_file("p3d-mlod", "sample_2_crate.p3d") {
        let model = p3d::read(&data).unwrap();
        // LOD 0 (visual) is a closed crate: static, with outward faces; with raw axes the model
        // is mirrored, and its triangles are reversed so the faces still point out.
        let s = scene::to_scene(&model, 0, scene::SceneAxes::Gltf, 1.0).unwrap();
        assert!(s.animations.is_empty());
        assert!(signed_volume(&s) > 0.0, "{}", signed_volume(&s));
        let raw = scene::to_scene(&model, 0, scene::SceneAxes::Raw, 1.0).unwrap();
        assert!(signed_volume(&raw) > 0.0);
        validate_both(&s, "crate");
    }
    if let Some(data) = corpus_file("p3d-mlod", "HEMTT/libs/p3d/tests/kat_iv.p3d") {
        // SP3X, no normals at all: exported without normals.
        let model = p3d::read(&data).unwrap();
        let s = scene::to_scene(&model, 0, scene::SceneAxes::Gltf, 1.0).unwrap();
        assert!(s.meshes[0].primitives.iter().all(|p| p.normals.is_empty()));
        validate_both(&s, "kat_iv");
    }
}

#[test]
fn odol_v7_lod_exports_with_its_frames_and_validates() {
    let Some(data) = corpus_file("p3d-odol", "animated_morph_odol.p3d") else {
        return;
    };
    let model = p3d::read(&data).unwrap();
    let s = scene::to_scene(&model, 0, scene::SceneAxes::Gltf, 1.0).unwrap();
    assert!(s.check().is_empty(), "{:?}", s.check());
    let prim = &s.meshes[0].primitives[0];
    assert_eq!(prim.targets.len(), 3);
    assert_eq!(prim.positions.len(), 4);
    // Frame positions are the ODOL vertices', x negated.
    let f1 = model.frames(0)[1].positions;
    assert!(prim.targets[1]
        .positions
        .iter()
        .all(|p| f1.iter().any(|q| [-q[0], q[1], q[2]] == *p)));
    validate_both(&s, "odol7");
}
