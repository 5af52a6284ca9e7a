//! The LZSS compression of packed PBO entries (method `Cprs`, and OFP 1.0 entries whose original
//! size differs from their data size).
//!
//! Layout (community notes, BI wiki "Compressed LZSS File Format"):
//!
//! | part | size | meaning |
//! |---|---|---|
//! | flag byte | 1 | eight items follow, bit 0 first: 1 = a literal byte, 0 = a back-reference |
//! | literal | 1 | copied to the output |
//! | back-reference | 2 | `b0 b1`: distance = `b0 \| (b1 & 0xF0) << 4` (1..4095 bytes back), length = `(b1 & 0x0F) + 3` |
//! | checksum | 4 | after the item that completes the output: the sum of the output bytes, unsigned, wrapping, little-endian |
//!
//! The output length is not in the stream: it is the entry's original size, and decoding stops
//! when it is reached (the last flag byte may have unused bits).
//!
//! Readings taken:
//! - A back-reference may overlap the bytes it writes (run-length style); positions before the
//!   start of the output read as spaces (0x20), the "space filler" of the notes.
//! - A distance of 0 points at a byte not yet written: an error. A reference running past the
//!   original size is an error too (the packer never writes one), as is a checksum that differs.
//! - The checksum sums bytes as unsigned values (the notes leave the sign open; the PBO tools of
//!   the community sum unsigned bytes for PBO entries).

use crate::bytes::{ByteOrder, Le};
use crate::error::{Error, Result};

/// Longest back-reference.
const MAX_RUN: usize = 18;
/// Farthest back-reference.
const MAX_DISTANCE: usize = 4095;

fn err(offset: u64, what: String) -> Error {
    Error::Container {
        container: "PBO LZSS",
        offset,
        what,
    }
}

/// The checksum of `data`: its bytes summed as unsigned values, wrapping.
pub fn checksum(data: &[u8]) -> u32 {
    data.iter().fold(0u32, |s, &b| s.wrapping_add(b as u32))
}

/// Unpacks `packed` into exactly `size` bytes and checks its checksum. `at` is the byte offset
/// of `packed` in its archive (for errors). The caller bounds `size`: nothing larger is
/// allocated, and each step consumes input, so the loop ends.
pub fn unpack(packed: &[u8], size: usize, at: u64) -> Result<Vec<u8>> {
    let mut out: Vec<u8> = Vec::with_capacity(size);
    let mut pos = 0usize;
    let ran_out = |pos: usize, got: usize| {
        err(
            at + pos as u64,
            format!("the packed data ends after {got} of {size} bytes (expected more items)"),
        )
    };
    while out.len() < size {
        let flags = *packed.get(pos).ok_or_else(|| ran_out(pos, out.len()))?;
        pos += 1;
        for bit in 0..8 {
            if out.len() == size {
                break;
            }
            if flags >> bit & 1 == 1 {
                let b = *packed.get(pos).ok_or_else(|| ran_out(pos, out.len()))?;
                out.push(b);
                pos += 1;
                continue;
            }
            let (Some(&b0), Some(&b1)) = (packed.get(pos), packed.get(pos + 1)) else {
                return Err(ran_out(pos, out.len()));
            };
            let distance = b0 as usize | ((b1 as usize & 0xF0) << 4);
            let run = (b1 as usize & 0x0F) + 3;
            if distance == 0 {
                return Err(err(
                    at + pos as u64,
                    "a back-reference of distance 0 (expected 1..4095 bytes back)".into(),
                ));
            }
            if out.len() + run > size {
                return Err(err(
                    at + pos as u64,
                    format!(
                        "a back-reference of {run} bytes at output byte {} runs past the original size ({size})",
                        out.len()
                    ),
                ));
            }
            for _ in 0..run {
                let b = match out.len().checked_sub(distance) {
                    Some(i) => out[i],
                    None => b' ',
                };
                out.push(b);
            }
            pos += 2;
        }
    }
    let Some(stored) = Le::u32_at(packed, pos) else {
        return Err(err(
            at + pos as u64,
            "expected the 4-byte checksum after the packed data".into(),
        ));
    };
    let computed = checksum(&out);
    if stored != computed {
        return Err(err(
            at + pos as u64,
            format!("checksum 0x{stored:08x}, but the unpacked bytes sum to 0x{computed:08x}"),
        ));
    }
    Ok(out)
}

