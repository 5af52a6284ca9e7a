//! glTF / GLB → P3D: a mesh's morph-target (weights) animation becomes the frames of a LOD of a
//! base model (`--base`), as MDD/PC2 → P3D do; the frames are stored by the same
//! [`scene::apply_frames`].
//!
//! - **Which mesh:** the one on the node the animation's first weights channel drives.
//! - **Frames:** the morphed positions at the channel's key times, or every 1/`fps` s from 0
//!   to the last key with `--fps`; the phase of a frame is its time / the phase duration
//!   ([`scene::phase_duration`]: `--duration`, else (frames − 1)/`fps` with `--fps`, else 1 s,
//!   so the times of a P3D → glTF export come back unchanged).
//! - **Vertices → points:** a mesh shaped like the base LOD's own glTF export (same primitives,
//!   same vertex counts: [`scene::vertex_points`]) maps each vertex back to the P3D point it was
//!   made from; a mesh with exactly one vertex per point (all primitives in order) is taken
//!   point for point (when a mesh fits both, the map that puts its rest positions nearer the
//!   base LOD's wins). Anything else is an error naming both counts. Points on no face
//!   (no glTF vertex) keep their rest position, with a note.
//! - **Axes:** the inverse of the export's ([`scene::SceneAxes`]): x negated back by default,
//!   coordinates as they are with `--axes raw`; metres both sides.

use super::author::{imported_notes, other_animations, pick_animation};
use super::{done_notes, option_error, Axes, Conversion, Note};
use super::{OptionName as O, Options};
use crate::error::{Error, Result};
use crate::formats::p3d::scene;
use crate::scene::sample::{span, Span};
use crate::scene::{Channel, Interpolation, MorphTargetKind, Primitive, Track};
use crate::Format;

