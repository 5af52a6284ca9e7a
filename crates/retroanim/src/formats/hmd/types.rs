//! The HMD model: the file as an ordered list of regions, each typed where the layout is known
//! and kept as raw words where it is not, so that `write(read(f)) == f`.

use serde::{Deserialize, Serialize};

use crate::formats::is_default;

pub use super::cat0_polygon::{
    Packet, PacketRun, PolygonItem, Strip, StripRun, UvWord, MAX_COLORS, MAX_NORMALS, MAX_PADS,
    MAX_SCREEN, MAX_TAGS, MAX_UVS, MAX_VERTICES,
};
pub use super::cat3_anim::{
    ExtraSequence, InterpolationType, KeyFrame, ParameterItem, SequenceDescriptor, SequencePointer,
    UpdateIndex,
};
pub use super::cat4_mime::{
    JointDiff, JointDifference, JointReset, MimeDiffItem, MimeKind, VertexDiff, VertexDifferences,
    VertexReset, VertexResetDiff,
};
pub use super::cat5_ground::{GridEntry, GridItem, GroundPolygon, GroundRow, UvGroup};
pub use super::cat7_device::{CameraParameters, DeviceItem, DeviceKind, LightData};
/// The fixed-capacity list type of [`Packet`]'s fields (re-exported from the `arrayvec` crate
/// so callers can build packets without depending on it).
pub use arrayvec::ArrayVec;

/// A whole HMD file.
///
/// The version word (0x50) is implied. Everything after the block pointer table is a list of
/// [`Region`]s in file order; each remembers the word offset it was read from, which is how
/// pointers are relocated when an edited model is written (see [`super::write()`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hmd {
    /// MAP FLAG (word 1): 0 in every file written by Sony's tools (see the module docs).
    pub map_flag: u32,
    /// Word 2: word offset of the primitive header section (bit 31 = mapped at run time).
    pub primitive_header_section: u32,
    /// Primitive block pointer table: word offsets of the first primitive of each block, 0 for
    /// an empty block. Block 0 is PRE-PROCESS, the last is POST-PROCESS, block k (1..n-2)
    /// belongs to coordinate k-1.
    pub blocks: Vec<u32>,
    /// Everything after the block pointer table, in file order.
    pub regions: Vec<Region>,
    /// Bytes after the last whole word (not part of the format).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub trailing: Vec<u8>,
}

/// One contiguous part of the file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Region {
    /// Word offset from the start of the file at which the region was read. Pointers in the
    /// model are word offsets in this same numbering; the writer maps them to where the regions
    /// land. A new region needs an offset no other region uses (any value past the others).
    pub offset: u32,
    /// What the region holds.
    pub body: RegionBody,
}

/// The contents of a [`Region`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RegionBody {
    /// The coordinate section: a count and that many GsCOORDUNITs.
    Coordinates(Vec<CoordUnit>),
    /// The primitive header section: a count and that many primitive headers.
    PrimitiveHeaders(Vec<PrimitiveHeader>),
    /// One primitive of a block chain: control section and data sections.
    Primitive(Primitive),
    /// A section a primitive header points to.
    Section(Section),
    /// Words nothing points to (kept verbatim).
    Gap(Vec<u32>),
}

impl RegionBody {
    /// Words this region takes in the file.
    pub fn words(&self) -> usize {
        match self {
            RegionBody::Coordinates(c) => 1 + c.len() * CoordUnit::WORDS,
            RegionBody::PrimitiveHeaders(h) => {
                1 + h.iter().map(|h| 1 + h.words.len()).sum::<usize>()
            }
            RegionBody::Primitive(p) => p.words(),
            RegionBody::Section(s) => s.words(),
            RegionBody::Gap(g) => g.len(),
        }
    }
}

/// A libgte `MATRIX`: 3×3 rotation (4096 = 1.0), a pad halfword, and a translation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Matrix {
    /// Rotation rows, 4096 = 1.0.
    pub m: [[i16; 3]; 3],
    /// The halfword after the rotation (padding).
    #[serde(default, skip_serializing_if = "is_default")]
    pub pad: u16,
    /// Translation.
    pub t: [i32; 3],
}

/// A libgte `SVECTOR`: three int16 and a pad halfword.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct SVector {
    /// x, y, z.
    pub v: [i16; 3],
    /// The fourth halfword (padding).
    #[serde(default, skip_serializing_if = "is_default")]
    pub pad: i16,
}

