//! MDD: the LightWave Motion Designer point cache (also written by Blender, Maya, Houdini).
//!
//! Big-endian, no magic. Sources: `notes/p3d_mdd_pc2.md` §5 (Blender's `io_shape_mdd` importer
//! and exporters, Blender's Mesh Cache modifier `MOD_meshcache_mdd.cc`, R. Vaillant's description).
//!
//! | offset | size | field | unit / meaning | source |
//! |---|---|---|---|---|
//! | 0 | 4 | frame count F | i32, ≥ 0 | notes §5 |
//! | 4 | 4 | point count P | i32, ≥ 0 | notes §5 |
//! | 8 | 4·F | frame times | f32 seconds (Blender writes frame / fps, from 0) | notes §5 |
//! | 8+4F | 12·P | *rest frame* — only in files of old Blender exporters, not counted in F | f32 x, y, z per point | notes §5, Blender ≤ 2.79 `export_mdd.py` |
//! | … | 12·P·F | frames | f32 x, y, z per point, frame after frame | notes §5 |
//!
//! Readings taken:
//! - The file size must be exactly `8 + 4F + 12PF`, or exactly one frame more: that extra frame
//!   is the rest pose Blender ≤ 2.79 wrote *before* frame 0 without counting it ("rest frame
//!   needed to keep frames in sync"); it is kept as [`Mdd::rest_frame`] so the file round-trips,
//!   and `validate` reports it. Any other size is `Malformed` (a truncated file must not pass as
//!   a shorter animation).
//! - Counts above `i32::MAX` are negative in the format's signed reading and rejected.
//! - In the JSON dump, NaN and infinite values are written as `"f32:0x<bits>"` strings (JSON
//!   has no such numbers), so a dump converts back to the identical file.
//! - There is no axis field: LightWave is Y-up left-handed, Blender 2.8+ writes its own Z-up
//!   coordinates unchanged, Blender 2.7x swapped to Y-up. Positions are kept as stored.

use std::io::{Read, Write};

use serde::{Deserialize, Serialize};

use super::stream::{self, CountingReader};
use crate::bytes::{Be, ByteOrder, Reader, Writer};
use crate::scene::{PointCache, PointFrame};
use crate::{Error, Format, Issue, Limits, Result};

/// Bytes before the frame times.
pub const HEADER_SIZE: u64 = 8;

/// A whole MDD file.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Mdd {
    /// Points per frame (the header's P).
    pub points: u32,
    /// One time per counted frame, in seconds (the header's F is its length).
    #[serde(with = "super::json_f32::list")]
    pub times: Vec<f32>,
    /// The uncounted rest frame before frame 0, when the file has one.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "super::json_f32::optional_frame"
    )]
    pub rest_frame: Option<Vec<[f32; 3]>>,
    /// The counted frames, `times.len()` of them, `points` positions each.
    #[serde(with = "super::json_f32::frames")]
    pub frames: Vec<Vec<[f32; 3]>>,
}

/// What `retroanim info` shows for an MDD.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Summary {
    /// Always `"mdd"`.
    pub format: &'static str,
    /// Counted frames (the header's count).
    pub frames: usize,
    /// Points per frame.
    pub points: u32,
    /// True when the file holds the uncounted rest frame.
    pub rest_frame: bool,
    /// Time of the first and last frame, seconds.
    pub time_range: Option<[f32; 2]>,
}

impl Mdd {
    /// The summary `retroanim info` shows.
    pub fn summary(&self) -> Summary {
        Summary {
            format: "mdd",
            frames: self.times.len(),
            points: self.points,
            rest_frame: self.rest_frame.is_some(),
            time_range: match (self.times.first(), self.times.last()) {
                (Some(a), Some(b)) => Some([*a, *b]),
                _ => None,
            },
        }
    }

    /// The file size this model writes to.
    pub fn file_size(&self) -> u64 {
        let blocks = self.times.len() as u64 + u64::from(self.rest_frame.is_some());
        HEADER_SIZE + 4 * self.times.len() as u64 + 12 * self.points as u64 * blocks
    }

    /// The frames as a neutral point cache (times in seconds as stored).
    pub fn to_point_cache(&self) -> PointCache {
        PointCache {
            points: self.points,
            frames: self
                .times
                .iter()
                .zip(&self.frames)
                .map(|(t, p)| PointFrame {
                    time: *t,
                    positions: p.clone(),
                })
                .collect(),
            start_frame: None,
            sample_rate: None,
            rest_frame: self.rest_frame.clone(),
        }
    }

