//! Where a textured polygon's texels are in the console's VRAM, and which TIMs hold them: the
//! one rule the TMD/TOD/HMD → glTF bridges and [`crate::assemble`] share, so the texture a
//! model is assembled with is the texture it is converted with.
//!
//! VRAM is 1024 × 512 halfwords. A polygon names (FF p.2-28; notes `tmd_tim.md`):
//!
//! | field | bits | meaning |
//! |---|---|---|
//! | TSB | 3..0 | texture page x = value × 64 (halfwords) |
//! | TSB | 4 | texture page y = value × 256 |
//! | TSB | 6..5 | ABR, the semi-transparency rate (not an address) |
//! | TSB | 8..7 | TPF: 0 4-bit CLUT, 1 8-bit CLUT, 2 15-bit direct (3, reserved, read as 15-bit) |
//! | CBA | 5..0 | CLUT x = value × 16 (halfwords) |
//! | CBA | 14..6 | CLUT y (row) |
//!
//! A texel `(u, v)` of the 256 × 256-texel page lies in halfword `(page_x + u / k, page_y + v)`,
//! `k` = 4 texels per halfword at 4 bits (the low nibble first), 2 at 8 bits, 1 at 15 bits; a
//! CLUT-indexed texel's colour is the halfword `(clut_x + index, clut_y)`.
//!
//! A TIM **covers** a polygon when its image block holds every halfword the polygon's corners
//! sample, at the page's colour depth, and (4/8-bit) its CLUT block has a row at the CBA's `y`
//! starting at the CBA's `x` (the bridges decode a TIM through a whole CLUT row, so a CBA
//! pointing into the middle of a row is not covered). A TIM that only **overlaps** the page
//! (same depth and CLUT, but not every sampled halfword) is taken only when no TIM covers.
//! Page x past VRAM's right edge is not wrapped.

use crate::formats::tim::{Depth, Tim};

/// Texture page attribute fields (TSB, FF p.2-28).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Tsb {
    /// Texture page 0..31 (bits 3..0: VRAM x / 64; bit 4: y ≥ 256).
    pub page: u8,
    /// Semi-transparency (ABR) 0..3.
    pub abr: u8,
    /// Colour mode (TPF): 0 4-bit CLUT, 1 8-bit CLUT, 2 15-bit direct.
    pub tpf: u8,
}

impl Tsb {
    /// Splits a TSB halfword.
    pub fn from_bits(v: u16) -> Tsb {
        Tsb {
            page: (v & 0x1F) as u8,
            abr: ((v >> 5) & 3) as u8,
            tpf: ((v >> 7) & 3) as u8,
        }
    }

    /// VRAM x and y of the page's top-left corner.
    pub fn vram_origin(&self) -> (u32, u32) {
        (
            u32::from(self.page & 0xF) * 64,
            u32::from(self.page >> 4) * 256,
        )
    }
}

/// CLUT position from a CBA halfword: (VRAM x, VRAM y).
pub fn cba_position(cba: u16) -> (u32, u32) {
    (u32::from(cba & 0x3F) * 16, u32::from((cba >> 6) & 0x1FF))
}

/// VRAM width in halfwords.
pub const VRAM_WIDTH: u32 = 1024;
/// VRAM height in rows.
pub const VRAM_HEIGHT: u32 = 512;

/// A rectangle of VRAM, in halfwords (x, width) and rows (y, height).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Rect {
    /// Left column (halfwords).
    pub x: u32,
    /// Top row.
    pub y: u32,
    /// Width in halfwords.
    pub w: u32,
    /// Height in rows.
    pub h: u32,
}

impl Rect {
    /// Whether `o` lies wholly inside this rectangle.
    pub fn contains(&self, o: &Rect) -> bool {
        o.x >= self.x
            && o.y >= self.y
            && o.x + o.w <= self.x + self.w
            && o.y + o.h <= self.y + self.h
    }

    /// Whether the two rectangles share a halfword.
    pub fn overlaps(&self, o: &Rect) -> bool {
        o.x < self.x + self.w && self.x < o.x + o.w && o.y < self.y + self.h && self.y < o.y + o.h
    }
}

/// A TIM's image block in VRAM.
pub fn image_rect(tim: &Tim) -> Rect {
    Rect {
        x: tim.image.x.into(),
        y: tim.image.y.into(),
        w: tim.image.width.into(),
        h: tim.image.height.into(),
    }
}

/// A TIM's CLUT block in VRAM, if it has one.
pub fn clut_rect(tim: &Tim) -> Option<Rect> {
    tim.clut.as_ref().map(|c| Rect {
        x: c.x.into(),
        y: c.y.into(),
        w: c.width.into(),
        h: c.height.into(),
    })
}

