//! The glTF exporter: a small scene with every feature, checked by structure and by the
//! Khronos glTF Validator (0 errors, 0 warnings).

mod common;

use retroanim::export::gltf;
use retroanim::scene::*;

fn checker() -> Texture {
    let mut pixels = Vec::new();
    for y in 0..4 {
        for x in 0..4 {
            let on = (x + y) % 2 == 0;
            pixels.extend_from_slice(if on {
                &[255, 255, 255, 255]
            } else {
                &[200, 30, 30, 255]
            });
        }
    }
    Texture {
        name: "checker".into(),
        width: 4,
        height: 4,
        pixels,
        filter: TextureFilter::Nearest,
        repeat: true,
    }
}

fn quad() -> Primitive {
    let positions = vec![
        [-1.0, 0.0, -1.0],
        [1.0, 0.0, -1.0],
        [1.0, 0.0, 1.0],
        [-1.0, 0.0, 1.0],
    ];
    Primitive {
        mode: PrimitiveMode::Triangles,
        targets: vec![
            MorphTarget {
                kind: MorphTargetKind::Absolute,
                positions: positions.iter().map(|p| [p[0], p[1] + 1.0, p[2]]).collect(),
                normals: Vec::new(),
            },
            MorphTarget {
                kind: MorphTargetKind::Delta,
                positions: vec![[0.5, 0.0, 0.0], [0.0; 3], [-0.5, 0.0, 0.0], [0.0; 3]],
                normals: Vec::new(),
            },
        ],
        positions,
        // Not unit length on purpose: the exporter normalises.
        normals: vec![[0.0, 2.0, 0.0]; 4],
        uvs: vec![[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]],
        colors: vec![],
        // Counter-clockwise seen from +Y.
        indices: vec![0, 2, 1, 0, 3, 2],
        material: Some(0),
        joints: vec![],
        weights: vec![],
    }
}

fn triangle(material: usize) -> Primitive {
    Primitive {
        positions: vec![[0.0, 0.0, 0.0], [0.2, 0.0, 0.0], [0.0, 0.2, 0.0]],
        colors: vec![
            [1.0, 0.0, 0.0, 1.0],
            [0.0, 1.0, 0.0, 1.0],
            [0.0, 0.0, 1.5, 1.0],
        ],
        uvs: vec![[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]],
        material: Some(material),
        ..Primitive::default()
    }
}

