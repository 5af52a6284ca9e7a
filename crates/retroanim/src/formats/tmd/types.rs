//! The TMD model: faithful to the file, typed to the manual's packet tables.

/// The fixed-capacity list type of [`Polygon`] and [`Line`] (re-exported from the `arrayvec`
/// crate so callers can build packets without depending on it).
pub use arrayvec::ArrayVec;
use serde::{Deserialize, Serialize};

use crate::formats::is_default;

/// A whole TMD file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tmd {
    /// The FLAGS word as written: bit 0 FIXP (pointers are real addresses), the rest reserved (0).
    pub flags: u32,
    /// With FIXP set: the address the object table was mapped at (pointers minus this value are
    /// offsets from the object table). Inferred by the reader; 0 when FIXP is clear.
    #[serde(default, skip_serializing_if = "is_default")]
    pub address_base: u32,
    /// The objects, in table order.
    pub objects: Vec<Object>,
    /// Bytes of the file covered by no header, table entry, vertex, normal or primitive block
    /// (gaps between blocks and trailing bytes), kept for a byte-exact round trip.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub gaps: Vec<Gap>,
}

/// Bytes at a file offset that belong to no block.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Gap {
    /// Absolute file offset.
    pub offset: u32,
    /// The bytes.
    pub bytes: Vec<u8>,
}

/// One object table entry (7 words) and the blocks it points to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Object {
    /// `vert_top` as written: offset from the object table (FIXP clear) or address (FIXP set).
    pub vert_top: u32,
    /// `normal_top` as written.
    pub normal_top: u32,
    /// `primitive_top` as written.
    pub primitive_top: u32,
    /// `scale`: a signed power-of-two exponent (libgs ignores it).
    #[serde(default, skip_serializing_if = "is_default")]
    pub scale: i32,
    /// Vertices (SVECTOR: x, y, z, pad); +X right, +Y down, +Z into the screen.
    pub vertices: Vec<SVector>,
    /// Normals (SVECTOR, 4096 = 1.0).
    pub normals: Vec<SVector>,
    /// Primitive packets, in file order.
    pub primitives: Vec<Primitive>,
}

/// An SVECTOR: three int16 and a pad halfword.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct SVector {
    /// X.
    pub x: i16,
    /// Y.
    pub y: i16,
    /// Z.
    pub z: i16,
    /// The pad halfword, kept verbatim.
    #[serde(default, skip_serializing_if = "is_default")]
    pub pad: i16,
}

/// The primitive header's `flag` bits (FF p.2-27).
pub mod flag {
    /// Bit 0 LGT: no light-source calculation (unlit).
    pub const LGT: u8 = 1;
    /// Bit 1 FCE: double-sided.
    pub const FCE: u8 = 2;
    /// Bit 2 GRD: gradation (per-vertex colours on lit untextured polygons).
    pub const GRD: u8 = 4;
}

/// The primitive header's `mode` bits (FF p.2-27).
pub mod mode {
    /// Bits 7..5: CODE (1 polygon, 2 line, 3 sprite).
    pub const CODE_SHIFT: u8 = 5;
    /// Polygon bit 4 IIP: Gouraud shading; line bit 4: gradation.
    pub const IIP: u8 = 0x10;
    /// Polygon bit 3: quadrilateral.
    pub const QUAD: u8 = 0x08;
    /// Polygon bit 2 TME: textured.
    pub const TME: u8 = 0x04;
    /// Bit 1 ABE: semi-transparent.
    pub const ABE: u8 = 0x02;
    /// Polygon bit 0 TGE: texture without brightness modulation.
    pub const TGE: u8 = 0x01;
}

/// One primitive packet: the header word `[olen ilen flag mode]` and its data.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Primitive {
    /// `olen`: word size of the GPU packet the library generates (informational).
    pub olen: u8,
    /// `flag`: LGT, FCE, GRD bits (see [`flag`]).
    pub flag: u8,
    /// `mode`: CODE and option bits (see [`mode`]).
    pub mode: u8,
    /// The packet data; `ilen` is the number of its words.
    pub data: PrimitiveData,
}

/// Typed primitive data.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PrimitiveData {
    /// CODE 1: a triangle or quadrilateral, any shading/texture/lighting variant.
    Polygon(Polygon),
    /// CODE 2: a line, flat or gradation.
    Line(Line),
    /// CODE 3: a sprite.
    Sprite(Sprite),
    /// A packet whose mode is not a known layout or whose `ilen` disagrees with the layout its
    /// mode and flag select: the data words verbatim.
    Raw {
        /// The packet's data words.
        words: Vec<u32>,
    },
}

/// A colour word `[r g b x]`; in the first colour word `x` is a copy of the mode byte (the GPU
/// code position), elsewhere unused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Rgbx {
    /// Red.
    pub r: u8,
    /// Green.
    pub g: u8,
    /// Blue.
    pub b: u8,
    /// Byte 3 (mode copy or unused), kept verbatim.
    #[serde(default, skip_serializing_if = "is_default")]
    pub x: u8,
}

/// A texture coordinate word `[u v extra]`: `extra` is CBA in the first word, TSB in the second,
/// unused after that.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Uv {
    /// U inside the 256×256 texture page.
    pub u: u8,
    /// V inside the texture page.
    pub v: u8,
    /// CBA (word 0), TSB (word 1), or an unused halfword.
    #[serde(default, skip_serializing_if = "is_default")]
    pub extra: u16,
}

