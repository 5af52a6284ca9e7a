//! ODOL: version 7 (OFP / CWA) read to its LOD frames and written back byte for byte; the Arma
//! versions 50 and 73 are read by [`super::arma`]; every other version is refused with
//! [`Error::Unsupported`] at the version field.
//!
//! A v7 LOD is walked field by field (layout in the module docs of [`super`]) only to find where
//! its frames sit; the bytes before and after them are kept verbatim.

use std::borrow::Cow;

use crate::bytes::{Le, Reader, Writer};
use crate::error::{Error, Result};
use crate::Format;

use super::types::*;

/// Compressed arrays whose data takes at least this many bytes are LZSS-compressed
/// (CWR-CE BISBinaryStream.hpp).
const LZSS_THRESHOLD: u64 = 1024;
/// Bytes an LZSS stream can expand to per input byte: a flag byte and 8 two-byte references of
/// 18 bytes each give 144 bytes out of 17 in.
const LZSS_MAX_RATIO: u64 = 9;
/// Smallest ODOL v7 LOD: empty arrays, hints, bounds and the fixed words.
const MIN_LOD: usize = 4 * 4 + 48 + 4 + 8 + 8 + 4 + 4 + 4 + 4 + 12 + 4;

/// What walking a LOD's geometry found.
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
    let info_at = r.offset();
    let model_info = Bytes(r.rest().to_vec());
    if (model_info.0.len() as u64) < 4 * n as u64 {
        return Err(r.malformed_at(
            info_at,
            format!(
                "the model info must start with {n} LOD resolutions ({} bytes), but only {} bytes are left",
                4 * n,
                model_info.0.len()
            ),
        ));
    }
    Ok(Odol {
        version,
        lods,
        model_info,
        arma: None,
    })
}

