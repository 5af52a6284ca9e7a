//! The neutral scene → RTM: an animation's bones sampled at its key times.
//!
//! - **Bones:** the nodes the animation moves (translation, rotation or scale channels), in
//!   node order; a scene made by [`super::to_scene`] names its bones in `extras.rtm.bones`, and
//!   that order is kept.
//! - **Frames:** one per distinct key time of the channels that move the bones (theirs and
//!   their ancestors'); phase = (time − start) /
//!   duration, where start is [`AuthorOptions::start`] (default 0) and the duration is
//!   [`AuthorOptions::duration`], else `extras.rtm.duration`, else the last key time − start
//!   (so the last frame is at phase 1). Key times outside start ..= start + duration are left
//!   out (a note), and the poses at both ends are sampled instead, so the frames span 0..1.
//! - **Matrices:** each bone's world matrix at the frame's time (every ancestor's transform
//!   included), x negated back into the RTM's axes; with [`Rest::Bind`] times the bone's
//!   inverse bind matrix, the matrix glTF skinning applies.
//! - **Displacement and `RTM_MDAT` properties:** from `extras.rtm` when present, else zero and
//!   none.

use super::scene::{affine_inverse, from_scene_matrix};
use super::{BoneTransform, Frame, Mdat, Mlod, Name32, Property};
use crate::report::Note;
use crate::scene::sample::{mat_mul, Mat4, Sampler};
use crate::scene::{Scene, Track};
use crate::{Error, Format, Result};

/// How to author.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct AuthorOptions {
    /// Which animation (default 0).
    pub animation: usize,
    /// Seconds that phase 0..1 lasts.
    pub duration: Option<f32>,
    /// The animation time (seconds) of phase 0 (default 0).
    pub start: Option<f32>,
    /// What the matrices are relative to (default: [`Rest::default_for`]).
    pub rest: Option<Rest>,
}

/// The pose an RTM's matrices are relative to. An RTM matrix moves the model's rest-pose
/// vertices in model space: identity means "at rest".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rest {
    /// The bones' world matrices as they are: the model's rest has every bone at the origin
    /// (identity), as [`super::to_scene`] exports an RTM (identity inverse bind matrices),
    /// also after an editor re-binds the skeleton at another pose (Blender binds it at the
    /// first frame).
    Origin,
    /// Each bone's world matrix times its inverse bind matrix (from the first skin listing it
    /// as a joint; for a bone that is no joint, the inverse of its world matrix at rest, the
    /// nodes' own transforms): the matrix skinning applies, relative to the pose the mesh was
    /// bound in — a skeleton built in an editor, its mesh at the model's rest.
    Bind,
}

