//! `retroanim play ANIM.RTM [--frames A..B | --phase P] [--step] [--skeleton MODEL.CFG] [--json]`:
//! the pose of every bone at each frame's phase (or at one phase), as
//! [`retroanim::formats::rtm::pose`] plays it. A BMTR is decoded first; `--skeleton` composes
//! its parent-relative transforms (notes go to standard error).

use anyhow::{bail, Context, Result};
use retroanim::formats::rtm::{self, Rtm};
use serde_json::json;

use super::stream::{JsonLines, Out as Stream};
use crate::cli::PlayArgs;

/// Plays an RTM already read from `args.file`: text, or JSON Lines into `lines`.
pub fn run(
    args: &PlayArgs,
    r: &Rtm,
    out: &mut Stream,
    mut lines: Option<&mut JsonLines>,
) -> Result<()> {
    if let Some(flag) =
        super::play::first_flag_not_in(args, &["--frames", "--phase", "--step", "--skeleton"])
    {
        bail!(
            "{}: {flag} is not for RTM animations (they take --frames, --phase, --step, --skeleton)",
            args.file.display()
        );
    }
    let limit = retroanim::Limits::default().max_input_bytes;
    let skeletons = super::load_skeletons(args.skeleton.as_deref(), limit)?;
    let skeleton = match &skeletons {
        None => None,
        Some(list) => {
            let names = r.bone_names();
            match rtm::skeleton::best(list, &names) {
                Some(s) => Some(s),
                None => bail!(
                    "--skeleton: none of its {} skeletons names any of the RTM's {} bones",
                    list.len(),
                    names.len()
                ),
            }
        }
    };
    let (m, notes) = r.to_mlod(skeleton);
    if lines.is_none() {
        for n in &notes {
            note!("{n}");
        }
    }
    let m = &*m;
    let opts = rtm::PlayOptions {
        with_step: args.step,
    };
    let phases: Vec<(Option<usize>, f32)> = match (args.phase, &args.frames) {
        (Some(p), _) => vec![(None, p)],
        (None, Some(range)) => {
            let (a, b) = super::play_hmd::parse_range(range)?;
            if b as usize >= m.frames.len() {
                bail!(
                    "--frames {range}: the animation has frames 0..={}",
                    m.frames.len().saturating_sub(1)
                );
            }
            (a as usize..=b as usize)
                .map(|f| (Some(f), m.frames[f].phase))
                .collect()
        }
        (None, None) => m
            .frames
            .iter()
            .enumerate()
            .map(|(f, fr)| (Some(f), fr.phase))
            .collect(),
    };
    if let Some(l) = lines.as_deref_mut() {
        l.extra.insert("bones".into(), m.bones.len().into());
        l.extra.insert("displacement".into(), json!(m.displacement));
        l.extra.insert("step".into(), args.step.into());
        if !notes.is_empty() {
            let notes: Vec<_> = notes.iter().map(super::jsonl::note).collect();
            l.extra.insert("notes".into(), notes.into());
        }
    }
    for (frame, phase) in phases {
        if out.closed() {
            break;
        }
        let pose = rtm::pose(m, phase, opts).with_context(|| args.file.display().to_string())?;
        match lines.as_deref_mut() {
            Some(l) => {
                let bones: Vec<_> = m
                    .bones
                    .iter()
                    .zip(&pose)
                    .map(|(b, mx)| json!({ "name": b.name, "matrix": mx }))
                    .collect();
                l.frame(
                    out,
                    &json!({ "frame": frame, "phase": phase, "bones": bones }),
                )?;
            }
            None => {
                let mut s = match frame {
                    Some(f) => format!("frame {f} phase {phase}\n"),
                    None => format!("phase {phase}\n"),
                };
                for (b, mx) in m.bones.iter().zip(&pose) {
                    let v: Vec<String> = mx.iter().map(|x| format!("{x:.6}")).collect();
                    s.push_str(&format!("  {:<24} {}\n", b.name, v.join(" ")));
                }
                out.put(&s)?;
            }
        }
    }
    Ok(())
}
