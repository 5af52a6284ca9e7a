//! `retroanim play FILE ...`: dispatches on the file's format. TOD here:
//! `retroanim play ANIM.TOD [--tmd MODEL.TMD] [--after A.TOD]... [--frame N | --frames A..B] [--json]`;
//! HMD in `play_hmd.rs`.

use anyhow::{anyhow, bail, Context, Result};
use retroanim::formats::tod;
use retroanim::{Limits, Model};
use serde_json::json;

use crate::cli::PlayArgs;
use crate::Outcome;

pub fn run(args: &PlayArgs) -> Result<Outcome> {
    let (_, model) = super::load(&args.file)?;
    let anim = match model {
        Model::Tod(anim) => anim,
        Model::Hmd(h) => return super::play_hmd::run(args, &h),
        other => bail!(
            "{}: a {} file; play needs a TOD or HMD animation",
            args.file.display(),
            other.format()
        ),
    };
    let hmd_only = [
        ("--sequence", args.sequence.is_some()),
        ("--stream-id", args.stream_id.is_some()),
        ("--speed", args.speed.is_some()),
        ("--mime-weights", !args.mime_weights.is_empty()),
        ("--vertices", args.vertices),
    ];
    if let Some((flag, _)) = hmd_only.iter().find(|(_, given)| *given) {
        bail!(
            "{}: {flag} is for HMD animations; this is a TOD",
            args.file.display()
        );
    }
    let model_tmd = super::load_tmd(args.tmd.as_deref())?;
    let (from, to) = range(args)?;
    let before = super::load_tods(&args.after)?;
    let mut player = None::<tod::Player>;
    for t in &before {
        let mut p = match player.take() {
            None => tod::Player::new(t, model_tmd.as_ref()),
            Some(p) => p.then(t),
        };
        while p.advance() {}
        player = Some(p);
    }
    let mut player = match player {
        None => tod::Player::new(&anim, model_tmd.as_ref()),
        Some(p) => p.then(&anim),
    };
    if args.frame.is_none() && args.frames.is_none() {
        Limits::default()
            .steps("playback ticks", player.tick_bound())
            .with_context(|| format!("{}: pass --frames A..B", args.file.display()))?;
    }
    player.seek(from);
    let mut poses = Vec::new();
    while player.frame() <= to {
        if player.frame() >= from {
            poses.push(player.pose());
        }
        if !player.advance() {
            break;
        }
    }
    if let (Some(n), true) = (args.frame, poses.is_empty()) {
        bail!(
            "--frame {n}: the animation has frames {}..={}",
            anim.frames.first().map_or(0, |f| f.number),
            player.frame()
        );
    }
    if args.json {
        let out = json!({
            "file": args.file.display().to_string(),
            "resolution": anim.header.resolution,
            "seconds_per_frame": anim.ticks_per_frame() as f64 / 60.0,
            "frames": poses,
            "notes": player.notes(),
        });
        super::emit(&format!("{}\n", serde_json::to_string_pretty(&out)?))?;
    } else {
        let mut text = String::new();
        for p in &poses {
            text.push_str(&format!(
                "frame {} ({:.3} s): {} objects\n",
                p.frame,
                p.time,
                p.objects.len()
            ));
            for o in &p.objects {
                text.push_str(&format!(
                    "  object {} tmd {} parent {} {} world t {:?} m {:?}\n",
                    o.id,
                    o.tmd_id.map_or("-".into(), |v| v.to_string()),
                    o.parent.map_or("-".into(), |v| v.to_string()),
                    if o.visible { "visible" } else { "hidden" },
                    o.world.t,
                    o.world.m
                ));
            }
            for l in &p.lights {
                text.push_str(&format!(
                    "  light {} direction {:?} colour {:?}\n",
                    l.id, l.direction, l.color
                ));
            }
            for c in &p.cameras {
                text.push_str(&format!("  camera {}\n", serde_json::to_string(c)?));
            }
        }
        super::emit(&text)?;
        for n in player.notes() {
            eprintln!("{}: note: {n}", args.file.display());
        }
    }
    Ok(Outcome::Clean)
}

/// The inclusive frame range to print.
fn range(args: &PlayArgs) -> Result<(u32, u32)> {
    if let Some(n) = args.frame {
        return Ok((n, n));
    }
    let Some(s) = &args.frames else {
        return Ok((0, u32::MAX));
    };
    let (a, b) = s
        .split_once("..")
        .ok_or_else(|| anyhow!("--frames {s}: expected A..B"))?;
    let parse = |v: &str, default: u32| -> Result<u32> {
        if v.is_empty() {
            Ok(default)
        } else {
            v.trim_start_matches('=')
                .parse()
                .map_err(|_| anyhow!("--frames {s}: {v:?} is not a frame number"))
        }
    };
    let (a, b) = (parse(a, 0)?, parse(b, u32::MAX)?);
    if a > b {
        bail!("--frames {s}: the range is empty");
    }
    Ok((a, b))
}
