//! MLOD frames straight from a file, one at a time: [`MlodFrames`] walks the structure of an
//! MLOD over `std::io::Read + Seek` — headers, faces and tagg headers — skipping points,
//! normals and tagg data with seeks, and remembers where each LOD's `#Animation#` taggs lie.
//! [`MlodFrames::read_frame`] then reads one frame's positions into a caller's buffer.
//!
//! Memory is that of one frame plus 8 bytes per frame for the index (time and offset), so
//! converting a 200 MB animation to a point cache does not hold the file or the model.
//!
//! The walk follows [`super::read`] exactly (same fields, same order, same checks), so a file
//! the in-memory reader rejects for its structure is rejected here too, at the same offset.
//! Every count is checked against the bytes left in the file before anything is allocated or
//! skipped, and what is walked or indexed item by item (LODs, points, normals, faces, frames)
//! against the caller's [`Limits`] ([`MlodFrames::open_with`]; conversions pass theirs). A frame is a tagg named `#Animation#` whose data is exactly 4 + 12 × points bytes,
//! the same rule as [`super::Lod::frames`].

use crate::bytes::{ByteOrder, Le};
use std::io::{Read, Seek, SeekFrom, Write};

use crate::error::{Error, Result};
use crate::{Format, Limits};

use super::types::{kind_of, Signature, TaggKind};

/// Where one frame lies.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FrameAt {
    /// Frame time (phase).
    pub time: f32,
    /// Absolute offset of the positions (after the time).
    pub offset: u64,
    /// Absolute offset of the tagg (its active flag or name).
    pub tagg: u64,
}

/// One LOD of an MLOD file as far as its frames are concerned.
#[derive(Debug, Clone, PartialEq)]
pub struct LodFrames {
    /// LOD signature.
    pub signature: Signature,
    /// Resolution / LOD type value.
    pub resolution: f32,
    /// Points of the LOD (positions per frame).
    pub points: usize,
    /// The frames, in file order.
    pub frames: Vec<FrameAt>,
    /// Absolute offset of the LOD's `#EndOfFile#` tagg.
    pub end_of_file: u64,
}

/// An MLOD file opened for reading its LOD frames one at a time.
#[derive(Debug)]
pub struct MlodFrames<R> {
    input: R,
    lods: Vec<LodFrames>,
    buf: Vec<u8>,
}

/// A cursor over `Read + Seek` that knows its offset and the file length.
struct Walker<'a, R> {
    input: &'a mut R,
    pos: u64,
    len: u64,
    limits: Limits,
}