/// A scene using every feature of the model once.
pub fn sample_scene() -> Scene {
    let node = |name: &str, parent: Option<usize>| Node {
        parent,
        ..Node::new(name)
    };
    let mut nodes = vec![
        node("root", None),
        Node {
            mesh: Some(0),
            transform: Transform::translation([0.0, 1.0, 0.0]),
            extras: serde_json::json!({"tod_object": 1}),
            ..node("body", Some(0))
        },
        Node {
            mesh: Some(1),
            // 90° about Z, scale 2: a matrix node that is also animated.
            transform: Transform::Matrix([
                0.0, 2.0, 0.0, 0.0, -2.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.5, 0.0, 0.0, 1.0,
            ]),
            ..node("arm", Some(1))
        },
        Node {
            camera: Some(0),
            transform: Transform::translation([0.0, 2.0, 8.0]),
            ..node("camera", Some(0))
        },
        Node {
            light: Some(0),
            transform: Transform::Trs {
                translation: [0.0; 3],
                rotation: [-0.3826834, 0.0, 0.0, 0.9238795],
                scale: [1.0; 3],
            },
            ..node("sun", None)
        },
        Node {
            light: Some(2),
            ..node("lamp", Some(2))
        },
        Node {
            mesh: Some(1),
            hidden: true,
            ..node("ghost", None)
        },
    ];
    nodes[1].weights = vec![0.0, 0.0];
    Scene {
        name: Some("sample".into()),
        skins: vec![],
        nodes,
        meshes: vec![
            Mesh {
                name: "quad".into(),
                primitives: vec![quad()],
                target_names: vec!["up".into(), "twist".into()],
                extras: serde_json::Value::Null,
            },
            Mesh {
                name: "tri".into(),
                primitives: vec![triangle(1)],
                ..Mesh::default()
            },
            Mesh {
                name: "unused".into(),
                primitives: vec![triangle(2)],
                ..Mesh::default()
            },
        ],
        materials: vec![
            Material {
                name: "textured".into(),
                texture: Some(0),
                double_sided: true,
                alpha_mode: AlphaMode::Mask { cutoff: 0.5 },
                ..Material::default()
            },
            Material {
                name: "vertex colours".into(),
                unlit: true,
                ..Material::default()
            },
            Material {
                name: "only on the unused mesh".into(),
                texture: Some(1),
                ..Material::default()
            },
        ],
        textures: vec![checker(), checker()],
        cameras: vec![
            Camera {
                name: "main".into(),
                projection: Projection::Perspective {
                    yfov: 0.8,
                    znear: 0.1,
                    zfar: Some(100.0),
                    aspect_ratio: Some(4.0 / 3.0),
                },
            },
            Camera {
                name: "unused".into(),
                projection: Projection::Orthographic {
                    xmag: 1.0,
                    ymag: 1.0,
                    znear: 0.0,
                    zfar: 10.0,
                },
            },
        ],
        lights: vec![
            Light {
                name: "sun".into(),
                kind: LightKind::Directional,
                color: [1.0, 0.9, 0.8],
                intensity: 2.0,
                range: None,
            },
            Light {
                name: "unused".into(),
                kind: LightKind::Point,
                color: [1.0; 3],
                intensity: 1.0,
                range: Some(5.0),
            },
            Light {
                name: "lamp".into(),
                kind: LightKind::Spot {
                    inner_cone_angle: 0.2,
                    outer_cone_angle: 0.6,
                },
                color: [1.0; 3],
                intensity: 10.0,
                range: Some(20.0),
            },
        ],
        animations: vec![
            Animation {
                name: "walk".into(),
                channels: vec![
                    Channel {
                        node: 0,
                        interpolation: Interpolation::Linear,
                        times: vec![0.0, 1.0, 2.0],
                        // Not unit length on purpose.
                        track: Track::Rotation(vec![
                            [0.0, 0.0, 0.0, 2.0],
                            [0.0, 0.7, 0.0, 0.7],
                            [0.0, 1.0, 0.0, 0.0],
                        ]),
                    },
                    Channel {
                        node: 1,
                        interpolation: Interpolation::Linear,
                        times: vec![0.0, 2.0],
                        track: Track::Translation(vec![[0.0, 1.0, 0.0], [0.0, 2.0, 0.0]]),
                    },
                    Channel {
                        node: 1,
                        interpolation: Interpolation::Step,
                        times: vec![0.0, 0.5, 1.0],
                        track: Track::Weights(vec![vec![0.0, 0.0], vec![1.0, 0.0], vec![0.0, 1.0]]),
                    },
                    Channel {
                        node: 2,
                        interpolation: Interpolation::Linear,
                        times: vec![0.0, 2.0],
                        track: Track::Scale(vec![[2.0; 3], [1.0; 3]]),
                    },
                    Channel {
                        node: 2,
                        interpolation: Interpolation::Step,
                        times: vec![0.0, 1.0, 1.5],
                        track: Track::Visibility(vec![true, false, true]),
                    },
                    Channel {
                        node: 3,
                        interpolation: Interpolation::Cubicspline,
                        times: vec![0.0, 2.0],
                        track: Track::Translation(vec![
                            [0.0; 3],
                            [0.0, 2.0, 8.0],
                            [1.0, 0.0, 0.0],
                            [-1.0, 0.0, 0.0],
                            [0.0, 2.0, 6.0],
                            [0.0; 3],
                        ]),
                    },
                    Channel {
                        node: 6,
                        interpolation: Interpolation::Step,
                        times: vec![0.5, 1.0],
                        track: Track::Visibility(vec![true, false]),
                    },
                ],
                extras: serde_json::json!({"source": "test"}),
            },
            Animation {
                name: "empty".into(),
                ..Animation::default()
            },
        ],
        extras: serde_json::json!({"generator_test": true}),
    }
}

