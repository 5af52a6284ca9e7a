//! Category 1, shared polygons: the pre-calculation primitives (type `0x01000000`, with INI
//! `0x01800000`) and the vertices they compute (notes §5; FF p.2-54..2-56, 2-90..2-92; LAB
//! `TUTO/PYRAMID/JOINT.LAB`).
//!
//! A pre-calculation primitive in block k (coordinate k−1) transforms `n` vertices of its
//! header's *shared vertex section* (word 1), from element `src` on, with that coordinate and
//! stores them in the *calculated vertex section* (word 2) from element `dst` on; likewise
//! normals from the shared normal section (word 3) into the calculated normal section
//! (word 4). Shared polygon drivers (in the POST-PROCESS block) then draw packets whose vertex
//! and normal indices name calculated elements, so one polygon can span several coordinates:
//! skinning with one joint per vertex.
//!
//! The console stores screen coordinates (`[vx vy] [otz p]`) and lit colours in the calculated
//! areas, computed with the local-screen matrix; we stop one step earlier, at world
//! coordinates (the coordinate's `GsGetLw` matrix, the GTE's RotTrans: `t + (m·v) >> 12`) and
//! world-rotated normals (`(m·n) >> 12`, 4096 = 1), which is what a modern renderer needs and
//! what the projection is applied to. A pre-calculation in the PRE- or POST-PROCESS block (no
//! coordinate) is skipped; entries past the end of either section are skipped (the console
//! would read or write the words that follow, which FF p.2-56 says are the next sections).

use std::collections::{BTreeMap, BTreeSet};

use super::play::{apply, Frame, Player};
use super::types::{Hmd, RegionBody, SVector, SectionData, TypeData, TERMINATE};
use serde::Serialize;

/// One pre-calculation primitive: which coordinate moves which shared vectors where.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SharedBinding {
    /// Word offset of the pre-calculation primitive.
    pub primitive: u32,
    /// The block it is chained into.
    pub block: usize,
    /// The coordinate that block draws in.
    pub coordinate: usize,
    /// Word offsets of the shared vertex, calculated vertex, shared normal and calculated
    /// normal sections (header words 1..4; `None` where the header has no pointer).
    pub sections: [Option<u32>; 4],
    /// Number of vertices, first shared vertex, first calculated vertex.
    pub vertices: [u32; 3],
    /// Number of normals, first shared normal, first calculated normal.
    pub normals: [u32; 3],
}

/// The calculated vectors of one calculated section at one frame.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CalculatedVectors {
    /// Word offset of the calculated vertex (or normal) section.
    pub section: u32,
    /// `"vertices"` or `"normals"`.
    pub kind: &'static str,
    /// Per element: world position (vertices) or world-rotated normal (4096 = 1); `None` where
    /// no pre-calculation writes the element.
    pub vectors: Vec<Option<[i32; 3]>>,
    /// Per element: the coordinate that computed it.
    pub coordinates: Vec<Option<usize>>,
    /// Per element: `(shared section, element)` it was computed from.
    pub sources: Vec<Option<(u32, usize)>>,
}

/// Every pre-calculation primitive of `hmd`, block by block.
pub fn shared_bindings(hmd: &Hmd) -> Vec<SharedBinding> {
    let headers = hmd.headers();
    let prims: BTreeMap<u32, &super::Primitive> = hmd.primitives().collect();
    let coords = hmd.coordinates().map_or(0, |c| c.len());
    let n = hmd.blocks.len();
    let mut out = Vec::new();
    for (b, &first) in hmd.blocks.iter().enumerate() {
        // Blocks 1..N−2 draw in coordinates 0..N−3.
        let Some(coordinate) = b.checked_sub(1).filter(|&c| b + 1 < n && c < coords) else {
            continue;
        };
        let mut at = first;
        let mut seen = BTreeSet::new();
        while first != 0 && at != TERMINATE && seen.insert(at) {
            let Some(p) = prims.get(&at) else { break };
            let here = at;
            at = p.next;
            let Some(h) = headers.get(&p.header) else {
                continue;
            };
            let ptr = |i: usize| h.words.get(i).and_then(|e| e.pointer());
            for t in &p.types {
                let TypeData::PreCalculation(pc) = t.data else {
                    continue;
                };
                out.push(SharedBinding {
                    primitive: here,
                    block: b,
                    coordinate,
                    sections: [ptr(1), ptr(2), ptr(3), ptr(4)],
                    vertices: [pc.vertices, pc.vertex_source, pc.vertex_destination],
                    normals: [pc.normals, pc.normal_source, pc.normal_destination],
                });
            }
        }
    }
    out
}

