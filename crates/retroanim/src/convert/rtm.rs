//! RTM ↔ glTF: [`crate::formats::rtm::to_scene`] and [`crate::formats::rtm::from_scene`] behind
//! the option table.
//!
//! - RTM → glTF/GLB: one joint per bone, flat or under `--skeleton` (a `model.cfg`'s
//!   `CfgSkeletons`; the skeleton naming most of the RTM's bones is used), one animation of
//!   phase × `--duration` seconds (default 1).
//! - glTF/GLB → RTM: the first animation (or `--animation N`), its bones' world matrices at
//!   every key time; phase = time / `--duration` (default: the duration the RTM export
//!   recorded, else the last key time).

use super::author::{imported_notes, other_animations, pick_animation};
use super::{done_notes, refuse_invalid, Conversion, OptionName as O, Options};
use crate::error::{Error, Result};
use crate::formats::rtm::{self, skeleton, Rtm};
use crate::{Format, Model};

/// RTM → glTF or GLB.
pub(super) fn to_gltf(
    model: &Model,
    r: &Rtm,
    target: Format,
    opts: &Options,
) -> Result<Conversion> {
    opts.check(Format::Rtm, target, &[O::Duration, O::Skeleton])?;
    let m = r.mlod()?;
    refuse_invalid(model)?;
    let names: Vec<&str> = m.bones.iter().map(|b| b.name.as_str()).collect();
    let mut notes = Vec::new();
    let skeleton = match &opts.rtm.skeletons {
        None => None,
        Some(list) => match skeleton::best(list, &names) {
            Some(s) => Some(s),
            None => {
                return Err(super::option_error(
                    O::Skeleton,
                    format!(
                        "none of its {} skeletons names any of the RTM's {} bones",
                        list.len(),
                        names.len()
                    ),
                ))
            }
        },
    };
    let (scene, scene_notes) = rtm::to_scene(
        m,
        &rtm::SceneOptions {
            duration: opts.timing.duration,
            skeleton,
            name: opts.name.clone(),
        },
    )?;
    notes.extend(scene_notes);
    Ok(done_notes(
        crate::export::gltf::write(&scene, target)?,
        target,
        notes,
    ))
}

/// glTF or GLB → RTM.
pub(super) fn gltf_to_rtm(data: &[u8], from: Format, opts: &Options) -> Result<Conversion> {
    opts.check(from, Format::Rtm, &[O::Duration, O::Animation])?;
    let imported = crate::import::gltf::read(data, &opts.limits)?;
    let s = &imported.scene;
    let mut notes = imported_notes(&imported);
    let Some(ai) = pick_animation(s, opts.animation)? else {
        return Err(Error::Unencodable {
            format: Format::Rtm,
            what: "the glTF has no animation: nothing to write as RTM frames".into(),
        });
    };
    notes.extend(other_animations(s, ai));
    let (mlod, author_notes) = rtm::from_scene(
        s,
        &rtm::AuthorOptions {
            animation: ai,
            duration: opts.timing.duration,
        },
    )?;
    notes.extend(author_notes);
    Ok(done_notes(
        rtm::write(&Rtm::Mlod(mlod))?,
        Format::Rtm,
        notes,
    ))
}