fn glb_json(glb: &[u8]) -> serde_json::Value {
    assert_eq!(&glb[..4], b"glTF");
    assert_eq!(
        u32::from_le_bytes(glb[8..12].try_into().unwrap()) as usize,
        glb.len()
    );
    let n = u32::from_le_bytes(glb[12..16].try_into().unwrap()) as usize;
    assert_eq!(&glb[16..20], b"JSON");
    serde_json::from_slice(&glb[20..20 + n]).unwrap()
}

#[test]
fn sample_scene_is_consistent() {
    assert_eq!(sample_scene().check(), vec![]);
}

#[test]
fn export_keeps_structure_and_drops_unused_objects() {
    let glb = gltf::write_glb(&sample_scene()).unwrap();
    let j = glb_json(&glb);
    assert_eq!(j["asset"]["version"], "2.0");
    assert_eq!(j["nodes"].as_array().unwrap().len(), 7);
    assert_eq!(j["nodes"][0]["children"], serde_json::json!([1, 3]));
    assert_eq!(j["scenes"][0]["nodes"], serde_json::json!([0, 4, 6]));
    // Unused mesh, material, texture, camera, light left out and renumbered.
    assert_eq!(j["meshes"].as_array().unwrap().len(), 2);
    assert_eq!(j["materials"].as_array().unwrap().len(), 2);
    assert_eq!(j["textures"].as_array().unwrap().len(), 1);
    assert_eq!(j["cameras"].as_array().unwrap().len(), 1);
    let lights = &j["extensions"]["KHR_lights_punctual"]["lights"];
    assert_eq!(lights.as_array().unwrap().len(), 2);
    assert_eq!(
        j["nodes"][5]["extensions"]["KHR_lights_punctual"]["light"],
        1
    );
    assert_eq!(lights[1]["type"], "spot");
    assert_eq!(
        j["extensionsUsed"],
        serde_json::json!(["KHR_lights_punctual", "KHR_materials_unlit"])
    );
    // Morph targets named, as displacements.
    assert_eq!(
        j["meshes"][0]["extras"]["targetNames"],
        serde_json::json!(["up", "twist"])
    );
    let up = j["meshes"][0]["primitives"][0]["targets"][0]["POSITION"]
        .as_u64()
        .unwrap() as usize;
    assert_eq!(
        j["accessors"][up]["max"],
        serde_json::json!([0.0, 1.0, 0.0])
    );
    // Matrix decomposed; hidden node at scale 0.
    let arm = &j["nodes"][2];
    assert!(arm.get("matrix").is_none());
    assert_eq!(arm["scale"], serde_json::json!([2.0, 2.0, 2.0]));
    assert_eq!(j["nodes"][6]["scale"], serde_json::json!([0.0, 0.0, 0.0]));
    // One animation (the empty one is dropped); visibility merged into one scale channel.
    let anims = j["animations"].as_array().unwrap();
    assert_eq!(anims.len(), 1);
    let channels = anims[0]["channels"].as_array().unwrap();
    assert_eq!(channels.len(), 6);
    let scale_of = |node: u64| {
        channels
            .iter()
            .filter(|c| c["target"]["node"] == node && c["target"]["path"] == "scale")
            .count()
    };
    assert_eq!(scale_of(2), 1);
    assert_eq!(scale_of(6), 1);
    assert!(channels.iter().any(|c| c["target"]["path"] == "weights"));
}

#[test]
fn gltf_embeds_the_buffer_as_a_data_uri() {
    let text = gltf::write_gltf(&sample_scene()).unwrap();
    let j: serde_json::Value = serde_json::from_slice(&text).unwrap();
    let uri = j["buffers"][0]["uri"].as_str().unwrap();
    assert!(uri.starts_with("data:application/octet-stream;base64,"));
}

