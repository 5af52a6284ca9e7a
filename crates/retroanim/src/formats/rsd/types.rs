//! The RSD family's models: faithful to the text, typed to the manual's descriptors, with the
//! original spelling of every line kept in a [`Kept`] layout so unedited lines write back as
//! they were read.

use serde::{Deserialize, Serialize};

/// An RSD set: the `@RSD` file and the PLY / MAT / GRP files it names (each `None` when the RSD
/// names none or the file was not read).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct RsdSet {
    /// The `@RSD` file.
    pub rsd: Rsd,
    /// The `@PLY` file (vertices, normals, polygons).
    pub ply: Option<Ply>,
    /// The `@MAT` file (one material per polygon).
    pub mat: Option<Mat>,
    /// The `@GRP` file (named polygon groups).
    pub grp: Option<Grp>,
    /// Files the RSD names that [`super::read_set`] did not find (`KEY=name`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub missing: Vec<String>,
    /// The TIMs `TEX[n]` names, by texture number (`None`: not found or not read).
    #[serde(skip)]
    pub tims: Vec<Option<crate::formats::tim::Tim>>,
}

/// The `@RSD` file: which files make up the model.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Rsd {
    /// The digits after `@RSD` (the format's date-version, e.g. `970401` for 3.0).
    pub version: String,
    /// The `KEY=value` lines, in file order.
    pub entries: Vec<Entry>,
    /// Texture placements recorded by [`super::from_tmd`] in `# retroanim TEX[n] TSB=… CBA=…`
    /// comments: texture number → (TSB, CBA), used when the TIM is not found.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub placements: std::collections::BTreeMap<u32, (u16, u16)>,
    /// The original lines (comments, spelling), for a byte-exact write.
    #[serde(skip)]
    pub kept: Kept<RsdLine>,
}

/// One `KEY=value` line of an RSD file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    /// The key.
    pub key: Key,
    /// The text after `=` (a file name or a count), trimmed.
    pub value: String,
}

/// The keys of an RSD file (File Formats p.2-4..2-5).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Key {
    /// `PLY=`.
    Ply,
    /// `MAT=`.
    Mat,
    /// `GRP=`.
    Grp,
    /// `MSH=` (HMD linkage, an extended file).
    Msh,
    /// `PVT=` (HMD rotation centres).
    Pvt,
    /// `COD=` (HMD coordinates).
    Cod,
    /// `NMOT=`: number of MOT files.
    NMot,
    /// `MOT[n]=`.
    Mot(u32),
    /// `NTEX=`: number of TIM files.
    NTex,
    /// `TEX[n]=`.
    Tex(u32),
    /// Any other key, kept as written.
    Other(String),
}

impl Key {
    /// The key as an RSD file spells it.
    pub fn spelling(&self) -> String {
        match self {
            Key::Ply => "PLY".into(),
            Key::Mat => "MAT".into(),
            Key::Grp => "GRP".into(),
            Key::Msh => "MSH".into(),
            Key::Pvt => "PVT".into(),
            Key::Cod => "COD".into(),
            Key::NMot => "NMOT".into(),
            Key::Mot(n) => format!("MOT[{n}]"),
            Key::NTex => "NTEX".into(),
            Key::Tex(n) => format!("TEX[{n}]"),
            Key::Other(s) => s.clone(),
        }
    }
}

impl Rsd {
    /// The value of the first entry with `key`.
    pub fn get(&self, key: &Key) -> Option<&str> {
        self.entries
            .iter()
            .find(|e| &e.key == key)
            .map(|e| e.value.as_str())
    }

    /// The texture file names `TEX[0..]`, by index (gaps are `None`).
    pub fn textures(&self) -> Vec<Option<&str>> {
        let mut out: Vec<Option<&str>> = Vec::new();
        for e in &self.entries {
            if let Key::Tex(n) = e.key {
                // Indices past 4096 are not textures rsdlink could use; validate reports them.
                let n = n as usize;
                if n < 4096 {
                    if out.len() <= n {
                        out.resize(n + 1, None);
                    }
                    out[n] = Some(e.value.as_str());
                }
            }
        }
        out
    }

