//! TIM pixels → RGBA, with the console's transparency rules, and PNG encoding.

use crate::bytes::{ByteOrder, Le};
use crate::error::{Error, Result};
use crate::Format;

use super::types::*;

/// How pixels with the STP bit (bit 15) set are shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Stp {
    /// As drawn by a primitive with ABE clear: STP is ignored, only 0x0000 is transparent.
    #[default]
    Opaque,
    /// As drawn by a primitive with ABE set: STP pixels other than 0x0000 are semi-transparent
    /// (alpha 128: blend mode 0 mixes ½ back + ½ texture); 0x0000 stays transparent, and
    /// non-STP pixels opaque.
    SemiTransparent,
}

/// Options for [`Tim::to_rgba`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DecodeOptions {
    /// Which CLUT row (of several stacked CLUTs) to use.
    pub clut_row: usize,
    /// STP handling.
    pub stp: Stp,
}

/// A decoded image: `width × height` RGBA pixels, row by row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rgba {
    /// Width in pixels.
    pub width: usize,
    /// Height in pixels.
    pub height: usize,
    /// 4 bytes per pixel.
    pub pixels: Vec<u8>,
}

/// Expands a 15-bit colour + STP to RGBA by the console's rules:
/// 5-bit channels widen as `(x << 3) | (x >> 2)` (31 → 255, 16 → 132), as ImageMagick and the
/// emulators show them, so white is white; the top 5 bits are the texel's, so PNG → TIM
/// ([`super::color16`]) gives the same 15-bit colour back. 0x0000 is fully
/// transparent (the GPU skips it); STP with a non-zero colour is semi-transparent only under
/// [`Stp::SemiTransparent`]; 0x8000 is opaque black.
pub fn color15(c: u16, stp: Stp) -> [u8; 4] {
    let ch = |s: u16| {
        let v = ((c >> s) & 0x1F) as u8;
        (v << 3) | (v >> 2)
    };
    let alpha = if c == 0 {
        0
    } else if c & 0x8000 != 0 && stp == Stp::SemiTransparent {
        128
    } else {
        255
    };
    [ch(0), ch(5), ch(10), alpha]
}

impl Tim {
    /// Decodes the pixels to RGBA. CLUT entries missing from a short CLUT read as 0x0000
    /// (transparent). 24-bit pixels are always opaque (the GPU cannot texture from them).
    pub fn to_rgba(&self, opts: &DecodeOptions) -> Result<Rgba> {
        let depth = self
            .depth()
            .ok_or_else(|| self.unsupported(format!("PMODE {}", self.pmode)))?;
        let (w16, h) = (self.image.width as usize, self.image.height as usize);
        // The pixel block starts after the 8-byte header and the CLUT block; W and H sit 8
        // bytes into it.
        let block = 8 + self
            .clut
            .as_ref()
            .map_or(0, |c| 12 + c.data.len() as u64 * 2 + c.extra.len() as u64);
        if w16 == 0 || h == 0 {
            return Err(Error::Malformed {
                format: Format::Tim,
                offset: block + 8,
                what: format!(
                    "no image to convert: the pixel block is {w16}×{h} (a palette-only TIM)"
                ),
            });
        }
        if self.image.data.len() != w16 * h {
            return Err(Error::Malformed {
                format: Format::Tim,
                offset: block + 12,
                what: format!(
                    "the pixel block holds {} halfwords, but W×H = {w16}×{h} needs {}",
                    self.image.data.len(),
                    w16 * h
                ),
            });
        }
        let width = self.pixel_width();
        let mut pixels = Vec::with_capacity(width * h * 4);
        if matches!(depth, Depth::Clut4 | Depth::Clut8) {
            let cw = self.clut.as_ref().map_or(0, |c| c.width as usize);
            let rows = match &self.clut {
                Some(c) if cw > 0 => c.data.len() / cw,
                _ => 0,
            };
            if opts.clut_row >= rows.max(1) || (rows == 0 && opts.clut_row > 0) {
                return Err(Error::Parameter {
                    what: match rows {
                        0 => format!("CLUT row {}: the TIM has no CLUT", opts.clut_row),
                        n => format!(
                            "CLUT row {}: the TIM has CLUT rows 0..={}",
                            opts.clut_row,
                            n - 1
                        ),
                    },
                });
            }
        }
        let clut: &[u16] = match (&self.clut, depth) {
            (Some(c), Depth::Clut4 | Depth::Clut8) => {
                let cw = c.width as usize;
                let start = (opts.clut_row * cw).min(c.data.len());
                &c.data[start..(start + cw).min(c.data.len())]
            }
            _ => &[],
        };
        let lookup = |i: usize| color15(clut.get(i).copied().unwrap_or(0), opts.stp);
        for row in self.image.data.chunks_exact(w16.max(1)).take(h) {
            match depth {
                Depth::Clut4 => {
                    for &hw in row {
                        for k in 0..4 {
                            pixels.extend(lookup(((hw >> (4 * k)) & 0xF) as usize));
                        }
                    }
                }
                Depth::Clut8 => {
                    for &hw in row {
                        pixels.extend(lookup((hw & 0xFF) as usize));
                        pixels.extend(lookup((hw >> 8) as usize));
                    }
                }
                // A mixed-mode image (PMODE 4) records no mode for its parts: its halfwords are
                // shown as they lie in VRAM, 15-bit direct colour (the converter says so).
                Depth::Direct15 | Depth::Mixed => row
                    .iter()
                    .for_each(|&c| pixels.extend(color15(c, opts.stp))),
                Depth::Direct24 => {
                    let bytes: Vec<u8> = row.iter().flat_map(|&h| Le::u16_to(h)).collect();
                    for px in bytes.chunks_exact(3).take(width) {
                        pixels.extend([px[0], px[1], px[2], 255]);
                    }
                }
            }
        }
        if w16 == 0 {
            pixels.clear();
        }
        Ok(Rgba {
            width,
            height: if w16 == 0 {
                h
            } else {
                pixels.len() / 4 / width.max(1)
            },
            pixels,
        })
    }

    fn unsupported(&self, feature: String) -> Error {
        Error::Unsupported {
            format: Format::Tim,
            offset: 4,
            feature,
        }
    }
}

/// Encodes RGBA pixels as a PNG file.
pub fn encode_png(img: &Rgba) -> Result<Vec<u8>> {
    let fail = |e: png::EncodingError| Error::Unencodable {
        format: Format::Png,
        what: e.to_string(),
    };
    let w = u32::try_from(img.width).map_err(|_| Error::Unencodable {
        format: Format::Png,
        what: "image too wide".into(),
    })?;
    let mut out = Vec::new();
    let mut enc = png::Encoder::new(&mut out, w, img.height as u32);
    enc.set_color(png::ColorType::Rgba);
    enc.set_depth(png::BitDepth::Eight);
    let mut writer = enc.write_header().map_err(fail)?;
    writer.write_image_data(&img.pixels).map_err(fail)?;
    writer.finish().map_err(fail)?;
    Ok(out)
}
