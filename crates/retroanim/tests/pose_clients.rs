//! Real clients pose every animated corpus file as the console does: Blender (`bpy`, its glTF
//! importer, `tests/blender/pose_matrices.py`) and three.js (Node, `GLTFLoader` +
//! `AnimationMixer.setTime`, `tools/threejs-check/poses.mjs`) give every node's world matrix at
//! the key frames (every frame of an animation up to 60 frames, else every 10th and the last),
//! compared with the player's world matrices (`GsGetLw`): within 0.5 console units and 0.05°
//! (the rotation nearest each matrix; for a matrix that collapses an axis below 1/16, whose
//! rotation the console's 1/4096 steps no longer hold, every entry within 1.5 steps). Every
//! corpus TOD (with the TMD beside it when there is exactly one, after its folder's
//! `APPEAR.TOD` when it has one) and every sequence of every animated corpus HMD. Visibility is
//! exact: each TOD model node (a TMD object an object shows) has a zero world matrix (the
//! export's scale 0) exactly when the console does not draw it. The maximum
//! error of each file and client is printed (`cargo test --test pose_clients -- --nocapture`).

mod common;

use std::path::{Path, PathBuf};

use retroanim::formats::gte::Mat;
use retroanim::formats::hmd::{self, SceneOptions};
use retroanim::formats::tmd::scene::PsxOptions;
use retroanim::formats::{tmd, tod};
use retroanim::scene::{Scene, Transform};
use serde_json::{json, Value};

/// A 3×3 linear part and a translation, glTF axes, metres.
type Aff = ([[f64; 3]; 3], [f64; 3]);

const MAX_UNITS: f64 = 0.5;
const MAX_DEGREES: f64 = 0.05;

/// One GLB to pose: the times and nodes to sample and what the player says there.
struct Case {
    name: String,
    glb: PathBuf,
    times: Vec<f64>,
    /// Node index and name.
    nodes: Vec<(usize, String)>,
    /// Per time, per node: the console's world matrix (`None`: not alive then).
    want: Vec<Vec<Option<Aff>>>,
    /// Per node: its rest world matrix in the glTF (for Blender's bones).
    rest: Vec<Aff>,
    /// Nodes whose visibility is checked (TOD model nodes): index and name.
    shown: Vec<(usize, String)>,
    /// Per time, per node of `shown`: whether the console draws it.
    want_shown: Vec<Vec<bool>>,
}

fn mul(a: &Aff, b: &Aff) -> Aff {
    let m = std::array::from_fn(|i| {
        std::array::from_fn(|j| (0..3).map(|k| a.0[i][k] * b.0[k][j]).sum())
    });
    let t = std::array::from_fn(|i| a.1[i] + (0..3).map(|j| a.0[i][j] * b.1[j]).sum::<f64>());
    (m, t)
}

fn inverse(a: &Aff) -> Aff {
    let r = a.0;
    let det = r[0][0] * (r[1][1] * r[2][2] - r[1][2] * r[2][1])
        - r[0][1] * (r[1][0] * r[2][2] - r[1][2] * r[2][0])
        + r[0][2] * (r[1][0] * r[2][1] - r[1][1] * r[2][0]);
    let m: [[f64; 3]; 3] = std::array::from_fn(|i| {
        std::array::from_fn(|j| {
            let (a1, b1) = ((j + 1) % 3, (j + 2) % 3);
            let (x, y) = ((i + 1) % 3, (i + 2) % 3);
            (r[a1][x] * r[b1][y] - r[a1][y] * r[b1][x]) / det
        })
    });
    let t = [0, 1, 2].map(|i| -(0..3).map(|j| m[i][j] * a.1[j]).sum::<f64>());
    (m, t)
}

/// The console's world matrix in glTF axes (x, −y, −z) and metres (1/4096 per unit).
fn console(m: &Mat) -> Aff {
    let c = [1.0, -1.0, -1.0];
    let r =
        std::array::from_fn(|i| std::array::from_fn(|j| m.m[i][j] as f64 / 4096.0 * c[i] * c[j]));
    (r, [0, 1, 2].map(|i| m.t[i] as f64 * c[i] / 4096.0))
}

/// The nearest rotation (polar decomposition by Newton iteration).
fn polar(m: [[f64; 3]; 3]) -> [[f64; 3]; 3] {
    let mut r = m;
    for _ in 0..30 {
        let inv = inverse(&(r, [0.0; 3])).0;
        if !inv.iter().flatten().all(|v| v.is_finite()) {
            break;
        }
        let next = std::array::from_fn(|i| std::array::from_fn(|j| 0.5 * (r[i][j] + inv[j][i])));
        r = next;
    }
    r
}

