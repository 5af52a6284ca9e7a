//! Category 5, ground (notes §9; File Formats pp. 2-125..2-127).
//!
//! Types 0x05000000 (flat) and 0x05000001 (flat textured). The data are word offsets of the
//! polygon, grid and vertex entries in their sections. The polygon section describes the grid:
//! origin, cell size, cell counts and one row record per row; the vertex section holds int16
//! heights. The grid and UV sections are kept as words (their entry size depends on the type
//! reading them, and several ground primitives may share one section).

use crate::bytes::{ByteOrder, Le};
use serde::{Deserialize, Serialize};

/// One row of a ground polygon section.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct GroundRow {
    /// First vertex of the row (index into the heights).
    pub vertex_start: u16,
    /// Number of grid cells in the row.
    pub grids: u16,
}

/// A ground polygon section: `[x0 y0] [w h] [m n] [size base]`, then `size` rows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GroundPolygon {
    /// x0, y0: the grid origin.
    pub origin: [i16; 2],
    /// w, h: the size of one cell.
    pub cell: [i16; 2],
    /// m, n: the cell counts.
    pub counts: [u16; 2],
    /// `base`, the upper half of the fourth word.
    pub base: u16,
    /// The rows (their number is the `size` field).
    pub rows: Vec<GroundRow>,
    /// Words after the rows up to the next region.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub extra_words: Vec<u32>,
}

impl GroundPolygon {
    /// Decodes a section; `None` when the rows do not fit.
    pub fn decode(w: &[u32]) -> Option<GroundPolygon> {
        let head = w.get(..4)?;
        let size = (head[3] & 0xFFFF) as usize;
        let rows = w.get(4..4 + size)?;
        let pair = |x: u32| [x as i16, (x >> 16) as i16];
        Some(GroundPolygon {
            origin: pair(head[0]),
            cell: pair(head[1]),
            counts: [head[2] as u16, (head[2] >> 16) as u16],
            base: (head[3] >> 16) as u16,
            rows: rows
                .iter()
                .map(|&r| GroundRow {
                    vertex_start: r as u16,
                    grids: (r >> 16) as u16,
                })
                .collect(),
            extra_words: w[4 + size..].to_vec(),
        })
    }

    /// Words the section takes.
    pub fn words(&self) -> usize {
        4 + self.rows.len() + self.extra_words.len()
    }

    /// Appends the encoded words; `None` when there are more than 65535 rows.
    pub fn encode(&self, out: &mut Vec<u32>) -> Option<()> {
        let pair = |a: u16, b: u16| a as u32 | (b as u32) << 16;
        out.push(pair(self.origin[0] as u16, self.origin[1] as u16));
        out.push(pair(self.cell[0] as u16, self.cell[1] as u16));
        out.push(pair(self.counts[0], self.counts[1]));
        out.push(pair(u16::try_from(self.rows.len()).ok()?, self.base));
        out.extend(self.rows.iter().map(|r| pair(r.vertex_start, r.grids)));
        out.extend_from_slice(&self.extra_words);
        Some(())
    }
}

/// One grid entry of a ground grid section.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GridEntry {
    /// Flat ground (0x05000000): `[r g b pad] [normal pad]`.
    Flat {
        /// r, g, b, pad.
        color: [u8; 4],
        /// Normal index.
        normal: u16,
        /// The halfword after the normal index.
        #[serde(default, skip_serializing_if = "crate::formats::is_default")]
        pad: u16,
    },
    /// Textured ground (0x05000001): `[normal uv]`.
    Textured {
        /// Normal index.
        normal: u16,
        /// Index of the UV group in the UV section.
        uv: u16,
    },
}

/// Grid entries one ground primitive reads, placed at its grid offset.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GridItem {
    /// The entries of one ground primitive (one per grid cell of its polygon section).
    Entries {
        /// Word offset in the grid section (the primitive's grid offset).
        index: u32,
        /// The entries, all of one kind.
        entries: Vec<GridEntry>,
    },
    /// Words no ground primitive describes.
    Raw(Vec<u32>),
}

impl GridItem {
    /// Words the item takes.
    pub fn words(&self) -> usize {
        match self {
            GridItem::Entries { entries, .. } => entries
                .iter()
                .map(|e| match e {
                    GridEntry::Flat { .. } => 2,
                    GridEntry::Textured { .. } => 1,
                })
                .sum(),
            GridItem::Raw(w) => w.len(),
        }
    }

    /// Decodes `n` entries at the start of `w`.
    pub fn decode(index: u32, textured: bool, n: usize, w: &[u32]) -> Option<GridItem> {
        let k = if textured { 1 } else { 2 };
        let w = w.get(..n.checked_mul(k)?)?;
        let entries = w
            .chunks_exact(k)
            .map(|c| {
                if textured {
                    GridEntry::Textured {
                        normal: c[0] as u16,
                        uv: (c[0] >> 16) as u16,
                    }
                } else {
                    GridEntry::Flat {
                        color: Le::u32_to(c[0]),
                        normal: c[1] as u16,
                        pad: (c[1] >> 16) as u16,
                    }
                }
            })
            .collect();
        Some(GridItem::Entries { index, entries })
    }

    /// The item's word offset, for entries.
    pub fn index(&self) -> Option<u32> {
        match self {
            GridItem::Entries { index, .. } => Some(*index),
            GridItem::Raw(_) => None,
        }
    }

    /// Appends the encoded words.
    pub fn encode(&self, out: &mut Vec<u32>) {
        match self {
            GridItem::Entries { entries, .. } => {
                for e in entries {
                    match *e {
                        GridEntry::Flat { color, normal, pad } => {
                            out.push(Le::u32_from(color));
                            out.push(normal as u32 | (pad as u32) << 16);
                        }
                        GridEntry::Textured { normal, uv } => {
                            out.push(normal as u32 | (uv as u32) << 16)
                        }
                    }
                }
            }
            GridItem::Raw(w) => out.extend_from_slice(w),
        }
    }
}

/// One texture group of a ground UV section: `[u0 v0 cba] [u1 v1 tsb] [u2 v2 u3 v3]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct UvGroup {
    /// u, v of the four corners.
    pub uv: [[u8; 2]; 4],
    /// CLUT position.
    pub cba: u16,
    /// Texture page.
    pub tsb: u16,
}

impl UvGroup {
    /// Decodes a section made of whole groups; `None` otherwise.
    pub fn decode_all(w: &[u32]) -> Option<Vec<UvGroup>> {
        if w.len() % 3 != 0 {
            return None;
        }
        Some(
            w.chunks_exact(3)
                .map(|c| UvGroup {
                    uv: [
                        [c[0] as u8, (c[0] >> 8) as u8],
                        [c[1] as u8, (c[1] >> 8) as u8],
                        [c[2] as u8, (c[2] >> 8) as u8],
                        [(c[2] >> 16) as u8, (c[2] >> 24) as u8],
                    ],
                    cba: (c[0] >> 16) as u16,
                    tsb: (c[1] >> 16) as u16,
                })
                .collect(),
        )
    }

    /// Appends the encoded words.
    pub fn encode(&self, out: &mut Vec<u32>) {
        let uv = |i: usize| self.uv[i][0] as u32 | (self.uv[i][1] as u32) << 8;
        out.push(uv(0) | (self.cba as u32) << 16);
        out.push(uv(1) | (self.tsb as u32) << 16);
        out.push(uv(2) | uv(3) << 16);
    }
}
