//! TIM: PlayStation texture/image data (ID 0x10).
//!
//! Sources: Sony *File Formats* (Nov 1998) pp. 3-3..3-7 (`reference/Filefrmt.txt`, "TIM"),
//! `notes/tmd_tim.md`. All little-endian.
//!
//! | offset | size | field | unit / meaning | source |
//! |---|---|---|---|---|
//! | 0 | 1 | ID | 0x10 | FF "Header" |
//! | 1 | 1 | version | 0 | FF |
//! | 2 | 2 | reserved | 0 | FF |
//! | 4 | 4 | FLAGS | bits 2..0 PMODE (0 4-bit CLUT, 1 8-bit CLUT, 2 15-bit, 3 24-bit, 4 mixed); bit 3 CF (CLUT block present) | FF; notes |
//! | 8 | 4 | CLUT bnum | bytes of the block incl. this 12-byte header (only with CF) | FF "CLUT" |
//! | 12 | 2+2 | DX, DY | VRAM position | FF |
//! | 16 | 2+2 | W, H | 16-bit VRAM units; stacked CLUTs are extra rows | FF |
//! | 20 | 2·W·H | CLUT entries | 15-bit colour + STP | FF |
//! | next | 12 + 2·W·H | pixel block | bnum, DX, DY, W (a stride in 16-bit units), H, data | FF "Pixel data" |
//!
//! 16-bit colour: bits 4..0 R, 9..5 G, 14..10 B, 15 STP. 4 bpp: pixel 0 in the low nibble;
//! 8 bpp: pixel 0 in the low byte; 24 bpp: 3 halfwords hold 2 pixels (R0 G0 | B0 R1 | G1 B1).
//!
//! Readings taken where the sources are silent or disagree:
//! - FF's prose puts CF at bit 4; its bit diagram and every real file put it at bit 3.
//! - `bnum` is authoritative: bytes it covers beyond the `W × H` halfwords are kept as
//!   [`Block::extra`] (two corpus files have 2 such bytes); a `bnum` shorter than the data is an
//!   error.
//! - Transparency (see [`color15`]): 0x0000 is transparent; STP matters only for primitives with
//!   ABE set ([`Stp`]); 0x8000 is opaque black. Channels scale ×8 (PSXPrev PR #162).

mod decode;
mod encode;
mod read;
mod types;
mod validate;
mod write;

use crate::bytes::{ByteOrder, Le};

pub use decode::{color15, encode_png, DecodeOptions, Rgba, Stp};
pub(crate) use encode::image_pixels;
pub use encode::{color16, decode_png, png_dimensions, EncodeOptions, EncodeReport};
pub(crate) use read::read_block;
pub use read::{read, read_own, read_with};
pub use types::*;
pub use validate::validate;
pub use write::write;
pub(crate) use write::write_block;

/// The TIM ID byte.
pub const FILE_ID: u8 = 0x10;

/// The summary `retroanim info` prints for a TIM.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Summary {
    /// Always `"tim"`.
    pub format: &'static str,
    /// Colour depth.
    pub depth: Option<Depth>,
    /// PMODE value.
    pub pmode: u8,
    /// Image size in pixels.
    pub width: usize,
    /// Image height.
    pub height: usize,
    /// VRAM position and size (16-bit units) of the pixel block.
    pub image_rect: [u16; 4],
    /// VRAM position and size of the CLUT block.
    pub clut_rect: Option<[u16; 4]>,
    /// Number of stacked CLUTs (CLUT rows).
    pub cluts: usize,
    /// Pixels / CLUT entries with the STP bit set.
    pub stp_entries: usize,
}

impl Tim {
    /// The summary `retroanim info` shows.
    pub fn summary(&self) -> Summary {
        let rect = |b: &Block| [b.x, b.y, b.width, b.height];
        // STP bits summed as halfwords, in runs short enough not to overflow one: the loop
        // vectorises (a count of a filter did not).
        let stp_in = |b: &Block| -> usize {
            b.data
                .chunks(u16::MAX as usize)
                .map(|run| run.iter().fold(0u16, |n, &c| n + (c >> 15)) as usize)
                .sum()
        };
        Summary {
            format: "tim",
            depth: self.depth(),
            pmode: self.pmode,
            width: self.pixel_width(),
            height: self.image.height as usize,
            image_rect: rect(&self.image),
            clut_rect: self.clut.as_ref().map(rect),
            cluts: self.clut.as_ref().map_or(0, |c| c.height as usize),
            stp_entries: match (&self.clut, self.depth()) {
                (Some(c), Some(Depth::Clut4 | Depth::Clut8)) => stp_in(c),
                (_, Some(Depth::Direct15)) => stp_in(&self.image),
                _ => 0,
            },
        }
    }
}

/// The head of a file holding one half of a TIM (a PXL or a CLT): the ID word, the FLAG word
/// and its one block's header, read from its first 20 bytes (the blob scan's test).
pub(crate) struct HalfHead {
    /// The ID word.
    pub id: u32,
    /// The FLAG word.
    pub flag: u32,
    /// The block's byte count, header included.
    pub bnum: u32,
    /// VRAM x, y, width (16-bit units) and height of the block.
    pub rect: [u64; 4],
}

impl HalfHead {
    /// The head at the start of `data`, `None` when `data` is shorter than it.
    pub(crate) fn of(data: &[u8]) -> Option<HalfHead> {
        let w = |i: usize| Le::u32_at(data, i);
        let h = |i: usize| Le::u16_at(data, i).map(u64::from);
        Some(HalfHead {
            id: w(0)?,
            flag: w(4)?,
            bnum: w(8)?,
            rect: [h(12)?, h(14)?, h(16)?, h(18)?],
        })
    }

    /// Whether the block's `bnum` covers its W × H halfwords exactly (up to 16 bytes more) and
    /// its rectangle, not empty, lies in the 1024 × 512 VRAM.
    pub(crate) fn fits(&self) -> bool {
        let [x, y, wd, ht] = self.rect;
        let need = 12 + 2 * wd * ht;
        wd > 0
            && ht > 0
            && (need..=need + 16).contains(&(self.bnum as u64))
            && x + wd <= 1024
            && y + ht <= 512
    }
}
