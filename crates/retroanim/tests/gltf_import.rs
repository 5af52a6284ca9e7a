//! glTF / GLB → scene: what our exporter writes from the corpus (TMD, TOD with its TMD, HMD)
//! comes back with the same nodes, hierarchy, triangles, materials and animation channels;
//! hand-made files cover what the exporter never writes (CUBICSPLINE, quads, morph weights);
//! hostile files are clean errors.

mod common;

use std::collections::BTreeSet;

use retroanim::convert::{self, Options};
use retroanim::formats::tmd::scene::{tmd_scene, PsxOptions};
use retroanim::formats::{hmd, tmd, tod};
use retroanim::import::gltf;
use retroanim::scene::{Interpolation, Scene, Track};
use retroanim::{Error, Format, Limits, Model};

use common::glb::{f32s, glb};

/// Triangles per mesh.
fn triangles(s: &Scene) -> Vec<usize> {
    s.meshes
        .iter()
        .map(|m| {
            m.primitives
                .iter()
                .map(|p| {
                    if p.indices.is_empty() {
                        p.positions.len() / 3
                    } else {
                        p.indices.len() / 3
                    }
                })
                .sum()
        })
        .collect()
}

/// Each animation's animated (node, property) pairs; visibility is exported as scale.
fn channels(s: &Scene) -> Vec<BTreeSet<(usize, &'static str)>> {
    s.animations
        .iter()
        .map(|a| {
            a.channels
                .iter()
                .map(|c| {
                    let p = match c.track.path() {
                        "visibility" => "scale",
                        p => p,
                    };
                    (c.node, p)
                })
                .collect()
        })
        .collect()
}

/// The scene read back from `format` bytes agrees with the scene that was written.
fn assert_same_shape(name: &str, sent: &Scene, format: Format) -> Scene {
    let bytes = retroanim::export::gltf::write(sent, format).unwrap();
    let got = gltf::read(&bytes, &Limits::default())
        .unwrap_or_else(|e| panic!("{name}: {e}"))
        .scene;
    assert_eq!(got.nodes.len(), sent.nodes.len(), "{name}: nodes");
    let parents = |s: &Scene| s.nodes.iter().map(|n| n.parent).collect::<Vec<_>>();
    assert_eq!(parents(&got), parents(sent), "{name}: hierarchy");
    let meshes = |s: &Scene| s.nodes.iter().map(|n| n.mesh).collect::<Vec<_>>();
    assert_eq!(meshes(&got), meshes(sent), "{name}: node meshes");
    assert_eq!(triangles(&got), triangles(sent), "{name}: triangles");
    // The exporter writes the materials and textures in use.
    let used: BTreeSet<usize> = sent
        .meshes
        .iter()
        .flat_map(|m| &m.primitives)
        .filter_map(|p| p.material)
        .collect();
    let textures: BTreeSet<usize> = used
        .iter()
        .filter_map(|&m| sent.materials[m].texture)
        .collect();
    assert_eq!(got.materials.len(), used.len(), "{name}: materials");
    assert_eq!(got.textures.len(), textures.len(), "{name}: textures");
    assert_eq!(got.skins.len(), sent.skins.len(), "{name}: skins");
    assert_eq!(channels(&got), channels(sent), "{name}: animation channels");
    // Keys that are not visibility come back exactly (glTF keeps 32-bit floats).
    for (a, b) in sent.animations.iter().zip(&got.animations) {
        let vis: BTreeSet<usize> = a
            .channels
            .iter()
            .filter(|c| matches!(c.track, Track::Visibility(_)))
            .map(|c| c.node)
            .collect();
        for c in a.channels.iter().filter(|c| !vis.contains(&c.node)) {
            let back = b
                .channels
                .iter()
                .find(|d| d.node == c.node && d.track.path() == c.track.path())
                .unwrap();
            assert_eq!(back.times, c.times, "{name}: node {} times", c.node);
            // Rotations are normalised on the way out: equal within a few ULPs.
            let close = |a: &[f32], b: &[f32]| {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() <= 1e-6)
            };
            let same = match (&back.track, &c.track) {
                (Track::Rotation(a), Track::Rotation(b)) => {
                    close(a.as_flattened(), b.as_flattened())
                }
                (a, b) => a == b,
            };
            assert!(same, "{name}: node {} values", c.node);
            assert_eq!(back.interpolation, c.interpolation, "{name}");
        }
    }
    got
}

