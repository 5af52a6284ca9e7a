//! PMD: PlayStation libgs "high-speed modeling data" (ID 0x42): objects of primitive groups
//! whose packets hold ready-made GPU primitives (double-buffered) and their vertices.
//!
//! Sources: Sony *File Formats* (Nov 1998) pp. 2-35..2-39 (`reference/Filefrmt.txt`, "PMD"),
//! `libgpu.h` for the POLY_* primitives, *Data Conversion* (`reference/Dataconv.txt`,
//! "TMD2PMD"). All little-endian; a word is 32 bits.
//!
//! | offset | size | field | unit / meaning | source |
//! |---|---|---|---|---|
//! | 0 | 4 | ID | 0x00000042 | FF Figure 77 |
//! | 4 | 4 | PRIM POINT | file offset of the first primitive group | FF |
//! | 8 | 4 | VERT POINT | file offset of the VERTEX group; 0 with independent vertices | FF |
//! | 12 | 4 | NOBJ | objects | FF Figure 78 |
//! | 16 | 4 + 4·NPTR | object | NPTR, then NPTR POINTERs (file offsets of primitive groups) | FF Figure 78 |
//! | PRIM POINT | | primitive groups | one after another | FF Figure 79 |
//! | +0 | 4 | TYPE / NPACKET | bits 31..16 TYPE, 15..0 packet count | FF Figure 79 |
//! | +4 | | packets | `pkt[2]` (two POLY_* of the TYPE), then `SVECTOR v1..v4` (independent) or `long vp1..vp4` (shared: byte offsets into the VERTEX group) | FF pp. 2-38..2-39 |
//! | VERT POINT | 8·n | VERTEX group | SVECTOR x, y, z, pad, to the end of the file | FF Figure 80 |
//!
//! TYPE bits (FF Table 2-2): 16 quadrilateral, 17 Gouraud, 18 texture off, 19 shared
//! vertices, 20 light-source calculation, 21 no back clip, 22..31 reserved. A POLY_* primitive
//! is its tag word, then per vertex a colour word `[r g b code]` (the first vertex's always,
//! the others' when Gouraud), an XY word (filled in by libgs) and, textured, a UV word `[u v
//! clut|tpage|pad]`: POLY_F3 5 words, FT3 8, G3 7, GT3 10, F4 6, FT4 10, G4 9, GT4 13.
//!
//! Readings taken where the sources are silent or disagree:
//! - POINTERs and both POINTs are file offsets (every corpus file: PRIM POINT is the object
//!   table's end). Groups are read one after another from PRIM POINT to the end of the last one
//!   a POINTER names; a POINTER between group starts is an error.
//! - The VERTEX group has no count: it runs from VERT POINT to the end of the file (bytes short
//!   of a whole SVECTOR are kept as trailing). Embedded in a larger blob, a PMD ends after the
//!   last vertex a packet uses ([`Pmd::structural_len`]).
//! - A file whose first word is not 0x42 is read as a bare primitive group (the `TYPE/NPACKET`
//!   word and packets, what libgte's `RotPMD_*` take): Sony's WALK sample ships C0SV1.PMD and
//!   VENUS.PMD so. Their TYPE follows an older numbering (0x0001 for independent POLY_G3, 0x0011
//!   for shared): the layout is taken from the first packet's GPU code and the shared or
//!   independent size that fills the file exactly; TYPE is kept verbatim.
//! - A PMD holds no normals: libgs's light-source calculation for PMD works from the polygon.
//!   [`to_tmd`] makes unlit TMD polygons with the packet's colours and says so in a note.

mod read;
pub mod tmd;
mod types;
mod validate;
mod write;

use crate::bytes::{ByteOrder, Le};
use std::collections::BTreeMap;

pub use read::{read, read_with};
pub use tmd::{from_tmd, to_tmd, FromTmdOptions};
pub use types::*;
pub use validate::validate;
pub use write::write;

/// The PMD ID word (current version).
pub const FILE_ID: u32 = 0x42;

/// The summary `retroanim info` prints for a PMD.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Summary {
    /// Always `"pmd"`.
    pub format: &'static str,
    /// `"file"` (ID and object table) or `"bare group"`.
    pub layout: &'static str,
    /// Objects.
    pub objects: usize,
    /// Primitive groups.
    pub groups: usize,
    /// Packets (polygons) over all groups.
    pub packets: usize,
    /// Shared vertices in the VERTEX group.
    pub shared_vertices: usize,
    /// Packets per primitive type and vertex mode, e.g. `"POLY_G3 shared"`.
    pub packet_kinds: BTreeMap<String, usize>,
    /// Groups with light-source calculation on (TYPE bit 20; files with a header only).
    pub lit_groups: usize,
}

