//! What an ODOL LOD keeps for moving its vertices, decoded for the mesh view
//! ([`super::OdolMesh`]): its named selections and, in Arma ODOL, the per-vertex bone
//! references and the LOD's sub-skeleton map, with the model's skeleton ([`OdolSkeleton`]).
//!
//! | record | fields (layout in `arma.rs` and `odol7.rs`) |
//! |---|---|
//! | named selection | asciiz name, `CA<idx>` polygons, (v7: `CA<u8>` polygon weights, `CA<u32>`), i32, u8 sectional, `CA<i32>` sections, `CA<idx>` vertices, u32 size + compressed(size) vertex weights (v7: `CA<u8>`) |
//! | sub-skeleton map (Arma, LOD start) | u32 n × i32: the skeleton bone of each of the LOD's bones |
//! | vertex bone reference (Arma, vertex table) | `CA<12 bytes>`: i32 count, then 4 × (u8 LOD bone, u8 weight) |
//!
//! Vertex indices are into the LOD's vertex table, the one the positions come from (every
//! index of the corpus's v50 `tablet.p3d` is below its LOD's vertex count). What a weight byte
//! means is in `docs/rtm.md` ("RTM + the P3D it animates"), with its sources.

use super::types::Text;
use crate::bytes::{ByteOrder, Le};

/// One named selection of an ODOL LOD.
#[derive(Debug, Clone, PartialEq)]
pub struct OdolSelection {
    /// Selection name.
    pub name: Text,
    /// Polygon indices (into the LOD's polygon list).
    pub faces: Vec<u32>,
    /// Whether the selection is sectional (whole sections).
    pub sectional: bool,
    /// Section indices.
    pub sections: Vec<i32>,
    /// Vertex indices, into the LOD's vertex table.
    pub vertices: Vec<u32>,
    /// One weight byte per vertex of `vertices`, or none (every listed vertex fully selected).
    pub weights: Vec<u8>,
    /// Byte offset of the selection's vertex array (its count word).
    pub vertices_at: u64,
    /// Byte offset of the selection's weight array (its size word).
    pub weights_at: u64,
}

/// One vertex's bone references (Arma `AnimationRTWeight`): up to four (LOD bone, weight)
/// pairs, of which the first `count` are used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VertexBoneRef {
    /// How many of `pairs` are used, as stored (0..=4 in a sound file).
    pub count: i32,
    /// (index into the LOD's sub-skeleton map, weight byte).
    pub pairs: [(u8, u8); 4],
}

/// An Arma ODOL's skeleton (model info): bones with their parents' names.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct OdolSkeleton {
    /// Skeleton name (empty: the model has no skeleton).
    pub name: Text,
    /// Bones: (name, parent name; empty for a root), in file order.
    pub bones: Vec<(Text, Text)>,
}

/// Little-endian indices of `size` bytes (2 or 4) each.
pub(super) fn indices(b: &[u8], size: u64) -> Vec<u32> {
    if size == 4 {
        Le::u32s(b).collect()
    } else {
        Le::u16s(b).map(u32::from).collect()
    }
}

/// Little-endian i32s.
pub(super) fn i32s(b: &[u8]) -> Vec<i32> {
    Le::u32s(b).map(|v| v as i32).collect()
}

/// 12-byte vertex bone references.
pub(super) fn bone_refs(b: &[u8]) -> Vec<VertexBoneRef> {
    b.chunks_exact(12)
        .map(|c| VertexBoneRef {
            count: Le::u32_from([c[0], c[1], c[2], c[3]]) as i32,
            pairs: [(c[4], c[5]), (c[6], c[7]), (c[8], c[9]), (c[10], c[11])],
        })
        .collect()
}
