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

fn convert(model: &Model, target: Format, args: &ConvertArgs) -> Result<Vec<u8>> {
    if target == Format::Json {
        let mut s = model.to_json()?;
        s.push('\n');
        return Ok(s.into_bytes());
    }
    if target == model.format() {
        return Ok(model.write()?);
    }
    if let (Model::Tim(tim), Format::Png) = (model, target) {
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
    bail!(retroanim::Error::Conversion {
        from: model.format(),
        to: target,
        why: "no such conversion".into(),
    })
}
