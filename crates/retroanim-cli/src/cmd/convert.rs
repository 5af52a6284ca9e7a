//! `retroanim convert IN OUT [--to FMT]`.

use anyhow::{anyhow, bail, Context, Result};
use retroanim::{Format, Model};

use crate::cli::ConvertArgs;
use crate::Outcome;

pub fn run(args: &ConvertArgs) -> Result<Outcome> {
    let target = target_format(args)?;
    if super::p3d::convert_streamed(target, args)? {
        return Ok(Outcome::Clean);
    }
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
    if let Some(bytes) = super::p3d::convert(model, target, args)? {
        return Ok(bytes);
    }
    match (model, target) {
        (Model::Mdd(_), Format::Pc2) => {
            let bytes = model.write()?;
            let mut out = Vec::new();
            let limits = retroanim::Limits::default();
            let done = retroanim::export::mdd_to_pc2(
                &bytes[..],
                bytes.len() as u64,
                &mut out,
                args.fps,
                &limits,
            )?;
            if done.rest_frame_dropped {
                eprintln!(
                    "retroanim: note: the MDD's uncounted rest frame has no place in PC2 and is left out"
                );
            }
            if !done.times_exact {
                eprintln!(
                    "retroanim: note: the MDD's frame times are not evenly spaced whole frames at {} fps; PC2 keeps only a start frame and a sample rate",
                    done.fps
                );
            }
            return Ok(out);
        }
        (Model::Mdd(_) | Model::Pc2(_), Format::Gltf | Format::Glb) => {
            let cache = match model {
                Model::Mdd(m) => m.to_point_cache(),
                Model::Pc2(p) => {
                    p.to_point_cache(args.fps.unwrap_or(retroanim::export::DEFAULT_FPS))
                }
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
        (Model::Pc2(_), Format::Mdd) => {
            let bytes = model.write()?;
            let mut out = Vec::new();
            let fps = args.fps.unwrap_or(retroanim::export::DEFAULT_FPS);
            let limits = retroanim::Limits::default();
            retroanim::export::pc2_to_mdd(&bytes[..], bytes.len() as u64, &mut out, fps, &limits)?;
            return Ok(out);
        }
        _ => {}
    }
    bail!(retroanim::Error::Conversion {
        from: model.format(),
        to: target,
        why: "no such conversion".into(),
    })
}
