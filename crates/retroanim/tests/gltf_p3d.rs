//! glTF → P3D frames (`convert anim.glb out.p3d --base base.p3d`): every corpus P3D LOD with
//! frames, exported to glTF and brought back into the same model, has its frame positions
//! (within 1e-4) and times (exactly); a hand-built glTF lands point for point.

mod common;

use retroanim::convert::{self, Options};
use retroanim::formats::p3d::{self, P3d};
use retroanim::scene::{
    Animation, Channel, Interpolation, Mesh, MorphTarget, MorphTargetKind, Node, Primitive,
    PrimitiveMode, Scene, Track,
};
use retroanim::{Format, Model};

fn with_base(base: &P3d, lod: Option<f64>) -> Options {
    let mut o = Options::default();
    o.p3d.base = Some(base.clone());
    o.p3d.lod = lod;
    o
}

/// glTF → P3D of `model`'s LOD `lod` and back; the largest position difference, and the notes.
fn round_trip(model: &P3d, lod: usize, target: Format) -> (f32, Vec<String>) {
    let res = model.resolution(lod) as f64;
    let mut out = Options::default();
    out.p3d.lod = Some(res);
    let gltf = convert::convert(&Model::P3d(model.clone()), target, &out).unwrap();
    let back = convert::convert_bytes(&gltf.bytes, None, Format::P3d, &with_base(model, Some(res)))
        .unwrap();
    let got = p3d::read(&back.bytes).unwrap();
    let (a, b) = (model.frames(lod), got.frames(lod));
    assert_eq!(a.len(), b.len(), "LOD {lod}: frame count");
    let mut worst = 0f32;
    for (fa, fb) in a.iter().zip(&b) {
        assert_eq!(
            fa.time.to_bits(),
            fb.time.to_bits(),
            "LOD {lod}: frame time"
        );
        assert_eq!(fa.positions.len(), fb.positions.len());
        for (p, q) in fa.positions.iter().zip(fb.positions) {
            for k in 0..3 {
                worst = worst.max((p[k] - q[k]).abs());
            }
        }
    }
    let notes = back.notes.iter().map(|n| n.code.to_string()).collect();
    (worst, notes)
}

#[test]
fn corpus_frames_come_back_from_gltf() {
    let mut lods = 0;
    for kind in ["p3d-mlod", "p3d-odol"] {
        for (name, path) in common::corpus_files(kind) {
            let Ok(model) = p3d::read(&std::fs::read(&path).unwrap()) else {
                continue;
            };
            for lod in 0..model.lod_count() {
                if model.frames(lod).is_empty()
                    || model.find_lod(model.resolution(lod) as f64) != Some(lod)
                {
                    continue;
                }
                // Frame times must increase for a glTF animation; others are not exported.
                let f = model.frames(lod);
                if f.windows(2).any(|w| w[1].time <= w[0].time) {
                    continue;
                }
                let (worst, notes) = round_trip(&model, lod, Format::Glb);
                // Points on no face have no glTF vertex and keep their rest position.
                if !notes.iter().any(|n| n == "points-unmoved") {
                    assert!(worst <= 1e-4, "{name} LOD {lod}: off by {worst}");
                }
                eprintln!(
                    "{name} LOD {lod}: {} frames, worst {worst:e} {notes:?}",
                    f.len()
                );
                lods += 1;
            }
        }
    }
    if common::corpus_dir().join("MANIFEST.tsv").exists() {
        assert!(lods > 0, "no corpus LOD with frames");
    }
}

#[test]
fn sample_round_trips_through_gltf_text_too() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../samples/flag.p3d");
    let model = p3d::read(&std::fs::read(path).unwrap()).unwrap();
    let (worst, _) = round_trip(&model, 0, Format::Gltf);
    assert!(worst <= 1e-4, "off by {worst}");
}

/// The sample flag as a base model.
fn base() -> P3d {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../samples/flag.p3d");
    p3d::read(&std::fs::read(path).unwrap()).unwrap()
}

