//! `retroanim convert IN OUT [--to FMT]`.

use anyhow::{anyhow, bail, Context, Result};
use retroanim::{Format, Model};

use crate::cli::ConvertArgs;
use crate::Outcome;

pub fn run(args: &ConvertArgs) -> Result<Outcome> {
    let target = target_format(args)?;
    let (_, model) = super::load(&args.input)?;
    let bytes = convert(&model, target, args).with_context(|| args.input.display().to_string())?;
    crate::io::write_output(&args.output, &bytes, Some(&args.input), args.force)?;
    Ok(Outcome::Clean)
}

fn target_format(args: &ConvertArgs) -> Result<Format> {
    if let Some(name) = &args.to {
        return Format::from_name(name).ok_or_else(|| anyhow!("--to {name}: unknown format"));
    }
    let ext = args
        .output
        .extension()
        .and_then(|e| e.to_str())
        .ok_or_else(|| {
            anyhow!(
                "{}: no extension to choose the output format from; pass --to FMT",
                args.output.display()
            )
        })?;
    Format::from_name(ext).ok_or_else(|| {
        anyhow!(
            "{}: unknown output extension .{ext}; pass --to FMT",
            args.output.display()
        )
    })
}

/// Frame rate PC2 → MDD uses when `--fps` is not given (3ds Max's NTSC default).
const DEFAULT_FPS: f32 = 30.0;

fn convert(model: &Model, target: Format, args: &ConvertArgs) -> Result<Vec<u8>> {
    if target == Format::Json {
        let mut s = model.to_json()?;
        s.push('\n');
        return Ok(s.into_bytes());
    }
    if target == model.format() {
        return Ok(model.write()?);
    }
    if let Some(fps) = args.fps {
        if !(fps.is_finite() && fps > 0.0) {
            bail!("--fps {fps}: must be a positive number");
        }
    }
    match (model, target) {
        (Model::Mdd(m), Format::Pc2) => {
            let cache = m.to_point_cache();
            let fps = args
                .fps
                .or_else(|| cache.guess_fps())
                .unwrap_or(DEFAULT_FPS);
            if cache.rest_frame.is_some() {
                eprintln!(
                    "retroanim: note: the MDD's uncounted rest frame has no place in PC2 and is left out"
                );
            }
            let pc2 = retroanim::formats::pc2::Pc2::from_point_cache(&cache, fps)?;
            let back = pc2.to_point_cache(fps);
            if back
                .frames
                .iter()
                .zip(&cache.frames)
                .any(|(a, b)| a.time.to_bits() != b.time.to_bits())
            {
                eprintln!(
                    "retroanim: note: the MDD's frame times are not evenly spaced whole frames at {fps} fps; PC2 keeps only start frame {} and sample rate {}",
                    pc2.start_frame, pc2.sample_rate
                );
            }
            return Ok(retroanim::formats::pc2::write(&pc2)?);
        }
        (Model::Mdd(_) | Model::Pc2(_), Format::Gltf | Format::Glb) => {
            let cache = match model {
                Model::Mdd(m) => m.to_point_cache(),
                Model::Pc2(p) => p.to_point_cache(args.fps.unwrap_or(DEFAULT_FPS)),
                _ => unreachable!("matched above"),
            };
            let name = args
                .input
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| "point cache".into());
            let scene = retroanim::export::point_cache_scene(
                &cache,
                &name,
                retroanim::scene::Interpolation::Linear,
            );
            return Ok(retroanim::export::gltf::write(&scene, target)?);
        }
        (Model::Hmd(h), Format::Gltf | Format::Glb) => {
            if args.stream_id.is_some_and(|s| s > 127) {
                bail!("--stream-id: stream IDs are 0..=127");
            }
            if !(args.scale.is_finite() && args.scale > 0.0) {
                bail!("--scale {}: must be a positive number", args.scale);
            }
            let options = retroanim::formats::hmd::SceneOptions {
                axes: match args.axes {
                    crate::cli::AxesArg::Yup => retroanim::formats::hmd::Axes::YUp,
                    crate::cli::AxesArg::Raw => retroanim::formats::hmd::Axes::Raw,
                },
                scale: args.scale,
                fps: args.fps.unwrap_or(60.0),
                sequence: args.sequence,
                stream_id: args.stream_id,
                ..Default::default()
            };
            let scene = h.to_scene(&options)?;
            return Ok(retroanim::export::gltf::write(&scene, target)?);
        }
        (Model::Pc2(p), Format::Mdd) => {
            let cache = p.to_point_cache(args.fps.unwrap_or(DEFAULT_FPS));
            let mdd = retroanim::formats::mdd::Mdd::from_point_cache(&cache)?;
            return Ok(retroanim::formats::mdd::write(&mdd)?);
        }
        _ => {}
    }
    bail!(retroanim::Error::Conversion {
        from: model.format(),
        to: target,
        why: "no such conversion".into(),
    })
}