    /// An MDD of a point cache's frames (and its rest frame, if any).
    pub fn from_point_cache(cache: &PointCache) -> Result<Mdd> {
        let mdd = Mdd {
            points: cache.points,
            times: cache.frames.iter().map(|f| f.time).collect(),
            rest_frame: cache.rest_frame.clone(),
            frames: cache.frames.iter().map(|f| f.positions.clone()).collect(),
        };
        check_writable(&mdd)?;
        Ok(mdd)
    }
}

/// Reads a whole MDD file.
pub fn read(data: &[u8]) -> Result<Mdd> {
    read_with(data, &Limits::default())
}

/// [`read`] with explicit limits.
pub fn read_with(data: &[u8], limits: &Limits) -> Result<Mdd> {
    let mut r = Reader::be(data, Format::Mdd).with_limits(*limits);
    let frames = signed_count(&mut r, "frame count")?;
    let points = signed_count(&mut r, "point count")?;
    if frames > 0 && points * 12 > r.remaining() as u64 {
        return Err(r.malformed_at(
            4,
            format!(
                "point count {points}: one frame needs {} bytes, only {} are left",
                points * 12,
                r.remaining()
            ),
        ));
    }
    let frame_size = stream::frame_bytes(points, 4, limits, Format::Mdd)?;
    let n = r.count(frames, 4, "frame times")?;
    let mut times = Vec::with_capacity(n);
    for _ in 0..n {
        times.push(r.f32("frame time")?);
    }
    let body = r.remaining() as u64;
    let counted = frames.saturating_mul(frame_size as u64);
    let rest = if body == counted {
        false
    } else if frame_size > 0 && body == counted.saturating_add(frame_size as u64) {
        true
    } else {
        let at = r.offset() + if body < counted { 0 } else { counted };
        let what = if body < counted {
            format!(
                "expected {frames} frames of {points} points ({counted} bytes), but only {body} bytes are left"
            )
        } else {
            format!(
                "{} bytes after {frames} frames of {points} points: neither the end of the file nor one uncounted rest frame ({frame_size} bytes)",
                body - counted
            )
        };
        return Err(Error::Malformed {
            format: Format::Mdd,
            offset: at,
            what,
        });
    };
    let points_usize = points as usize;
    let rest_frame = if rest {
        let mut p = Vec::new();
        stream::read_positions(&mut r, points_usize, &mut p)?;
        Some(p)
    } else {
        None
    };
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let mut p = Vec::new();
        stream::read_positions(&mut r, points_usize, &mut p)?;
        out.push(p);
    }
    Ok(Mdd {
        points: points as u32,
        times,
        rest_frame,
        frames: out,
    })
}

fn signed_count(r: &mut Reader<'_, Be>, what: &str) -> Result<u64> {
    let at = r.offset();
    let v = r.u32(what)?;
    if v > i32::MAX as u32 {
        return Err(r.malformed_at(at, format!("{what} {} is negative", v as i32)));
    }
    Ok(v as u64)
}

fn check_writable(m: &Mdd) -> Result<()> {
    let fail = |what: String| {
        Err(Error::Unencodable {
            format: Format::Mdd,
            what,
        })
    };
    if m.times.len() > i32::MAX as usize || m.points > i32::MAX as u32 {
        return fail("more than 2^31-1 frames or points".into());
    }
    if m.frames.len() != m.times.len() {
        return fail(format!(
            "{} frames but {} frame times",
            m.frames.len(),
            m.times.len()
        ));
    }
    let n = m.points as usize;
    if let Some(i) = m.frames.iter().position(|f| f.len() != n) {
        return fail(format!(
            "frame {i} has {} positions, the header says {n} points",
            m.frames[i].len()
        ));
    }
    if let Some(r) = &m.rest_frame {
        if r.len() != n {
            return fail(format!(
                "the rest frame has {} positions, the header says {n} points",
                r.len()
            ));
        }
        if n == 0 {
            return fail("a rest frame of zero points cannot be told apart from none".into());
        }
    }
    Ok(())
}

/// Writes a whole MDD file.
pub fn write(m: &Mdd) -> Result<Vec<u8>> {
    check_writable(m)?;
    let mut w = Writer::<Be>::with_capacity(usize::try_from(m.file_size()).unwrap_or(0));
    w.u32(m.times.len() as u32);
    w.u32(m.points);
    for t in &m.times {
        w.f32(*t);
    }
    for f in m.rest_frame.iter().chain(&m.frames) {
        stream::write_positions(&mut w, f);
    }
    Ok(w.into_vec())
}