#[test]
fn inconsistent_scenes_are_refused_with_every_problem() {
    let mut s = sample_scene();
    s.nodes[1].mesh = Some(9);
    s.animations[0].channels[1].times = vec![1.0, 1.0];
    let e = gltf::write_glb(&s).unwrap_err();
    let text = e.to_string();
    assert!(text.contains("/nodes/1/mesh"), "{text}");
    assert!(text.contains("/animations/0/channels/1/times/1"), "{text}");
    // Kept apart to the end: a script gets each problem's path, not one joined message.
    let retroanim::Error::InconsistentScene { problems, .. } = e else {
        panic!("{e:?}")
    };
    let paths: Vec<&str> = problems.iter().map(|p| p.path.as_str()).collect();
    assert!(paths.contains(&"/nodes/1/mesh"), "{paths:?}");
    assert!(
        paths.contains(&"/animations/0/channels/1/times/1"),
        "{paths:?}"
    );
    assert_eq!(problems, s.check(), "every problem the check finds");
}

#[test]
fn khronos_validator_accepts_glb_and_gltf() {
    let dir = tempfile::tempdir().unwrap();
    let scene = sample_scene();
    for (file, bytes) in [
        ("sample.glb", gltf::write_glb(&scene).unwrap()),
        ("sample.gltf", gltf::write_gltf(&scene).unwrap()),
    ] {
        let path = dir.path().join(file);
        std::fs::write(&path, bytes).unwrap();
        if let Some(report) = common::assert_khronos_clean(&path) {
            // The validator saw what we meant to write.
            let info = &report["info"];
            assert_eq!(info["animationCount"], 1, "{info}");
            assert_eq!(info["materialCount"], 2, "{info}");
            assert_eq!(info["hasMorphTargets"], true, "{info}");
            assert_eq!(info["hasTextures"], true, "{info}");
        }
    }
}

#[test]
fn empty_scene_is_valid() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = Scene::default();
    s.nodes.push(Node::new("only"));
    let path = dir.path().join("empty.glb");
    std::fs::write(&path, gltf::write_glb(&s).unwrap()).unwrap();
    common::assert_khronos_clean(&path);
}

#[test]
#[ignore = "writes the sample scene to $RETROANIM_SAMPLE_OUT for inspection"]
fn write_sample_scene() {
    let dir = std::env::var("RETROANIM_SAMPLE_OUT").unwrap_or_else(|_| ".".into());
    let dir = std::path::Path::new(&dir);
    std::fs::write(
        dir.join("sample.glb"),
        gltf::write_glb(&sample_scene()).unwrap(),
    )
    .unwrap();
    std::fs::write(
        dir.join("sample.gltf"),
        gltf::write_gltf(&sample_scene()).unwrap(),
    )
    .unwrap();
}

#[test]
fn blender_imports_the_sample_scene_as_meant() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sample.glb");
    std::fs::write(&path, gltf::write_glb(&sample_scene()).unwrap()).unwrap();
    common::run_blender_check("check_sample_scene.py", &[&path]);
}

