//! `retroanim play DIFF.VDF --tmd BASE.TMD [--weights K=W,...] [--json]`: the base TMD's
//! vertices (an NDF: normals) with the MIMe keys weighted as given, as
//! [`retroanim::formats::mime::play`] computes them (the console's fixed-point arithmetic).

use anyhow::{anyhow, bail, Result};
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
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    Ok(match ext.as_deref() {
        Some("vdf") => Some(Format::Vdf),
        Some("ndf") => Some(Format::Ndf),
        _ => None,
    })
}

/// `--weights K=W,...` as one weight per block (unnamed keys 0).
fn weights(list: &[String], keys: usize) -> Result<Vec<i32>> {
    let mut w = vec![0; keys];
    for item in list {
        let bad = || anyhow!("--weights {item}: expected KEY=WEIGHT (4096 = 1.0), e.g. 0=4096");
        let (k, v) = item.split_once('=').ok_or_else(bad)?;
        let k: usize = k.trim().parse().map_err(|_| bad())?;
        let v: i32 = v.trim().parse().map_err(|_| bad())?;
        let slot = w.get_mut(k).ok_or_else(|| {
            anyhow!("--weights {item}: key {k}, but the file has {keys} blocks (keys 0..{keys})")
        })?;
        *slot = v;
    }
    Ok(w)
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
    if let Some(i) = mime::validate(&d, Some(&tmd), normals)
        .into_iter()
        .find(|i| i.severity == retroanim::Severity::Error)
    {
        bail!("{}: {i}", args.file.display());
    }
    let w = weights(&args.weights, d.blocks.len())?;
    let base: Vec<Vec<retroanim::formats::tmd::SVector>> = tmd
        .objects
        .iter()
        .map(|o| {
            if normals {
                o.normals.clone()
            } else {
                o.vertices.clone()
            }
        })
        .collect();
    let played = mime::play(&d, &base, &w);
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
