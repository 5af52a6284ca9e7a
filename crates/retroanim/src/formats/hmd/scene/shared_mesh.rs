//! Shared polygons (category 1) as a skinned mesh.
//!
//! Each calculated vertex is one shared vertex moved by the coordinate of the block whose
//! pre-calculation primitive computed it ([`super::super::shared`]): in glTF terms a vertex
//! with one joint (that coordinate's node) at weight 1. The bind pose is the rest pose: a
//! vertex sits at `W_j · v` (the joint's rest world matrix in the converted axes times the
//! shared vertex), and the joint's inverse bind matrix is `W_j⁻¹`, so glTF's skinning
//! `W_j(t) · W_j⁻¹ · W_j · v` puts it at `W_j(t) · v`, where the console puts it. Normals are
//! placed with the coordinate that computed the normal; glTF moves them with the vertex's
//! joint, which is the same coordinate in every corpus file. A corner whose calculated vertex
//! no pre-calculation writes drops its polygon (the console would draw from stale scratch).
//!
//! The skinned mesh hangs on a root node with the identity transform (glTF ignores a skinned
//! node's own and inherited transforms); when the joints sit under more than one root, a
//! node `HMD root` becomes their common parent (glTF requires one root per skin).

use std::collections::BTreeMap;

use super::super::shared::{calculated_vectors, contiguous_vectors, file_vectors};
use super::super::types::{Hmd, TypeData, TERMINATE};
use super::super::{Packet, PlayOptions, Player, PolygonItem};
use super::texture::{Look, Surface, Texturing};
use super::{polygon_item, push_corner_surface};
use crate::formats::tmd::scene::Conv;
use crate::scene::{Mesh, Node, Primitive, Scene, Skin, Transform};

/// A column-major 4×4 matrix in f64.
type M4 = [f64; 16];

fn mul(a: &M4, b: &M4) -> M4 {
    let mut o = [0.0; 16];
    for c in 0..4 {
        for r in 0..4 {
            o[c * 4 + r] = (0..4).map(|k| a[k * 4 + r] * b[c * 4 + k]).sum();
        }
    }
    o
}

fn local(t: &Transform) -> M4 {
    let (t, q, s) = match *t {
        Transform::Trs {
            translation,
            rotation,
            scale,
        } => (translation, rotation, scale),
        Transform::Matrix(m) => return m.map(f64::from),
    };
    let l = q.iter().map(|x| (*x as f64).powi(2)).sum::<f64>().sqrt();
    crate::scene::sample::Trs {
        translation: t.map(f64::from),
        rotation: q.map(|v| if l > 0.0 { v as f64 / l } else { 0.0 }),
        scale: s.map(f64::from),
    }
    .matrix()
}

/// The world matrix of node `i` at rest.
fn world(scene: &Scene, i: usize) -> M4 {
    let mut m = local(&scene.nodes[i].transform);
    let mut p = scene.nodes[i].parent;
    let mut steps = 0;
    while let Some(k) = p.filter(|_| steps <= scene.nodes.len()) {
        m = mul(&local(&scene.nodes[k].transform), &m);
        p = scene.nodes[k].parent;
        steps += 1;
    }
    m
}

/// Inverse of an affine matrix (bottom row 0 0 0 1); the identity when singular.
fn inverse_affine(m: &M4) -> M4 {
    let a = |r: usize, c: usize| m[c * 4 + r];
    let det = a(0, 0) * (a(1, 1) * a(2, 2) - a(1, 2) * a(2, 1))
        - a(0, 1) * (a(1, 0) * a(2, 2) - a(1, 2) * a(2, 0))
        + a(0, 2) * (a(1, 0) * a(2, 1) - a(1, 1) * a(2, 0));
    let mut o = [0.0; 16];
    if det.abs() < 1e-300 || !det.is_finite() {
        for i in 0..4 {
            o[i * 5] = 1.0;
        }
        return o;
    }
    let cof = |r: usize, c: usize| {
        let (r1, r2) = ((r + 1) % 3, (r + 2) % 3);
        let (c1, c2) = ((c + 1) % 3, (c + 2) % 3);
        a(r1, c1) * a(r2, c2) - a(r1, c2) * a(r2, c1)
    };
    for r in 0..3 {
        for c in 0..3 {
            // inverse[r][c] = cofactor[c][r] / det
            o[c * 4 + r] = cof(c, r) / det;
        }
    }
    for r in 0..3 {
        o[12 + r] = -(0..3).map(|k| o[k * 4 + r] * m[12 + k]).sum::<f64>();
    }
    o[15] = 1.0;
    o
}

