//! glTF → HMD authoring, checked by round trips through the convert API: every corpus HMD goes
//! HMD → GLB → HMD; the new file passes `hmd::validate` with no errors, shows the same
//! triangles at the same positions (within one unit), and for every sequence of an animated
//! file our `Player` puts every coordinate where it put the original's at every frame.

mod common;

use retroanim::convert::{self, HmdSelection, Options};
use retroanim::formats::hmd::{self, Hmd, PlayOptions, Player, SceneOptions};
use retroanim::report::Severity;
use retroanim::{Format, Model};

fn read(bytes: &[u8]) -> Hmd {
    match retroanim::read_any(bytes).unwrap() {
        Model::Hmd(h) => h,
        _ => panic!("not an HMD"),
    }
}

fn to_glb(m: &Hmd, sequence: Option<usize>) -> Vec<u8> {
    let opts = Options {
        hmd: HmdSelection {
            sequence,
            ..HmdSelection::default()
        },
        ..Options::default()
    };
    convert::convert(&Model::Hmd(m.clone()), Format::Glb, &opts)
        .unwrap()
        .bytes
}

/// GLB → HMD; `Err` when the format cannot hold the animation (a 16-bit index overflows).
fn back(name: &str, glb: &[u8]) -> Result<Hmd, String> {
    let out = match convert::convert_bytes(glb, None, Format::Hmd, &Options::default()) {
        Ok(o) => o,
        Err(e @ retroanim::Error::Unencodable { .. }) => return Err(format!("{name}: {e}")),
        Err(e) => panic!("{name}: GLB → HMD: {e}"),
    };
    let h = read(&out.bytes);
    let errors: Vec<_> = hmd::validate(&h)
        .into_iter()
        .filter(|i| i.severity == Severity::Error)
        .collect();
    assert!(errors.is_empty(), "{name}: {errors:?}");
    Ok(h)
}

/// Every triangle corner position, in console units, sorted.
fn corners(m: &Hmd) -> Vec<[i64; 3]> {
    let scene = m.to_scene(&SceneOptions::default()).unwrap();
    let mut out = Vec::new();
    for mesh in &scene.meshes {
        for p in &mesh.primitives {
            out.extend(
                p.positions
                    .iter()
                    .map(|v| v.map(|x| (x as f64 * 4096.0).round() as i64)),
            );
        }
    }
    out.sort_unstable();
    out
}

#[test]
fn corpus_models_come_back_with_the_same_triangles() {
    let (mut same, mut total) = (0, 0);
    let mut differ = Vec::new();
    for (name, path) in common::corpus_files("HMD") {
        let m = hmd::read(&std::fs::read(&path).unwrap()).unwrap();
        let new = match back(
            &name,
            &to_glb(&m, Some(0).filter(|_| hmd::sequence_count(&m) > 0)),
        ) {
            Ok(h) => h,
            Err(e) => {
                differ.push(format!("not written: {e}"));
                total += 1;
                continue;
            }
        };
        let (a, b) = (corners(&m), corners(&new));
        total += 1;
        let ok = a.len() == b.len()
            && a.iter()
                .zip(&b)
                .all(|(x, y)| (0..3).all(|i| (x[i] - y[i]).abs() <= 1));
        if ok {
            same += 1;
        } else {
            differ.push(format!("{name}: {} → {} corners", a.len() / 3, b.len() / 3));
        }
    }
    eprintln!("HMD → GLB → HMD: {same} of {total} files with the same triangles");
    for d in &differ {
        eprintln!("  differs: {d}");
    }
    assert!(differ.is_empty(), "{differ:#?}");
}

use common::mat_distance as distance;