fn read_lod(r: &mut Reader<'_, Le>) -> Result<OdolLod> {
    let start = r.position();
    let mut probe = r.clone();
    geometry(&mut probe)?;
    let len = probe.position() - start;
    let geometry = Bytes(r.bytes(len, "LOD geometry")?.to_vec());
    let frames = read_frames(r)?;
    let tail_start = r.position();
    r.u32("LOD icon colour")?;
    r.u32("LOD selected colour")?;
    r.u32("LOD special flags")?;
    let n = r.u32("proxy count")?;
    let n = r.count(n as u64, 1 + 48 + 8, "proxy count")?;
    for _ in 0..n {
        r.asciiz("proxy name")?;
        r.skip(48 + 8, "proxy transform, sequence id and selection index")?;
    }
    let tail_len = r.position() - tail_start;
    r.seek(tail_start, "LOD tail")?;
    let tail = Bytes(r.bytes(tail_len, "LOD tail")?.to_vec());
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

/// Walks a v7 LOD from its start up to its frame count.
pub(super) fn geometry(r: &mut Reader<'_, Le>) -> Result<Geometry> {
    walk(r, None)
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
}

/// Walks a v7 LOD, filling `mesh` with what it needs when given.
fn walk(r: &mut Reader<'_, Le>, mut mesh: Option<&mut OdolMesh>) -> Result<Geometry> {
    compressed_array(r, 4, "vertex flags")?;
    let uvs = compressed_array(r, 8, "vertex UVs")?;
    let points = r.u32("vertex count")?;
    let points = r.count(points as u64, 12, "vertex count")?;
    let positions = r.bytes(points * 12, "vertex positions")?;
    let normals = r.u32("normal count")?;
    let normals = r.count(normals as u64, 12, "normal count")?;
    r.skip(normals * 12, "vertex normals")?;
    // or/and hints, bounding box min/max, centre, radius.
    r.skip(48, "hints, bounding box, centre and radius")?;
    let textures = r.u32("texture count")?;
    let textures = r.count(textures as u64, 1, "texture count")?;
    for _ in 0..textures {
        let t = r.asciiz("texture name")?;
        if let Some(m) = mesh.as_deref_mut() {
            m.textures.push(Text::from(t));
        }
    }
    compressed_array(r, 2, "MLOD edge table")?;
    compressed_array(r, 2, "ODOL edge table")?;
    let faces = r.u32("face count")?;
    let faces = r.count(faces as u64, 7, "face count")?;
    r.u32("face data size")?;
    if let Some(m) = mesh.as_deref_mut() {
        let f32s = |b: &[u8]| -> Vec<f32> {
            b.chunks_exact(4)
                .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect()
        };
        m.positions = f32s(positions)
            .chunks_exact(3)
            .map(|c| [c[0], c[1], c[2]])
            .collect();
        if uvs.len() == points * 8 {
            m.uvs = f32s(&uvs).chunks_exact(2).map(|c| [c[0], c[1]]).collect();
        }
        m.faces.reserve(faces);
    }
    for _ in 0..faces {
        r.u32("face flags")?;
        let texture = r.i16("face texture index")?;
        let n = r.u8("face vertex count")? as usize;
        let idx = r.bytes(2 * n, "face vertex indices")?;
        if let Some(m) = mesh.as_deref_mut() {
            let idx = idx
                .chunks_exact(2)
                .map(|c| u16::from_le_bytes([c[0], c[1]]) as u32)
                .collect();
            m.faces.push((texture, idx));
        }
    }
    let sections = r.u32("section count")?;
    let sections = r.count(sections as u64, 18, "section count")?;
    r.skip(sections * 18, "sections")?;
    let selections = r.u32("named selection count")?;
    let selections = r.count(selections as u64, 1 + 6 * 4 + 1, "named selection count")?;
    for _ in 0..selections {
        r.asciiz("named selection name")?;
        compressed_array(r, 2, "selection faces")?;
        compressed_array(r, 1, "selection face weights")?;
        compressed_array(r, 4, "selection sections (unknown)")?;
        r.u8("selection is-sectional flag")?;
        compressed_array(r, 4, "selection sections")?;
        compressed_array(r, 2, "selection vertices")?;
        compressed_array(r, 1, "selection vertex weights")?;
    }
    let properties = r.u32("named property count")?;
    let properties = r.count(properties as u64, 2, "named property count")?;
    for _ in 0..properties {
        r.asciiz("property name")?;
        r.asciiz("property value")?;
    }
    Ok(Geometry { points, faces })
}

/// Reads a compressed array (u32 count, then raw data, or LZSS data and a checksum when the data
/// takes `LZSS_THRESHOLD` bytes or more), checking the checksum of compressed data, and returns
/// its uncompressed bytes.
fn compressed_array<'a>(r: &mut Reader<'a, Le>, elem: u64, what: &str) -> Result<Cow<'a, [u8]>> {
    let count = r.u32(what)? as u64;
    let size = count * elem;
    if size < LZSS_THRESHOLD {
        return r.bytes(size as usize, what).map(Cow::Borrowed);
    }
    let at = r.offset() - 4;
    if size > (r.remaining() as u64).saturating_mul(LZSS_MAX_RATIO) {
        return Err(r.malformed_at(
            at,
            format!(
                "{what}: {count} elements ({size} bytes) cannot be packed into the {} bytes left",
                r.remaining()
            ),
        ));
    }
    r.limits().bytes(at, what, size)?;
    lzss_decode(r, size as usize, what).map(Cow::Owned)
}