impl<R: Read + Seek> Walker<'_, R> {
    fn malformed(&self, offset: u64, what: impl Into<String>) -> Error {
        Error::Malformed {
            format: Format::P3d,
            offset,
            what: what.into(),
        }
    }

    fn left(&self) -> u64 {
        self.len.saturating_sub(self.pos)
    }

    fn array<const N: usize>(&mut self, what: &str) -> Result<[u8; N]> {
        if self.left() < N as u64 {
            return Err(self.malformed(
                self.pos,
                format!(
                    "expected {what} ({N} bytes), but only {} bytes are left",
                    self.left()
                ),
            ));
        }
        let mut b = [0u8; N];
        self.input.read_exact(&mut b)?;
        self.pos += N as u64;
        Ok(b)
    }

    fn u8(&mut self, what: &str) -> Result<u8> {
        Ok(self.array::<1>(what)?[0])
    }

    fn u32(&mut self, what: &str) -> Result<u32> {
        Ok(Le::u32_from(self.array(what)?))
    }

    fn f32(&mut self, what: &str) -> Result<f32> {
        Ok(f32::from_bits(Le::u32_from(self.array(what)?)))
    }

    /// Skips `n` bytes, which must lie within the file.
    fn skip(&mut self, n: u64, what: &str) -> Result<()> {
        if n > self.left() {
            return Err(self.malformed(
                self.pos,
                format!(
                    "expected {what} ({n} bytes), but only {} bytes are left",
                    self.left()
                ),
            ));
        }
        self.pos += n;
        if n <= 4096 {
            // Short skips read through the buffer instead of discarding it with a seek.
            let copied = std::io::copy(&mut (&mut *self.input).take(n), &mut std::io::sink())?;
            if copied != n {
                return Err(self.malformed(self.pos - n + copied, "unexpected end of the file"));
            }
        } else {
            self.input.seek(SeekFrom::Start(self.pos))?;
        }
        Ok(())
    }

    /// A count of items of at least `size` bytes each, checked against the bytes left; an
    /// error points at the field `at`.
    fn count(&self, at: u64, n: u32, size: u64, what: &str) -> Result<u64> {
        let need = n as u64 * size;
        if need > self.left() {
            return Err(self.malformed(
                at,
                format!(
                    "{what}: a count of {n} needs at least {need} bytes, but only {} are left",
                    self.left()
                ),
            ));
        }
        Ok(n as u64)
    }

    /// [`Walker::count`] of items the walk visits one by one (LODs, points, normals, faces),
    /// also checked against the caller's [`Limits::max_items`], as
    /// [`crate::bytes::Reader::count`] checks them. Bytes that are only skipped (tagg data,
    /// header extras) are bounded by the file alone: streaming exists for files larger than
    /// the in-memory reader's budget.
    fn items(&self, at: u64, n: u32, size: u64, what: &str) -> Result<u64> {
        let n = self.count(at, n, size, what)?;
        self.limits.items(at, what, n)?;
        Ok(n)
    }

    /// Reads a NUL-terminated string, keeping at most its first `N` bytes (enough to recognise
    /// the names that matter); returns them and the full length.
    fn asciiz<const N: usize>(&mut self, what: &str) -> Result<([u8; N], usize)> {
        let start = self.pos;
        let mut kept = [0u8; N];
        let mut n = 0usize;
        loop {
            if self.left() == 0 {
                return Err(self.malformed(
                    start,
                    format!(
                        "expected {what} (a NUL-terminated string), but no NUL follows in the {} bytes left",
                        self.pos - start
                    ),
                ));
            }
            let b = self.u8(what)?;
            if b == 0 {
                return Ok((kept, n));
            }
            if n < N {
                kept[n] = b;
            }
            n += 1;
        }
    }
}

impl<R> MlodFrames<R> {
    /// The LODs, in file order.
    pub fn lods(&self) -> &[LodFrames] {
        &self.lods
    }

    /// The index of the LOD with resolution `res`, with the tolerance of
    /// [`super::P3d::find_lod`].
    pub fn find_lod(&self, res: f64) -> Option<usize> {
        self.lods.iter().position(|l| {
            let r = l.resolution as f64;
            (r - res).abs() <= 1e-6 * res.abs().max(1.0)
        })
    }

    /// The first LOD with frames, else the first one, like [`super::P3d::default_lod`].
    pub fn default_lod(&self) -> usize {
        self.lods
            .iter()
            .position(|l| !l.frames.is_empty())
            .unwrap_or(0)
    }
}

/// Smallest P3DM face: n, 4 vertex slots, flags, two empty names.
const MIN_FACE_P3DM: u64 = 4 + 64 + 4 + 2;
/// An SP3X face: 32-byte texture, n, 4 vertex slots, flags.
const FACE_SP3X: u64 = 32 + 4 + 64 + 4;
/// Smallest LOD: 28-byte header, "TAGG", one empty-named tagg (1 + 1 + 4) and the resolution.
const MIN_LOD: u64 = 28 + 4 + 6 + 4;

impl<R: Read + Seek> MlodFrames<R> {
    /// Walks the MLOD in `input` (which should be buffered, e.g. a `BufReader<File>`) and
    /// indexes its frames, under the default [`Limits`]. Errors as [`super::read`] would for
    /// the structure walked.
    pub fn open(input: R) -> Result<Self> {
        Self::open_with(input, &Limits::default())
    }

