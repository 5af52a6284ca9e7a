//! Skinned meshes → shared polygons (category 1), laid out as Sony's samples are
//! (`TUTO/PYRAMID/JOINT.LAB`, `PYRAMID*`, `VERT`, `YESNO5`).
//!
//! The inverse of the bridge's reading (`scene/shared_mesh.rs`): there each calculated vertex
//! is one shared vertex moved by the coordinate of the block whose pre-calculation computed it,
//! a glTF vertex with one joint at weight 1. Here a skinned mesh's vertices are written in the
//! space of the joint they follow, `inverse bind matrix × bind-pose position` (console axes and
//! units), in one *shared vertex section* grouped by joint; each joint's block gets a
//! *pre-calculation primitive* (type `0x01000000`, after the block's own polygons) that moves
//! its run of shared vertices (and normals) with its coordinate into the *calculated* vertex
//! (normal) section at the same indices; the POST-PROCESS block, which the driver reaches after
//! every coordinate's block, gets the *shared polygon primitive* (type `0x01000000 |` the
//! non-shared packet type) whose packets index the calculated sections. Its header is
//! `M(shared polygons) M(shared vertices) M(calculated vertices) M(shared normals)
//! M(calculated normals)`; the pre-calculations use the same header. The console then puts a
//! vertex at `W_j(t) · (B_j⁻¹ · p)`, where glTF skinning with one joint of weight 1 puts it.
//!
//! # Readings taken
//! - **No blending on the console**: a pre-calculation moves a vertex with exactly one
//!   coordinate. A vertex with two or more joints of non-zero weight follows its heaviest joint
//!   (the first of equal ones); the vertices concerned are counted in a note
//!   (`skin-blend-dropped`). A vertex with no joint of non-zero weight follows the skinned
//!   node's own coordinate (noted, `skin-unweighted`).
//! - **Normals** are turned by the inverse transpose of the inverse bind matrix and
//!   normalised (4096 = 1): the console's pre-calculation rotates them with the coordinate.
//! - **Vertices of different joints stay apart** even where they coincide at bind pose (the
//!   TMD author interns vertices by position and heaviest joint).
//! - **The mesh node's own transform is ignored**, as glTF ignores a skinned node's transform:
//!   the node keeps a coordinate but no polygons of its own.
//! - Morph targets of a skinned mesh are not written (a vertex MIMe moves a block's own
//!   vertex section, not the shared one): a note with the count (`skin-morph-dropped`).

use std::collections::HashMap;

use crate::error::Result;
use crate::formats::tmd::author::{
    heaviest_joint, mul3, normal_matrix, transform_point, unit, Counts,
};
use crate::formats::tmd::{Object, PrimitiveData};
use crate::scene::{PrimitiveMode, Scene};

use super::super::cat0_polygon::PacketRun;
use super::super::types::SVector;
use super::{unencodable, ToConsole};

/// The shared polygon type bits: category 1.
pub(super) const CATEGORY: u32 = 0x0100_0000;

/// One joint's run of shared vertices and normals (element indices).
pub(super) struct JointRun {
    /// The node (coordinate) whose block gets the pre-calculation.
    pub node: usize,
    /// First shared vertex, number of vertices.
    pub vertices: (u32, u32),
    /// First shared normal, number of normals.
    pub normals: (u32, u32),
}

/// A skinned mesh as shared polygons.
pub(super) struct Shared {
    /// The skinned node.
    pub node: usize,
    /// (type word without the category, packets) runs, indexing the calculated sections.
    pub runs: Vec<(u32, PacketRun)>,
    /// Shared vertices in their joint's space, grouped by joint.
    pub vertices: Vec<SVector>,
    /// Shared normals in their joint's space, grouped by joint (at least one).
    pub normals: Vec<SVector>,
    /// The joints' runs, in node order.
    pub joints: Vec<JointRun>,
}

const IDENTITY: [f64; 16] = [
    1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0,
];

