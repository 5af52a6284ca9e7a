//! ODOL: version 7 (OFP / CWA) read typed field by field ([`super::odol7`]) and written back
//! byte for byte; the Arma versions 50 and 73 are read by [`super::arma`]; every other version
//! is refused with [`Error::Unsupported`] at the version field.
//!
//! A v7 file is read whole — every LOD field and the model info — so a cut anywhere fails at
//! the field whose bytes are missing. The model keeps each LOD as verbatim byte runs before
//! and after its frames (compressed arrays stay packed as the binariser packed them), so
//! writing reproduces the file and replacing frames changes nothing else; the typed views
//! ([`Odol::v7_lod`], [`Odol::v7_model_info`]) decode from those bytes.

use crate::bytes::{ByteOrder, Le, Reader, Writer};
use crate::error::{Error, Result};
use crate::report::Issue;
use crate::Format;

use super::odol7::{self, Odol7Lod, Odol7ModelInfo};
use super::odol_skin::{OdolSelection, OdolSkeleton, VertexBoneRef};
use super::types::*;

/// Smallest ODOL v7 LOD: empty arrays, hints, bounds and the fixed words.
const MIN_LOD: usize = 4 * 4 + 48 + 4 + 8 + 8 + 4 + 4 + 4 + 4 + 12 + 4;

/// What walking a LOD's geometry found (Arma: [`super::arma`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Geometry {
    /// Vertices in the vertex table.
    pub points: usize,
    /// Polygons.
    pub faces: usize,
}

pub(super) fn read_odol(r: &mut Reader<'_, Le>) -> Result<Odol> {
    let magic: [u8; 4] = r.array("ODOL magic")?;
    if &magic != b"ODOL" {
        return Err(r.malformed_at(0, format!("expected magic \"ODOL\", found {magic:02x?}")));
    }
    let version = r.u32("ODOL version")?;
    if super::arma::VERSIONS.contains(&version) {
        return super::arma::read_arma(r, version);
    }
    if version != 7 {
        let kind = if (28..=75).contains(&version) {
            "an Arma version not checked against real files"
        } else {
            "not a known version"
        };
        return Err(r.unsupported_at(
            4,
            format!(
                "ODOL version {version}: {kind}; only versions 7 (OFP/CWA), 50 and 73 (Arma) are read"
            ),
        ));
    }
    let n = r.u32("LOD count")?;
    let n = r.count(n as u64, MIN_LOD, "LOD count")?;
    let mut lods = Vec::with_capacity(n);
    for _ in 0..n {
        lods.push(read_lod(r)?);
    }
    // The model info is read typed (so a cut in it fails where its data ends); it and any
    // bytes after it are kept verbatim.
    odol7::read_model_info(&mut r.clone(), n)?;
    let model_info = Bytes(r.rest().to_vec());
    Ok(Odol {
        version,
        lods,
        model_info,
        arma: None,
    })
}

fn read_lod(r: &mut Reader<'_, Le>) -> Result<OdolLod> {
    let start = r.position();
    let (_, spans) = odol7::read_lod(&mut r.clone())?;
    let geometry = Bytes(r.bytes(spans.frames_at - start, "LOD geometry")?.to_vec());
    let frames = read_frames(r)?;
    let tail = Bytes(r.bytes(spans.end - r.position(), "LOD tail")?.to_vec());
    Ok(OdolLod {
        geometry,
        frames,
        tail,
    })
}

/// Reads a LOD's frames (the same record in v7 and Arma ODOL).
pub(super) fn read_frames(r: &mut Reader<'_, Le>) -> Result<Vec<OdolFrame>> {
    let n = r.u32("frame count")?;
    let n = r.count(n as u64, 8, "frame count")?;
    let mut frames = Vec::with_capacity(n);
    for _ in 0..n {
        let time = r.f32("frame time")?;
        let nb = r.u32("frame position count")?;
        let nb = r.count(nb as u64, 12, "frame position count")?;
        let mut positions = Vec::with_capacity(nb);
        for _ in 0..nb {
            positions.push([
                r.f32("frame position")?,
                r.f32("frame position")?,
                r.f32("frame position")?,
            ]);
        }
        frames.push(OdolFrame { time, positions });
    }
    Ok(frames)
}