    /// [`MlodFrames::open`] under `limits`: every count ([`Limits::max_items`]: LODs, points,
    /// faces, frames indexed) is checked before it is walked or indexed.
    pub fn open_with(mut input: R, limits: &Limits) -> Result<Self> {
        let len = input.seek(SeekFrom::End(0))?;
        input.seek(SeekFrom::Start(0))?;
        let mut w = Walker {
            input: &mut input,
            pos: 0,
            len,
            limits: *limits,
        };
        let magic: [u8; 4] = w.array("MLOD magic")?;
        if &magic != b"MLOD" {
            return Err(w.malformed(0, format!("expected magic \"MLOD\", found {magic:02x?}")));
        }
        let version = w.u32("MLOD version")?;
        if version >> 8 > 1 {
            return Err(Error::Unsupported {
                format: Format::P3d,
                offset: 4,
                feature: format!(
                    "MLOD version 0x{version:x} (major {}); only major version 0 and 1 are defined",
                    version >> 8
                ),
            });
        }
        let count = w.u32("LOD count")?;
        let count = w.items(8, count, MIN_LOD, "LOD count")?;
        let mut lods = Vec::with_capacity(count as usize);
        for i in 0..count as usize {
            lods.push(walk_lod(&mut w, i)?);
        }
        Ok(MlodFrames {
            input,
            lods,
            buf: Vec::new(),
        })
    }

    /// Reads frame `k` of LOD `lod` into `out` (replacing its contents) and returns its time.
    pub fn read_frame(&mut self, lod: usize, k: usize, out: &mut Vec<[f32; 3]>) -> Result<f32> {
        let l = self.lods.get(lod).ok_or_else(|| Error::Parameter {
            what: format!("the model has no LOD {lod}"),
        })?;
        let f = *l.frames.get(k).ok_or_else(|| Error::Parameter {
            what: format!(
                "LOD {lod} has {} frames; there is no frame {k}",
                l.frames.len()
            ),
        })?;
        // The size was checked against the file when the tagg was walked.
        self.buf.resize(12 * l.points, 0);
        self.input.seek(SeekFrom::Start(f.offset))?;
        self.input.read_exact(&mut self.buf)?;
        out.clear();
        out.extend(self.buf.chunks_exact(12).map(|c| {
            let f = |i: usize| f32::from_bits(Le::u32_from([c[i], c[i + 1], c[i + 2], c[i + 3]]));
            [f(0), f(4), f(8)]
        }));
        Ok(f.time)
    }
}

