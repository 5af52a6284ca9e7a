//! glTF morph targets → MIMe differences (VDF, NDF) against a base TMD (`convert x.glb out.vdf
//! --tmd MD0.TMD`; docs/vdf-ndf.md, "Authoring back").
//!
//! Each glTF mesh of a TMD object (found by its `extras.retroanim.tmd.object` tag or its name
//! `tmd object N`) must say which TMD vertex (normal) each of its vertices shows:
//!
//! - **In the export's order**: the primitives have the vertex counts of the TMD's own export
//!   and every vertex lies where the export put it: vertex i of primitive p shows the TMD
//!   vertex and normal the export made it from.
//! - **Re-indexed** (a glTF a tool wrote again, Blender splitting vertices at UV seams and
//!   re-ordering or merging them): each vertex is found by its rest position, in console
//!   units (the export's scale and axes undone), among the points of the TMD vertices its
//!   polygons use, within [`POINT_UNITS`] per axis (an edit in a tool may move a coordinate by
//!   a float32 step). Where several TMD vertices lie at one point, the vertex stands for all
//!   of them. An NDF also needs the corner's normal: of the TMD normals used at that point,
//!   the one nearest the vertex's rest normal (within 2.6°).
//!
//! A vertex found nowhere is an error naming it (mesh, primitive, vertex, where it lies); so
//! are two glTF vertices of one TMD vertex (normal) that a target moves differently, since a
//! block holds one difference per vertex. The glTF carries no TMD index of its own (the
//! export records none), so position is the only evidence a re-indexed file keeps.

use std::collections::HashMap;

use super::{done_notes, option_error, psx_options, Conversion, Note, OptionName, Options};
use crate::error::{Error, Result};
use crate::formats::mime::{self, Block, Diff};
use crate::formats::tmd::scene::tmd_scene_sourced;
use crate::formats::tmd::SVector;
use crate::scene::axes::Conv;
use crate::scene::{Mesh, Primitive};
use crate::Format;

/// Smallest cosine between a vertex's rest normal and the TMD normal it is taken to show.
const NORMAL_COS: f64 = 0.999;

/// Per glTF vertex of one primitive: the TMD vectors (vertex indices for a VDF, normal
/// indices for an NDF) it shows; empty for a corner without a normal of its own (NDF).
type Shows = Vec<Vec<u16>>;

