//! `retroanim play MODEL.HMD [--sequence N] [--stream-id S] [--speed X] [--intr-idx N] [--aframe N]
//! [--vertices] [--json]`: plays an HMD's animation as libhmd does and prints every frame.

use anyhow::{anyhow, bail, Context, Result};
use retroanim::formats::hmd::{self, Hmd, PlayOptions, Player, SectionData, SectionRole};
use retroanim::Limits;
use serde_json::{json, Value};

use super::stream::{JsonLines, Out as Stream};
use crate::cli::PlayArgs;

/// Frames printed when no `--frames` range is given and the animation never ends.
const DEFAULT_FRAMES: u64 = 600;

/// Plays an HMD already read from `args.file`: text, or JSON Lines into `lines`.
pub fn run(
    args: &PlayArgs,
    h: &Hmd,
    out: &mut Stream,
    lines: Option<&mut JsonLines>,
) -> Result<()> {
    let tod_only = [
        ("--tmd", args.tmd.is_some()),
        ("--after", !args.after.is_empty()),
        ("--frame", args.frame.is_some()),
    ];
    if let Some((flag, _)) = tod_only.iter().find(|(_, given)| *given) {
        let hint = if *flag == "--frame" {
            " (use --frames N..N)"
        } else {
            ""
        };
        bail!(
            "{}: {flag} is for TOD animations; this is an HMD{hint}",
            args.file.display()
        );
    }
    let frames = match &args.frames {
        Some(r) => Some(parse_range(r)?),
        None => None,
    };
    if let Some((_, last)) = frames {
        // The player steps from frame 0 whatever the range's start: every step up to the end
        // counts.
        Limits::default()
            .steps(None, "playback frames", last.saturating_add(1))
            .with_context(|| {
                format!(
                    "{}: --frames {}",
                    args.file.display(),
                    args.frames.as_deref().unwrap_or_default()
                )
            })?;
    }
    play_hmd(h, args, frames, out, lines).with_context(|| args.file.display().to_string())
}

pub(super) fn parse_range(r: &str) -> Result<(u64, u64)> {
    let (a, b) = super::frame_range(r)?;
    let b = b.ok_or_else(|| anyhow!("--frames {r}: an HMD range needs an end (A..B or A..=B)"))?;
    Ok((a.into(), b.into()))
}

/// MIMEPR weights from multiples (1.0 = 4096), rounded as the console stores them.
fn mime_weight_codes(ws: &[f64]) -> Result<Vec<i32>> {
    ws.iter()
        .map(|&w| {
            let v = (w * 4096.0).round();
            if !(w.is_finite() && (i32::MIN as f64..=i32::MAX as f64).contains(&v)) {
                bail!("--mime-weights {w}: not a weight (1.0 = 4096)");
            }
            Ok(v as i32)
        })
        .collect()
}

/// Plays and prints frame by frame: a JSON line per frame, or indented text.
fn play_hmd(
    h: &Hmd,
    args: &PlayArgs,
    frames: Option<(u64, u64)>,
    out: &mut Stream,
    mut lines: Option<&mut JsonLines>,
) -> Result<()> {
    if let Some(s) = args.stream_id {
        if s > 127 {
            bail!("--stream-id {s}: stream IDs are 0..=127");
        }
    }
    let options = PlayOptions {
        sequence: args.sequence,
        stream_id: args.stream_id,
        speed: args.speed.map(retroanim::convert::speed_code).transpose()?,
        intr_idx: args.intr_idx,
        aframe: args.aframe,
        ..PlayOptions::default()
    };
    let mut player = Player::start(h, &options)?;
    if !args.mime_weights.is_empty() {
        let weights = mime_weight_codes(&args.mime_weights)?;
        let prims = player.mime_primitives();
        if prims.is_empty() {
            bail!("--mime-weights: the file has no MIMe primitive");
        }
        for (prim, _, _) in prims {
            player.set_mime_weights(prim, &weights);
        }
    }
    let (first, last) = frames.unwrap_or((0, DEFAULT_FRAMES - 1));
    let vertex_sections: Vec<(u32, bool)> = h
        .regions
        .iter()
        .filter_map(|r| match &r.body {
            hmd::RegionBody::Section(s) if matches!(s.data, SectionData::Vectors { .. }) => {
                match s.role {
                    SectionRole::Vertex => Some((r.offset, false)),
                    SectionRole::Normal => Some((r.offset, true)),
                    _ => None,
                }
            }
            _ => None,
        })
        .collect();
    let mut printed = 0usize;
    if lines.is_none() {
        out.put("format: hmd\n")?;
    }
    for n in 0..=last {
        if out.closed() {
            break;
        }
        player.step()?;
        if n >= first {
            let mut f = serde_json::to_value(player.frame())?;
            if args.vertices {
                let v: Vec<Value> = vertex_sections
                    .iter()
                    .filter_map(|&(at, normals)| {
                        player.vectors(at, normals).map(|v| {
                            json!({ "section": at, "kind": if normals { "normals" } else { "vertices" }, "vectors": v })
                        })
                    })
                    .collect();
                f["vectors"] = Value::Array(v);
                f["calculated"] =
                    serde_json::to_value(hmd::calculated_vectors(h, &player, &player.frame()))?;
            }
            if let Some(l) = lines.as_deref_mut() {
                l.frame(out, &f)?;
            } else {
                // As `render_text` lays out the frames array of the whole report.
                let mut s = if printed == 0 {
                    "frames:\n".to_string()
                } else {
                    String::new()
                };
                s.push_str(&format!("  [{printed}]\n"));
                super::render_text(&f, 2, &mut s);
                out.put(&s)?;
            }
            printed += 1;
        }
        if frames.is_none() && player.finished() {
            break;
        }
    }
    // The default range stops at DEFAULT_FRAMES for an animation that never ends (a looping
    // sequence): say so rather than look like the whole animation.
    let notes: Vec<String> = if frames.is_none() && !player.finished() && !out.closed() {
        vec![format!(
            "the sequence has not ended after {DEFAULT_FRAMES} frames (it loops or runs on); printed frames 0..{}; pass --frames A..B for others",
            DEFAULT_FRAMES - 1
        )]
    } else {
        Vec::new()
    };
    if let Some(l) = lines {
        l.extra.insert("notes".into(), notes.into());
    } else {
        if printed == 0 {
            out.put("frames: []\n")?;
        }
        for n in &notes {
            note!("{}: {n}", args.file.display());
        }
    }
    Ok(())
}
