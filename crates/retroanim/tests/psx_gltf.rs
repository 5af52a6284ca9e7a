//! TOD/TMD/TIM → scene → glTF: node world transforms equal the player's at every frame, the
//! Khronos glTF Validator finds nothing, and textures, cameras, lights and visibility arrive.

mod common;

use common::psx_fixtures::{clut_tim, triangle_tmd};
use retroanim::export::gltf;
use retroanim::formats::gte::Mat;
use retroanim::formats::tmd::scene::tmd_scene;
use retroanim::formats::tod::scene::{self as psx, Axes, PsxOptions};
use retroanim::formats::{tim, tmd, tod};
use retroanim::scene::{Interpolation, Scene, Track, Transform};

type M4 = [[f64; 4]; 4];

fn mul(a: &M4, b: &M4) -> M4 {
    let mut o = [[0.0; 4]; 4];
    for i in 0..4 {
        for j in 0..4 {
            o[i][j] = (0..4).map(|k| a[i][k] * b[k][j]).sum();
        }
    }
    o
}

fn trs(t: [f32; 3], q: [f32; 4], s: [f32; 3]) -> M4 {
    let [x, y, z, w] = q.map(|v| v as f64);
    let r = retroanim::scene::sample::quat_matrix([x, y, z, w]);
    let mut m = [[0.0; 4]; 4];
    for i in 0..3 {
        for j in 0..3 {
            m[i][j] = r[i][j] * s[j] as f64;
        }
        m[i][3] = t[i] as f64;
    }
    m[3][3] = 1.0;
    m
}

/// A STEP channel's value at `time`: the last key at or before it.
fn step<T: Copy>(times: &[f32], values: &[T], time: f32) -> T {
    let i = times.iter().rposition(|&k| k <= time).unwrap_or(0);
    values[i]
}

/// Every node's world matrix at `time`, evaluated from the scene the way a glTF viewer does.
fn world_at(scene: &Scene, time: f32) -> Vec<M4> {
    let local: Vec<M4> = (0..scene.nodes.len())
        .map(|n| {
            let Transform::Trs {
                mut translation,
                mut rotation,
                mut scale,
            } = scene.nodes[n].transform
            else {
                panic!("matrix node")
            };
            for a in &scene.animations {
                for c in a.channels.iter().filter(|c| c.node == n) {
                    assert_eq!(c.interpolation, Interpolation::Step);
                    match &c.track {
                        Track::Translation(v) => translation = step(&c.times, v, time),
                        Track::Rotation(v) => rotation = step(&c.times, v, time),
                        Track::Scale(v) => scale = step(&c.times, v, time),
                        _ => {}
                    }
                }
            }
            trs(translation, rotation, scale)
        })
        .collect();
    (0..scene.nodes.len())
        .map(|n| {
            let mut m = local[n];
            let mut p = scene.nodes[n].parent;
            while let Some(k) = p {
                m = mul(&local[k], &m);
                p = scene.nodes[k].parent;
            }
            m
        })
        .collect()
}

fn visible_at(scene: &Scene, node: usize, time: f32) -> bool {
    let mut v = !scene.nodes[node].hidden;
    for a in &scene.animations {
        for c in a.channels.iter().filter(|c| c.node == node) {
            if let Track::Visibility(vals) = &c.track {
                v = step(&c.times, vals, time);
            }
        }
    }
    v
}

/// The player's world matrix in glTF axes and metres.
fn expected(m: &Mat, scale: f64) -> M4 {
    let c = [1.0, -1.0, -1.0];
    let mut o = [[0.0; 4]; 4];
    for i in 0..3 {
        for j in 0..3 {
            o[i][j] = c[i] * c[j] * m.m[i][j] as f64 / 4096.0;
        }
        o[i][3] = c[i] * m.t[i] as f64 * scale;
    }
    o[3][3] = 1.0;
    o
}

