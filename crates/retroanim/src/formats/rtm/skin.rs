//! RTM + the P3D it animates → one skinned, animated scene.
//!
//! - **Joints:** node 0 (the RTM scene's root, which never moves) and every bone's joint node,
//!   in bone order. The LOD's named selections whose names match a bone (ignoring ASCII case,
//!   as the engine does) weight their points to that bone; a binarised (ODOL) LOD is read by
//!   [`super::skin_odol`] (its selections, or an Arma skeleton's vertex bone references).
//! - **Weights:** MLOD keeps one byte per point in each named selection: 0 = not selected,
//!   otherwise the weight is `(256 − byte) / 255` (1 = fully selected, 255 = 1/255), the
//!   reading of Arma 3 Object Builder's and Arma Toolbox's importers; the corpus's weighted
//!   models (complementary pairs such as 0x67 / 0x9A summing to 255/255) agree with it. A
//!   point keeps its four largest bone weights (glTF's one `JOINTS_0` set), scaled to sum to 1;
//!   a point in no bone selection stays on the root (it does not move). Each is counted in a note.
//! - **Bind pose:** RTM matrices move the model's rest vertices in model space, so every
//!   inverse bind matrix is the identity: a vertex lands at `Σ w · M_bone · rest`.
//! - **Mesh:** the LOD as the P3D export makes it ([`crate::formats::p3d::scene::to_scene`]:
//!   x negated, a primitive per texture and material); its own LOD frames (`#Animation#`) are
//!   left out with a note: the RTM animates it.

use super::scene::to_scene_joints;
use super::skin_odol::{self, PointWeights};
use super::{Mlod, SceneOptions};
use crate::formats::p3d::scene::{self as p3d_scene, SceneAxes};
use crate::formats::p3d::{Lod, P3d, TaggData, TaggKind};
use crate::report::Note;
use crate::scene::{Scene, Skin};
use crate::{Error, Format, Result};

/// The weight a named selection's byte gives its point: 0 for 0, else `(256 − b) / 255`.
pub fn selection_weight(b: u8) -> f32 {
    if b == 0 {
        0.0
    } else {
        (256 - u32::from(b)) as f32 / 255.0
    }
}

/// The LODs of `p3d` whose named selections name at least one of the RTM's bones (for an Arma
/// ODOL with a skeleton and vertex bone references: whose bones do), in file order. An ODOL
/// LOD whose mesh does not decode is left out (skinning it names the error).
pub fn skinnable_lods(m: &Mlod, p3d: &P3d) -> Vec<usize> {
    match p3d {
        P3d::Mlod(model) => (0..model.lods.len())
            .filter(|&i| {
                model.lods[i].taggs.iter().any(|t| {
                    t.kind() == TaggKind::NamedSelection && bone_of(m, &t.name.lossy()).is_some()
                })
            })
            .collect(),
        P3d::Odol(o) => {
            let skeleton = o.skeleton().ok().flatten();
            (0..o.lods.len())
                .filter(|&i| {
                    o.lod_mesh(i)
                        .is_ok_and(|mesh| skin_odol::names_a_bone(m, skeleton.as_ref(), &mesh))
                })
                .collect()
        }
    }
}

fn bone_of(m: &Mlod, name: &str) -> Option<usize> {
    m.bones.iter().position(|b| b.same_bone(name))
}

