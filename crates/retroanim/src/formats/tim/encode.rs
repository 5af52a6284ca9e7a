//! RGBA (from PNG) → TIM: the way back from [`super::Tim::to_rgba`].
//!
//! Colours become the console's 15-bit form by the rules [`super::color15`] decodes:
//! - alpha 0 → 0x0000, the one value the GPU skips (transparent);
//! - alpha 255 → the colour with STP clear, except pure black, which gets STP (0x8000: opaque
//!   black, since 0x0000 would be transparent);
//! - any other alpha → the colour with STP set: drawn semi-transparent by primitives with ABE
//!   set, opaque by the others (the console has no other partial transparency).
//!
//! Channels keep their top 5 bits (`c >> 3`), the inverse of the decoder's ×8, so an image
//! decoded from a 16-bit TIM with [`super::Stp::SemiTransparent`] encodes back to the same
//! halfwords. At 4 and 8 bpp the image is indexed: when it has at most 16/256 distinct 15-bit
//! colours the palette is exact; otherwise it is reduced with NeuQuant (`color_quant`) and the
//! error is reported. CLUT entry 0 is 0x0000 whenever the image has a transparent pixel.
//!
//! VRAM placement: the image at `vram` (x in 16-bit units, so a 4 bpp image's width is rounded
//! up to a multiple of 4 pixels, 8 bpp to 2, padding with transparent pixels, as Sony's
//! `bmp2tim` pads), its CLUT at `clut`; both must fit the 1024 × 512 VRAM.

use super::{Block, Depth, Rgba, Tim};
use crate::error::{Error, Result};
use crate::Format;

/// Where and how deep [`Tim::from_rgba`] puts the image.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EncodeOptions {
    /// Colour depth: [`Depth::Clut4`], [`Depth::Clut8`] or [`Depth::Direct15`].
    pub depth: Depth,
    /// The image's VRAM position (x in 16-bit units, y in rows).
    pub vram: (u16, u16),
    /// The CLUT's VRAM position (x a multiple of 16, as the GPU's CLUT address requires).
    pub clut: (u16, u16),
}

impl Default for EncodeOptions {
    fn default() -> Self {
        EncodeOptions {
            depth: Depth::Direct15,
            vram: (640, 0),
            clut: (0, 480),
        }
    }
}

/// What encoding changed.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct EncodeReport {
    /// Distinct 15-bit colours (STP included) in the image before any palette reduction.
    pub colours: usize,
    /// Entries of the palette used (0 at 16 bpp).
    pub palette: usize,
    /// Pixels whose colour the palette reduction changed.
    pub pixels_changed: usize,
    /// The largest change of one channel (0..=255 scale) a palette reduction made.
    pub max_channel_error: u8,
    /// Pixels added on the right to fill the last 16-bit VRAM unit of each row.
    pub padded_columns: usize,
    /// Pixels whose 8-bit channels are not the widening of a 5-bit value (`(x << 3) | (x >> 2)`,
    /// what TIM → PNG writes), i.e. whose decoded colour differs from the input's.
    pub pixels_rounded: usize,
}

/// A 5-bit channel widened to 8 bits as TIM → PNG writes it.
fn widen(v: u8) -> u8 {
    (v << 3) | (v >> 2)
}

/// The 15-bit colour + STP of one RGBA pixel (each channel's top 5 bits, so a colour TIM → PNG
/// wrote comes back the same).
pub fn color16(p: [u8; 4]) -> u16 {
    if p[3] == 0 {
        return 0;
    }
    let c = (p[0] as u16 >> 3) | (p[1] as u16 >> 3) << 5 | (p[2] as u16 >> 3) << 10;
    if p[3] != 255 || c == 0 {
        c | 0x8000
    } else {
        c
    }
}

fn unencodable(what: String) -> Error {
    Error::Unencodable {
        format: Format::Tim,
        what,
    }
}

