//! The candidate pass's first filter: the words of a chunk that may open an asset, found 64
//! bytes at a time with 128-bit vector compares while the bytes are still in the core's cache.
//! Every offset it lists is then tested exactly by [`super::blob::candidate`]; the filter is a
//! superset of those tests, so it changes speed, never what is found.

use super::source::Source;
use super::ScanOptions;
use crate::bytes::{le_tag, ByteOrder, Le};
use crate::error::Result;

/// True when the little-endian word `w` can open a candidate of any format: the whole word is
/// 0x10..=0x13 (TIM 0x10, PXL 0x11, CLT 0x12) or 0x40..=0x43 (TMD 0x41, PMD 0x42), or byte 0
/// is the TOD ID 0x50 with a version byte below 16 (bits 12..15 clear; the resolution above it
/// is free; the HMD ID word 0x50 passes too), or the word is `MLOD`, `ODOL` or `RTM_`. A
/// superset of [`super::blob::candidate`]'s tests, cheap enough to vectorise: only equality tests after a
/// mask (a range test such as `w - 0x11 <= 1` has no unsigned compare in SSE2 and took twice
/// the instructions).
#[inline(always)]
fn may_open(w: u32) -> bool {
    // `&` and `|`, not `&&` and `||`: no branches, so the block loop vectorises.
    let ids = w & !3;
    (ids == 0x10) | (ids == 0x40) | (w & 0xF0FF == 0x50) | (w == MLOD) | (w == ODOL) | (w == RTM)
}

/// The tags [`may_open`] takes, as words.
const MLOD: u32 = le_tag(b"MLOD");
const ODOL: u32 = le_tag(b"ODOL");
const RTM: u32 = le_tag(b"RTM_");

/// Words tested together before any is looked at on its own.
const BLOCK_WORDS: usize = 16;
/// Bytes read at a time inside a chunk and pre-tested at once, while they are still in the
/// core's cache (half the L2 of current cores; 256 raw sectors' user data, one scatter read):
/// the pre-test of a whole chunk read first loaded every byte from memory again.
const PIECE: usize = 512 * 1024;

/// Reads `buf` (the bytes of `src` from `start` on) and lists the offsets below `scan_len`
/// where a candidate may start: the words that pass [`may_open`] where the source is scanned a
/// word at a time, else the offsets whose first byte opens a wanted format.
pub(super) fn read_pretested(
    src: &dyn Source,
    start: u64,
    buf: &mut [u8],
    scan_len: usize,
    opts: &ScanOptions,
) -> Result<Vec<usize>> {
    let align = opts.align.max(1);
    let mut at = Vec::new();
    if align == 4 && start % 4 == 0 {
        let mut done = 0;
        while done < buf.len() {
            let end = (done + PIECE).min(buf.len());
            src.read_at(start + done as u64, &mut buf[done..end])?;
            if done < scan_len {
                pretest_words(&buf[..end], done, end.min(scan_len), &mut at);
            }
            done = end;
        }
        return Ok(at);
    }
    src.read_at(start, buf)?;
    let first = opts.first_bytes();
    let mut p = ((start.div_ceil(align)) * align - start) as usize;
    while p < scan_len {
        if first[buf[p] as usize] {
            at.push(p);
        }
        p += align as usize;
    }
    Ok(at)
}

/// Pushes the offsets of the words in `buf[from..to]` that pass [`may_open`] (`from` a multiple
/// of a block; the words after the last whole block, only at the scan's end, are pushed
/// untested: [`super::blob::candidate`] tests them exactly).
fn pretest_words(buf: &[u8], from: usize, to: usize, out: &mut Vec<usize>) {
    use wide::u32x4;
    const BLOCK: usize = 4 * BLOCK_WORDS;
    // `may_open` on four words at once, written with explicit vectors: the compiler's own
    // vectorisation of the scalar test shuffled lanes and reloaded constants (about twice the
    // instructions per block).
    let not3 = u32x4::splat(!3);
    let (tim, tmd) = (u32x4::splat(0x10), u32x4::splat(0x40));
    let (tod_mask, tod) = (u32x4::splat(0xF0FF), u32x4::splat(0x50));
    let (mlod, odol, rtm) = (u32x4::splat(MLOD), u32x4::splat(ODOL), u32x4::splat(RTM));
    let whole = from + (to - from) / BLOCK * BLOCK;
    for (bi, block) in buf[from..whole].chunks_exact(BLOCK).enumerate() {
        // Word-at-a-time: a block of words is tested with one branch; random data has a word
        // that passes `may_open` about once per 4,000.
        let quads: [[u32; 4]; BLOCK_WORDS / 4] = bytemuck::pod_read_unaligned(block);
        let mut hit = u32x4::ZERO;
        for q in quads {
            let w = u32x4::new(q.map(u32::from_le));
            let ids = w & not3;
            hit = hit
                | ids.simd_eq(tim)
                | ids.simd_eq(tmd)
                | (w & tod_mask).simd_eq(tod)
                | w.simd_eq(mlod)
                | w.simd_eq(odol)
                | w.simd_eq(rtm);
        }
        if hit.any() {
            for (wi, w) in block.chunks_exact(4).enumerate() {
                if may_open(Le::u32_from([w[0], w[1], w[2], w[3]])) {
                    out.push(from + bi * BLOCK + wi * 4);
                }
            }
        }
    }
    out.extend((whole..to).step_by(4));
}
