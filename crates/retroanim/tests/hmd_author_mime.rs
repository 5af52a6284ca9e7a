//! glTF morph targets → HMD vertex MIMe (`hmd::author`), checked through our `Player`:
//! - a hand-built scene (one mesh, two targets, a LINEAR weights animation): the played
//!   vertices equal base + Σ wᵢ·targetᵢ (console units) at every frame within the driver's
//!   floor (1 unit per weighted key, plus the weights' 1/4096 rounding), and the HMD → scene
//!   bridge reads back two targets with the authored weights;
//! - every corpus HMD with vertex MIMe, HMD → GLB → HMD: the MIMe'd vertices the new file plays
//!   equal the original's within 1 unit per weighted key at every frame of every sequence;
//! - what vertex MIMe cannot hold (targets past 32, normal displacements) is a note with a count.

mod common;

use std::collections::HashMap;

use retroanim::convert::{self, HmdSelection, Options};
use retroanim::formats::hmd::{self, *};
use retroanim::report::Severity;
use retroanim::scene::sample::sample;
use retroanim::scene::{
    Animation, Channel, Interpolation, Mesh, MorphTarget, MorphTargetKind, Node, Primitive, Scene,
    Track,
};
use retroanim::Format;

fn no_errors(h: &Hmd, what: &str) {
    let errors: Vec<_> = hmd::validate(h)
        .into_iter()
        .filter(|i| i.severity == Severity::Error)
        .collect();
    assert!(errors.is_empty(), "{what}: {errors:?}");
}

/// The vertex sections moved by a vertex MIMe (word offsets), with their stored vertices.
fn mimed_sections(h: &Hmd) -> Vec<(u32, Vec<[i16; 3]>)> {
    let p = Player::new(h, &PlayOptions::default());
    let mut out: Vec<(u32, Vec<[i16; 3]>)> = Vec::new();
    for t in p.vertex_mime_deltas() {
        if out.iter().any(|o| o.0 == t.section) {
            continue;
        }
        let stored = h.regions.iter().find_map(|r| match &r.body {
            RegionBody::Section(s) if r.offset == t.section => match &s.data {
                SectionData::Vectors { vectors, .. } => Some(vectors.iter().map(|v| v.v).collect()),
                _ => None,
            },
            _ => None,
        });
        out.push((t.section, stored.unwrap_or_default()));
    }
    out
}

