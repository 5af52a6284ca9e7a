//! The console's video memory: 1024 × 512 halfwords, where TIM images and CLUTs are loaded and
//! from which the GPU fetches texels.
//!
//! Sources: Sony *File Formats* pp. 2-28 (TSB, CBA) and 3-3..3-7 (TIM); `notes/tmd_tim.md`
//! ("Texture fields", "TIM"); the GPU's texture addressing as the PsyQ `getTPage` /
//! `getClut` macros define it.
//!
//! | field | bits | meaning |
//! |---|---|---|
//! | TSB | 3..0 | texture page x: VRAM x = 64 · value |
//! | TSB | 4 | texture page y: VRAM y = 256 · value |
//! | TSB | 6..5 | ABR, semi-transparency mode (0 B/2+F/2, 1 B+F, 2 B−F, 3 B+F/4) |
//! | TSB | 8..7 | TPF, colour mode (0 4-bit CLUT, 1 8-bit CLUT, 2 15-bit direct; 3 reads as 2) |
//! | CBA | 5..0 | CLUT x: VRAM x = 16 · value |
//! | CBA | 14..6 | CLUT y: VRAM y = value |
//!
//! A texel at `(u, v)` (bytes, inside the 256 × 256 page) is read the way the GPU reads it: at
//! 4 bits the halfword at `(page x + u/4, page y + v)` holds 4 indices (texel 0 in the low
//! nibble), at 8 bits the halfword at `(page x + u/2, page y + v)` holds 2 (texel 0 in the low
//! byte), and the index picks the halfword at `(CLUT x + index, CLUT y)`; at 15 bits the
//! halfword at `(page x + u, page y + v)` is the colour. Addresses wrap at the VRAM's edges
//! (x modulo 1024, y modulo 512), as the GPU's do.
//!
//! A TIM is placed by its own header: the pixel block at its `DX, DY`, the CLUT block at its
//! own `DX, DY`, both as raw halfwords (as `LoadImage` copies them); a block reaching past the
//! right or bottom edge wraps around, as the GPU's transfers do, and [`Placed::wrapped`] says
//! so. TSB bit 11 (VRAM y bit 9 in the `TSB()` macro of HMD.DEF, for 2 MB VRAM development
//! boards) is ignored: retail consoles have 512 lines.

use crate::bytes::{ByteOrder, Le};
use crate::error::{Error, Result};
use crate::formats::tim::{self, Tim};

/// VRAM width in halfwords.
pub const WIDTH: usize = 1024;
/// VRAM height in lines.
pub const HEIGHT: usize = 512;
/// Bytes of a raw VRAM dump: 1024 × 512 little-endian halfwords.
pub const DUMP_BYTES: usize = WIDTH * HEIGHT * 2;

/// The console's VRAM: 1024 × 512 halfwords (15-bit colour + STP, or packed CLUT indices).
#[derive(Clone, PartialEq, Eq)]
pub struct Vram {
    words: Vec<u16>,
    /// Rectangles `[x, y, w, h]` something was loaded into (the whole VRAM for a dump).
    loaded: Vec<[u16; 4]>,
}

impl std::fmt::Debug for Vram {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let used = self.words.iter().filter(|&&w| w != 0).count();
        write!(f, "Vram {{ non-zero halfwords: {used} }}")
    }
}

impl Default for Vram {
    fn default() -> Self {
        Vram::new()
    }
}

/// Where [`Vram::place_tim`] put a TIM's blocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Placed {
    /// The pixel block's rectangle `[x, y, width, height]` in halfwords.
    pub image: [u16; 4],
    /// The CLUT block's rectangle, if the TIM has one.
    pub clut: Option<[u16; 4]>,
    /// A block reached past the right or bottom edge and wrapped around.
    pub wrapped: bool,
}

/// A texture page attribute (TSB) split into the fields the GPU reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TexturePage {
    /// VRAM x of the page's left edge (0, 64, …, 960).
    pub x: u16,
    /// VRAM y of the page's top edge (0 or 256).
    pub y: u16,
    /// Colour mode: 0 4-bit CLUT, 1 8-bit CLUT, 2 15-bit direct (TPF 3 reads as 2).
    pub depth: u8,
    /// Semi-transparency mode ABR 0..3.
    pub abr: u8,
}

impl TexturePage {
    /// Splits a TSB halfword.
    pub fn from_tsb(tsb: u16) -> TexturePage {
        TexturePage {
            x: (tsb & 0xF) * 64,
            y: ((tsb >> 4) & 1) * 256,
            depth: ((tsb >> 7) & 3).min(2) as u8,
            abr: ((tsb >> 5) & 3) as u8,
        }
    }
}

/// A CLUT address (CBA) as a VRAM position `(x, y)`.
pub fn clut_position(cba: u16) -> (u16, u16) {
    ((cba & 0x3F) * 16, (cba >> 6) & 0x1FF)
}

impl Vram {
    /// An empty VRAM (every halfword 0x0000, i.e. transparent).
    pub fn new() -> Vram {
        Vram {
            words: vec![0; WIDTH * HEIGHT],
            loaded: Vec::new(),
        }
    }