/// Below this scale (of the console's ONE) on some axis a matrix has collapsed that axis: its
/// rotation is lost in the console's 1/4096 steps (LSD's objects scaled to 1/4096 store
/// entries of ±1), so [`error`] compares its entries instead.
const COLLAPSED: f64 = 1.0 / 16.0;

/// Largest entry difference, in the console's 1/4096 steps, allowed for a matrix with a
/// [`COLLAPSED`] axis: the console's rounded entries may even hold a shear glTF's TRS cannot.
const MAX_COLLAPSED_STEPS: f64 = 1.5;

/// (distance in console units, angle in degrees between the nearest rotations, and for a
/// matrix with a [`COLLAPSED`] axis, instead of the angle, its largest entry difference in
/// 1/4096 steps).
fn error(got: &Aff, want: &Aff) -> (f64, f64, Option<f64>) {
    let dt = (0..3)
        .map(|i| (got.1[i] - want.1[i]).powi(2))
        .sum::<f64>()
        .sqrt()
        * 4096.0;
    let smallest = (0..3)
        .map(|j| (0..3).map(|i| want.0[i][j].powi(2)).sum::<f64>().sqrt())
        .fold(f64::MAX, f64::min);
    if smallest < COLLAPSED {
        let steps = (0..9)
            .map(|k| (got.0[k / 3][k % 3] - want.0[k / 3][k % 3]).abs() * 4096.0)
            .fold(0.0, f64::max);
        return (dt, 0.0, Some(steps));
    }
    let (a, b) = (polar(got.0), polar(want.0));
    let tr: f64 = (0..3)
        .map(|j| (0..3).map(|i| a[i][j] * b[i][j]).sum::<f64>())
        .sum();
    (
        dt,
        ((tr - 1.0) / 2.0).clamp(-1.0, 1.0).acos().to_degrees(),
        None,
    )
}

/// Every node's rest world matrix.
fn rest_worlds(scene: &Scene) -> Vec<Aff> {
    let local = |t: &Transform| -> Aff {
        match *t {
            Transform::Trs {
                translation: tr,
                rotation: q,
                scale: s,
            } => {
                let [x, y, z, w] = q.map(f64::from);
                let r = retroanim::scene::sample::quat_matrix([x, y, z, w]);
                let m = std::array::from_fn(|i| std::array::from_fn(|j| r[i][j] * s[j] as f64));
                (m, tr.map(f64::from))
            }
            Transform::Matrix(m) => (
                std::array::from_fn(|i| std::array::from_fn(|j| m[j * 4 + i] as f64)),
                [m[12], m[13], m[14]].map(f64::from),
            ),
        }
    };
    let mut out: Vec<Option<Aff>> = vec![None; scene.nodes.len()];
    fn world(
        scene: &Scene,
        i: usize,
        out: &mut Vec<Option<Aff>>,
        local: &dyn Fn(&Transform) -> Aff,
    ) -> Aff {
        if let Some(w) = out[i] {
            return w;
        }
        let l = local(&scene.nodes[i].transform);
        let w = match scene.nodes[i].parent {
            Some(p) => mul(&world(scene, p, out, local), &l),
            None => l,
        };
        out[i] = Some(w);
        w
    }
    (0..scene.nodes.len())
        .map(|i| world(scene, i, &mut out, &local))
        .collect()
}

fn hmd_cases(dir: &Path) -> Vec<Case> {
    let mut out = Vec::new();
    for (name, path) in common::corpus_files("HMD") {
        let m = hmd::read(&std::fs::read(&path).unwrap()).unwrap();
        let all = m.to_scene(&SceneOptions::default()).unwrap();
        for anim in &all.animations {
            let k = anim.extras["sequence"].as_u64().unwrap() as usize;
            let glb = dir.join(format!("hmd{}.glb", out.len()));
            let (scene, frames, mut p) = common::export_hmd_sequence(&m, k, &glb);
            let picks = common::sampled_frames(frames);
            let (mut times, mut want) = (Vec::new(), Vec::new());
            let mut nodes = Vec::new();
            for f in 0..frames {
                p.step().unwrap();
                if !picks.contains(&f) {
                    continue;
                }
                let coords = p.frame().coordinates;
                if nodes.is_empty() {
                    nodes = coords
                        .iter()
                        .map(|c| (c.index, format!("coord {}", c.index)))
                        .collect();
                }
                times.push(f as f64 / 60.0);
                want.push(coords.iter().map(|c| Some(console(&c.world))).collect());
            }
            let rest = rest_worlds(&scene);
            out.push(Case {
                name: format!("{name} sequence {k}"),
                glb,
                times,
                rest: nodes.iter().map(|(i, _)| rest[*i]).collect(),
                nodes,
                want,
                shown: Vec::new(),
                want_shown: Vec::new(),
            });
        }
    }
    out
}