#[test]
fn corpus_tmds_come_back_from_glb_and_gltf() {
    let files = common::unique_files("TMD");
    if files.is_empty() {
        return;
    }
    let mut checked = 0;
    for (name, data) in &files {
        let Ok(model) = tmd::read(data) else { continue };
        let scene = tmd_scene(&model, &PsxOptions::default()).unwrap();
        if scene.meshes.is_empty() {
            continue;
        }
        assert_same_shape(name, &scene, Format::Glb);
        assert_same_shape(name, &scene, Format::Gltf);
        checked += 1;
    }
    assert!(checked >= 20, "{checked} models compared");
}

#[test]
fn janken_animations_come_back_with_every_channel() {
    let Some((model, anims)) = common::janken() else {
        return;
    };
    assert!(anims[0].0.ends_with("APPEAR.TOD"));
    let appear = anims[0].1.clone();
    let mut keys = 0;
    for (name, anim) in &anims {
        let prelude: Vec<&tod::Tod> = if name.ends_with("APPEAR.TOD") {
            vec![]
        } else {
            vec![&appear]
        };
        let scene =
            tod::scene::tod_scene_after(&prelude, anim, Some(&model), &PsxOptions::default())
                .unwrap();
        let got = assert_same_shape(name, &scene, Format::Glb);
        keys += got.animations[0]
            .channels
            .iter()
            .map(|c| c.times.len())
            .sum::<usize>();
    }
    assert!(keys > 1000, "{keys} keys");
}

#[test]
fn corpus_hmds_come_back() {
    let files = common::unique_files("HMD");
    if files.is_empty() {
        return;
    }
    let mut checked = 0;
    let mut animated = 0;
    for (name, data) in &files {
        let Ok(m) = hmd::read(data) else { continue };
        let options = hmd::SceneOptions {
            max_frames: 120,
            ..hmd::SceneOptions::default()
        };
        let Ok(scene) = m.to_scene(&options) else {
            continue;
        };
        if scene.nodes.is_empty() {
            continue;
        }
        assert_same_shape(name, &scene, Format::Glb);
        checked += 1;
        animated += usize::from(!scene.animations.is_empty());
    }
    assert!(
        checked >= 10 && animated >= 3,
        "{checked} HMDs, {animated} animated"
    );
}

/// A unit square (two triangles) on node 1 under node 0, node 0 moved by a CUBICSPLINE
/// translation and a LINEAR rotation, node 1 with a STEP morph weight channel.
fn square() -> (serde_json::Value, Vec<u8>) {
    let mut bin = Vec::new();
    // 0: positions (4 × vec3), 48 bytes.
    bin.extend(f32s(&[
        0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0, 0.0,
    ]));
    // 48: indices (6 × u16), 12 bytes.
    for i in [0u16, 1, 2, 0, 2, 3] {
        bin.extend(i.to_le_bytes());
    }
    // 60: key times (2), 8 bytes.
    bin.extend(f32s(&[0.0, 1.0]));
    // 68: cubic translation: in, value, out per key (6 × vec3), 72 bytes.
    bin.extend(f32s(&[
        0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, //
        0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0,
    ]));
    // 140: rotations (2 × vec4), 32 bytes.
    let h = std::f32::consts::FRAC_1_SQRT_2;
    bin.extend(f32s(&[0.0, 0.0, 0.0, 1.0, 0.0, h, 0.0, h]));
    // 172: morph target deltas (4 × vec3), 48 bytes.
    bin.extend(f32s(&[
        0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0,
    ]));
    // 220: weights (2 keys × 1 target), 8 bytes.
    bin.extend(f32s(&[0.0, 1.0]));
    let view =
        |o: usize, l: usize| serde_json::json!({"buffer": 0, "byteOffset": o, "byteLength": l});
    let json = serde_json::json!({
        "asset": {"version": "2.0"},
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        "nodes": [
            {"name": "arm", "children": [1]},
            {"name": "square", "mesh": 0}
        ],
        "meshes": [{
            "primitives": [{
                "attributes": {"POSITION": 0},
                "indices": 1,
                "targets": [{"POSITION": 5}]
            }],
            "extras": {"targetNames": ["lift"]}
        }],
        "buffers": [{"byteLength": bin.len()}],
        "bufferViews": [view(0, 48), view(48, 12), view(60, 8), view(68, 72), view(140, 32), view(172, 48), view(220, 8)],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": 4, "type": "VEC3", "min": [0,0,0], "max": [1,1,0]},
            {"bufferView": 1, "componentType": 5123, "count": 6, "type": "SCALAR"},
            {"bufferView": 2, "componentType": 5126, "count": 2, "type": "SCALAR", "min": [0], "max": [1]},
            {"bufferView": 3, "componentType": 5126, "count": 6, "type": "VEC3"},
            {"bufferView": 4, "componentType": 5126, "count": 2, "type": "VEC4"},
            {"bufferView": 5, "componentType": 5126, "count": 4, "type": "VEC3"},
            {"bufferView": 6, "componentType": 5126, "count": 2, "type": "SCALAR"}
        ],
        "animations": [{
            "channels": [
                {"sampler": 0, "target": {"node": 0, "path": "translation"}},
                {"sampler": 1, "target": {"node": 0, "path": "rotation"}},
                {"sampler": 2, "target": {"node": 1, "path": "weights"}}
            ],
            "samplers": [
                {"input": 2, "output": 3, "interpolation": "CUBICSPLINE"},
                {"input": 2, "output": 4, "interpolation": "LINEAR"},
                {"input": 2, "output": 6, "interpolation": "STEP"}
            ]
        }]
    });
    (json, bin)
}