impl Pmd {
    /// The summary `retroanim info` shows.
    pub fn summary(&self) -> Summary {
        let mut kinds = BTreeMap::new();
        for g in &self.groups {
            let name = format!(
                "{} {}",
                g.kind.primitive_name(),
                if g.kind.shared {
                    "shared"
                } else {
                    "independent"
                }
            );
            *kinds.entry(name).or_insert(0) += g.packets.len();
        }
        Summary {
            format: "pmd",
            layout: if self.header.is_some() {
                "file"
            } else {
                "bare group"
            },
            objects: self.objects.len(),
            groups: self.groups.len(),
            packets: self.groups.iter().map(|g| g.packets.len()).sum(),
            shared_vertices: self.vertices.len(),
            packet_kinds: kinds,
            lit_groups: if self.header.is_some() {
                self.groups
                    .iter()
                    .filter(|g| g.type_bits & TYPE_LIGHT != 0)
                    .count()
            } else {
                0
            },
        }
    }

    /// The bytes the PMD's structure uses: up to the last vertex a shared packet names (a
    /// shared VERTEX group has no count of its own), or the end of the last group. What a blob
    /// scan takes as an embedded PMD's size.
    pub fn structural_len(&self) -> usize {
        let groups_end = self.vertex_offset();
        let used = self
            .groups
            .iter()
            .flat_map(|g| &g.packets)
            .filter_map(|p| match &p.vertices {
                Vertices::Shared(vp) => vp.iter().max().map(|&o| o as usize / 8 + 1),
                Vertices::Independent(_) => None,
            })
            .max();
        match (&self.header, used) {
            (Some(h), Some(n)) if h.shared => groups_end + 8 * n.min(self.vertices.len()),
            _ => groups_end,
        }
    }
}

/// Whether `data` plausibly starts a PMD file with its header: ID 0x42, 1..=4096 objects,
/// PRIM POINT at or past the object table's first entry and inside `len` bytes, VERT POINT 0
/// or past PRIM POINT, and the first group's TYPE naming its first packet's GPU code. Looks at
/// the first 256 bytes at most.
pub fn looks_like(data: &[u8], len: u64) -> bool {
    let w = |i: usize| Le::u32_at(data, i);
    let (Some(FILE_ID), Some(prim), Some(vert), Some(nobj)) = (w(0), w(4), w(8), w(12)) else {
        return false;
    };
    if !(1..=4096).contains(&nobj)
        || (prim as u64) < 16 + 8 * nobj as u64
        || prim as u64 + 4 > len
        || (vert != 0 && vert <= prim)
        || vert as u64 > len
        || prim % 4 != 0
    {
        return false;
    }
    // The first POINTER is a group start at or past PRIM POINT.
    if w(20).is_some_and(|p| p < prim || p as u64 >= len) {
        return false;
    }
    match w(prim as usize) {
        Some(tw) => {
            let kind = Kind::from_type((tw >> 16) as u16);
            let code = data.get(prim as usize + 11).copied();
            tw as u16 > 0 && code.map_or(true, |c| c & 0xFC == kind.gpu_code())
        }
        None => true,
    }
}

/// Whether a stream that begins with `prefix` (at least as long as `prefix`) could be a bare
/// primitive group: a polygon's GPU code in the first primitive, repeated in the packet's second
/// (double-buffered) primitive and in the next packet's, and a group long enough to reach the
/// end of `prefix`. Lets a stream reader give up on random bytes instead of reading them to its
/// limit (a bare group has no magic number).
pub fn plausible_bare_start(prefix: &[u8]) -> bool {
    let (Some(n), Some(&code)) = (Le::u16_at(prefix, 0), prefix.get(11)) else {
        return prefix.len() < 12;
    };
    let n = n as usize;
    let same = |at: usize| prefix.get(at).map_or(true, |&c| c == code);
    n > 0
        && [false, true].into_iter().any(|shared| {
            Kind::from_gpu_code(code, shared).is_some_and(|k| {
                4 + n * k.packet_bytes() + 7 >= prefix.len()
                    && same(4 + 4 * k.primitive_words() + 11)
                    && (n < 2 || same(4 + k.packet_bytes() + 11))
            })
        })
}

/// Whether `data` is, in whole, a bare primitive group: a first packet whose GPU code is a
/// polygon's, and packets that fill the rest exactly (up to 7 bytes).
pub fn looks_like_bare(data: &[u8]) -> bool {
    let (Some(n), Some(&code)) = (Le::u16_at(data, 0), data.get(11)) else {
        return false;
    };
    let n = n as usize;
    read::bare_kind(code, n, data.len() - 4)
        .is_some_and(|k| data.get(4 + 4 * k.primitive_words() + 7) == Some(&code))
}
