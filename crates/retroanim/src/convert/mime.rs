//! TMD + MIMe differences (VDF, NDF) ↔ glTF morph targets (docs/vdf-ndf.md).
//!
//! Export (`convert MD0.TMD x.glb --vdf MD0.VDF [--ndf MD0.NDF] [--mime-weights W.json]`):
//! the TMD's scene as [`crate::formats::tmd::scene`] builds it, plus one morph target per
//! MIMe key (VDF/NDF block k is key k, named `key k`) on the mesh of every object a block
//! changes. A target's POSITION displacement of an exported vertex is `play(key k at 4096) −
//! base` of its TMD vertex, in the export's axes and scale; its NORMAL displacement is the NDF
//! difference / 4096 (a TMD normal is 4096 long, an exported one 1), 0 where the corner has no
//! normal of its own. With the default scale (a power of two) every value is exact in float32,
//! so the glTF at weight 1.0 equals [`mime::play`] at 4096 exactly.
//!
//! Authoring back (`convert x.glb out.vdf --tmd MD0.TMD`, or `out.ndf`) is `mime_author`:
//! morph target k becomes block k, the run from the first to the last TMD vertex (normal) the
//! target moves, its glTF vertices matched to the TMD's by the export's order or by rest
//! position.

use super::{coded, option_error, psx_options, Note, OptionName, Options};
use crate::error::{Error, Result};
use crate::formats::mime::{self, Diff};
use crate::formats::tmd::scene::{tmd_scene_sourced, CornerSource};
use crate::formats::tmd::{SVector, Tmd};
use crate::scene::axes::Conv;
use crate::scene::{Animation, Channel, Interpolation, MorphTarget, MorphTargetKind, Scene, Track};
use crate::Format;

/// What a TMD → glTF export with MIMe needs besides the TMD.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MimeInput {
    /// The vertex differences (`--vdf`): one morph target per block.
    pub vdf: Option<Diff>,
    /// The normal differences (`--ndf`): morph-target normals, block k on key k.
    pub ndf: Option<Diff>,
    /// A weights animation (`--mime-weights`): frames × keys, 4096 = 1.0, as
    /// [`weights_from_json`] reads it; one glTF key per frame at `--fps` (default 60).
    pub weights: Option<Vec<Vec<i32>>>,
}

/// The console's frame rate the weights animation defaults to (the sample sets the weights
/// once per vertical blank).
pub const DEFAULT_WEIGHTS_FPS: f32 = 60.0;

/// Reads a MIMe weights file: a JSON array of frames, each an array of one integer weight per
/// key (4096 = 1.0, as [`mime::play`] takes them), e.g. `[[0, 0], [2048, 0], [4096, 0]]`.
pub fn weights_from_json(data: &[u8]) -> Result<Vec<Vec<i32>>> {
    match serde_json::from_slice::<Vec<Vec<i32>>>(data) {
        Ok(f) => Ok(f),
        Err(e) => Err(Error::Malformed {
            format: Format::Json,
            offset: 0,
            what: format!(
                "MIMe weights: expected an array of frames, each an array of integer weights (4096 = 1.0): {e}"
            ),
        }),
    }
}

/// A diff's first validation error against `tmd`, as an error of `format`.
/// The per-object differences of key `k` played at 4096: `play − base` per vector.
fn key_deltas(d: &Diff, base: &[Vec<SVector>], k: usize) -> Vec<Vec<[i32; 3]>> {
    let mut w = vec![0; d.blocks.len()];
    w[k] = 4096;
    let played = mime::play(d, base, &w);
    played
        .iter()
        .zip(base)
        .map(|(p, b)| {
            p.iter()
                .zip(b)
                .map(|(p, b)| {
                    [
                        i32::from(p.x) - i32::from(b.x),
                        i32::from(p.y) - i32::from(b.y),
                        i32::from(p.z) - i32::from(b.z),
                    ]
                })
                .collect()
        })
        .collect()
}