impl Tim {
    /// Encodes an RGBA image as a TIM (see the module docs for the rules).
    pub fn from_rgba(img: &Rgba, opts: &EncodeOptions) -> Result<(Tim, EncodeReport)> {
        let (w, h) = (img.width, img.height);
        if w == 0 || h == 0 || img.pixels.len() != w * h * 4 {
            return Err(unencodable(format!(
                "a {w} × {h} image with {} bytes of pixels",
                img.pixels.len()
            )));
        }
        let per_unit = match opts.depth {
            Depth::Clut4 => 4,
            Depth::Clut8 => 2,
            Depth::Direct15 => 1,
            d => {
                return Err(unencodable(format!(
                    "depth {d:?}: only 4, 8 and 16 bpp are written"
                )))
            }
        };
        let units = w.div_ceil(per_unit);
        fits("image", opts.vram, units, h)?;
        let mut report = EncodeReport {
            padded_columns: units * per_unit - w,
            ..EncodeReport::default()
        };
        let colours: Vec<u16> = img
            .pixels
            .chunks_exact(4)
            .map(|p| color16([p[0], p[1], p[2], p[3]]))
            .collect();
        report.pixels_rounded = img
            .pixels
            .chunks_exact(4)
            .zip(&colours)
            .filter(|(p, &c)| p[3] != 0 && c != 0 && p[..3].iter().any(|&x| widen(x >> 3) != x))
            .count();
        let mut distinct = colours.clone();
        distinct.sort_unstable();
        distinct.dedup();
        report.colours = distinct.len();
        let pad = |row: &[u16]| -> Vec<u16> {
            let mut r = row.to_vec();
            r.resize(units * per_unit, 0);
            r
        };
        if opts.depth == Depth::Direct15 {
            let data = colours.chunks_exact(w).flat_map(pad).collect();
            let tim = tim_with(2, None, block(opts.vram, units, h, data));
            return Ok((tim, report));
        }
        let max = if per_unit == 4 { 16 } else { 256 };
        if opts.clut.0 % 16 != 0 {
            return Err(unencodable(format!(
                "CLUT x {}: must be a multiple of 16 (the GPU addresses CLUTs in 16-unit steps)",
                opts.clut.0
            )));
        }
        fits("CLUT", opts.clut, max, 1)?;
        let palette = if distinct.len() <= max {
            distinct
        } else {
            reduce(img, &colours, max, &mut report)
        };
        report.palette = palette.len();
        let index = |c: u16| -> usize {
            match palette.binary_search(&c) {
                Ok(i) => i,
                Err(_) => nearest(&palette, c),
            }
        };
        let mut data = Vec::with_capacity(units * h);
        for row in colours.chunks_exact(w) {
            let row = pad(row);
            for unit in row.chunks_exact(per_unit) {
                let mut hw = 0u16;
                for (k, &c) in unit.iter().enumerate() {
                    hw |= (index(c) as u16) << (k * 16 / per_unit);
                }
                data.push(hw);
            }
        }
        let mut clut = palette.clone();
        clut.resize(max, 0);
        let pmode = if per_unit == 4 { 0 } else { 1 };
        let tim = tim_with(
            pmode,
            Some(block(opts.clut, max, 1, clut)),
            block(opts.vram, units, h, data),
        );
        Ok((tim, report))
    }
}

fn tim_with(pmode: u8, clut: Option<Block>, image: Block) -> Tim {
    Tim {
        version: 0,
        id_reserved: 0,
        pmode,
        flags_reserved: 0,
        clut,
        image,
        trailing: Vec::new(),
    }
}

fn block(at: (u16, u16), width: usize, height: usize, data: Vec<u16>) -> Block {
    Block {
        x: at.0,
        y: at.1,
        width: width as u16,
        height: height as u16,
        data,
        extra: Vec::new(),
    }
}

/// Checks that a `width × height` block at `at` lies inside the 1024 × 512 VRAM.
fn fits(what: &str, at: (u16, u16), width: usize, height: usize) -> Result<()> {
    if at.0 as usize + width > 1024 || at.1 as usize + height > 512 {
        return Err(unencodable(format!(
            "the {what} ({width} × {height} VRAM units at {}, {}) does not fit the 1024 × 512 VRAM",
            at.0, at.1
        )));
    }
    Ok(())
}

/// A palette of at most `max` colours (sorted, 0x0000 first when transparency is used) for an
/// image with more distinct colours, by NeuQuant over its opaque pixels.
fn reduce(img: &Rgba, colours: &[u16], max: usize, report: &mut EncodeReport) -> Vec<u16> {
    let transparent = colours.contains(&0);
    let slots = if transparent { max - 1 } else { max };
    let opaque: Vec<u8> = img
        .pixels
        .chunks_exact(4)
        .filter(|p| p[3] != 0)
        .flat_map(|p| [p[0], p[1], p[2], 255])
        .collect();
    let nq = color_quant::NeuQuant::new(10, slots, &opaque);
    let mut palette: Vec<u16> = nq
        .color_map_rgba()
        .chunks_exact(4)
        .map(|p| color16([p[0], p[1], p[2], 255]))
        .collect();
    // The STP variants the image uses keep their flag: a semi-transparent colour maps to the
    // nearest colour with STP set when the palette has one.
    if colours.iter().any(|&c| c & 0x8000 != 0 && c != 0x8000) {
        let stp: Vec<u16> = palette.iter().map(|&c| c | 0x8000).collect();
        palette.truncate(slots / 2);
        palette.extend(stp.into_iter().take(slots - slots / 2));
    }
    if transparent {
        palette.push(0);
    }
    palette.sort_unstable();
    palette.dedup();
    for (p, &c) in img.pixels.chunks_exact(4).zip(colours) {
        let q = palette[nearest(&palette, c)];
        if q != c {
            report.pixels_changed += 1;
            let d = super::color15(q, super::Stp::Opaque);
            let err = (0..3).map(|k| d[k].abs_diff(p[k])).max().unwrap_or(0);
            report.max_channel_error = report.max_channel_error.max(err);
        }
    }
    palette
}