/// One `GsCOORDUNIT` (80 bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct CoordUnit {
    /// `flg`: run-time "matrix is up to date" flag.
    pub flg: u32,
    /// The local matrix (must agree with `rot`).
    pub matrix: Matrix,
    /// The work matrix (run-time; zero in files).
    pub workm: Matrix,
    /// Rotation angles, 4096 = 360°.
    pub rot: SVector,
    /// `super`: word offset of the parent GsCOORDUNIT, 0 = no parent.
    pub parent: u32,
}

impl CoordUnit {
    /// Words one GsCOORDUNIT takes.
    pub const WORDS: usize = 20;
}

/// One word of a primitive header after its size word.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HeaderEntry {
    /// MSB set: a section pointer (the word offset, MSB cleared).
    Pointer(u32),
    /// MSB clear: a numeric parameter for the driver.
    Value(u32),
}

impl HeaderEntry {
    /// Decodes a stored word.
    pub fn from_word(w: u32) -> Self {
        if w & 0x8000_0000 != 0 {
            HeaderEntry::Pointer(w & 0x7FFF_FFFF)
        } else {
            HeaderEntry::Value(w)
        }
    }

    /// The pointer, if this entry is one.
    pub fn pointer(self) -> Option<u32> {
        match self {
            HeaderEntry::Pointer(p) => Some(p),
            HeaderEntry::Value(_) => None,
        }
    }
}

/// One primitive header: its words after the size word (the size is `words.len()`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PrimitiveHeader {
    /// The words, in order.
    pub words: Vec<HeaderEntry>,
}

/// Terminator of a primitive chain.
pub const TERMINATE: u32 = 0xFFFF_FFFF;

/// One primitive: the control section and its data sections.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Primitive {
    /// Word offset of the next primitive of the chain, or [`TERMINATE`].
    pub next: u32,
    /// Word offset of this primitive's header in the primitive header section.
    pub header: u32,
    /// Bit 31 of the type count: 1 while the pointers are unmapped (always 1 in files).
    pub unmapped: bool,
    /// The data sections (their number is the type count).
    pub types: Vec<DataSection>,
}

impl Primitive {
    /// Words the primitive takes.
    pub fn words(&self) -> usize {
        3 + self.types.iter().map(|t| 2 + t.data.words()).sum::<usize>()
    }
}

/// One data section of a primitive: a type word, a count/size word and data.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DataSection {
    /// The type word (developer ID, category, driver bits, primitive type).
    pub type_code: u32,
    /// Number of data sets (bits 30..16 of the count/size word).
    pub count: u16,
    /// Bit 31 of the count/size word: 1 until GsScanUnit has run (1 in files).
    pub unscanned: bool,
    /// The data; the size field (bits 15..0) is written as `1 + data.words()`.
    pub data: TypeData,
    /// The size field when it disagrees with the data (an animation primitive whose sequence
    /// pointers run past its size field: the driver walks them by count, so they are read by
    /// count); `None` means the size is computed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size_override: Option<u16>,
}

impl DataSection {
    /// The type word's fields.
    pub fn kind(&self) -> TypeCode {
        TypeCode(self.type_code)
    }
}

/// A type word split into its fields (seed, "Type Field").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TypeCode(pub u32);

impl TypeCode {
    /// Bits 31..28: 0 = SCE, 0xF = user defined.
    pub fn developer(self) -> u8 {
        (self.0 >> 28) as u8
    }
    /// Bits 27..24.
    pub fn category(self) -> u8 {
        ((self.0 >> 24) & 0xF) as u8
    }
    /// Bits 23..16.
    pub fn driver(self) -> u8 {
        (self.0 >> 16) as u8
    }
    /// Bits 15..0.
    pub fn primitive_type(self) -> u16 {
        self.0 as u16
    }