/// Packs `data` (greedy longest match over the last 4095 bytes; for tests and tools, not
/// tuned for ratio or speed), checksum included.
pub fn pack(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len() + data.len() / 8 + 5);
    let mut i = 0;
    while i < data.len() {
        let flag_at = out.len();
        out.push(0u8);
        for bit in 0..8 {
            if i >= data.len() {
                break;
            }
            let (mut best, mut best_at) = (0, 0);
            for d in 1..=MAX_DISTANCE.min(i) {
                let n = (0..MAX_RUN.min(data.len() - i))
                    .take_while(|&k| data[i - d + k] == data[i + k])
                    .count();
                if n > best {
                    (best, best_at) = (n, d);
                }
            }
            if best >= 3 {
                out.push(best_at as u8);
                out.push(((best_at >> 4) & 0xF0) as u8 | (best - 3) as u8);
                i += best;
            } else {
                out[flag_at] |= 1 << bit;
                out.push(data[i]);
                i += 1;
            }
        }
    }
    out.extend_from_slice(&Le::u32_to(checksum(data)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hand_built_tokens() {
        // Flags 0b0000_0111: literals 'a', 'b', 'c', then a reference 3 back, 5 long (overlapping),
        // then a reference before the start: distance 20, 3 long → three spaces.
        let out = b"abcabcab   ";
        let mut p = vec![0b0000_0111, b'a', b'b', b'c', 3, 0x02, 20, 0x00];
        p.extend_from_slice(&checksum(out).to_le_bytes());
        assert_eq!(unpack(&p, out.len(), 0).unwrap(), out);
        // A 12-bit distance, its high nibble in the second byte's high bits: 260 literal bytes
        // (32 groups of 8, then 4 more), then distance 0x104, length 3 → bytes 0..3 again.
        let lit: Vec<u8> = (0..260u32).map(|i| (i * 7 % 251) as u8).collect();
        let mut p = Vec::new();
        for g in lit[..256].chunks(8) {
            p.push(0xFF);
            p.extend_from_slice(g);
        }
        p.push(0b0000_1111);
        p.extend_from_slice(&lit[256..]);
        p.extend_from_slice(&[0x04, 0x10]);
        let mut out = lit.clone();
        out.extend_from_slice(&lit[..3]);
        p.extend_from_slice(&checksum(&out).to_le_bytes());
        assert_eq!(unpack(&p, out.len(), 0).unwrap(), out);
    }

    #[test]
    fn round_trip_and_hostile_data() {
        let data: Vec<u8> = (0..20_000u32).map(|i| (i * i / 7 % 13) as u8).collect();
        let p = pack(&data);
        assert!(p.len() < data.len() / 2);
        assert_eq!(unpack(&p, data.len(), 0).unwrap(), data);
        // Cut anywhere: an error naming an offset inside the packed data (or just past it).
        for n in [0, 1, 5, p.len() / 2, p.len() - 1] {
            let e = unpack(&p[..n], data.len(), 100).unwrap_err();
            assert!(
                e.offset().is_some_and(|o| o >= 100 && o <= 100 + n as u64),
                "{e}"
            );
        }
        // A wrong checksum names the checksum's offset.
        let mut bad = p.clone();
        let last = bad.len() - 1;
        bad[last] ^= 1;
        let e = unpack(&bad, data.len(), 7).unwrap_err();
        assert_eq!(e.offset(), Some(7 + last as u64 - 3), "{e}");
        // Distance 0, and a run past the original size.
        let e = unpack(&[0, 0, 0, 0, 0, 0, 0], 10, 0).unwrap_err();
        assert_eq!(e.offset(), Some(1));
        let e = unpack(&[1, b'x', 1, 0x0F], 5, 0).unwrap_err();
        assert!(e.to_string().contains("past the original size"), "{e}");
        // Arbitrary bytes never panic.
        for seed in 0..200u32 {
            let junk: Vec<u8> = (0..64)
                .map(|i| (seed.wrapping_mul(2654435761) >> (i % 24)) as u8)
                .collect();
            let _ = unpack(&junk, (seed as usize * 37) % 5000, 0);
        }
    }
}