/// TMD (+ VDF, NDF, weights) → glTF scene with morph targets, and its notes.
pub(super) fn tmd_scene(t: &Tmd, target: Format, opts: &Options) -> Result<(Scene, Vec<Note>)> {
    use OptionName as O;
    let m = &opts.mime;
    let mut allowed = vec![O::Axes, O::Scale, O::Tim, O::Vdf, O::Ndf];
    if m.weights.is_some() {
        allowed.extend([O::MimeWeights, O::Fps, O::Smooth]);
    }
    opts.check(Format::Tmd, target, &allowed)?;
    if m.vdf.is_none() && m.ndf.is_none() {
        return Err(option_error(
            O::MimeWeights,
            "weighs MIMe keys: give their differences with --vdf (and --ndf)".into(),
        ));
    }
    if let Some(d) = &m.vdf {
        mime::check_against(d, t, Format::Vdf)?;
    }
    if let Some(d) = &m.ndf {
        mime::check_against(d, t, Format::Ndf)?;
    }
    let psx = psx_options(opts);
    let (mut scene, noted, models) = tmd_scene_sourced(t, &psx)?;
    let mut notes = coded(noted);
    let keys = [&m.vdf, &m.ndf]
        .iter()
        .filter_map(|d| d.as_ref().map(|d| d.blocks.len()))
        .max()
        .unwrap_or(0);
    if let (Some(v), Some(n)) = (&m.vdf, &m.ndf) {
        if v.blocks.len() != n.blocks.len() {
            notes.push(Note {
                code: "mime-key-counts",
                message: format!(
                    "the VDF has {} blocks and the NDF {}: keys past the shorter file move only {}",
                    v.blocks.len(),
                    n.blocks.len(),
                    if v.blocks.len() < n.blocks.len() {
                        "normals"
                    } else {
                        "vertices"
                    }
                ),
            });
        }
    }
    let conv = Conv::with(psx.axes, psx.scale);
    let base_v: Vec<Vec<SVector>> = t.objects.iter().map(|o| o.vertices.clone()).collect();
    let base_n: Vec<Vec<SVector>> = t.objects.iter().map(|o| o.normals.clone()).collect();
    let vertex_keys: Vec<Vec<Vec<[i32; 3]>>> = m.vdf.as_ref().map_or(Vec::new(), |d| {
        (0..d.blocks.len())
            .map(|k| key_deltas(d, &base_v, k))
            .collect()
    });
    let normal_keys: Vec<Vec<Vec<[i32; 3]>>> = m.ndf.as_ref().map_or(Vec::new(), |d| {
        (0..d.blocks.len())
            .map(|k| key_deltas(d, &base_n, k))
            .collect()
    });
    // The objects the blocks change get the targets (every key, so that weight k is key k).
    let mut touched: Vec<usize> = [&m.vdf, &m.ndf]
        .iter()
        .filter_map(|d| d.as_ref())
        .flat_map(|d| d.blocks.iter().map(|b| b.object as usize))
        .collect();
    touched.sort_unstable();
    touched.dedup();
    let mut unseen = 0usize;
    let mut morphed_nodes = Vec::new();
    for &o in &touched {
        let Some(mesh_index) = models.meshes.get(o).copied().flatten() else {
            notes.push(Note {
                code: "mime-object-without-polygons",
                message: format!(
                    "MIMe blocks change object {o}, which has no polygons: its keys move nothing in the glTF"
                ),
            });
            continue;
        };
        let sources = &models.sources[o];
        // Vectors a block changes that no exported vertex shows.
        let mut used_v = vec![false; base_v[o].len()];
        let mut used_n = vec![false; base_n[o].len()];
        for &(v, n) in sources.iter().flatten() {
            if let Some(u) = used_v.get_mut(v as usize) {
                *u = true;
            }
            if let Some(u) = n.and_then(|n| used_n.get_mut(n as usize)) {
                *u = true;
            }
        }
        for (d, used) in [(&m.vdf, &used_v), (&m.ndf, &used_n)] {
            for b in d.iter().flat_map(|d| &d.blocks) {
                if b.object as usize == o {
                    unseen += (b.offset as usize..b.offset as usize + b.differences.len())
                        .filter(|&i| !used.get(i).copied().unwrap_or(true))
                        .count();
                }
            }
        }
        let mesh = &mut scene.meshes[mesh_index];
        mesh.target_names = (0..keys).map(|k| format!("key {k}")).collect();
        for (p, src) in mesh.primitives.iter_mut().zip(sources) {
            p.targets = (0..keys)
                .map(|k| key_target(&conv, src, o, vertex_keys.get(k), normal_keys.get(k)))
                .collect();
        }
        if let Some(node) = scene.nodes.get_mut(o) {
            node.weights = vec![0.0; keys];
            morphed_nodes.push(o);
        }
    }
    if unseen > 0 {
        notes.push(Note {
            code: "mime-unused-vectors",
            message: format!(
                "{unseen} differences apply to vertices or normals no polygon uses: the glTF has no vertex to carry them"
            ),
        });
    }
    if let Some(frames) = &m.weights {
        notes.extend(weights_animation(
            &mut scene,
            frames,
            keys,
            &morphed_nodes,
            opts,
        )?);
    }
    Ok((scene, notes))
}

