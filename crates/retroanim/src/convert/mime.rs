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
//! Authoring back (`convert x.glb out.vdf --tmd MD0.TMD`, or `out.ndf`): the glTF must keep
//! the vertex layout the export gives the TMD (one mesh per object, tagged with its object,
//! the same primitives and vertices); morph target k becomes block k: the run from the first
//! to the last TMD vertex (normal) the target moves, in the object whose vertices it moves.

use super::{coded, done_notes, option_error, psx_options, Conversion, Note, OptionName, Options};
use crate::error::{Error, Result};
use crate::formats::mime::{self, Block, Diff};
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
fn check_against(d: &Diff, tmd: &Tmd, format: Format) -> Result<()> {
    let normals = format == Format::Ndf;
    match mime::validate(d, Some(tmd), normals)
        .into_iter()
        .find(|i| i.severity == crate::Severity::Error)
    {
        Some(i) => Err(Error::Malformed {
            format,
            offset: i.offset,
            what: format!("{} (against the TMD given)", i.message),
        }),
        None => Ok(()),
    }
}

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
        check_against(d, t, Format::Vdf)?;
    }
    if let Some(d) = &m.ndf {
        check_against(d, t, Format::Ndf)?;
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

/// glTF with morph targets on a TMD's mesh → VDF or NDF against that TMD (`--tmd`).
pub(super) fn gltf_to_diff(
    data: &[u8],
    from: Format,
    target: Format,
    opts: &Options,
) -> Result<Conversion> {
    use OptionName as O;
    opts.check(from, target, &[O::Tmd, O::Axes, O::Scale])?;
    let normals = target == Format::Ndf;
    let Some(tmd) = &opts.tod.tmd else {
        return Err(option_error(
            O::Tmd,
            format!("missing: a {target} holds differences against a base TMD; name it with --tmd"),
        ));
    };
    let imported = crate::import::gltf::read(data, &opts.limits)?;
    let scene = imported.scene;
    let psx = psx_options(opts);
    let (base, _, models) = tmd_scene_sourced(tmd, &psx)?;
    let conv = Conv::with(psx.axes, psx.scale);
    let axes = conv.axes();
    // Per object with a mesh: the glTF mesh that carries it, checked against the layout.
    let mut pairs = Vec::new();
    for (o, mi) in models.meshes.iter().enumerate() {
        let Some(mi) = mi else { continue };
        let want = &base.meshes[*mi];
        let found = scene.meshes.iter().position(|m| {
            crate::scene::extras::get_u64(&m.extras, "tmd", "object") == Some(o as u64)
                || m.name == want.name
        });
        let Some(g) = found else { continue };
        let got = &scene.meshes[g];
        let layout = |m: &crate::scene::Mesh| -> Vec<usize> {
            m.primitives.iter().map(|p| p.positions.len()).collect()
        };
        if layout(got) != layout(want) {
            return Err(Error::Malformed {
                format: from,
                offset: 0,
                what: format!(
                    "meshes[{g}] (TMD object {o}) has primitives of {:?} vertices, the TMD's export {:?}: author on the mesh `convert MODEL.TMD x.glb` writes, keeping its vertices",
                    layout(got),
                    layout(want)
                ),
            });
        }
        if !got.target_names.is_empty() {
            pairs.push((o, g));
        }
    }
    let keys = pairs
        .iter()
        .map(|&(_, g)| scene.meshes[g].target_names.len())
        .max()
        .unwrap_or(0);
    if pairs.is_empty() {
        return Err(Error::Conversion {
            from,
            to: target,
            why: "no mesh of the TMD's objects has morph targets".into(),
        });
    }
    if normals
        && !scene.meshes.iter().any(|m| {
            m.primitives
                .iter()
                .any(|p| p.targets.iter().any(|t| !t.normals.is_empty()))
        })
    {
        return Err(Error::Conversion {
            from,
            to: target,
            why:
                "the morph targets move no normals (no target NORMAL): nothing to write an NDF from"
                    .into(),
        });
    }
    let mut blocks = Vec::with_capacity(keys);
    let mut notes = Vec::new();
    let (mut disagree, mut unseen, mut empty) = (0usize, 0usize, Vec::new());
    for k in 0..keys {
        // Per object: the difference of every vector this key moves.
        let mut moved: Vec<(usize, Vec<Option<[i16; 3]>>)> = Vec::new();
        for &(o, g) in &pairs {
            let obj = &tmd.objects[o];
            let len = if normals {
                obj.normals.len()
            } else {
                obj.vertices.len()
            };
            let mut d: Vec<Option<[i16; 3]>> = vec![None; len];
            for (p, src) in scene.meshes[g].primitives.iter().zip(&models.sources[o]) {
                let Some(t) = p.targets.get(k) else { continue };
                for (i, &(v, n)) in src.iter().enumerate() {
                    let (index, value) = if normals {
                        let (Some(n), Some(x)) = (n, t.normals.get(i)) else {
                            continue;
                        };
                        (n, x.map(|c| f64::from(c) * 4096.0))
                    } else {
                        let Some(x) = t.positions.get(i) else {
                            continue;
                        };
                        (v, x.map(|c| f64::from(c) / psx.scale as f64))
                    };
                    let c = std::array::from_fn(|a| value[a] * axes[a]);
                    let q = units(c, target, k, o, index)?;
                    match &mut d[index as usize] {
                        slot @ None => *slot = Some(q),
                        Some(prev) if *prev != q => disagree += 1,
                        Some(_) => {}
                    }
                }
            }
            if d.iter().any(|x| x.is_some_and(|x| x != [0; 3])) {
                moved.push((o, d));
            }
        }
        match &moved[..] {
            [] => {
                empty.push(k);
                blocks.push(Block {
                    object: pairs[0].0 as u32,
                    offset: 0,
                    differences: Vec::new(),
                });
            }
            [(o, d)] => {
                let nz = |x: &Option<[i16; 3]>| x.is_some_and(|x| x != [0; 3]);
                let first = d.iter().position(nz).unwrap_or(0);
                let last = d.iter().rposition(nz).unwrap_or(0);
                let run = &d[first..=last];
                unseen += run.iter().filter(|x| x.is_none()).count();
                blocks.push(Block {
                    object: *o as u32,
                    offset: first as u32,
                    differences: run
                        .iter()
                        .map(|x| {
                            let [x, y, z] = x.unwrap_or([0; 3]);
                            SVector { x, y, z, pad: 0 }
                        })
                        .collect(),
                });
            }
            more => {
                let objects: Vec<String> = more.iter().map(|(o, _)| o.to_string()).collect();
                return Err(Error::Unencodable {
                    format: target,
                    what: format!(
                        "morph target {k} moves objects {}: a {target} block changes one object",
                        objects.join(", ")
                    ),
                });
            }
        }
    }
    if !empty.is_empty() {
        notes.push(Note {
            code: "mime-empty-keys",
            message: format!(
                "{} morph target(s) move nothing ({:?}): written as empty blocks on object {}",
                empty.len(),
                empty,
                pairs[0].0
            ),
        });
    }
    if unseen > 0 {
        notes.push(Note {
            code: "mime-unused-vectors",
            message: format!(
                "{unseen} {} inside the runs are used by no polygon (the glTF has no vertex for them): written as 0",
                if normals { "normals" } else { "vertices" }
            ),
        });
    }
    if disagree > 0 {
        notes.push(Note {
            code: "mime-corners-disagree",
            message: format!(
                "{disagree} glTF vertices of one TMD {} moved differently from its first: the first is kept",
                if normals { "normal" } else { "vertex" }
            ),
        });
    }
    let diff = Diff {
        blocks,
        trailing: Vec::new(),
    };
    Ok(done_notes(mime::write(&diff)?, target, notes))
}

/// A displacement in console units, rounded to the SVECTOR it must be.
fn units(c: [f64; 3], target: Format, k: usize, o: usize, index: u16) -> Result<[i16; 3]> {
    let mut out = [0i16; 3];
    for (slot, v) in out.iter_mut().zip(c) {
        let r = v.round();
        if !(r.is_finite() && (-32768.0..=32767.0).contains(&r)) {
            return Err(Error::Unencodable {
                format: target,
                what: format!(
                    "morph target {k}, object {o} vector {index}: a difference of {v} units does not fit 16 bits"
                ),
            });
        }
        *slot = r as i16;
    }
    Ok(out)
}