#[test]
fn hand_made_square_reads_with_cubic_keys_and_morph_weights() {
    let (json, bin) = square();
    let got = gltf::read(&glb(&json, &bin), &Limits::default()).unwrap();
    let s = &got.scene;
    assert_eq!(s.nodes[1].parent, Some(0));
    assert_eq!(s.meshes[0].target_names, vec!["lift".to_string()]);
    assert_eq!(s.meshes[0].primitives[0].indices, vec![0, 1, 2, 0, 2, 3]);
    let a = &s.animations[0];
    assert_eq!(a.channels[0].interpolation, Interpolation::Cubicspline);
    assert_eq!(a.channels[0].track.len(), 6);
    assert_eq!(
        a.channels[2].track,
        Track::Weights(vec![vec![0.0], vec![1.0]])
    );
    // The same file as .gltf with an embedded buffer.
    let mut j = json.clone();
    use base64::Engine as _;
    j["buffers"][0]["uri"] = serde_json::Value::String(format!(
        "data:application/octet-stream;base64,{}",
        base64::engine::general_purpose::STANDARD.encode(&bin)
    ));
    let text = serde_json::to_vec(&j).unwrap();
    assert_eq!(retroanim::detect(&text), Some(Format::Gltf));
    let again = gltf::read(&text, &Limits::default()).unwrap();
    assert_eq!(again.scene, got.scene);
}

#[test]
fn hand_made_square_becomes_one_quad_and_a_moving_tod() {
    let (json, bin) = square();
    let file = glb(&json, &bin);
    let opts = Options::default();
    let model = convert::convert_bytes(&file, None, Format::Tmd, &opts).unwrap();
    let Model::Tmd(t) = retroanim::read_any(&model.bytes).unwrap() else {
        panic!("not a TMD")
    };
    assert!(retroanim::formats::tmd::validate(&t).is_empty());
    // Two triangles sharing an edge in a plane: one quadrilateral packet.
    assert_eq!(t.objects.len(), 1);
    assert_eq!(t.objects[0].primitives.len(), 1);
    assert_eq!(t.objects[0].primitives[0].mode & 0x08, 0x08);
    assert_eq!(
        tmd_scene(&t, &PsxOptions::default()).unwrap().meshes[0].primitives[0]
            .positions
            .len(),
        6
    );
    // The animation and the morph target are noted, not silently dropped.
    let codes: Vec<&str> = model.notes.iter().map(|n| n.code).collect();
    assert!(codes.contains(&"animation-dropped"), "{codes:?}");
    assert!(codes.contains(&"morph-targets-dropped"), "{codes:?}");

    let anim = convert::convert_bytes(&file, None, Format::Tod, &opts).unwrap();
    assert_eq!(anim.extra[0].suffix, ".tmd");
    let Model::Tod(a) = retroanim::read_any(&anim.bytes).unwrap() else {
        panic!("not a TOD")
    };
    assert!(tod::validate(&a).is_empty(), "{:?}", tod::validate(&a));
    let Model::Tmd(m) = retroanim::read_any(&anim.extra[0].bytes).unwrap() else {
        panic!("not a TMD")
    };
    let poses: Vec<tod::Pose> = tod::Player::new(&a, Some(&m)).collect();
    // One second at 60 ticks a second: frames 0..=60, one object (the square's holder is
    // folded into its parent).
    assert_eq!(poses.len(), 61);
    assert!(poses
        .iter()
        .all(|p| p.objects.len() == 1 && p.objects[0].model == Some(0)));
    // CUBICSPLINE with zero tangents from x = 0 to 1 m: halfway it is at 0.5 m = 2048 units;
    // the rotation (LINEAR, 0 → 90° about Y) is at 45°.
    let mid = &poses[30].objects[0].world;
    assert!((mid.t[0] - 2048).abs() <= 1, "{mid:?}");
    let end = &poses[60].objects[0].world;
    assert_eq!(end.t, [4096, 0, 0]);
    let c45 = (4096.0 * std::f64::consts::FRAC_1_SQRT_2).round() as i32;
    assert!((mid.m[0][0] as i32 - c45).abs() <= 2, "{mid:?}");
    assert!((end.m[0][2] as i32).abs() >= 4095, "{end:?}");
    let codes: Vec<&str> = anim.notes.iter().map(|n| n.code).collect();
    assert!(codes.contains(&"weights-dropped"), "{codes:?}");
}

