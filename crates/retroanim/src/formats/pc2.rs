//! PC2: the 3ds Max PointCache2 point cache (also written by Blender's `io_export_pc2`).
//!
//! Little-endian. Sources: `notes/p3d_mdd_pc2.md` §6 (J. Burnett's PointCache2 README,
//! Blender's `MOD_meshcache_pc2.cc` and `io_export_pc2.py`).
//!
//! | offset | size | field | unit / meaning | source |
//! |---|---|---|---|---|
//! | 0 | 12 | signature | `POINTCACHE2\0` | PC2 README |
//! | 12 | 4 | file version | i32, 1 | PC2 README |
//! | 16 | 4 | point count P | i32, ≥ 0 | PC2 README |
//! | 20 | 4 | start frame | f32, frames (not seconds) | PC2 README |
//! | 24 | 4 | sample rate | f32, frames between samples | PC2 README |
//! | 28 | 4 | sample count S | i32, ≥ 0 | PC2 README |
//! | 32 | 12·P·S | samples | f32 x, y, z per point, sample after sample; sample i is at frame start + i·rate | PC2 README |
//!
//! Readings taken:
//! - The file size must be exactly `32 + 12PS`. (MegaFiers ignores S and derives it from the
//!   size; Blender trusts S.) Shorter or longer data is `Malformed`, so a truncated file cannot
//!   pass as a shorter one.
//! - A point count of 0 with samples is `Malformed`: such samples take no bytes, so nothing
//!   bounds their count (a 32-byte file could otherwise ask for 2³¹ empty samples).
//! - Versions other than 1 are read with the same layout and reported by `validate`; Blender
//!   rejects S ≤ 0, so `validate` reports an empty cache as an error.
//! - PC2 counts time in frames; converting to seconds (for MDD or glTF) needs a frame rate,
//!   which the file does not hold: [`Pc2::to_point_cache`] takes it.
//! - In the JSON dump, NaN and infinite values are written as `"f32:0x<bits>"` strings (JSON
//!   has no such numbers), so a dump converts back to the identical file.
//! - 3ds Max is Z-up, Blender's exporter rotates to Y-up by default: there is no axis field and
//!   positions are kept as stored.

use std::io::{Read, Write};

use serde::{Deserialize, Serialize};

use super::stream::{self, CountingReader};
use crate::bytes::{Le, Reader, Writer};
use crate::scene::{PointCache, PointFrame};
use crate::{Error, Format, Issue, Limits, Result};

/// The 12-byte signature.
pub const SIGNATURE: &[u8; 12] = b"POINTCACHE2\0";

/// Bytes before the samples.
pub const HEADER_SIZE: u64 = 32;

/// The PC2 header.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Header {
    /// File version (1).
    pub version: i32,
    /// Points per sample.
    pub points: u32,
    /// Frame number of the first sample.
    pub start_frame: f32,
    /// Frames between samples.
    pub sample_rate: f32,
    /// Number of samples.
    pub samples: u32,
}

/// A whole PC2 file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Pc2 {
    /// File version (1).
    pub version: i32,
    /// Points per sample.
    pub points: u32,
    /// Frame number of the first sample.
    #[serde(with = "super::json_f32::scalar")]
    pub start_frame: f32,
    /// Frames between samples.
    #[serde(with = "super::json_f32::scalar")]
    pub sample_rate: f32,
    /// The samples, `points` positions each.
    #[serde(with = "super::json_f32::frames")]
    pub frames: Vec<Vec<[f32; 3]>>,
}

/// What `retroanim info` shows for a PC2.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Summary {
    /// Always `"pc2"`.
    pub format: &'static str,
    /// Samples.
    pub frames: usize,
    /// Points per sample.
    pub points: u32,
    /// Frame number of the first sample.
    pub start_frame: f32,
    /// Frames between samples.
    pub sample_rate: f32,
}

impl Pc2 {
    /// The header this model writes.
    pub fn header(&self) -> Header {
        Header {
            version: self.version,
            points: self.points,
            start_frame: self.start_frame,
            sample_rate: self.sample_rate,
            samples: self.frames.len() as u32,
        }
    }

    /// The summary `retroanim info` shows.
    pub fn summary(&self) -> Summary {
        Summary {
            format: "pc2",
            frames: self.frames.len(),
            points: self.points,
            start_frame: self.start_frame,
            sample_rate: self.sample_rate,
        }
    }

