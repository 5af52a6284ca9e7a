//! glTF cameras and lights → TOD camera and light packets, checked by playing the TOD: a
//! hand-built glTF with a moving, turning, rolling camera and a turning directional light comes
//! back from the TOD player (through the TOD bridge) with the camera's pose and the light's
//! direction and colour at every frame within the fixed-point step; a hand-built TOD with
//! look-at cameras and lights goes TOD → GLB → TOD (both axis conventions) with the same
//! positions, view directions, rolls, light directions and colours; what a TOD cannot hold is
//! noted with its count. (No corpus TOD holds a camera or light packet: the 85 distinct corpus
//! TODs hold coordinate, TMD ID, parent, attribute and object-control packets only.)

mod common;

use retroanim::convert::{self, Axes, Geometry, Options};
use retroanim::formats::tmd::scene::PsxOptions;
use retroanim::formats::{tmd, tod};
use retroanim::import::gltf;
use retroanim::scene::{key_time, Scene};
use retroanim::{Format, Limits, Model};

use common::glb::{f32s, glb};
use common::worlds_at;

/// `[x, y, z, w]` for `deg` degrees about the unit `axis`.
fn axis_angle(axis: [f32; 3], deg: f32) -> [f32; 4] {
    let (s, c) = (deg.to_radians() / 2.0).sin_cos();
    [axis[0] * s, axis[1] * s, axis[2] * s, c]
}

/// The Hamilton product `a · b`.
fn qmul(a: [f32; 4], b: [f32; 4]) -> [f32; 4] {
    let [ax, ay, az, aw] = a;
    let [bx, by, bz, bw] = b;
    [
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by - ax * bz + ay * bw + az * bx,
        aw * bz + ax * by - ay * bx + az * bw,
        aw * bw - ax * bx - ay * by - az * bz,
    ]
}

/// The vertical field of view the TOD bridge gives a console camera.
fn console_yfov() -> f32 {
    2.0 * (120.0f32 / 256.0).atan()
}

/// A triangle on node 0; a camera on node 1 moving from (0, 1, 5) to (2, 1.5, 4) m while it
/// turns 30° left, tilts and rolls 10°; a directional light on node 2 turning from straight
/// down to 45° across, orange. One second, LINEAR keys.
fn rigged() -> Vec<u8> {
    let (x, y, z) = ([1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]);
    let mut bin = Vec::new();
    bin.extend(f32s(&[0.0, 1.0])); // 0: times
    bin.extend(f32s(&[0.0, 1.0, 5.0, 2.0, 1.5, 4.0])); // 8: camera translations
    let c0 = axis_angle(x, -10.0);
    let c1 = qmul(
        qmul(axis_angle(y, 30.0), axis_angle(x, -20.0)),
        axis_angle(z, 10.0),
    );
    bin.extend(f32s(&[c0, c1].concat())); // 32: camera rotations
    let l0 = axis_angle(x, -90.0);
    let l1 = qmul(axis_angle(y, 45.0), axis_angle(x, -45.0));
    bin.extend(f32s(&[l0, l1].concat())); // 64: light rotations
    bin.extend(f32s(&[0.0, 0.0, 0.0, 0.5, 0.0, 0.0, 0.0, 0.5, 0.0])); // 96: triangle
    let view =
        |o: usize, l: usize| serde_json::json!({"buffer": 0, "byteOffset": o, "byteLength": l});
    let json = serde_json::json!({
        "asset": {"version": "2.0"},
        "extensionsUsed": ["KHR_lights_punctual"],
        "extensions": {"KHR_lights_punctual": {"lights": [
            {"name": "sun", "type": "directional", "color": [1.0, 0.5, 0.25]}
        ]}},
        "scene": 0,
        "scenes": [{"nodes": [0, 1, 2]}],
        "nodes": [
            {"name": "body", "mesh": 0},
            {"name": "cam", "camera": 0},
            {"name": "sun", "extensions": {"KHR_lights_punctual": {"light": 0}}}
        ],
        "cameras": [{"type": "perspective", "perspective": {"yfov": console_yfov(), "znear": 0.01}}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 4}}]}],
        "buffers": [{"byteLength": bin.len()}],
        "bufferViews": [view(0, 8), view(8, 24), view(32, 32), view(64, 32), view(96, 36)],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": 2, "type": "SCALAR", "min": [0], "max": [1]},
            {"bufferView": 1, "componentType": 5126, "count": 2, "type": "VEC3"},
            {"bufferView": 2, "componentType": 5126, "count": 2, "type": "VEC4"},
            {"bufferView": 3, "componentType": 5126, "count": 2, "type": "VEC4"},
            {"bufferView": 4, "componentType": 5126, "count": 3, "type": "VEC3", "min": [0,0,0], "max": [0.5,0.5,0]}
        ],
        "animations": [linear(&[(1, "translation", 1), (1, "rotation", 2), (2, "rotation", 3)])]
    });
    glb(&json, &bin)
}