/// Two joints (a root and a child moved 1 m up and turned 90° about Z) and a skinned bar whose
/// top vertices follow the child, the middle ones half and half.
fn skinned_scene() -> Scene {
    use retroanim::scene::Skin;
    let mut nodes = vec![Node::new("hip"), Node::new("knee"), Node::new("bar")];
    nodes[1].parent = Some(0);
    nodes[1].transform = Transform::translation([0.0, 1.0, 0.0]);
    nodes[2].mesh = Some(0);
    nodes[2].skin = Some(0);
    let positions = vec![
        [0.0, 0.0, 0.0],
        [0.1, 0.0, 0.0],
        [0.0, 1.0, 0.0],
        [0.1, 1.0, 0.0],
        [0.0, 2.0, 0.0],
        [0.1, 2.0, 0.0],
    ];
    let prim = Primitive {
        indices: vec![0, 1, 2, 1, 3, 2, 2, 3, 4, 3, 5, 4],
        joints: vec![
            [0, 0, 0, 0],
            [0, 0, 0, 0],
            [0, 1, 0, 0],
            [0, 1, 0, 0],
            [1, 0, 0, 0],
            [1, 0, 0, 0],
        ],
        weights: vec![
            [1.0, 0.0, 0.0, 0.0],
            [1.0, 0.0, 0.0, 0.0],
            [0.5, 0.5, 0.0, 0.0],
            [0.5, 0.5, 0.0, 0.0],
            [1.0, 0.0, 0.0, 0.0],
            [1.0, 0.0, 0.0, 0.0],
        ],
        positions,
        ..Primitive::default()
    };
    let mut ibm_knee = [0.0f32; 16];
    for i in 0..4 {
        ibm_knee[i * 5] = 1.0;
    }
    ibm_knee[13] = -1.0;
    let mut identity = [0.0f32; 16];
    for i in 0..4 {
        identity[i * 5] = 1.0;
    }
    Scene {
        nodes,
        meshes: vec![Mesh {
            name: "bar".into(),
            primitives: vec![prim],
            ..Mesh::default()
        }],
        skins: vec![Skin {
            name: "legs".into(),
            joints: vec![0, 1],
            inverse_bind_matrices: vec![identity, ibm_knee],
        }],
        animations: vec![Animation {
            name: "bend".into(),
            channels: vec![Channel {
                node: 1,
                interpolation: Interpolation::Linear,
                times: vec![0.0, 1.0],
                track: Track::Rotation(vec![
                    [0.0, 0.0, 0.0, 1.0],
                    [
                        0.0,
                        0.0,
                        std::f32::consts::FRAC_1_SQRT_2,
                        std::f32::consts::FRAC_1_SQRT_2,
                    ],
                ]),
            }],
            extras: serde_json::Value::Null,
        }],
        ..Scene::default()
    }
}

#[test]
fn skins_export_with_joints_weights_and_inverse_bind_matrices() {
    let scene = skinned_scene();
    assert_eq!(scene.check(), vec![]);
    let glb = gltf::write_glb(&scene).unwrap();
    let j = glb_json(&glb);
    assert_eq!(j["nodes"][2]["skin"], 0);
    assert_eq!(j["skins"][0]["joints"], serde_json::json!([0, 1]));
    let ibm = &j["accessors"][j["skins"][0]["inverseBindMatrices"].as_u64().unwrap() as usize];
    assert_eq!(
        (ibm["type"].as_str(), ibm["count"].as_u64()),
        (Some("MAT4"), Some(2))
    );
    let attrs = &j["meshes"][0]["primitives"][0]["attributes"];
    let joints = &j["accessors"][attrs["JOINTS_0"].as_u64().unwrap() as usize];
    assert_eq!(joints["componentType"], 5123, "unsigned short joints");
    assert_eq!(joints["type"], "VEC4");
    assert!(attrs["WEIGHTS_0"].is_u64());
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("skin.glb");
    std::fs::write(&path, &glb).unwrap();
    common::assert_khronos_clean(&path);
}

#[test]
fn inconsistent_skins_are_refused() {
    let mut s = skinned_scene();
    s.skins[0].inverse_bind_matrices.pop();
    s.meshes[0].primitives[0].weights[2] = [0.5, 0.4, 0.0, 0.0];
    s.meshes[0].primitives[0].joints[4] = [2, 0, 0, 0];
    s.nodes.push(Node::new("other root"));
    s.skins[0].joints.push(3);
    let paths: Vec<String> = s.check().into_iter().map(|e| e.path).collect();
    assert_eq!(
        paths,
        [
            "/skins/0/joints",
            "/skins/0/inverse_bind_matrices",
            "/meshes/0/primitives/0/weights/2",
        ]
    );
    s.skins[0].joints.pop();
    s.skins[0].joints.push(9);
    assert!(gltf::write_glb(&s).is_err());
}