#[test]
fn animated_corpus_files_play_the_same_after_a_glb_round_trip() {
    let mut worst = (0i64, String::new());
    let mut report = Vec::new();
    let mut sequences = 0;
    let mut unwritten = Vec::new();
    for (name, path) in common::corpus_files("HMD") {
        let m = hmd::read(&std::fs::read(&path).unwrap()).unwrap();
        let all = m.to_scene(&SceneOptions::default()).unwrap();
        for anim in &all.animations {
            let k = anim.extras["sequence"].as_u64().unwrap() as usize;
            let frames = anim.extras["frames"].as_u64().unwrap() as usize;
            let new = match back(&name, &to_glb(&m, Some(k))) {
                Ok(h) => h,
                Err(e) => {
                    unwritten.push(e);
                    continue;
                }
            };
            let mut old_p = Player::new(
                &m,
                &PlayOptions {
                    sequence: Some(k),
                    ..PlayOptions::default()
                },
            );
            let mut new_p = Player::new(&new, &PlayOptions::default());
            let mut here = (0i64, 0usize, 0usize);
            for f in 0..frames {
                old_p.step().unwrap();
                new_p.step().unwrap();
                let (a, b) = (old_p.frame(), new_p.frame());
                for (c, x) in a.coordinates.iter().enumerate() {
                    let d = distance(&x.world, &b.coordinates[c].world);
                    if d > here.0 {
                        here = (d, f, c);
                    }
                }
            }
            sequences += 1;
            let what = format!(
                "{name} sequence {k}: {frames} frames, worst {} at frame {} coord {}",
                here.0, here.1, here.2
            );
            if here.0 > worst.0 {
                worst = (here.0, what.clone());
            }
            report.push((here.0, what));
        }
    }
    report.sort_by_key(|r| std::cmp::Reverse(r.0));
    for (_, r) in &report {
        eprintln!("{r}");
    }
    eprintln!(
        "{sequences} sequences compared; worst world-matrix difference {} ({})",
        worst.0, worst.1
    );
    for u in &unwritten {
        eprintln!("not written: {u}");
    }
    // Issue #14 asks for 1 unit. Measured (December 2026), keys judged by their re-exported
    // local (`author/anim/solve.rs`), scale keys written where they bring a track back
    // (PP_AIM's and PP_WORLD's gun scales by 4095), SWITCH's legs written as the joint axes
    // MIMe they were made with (`author/anim/axes.rs`), translation ties kept from key to key
    // (`author/anim/solve.rs`): all 24 sequences within 1 unit, 20 exact.
    let within = report.iter().filter(|r| r.0 <= 1).count();
    let exact = report.iter().filter(|r| r.0 == 0).count();
    eprintln!(
        "{within} of {} sequences within 1 unit, {exact} exact",
        report.len()
    );
    // With loops written as jumps (docs/extras.md), TRI's two never-ending sequences author
    // and play within 1 unit for their 3600 frames, and SNAKE 04_2 sequence 0 (keys cut at
    // each coordinate's loop, so a key plays again in the next cycle under other parents)
    // exactly: of translations whose console worlds tie, the key keeps the previous key's.
    let over: Vec<_> = report.iter().filter(|r| r.0 > 1).collect();
    assert!(
        over.is_empty(),
        "{} sequence(s) over 1 unit: {over:#?}",
        over.len()
    );
    assert!(exact >= 20, "fewer than 20 sequences exact");
}

/// x of the root coordinate's world translation over `n` frames of a one-node scene animated
/// by `channel`, authored as an HMD.
fn played_x(channel: retroanim::scene::Channel, n: usize) -> Vec<i32> {
    use retroanim::scene::{Animation, Node, Scene};
    let scene = Scene {
        nodes: vec![Node::new("a")],
        animations: vec![Animation {
            name: "a".into(),
            channels: vec![channel],
            extras: serde_json::Value::Null,
        }],
        ..Scene::default()
    };
    let out = hmd::author::author(&scene, &hmd::author::HmdAuthorOptions::default()).unwrap();
    assert!(hmd::validate(&out.hmd)
        .iter()
        .all(|i| i.severity != Severity::Error));
    let mut p = Player::new(&out.hmd, &PlayOptions::default());
    (0..n)
        .map(|_| {
            p.step().unwrap();
            p.frame().coordinates[0].world.t[0]
        })
        .collect()
}