/// An animation of LINEAR channels keyed at accessor 0's times: (node, path, output accessor).
fn linear(channels: &[(usize, &str, usize)]) -> serde_json::Value {
    let (mut c, mut s) = (Vec::new(), Vec::new());
    for (k, &(node, path, output)) in channels.iter().enumerate() {
        c.push(serde_json::json!({"sampler": k, "target": {"node": node, "path": path}}));
        s.push(serde_json::json!({"input": 0, "output": output, "interpolation": "LINEAR"}));
    }
    serde_json::json!({"channels": c, "samplers": s})
}

fn node(s: &Scene, name: &str) -> usize {
    s.nodes
        .iter()
        .position(|n| n.name == name)
        .unwrap_or_else(|| panic!("no node {name}"))
}

/// Column `j` of a column-major matrix, scaled to unit length.
fn axis(m: &[f64; 16], j: usize) -> [f64; 3] {
    let v = [m[4 * j], m[4 * j + 1], m[4 * j + 2]];
    let l = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    v.map(|x| x / l)
}

fn apart(a: [f64; 3], b: [f64; 3]) -> f64 {
    (0..3).map(|i| (a[i] - b[i]).abs()).fold(0.0, f64::max)
}

/// The TOD and TMD a GLB converts to, with the conversion's notes.
fn to_tod(file: &[u8], opts: &Options) -> (tod::Tod, tmd::Tmd, Vec<String>) {
    let out = convert::convert_bytes(file, None, Format::Tod, opts).unwrap();
    let Model::Tod(anim) = retroanim::read_any(&out.bytes).unwrap() else {
        panic!("not a TOD")
    };
    let extra = out.extra.iter().find(|e| e.format == Format::Tmd).unwrap();
    let Model::Tmd(model) = retroanim::read_any(&extra.bytes).unwrap() else {
        panic!("not a TMD")
    };
    assert!(
        tod::validate(&anim).is_empty(),
        "{:?}",
        tod::validate(&anim)
    );
    let notes = out.notes.iter().map(|n| n.message.clone()).collect();
    (anim, model, notes)
}

