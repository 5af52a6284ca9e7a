//! HMD → scene → glTF: every animated corpus HMD exports a glTF the Khronos validator accepts
//! with no error or warning; animation keys are the player's poses; the EQUIP samples' cameras
//! and lights arrive with their parameters.

mod common;

use retroanim::formats::hmd::{self, *};
use retroanim::scene::{Projection, Track, Transform};
use retroanim::Format;

#[test]
fn every_animated_corpus_hmd_exports_a_clean_gltf() {
    let dir = tempfile::tempdir().unwrap();
    let mut exported = 0;
    for (name, path) in common::corpus_files("HMD") {
        let m = hmd::read(&std::fs::read(&path).unwrap()).unwrap();
        if m.animations().is_empty() {
            continue;
        }
        let options = SceneOptions {
            max_frames: 600,
            ..SceneOptions::default()
        };
        let scene = m
            .to_scene(&options)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(
            !scene.animations.is_empty(),
            "{name}: has an animation section but no animation was exported"
        );
        let glb = retroanim::export::gltf::write(&scene, Format::Glb).unwrap();
        let out = dir.path().join(format!("{exported}.glb"));
        std::fs::write(&out, glb).unwrap();
        common::assert_khronos_clean(&out);
        exported += 1;
    }
    eprintln!("{exported} animated HMDs exported");
}

#[test]
fn animation_keys_are_the_players_poses() {
    let Some(m) = common::corpus_hmd("ANIM/INTERP/INTERP.HMD") else {
        eprintln!("corpus missing: skipped");
        return;
    };
    let scene = m.to_scene(&SceneOptions::default()).unwrap();
    let anim = &scene.animations[0];
    assert_eq!(anim.name, "sequence 0 sid 0");
    assert_eq!(anim.extras["loop"], true, "INTERP's sequences loop");
    // Coordinate 5 (Linear) at frame 50 (50/60 s) sits on key 1 = (1000, −1000, 0) in console
    // units: turned about X and scaled 1/4096 that is (1000, 1000, 0) / 4096.
    let ch = anim
        .channels
        .iter()
        .find(|c| c.node == 5 && matches!(c.track, Track::Translation(_)))
        .expect("coordinate 5 moves");
    let Track::Translation(v) = &ch.track else {
        unreachable!()
    };
    assert!((ch.times[50] - 50.0 / 60.0).abs() < 1e-6);
    let want = [1000.0 / 4096.0, 1000.0 / 4096.0, 0.0];
    for i in 0..3 {
        assert!((v[50][i] - want[i]).abs() < 1e-6, "{:?}", v[50]);
    }
    // Every key equals the player's local translation at that frame.
    let mut p = Player::new(
        &m,
        &PlayOptions {
            sequence: Some(0),
            ..PlayOptions::default()
        },
    );
    for (f, key) in v.iter().enumerate() {
        p.step().unwrap();
        let t = p.frame().coordinates[5].local.t;
        let conv = [t[0] as f32, -t[1] as f32, -t[2] as f32].map(|x| x / 4096.0);
        assert_eq!(*key, conv, "frame {f}");
    }
    // Raw axes keep the console's signs.
    let raw = m
        .to_scene(&SceneOptions {
            axes: Axes::Raw,
            scale: 1.0,
            ..SceneOptions::default()
        })
        .unwrap();
    let Track::Translation(v) = &raw.animations[0]
        .channels
        .iter()
        .find(|c| c.node == 5 && matches!(c.track, Track::Translation(_)))
        .unwrap()
        .track
    else {
        unreachable!()
    };
    assert_eq!(v[50], [1000.0, -1000.0, 0.0]);
}