/// The mesh of an ODOL v7 LOD, decoded from its verbatim geometry bytes.
#[derive(Debug, Clone, PartialEq)]
pub struct OdolMesh {
    /// Vertex positions (relative to the model centre).
    pub positions: Vec<[f32; 3]>,
    /// Vertex texture coordinates (empty when the LOD has none for every vertex).
    pub uvs: Vec<[f32; 2]>,
    /// Texture names.
    pub textures: Vec<Text>,
    /// Polygons: texture index (−1: none, or given by `sections`) and vertex indices, in the
    /// engine's order.
    pub faces: Vec<(i16, Vec<u32>)>,
    /// Arma: the sections (first polygon, end polygon, texture index), empty for v7.
    pub sections: Vec<(i32, i32, i16)>,
    /// Named selections.
    pub selections: Vec<OdolSelection>,
    /// Arma: the skeleton bone of each of the LOD's bones (the sub-skeleton map; empty for a
    /// LOD without bones and for v7).
    pub sub_skeleton: Vec<i32>,
    /// Byte offset of the sub-skeleton map's count word.
    pub sub_skeleton_at: u64,
    /// Arma: each vertex's bone references (empty when the LOD has none, and for v7).
    pub bone_refs: Vec<VertexBoneRef>,
    /// Byte offset of the bone reference array's count word.
    pub bone_refs_at: u64,
    /// Byte offset of the first bone reference when the array is stored raw (`None` when it
    /// is LZO-compressed or empty: its records have no offset in the file).
    pub bone_refs_raw_at: Option<u64>,
}

impl OdolMesh {
    /// A mesh with nothing in it.
    pub(super) fn empty() -> Self {
        OdolMesh {
            positions: Vec::new(),
            uvs: Vec::new(),
            textures: Vec::new(),
            faces: Vec::new(),
            sections: Vec::new(),
            selections: Vec::new(),
            sub_skeleton: Vec::new(),
            sub_skeleton_at: 0,
            bone_refs: Vec::new(),
            bone_refs_at: 0,
            bone_refs_raw_at: None,
        }
    }
}

/// Writes a LOD's frames.
pub(super) fn write_frames(w: &mut Writer<Le>, frames: &[OdolFrame]) -> Result<()> {
    let unencodable = |what: &str| Error::Unencodable {
        format: Format::P3d,
        what: what.into(),
    };
    w.u32(u32::try_from(frames.len()).map_err(|_| unencodable("too many frames"))?);
    for f in frames {
        w.f32(f.time);
        w.u32(
            u32::try_from(f.positions.len())
                .map_err(|_| unencodable("too many frame positions"))?,
        );
        for p in &f.positions {
            w.f32(p[0]);
            w.f32(p[1]);
            w.f32(p[2]);
        }
    }
    Ok(())
}

/// Writes an ODOL file (v7 here, Arma through [`super::arma`]).
pub(super) fn write_odol(o: &Odol) -> Result<Vec<u8>> {
    let unencodable = |what: String| Error::Unencodable {
        format: Format::P3d,
        what,
    };
    match (&o.arma, o.version) {
        (Some(a), v) if super::arma::VERSIONS.contains(&v) => return super::arma::write_arma(o, a),
        (None, 7) => {}
        (_, v) => {
            return Err(unencodable(format!(
                "ODOL version {v} (with{} Arma header): only version 7 without one, or 50 and 73 \
                 with one, are written",
                if o.arma.is_some() { "" } else { "out" }
            )))
        }
    }
    let mut w = Writer::le();
    w.bytes(b"ODOL");
    w.u32(o.version);
    w.u32(u32::try_from(o.lods.len()).map_err(|_| unencodable("too many LODs".into()))?);
    for lod in &o.lods {
        w.bytes(&lod.geometry.0);
        write_frames(&mut w, &lod.frames)?;
        w.bytes(&lod.tail.0);
    }
    w.bytes(&o.model_info.0);
    Ok(w.into_vec())
}

