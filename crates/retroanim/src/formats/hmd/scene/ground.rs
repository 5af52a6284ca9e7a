//! Ground primitives (category 5; FF p.2-125..2-127, notes §9) as meshes.
//!
//! The polygon section gives the grid: origin `(x0, y0)`, cell size `(w, h)`, vertices per
//! row and column `(m, n)`, a base vertex, and per row its first vertex number and cell
//! count. The manual does not spell out where vertex number `k` lies; we read it, as the
//! sample files are laid out (rows start at multiples of `m`), as column `(k − base) mod m`
//! and row `(k − base) div m`, at `(x0 + column·w, y0 + row·h, z_k)` with `z_k` from the
//! vertex section. Cell `j` of a row spans its vertices `v + j`, `v + j + 1` and those of the
//! next row, `v + m + j`, `v + m + j + 1`; the UV groups list the corners in that order
//! (`uv0` at `v + j`, `uv1` below it, `uv2` right of it, `uv3` diagonal: GROUND.HMD's
//! `(0,0) (0,63) (63,0) (63,63)`), which is also the quad corner order of polygon packets, so
//! a cell becomes the triangles 0 2 1 and 1 2 3 as a packet does; they then face along the
//! grid's normal (GROUND.HMD: +Z). The grid entries follow the cells row by row.

use std::collections::BTreeMap;

use super::super::types::{Hmd, SectionData, TypeData, TERMINATE};
use super::super::{GridEntry, GridItem, Packet, UvWord};
use super::texture::{Look, Surface, Texturing};
use crate::formats::tmd::scene::{srgb_to_linear, Conv};
use crate::scene::{Mesh, Node, Primitive, Scene};