#[test]
fn equip_samples_carry_their_cameras_and_lights() {
    let mut checked = 0;
    // PP_FIX is not in every corpus: the files found are checked.
    let files = common::corpus_files("HMD");
    for suffix in [
        "EQUIP/PP/PP_AIM.HMD",
        "EQUIP/PP/PP_FIX.HMD",
        "EQUIP/PP/PP_WORLD.HMD",
        "EQUIP/SNOWMAN/SNOWMAN.HMD",
    ] {
        let Some((_, path)) = files.iter().find(|(n, _)| n.ends_with(suffix)) else {
            continue;
        };
        let m = hmd::read(&std::fs::read(path).unwrap()).unwrap();
        checked += 1;
        let mut p = Player::new(&m, &PlayOptions::default());
        let devices = p.frame().devices;
        p.step().unwrap();
        let scene = m.to_scene(&SceneOptions::default()).unwrap();
        let cams: Vec<_> = devices
            .iter()
            .filter(|d| matches!(d.parameters, Some(DeviceItem::Camera(_))) && d.position.is_some())
            .collect();
        let lights: Vec<_> = devices
            .iter()
            .filter(|d| matches!(d.parameters, Some(DeviceItem::Light { .. })))
            .collect();
        assert_eq!(scene.cameras.len(), cams.len(), "{suffix}");
        assert_eq!(scene.lights.len(), lights.len(), "{suffix}");
        assert!(
            !scene.cameras.is_empty() || !scene.lights.is_empty(),
            "{suffix}: no devices"
        );
        for (cam, d) in scene.cameras.iter().zip(&cams) {
            let Some(DeviceItem::Camera(c)) = &d.parameters else {
                unreachable!()
            };
            let Projection::Perspective { yfov, .. } = cam.projection else {
                panic!("{suffix}: not perspective")
            };
            assert!((yfov - 2.0 * (120.0 / c.projection as f32).atan()).abs() < 1e-6);
            // The node sits at the camera position (converted).
            let node = scene.nodes.iter().find(|n| n.name == cam.name).unwrap();
            let Transform::Trs { translation, .. } = node.transform else {
                unreachable!()
            };
            let pos = d.position.unwrap();
            let want = [pos[0] as f32, -pos[1] as f32, -pos[2] as f32].map(|x| x / 4096.0);
            assert_eq!(translation, want, "{suffix}");
        }
        for (light, d) in scene.lights.iter().zip(&lights) {
            let Some(DeviceItem::Light { color, .. }) = &d.parameters else {
                unreachable!()
            };
            assert_eq!(
                light.color,
                [color[0], color[1], color[2]].map(|v| v as f32 / 255.0)
            );
        }
        // And the glTF carries them: KHR_lights_punctual with the same count.
        let json = retroanim::export::gltf::write(&scene, Format::Gltf).unwrap();
        let v: serde_json::Value = serde_json::from_slice(&json).unwrap();
        let n_lights = v["extensions"]["KHR_lights_punctual"]["lights"]
            .as_array()
            .map_or(0, |a| a.len());
        assert_eq!(n_lights, scene.lights.len(), "{suffix}");
        assert_eq!(
            v["cameras"].as_array().map_or(0, |a| a.len()),
            scene.cameras.len()
        );
    }
    if !common::corpus_files("HMD").is_empty() {
        assert!(checked >= 3);
    }
}

#[test]
fn vertex_mime_becomes_morph_targets() {
    let Some(m) = common::corpus_hmd("MIME/PUYO.HMD") else {
        eprintln!("corpus missing: skipped");
        return;
    };
    let p = Player::new(&m, &PlayOptions::default());
    let t = p.vertex_mime_deltas();
    assert_eq!(t.len(), 1, "one vertex MIMe primitive");
    assert_eq!(t[0].keys.len(), 4, "MIMe_num = 4 keys");
    assert!(
        t[0].keys.iter().all(|k| !k.is_empty()),
        "every key moves vertices"
    );
    let scene = m.to_scene(&SceneOptions::default()).unwrap();
    let mesh = scene
        .meshes
        .iter()
        .find(|m| !m.target_names.is_empty())
        .expect("a mesh with morph targets");
    // Four vertex MIMe keys, and the four keys of the normal MIMe beside it.
    let named = |prefix: &str| {
        mesh.target_names
            .iter()
            .filter(|n| n.starts_with(prefix))
            .count()
    };
    assert_eq!(named("mime "), 4);
    assert_eq!(named("normal mime "), 4);
    // A vertex moved by key 0 has that displacement (converted) in target 0.
    let moved = mesh.primitives[0].targets[0]
        .positions
        .iter()
        .filter(|d| d.iter().any(|&x| x != 0.0))
        .count();
    assert!(moved > 0);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("puyo.glb");
    std::fs::write(
        &out,
        retroanim::export::gltf::write(&scene, Format::Glb).unwrap(),
    )
    .unwrap();
    common::assert_khronos_clean(&out);
}
