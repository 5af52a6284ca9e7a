//! The bone weights of a binarised (ODOL) P3D's LOD, for [`super::skinned_scene`].
//!
//! - **Skeleton (Arma):** when the model's skeleton has bones and the LOD has vertex bone
//!   references, each vertex's up to four (LOD bone, weight) pairs are used: the LOD bone
//!   indexes the LOD's sub-skeleton map, which gives the skeleton bone, whose name is matched
//!   to the RTM's bones (ignoring ASCII case). This is how the engine moves binarised
//!   characters; the named selections are then not read.
//! - **Named selections:** otherwise each selection named after a bone moves its vertices
//!   (indices into the LOD's vertex table). No weight bytes: every listed vertex is fully
//!   selected. Weight bytes: one per listed vertex, weight = `byte / 255` (255 = fully
//!   selected, 0 = not selected).
//!
//! Both weight readings and their sources are in `docs/rtm.md`. Indices past their tables,
//! a weight array whose length is neither 0 nor the vertex count, and a bone reference count
//! outside 0..=4 are errors naming the byte offset.

use crate::formats::p3d::{Odol, OdolMesh, OdolSkeleton};
use crate::report::Note;
use crate::{Error, Format, Result};

use super::Mlod;

/// Each point's (bone, weight) influences, which RTM bones move anything, and notes.
pub(super) struct PointWeights {
    /// Per vertex of the LOD's vertex table: (RTM bone index, weight 0..1).
    pub influences: Vec<Vec<(usize, f32)>>,
    /// Per RTM bone: whether a selection (or skeleton bone) named after it moves a vertex.
    pub named: Vec<bool>,
    /// What the weights were read from and what was left out.
    pub notes: Vec<Note>,
    /// What a bone is matched against, for the notes ("selection", "skeleton bone").
    pub what: &'static str,
}

fn bone_of(m: &Mlod, name: &str) -> Option<usize> {
    m.bones.iter().position(|b| b.same_bone(name))
}

fn malformed(offset: u64, what: String) -> Error {
    Error::Malformed {
        format: Format::P3d,
        offset,
        what,
    }
}

/// Adds weight `w` of bone `b` to `inf` (a bone given twice keeps the larger weight).
fn add(inf: &mut Vec<(usize, f32)>, b: usize, w: f32) {
    match inf.iter_mut().find(|(k, _)| *k == b) {
        Some(e) => e.1 = e.1.max(w),
        None => inf.push((b, w)),
    }
}

/// Whether the skeleton path applies to this LOD: the model has skeleton bones and the LOD
/// has vertex bone references and a sub-skeleton map.
pub(super) fn uses_skeleton(skeleton: Option<&OdolSkeleton>, mesh: &OdolMesh) -> bool {
    skeleton.is_some_and(|s| !s.bones.is_empty())
        && !mesh.bone_refs.is_empty()
        && !mesh.sub_skeleton.is_empty()
}

/// Whether any bone-moving name of the LOD (a selection, or with a skeleton a bone the LOD's
/// sub-skeleton maps) is one of the RTM's bones.
pub(super) fn names_a_bone(m: &Mlod, skeleton: Option<&OdolSkeleton>, mesh: &OdolMesh) -> bool {
    match skeleton {
        Some(s) if uses_skeleton(Some(s), mesh) => mesh.sub_skeleton.iter().any(|&k| {
            usize::try_from(k)
                .ok()
                .and_then(|k| s.bones.get(k))
                .is_some_and(|(name, _)| bone_of(m, &name.lossy()).is_some())
        }),
        _ => mesh
            .selections
            .iter()
            .any(|s| bone_of(m, &s.name.lossy()).is_some()),
    }
}

/// The weights of LOD `lod` of `o` (its decoded `mesh`), for the RTM `m`.
pub(super) fn weights(m: &Mlod, o: &Odol, mesh: &OdolMesh, lod: usize) -> Result<PointWeights> {
    let skeleton = o.skeleton()?;
    if uses_skeleton(skeleton.as_ref(), mesh) {
        if let Some(s) = &skeleton {
            return from_bone_refs(m, s, mesh, lod);
        }
    }
    from_selections(m, mesh, lod)
}