/// The first glTF vertex that moved a TMD vector, and by how much (console units).
type Moved = Option<([i16; 3], (usize, usize))>;

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
    let mut notes = Vec::new();
    // Per object with a mesh: the glTF mesh that carries it, and what each vertex shows.
    let mut pairs: Vec<(usize, usize, Vec<Shows>)> = Vec::new();
    let mut reindexed = 0usize;
    for (o, mi) in models.meshes.iter().enumerate() {
        let Some(mi) = mi else { continue };
        let want = &base.meshes[*mi];
        let found = scene.meshes.iter().position(|m| {
            crate::scene::extras::get_u64(&m.extras, "tmd", "object") == Some(o as u64)
                || m.name == want.name
        });
        let Some(g) = found else { continue };
        let got = &scene.meshes[g];
        if got.target_names.is_empty() && got.primitives.iter().all(|p| p.targets.is_empty()) {
            continue;
        }
        let sources = &models.sources[o];
        let shows = if in_export_order(got, want) {
            sources
                .iter()
                .map(|src| {
                    src.iter()
                        .map(|&(v, n)| match normals {
                            false => vec![v],
                            true => n.into_iter().collect(),
                        })
                        .collect()
                })
                .collect()
        } else {
            reindexed += 1;
            let at = Place {
                object: &tmd.objects[o],
                sources,
                units: std::array::from_fn(|a| axes[a] / psx.scale as f64),
            };
            by_position(got, g, o, &at, normals, from)?
        };
        pairs.push((o, g, shows));
    }
    if pairs.is_empty() {
        return Err(Error::Conversion {
            from,
            to: target,
            why: "no mesh of the TMD's objects has morph targets".into(),
        });
    }
    let keys = pairs
        .iter()
        .map(|&(_, g, _)| {
            let m = &scene.meshes[g];
            m.primitives
                .iter()
                .map(|p| p.targets.len())
                .max()
                .unwrap_or(0)
                .max(m.target_names.len())
        })
        .max()
        .unwrap_or(0);
    if normals
        && !pairs.iter().any(|&(_, g, _)| {
            scene.meshes[g]
                .primitives
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
    if reindexed > 0 {
        notes.push(Note {
            code: "mime-reindexed",
            message: format!(
                "{reindexed} mesh(es) are not in the order the TMD exports to (a tool wrote them again): their vertices were matched to the TMD's by rest position"
            ),
        });
    }
    let what = if normals { "normal" } else { "vertex" };
    let mut blocks = Vec::with_capacity(keys);
    let (mut unseen, mut empty) = (0usize, Vec::new());
    for k in 0..keys {
        // Per object: the difference of every vector this key moves.
        let mut moved: Vec<(usize, Vec<Moved>)> = Vec::new();
        for (o, g, shows) in &pairs {
            let obj = &tmd.objects[*o];
            let len = if normals {
                obj.normals.len()
            } else {
                obj.vertices.len()
            };
            let mut d: Vec<Moved> = vec![None; len];
            for (pi, (p, show)) in scene.meshes[*g].primitives.iter().zip(shows).enumerate() {
                let Some(t) = p.targets.get(k) else { continue };
                for (i, indices) in show.iter().enumerate() {
                    let value = if normals {
                        let Some(x) = t.normals.get(i) else { continue };
                        x.map(|c| f64::from(c) * 4096.0)
                    } else {
                        let Some(x) = t.positions.get(i) else {
                            continue;
                        };
                        x.map(|c| f64::from(c) / psx.scale as f64)
                    };
                    let c = std::array::from_fn(|a| value[a] * axes[a]);
                    for &index in indices {
                        let q = units(c, target, k, *o, index)?;
                        match &mut d[index as usize] {
                            slot @ None => *slot = Some((q, (pi, i))),
                            Some((prev, at)) if *prev != q => {
                                return Err(Error::Unencodable {
                                    format: target,
                                    what: format!(
                                        "morph target {k} moves TMD object {o} {what} {index} by {prev:?} at meshes[{g}] primitive {} vertex {} and by {q:?} at primitive {pi} vertex {i}: a {target} holds one difference per {what}",
                                        at.0, at.1
                                    ),
                                });
                            }
                            Some(_) => {}
                        }
                    }
                }
            }
            if d.iter().any(|x| x.is_some_and(|x| x.0 != [0; 3])) {
                moved.push((*o, d));
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
                let nz = |x: &Moved| x.is_some_and(|x| x.0 != [0; 3]);
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
                            let [x, y, z] = x.map_or([0; 3], |x| x.0);
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
                "{unseen} {what}s inside the runs are used by no polygon (the glTF has no vertex for them): written as 0"
            ),
        });
    }
    let diff = Diff {
        blocks,
        trailing: Vec::new(),
    };
    Ok(done_notes(mime::write(&diff)?, target, notes))
}

/// Whether `got` is laid out as the TMD's export `want`: the same vertex counts per primitive,
/// every vertex at the place the export gave it (float32 bits).
fn in_export_order(got: &Mesh, want: &Mesh) -> bool {
    got.primitives.len() == want.primitives.len()
        && got
            .primitives
            .iter()
            .zip(&want.primitives)
            .all(|(g, w)| same_points(g, w))
}

fn same_points(g: &Primitive, w: &Primitive) -> bool {
    g.positions.len() == w.positions.len()
        && g.positions
            .iter()
            .zip(&w.positions)
            .all(|(a, b)| a.map(f32::to_bits) == b.map(f32::to_bits))
}

/// How far (console units, per axis) a vertex may lie from a TMD vertex's point and still be
/// taken for it: a tool's edit of a mesh may move a coordinate by a float32 step.
const POINT_UNITS: f64 = 0.01;