impl Rest {
    /// [`Rest::Origin`] when the scene records an RTM (`extras.rtm`, written by
    /// [`super::to_scene`] and kept by Blender's glTF importer and exporter), else
    /// [`Rest::Bind`].
    pub fn default_for(scene: &Scene) -> Rest {
        if scene.extras.get("rtm").is_some() {
            Rest::Origin
        } else {
            Rest::Bind
        }
    }
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
    // The nodes whose keys move a bone: the bones and their ancestors.
    let mut moving = vec![false; scene.nodes.len()];
    for &b in &bones {
        let mut n = Some(b);
        // Bounded by the node count: a cycle (which Scene::check refuses) cannot loop.
        for _ in 0..scene.nodes.len() {
            let Some(k) = n.filter(|&k| moving.get(k) == Some(&false)) else {
                break;
            };
            moving[k] = true;
            n = scene.nodes[k].parent;
        }
    }
    let times: Vec<f32> = anim
        .channels
        .iter()
        .filter(|c| {
            moving.get(c.node).copied().unwrap_or(false)
                && !matches!(c.track, Track::Weights(_) | Track::Visibility(_))
        })
        .flat_map(|c| c.times.iter().copied())
        .collect();
    let recorded = extras
        .and_then(|e| e.get("duration"))
        .and_then(|d| d.as_f64())
        .map(|d| d as f32)
        .filter(|d| d.is_finite() && *d > 0.0);
    let keys = frame_times(times, opts, recorded, &mut notes)?;
    let rest = opts.rest.unwrap_or_else(|| Rest::default_for(scene));
    let binds = inverse_binds(scene, &bones, rest, &mut notes);
    let sampler = Sampler::new(scene, Some(anim));
    let mut frames = Vec::with_capacity(keys.len());
    for &(t, phase) in &keys {
        let mut transforms = Vec::with_capacity(bones.len());
        for (&b, bind) in bones.iter().zip(&binds) {
            let mut world = world_at(&sampler, scene, b, t);
            if let Some(ibm) = bind {
                world = mat_mul(&world, ibm);
            }
            transforms.push(BoneTransform {
                bone: Name32::new(scene.nodes[b].name.clone()),
                matrix: from_scene_matrix(&world),
            });
        }
        frames.push(Frame { phase, transforms });
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
    // The older header only where the export recorded it and the step still fits it.
    let v0100 = extras.and_then(|e| e.get("form")).and_then(|f| f.as_str()) == Some("RTM_0100")
        && displacement[..2] == [0.0, 0.0];
    let mlod = Mlod {
        mdat,
        displacement,
        v0100,
        bones: bones
            .iter()
            .map(|&b| Name32::new(scene.nodes[b].name.clone()))
            .collect(),
        frames,
    };
    Ok((mlod, notes))
}

/// The frames' (time, phase) pairs: every distinct finite key time within start ..= start +
/// duration (a key a millionth of the duration outside still counts, its phase clamped), in
/// order; when keys fall outside, the two ends instead of them (a note); no key at all, one
/// frame at start. Phases that round to the same value give one frame.
fn frame_times(
    mut times: Vec<f32>,
    opts: &AuthorOptions,
    recorded: Option<f32>,
    notes: &mut Vec<Note>,
) -> Result<Vec<(f32, f32)>> {
    let start = opts.start.unwrap_or(0.0);
    if !start.is_finite() {
        return Err(unencodable(format!("start time {start}: not a number")));
    }
    if let Some(d) = opts.duration.filter(|d| !(d.is_finite() && *d > 0.0)) {
        return Err(unencodable(format!("duration {d}: not a positive number")));
    }
    times.retain(|t| t.is_finite());
    times.sort_by(f32::total_cmp);
    times.dedup();
    let last = times.last().copied().unwrap_or(start);
    let duration =
        opts.duration
            .or(recorded)
            .unwrap_or(if last > start { last - start } else { 1.0 });
    let slack = duration * 1e-6;
    let end = start + duration;
    let before = times.len();
    times.retain(|&t| t >= start - slack && t <= end + slack);
    let outside = before - times.len();
    if before == 0 {
        times.push(start);
    } else if outside > 0 {
        times.extend([start, end]);
        times.sort_by(f32::total_cmp);
        times.dedup();
    }
    if outside > 0 {
        notes.push(Note {
            code: "keys-outside",
            message: format!(
                "{outside} key times outside {start} ..= {end} s (phase 0..1) left out; the poses at both ends are sampled instead"
            ),
        });
    }
    let mut keys: Vec<(f32, f32)> = Vec::with_capacity(times.len());
    for t in times {
        let phase = (((t as f64 - start as f64) / duration as f64) as f32).clamp(0.0, 1.0);
        if keys.last().map_or(true, |&(_, p)| p < phase) {
            keys.push((t, phase));
        }
    }
    Ok(keys)
}

/// `node`'s world matrix at time `t` (every ancestor's transform included).
fn world_at(sampler: &Sampler, scene: &Scene, node: usize, t: f32) -> Mat4 {
    let mut world = sampler.local(node, t).matrix();
    let mut p = scene.nodes[node].parent;
    // Bounded by the node count: a cycle (which Scene::check refuses) cannot loop.
    for _ in 0..scene.nodes.len() {
        let Some(k) = p else { break };
        world = mat_mul(&sampler.local(k, t).matrix(), &world);
        p = scene.nodes.get(k).and_then(|n| n.parent);
    }
    world
}

/// Each bone's inverse bind matrix under [`Rest::Bind`] (`None`: identity, under
/// [`Rest::Origin`]): from the first skin listing it as a joint (a note counts bones whose
/// skins disagree), else the inverse of its world matrix at rest (the nodes' own transforms).
fn inverse_binds(
    scene: &Scene,
    bones: &[usize],
    rest: Rest,
    notes: &mut Vec<Note>,
) -> Vec<Option<Mat4>> {
    if rest == Rest::Origin {
        return vec![None; bones.len()];
    }
    let at_rest = Sampler::new(scene, None);
    let mut disagree = 0;
    let binds = bones
        .iter()
        .map(|&b| {
            let mut found = scene.skins.iter().filter_map(|s| {
                let k = s.joints.iter().position(|&j| j == b)?;
                Some(s.inverse_bind_matrices.get(k).copied().unwrap_or(IDENTITY))
            });
            let Some(first) = found.next() else {
                return Some(affine_inverse(&world_at(&at_rest, scene, b, 0.0)));
            };
            if found.any(|m| m.iter().zip(&first).any(|(a, b)| (a - b).abs() > 1e-6)) {
                disagree += 1;
            }
            Some(first.map(f64::from))
        })
        .collect();
    if disagree > 0 {
        notes.push(Note {
            code: "skins-disagree",
            message: format!(
                "{disagree} bones are joints of skins with different inverse bind matrices: the first skin's are used"
            ),
        });
    }
    binds
}

const IDENTITY: [f32; 16] = [
    1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0,
];
