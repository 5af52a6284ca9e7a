//! Conversions that involve P3D: a LOD's frames to MDD/PC2/glTF, a point cache into a base
//! model's LOD. The work is [`crate::formats::p3d::scene`]'s; this maps the options onto it.

use super::{done_notes, option_error, Axes, Conversion, Note, OptionName as O, Options};
use crate::error::Result;
use crate::formats::p3d::{scene, P3d};
use crate::formats::pc2;
use crate::scene::PointCache;
use crate::{Format, Model};

/// PC2 ↔ seconds when neither `fps` nor the frame times say otherwise.
const DEFAULT_FPS: f32 = 30.0;

pub(super) fn convert(model: &Model, target: Format, opts: &Options) -> Result<Conversion> {
    let from = model.format();
    match model {
        Model::P3d(p) => {
            opts.check(from, target, &[O::Axes, O::Fps, O::Duration, O::Lod])?;
            // A model whose own arrays disagree (its writer refuses it) is refused as validate
            // says, before a LOD is looked for.
            super::refuse_unwritable(model)?;
            from_p3d(p, target, opts)
        }
        Model::Mdd(_) | Model::Pc2(_) => {
            opts.check(
                from,
                target,
                &[O::Axes, O::Fps, O::Duration, O::Lod, O::Base],
            )?;
            into_base(model, opts)
        }
        _ => Err(super::no_such(from, target)),
    }
}

/// The LOD index `opts` selects.
pub(super) fn lod_index(
    lod: Option<f64>,
    default: usize,
    find: impl Fn(f64) -> Option<usize>,
    have: impl Iterator<Item = f32>,
) -> Result<usize> {
    match lod {
        None => Ok(default),
        Some(res) => find(res).ok_or_else(|| {
            let have: Vec<String> = have
                .map(|r| match crate::formats::p3d::lod_name(r) {
                    n if n == r.to_string() => n,
                    n => format!("{r} ({n})"),
                })
                .collect();
            option_error(
                O::Lod,
                format!(
                    "{res}: no LOD has that resolution; the model's LODs are {}",
                    have.join(", ")
                ),
            )
        }),
    }
}

pub(super) fn lod_of(p3d: &P3d, opts: &Options) -> Result<usize> {
    lod_index(
        opts.p3d.lod,
        p3d.default_lod(),
        |r| p3d.find_lod(r),
        (0..p3d.lod_count()).map(|i| p3d.resolution(i)),
    )
}

pub(super) fn cache_axes(opts: &Options) -> scene::CacheAxes {
    match opts.geometry.axes.unwrap_or_default() {
        Axes::Default => scene::CacheAxes::ObjectBuilder,
        Axes::Raw => scene::CacheAxes::Raw,
    }
}

/// A note when a P3D of several LODs gives one (the default) and no `--lod` chose it.
pub(super) fn other_lods_note(lod: usize, resolutions: &[f32], opts: &Options) -> Option<Note> {
    if opts.p3d.lod.is_some() || resolutions.len() < 2 {
        return None;
    }
    let name = |r: f32| crate::formats::p3d::lod_name(r);
    Some(Note {
        code: "other-lods",
        message: format!(
            "LOD {lod} ({}) of the model's {} is converted, the others left out; pass --lod RES for another ({})",
            name(resolutions.get(lod).copied().unwrap_or_default()),
            resolutions.len(),
            resolutions
                .iter()
                .map(|&r| match name(r) {
                    n if n == r.to_string() => n,
                    n => format!("{r} ({n})"),
                })
                .collect::<Vec<_>>()
                .join(", ")
        ),
    })
}