/// The console composes parent chains in 16-bit fixed point (each level truncates), a glTF
/// viewer in floating point: over the janken hand's five-level chains, ~8000 units from the
/// origin, they drift apart by up to a dozen units (0.2 %), and rotations by a few 4096ths.
fn assert_close(got: &M4, want: &M4, what: &str) {
    for i in 0..3 {
        for j in 0..3 {
            assert!(
                (got[i][j] - want[i][j]).abs() < 4e-3,
                "{what}: m[{i}][{j}] {got:?} vs {want:?}"
            );
        }
        assert!(
            (got[i][3] - want[i][3]).abs() < 4e-3,
            "{what}: t[{i}] {got:?} vs {want:?}"
        );
    }
}

fn write_and_validate(scene: &Scene, name: &str) -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    let glb = gltf::write_glb(scene).unwrap();
    let path = dir.path().join(format!("{name}.glb"));
    std::fs::write(&path, &glb).unwrap();
    common::assert_khronos_clean(&path);
    glb
}

fn janken() -> Option<(tmd::Tmd, Vec<(String, tod::Tod)>)> {
    let tmd_path = common::corpus_file("TMD", "addons/graphics/TOD/JANKEN/TMD/TE.TMD")?;
    let model = tmd::read(&std::fs::read(&tmd_path).unwrap()).unwrap();
    let dir = tmd_path.parent()?.parent()?.join("TOD");
    let tods = common::corpus_files("TOD")
        .into_iter()
        .filter(|(_, p)| p.parent() == Some(dir.as_path()))
        .map(|(n, p)| (n, tod::read(&std::fs::read(p).unwrap()).unwrap()))
        .collect();
    Some((model, tods))
}

#[test]
fn janken_world_transforms_match_the_player_at_every_frame() {
    let Some((model, tods)) = janken() else {
        return;
    };
    let (_, appear) = tods
        .iter()
        .find(|(n, _)| n.ends_with("APPEAR.TOD"))
        .unwrap();
    let opts = PsxOptions::default();
    let scene = psx::tod_scene(appear, Some(&model), &opts).unwrap();
    assert!(scene.check().is_empty());
    let names: Vec<&str> = scene.nodes.iter().map(|n| n.name.as_str()).collect();
    let mut player = tod::Player::new(appear, Some(&model));
    let first = appear.frames[0].number;
    let mut checked = 0;
    for pose in player.by_ref() {
        let time = (pose.frame - first) as f32 * appear.ticks_per_frame() as f32 / 60.0;
        let world = world_at(&scene, time);
        for o in &pose.objects {
            let n = names
                .iter()
                .position(|&x| x == format!("object {}", o.id))
                .unwrap();
            assert_close(
                &world[n],
                &expected(&o.world, opts.scale as f64),
                &format!("frame {} object {}", pose.frame, o.id),
            );
            if let Some(k) = o.model {
                let m = names
                    .iter()
                    .position(|&x| x == format!("object {} model {k}", o.id))
                    .unwrap();
                assert_eq!(
                    visible_at(&scene, m, time),
                    o.visible,
                    "frame {} object {}",
                    pose.frame,
                    o.id
                );
            }
            checked += 1;
        }
    }
    assert!(checked > 1000, "{checked} object poses compared");
    let glb = write_and_validate(&scene, "appear");
    assert_eq!(&glb[..4], b"glTF");
}

#[test]
fn every_janken_animation_exports_clean_after_appear() {
    let Some((model, tods)) = janken() else {
        return;
    };
    let (_, appear) = tods
        .iter()
        .find(|(n, _)| n.ends_with("APPEAR.TOD"))
        .unwrap();
    for (name, anim) in &tods {
        let prelude: Vec<&tod::Tod> = if name.ends_with("APPEAR.TOD") {
            vec![]
        } else {
            vec![appear]
        };
        let scene =
            psx::tod_scene_after(&prelude, anim, Some(&model), &PsxOptions::default()).unwrap();
        // The hand's 30 objects, and a model node for each TE.TMD part one of them shows.
        let objects = scene
            .nodes
            .iter()
            .filter(|n| n.name.starts_with("object "))
            .count();
        assert_eq!(objects, 30 + model.objects.len(), "{name}");
        assert!(!scene.animations.is_empty(), "{name}");
        write_and_validate(&scene, name.rsplit('/').next().unwrap());
    }
}