/// The one TMD in the TOD's folder or a `TMD` folder beside it.
fn tmd_beside(tod: &Path) -> Option<tmd::Tmd> {
    let dir = tod.parent()?;
    let mut found = Vec::new();
    for d in [dir.to_path_buf(), dir.parent()?.join("TMD")] {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.extension().is_some_and(|x| x.eq_ignore_ascii_case("tmd")) {
                found.push(p);
            }
        }
    }
    match &found[..] {
        [one] => tmd::read(&std::fs::read(one).ok()?).ok(),
        _ => None,
    }
}

fn tod_cases(dir: &Path) -> Vec<Case> {
    let mut out = Vec::new();
    for (name, path) in common::corpus_files("TOD") {
        let anim = tod::read(&std::fs::read(&path).unwrap()).unwrap();
        let appear = path.with_file_name("APPEAR.TOD");
        let prelude: Vec<tod::Tod> = if appear.exists() && !name.ends_with("APPEAR.TOD") {
            vec![tod::read(&std::fs::read(&appear).unwrap()).unwrap()]
        } else {
            vec![]
        };
        let before: Vec<&tod::Tod> = prelude.iter().collect();
        let model = tmd_beside(&path);
        let scene = retroanim::formats::tod::scene::tod_scene_after(
            &before,
            &anim,
            model.as_ref(),
            &PsxOptions::default(),
        )
        .unwrap();
        if scene.animations.is_empty() {
            continue;
        }
        let glb = dir.join(format!("tod{}.glb", out.len()));
        std::fs::write(&glb, retroanim::export::gltf::write_glb(&scene).unwrap()).unwrap();
        let mut player: Option<tod::Player> = None;
        for t in &prelude {
            let mut p = match player.take() {
                None => tod::Player::new(t, model.as_ref()),
                Some(p) => p.then(t),
            };
            while p.advance() {}
            player = Some(p);
        }
        let player = match player {
            None => tod::Player::new(&anim, model.as_ref()),
            Some(p) => p.then(&anim),
        };
        let poses: Vec<tod::Pose> = player.collect();
        let first = poses[0].frame;
        let nodes: Vec<(usize, String)> = scene
            .nodes
            .iter()
            .enumerate()
            .filter(|(_, n)| n.extras["tod_object"].is_u64() && n.name.starts_with("object "))
            .map(|(i, n)| (i, n.name.clone()))
            .collect();
        // Model nodes ("object ID model K"): drawn while object ID is visible and shows
        // TMD object K (GsSortObject).
        let shown: Vec<(usize, String, u16, usize)> = scene
            .nodes
            .iter()
            .enumerate()
            .filter_map(|(i, n)| {
                let (id, k) = n.name.strip_prefix("object ")?.split_once(" model ")?;
                Some((i, n.name.clone(), id.parse().ok()?, k.parse().ok()?))
            })
            .collect();
        let (mut times, mut want, mut want_shown) = (Vec::new(), Vec::new(), Vec::new());
        for k in common::sampled_frames(poses.len()) {
            let pose = &poses[k];
            want_shown.push(
                shown
                    .iter()
                    .map(|(_, _, id, model)| {
                        pose.objects
                            .iter()
                            .find(|o| o.id == *id)
                            .is_some_and(|o| o.visible && o.model == Some(*model))
                    })
                    .collect(),
            );
            times.push((pose.frame - first) as f64 * anim.ticks_per_frame() as f64 / 60.0);
            want.push(
                nodes
                    .iter()
                    .map(|(i, _)| {
                        let id = scene.nodes[*i].extras["tod_object"].as_u64().unwrap();
                        // The first slot with the ID is the object (the player's search).
                        pose.objects
                            .iter()
                            .find(|o| o.id as u64 == id)
                            .map(|o| console(&o.world))
                    })
                    .collect(),
            );
        }
        let rest = rest_worlds(&scene);
        out.push(Case {
            name: format!(
                "{name}{}",
                if model.is_some() {
                    " (with its TMD)"
                } else {
                    ""
                }
            ),
            glb,
            times,
            rest: nodes.iter().map(|(i, _)| rest[*i]).collect(),
            nodes,
            want,
            shown: shown.into_iter().map(|(i, n, _, _)| (i, n)).collect(),
            want_shown,
        });
    }
    out
}