    /// The samples as a neutral point cache; sample i's time is
    /// `(start_frame + i·sample_rate) / fps` seconds (computed in f64, stored as f32).
    pub fn to_point_cache(&self, fps: f32) -> PointCache {
        PointCache {
            points: self.points,
            frames: self
                .frames
                .iter()
                .enumerate()
                .map(|(i, p)| PointFrame {
                    time: frame_time(self.start_frame, self.sample_rate, i, fps),
                    positions: p.clone(),
                })
                .collect(),
            start_frame: Some(self.start_frame),
            sample_rate: Some(self.sample_rate),
            rest_frame: None,
        }
    }

    /// A PC2 of a point cache's frames. The cache's `start_frame`/`sample_rate` are used when
    /// set; otherwise they come from the frame times at `fps` (see [`pc2_timing`]). PC2 has no
    /// place for a rest frame: it is left out.
    pub fn from_point_cache(cache: &PointCache, fps: f32) -> Result<Pc2> {
        let (start, rate) = match (cache.start_frame, cache.sample_rate) {
            (Some(s), Some(r)) => (s, r),
            _ => pc2_timing(
                &cache.frames.iter().map(|f| f.time).collect::<Vec<_>>(),
                fps,
            ),
        };
        let pc2 = Pc2 {
            version: 1,
            points: cache.points,
            start_frame: start,
            sample_rate: rate,
            frames: cache.frames.iter().map(|f| f.positions.clone()).collect(),
        };
        check_writable(&pc2)?;
        Ok(pc2)
    }
}

/// The time in seconds of sample `i`: `(start + i·rate) / fps`, in f64, rounded once to f32.
pub fn frame_time(start: f32, rate: f32, i: usize, fps: f32) -> f32 {
    ((start as f64 + i as f64 * rate as f64) / fps as f64) as f32
}

/// PC2's start frame and sample rate for frames at `times` seconds played at `fps`: the first
/// time in frames, and the mean spacing in frames, each snapped to a whole frame when within
/// 1/1000 of one (so times written as `frame / fps` come back bit for bit through
/// [`frame_time`]). No times: (0, 1); one time: rate 1.
pub fn pc2_timing(times: &[f32], fps: f32) -> (f32, f32) {
    let snap = |v: f64| {
        let r = v.round();
        if (v - r).abs() < 1e-3 {
            r as f32
        } else {
            v as f32
        }
    };
    let fps = fps as f64;
    match times {
        [] => (0.0, 1.0),
        [t] => (snap(*t as f64 * fps), 1.0),
        [first, .., last] => {
            let n = (times.len() - 1) as f64;
            (
                snap(*first as f64 * fps),
                snap((*last as f64 - *first as f64) * fps / n),
            )
        }
    }
}

/// Reads a whole PC2 file.
pub fn read(data: &[u8]) -> Result<Pc2> {
    read_with(data, &Limits::default())
}

/// [`read`] with explicit limits.
pub fn read_with(data: &[u8], limits: &Limits) -> Result<Pc2> {
    let mut r = Reader::le(data, Format::Pc2).with_limits(*limits);
    let header = read_header(&mut r, limits)?;
    if header.samples > 0 && header.points as u64 * 12 > r.remaining() as u64 {
        return Err(r.malformed_at(
            16,
            format!(
                "point count {}: one sample needs {} bytes, only {} are left",
                header.points,
                header.points as u64 * 12,
                r.remaining()
            ),
        ));
    }
    let frame_size = stream::frame_bytes(header.points as u64, 16, limits, Format::Pc2)?;
    let body = r.remaining() as u64;
    let need = (header.samples as u64).saturating_mul(frame_size as u64);
    if body != need {
        let what = if body < need {
            format!(
                "expected {} samples of {} points ({need} bytes), but only {body} bytes are left",
                header.samples, header.points
            )
        } else {
            format!(
                "{} bytes after the last of {} samples",
                body - need,
                header.samples
            )
        };
        let at = if body < need { 28 } else { HEADER_SIZE + need };
        return Err(r.malformed_at(at, what));
    }
    let n = r.count(header.samples as u64, frame_size, "samples")?;
    let mut frames = Vec::with_capacity(n);
    for _ in 0..n {
        let mut p = Vec::new();
        stream::read_positions(&mut r, header.points as usize, &mut p)?;
        frames.push(p);
    }
    Ok(Pc2 {
        version: header.version,
        points: header.points,
        start_frame: header.start_frame,
        sample_rate: header.sample_rate,
        frames,
    })
}

