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
        (Model::Tod(_) | Model::Tmd(_), Format::Gltf | Format::Glb) => {
            return psx_gltf(model, target, args);
        }
        (Model::Tim(tim), Format::Png) => {
            use retroanim::formats::tim;
            let opts = tim::DecodeOptions {
                clut_row: args.clut,
                stp: if args.semi_transparent {
                    tim::Stp::SemiTransparent
                } else {
                    tim::Stp::Opaque
                },
            };
            return Ok(tim::encode_png(&tim.to_rgba(&opts)?)?);
        }
        (Model::Hmd(h), Format::Gltf | Format::Glb) => {
            if args.stream_id.is_some_and(|s| s > 127) {
                bail!("--stream-id: stream IDs are 0..=127");
            }
            if !(args.scale.is_finite() && args.scale > 0.0) {
                bail!("--scale {}: must be a positive number", args.scale);
            }
            let mut tims = Vec::new();
            for path in &args.tim {
                match super::load(path)? {
                    (_, Model::Tim(t)) => tims.push(t),
                    (_, m) => bail!(
                        "{}: a {} file; --tim needs a TIM",
                        path.display(),
                        m.format()
                    ),
                }
            }
            let options = retroanim::formats::hmd::SceneOptions {
                tims,
                axes: match args.axes {
                    crate::cli::Axes::Default => retroanim::formats::hmd::Axes::YUp,
                    crate::cli::Axes::Raw => retroanim::formats::hmd::Axes::Raw,
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
        _ => {}
    }
    bail!(retroanim::Error::Conversion {
        from: model.format(),
        to: target,
        why: "no such conversion".into(),
    })
}

/// TOD (with `--tmd`) or TMD → glTF through the neutral scene.
fn psx_gltf(model: &Model, target: Format, args: &ConvertArgs) -> Result<Vec<u8>> {
    use retroanim::import::psx;
    if !(args.scale.is_finite() && args.scale > 0.0) {
        bail!("--scale {}: must be a positive number", args.scale);
    }
    let mut opts = psx::PsxOptions {
        axes: match args.axes {
            crate::cli::Axes::Default => psx::Axes::YUp,
            crate::cli::Axes::Raw => psx::Axes::Raw,
        },
        scale: args.scale,
        smooth: args.smooth,
        ..psx::PsxOptions::default()
    };
    for path in &args.tim {
        match super::load(path)? {
            (_, Model::Tim(t)) => opts.tims.push(t),
            (_, m) => bail!(
                "{}: a {} file; --tim needs a TIM",
                path.display(),
                m.format()
            ),
        }
    }
    let scene = match model {
        Model::Tmd(t) => {
            if args.tmd.is_some() || !args.after.is_empty() {
                bail!("--tmd and --after are for TOD input; the input is a TMD");
            }
            psx::tmd_scene(t, &opts)?
        }
        Model::Tod(anim) => {
            let tmd = super::load_tmd(args.tmd.as_deref())?;
            let before = super::load_tods(&args.after)?;
            let before: Vec<&retroanim::formats::tod::Tod> = before.iter().collect();
            psx::tod_scene_after(&before, anim, tmd.as_ref(), &opts)?
        }
        _ => unreachable!("only TOD and TMD reach psx_gltf"),
    };
    Ok(retroanim::export::gltf::write(&scene, target)?)
}
