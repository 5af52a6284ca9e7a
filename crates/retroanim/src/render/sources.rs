//! HMD, P3D and glTF files → pictures, through the neutral scene ([`super::scene`]).
//!
//! | input | scene | animation drawn | default fps |
//! |---|---|---|---|
//! | HMD | [`Hmd::to_scene_noted`] (its polygons, shared polygons, ground, MIMe; textures by TSB/CBA from its image primitives and `--tim`), normals shading | the sequence `--sequence` (default 0) from `--stream-id`, as `play` plays it | 60 (one picture per console frame) |
//! | P3D | the LOD `--lod` (by resolution; default the first with frames, else the first), its frames as morph targets, flat shading | the LOD's frames when it has two or more, one picture per frame at the default fps | 30 |
//! | glTF / GLB | the file's scene, flat shading | its first animation (the others counted in a note) | 30 |
//!
//! Picture k of an animation shows the scene at `k / fps` seconds; pictures run from 0 to the
//! animation's last key (`--frames A..B` picks pictures A..B−1). A scene without an
//! animation is one picture, and `--frames`/`--fps` are refused for it.

use crate::convert::Note;
use crate::error::{Error, Result};
use crate::formats::hmd::{self, Hmd};
use crate::formats::p3d::{self, P3d};
use crate::formats::tmd::author::Counts;
use crate::scene::{sample, Animation, Scene};

use super::encode::encode_frames;
use super::file::{option, refuse, RenderOptions, Rendered, MAX_FRAMES};
use super::scene::{SceneDrawing, Shading};

/// Frames per second of the HMD scene's keys (one per console frame).
const HMD_FPS: f64 = 60.0;
/// Default pictures per second of P3D and glTF animations.
const SCENE_FPS: f64 = 30.0;

/// An HMD: its model at rest, or a sequence played.
pub(super) fn hmd(h: &Hmd, opts: &RenderOptions) -> Result<Rendered> {
    refuse(opts, "an HMD", &["tmd", "lod"])?;
    if let Some(s) = opts.stream_id.filter(|&s| s > 127) {
        return Err(option("stream-id", format!("{s}: stream IDs are 0..=127")));
    }
    let fps = fps_of(opts, HMD_FPS);
    // Play no further than the pictures asked for need.
    let end = match (opts.frames, opts.preview) {
        (Some((_, end)), _) => Some(end as usize),
        (None, Some(p)) => Some(p.max_pictures),
        (None, None) => None,
    };
    let max_frames = match end {
        Some(end) if fps > 0.0 && fps.is_finite() => {
            ((end as f64 / fps * HMD_FPS).ceil() as usize + 1).min(MAX_FRAMES)
        }
        _ => MAX_FRAMES,
    };
    let so = hmd::SceneOptions {
        sequence: Some(opts.sequence.unwrap_or(0)),
        stream_id: opts.stream_id,
        tims: opts.tims.clone(),
        max_frames: max_frames as u32,
        limits: opts.limits,
        ..hmd::SceneOptions::default()
    };
    let (scene, noted) = h.to_scene_noted(&so)?;
    let mut notes: Vec<Note> = noted
        .into_iter()
        .map(|(code, message)| Note { code, message })
        .collect();
    let sequences = hmd::sequence_count(h);
    if opts.sequence.is_none() && sequences > 1 {
        notes.push(Note {
            code: "other-sequences",
            message: format!(
                "sequence 0 drawn; the file has sequences 0..={}: choose one with --sequence",
                sequences - 1
            ),
        });
    }
    draw(
        &scene,
        scene.animations.first(),
        Shading::Normals,
        HMD_FPS,
        opts,
        notes,
    )
}

/// A P3D LOD: at rest, or its frames.
pub(super) fn p3d(p: &P3d, opts: &RenderOptions) -> Result<Rendered> {
    refuse(opts, "a P3D", &["tmd", "tim", "sequence", "stream-id"])?;
    let lod = match opts.lod {
        None => p.default_lod(),
        Some(res) => p.find_lod(res).ok_or_else(|| {
            let have: Vec<String> = (0..p.lod_count())
                .map(|i| p3d::lod_name(p.resolution(i)))
                .collect();
            option(
                "lod",
                format!(
                    "{res}: no LOD has that resolution; the model's LODs are {}",
                    have.join(", ")
                ),
            )
        })?,
    };
    let fps = fps_of(opts, SCENE_FPS);
    let n = p.frames(lod).len();
    let duration = p3d::scene::phase_duration(n, None, Some(fps as f32));
    let scene = p3d::scene::to_scene(p, lod, p3d::scene::SceneAxes::Gltf, duration)?;
    let notes = vec![Note {
        code: "p3d-lod",
        message: format!(
            "LOD {lod} ({}) drawn, {n} frames; its textures are files outside the model: drawn untextured",
            p3d::lod_name(p.resolution(lod))
        ),
    }];
    let animation = scene.animations.first().filter(|_| n > 1);
    draw(&scene, animation, Shading::Flat, SCENE_FPS, opts, notes)
}