fn transform_point(m: &M4, p: [f32; 3]) -> [f32; 3] {
    let p = p.map(f64::from);
    [0, 1, 2].map(|r| (m[r] * p[0] + m[4 + r] * p[1] + m[8 + r] * p[2] + m[12 + r]) as f32)
}

fn transform_dir(m: &M4, d: [f64; 3]) -> [f32; 3] {
    [0, 1, 2].map(|r| (m[r] * d[0] + m[4 + r] * d[1] + m[8 + r] * d[2]) as f32)
}

/// A calculated element: the coordinate that computed it and its shared (local) vector.
type Calc = Vec<Option<(usize, [i16; 3])>>;

/// Adds one skinned mesh per block that draws shared polygons; `coords` = the number of
/// coordinate nodes (nodes `0..coords`).
pub(super) fn add(
    hmd: &Hmd,
    scene: &mut Scene,
    conv: &Conv,
    coords: usize,
    tex: &mut Texturing,
) -> crate::Result<()> {
    let player = Player::new(hmd, &PlayOptions::default());
    let rest = player.frame();
    // Calculated section → per element (coordinate, file vector).
    let mut calc: BTreeMap<(u32, bool), Calc> = BTreeMap::new();
    for c in calculated_vectors(hmd, &player, &rest) {
        let normals = c.kind == "normals";
        let mut cache: BTreeMap<u32, Vec<[i16; 3]>> = BTreeMap::new();
        let list = c
            .coordinates
            .iter()
            .zip(&c.sources)
            .map(|(coord, src)| {
                let (coord, (sec, i)) = (coord.as_ref()?, src.as_ref()?);
                let v = cache
                    .entry(*sec)
                    .or_insert_with(|| contiguous_vectors(hmd, *sec, &|s| file_vectors(hmd, s)));
                Some((*coord, *v.get(*i)?))
            })
            .collect();
        calc.insert((c.section, normals), list);
    }
    if calc.is_empty() {
        return Ok(());
    }
    let worlds: Vec<M4> = (0..coords).map(|i| world(scene, i)).collect();
    let headers = hmd.headers();
    let prims: BTreeMap<u32, &super::super::Primitive> = hmd.primitives().collect();
    for (b, &first) in hmd.blocks.iter().enumerate() {
        let mut prim = Primitive {
            material: Some(0),
            ..Primitive::default()
        };
        let mut joint_of_vertex: Vec<usize> = Vec::new();
        let mut keys = Vec::new();
        let mut at = first;
        let mut seen = std::collections::BTreeSet::new();
        while first != 0 && at != TERMINATE && seen.insert(at) {
            let Some(p) = prims.get(&at) else { break };
            at = p.next;
            let Some(h) = headers.get(&p.header) else {
                continue;
            };
            let ptr = |i: usize| h.words.get(i).and_then(|e| e.pointer());
            for t in &p.types {
                let kind = t.kind().drawn_as();
                let (0, 1) = (kind.developer(), kind.category()) else {
                    continue;
                };
                let TypeData::PolygonIndex { index, .. } = t.data else {
                    continue;
                };
                let Some(PolygonItem::Packets(run)) =
                    ptr(0).and_then(|s| polygon_item(hmd, s, index))
                else {
                    continue;
                };
                let empty = Vec::new();
                let verts = ptr(2).and_then(|s| calc.get(&(s, false))).unwrap_or(&empty);
                let norms = ptr(4).and_then(|s| calc.get(&(s, true))).unwrap_or(&empty);
                for packet in run.packets() {
                    add_packet(
                        &mut prim,
                        (&mut joint_of_vertex, &mut keys, Look::of(kind.0, &packet)),
                        &packet,
                        (verts, norms),
                        (conv, &*tex),
                        &worlds,
                    );
                }
            }
        }
        if prim.positions.is_empty() {
            continue;
        }
        // The joints this mesh uses, in coordinate order.
        let mut joints: Vec<usize> = joint_of_vertex.clone();
        joints.sort_unstable();
        joints.dedup();
        prim.joints = joint_of_vertex
            .iter()
            .map(|j| [joints.binary_search(j).unwrap_or(0) as u16, 0, 0, 0])
            .collect();
        prim.weights = vec![[1.0, 0.0, 0.0, 0.0]; joint_of_vertex.len()];
        common_root(scene, &joints);
        let inverse_bind_matrices = joints
            .iter()
            .map(|&j| inverse_affine(&worlds[j]).map(|x| x as f32))
            .collect();
        scene.skins.push(Skin {
            name: format!("shared block {b}"),
            joints,
            inverse_bind_matrices,
        });
        let mut mesh = Mesh {
            name: format!("shared block {b}"),
            primitives: vec![prim],
            ..Mesh::default()
        };
        tex.split(scene, &mut mesh, &keys)?;
        scene.meshes.push(mesh);
        let mut node = Node::new(format!("shared block {b}"));
        node.mesh = Some(scene.meshes.len() - 1);
        node.skin = Some(scene.skins.len() - 1);
        scene.nodes.push(node);
    }
    Ok(())
}

