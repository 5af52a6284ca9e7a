//! `retroanim convert` arms that involve P3D: a LOD's frames to MDD/PC2, a cache into a base
//! model's LOD (`--base`), a LOD to glTF. The work is the library's (`formats::p3d::scene`);
//! this maps the options onto it.

use anyhow::{anyhow, bail, Context, Result};
use retroanim::formats::p3d::stream::MlodFrames;
use retroanim::formats::p3d::{scene, P3d};
use retroanim::formats::{mdd, pc2};
use retroanim::scene::PointCache;
use retroanim::{Format, Model};

use crate::cli::{Axes, ConvertArgs};

/// PC2 ↔ seconds when neither `--fps` nor the frame times say otherwise.
const DEFAULT_FPS: f32 = 30.0;

/// The bytes of a conversion involving P3D, or `None` when neither side is P3D.
pub fn convert(model: &Model, target: Format, args: &ConvertArgs) -> Result<Option<Vec<u8>>> {
    check_numbers(args)?;
    match (model, target) {
        (Model::P3d(p), Format::Mdd | Format::Pc2 | Format::Gltf | Format::Glb) => {
            from_p3d(p, target, args).map(Some)
        }
        (Model::Mdd(_) | Model::Pc2(_), Format::P3d) => into_base(model, args).map(Some),
        _ if args.base.is_some() => {
            bail!("--base is for converting an MDD or PC2 into a P3D (OUT.p3d)")
        }
        _ => Ok(None),
    }
}

fn lod_of(p3d: &P3d, args: &ConvertArgs) -> Result<usize> {
    match args.lod {
        None => Ok(p3d.default_lod()),
        Some(res) => p3d
            .find_lod(res)
            .ok_or_else(|| no_lod(res, (0..p3d.lod_count()).map(|i| p3d.resolution(i)))),
    }
}

fn no_lod(res: f64, have: impl Iterator<Item = f32>) -> anyhow::Error {
    let have: Vec<String> = have.map(|r| r.to_string()).collect();
    anyhow!(
        "--lod {res}: no LOD has that resolution; the model's LODs are {}",
        have.join(", ")
    )
}

fn cache_axes(args: &ConvertArgs) -> scene::CacheAxes {
    match args.axes {
        Axes::Default => scene::CacheAxes::ObjectBuilder,
        Axes::Raw => scene::CacheAxes::Raw,
    }
}

fn from_p3d(p3d: &P3d, target: Format, args: &ConvertArgs) -> Result<Vec<u8>> {
    let lod = lod_of(p3d, args)?;
    let duration = scene::phase_duration(p3d.frames(lod).len(), args.duration, args.fps);
    if matches!(target, Format::Gltf | Format::Glb) {
        let axes = match args.axes {
            Axes::Default => scene::SceneAxes::Gltf,
            Axes::Raw => scene::SceneAxes::Raw,
        };
        let s = scene::to_scene(p3d, lod, axes, duration)?;
        return Ok(if target == Format::Glb {
            retroanim::export::gltf::write_glb(&s)?
        } else {
            retroanim::export::gltf::write_gltf(&s)?
        });
    }
    // Frames go straight from the model to the output bytes, one at a time.
    if target == Format::Mdd {
        return Ok(scene::write_mdd(
            p3d,
            lod,
            cache_axes(args),
            duration,
            Vec::new(),
        )?);
    }
    let times: Vec<f32> = p3d.frames(lod).iter().map(|f| f.time * duration).collect();
    let fps = pc2_fps(&times, args);
    let (bytes, header) = scene::write_pc2(p3d, lod, cache_axes(args), duration, fps, Vec::new())?;
    note_uneven(&times, fps, &header);
    Ok(bytes)
}