/// A glTF of one mesh with one vertex per point of `base`'s LOD 0, two morph targets, and a
/// LINEAR weights animation 0 → target 0 → target 1 at 0, 0.5, 1 s.
fn hand_built(model: &P3d, extra: usize) -> (Vec<u8>, Vec<[f32; 3]>) {
    // The base's own points, in glTF axes (x negated), one vertex each.
    let mut rest: Vec<[f32; 3]> = model.frames(0)[0]
        .positions
        .iter()
        .map(|p| [-p[0], p[1], p[2]])
        .collect();
    rest.extend((0..extra).map(|_| [0.0; 3]));
    let points = rest.len();
    let d0: Vec<[f32; 3]> = (0..points).map(|_| [0.0, 1.0, 0.0]).collect();
    let d1: Vec<[f32; 3]> = (0..points).map(|i| [0.0, 0.0, i as f32]).collect();
    let prim = Primitive {
        mode: PrimitiveMode::Triangles,
        positions: rest.clone(),
        indices: (1..points as u32 - 1).flat_map(|i| [0, i, i + 1]).collect(),
        targets: vec![
            MorphTarget {
                kind: MorphTargetKind::Delta,
                positions: d0,
                ..MorphTarget::default()
            },
            MorphTarget {
                kind: MorphTargetKind::Delta,
                positions: d1,
                ..MorphTarget::default()
            },
        ],
        ..Primitive::default()
    };
    let mut node = Node::new("cloth");
    node.mesh = Some(0);
    node.weights = vec![0.0, 0.0];
    let scene = Scene {
        nodes: vec![node],
        meshes: vec![Mesh {
            name: "cloth".into(),
            primitives: vec![prim],
            target_names: vec!["up".into(), "out".into()],
            ..Mesh::default()
        }],
        animations: vec![
            Animation {
                name: "wave".into(),
                channels: vec![Channel {
                    node: 0,
                    interpolation: Interpolation::Linear,
                    times: vec![0.0, 0.5, 1.0],
                    track: Track::Weights(vec![vec![0.0, 0.0], vec![1.0, 0.0], vec![0.0, 1.0]]),
                }],
                ..Animation::default()
            },
            Animation {
                name: "still".into(),
                channels: vec![Channel {
                    node: 0,
                    interpolation: Interpolation::Step,
                    times: vec![0.0],
                    track: Track::Weights(vec![vec![0.0, 0.0]]),
                }],
                ..Animation::default()
            },
        ],
        ..Scene::default()
    };
    (retroanim::export::gltf::write_glb(&scene).unwrap(), rest)
}

#[test]
fn hand_built_gltf_lands_point_for_point() {
    let model = base();
    let (glb, rest) = hand_built(&model, 0);
    let done = convert::convert_bytes(&glb, None, Format::P3d, &with_base(&model, None)).unwrap();
    assert!(
        done.notes.iter().any(|n| n.code == "animations-dropped"),
        "{:?}",
        done.notes
    );
    let got = p3d::read(&done.bytes).unwrap();
    let f = got.frames(0);
    assert_eq!(
        f.iter().map(|f| f.time).collect::<Vec<_>>(),
        [0.0, 0.5, 1.0]
    );
    for (i, r) in rest.iter().enumerate() {
        // glTF x is negated back into P3D's left-handed space.
        let p = [-r[0], r[1], r[2]];
        assert_eq!(f[0].positions[i], p);
        assert_eq!(f[1].positions[i], [p[0], p[1] + 1.0, p[2]]);
        assert_eq!(f[2].positions[i], [p[0], p[1], p[2] + i as f32]);
    }
    // At 4 fps: 5 frames, phases 0, 0.25, …, 1 over (5 − 1) / 4 = 1 s; halfway keys blend.
    let mut o = with_base(&model, None);
    o.timing.fps = Some(4.0);
    o.geometry.axes = Some(convert::Axes::Raw);
    let got = p3d::read(
        &convert::convert_bytes(&glb, None, Format::P3d, &o)
            .unwrap()
            .bytes,
    )
    .unwrap();
    let f = got.frames(0);
    assert_eq!(f.len(), 5);
    assert_eq!(f[1].time, 0.25);
    assert_eq!(
        f[1].positions[3],
        [rest[3][0], rest[3][1] + 0.5, rest[3][2]]
    );
    // The second animation holds the rest pose.
    o.animation = Some(1);
    o.timing.fps = None;
    let got = p3d::read(
        &convert::convert_bytes(&glb, None, Format::P3d, &o)
            .unwrap()
            .bytes,
    )
    .unwrap();
    assert_eq!(got.frames(0).len(), 1);
    assert_eq!(got.frames(0)[0].positions[2], rest[2]);
}

#[test]
fn mismatches_and_missing_animations_are_errors_naming_both_sides() {
    let model = base();
    let n = model.frame_width(0).unwrap();
    let (glb, _) = hand_built(&model, 1);
    let e = convert::convert_bytes(&glb, None, Format::P3d, &with_base(&model, None))
        .unwrap_err()
        .to_string();
    assert!(e.contains(&format!("{} vertices", n + 1)), "{e}");
    assert!(e.contains(&format!("{n} points")), "{e}");
    let (glb, _) = hand_built(&model, 0);
    let mut o = with_base(&model, None);
    o.animation = Some(5);
    let e = convert::convert_bytes(&glb, None, Format::P3d, &o)
        .unwrap_err()
        .to_string();
    assert!(e.contains("0 \"wave\", 1 \"still\""), "{e}");
    let e = convert::convert_bytes(&glb, None, Format::P3d, &Options::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("base"), "{e}");
}