/// A polygon packet. Which lists are filled is fixed by the mode and flag (see
/// [`PolygonLayout`]); the writer checks the lengths against it. The lists are held inline
/// (a polygon has at most 4 of each), so reading one allocates nothing; in JSON they are
/// plain arrays.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Polygon {
    /// Colour words (1 for flat, one per vertex for gradation / unlit Gouraud, none for lit
    /// textured polygons).
    #[serde(default, skip_serializing_if = "ArrayVec::is_empty")]
    pub colors: ArrayVec<Rgbx, 4>,
    /// Texture coordinate words, one per vertex for textured polygons.
    #[serde(default, skip_serializing_if = "ArrayVec::is_empty")]
    pub uvs: ArrayVec<Uv, 4>,
    /// Normal indices (lit polygons: 1 for flat, one per vertex for Gouraud).
    #[serde(default, skip_serializing_if = "ArrayVec::is_empty")]
    pub normals: ArrayVec<u16, 4>,
    /// Vertex indices (3 or 4).
    pub vertices: ArrayVec<u16, 4>,
    /// The halfword padding the index list to a whole word, when it has an odd length.
    #[serde(default, skip_serializing_if = "is_default")]
    pub pad: u16,
}

impl Polygon {
    /// The CLUT address (CBA) of a textured polygon.
    pub fn cba(&self) -> Option<u16> {
        self.uvs.first().map(|u| u.extra)
    }

    /// The texture page attribute (TSB) of a textured polygon.
    pub fn tsb(&self) -> Option<u16> {
        self.uvs.get(1).map(|u| u.extra)
    }
}

/// The data layout a polygon's mode and flag select (FF p.2-28..2-34; notes `tmd_tim.md`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PolygonLayout {
    /// Vertices: 3 or 4.
    pub vertices: usize,
    /// Colour words.
    pub colors: usize,
    /// Texture coordinate words.
    pub uvs: usize,
    /// Normal indices.
    pub normals: usize,
}

impl PolygonLayout {
    /// The layout for a polygon `mode` and `flag`. Selected by IIP, quad, TME and the LGT and GRD
    /// flags, never by TGE or ABE (the corpus holds lit packets with mode 0x21 and flag 0).
    pub fn of(mode_byte: u8, flag_byte: u8) -> PolygonLayout {
        let n = if mode_byte & mode::QUAD != 0 { 4 } else { 3 };
        let gouraud = mode_byte & mode::IIP != 0;
        let textured = mode_byte & mode::TME != 0;
        let unlit = flag_byte & flag::LGT != 0;
        let gradation = flag_byte & flag::GRD != 0;
        let colors = match (unlit, textured, gouraud) {
            (false, true, _) => 0,
            (false, false, _) if gradation => n,
            (false, false, _) => 1,
            (true, _, true) => n,
            (true, _, false) => 1,
        };
        PolygonLayout {
            vertices: n,
            colors,
            uvs: if textured { n } else { 0 },
            normals: match (unlit, gouraud) {
                (true, _) => 0,
                (false, true) => n,
                (false, false) => 1,
            },
        }
    }

    /// Index halfwords (normals and vertices).
    pub fn halfwords(&self) -> usize {
        self.normals + self.vertices
    }

    /// Data words (`ilen`).
    pub fn words(&self) -> usize {
        self.colors + self.uvs + self.halfwords().div_ceil(2)
    }
}

/// A line packet: `[r g b mode]` (and a second colour for gradation), then `[v0 v1]`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Line {
    /// 1 colour, or 2 with gradation (mode bit 4).
    pub colors: ArrayVec<Rgbx, 2>,
    /// The two vertex indices.
    pub vertices: [u16; 2],
}

/// A sprite packet: `[v0 tsb] [u0 v0 cba]`, and `[w h]` for free-size sprites.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sprite {
    /// Vertex index of the sprite's position.
    pub vertex: u16,
    /// Texture page attribute.
    pub tsb: u16,
    /// Texture coordinates and the CLUT address.
    pub uv: Uv,
    /// Width and height of a free-size sprite (SIZ 0); `None` for the fixed sizes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<[u16; 2]>,
}

impl Primitive {
    /// CODE: 1 polygon, 2 line, 3 sprite.
    pub fn code(&self) -> u8 {
        self.mode >> mode::CODE_SHIFT
    }

    /// Data words (`ilen`).
    pub fn ilen(&self) -> usize {
        match &self.data {
            PrimitiveData::Polygon(p) => {
                p.colors.len() + p.uvs.len() + (p.normals.len() + p.vertices.len()).div_ceil(2)
            }
            PrimitiveData::Line(l) => l.colors.len() + 1,
            PrimitiveData::Sprite(s) => 2 + usize::from(s.size.is_some()),
            PrimitiveData::Raw { words } => words.len(),
        }
    }

    /// Bytes this packet takes, header included.
    pub fn bytes(&self) -> usize {
        4 + 4 * self.ilen()
    }
}

// TSB and CBA are VRAM addresses: they live with the VRAM rules in `formats::texpage`.
pub use crate::formats::texpage::{cba_position, Tsb};
