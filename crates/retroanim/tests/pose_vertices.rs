//! Real clients deform every skinned and morphed corpus HMD as the console does: Blender
//! (`bpy`, `tests/blender/pose_vertices.py`: the depsgraph's evaluated meshes) and three.js
//! (Node, `tools/threejs-check/vertices.mjs`: `getVertexPosition`, which applies morph
//! influences and, for a skinned mesh, `applyBoneTransform`) give the world position of every
//! vertex of every skinned (shared polygons) or morphed (vertex MIMe) mesh at the sampled frames
//! of every sequence (as `pose_clients`: every frame up to 60, else every 10th and the last).
//!
//! The console's vertices come from the player: for shared polygons the calculated vertices
//! (`calculated_vectors`, what `GsU_0300xxxx` writes), for a morphed mesh the vertex sections
//! as its MIMe left them (`Player::vectors`) through its coordinate's world matrix (`apply`,
//! the GTE's `RotTrans`). Exported vertices are per polygon corner, so the check pairs each
//! client vertex with the console vertex it follows: the one nearest over every sampled frame
//! at once. The console's `>> 12` floors, so its integer vertex stands for the unit cell above
//! it; every client vertex must stay within 1 console unit of that cell's centre at every
//! sampled frame, plus, on a morphed mesh, √3 per vertex MIMe key weighted at once (each key's
//! `(w·d) >> 12` floors again in the section's axes, which no linear morph can share). The
//! maximum error of each file and client, and the range of the error along each console axis,
//! is printed
//! (`cargo test --test pose_vertices -- --nocapture`).

mod common;

use std::path::{Path, PathBuf};

use retroanim::formats::gte::Mat;
use retroanim::formats::hmd::{self, *};
use serde_json::{json, Value};

const MAX_UNITS: f64 = 1.0;

/// A point in glTF axes and metres.
type P3 = [f64; 3];

/// One GLB to deform: the times to sample and the console's vertices there.
struct Case {
    name: String,
    glb: PathBuf,
    times: Vec<f64>,
    /// Per time, the console's vertices (the same vertex at the same index at every time).
    want: Vec<Vec<P3>>,
    /// What the console vertices are: "skinned", "morphed" or both.
    kinds: String,
    /// The most vertex MIMe keys with a non-zero weight at one sampled frame: each adds its
    /// `(w·d) >> 12` (`GsVNMIMeFunc`), a floor of up to 1 unit per axis in the section's own
    /// axes, before the world matrix turns it — a rounding a client's exact morph cannot share.
    mime_keys: usize,
}

/// A console point (world coordinates) in glTF axes (x, −y, −z) and metres: the centre of the
/// unit cell it stands for. The console's `>> 12` floors, so its integer `v` is the exact
/// point's floor: the exact point lies in `[v, v + 1)` on each axis, centred on `v + ½`.
fn gltf(v: [i32; 3]) -> P3 {
    let c = v.map(|x| x as f64 + 0.5);
    [c[0], -c[1], -c[2]].map(|x| x / 4096.0)
}

/// The world matrix of the coordinate a scene node hangs from (identity for a root block).
fn coordinate_of(scene: &retroanim::scene::Scene, mut node: usize, coords: usize) -> Option<usize> {
    loop {
        if node < coords {
            return Some(node);
        }
        node = scene.nodes[node].parent?;
    }
}

/// Every vertex section of the file (word offset).
fn vertex_sections(m: &Hmd) -> Vec<u32> {
    m.regions
        .iter()
        .filter_map(|r| match &r.body {
            RegionBody::Section(s) if s.role == SectionRole::Vertex => Some(r.offset),
            _ => None,
        })
        .collect()
}

