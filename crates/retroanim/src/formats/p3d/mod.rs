//! P3D: Operation Flashpoint / Arma models — editable MLOD (LOD signatures `P3DM` and `SP3X`)
//! read and written field by field, binarised ODOL version 7 (OFP) and versions 50 and 73
//! (Arma) read to their LOD frames — and the LOD frames ("#Animation#" point caches) of all.
//!
//! Sources: the seed `004_8978017640b29c18.txt` (BI community wiki, *P3D Lod Frames*) and
//! `notes/p3d_mdd_pc2.md` (§n below), which cites the CWR-CE engine source (the authority where
//! sources disagree), the BI wiki MLOD/ODOLV7 pages, HEMTT, armake2 and aczwink's tools. All
//! little-endian; `asciiz` is a NUL-terminated string.
//!
//! ## MLOD
//!
//! | offset | size | field | unit / meaning | source |
//! |---|---|---|---|---|
//! | 0 | 4 | magic `MLOD` | | notes §1.1 |
//! | 4 | 4 | version | 0x101; major = v >> 8 must be ≤ 1 | notes §1.1 (CWR ShapeLOD.cpp) |
//! | 8 | 4 | LOD count | | notes §1.1 |
//! | 12.. | | LODs | back to back | |
//! | end | rest | trailing bytes | optional 32-byte default path (OFP) or anything | notes §1.1 |
//!
//! LOD (both signatures):
//!
//! | offset | size | field | unit / meaning | source |
//! |---|---|---|---|---|
//! | +0 | 4 | signature | `P3DM` or `SP3X` | notes §1.2 |
//! | +4 | 4 | header size | bytes incl. signature, 28 | notes §1.2 |
//! | +8 | 4 | version | P3DM 0x100, SP3X 0x99 | notes §1.2 |
//! | +12 | 4 | point count P | | notes §1.2 |
//! | +16 | 4 | normal count | | notes §1.2 |
//! | +20 | 4 | face count F | | notes §1.2 |
//! | +24 | 4 | flags | unknown, 0 | notes §1.2 |
//! | +28 | hs−28 | extra header bytes | skipped by the engine | notes §1.2 |
//! | | 16·P | points | f32 x, y, z (metres); u32 point flags | notes §1.3 |
//! | | 12·normals | normals | f32 x, y, z | notes §1.3 |
//! | | | faces | see below | notes §1.4 |
//! | | 4 | `TAGG` | | notes §1.5 |
//! | | | taggs | until `#EndOfFile#` | notes §1.5 |
//! | | 4 | resolution | f32 LOD type / resolution | notes §1.6 |
//!
//! Face: P3DM `u32 n; 4 × {u32 point, u32 normal, f32 u, f32 v}; u32 flags; asciiz texture;
//! asciiz material`; SP3X `char texture[32]; u32 n; 4 × vertex; u32 flags` (notes §1.4, §2).
//! Tagg: P3DM `u8 active; asciiz name`, SP3X `char name[64]`; then `u32 size; u8 data[size]`
//! (notes §1.5). `#Animation#` data: `f32 time; P × f32 x, y, z` (seed "MLODTaggFrame";
//! notes §3.2), one tagg per frame, in file order, not necessarily contiguous.
//!
//! ## ODOL v7 (OFP / CWA)
//!
//! | offset | size | field | unit / meaning | source |
//! |---|---|---|---|---|
//! | 0 | 4 | magic `ODOL` | | notes §4 |
//! | 4 | 4 | version | 7 | notes §4 |
//! | 8 | 4 | LOD count | | notes §4 |
//! | 12.. | | LODs | back to back, see below | notes §4 |
//! | end | rest | model info | starts with one f32 resolution per LOD | notes §4 |
//!
//! LOD: compressed arrays of vertex flags (u32) and UVs (2 × f32); arrays of positions and
//! normals (u32 count, 3 × f32 each); or/and hints, min, max, centre, radius (48 bytes);
//! textures (u32 count, asciiz each); two compressed u16 edge tables; u32 face count, u32 face
//! data size, faces `{u32 flags; i16 texture; u8 n; u16 index[n]}`; u32 section count × 18
//! bytes; named selections `{asciiz; CA<u16>; CA<u8>; CA<u32>; u8; CA<u32>; CA<u16>; CA<u8>}`;
//! named properties (asciiz pairs); **frames** `u32 count; {f32 time; u32 n; n × 3 × f32}` (seed
//! "ODOLFrames"/"LodFrame"); u32 icon colour, selected colour, special; proxies `{asciiz; 48-byte
//! transform; u32 sequence; u32 selection}` (notes §4, aczwink ODOL7Lod.cpp). A compressed
//! array (CA) is a u32 count and the data, LZSS-compressed with a u32 additive checksum when it
//! takes ≥ 1024 bytes (notes §4, CWR BISBinaryStream.hpp).
//!
//! ## ODOL v50 / v73 (Arma)
//!
//! | offset | size | field | unit / meaning | source |
//! |---|---|---|---|---|
//! | 0 | 4 | magic `ODOL` | | notes §4 |
//! | 4 | 4 | version | 50 or 73 | notes §4 |
//! | 8 | | (v59+) u32 application ID, (v58+) asciiz muzzle flash | | notes §4 |
//! | | 4 + 4n | LOD count n, f32 resolution per LOD | | notes §4 |
//! | | | model info, skeleton, skeletal animations | field list in `arma.rs` | notes §4 |
//! | | 8n | u32 start and end address of each LOD | absolute bytes | notes §4 |
//! | | n + | permanent flag per LOD, loadable LOD info per non-permanent LOD | | notes §4 |
//! | starts | | LODs, back to back (by descending resolution) | frames after the named properties, vertex table last | notes §3.4, §4 |
//! | last end | rest | trailing bytes | kept | |
//!
//! Large arrays are LZO1X-compressed (before v64: when ≥ 1024 bytes; from v64: per-array
//! method byte, 2 = LZO in the corpus).
//!
//! ## Readings taken where the sources are silent or disagree
//!
//! - MLOD version: the engine refuses major version > 1, so the reader returns `Unsupported` at
//!   offset 4 for them (CWR's `fuzz_tagg_oob.p3d` is one). The other two truncated CWR fuzz
//!   files fail at offset 8: their LOD count asks for more bytes than the file has. Nothing is
//!   allocated for a count before it is checked against the bytes left.
//! - SP3X frames: a 2010 wiki revision gave them an extra `u32 nBones`; the engine accepts only
//!   `4 + 12·P` bytes (notes §3.3). A `#Animation#` tagg of any other size is kept raw, is not a
//!   frame, and `validate` reports it.
//! - Taggs whose size does not fit the layout their name announces (a `#Mass#` of the wrong
//!   size, say) are kept raw rather than guessed at; named selections must be `P + F` bytes.
//! - A face's vertex slots beyond `n` are kept verbatim (23 corpus files have leftover bytes
//!   there); `n > 4` is malformed.
//! - ODOL v7 LODs are kept as verbatim byte runs before and after the frames: writing an
//!   unchanged model reproduces the file, and replacing frames changes nothing else. Their
//!   positions are per ODOL vertex and relative to the model centre (notes §3.4).
//! - Arma ODOL is read for versions 50 and 73 only, the two in the corpus, with every field
//!   checked against those files through their own redundancy (address table, LOD end
//!   addresses, vertex-table size word, polygon size word, loadable LOD info); the layout,
//!   the checks and the readings taken where sources disagree are in `arma.rs`. Other Arma
//!   versions (28..75) are refused with `Unsupported` at the version field: the model info
//!   changes with nearly every version and none of them could be checked.
//! - Arma frames sit where the v7 ones do (after the named properties) with the same record;
//!   their positions are per vertex of the LOD's vertex table.
//! - Frame times are animation phases (0..1 in the known files), not seconds: converters map them
//!   to seconds with a caller-chosen duration (see [`frames`]).

