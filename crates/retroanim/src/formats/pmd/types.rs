//! The PMD model: faithful to the file, typed to the manual's packet structures.

use serde::{Deserialize, Serialize};

pub use crate::formats::tmd::SVector;

/// A whole PMD: a file with its ID and object table, or a bare primitive group.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pmd {
    /// The header (ID, VERT POINT) and object table; `None` for a bare primitive group, the
    /// `TYPE/NPACKET` word and its packets alone as libgte's `RotPMD_*` functions take them
    /// (Sony's WALK sample ships its models so, their shared vertices in files of their own).
    pub header: Option<Header>,
    /// The objects of the object table, in table order (none for a bare group).
    pub objects: Vec<Object>,
    /// The primitive groups, in file order.
    pub groups: Vec<PrimitiveGroup>,
    /// The shared VERTEX group (SVECTORs), from VERT POINT to the end of the file.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub vertices: Vec<SVector>,
    /// Bytes after the last group or vertex (fewer than a vertex's 8), kept verbatim.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub trailing: Vec<u8>,
}

/// The file header beyond its object table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Header {
    /// The ID word: 0x42 for the current version.
    pub id: u32,
    /// Whether VERT POINT is set (a shared VERTEX group follows the primitive groups); 0 in
    /// the file when not.
    pub shared: bool,
    /// Bytes between the object table and PRIM POINT, kept verbatim (none in Sony's files).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub gap: Vec<u8>,
    /// Bytes between the last primitive group and VERT POINT, kept verbatim.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub vertex_gap: Vec<u8>,
}

/// One object: the primitive groups it draws (the table's POINTERs, as group indices).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Object {
    /// Indices into [`Pmd::groups`].
    pub groups: Vec<usize>,
}

/// A primitive group: the `TYPE/NPACKET` word and its packets, all of one kind.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PrimitiveGroup {
    /// The TYPE half-word as written (bits 16..31 of the group's first word).
    pub type_bits: u16,
    /// The packet layout. In a file with a header it is TYPE's bits 0..3; in a bare group it is
    /// read from the GPU code of the first packet and the group's size.
    pub kind: Kind,
    /// The packets.
    pub packets: Vec<Packet>,
}

/// Which packet structure a group holds (TYPE bits 16..19, Filefrmt Table 2-2).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default, Serialize, Deserialize,
)]
pub struct Kind {
    /// Bit 16: quadrilateral (else triangle).
    pub quad: bool,
    /// Bit 17: Gouraud (else flat).
    pub gouraud: bool,
    /// Bit 18 clear: textured.
    pub textured: bool,
    /// Bit 19: shared vertices (offsets into the VERTEX group, else SVECTORs in the packet).
    pub shared: bool,
}

/// One packet: the double-buffered GPU primitive and the polygon's vertices.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Packet {
    /// `pkt[2]`: the two libgpu POLY_* primitives (tag word included) as words.
    pub primitives: [Vec<u32>; 2],
    /// The vertices.
    pub vertices: Vertices,
}

/// A packet's vertices.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Vertices {
    /// Independent vertices: `SVECTOR v1..v4` in the packet.
    Independent(Vec<SVector>),
    /// Shared vertices: `long vp1..vp4`, byte offsets from the start of the VERTEX group.
    Shared(Vec<u32>),
}

/// Bit of TYPE: light-source calculation on (Filefrmt Table 2-2 bit 20).
pub const TYPE_LIGHT: u16 = 1 << 4;
/// Bit of TYPE: no back clip (bit 21).
pub const TYPE_NO_BACK_CLIP: u16 = 1 << 5;

impl Kind {
    /// The kind TYPE's bits 0..3 select.
    pub fn from_type(type_bits: u16) -> Kind {
        Kind {
            quad: type_bits & 1 != 0,
            gouraud: type_bits & 2 != 0,
            textured: type_bits & 4 == 0,
            shared: type_bits & 8 != 0,
        }
    }