fn from_selections(m: &Mlod, mesh: &OdolMesh, lod: usize) -> Result<PointWeights> {
    let np = mesh.positions.len();
    let mut influences: Vec<Vec<(usize, f32)>> = vec![Vec::new(); np];
    let mut named = vec![false; m.bones.len()];
    let (mut partial, mut empty) = (0usize, Vec::new());
    for s in &mesh.selections {
        let name = s.name.lossy();
        let Some(b) = bone_of(m, &name) else {
            continue;
        };
        if !s.weights.is_empty() && s.weights.len() != s.vertices.len() {
            return Err(malformed(
                s.weights_at,
                format!(
                    "ODOL LOD {lod}, selection \"{name}\": {} vertex weight bytes for {} vertices (expected one per vertex, or none)",
                    s.weights.len(),
                    s.vertices.len()
                ),
            ));
        }
        if let Some(&v) = s.vertices.iter().find(|&&v| v as usize >= np) {
            return Err(malformed(
                s.vertices_at,
                format!(
                    "ODOL LOD {lod}, selection \"{name}\": vertex index {v}, but the LOD has {np} vertices"
                ),
            ));
        }
        if s.vertices.is_empty() {
            empty.push(name);
            continue;
        }
        named[b] = true;
        for (k, &v) in s.vertices.iter().enumerate() {
            let w = match s.weights.get(k) {
                None => 1.0,
                Some(&byte) => {
                    partial += usize::from(byte != 0 && byte != 255);
                    f32::from(byte) / 255.0
                }
            };
            if w > 0.0 {
                add(&mut influences[v as usize], b, w);
            }
        }
    }
    let mut notes = Vec::new();
    if !empty.is_empty() {
        notes.push(Note {
            code: "selections-without-vertices",
            message: format!(
                "{} selections of LOD {lod} named after bones list no vertices and move nothing: {}",
                empty.len(),
                empty.join(", ")
            ),
        });
    }
    if partial > 0 {
        notes.push(Note {
            code: "partial-selection-weights",
            message: format!(
                "{partial} selected vertices of LOD {lod} carry a partial weight byte (1..254), read as byte / 255"
            ),
        });
    }
    Ok(PointWeights {
        influences,
        named,
        notes,
        what: "selection",
    })
}

fn from_bone_refs(m: &Mlod, s: &OdolSkeleton, mesh: &OdolMesh, lod: usize) -> Result<PointWeights> {
    let np = mesh.positions.len();
    if mesh.bone_refs.len() != np {
        return Err(malformed(
            mesh.bone_refs_at,
            format!(
                "ODOL LOD {lod}: {} vertex bone references for {np} vertices",
                mesh.bone_refs.len()
            ),
        ));
    }
    // The RTM bone of each of the LOD's bones (None: a skeleton bone the RTM does not move).
    let mut local = Vec::with_capacity(mesh.sub_skeleton.len());
    for (i, &k) in mesh.sub_skeleton.iter().enumerate() {
        let bone = usize::try_from(k).ok().and_then(|k| s.bones.get(k));
        let Some((name, _)) = bone else {
            return Err(malformed(
                mesh.sub_skeleton_at + 4 + 4 * i as u64,
                format!(
                    "ODOL LOD {lod}: sub-skeleton bone {i} maps to skeleton bone {k}, but the skeleton \"{}\" has {} bones",
                    s.name.lossy(),
                    s.bones.len()
                ),
            ));
        };
        let name = name.lossy();
        let bone = bone_of(m, &name);
        local.push((name, bone));
    }
    let mut influences: Vec<Vec<(usize, f32)>> = vec![Vec::new(); np];
    let mut named = vec![false; m.bones.len()];
    let mut unmatched = std::collections::BTreeSet::new();
    let mut dropped = 0usize;
    for (v, r) in mesh.bone_refs.iter().enumerate() {
        // The record's offset when stored raw, else the array's.
        let at = mesh
            .bone_refs_raw_at
            .map_or(mesh.bone_refs_at, |at| at + 12 * v as u64);
        let pair_at =
            |i: usize| at + u64::from(mesh.bone_refs_raw_at.is_some()) * (4 + 2 * i as u64);
        let n = usize::try_from(r.count)
            .ok()
            .filter(|&n| n <= 4)
            .ok_or_else(|| {
                malformed(
                    at,
                    format!(
                    "ODOL LOD {lod}, vertex {v}: bone reference count {} (0..=4 fit the record)",
                    r.count
                ),
                )
            })?;
        let mut lost = false;
        for (i, &(bone, byte)) in r.pairs[..n].iter().enumerate() {
            let Some((name, rtm_bone)) = local.get(usize::from(bone)) else {
                return Err(malformed(
                    pair_at(i),
                    format!(
                        "ODOL LOD {lod}, vertex {v}: LOD bone {bone}, but the sub-skeleton map has {} bones",
                        local.len()
                    ),
                ));
            };
            let w = f32::from(byte) / 255.0;
            match rtm_bone {
                Some(b) if w > 0.0 => {
                    named[*b] = true;
                    add(&mut influences[v], *b, w);
                }
                Some(_) => {}
                None => {
                    lost |= w > 0.0;
                    unmatched.insert(name.clone());
                }
            }
        }
        dropped += usize::from(lost);
    }
    let mut notes = vec![Note {
        code: "skeleton-weights",
        message: format!(
            "LOD {lod}'s weights are its vertex bone references to the model's skeleton \"{}\" ({} bones), not its named selections",
            s.name.lossy(),
            s.bones.len()
        ),
    }];
    if !unmatched.is_empty() {
        notes.push(Note {
            code: "skeleton-bones-not-in-rtm",
            message: format!(
                "{dropped} vertices of LOD {lod} are weighted to {} skeleton bones the RTM does not move (their weight is left out): {}",
                unmatched.len(),
                unmatched.into_iter().collect::<Vec<_>>().join(", ")
            ),
        });
    }
    Ok(PointWeights {
        influences,
        named,
        notes,
        what: "skeleton bone",
    })
}