#[test]
fn textured_corpus_model_carries_its_tim() {
    let Some(path) = common::corpus_file("TMD", "addons/graphics/TMD/EARTH.TMD") else {
        return;
    };
    let model = tmd::read(&std::fs::read(&path).unwrap()).unwrap();
    let tex = tim::read(&std::fs::read(path.with_file_name("EARTH4.TIM")).unwrap()).unwrap();
    let opts = PsxOptions {
        tims: vec![tex],
        ..PsxOptions::default()
    };
    let scene = tmd_scene(&model, &opts).unwrap();
    assert_eq!(scene.textures.len(), 1);
    assert_eq!(
        (scene.textures[0].width, scene.textures[0].height),
        (256, 256)
    );
    let prim = &scene.meshes[0].primitives[0];
    assert_eq!(prim.uvs.len(), prim.positions.len());
    assert!(prim
        .uvs
        .iter()
        .all(|uv| (0.0..=1.0).contains(&uv[0]) && (0.0..=1.0).contains(&uv[1])));
    write_and_validate(&scene, "earth");
}

fn frame(number: u32, packets: Vec<tod::Packet>) -> tod::Frame {
    tod::Frame {
        number,
        packets,
        extra_words: vec![],
        size_override: None,
    }
}

/// A hand-built animation with every kind of packet the scene carries.
fn rich_tod() -> tod::Tod {
    use tod::*;
    let create = |id| Packet::new(id, PacketData::ObjectControl(ObjectControl::Create));
    let t = |id, x: i32| {
        Packet::new(
            id,
            PacketData::Coordinate(Coordinate {
                rotation: Some([0, x * 4096, 0]),
                translation: Some([x, 2 * x, 3 * x]),
                ..Coordinate::default()
            }),
        )
    };
    Tod {
        header: Header {
            version: 0,
            resolution: 4,
        },
        frames: vec![
            frame(
                0,
                vec![
                    create(1),
                    create(2),
                    create(3),
                    Packet::new(1, PacketData::TmdId(IdValue::new(1))),
                    Packet::new(2, PacketData::TmdId(IdValue::new(1))),
                    Packet::new(3, PacketData::TmdId(IdValue::new(1))),
                    Packet::new(2, PacketData::Parent(IdValue::new(1))),
                    Packet::new(3, PacketData::Parent(IdValue::new(1))),
                    t(1, 100),
                    t(2, 50),
                    Packet::new(
                        0,
                        PacketData::Light(Light {
                            differential: false,
                            direction: Some([0, 4096, 0]),
                            color: Some(Color {
                                r: 255,
                                g: 128,
                                b: 0,
                                pad: 0,
                            }),
                        }),
                    ),
                    Packet::new(
                        0,
                        PacketData::Camera(Camera::LookAt(LookAtCamera {
                            differential: false,
                            position: Some([0, -1000, -4000, 0, 0, 0]),
                            z_angle: Some(0),
                        })),
                    ),
                ],
            ),
            frame(
                1,
                vec![
                    t(1, 200),
                    // Object 3 changes parent: it is exported as a root keyed in world space.
                    Packet::new(3, PacketData::Parent(IdValue::new(2))),
                    Packet::new(
                        2,
                        PacketData::Attribute(Attribute {
                            mask: 0x7FFF_FFFF,
                            value: 0x8000_0000,
                        }),
                    ),
                ],
            ),
            frame(
                2,
                vec![Packet::new(
                    3,
                    PacketData::ObjectControl(ObjectControl::Kill),
                )],
            ),
        ],
        trailing: vec![],
    }
}