/// Converts a glTF or GLB file's morph animation into the frames of a LOD of `--base`.
pub(super) fn gltf_to_p3d(data: &[u8], from: Format, opts: &Options) -> Result<Conversion> {
    opts.check(
        from,
        Format::P3d,
        &[O::Axes, O::Fps, O::Duration, O::Lod, O::Base, O::Animation],
    )?;
    let Some(base) = &opts.p3d.base else {
        return Err(option_error(
            O::Base,
            "converting a glTF to P3D needs a base model: the P3D whose LOD frames its morph animation replaces".into(),
        ));
    };
    let imported = crate::import::gltf::read(data, &opts.limits)?;
    let s = &imported.scene;
    let mut notes = imported_notes(&imported);
    let Some(ai) = pick_animation(s, opts.animation)? else {
        return Err(unencodable(
            "the glTF has no animation: nothing to write as LOD frames".into(),
        ));
    };
    notes.extend(other_animations(s, ai));
    let anim = &s.animations[ai];
    let weights: Vec<&Channel> = anim
        .channels
        .iter()
        .filter(|c| matches!(c.track, Track::Weights(_)))
        .collect();
    let Some(&ch) = weights.first() else {
        return Err(unencodable(format!(
            "animation {ai} \"{}\" has no morph-weight channel: nothing to write as LOD frames",
            anim.name
        )));
    };
    let other_weights = weights.iter().filter(|c| c.node != ch.node).count();
    if other_weights > 0 {
        notes.push(Note {
            code: "weights-dropped",
            message: format!(
                "{other_weights} weights channel(s) of other nodes left out (a LOD's frames move one mesh: node {}'s)",
                ch.node
            ),
        });
    }
    let moves = anim.channels.len() - weights.len();
    if moves > 0 {
        notes.push(Note {
            code: "node-animation-dropped",
            message: format!(
                "{moves} translation/rotation/scale/visibility channel(s) left out (LOD frames hold mesh-space positions only)"
            ),
        });
    }
    let node = &s.nodes[ch.node];
    let mesh = node.mesh.and_then(|m| s.meshes.get(m)).ok_or_else(|| {
        unencodable(format!(
            "animation {ai}: node {} \"{}\" has a weights channel but no mesh",
            ch.node, node.name
        ))
    })?;

    let lod = super::p3d::lod_of(base, opts)?;
    let width = base.frame_width(lod).unwrap_or(0);
    let raw = opts.geometry.axes.unwrap_or_default() == Axes::Raw;
    let scene_axes = if raw {
        scene::SceneAxes::Raw
    } else {
        scene::SceneAxes::Gltf
    };
    let (map, rest) = scene::vertex_points(base, lod, scene_axes)?;
    let counts: Vec<usize> = mesh.primitives.iter().map(|p| p.positions.len()).collect();
    let exported: Vec<usize> = map.iter().map(Vec::len).collect();
    let total: usize = counts.iter().sum();
    let to_p3d = |p: [f64; 3]| -> [f32; 3] {
        let x = if raw { p[0] } else { -p[0] };
        [x as f32, p[1] as f32, p[2] as f32]
    };
    // The point of each vertex, primitive by primitive: the export's map, or vertex k = point
    // k; when the mesh fits both, the one that puts its rest positions nearer the base's.
    let in_order = |counts: &[usize]| -> Vec<Vec<u32>> {
        let mut next = 0u32;
        counts
            .iter()
            .map(|&n| {
                let v = (next..next + n as u32).collect();
                next += n as u32;
                v
            })
            .collect()
    };
    let distance = |pts: &[Vec<u32>]| -> f64 {
        let mut d = 0.0;
        for (prim, pts) in mesh.primitives.iter().zip(pts) {
            for (v, &p) in prim.positions.iter().zip(pts) {
                let (q, r) = (to_p3d(v.map(f64::from)), rest.get(p as usize));
                if let Some(r) = r {
                    d += (0..3).map(|k| (q[k] - r[k]).abs() as f64).sum::<f64>();
                }
            }
        }
        d
    };
    let points: Vec<Vec<u32>> = match (counts == exported, total == width) {
        (true, true) => {
            let order = in_order(&counts);
            if distance(&order) < distance(&map) {
                order
            } else {
                map
            }
        }
        (true, false) => map,
        (false, true) => in_order(&counts),
        (false, false) => {
            return Err(unencodable(format!(
                "vertex count mismatch: mesh {} \"{}\" has {total} vertices in {} primitive(s) ({}); LOD {lod} ({}) of the base model has {width} points, which its glTF export splits into {} vertices ({})",
                node.mesh.unwrap_or(0),
                mesh.name,
                counts.len(),
                list(&counts),
                crate::formats::p3d::lod_name(base.resolution(lod)),
                exported.iter().sum::<usize>(),
                list(&exported),
            )))
        }
    };

    let times = frame_times(ch, opts)?;
    let duration = scene::phase_duration(times.len(), opts.timing.duration, opts.timing.fps);
    notes.extend(super::p3d::phase_note(&times, duration, opts));
    let cells = (times.len() as u64).saturating_mul(width as u64);
    opts.limits
        .items(None, "glTF → P3D frame positions", cells)?;
    if let Some(&p) = points
        .iter()
        .flatten()
        .find(|&&p| p as usize >= width.min(rest.len()))
    {
        return Err(unencodable(format!(
            "LOD {lod}: a vertex maps to point {p} but the LOD has {width} points"
        )));
    }
    let mut covered = vec![false; width];
    points
        .iter()
        .flatten()
        .for_each(|&p| covered[p as usize] = true);
    let mut disagree = 0usize;
    let mut frames: Vec<(f32, Vec<[f32; 3]>)> = Vec::with_capacity(times.len());
    for (k, &t) in times.iter().enumerate() {
        // At `--fps`, sampled where a key written for frame k is found however it was rounded.
        let at = opts
            .timing
            .fps
            .map_or(t, |fps| crate::scene::sample_time(k as u64, fps as f64));
        let w = weights_at(ch, at);
        let mut pos = rest.clone();
        let mut set = vec![false; width];
        for (prim, pts) in mesh.primitives.iter().zip(&points) {
            for (v, &p) in pts.iter().enumerate() {
                let q = to_p3d(morphed(prim, v, &w));
                let slot = &mut pos[p as usize];
                if set[p as usize] {
                    if (0..3).any(|k| (slot[k] - q[k]).abs() > 1e-4) {
                        disagree += 1;
                    }
                } else {
                    *slot = q;
                    set[p as usize] = true;
                }
            }
        }
        frames.push((t, pos));
    }
    let loose = covered.iter().filter(|c| !**c).count();
    if loose > 0 {
        notes.push(Note {
            code: "points-unmoved",
            message: format!(
                "{loose} point(s) of LOD {lod} are on no face, so the glTF has no vertex for them: they keep their rest position in every frame"
            ),
        });
    }
    if disagree > 0 {
        notes.push(Note {
            code: "vertices-disagree",
            message: format!(
                "{disagree} time(s) a glTF vertex was more than 1e-4 from another vertex of the same P3D point; the first vertex's position is kept"
            ),
        });
    }
    let mut p3d = base.clone();
    let it = frames.iter().map(|(t, p)| (*t, &p[..]));
    scene::apply_frames(&mut p3d, lod, width, it, scene::CacheAxes::Raw, duration)?;
    Ok(done_notes(
        crate::formats::p3d::write(&p3d)?,
        Format::P3d,
        notes,
    ))
}

