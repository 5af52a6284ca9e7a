//! `retroanim render IN OUT.png`: a picture drawn as the console draws it
//! ([`retroanim::render::render_file`]); the notes say what it leaves out.

use anyhow::{anyhow, bail, Context, Result};
use retroanim::render::{Input, OutputKind, RenderOptions, View};

use crate::cli::RenderArgs;
use crate::Outcome;

pub fn run(args: &RenderArgs) -> Result<Outcome> {
    let output = OutputKind::from_path(&args.output).ok_or_else(|| {
        anyhow!(
            "{}: name the picture .png, .gif or .webp",
            args.output.display()
        )
    })?;
    let mut view = View::default();
    view.yaw = args.yaw;
    view.pitch = args.pitch.unwrap_or(view.pitch);
    view.distance = args.distance.unwrap_or(view.distance);
    if let Some(s) = &args.size {
        let (w, h) = s
            .split_once(['x', 'X'])
            .and_then(|(w, h)| Some((w.parse().ok()?, h.parse().ok()?)))
            .ok_or_else(|| anyhow!("--size {s}: expected WxH, e.g. 256x256"))?;
        view.width = w;
        view.height = h;
    }
    if let Some(b) = &args.background {
        let v = u32::from_str_radix(b.trim_start_matches('#'), 16)
            .ok()
            .filter(|_| b.trim_start_matches('#').len() == 6)
            .ok_or_else(|| anyhow!("--background {b}: expected RRGGBB in hex"))?;
        view.background = [(v >> 16) as u8, (v >> 8) as u8, v as u8];
    }
    if let Some(d) = args.distance {
        if !(d.is_finite() && d > 0.0) {
            bail!("--distance {d}: must be a positive number");
        }
    }
    let frames = match &args.frames {
        None => None,
        Some(f) => {
            let (a, b) = super::frame_range(f)?;
            Some((a, b.map_or(u32::MAX, |b| b.saturating_add(1))))
        }
    };
    let tims = super::load_tims(&args.tim)?;
    let mut opts = RenderOptions {
        view,
        view_set: args.yaw.is_some()
            || args.pitch.is_some()
            || args.distance.is_some()
            || args.size.is_some()
            || args.background.is_some(),
        tims,
        tmd: super::load_tmd(args.tmd.as_deref())?,
        weights: None,
        mime_partner: match (&args.vdf, &args.ndf) {
            (Some(_), Some(_)) => bail!("--vdf and --ndf: give the one the input is not"),
            (Some(p), None) => super::load_diff(Some(p), retroanim::Format::Vdf)?,
            (None, Some(p)) => super::load_diff(Some(p), retroanim::Format::Ndf)?,
            (None, None) => None,
        },
        frames,
        fps: args.fps,
        sequence: args.sequence,
        stream_id: args.stream_id,
        lod: args.lod,
        preview: None,
        input: if args.vram {
            Input::VramDump
        } else if let Some(f) = super::play_mime::diff_format(&args.file)? {
            // A VDF/NDF has no magic number: read as its name (or --from) says.
            Input::Named(f)
        } else {
            Input::Detect
        },
        output,
        limits: retroanim::Limits::default(),
    };
    let data = if args.vram {
        // A dump has no magic number: read it only when its size is a dump's.
        let name = args.file.display().to_string();
        let len = std::fs::metadata(&args.file)
            .with_context(|| name.clone())?
            .len();
        if len != retroanim::vram::DUMP_BYTES as u64 {
            bail!(
                "{name}: {len} bytes; a VRAM dump is {} (1024×512 halfwords)",
                retroanim::vram::DUMP_BYTES
            );
        }
        crate::io::read_named(&args.file, len).with_context(|| name)?
    } else {
        crate::io::read_input(&args.file)?
    };
    // An RSD set is drawn as the TMD rsdlink makes of it, with its TIMs.
    let data = match super::rsd::set_of(&args.file)? {
        Some(set) => {
            let (tmd, tims) = super::rsd::tmd_bytes(&set)?;
            opts.tims.extend(tims);
            tmd
        }
        None => data,
    };
    // --weights need the key count: the file is read as the difference file it is named.
    if !args.keys.weights.is_empty() {
        let d = match opts.input {
            Input::Named(f) => super::load_diff(Some(&args.file), f)?,
            _ => None,
        };
        let Some(d) = d else {
            bail!(
                "{}: --weights weigh the keys of a MIMe VDF/NDF (a .vdf/.ndf file, or --from vdf|ndf)",
                args.file.display()
            );
        };
        opts.weights = Some(super::mime_weights(&args.keys.weights, d.blocks.len())?);
    }
    // A file render does not draw: say what it is and what would work, as `play` does.
    if let Some(found) = retroanim::detect(&data).filter(|f| {
        use retroanim::Format::*;
        matches!(f, Mdd | Pc2 | Png | Json | Lab)
    }) {
        bail!(
            "{}: a {found} file; render draws TMD, HMD, P3D and glTF models, TOD animations (with --tmd), TIMs and VRAM dumps (--vram)",
            args.file.display()
        );
    }
    let r = retroanim::render::render_file(&data, &opts)
        .with_context(|| args.file.display().to_string())?;
    let mut inputs: Vec<&std::path::Path> = vec![&args.file];
    inputs.extend(args.tmd.as_deref());
    inputs.extend(args.vdf.as_deref());
    inputs.extend(args.ndf.as_deref());
    inputs.extend(args.tim.iter().map(|p| p.as_path()));
    crate::io::write_output(&args.output, &r.bytes, &inputs, args.force)?;
    let what = match r.frames {
        1 => "1 picture".to_string(),
        n => format!("{n} pictures"),
    };
    super::wrote(&args.output, &what, r.bytes.len(), &args.file);
    for n in &r.notes {
        note!("{n}");
    }
    Ok(Outcome::Clean)
}