fn from_p3d(p3d: &P3d, target: Format, opts: &Options) -> Result<Conversion> {
    let lod = lod_of(p3d, opts)?;
    let resolutions: Vec<f32> = (0..p3d.lod_count()).map(|i| p3d.resolution(i)).collect();
    let lods_note = other_lods_note(lod, &resolutions, opts);
    let duration =
        scene::phase_duration(p3d.frames(lod).len(), opts.timing.duration, opts.timing.fps);
    if matches!(target, Format::Gltf | Format::Glb) {
        let axes = match opts.geometry.axes.unwrap_or_default() {
            Axes::Default => scene::SceneAxes::Gltf,
            Axes::Raw => scene::SceneAxes::Raw,
        };
        let s = scene::to_scene(p3d, lod, axes, duration)?;
        let lod_name = format!("LOD {lod} ");
        let bad_uvs = crate::formats::p3d::validate(p3d)
            .iter()
            .filter(|i| i.code == "uv-not-finite" && i.message.starts_with(&lod_name))
            .count();
        let mut notes: Vec<Note> = lods_note.into_iter().collect();
        if bad_uvs > 0 {
            notes.push(Note {
                code: "uv-not-finite",
                message: format!(
                    "{bad_uvs} faces of LOD {lod} have texture coordinates that are not finite; \
                     written as 0"
                ),
            });
        }
        // A LOD without faces (memory points, proxies) is written as what it has.
        let prims = s.meshes.first().map_or(&[][..], |m| &m.primitives[..]);
        if prims
            .iter()
            .all(|p| p.mode == crate::scene::PrimitiveMode::Points)
        {
            let name = crate::formats::p3d::lod_name(p3d.resolution(lod));
            notes.push(Note {
                code: "no-faces",
                message: match prims.first() {
                    Some(p) => format!(
                        "LOD {lod} ({name}) has no faces: its {} points are written as a point primitive",
                        p.positions.len()
                    ),
                    None => format!(
                        "LOD {lod} ({name}) has neither faces nor points: written as an empty node"
                    ),
                },
            });
        }
        return Ok(done_notes(
            crate::export::gltf::write(&s, target)?,
            target,
            notes,
        ));
    }
    // Frames go straight from the model to the output bytes, one at a time.
    if target == Format::Mdd {
        let bytes = scene::write_mdd(p3d, lod, cache_axes(opts), duration, Vec::new())?;
        return Ok(done_notes(bytes, target, lods_note.into_iter().collect()));
    }
    let times: Vec<f32> = p3d.frames(lod).iter().map(|f| f.time * duration).collect();
    let fps = pc2_fps(&times, opts);
    let (bytes, header) = scene::write_pc2(p3d, lod, cache_axes(opts), duration, fps, Vec::new())?;
    let mut notes: Vec<Note> = lods_note.into_iter().collect();
    notes.extend(uneven(&times, fps, &header));
    Ok(done_notes(bytes, target, notes))
}

/// The frame rate of a PC2 made from frame times in seconds.
pub(super) fn pc2_fps(times: &[f32], opts: &Options) -> f32 {
    opts.timing
        .fps
        .or_else(|| guess_fps(times))
        .unwrap_or(DEFAULT_FPS)
}

/// A note when the PC2 header cannot express the frame times.
pub(super) fn uneven(times: &[f32], fps: f32, header: &pc2::Header) -> Vec<Note> {
    // Off by more than the 1/1000 frame PC2's timing snaps away (f32 rounding of phase ×
    // duration is not unevenness).
    let uneven = times.iter().enumerate().any(|(i, t)| {
        let frame = header.start_frame as f64 + i as f64 * header.sample_rate as f64;
        (*t as f64 * fps as f64 - frame).abs() > 1e-3
    });
    if !uneven {
        return vec![];
    }
    vec![Note {
        code: "times-uneven",
        message: format!(
            "the frame times are not evenly spaced whole frames at {fps} fps; PC2 keeps only start frame {} and sample rate {}",
            header.start_frame, header.sample_rate
        ),
    }]
}

/// The frame rate that puts the first two frame times one frame apart, as [`PointCache`]
/// guesses.
fn guess_fps(times: &[f32]) -> Option<f32> {
    let cache = PointCache {
        frames: times
            .iter()
            .take(2)
            .map(|&time| crate::scene::PointFrame {
                time,
                positions: Vec::new(),
            })
            .collect(),
        ..PointCache::default()
    };
    cache.guess_fps()
}