fn read_header(r: &mut Reader<'_, Le>, _limits: &Limits) -> Result<Header> {
    let sig: [u8; 12] = r.array("the POINTCACHE2 signature")?;
    if &sig != SIGNATURE {
        return Err(r.malformed_at(
            0,
            format!(
                "expected the signature \"POINTCACHE2\\0\", found {:?}",
                String::from_utf8_lossy(&sig)
            ),
        ));
    }
    let version = r.i32("file version")?;
    let points = r.i32("point count")?;
    if points < 0 {
        return Err(r.malformed_at(16, format!("point count {points} is negative")));
    }
    let start_frame = r.f32("start frame")?;
    let sample_rate = r.f32("sample rate")?;
    let samples = r.i32("sample count")?;
    if samples < 0 {
        return Err(r.malformed_at(28, format!("sample count {samples} is negative")));
    }
    if points == 0 && samples > 0 {
        // Samples of no points take no bytes, so nothing bounds their count: refuse them
        // rather than allocate (or loop) for whatever the header says.
        return Err(r.malformed_at(
            16,
            format!("point count 0 with {samples} samples: samples of no points cannot be counted"),
        ));
    }
    Ok(Header {
        version,
        points: points as u32,
        start_frame,
        sample_rate,
        samples: samples as u32,
    })
}

fn header_bytes(h: &Header) -> Result<Vec<u8>> {
    if h.points > i32::MAX as u32 || h.samples > i32::MAX as u32 {
        return Err(Error::Unencodable {
            format: Format::Pc2,
            what: "more than 2^31-1 points or samples".into(),
        });
    }
    let mut w = Writer::le();
    w.bytes(SIGNATURE);
    w.i32(h.version);
    w.u32(h.points);
    w.f32(h.start_frame);
    w.f32(h.sample_rate);
    w.u32(h.samples);
    Ok(w.into_vec())
}

fn check_writable(p: &Pc2) -> Result<()> {
    let n = p.points as usize;
    if n == 0 && !p.frames.is_empty() {
        return Err(Error::Unencodable {
            format: Format::Pc2,
            what: "samples of zero points (readers refuse them: nothing bounds their count)".into(),
        });
    }
    if let Some(i) = p.frames.iter().position(|f| f.len() != n) {
        return Err(Error::Unencodable {
            format: Format::Pc2,
            what: format!(
                "sample {i} has {} positions, the header says {n} points",
                p.frames[i].len()
            ),
        });
    }
    Ok(())
}

/// Writes a whole PC2 file.
pub fn write(p: &Pc2) -> Result<Vec<u8>> {
    check_writable(p)?;
    let head = header_bytes(&p.header())?;
    let mut w = Writer::<Le>::with_capacity(head.len() + 12 * p.points as usize * p.frames.len());
    w.bytes(&head);
    for f in &p.frames {
        stream::write_positions(&mut w, f);
    }
    Ok(w.into_vec())
}

/// Every finding about a PC2: version, empty cache (Blender refuses it), sample rate,
/// non-finite positions.
pub fn validate(p: &Pc2) -> Vec<Issue> {
    let mut out = Vec::new();
    if p.version != 1 {
        out.push(Issue::warning(
            12,
            "version",
            format!("file version {} (only 1 is defined)", p.version),
        ));
    }
    if p.points == 0 {
        out.push(Issue::warning(
            16,
            "no-points",
            "the samples have no points",
        ));
    }
    if !p.start_frame.is_finite() {
        out.push(Issue::error(
            20,
            "start-frame-not-finite",
            format!("start frame is {}", p.start_frame),
        ));
    }
    if !(p.sample_rate.is_finite() && p.sample_rate > 0.0) {
        out.push(Issue::error(
            24,
            "sample-rate",
            format!(
                "sample rate {} is not a positive number of frames",
                p.sample_rate
            ),
        ));
    }
    if p.frames.is_empty() {
        out.push(Issue::error(
            28,
            "no-samples",
            "no samples (Blender's Mesh Cache refuses such files)",
        ));
    }
    let size = 12 * p.points as u64;
    for (i, f) in p.frames.iter().enumerate() {
        if let Some(k) = f.iter().position(|q| q.iter().any(|c| !c.is_finite())) {
            out.push(Issue::error(
                HEADER_SIZE + i as u64 * size + 12 * k as u64,
                "position-not-finite",
                format!("sample {i} point {k} is {:?}", f[k]),
            ));
        }
    }
    out
}

