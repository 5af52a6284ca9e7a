//! P3D ↔ the neutral scene: a LOD's frames as a [`PointCache`] (and back into a LOD), and a LOD
//! as a mesh whose frames are morph targets ([`Scene`]).
//!
//! # Axes and winding
//!
//! P3D model space is left-handed, +Y up, +Z the model's front, +X its right. In MLOD files the
//! polygons are stored in the reverse of the engine's order (the engine reverses them on load,
//! CWR-CE ShapeSetup.cpp), so a face's front is the side *opposite* to the cross product of its
//! edges, and the stored normals point the same way as that cross product, i.e. inwards
//! (checked on the corpus: closed visual LODs have negative signed volume in file order, and
//! every stored normal agrees with the cross product; Arma 3 Object Builder negates them on
//! import).
//!
//! - Point caches ([`CacheAxes::ObjectBuilder`], the default): Arma 3 Object Builder's Blender
//!   importer (`io_p3d/data.py`, `read_vert`) makes one Blender vertex per P3D point, in point
//!   order, at Blender `(x, z, y)` — a swap of y and z, its own inverse. Caches written this way
//!   play in Blender's Mesh Cache modifier with its default settings (forward +Y, up +Z, no
//!   flip) on a mesh imported with that add-on. (Its proxy separation removes proxy vertices
//!   from the LOD mesh; import without separating proxies to keep the vertex order.)
//! - glTF ([`SceneAxes::Gltf`], the default): right-handed, +Y up, with the model's front still
//!   facing +Z, so x is negated. That reflection also turns the file's polygon order into glTF's
//!   counter-clockwise front, so triangles keep the file's order (fans from the first vertex),
//!   and normals become `(nx, −ny, −nz)` (negated and reflected). UV v is unchanged: P3D and
//!   glTF both have v = 0 at the top of the image.
//! - [`CacheAxes::Raw`] / [`SceneAxes::Raw`]: coordinates exactly as stored. In glTF the model
//!   is then mirrored; triangles are reversed and normals negated so faces still face out.
//!
//! # Time
//!
//! LOD frame times are phases (0..1 in known files). `seconds = phase × duration`; the
//! duration is the caller's choice (the CLI defaults to 1 s, which keeps the values unchanged,
//! so P3D → MDD → P3D restores the times bit for bit).

use std::collections::HashMap;

use crate::error::{Error, Result};
use crate::scene::{
    Animation, Channel, Interpolation, Material, Mesh, MorphTarget, MorphTargetKind, Node,
    PointCache, PointFrame, Primitive, PrimitiveMode, Scene, Track,
};
use crate::Format;

use super::frames::{FrameRef, NewFrame};
use super::stream::MlodFrames;
use super::types::*;

type PrimitiveBuild = (Primitive, Vec<u32>, HashMap<(u32, u32, u32, u32), u32>);

/// Axes of point caches written from (and read into) P3D LODs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum CacheAxes {
    /// Arma 3 Object Builder's Blender axes: P3D `(x, y, z)` ↔ cache `(x, z, y)`.
    #[default]
    ObjectBuilder,
    /// Coordinates as stored in the P3D.
    Raw,
}

/// Axes of scenes made from P3D LODs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum SceneAxes {
    /// The scene's (glTF's) right-handed +Y up, model front towards +Z: x negated.
    #[default]
    Gltf,
    /// Coordinates as stored (the model appears mirrored).
    Raw,
}

fn conversion(to: Format, why: String) -> Error {
    Error::Conversion {
        from: Format::P3d,
        to,
        why,
    }
}

/// A point cache asked of a LOD without frames: the request's fault (another LOD may have
/// them), not the file's.
fn no_frames(lod: usize, resolution: f32) -> Error {
    Error::Parameter {
        what: format!(
            "LOD {lod} ({}) has no frames (MLOD: no #Animation# taggs; ODOL: a frame count of 0); a point cache needs a LOD with frames (--lod)",
            super::lod_name(resolution)
        ),
    }
}