    /// `NTEX` as a number (`None` when absent or not a number).
    pub fn ntex(&self) -> Option<u32> {
        self.get(&Key::NTex).and_then(|v| v.trim().parse().ok())
    }
}

/// The `@PLY` file.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Ply {
    /// The digits after `@PLY`.
    pub version: String,
    /// Vertices (x, y, z), libgs axes: +X right, +Y down, +Z into the screen.
    pub vertices: Vec<[f64; 3]>,
    /// Normals (x, y, z), unit length (not checked).
    pub normals: Vec<[f64; 3]>,
    /// Polygons.
    pub polygons: Vec<PlyPolygon>,
    /// The original lines.
    #[serde(skip)]
    pub kept: Kept<PlyLine>,
}

/// One POLYGON descriptor: a hexadecimal flag and eight parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct PlyPolygon {
    /// The flag (bits 2..0: TYPE 0 triangle, 1 quadrangle, 2 straight line, 3 sprite).
    pub flag: u32,
    /// Vertex 0..3 (a line: its two end points; a sprite: vertex, then width, height).
    pub vertices: [u32; 4],
    /// Normal 0..3 (0 where unused).
    pub normals: [u32; 4],
}

/// The TYPE of a POLYGON descriptor.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum PolygonType {
    /// 000.
    Triangle,
    /// 001.
    Quad,
    /// 010.
    Line,
    /// 011.
    Sprite,
    /// 1xx (reserved).
    Reserved,
}

impl PlyPolygon {
    /// The polygon's TYPE.
    pub fn kind(&self) -> PolygonType {
        match self.flag & 7 {
            0 => PolygonType::Triangle,
            1 => PolygonType::Quad,
            2 => PolygonType::Line,
            3 => PolygonType::Sprite,
            _ => PolygonType::Reserved,
        }
    }

    /// Vertices the polygon uses (3, 4, 2 for a line, 1 for a sprite, 0 reserved).
    pub fn corners(&self) -> usize {
        match self.kind() {
            PolygonType::Triangle => 3,
            PolygonType::Quad => 4,
            PolygonType::Line => 2,
            PolygonType::Sprite => 1,
            PolygonType::Reserved => 0,
        }
    }
}

/// The `@MAT` file.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Mat {
    /// The digits after `@MAT`.
    pub version: String,
    /// MATERIAL descriptors in file order.
    pub materials: Vec<Material>,
    /// The original lines.
    #[serde(skip)]
    pub kept: Kept<MatLine>,
}

/// Polygon numbers: a list of single numbers and inclusive ranges (`11`, `0-5`, `2,4,6`).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct PolySet(pub Vec<(u32, u32)>);

impl PolySet {
    /// Every polygon number, in order (ranges expanded).
    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        self.0.iter().flat_map(|&(a, b)| a..=b)
    }

    /// How many polygons the set names (ranges counted, repeats counted).
    pub fn count(&self) -> u64 {
        self.0
            .iter()
            .map(|&(a, b)| u64::from(b.saturating_sub(a)) + 1)
            .sum()
    }
}

/// Shading of a material (`F` or `G`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Shading {
    /// `F`: flat, lit by the first vertex's normal.
    Flat,
    /// `G`: Gouraud.
    Gouraud,
}

/// The bits of a MAT flag (File Formats p.2-9..2-10).
pub mod mat_flag {
    /// Bit 0: fixed colour (no light-source calculation).
    pub const UNLIT: u32 = 1;
    /// Bit 1: double-faced.
    pub const DOUBLE: u32 = 2;
    /// Bit 2: semi-transparency on.
    pub const SEMI: u32 = 4;
    /// Bits 5..3: semi-transparency rate (0 50/50, 1 +, 2 −, 3 +25%).
    pub const RATE_SHIFT: u32 = 3;
    /// Bit 7: preset HMD generation.
    pub const PRESET: u32 = 0x80;
}