/// Reads a PC2 one sample at a time from any `Read`.
#[derive(Debug)]
pub struct StreamReader<R> {
    input: CountingReader<R>,
    header: Header,
    next: u32,
    buf: Vec<u8>,
}

impl<R: Read> StreamReader<R> {
    /// Reads the header.
    pub fn new(input: R, limits: &Limits) -> Result<Self> {
        let mut input = CountingReader {
            inner: input,
            offset: 0,
            format: Format::Pc2,
        };
        let mut head = [0u8; HEADER_SIZE as usize];
        input.exact(&mut head, "the PC2 header")?;
        let header = read_header(&mut Reader::le(&head, Format::Pc2), limits)?;
        let size = stream::frame_bytes(header.points as u64, 16, limits, Format::Pc2)?;
        Ok(StreamReader {
            input,
            header,
            next: 0,
            buf: vec![0; size],
        })
    }

    /// The header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// Reads the next sample into `out` and returns its index; `None` after the last one (and
    /// then checks that nothing follows).
    pub fn next_frame(&mut self, out: &mut Vec<[f32; 3]>) -> Result<Option<u32>> {
        if self.next >= self.header.samples {
            self.input.expect_end("the last sample")?;
            return Ok(None);
        }
        self.input.exact(&mut self.buf, "a sample of positions")?;
        let mut r = Reader::le(&self.buf, Format::Pc2);
        stream::read_positions(&mut r, self.header.points as usize, out)?;
        self.next += 1;
        Ok(Some(self.next - 1))
    }
}

/// Writes a PC2 one sample at a time to any `Write`.
#[derive(Debug)]
pub struct StreamWriter<W: Write> {
    out: W,
    header: Header,
    written: u32,
}

impl<W: Write> StreamWriter<W> {
    /// Writes the header; then call [`Self::write_frame`] `header.samples` times and
    /// [`Self::finish`].
    pub fn new(mut out: W, header: Header) -> Result<Self> {
        if header.points == 0 && header.samples > 0 {
            return Err(Error::Unencodable {
                format: Format::Pc2,
                what: "samples of zero points (readers refuse them: nothing bounds their count)"
                    .into(),
            });
        }
        out.write_all(&header_bytes(&header)?)?;
        Ok(StreamWriter {
            out,
            header,
            written: 0,
        })
    }

    /// Writes the next sample.
    pub fn write_frame(&mut self, positions: &[[f32; 3]]) -> Result<()> {
        let fail = |what: String| {
            Err(Error::Unencodable {
                format: Format::Pc2,
                what,
            })
        };
        if positions.len() != self.header.points as usize {
            return fail(format!(
                "sample {} has {} positions, the header says {} points",
                self.written,
                positions.len(),
                self.header.points
            ));
        }
        if self.written == self.header.samples {
            return fail(format!(
                "more samples than the {} announced",
                self.header.samples
            ));
        }
        stream::write_frame::<Le, W>(&mut self.out, positions)?;
        self.written += 1;
        Ok(())
    }