/// A LOD index the model does not have is the caller's request gone wrong
/// ([`Error::Parameter`]), not a failed conversion.
fn check_lod(p3d: &P3d, lod: usize) -> Result<()> {
    if lod >= p3d.lod_count() {
        return Err(Error::Parameter {
            what: format!(
                "the model has {} LODs; there is no LOD {lod}",
                p3d.lod_count()
            ),
        });
    }
    Ok(())
}

fn cache_axes(p: [f32; 3], axes: CacheAxes) -> [f32; 3] {
    match axes {
        CacheAxes::ObjectBuilder => [p[0], p[2], p[1]],
        CacheAxes::Raw => p,
    }
}

/// The frames of LOD `lod` as a point cache (times in seconds: phase × `duration`).
pub fn to_point_cache(p3d: &P3d, lod: usize, axes: CacheAxes, duration: f32) -> Result<PointCache> {
    check_lod(p3d, lod)?;
    super::validate::export_check(p3d, lod, CACHE_BLOCKERS)?;
    let frames = p3d.frames(lod);
    if frames.is_empty() {
        return Err(no_frames(lod, p3d.resolution(lod)));
    }
    let points = frames[0].positions.len();
    if let Some(f) = frames.iter().find(|f| f.positions.len() != points) {
        return Err(conversion(
            Format::Mdd,
            format!(
                "LOD {lod}: frames have different point counts ({points} and {})",
                f.positions.len()
            ),
        ));
    }
    let points = u32::try_from(points)
        .map_err(|_| conversion(Format::Mdd, format!("{points} points do not fit a u32")))?;
    Ok(PointCache {
        points,
        frames: frames
            .iter()
            .map(|f| PointFrame {
                time: f.time * duration,
                positions: f.positions.iter().map(|&p| cache_axes(p, axes)).collect(),
            })
            .collect(),
        ..PointCache::default()
    })
}

/// Replaces the frames of LOD `lod` with a point cache's (phase = seconds / `duration`). A
/// point-count mismatch is an error naming both counts, and changes nothing.
pub fn apply_point_cache(
    p3d: &mut P3d,
    lod: usize,
    cache: &PointCache,
    axes: CacheAxes,
    duration: f32,
) -> Result<()> {
    let frames = cache.frames.iter().map(|f| (f.time, &f.positions[..]));
    apply_frames(p3d, lod, cache.points as usize, frames, axes, duration)
}

/// [`apply_point_cache`] from borrowed frames `(seconds, positions)` of `points` points each,
/// so a cache read from a file is not copied into a [`PointCache`] first.
pub fn apply_frames<'a>(
    p3d: &mut P3d,
    lod: usize,
    points: usize,
    frames: impl Iterator<Item = (f32, &'a [[f32; 3]])> + Clone,
    axes: CacheAxes,
    duration: f32,
) -> Result<()> {
    check_lod(p3d, lod)?;
    let width = p3d.frame_width(lod).unwrap_or(0);
    let wrong = frames.clone().find(|f| f.1.len() != width);
    if points != width || wrong.is_some() {
        let n = wrong.map_or(points, |f| f.1.len());
        return Err(Error::Conversion {
            from: Format::Mdd,
            to: Format::P3d,
            why: format!(
                "point count mismatch: the cache has {n} points, LOD {lod} ({}) of the base model has {width}",
                super::lod_name(p3d.resolution(lod))
            ),
        });
    }
    if !(duration.is_finite() && duration > 0.0) {
        return Err(conversion(
            Format::P3d,
            format!("duration {duration} s must be positive"),
        ));
    }
    let frames = frames
        .map(|(time, positions)| NewFrame {
            time: time / duration,
            positions: positions.iter().map(|&p| cache_axes(p, axes)).collect(),
        })
        .collect();
    p3d.set_frames(lod, frames)
}

