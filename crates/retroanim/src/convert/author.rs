//! glTF / GLB → the console's formats: the scene read by [`crate::import::gltf`], written by
//! [`crate::formats::tmd::author`] and [`crate::formats::tod::author`].
//!
//! - glTF → TMD: one TMD object per node that shows a mesh, its vertices moved to the node's
//!   rest position (a TMD holds no transforms); the textures as TIMs in [`Conversion::extra`].
//! - glTF → TOD: the first animation, one TOD object per node. Without `--tmd` the model is
//!   written too (one TMD object per mesh, in the mesh's own space: TMD ID *k* + 1 is mesh *k*)
//!   as an extra `.tmd` with its TIMs; with `--tmd MODEL` the TOD's TMD IDs name that model's
//!   objects in mesh order.

use super::{option_error, Axes, Conversion, Extra, Note, OptionName, Options};
use crate::error::Result;
use crate::formats::tmd::author::{self as tmd_author, AuthorOptions};
use crate::formats::tmd::scene as psx;
use crate::formats::tod::author::{self as tod_author, TodAuthorOptions};
use crate::formats::{tim, tmd, tod};
use crate::Format;

/// Converts a glTF or GLB file to TMD or TOD.
pub(super) fn gltf_to_psx(
    data: &[u8],
    from: Format,
    target: Format,
    opts: &Options,
) -> Result<Conversion> {
    use OptionName as O;
    match target {
        Format::Tmd => opts.check(from, target, &[O::Axes, O::Scale])?,
        Format::Tod => opts.check(from, target, &[O::Axes, O::Scale, O::Tmd, O::Resolution])?,
        _ => return Err(super::no_such(from, target)),
    }
    let imported = crate::import::gltf::read(data, &opts.limits)?;
    let scene = &imported.scene;
    let mut notes: Vec<Note> = imported
        .notes
        .iter()
        .map(|n| Note {
            code: "gltf-left-out",
            message: n.clone(),
        })
        .collect();
    let axes = match opts.geometry.axes.unwrap_or_default() {
        Axes::Default => psx::Axes::YUp,
        Axes::Raw => psx::Axes::Raw,
    };
    let scale = opts.geometry.scale.unwrap_or(psx::DEFAULT_SCALE);
    let model_opts = AuthorOptions { axes, scale };
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
    let resolution = opts.tod.resolution.unwrap_or(1);
    if resolution == 0 {
        return Err(option_error(O::Resolution, "0: must be at least 1".into()));
    }
    let (tmd_ids, extra): (Vec<Option<u32>>, Vec<Extra>) = match &opts.tod.tmd {
        Some(given) => (
            (0..scene.meshes.len())
                .map(|k| (k < given.objects.len()).then_some(k as u32 + 1))
                .collect(),
            Vec::new(),
        ),
        None => {
            let model = tmd_author::author(scene, &tmd_author::mesh_instances(scene), &model_opts)?;
            notes.extend(model.notes);
            let mut extra = vec![Extra {
                suffix: ".tmd".into(),
                format: Format::Tmd,
                bytes: tmd::write(&model.tmd)?,
            }];
            extra.extend(tims("", &model.tims)?);
            (
                (0..scene.meshes.len())
                    .map(|k| Some(k as u32 + 1))
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
        },
    )?;
    notes.extend(anim.notes);
    Ok(Conversion {
        bytes: tod::write(&anim.tod)?,
        format: target,
        notes,
        extra,
    })
}
