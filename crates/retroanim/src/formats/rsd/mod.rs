//! RSD: the PlayStation artist tools' text model (RSD + PLY + MAT + GRP), the source `rsdlink`
//! turned into TMD.
//!
//! Sources: Sony *File Formats* (Nov 1998) pp. 2-3..2-14 (`reference/Filefrmt.txt`, "RSD: 3D
//! Model Data"); *Data Conversion Utilities* "RSDLINK" pp. 2-39..2-43 and "RSDTOOL" change list
//! (`reference/Dataconv.txt`). Every file is text, one record per line, LF or CR/LF; a line whose
//! first non-blank character is `#` is a comment; items are separated by spaces or tabs.
//!
//! | file | line | fields | unit / meaning | source |
//! |---|---|---|---|---|
//! | RSD | ID | `@RSDnnnnnn` | format date-version (970401 = 3.0) | FF p.2-4 |
//! | RSD | entry | `PLY=` `MAT=` `GRP=` `MSH=` `PVT=` `COD=` | file names, relative to the RSD | FF p.2-4 |
//! | RSD | entry | `NMOT=n`, `MOT[i]=` | motion files (HMD) | FF p.2-5 |
//! | RSD | entry | `NTEX=n`, `TEX[i]=` | TIM files; MAT's texture number *i* is `TEX[i]` | FF p.2-5 |
//! | PLY | ID | `@PLYnnnnnn` | | FF p.2-6 |
//! | PLY | data length | `nvertex nnormal npolygon` | decimal counts | FF p.2-6 |
//! | PLY | VERTEX × nvertex | `x y z` | floats, libgs axes (+Y down) | FF p.2-6 |
//! | PLY | NORMAL × nnormal | `x y z` | floats, unit vector | FF p.2-6 |
//! | PLY | POLYGON × npolygon | `flag v0 v1 v2 v3 n0 n1 n2 n3` | flag hex, TYPE bits 2..0: 0 triangle (v3 = n3 = 0), 1 quad, 2 line (`v0 v1`, rest 0), 3 sprite; indices decimal, 0-based | FF p.2-7 |
//! | MAT | ID, count | `@MATnnnnnn`, `n` | | FF p.2-8 |
//! | MAT | MATERIAL × n | `polygons flag shading type values…` | polygons `11`, `0-5`, `2,4,6`; flag hex: bit 0 fixed colour (unlit), bit 1 double-faced, bit 2 semi-transparent, bits 5..3 rate, bit 6 reserved, bit 7 preset (HMD); shading `F` / `G` | FF p.2-9 |
//! | MAT | type C / G | `R G B` / `R0 G0 B0 … R3 G3 B3` | colour, colour per vertex (0..255) | FF p.2-10 |
//! | MAT | type T / D / H | `TNO U0 V0 … U3 V3` (+ `R G B` / + 4 × `R G B`) | texture, UVs inside the TIM image | FF p.2-10..2-11 |
//! | MAT | type W / S / N | `TNO TUM TVM TUA TVA U0 V0 … U3 V3` (+ `R G B` / + 4 × `R G B`) | repeating texture | FF p.2-11..2-12 |
//! | GRP | ID, count | `@GRPnnnnnn`, `n` | | FF p.2-13 |
//! | GRP | GROUP × n | `name lines polygons`, then `lines` lines of polygon numbers | | FF p.2-13 |
//!
//! # What is exact and what is canonical
//! Every line is kept with its text ([`Kept`]): a file read and written back unedited is
//! byte-identical (comments, blank lines, number spelling, spacing, CR/LF, a last line without
//! a terminator). A line whose record the model no longer holds at its place (an edited vertex,
//! an added polygon, a changed count) is written in the canonical form: items separated by one
//! space; numbers as the shortest decimal that reads back to the same value (integers without a
//! fraction); flags lower-case hex without `0x`; polygon numbers as `a-b` ranges joined by
//! commas; the file's first line terminator. Reading the canonical text gives the same model.
//!
//! # Readings taken
//! - W's value order is S's (`TNO TUM TVM TUA TVA U0 V0 …`): the manual's figure for W is
//!   garbled, its text lists TUM..TVA after TNO as for S and N.
//! - File names are looked up beside the RSD, each path component case-insensitively (rsdlink
//!   retries in upper and lower case; the corpus RSDs name `cube0.ply` for `CUBE0.PLY`); TIMs
//!   also in `../TIM`, as rsdlink does.
//! - An RSD made by [`from_tmd`] names textures it has no TIM for; it records each texture's
//!   TSB and CBA in a comment `# retroanim TEX[n] TSB=0x.... CBA=0x....`, which Sony's tools
//!   ignore and [`to_tmd`] uses when the TIM is not found.

mod link;
mod load;
mod read;
mod types;
mod unlink;
mod validate;
mod write;

pub use link::{to_tmd, to_tmd_all, Linked};
pub use load::{read_set, write_set, SetFile};
pub use read::{read_grp, read_mat, read_ply, read_rsd};
pub use types::*;
pub use unlink::{from_tmd, set_stem, Unlinked};
pub use validate::validate;
pub use write::{polyset_text, write_grp, write_mat, write_ply, write_rsd};

