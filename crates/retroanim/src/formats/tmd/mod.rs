//! TMD: PlayStation libgs model data (ID 0x41).
//!
//! Sources: Sony *File Formats* (Nov 1998) pp. 2-24..2-34 (`reference/Filefrmt.txt`, "TMD"),
//! `notes/tmd_tim.md` (packet table checked against every corpus file). All little-endian; a
//! word is 32 bits; `[a b c d]` lists bytes from the lowest address.
//!
//! | offset | size | field | unit / meaning | source |
//! |---|---|---|---|---|
//! | 0 | 4 | ID | 0x00000041 | FF "Header" |
//! | 4 | 4 | FLAGS | bit 0 FIXP: pointers are real addresses; other bits 0 | FF "Header" |
//! | 8 | 4 | NOBJ | number of objects | FF "Header" |
//! | 12 | 28 × NOBJ | object table | 7 words per object | FF "Object table" |
//! | +0 | 4 | vert_top | byte offset from the object table (FIXP 0) or address | FF |
//! | +4 | 4 | n_vert | vertices | FF |
//! | +8 | 4 | normal_top | as vert_top | FF |
//! | +12 | 4 | n_normal | normals | FF |
//! | +16 | 4 | primitive_top | as vert_top | FF |
//! | +20 | 4 | n_primitive | primitives | FF |
//! | +24 | 4 | scale | signed power-of-two exponent, ignored by libgs | FF |
//! | vert_top | 8 × n_vert | vertices | SVECTOR int16 x, y, z, pad | FF "Vertex" |
//! | normal_top | 8 × n_normal | normals | SVECTOR, 4096 = 1.0 | FF "Normal" |
//! | primitive_top | | primitives | header `[olen ilen flag mode]` + ilen words | FF "Primitive" |
//!
//! Primitive data by mode and flag: see [`PolygonLayout`] (colour words, then texture words for
//! textured polygons, which come first; then the normal/vertex index halfwords, padded to a
//! word); lines `[r g b mode] ([r g b -]) [v0 v1]`; sprites `[v0 tsb] [u v cba] ([w h])`.
//!
//! Readings taken where the sources are silent or disagree:
//! - The layout is selected by CODE, IIP, quad, TME and the LGT and GRD flags, never by TGE or
//!   ABE: the corpus holds 176 lit flat packets with mode 0x21 and flag 0. A packet whose `ilen`
//!   disagrees with the layout is kept as [`PrimitiveData::Raw`] and reported by `validate`.
//! - Unlit Gouraud polygons carry one colour per vertex whatever the GRD bit (PSXPrev PR #82).
//! - With FIXP set the pointers are addresses of a copy in RAM; the reader takes the object
//!   table's address to be the lowest block pointer minus the table size (the first block follows
//!   the table in every file the PsyQ tools write) and keeps it as [`Tmd::address_base`].
//! - Blocks may be shared by several objects or placed in any order; the writer puts each block
//!   where its pointer says and keeps uncovered bytes as [`Gap`]s, so any layout round-trips.

pub mod author;
mod mesh;
mod read;
pub mod scene;
mod types;
mod validate;
mod write;

use std::collections::BTreeMap;

pub use mesh::{Corner, Mesh, Triangle};
pub use read::{read, read_with};
pub use types::*;
pub use validate::validate;
pub use write::write;

/// The TMD ID word.
pub const FILE_ID: u32 = 0x41;

/// File offset of the object table (pointers with FIXP clear are measured from here).
pub const OBJECT_TABLE: usize = 12;

/// Words per object table entry.
pub const OBJECT_WORDS: usize = 7;

/// The summary `retroanim info` prints for a TMD.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Summary {
    /// Always `"tmd"`.
    pub format: &'static str,
    /// FIXP: pointers are addresses.
    pub fixp: bool,
    /// Number of objects.
    pub objects: usize,
    /// Vertices over all objects.
    pub vertices: usize,
    /// Normals over all objects.
    pub normals: usize,
    /// Primitives over all objects.
    pub primitives: usize,
    /// Triangles the meshes decode to.
    pub triangles: usize,
    /// Primitive count per `mode/flag` pair (hex), e.g. `"34/00"`.
    pub packet_modes: BTreeMap<String, usize>,
    /// Packets kept raw (unknown mode or length).
    pub raw_packets: usize,
    /// Bounding box of all vertices: `[[min x, y, z], [max x, y, z]]`.
    pub bounds: Option<[[i16; 3]; 2]>,
}

impl Tmd {
    /// The summary `retroanim info` shows.
    pub fn summary(&self) -> Summary {
        // Counted by (mode, flag) and named once per pair: two-digit hex names sort as the
        // numbers do.
        let mut modes: BTreeMap<(u8, u8), usize> = BTreeMap::new();
        let mut raw_packets = 0;
        let mut bounds: Option<[[i16; 3]; 2]> = None;
        for o in &self.objects {
            for p in &o.primitives {
                *modes.entry((p.mode, p.flag)).or_insert(0) += 1;
                if matches!(p.data, PrimitiveData::Raw { .. }) {
                    raw_packets += 1;
                }
            }
            for v in &o.vertices {
                let p = [v.x, v.y, v.z];
                let b = bounds.get_or_insert([p, p]);
                for k in 0..3 {
                    b[0][k] = b[0][k].min(p[k]);
                    b[1][k] = b[1][k].max(p[k]);
                }
            }
        }
        let packet_modes = modes
            .into_iter()
            .map(|((m, f), n)| (format!("{m:02x}/{f:02x}"), n))
            .collect();
        Summary {
            format: "tmd",
            fixp: self.flags & 1 != 0,
            objects: self.objects.len(),
            vertices: self.objects.iter().map(|o| o.vertices.len()).sum(),
            normals: self.objects.iter().map(|o| o.normals.len()).sum(),
            primitives: self.objects.iter().map(|o| o.primitives.len()).sum(),
            triangles: self.triangle_count(),
            packet_modes,
            raw_packets,
            bounds,
        }
    }
}