#[test]
fn a_gltf_camera_and_light_come_back_from_the_player() {
    let file = rigged();
    let sent = gltf::read(&file, &Limits::default()).unwrap().scene;
    let (anim, model, notes) = to_tod(&file, &Options::default());
    assert!(notes.is_empty(), "{notes:?}");
    // The camera and the light are packets, not objects: one object, the triangle.
    let kinds = |k: tod::PacketKind| {
        anim.frames
            .iter()
            .flat_map(|f| &f.packets)
            .filter(|p| p.kind() == k)
            .count()
    };
    assert_eq!(kinds(tod::PacketKind::ObjectControl), 1);
    assert!(
        kinds(tod::PacketKind::Camera) > 30,
        "the camera moves every frame"
    );
    assert!(
        kinds(tod::PacketKind::Light) > 30,
        "the light turns every frame"
    );
    let back =
        retroanim::formats::tod::scene::tod_scene(&anim, Some(&model), &PsxOptions::default())
            .unwrap();
    assert_eq!(back.cameras.len(), 1);
    assert_eq!(back.lights.len(), 1);
    let (cam, sun) = (node(&sent, "cam"), node(&sent, "sun"));
    let (cam2, sun2) = (node(&back, "camera 0"), node(&back, "light 0"));
    let unit = 1.0 / 4096.0;
    let (mut worst_t, mut worst_axis, mut worst_light) = (0.0f64, 0.0f64, 0.0f64);
    for f in 0..=60u64 {
        let t = key_time(f, 60.0);
        let a = worlds_at(&sent, Some(0), t);
        let b = worlds_at(&back, Some(0), t);
        // Position: rounded to whole console units.
        let dt = apart(
            [a[cam][12], a[cam][13], a[cam][14]],
            [b[cam2][12], b[cam2][13], b[cam2][14]],
        );
        assert!(
            dt <= 0.5 * unit + 1e-6,
            "frame {f}: camera position off by {dt}"
        );
        // View axes: the reference point is whole units 4096 away (0.87/4096 rad at most),
        // the roll 1/4096°.
        for j in 0..3 {
            let d = apart(axis(&a[cam], j), axis(&b[cam2], j));
            worst_axis = worst_axis.max(d);
            assert!(
                d <= 1.5 * unit,
                "frame {f}: camera axis {j} off by {} / 4096",
                d * 4096.0
            );
        }
        // The light shines down its node's −Z; its direction is a whole vector of length 4096.
        let d = apart(axis(&a[sun], 2), axis(&b[sun2], 2));
        worst_light = worst_light.max(d);
        assert!(
            d <= 1.0 * unit,
            "frame {f}: light direction off by {} / 4096",
            d * 4096.0
        );
        worst_t = worst_t.max(dt);
    }
    // The pose really changes: the test would notice a camera or light left at rest.
    let w0 = worlds_at(&back, Some(0), 0.0);
    let w1 = worlds_at(&back, Some(0), 1.0);
    assert!(apart(axis(&w0[cam2], 2), axis(&w1[cam2], 2)) > 0.3);
    assert!(apart(axis(&w0[sun2], 2), axis(&w1[sun2], 2)) > 0.3);
    // The colour: one sRGB byte per channel.
    for (x, y) in sent.lights[0].color.iter().zip(back.lights[0].color) {
        assert!(
            (common::srgb(*x) - common::srgb(y)).abs() * 255.0 <= 0.5 + 1e-3,
            "{x} vs {y}"
        );
    }
    eprintln!(
        "worst: camera position {:.2}, axes {:.2}, light {:.2} (1/4096)",
        worst_t * 4096.0,
        worst_axis * 4096.0,
        worst_light * 4096.0
    );
}

/// A TOD with one object, two look-at cameras and two lights that move, turn and roll.
fn rig_tod() -> tod::Tod {
    use tod::*;
    let look = |id, position: Option<[i32; 6]>, z_angle, differential| {
        Packet::new(
            id,
            PacketData::Camera(Camera::LookAt(LookAtCamera {
                differential,
                position,
                z_angle,
            })),
        )
    };
    let light = |id, direction, color: Option<[u8; 3]>| {
        Packet::new(
            id,
            PacketData::Light(Light {
                differential: false,
                direction,
                color: color.map(|[r, g, b]| Color { r, g, b, pad: 0 }),
            }),
        )
    };
    let frame = |number, packets| Frame {
        number,
        packets,
        extra_words: vec![],
        size_override: None,
    };
    Tod {
        header: Header {
            version: 0,
            resolution: 1,
        },
        frames: vec![
            frame(
                0,
                vec![
                    Packet::new(1, PacketData::ObjectControl(ObjectControl::Create)),
                    Packet::new(1, PacketData::TmdId(IdValue::new(1))),
                    look(0, Some([0, -1000, -4000, 0, 0, 0]), Some(0), false),
                    look(1, Some([500, 0, 0, 500, 300, 4096]), Some(10 * 4096), false),
                    light(0, Some([0, 4096, 0]), Some([255, 128, 0])),
                    light(1, Some([2896, -2896, 0]), Some([10, 20, 30])),
                ],
            ),
            frame(
                1,
                vec![
                    look(0, Some([10, 0, 20, 0, 0, 0]), None, true),
                    look(1, None, Some(-25 * 4096), false),
                ],
            ),
            frame(2, vec![light(0, Some([0, 2896, 2896]), None)]),
            frame(
                3,
                vec![
                    look(
                        0,
                        Some([-300, -2000, 1000, 100, 0, 0]),
                        Some(45 * 4096),
                        false,
                    ),
                    Packet::new(
                        1,
                        PacketData::Coordinate(Coordinate {
                            translation: Some([100, 0, 0]),
                            ..Coordinate::default()
                        }),
                    ),
                ],
            ),
        ],
        trailing: vec![],
    }
}