use crate::{Error, Format};

/// A parse error: the file, line and column (1-based) and the byte offset in that file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RsdError {
    /// The file's name as the caller gave it.
    pub file: String,
    /// Line, from 1.
    pub line: usize,
    /// Column (byte), from 1.
    pub column: usize,
    /// Byte offset in the file.
    pub offset: u64,
    /// What was expected and what was found.
    pub what: String,
}

impl std::fmt::Display for RsdError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}:{}:{}: {}",
            self.file, self.line, self.column, self.what
        )
    }
}

impl std::error::Error for RsdError {}

impl From<RsdError> for Error {
    fn from(e: RsdError) -> Error {
        Error::Malformed {
            format: Format::Rsd,
            offset: e.offset,
            what: e.to_string(),
        }
    }
}

pub use crate::detect::rsd_text_kind as text_kind;

/// The summary `retroanim info` prints for an RSD set.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Summary {
    /// Always `"rsd"`.
    pub format: &'static str,
    /// The RSD version digits.
    pub version: String,
    /// PLY / MAT / GRP file names as the RSD gives them.
    pub files: Vec<String>,
    /// Texture file names (`TEX[n]`).
    pub textures: Vec<String>,
    /// Vertices.
    pub vertices: usize,
    /// Normals.
    pub normals: usize,
    /// Polygons by type.
    pub triangles: usize,
    /// Quadrangles.
    pub quads: usize,
    /// Straight lines.
    pub lines: usize,
    /// Sprites.
    pub sprites: usize,
    /// MATERIAL descriptors by type letter, e.g. `"G C": 12` (shading, type).
    pub materials: std::collections::BTreeMap<String, usize>,
    /// Group names.
    pub groups: Vec<String>,
    /// Files the RSD names that were not found.
    pub missing: Vec<String>,
}

impl RsdSet {
    /// The summary `retroanim info` shows.
    pub fn summary(&self) -> Summary {
        let mut s = Summary {
            format: "rsd",
            version: self.rsd.version.clone(),
            files: self
                .rsd
                .entries
                .iter()
                .filter(|e| matches!(e.key, Key::Ply | Key::Mat | Key::Grp))
                .map(|e| format!("{}={}", e.key.spelling(), e.value))
                .collect(),
            textures: self
                .rsd
                .textures()
                .iter()
                .map(|t| t.unwrap_or("").to_string())
                .collect(),
            vertices: 0,
            normals: 0,
            triangles: 0,
            quads: 0,
            lines: 0,
            sprites: 0,
            materials: Default::default(),
            groups: Vec::new(),
            missing: self.missing.clone(),
        };
        if let Some(p) = &self.ply {
            s.vertices = p.vertices.len();
            s.normals = p.normals.len();
            for q in &p.polygons {
                match q.kind() {
                    PolygonType::Triangle => s.triangles += 1,
                    PolygonType::Quad => s.quads += 1,
                    PolygonType::Line => s.lines += 1,
                    _ => s.sprites += 1,
                }
            }
        }
        if let Some(m) = &self.mat {
            for x in &m.materials {
                let sh = if x.shading == Shading::Flat { 'F' } else { 'G' };
                *s.materials
                    .entry(format!("{sh} {}", x.info.letter()))
                    .or_insert(0) += 1;
            }
        }
        if let Some(g) = &self.grp {
            s.groups = g.groups.iter().map(|g| g.name.clone()).collect();
        }
        s
    }

    /// Forgets every kept line, so the next write is wholly canonical.
    pub fn forget_layout(&mut self) {
        self.rsd.kept = Kept::default();
        if let Some(p) = &mut self.ply {
            p.kept = Kept::default();
        }
        if let Some(m) = &mut self.mat {
            m.kept = Kept::default();
        }
        if let Some(g) = &mut self.grp {
            g.kept = Kept::default();
        }
    }
}

/// For polygons `0..n`, the first of `claims` (a range `a..=b` and who claims it) that names
/// each, in claim order: every polygon is settled once (a pointer to the next unsettled one
/// skips settled runs), so overlapping or repeated ranges cost no more than the polygons.
pub(crate) fn first_claims(
    n: usize,
    claims: impl Iterator<Item = ((u32, u32), usize)>,
) -> Vec<Option<usize>> {
    let mut owner = vec![None; n];
    // next[i]: the first unsettled polygon at or after i (n: none).
    let mut next: Vec<usize> = (0..=n).collect();
    fn find(next: &mut [usize], mut i: usize) -> usize {
        let mut root = i;
        while next[root] != root {
            root = next[root];
        }
        while next[i] != root {
            let up = next[i];
            next[i] = root;
            i = up;
        }
        root
    }
    for ((a, b), who) in claims {
        let (a, b) = (a as usize, (b as usize).min(n.saturating_sub(1)));
        if a >= n {
            continue;
        }
        let mut i = find(&mut next, a);
        while i <= b {
            owner[i] = Some(who);
            next[i] = i + 1;
            i = find(&mut next, i + 1);
        }
    }
    owner
}