impl OdolLod {
    /// The LOD's bytes as in the file: geometry, frames, tail.
    fn file_bytes(&self) -> Result<Vec<u8>> {
        let mut w = Writer::le();
        w.bytes(&self.geometry.0);
        write_frames(&mut w, &self.frames)?;
        w.bytes(&self.tail.0);
        Ok(w.into_vec())
    }

    /// Vertex and face counts of a v7 LOD, from its verbatim geometry bytes.
    fn v7_counts(&self) -> Option<(usize, usize)> {
        let mut r = Reader::le(&self.geometry.0, Format::P3d).with_limits(crate::Limits::none());
        let g = odol7::read_geometry(&mut r).ok()?;
        r.at_end().then_some((g.positions.len(), g.faces.len()))
    }

    /// Decodes a v7 LOD's mesh from its geometry bytes (`at`: where they start in the file;
    /// a v7 selection's offsets are its LOD's start).
    fn v7_mesh(&self, at: u64) -> Result<OdolMesh> {
        let mut r = Reader::le(&self.geometry.0, Format::P3d).with_base(at);
        let g = odol7::read_geometry(&mut r)?;
        let uvs = if g.uvs.len() == g.positions.len() {
            g.uvs
        } else {
            Vec::new()
        };
        let widen = |v: Vec<u16>| v.into_iter().map(u32::from).collect::<Vec<_>>();
        Ok(OdolMesh {
            positions: g.positions,
            uvs,
            textures: g.textures,
            faces: g
                .faces
                .into_iter()
                .map(|f| (f.texture, widen(f.vertices)))
                .collect(),
            selections: g
                .selections
                .into_iter()
                .map(|s| OdolSelection {
                    name: s.name,
                    faces: widen(s.faces),
                    sectional: s.sectional != 0,
                    sections: s.sections.into_iter().map(|x| x as i32).collect(),
                    vertices: widen(s.vertices),
                    weights: s.vertex_weights,
                    vertices_at: at,
                    weights_at: at,
                })
                .collect(),
            ..OdolMesh::empty()
        })
    }
}

/// The error for a typed view asked of an Arma ODOL.
fn not_v7(version: u32) -> Error {
    Error::Parameter {
        what: format!(
            "ODOL version {version}: the typed LOD and model info views are for version 7"
        ),
    }
}

impl Odol {
    /// The resolution of each LOD (v7: from the start of the model info).
    pub fn resolutions(&self) -> Vec<f32> {
        if let Some(a) = &self.arma {
            return a.resolutions.clone();
        }
        Le::f32s(&self.model_info.0).take(self.lods.len()).collect()
    }

    /// v7: how many bytes of [`Odol::model_info`] its layout takes (one f32 resolution per
    /// LOD, 144 bytes of fixed fields, six flag bytes, a compressed array of f32 masses, four
    /// f32 masses, 12 bytes of special-LOD indices: [`Odol7ModelInfo`]), so where the model
    /// ends inside bytes that go on past it (an ODOL packed in an archive); `None` for Arma
    /// ODOL and where the model info does not parse.
    pub fn model_info_len(&self) -> Option<usize> {
        if self.arma.is_some() {
            return None;
        }
        let mut r = Reader::le(&self.model_info.0, Format::P3d);
        odol7::read_model_info(&mut r, self.lods.len()).ok()?;
        Some(r.offset() as usize)
    }

    /// Where the model info starts in the written file.
    fn model_info_start(&self) -> u64 {
        match &self.arma {
            Some(a) => 8 + a.prefix.0.len() as u64 + 4 + 4 * self.lods.len() as u64,
            None => 12 + self.lods.iter().map(lod_size).sum::<u64>(),
        }
    }

    /// v7: LOD `lod` with every field typed, decoded from its verbatim bytes (errors name the
    /// offsets of the written file).
    pub fn v7_lod(&self, lod: usize) -> Result<Odol7Lod> {
        if self.arma.is_some() {
            return Err(not_v7(self.version));
        }
        let l = self.lods.get(lod).ok_or_else(|| Error::Parameter {
            what: format!(
                "the model has {} LODs; there is no LOD {lod}",
                self.lods.len()
            ),
        })?;
        let bytes = l.file_bytes()?;
        let at = self.lod_starts()[lod];
        let mut r = Reader::le(&bytes, Format::P3d).with_base(at);
        let (typed, _) = odol7::read_lod(&mut r)?;
        if !r.at_end() {
            return Err(r.malformed(format!("{} bytes after the LOD's proxies", r.remaining())));
        }
        Ok(typed)
    }

