//! Shared plumbing of the streaming point-cache readers and writers: exact reads over
//! `std::io::Read` that turn a short read into `Malformed` at the absolute offset, and frame
//! (de)coding through the byte layer.

use std::io::{Read, Write};

use crate::bytes::{ByteOrder, Reader, Writer};
use crate::{Error, Format, Limits, Result};

/// A `Read` with the absolute offset of the next byte.
#[derive(Debug)]
pub(crate) struct CountingReader<R> {
    pub inner: R,
    pub offset: u64,
    pub format: Format,
}

impl<R: Read> CountingReader<R> {
    /// Fills `buf` completely, or fails with `Malformed` naming `what` at the offset it starts.
    pub fn exact(&mut self, buf: &mut [u8], what: &str) -> Result<()> {
        let mut got = 0;
        while got < buf.len() {
            match self.inner.read(&mut buf[got..]) {
                Ok(0) => {
                    return Err(Error::Malformed {
                        format: self.format,
                        offset: self.offset + got as u64,
                        what: format!(
                            "expected {what} ({} bytes), but the data ends after {got}",
                            buf.len()
                        ),
                    })
                }
                Ok(n) => got += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(Error::Io(e)),
            }
        }
        self.offset += buf.len() as u64;
        Ok(())
    }

    /// Fails with `Malformed` when any byte follows.
    pub fn expect_end(&mut self, what: &str) -> Result<()> {
        let mut b = [0u8; 1];
        loop {
            match self.inner.read(&mut b) {
                Ok(0) => return Ok(()),
                Ok(_) => {
                    return Err(Error::Malformed {
                        format: self.format,
                        offset: self.offset,
                        what: format!("unexpected data after {what}"),
                    })
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(Error::Io(e)),
            }
        }
    }
}

/// Bytes of one frame of `points` points, checked against the limits.
/// `at` is the offset of the point count.
pub(crate) fn frame_bytes(points: u64, at: u64, limits: &Limits, format: Format) -> Result<usize> {
    limits.items(at, "points per frame", points)?;
    let n = points.checked_mul(12).ok_or_else(|| Error::LimitExceeded {
        offset: Some(at),
        what: format!("{format} frame size"),
        requested: u64::MAX,
        limit: limits.max_bytes,
    })?;
    limits.bytes(at, "one frame", n)?;
    usize::try_from(n).map_err(|_| Error::LimitExceeded {
        offset: Some(at),
        what: "one frame".into(),
        requested: n,
        limit: usize::MAX as u64,
    })
}

/// Reads `points` positions with `r`.
pub(crate) fn read_positions<E: ByteOrder>(
    r: &mut Reader<'_, E>,
    points: usize,
    out: &mut Vec<[f32; 3]>,
) -> Result<()> {
    out.clear();
    out.reserve(points);
    for _ in 0..points {
        out.push([r.f32("x")?, r.f32("y")?, r.f32("z")?]);
    }
    Ok(())
}

/// Appends `positions` to `w`.
pub(crate) fn write_positions<E: ByteOrder>(w: &mut Writer<E>, positions: &[[f32; 3]]) {
    for p in positions {
        for c in p {
            w.f32(*c);
        }
    }
}

/// Encodes one frame with the byte layer and writes it.
pub(crate) fn write_frame<E: ByteOrder, W: Write>(
    out: &mut W,
    positions: &[[f32; 3]],
) -> Result<()> {
    let mut w = Writer::<E>::with_capacity(positions.len() * 12);
    write_positions(&mut w, positions);
    out.write_all(&w.into_vec())?;
    Ok(())
}
