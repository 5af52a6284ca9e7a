//! ODOL v7 compressed arrays: a u32 element count, then the elements — raw when they take
//! fewer than 1024 bytes, else packed with BI's LZSS variant and followed by a u32 additive
//! checksum (notes §4, CWR-CE BISBinaryStream.hpp, aczwink LZSS.cpp).
//!
//! LZSS: a flag byte, then eight items, each a literal byte (flag bit 1) or a two-byte
//! reference (12-bit back offset, 4-bit length + 3); offsets before the start of the output
//! read spaces.

use std::borrow::Cow;

use crate::bytes::{ByteOrder, Le, Reader};
use crate::error::Result;

/// Compressed arrays whose data takes at least this many bytes are LZSS-compressed
/// (CWR-CE BISBinaryStream.hpp).
pub(super) const LZSS_THRESHOLD: u64 = 1024;
/// Bytes an LZSS stream can expand to per input byte: a flag byte and 8 two-byte references of
/// 18 bytes each give 144 bytes out of 17 in.
const LZSS_MAX_RATIO: u64 = 9;

/// Reads a compressed array of `elem`-byte elements (u32 count, then raw data, or LZSS data
/// and a checksum when the data takes `LZSS_THRESHOLD` bytes or more), checking the checksum
/// of compressed data, and returns its uncompressed bytes.
pub(super) fn compressed_array<'a>(
    r: &mut Reader<'a, Le>,
    elem: u64,
    what: &str,
) -> Result<Cow<'a, [u8]>> {
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

/// Little-endian u16s of decoded array bytes.
pub(super) fn u16s(b: &[u8]) -> Vec<u16> {
    Le::u16s(b).collect()
}

/// Little-endian u32s of decoded array bytes.
pub(super) fn u32s(b: &[u8]) -> Vec<u32> {
    Le::u32s(b).collect()
}

/// Little-endian f32s of decoded array bytes.
pub(super) fn f32s(b: &[u8]) -> Vec<f32> {
    Le::f32s(b).collect()
}