/// `convert model.p3d out.mdd|out.pc2` for an MLOD, read one frame at a time from the file
/// and written one frame at a time to the output: memory does not grow with the frame count.
/// Returns false (nothing done) for any other conversion.
pub fn convert_streamed(target: Format, args: &ConvertArgs) -> Result<bool> {
    if target == Format::P3d {
        if let Some(base) = &args.base {
            return into_base_streamed(base, args);
        }
    }
    if !matches!(target, Format::Mdd | Format::Pc2) || args.base.is_some() {
        return Ok(false);
    }
    if !starts_with(&args.input, b"MLOD") {
        return Ok(false);
    }
    check_numbers(args)?;
    let file = std::fs::File::open(&args.input)
        .with_context(|| format!("{}: cannot read", args.input.display()))?;
    let ctx = || args.input.display().to_string();
    let mut src =
        MlodFrames::open(std::io::BufReader::with_capacity(1 << 16, file)).with_context(ctx)?;
    let lod = match args.lod {
        None => src.default_lod(),
        Some(res) => src
            .find_lod(res)
            .ok_or_else(|| no_lod(res, src.lods().iter().map(|l| l.resolution)))?,
    };
    let n = src.lods().get(lod).map_or(0, |l| l.frames.len());
    let duration = scene::phase_duration(n, args.duration, args.fps);
    let axes = cache_axes(args);
    crate::io::write_output_with(&args.output, Some(&args.input), args.force, |w| {
        if target == Format::Mdd {
            scene::write_mdd_streamed(&mut src, lod, axes, duration, w).with_context(ctx)?;
            return Ok(());
        }
        let times: Vec<f32> = src.lods()[lod]
            .frames
            .iter()
            .map(|f| f.time * duration)
            .collect();
        let fps = pc2_fps(&times, args);
        let (_, header) =
            scene::write_pc2_streamed(&mut src, lod, axes, duration, fps, w).with_context(ctx)?;
        note_uneven(&times, fps, &header);
        Ok(())
    })?;
    Ok(true)
}

fn starts_with(path: &std::path::Path, magic: &[u8]) -> bool {
    use std::io::Read;
    let mut head = vec![0u8; magic.len()];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut head))
        .is_ok()
        && head == magic
}

fn open_buffered(path: &std::path::Path) -> Result<std::io::BufReader<std::fs::File>> {
    let file =
        std::fs::File::open(path).with_context(|| format!("{}: cannot read", path.display()))?;
    Ok(std::io::BufReader::with_capacity(1 << 16, file))
}

/// `convert cache.mdd|cache.pc2 out.p3d --base base.p3d` for an MLOD base: the cache is read
/// one frame at a time and the base file copied through with only the LOD's frame taggs
/// replaced. Taken for a PC2 (by its magic) or a `.mdd` whose header fits its size; returns
/// false (nothing done) otherwise, leaving the conversion to the in-memory path.
fn into_base_streamed(base_path: &std::path::Path, args: &ConvertArgs) -> Result<bool> {
    if !starts_with(base_path, b"MLOD") {
        return Ok(false);
    }
    let limits = retroanim::Limits::default();
    let is_pc2 = starts_with(&args.input, b"POINTCACHE2\0");
    let is_mdd_name = args
        .input
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("mdd"));
    let ctx = || args.input.display().to_string();
    enum Cache<R: std::io::Read> {
        Mdd(mdd::StreamReader<R>),
        Pc2(pc2::StreamReader<R>),
    }
    let cache = if is_pc2 {
        Cache::Pc2(pc2::StreamReader::new(open_buffered(&args.input)?, &limits).with_context(ctx)?)
    } else if is_mdd_name {
        let len = std::fs::metadata(&args.input)
            .with_context(|| format!("{}: cannot read", args.input.display()))?
            .len();
        match mdd::StreamReader::new(open_buffered(&args.input)?, len, &limits) {
            Ok(r) => Cache::Mdd(r),
            // Not an MDD after all: the in-memory path detects what it is.
            Err(_) => return Ok(false),
        }
    } else {
        return Ok(false);
    };
    check_numbers(args)?;
    let base_ctx = || base_path.display().to_string();
    let mut base = MlodFrames::open(open_buffered(base_path)?).with_context(base_ctx)?;
    let lod = match args.lod {
        None => base.default_lod(),
        Some(res) => base
            .find_lod(res)
            .ok_or_else(|| no_lod(res, base.lods().iter().map(|l| l.resolution)))?,
    };
    let axes = cache_axes(args);
    crate::io::write_output_with(&args.output, Some(&args.input), args.force, |w| {
        match cache {
            Cache::Mdd(mut m) => {
                if m.has_rest_frame() {
                    eprintln!("retroanim: note: the MDD's uncounted rest frame is not a LOD frame and is left out");
                    m.next_frame(&mut Vec::new()).with_context(ctx)?;
                }
                let times = m.times().to_vec();
                let duration = scene::phase_duration(times.len(), args.duration, args.fps);
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
                    w,
                )
                .with_context(base_ctx)?;
                // Checks that nothing follows the last frame, as the in-memory reader does.
                m.next_frame(&mut Vec::new()).with_context(ctx)?;
            }
            Cache::Pc2(mut p) => {
                let h = *p.header();
                let n = h.samples as usize;
                let duration = scene::phase_duration(n, args.duration, args.fps);
                // As the in-memory path: with --fps frames become seconds; without, the
                // samples spread evenly over phases 0..1 (seconds 0..duration).
                let time = |i: usize| match args.fps {
                    Some(fps) => pc2::frame_time(h.start_frame, h.sample_rate, i, fps),
                    None if n > 1 => i as f32 / (n - 1) as f32 * duration,
                    None => 0.0,
                };
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
                    w,
                )
                .with_context(base_ctx)?;
                p.next_frame(&mut Vec::new()).with_context(ctx)?;
            }
        }
        Ok(())
    })?;
    Ok(true)
}