    /// The category 0 or 1 type whose packets and sections an environment-map type (SCE
    /// category 6) reads; every other type (and an environment-map type LIBHMD.H does not
    /// name) is itself.
    ///
    /// `ENVMAP.DEF` (beside the `SCEI/ENVMAP/` samples) puts the mapping in bits 15..12 (ENV1D
    /// 0x1000, ENV2DL 0x2000, ENV2DR 0x3000, ENV2DRL 0x4000, ENV2DOL 0x5000) and ENV_SHARED at
    /// 0x0100 beside the polygon bits, and LIBHMD.H names Gouraud triangles and quads only:
    /// `GsUE1G3` 0x0600100c draws category 0's Gouraud triangle 0x0000000c (`STAR09.LAB` points
    /// a `CTG_POLY` and four `CTG_ENV` primitives at one packet list), `GsUE1SG3` 0x0600110c
    /// the shared one 0x0100000c (`YESNO5.LAB`, whose commented-out lines are the `CTG_SHARED`
    /// types), and `GsUSCAL2` 0x06000100 is the shared pre-calculation 0x01000000 (the same
    /// six data words). Driver bits (INI, ...) are kept.
    pub fn drawn_as(self) -> TypeCode {
        let pt = self.primitive_type();
        if self.developer() != 0 || self.category() != 6 {
            return self;
        }
        let (mode, shared, poly) = (pt & 0xF000, pt & 0x0100 != 0, pt & 0x0EFF);
        let category = match (mode, shared, poly) {
            (0, true, 0) => 1,
            (0x1000..=0x5000, _, 0x0c | 0x14) => u32::from(shared),
            _ => return self,
        };
        TypeCode((self.0 & 0x00FF_0000) | category << 24 | u32::from(poly))
    }
}

/// The data of one [`DataSection`], typed per category.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TypeData {
    /// Categories 0 and 1 (shared drivers): POLYGON IDX, the word offset of the first packet in
    /// the polygon section, with a driver parameter (division count) in the upper 8 bits.
    PolygonIndex {
        /// Upper 8 bits: GsUNIT_DIV1..5 for DIV/ADV drivers.
        #[serde(default, skip_serializing_if = "is_default")]
        division: u8,
        /// Lower 24 bits: word offset into the polygon section.
        index: u32,
    },
    /// Category 1 pre-calculation (0x01000000): shared vertices and normals to transform.
    PreCalculation(PreCalculation),
    /// Category 2: the images (and CLUTs) to upload.
    Images(Vec<ImageEntry>),
    /// Category 3: the sequence pointers.
    Sequences(Vec<SequencePointer>),
    /// Categories 4 and 5: word offsets into the MIMe DIFF section (MIMe) or into the polygon,
    /// grid and vertex sections (ground).
    Offsets(Vec<u32>),
    /// Category 7 light primitive data.
    Light(LightData),
    /// Anything else (camera primitives have no data; unknown types; data whose size disagrees
    /// with its type).
    Raw(Vec<u32>),
}

impl TypeData {
    /// Words the data takes.
    pub fn words(&self) -> usize {
        match self {
            TypeData::PolygonIndex { .. } => 1,
            TypeData::PreCalculation(_) => 6,
            TypeData::Images(v) => v.iter().map(ImageEntry::words).sum(),
            TypeData::Sequences(v) => v.iter().map(SequencePointer::words).sum(),
            TypeData::Offsets(v) | TypeData::Raw(v) => v.len(),
            TypeData::Light(_) => 1,
        }
    }
}

/// Pre-calculation data (type 0x01000000): six element indices and counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PreCalculation {
    /// Number of shared vertices to transform.
    pub vertices: u32,
    /// First source vertex (element index into the shared vertex section).
    pub vertex_source: u32,
    /// First destination (element index into the calculated vertex section).
    pub vertex_destination: u32,
    /// Number of shared normals.
    pub normals: u32,
    /// First source normal (element index into the shared normal section).
    pub normal_source: u32,
    /// First destination (element index into the calculated normal section).
    pub normal_destination: u32,
}

/// A VRAM rectangle in 16-bit units.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rect {
    /// x, y, w, h.
    pub xywh: [u16; 4],
    /// Word offset of the pixels in the image (or CLUT) section.
    pub index: u32,
}

/// One image of an image primitive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImageEntry {
    /// The image rectangle and pixel offset.
    pub image: Rect,
    /// The CLUT rectangle and offset (type 0x02000001 only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clut: Option<Rect>,
}

impl ImageEntry {
    /// Words the entry takes.
    pub fn words(&self) -> usize {
        if self.clut.is_some() {
            6
        } else {
            3
        }
    }
}

