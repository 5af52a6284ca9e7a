//! `retroanim play DIFF.VDF --tmd BASE.TMD [--weights K=W,...] [--json]`: the base TMD's
//! vertices (an NDF: normals) with the MIMe keys weighted as given, as
//! [`retroanim::formats::mime::play`] computes them (the console's fixed-point arithmetic).

use anyhow::{bail, Context, Result};
use retroanim::formats::mime;
use retroanim::Format;
use serde_json::json;

use super::stream::{JsonLines, Out as Stream};
use crate::cli::PlayArgs;

/// The format `path` is played as when it is a MIMe difference file: `--from vdf|ndf`, else a
/// `.vdf` / `.ndf` name (the files have no magic number).
pub fn diff_format(path: &std::path::Path) -> Result<Option<Format>> {
    if let Some(f) = super::forced_format()? {
        return Ok(matches!(f, Format::Vdf | Format::Ndf).then_some(f));
    }
    Ok(retroanim::named_without_magic(path).filter(|f| matches!(f, Format::Vdf | Format::Ndf)))
}

/// Plays a VDF/NDF onto `--tmd`: every object's vectors, text or JSON Lines (one line per
/// object: `object`, `vertices` or `normals` as `[x, y, z]`).
pub fn run(
    args: &PlayArgs,
    format: Format,
    out: &mut Stream,
    mut lines: Option<&mut JsonLines>,
) -> Result<()> {
    if let Some(flag) = super::play::first_flag_not_in(args, &["--tmd", "--weights"]) {
        bail!(
            "{}: {flag} is not for {format} files (they take --tmd, --weights, --json)",
            args.file.display()
        );
    }
    if let Some(l) = lines.as_deref_mut() {
        l.set_format(format);
    }
    let Some(tmd) = super::load_tmd(args.tmd.as_deref())? else {
        bail!(
            "{}: a {format} holds differences against a base TMD: name it with --tmd",
            args.file.display()
        );
    };
    let d = super::load_diff(Some(&args.file), format)?.expect("a path was given");
    let normals = format == Format::Ndf;
    mime::check_against(&d, &tmd, format).with_context(|| args.file.display().to_string())?;
    let w = super::mime_weights(&args.keys.weights, d.blocks.len())?;
    let played = mime::play_on(&d, &tmd, normals, &w);
    let what = if normals { "normals" } else { "vertices" };
    for (o, vs) in played.iter().enumerate() {
        let xyz: Vec<[i16; 3]> = vs.iter().map(|v| [v.x, v.y, v.z]).collect();
        match lines.as_deref_mut() {
            Some(l) => l.frame(out, &json!({ "object": o, what: xyz, "weights": w }))?,
            None => {
                out.put(&format!("object {o}: {} {what}\n", xyz.len()))?;
                for (i, [x, y, z]) in xyz.iter().enumerate() {
                    out.put(&format!("  {i}: {x} {y} {z}\n"))?;
                }
            }
        }
        if out.closed() {
            break;
        }
    }
    Ok(())
}