mod arma;
pub mod frames;
mod lod_name;
pub use lod_name::{lod_name, lod_value};
mod lzss;
mod odol;
mod odol7;
mod odol_skin;
pub use odol::OdolMesh;
pub use odol7::{Odol7Face, Odol7Lod, Odol7ModelInfo, Odol7Proxy, Odol7Section, Odol7Selection};
pub use odol_skin::{OdolSelection, OdolSkeleton, VertexBoneRef};
mod read;
pub mod scene;
pub mod stream;
mod types;
mod validate;
mod write;

use crate::bytes::Reader;
use crate::error::{Error, Result};
use crate::limits::Limits;
use crate::Format;

pub use types::*;
pub use validate::validate;
pub use write::{write, write_mlod};

/// Reads a P3D file (MLOD, or ODOL version 7, 50 or 73) with the default [`Limits`].
pub fn read(data: &[u8]) -> Result<P3d> {
    read_with(data, &Limits::default())
}

/// Reads a P3D file with the given limits.
pub fn read_with(data: &[u8], limits: &Limits) -> Result<P3d> {
    let mut r = Reader::le(data, Format::P3d).with_limits(*limits);
    match data.get(..4) {
        Some(b"MLOD") => read::read_mlod(&mut r).map(P3d::Mlod),
        Some(b"ODOL") => odol::read_odol(&mut r).map(P3d::Odol),
        _ => Err(Error::Malformed {
            format: Format::P3d,
            offset: 0,
            what: "expected magic \"MLOD\" or \"ODOL\"".into(),
        }),
    }
}

