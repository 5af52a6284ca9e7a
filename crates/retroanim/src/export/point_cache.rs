//! A point cache as a scene: its points as a `POINTS` mesh whose morph targets are the frames,
//! played by a weights channel (one target per frame). Lets any glTF viewer or Blender show an
//! MDD or PC2 without the mesh it was made for.

use crate::scene::{
    Animation, Channel, Interpolation, Mesh, MorphTarget, MorphTargetKind, Node, PointCache,
    Primitive, PrimitiveMode, Scene,
};

/// The scene: one node `name` with the first frame as its base positions and every frame as an
/// absolute morph target named `frame N`, animated at the frames' times with `interpolation`.
/// A cache with one frame or none has no animation. Positions are taken as they are (the cache
/// has no axis convention of its own; convert them first if needed).
pub fn point_cache_scene(cache: &PointCache, name: &str, interpolation: Interpolation) -> Scene {
    let base = cache
        .frames
        .first()
        .map(|f| f.positions.clone())
        .or_else(|| cache.rest_frame.clone())
        .unwrap_or_default();
    let animated = cache.frames.len() > 1;
    let targets: Vec<MorphTarget> = if animated {
        cache
            .frames
            .iter()
            .map(|f| MorphTarget {
                kind: MorphTargetKind::Absolute,
                positions: f.positions.clone(),
                normals: Vec::new(),
            })
            .collect()
    } else {
        Vec::new()
    };
    let mut scene = Scene {
        name: Some(name.to_string()),
        ..Scene::default()
    };
    if base.is_empty() {
        scene.nodes.push(Node::new(name));
        return scene;
    }
    scene.meshes.push(Mesh {
        name: name.to_string(),
        target_names: (0..targets.len()).map(|i| format!("frame {i}")).collect(),
        primitives: vec![Primitive {
            mode: PrimitiveMode::Points,
            positions: base,
            targets,
            ..Primitive::default()
        }],
        extras: serde_json::Value::Null,
    });
    scene.nodes.push(Node {
        mesh: Some(0),
        ..Node::new(name)
    });
    if animated {
        let times: Vec<f32> = cache.frames.iter().map(|f| f.time).collect();
        scene.animations.push(Animation {
            name: name.to_string(),
            channels: vec![Channel::frame_weights(0, times, interpolation)],
            extras: serde_json::Value::Null,
        });
    }
    scene
}

/// What a streaming point-cache conversion did.
#[derive(Debug, Clone, PartialEq)]
pub struct CacheConversion {
    /// Frames written.
    pub frames: usize,
    /// Points per frame.
    pub points: u32,
    /// The frame rate used between seconds (MDD) and frames (PC2).
    pub fps: f32,
    /// True when the MDD's uncounted rest frame was left out (PC2 has no place for it).
    pub rest_frame_dropped: bool,
    /// False when the MDD's frame times are not `(start + i·rate) / fps` exactly, so PC2's
    /// start frame and sample rate only approximate them.
    pub times_exact: bool,
}

/// Frame rate PC2 ↔ MDD conversions use when none is given and none can be guessed: 30 (3ds
/// Max's NTSC default).
pub const DEFAULT_FPS: f32 = 30.0;

/// Converts an MDD (read from `input`, `len` bytes long) to a PC2 written to `output`, one frame
/// in memory at a time. `fps` defaults to the rate the MDD's frame times were written at
/// ([`PointCache::guess_fps`]), else [`DEFAULT_FPS`]; the PC2 start frame and sample rate come
/// from the times ([`crate::formats::pc2::pc2_timing`]).
pub fn mdd_to_pc2<R: std::io::Read, W: std::io::Write>(
    input: R,
    len: u64,
    output: W,
    fps: Option<f32>,
    limits: &crate::Limits,
) -> crate::Result<CacheConversion> {
    use crate::formats::{mdd, pc2};
    let mut r = mdd::StreamReader::new(input, len, limits)?;
    let times = r.times().to_vec();
    let fps = fps
        .or_else(|| {
            PointCache {
                frames: times
                    .iter()
                    .take(2)
                    .map(|t| crate::scene::PointFrame {
                        time: *t,
                        positions: Vec::new(),
                    })
                    .collect(),
                ..PointCache::default()
            }
            .guess_fps()
        })
        .unwrap_or(DEFAULT_FPS);
    let (start_frame, sample_rate) = pc2::pc2_timing(&times, fps);
    let times_exact = times
        .iter()
        .enumerate()
        .all(|(i, t)| pc2::frame_time(start_frame, sample_rate, i, fps).to_bits() == t.to_bits());
    let header = pc2::Header {
        version: 1,
        points: r.points(),
        start_frame,
        sample_rate,
        samples: times.len() as u32,
    };
    let mut w = pc2::StreamWriter::new(output, header)?;
    let mut buf = Vec::new();
    while let Some(block) = r.next_frame(&mut buf)? {
        if let mdd::Block::Frame { .. } = block {
            w.write_frame(&buf)?;
        }
    }
    w.finish()?;
    Ok(CacheConversion {
        frames: times.len(),
        points: header.points,
        fps,
        rest_frame_dropped: r.has_rest_frame(),
        times_exact,
    })
}

/// Converts a PC2 (read from `input`, `len` bytes long) to an MDD written to `output`, one
/// frame in memory at a time (plus the frame times MDD puts first); sample i gets the time
/// `(start + i·rate) / fps` seconds.
pub fn pc2_to_mdd<R: std::io::Read, W: std::io::Write>(
    input: R,
    len: u64,
    output: W,
    fps: f32,
    limits: &crate::Limits,
) -> crate::Result<CacheConversion> {
    use crate::formats::{mdd, pc2};
    let mut r = pc2::StreamReader::new(input, limits)?;
    let h = *r.header();
    // The times are allocated from the header's count: check it against the length first.
    let need = (h.samples as u64)
        .saturating_mul(h.points as u64)
        .saturating_mul(12)
        .saturating_add(pc2::HEADER_SIZE);
    if need != len {
        return Err(crate::Error::Malformed {
            format: crate::Format::Pc2,
            offset: if need > len { 28 } else { need },
            what: format!(
                "{} samples of {} points need {need} bytes, the data has {len}",
                h.samples, h.points
            ),
        });
    }
    limits.items(28, "samples", h.samples as u64)?;
    let times: Vec<f32> = (0..h.samples as usize)
        .map(|i| pc2::frame_time(h.start_frame, h.sample_rate, i, fps))
        .collect();
    let mut w = mdd::StreamWriter::new(output, h.points, &times, false)?;
    let mut buf = Vec::new();
    while r.next_frame(&mut buf)?.is_some() {
        w.write_frame(&buf)?;
    }
    w.finish()?;
    Ok(CacheConversion {
        frames: times.len(),
        points: h.points,
        fps,
        rest_frame_dropped: false,
        times_exact: true,
    })
}