/// A 4×4 of rows as an [`Aff`].
fn rows(v: &Value) -> Aff {
    let r = |i: usize, j: usize| v[i][j].as_f64().unwrap();
    (
        std::array::from_fn(|i| std::array::from_fn(|j| r(i, j))),
        [r(0, 3), r(1, 3), r(2, 3)],
    )
}

/// A column-major 16-array as an [`Aff`].
fn columns(v: &Value) -> Aff {
    let e = |k: usize| v[k].as_f64().unwrap();
    (
        std::array::from_fn(|i| std::array::from_fn(|j| e(j * 4 + i))),
        [e(12), e(13), e(14)],
    )
}

/// How far a matrix is from rotation × scale: the largest |cos| between two of its columns
/// (glTF's TRS cannot hold a shear, so neither can any client).
fn shear(m: &[[f64; 3]; 3]) -> f64 {
    let col = |j: usize| [m[0][j], m[1][j], m[2][j]];
    let dot = |a: [f64; 3], b: [f64; 3]| a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    let mut worst = 0.0f64;
    for (a, b) in [(0, 1), (0, 2), (1, 2)] {
        let (x, y) = (col(a), col(b));
        let n = (dot(x, x) * dot(y, y)).sqrt();
        if n > 1e-12 {
            worst = worst.max((dot(x, y) / n).abs());
        }
    }
    worst
}

/// The worst errors of one animation: units, degrees, collapsed-matrix steps and how many
/// collapsed poses there were.
#[derive(Default, Clone, Copy)]
struct Worst {
    units: f64,
    degrees: f64,
    steps: f64,
    collapsed: usize,
    /// Visibility checks made (all must agree).
    visibility: usize,
}

/// Per case, the worst errors of a client's matrices (`got[case][time][node]`); the
/// poses beyond the bounds, described, in `bad`.
fn compare(
    client: &str,
    cases: &[Case],
    got: &[Vec<Vec<Option<Aff>>>],
    bad: &mut Vec<String>,
) -> Vec<Worst> {
    let mut worst_all = Vec::new();
    for (c, g) in cases.iter().zip(got) {
        let mut worst = Worst::default();
        let mut checked = 0;
        let mut first_bad = None;
        for (t, (want, got)) in c.want.iter().zip(g).enumerate() {
            for (n, (w, x)) in want.iter().zip(got).enumerate() {
                let Some(w) = w else { continue };
                let Some(x) = x else {
                    bad.push(format!("{client}, {}: no node {:?}", c.name, c.nodes[n].1));
                    continue;
                };
                let (dt, da, steps) = error(x, w);
                let over = steps.is_some_and(|s| s > MAX_COLLAPSED_STEPS);
                if (dt > MAX_UNITS || da > MAX_DEGREES || over) && first_bad.is_none() {
                    first_bad = Some(format!(
                        "{client}, {}: {} at {} s is {dt:.4} units, {da:.5}°, {:.3} steps (collapsed) from the console (console shear {:.5}, client {:.5})",
                        c.name,
                        c.nodes[n].1,
                        c.times[t],
                        steps.unwrap_or(0.0),
                        shear(&w.0),
                        shear(&x.0),
                    ));
                }
                worst.units = worst.units.max(dt);
                worst.degrees = worst.degrees.max(da);
                if let Some(s) = steps {
                    worst.steps = worst.steps.max(s);
                    worst.collapsed += 1;
                }
                checked += 1;
            }
        }
        // Visibility is exact: a hidden node's world matrix is zero (scale 0), a shown one's not.
        for (t, (want, got)) in c.want_shown.iter().zip(g).enumerate() {
            for (n, &w) in want.iter().enumerate() {
                let x = got.get(c.nodes.len() + n).copied().flatten();
                let drawn = x.is_some_and(|m| m.0.iter().flatten().any(|v| v.abs() > 1e-9));
                if drawn != w && first_bad.is_none() {
                    first_bad = Some(format!(
                        "{client}, {}: {} at {} s is {} but the console {} it",
                        c.name,
                        c.shown[n].1,
                        c.times[t],
                        if drawn { "shown" } else { "hidden" },
                        if w { "draws" } else { "does not draw" },
                    ));
                }
                worst.visibility += 1;
            }
        }
        bad.extend(first_bad);
        if checked == 0 {
            bad.push(format!("{client}, {}: nothing compared", c.name));
        }
        worst_all.push(worst);
    }
    worst_all
}

