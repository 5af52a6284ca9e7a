//! glTF / GLB → the console's formats: the scene read by [`crate::import::gltf`], written by
//! [`crate::formats::tmd::author`], [`crate::formats::tod::author`] and
//! [`crate::formats::hmd::author`].
//!
//! - glTF → HMD: the node hierarchy as coordinates, each node's mesh as the polygons of its
//!   block, textures as image primitives, every animation as one key-frame sequence (`--fps`:
//!   frames per second that key times are counted in, default 60); one file, nothing extra.
//!
//! - glTF → TMD: one TMD object per node that shows a mesh, its vertices moved to the node's
//!   rest position (a TMD holds no transforms); the textures as TIMs in [`Conversion::extra`].
//! - glTF → TOD: the first animation (or `--animation N`), one TOD object per node. Without `--tmd` the model is
//!   written too (one TMD object per mesh, in the mesh's own space: TMD ID *k* + 1 is mesh *k*)
//!   as an extra `.tmd` with its TIMs; with `--tmd MODEL` the TOD's TMD IDs name that model's
//!   objects in mesh order.

use super::{option_error, Axes, Conversion, Extra, Note, OptionName, Options};
use crate::error::Result;
use crate::formats::hmd::author::{self as hmd_author, HmdAuthorOptions};
use crate::formats::tmd::author::{self as tmd_author, AuthorOptions};
use crate::formats::tmd::scene as psx;
use crate::formats::tod::author::{self as tod_author, TodAuthorOptions};
use crate::formats::{hmd, tim, tmd, tod};
use crate::Format;

/// Converts a glTF or GLB file to TMD, TOD or HMD.
pub(super) fn gltf_to_psx(
    data: &[u8],
    from: Format,
    target: Format,
    opts: &Options,
) -> Result<Conversion> {
    use OptionName as O;
    match target {
        Format::Tmd => opts.check(from, target, &[O::Axes, O::Scale])?,
        Format::Tod => opts.check(
            from,
            target,
            &[O::Axes, O::Scale, O::Tmd, O::Resolution, O::Animation],
        )?,
        Format::Hmd => opts.check(from, target, &[O::Axes, O::Scale, O::Fps])?,
        _ => return Err(super::no_such(from, target)),
    }
    let imported = crate::import::gltf::read(data, &opts.limits)?;
    let scene = &imported.scene;
    let mut notes = imported_notes(&imported);
    let axes = match opts.geometry.axes.unwrap_or_default() {
        Axes::Default => psx::Axes::YUp,
        Axes::Raw => psx::Axes::Raw,
    };
    let scale = opts.geometry.scale.unwrap_or(psx::DEFAULT_SCALE);
    let model_opts = AuthorOptions {
        axes,
        scale,
        by_joint: false,
    };
    let tims = |suffix: &str, tims: &[tim::Tim]| -> Result<Vec<Extra>> {
        tims.iter()
            .enumerate()
            .map(|(k, t)| {
                Ok(Extra {
                    suffix: format!("{suffix}_{k}.tim"),
                    format: Format::Tim,
                    bytes: tim::write(t)?,
                })
            })
            .collect()
    };
    if target == Format::Hmd {
        let authored = hmd_author::author(
            scene,
            &HmdAuthorOptions {
                axes,
                scale,
                fps: opts.timing.fps.unwrap_or(60.0),
                limits: opts.limits,
            },
        )?;
        notes.extend(authored.notes);
        return Ok(Conversion {
            bytes: hmd::write(&authored.hmd)?,
            format: target,
            notes,
            extra: Vec::new(),
        });
    }
    if target == Format::Tmd {
        let model = tmd_author::author(scene, &tmd_author::rest_instances(scene), &model_opts)?;
        notes.extend(model.notes);
        if scene.animations.iter().any(|a| !a.channels.is_empty()) {
            notes.push(Note {
                code: "animation-dropped",
                message: format!(
                    "{} animation(s) left out: a TMD is a still model (convert to .tod to keep them)",
                    scene.animations.len()
                ),
            });
        }
        let extra = tims("", &model.tims)?;
        return Ok(Conversion {
            bytes: tmd::write(&model.tmd)?,
            format: target,
            notes,
            extra,
        });
    }
    let picked = pick_animation(scene, opts.animation)?;
    let animation = picked.unwrap_or(0);
    if opts.tod.resolution == Some(0) {
        return Err(option_error(O::Resolution, "0: must be at least 1".into()));
    }
    // An explicit --resolution wins; else the one an export from a TOD kept (0 included, as
    // the PsyQ samples store it); else 1.
    let resolution = opts.tod.resolution.unwrap_or_else(|| {
        crate::scene::extras::get_u64(&scene.extras, "tod", "resolution")
            .and_then(|r| u16::try_from(r).ok())
            .unwrap_or(1)
    });
    // The TMD object of each mesh: the one an export kept when the meshes keep a whole
    // model's numbering, else mesh order.
    let kept_objects = kept_tmd_objects(scene);
    let (tmd_ids, extra): (Vec<Option<u32>>, Vec<Extra>) = match &opts.tod.tmd {
        Some(given) => (
            (0..scene.meshes.len())
                .map(|k| {
                    // The given model has every object: a mesh's own kept number is enough.
                    let object =
                        crate::scene::extras::get_u64(&scene.meshes[k].extras, "tmd", "object")
                            .and_then(|o| usize::try_from(o).ok())
                            .unwrap_or(k);
                    (object < given.objects.len()).then_some(object as u32 + 1)
                })
                .collect(),
            Vec::new(),
        ),
        None => {
            let mut instances = tmd_author::mesh_instances(scene);
            if let Some(objects) = &kept_objects {
                instances.sort_by_key(|i| objects[i.mesh]);
            }
            let model = tmd_author::author(scene, &instances, &model_opts)?;
            notes.extend(model.notes);
            let mut extra = vec![Extra {
                suffix: ".tmd".into(),
                format: Format::Tmd,
                bytes: tmd::write(&model.tmd)?,
            }];
            extra.extend(tims("", &model.tims)?);
            (
                (0..scene.meshes.len())
                    .map(|k| Some(kept_objects.as_ref().map_or(k, |o| o[k]) as u32 + 1))
                    .collect(),
                extra,
            )
        }
    };
    let anim = tod_author::author(
        scene,
        &tmd_ids,
        &TodAuthorOptions {
            axes,
            scale,
            resolution,
            limits: opts.limits,
            animation,
            ..TodAuthorOptions::default()
        },
    )?;
    notes.extend(anim.notes);
    if picked.is_none() {
        notes.push(Note {
            code: "no-animation",
            message: format!(
                "the glTF has no animation: the TOD holds one frame, the model at rest ({} object(s))",
                scene.meshes.len()
            ),
        });
    }
    Ok(Conversion {
        bytes: tod::write(&anim.tod)?,
        format: target,
        notes,
        extra,
    })
}