/// A VDF or NDF → glTF on its base TMD (`--tmd`, as a TOD takes its model): the TMD's export
/// with this file's keys as morph targets, as [`tmd_scene`] makes it with the file as `--vdf`
/// (`--ndf`); the file of the other kind may come with `--ndf` (`--vdf`).
pub(super) fn diff_scene(
    d: &Diff,
    from: Format,
    target: Format,
    opts: &Options,
) -> Result<(Scene, Vec<Note>)> {
    use OptionName as O;
    let normals = from == Format::Ndf;
    let other = if normals { O::Vdf } else { O::Ndf };
    let mut allowed = vec![O::Axes, O::Scale, O::Tim, O::Tmd, other];
    if opts.mime.weights.is_some() {
        allowed.extend([O::MimeWeights, O::Fps, O::Smooth]);
    }
    opts.check(from, target, &allowed)?;
    let Some(tmd) = &opts.tod.tmd else {
        return Err(option_error(
            O::Tmd,
            format!("missing: a {from} holds differences against a base TMD; name it with --tmd"),
        ));
    };
    let mut own = opts.clone();
    own.tod.tmd = None;
    if normals {
        own.mime.ndf = Some(d.clone());
    } else {
        own.mime.vdf = Some(d.clone());
    }
    tmd_scene(tmd, target, &own)
}

/// One primitive's morph target for one key.
fn key_target(
    conv: &Conv,
    src: &[CornerSource],
    object: usize,
    vertices: Option<&Vec<Vec<[i32; 3]>>>,
    normals: Option<&Vec<Vec<[i32; 3]>>>,
) -> MorphTarget {
    let at = |keys: Option<&Vec<Vec<[i32; 3]>>>, i: Option<u16>| {
        keys.and_then(|k| k.get(object))
            .and_then(|o| o.get(i? as usize))
            .copied()
            .unwrap_or([0; 3])
            .map(f64::from)
    };
    MorphTarget {
        kind: MorphTargetKind::Delta,
        positions: src
            .iter()
            .map(|&(v, _)| conv.point(at(vertices, Some(v))))
            .collect(),
        normals: match normals {
            None => Vec::new(),
            Some(_) => src
                .iter()
                .map(|&(_, n)| conv.dir(at(normals, n)).map(|c| (c / 4096.0) as f32))
                .collect(),
        },
    }
}

/// The weights animation: one key per frame on every morphed node.
fn weights_animation(
    scene: &mut Scene,
    frames: &[Vec<i32>],
    keys: usize,
    nodes: &[usize],
    opts: &Options,
) -> Result<Vec<Note>> {
    if let Some((f, w)) = frames.iter().enumerate().find(|(_, w)| w.len() != keys) {
        return Err(option_error(
            OptionName::MimeWeights,
            format!(
                "frame {f} has {} weights, the differences have {keys} keys",
                w.len()
            ),
        ));
    }
    if frames.is_empty() || nodes.is_empty() {
        return Ok(vec![Note {
            code: "mime-weights-unused",
            message: "the weights animation has no frames or no mesh to move: not written".into(),
        }]);
    }
    let fps = opts.timing.fps.unwrap_or(DEFAULT_WEIGHTS_FPS);
    let times: Vec<f32> = (0..frames.len())
        .map(|i| crate::scene::key_time(i as u64, f64::from(fps)))
        .collect();
    let values: Vec<Vec<f32>> = frames
        .iter()
        .map(|w| w.iter().map(|&x| x as f32 / 4096.0).collect())
        .collect();
    let interpolation = if opts.timing.smooth {
        Interpolation::Linear
    } else {
        Interpolation::Step
    };
    scene.animations.push(Animation {
        name: "mime weights".into(),
        channels: nodes
            .iter()
            .map(|&node| Channel {
                node,
                interpolation,
                times: times.clone(),
                track: Track::Weights(values.clone()),
            })
            .collect(),
        extras: serde_json::Value::Null,
    });
    let between = frames
        .iter()
        .filter(|w| w.iter().any(|&x| x != 0 && x != 4096))
        .count();
    let mut notes = Vec::new();
    if between > 0 {
        notes.push(Note {
            code: "mime-weights-linear",
            message: format!(
                "{between} of {} frames have weights other than 0 and 4096: the console floors (d × w) >> 12 per component, glTF adds d × w / 4096, so those frames' vertices may lie up to 1 unit per key above the console's",
                frames.len()
            ),
        });
    }
    Ok(notes)
}
