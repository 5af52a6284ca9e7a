//! RTM ↔ glTF: [`crate::formats::rtm::to_scene`] and [`crate::formats::rtm::from_scene`] behind
//! the option table.
//!
//! - RTM → glTF/GLB: one joint per bone, flat or under `--skeleton` (a `model.cfg`'s
//!   `CfgSkeletons`; the skeleton naming most of the RTM's bones is used), one animation of
//!   phase × `--duration` seconds (default 1). With `--p3d model.p3d` (MLOD or ODOL) one LOD
//!   (`--lod`, default the first whose named selections — or an Arma ODOL's skeleton bones —
//!   name a bone) is added as a mesh skinned to the joints
//!   ([`crate::formats::rtm::skinned_scene`]); without `--skeleton`, an Arma ODOL's own
//!   skeleton, when it names a bone, gives the hierarchy. A BMTR is decoded first
//!   ([`crate::formats::rtm::Rtm::to_mlod`]): its parent-relative transforms are composed
//!   through the same skeleton.
//! - glTF/GLB → RTM: the first animation (or `--animation N`), its bones' world matrices at
//!   every key time (with `--rest bind` times their inverse bind matrices; the default is
//!   [`crate::formats::rtm::Rest::default_for`]); phase = (time − `--start`) / `--duration`
//!   (default: start 0, the duration the RTM export recorded, else the last key time − start).

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
    if opts.p3d.lod.is_some() && opts.rtm.p3d.is_none() {
        return Err(super::option_error(
            O::Lod,
            "applies to RTM → glTF only with --p3d (it picks the model's LOD to skin)".into(),
        ));
    }
    opts.check(
        Format::Rtm,
        target,
        &[O::Duration, O::Skeleton, O::P3d, O::Lod],
    )?;
    refuse_invalid(model)?;
    let names = r.bone_names();
    let mut notes = Vec::new();
    let own = odol_skeleton(opts, &names);
    if let Some(s) = &own {
        notes.push(super::Note {
            code: "skeleton-from-p3d",
            message: format!(
                "the bone hierarchy is the --p3d model's skeleton \"{}\" ({} of its {} bones are the RTM's)",
                s.name,
                s.covers(&names),
                s.bones.len()
            ),
        });
    }
    let skeleton = match &opts.rtm.skeletons {
        None => own.as_ref(),
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
    // A BMTR's transforms are parent-relative: the skeleton places them too.
    let (m, decode_notes) = r.to_mlod(skeleton);
    let m = &*m;
    notes.extend(decode_notes);
    let scene_opts = rtm::SceneOptions {
        duration: opts.timing.duration,
        skeleton,
        name: opts.name.clone(),
    };
    let (scene, scene_notes) = match &opts.rtm.p3d {
        None => rtm::to_scene(m, &scene_opts)?,
        Some(p3d) => {
            let lod = skinned_lod(m, p3d, opts, &mut notes)?;
            rtm::skinned_scene(m, p3d, lod, &scene_opts)?
        }
    };
    notes.extend(scene_notes);
    Ok(done_notes(
        crate::export::gltf::write(&scene, target)?,
        target,
        notes,
    ))
}

/// Without `--skeleton`: the skeleton of an Arma ODOL given with `--p3d`, when it names at
/// least one of the RTM's bones.
fn odol_skeleton(opts: &Options, names: &[&str]) -> Option<rtm::Skeleton> {
    use crate::formats::p3d::P3d;
    let (None, Some(P3d::Odol(o))) = (&opts.rtm.skeletons, &opts.rtm.p3d) else {
        return None;
    };
    let s = o.skeleton().ok().flatten()?;
    let text = |t: &crate::formats::p3d::Text| t.lossy();
    let s = rtm::Skeleton {
        name: text(&s.name),
        bones: s.bones.iter().map(|(b, p)| (text(b), text(p))).collect(),
    };
    (s.covers(names) > 0).then_some(s)
}

/// The LOD of `p3d` to skin: `--lod`, else the first whose named selections name a bone (with a
/// note when others do too).
fn skinned_lod(
    m: &rtm::Mlod,
    p3d: &crate::formats::p3d::P3d,
    opts: &Options,
    notes: &mut Vec<super::Note>,
) -> Result<usize> {
    let skinnable = rtm::skinnable_lods(m, p3d);
    let resolutions: Vec<f32> = (0..p3d.lod_count()).map(|i| p3d.resolution(i)).collect();
    let some_bones = || {
        let names: Vec<&str> = m.bones.iter().take(3).map(|b| b.name.as_str()).collect();
        format!(
            "{}{}",
            names.join(", "),
            if m.bones.len() > 3 { ", …" } else { "" }
        )
    };
    let Some(&first) = skinnable.first() else {
        return Err(super::option_error(
            O::P3d,
            format!(
                "no named selection of its {} LODs is named after one of the RTM's {} bones ({}): nothing to skin",
                resolutions.len(),
                m.bones.len(),
                some_bones()
            ),
        ));
    };
    let lod = super::p3d::lod_index(
        opts.p3d.lod,
        first,
        |r| p3d.find_lod(r),
        resolutions.iter().copied(),
    )?;
    if !skinnable.contains(&lod) {
        let name = |i: usize| crate::formats::p3d::lod_name(resolutions[i]);
        return Err(super::option_error(
            O::Lod,
            format!(
                "LOD {lod} ({}) has no named selection named after one of the RTM's bones ({}); the LODs that do: {}",
                name(lod),
                some_bones(),
                skinnable.iter().map(|&i| name(i)).collect::<Vec<_>>().join(", ")
            ),
        ));
    }
    if opts.p3d.lod.is_none() && skinnable.len() > 1 {
        let name = |i: usize| crate::formats::p3d::lod_name(resolutions[i]);
        notes.push(super::Note {
            code: "other-lods",
            message: format!(
                "LOD {lod} ({}) is skinned; {} other LODs name the bones too and are left out ({}): pass --lod for another",
                name(lod),
                skinnable.len() - 1,
                skinnable[1..].iter().map(|&i| name(i)).collect::<Vec<_>>().join(", ")
            ),
        });
    }
    Ok(lod)
}

/// glTF or GLB → RTM.
pub(super) fn gltf_to_rtm(data: &[u8], from: Format, opts: &Options) -> Result<Conversion> {
    opts.check(
        from,
        Format::Rtm,
        &[O::Duration, O::Animation, O::Start, O::Rest],
    )?;
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
            start: opts.timing.start,
            rest: opts.rtm.rest,
        },
    )?;
    notes.extend(author_notes);
    Ok(done_notes(
        rtm::write(&Rtm::Mlod(mlod))?,
        Format::Rtm,
        notes,
    ))
}