/// The summary `retroanim info` shows for a P3D.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Summary {
    /// Always `"p3d"`.
    pub format: &'static str,
    /// `"mlod"` or `"odol"`.
    pub variant: &'static str,
    /// File version.
    pub version: u32,
    /// One entry per LOD.
    pub lods: Vec<LodSummary>,
}

/// One LOD in the [`Summary`].
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct LodSummary {
    /// `"P3DM"`, `"SP3X"`, or `null` for ODOL.
    pub signature: Option<&'static str>,
    /// The resolution / LOD type value.
    pub resolution: f32,
    /// The LOD's name as modders know it ([`lod_name`]: `"Geometry"`, `"Memory"`, `"1"`…).
    pub name: String,
    /// Points (MLOD) or vertices (ODOL).
    pub points: usize,
    /// Faces.
    pub faces: usize,
    /// LOD frames.
    pub frames: usize,
    /// Frame times, when there are frames.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub frame_times: Vec<f32>,
}

impl P3d {
    /// The summary `retroanim info` shows.
    pub fn summary(&self) -> Summary {
        let (variant, version) = match self {
            P3d::Mlod(m) => ("mlod", m.version),
            P3d::Odol(o) => ("odol", o.version),
        };
        let lods = (0..self.lod_count())
            .map(|i| {
                let times: Vec<f32> = self.frames(i).iter().map(|f| f.time).collect();
                let (signature, points, faces) = match self {
                    P3d::Mlod(m) => {
                        let l = &m.lods[i];
                        (Some(l.signature.name()), l.points.len(), l.faces.len())
                    }
                    P3d::Odol(o) => {
                        let (p, f) = o.lod_counts(i).unwrap_or((0, 0));
                        (None, p, f)
                    }
                };
                LodSummary {
                    signature,
                    resolution: self.resolution(i),
                    name: lod_name(self.resolution(i)),
                    points,
                    faces,
                    frames: times.len(),
                    frame_times: times,
                }
            })
            .collect();
        Summary {
            format: "p3d",
            variant,
            version,
            lods,
        }
    }
}