/// A change that makes the square hostile.
type Change = Box<dyn Fn(&mut serde_json::Value, &mut Vec<u8>)>;

/// Each hostile variant of the square is an error, never a panic.
#[test]
fn hostile_files_are_clean_errors() {
    let (json, bin) = square();
    let cases: Vec<(&str, Change)> = vec![
        ("index out of range", Box::new(|_, b| b[48] = 9)),
        (
            "NaN position",
            Box::new(|_, b| b[0..4].copy_from_slice(&f32::NAN.to_le_bytes())),
        ),
        (
            "huge count",
            Box::new(|j, _| j["accessors"][0]["count"] = serde_json::json!(1u64 << 40)),
        ),
        (
            "count past its view",
            Box::new(|j, _| j["accessors"][0]["count"] = serde_json::json!(5)),
        ),
        (
            "missing buffer",
            Box::new(|j, _| j["bufferViews"][0]["buffer"] = serde_json::json!(3)),
        ),
        (
            "missing accessor",
            Box::new(|j, _| j["meshes"][0]["primitives"][0]["indices"] = serde_json::json!(40)),
        ),
        (
            "view past buffer",
            Box::new(|j, _| j["bufferViews"][0]["byteLength"] = serde_json::json!(1 << 30)),
        ),
        (
            "node cycle",
            Box::new(|j, _| j["nodes"][1]["children"] = serde_json::json!([0])),
        ),
        (
            "missing mesh",
            Box::new(|j, _| j["nodes"][1]["mesh"] = serde_json::json!(7)),
        ),
        (
            "missing material",
            Box::new(|j, _| j["meshes"][0]["primitives"][0]["material"] = serde_json::json!(2)),
        ),
        (
            "weights of the wrong size",
            Box::new(|j, _| j["accessors"][6]["count"] = serde_json::json!(1)),
        ),
        (
            "times backwards",
            Box::new(|_, b| b[60..64].copy_from_slice(&5.0f32.to_le_bytes())),
        ),
        (
            "float indices",
            Box::new(|j, _| j["accessors"][1]["componentType"] = serde_json::json!(5126)),
        ),
        (
            "external buffer",
            Box::new(|j, _| j["buffers"][0]["uri"] = serde_json::json!("x.bin")),
        ),
        (
            "not json",
            Box::new(|j, _| *j = serde_json::json!("nothing")),
        ),
    ];
    for (what, change) in cases {
        let (mut j, mut b) = (json.clone(), bin.clone());
        change(&mut j, &mut b);
        let file = glb(&j, &b);
        let r = gltf::read(&file, &Limits::default());
        assert!(r.is_err(), "{what}: read");
        let e = convert::convert_bytes(&file, Some(Format::Glb), Format::Tod, &Options::default())
            .unwrap_err();
        assert!(
            matches!(
                e,
                Error::Malformed { .. } | Error::LimitExceeded { .. } | Error::Unsupported { .. }
            ),
            "{what}: {e:?}"
        );
    }
    // Cut GLBs: every prefix fails cleanly.
    let file = glb(&json, &bin);
    for n in [0, 3, 11, 12, 19, 40, file.len() - 1] {
        assert!(
            gltf::read(&file[..n], &Limits::default()).is_err(),
            "{n} bytes"
        );
    }
}