/// A glTF or GLB file: its scene, and its first animation.
pub(super) fn gltf(data: &[u8], opts: &RenderOptions) -> Result<Rendered> {
    refuse(
        opts,
        "a glTF",
        &["tmd", "tim", "sequence", "stream-id", "lod"],
    )?;
    let imported = crate::import::gltf::read(data, &opts.limits)?;
    let mut notes: Vec<Note> = imported
        .notes
        .into_iter()
        .map(|message| Note {
            code: "gltf-import",
            message,
        })
        .collect();
    let scene = imported.scene;
    if scene.animations.len() > 1 {
        notes.push(Note {
            code: "other-animations",
            message: format!(
                "{} more animations not drawn (the first is)",
                scene.animations.len() - 1
            ),
        });
    }
    draw(
        &scene,
        scene.animations.first(),
        Shading::Flat,
        SCENE_FPS,
        opts,
        notes,
    )
}

/// The pictures of `scene` under `animation` (module docs), with `notes` first.
fn draw(
    scene: &Scene,
    animation: Option<&Animation>,
    shading: Shading,
    default_fps: f64,
    opts: &RenderOptions,
    mut notes: Vec<Note>,
) -> Result<Rendered> {
    let times = match animation {
        None => {
            refuse(opts, "a model without animation", &["frames", "fps"])?;
            vec![0.0]
        }
        Some(a) => times(sample::duration(a), default_fps, opts, &mut notes)?,
    };
    let fps = fps_of(opts, default_fps);
    let drawing = SceneDrawing::new(scene, animation, shading, &times, &opts.view);
    let view = *drawing.view();
    let mut counts = Counts::default();
    let mut budget = super::Budget::of(opts, times.len());
    let bytes = encode_frames(
        opts.output,
        (view.width, view.height),
        times.len(),
        fps,
        |k| Ok(drawing.draw(times[k], &mut counts, &mut budget)?.to_rgba()),
    )?;
    let drawn: Vec<Note> = counts
        .finish()
        .into_iter()
        .map(|n| Note {
            message: if times.len() > 1 {
                format!("over {} pictures: {}", times.len(), n.message)
            } else {
                n.message
            },
            ..n
        })
        .collect();
    notes.extend(drawn);
    Ok(Rendered {
        bytes,
        frames: times.len(),
        notes,
    })
}

/// The pictures per second: the caller's, a preview's, else the input's default.
fn fps_of(opts: &RenderOptions, default_fps: f64) -> f64 {
    opts.fps
        .or(opts.preview.map(|p| p.fps))
        .unwrap_or(default_fps)
}

/// The times of the pictures of an animation lasting `duration` seconds.
fn times(
    duration: f32,
    default_fps: f64,
    opts: &RenderOptions,
    notes: &mut Vec<Note>,
) -> Result<Vec<f32>> {
    let fps = fps_of(opts, default_fps);
    if !(fps.is_finite() && fps > 0.0 && fps <= 240.0) {
        return Err(option("fps", format!("{fps}: must be in (0, 240]")));
    }
    let total = (f64::from(duration.max(0.0)) * fps + 1e-6).floor() + 1.0;
    let total = if total.is_finite() {
        total.min(u32::MAX as f64) as u32
    } else {
        1
    };
    let (start, end) = opts.frames.unwrap_or((0, total));
    if start >= end || start >= total {
        return Err(option(
            "frames",
            format!("{start}..{end}: the animation's pictures are 0..{total} at {fps} fps"),
        ));
    }
    let mut end = end.min(total);
    if let Some(p) = opts.preview {
        let cap = p.max_pictures.max(1) as u32;
        if end - start > cap {
            notes.push(Note {
                code: "preview-cut",
                message: format!(
                    "the first {cap} of the animation's {} pictures drawn",
                    end - start
                ),
            });
            end = start + cap;
        }
    }
    let count = (end - start) as usize;
    if count > MAX_FRAMES {
        return Err(Error::LimitExceeded {
            offset: None,
            what: "pictures in one animation".into(),
            requested: count as u64,
            limit: MAX_FRAMES as u64,
        });
    }
    Ok((start..end).map(|k| (f64::from(k) / fps) as f32).collect())
}
