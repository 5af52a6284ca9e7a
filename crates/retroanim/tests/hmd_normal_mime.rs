//! Normal MIMe exports as morph-target normals: every corpus HMD with normal MIMe
//! (`SCEI/MIME/TWINP/TWINP.HMD`, `SCEI/MIME/PUYO.HMD`), each key at full weight, read back from the exported glTF
//! (base `NORMAL` + the target's `NORMAL` displacement, normalised as a renderer does) points
//! where the player's normal MIMe puts the normals (`Player::vectors` of the normal section after
//! one update with that key's weight 4096), within 1°; and the export notes no normal MIMe left
//! out.

mod common;

use common::gltf_read::Gltf;
use retroanim::formats::hmd::{self, *};

/// Largest angle between an exported morphed normal and the player's, in degrees.
const MAX_DEGREES: f64 = 1.0;

fn unit(v: [f64; 3]) -> [f64; 3] {
    let l = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    v.map(|x| x / l)
}

fn angle(a: [f64; 3], b: [f64; 3]) -> f64 {
    let (a, b) = (unit(a), unit(b));
    (a[0] * b[0] + a[1] * b[1] + a[2] * b[2])
        .clamp(-1.0, 1.0)
        .acos()
        .to_degrees()
}

#[test]
fn normal_mime_keys_export_as_morph_target_normals_the_player_shows() {
    let mut checked = 0;
    for (name, path) in common::corpus_files("HMD") {
        let m = hmd::read(&std::fs::read(&path).unwrap()).unwrap();
        let rest = Player::new(&m, &PlayOptions::default());
        let targets = rest.normal_mime_deltas();
        if targets.is_empty() {
            continue;
        }
        let (scene, notes) = m.to_scene_noted(&SceneOptions::default()).unwrap();
        assert!(
            notes
                .iter()
                .all(|(code, _)| *code != "normal-mime-not-exported"),
            "{name}: {notes:?}"
        );
        let g = Gltf::parse(&retroanim::export::gltf::write_gltf(&scene).unwrap());
        let dir = tempfile::tempdir().unwrap();
        let glb = dir.path().join("model.glb");
        std::fs::write(&glb, retroanim::export::gltf::write_glb(&scene).unwrap()).unwrap();
        common::assert_khronos_clean(&glb);
        for t in &targets {
            let num = rest
                .mime_primitives()
                .iter()
                .find(|(p, _, _)| *p == t.primitive)
                .map(|x| x.2)
                .unwrap();
            for k in 0..num {
                // The player with only key k at full weight: the normals the console lights with.
                // Every MIMe primitive moving this section gets the weight (TWINP's twins share
                // one model, and the player shows a section as its last drawing block saw it).
                let mut p = Player::new(&m, &PlayOptions::default());
                let mut w = vec![0; num];
                w[k] = 4096;
                for other in targets.iter().filter(|o| o.section == t.section) {
                    assert!(p.set_mime_weights(other.primitive, &w));
                }
                p.step().unwrap();
                let original = rest.vectors(t.section, true).unwrap();
                let now = p.vectors(t.section, true).unwrap();
                // In glTF axes (x, −y, −z); only the normals this key moves.
                let moved: Vec<[f64; 3]> = now
                    .iter()
                    .zip(&original)
                    .filter(|(a, b)| a != b)
                    .map(|(a, _)| [a[0] as f64, -a[1] as f64, -a[2] as f64])
                    .collect();
                let target_name = format!("normal mime {} key {k}", t.primitive);
                let mut corners = 0;
                let mut hit = vec![false; moved.len()];
                for mesh in g.json["meshes"].as_array().unwrap() {
                    let names = mesh["extras"]["targetNames"].as_array();
                    let Some(ti) = names.and_then(|n| n.iter().position(|x| *x == *target_name))
                    else {
                        continue;
                    };
                    for prim in mesh["primitives"].as_array().unwrap() {
                        let acc = |v: &serde_json::Value| g.accessor(v.as_u64().unwrap() as usize);
                        let base = acc(&prim["attributes"]["NORMAL"]);
                        let delta = acc(&prim["targets"][ti]["NORMAL"]);
                        for (b, d) in base.iter().zip(&delta) {
                            if d.iter().all(|x| *x == 0.0) {
                                continue;
                            }
                            let got = [0, 1, 2].map(|i| b[i] + d[i]);
                            let (best, j) = moved
                                .iter()
                                .enumerate()
                                .map(|(j, w)| (angle(got, *w), j))
                                .fold((f64::MAX, 0), |a, x| if x.0 < a.0 { x } else { a });
                            assert!(
                                best <= MAX_DEGREES,
                                "{name} {target_name}: exported normal {got:?} is {best:.3}° from every normal the player moved"
                            );
                            hit[j] = true;
                            corners += 1;
                        }
                    }
                }
                assert!(
                    corners > 0,
                    "{name}: no exported corner moves for {target_name}"
                );
                // Every normal the key moves and a block draws is exported moved.
                eprintln!(
                    "{name} {target_name}: {corners} corners within {MAX_DEGREES}° of the player, {} of {} moved normals drawn",
                    hit.iter().filter(|h| **h).count(),
                    moved.len()
                );
                checked += 1;
            }
        }
    }
    if !common::corpus_files("HMD").is_empty() {
        assert!(checked > 0, "no corpus HMD with normal MIMe");
    }
}