/// What a section is used for, from the header word that points to it and the category of
/// the primitives using that header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SectionRole {
    /// Polygon packets (categories 0, 1).
    Polygon,
    /// SVECTOR vertices.
    Vertex,
    /// SVECTOR normals.
    Normal,
    /// Calculated vertex area of shared polygons (run-time scratch).
    CalculatedVertex,
    /// Calculated normal area of shared polygons (run-time scratch).
    CalculatedNormal,
    /// Image pixels.
    Image,
    /// CLUT entries.
    Clut,
    /// Animation interpolation function table.
    InterpolationTable,
    /// Animation sequence control section.
    SequenceControl,
    /// Animation parameter section.
    Parameters,
    /// A section an animation updates other than the coordinates.
    AnimationTarget,
    /// MIMe DIFF section.
    MimeDiff,
    /// MIMe ORGSVN save area.
    MimeOriginal,
    /// MIMe weights (MIMEPR).
    MimeWeights,
    /// Ground polygon section.
    GroundPolygon,
    /// Ground grid section.
    GroundGrid,
    /// Ground vertex (height) section.
    GroundVertex,
    /// Ground UV section.
    GroundUv,
    /// Camera or light parameters.
    DeviceParameters,
    /// Used by an unknown type, or by types that disagree about it.
    Unknown,
}

/// A section a primitive header points to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Section {
    /// What it is for.
    pub role: SectionRole,
    /// Its contents.
    pub data: SectionData,
}

impl Section {
    /// Words the section takes.
    pub fn words(&self) -> usize {
        self.data.words()
    }
}

/// The contents of a [`Section`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SectionData {
    /// SVECTOR array (vertices or normals), then any odd word.
    Vectors {
        /// The vectors.
        vectors: Vec<SVector>,
        /// A last word that does not make a whole SVECTOR.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        odd_word: Option<u32>,
    },
    /// Polygon packets, grouped in the runs the polygon primitives point to.
    Polygons(Vec<PolygonItem>),
    /// Interpolation function table.
    InterpolationTable {
        /// Bit 31 of the count: 1 until GsScanAnim has run.
        unscanned: bool,
        /// The interpolation type words.
        types: Vec<u32>,
        /// Words after the table up to the next region.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        extra_words: Vec<u32>,
    },
    /// Sequence descriptors.
    SequenceControl(Vec<SequenceDescriptor>),
    /// Key frames and work areas.
    Parameters(Vec<ParameterItem>),
    /// Camera and light parameters.
    Devices(Vec<DeviceItem>),
    /// MIMe DIFF section.
    MimeDiff(Vec<MimeDiffItem>),
    /// MIMEPR: per-key weights, 4096 = 1.0.
    Weights(Vec<i32>),
    /// Image or CLUT data in 16-bit VRAM units (two per word, low half first).
    Vram(Vec<u16>),
    /// Ground polygon section.
    GroundPolygon(GroundPolygon),
    /// Ground grid section.
    Grid(Vec<GridItem>),
    /// Ground UV section.
    GroundUv(Vec<UvGroup>),
    /// Ground vertex section: int16 heights, then a pad halfword when odd in number.
    Heights {
        /// The heights.
        heights: Vec<i16>,
    },
    /// Anything else, as words.
    Raw(Vec<u32>),
}

impl SectionData {
    /// Words the contents take.
    pub fn words(&self) -> usize {
        match self {
            SectionData::Vectors { vectors, odd_word } => {
                vectors.len() * 2 + usize::from(odd_word.is_some())
            }
            SectionData::Polygons(items) => items.iter().map(|i| i.words().len()).sum(),
            SectionData::InterpolationTable {
                types, extra_words, ..
            } => 1 + types.len() + extra_words.len(),
            SectionData::SequenceControl(d) => d.len(),
            SectionData::Parameters(items) => items.iter().map(ParameterItem::words).sum(),
            SectionData::Devices(items) => items.iter().map(DeviceItem::words).sum(),
            SectionData::GroundPolygon(g) => g.words(),
            SectionData::Grid(items) => items.iter().map(GridItem::words).sum(),
            SectionData::GroundUv(g) => 3 * g.len(),
            SectionData::Weights(w) => w.len(),
            SectionData::Vram(v) => v.len().div_ceil(2),
            SectionData::MimeDiff(items) => items.iter().map(MimeDiffItem::words).sum(),
            SectionData::Heights { heights } => heights.len().div_ceil(2),
            SectionData::Raw(w) => w.len(),
        }
    }
}