/// Where a re-indexed mesh's vertices are matched: the object's vertices and normals, the
/// corners its export made, and the export's units.
struct Place<'a> {
    object: &'a crate::formats::tmd::Object,
    sources: &'a [Vec<crate::formats::tmd::scene::CornerSource>],
    /// Console units per glTF unit, per axis (the export's scale and axes undone).
    units: [f64; 3],
}

/// What each vertex of a re-indexed mesh shows, found by its rest position (module docs).
fn by_position(
    got: &Mesh,
    g: usize,
    o: usize,
    at: &Place<'_>,
    normals: bool,
    from: Format,
) -> Result<Vec<Shows>> {
    // The TMD vertex each exported corner shows, by its point, with the normals it has there.
    let mut points: HashMap<[i16; 3], Vec<(u16, Option<u16>)>> = HashMap::new();
    for &(v, n) in at.sources.iter().flatten() {
        if let Some(p) = at.object.vertices.get(v as usize) {
            let e = points.entry([p.x, p.y, p.z]).or_default();
            if !e.contains(&(v, n)) {
                e.push((v, n));
            }
        }
    }
    let console = |p: &[f32; 3]| -> Option<[i16; 3]> {
        let mut out = [0i16; 3];
        for a in 0..3 {
            let c = f64::from(p[a]) * at.units[a];
            let r = c.round();
            if (c - r).abs() > POINT_UNITS || !(-32768.0..=32767.0).contains(&r) {
                return None;
            }
            out[a] = r as i16;
        }
        Some(out)
    };
    let mut out = Vec::with_capacity(got.primitives.len());
    for (pi, p) in got.primitives.iter().enumerate() {
        let mut shows: Shows = Vec::with_capacity(p.positions.len());
        for (i, pos) in p.positions.iter().enumerate() {
            let Some(corners) = console(pos).and_then(|c| points.get(&c)) else {
                return Err(Error::Malformed {
                    format: from,
                    offset: 0,
                    what: format!(
                        "meshes[{g}] primitive {pi} vertex {i} lies at {pos:?}, where no vertex of TMD object {o} lies at rest: its vertices cannot be matched to the TMD's (author on the mesh `convert MODEL.TMD x.glb` writes, moving vertices only in morph targets)"
                    ),
                });
            };
            let mut found: Vec<u16> = if normals {
                let lit: Vec<u16> = corners.iter().filter_map(|c| c.1).collect();
                if lit.is_empty() {
                    // Corners without a normal of their own: no NDF difference to carry.
                    shows.push(Vec::new());
                    continue;
                }
                // The rest normal in console axes, against each TMD normal used there.
                let rest = p.normals.get(i).copied().unwrap_or([0.0; 3]);
                let rest: [f64; 3] =
                    std::array::from_fn(|a| f64::from(rest[a]) * at.units[a].signum());
                let cos = |n: u16| -> f64 {
                    let Some(v) = at.object.normals.get(n as usize) else {
                        return -1.0;
                    };
                    let v = [v.x, v.y, v.z].map(f64::from);
                    let dot: f64 = (0..3).map(|a| rest[a] * v[a]).sum();
                    let len = |x: &[f64; 3]| x.iter().map(|c| c * c).sum::<f64>().sqrt();
                    dot / (len(&rest) * len(&v)).max(f64::MIN_POSITIVE)
                };
                let best = lit.iter().map(|&n| cos(n)).fold(f64::MIN, f64::max);
                if best < NORMAL_COS {
                    return Err(Error::Malformed {
                        format: from,
                        offset: 0,
                        what: format!(
                            "meshes[{g}] primitive {pi} vertex {i} at {pos:?}: its rest normal is none of the normals TMD object {o} has there, so the TMD normal it shows is unknown"
                        ),
                    });
                }
                lit.into_iter().filter(|&n| cos(n) >= best - 1e-9).collect()
            } else {
                corners.iter().map(|c| c.0).collect()
            };
            found.sort_unstable();
            found.dedup();
            shows.push(found);
        }
        out.push(shows);
    }
    Ok(out)
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