/// The vectors of the section at `at` followed by those of the sections laid out right after
/// it with the same role (FF p.2-56: non-shared, shared and calculated entries are contiguous,
/// and an index may run past its own section into the next). `vectors_of` gives a section's
/// current vectors (the file's, or the player's MIMe-deformed ones).
pub fn contiguous_vectors(
    hmd: &Hmd,
    at: u32,
    vectors_of: &dyn Fn(u32) -> Option<Vec<[i16; 3]>>,
) -> Vec<[i16; 3]> {
    let mut out = Vec::new();
    let Some(start) = hmd.regions.iter().position(|r| r.offset == at) else {
        return out;
    };
    let mut role = None;
    let mut next = at;
    for r in &hmd.regions[start..] {
        let RegionBody::Section(s) = &r.body else {
            break;
        };
        let SectionData::Vectors { odd_word, .. } = &s.data else {
            break;
        };
        if r.offset != next || role.is_some_and(|x| x != s.role) {
            break;
        }
        role = Some(s.role);
        match vectors_of(r.offset) {
            Some(v) => out.extend(v),
            None => break,
        }
        if odd_word.is_some() {
            break;
        }
        next = r.offset.saturating_add(s.words() as u32);
    }
    out
}

/// The file's own vectors of a vector section.
pub fn file_vectors(hmd: &Hmd, at: u32) -> Option<Vec<[i16; 3]>> {
    match &hmd.section_at(at)?.data {
        SectionData::Vectors { vectors, .. } => {
            Some(vectors.iter().map(|v: &SVector| v.v).collect())
        }
        _ => None,
    }
}

/// The calculated vertices and normals at `frame` (the player's current state; MIMe-deformed
/// shared vectors where a vertex or normal MIMe moves them).
pub fn calculated_vectors(hmd: &Hmd, player: &Player<'_>, frame: &Frame) -> Vec<CalculatedVectors> {
    let mut out: Vec<CalculatedVectors> = Vec::new();
    // Each source section is gathered once, however many pre-calculations read it.
    let mut sources: BTreeMap<(u32, bool), Vec<[i16; 3]>> = BTreeMap::new();
    let mut index: BTreeMap<(u32, bool), usize> = BTreeMap::new();
    for b in shared_bindings(hmd) {
        let Some(world) = frame.coordinates.get(b.coordinate).map(|c| c.world) else {
            continue;
        };
        for (normals, src_sec, dst_sec, [count, src, dst]) in [
            (false, b.sections[0], b.sections[1], b.vertices),
            (true, b.sections[2], b.sections[3], b.normals),
        ] {
            let (Some(src_sec), Some(dst_sec)) = (src_sec, dst_sec) else {
                continue;
            };
            let len = match hmd.section_at(dst_sec).map(|s| &s.data) {
                Some(SectionData::Vectors { vectors, .. }) => vectors.len(),
                _ => continue,
            };
            let source = sources.entry((src_sec, normals)).or_insert_with(|| {
                contiguous_vectors(hmd, src_sec, &|s| player.vectors(s, normals))
            });
            let kind = if normals { "normals" } else { "vertices" };
            let i = match index.get(&(dst_sec, normals)) {
                Some(&i) => i,
                None => {
                    index.insert((dst_sec, normals), out.len());
                    out.push(CalculatedVectors {
                        section: dst_sec,
                        kind,
                        vectors: vec![None; len],
                        coordinates: vec![None; len],
                        sources: vec![None; len],
                    });
                    out.len() - 1
                }
            };
            let c = &mut out[i];
            // Bounded by both sections, whatever the count says.
            for k in 0..(count as usize).min(len) {
                let (s, d) = (src as usize + k, dst as usize + k);
                let (Some(v), true) = (source.get(s), d < len) else {
                    break;
                };
                let v = v.map(i32::from);
                let w = if normals {
                    let mut rot = world;
                    rot.t = [0; 3];
                    apply(&rot, v)
                } else {
                    apply(&world, v)
                };
                c.vectors[d] = Some(w);
                c.coordinates[d] = Some(b.coordinate);
                c.sources[d] = Some((src_sec, s));
            }
        }
    }
    out
}