/// [`apply_frames`] streamed: copies the MLOD `base` to `out` with the frames of LOD `lod`
/// replaced by `count` frames of `points` points from `frame(k, buf)` (which fills the empty
/// `buf` and returns the time in seconds). Memory holds one frame. The output bytes are those
/// of [`apply_frames`] and [`super::write`] for a base file that round-trips.
#[allow(clippy::too_many_arguments)]
pub fn apply_frames_streamed<R: std::io::Read + std::io::Seek, W: std::io::Write>(
    base: &mut MlodFrames<R>,
    lod: usize,
    points: usize,
    count: usize,
    mut frame: impl FnMut(usize, &mut Vec<[f32; 3]>) -> Result<f32>,
    axes: CacheAxes,
    duration: f32,
    out: W,
) -> Result<W> {
    let Some(l) = base.lods().get(lod) else {
        return Err(conversion(
            Format::P3d,
            format!(
                "the model has {} LODs; there is no LOD {lod}",
                base.lods().len()
            ),
        ));
    };
    let width = l.points;
    if points != width {
        return Err(Error::Conversion {
            from: Format::Mdd,
            to: Format::P3d,
            why: format!(
                "point count mismatch: the cache has {points} points, LOD {lod} ({}) of the base model has {width}",
                super::lod_name(l.resolution)
            ),
        });
    }
    if !(duration.is_finite() && duration > 0.0) {
        return Err(conversion(
            Format::P3d,
            format!("duration {duration} s must be positive"),
        ));
    }
    base.write_with_frames(
        lod,
        count,
        |k, buf| {
            let time = frame(k, buf)?;
            buf.iter_mut().for_each(|p| *p = cache_axes(*p, axes));
            Ok(time / duration)
        },
        out,
    )
}

/// The validation errors of a LOD that its glTF export cannot get past.
const GLTF_BLOCKERS: &[&str] = &[
    "position-not-finite",
    "normal-not-finite",
    "face-point",
    "vertex-index",
    "geometry",
    "frame-size",
    "frame-time",
    "frame-order",
];

/// The validation errors of a LOD that its point-cache export cannot get past (ODOL only: an
/// MLOD's frames always fit its points, and streamed MLOD exports check nothing else either).
const CACHE_BLOCKERS: &[&str] = &["geometry", "frame-size"];