#[test]
fn morph_targets_play_as_base_plus_weighted_targets() {
    // A quad (two triangles) in the XY plane, 0.5 m wide; target 0 lifts two corners, target 1
    // pushes the other two out.
    let base = [
        [0.0f32, 0.0, 0.0],
        [0.5, 0.0, 0.0],
        [0.5, 0.5, 0.0],
        [0.0, 0.5, 0.0],
    ];
    let t0 = [
        [0.0f32, 0.0, 0.0],
        [0.0, 0.0, 0.0],
        [0.1, 0.25, 0.3],
        [0.0, 0.2, -0.1],
    ];
    let t1 = [[-0.2f32, -0.05, 0.0], [0.3, -0.1, 0.05], [0.0; 3], [0.0; 3]];
    let target = |p: [[f32; 3]; 4]| MorphTarget {
        kind: MorphTargetKind::Delta,
        positions: p.to_vec(),
        normals: Vec::new(),
    };
    let times = vec![0.0f32, 0.5, 1.0, 1.25];
    let weights = vec![
        vec![0.0f32, 0.0],
        vec![1.0, 0.3],
        vec![0.25, 1.0],
        vec![0.6, -0.5],
    ];
    let mut node = Node::new("morph");
    node.mesh = Some(0);
    node.weights = vec![0.0, 0.0];
    let scene = Scene {
        nodes: vec![node],
        meshes: vec![Mesh {
            name: "quad".into(),
            primitives: vec![Primitive {
                positions: base.to_vec(),
                indices: vec![0, 1, 2, 0, 2, 3],
                targets: vec![target(t0), target(t1)],
                ..Primitive::default()
            }],
            target_names: vec!["lift".into(), "push".into()],
            extras: serde_json::Value::Null,
        }],
        animations: vec![Animation {
            name: "morph".into(),
            channels: vec![Channel {
                node: 0,
                interpolation: Interpolation::Linear,
                times: times.clone(),
                track: Track::Weights(weights.clone()),
            }],
            extras: serde_json::Value::Null,
        }],
        ..Scene::default()
    };
    let out = hmd::author::author(&scene, &hmd::author::HmdAuthorOptions::default()).unwrap();
    no_errors(&out.hmd, "authored");
    assert!(
        out.notes
            .iter()
            .all(|n| !n.code.starts_with("morph") && n.code != "weights-animation-dropped"),
        "{:?}",
        out.notes
    );
    let sections = mimed_sections(&out.hmd);
    assert_eq!(sections.len(), 1, "one vertex MIMe'd section");
    let (section, stored) = &sections[0];
    // Console units: (x, −y, −z) × 4096.
    let console = |p: [f32; 3]| [p[0], -p[1], -p[2]].map(|v| (v as f64 * 4096.0).round());
    let index_of = |v: usize| {
        let want = console(base[v]).map(|x| x as i16);
        stored.iter().position(|s| *s == want).unwrap()
    };
    let mut p = Player::new(&out.hmd, &PlayOptions::default());
    let mut worst = 0.0f64;
    for f in 0..=90 {
        p.step().unwrap();
        let played = p.vectors(*section, false).unwrap();
        let w: Vec<f64> = (0..2)
            .map(|t| {
                let v: Vec<[f32; 1]> = weights.iter().map(|w| [w[t]]).collect();
                sample(&times, &v, Interpolation::Linear, f as f32 / 60.0, false).unwrap()[0]
            })
            .collect();
        for v in 0..4 {
            let b = console(base[v]);
            let d: Vec<[f64; 3]> = [t0[v], t1[v]]
                .iter()
                .map(|d| {
                    let q = console([0, 1, 2].map(|i| base[v][i] + d[i]));
                    [0, 1, 2].map(|i| q[i] - b[i])
                })
                .collect();
            let got = played[index_of(v)];
            for i in 0..3 {
                let want = b[i] + w[0] * d[0][i] + w[1] * d[1][i];
                let off = (got[i] as f64 - want).abs();
                worst = worst.max(off);
                // The driver adds each weighted key as `(w·d) >> 12` (a floor, up to 1 unit
                // per key), with the weight rounded to 1/4096 (up to |d|/8192 more).
                let allowed: f64 = (0..2)
                    .filter(|&t| w[t] != 0.0)
                    .map(|t| 1.0 + d[t][i].abs() / 8192.0)
                    .sum::<f64>()
                    .max(1.0);
                assert!(
                    off <= allowed,
                    "frame {f} vertex {v}: played {got:?}, want {want} on axis {i}"
                );
            }
        }
    }
    eprintln!("worst vertex difference {worst:.3} units");
    // And back to glTF terms: the bridge reads the MIMe as two morph targets whose weights
    // track follows the authored one (within a 1/4096 step) at the key frames.
    let back = out.hmd.to_scene(&SceneOptions::default()).unwrap();
    let morphed: Vec<_> = back
        .meshes
        .iter()
        .filter(|m| !m.target_names.is_empty())
        .collect();
    assert_eq!(morphed.len(), 1);
    assert_eq!(morphed[0].target_names.len(), 2);
    let track = back
        .animations
        .iter()
        .flat_map(|a| &a.channels)
        .find_map(|c| match &c.track {
            Track::Weights(w) => Some((c.times.clone(), w.clone())),
            _ => None,
        })
        .expect("a weights track");
    for (i, &t) in times.iter().enumerate() {
        let at = track
            .0
            .iter()
            .position(|&x| (x - t).abs() < 1e-3)
            .expect("a key at each authored key time");
        for (k, want) in weights[i].iter().enumerate() {
            let d = (track.1[at][k] - want).abs();
            assert!(
                d <= 1.0 / 4096.0 + 1e-6,
                "time {t} weight {k}: {:?}",
                track.1[at]
            );
        }
    }
}