/// The note for an MDD's rest frame, which is no LOD frame.
pub(super) fn rest_frame_note() -> Note {
    Note {
        code: "rest-frame-dropped",
        message: "the MDD's uncounted rest frame is not a LOD frame and is left out".into(),
    }
}

/// A note when the LOD frames' phases (seconds ÷ `duration`) do not run 0..1 and no
/// `--duration` was given: a 5-frame MDD at 24 fps lies at 0..0.167 s, which the default
/// duration of 1 s makes phases 0..0.167, a sixth of the animation's phase range.
pub(super) fn phase_note(times: &[f32], duration: f32, opts: &Options) -> Option<Note> {
    phase_range_note(times.first()?, times.last()?, times.len(), duration, opts)
}

/// [`phase_note`] of `count` frames from `first` to `last` seconds.
pub(super) fn phase_range_note(
    &first: &f32,
    &last: &f32,
    count: usize,
    duration: f32,
    opts: &Options,
) -> Option<Note> {
    if opts.timing.duration.is_some() || count < 2 || last <= first {
        return None;
    }
    let (a, b) = (first / duration, last / duration);
    if a.abs() < 1e-3 && (b - 1.0).abs() < 1e-3 {
        return None;
    }
    Some(Note {
        code: "phase-range",
        message: format!(
            "the {} frames lie at {first:.3}..{last:.3} s and become phases {a:.3}..{b:.3} (seconds ÷ {duration} s); an animation's phases run 0..1: pass --duration {last} to end on phase 1 (or --fps with the cache's frame rate)",
            count
        ),
    })
}

fn into_base(model: &Model, opts: &Options) -> Result<Conversion> {
    let Some(base) = &opts.p3d.base else {
        return Err(option_error(
            O::Base,
            "converting a point cache to P3D needs a base model: the P3D whose LOD frames it replaces".into(),
        ));
    };
    let mut p3d = base.clone();
    let lod = lod_of(&p3d, opts)?;
    let axes = cache_axes(opts);
    let mut notes = Vec::new();
    // The cache's frames are used where they lie: no copy into a PointCache first.
    match model {
        Model::Mdd(m) => {
            if m.rest_frame.is_some() {
                notes.push(rest_frame_note());
            }
            let duration =
                scene::phase_duration(m.frames.len(), opts.timing.duration, opts.timing.fps);
            notes.extend(phase_note(&m.times, duration, opts));
            let frames = m.times.iter().zip(&m.frames).map(|(t, f)| (*t, &f[..]));
            scene::apply_frames(&mut p3d, lod, m.points as usize, frames, axes, duration)?;
        }
        Model::Pc2(p) => {
            let n = p.frames.len();
            let duration = scene::phase_duration(n, opts.timing.duration, opts.timing.fps);
            let time = pc2_time(p.start_frame, p.sample_rate, n, opts.timing.fps, duration);
            let times: Vec<f32> = (0..n).map(&time).collect();
            notes.extend(phase_note(&times, duration, opts));
            let frames = p.frames.iter().enumerate().map(|(i, f)| (time(i), &f[..]));
            scene::apply_frames(&mut p3d, lod, p.points as usize, frames, axes, duration)?;
        }
        _ => return Err(super::no_such(model.format(), Format::P3d)),
    }
    Ok(done_notes(
        crate::formats::p3d::write(&p3d)?,
        Format::P3d,
        notes,
    ))
}

/// The time in seconds of PC2 sample `i`: PC2 counts frames, so with `fps` they become seconds;
/// without, the `n` samples spread evenly over phases 0..1 (seconds 0..duration).
pub(super) fn pc2_time(
    start_frame: f32,
    sample_rate: f32,
    n: usize,
    fps: Option<f32>,
    duration: f32,
) -> impl Fn(usize) -> f32 {
    move |i| match fps {
        Some(fps) => pc2::frame_time(start_frame, sample_rate, i, fps),
        None if n > 1 => i as f32 / (n - 1) as f32 * duration,
        None => 0.0,
    }
}
