//! Streamed conversions: the point-cache cases whose inputs can be far larger than memory
//! should hold. One frame is in memory at a time; the bytes written equal those of
//! [`super::convert`] on the same inputs and options.
//!
//! - [`mlod_frames`]: an MLOD's LOD frames → MDD or PC2.
//! - [`cache_into_mlod`]: an MDD or PC2 → the frames of a LOD of an MLOD base, everything else of
//!   the base copied through byte for byte.

use std::io::{Read, Seek, Write};

use super::p3d::{
    cache_axes, lod_index, other_lods_note, pc2_fps, pc2_time, phase_note, phase_range_note,
    rest_frame_note, uneven,
};
use super::{Note, OptionName as O, Options};
use crate::error::Result;
use crate::formats::p3d::scene;
use crate::formats::p3d::stream::MlodFrames;
use crate::formats::{mdd, pc2};
use crate::Format;

/// Writes the frames of an MLOD (read from `mlod`) as `target` (MDD or PC2) to `out`.
pub fn mlod_frames<R: Read + Seek, W: Write>(
    mlod: R,
    target: Format,
    opts: &Options,
    out: W,
) -> Result<Vec<Note>> {
    opts.check(Format::P3d, target, &[O::Axes, O::Fps, O::Duration, O::Lod])?;
    if !matches!(target, Format::Mdd | Format::Pc2) {
        return Err(super::no_such(Format::P3d, target));
    }
    let mut src = MlodFrames::open_with(mlod, &opts.limits)?;
    let lod = lod_index(
        opts.p3d.lod,
        src.default_lod(),
        |r| src.find_lod(r),
        src.lods().iter().map(|l| l.resolution),
    )?;
    let resolutions: Vec<f32> = src.lods().iter().map(|l| l.resolution).collect();
    let mut notes: Vec<Note> = other_lods_note(lod, &resolutions, opts)
        .into_iter()
        .collect();
    let n = src.lods().get(lod).map_or(0, |l| l.frames.len());
    let duration = scene::phase_duration(n, opts.timing.duration, opts.timing.fps);
    let axes = cache_axes(opts);
    if target == Format::Mdd {
        scene::write_mdd_streamed(&mut src, lod, axes, duration, out)?;
        return Ok(notes);
    }
    let times: Vec<f32> = src.lods()[lod]
        .frames
        .iter()
        .map(|f| f.time * duration)
        .collect();
    let fps = pc2_fps(&times, opts);
    let (_, header) = scene::write_pc2_streamed(&mut src, lod, axes, duration, fps, out)?;
    notes.extend(uneven(&times, fps, &header));
    Ok(notes)
}

/// A point cache being read one frame at a time.
pub enum CacheReader<R: Read> {
    /// An MDD.
    Mdd(mdd::StreamReader<R>),
    /// A PC2.
    Pc2(pc2::StreamReader<R>),
}

/// Writes `base` (an MLOD read from a reader) with the frames of one LOD replaced by those of
/// `cache`, to `out`.
pub fn cache_into_mlod<R: Read, B: Read + Seek, W: Write>(
    cache: CacheReader<R>,
    base: B,
    opts: &Options,
    out: W,
) -> Result<Vec<Note>> {
    let from = match cache {
        CacheReader::Mdd(_) => Format::Mdd,
        CacheReader::Pc2(_) => Format::Pc2,
    };
    opts.check(
        from,
        Format::P3d,
        &[O::Axes, O::Fps, O::Duration, O::Lod, O::Base],
    )?;
    let mut base = MlodFrames::open_with(base, &opts.limits)?;
    let lod = lod_index(
        opts.p3d.lod,
        base.default_lod(),
        |r| base.find_lod(r),
        base.lods().iter().map(|l| l.resolution),
    )?;
    let axes = cache_axes(opts);
    let mut notes = Vec::new();
    match cache {
        CacheReader::Mdd(mut m) => {
            if m.has_rest_frame() {
                notes.push(rest_frame_note());
                m.next_frame(&mut Vec::new())?;
            }
            let times = m.times().to_vec();
            let duration =
                scene::phase_duration(times.len(), opts.timing.duration, opts.timing.fps);
            notes.extend(phase_note(&times, duration, opts));
            let points = m.points() as usize;
            let frame = |k: usize, buf: &mut Vec<[f32; 3]>| {
                m.next_frame(buf)?;
                Ok(times[k])
            };
            scene::apply_frames_streamed(
                &mut base,
                lod,
                points,
                times.len(),
                frame,
                axes,
                duration,
                out,
            )?;
            // Checks that nothing follows the last frame, as the in-memory reader does.
            m.next_frame(&mut Vec::new())?;
        }
        CacheReader::Pc2(mut p) => {
            let h = *p.header();
            let n = h.samples as usize;
            let duration = scene::phase_duration(n, opts.timing.duration, opts.timing.fps);
            let time = pc2_time(h.start_frame, h.sample_rate, n, opts.timing.fps, duration);
            // First and last times are enough for the note; the frames stream.
            notes.extend(phase_range_note(
                &time(0),
                &time(n.saturating_sub(1)),
                n,
                duration,
                opts,
            ));
            let frame = |k: usize, buf: &mut Vec<[f32; 3]>| {
                p.next_frame(buf)?;
                Ok(time(k))
            };
            scene::apply_frames_streamed(
                &mut base,
                lod,
                h.points as usize,
                n,
                frame,
                axes,
                duration,
                out,
            )?;
            p.next_frame(&mut Vec::new())?;
        }
    }
    Ok(notes)
}