#[test]
fn corpus_vertex_mime_plays_the_same_after_a_glb_round_trip() {
    let mut compared = 0;
    let files = common::corpus_files("HMD");
    for (name, path) in &files {
        let name = name.clone();
        let m = hmd::read(&std::fs::read(path).unwrap()).unwrap();
        let old_sections = mimed_sections(&m);
        if old_sections.is_empty() {
            continue;
        }
        let all = m.to_scene(&SceneOptions::default()).unwrap();
        // A MIMe on shared vertices (TWISTER/AXES) goes to glTF as a skin, not morph targets.
        if all.meshes.iter().all(|x| x.target_names.is_empty()) {
            continue;
        }
        let sequences: Vec<(Option<usize>, usize)> = if all.animations.is_empty() {
            vec![(None, 2)]
        } else {
            all.animations
                .iter()
                .map(|a| {
                    (
                        a.extras["sequence"].as_u64().map(|k| k as usize),
                        a.extras["frames"].as_u64().unwrap_or(1) as usize,
                    )
                })
                .collect()
        };
        for (k, frames) in sequences {
            let opts = Options {
                hmd: HmdSelection {
                    sequence: k,
                    ..HmdSelection::default()
                },
                ..Options::default()
            };
            let glb = convert::convert(&retroanim::Model::Hmd(m.clone()), Format::Glb, &opts)
                .unwrap()
                .bytes;
            let out = match convert::convert_bytes(&glb, None, Format::Hmd, &Options::default()) {
                Ok(o) => o,
                Err(e) => panic!("{name} sequence {k:?}: GLB → HMD: {e}"),
            };
            let new = hmd::read(&out.bytes).unwrap();
            no_errors(&new, &name);
            let new_sections = mimed_sections(&new);
            assert!(!new_sections.is_empty(), "{name}: no vertex MIMe written");
            // Each original MIMe'd vertex → the new section and index holding the same stored
            // vertex (the bridge and the author convert axes back and forth exactly).
            let mut at: HashMap<[i16; 3], (u32, usize)> = HashMap::new();
            for (s, v) in &new_sections {
                for (i, x) in v.iter().enumerate() {
                    at.entry(*x).or_insert((*s, i));
                }
            }
            let mut old_p = Player::new(
                &m,
                &PlayOptions {
                    sequence: k,
                    ..PlayOptions::default()
                },
            );
            let mut new_p = Player::new(&new, &PlayOptions::default());
            // Without an animation the weights are the application's (MIMEPR pointer 0 in the
            // samples): give both files the same, every key weighted.
            if k.is_none() {
                for p in [&mut old_p, &mut new_p] {
                    for t in p.vertex_mime_deltas() {
                        // By key index (the glTF adds normal MIMe keys as further targets).
                        let w: Vec<i32> = (0..t.keys.len() as i32).map(|i| 700 * (i + 1)).collect();
                        assert!(p.set_mime_weights(t.primitive, &w));
                    }
                }
            }
            let mut worst = (0.0f64, 0usize);
            let mapped: usize = old_sections
                .iter()
                .map(|(_, v)| v.iter().filter(|x| at.contains_key(*x)).count())
                .sum();
            assert!(mapped > 0, "{name}: no MIMe'd vertex found in the new file");
            for f in 0..frames.min(600) {
                old_p.step().unwrap();
                new_p.step().unwrap();
                let keys = old_p
                    .frame()
                    .mime
                    .iter()
                    .filter(|s| s.kind == MimeKind::Vertex)
                    .map(|s| s.weights.iter().filter(|&&w| w != 0).count())
                    .sum::<usize>();
                let allowed = keys.max(1) as f64;
                for (s, stored) in &old_sections {
                    let old_v = old_p.vectors(*s, false).unwrap();
                    for (i, x) in stored.iter().enumerate() {
                        let Some(&(ns, ni)) = at.get(x) else {
                            continue;
                        };
                        let new_v = new_p.vectors(ns, false).unwrap();
                        let off = (0..3)
                            .map(|a| (old_v[i][a] as f64 - new_v[ni][a] as f64).abs())
                            .fold(0.0, f64::max);
                        if off > worst.0 {
                            worst = (off, f);
                        }
                        assert!(
                            off <= allowed,
                            "{name} sequence {k:?} frame {f} vertex {i}: {:?} vs {:?} ({keys} weighted keys)",
                            old_v[i],
                            new_v[ni]
                        );
                    }
                }
            }
            eprintln!(
                "{name} sequence {k:?}: {frames} frames, worst {} units at frame {}",
                worst.0, worst.1
            );
            compared += 1;
        }
    }
    eprintln!("{compared} sequences compared");
    if !files.is_empty() {
        assert!(compared > 0, "no corpus HMD with vertex MIMe");
    }
}