fn cases(dir: &Path) -> Vec<Case> {
    let mut out = Vec::new();
    for (name, path) in common::corpus_files("HMD") {
        let m = hmd::read(&std::fs::read(&path).unwrap()).unwrap();
        let all = m.to_scene(&SceneOptions::default()).unwrap();
        let skinned = !all.skins.is_empty();
        let coords = Player::new(&m, &PlayOptions::default())
            .frame()
            .coordinates
            .len();
        // Nodes drawing a mesh with morph targets, and the coordinate each hangs from.
        let morphed: Vec<Option<usize>> = all
            .nodes
            .iter()
            .enumerate()
            .filter(|(_, n)| {
                n.mesh
                    .is_some_and(|k| !all.meshes[k].target_names.is_empty())
            })
            .map(|(i, _)| coordinate_of(&all, i, coords))
            .collect();
        if !skinned && morphed.is_empty() {
            continue;
        }
        let sections = vertex_sections(&m);
        let kinds = match (skinned, morphed.is_empty()) {
            (true, true) => "skinned",
            (false, false) => "morphed",
            _ => "skinned and morphed",
        };
        for anim in &all.animations {
            let k = anim.extras["sequence"].as_u64().unwrap() as usize;
            let glb = dir.join(format!("hmd{}.glb", out.len()));
            let (_, frames, mut p) = common::export_hmd_sequence(&m, k, &glb);
            let picks = common::sampled_frames(frames);
            let (mut times, mut want, mut mime_keys) = (Vec::new(), Vec::new(), 0);
            for f in 0..frames {
                p.step().unwrap();
                if !picks.contains(&f) {
                    continue;
                }
                let frame = p.frame();
                if !morphed.is_empty() {
                    let active = frame
                        .mime
                        .iter()
                        .filter(|s| s.kind == MimeKind::Vertex)
                        .map(|s| s.weights.iter().filter(|&&w| w != 0).count())
                        .sum::<usize>();
                    mime_keys = mime_keys.max(active);
                }
                let mut points: Vec<P3> = calculated_vectors(&m, &p, &frame)
                    .into_iter()
                    .filter(|c| c.kind == "vertices")
                    .flat_map(|c| c.vectors)
                    .flatten()
                    .map(|v| gltf(v.map(i32::from)))
                    .collect();
                for coord in &morphed {
                    let world = coord
                        .and_then(|c| frame.coordinates.get(c))
                        .map(|c| c.world)
                        .unwrap_or(Mat::IDENTITY);
                    for &s in &sections {
                        for v in p.vectors(s, false).unwrap_or_default() {
                            points.push(gltf(apply(&world, v.map(i32::from))));
                        }
                    }
                }
                times.push(f as f64 / 60.0);
                want.push(points);
            }
            out.push(Case {
                name: format!("{name} sequence {k}"),
                glb,
                times,
                want,
                kinds: kinds.into(),
                mime_keys,
            });
        }
    }
    out
}

/// Per client vertex, the largest distance (console units) over the sampled times from the
/// console vertex it follows best; and how many console vertices were followed.
fn follow(want: &[Vec<P3>], got: &[Vec<P3>]) -> (Vec<(f64, usize)>, usize) {
    let d = |a: &P3, b: &P3| (0..3).map(|i| (a[i] - b[i]).powi(2)).sum::<f64>().sqrt() * 4096.0;
    let n = got.first().map_or(0, Vec::len);
    let mut used = std::collections::BTreeSet::new();
    let errors = (0..n)
        .map(|v| {
            // Candidates by their distance at the first time; the max over times is at least
            // that, so the search stops once it cannot improve.
            let mut order: Vec<(f64, usize)> = want[0]
                .iter()
                .enumerate()
                .map(|(c, w)| (d(&got[0][v], w), c))
                .collect();
            order.sort_by(|a, b| a.0.total_cmp(&b.0));
            let mut best = (f64::INFINITY, usize::MAX);
            for (d0, c) in order {
                if d0 >= best.0 {
                    break;
                }
                let worst = (0..want.len())
                    .map(|t| d(&got[t][v], &want[t][c]))
                    .fold(d0, f64::max);
                if worst < best.0 {
                    best = (worst, c);
                }
            }
            used.insert(best.1);
            best
        })
        .collect();
    (errors, used.len())
}