/// Gives the joints' roots one parent when they have several.
fn common_root(scene: &mut Scene, joints: &[usize]) {
    let root_of = |scene: &Scene, mut i: usize| {
        let mut steps = 0;
        while let Some(p) = scene.nodes[i].parent.filter(|_| steps <= scene.nodes.len()) {
            i = p;
            steps += 1;
        }
        i
    };
    let mut roots: Vec<usize> = joints.iter().map(|&j| root_of(scene, j)).collect();
    roots.sort_unstable();
    roots.dedup();
    if roots.len() < 2 {
        return;
    }
    let top = match scene.nodes.iter().position(|n| n.name == "HMD root") {
        Some(t) => t,
        None => {
            scene.nodes.push(Node::new("HMD root"));
            scene.nodes.len() - 1
        }
    };
    for r in roots {
        if r != top {
            scene.nodes[r].parent = Some(top);
        }
    }
}

fn add_packet(
    prim: &mut Primitive,
    (joint_of_vertex, keys, look): (&mut Vec<usize>, &mut Vec<Surface>, Look),
    p: &Packet,
    (verts, norms): (&Calc, &Calc),
    (conv, tex): (&Conv, &Texturing),
    worlds: &[M4],
) {
    let texels = tex.source(p);
    // The same corner order as the non-shared packets (clockwise fronts turned round).
    let corners: &[[usize; 3]] = match p.vertices.len() {
        3 => &[[0, 2, 1]],
        4 => &[[0, 2, 1], [1, 2, 3]],
        _ => return,
    };
    for tri in corners {
        let Some(vs) = tri
            .iter()
            .map(|&c| {
                let (j, v) = (*verts.get(*p.vertices.get(c)? as usize)?)?;
                Some((j, worlds.get(j)?, v))
            })
            .collect::<Option<Vec<_>>>()
        else {
            continue;
        };
        for (k, &c) in tri.iter().enumerate() {
            let (j, w, v) = vs[k];
            prim.positions
                .push(transform_point(w, conv.point(v.map(f64::from))));
            joint_of_vertex.push(j);
            let n = p
                .normals
                .get(c)
                .or_else(|| p.normals.first())
                .and_then(|&i| norms.get(i as usize).copied().flatten())
                .and_then(|(nj, n)| {
                    Some(transform_dir(worlds.get(nj)?, conv.dir(n.map(f64::from))))
                })
                .unwrap_or([0.0, 1.0, 0.0]);
            prim.normals.push(n);
            push_corner_surface(prim, (keys, look), (p, c), tex, texels.as_ref());
        }
    }
}