impl<R: Read + Seek> MlodFrames<R> {
    /// Copies the file to `out` with the frames of LOD `lod` replaced by `count` new ones, as
    /// [`super::Lod::set_frames`] places them: the k-th frame tagg takes the k-th new frame in
    /// place, extra frames follow the last one (or go before `#EndOfFile#` when there were
    /// none), surplus old ones are removed. Every other byte is copied unchanged.
    ///
    /// `frame(k, buf)` fills the empty `buf` with new frame k's positions (exactly
    /// [`LodFrames::points`] of them, checked) and returns its time (phase).
    pub fn write_with_frames<W: Write>(
        &mut self,
        lod: usize,
        count: usize,
        mut frame: impl FnMut(usize, &mut Vec<[f32; 3]>) -> Result<f32>,
        mut out: W,
    ) -> Result<W> {
        let l = self.lods.get(lod).ok_or_else(|| Error::Parameter {
            what: format!("the model has no LOD {lod}"),
        })?;
        let (points, signature, end_of_file) = (l.points, l.signature, l.end_of_file);
        let old: Vec<FrameAt> = l.frames.clone();
        let frame_end = |f: &FrameAt| f.offset + 12 * points as u64;
        let mut buf = Vec::with_capacity(points);
        let mut bytes = Vec::with_capacity(4 + 12 * points);
        // Encodes new frame k: its time and positions.
        let mut encode = |k: usize, bytes: &mut Vec<u8>| -> Result<()> {
            buf.clear();
            let time = frame(k, &mut buf)?;
            if buf.len() != points {
                return Err(Error::Unencodable {
                    format: Format::P3d,
                    what: format!(
                        "point count mismatch: frame {k} has {} points, LOD {lod} has {points}",
                        buf.len()
                    ),
                });
            }
            bytes.clear();
            bytes.extend_from_slice(&Le::f32_to(time));
            for p in &buf {
                for c in p {
                    bytes.extend_from_slice(&Le::f32_to(*c));
                }
            }
            Ok(())
        };
        let header = match signature {
            Signature::P3dm => b"\x01#Animation#\0".to_vec(),
            Signature::Sp3x => {
                let mut h = b"#Animation#".to_vec();
                h.resize(64, 0);
                h
            }
        };
        let size = Le::u32_to((4 + 12 * points) as u32);
        let mut pos = 0u64;
        let new_taggs = |from: usize,
                         out: &mut W,
                         bytes: &mut Vec<u8>,
                         encode: &mut dyn FnMut(usize, &mut Vec<u8>) -> Result<()>|
         -> Result<()> {
            for k in from..count {
                encode(k, bytes)?;
                out.write_all(&header)?;
                out.write_all(&size)?;
                out.write_all(bytes)?;
            }
            Ok(())
        };
        for (k, f) in old.iter().enumerate() {
            if k < count {
                self.copy_to(&mut pos, f.offset - 4, &mut out)?;
                encode(k, &mut bytes)?;
                out.write_all(&bytes)?;
                pos = frame_end(f);
                if k + 1 == old.len() {
                    new_taggs(old.len(), &mut out, &mut bytes, &mut encode)?;
                }
            } else {
                self.copy_to(&mut pos, f.tagg, &mut out)?;
                pos = frame_end(f);
            }
        }
        if old.is_empty() {
            self.copy_to(&mut pos, end_of_file, &mut out)?;
            new_taggs(0, &mut out, &mut bytes, &mut encode)?;
        }
        let len = self.input.seek(SeekFrom::End(0))?;
        self.copy_to(&mut pos, len, &mut out)?;
        out.flush()?;
        Ok(out)
    }

    /// Copies the file's bytes from `*pos` to `end` to `out`.
    fn copy_to<W: Write>(&mut self, pos: &mut u64, end: u64, out: &mut W) -> Result<()> {
        self.input.seek(SeekFrom::Start(*pos))?;
        let n = end.saturating_sub(*pos);
        let copied = std::io::copy(&mut (&mut self.input).take(n), out)?;
        if copied != n {
            return Err(Error::Malformed {
                format: Format::P3d,
                offset: *pos + copied,
                what: "the file ended early (did it change while being read?)".into(),
            });
        }
        *pos = end;
        Ok(())
    }
}