/// The palette entry closest to `c`: transparent only for transparent, STP kept where it can
/// be, else the smallest squared RGB distance.
fn nearest(palette: &[u16], c: u16) -> usize {
    if c == 0 {
        return palette.iter().position(|&p| p == 0).unwrap_or(0);
    }
    let rgb = |v: u16| [(v & 31) as i32, (v >> 5 & 31) as i32, (v >> 10 & 31) as i32];
    let want = rgb(c);
    let stp = c & 0x8000;
    let mut best = (i32::MAX, 0usize);
    for (i, &p) in palette.iter().enumerate() {
        if p == 0 {
            continue;
        }
        let d: i32 = rgb(p)
            .iter()
            .zip(&want)
            .map(|(a, b)| (a - b) * (a - b))
            .sum();
        let d = d * 4 + if p & 0x8000 == stp { 0 } else { 1 };
        if d < best.0 {
            best = (d, i);
        }
    }
    best.1
}

fn png_malformed(what: String) -> Error {
    Error::Malformed {
        format: Format::Png,
        offset: 0,
        what,
    }
}

/// A PNG's width and height from its header, without decoding anything: callers check them
/// against what they can take before [`decode_png`] allocates.
pub fn png_dimensions(data: &[u8]) -> Result<(u32, u32)> {
    let reader = png::Decoder::new(data)
        .read_info()
        .map_err(|e| png_malformed(e.to_string()))?;
    let info = reader.info();
    Ok((info.width, info.height))
}

/// Checks an image's declared `w` × `h` against [`crate::Limits::max_image_pixels`] (before
/// anything is decoded).
pub(crate) fn image_pixels(limits: &crate::Limits, w: u32, h: u32) -> Result<()> {
    crate::limits::budget(
        &format!("the image's {w} × {h} pixels"),
        "max_image_pixels",
        u64::from(w) * u64::from(h),
        limits.max_image_pixels,
    )
}

/// Decodes a PNG to RGBA (every PNG colour type and depth, expanded to 8-bit RGBA). The size the
/// header declares is checked against [`crate::Limits::max_image_pixels`] and
/// [`crate::Limits::max_bytes`] before anything is allocated.
pub fn decode_png(data: &[u8], limits: &crate::Limits) -> Result<Rgba> {
    let malformed = png_malformed;
    let mut decoder = png::Decoder::new_with_limits(
        data,
        png::Limits {
            bytes: usize::try_from(limits.max_bytes).unwrap_or(usize::MAX),
        },
    );
    decoder.set_transformations(
        png::Transformations::normalize_to_color8() | png::Transformations::ALPHA,
    );
    let mut reader = decoder.read_info().map_err(|e| malformed(e.to_string()))?;
    let (w, h) = (reader.info().width, reader.info().height);
    image_pixels(limits, w, h)?;
    limits.bytes(
        Some(16),
        &format!("the PNG's pixels ({w} × {h}, RGBA)"),
        u64::from(w) * u64::from(h) * 4,
    )?;
    limits.bytes(
        Some(16),
        "the PNG's decoding buffer",
        reader.output_buffer_size() as u64,
    )?;
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader
        .next_frame(&mut buf)
        .map_err(|e| malformed(e.to_string()))?;
    buf.truncate(info.buffer_size());
    let (w, h) = (info.width as usize, info.height as usize);
    let pixels = match info.color_type {
        png::ColorType::Rgba => buf,
        png::ColorType::GrayscaleAlpha => buf
            .chunks_exact(2)
            .flat_map(|p| [p[0], p[0], p[0], p[1]])
            .collect(),
        other => {
            return Err(malformed(format!(
                "unexpected colour type {other:?} after expansion"
            )))
        }
    };
    Ok(Rgba {
        width: w,
        height: h,
        pixels,
    })
}