/// What a textured polygon samples.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sampled {
    /// The page's colour depth (TPF): [`Depth::Clut4`], [`Depth::Clut8`] or [`Depth::Direct15`].
    pub depth: Depth,
    /// The page's top-left halfword.
    pub page: (u32, u32),
    /// The CLUT's first halfword (4/8-bit pages).
    pub clut: Option<(u32, u32)>,
    /// The smallest and largest texel `(u, v)` of the corners, inside the page.
    pub uv_min: [u8; 2],
    /// See [`Sampled::uv_min`].
    pub uv_max: [u8; 2],
}

impl Sampled {
    /// What a polygon with these TSB and CBA halfwords and corner texels samples.
    pub fn new(tsb: u16, cba: u16, uvs: &[[u8; 2]]) -> Sampled {
        let t = Tsb::from_bits(tsb);
        let depth = match t.tpf {
            0 => Depth::Clut4,
            1 => Depth::Clut8,
            _ => Depth::Direct15,
        };
        let mut uv_min = [u8::MAX; 2];
        let mut uv_max = [0u8; 2];
        for uv in uvs {
            for i in 0..2 {
                uv_min[i] = uv_min[i].min(uv[i]);
                uv_max[i] = uv_max[i].max(uv[i]);
            }
        }
        if uvs.is_empty() {
            uv_min = [0; 2];
        }
        Sampled {
            depth,
            page: t.vram_origin(),
            clut: (depth != Depth::Direct15).then(|| cba_position(cba)),
            uv_min,
            uv_max,
        }
    }

    /// Texels per halfword at the page's depth: 4, 2 or 1.
    pub fn texels_per_halfword(&self) -> u32 {
        match self.depth {
            Depth::Clut4 => 4,
            Depth::Clut8 => 2,
            _ => 1,
        }
    }

    /// The halfwords the corners' texels lie in.
    pub fn halfwords(&self) -> Rect {
        let k = self.texels_per_halfword();
        let x0 = self.page.0 + u32::from(self.uv_min[0]) / k;
        let x1 = self.page.0 + u32::from(self.uv_max[0]) / k;
        let y0 = self.page.1 + u32::from(self.uv_min[1]);
        let y1 = self.page.1 + u32::from(self.uv_max[1]);
        Rect {
            x: x0,
            y: y0,
            w: x1 - x0 + 1,
            h: y1 - y0 + 1,
        }
    }

    /// The whole texture page, in halfwords.
    pub fn page_rect(&self) -> Rect {
        Rect {
            x: self.page.0,
            y: self.page.1,
            w: 256 / self.texels_per_halfword(),
            h: 256,
        }
    }

    /// Whether `tim`'s CLUT has a row at the CBA; `Some(row)` (0 for 15-bit pages).
    pub fn clut_row(&self, tim: &Tim) -> Option<usize> {
        let Some((cx, cy)) = self.clut else {
            return Some(0);
        };
        let c = clut_rect(tim)?;
        (c.x == cx && cy >= c.y && cy < c.y + c.h).then(|| (cy - c.y) as usize)
    }

    /// How `tim` holds what this polygon samples, with the CLUT row to decode it through.
    pub fn cover(&self, tim: &Tim) -> Option<(Cover, usize)> {
        if tim.depth() != Some(self.depth) {
            return None;
        }
        let img = image_rect(tim);
        let kind = if img.contains(&self.halfwords()) {
            Cover::Covers
        } else if img.overlaps(&self.page_rect()) {
            Cover::Overlaps
        } else {
            return None;
        };
        Some((kind, self.clut_row(tim)?))
    }

    /// The page's top-left texel relative to `tim`'s first texel, in texels: a corner's texel
    /// `(u, v)` is the TIM's texel `(u + dx, v + dy)`.
    pub fn texel_offset(&self, tim: &Tim) -> (f64, f64) {
        let k = f64::from(self.texels_per_halfword());
        (
            (f64::from(self.page.0) - f64::from(tim.image.x)) * k,
            f64::from(self.page.1) - f64::from(tim.image.y),
        )
    }
}

/// How a TIM holds a polygon's texels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Cover {
    /// Every sampled halfword is in the TIM.
    Covers,
    /// The TIM lies in the page but misses some sampled halfword.
    Overlaps,
}

/// The TIM a polygon is textured from, out of `tims` in order: the first that covers it, else
/// the first that overlaps its page. Returns the index, how it holds the texels and the CLUT row.
pub fn find(tims: &[Tim], s: &Sampled) -> Option<(usize, Cover, usize)> {
    let mut overlap = None;
    for (i, t) in tims.iter().enumerate() {
        match s.cover(t) {
            Some((Cover::Covers, row)) => return Some((i, Cover::Covers, row)),
            Some((Cover::Overlaps, row)) if overlap.is_none() => {
                overlap = Some((i, Cover::Overlaps, row))
            }
            _ => {}
        }
    }
    overlap
}
