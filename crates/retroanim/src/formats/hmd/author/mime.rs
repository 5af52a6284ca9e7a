//! Morph targets → vertex MIMe (category 4), laid out as Sony's samples are (`SCEI/MIME/PUYO`,
//! `SCEI/COMB/AMMONITE`).
//!
//! A node whose mesh has morph targets gets, in its own block, the chain *vertex MIMe
//! primitive* (0x04010020) → its polygons → *reset primitive* (0x04010028): the MIMe adds the
//! weighted differences into the block's vertex section before the polygons are drawn, the
//! reset copies the saved originals back after. The MIMe header is
//! `M(MIMEPR); MIMe_num; MIMeID 0; M(DIFF); M(ORGSVN); M(vertex); M(normal)`, the reset's
//! `MIMeID 0; M(DIFF); M(ORGSVN); M(vertex); M(normal)`.
//!
//! - **DIFF** (one section for the file): per node a vertex DIFF block with one key per morph
//!   target that moves a vertex (`dflags` bit *k* = target *k*), holding the run of vertices
//!   from the first to the last one it moves; then the node's reset block, one record over the
//!   union of those runs (`ostart` 0 in the node's ORGSVN section).
//! - **Differences**: per console vertex, `round(target position) − round(base position)` in
//!   console units, with the vertices' own axes and scale (so a weight of 1.0 puts the vertex
//!   exactly where the rounded target is). The TMD author merges scene vertices that round to
//!   the same console vertex; when such vertices move differently under a target, the first
//!   one's difference is kept and the rest counted in a note.
//! - **MIMEPR**: a section per node with one weight per key (4096 = 1.0): the node's rest
//!   weights (`Node::weights`); a weights animation drives it through TGT = 1 key frames (the
//!   `anim` submodule).
//! - **Left out, with notes**: normal morph targets (no normal MIMe is written), targets past
//!   the MIMe key limit (32), targets of a mesh that writes no polygons, differences that do not
//!   fit int16 (clamped), weights beyond ±8.0 (the driver's weight is 16-bit: written at the
//!   limit instead of wrapping).

use std::collections::HashMap;

use crate::formats::tmd::author::Counts;
use crate::scene::{MorphTargetKind, PrimitiveMode, Scene};

use super::super::types::{
    JointDiff, JointDifference, JointReset, Matrix, MimeDiffItem, SVector, VertexDifferences,
};
use super::unencodable;
use super::ToConsole;
use crate::error::Result;

/// The MIMe key limit (32 weights: one `dflags` bit each).
pub(super) const MAX_KEYS: usize = 32;

/// One node's vertex MIMe.
pub(super) struct Morph {
    /// Number of keys (the mesh's targets, at most [`MAX_KEYS`]).
    pub num: usize,
    /// Bit *k*: key *k* has differences.
    pub dflags: u32,
    /// The keys with differences, in key order.
    pub keys: Vec<VertexDifferences>,
    /// First vertex and number of vertices the keys move (the reset record).
    pub span: (u32, u16),
    /// Rest weights, 4096 = 1.0.
    pub weights: Vec<i32>,
}

fn round_point(conv: &ToConsole, p: [f64; 3]) -> [i32; 3] {
    conv.point(p)
        .map(|v| v.round().clamp(i32::MIN as f64, i32::MAX as f64) as i32)
}