/// One node with a triangle 0.5 m wide carrying `targets` (rest weights 0), and `animations`.
fn morphed_triangle(targets: Vec<MorphTarget>, animations: Vec<Animation>) -> Scene {
    let mut node = Node::new("morphed");
    node.mesh = Some(0);
    node.weights = vec![0.0; targets.len()];
    Scene {
        nodes: vec![node],
        meshes: vec![Mesh {
            name: "tri".into(),
            target_names: (0..targets.len()).map(|k| format!("t{k}")).collect(),
            primitives: vec![Primitive {
                positions: vec![[0.0; 3], [0.5, 0.0, 0.0], [0.0, 0.5, 0.0]],
                targets,
                ..Primitive::default()
            }],
            extras: serde_json::Value::Null,
        }],
        animations,
        ..Scene::default()
    }
}

#[test]
fn what_vertex_mime_cannot_hold_is_noted_with_counts() {
    // 34 targets, each moving vertex 0 and the first two also its normal: 32 keys are
    // written, 2 targets and 2 normal displacements noted.
    let target = |k: usize| MorphTarget {
        kind: MorphTargetKind::Delta,
        positions: vec![[0.01 * (k + 1) as f32, 0.0, 0.0], [0.0; 3], [0.0; 3]],
        normals: if k < 2 {
            vec![[0.0, 0.1, 0.0]; 3]
        } else {
            Vec::new()
        },
    };
    let scene = morphed_triangle((0..34).map(target).collect(), Vec::new());
    let out = hmd::author::author(&scene, &hmd::author::HmdAuthorOptions::default()).unwrap();
    no_errors(&out.hmd, "authored");
    let note = |code: &str| {
        out.notes
            .iter()
            .find(|n| n.code == code)
            .map(|n| n.message.clone())
            .unwrap_or_default()
    };
    assert!(
        note("morph-targets-over-32").starts_with("2 ×"),
        "{:?}",
        out.notes
    );
    assert!(
        note("morph-normals-dropped").starts_with("2 ×"),
        "{:?}",
        out.notes
    );
    let p = Player::new(&out.hmd, &PlayOptions::default());
    let t = p.vertex_mime_deltas();
    assert_eq!(t.len(), 1);
    assert_eq!(t[0].keys.len(), 32);
}

#[test]
fn weights_beyond_the_consoles_range_are_held_at_the_limit_and_noted() {
    // One target moving vertex 1 by 0.01 m along x; the weight ramps from 0 to 12 over a
    // second. The driver's weight is 16-bit (4096 = 1.0): past 8.0 it would wrap to a large
    // negative weight and throw the vertex the other way; authored, it stays at 8.0 and the
    // samples held there are noted.
    let mut scene = morphed_triangle(
        vec![MorphTarget {
            kind: MorphTargetKind::Delta,
            positions: vec![[0.0; 3], [0.01, 0.0, 0.0], [0.0; 3]],
            normals: Vec::new(),
        }],
        vec![Animation {
            name: "ramp".into(),
            channels: vec![Channel {
                node: 0,
                interpolation: Interpolation::Linear,
                times: vec![0.0, 1.0],
                track: Track::Weights(vec![vec![0.0], vec![12.0]]),
            }],
            extras: serde_json::Value::Null,
        }],
    );
    scene.meshes[0].primitives[0].indices = vec![0, 1, 2];
    let out = hmd::author::author(&scene, &hmd::author::HmdAuthorOptions::default()).unwrap();
    no_errors(&out.hmd, "authored");
    let clamped = out
        .notes
        .iter()
        .find(|n| n.code == "morph-weight-clamped")
        .unwrap_or_else(|| panic!("no clamp note: {:?}", out.notes));
    // Frames 40..=60 of 60 fps ask for 8.0 (32768: one past the 16-bit range) or more.
    assert!(clamped.message.starts_with("21 ×"), "{}", clamped.message);
    let sections = mimed_sections(&out.hmd);
    assert_eq!(sections.len(), 1);
    let (section, stored) = &sections[0];
    let x1 = (0.5f64 * 4096.0).round() as i16;
    let v1 = stored.iter().position(|s| s[0] == x1).unwrap();
    let d = (0.51f64 * 4096.0).round() - f64::from(x1);
    let mut p = Player::new(&out.hmd, &PlayOptions::default());
    for f in 0..=60 {
        p.step().unwrap();
        let got = f64::from(p.vectors(*section, false).unwrap()[v1][0]) - f64::from(x1);
        let w = (12.0 * f as f64 / 60.0).min(32767.0 / 4096.0);
        assert!(
            (got - w * d).abs() <= 1.5,
            "frame {f}: vertex moved {got} units, want {} (weight {w})",
            w * d
        );
    }
}