/// Every finding about an MDD: the uncounted rest frame, times that do not increase or are
/// negative, non-finite positions.
pub fn validate(m: &Mdd) -> Vec<Issue> {
    let mut out = Vec::new();
    let times_at = HEADER_SIZE;
    let frames_at = times_at + 4 * m.times.len() as u64;
    let frame_size = 12 * m.points as u64;
    if m.rest_frame.is_some() {
        out.push(Issue::warning(
            frames_at,
            "uncounted-rest-frame",
            format!(
                "the file holds {} frames but its header counts {}: the first is an uncounted rest frame (as Blender 2.79 and older wrote); frame 0 starts at byte {}",
                m.times.len() + 1,
                m.times.len(),
                frames_at + frame_size
            ),
        ));
    }
    if m.times.is_empty() {
        out.push(Issue::warning(0, "no-frames", "the file has no frames"));
    }
    if m.points == 0 {
        out.push(Issue::warning(4, "no-points", "the frames have no points"));
    }
    for (i, t) in m.times.iter().enumerate() {
        let at = times_at + 4 * i as u64;
        if !t.is_finite() {
            out.push(Issue::error(
                at,
                "time-not-finite",
                format!("frame {i} time is {t}"),
            ));
        } else if *t < 0.0 {
            out.push(Issue::info(
                at,
                "negative-time",
                format!("frame {i} time {t} s is negative"),
            ));
        }
        // An animation's keys must increase (glTF refuses others; so does `convert`).
        if i > 0 && m.times[i - 1].is_finite() && t.is_finite() && *t <= m.times[i - 1] {
            out.push(Issue::error(
                at,
                "time-not-increasing",
                format!(
                    "frame {i} time {t} s is not after frame {} time {} s",
                    i - 1,
                    m.times[i - 1]
                ),
            ));
        }
    }
    let first = frames_at
        + if m.rest_frame.is_some() {
            frame_size
        } else {
            0
        };
    let blocks = m.rest_frame.iter().map(|f| (frames_at, f)).chain(
        m.frames
            .iter()
            .enumerate()
            .map(|(i, f)| (first + i as u64 * frame_size, f)),
    );
    for (at, f) in blocks {
        if let Some(k) = f.iter().position(|p| p.iter().any(|c| !c.is_finite())) {
            out.push(Issue::error(
                at + 12 * k as u64,
                "position-not-finite",
                format!("point {k} is {:?}", f[k]),
            ));
        }
    }
    out
}

/// What the next block of an MDD stream is.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Block {
    /// The uncounted rest frame (comes first, when present).
    Rest,
    /// Counted frame `index`, at `time` seconds.
    Frame {
        /// Frame number, from 0.
        index: usize,
        /// Its time in seconds.
        time: f32,
    },
}

/// Reads an MDD one frame at a time from any `Read` (a file of any size in constant memory,
/// plus the frame times).
///
/// MDD cannot say whether it holds the uncounted rest frame except by its size, so the total
/// length of the data is needed up front (`std::fs::metadata(path)?.len()`).
#[derive(Debug)]
pub struct StreamReader<R> {
    input: CountingReader<R>,
    points: u32,
    times: Vec<f32>,
    rest_frame: bool,
    next: usize,
    buf: Vec<u8>,
}

impl<R: Read> StreamReader<R> {
    /// Reads the header and frame times; `len` is the total length of the data.
    pub fn new(input: R, len: u64, limits: &Limits) -> Result<Self> {
        let mut input = CountingReader {
            inner: input,
            offset: 0,
            format: Format::Mdd,
        };
        let mut head = [0u8; 8];
        input.exact(&mut head, "the MDD header")?;
        let mut r = Reader::be(&head, Format::Mdd);
        let frames = signed_count(&mut r, "frame count")?;
        let points = signed_count(&mut r, "point count")?;
        let frame_size = stream::frame_bytes(points, 4, limits, Format::Mdd)? as u64;
        limits.items(0, "frames", frames)?;
        let counted = frames
            .saturating_mul(frame_size)
            .saturating_add(HEADER_SIZE + 4 * frames);
        let rest_frame = if len == counted {
            false
        } else if frame_size > 0 && len == counted.saturating_add(frame_size) {
            true
        } else {
            return Err(Error::Malformed {
                format: Format::Mdd,
                offset: len.min(counted),
                what: format!(
                    "{frames} frames of {points} points need {counted} bytes (or one rest frame more), the data has {len}"
                ),
            });
        };
        // Times grow as they arrive, never from the count alone.
        let mut times = Vec::new();
        let mut b = [0u8; 4];
        for _ in 0..frames {
            input.exact(&mut b, "a frame time")?;
            times.push(f32::from_bits(Be::u32_from(b)));
        }
        Ok(StreamReader {
            input,
            points: points as u32,
            times,
            rest_frame,
            next: 0,
            buf: vec![0; frame_size as usize],
        })
    }