/// The TMD object number each mesh keeps in its extras (`docs/extras.md`), when every mesh
/// keeps one and together they number 0..meshes (so a model written in that order puts each
/// mesh back at its number); else `None` (mesh order).
fn kept_tmd_objects(scene: &crate::scene::Scene) -> Option<Vec<usize>> {
    let objects: Vec<usize> = scene
        .meshes
        .iter()
        .map(|m| crate::scene::extras::get_u64(&m.extras, "tmd", "object"))
        .map(|o| o.and_then(|o| usize::try_from(o).ok()))
        .collect::<Option<_>>()?;
    let mut sorted = objects.clone();
    sorted.sort_unstable();
    sorted
        .iter()
        .enumerate()
        .all(|(k, &o)| k == o)
        .then_some(objects)
}

/// The animation `--animation` picks (default 0, the first): its index, or `None` when the
/// glTF has none and none was asked for. A missing one is an error listing what exists.
pub(super) fn pick_animation(
    scene: &crate::scene::Scene,
    asked: Option<usize>,
) -> Result<Option<usize>> {
    let have = &scene.animations;
    let pick = asked.unwrap_or(0);
    if pick >= have.len() {
        if asked.is_none() {
            return Ok(None);
        }
        let list: Vec<String> = have
            .iter()
            .enumerate()
            .map(|(i, a)| format!("{i} \"{}\"", a.name))
            .collect();
        return Err(option_error(
            OptionName::Animation,
            if list.is_empty() {
                format!("{pick}: the glTF has no animations")
            } else {
                format!(
                    "{pick}: the glTF has {} animation(s): {}",
                    list.len(),
                    list.join(", ")
                )
            },
        ));
    }
    Ok(Some(pick))
}

/// The note for the glTF's animations other than `pick`, when there are any.
pub(super) fn other_animations(scene: &crate::scene::Scene, pick: usize) -> Option<Note> {
    let have = &scene.animations;
    (have.len() > 1).then(|| Note {
        code: "animations-dropped",
        message: format!(
            "{} of the glTF's {} animations left out: only animation {pick} \"{}\" is written (choose with --animation)",
            have.len() - 1,
            have.len(),
            have.get(pick).map_or("", |a| a.name.as_str())
        ),
    })
}

/// What the glTF importer left out, as notes.
pub(super) fn imported_notes(imported: &crate::import::gltf::Imported) -> Vec<Note> {
    imported
        .notes
        .iter()
        .map(|n| Note {
            code: "gltf-left-out",
            message: n.clone(),
        })
        .collect()
}