    /// A raw dump of the whole VRAM: exactly [`DUMP_BYTES`] bytes, 1024 × 512 little-endian
    /// halfwords, line by line (what emulators save).
    pub fn from_dump(data: &[u8]) -> Result<Vram> {
        if data.len() != DUMP_BYTES {
            return Err(Error::Container {
                container: "VRAM dump",
                offset: data.len().min(DUMP_BYTES) as u64,
                what: format!(
                    "a VRAM dump is {DUMP_BYTES} bytes (1024 × 512 halfwords), this one is {}",
                    data.len()
                ),
            });
        }
        Ok(Vram {
            words: data
                .chunks_exact(2)
                .map(|b| Le::u16_from([b[0], b[1]]))
                .collect(),
            loaded: vec![[0, 0, WIDTH as u16, HEIGHT as u16]],
        })
    }

    /// The halfword at `(x, y)`, the coordinates wrapping at the edges.
    #[inline]
    pub fn get(&self, x: usize, y: usize) -> u16 {
        self.words[(y % HEIGHT) * WIDTH + x % WIDTH]
    }

    /// Sets the halfword at `(x, y)`, the coordinates wrapping at the edges.
    #[inline]
    pub fn set(&mut self, x: usize, y: usize, value: u16) {
        self.words[(y % HEIGHT) * WIDTH + x % WIDTH] = value;
    }

    /// Every halfword, line by line (1024 per line).
    pub fn halfwords(&self) -> &[u16] {
        &self.words
    }

    /// Copies `w × h` halfwords (row by row) to `(x, y)`, as `LoadImage` does; returns whether
    /// the rectangle wrapped around an edge. Missing data (a short block) leaves VRAM as it was.
    pub fn load(&mut self, x: u16, y: u16, w: u16, h: u16, data: &[u16]) -> bool {
        if w == 0 || h == 0 {
            return false;
        }
        self.loaded.push([x, y, w, h]);
        let (x, y, w) = (usize::from(x), usize::from(y), usize::from(w));
        for (row, line) in data.chunks(w).take(usize::from(h)).enumerate() {
            for (col, &v) in line.iter().enumerate() {
                self.set(x + col, y + row, v);
            }
        }
        x % WIDTH + w > WIDTH || y % HEIGHT + usize::from(h) > HEIGHT
    }

    /// Whether the halfword at `(x, y)` lies in a rectangle that [`Vram::load`],
    /// [`Vram::place_tim`] or [`Vram::from_dump`] filled (a texture page pointing elsewhere
    /// samples memory nothing was loaded into).
    pub fn is_loaded(&self, x: usize, y: usize) -> bool {
        let (x, y) = (x % WIDTH, y % HEIGHT);
        self.loaded.iter().any(|r| {
            let dx = (x + WIDTH - usize::from(r[0]) % WIDTH) % WIDTH;
            let dy = (y + HEIGHT - usize::from(r[1]) % HEIGHT) % HEIGHT;
            dx < usize::from(r[2]) && dy < usize::from(r[3])
        })
    }

    /// Places a TIM's pixel block and CLUT block at their own VRAM positions (the header's
    /// `DX, DY`); later placements overwrite earlier ones where they overlap, as on the console.
    pub fn place_tim(&mut self, t: &Tim) -> Placed {
        let i = &t.image;
        let mut wrapped = self.load(i.x, i.y, i.width, i.height, &i.data);
        let clut = t.clut.as_ref().map(|c| {
            wrapped |= self.load(c.x, c.y, c.width, c.height, &c.data);
            [c.x, c.y, c.width, c.height]
        });
        Placed {
            image: [i.x, i.y, i.width, i.height],
            clut,
            wrapped,
        }
    }

    /// The 16-bit colour the GPU fetches for texel `(u, v)` of the texture page `tsb` with
    /// the CLUT `cba` (unused at 15 bits). 0x0000 is transparent; bit 15 is STP.
    #[inline]
    pub fn texel(&self, page: TexturePage, clut: (u16, u16), u: u8, v: u8) -> u16 {
        let (px, py) = (usize::from(page.x), usize::from(page.y) + usize::from(v));
        let (u, cx, cy) = (usize::from(u), usize::from(clut.0), usize::from(clut.1));
        match page.depth {
            0 => {
                let hw = self.get(px + u / 4, py);
                let index = (hw >> ((u & 3) * 4)) & 0xF;
                self.get(cx + usize::from(index), cy)
            }
            1 => {
                let hw = self.get(px + u / 2, py);
                let index = (hw >> ((u & 1) * 8)) & 0xFF;
                self.get(cx + usize::from(index), cy)
            }
            _ => self.get(px + u, py),
        }
    }

    /// Whether the page halfword texel `(u, v)` is read from was loaded ([`Vram::is_loaded`]).
    pub fn texel_loaded(&self, page: TexturePage, u: u8, v: u8) -> bool {
        let per = match page.depth {
            0 => 4,
            1 => 2,
            _ => 1,
        };
        self.is_loaded(
            usize::from(page.x) + usize::from(u) / per,
            usize::from(page.y) + usize::from(v),
        )
    }