    /// Points per frame.
    pub fn points(&self) -> u32 {
        self.points
    }

    /// The counted frames' times, seconds.
    pub fn times(&self) -> &[f32] {
        &self.times
    }

    /// True when the data holds the uncounted rest frame (returned first by [`Self::next_frame`]).
    pub fn has_rest_frame(&self) -> bool {
        self.rest_frame
    }

    /// Reads the next block into `out`; `None` after the last frame (and then checks that
    /// nothing follows).
    pub fn next_frame(&mut self, out: &mut Vec<[f32; 3]>) -> Result<Option<Block>> {
        let blocks = self.times.len() + usize::from(self.rest_frame);
        if self.next >= blocks {
            self.input.expect_end("the last frame")?;
            return Ok(None);
        }
        let block = match (self.rest_frame, self.next) {
            (true, 0) => Block::Rest,
            (true, i) => Block::Frame {
                index: i - 1,
                time: self.times[i - 1],
            },
            (false, i) => Block::Frame {
                index: i,
                time: self.times[i],
            },
        };
        self.input.exact(&mut self.buf, "a frame of positions")?;
        let mut r = Reader::be(&self.buf, Format::Mdd);
        stream::read_positions(&mut r, self.points as usize, out)?;
        self.next += 1;
        Ok(Some(block))
    }
}

/// Writes an MDD one frame at a time to any `Write`.
#[derive(Debug)]
pub struct StreamWriter<W: Write> {
    out: W,
    points: u32,
    expected: usize,
    written: usize,
}

impl<W: Write> StreamWriter<W> {
    /// Writes the header and the frame times. Then call [`Self::write_frame`] once per frame
    /// (first the rest frame when `rest_frame` is true), and [`Self::finish`].
    pub fn new(mut out: W, points: u32, times: &[f32], rest_frame: bool) -> Result<Self> {
        if times.len() > i32::MAX as usize || points > i32::MAX as u32 {
            return Err(Error::Unencodable {
                format: Format::Mdd,
                what: "more than 2^31-1 frames or points".into(),
            });
        }
        let mut w = Writer::<Be>::with_capacity(8 + 4 * times.len());
        w.u32(times.len() as u32);
        w.u32(points);
        for t in times {
            w.f32(*t);
        }
        out.write_all(&w.into_vec())?;
        Ok(StreamWriter {
            out,
            points,
            expected: times.len() + usize::from(rest_frame),
            written: 0,
        })
    }

    /// Writes the next frame.
    pub fn write_frame(&mut self, positions: &[[f32; 3]]) -> Result<()> {
        if positions.len() != self.points as usize {
            return Err(Error::Unencodable {
                format: Format::Mdd,
                what: format!(
                    "frame {} has {} positions, the header says {} points",
                    self.written,
                    positions.len(),
                    self.points
                ),
            });
        }
        if self.written == self.expected {
            return Err(Error::Unencodable {
                format: Format::Mdd,
                what: format!("more frames than the {} announced", self.expected),
            });
        }
        stream::write_frame::<Be, W>(&mut self.out, positions)?;
        self.written += 1;
        Ok(())
    }