/// The `--duration` and `--fps` checks every conversion makes.
fn check_numbers(args: &ConvertArgs) -> Result<()> {
    if let Some(d) = args.duration {
        if !(d.is_finite() && d > 0.0) {
            bail!("--duration {d}: must be a positive number of seconds");
        }
    }
    if let Some(fps) = args.fps {
        if !(fps.is_finite() && fps > 0.0) {
            bail!("--fps {fps}: must be a positive number");
        }
    }
    Ok(())
}

/// The frame rate of a PC2 made from frame times in seconds.
fn pc2_fps(times: &[f32], args: &ConvertArgs) -> f32 {
    args.fps.or_else(|| guess_fps(times)).unwrap_or(DEFAULT_FPS)
}

/// Says when the PC2 header cannot express the frame times.
fn note_uneven(times: &[f32], fps: f32, header: &pc2::Header) {
    // Off by more than the 1/1000 frame PC2's timing snaps away (f32 rounding of phase × duration
    // is not unevenness).
    let uneven = times.iter().enumerate().any(|(i, t)| {
        let frame = header.start_frame as f64 + i as f64 * header.sample_rate as f64;
        (*t as f64 * fps as f64 - frame).abs() > 1e-3
    });
    if uneven {
        eprintln!(
            "retroanim: note: the frame times are not evenly spaced whole frames at {fps} fps; PC2 keeps only start frame {} and sample rate {}",
            header.start_frame, header.sample_rate
        );
    }
}

/// The frame rate that puts the first two frame times one frame apart, as [`PointCache`] guesses.
fn guess_fps(times: &[f32]) -> Option<f32> {
    let cache = PointCache {
        frames: times
            .iter()
            .take(2)
            .map(|&time| retroanim::scene::PointFrame {
                time,
                positions: Vec::new(),
            })
            .collect(),
        ..PointCache::default()
    };
    cache.guess_fps()
}

fn into_base(model: &Model, args: &ConvertArgs) -> Result<Vec<u8>> {
    let base_path = args.base.as_ref().ok_or_else(|| {
        anyhow!("converting a point cache to P3D needs --base BASE.p3d: the model whose LOD frames it replaces")
    })?;
    let (_, base) = super::load(base_path)?;
    let Model::P3d(mut p3d) = base else {
        bail!(
            "{}: --base must be a P3D model, this is {}",
            base_path.display(),
            base.format()
        );
    };
    let lod = lod_of(&p3d, args)?;
    let axes = cache_axes(args);
    // The cache's frames are used where they lie: no copy into a PointCache first.
    let result = match model {
        Model::Mdd(m) => {
            if m.rest_frame.is_some() {
                eprintln!("retroanim: note: the MDD's uncounted rest frame is not a LOD frame and is left out");
            }
            let duration = scene::phase_duration(m.frames.len(), args.duration, args.fps);
            let frames = m.times.iter().zip(&m.frames).map(|(t, f)| (*t, &f[..]));
            scene::apply_frames(&mut p3d, lod, m.points as usize, frames, axes, duration)
        }
        Model::Pc2(p) => {
            let n = p.frames.len();
            let duration = scene::phase_duration(n, args.duration, args.fps);
            // PC2 counts frames: with --fps they become seconds; without, the samples spread
            // evenly over phases 0..1 (seconds 0..duration).
            let time = |i: usize| match args.fps {
                Some(fps) => pc2::frame_time(p.start_frame, p.sample_rate, i, fps),
                None if n > 1 => i as f32 / (n - 1) as f32 * duration,
                None => 0.0,
            };
            let frames = p.frames.iter().enumerate().map(|(i, f)| (time(i), &f[..]));
            scene::apply_frames(&mut p3d, lod, p.points as usize, frames, axes, duration)
        }
        _ => unreachable!("into_base is only called for point caches"),
    };
    result.with_context(|| base_path.display().to_string())?;
    Ok(retroanim::formats::p3d::write(&p3d)?)
}