fn unencodable(what: String) -> Error {
    Error::Unencodable {
        format: Format::P3d,
        what,
    }
}

fn list(v: &[usize]) -> String {
    let s: Vec<String> = v.iter().map(usize::to_string).collect();
    s.join(" + ")
}

/// The times (seconds) of the frames: the channel's keys, or every 1/`fps` from 0 to its last.
fn frame_times(ch: &Channel, opts: &Options) -> Result<Vec<f32>> {
    let Some(fps) = opts.timing.fps else {
        return Ok(ch.times.clone());
    };
    let last = ch.times.last().copied().unwrap_or(0.0) as f64;
    // The frame at or just before the last key (1e-6 of a frame absorbs f32 key rounding).
    let n = (last * fps as f64 + 1e-6).floor() as u64 + 1;
    opts.limits.items(None, "glTF → P3D frames at --fps", n)?;
    Ok((0..n)
        .map(|k| crate::scene::key_time(k, fps as f64))
        .collect())
}

/// The morph weights of `ch` at `time`, glTF's way (held outside the keys).
fn weights_at(ch: &Channel, time: f32) -> Vec<f64> {
    let Track::Weights(values) = &ch.track else {
        return Vec::new();
    };
    let cubic = ch.interpolation == Interpolation::Cubicspline;
    let per = if cubic { 3 } else { 1 };
    let value = |k: usize| -> Vec<f64> {
        values
            .get(k * per + usize::from(cubic))
            .map_or_else(Vec::new, |v| v.iter().map(|&x| x as f64).collect())
    };
    let (i, s, dt) = match span(&ch.times, time) {
        None => return Vec::new(),
        Some(Span::Key(k)) => return value(k),
        Some(Span::Between { i, s, dt }) => (i, s, dt),
    };
    let (a, b) = (value(i), value(i + 1));
    match ch.interpolation {
        Interpolation::Step => a,
        Interpolation::Linear => a.iter().zip(&b).map(|(x, y)| x + (y - x) * s).collect(),
        Interpolation::Cubicspline => {
            let get = |k: usize| -> Vec<f64> {
                values
                    .get(k)
                    .map_or_else(Vec::new, |v| v.iter().map(|&x| x as f64).collect())
            };
            let (out_a, in_b) = (get(i * 3 + 2), get((i + 1) * 3));
            let (s2, s3) = (s * s, s * s * s);
            (0..a.len().min(b.len()).min(out_a.len()).min(in_b.len()))
                .map(|k| {
                    (2.0 * s3 - 3.0 * s2 + 1.0) * a[k]
                        + (s3 - 2.0 * s2 + s) * dt * out_a[k]
                        + (-2.0 * s3 + 3.0 * s2) * b[k]
                        + (s3 - s2) * dt * in_b[k]
                })
                .collect()
        }
    }
}

/// Vertex `v` of `prim` under morph weights `w` (glTF: base + Σ weight × displacement).
fn morphed(prim: &Primitive, v: usize, w: &[f64]) -> [f64; 3] {
    let base = prim.positions[v].map(f64::from);
    let mut p = base;
    for (t, &wt) in prim.targets.iter().zip(w) {
        if wt == 0.0 {
            continue;
        }
        let Some(q) = t.positions.get(v).map(|q| q.map(f64::from)) else {
            continue;
        };
        for k in 0..3 {
            p[k] += wt
                * match t.kind {
                    MorphTargetKind::Delta => q[k],
                    MorphTargetKind::Absolute => q[k] - base[k],
                };
        }
    }
    p
}
