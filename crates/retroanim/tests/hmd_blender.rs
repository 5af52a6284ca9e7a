//! Blender imports the glTF of animated corpus HMDs, and the named coordinate nodes sit where
//! `retroanim play` puts them at sampled frames (`tests/blender/check_poses.py`).

mod common;

use retroanim::formats::hmd::{self, *};
use serde_json::json;

#[test]
fn blender_poses_equal_the_player() {
    let files = common::corpus_files("HMD");
    let mut checked = 0;
    for suffix in ["ANIM/INTERP/INTERP.HMD", "ANIM/ROTS/ROTS.HMD"] {
        let Some((_, path)) = files.iter().find(|(n, _)| n.ends_with(suffix)) else {
            continue;
        };
        let m = hmd::read(&std::fs::read(path).unwrap()).unwrap();
        let scene = m
            .to_scene(&SceneOptions {
                sequence: Some(0),
                ..SceneOptions::default()
            })
            .unwrap();
        let frames_in_anim = scene.animations[0].extras["frames"].as_u64().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let glb = dir.path().join("model.glb");
        std::fs::write(&glb, retroanim::export::gltf::write_glb(&scene).unwrap()).unwrap();
        let mut p = Player::new(&m, &PlayOptions::default());
        let sample = [0u64, 7, 25, 50, 99, 130];
        let mut expected = Vec::new();
        for f in 0..frames_in_anim {
            p.step().unwrap();
            if !sample.contains(&f) {
                continue;
            }
            let mut nodes = serde_json::Map::new();
            for c in p.frame().coordinates {
                let w = c.world;
                let s = [1.0, -1.0, -1.0];
                let t: Vec<f64> = (0..3).map(|i| w.t[i] as f64 * s[i] / 4096.0).collect();
                let mm: Vec<Vec<f64>> = (0..3)
                    .map(|i| {
                        (0..3)
                            .map(|j| w.m[i][j] as f64 / 4096.0 * s[i] * s[j])
                            .collect()
                    })
                    .collect();
                nodes.insert(format!("coord {}", c.index), json!({ "t": t, "m": mm }));
            }
            expected.push(json!({ "time": f as f64 / 60.0, "nodes": nodes }));
        }
        let exp = dir.path().join("expected.json");
        std::fs::write(&exp, json!({ "frames": expected }).to_string()).unwrap();
        if !common::run_blender_check("check_poses.py", &[&glb, &exp]) {
            return;
        }
        checked += 1;
    }
    if !files.is_empty() {
        assert!(checked > 0);
    }
}

// Skinned (shared polygons) and morphed vertices: `pose_vertices.rs`, in Blender and three.js,
// over every corpus file that has them, within 1 console unit.