/// Decodes BI's LZSS variant into exactly `size` bytes and checks the additive checksum that
/// follows.
fn lzss_decode(r: &mut Reader<'_, Le>, size: usize, what: &str) -> Result<Vec<u8>> {
    let mut out: Vec<u8> = Vec::with_capacity(size);
    'outer: while out.len() < size {
        let flags = r.u8(what)?;
        for bit in 0..8 {
            if out.len() >= size {
                break 'outer;
            }
            if flags >> bit & 1 == 1 {
                out.push(r.u8(what)?);
                continue;
            }
            let at = r.offset();
            let b1 = r.u8(what)? as usize;
            let b2 = r.u8(what)? as usize;
            let back = b1 | (b2 & 0xF0) << 4;
            let len = (b2 & 0x0F) + 3;
            if back == 0 {
                return Err(r.malformed_at(at, format!("{what}: LZSS reference with offset 0")));
            }
            for _ in 0..len {
                if out.len() >= size {
                    break 'outer;
                }
                // References before the start of the output read spaces.
                let b = if back > out.len() {
                    b' '
                } else {
                    out[out.len() - back]
                };
                out.push(b);
            }
        }
    }
    let at = r.offset();
    let stored = r.u32("LZSS checksum")?;
    let unsigned = out.iter().fold(0u32, |s, &b| s.wrapping_add(b as u32));
    let signed = out
        .iter()
        .fold(0u32, |s, &b| s.wrapping_add(b as i8 as i32 as u32));
    if stored != unsigned && stored != signed {
        return Err(r.malformed_at(
            at,
            format!("{what}: LZSS checksum 0x{stored:08x}, but the data sums to 0x{unsigned:08x}"),
        ));
    }
    Ok(out)
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
    /// Vertex and face counts of a v7 LOD, from walking the verbatim geometry bytes.
    fn v7_counts(&self) -> Option<(usize, usize)> {
        let mut r = Reader::le(&self.geometry.0, Format::P3d).with_limits(crate::Limits::none());
        let g = geometry(&mut r).ok()?;
        r.at_end().then_some((g.points, g.faces))
    }

    /// Decodes a v7 LOD's mesh from its geometry bytes.
    fn v7_mesh(&self) -> Result<OdolMesh> {
        let mut r = Reader::le(&self.geometry.0, Format::P3d);
        let mut mesh = OdolMesh {
            positions: Vec::new(),
            uvs: Vec::new(),
            textures: Vec::new(),
            faces: Vec::new(),
            sections: Vec::new(),
        };
        walk(&mut r, Some(&mut mesh))?;
        Ok(mesh)
    }
}

impl Odol {
    /// The resolution of each LOD (v7: from the start of the model info).
    pub fn resolutions(&self) -> Vec<f32> {
        if let Some(a) = &self.arma {
            return a.resolutions.clone();
        }
        self.model_info
            .0
            .chunks_exact(4)
            .take(self.lods.len())
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    }

    /// v7: how many bytes of [`Odol::model_info`] its layout takes, so where the model ends
    /// inside bytes that go on past it (an ODOL packed in an archive); `None` for Arma ODOL
    /// and where the model info does not parse. The layout (CWR-CE's ODOL fixture and
    /// aczwink's ArmA-Modding-Tools agree): one f32 resolution per LOD; the index, two sphere
    /// radii, three flag words, an offset (vec3), two colours, the view density, the bounding
    /// box (2 × vec3), centre of gravity, a second offset, the centre-of-gravity offset (vec3
    /// each), the mass inertia (3 × vec3) — 144 bytes —; six flag bytes; a compressed array of
    /// f32 masses (LZSS from 1024 bytes, as every v7 array); four f32 masses; 12 bytes of
    /// special-LOD indices.
    pub fn model_info_len(&self) -> Option<usize> {
        if self.arma.is_some() {
            return None;
        }
        let mut r = Reader::le(&self.model_info.0, Format::P3d);
        r.skip(4 * self.lods.len() + 144 + 6, "model info").ok()?;
        compressed_array(&mut r, 4, "model info masses").ok()?;
        r.skip(16 + 12, "model info").ok()?;
        Some(r.offset() as usize)
    }

    /// The byte offset at which each LOD starts in the written file, in LOD-index order.
    pub fn lod_starts(&self) -> Vec<u64> {
        let size = |l: &OdolLod| {
            (l.geometry.0.len() + 4 + l.tail.0.len()) as u64
                + l.frames
                    .iter()
                    .map(|f| 8 + 12 * f.positions.len() as u64)
                    .sum::<u64>()
        };
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

    /// Decodes the mesh (positions, UVs where decoded, textures, polygons) of LOD `lod`.
    pub fn lod_mesh(&self, lod: usize) -> Result<OdolMesh> {
        let l = self.lods.get(lod).ok_or_else(|| Error::Unencodable {
            format: Format::P3d,
            what: format!("the model has no LOD {lod}"),
        })?;
        match self.arma {
            Some(_) => super::arma::mesh(self.version, l),
            None => l.v7_mesh(),
        }
    }
}