/// One MATERIAL descriptor.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Material {
    /// The polygons it applies to.
    pub polygons: PolySet,
    /// The flag (see [`mat_flag`]).
    pub flag: u32,
    /// `F` or `G`.
    pub shading: Shading,
    /// The material type and its values.
    pub info: MatInfo,
}

/// Texture coordinates (u, v) of four corners (the fourth is 0, 0 for a triangle).
pub type Uvs = [[u8; 2]; 4];

/// An RGB colour.
pub type Rgb = [u8; 3];

/// A material type and its values (File Formats p.2-10..2-12).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MatInfo {
    /// `C R G B`: one colour.
    C(Rgb),
    /// `G R0 G0 B0 .. R3 G3 B3`: a colour per vertex.
    G([Rgb; 4]),
    /// `T TNO U0 V0 .. U3 V3`: textured.
    T {
        /// Texture number (`TEX[n]` of the RSD).
        tex: u32,
        /// Corner texture coordinates.
        uv: Uvs,
    },
    /// `D TNO U0 V0 .. U3 V3 R G B`: textured with one colour (unlit).
    D {
        /// Texture number.
        tex: u32,
        /// Corner texture coordinates.
        uv: Uvs,
        /// The colour.
        rgb: Rgb,
    },
    /// `H TNO U0 V0 .. U3 V3 R0 G0 B0 .. R3 G3 B3`: textured with a colour per vertex (unlit).
    H {
        /// Texture number.
        tex: u32,
        /// Corner texture coordinates.
        uv: Uvs,
        /// Corner colours.
        rgb: [Rgb; 4],
    },
    /// `W TNO TUM TVM TUA TVA U0 V0 .. U3 V3`: repeating texture.
    W {
        /// Texture number.
        tex: u32,
        /// TUM, TVM, TUA, TVA: repeat mask and upper address.
        repeat: [u8; 4],
        /// Corner texture coordinates.
        uv: Uvs,
    },
    /// `S TNO TUM TVM TUA TVA U0 V0 .. U3 V3 R G B`: repeating texture with one colour.
    S {
        /// Texture number.
        tex: u32,
        /// TUM, TVM, TUA, TVA.
        repeat: [u8; 4],
        /// Corner texture coordinates.
        uv: Uvs,
        /// The colour.
        rgb: Rgb,
    },
    /// `N TNO TUM TVM TUA TVA U0 V0 .. U3 V3 R0 G0 B0 .. R3 G3 B3`: repeating texture with a
    /// colour per vertex.
    N {
        /// Texture number.
        tex: u32,
        /// TUM, TVM, TUA, TVA.
        repeat: [u8; 4],
        /// Corner texture coordinates.
        uv: Uvs,
        /// Corner colours.
        rgb: [Rgb; 4],
    },
}

impl MatInfo {
    /// The type letter.
    pub fn letter(&self) -> char {
        match self {
            MatInfo::C(_) => 'C',
            MatInfo::G(_) => 'G',
            MatInfo::T { .. } => 'T',
            MatInfo::D { .. } => 'D',
            MatInfo::H { .. } => 'H',
            MatInfo::W { .. } => 'W',
            MatInfo::S { .. } => 'S',
            MatInfo::N { .. } => 'N',
        }
    }

    /// The texture number of a textured type.
    pub fn texture(&self) -> Option<u32> {
        match self {
            MatInfo::C(_) | MatInfo::G(_) => None,
            MatInfo::T { tex, .. }
            | MatInfo::D { tex, .. }
            | MatInfo::H { tex, .. }
            | MatInfo::W { tex, .. }
            | MatInfo::S { tex, .. }
            | MatInfo::N { tex, .. } => Some(*tex),
        }
    }