#[test]
fn a_vertex_beyond_int16_is_named() {
    let (json, mut bin) = square();
    bin[12..16].copy_from_slice(&100.0f32.to_le_bytes());
    let e = convert::convert_bytes(&glb(&json, &bin), None, Format::Tmd, &Options::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("vertex 1") && e.contains("--scale"), "{e}");
    // At 1 cm per unit it fits.
    let opts = Options {
        geometry: convert::Geometry {
            scale: Some(0.01),
            ..Default::default()
        },
        ..Options::default()
    };
    convert::convert_bytes(&glb(&json, &bin), None, Format::Tmd, &opts).unwrap();
}

/// glTF 2.0 makes a scene's `nodes` optional (an empty scene omits it; `[]` is invalid), and
/// our own export of a TOD that shows nothing without its prelude writes such a scene: it
/// imports as an empty scene, and a node list is still read where the scene has one.
#[test]
fn a_scene_without_nodes_imports_empty() {
    let doc = serde_json::json!({
        "asset": {"version": "2.0"},
        "scenes": [{"name": "empty"}],
        "scene": 0
    });
    let bytes = serde_json::to_vec(&doc).unwrap();
    let got = retroanim::import::gltf::read(&bytes, &retroanim::Limits::default()).unwrap();
    assert!(got.scene.nodes.is_empty() && got.scene.meshes.is_empty());
    let doc = serde_json::json!({
        "asset": {"version": "2.0"},
        "nodes": [{"name": "a"}],
        "scenes": [{"nodes": [0]}, {}],
        "scene": 0
    });
    let bytes = serde_json::to_vec(&doc).unwrap();
    let got = retroanim::import::gltf::read(&bytes, &retroanim::Limits::default()).unwrap();
    assert_eq!(got.scene.nodes.len(), 1);
}

#[test]
fn a_node_chain_100000_deep_imports_and_authors_without_recursion() {
    // Each node the only child of the one before, a triangle at the deepest: the hierarchy checks
    // and the TMD author's world matrices walk it without recursion (12,000 levels overflowed
    // the stack before) and in linear time.
    use base64::Engine as _;
    const N: usize = 100_000;
    let mut nodes: Vec<serde_json::Value> = (0..N)
        .map(|i| serde_json::json!({"children": [i + 1], "translation": [0.0, 0.00001, 0.0]}))
        .collect();
    nodes.push(serde_json::json!({"mesh": 0}));
    let pos: Vec<u8> = [0f32, 0., 0., 1., 0., 0., 0., 1., 0.]
        .iter()
        .flat_map(|f| f.to_le_bytes())
        .collect();
    let gltf = serde_json::json!({
        "asset": {"version": "2.0"},
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        "nodes": nodes,
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0}}]}],
        "accessors": [{"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3",
                       "min": [0.0, 0.0, 0.0], "max": [1.0, 1.0, 0.0]}],
        "bufferViews": [{"buffer": 0, "byteLength": 36}],
        "buffers": [{"byteLength": 36, "uri": format!("data:application/octet-stream;base64,{}",
            base64::engine::general_purpose::STANDARD.encode(&pos))}],
    });
    let bytes = gltf.to_string().into_bytes();
    let imported = retroanim::import::gltf::read(&bytes, &Default::default()).unwrap();
    assert_eq!(imported.scene.nodes.len(), N + 1);
    let out = retroanim::convert::convert_bytes(
        &bytes,
        None,
        retroanim::Format::Tmd,
        &Default::default(),
    )
    .unwrap();
    let tmd = retroanim::formats::tmd::read(&out.bytes).unwrap();
    // The triangle sits at the end of the chain: 1 m up (0.00001 × 100,000), in console units
    // (4096 per metre, +Y down): y −4096 for the first two corners, −8192 for the third.
    let ys: Vec<i32> = tmd.objects[0]
        .vertices
        .iter()
        .map(|v| i32::from(v.y))
        .collect();
    assert_eq!(ys.len(), 3, "{ys:?}");
    assert!(
        ys.iter()
            .all(|&y| (y + 4096).abs() < 64 || (y + 8192).abs() < 64),
        "{ys:?}"
    );
    // A loop is still an error, found as quickly.
    let mut looped = gltf.clone();
    looped["nodes"][N]["children"] = serde_json::json!([0]);
    let e = retroanim::import::gltf::read(looped.to_string().as_bytes(), &Default::default())
        .expect_err("a loop");
    assert!(
        e.to_string().contains("two parents") || e.to_string().contains("loops"),
        "{e}"
    );
}