/// The vertex MIMe of node `node` (showing mesh `mesh`) over its block's `vertices`, or `None`
/// when the mesh has no targets.
pub(super) fn build(
    scene: &Scene,
    conv: &ToConsole,
    node: usize,
    mesh: usize,
    vertices: &[SVector],
    notes: &mut Counts,
) -> Option<Morph> {
    let m = scene.meshes.get(mesh)?;
    let targets = m
        .primitives
        .iter()
        .map(|p| p.targets.len())
        .max()
        .unwrap_or(0);
    if targets == 0 {
        return None;
    }
    let num = targets.min(MAX_KEYS);
    notes.add("morph-targets-over-32", targets - num, || {
        "morph target(s) past the MIMe limit of 32 keys left out".into()
    });
    let normal_targets = (0..num)
        .filter(|&t| {
            m.primitives
                .iter()
                .any(|p| p.targets.get(t).is_some_and(|x| !x.normals.is_empty()))
        })
        .count();
    notes.add("morph-normals-dropped", normal_targets, || {
        "morph target normal displacement(s) left out (normal MIMe is not written): lighting uses the base normals".into()
    });
    let at: HashMap<[i16; 3], usize> = vertices
        .iter()
        .enumerate()
        .rev()
        .map(|(i, v)| (v.v, i))
        .collect();
    // Per console vertex, per key: the difference (first scene vertex wins).
    let mut diffs: Vec<Option<Vec<[i32; 3]>>> = vec![None; vertices.len()];
    let (mut merged, mut clamped) = (0usize, 0usize);
    for prim in &m.primitives {
        if prim.mode != PrimitiveMode::Triangles {
            continue;
        }
        let used: Box<dyn Iterator<Item = usize>> = if prim.indices.is_empty() {
            Box::new(0..prim.positions.len())
        } else {
            Box::new(prim.indices.iter().map(|&i| i as usize))
        };
        for vi in used {
            let Some(p) = prim.positions.get(vi) else {
                continue;
            };
            let p = p.map(f64::from);
            let base = round_point(conv, p);
            if base.iter().any(|v| !(-32768..=32767).contains(v)) {
                continue;
            }
            let key = base.map(|v| v as i16);
            let Some(&k) = at.get(&key) else { continue };
            let d: Vec<[i32; 3]> = (0..num)
                .map(|t| {
                    let Some(q) = prim.targets.get(t).and_then(|x| {
                        x.positions.get(vi).map(|q| {
                            let q = q.map(f64::from);
                            match x.kind {
                                MorphTargetKind::Absolute => q,
                                MorphTargetKind::Delta => [p[0] + q[0], p[1] + q[1], p[2] + q[2]],
                            }
                        })
                    }) else {
                        return [0; 3];
                    };
                    let r = round_point(conv, q);
                    [0, 1, 2].map(|i| r[i].saturating_sub(base[i]))
                })
                .collect();
            match &diffs[k] {
                None => diffs[k] = Some(d),
                Some(old) if *old != d => merged += 1,
                Some(_) => {}
            }
        }
    }
    notes.add("morph-vertices-merged", merged, || {
        "scene vertices sharing a console vertex but moved differently by a morph target: the first one's difference kept".into()
    });
    let mut keys = Vec::new();
    let mut dflags = 0u32;
    let (mut lo, mut hi) = (usize::MAX, 0usize);
    for t in 0..num {
        let moved: Vec<usize> = (0..vertices.len())
            .filter(|&v| diffs[v].as_ref().is_some_and(|d| d[t] != [0; 3]))
            .collect();
        let (Some(&first), Some(&last)) = (moved.first(), moved.last()) else {
            continue;
        };
        dflags |= 1 << t;
        lo = lo.min(first);
        hi = hi.max(last);
        keys.push(VertexDifferences {
            vstart: first as u32,
            reserved: 0,
            deltas: (first..=last)
                .map(|v| {
                    let d = diffs[v].as_ref().map_or([0; 3], |d| d[t]);
                    SVector {
                        v: d.map(|x| {
                            if !(-32768..=32767).contains(&x) {
                                clamped += 1;
                            }
                            x.clamp(-32768, 32767) as i16
                        }),
                        pad: 0,
                    }
                })
                .collect(),
        });
    }
    notes.add("morph-difference-clamped", clamped, || {
        "morph target difference(s) past int16 console units clamped".into()
    });
    let mut past = 0;
    let weights = (0..num)
        .map(|t| {
            let w = scene.nodes[node].weights.get(t).copied().unwrap_or(0.0);
            console_weight(w as f64, &mut past)
        })
        .collect();
    note_weights_clamped(notes, past);
    let span = if keys.is_empty() {
        (0, 0)
    } else {
        (lo as u32, u16::try_from(hi - lo + 1).unwrap_or(u16::MAX))
    };
    Some(Morph {
        num,
        dflags,
        keys,
        span,
        weights,
    })
}

/// A morph weight as the driver uses it: × 4096, rounded, held to the GTE's 16-bit IR0 (the
/// player wraps a weight beyond ±8.0 as the console does, so one is written at the limit
/// instead and counted in `past`).
pub(super) fn console_weight(w: f64, past: &mut usize) -> i32 {
    let v = (w * 4096.0).round();
    if v.is_nan() || !(-32768.0..=32767.0).contains(&v) {
        *past += 1;
    }
    if v.is_nan() {
        return 0;
    }
    v.clamp(-32768.0, 32767.0) as i32
}

/// The note for weights [`console_weight`] held at the limit.
pub(super) fn note_weights_clamped(notes: &mut Counts, past: usize) {
    notes.add("morph-weight-clamped", past, || {
        "morph weight(s) beyond the console's range of -8.0..8.0 (16-bit, 4096 = 1.0) written at the limit".into()
    });
}

/// Notes for the targets of meshes whose node writes no block (no polygons to move).
pub(super) fn unwritten(scene: &Scene, written: &[bool], notes: &mut Counts) {
    let n: usize = scene
        .nodes
        .iter()
        .enumerate()
        .filter(|(i, _)| !written.get(*i).copied().unwrap_or(false))
        .filter_map(|(_, node)| scene.meshes.get(node.mesh?))
        .map(|m| m.target_names.len())
        .sum();
    notes.add("morph-targets-dropped", n, || {
        "morph target(s) of a mesh that writes no polygons left out".into()
    });
}

/// The author's own joint axes MIMe DIFF blocks of `axes` ((coordinate, rotation difference)
/// in key order: key *k* moves coordinate `axes[k].0`, its one record the rotation vector, an
/// axes reset area after it).
pub(super) fn joint_axes(axes: &[(usize, [i16; 3])]) -> Result<Vec<JointDiff>> {
    axes.iter()
        .enumerate()
        .map(|(key, &(node, dv))| {
            Ok(JointDiff {
                index: 0,
                coord_id: u16::try_from(node)
                    .map_err(|_| unencodable("a coordinate ID past 65535"))?,
                dflags: 1u32
                    .checked_shl(key as u32)
                    .filter(|_| key < MAX_KEYS)
                    .ok_or_else(|| unencodable("more than 32 joint MIMe keys"))?,
                differences: vec![JointDifference {
                    rotation: dv,
                    dtp: 1,
                    translation: [0; 3],
                }],
                reset: JointReset::Axes(Matrix::default()),
            })
        })
        .collect()
}

/// The joint DIFF blocks `diffs` as the DIFF section's items, each at the word offset after
/// the one before, and those offsets (the MIMe primitive's data).
pub(super) fn joint_items(diffs: Vec<JointDiff>) -> Result<(Vec<MimeDiffItem>, Vec<u32>)> {
    let mut items = Vec::with_capacity(diffs.len());
    let mut offsets = Vec::with_capacity(diffs.len());
    let mut at = 0usize;
    for mut j in diffs {
        j.index = u32::try_from(at)
            .map_err(|_| unencodable("the MIMe DIFF section exceeds 2^32 words"))?;
        offsets.push(j.index);
        at += j.words();
        items.push(MimeDiffItem::Joint(j));
    }
    Ok((items, offsets))
}
