//! The neutral scene → RTM: an animation's bones sampled at its key times.
//!
//! - **Bones:** the nodes the animation moves (translation, rotation or scale channels), in
//!   node order; a scene made by [`super::to_scene`] names its bones in `extras.rtm.bones`, and
//!   that order is kept.
//! - **Frames:** one per distinct key time of those channels; phase = time / duration, where
//!   the duration is [`AuthorOptions::duration`], else `extras.rtm.duration`, else the last key
//!   time (so the last frame is at phase 1).
//! - **Matrices:** each bone's world matrix at the frame's time (every ancestor's transform
//!   included), x negated back into the RTM's axes.
//! - **Displacement and `RTM_MDAT` properties:** from `extras.rtm` when present, else zero and
//!   none.

use super::scene::from_scene_matrix;
use super::{BoneTransform, Frame, Mdat, Mlod, Name32, Property};
use crate::report::Note;
use crate::scene::sample::{mat_mul, Sampler};
use crate::scene::{Scene, Track};
use crate::{Error, Format, Result};

/// How to author.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct AuthorOptions {
    /// Which animation (default 0).
    pub animation: usize,
    /// Seconds that phase 0..1 lasts.
    pub duration: Option<f32>,
}

fn unencodable(what: String) -> Error {
    Error::Unencodable {
        format: Format::Rtm,
        what,
    }
}

/// An RTM of one of `scene`'s animations, with notes on what it leaves out.
pub fn from_scene(scene: &Scene, opts: &AuthorOptions) -> Result<(Mlod, Vec<Note>)> {
    let Some(anim) = scene.animations.get(opts.animation) else {
        return Err(unencodable(format!(
            "the scene has {} animations, there is no animation {}",
            scene.animations.len(),
            opts.animation
        )));
    };
    let extras = scene.extras.get("rtm");
    let mut notes = Vec::new();
    let mut moved = vec![false; scene.nodes.len()];
    let mut other = 0;
    for c in &anim.channels {
        match c.track {
            Track::Translation(_) | Track::Rotation(_) | Track::Scale(_) => {
                if let Some(m) = moved.get_mut(c.node) {
                    *m = true;
                }
            }
            _ => other += 1,
        }
    }
    if other > 0 {
        notes.push(Note {
            code: "channels-dropped",
            message: format!(
                "{other} morph-weight or visibility channels left out: an RTM moves bones only"
            ),
        });
    }
    // The outer node of a sheared bone (see `super::scene`) is not a bone of its own.
    let stretch = |n: usize| scene.nodes[n].extras.get("rtm_stretch").is_some();
    let mut bones: Vec<usize> = (0..scene.nodes.len())
        .filter(|&n| moved[n] && !stretch(n))
        .collect();
    if let Some(list) = extras
        .and_then(|e| e.get("bones"))
        .and_then(|b| b.as_array())
    {
        let named: Option<Vec<usize>> = list
            .iter()
            .map(|v| {
                let name = v.as_str()?;
                scene.nodes.iter().position(|n| n.name == name)
            })
            .collect();
        if let Some(named) = named {
            if !named.is_empty() {
                bones = named;
            }
        }
    }
    if bones.is_empty() {
        return Err(unencodable(format!(
            "animation {} {:?} moves no node: nothing to write as bones",
            opts.animation, anim.name
        )));
    }
    let mut times: Vec<f32> = anim
        .channels
        .iter()
        .filter(|c| {
            bones.contains(&c.node) && !matches!(c.track, Track::Weights(_) | Track::Visibility(_))
        })
        .flat_map(|c| c.times.iter().copied())
        .filter(|t| t.is_finite())
        .collect();
    times.sort_by(f32::total_cmp);
    times.dedup();
    if times.is_empty() {
        times.push(0.0);
    }
    let last = *times.last().unwrap_or(&0.0);
    let duration = opts
        .duration
        .or_else(|| {
            extras
                .and_then(|e| e.get("duration"))
                .and_then(|d| d.as_f64())
                .map(|d| d as f32)
                .filter(|d| d.is_finite() && *d > 0.0)
        })
        .unwrap_or(if last > 0.0 { last } else { 1.0 });
    let sampler = Sampler::new(scene, Some(anim));
    let mut frames = Vec::with_capacity(times.len());
    for &t in &times {
        let mut transforms = Vec::with_capacity(bones.len());
        for &b in &bones {
            let mut world = sampler.local(b, t).matrix();
            let mut p = scene.nodes[b].parent;
            // Bounded by the node count: a cycle (which Scene::check refuses) cannot loop.
            for _ in 0..scene.nodes.len() {
                let Some(k) = p else { break };
                world = mat_mul(&sampler.local(k, t).matrix(), &world);
                p = scene.nodes.get(k).and_then(|n| n.parent);
            }
            transforms.push(BoneTransform {
                bone: Name32::new(scene.nodes[b].name.clone()),
                matrix: from_scene_matrix(&world),
            });
        }
        frames.push(Frame {
            phase: (t as f64 / duration as f64) as f32,
            transforms,
        });
    }
    let displacement = extras
        .and_then(|e| e.get("displacement"))
        .and_then(|d| serde_json::from_value::<[f32; 3]>(d.clone()).ok())
        .unwrap_or([0.0; 3]);
    let mdat = extras.and_then(|e| e.get("mdat")).and_then(|d| {
        let reserved = d.get("reserved")?.as_u64()? as u32;
        let properties = d
            .get("properties")?
            .as_array()?
            .iter()
            .map(|p| {
                Some(Property {
                    phase: p.get("phase")?.as_f64()? as f32,
                    name: p.get("name")?.as_str()?.to_string(),
                    value: p.get("value")?.as_str()?.to_string(),
                })
            })
            .collect::<Option<Vec<_>>>()?;
        Some(Mdat {
            reserved,
            properties,
        })
    });
    let mlod = Mlod {
        mdat,
        displacement,
        bones: bones
            .iter()
            .map(|&b| Name32::new(scene.nodes[b].name.clone()))
            .collect(),
        frames,
    };
    Ok((mlod, notes))
}
