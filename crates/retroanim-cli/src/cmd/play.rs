//! `retroanim play FILE ...`: dispatches on the file's format. TOD here:
//! `retroanim play ANIM.TOD [--tmd MODEL.TMD] [--after A.TOD]... [--frame N | --frames A..B] [--json]`;
//! HMD in `play_hmd.rs`.

use anyhow::{bail, Context, Result};
use retroanim::formats::tod;
use retroanim::{Limits, Model};

use super::stream::{JsonLines, Out as Stream};

use crate::cli::PlayArgs;
use crate::Outcome;

/// Ticks printed at most when no range is given (18 minutes at 60 ticks a second).
const DEFAULT_MAX_TICKS: u64 = 65_536;

pub fn run(args: &PlayArgs) -> Result<Outcome> {
    let mut out = Stream::stdout();
    let result = if args.json {
        let mut lines = JsonLines::new(args.file.display().to_string());
        let r = play(args, &mut out, Some(&mut lines));
        lines.finish(&mut out, r)
    } else {
        play(args, &mut out, None)
    };
    out.finish()?;
    result.map(|_| Outcome::Clean)
}

/// Plays `args.file`, printing text, or JSON Lines into `lines`.
fn play(args: &PlayArgs, out: &mut Stream, mut lines: Option<&mut JsonLines>) -> Result<()> {
    if let Some(format) = super::play_mime::diff_format(&args.file)? {
        return super::play_mime::run(args, format, out, lines);
    }
    if !args.keys.weights.is_empty() {
        bail!(
            "{}: --weights is for MIMe difference files (VDF, NDF) with --tmd; HMD MIMe takes --mime-weights",
            args.file.display()
        );
    }
    let (_, model) = super::load(&args.file)?;
    if let Some(l) = lines.as_deref_mut() {
        l.set_format(model.format());
    }
    if !matches!(model, Model::Rtm(_)) && (args.phase.is_some() || args.step) {
        bail!(
            "{}: --phase and --step are for RTM animations; this is a {}",
            args.file.display(),
            model.format()
        );
    }
    let anim = match model {
        Model::Tod(anim) => anim,
        Model::Hmd(h) => return super::play_hmd::run(args, &h, out, lines),
        Model::Rtm(r) => return super::play_rtm::run(args, &r, out, lines),
        other => bail!(
            "{}: a {} file; play needs a TOD, HMD or RTM animation",
            args.file.display(),
            other.format()
        ),
    };
    // --phase, --step and --weights were refused above.
    let tod_takes = [
        "--tmd",
        "--after",
        "--frame",
        "--frames",
        "--phase",
        "--step",
        "--weights",
    ];
    if let Some(flag) = first_flag_not_in(args, &tod_takes) {
        bail!(
            "{}: {flag} is for HMD animations; this is a TOD",
            args.file.display()
        );
    }
    let model_tmd = super::load_tmd(args.tmd.as_deref())?;
    let (from, to) = range(args)?;
    let before = super::load_tods(&args.after)?;
    let mut player = tod::Player::after(&before, &anim, model_tmd.as_ref());
    // Output is one pose per tick from `from` to `to` or the tick of the last frame, whichever
    // comes first: bounded by the limits, as the poses stream out one by one.
    let printed = player.walk_ticks(from, Some(to));
    // Without --frames the file's own last frame number sets the range, and one word of a small
    // file can claim millions of frames: beyond DEFAULT_MAX_TICKS the range must be asked for.
    if args.frames.is_none() && args.frame.is_none() && printed > DEFAULT_MAX_TICKS {
        bail!(
            "{}: the animation runs {printed} ticks (its last frame is number {}), past the default range's limit of {DEFAULT_MAX_TICKS}; pass --frames A..B",
            args.file.display(),
            anim.frames.last().map_or(0, |f| f.number)
        );
    }
    player
        .check_walk(from, Some(to), &Limits::default())
        .with_context(|| match &args.frames {
            Some(r) => format!("{}: --frames {r}", args.file.display()),
            None => format!("{}: pass --frames A..B", args.file.display()),
        })?;
    player.seek(from);
    // A single frame the animation never reaches is an error naming the range, not an empty
    // listing (checked before anything is printed).
    if let (Some(n), true) = (args.frame, player.frame() < from) {
        bail!(
            "--frame {n}: the animation has frames {}..={}",
            anim.frames.first().map_or(0, |f| f.number),
            player.frame()
        );
    }
    if let Some(l) = lines.as_deref_mut() {
        l.extra
            .insert("resolution".into(), anim.header.resolution.into());
        l.extra.insert(
            "seconds_per_frame".into(),
            (anim.ticks_per_frame() as f64 / 60.0).into(),
        );
    }
    while player.frame() <= to && !out.closed() {
        if player.frame() >= from {
            let p = player.pose();
            match lines.as_deref_mut() {
                Some(l) => l.frame(out, &p)?,
                None => out.put(&pose_text(&p)?)?,
            }
        }
        if !player.advance() {
            break;
        }
    }
    match lines {
        Some(l) => {
            l.extra.insert("notes".into(), player.notes().into());
        }
        None => {
            for n in player.notes() {
                eprintln!("{}: note: {n}", args.file.display());
            }
        }
    }
    Ok(())
}

/// One pose as text lines.
fn pose_text(p: &tod::Pose) -> Result<String> {
    let mut text = format!(
        "frame {} ({:.3} s): {} objects\n",
        p.frame,
        p.time,
        p.objects.len()
    );
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
    Ok(text)
}

/// The inclusive frame range to print.
fn range(args: &PlayArgs) -> Result<(u32, u32)> {
    if let Some(n) = args.frame {
        return Ok((n, n));
    }
    let Some(s) = &args.frames else {
        return Ok((0, u32::MAX));
    };
    let (a, b) = super::frame_range(s)?;
    Ok((a, b.unwrap_or(u32::MAX)))
}

/// The first of `play`'s flags given on the command line that is not in `takes` (each kind of
/// file takes its own), as `--flag`.
pub(super) fn first_flag_not_in(args: &PlayArgs, takes: &[&str]) -> Option<&'static str> {
    [
        ("--tmd", args.tmd.is_some()),
        ("--after", !args.after.is_empty()),
        ("--frame", args.frame.is_some()),
        ("--frames", args.frames.is_some()),
        ("--sequence", args.sequence.is_some()),
        ("--stream-id", args.stream_id.is_some()),
        ("--speed", args.speed.is_some()),
        ("--intr-idx", args.intr_idx.is_some()),
        ("--aframe", args.aframe.is_some()),
        ("--mime-weights", !args.mime_weights.is_empty()),
        ("--weights", !args.keys.weights.is_empty()),
        ("--vertices", args.vertices),
        ("--phase", args.phase.is_some()),
        ("--step", args.step),
        ("--skeleton", args.skeleton.is_some()),
    ]
    .into_iter()
    .find(|(flag, given)| *given && !takes.contains(flag))
    .map(|(flag, _)| flag)
}