    /// [`Vram::texel`] with the raw TSB and CBA halfwords of a packet.
    pub fn texel_at(&self, tsb: u16, cba: u16, u: u8, v: u8) -> u16 {
        self.texel(TexturePage::from_tsb(tsb), clut_position(cba), u, v)
    }

    /// The rectangle `(x, y, w, h)` (in halfwords) as RGBA, each halfword read as a 15-bit
    /// colour ([`tim::color15`], STP ignored: 0x0000 transparent, the rest opaque). The
    /// rectangle wraps at the edges.
    pub fn region_rgba(&self, x: usize, y: usize, w: usize, h: usize) -> tim::Rgba {
        let mut pixels = Vec::with_capacity(w.min(WIDTH) * h.min(HEIGHT) * 4);
        for row in 0..h.min(HEIGHT) {
            for col in 0..w.min(WIDTH) {
                pixels.extend(tim::color15(self.get(x + col, y + row), tim::Stp::Opaque));
            }
        }
        tim::Rgba {
            width: w.min(WIDTH),
            height: h.min(HEIGHT),
            pixels,
        }
    }

    /// The whole VRAM (1024 × 512) as RGBA.
    pub fn to_rgba(&self) -> tim::Rgba {
        self.region_rgba(0, 0, WIDTH, HEIGHT)
    }

    /// A rectangle as a PNG file (see [`Vram::region_rgba`]).
    pub fn region_png(&self, x: usize, y: usize, w: usize, h: usize) -> Result<Vec<u8>> {
        tim::encode_png(&self.region_rgba(x, y, w, h))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::tim::Block;

    fn block(x: u16, y: u16, w: u16, h: u16, data: Vec<u16>) -> Block {
        Block {
            x,
            y,
            width: w,
            height: h,
            data,
            extra: vec![],
        }
    }

    fn tim(pmode: u8, image: Block, clut: Option<Block>) -> Tim {
        Tim {
            version: 0,
            id_reserved: 0,
            pmode,
            flags_reserved: 0,
            clut,
            image,
            trailing: vec![],
        }
    }

    #[test]
    fn four_bit_texels_read_nibbles_through_the_clut() {
        let mut v = Vram::new();
        // Page 5 (x 320, y 0); texels 0..3 = indices 1, 2, 3, 15 in one halfword.
        let clut: Vec<u16> = (0..16).map(|i| 0x100 + i).collect();
        let t = tim(
            0,
            block(320, 10, 1, 1, vec![0xF321]),
            Some(block(32, 480, 16, 1, clut)),
        );
        let p = v.place_tim(&t);
        assert!(!p.wrapped);
        let tsb = 5; // page 5, 4-bit
        let cba = (480 << 6) | 2; // x 32, y 480
        assert_eq!(v.texel_at(tsb, cba, 0, 10), 0x101);
        assert_eq!(v.texel_at(tsb, cba, 1, 10), 0x102);
        assert_eq!(v.texel_at(tsb, cba, 2, 10), 0x103);
        assert_eq!(v.texel_at(tsb, cba, 3, 10), 0x10F);
    }

    #[test]
    fn eight_bit_and_direct_texels() {
        let mut v = Vram::new();
        let clut: Vec<u16> = (0..256).map(|i| 0x8000 | i).collect();
        v.place_tim(&tim(
            1,
            block(64 + 3, 256 + 7, 1, 1, vec![0x40A0]),
            Some(block(0, 500, 256, 1, clut)),
        ));
        let tsb = (1 << 7) | (1 << 4) | 1; // 8-bit, page x 64, y 256
        let cba = 500 << 6;
        assert_eq!(v.texel_at(tsb, cba, 6, 7), 0x80A0);
        assert_eq!(v.texel_at(tsb, cba, 7, 7), 0x8040);
        v.set(128 + 200, 3, 0x7FFF);
        assert_eq!(v.texel_at((2 << 7) | 2, 0, 200, 3), 0x7FFF);
    }

    #[test]
    fn dumps_are_checked_and_blocks_wrap() {
        assert!(Vram::from_dump(&[0; 10]).is_err());
        let mut d = vec![0u8; DUMP_BYTES];
        d[2 * (WIDTH + 1)] = 0x34;
        d[2 * (WIDTH + 1) + 1] = 0x12;
        let v = Vram::from_dump(&d).unwrap();
        assert_eq!(v.get(1, 1), 0x1234);
        let mut v = Vram::new();
        assert!(v.load(1023, 511, 2, 2, &[1, 2, 3, 4]));
        assert_eq!((v.get(1023, 511), v.get(0, 511), v.get(1023, 0)), (1, 2, 3));
        assert!(v.is_loaded(0, 0) && v.is_loaded(1023, 511) && !v.is_loaded(1, 1));
        let png = v.region_png(1022, 510, 2, 2).unwrap();
        assert_eq!(&png[1..4], b"PNG");
        let img = v.region_rgba(1023, 511, 1, 1);
        assert_eq!(img.pixels, [8, 0, 0, 255]);
    }
}