fn report(client: &str, cases: &[Case], worst: &[Worst], bad: &[String]) {
    for (c, w) in cases.iter().zip(worst) {
        eprintln!(
            "{client}: {}: max {:.4} units, {:.5}° over {} times × {} nodes{}{}",
            c.name,
            w.units,
            w.degrees,
            c.times.len(),
            c.nodes.len(),
            if w.collapsed > 0 {
                format!(
                    "; {} collapsed poses within {:.3} steps",
                    w.collapsed, w.steps
                )
            } else {
                String::new()
            },
            if w.visibility > 0 {
                format!("; visibility exact in {} checks", w.visibility)
            } else {
                String::new()
            }
        );
    }
    let all = worst.iter().fold(Worst::default(), |a, w| Worst {
        units: a.units.max(w.units),
        degrees: a.degrees.max(w.degrees),
        steps: a.steps.max(w.steps),
        collapsed: a.collapsed + w.collapsed,
        visibility: a.visibility + w.visibility,
    });
    eprintln!(
        "{client}: {} animations, worst {:.4} units, {:.5}°; {} collapsed poses, worst {:.3} steps; visibility exact in {} checks",
        cases.len(),
        all.units,
        all.degrees,
        all.collapsed,
        all.steps,
        all.visibility
    );
    assert!(
        bad.is_empty(),
        "{} animation(s) beyond {MAX_UNITS} units / {MAX_DEGREES}° / {MAX_COLLAPSED_STEPS} steps:\n{}",
        bad.len(),
        bad.join("\n")
    );
}

fn all_cases(dir: &Path) -> Vec<Case> {
    let mut cases = tod_cases(dir);
    cases.extend(hmd_cases(dir));
    cases
}

#[test]
fn blender_poses_every_animated_corpus_file_as_the_console() {
    let dir = tempfile::tempdir().unwrap();
    let cases = all_cases(dir.path());
    if cases.is_empty() {
        return;
    }
    let job: Vec<Value> = cases
        .iter()
        .map(|c| {
            json!({
                "glb": c.glb,
                "times": c.times,
                "nodes": c.nodes.iter().chain(&c.shown).map(|n| &n.1).collect::<Vec<_>>(),
            })
        })
        .collect();
    let (job_path, out_path) = common::clients::write_job(dir.path(), &job);
    if !common::run_blender_check("pose_matrices.py", &[&job_path, &out_path]) {
        return;
    }
    let got: Vec<Vec<Vec<Option<Aff>>>> = common::clients::read_frames(&out_path, |c, n, v| {
        if v["m"].is_array() {
            Some(rows(&v["m"]))
        } else if v["bone"].is_array() {
            // The importer turns bones: the pose relative to Blender's rest, applied to the
            // glTF's rest.
            let (pose, rest) = (rows(&v["bone"]), rows(&v["bone_rest"]));
            Some(mul(&mul(&pose, &inverse(&rest)), &cases[c].rest[n]))
        } else {
            None
        }
    });
    let mut bad = Vec::new();
    let worst = compare("Blender", &cases, &got, &mut bad);
    report("Blender", &cases, &worst, &bad);
}

#[test]
fn threejs_poses_every_animated_corpus_file_as_the_console() {
    let dir = tempfile::tempdir().unwrap();
    let cases = all_cases(dir.path());
    if cases.is_empty() {
        return;
    }
    let job: Vec<Value> = cases
        .iter()
        .map(|c| {
            json!({
                "glb": c.glb,
                "times": c.times,
                "nodes": c.nodes.iter().chain(&c.shown).map(|n| n.0).collect::<Vec<_>>(),
            })
        })
        .collect();
    let (job_path, out_path) = common::clients::write_job(dir.path(), &job);
    if !common::run_threejs_check("poses.mjs", &job_path, &out_path) {
        return;
    }
    let got: Vec<Vec<Vec<Option<Aff>>>> =
        common::clients::read_frames(&out_path, |_, _, v| v.is_array().then(|| columns(v)));
    let mut bad = Vec::new();
    let worst = compare("three.js", &cases, &got, &mut bad);
    report("three.js", &cases, &worst, &bad);
}