    /// v7: the model info with every field typed (errors name the offsets of the written
    /// file).
    pub fn v7_model_info(&self) -> Result<Odol7ModelInfo> {
        if self.arma.is_some() {
            return Err(not_v7(self.version));
        }
        let mut r = Reader::le(&self.model_info.0, Format::P3d).with_base(self.model_info_start());
        odol7::read_model_info(&mut r, self.lods.len())
    }

    /// The byte offset at which each LOD starts in the written file, in LOD-index order.
    pub fn lod_starts(&self) -> Vec<u64> {
        let size = lod_size;
        let mut starts = vec![0u64; self.lods.len()];
        match &self.arma {
            None => {
                let mut at = 12;
                for (s, l) in starts.iter_mut().zip(&self.lods) {
                    *s = at;
                    at += size(l);
                }
            }
            Some(a) => {
                let n = self.lods.len() as u64;
                let mut at = 8
                    + a.prefix.0.len() as u64
                    + 4
                    + 4 * n
                    + self.model_info.0.len() as u64
                    + 8 * n
                    + a.lod_info.0.len() as u64;
                for &i in &a.file_order {
                    if let (Some(s), Some(l)) =
                        (starts.get_mut(i as usize), self.lods.get(i as usize))
                    {
                        *s = at;
                        at += size(l);
                    }
                }
            }
        }
        starts
    }

    /// Vertex and polygon counts of LOD `lod`, from walking its verbatim bytes (`None` if
    /// they do not walk, which only happens for a hand-edited model).
    pub fn lod_counts(&self, lod: usize) -> Option<(usize, usize)> {
        let l = self.lods.get(lod)?;
        match self.arma {
            Some(_) => super::arma::counts(self.version, l),
            None => l.v7_counts(),
        }
    }

    /// Decodes the mesh (positions, UVs where decoded, textures, polygons, named selections,
    /// Arma bone references) of LOD `lod`; errors and offsets name bytes of the written file.
    pub fn lod_mesh(&self, lod: usize) -> Result<OdolMesh> {
        let l = self.lods.get(lod).ok_or_else(|| Error::Parameter {
            what: format!("the model has no LOD {lod}"),
        })?;
        let at = self.lod_starts()[lod];
        match self.arma {
            Some(_) => {
                let tail_at = at + lod_size(l) - l.tail.0.len() as u64;
                super::arma::mesh(self.version, l, at, tail_at)
            }
            None => l.v7_mesh(at),
        }
    }

    /// Arma: the model's skeleton (model info), `None` for v7. A model without one has an
    /// empty name and no bones.
    pub fn skeleton(&self) -> Result<Option<OdolSkeleton>> {
        if self.arma.is_none() {
            return Ok(None);
        }
        let mut r = Reader::le(&self.model_info.0, Format::P3d).with_base(self.model_info_start());
        super::arma::read_skeleton(&mut r, self.version, self.lods.len()).map(Some)
    }
}

/// The bytes a LOD takes in the written file.
fn lod_size(l: &OdolLod) -> u64 {
    (l.geometry.0.len() + 4 + l.tail.0.len()) as u64
        + l.frames
            .iter()
            .map(|f| 8 + 12 * f.positions.len() as u64)
            .sum::<u64>()
}

/// v7 model info findings: bytes after the model info's layout.
pub(super) fn model_info_findings(o: &Odol, out: &mut Vec<Issue>) {
    if let Some(len) = o.model_info_len() {
        let extra = o.model_info.0.len() - len;
        if extra > 0 {
            out.push(Issue::warning(
                o.model_info_start() + len as u64,
                "trailing-bytes",
                format!("{extra} bytes after the model info, which nothing reads"),
            ));
        }
    }
}
