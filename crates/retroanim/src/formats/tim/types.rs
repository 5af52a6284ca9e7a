//! The TIM model: faithful to the file.

use serde::{Deserialize, Serialize};

use crate::formats::is_default;

/// A whole TIM file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tim {
    /// Version (byte 1 of word 0); 0.
    #[serde(default, skip_serializing_if = "is_default")]
    pub version: u8,
    /// Bytes 2..3 of word 0 (reserved, 0), kept verbatim.
    #[serde(default, skip_serializing_if = "is_default")]
    pub id_reserved: u16,
    /// PMODE (flags bits 2..0): 0 4-bit CLUT, 1 8-bit CLUT, 2 15-bit direct, 3 24-bit direct,
    /// 4 mixed.
    pub pmode: u8,
    /// Flags bits 31..4 (reserved, 0), kept verbatim in place (bit 3, CF, is `clut.is_some()`).
    #[serde(default, skip_serializing_if = "is_default")]
    pub flags_reserved: u32,
    /// The CLUT block (flags bit 3, CF).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clut: Option<Block>,
    /// The pixel block.
    pub image: Block,
    /// Bytes after the pixel block (not part of the format), kept verbatim.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub trailing: Vec<u8>,
}

/// A CLUT or pixel block: `bnum`, VRAM rectangle, then `w × h` halfwords.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Block {
    /// VRAM x (16-bit units).
    pub x: u16,
    /// VRAM y.
    pub y: u16,
    /// Width in 16-bit VRAM units: a stride (4 pixels per unit at 4 bpp, 2 at 8 bpp, 1 at
    /// 16 bpp, 2/3 at 24 bpp).
    pub width: u16,
    /// Height in rows.
    pub height: u16,
    /// The `width × height` halfwords, row by row.
    pub data: Vec<u16>,
    /// Bytes `bnum` covers after the data, kept verbatim.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub extra: Vec<u8>,
}

impl Block {
    /// The `bnum` field: bytes of the block, its 12-byte header included.
    pub fn bnum(&self) -> u64 {
        12 + self.data.len() as u64 * 2 + self.extra.len() as u64
    }
}

/// Colour depth from PMODE.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Depth {
    /// 4-bit CLUT indices.
    Clut4,
    /// 8-bit CLUT indices.
    Clut8,
    /// 15-bit direct colour (+ STP).
    Direct15,
    /// 24-bit direct colour.
    Direct24,
    /// Mixed (PMODE 4).
    Mixed,
}

impl Tim {
    /// The colour depth, or `None` for PMODE 5..7 (undefined).
    pub fn depth(&self) -> Option<Depth> {
        Some(match self.pmode {
            0 => Depth::Clut4,
            1 => Depth::Clut8,
            2 => Depth::Direct15,
            3 => Depth::Direct24,
            4 => Depth::Mixed,
            _ => return None,
        })
    }

    /// Image width in pixels (the stride converted by depth; 24 bpp rounds down).
    pub fn pixel_width(&self) -> usize {
        let w = self.image.width as usize;
        match self.depth() {
            Some(Depth::Clut4) => w * 4,
            Some(Depth::Clut8) => w * 2,
            Some(Depth::Direct24) => w * 2 / 3,
            _ => w,
        }
    }

    /// The FLAGS word as written.
    pub fn flags(&self) -> u32 {
        (self.pmode as u32 & 7) | if self.clut.is_some() { 8 } else { 0 } | self.flags_reserved
    }
}