#[test]
fn cameras_lights_hierarchy_and_visibility_arrive() {
    let anim = rich_tod();
    let model = triangle_tmd(1, 0x25, 0x000A);
    let opts = PsxOptions {
        tims: vec![clut_tim()],
        ..PsxOptions::default()
    };
    let scene = psx::tod_scene(&anim, Some(&model), &opts).unwrap();
    let node = |name: &str| scene.nodes.iter().position(|n| n.name == name).unwrap();
    assert_eq!(scene.nodes[node("object 2")].parent, Some(node("object 1")));
    assert_eq!(
        scene.nodes[node("object 3")].parent,
        None,
        "parent changed: flattened"
    );
    assert!(scene.nodes[node("camera 0")].camera.is_some());
    assert!(scene.nodes[node("light 0")].light.is_some());
    // Key times: frame × resolution 4 / 60 s.
    let dt = 4.0 / 60.0;
    let m3 = node("object 3 model 0");
    assert!(visible_at(&scene, m3, 0.0) && visible_at(&scene, m3, dt));
    assert!(!visible_at(&scene, m3, 2.0 * dt), "killed at frame 2");
    let m2 = node("object 2 model 0");
    assert!(
        visible_at(&scene, m2, 0.0) && !visible_at(&scene, m2, dt),
        "display bit"
    );
    let m1 = node("object 1 model 0");
    assert!((0..3).all(|k| visible_at(&scene, m1, k as f32 * dt)));
    let w = world_at(&scene, dt);
    assert!((w[node("object 1")][0][3] - 200.0 / 4096.0).abs() < 1e-6);
    // The look-at camera at (0, -1000, -4000) (up and in front of the screen) looks at the origin.
    let cam = &w[node("camera 0")];
    assert!(
        (cam[1][3] - 1000.0 / 4096.0).abs() < 1e-6 && (cam[2][3] - 4000.0 / 4096.0).abs() < 1e-6
    );
    let forward = [-cam[0][2], -cam[1][2], -cam[2][2]];
    let to_origin = [-cam[0][3], -cam[1][3], -cam[2][3]];
    let len = |v: [f64; 3]| (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    let cos =
        (0..3).map(|i| forward[i] * to_origin[i]).sum::<f64>() / len(forward) / len(to_origin);
    assert!(cos > 0.9999, "camera looks at the reference point: {cos}");
    // The light shines down (console +Y), i.e. glTF −Y: the node's −Z maps to −Y.
    let l = &w[node("light 0")];
    assert!((-l[1][2] + 1.0).abs() < 1e-6, "{l:?}");
    // The texture: a 4-bit TIM through the CLUT the CBA names; colour 0 is transparent, colour
    // 1 red (its STP bit set, opaque without semi-transparency; 31 widens to 255).
    assert_eq!(scene.textures.len(), 1);
    assert_eq!(scene.textures[0].pixels[..8], [0, 0, 0, 0, 255, 0, 0, 255]);
    assert!(matches!(
        scene.materials[0].alpha_mode,
        retroanim::scene::AlphaMode::Mask { .. }
    ));
    assert!(scene.materials[0].unlit);
    let prim = &scene.meshes[0].primitives[0];
    // Corners 1 and 2 swap for counter-clockwise fronts: uv of the packet's corner 2 comes second.
    assert_eq!(prim.uvs[1], [0.0, 0.5]);
    assert_eq!(prim.uvs[2], [0.75, 0.0]);
    write_and_validate(&scene, "rich");
}

#[test]
fn smooth_and_raw_axes_options() {
    let anim = rich_tod();
    let smooth = psx::tod_scene(
        &anim,
        None,
        &PsxOptions {
            smooth: true,
            axes: Axes::Raw,
            ..PsxOptions::default()
        },
    )
    .unwrap();
    let chans: Vec<_> = smooth.animations.iter().flat_map(|a| &a.channels).collect();
    assert!(chans
        .iter()
        .any(|c| matches!(c.track, Track::Translation(_))
            && c.interpolation == Interpolation::Linear));
    // Raw axes: positions keep +Y down, and the camera sits on a turned child.
    let n1 = smooth
        .nodes
        .iter()
        .position(|n| n.name == "object 1")
        .unwrap();
    let Transform::Trs { translation, .. } = smooth.nodes[n1].transform else {
        panic!()
    };
    assert_eq!(
        translation,
        [100.0 / 4096.0, 200.0 / 4096.0, 300.0 / 4096.0]
    );
    assert!(smooth
        .nodes
        .iter()
        .any(|n| n.name == "camera 0 lens" && n.camera.is_some()));
    write_and_validate(&smooth, "smooth");
}

/// Exports `anim` (played after `prelude` on the same object table) with the janken hand, has
/// Blender import it, and checks every object's world pose at seven sampled frames against the
/// player.
fn blender_check_janken(model: &tmd::Tmd, prelude: &[&tod::Tod], anim: &tod::Tod) {
    let opts = PsxOptions::default();
    let scene = psx::tod_scene_after(prelude, anim, Some(model), &opts).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let glb = dir.path().join("janken.glb");
    std::fs::write(&glb, gltf::write_glb(&scene).unwrap()).unwrap();
    let mut player: Option<tod::Player> = None;
    for t in prelude {
        let mut p = match player.take() {
            None => tod::Player::new(t, Some(model)),
            Some(p) => p.then(t),
        };
        while p.advance() {}
        player = Some(p);
    }
    let mut player = match player {
        None => tod::Player::new(anim, Some(model)),
        Some(p) => p.then(anim),
    };
    let poses: Vec<tod::Pose> = player.by_ref().collect();
    let n = poses.len();
    assert!(n > 1, "{n} poses");
    let mut picks = vec![0, 1, n / 4, n / 2, 3 * n / 4, n - 2, n - 1];
    picks.sort_unstable();
    picks.dedup();
    let first = poses[0].frame;
    let frames: Vec<serde_json::Value> = picks
        .iter()
        .map(|&k| {
            let pose = &poses[k];
            let objects: serde_json::Map<String, serde_json::Value> = pose
                .objects
                .iter()
                .map(|o| {
                    let m = expected(&o.world, opts.scale as f64);
                    (
                        format!("object {}", o.id),
                        serde_json::json!({
                            "t": [m[0][3], m[1][3], m[2][3]],
                            "m": [[m[0][0], m[0][1], m[0][2]], [m[1][0], m[1][1], m[1][2]], [m[2][0], m[2][1], m[2][2]]],
                        }),
                    )
                })
                .collect();
            serde_json::json!({
                "time": (pose.frame - first) as f64 * anim.ticks_per_frame() as f64 / 60.0,
                "nodes": objects,
            })
        })
        .collect();
    let want = dir.path().join("expected.json");
    std::fs::write(
        &want,
        serde_json::to_vec(&serde_json::json!({ "frames": frames })).unwrap(),
    )
    .unwrap();
    common::run_blender_check("check_poses.py", &[glb.as_path(), want.as_path()]);
}

#[test]
fn blender_sees_the_janken_hand_where_the_player_puts_it() {
    let Some((model, tods)) = janken() else {
        return;
    };
    let (_, appear) = tods
        .iter()
        .find(|(n, _)| n.ends_with("APPEAR.TOD"))
        .unwrap();
    // A TOD that creates objects is a whole animation; one that does not moves the hand
    // APPEAR.TOD created, and plays after it (as the sample program does).
    let creates = |t: &tod::Tod| {
        t.frames.iter().flat_map(|f| &f.packets).any(|p| {
            matches!(
                p.data,
                tod::PacketData::ObjectControl(tod::ObjectControl::Create)
            )
        })
    };
    assert_eq!(tods.len(), 9, "the janken set has nine TODs");
    for (name, anim) in &tods {
        eprintln!("Blender check of {name}");
        let prelude: Vec<&tod::Tod> = if creates(anim) { vec![] } else { vec![appear] };
        blender_check_janken(&model, &prelude, anim);
    }
}

#[test]
fn shipped_sample_converts_clean() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../samples");
    let anim = tod::read(&std::fs::read(root.join("swing.tod")).unwrap()).unwrap();
    let link = tmd::read(&std::fs::read(root.join("link.tmd")).unwrap()).unwrap();
    let scene = psx::tod_scene(&anim, Some(&link), &PsxOptions::default()).unwrap();
    let names: Vec<&str> = scene.nodes.iter().map(|n| n.name.as_str()).collect();
    for id in 1..=4 {
        assert!(
            names.contains(&format!("object {id}").as_str()),
            "{names:?}"
        );
        assert!(
            names.contains(&format!("object {id} model 0").as_str()),
            "{names:?}"
        );
    }
    // The last link is killed on the last frame: its model is hidden there.
    let last = names.iter().position(|&n| n == "object 4 model 0").unwrap();
    let end = (anim.frames.len() - 1) as f32 * 2.0 / 60.0;
    assert!(visible_at(&scene, last, 0.0) && !visible_at(&scene, last, end));
    write_and_validate(&scene, "swing");
}