fn dir(v: [i32; 3]) -> [f64; 3] {
    let l = v.iter().map(|&x| (x as f64).powi(2)).sum::<f64>().sqrt();
    v.map(|x| x as f64 / l)
}

#[test]
fn tod_cameras_and_lights_survive_glb_and_back() {
    let (_, model, _) = to_tod(&rigged(), &Options::default());
    let anim = rig_tod();
    let old: Vec<tod::Pose> = tod::Player::new(&anim, Some(&model)).collect();
    for axes in [Axes::Default, Axes::Raw] {
        let geometry = Geometry {
            axes: Some(axes),
            ..Geometry::default()
        };
        let glb = common::tod_to_glb(&anim, &model, &[], geometry.clone());
        let back = Options {
            geometry,
            ..Options::default()
        };
        let (new_tod, new_tmd, notes) = to_tod(&glb.bytes, &back);
        assert!(notes.is_empty(), "{axes:?}: {notes:?}");
        let new: Vec<tod::Pose> = tod::Player::new(&new_tod, Some(&new_tmd)).collect();
        assert_eq!(new.len(), old.len(), "{axes:?}");
        for (p, q) in old.iter().zip(&new) {
            let at = format!("{axes:?} tick {}", p.frame);
            assert_eq!(p.cameras.len(), q.cameras.len(), "{at}");
            for (a, b) in p.cameras.iter().zip(&q.cameras) {
                let (
                    tod::CameraState::LookAt {
                        id: i,
                        position: pa,
                        reference: ra,
                        z_angle: za,
                    },
                    tod::CameraState::LookAt {
                        id: j,
                        position: pb,
                        reference: rb,
                        z_angle: zb,
                    },
                ) = (a, b)
                else {
                    panic!("{at}: {a:?} vs {b:?}")
                };
                assert_eq!(i, j, "{at}");
                assert_eq!(pa, pb, "{at} camera {i}: position");
                let view = |p: &[i32; 3], r: &[i32; 3]| dir([0, 1, 2].map(|k| r[k] - p[k]));
                let d = apart(view(pa, ra), view(pb, rb));
                assert!(
                    d <= 1.0 / 4096.0,
                    "{at} camera {i}: view off by {} / 4096",
                    d * 4096.0
                );
                // The roll about a view axis rebuilt from whole units: within 1/64°.
                assert!(
                    (za - zb).abs() <= 64,
                    "{at} camera {i}: z angle {za} vs {zb}"
                );
            }
            assert_eq!(p.lights.len(), q.lights.len(), "{at}");
            for (a, b) in p.lights.iter().zip(&q.lights) {
                assert_eq!((a.id, a.color), (b.id, b.color), "{at}");
                let d = apart(dir(a.direction), dir(b.direction));
                assert!(
                    d <= 1.0 / 4096.0,
                    "{at} light {}: {:?} vs {:?}",
                    a.id,
                    a.direction,
                    b.direction
                );
            }
            let (o, n) = (&p.objects[0], &q.objects[0]);
            assert!(common::mat_distance(&o.world, &n.world) <= 1, "{at}");
        }
    }
}