#[test]
fn step_keys_switch_at_their_frame() {
    use retroanim::scene::{Channel, Interpolation, Track};
    let x = played_x(
        Channel {
            node: 0,
            interpolation: Interpolation::Step,
            times: vec![0.0, 0.5, 1.0],
            track: Track::Translation(vec![[0.0; 3], [1.0, 0.0, 0.0], [2.0, 0.0, 0.0]]),
        },
        80,
    );
    for (f, &v) in x.iter().enumerate() {
        let want = match f {
            0..=29 => 0,
            30..=59 => 4096,
            _ => 8192,
        };
        assert_eq!(v, want, "frame {f}: {x:?}");
    }
}

#[test]
fn cubicspline_keys_follow_the_hermite_curve() {
    use retroanim::scene::{Channel, Interpolation, Track};
    // (in-tangent, value, out-tangent) per key: an ease from 0 to 1 m in one second.
    let x = played_x(
        Channel {
            node: 0,
            interpolation: Interpolation::Cubicspline,
            times: vec![0.0, 1.0],
            track: Track::Translation(vec![
                [0.0; 3],
                [0.0; 3],
                [0.0; 3],
                [0.0; 3],
                [1.0, 0.0, 0.0],
                [0.0; 3],
            ]),
        },
        70,
    );
    for (f, &v) in x.iter().enumerate() {
        let s = (f as f64 / 60.0).min(1.0);
        let want = 4096.0 * (3.0 * s * s - 2.0 * s * s * s);
        // The driver evaluates the curve in 16-bit steps (t = 0..0xFFFF, `>> 16` truncating
        // after each Horner product): a few units of its own error.
        assert!(
            (v as f64 - want).abs() <= 4.0,
            "frame {f}: {v} vs {want:.1}"
        );
    }
}