/// Compares a client's vertices (`got[case][time][vertex]`) with the console's; prints the
/// worst error of each file and panics naming every file beyond [`MAX_UNITS`].
fn compare(client: &str, cases: &[Case], got: &[Vec<Vec<P3>>]) {
    let mut bad = Vec::new();
    let mut worst_all = 0.0f64;
    for (c, g) in cases.iter().zip(got) {
        let n = g.first().map_or(0, Vec::len);
        if n == 0 || g.iter().any(|f| f.len() != n) {
            bad.push(format!(
                "{client}, {}: {} skinned/morphed vertices (must be the same, and some, at every time)",
                c.name,
                g.iter().map(|f| f.len().to_string()).collect::<Vec<_>>().join("/")
            ));
            continue;
        }
        let (pairs, used) = follow(&c.want, g);
        let errors: Vec<f64> = pairs.iter().map(|p| p.0).collect();
        let worst = errors.iter().copied().fold(0.0, f64::max);
        // Client − console per console axis (x, y, z), in console units.
        let mut range = [[f64::MAX, f64::MIN]; 3];
        for (t, f) in g.iter().enumerate() {
            for (v, &(_, k)) in pairs.iter().enumerate() {
                let (a, b) = (f[v], c.want[t][k]);
                for i in 0..3 {
                    let s = if i == 0 { 1.0 } else { -1.0 };
                    let d = (a[i] - b[i]) * s * 4096.0;
                    range[i] = [range[i][0].min(d), range[i][1].max(d)];
                }
            }
        }
        let allowed = MAX_UNITS + c.mime_keys as f64 * 3f64.sqrt();
        let over = errors.iter().filter(|&&e| e > allowed).count();
        eprintln!(
            "{client}: {} ({}): max {worst:.4} units (allowed {allowed:.3}) over {} times × {n} vertices (following {used} of {} console vertices); per console axis client − console within {:.3?}",
            c.name,
            c.kinds,
            c.times.len(),
            c.want[0].len(),
            range.map(|r| [r[0], r[1]]),
        );
        if over > 0 {
            bad.push(format!(
                "{client}, {}: {over} of {n} vertices beyond {allowed:.3} unit(s), worst {worst:.3}",
                c.name
            ));
        }
        worst_all = worst_all.max(worst);
    }
    eprintln!(
        "{client}: {} animations, worst {worst_all:.4} units",
        cases.len()
    );
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// The job file both client scripts read.
fn job(cases: &[Case], dir: &Path) -> (PathBuf, PathBuf) {
    let job: Vec<Value> = cases
        .iter()
        .map(|c| json!({ "glb": c.glb, "times": c.times }))
        .collect();
    common::clients::write_job(dir, &job)
}

/// The frames of a client's output file.
fn read_out(path: &Path) -> Vec<Vec<Vec<P3>>> {
    common::clients::read_frames(path, |_, _, p| [0, 1, 2].map(|i| p[i].as_f64().unwrap()))
}

#[test]
fn blender_deforms_every_skinned_and_morphed_corpus_file_as_the_console() {
    let dir = tempfile::tempdir().unwrap();
    let cases = cases(dir.path());
    if cases.is_empty() {
        return;
    }
    let (job_path, out_path) = job(&cases, dir.path());
    if !common::run_blender_check("pose_vertices.py", &[&job_path, &out_path]) {
        return;
    }
    compare("Blender", &cases, &read_out(&out_path));
}

#[test]
fn threejs_deforms_every_skinned_and_morphed_corpus_file_as_the_console() {
    let dir = tempfile::tempdir().unwrap();
    let cases = cases(dir.path());
    if cases.is_empty() {
        return;
    }
    let (job_path, out_path) = job(&cases, dir.path());
    if !common::run_threejs_check("vertices.mjs", &job_path, &out_path) {
        return;
    }
    compare("three.js", &cases, &read_out(&out_path));
}