/// Adds a mesh per block with ground primitives, on that block's coordinate node.
pub(super) fn add(
    hmd: &Hmd,
    scene: &mut Scene,
    conv: &Conv,
    coords: usize,
    tex: &mut Texturing,
) -> crate::Result<()> {
    let headers = hmd.headers();
    let prims: BTreeMap<u32, &super::super::Primitive> = hmd.primitives().collect();
    let n = hmd.blocks.len();
    for (b, &first) in hmd.blocks.iter().enumerate() {
        let mut prim = Primitive {
            material: Some(0),
            ..Primitive::default()
        };
        let mut keys: Vec<Surface> = Vec::new();
        let mut at = first;
        let mut seen = std::collections::BTreeSet::new();
        while first != 0 && at != TERMINATE && seen.insert(at) {
            let Some(p) = prims.get(&at) else { break };
            at = p.next;
            let Some(h) = headers.get(&p.header) else {
                continue;
            };
            let section = |i: usize| {
                h.words
                    .get(i)
                    .and_then(|e| e.pointer())
                    .and_then(|s| Some((s, &hmd.section_at(s)?.data)))
            };
            for t in &p.types {
                let (0, 5) = (t.kind().developer(), t.kind().category()) else {
                    continue;
                };
                let TypeData::Offsets(off) = &t.data else {
                    continue;
                };
                let (Some(&po), Some(&go), Some(&vo)) = (off.first(), off.get(1), off.get(2))
                else {
                    continue;
                };
                // The polygon entry is a section of its own where the reader found one.
                let poly = h.words.first().and_then(|e| e.pointer()).and_then(|s| {
                    match &hmd.section_at(s.checked_add(po)?)?.data {
                        SectionData::GroundPolygon(g) => Some(g),
                        _ => None,
                    }
                });
                let grid = match section(1) {
                    Some((_, SectionData::Grid(items))) => items
                        .iter()
                        .find(|i| i.index() == Some(go))
                        .and_then(|i| match i {
                            GridItem::Entries { entries, .. } => Some(entries.as_slice()),
                            GridItem::Raw(_) => None,
                        }),
                    _ => None,
                };
                let heights = match section(2) {
                    Some((_, SectionData::Heights { heights })) => heights
                        .get((vo as usize).saturating_mul(2)..)
                        .unwrap_or(&[]),
                    _ => &[],
                };
                let normals = match section(3) {
                    Some((_, SectionData::Vectors { vectors, .. })) => vectors.as_slice(),
                    _ => &[],
                };
                let uvs = match section(4) {
                    Some((_, SectionData::GroundUv(g))) => g.as_slice(),
                    _ => &[],
                };
                let (Some(poly), Some(grid)) = (poly, grid) else {
                    continue;
                };
                let m = poly.counts[0] as i64;
                if m <= 0 {
                    continue;
                }
                let place = |k: i64| -> Option<[f64; 3]> {
                    let z = *heights.get(usize::try_from(k).ok()?)? as f64;
                    let r = k - poly.base as i64;
                    let (col, row) = (r.rem_euclid(m), r.div_euclid(m));
                    Some([
                        poly.origin[0] as f64 + (col * poly.cell[0] as i64) as f64,
                        poly.origin[1] as f64 + (row * poly.cell[1] as i64) as f64,
                        z,
                    ])
                };
                let mut cells = grid.iter();
                for row in &poly.rows {
                    for j in 0..row.grids as i64 {
                        let Some(entry) = cells.next() else { break };
                        let v = row.vertex_start as i64 + j;
                        let corners = [v, v + m, v + 1, v + m + 1];
                        let Some(pos) = corners
                            .iter()
                            .map(|&k| place(k))
                            .collect::<Option<Vec<_>>>()
                        else {
                            continue;
                        };
                        let (normal, color, uv) = match *entry {
                            GridEntry::Flat { color, normal, .. } => (normal, Some(color), None),
                            GridEntry::Textured { normal, uv } => {
                                (normal, None, uvs.get(uv as usize))
                            }
                        };
                        let packet = uv.map(|g| Packet {
                            uvs: g.uv.iter().map(|&uv| UvWord { uv }).collect(),
                            cba: g.cba,
                            tsb: g.tsb,
                            ..Packet::default()
                        });
                        let texels = packet.as_ref().and_then(|p| tex.source(p));
                        let nrm = normals
                            .get(normal as usize)
                            .map(|n| conv.dir(n.v.map(f64::from)).map(|x| x as f32))
                            .unwrap_or([0.0, 1.0, 0.0]);
                        let rgba = match color {
                            Some(c) => [
                                srgb_to_linear(c[0] as f32 / 255.0),
                                srgb_to_linear(c[1] as f32 / 255.0),
                                srgb_to_linear(c[2] as f32 / 255.0),
                                1.0,
                            ],
                            None => [1.0; 4],
                        };
                        for c in [0usize, 2, 1, 1, 2, 3] {
                            prim.positions.push(conv.point(pos[c]));
                            prim.normals.push(nrm);
                            prim.colors.push(rgba);
                            match (&texels, &packet) {
                                (Some(s), Some(p)) => {
                                    prim.uvs.push(tex.uv(s, p.uvs[c].uv));
                                    keys.push((Some(s.key()), Look::default()));
                                }
                                _ => {
                                    prim.uvs.push([0.0; 2]);
                                    keys.push((None, Look::default()));
                                }
                            }
                        }
                    }
                }
            }
        }
        if prim.positions.is_empty() {
            continue;
        }
        let mut mesh = Mesh {
            name: format!("ground block {b}"),
            primitives: vec![prim],
            ..Mesh::default()
        };
        tex.split(scene, &mut mesh, &keys)?;
        scene.meshes.push(mesh);
        let mesh = scene.meshes.len() - 1;
        let coord = b.checked_sub(1).filter(|&c| b + 1 < n && c < coords);
        let mut node = Node::new(format!("ground block {b}"));
        node.mesh = Some(mesh);
        node.parent = coord;
        scene.nodes.push(node);
    }
    Ok(())
}