/// A scene with a camera and lights on nodes of a small hierarchy, authored as an HMD and read
/// back through the HMD → scene bridge: the camera and the flat light sit where the scene put
/// them and look the same way; what the console cannot show is noted.
#[test]
fn cameras_and_lights_become_device_primitives() {
    use retroanim::scene::{
        sample::quat_matrix, Camera, Light, LightKind, Node, Projection, Scene, Transform,
    };
    let (s, c) = ((15f64).to_radians().sin(), (15f64).to_radians().cos()); // 30° about Y
    let (ps, pc) = ((-22.5f64).to_radians().sin(), (-22.5f64).to_radians().cos()); // −45° about X
    let trs = |t: [f32; 3], r: [f64; 4]| Transform::Trs {
        translation: t,
        rotation: r.map(|x| x as f32),
        scale: [1.0; 3],
    };
    let mut rig = Node::new("rig");
    rig.transform = trs([0.5, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0]);
    let mut cam = Node::new("cam");
    cam.parent = Some(0);
    cam.transform = trs([0.0, 0.25, 1.0], [0.0, s, 0.0, c]);
    cam.camera = Some(0);
    let mut sun = Node::new("sun");
    sun.parent = Some(0);
    sun.transform = trs([0.0, 1.0, 0.0], [ps, 0.0, 0.0, pc]);
    sun.light = Some(0);
    let mut bulb = Node::new("bulb");
    bulb.light = Some(1);
    let mut ortho = Node::new("ortho");
    ortho.camera = Some(1);
    let scene = Scene {
        nodes: vec![rig, cam, sun, bulb, ortho],
        cameras: vec![
            Camera {
                name: "cam".into(),
                projection: Projection::Perspective {
                    yfov: 0.8,
                    znear: 0.1,
                    zfar: None,
                    aspect_ratio: None,
                },
            },
            Camera {
                name: "ortho".into(),
                projection: Projection::Orthographic {
                    xmag: 1.0,
                    ymag: 1.0,
                    znear: 0.1,
                    zfar: 10.0,
                },
            },
        ],
        lights: vec![
            Light {
                name: "sun".into(),
                kind: LightKind::Directional,
                color: [1.0, 0.5, 0.25],
                intensity: 1.0,
                range: None,
            },
            Light {
                name: "bulb".into(),
                kind: LightKind::Point,
                color: [1.0; 3],
                intensity: 1.0,
                range: None,
            },
        ],
        ..Scene::default()
    };
    let out = hmd::author::author(&scene, &hmd::author::HmdAuthorOptions::default()).unwrap();
    let codes: Vec<&str> = out.notes.iter().map(|n| n.code).collect();
    assert!(
        codes.contains(&"light-point-dropped") && codes.contains(&"camera-orthographic"),
        "{codes:?}"
    );
    let errors: Vec<_> = hmd::validate(&out.hmd)
        .into_iter()
        .filter(|i| i.severity == Severity::Error)
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
    let back = out.hmd.to_scene(&SceneOptions::default()).unwrap();
    assert_eq!((back.cameras.len(), back.lights.len()), (1, 1));
    // World position and view direction (−Z) of the bridge's device node against the scene's.
    let check = |node: &Node, pos: [f64; 3], rot: [f64; 4]| {
        let Transform::Trs {
            translation,
            rotation,
            ..
        } = &node.transform
        else {
            panic!("{}: not TRS", node.name)
        };
        for i in 0..3 {
            let d = (translation[i] as f64 - pos[i]).abs() * 4096.0;
            assert!(d <= 1.0, "{}: position off by {d} units", node.name);
        }
        let dir = |m: [[f64; 3]; 3]| [0, 1, 2].map(|i| -m[i][2]);
        let (a, b) = (
            dir(quat_matrix(rotation.map(f64::from))),
            dir(quat_matrix(rot)),
        );
        let cos = (0..3).map(|i| a[i] * b[i]).sum::<f64>().clamp(-1.0, 1.0);
        let deg = cos.acos().to_degrees();
        assert!(deg < 0.05, "{}: aims {deg}° away", node.name);
    };
    let cam_node = back.nodes.iter().find(|n| n.camera.is_some()).unwrap();
    check(cam_node, [0.5, 0.25, 1.0], [0.0, s, 0.0, c]);
    let Projection::Perspective { yfov, .. } = back.cameras[0].projection else {
        panic!("not perspective")
    };
    assert!((yfov - 0.8).abs() < 0.005, "yfov {yfov}");
    let sun_node = back.nodes.iter().find(|n| n.light.is_some()).unwrap();
    check(sun_node, [0.5, 1.0, 0.0], [ps, 0.0, 0.0, pc]);
    let col = back.lights[0].color;
    // One sRGB byte per channel, as the TOD author writes light colours.
    for (got, want) in col.iter().zip([1.0, 0.5, 0.25]) {
        let d = (common::srgb(*got) - common::srgb(want)).abs() * 255.0;
        assert!(d <= 0.5 + 1e-3, "colour {col:?}");
    }
}

#[test]
fn root_translations_span_int32_and_child_ones_int16() {
    use retroanim::scene::{Node, Scene, Transform};
    let at = |x: f32, parent: bool| {
        let mut nodes = vec![Node::new("root")];
        let mut n = Node::new("n");
        n.transform = Transform::Trs {
            translation: [x / 4096.0, -x / 4096.0, 0.0],
            rotation: [0.0, 0.0, 0.0, 1.0],
            scale: [1.0; 3],
        };
        n.parent = parent.then_some(0);
        nodes.push(n);
        let scene = Scene {
            nodes,
            ..Scene::default()
        };
        hmd::author::author(&scene, &hmd::author::HmdAuthorOptions::default()).map(|out| {
            Player::new(&out.hmd, &PlayOptions::default())
                .frame()
                .coordinates[1]
                .local
                .t
        })
    };
    // An f32 scene holds i32::MAX as 2^31: written back as i32::MAX; −2^31 is exact.
    assert_eq!(at(2_147_483_648.0, false).unwrap(), [i32::MAX, i32::MAX, 0]);
    assert_eq!(at(-2_147_483_648.0, false).unwrap()[0], i32::MIN);
    assert!(at(2_147_484_000.0, false).is_err());
    assert_eq!(at(32767.0, true).unwrap()[0], 32767);
    assert!(at(32768.0, true).is_err());
}