/// LOD `lod` as a scene: one node with one mesh (a primitive per texture and material pair,
/// faces triangulated), its frames as morph targets animated by a weights track with key times
/// phase × `duration`. A LOD without frames gives a static mesh. Works for MLOD and ODOL v7
/// (whose geometry is decoded from the verbatim bytes; see `odol_scene`).
pub fn to_scene(p3d: &P3d, lod: usize, axes: SceneAxes, duration: f32) -> Result<Scene> {
    check_lod(p3d, lod)?;
    // What makes the export impossible is the file's fault: refused with validate's finding.
    super::validate::export_check(p3d, lod, GLTF_BLOCKERS)?;
    let l = match p3d {
        P3d::Mlod(m) => &m.lods[lod],
        P3d::Odol(o) => return odol_scene(p3d, o, lod, axes, duration),
    };
    let frames = l.frames();
    check_times(&frames, lod)?;
    let np = l.points.len();
    let pos = |p: [f32; 3]| match axes {
        SceneAxes::Gltf => [-p[0], p[1], p[2]],
        SceneAxes::Raw => p,
    };
    let nrm = |n: [f32; 3]| match axes {
        SceneAxes::Gltf => [n[0], -n[1], -n[2]],
        SceneAxes::Raw => [-n[0], -n[1], -n[2]],
    };
    let normals_ok = l
        .faces
        .iter()
        .flat_map(|f| &f.vertices)
        .all(|v| (v.normal as usize) < l.normals.len());

    let mut materials: Vec<Material> = Vec::new();
    let mut by_material: HashMap<(&[u8], &[u8]), usize> = HashMap::new();
    // Per primitive: the primitive, the P3D point of each of its vertices, and the vertex of
    // each (point, normal, u, v) seen so far.
    let mut prims: Vec<PrimitiveBuild> = Vec::new();
    for (k, f) in l.faces.iter().enumerate() {
        if f.vertices.len() < 3 {
            continue;
        }
        if let Some(v) = f.vertices.iter().find(|v| v.point as usize >= np) {
            return Err(conversion(
                Format::Gltf,
                format!(
                    "LOD {lod} face {k}: point index {} but the LOD has {np} points",
                    v.point
                ),
            ));
        }
        let material = f.material.as_ref().map_or(&[][..], |m| m.as_bytes());
        let key = (f.texture.as_bytes(), material);
        let mi = *by_material.entry(key).or_insert_with(|| {
            let texture = f.texture.lossy();
            let mat = String::from_utf8_lossy(material).into_owned();
            materials.push(Material {
                name: match (texture.is_empty(), mat.is_empty()) {
                    (true, true) => "no material".into(),
                    (false, true) => texture.clone(),
                    (true, false) => mat.clone(),
                    (false, false) => format!("{texture} :: {mat}"),
                },
                extras: serde_json::json!({ "texture": texture, "material": mat }),
                ..Material::default()
            });
            prims.push((
                Primitive {
                    mode: PrimitiveMode::Triangles,
                    material: Some(materials.len() - 1),
                    ..Primitive::default()
                },
                Vec::new(),
                HashMap::new(),
            ));
            materials.len() - 1
        });
        let (prim, points, seen) = &mut prims[mi];
        let mut idx = [0u32; 4];
        for (s, v) in f.vertices.iter().enumerate() {
            let key = (v.point, v.normal, v.uv[0].to_bits(), v.uv[1].to_bits());
            idx[s] = *seen.entry(key).or_insert_with(|| {
                prim.positions.push(pos(l.points[v.point as usize].pos));
                if normals_ok {
                    prim.normals.push(nrm(l.normals[v.normal as usize]));
                }
                // Not-finite coordinates (validate's uv-not-finite warning) become 0.
                prim.uvs
                    .push(v.uv.map(|c| if c.is_finite() { c } else { 0.0 }));
                points.push(v.point);
                (prim.positions.len() - 1) as u32
            });
        }
        for t in 1..f.vertices.len() - 1 {
            match axes {
                SceneAxes::Gltf => prim.indices.extend([idx[0], idx[t], idx[t + 1]]),
                SceneAxes::Raw => prim.indices.extend([idx[0], idx[t + 1], idx[t]]),
            }
        }
    }
    let primitives: Vec<Primitive> = prims
        .into_iter()
        .map(|(mut prim, points, _)| {
            prim.targets = frames
                .iter()
                .map(|f| MorphTarget {
                    kind: MorphTargetKind::Absolute,
                    positions: points
                        .iter()
                        .map(|&p| pos(f.positions[p as usize]))
                        .collect(),
                    normals: Vec::new(),
                })
                .collect();
            prim
        })
        .collect();
    let mut primitives = primitives;
    if primitives.is_empty() {
        let rest = l.points.iter().map(|p| pos(p.pos)).collect();
        primitives.extend(points_primitive(rest, &frames, pos));
    }
    Ok(finish_scene(
        p3d, lod, primitives, materials, &frames, duration,
    ))
}