#[test]
fn what_a_tod_cannot_light_or_project_is_noted() {
    let light = |kind: &str, extra: serde_json::Value| {
        let mut l = serde_json::json!({"type": kind});
        for (k, v) in extra.as_object().unwrap() {
            l[k] = v.clone();
        }
        l
    };
    let json = serde_json::json!({
        "asset": {"version": "2.0"},
        "extensionsUsed": ["KHR_lights_punctual"],
        "extensions": {"KHR_lights_punctual": {"lights": [
            light("spot", serde_json::json!({"range": 5.0, "spot": {"outerConeAngle": 0.5}})),
            light("directional", serde_json::json!({"intensity": 3.0})),
            light("directional", serde_json::json!({})),
            light("directional", serde_json::json!({})),
            light("directional", serde_json::json!({})),
            light("point", serde_json::json!({}))
        ]}},
        "scene": 0,
        "scenes": [{"nodes": [0, 1, 2, 3, 4, 5, 6, 7, 8]}],
        "nodes": (0..6).map(|k| serde_json::json!({"extensions": {"KHR_lights_punctual": {"light": k}}}))
            .chain([
                serde_json::json!({"camera": 0}),
                serde_json::json!({"camera": 1}),
                serde_json::json!({"camera": 2, "mesh": 0}),
            ])
            .collect::<Vec<_>>(),
        "cameras": [
            {"type": "orthographic", "orthographic": {"xmag": 1, "ymag": 1, "znear": 0, "zfar": 10}},
            {"type": "perspective", "perspective": {"yfov": 0.8, "znear": 0.1}},
            {"type": "perspective", "perspective": {"yfov": console_yfov(), "znear": 0.1}}
        ],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0}}]}],
        "buffers": [{"byteLength": 36}],
        "bufferViews": [{"buffer": 0, "byteLength": 36}],
        "accessors": [{"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3", "min": [0,0,0], "max": [1,1,0]}]
    });
    let bin = f32s(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0]);
    let (anim, _, notes) = to_tod(&glb(&json, &bin), &Options::default());
    let all = notes.join("\n");
    for want in [
        "1 × point lights left out",
        "1 × spot lights written as directional lights",
        "1 × light ranges left out",
        "1 × lights whose colour × intensity exceeds 1",
        "2 × lights past the first 3 left out",
        "1 × orthographic cameras",
        "1 × camera fields of view left out",
        "the glTF has no animation",
    ] {
        assert!(all.contains(want), "missing {want:?} in:\n{all}");
    }
    assert_eq!(notes.len(), 8, "{all}");
    // Three lights and three cameras written; the camera that also shows a mesh is an object.
    let ids = |k: tod::PacketKind| -> std::collections::BTreeSet<u16> {
        anim.frames
            .iter()
            .flat_map(|f| &f.packets)
            .filter(|p| p.kind() == k)
            .map(|p| p.object_id)
            .collect()
    };
    assert_eq!(ids(tod::PacketKind::Light).len(), 3);
    assert_eq!(ids(tod::PacketKind::Camera).len(), 3);
    assert_eq!(ids(tod::PacketKind::ObjectControl).len(), 1);
}

#[test]
fn a_hidden_camera_keeps_still_and_a_far_one_is_a_clean_error() {
    use retroanim::formats::tod::author::{author, TodAuthorOptions};
    use retroanim::scene::{Camera, Node, Transform};
    let camera = |t: [f32; 3], scale: f32| Scene {
        cameras: vec![Camera {
            name: "c".into(),
            projection: retroanim::formats::tod::scene::tod_scene(
                &rig_tod(),
                None,
                &PsxOptions::default(),
            )
            .unwrap()
            .cameras[0]
                .projection,
        }],
        nodes: vec![Node {
            camera: Some(0),
            transform: Transform::Trs {
                translation: t,
                rotation: [0.0, 0.0, 0.0, 1.0],
                scale: [scale; 3],
            },
            ..Node::new("c")
        }],
        ..Scene::default()
    };
    let opts = TodAuthorOptions::default();
    // Scaled to nothing: no view axis, so no camera values (and no error); the one frame
    // holds a camera packet that changes nothing.
    let hidden = author(&camera([0.0, 1.0, 0.0], 0.0), &[], &opts).unwrap();
    assert!(hidden.notes.is_empty(), "{:?}", hidden.notes);
    let packets: Vec<&tod::Packet> = hidden.tod.frames.iter().flat_map(|f| &f.packets).collect();
    assert_eq!(packets.len(), 1);
    assert_eq!(
        packets[0].data,
        tod::PacketData::Camera(tod::Camera::LookAt(tod::LookAtCamera::default()))
    );
    // Shown: 1 m up (console −Y), looking down glTF's −Z, the console's +Z.
    let shown = author(&camera([0.0, 1.0, 0.0], 1.0), &[], &opts).unwrap();
    assert!(
        matches!(
            shown.tod.frames[0].packets[0].data,
            tod::PacketData::Camera(tod::Camera::LookAt(tod::LookAtCamera {
                position: Some([0, -4096, 0, 0, -4096, 4096]),
                z_angle: Some(0),
                ..
            }))
        ),
        "{:?}",
        shown.tod.frames[0].packets
    );
    // 10^6 m is 4·10^9 console units: past int32.
    let err = author(&camera([1.0e6, 0.0, 0.0], 1.0), &[], &opts).unwrap_err();
    assert!(err.to_string().contains("past int32"), "{err}");
}