#[test]
fn every_corpus_tod_plays_to_its_last_frame_and_converts() {
    let files = common::corpus_files("TOD");
    for (k, (name, path)) in files.iter().enumerate() {
        let anim = tod::read(&std::fs::read(path).unwrap()).unwrap();
        let mut player = tod::Player::new(&anim, None);
        let last = player.by_ref().last().unwrap();
        assert_eq!(last.applied, Some(anim.frames.len() - 1), "{name}");
        let scene = psx::tod_scene(&anim, None, &PsxOptions::default()).unwrap();
        assert!(scene.check().is_empty(), "{name}");
        // The validator takes a moment per file: a sample of the corpus.
        if k % 15 == 0 {
            write_and_validate(&scene, &format!("corpus{k}"));
        }
    }
}

mod hostile {
    use super::*;
    use proptest::prelude::*;
    use tod::*;

    fn arb_packet() -> impl Strategy<Value = Packet> {
        let id = 0u16..5;
        prop_oneof![
            id.clone()
                .prop_map(|i| Packet::new(i, PacketData::ObjectControl(ObjectControl::Create))),
            id.clone()
                .prop_map(|i| Packet::new(i, PacketData::ObjectControl(ObjectControl::Kill))),
            (id.clone(), 0u16..6)
                .prop_map(|(i, p)| Packet::new(i, PacketData::Parent(IdValue::new(p)))),
            (id.clone(), 0u16..3)
                .prop_map(|(i, t)| Packet::new(i, PacketData::TmdId(IdValue::new(t)))),
            (
                id.clone(),
                any::<[i32; 3]>(),
                any::<[i16; 3]>(),
                any::<bool>()
            )
                .prop_map(|(i, r, s, differential)| {
                    Packet::new(
                        i,
                        PacketData::Coordinate(Coordinate {
                            differential,
                            rotation: Some(r),
                            scale: Some(Scale {
                                x: s[0],
                                y: s[1],
                                z: s[2],
                                pad: 0,
                            }),
                            translation: Some(r.map(|v| v >> 8)),
                        }),
                    )
                }),
            (id.clone(), any::<u32>()).prop_map(|(i, value)| Packet::new(
                i,
                PacketData::Attribute(Attribute {
                    mask: 0x7FFF_FFFF,
                    value: value & 0x8000_0000,
                })
            )),
            (id.clone(), any::<[i32; 6]>()).prop_map(|(i, p)| Packet::new(
                i,
                PacketData::Camera(Camera::LookAt(LookAtCamera {
                    differential: false,
                    position: Some(p.map(|v| v >> 12)),
                    z_angle: Some(p[0]),
                }))
            )),
            (id, any::<[i32; 3]>()).prop_map(|(i, d)| Packet::new(
                i,
                PacketData::Light(Light {
                    differential: true,
                    direction: Some(d.map(|v| v >> 12)),
                    color: None,
                })
            )),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        #[test]
        fn any_animation_converts_to_a_consistent_scene(
            frames in prop::collection::vec((0u32..5, prop::collection::vec(arb_packet(), 0..8)), 1..6),
            smooth in any::<bool>(),
        ) {
            let anim = Tod {
                header: Header { version: 0, resolution: 1 },
                frames: frames.into_iter().map(|(n, p)| frame(n, p)).collect(),
                trailing: vec![],
            };
            let model = triangle_tmd(1, 0x25, 0x000A);
            let opts = PsxOptions { smooth, ..PsxOptions::default() };
            let scene = psx::tod_scene(&anim, Some(&model), &opts).unwrap();
            prop_assert!(scene.check().is_empty(), "{:?}", scene.check());
            prop_assert!(gltf::write_glb(&scene).is_ok());
        }
    }
}