    /// The corner texture coordinates of a textured type.
    pub fn uvs(&self) -> Option<&Uvs> {
        match self {
            MatInfo::C(_) | MatInfo::G(_) => None,
            MatInfo::T { uv, .. }
            | MatInfo::D { uv, .. }
            | MatInfo::H { uv, .. }
            | MatInfo::W { uv, .. }
            | MatInfo::S { uv, .. }
            | MatInfo::N { uv, .. } => Some(uv),
        }
    }

    /// The corner colours: one colour repeated, a colour per corner, or `None` (T, W).
    pub fn colors(&self) -> Option<[Rgb; 4]> {
        match self {
            MatInfo::C(c) | MatInfo::D { rgb: c, .. } | MatInfo::S { rgb: c, .. } => Some([*c; 4]),
            MatInfo::G(c) | MatInfo::H { rgb: c, .. } | MatInfo::N { rgb: c, .. } => Some(*c),
            MatInfo::T { .. } | MatInfo::W { .. } => None,
        }
    }

    /// Whether the type has a colour per corner (G, H, N).
    pub fn per_corner(&self) -> bool {
        matches!(self, MatInfo::G(_) | MatInfo::H { .. } | MatInfo::N { .. })
    }
}

/// The `@GRP` file.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Grp {
    /// The digits after `@GRP`.
    pub version: String,
    /// GROUP descriptors.
    pub groups: Vec<Group>,
    /// The original lines.
    #[serde(skip)]
    pub kept: Kept<GrpLine>,
}

/// One GROUP descriptor: a name and the lines of polygon numbers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Group {
    /// The group's name.
    pub name: String,
    /// The polygon-number lines (one [`PolySet`] per line).
    pub lines: Vec<PolySet>,
    /// The "No. of polygons" the first line states (validate compares it with the lines).
    pub declared: u64,
}

/// The original text of a file: every line with its terminator, data lines with the record
/// they were read as. The writer writes a data line's text where the model still holds that
/// record at that place, and the canonical form elsewhere.
#[derive(Debug, Clone, PartialEq)]
pub struct Kept<R> {
    /// The lines in file order.
    pub lines: Vec<KeptLine<R>>,
    /// The line terminator of canonical lines (the file's first terminator; `"\n"` by default).
    pub newline: String,
}

impl<R> Default for Kept<R> {
    fn default() -> Self {
        Kept {
            lines: Vec::new(),
            newline: "\n".into(),
        }
    }
}

/// A line of a [`Kept`] layout.
#[derive(Debug, Clone, PartialEq)]
pub enum KeptLine<R> {
    /// A comment or blank line, terminator included.
    Other(String),
    /// A data line: the record and the text (terminator included) it was read from.
    Data(R, String),
}

/// A data line of an RSD file.
#[derive(Debug, Clone, PartialEq)]
pub enum RsdLine {
    /// `@RSDnnnnnn`.
    Id(String),
    /// `KEY=value`.
    Entry(Entry),
}

/// A data line of a PLY file.
#[derive(Debug, Clone, PartialEq)]
pub enum PlyLine {
    /// `@PLYnnnnnn`.
    Id(String),
    /// The data length record: vertices, normals, polygons.
    Counts([usize; 3]),
    /// A VERTEX.
    Vertex([f64; 3]),
    /// A NORMAL.
    Normal([f64; 3]),
    /// A POLYGON.
    Polygon(PlyPolygon),
}

/// A data line of a MAT file.
#[derive(Debug, Clone, PartialEq)]
pub enum MatLine {
    /// `@MATnnnnnn`.
    Id(String),
    /// The MATERIAL descriptor count.
    Count(usize),
    /// A MATERIAL descriptor.
    Material(Material),
}

/// A data line of a GRP file.
#[derive(Debug, Clone, PartialEq)]
pub enum GrpLine {
    /// `@GRPnnnnnn`.
    Id(String),
    /// The GROUP descriptor count.
    Count(usize),
    /// A group's first line: name, line count, polygon count.
    Head(String, usize, u64),
    /// A line of polygon numbers.
    Numbers(PolySet),
}