    /// Checks that every announced sample was written, flushes, and returns the output.
    pub fn finish(mut self) -> Result<W> {
        if self.written != self.header.samples {
            return Err(Error::Unencodable {
                format: Format::Pc2,
                what: format!(
                    "{} samples written, {} announced",
                    self.written, self.header.samples
                ),
            });
        }
        self.out.flush()?;
        Ok(self.out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A PC2 built byte by byte from the README's layout.
    fn spec_bytes() -> Vec<u8> {
        let mut b = b"POINTCACHE2\0".to_vec();
        b.extend_from_slice(&1i32.to_le_bytes());
        b.extend_from_slice(&2i32.to_le_bytes());
        b.extend_from_slice(&10.0f32.to_le_bytes());
        b.extend_from_slice(&0.5f32.to_le_bytes());
        b.extend_from_slice(&3i32.to_le_bytes());
        for i in 0..18 {
            b.extend_from_slice(&(i as f32 * 0.25).to_le_bytes());
        }
        b
    }

    #[test]
    fn hand_built_bytes_per_spec() {
        let b = spec_bytes();
        let p = read(&b).unwrap();
        assert_eq!(p.version, 1);
        assert_eq!(p.points, 2);
        assert_eq!(p.start_frame, 10.0);
        assert_eq!(p.sample_rate, 0.5);
        assert_eq!(p.frames.len(), 3);
        assert_eq!(p.frames[1][1], [2.25, 2.5, 2.75]);
        assert_eq!(write(&p).unwrap(), b);
        assert!(validate(&p).is_empty());
        // Sample 2 is at frame 10 + 2 × 0.5 = 11, i.e. 11/25 s at 25 fps.
        assert_eq!(p.to_point_cache(25.0).frames[2].time, 0.44);
    }

    #[test]
    fn malformed_headers_and_sizes() {
        let b = spec_bytes();
        let mut bad = b.clone();
        bad[0] = b'X';
        assert!(matches!(
            read(&bad),
            Err(Error::Malformed { offset: 0, .. })
        ));
        let e = read(&b[..b.len() - 4]).unwrap_err();
        assert!(matches!(e, Error::Malformed { offset: 28, .. }), "{e}");
        let e = read(&b[..20]).unwrap_err();
        assert!(matches!(e, Error::Malformed { offset: 20, .. }), "{e}");
        let mut longer = b.clone();
        longer.extend_from_slice(&[1, 2]);
        let e = read(&longer).unwrap_err();
        assert!(matches!(e, Error::Malformed { offset: 104, .. }), "{e}");
        let mut neg = b.clone();
        neg[28..32].copy_from_slice(&(-1i32).to_le_bytes());
        assert!(matches!(
            read(&neg),
            Err(Error::Malformed { offset: 28, .. })
        ));
        let mut huge = b[..32].to_vec();
        huge[16..20].copy_from_slice(&i32::MAX.to_le_bytes());
        huge[28..32].copy_from_slice(&i32::MAX.to_le_bytes());
        assert!(read(&huge).is_err());
        assert!(StreamReader::new(&huge[..], &Limits::default()).is_err());
        let mut empty = b[..32].to_vec();
        empty[16..20].copy_from_slice(&0i32.to_le_bytes());
        assert!(matches!(
            read(&empty),
            Err(Error::Malformed { offset: 16, .. })
        ));
        assert!(StreamReader::new(&empty[..], &Limits::default()).is_err());
    }

    #[test]
    fn validate_reports_what_blender_refuses() {
        let mut p = read(&spec_bytes()).unwrap();
        p.frames.clear();
        p.version = 2;
        p.sample_rate = 0.0;
        let codes: Vec<_> = validate(&p).into_iter().map(|i| i.code).collect();
        assert_eq!(codes, ["version", "sample-rate", "no-samples"]);
    }

    #[test]
    fn streaming_matches_whole_file() {
        let b = spec_bytes();
        let mut r = StreamReader::new(&b[..], &Limits::default()).unwrap();
        let mut w = StreamWriter::new(Vec::new(), *r.header()).unwrap();
        let mut buf = Vec::new();
        while r.next_frame(&mut buf).unwrap().is_some() {
            w.write_frame(&buf).unwrap();
        }
        assert_eq!(w.finish().unwrap(), b);
        let mut r = StreamReader::new(&b[..b.len() - 1], &Limits::default()).unwrap();
        r.next_frame(&mut buf).unwrap();
        r.next_frame(&mut buf).unwrap();
        let e = r.next_frame(&mut buf).unwrap_err();
        assert!(matches!(e, Error::Malformed { offset: 103, .. }), "{e}");
    }

    #[test]
    fn timing_snaps_whole_frames() {
        let times: Vec<f32> = (0..120).map(|i| (i as f64 / 30.0) as f32).collect();
        assert_eq!(pc2_timing(&times, 30.0), (0.0, 1.0));
        for (i, t) in times.iter().enumerate() {
            assert_eq!(frame_time(0.0, 1.0, i, 30.0).to_bits(), t.to_bits());
        }
        assert_eq!(pc2_timing(&[], 30.0), (0.0, 1.0));
        assert_eq!(pc2_timing(&[0.5], 24.0), (12.0, 1.0));
    }
}