/// Every frame as an absolute morph target over all of the frame's points, in order.
fn whole_frame_targets(
    frames: &[FrameRef<'_>],
    pos: &impl Fn([f32; 3]) -> [f32; 3],
) -> Vec<MorphTarget> {
    frames
        .iter()
        .map(|f| MorphTarget {
            kind: MorphTargetKind::Absolute,
            positions: f.positions.iter().map(|&p| pos(p)).collect(),
            normals: Vec::new(),
        })
        .collect()
}

/// A LOD without faces (a memory LOD, a LOD of proxies): its points as a point primitive,
/// frames as its morph targets; `None` without points.
fn points_primitive(
    rest: Vec<[f32; 3]>,
    frames: &[FrameRef<'_>],
    pos: impl Fn([f32; 3]) -> [f32; 3],
) -> Option<Primitive> {
    if rest.is_empty() {
        return None;
    }
    Some(Primitive {
        mode: PrimitiveMode::Points,
        indices: (0..rest.len() as u32).collect(),
        positions: rest,
        targets: whole_frame_targets(frames, &pos),
        ..Primitive::default()
    })
}

/// Frame times must increase for a glTF animation.
fn check_times(frames: &[FrameRef<'_>], lod: usize) -> Result<()> {
    for w in frames.windows(2) {
        if w[1].time.partial_cmp(&w[0].time) != Some(std::cmp::Ordering::Greater) {
            return Err(conversion(
                Format::Gltf,
                format!(
                    "LOD {lod}: frame times must increase for an animation, found {} then {}",
                    w[0].time, w[1].time
                ),
            ));
        }
    }
    Ok(())
}

/// One node with the LOD's mesh, and a weights animation with a key per frame (weight 1 on
/// that frame's target, linear in between) when there are frames.
fn finish_scene(
    p3d: &P3d,
    lod: usize,
    primitives: Vec<Primitive>,
    materials: Vec<Material>,
    frames: &[FrameRef<'_>],
    duration: f32,
) -> Scene {
    let name = format!("LOD {lod} ({})", p3d.resolution(lod));
    let mesh = Mesh {
        name: name.clone(),
        primitives,
        target_names: frames
            .iter()
            .enumerate()
            .map(|(i, f)| format!("frame {i} (phase {})", f.time))
            .collect(),
        ..Mesh::default()
    };
    let mut node = Node::new(name.clone());
    // A LOD with neither faces nor points: a node alone (nothing to draw or animate).
    let empty = mesh.primitives.is_empty();
    if !empty {
        node.mesh = Some(0);
    }
    if !frames.is_empty() && !empty {
        node.weights = vec![0.0; frames.len()];
    }
    let mut animations = Vec::new();
    if !frames.is_empty() && !empty {
        let n = frames.len();
        animations.push(Animation {
            name: "LOD frames".into(),
            channels: vec![Channel {
                node: 0,
                interpolation: Interpolation::Linear,
                times: frames.iter().map(|f| f.time * duration).collect(),
                track: Track::Weights(
                    (0..n)
                        .map(|k| (0..n).map(|j| if j == k { 1.0 } else { 0.0 }).collect())
                        .collect(),
                ),
            }],
            ..Animation::default()
        });
    }
    Scene {
        name: Some(name),
        nodes: vec![node],
        meshes: if empty { Vec::new() } else { vec![mesh] },
        materials,
        animations,
        ..Scene::default()
    }
}

/// [`vertex_points`]: per primitive, the point of each vertex; and every point's rest position.
pub type VertexPoints = (Vec<Vec<u32>>, Vec<[f32; 3]>);

/// The map back from [`to_scene`]'s mesh of LOD `lod` (with `axes`, which change the vertex
/// order) to the LOD: for each primitive, the P3D point (MLOD) or vertex (ODOL) each of its
/// vertices comes from; and every point's rest position (points on no face have no vertex).
/// Found by exporting a copy of the LOD whose one frame holds each point's index in y (which
/// no [`SceneAxes`] changes), so it follows `to_scene`'s splitting of points into vertices
/// exactly.
pub fn vertex_points(p3d: &P3d, lod: usize, axes: SceneAxes) -> Result<VertexPoints> {
    check_lod(p3d, lod)?;
    let rest: Vec<[f32; 3]> = match p3d {
        P3d::Mlod(m) => m.lods[lod].points.iter().map(|p| p.pos).collect(),
        P3d::Odol(o) => o.lod_mesh(lod)?.positions,
    };
    // f32 holds every integer below 2^24 exactly.
    if rest.len() >= 1 << 24 {
        return Err(conversion(
            Format::P3d,
            format!("LOD {lod} has {} points, more than 2^24", rest.len()),
        ));
    }
    let mut copy = p3d.clone();
    let index = (0..rest.len()).map(|i| [0.0, i as f32, 0.0]).collect();
    copy.set_frames(
        lod,
        vec![NewFrame {
            time: 0.0,
            positions: index,
        }],
    )?;
    let scene = to_scene(&copy, lod, axes, 1.0)?;
    let map = scene
        .meshes
        .first()
        .map(|m| {
            m.primitives
                .iter()
                .map(|p| {
                    p.targets.first().map_or_else(Vec::new, |t| {
                        t.positions.iter().map(|q| q[1] as u32).collect()
                    })
                })
                .collect()
        })
        .unwrap_or_default();
    Ok((map, rest))
}

/// The seconds one unit of phase lasts, for `frames` frames: `duration` when given, else
/// `(frames − 1) / fps` when a frame rate is given (one LOD frame per video frame, for evenly
/// spaced phases 0..1), else 1 s (times in seconds equal the phases).
pub fn phase_duration(frames: usize, duration: Option<f32>, fps: Option<f32>) -> f32 {
    match (duration, fps) {
        (Some(d), _) => d,
        (None, Some(fps)) if frames > 1 => (frames - 1) as f32 / fps,
        _ => 1.0,
    }
}

/// Writes the frames of LOD `lod` as an MDD to `out`, one frame at a time (no copy of the
/// frames is made: memory stays that of the model). Times: phase × `duration` seconds.
pub fn write_mdd<W: std::io::Write>(
    p3d: &P3d,
    lod: usize,
    axes: CacheAxes,
    duration: f32,
    out: W,
) -> Result<W> {
    let (points, times) = stream_header(p3d, lod, duration, Format::Mdd)?;
    let frames = p3d.frames(lod);
    mdd_frames(points, &times, axes, out, |k, buf| {
        buf.extend_from_slice(frames[k].positions);
        Ok(())
    })
}

/// Writes the frames of LOD `lod` as a PC2 to `out`, one frame at a time. PC2 counts frames:
/// the start frame and sample rate come from the times (phase × `duration` seconds) at `fps`
/// ([`crate::formats::pc2::pc2_timing`]); unevenly spaced times keep only their mean spacing.
/// Returns the output and the PC2 header written.
pub fn write_pc2<W: std::io::Write>(
    p3d: &P3d,
    lod: usize,
    axes: CacheAxes,
    duration: f32,
    fps: f32,
    out: W,
) -> Result<(W, crate::formats::pc2::Header)> {
    let (points, times) = stream_header(p3d, lod, duration, Format::Pc2)?;
    let frames = p3d.frames(lod);
    pc2_frames(points, &times, fps, axes, out, |k, buf| {
        buf.extend_from_slice(frames[k].positions);
        Ok(())
    })
}

/// [`write_mdd`] from an MLOD file read one frame at a time: memory holds one frame, whatever
/// the frame count. The output bytes are those of [`write_mdd`] on the same file.
pub fn write_mdd_streamed<R: std::io::Read + std::io::Seek, W: std::io::Write>(
    src: &mut MlodFrames<R>,
    lod: usize,
    axes: CacheAxes,
    duration: f32,
    out: W,
) -> Result<W> {
    let (points, times) = streamed_header(src, lod, duration, Format::Mdd)?;
    mdd_frames(points, &times, axes, out, |k, buf| {
        src.read_frame(lod, k, buf).map(|_| ())
    })
}

/// [`write_pc2`] from an MLOD file read one frame at a time (see [`write_mdd_streamed`]).
pub fn write_pc2_streamed<R: std::io::Read + std::io::Seek, W: std::io::Write>(
    src: &mut MlodFrames<R>,
    lod: usize,
    axes: CacheAxes,
    duration: f32,
    fps: f32,
    out: W,
) -> Result<(W, crate::formats::pc2::Header)> {
    let (points, times) = streamed_header(src, lod, duration, Format::Pc2)?;
    pc2_frames(points, &times, fps, axes, out, |k, buf| {
        src.read_frame(lod, k, buf).map(|_| ())
    })
}

/// An MDD of `times.len()` frames; `frame(k, buf)` appends frame k's stored positions to the
/// empty `buf`, which then takes the cache axes.
fn mdd_frames<W: std::io::Write>(
    points: u32,
    times: &[f32],
    axes: CacheAxes,
    out: W,
    mut frame: impl FnMut(usize, &mut Vec<[f32; 3]>) -> Result<()>,
) -> Result<W> {
    let mut w = crate::formats::mdd::StreamWriter::new(out, points, times, false)?;
    let mut buf = Vec::with_capacity(points as usize);
    for k in 0..times.len() {
        buf.clear();
        frame(k, &mut buf)?;
        buf.iter_mut().for_each(|p| *p = cache_axes(*p, axes));
        w.write_frame(&buf)?;
    }
    w.finish()
}

/// A PC2 of `times.len()` frames, as [`mdd_frames`].
fn pc2_frames<W: std::io::Write>(
    points: u32,
    times: &[f32],
    fps: f32,
    axes: CacheAxes,
    out: W,
    mut frame: impl FnMut(usize, &mut Vec<[f32; 3]>) -> Result<()>,
) -> Result<(W, crate::formats::pc2::Header)> {
    use crate::formats::pc2;
    let (start_frame, sample_rate) = pc2::pc2_timing(times, fps);
    let header = pc2::Header {
        version: 1,
        points,
        start_frame,
        sample_rate,
        samples: times.len() as u32,
    };
    let mut w = pc2::StreamWriter::new(out, header)?;
    let mut buf = Vec::with_capacity(points as usize);
    for k in 0..times.len() {
        buf.clear();
        frame(k, &mut buf)?;
        buf.iter_mut().for_each(|p| *p = cache_axes(*p, axes));
        w.write_frame(&buf)?;
    }
    Ok((w.finish()?, header))
}

/// Points per frame and frame times (seconds) of a LOD about to be streamed as a cache.
fn stream_header(p3d: &P3d, lod: usize, duration: f32, to: Format) -> Result<(u32, Vec<f32>)> {
    check_lod(p3d, lod)?;
    super::validate::export_check(p3d, lod, CACHE_BLOCKERS)?;
    let frames = p3d.frames(lod);
    let widths = frames.iter().map(|f| f.positions.len());
    let times = frames.iter().map(|f| f.time * duration).collect();
    cache_header(lod, p3d.resolution(lod), widths, times, to)
}

/// [`stream_header`] for a LOD of an MLOD file being streamed.
fn streamed_header<R>(
    src: &MlodFrames<R>,
    lod: usize,
    duration: f32,
    to: Format,
) -> Result<(u32, Vec<f32>)> {
    let l = src.lods().get(lod).ok_or_else(|| {
        conversion(
            to,
            format!(
                "the model has {} LODs; there is no LOD {lod}",
                src.lods().len()
            ),
        )
    })?;
    let widths = l.frames.iter().map(|_| l.points);
    let times = l.frames.iter().map(|f| f.time * duration).collect();
    cache_header(lod, l.resolution, widths, times, to)
}

/// Checks that a LOD has frames, all of one width that fits a u32.
fn cache_header(
    lod: usize,
    resolution: f32,
    mut widths: impl Iterator<Item = usize>,
    times: Vec<f32>,
    to: Format,
) -> Result<(u32, Vec<f32>)> {
    let Some(n) = widths.next() else {
        return Err(no_frames(lod, resolution));
    };
    if let Some(m) = widths.find(|&m| m != n) {
        return Err(conversion(
            to,
            format!("LOD {lod}: frames have different point counts ({n} and {m})"),
        ));
    }
    let points =
        u32::try_from(n).map_err(|_| conversion(to, format!("{n} points do not fit a u32")))?;
    Ok((points, times))
}

/// An ODOL v7 LOD as a scene. ODOL vertices are already split per UV, and frames are per
/// vertex, so they map one to one; polygons are in the engine's order (clockwise front in its
/// left-handed space), so they are reversed for glTF. ODOL normals are left out (their
/// orientation is not established by any file we have); viewers compute flat ones.
fn odol_scene(p3d: &P3d, o: &Odol, lod: usize, axes: SceneAxes, duration: f32) -> Result<Scene> {
    let mesh = o.lod_mesh(lod)?;
    let frames = p3d.frames(lod);
    check_times(&frames, lod)?;
    let nv = mesh.positions.len();
    if let Some(f) = frames.iter().find(|f| f.positions.len() != nv) {
        return Err(conversion(
            Format::Gltf,
            format!(
                "LOD {lod}: a frame has {} positions for {nv} vertices",
                f.positions.len()
            ),
        ));
    }
    let pos = |p: [f32; 3]| match axes {
        SceneAxes::Gltf => [-p[0], p[1], p[2]],
        SceneAxes::Raw => p,
    };
    let mut materials: Vec<Material> = Vec::new();
    let mut prims: Vec<Primitive> = Vec::new();
    let mut by_texture: HashMap<i16, usize> = HashMap::new();
    for (k, (texture, idx)) in mesh.faces.iter().enumerate() {
        if idx.len() < 3 {
            continue;
        }
        if let Some(v) = idx.iter().find(|&&v| v as usize >= nv) {
            return Err(conversion(
                Format::Gltf,
                format!("LOD {lod} face {k}: vertex index {v} but the LOD has {nv} vertices"),
            ));
        }
        let pi = *by_texture.entry(*texture).or_insert_with(|| {
            let name = usize::try_from(*texture)
                .ok()
                .and_then(|t| mesh.textures.get(t))
                .map_or_else(|| "no texture".to_string(), |t| t.lossy());
            materials.push(Material {
                extras: serde_json::json!({ "texture": name }),
                name,
                ..Material::default()
            });
            prims.push(Primitive {
                mode: PrimitiveMode::Triangles,
                positions: mesh.positions.iter().map(|&p| pos(p)).collect(),
                uvs: mesh.uvs.clone(),
                material: Some(materials.len() - 1),
                targets: whole_frame_targets(&frames, &pos),
                ..Primitive::default()
            });
            prims.len() - 1
        });
        let ix: &[u32] = idx;
        for t in 1..ix.len() - 1 {
            match axes {
                SceneAxes::Gltf => prims[pi].indices.extend([ix[0], ix[t + 1], ix[t]]),
                SceneAxes::Raw => prims[pi].indices.extend([ix[0], ix[t], ix[t + 1]]),
            }
        }
    }
    // Each primitive carries the whole vertex table; keep only the vertices it uses.
    for p in &mut prims {
        compact(p);
    }
    if prims.is_empty() {
        let rest = mesh.positions.iter().map(|&p| pos(p)).collect();
        prims.extend(points_primitive(rest, &frames, pos));
    }
    Ok(finish_scene(p3d, lod, prims, materials, &frames, duration))
}

/// Drops the vertices a primitive's indices do not use (and renumbers the indices).
fn compact(p: &mut Primitive) {
    let mut map = vec![u32::MAX; p.positions.len()];
    let mut order = Vec::new();
    for i in &mut p.indices {
        let slot = &mut map[*i as usize];
        if *slot == u32::MAX {
            *slot = order.len() as u32;
            order.push(*i as usize);
        }
        *i = *slot;
    }
    let pick = |v: &Vec<[f32; 3]>| order.iter().map(|&i| v[i]).collect::<Vec<_>>();
    p.positions = pick(&p.positions);
    if !p.uvs.is_empty() {
        p.uvs = order.iter().map(|&i| p.uvs[i]).collect();
    }
    for t in &mut p.targets {
        t.positions = pick(&t.positions);
    }
}