    /// Checks that every announced frame was written, flushes, and returns the output.
    pub fn finish(mut self) -> Result<W> {
        if self.written != self.expected {
            return Err(Error::Unencodable {
                format: Format::Mdd,
                what: format!(
                    "{} frames written, {} announced",
                    self.written, self.expected
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

    fn sample(rest: bool) -> Mdd {
        Mdd {
            points: 2,
            times: vec![0.0, 0.5],
            rest_frame: rest.then(|| vec![[9.0, 9.0, 9.0], [8.0, 8.0, 8.0]]),
            frames: vec![
                vec![[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]],
                vec![[-1.0, -2.0, -3.0], [0.25, 0.5, 0.75]],
            ],
        }
    }

    #[test]
    fn hand_built_bytes_per_layout() {
        let mut b = vec![0, 0, 0, 2, 0, 0, 0, 2];
        for f in [
            0.0f32, 0.5, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, -1.0, -2.0, -3.0, 0.25, 0.5, 0.75,
        ] {
            b.extend_from_slice(&f.to_be_bytes());
        }
        let m = read(&b).unwrap();
        assert_eq!(m, sample(false));
        assert_eq!(write(&m).unwrap(), b);
        assert!(validate(&m).is_empty());
    }

    #[test]
    fn rest_frame_is_read_kept_and_reported() {
        let bytes = write(&sample(true)).unwrap();
        assert_eq!(bytes.len(), 8 + 8 + 3 * 24);
        let m = read(&bytes).unwrap();
        assert_eq!(m, sample(true));
        let issues = validate(&m);
        assert_eq!(issues.len(), 1);
        assert_eq!(issues[0].code, "uncounted-rest-frame");
        assert_eq!(issues[0].offset, 16);
    }

    #[test]
    fn wrong_sizes_fail_with_offsets() {
        let bytes = write(&sample(false)).unwrap();
        let e = read(&bytes[..bytes.len() - 1]).unwrap_err();
        assert!(matches!(e, Error::Malformed { offset: 16, .. }), "{e}");
        let mut longer = bytes.clone();
        longer.push(0);
        let e = read(&longer).unwrap_err();
        assert!(matches!(e, Error::Malformed { offset: 64, .. }), "{e}");
        let mut neg = bytes.clone();
        neg[0] = 0x80;
        assert!(matches!(
            read(&neg).unwrap_err(),
            Error::Malformed { offset: 0, .. }
        ));
        let e = read(&[0, 0, 0, 9]).unwrap_err();
        assert!(matches!(e, Error::Malformed { offset: 4, .. }), "{e}");
    }

    #[test]
    fn huge_counts_allocate_nothing() {
        let b = [0x7f, 0xff, 0xff, 0xff, 0x7f, 0xff, 0xff, 0xff, 0, 0, 0, 0];
        assert!(read(&b).is_err());
        assert!(StreamReader::new(&b[..], u64::MAX, &Limits::default()).is_err());
        // Without limits the size arithmetic saturates instead of overflowing.
        assert!(read_with(&b, &Limits::none()).is_err());
        assert!(StreamReader::new(&b[..], u64::MAX, &Limits::none()).is_err());
    }

    #[test]
    fn streaming_matches_whole_file() {
        for rest in [false, true] {
            let m = sample(rest);
            let bytes = write(&m).unwrap();
            let mut r =
                StreamReader::new(&bytes[..], bytes.len() as u64, &Limits::default()).unwrap();
            assert_eq!(r.times(), &m.times[..]);
            assert_eq!(r.has_rest_frame(), rest);
            let mut w = StreamWriter::new(Vec::new(), r.points(), &m.times, rest).unwrap();
            let mut buf = Vec::new();
            let mut blocks = Vec::new();
            while let Some(b) = r.next_frame(&mut buf).unwrap() {
                w.write_frame(&buf).unwrap();
                blocks.push(b);
            }
            assert_eq!(blocks.len(), 2 + usize::from(rest));
            assert_eq!(
                blocks[usize::from(rest)],
                Block::Frame {
                    index: 0,
                    time: 0.0
                }
            );
            assert_eq!(w.finish().unwrap(), bytes);
        }
    }

    #[test]
    fn streaming_reader_reports_truncation_offset() {
        let bytes = write(&sample(false)).unwrap();
        let short = &bytes[..40];
        let mut r = StreamReader::new(short, bytes.len() as u64, &Limits::default()).unwrap();
        let mut buf = Vec::new();
        r.next_frame(&mut buf).unwrap();
        let e = r.next_frame(&mut buf).unwrap_err();
        assert!(matches!(e, Error::Malformed { offset: 40, .. }), "{e}");
    }

    #[test]
    fn writer_refuses_inconsistent_models() {
        let mut m = sample(false);
        m.frames[1].pop();
        assert!(matches!(write(&m), Err(Error::Unencodable { .. })));
        let mut w = StreamWriter::new(Vec::new(), 1, &[0.0], false).unwrap();
        assert!(w.write_frame(&[[0.0; 3], [0.0; 3]]).is_err());
        assert!(w.finish().is_err());
    }
}