    /// TYPE's bits 0..3 for this kind.
    pub fn type_nibble(self) -> u16 {
        u16::from(self.quad)
            | u16::from(self.gouraud) << 1
            | u16::from(!self.textured) << 2
            | u16::from(self.shared) << 3
    }

    /// Vertices per polygon.
    pub fn corners(self) -> usize {
        if self.quad {
            4
        } else {
            3
        }
    }

    /// The libgpu primitive's name (`POLY_GT4`).
    pub fn primitive_name(self) -> &'static str {
        match (self.gouraud, self.textured, self.quad) {
            (false, true, false) => "POLY_FT3",
            (false, true, true) => "POLY_FT4",
            (true, true, false) => "POLY_GT3",
            (true, true, true) => "POLY_GT4",
            (false, false, false) => "POLY_F3",
            (false, false, true) => "POLY_F4",
            (true, false, false) => "POLY_G3",
            (true, false, true) => "POLY_G4",
        }
    }

    /// Words of one GPU primitive, tag included: the tag, then per vertex a colour word (the
    /// first vertex's always, the others' when Gouraud), the XY word and a UV word when
    /// textured (libgpu `libgpu.h`).
    pub fn primitive_words(self) -> usize {
        let n = self.corners();
        1 + 1 + if self.gouraud { n - 1 } else { 0 } + n + if self.textured { n } else { 0 }
    }

    /// Word positions in a primitive of vertex `i`'s colour (when it has its own), XY and UV.
    pub fn vertex_words(self, i: usize) -> (Option<usize>, usize, Option<usize>) {
        let per = 1 + usize::from(self.gouraud) + usize::from(self.textured);
        // Vertex 0 always has a colour word; later ones only when Gouraud.
        let start = if i == 0 {
            1
        } else {
            1 + (1 + 1 + usize::from(self.textured)) + (i - 1) * per
        };
        let has_color = i == 0 || self.gouraud;
        let xy = start + usize::from(has_color);
        (
            has_color.then_some(start),
            xy,
            self.textured.then_some(xy + 1),
        )
    }

    /// Bytes of one packet: two primitives and the vertices.
    pub fn packet_bytes(self) -> usize {
        2 * 4 * self.primitive_words() + self.corners() * if self.shared { 4 } else { 8 }
    }

    /// The GPU command code (bits 7..2) this kind's primitive carries in its first colour word.
    pub fn gpu_code(self) -> u8 {
        0x20 | u8::from(self.quad) << 3 | u8::from(self.textured) << 2 | u8::from(self.gouraud) << 4
    }

    /// The kind a GPU command byte names (its ABE and TGE bits aside), `None` for one that is
    /// no polygon.
    pub fn from_gpu_code(code: u8, shared: bool) -> Option<Kind> {
        (code & 0xE0 == 0x20).then_some(Kind {
            quad: code & 0x08 != 0,
            gouraud: code & 0x10 != 0,
            textured: code & 0x04 != 0,
            shared,
        })
    }
}

impl Packet {
    /// The GPU command byte of primitive `k` (byte 3 of its first colour word).
    pub fn code(&self, k: usize) -> Option<u8> {
        self.primitives[k].get(1).map(|w| (w >> 24) as u8)
    }

    /// Vertex `i`'s colour in the first primitive (the first vertex's for flat polygons).
    pub fn color(&self, kind: Kind, i: usize) -> [u8; 3] {
        let (c, _, _) = kind.vertex_words(if kind.gouraud { i } else { 0 });
        let w = c
            .and_then(|c| self.primitives[0].get(c))
            .copied()
            .unwrap_or(0);
        [w as u8, (w >> 8) as u8, (w >> 16) as u8]
    }

    /// Vertex `i`'s texture coordinates and the halfword beside them (CLUT for vertex 0, TPAGE
    /// for vertex 1).
    pub fn uv(&self, kind: Kind, i: usize) -> Option<([u8; 2], u16)> {
        let (_, _, uv) = kind.vertex_words(i);
        let w = *self.primitives[0].get(uv?)?;
        Some(([w as u8, (w >> 8) as u8], (w >> 16) as u16))
    }
}
