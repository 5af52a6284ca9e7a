//! LZO1X, as Arma packs its large arrays (ODOL P3D from version 44, binarised RTM): the
//! decompressor, and the one stream a writer needs to make — a single literal run.
//!
//! The stream has no length field of its own: the caller knows the uncompressed size, and the
//! stream ends with LZO1X's end marker (a far-match instruction with distance 0). Decoding
//! stops there and must have produced exactly the expected size; the bytes consumed are what
//! the caller's structure walk then continues after. Written from the LZO1X instruction set
//! (literal runs, near/middle/far matches with 2-bit trailing literal counts); each step
//! consumes at least one input byte and the output never outgrows the expected size, so any
//! input ends in bounded time and memory.

use crate::bytes::{Le, Reader};
use crate::error::Result;

/// The extra distance of a 3-byte match right after a literal run (LZO1X's `M2_MAX_OFFSET`).
const M2_MAX_OFFSET: usize = 0x0800;

/// Bytes an LZO1X stream can expand to per input byte (a run-length byte adds 255).
pub(crate) const MAX_RATIO: u64 = 256;
/// Where a format has no per-array flag (ODOL before v64, BMTR v3), arrays of this many bytes
/// or more are LZO-compressed and smaller ones are stored raw.
pub(crate) const THRESHOLD: u64 = 1024;

/// [`decompress`] after checking that `size` bytes can come out of what is left of the input
/// and are within the reader's limits: the check before the allocation.
pub(crate) fn decompress_bounded(r: &mut Reader<'_, Le>, size: u64, what: &str) -> Result<Vec<u8>> {
    if size > (r.remaining() as u64).saturating_mul(MAX_RATIO) {
        return Err(r.malformed(format!(
            "{what}: {size} bytes cannot be packed into the {} bytes left",
            r.remaining()
        )));
    }
    r.limits().bytes(r.offset(), what, size)?;
    decompress(r, size as usize, what)
}

/// `data` as one LZO1X stream of a single literal run and the end marker: valid for every
/// decoder, not small.
pub(crate) fn literal_stream(data: &[u8]) -> Vec<u8> {
    let n = data.len();
    let mut out = Vec::with_capacity(n + n / 255 + 6);
    match n {
        0 => {}
        // A first byte above 17 is a run of (byte − 17) literals.
        1..=238 => out.push(17 + n as u8),
        // Else instruction 0: 18 literals plus a run-length extension (each zero adds 255, the
        // first non-zero byte ends it).
        _ => {
            out.push(0);
            let mut extra = n - 18;
            while extra > 255 {
                out.push(0);
                extra -= 255;
            }
            out.push(extra as u8);
        }
    }
    out.extend_from_slice(data);
    // The end marker: a far match of distance 0.
    out.extend_from_slice(&[0x11, 0, 0]);
    out
}

/// Decodes one LZO1X stream at the reader's cursor into exactly `size` bytes.
pub(crate) fn decompress(r: &mut Reader<'_, Le>, size: usize, what: &str) -> Result<Vec<u8>> {
    let start = r.offset();
    let mut out: Vec<u8> = Vec::with_capacity(size);
    let mut state;
    let first = r.u8(what)?;
    if first > 17 {
        let t = (first - 17) as usize;
        literals(r, &mut out, size, t, what)?;
        state = if t < 4 {
            State::Match(r.u8(what)?)
        } else {
            State::FirstLiteralRun
        };
    } else {
        state = State::Opcode(first);
    }
    loop {
        state = match state {
            State::Opcode(t) if t >= 16 => State::Match(t),
            State::Opcode(t) => {
                let n = if t == 0 {
                    15 + zero_run(r, what)?
                } else {
                    t as usize
                };
                literals(r, &mut out, size, n + 3, what)?;
                State::FirstLiteralRun
            }
            State::FirstLiteralRun => {
                let t = r.u8(what)?;
                if t >= 16 {
                    State::Match(t)
                } else {
                    let b = r.u8(what)? as usize;
                    let dist = 1 + M2_MAX_OFFSET + (t as usize >> 2) + (b << 2);
                    copy_match(r, &mut out, size, dist, 3, what)?;
                    State::Trailing(t)
                }
            }
            State::Match(t) => {
                let t = t as usize;
                if t >= 64 {
                    let b = r.u8(what)? as usize;
                    let dist = 1 + ((t >> 2) & 7) + (b << 3);
                    copy_match(r, &mut out, size, dist, (t >> 5) + 1, what)?;
                    State::Trailing(t as u8)
                } else if t >= 32 {
                    let mut len = t & 31;
                    if len == 0 {
                        len = 31 + zero_run(r, what)?;
                    }
                    let [b0, b1] = r.array::<2>(what)?;
                    let dist = 1 + (b0 as usize >> 2) + ((b1 as usize) << 6);
                    copy_match(r, &mut out, size, dist, len + 2, what)?;
                    State::Trailing(b0)
                } else if t >= 16 {
                    let high = (t & 8) << 11;
                    let mut len = t & 7;
                    if len == 0 {
                        len = 7 + zero_run(r, what)?;
                    }
                    let [b0, b1] = r.array::<2>(what)?;
                    let dist = high + (b0 as usize >> 2) + ((b1 as usize) << 6);
                    if dist == 0 {
                        // End of stream.
                        if out.len() != size {
                            return Err(r.malformed_at(
                                start,
                                format!(
                                    "{what}: the LZO stream ends after {} bytes, {size} were declared",
                                    out.len()
                                ),
                            ));
                        }
                        return Ok(out);
                    }
                    copy_match(r, &mut out, size, dist + 0x4000, len + 2, what)?;
                    State::Trailing(b0)
                } else {
                    let b = r.u8(what)? as usize;
                    let dist = 1 + (t >> 2) + (b << 2);
                    copy_match(r, &mut out, size, dist, 2, what)?;
                    State::Trailing(t as u8)
                }
            }
            State::Trailing(low) => {
                let n = (low & 3) as usize;
                if n == 0 {
                    State::Opcode(r.u8(what)?)
                } else {
                    literals(r, &mut out, size, n, what)?;
                    State::Match(r.u8(what)?)
                }
            }
        };
    }
}