/// Shared polygons for node `node`'s skinned mesh (TMD `object`, made with `by_joint`), or
/// `None` when the node has no skin or its mesh no joints.
pub(super) fn build(
    scene: &Scene,
    conv: &ToConsole,
    node: usize,
    object: &Object,
    (vjoints, njoints): (&[Option<u16>], &[Option<u16>]),
    notes: &mut Counts,
) -> Result<Option<Shared>> {
    let Some(skin) = scene.nodes[node].skin.and_then(|s| scene.skins.get(s)) else {
        return Ok(None);
    };
    let Some(mesh) = scene.nodes[node].mesh.and_then(|m| scene.meshes.get(m)) else {
        return Ok(None);
    };
    if mesh.primitives.iter().all(|p| p.joints.is_empty()) || object.vertices.is_empty() {
        return Ok(None);
    }
    // A joint tag → (node, inverse bind matrix); `None` (or a joint the skin lacks): the
    // skinned node itself.
    let bind = |tag: Option<u16>| -> (usize, [f64; 16]) {
        tag.and_then(|j| {
            let n = *skin
                .joints
                .get(j as usize)
                .filter(|&&n| n < scene.nodes.len())?;
            let m = skin
                .inverse_bind_matrices
                .get(j as usize)
                .map_or(IDENTITY, |m| m.map(f64::from));
            Some((n, m))
        })
        .unwrap_or((node, IDENTITY))
    };
    // Exact joint-space positions, from the scene's vertices (the TMD author's are rounded).
    let at: HashMap<([i16; 3], Option<u16>), usize> = object
        .vertices
        .iter()
        .zip(vjoints)
        .enumerate()
        .map(|(i, (v, j))| (([v.x, v.y, v.z], *j), i))
        .collect();
    let mut exact: Vec<Option<[f64; 3]>> = vec![None; object.vertices.len()];
    let (mut blended, mut unweighted) = (0usize, 0usize);
    for prim in &mesh.primitives {
        if prim.mode != PrimitiveMode::Triangles {
            continue;
        }
        for (vi, p) in prim.positions.iter().enumerate() {
            let p = p.map(f64::from);
            let key = conv
                .point(p)
                .map(|v| v.round().clamp(-32768.0, 32767.0) as i16);
            let (j, w) = (prim.joints.get(vi), prim.weights.get(vi));
            let tag = j.zip(w).and_then(|(j, w)| heaviest_joint(j, w));
            let Some(&i) = at.get(&(key, tag)) else {
                continue; // not drawn by any triangle
            };
            if exact[i].is_some() {
                continue;
            }
            match w.map(|w| w.iter().filter(|&&x| x > 0.0).count()) {
                Some(0) | None => unweighted += 1,
                Some(1) => {}
                Some(_) => blended += 1,
            }
            exact[i] = Some(conv.point(transform_point(&bind(tag).1, p)));
        }
    }
    notes.add("skin-blend-dropped", blended, || {
        "skinned vertex(es) with two or more joints of non-zero weight follow their heaviest joint only (the console moves a shared vertex with one coordinate)".into()
    });
    notes.add("skin-unweighted", unweighted, || {
        "skinned vertex(es) with no joint of non-zero weight follow the skinned node rigidly".into()
    });
    // Group by joint node.
    let node_of = |tags: &[Option<u16>]| tags.iter().map(|&t| bind(t).0).collect::<Vec<_>>();
    let (vnode, nnode) = (node_of(vjoints), node_of(njoints));
    let order = |nodes: &[usize]| {
        let mut o: Vec<usize> = (0..nodes.len()).collect();
        o.sort_by_key(|&i| nodes[i]);
        let mut new = vec![0u16; nodes.len()];
        for (k, &i) in o.iter().enumerate() {
            new[i] = k as u16;
        }
        (o, new)
    };
    let (vorder, vnew) = order(&vnode);
    let (norder, nnew) = order(&nnode);
    let mut vertices = Vec::with_capacity(vorder.len());
    for &i in &vorder {
        let v = &object.vertices[i];
        let p = exact[i].unwrap_or_else(|| {
            // Not found again (should not happen): the rounded bind position, moved likewise.
            let q = [v.x, v.y, v.z].map(f64::from);
            let scene_p = [0, 1, 2].map(|c| q[c] * conv.signs[c] / conv.k);
            conv.point(transform_point(&bind(vjoints[i]).1, scene_p))
        });
        let r = p.map(f64::round);
        if r.iter().any(|x| !(-32768.0..=32767.0).contains(x)) {
            return Err(unencodable(format!(
                "node {node} ({:?}): skinned vertex {i} lies at ({:.0}, {:.0}, {:.0}) console units from its joint, which does not fit int16; choose a larger --scale (metres per unit)",
                scene.nodes[node].name, r[0], r[1], r[2]
            )));
        }
        vertices.push(SVector {
            v: r.map(|x| x as i16),
            pad: 0,
        });
    }
    let mut normals = Vec::with_capacity(norder.len().max(1));
    for &i in &norder {
        let n = &object.normals[i];
        let d = [n.x, n.y, n.z].map(f64::from);
        // Into scene axes, turned by the inverse bind matrix, back.
        let s = [0, 1, 2].map(|c| d[c] * conv.signs[c]);
        let t = mul3(&normal_matrix(&bind(njoints[i]).1), s);
        let back = unit([0, 1, 2].map(|c| t[c] * conv.signs[c])).unwrap_or([0.0, -1.0, 0.0]);
        normals.push(SVector {
            v: back.map(|x| (x * 4096.0).round().clamp(-32768.0, 32767.0) as i16),
            pad: 0,
        });
    }
    if normals.is_empty() {
        normals.push(SVector {
            v: [0, -4096, 0],
            pad: 0,
        });
    }
    // The packets, indexing the regrouped (calculated) elements.
    let mut remapped = object.clone();
    for prim in &mut remapped.primitives {
        if let PrimitiveData::Polygon(poly) = &mut prim.data {
            for v in poly.vertices.iter_mut() {
                *v = vnew.get(*v as usize).copied().unwrap_or(*v);
            }
            for n in poly.normals.iter_mut() {
                *n = nnew.get(*n as usize).copied().unwrap_or(*n);
            }
        }
    }
    let runs = super::geometry::runs(&remapped, notes)?;
    // The joints' runs.
    let mut joints: Vec<JointRun> = Vec::new();
    let mut nodes: Vec<usize> = vnode.iter().chain(&nnode).copied().collect();
    nodes.sort_unstable();
    nodes.dedup();
    let range = |sorted: &[usize], n: usize| {
        let first = sorted.partition_point(|&x| x < n);
        let end = sorted.partition_point(|&x| x <= n);
        (first as u32, (end - first) as u32)
    };
    let vsorted: Vec<usize> = vorder.iter().map(|&i| vnode[i]).collect();
    let nsorted: Vec<usize> = norder.iter().map(|&i| nnode[i]).collect();
    for n in nodes {
        joints.push(JointRun {
            node: n,
            vertices: range(&vsorted, n),
            normals: range(&nsorted, n),
        });
    }
    notes.add("skin-morph-dropped", mesh.target_names.len(), || {
        "morph target(s) of a skinned mesh left out (shared polygons are written without vertex MIMe)".into()
    });
    Ok(Some(Shared {
        node,
        runs,
        vertices,
        normals,
        joints,
    }))
}