fn walk_lod<R: Read + Seek>(w: &mut Walker<'_, R>, index: usize) -> Result<LodFrames> {
    let start = w.pos;
    let magic: [u8; 4] = w.array("LOD signature")?;
    let signature = match &magic {
        b"P3DM" => Signature::P3dm,
        b"SP3X" => Signature::Sp3x,
        _ => {
            return Err(w.malformed(
                start,
                format!("LOD {index}: expected signature \"P3DM\" or \"SP3X\", found {magic:02x?}"),
            ))
        }
    };
    let header_size = w.u32("LOD header size")?;
    if header_size < 28 {
        return Err(w.malformed(
            start + 4,
            format!(
                "LOD {index}: header size {header_size} is smaller than the 28 bytes of its fields"
            ),
        ));
    }
    let _version = w.u32("LOD version")?;
    let n_points = w.u32("point count")?;
    let n_normals = w.u32("normal count")?;
    let n_faces = w.u32("face count")?;
    let _flags = w.u32("LOD flags")?;
    // Like the reader, a too-short file is reported at the last field read (the flags).
    let extra = w.count(start + 24, header_size - 28, 1, "LOD header extra bytes")?;
    w.skip(extra, "LOD header extra bytes")?;

    let at = start + 12;
    let n_points = w.items(at, n_points, 16, "point count")?;
    w.skip(16 * n_points, "points")?;
    let n_normals = w.items(at + 4, n_normals, 12, "normal count")?;
    w.skip(12 * n_normals, "normals")?;
    match signature {
        Signature::Sp3x => {
            let n = w.items(at + 8, n_faces, FACE_SP3X, "face count")?;
            for _ in 0..n {
                w.skip(32, "face texture name")?;
                face_vertices(w)?;
            }
        }
        Signature::P3dm => {
            let n = w.items(at + 8, n_faces, MIN_FACE_P3DM, "face count")?;
            for _ in 0..n {
                face_vertices(w)?;
                w.asciiz::<0>("face texture name")?;
                w.asciiz::<0>("face material name")?;
            }
        }
    }

    let tagg_at = w.pos;
    let magic: [u8; 4] = w.array("TAGG magic")?;
    if &magic != b"TAGG" {
        return Err(w.malformed(
            tagg_at,
            format!("LOD {index}: expected \"TAGG\" after the faces, found {magic:02x?}"),
        ));
    }
    let frame_size = 4 + 12 * n_points;
    let mut frames = Vec::new();
    // Every tagg takes at least 5 bytes of the file, so this loop ends with the input, and
    // `frames` grows by at most one entry per 16 bytes.
    let end_of_file = loop {
        let tagg = w.pos;
        let (name, len) = match signature {
            Signature::P3dm => {
                w.u8("tagg active flag")?;
                w.asciiz::<16>("tagg name")?
            }
            Signature::Sp3x => {
                let field: [u8; 64] = w.array("tagg name")?;
                let n = field.iter().position(|&b| b == 0).unwrap_or(64);
                let mut kept = [0u8; 16];
                let k = n.min(16);
                kept[..k].copy_from_slice(&field[..k]);
                (kept, n)
            }
        };
        let kind = if len <= 16 {
            kind_of(&name[..len])
        } else {
            TaggKind::Other
        };
        let size_at = w.pos;
        let size = w.u32("tagg data size")?;
        let size = w.count(size_at, size, 1, "tagg data size")?;
        let data_at = w.pos;
        match kind {
            TaggKind::Animation if size == frame_size => {
                // The index grows by one entry a frame: bounded as the items it holds.
                w.limits
                    .items(tagg, "animation frames", frames.len() as u64 + 1)?;
                let time = w.f32("frame time")?;
                w.skip(size - 4, "frame positions")?;
                frames.push(FrameAt {
                    time,
                    offset: data_at + 4,
                    tagg,
                });
            }
            _ => w.skip(size, "tagg data")?,
        }
        if kind == TaggKind::EndOfFile {
            break tagg;
        }
    };
    let resolution = w.f32("LOD resolution")?;
    Ok(LodFrames {
        signature,
        resolution,
        points: n_points as usize,
        frames,
        end_of_file,
    })
}

/// A face's vertex count (which must fit its 4 slots), vertex slots and flags, field by field
/// as the reader reads them so that a short file fails at the same offset.
fn face_vertices<R: Read + Seek>(w: &mut Walker<'_, R>) -> Result<()> {
    let n = w.u32("face vertex count")?;
    if n > 4 {
        return Err(w.malformed(
            w.pos - 4,
            format!("face vertex count {n}: a face has 3 or 4 vertices (4 slots)"),
        ));
    }
    for _ in 0..n {
        w.u32("face point index")?;
        w.u32("face normal index")?;
        w.f32("face u")?;
        w.f32("face v")?;
    }
    w.skip(16 * (4 - n as u64), "unused face vertex slots")?;
    w.u32("face flags")?;
    Ok(())
}