/// Where the decoder is between instructions.
#[derive(Clone, Copy)]
enum State {
    /// An instruction byte at the top of the main loop.
    Opcode(u8),
    /// Right after a literal run: a small instruction here is a 3-byte far-ish match.
    FirstLiteralRun,
    /// A match instruction byte.
    Match(u8),
    /// After a match: the low two bits of this byte count trailing literals.
    Trailing(u8),
}

/// Reads a run-length extension: each zero byte adds 255, the first non-zero byte ends it.
fn zero_run(r: &mut Reader<'_, Le>, what: &str) -> Result<usize> {
    let mut n = 0usize;
    loop {
        match r.u8(what)? {
            0 => n = n.saturating_add(255),
            b => return Ok(n.saturating_add(b as usize)),
        }
    }
}

fn literals(
    r: &mut Reader<'_, Le>,
    out: &mut Vec<u8>,
    size: usize,
    n: usize,
    what: &str,
) -> Result<()> {
    if n > size - out.len() {
        return Err(r.malformed(format!(
            "{what}: an LZO literal run of {n} bytes overruns the declared {size} bytes"
        )));
    }
    out.extend_from_slice(r.bytes(n, what)?);
    Ok(())
}

fn copy_match(
    r: &Reader<'_, Le>,
    out: &mut Vec<u8>,
    size: usize,
    dist: usize,
    len: usize,
    what: &str,
) -> Result<()> {
    if dist > out.len() {
        return Err(r.malformed(format!(
            "{what}: an LZO match reaches {dist} bytes back, but only {} are decoded",
            out.len()
        )));
    }
    if len > size - out.len() {
        return Err(r.malformed(format!(
            "{what}: an LZO match of {len} bytes overruns the declared {size} bytes"
        )));
    }
    let from = out.len() - dist;
    // Byte by byte: a match may overlap what it produces.
    for k in 0..len {
        let b = out[from + k];
        out.push(b);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Format;

    fn run(data: &[u8], size: usize) -> Result<Vec<u8>> {
        let mut r = Reader::le(data, Format::P3d);
        decompress(&mut r, size, "test")
    }

    #[test]
    fn literal_only_stream() {
        // First byte 17 + 5: five literals, then the end marker (0x11 0x00 0x00).
        let mut d = vec![22u8];
        d.extend_from_slice(b"hello");
        d.extend_from_slice(&[0x11, 0, 0]);
        assert_eq!(run(&d, 5).unwrap(), b"hello");
        // A wrong declared size is an error, not a guess.
        assert!(run(&d, 6).is_err());
        assert!(run(&d, 4).is_err());
    }

    #[test]
    fn overlapping_near_match() {
        // "ab", then an M2 match (t >= 64): length (t >> 5) + 1, distance 1 + ((t >> 2) & 7)
        // + (next << 3). t = 0b011_001_00 = 0x64: length 4, distance 2 → "ababab".
        let d = [19u8, b'a', b'b', 0x64, 0x00, 0x11, 0, 0];
        assert_eq!(run(&d, 6).unwrap(), b"ababab");
    }

    #[test]
    fn literal_streams_decode_to_their_data_at_every_length_class() {
        for n in [0usize, 1, 3, 4, 238, 239, 255, 273, 274, 528, 529, 5000] {
            let data: Vec<u8> = (0..n).map(|i| (i * 7 + 3) as u8).collect();
            let s = literal_stream(&data);
            let mut r = Reader::le(&s, Format::Rtm);
            assert_eq!(decompress(&mut r, n, "test").unwrap(), data, "{n} bytes");
            assert!(r.at_end(), "{n} bytes: the stream ends at its end marker");
        }
    }

    #[test]
    fn reference_before_start_is_malformed() {
        let d = [19u8, b'a', b'b', 0x7c, 0x10, 0x11, 0, 0];
        assert!(run(&d, 10).is_err());
    }

    #[test]
    fn arbitrary_streams_end_in_an_error_or_exactly_the_declared_size() {
        let mut rng = 0x2545_f491_4f6c_dd1du64;
        for round in 0..2000 {
            let len = round % 64;
            let data: Vec<u8> = (0..len)
                .map(|_| {
                    rng ^= rng << 13;
                    rng ^= rng >> 7;
                    rng ^= rng << 17;
                    rng as u8
                })
                .collect();
            let size = (rng >> 40) as usize % 300;
            if let Ok(out) = run(&data, size) {
                assert_eq!(out.len(), size);
            }
        }
    }
}