/// LOD `lod` of `p3d`, skinned to the RTM's bones and animated by it, and notes on what was
/// left out or changed (see the module docs).
pub fn skinned_scene(
    m: &Mlod,
    p3d: &P3d,
    lod: usize,
    opts: &SceneOptions,
) -> Result<(Scene, Vec<Note>)> {
    let refuse = |why: String| Error::Conversion {
        from: Format::Rtm,
        to: Format::Gltf,
        why,
    };
    if lod >= p3d.lod_count() {
        return Err(refuse(format!(
            "the P3D has {} LODs, no LOD {lod}",
            p3d.lod_count()
        )));
    }
    if nb_too_large(m.bones.len()) {
        return Err(refuse(format!(
            "{} bones: a glTF skin's joints are indexed by 16 bits (at most 65534 bones and the root)",
            m.bones.len()
        )));
    }
    let (mut scene, mut notes, joint) = to_scene_joints(m, opts)?;
    let (map, _) = p3d_scene::vertex_points(p3d, lod, SceneAxes::Gltf)?;
    let mesh_scene = p3d_scene::to_scene(p3d, lod, SceneAxes::Gltf, 1.0)?;
    let nb = m.bones.len();

    // Every point's bone weights, from the selections named after bones (or an ODOL's skeleton).
    let (
        PointWeights {
            mut influences,
            named,
            notes: weight_notes,
            what,
        },
        frames,
    ) = match p3d {
        P3d::Mlod(model) => (
            mlod_weights(m, &model.lods[lod]),
            model.lods[lod].frames().len(),
        ),
        P3d::Odol(o) => (
            skin_odol::weights(m, o, &o.lod_mesh(lod)?, lod)?,
            o.lods[lod].frames.len(),
        ),
    };
    notes.extend(weight_notes);
    let np = influences.len();
    let mut used = vec![false; np];
    for points in &map {
        for &p in points {
            if let Some(u) = used.get_mut(p as usize) {
                *u = true;
            }
        }
    }
    let (mut on_root, mut cut, mut rescaled) = (0usize, 0usize, 0usize);
    let per_point: Vec<([u16; 4], [f32; 4])> = influences
        .iter_mut()
        .enumerate()
        .map(|(p, inf)| {
            let counted = used[p];
            if inf.is_empty() {
                on_root += usize::from(counted);
                return ([0; 4], [1.0, 0.0, 0.0, 0.0]);
            }
            inf.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
            if inf.len() > 4 {
                cut += usize::from(counted);
                inf.truncate(4);
            }
            let sum: f32 = inf.iter().map(|e| e.1).sum();
            if (sum - 1.0).abs() > 0.01 {
                rescaled += usize::from(counted);
            }
            let mut joints = [0u16; 4];
            let mut weights = [0f32; 4];
            for (k, &(b, w)) in inf.iter().enumerate() {
                // Joint 0 is the root; bone b is joint b + 1 (below 2^16: checked above).
                joints[k] = u16::try_from(b + 1).unwrap_or(0);
                weights[k] = w / sum;
            }
            // The largest weight takes up the rounding, so each set sums to 1 in f32.
            let rest: f32 = weights[1..].iter().sum();
            weights[0] = 1.0 - rest;
            (joints, weights)
        })
        .collect();

    // The mesh: the LOD without its own frames, joints and weights per vertex.
    let mut meshes = mesh_scene.meshes;
    for mesh in &mut meshes {
        mesh.target_names.clear();
        for (prim, points) in mesh.primitives.iter_mut().zip(&map) {
            prim.targets.clear();
            let (j, w): (Vec<_>, Vec<_>) = points
                .iter()
                .map(|&p| {
                    per_point
                        .get(p as usize)
                        .copied()
                        .unwrap_or(([0; 4], [1.0, 0.0, 0.0, 0.0]))
                })
                .unzip();
            prim.joints = j;
            prim.weights = w;
        }
    }
    let lod_name = mesh_scene
        .nodes
        .first()
        .map_or_else(|| format!("LOD {lod}"), |n| n.name.clone());
    if !meshes.is_empty() {
        let mesh_index = scene.meshes.len();
        let material_base = scene.materials.len();
        for mesh in &mut meshes {
            for prim in &mut mesh.primitives {
                prim.material = prim.material.map(|k| k + material_base);
            }
        }
        scene.materials.extend(mesh_scene.materials);
        scene.meshes.extend(meshes);
        let mut node = crate::scene::Node::new(lod_name.clone());
        node.mesh = Some(mesh_index);
        node.skin = Some(scene.skins.len());
        scene.nodes.push(node);
        let mut joints = Vec::with_capacity(nb + 1);
        joints.push(0);
        joints.extend(joint.iter().copied());
        // Written out (glTF's default is the same identity) so that readers which ignore
        // the default still bind at the model's rest pose.
        let mut identity = [0f32; 16];
        identity[0] = 1.0;
        identity[5] = 1.0;
        identity[10] = 1.0;
        identity[15] = 1.0;
        scene.skins.push(Skin {
            name: format!("{lod_name} skin"),
            inverse_bind_matrices: vec![identity; joints.len()],
            joints,
        });
    } else {
        notes.push(Note {
            code: "no-faces",
            message: format!(
                "LOD {lod} ({lod_name}) has neither faces nor points: no mesh to skin"
            ),
        });
    }

    let unnamed = named.iter().filter(|&&n| !n).count();
    if unnamed > 0 {
        notes.push(Note {
            code: "bones-without-selection",
            message: format!(
                "{unnamed} of the RTM's {nb} bones name no {what} of LOD {lod}: they move no vertex"
            ),
        });
    }
    if on_root > 0 {
        notes.push(Note {
            code: "vertices-on-root",
            message: format!(
                "{on_root} of LOD {lod}'s points are weighted to no {what} named after a bone: they stay on the root and do not move"
            ),
        });
    }
    if cut > 0 {
        notes.push(Note {
            code: "weights-cut",
            message: format!(
                "{cut} points are weighted to more than 4 bones: each keeps its 4 largest weights (glTF's JOINTS_0)"
            ),
        });
    }
    if rescaled > 0 {
        notes.push(Note {
            code: "weights-rescaled",
            message: format!(
                "{rescaled} points' bone weights do not sum to 1 (within 0.01, more than the bytes' rounding): scaled to sum to 1"
            ),
        });
    }
    if frames > 0 {
        notes.push(Note {
            code: "lod-frames-left-out",
            message: format!(
                "LOD {lod}'s own {frames} LOD frames (#Animation#) are left out: the RTM animates the mesh"
            ),
        });
    }
    Ok((scene, notes))
}

/// An MLOD LOD's point weights: its named selections named after bones.
fn mlod_weights(m: &Mlod, l: &Lod) -> PointWeights {
    let np = l.points.len();
    let mut influences: Vec<Vec<(usize, f32)>> = vec![Vec::new(); np];
    let mut named = vec![false; m.bones.len()];
    for t in &l.taggs {
        if t.kind() != TaggKind::NamedSelection {
            continue;
        }
        let (Some(b), TaggData::Selection { points, .. }) = (bone_of(m, &t.name.lossy()), &t.data)
        else {
            continue;
        };
        named[b] = true;
        for (p, &byte) in points.0.iter().enumerate().take(np) {
            let w = selection_weight(byte);
            if w <= 0.0 {
                continue;
            }
            // A bone selected twice (two selections whose names differ only in case): the
            // larger weight.
            match influences[p].iter_mut().find(|(k, _)| *k == b) {
                Some(e) => e.1 = e.1.max(w),
                None => influences[p].push((b, w)),
            }
        }
    }
    PointWeights {
        influences,
        named,
        notes: Vec::new(),
        what: "selection",
    }
}

fn nb_too_large(nb: usize) -> bool {
    nb + 1 > usize::from(u16::MAX)
}
