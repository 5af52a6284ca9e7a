//! The GPU's side: polygons drawn into a 15-bit framebuffer in ordering-table order, with
//! affine texture mapping, CLUT lookup, modulation, Gouraud shading and semi-transparency.
//!
//! Rules (psx-spx "GPU Render Polygon Commands", "Semi-Transparency", "Texture Blending"):
//! - A quadrilateral `v0 v1 v2 v3` is drawn as the triangles `v0 v1 v2` and `v1 v3 v2`.
//! - A pixel is drawn when its top-left corner (integer coordinates) is inside the triangle;
//!   of the pixels on an edge, those on top and left edges are drawn and those on bottom and
//!   right edges are not, so two triangles sharing an edge never both draw a pixel.
//! - Attributes (colour, u, v) are interpolated linearly in screen space (affine: no
//!   perspective correction), from per-triangle gradients in 16.16 fixed point, rounded to the
//!   nearest unit.
//! - A polygon wider than 1023 or taller than 511 pixels is not drawn (the GPU's limit).
//! - Texels: u, v wrap within the 256 × 256 page (they are bytes); 0x0000 is not drawn.
//!   Unless the packet's TGE bit is set (raw texture), each 5-bit channel is multiplied by the
//!   colour: `min(31, texel · colour >> 7)` (128 = ×1).
//! - Semi-transparency (packet ABE): untextured polygons blend every pixel, textured ones only
//!   texels with STP (bit 15) set, by the page's ABR, per 5-bit channel clamped to 0..31:
//!   0 `(B + F) >> 1`, 1 `B + F`, 2 `B − F`, 3 `B + (F >> 2)`.
//! - Untextured colours are the top 5 bits of each 8-bit channel. Flat polygons take the first
//!   corner's colour. Dithering is not drawn (see the module docs of [`crate::render`]).

use crate::vram::{TexturePage, Vram};

/// A 15-bit framebuffer (bit 15, the mask bit, is kept 0).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Framebuffer {
    /// Width in pixels.
    pub width: usize,
    /// Height in pixels.
    pub height: usize,
    /// `width × height` 15-bit colours (bits 4..0 R, 9..5 G, 14..10 B), row by row.
    pub pixels: Vec<u16>,
}

/// 8-bit RGB → 15-bit colour (top 5 bits of each channel).
pub fn rgb15(c: [u8; 3]) -> u16 {
    u16::from(c[0] >> 3) | u16::from(c[1] >> 3) << 5 | u16::from(c[2] >> 3) << 10
}

/// A 5-bit channel expanded to 8 bits as `(x << 3) | (x >> 2)`.
pub fn expand5(x: u16) -> u8 {
    let x = (x & 0x1F) as u8;
    (x << 3) | (x >> 2)
}

impl Framebuffer {
    /// A framebuffer cleared to `background` (8-bit RGB, cut to 15 bits).
    pub fn new(width: usize, height: usize, background: [u8; 3]) -> Framebuffer {
        Framebuffer {
            width,
            height,
            pixels: vec![rgb15(background); width * height],
        }
    }

    /// RGBA8, each channel expanded with [`expand5`], alpha 255.
    pub fn to_rgba(&self) -> Vec<u8> {
        self.pixels
            .iter()
            .flat_map(|&p| [expand5(p), expand5(p >> 5), expand5(p >> 10), 255])
            .collect()
    }
}

/// One corner of a polygon as the GPU receives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Corner {
    /// Screen x.
    pub x: i32,
    /// Screen y.
    pub y: i32,
    /// Colour (8 bits per channel; 128 = ×1 on textured polygons).
    pub color: [u8; 3],
    /// Texture coordinates: bytes inside the page for [`Texture::Vram`]; texels × 16 for
    /// [`Texture::Image`].
    pub uv: [i32; 2],
}

/// Where a polygon's texels come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Texture {
    /// Untextured.
    None,
    /// A texture page of the VRAM and a CLUT position (the packet's TSB and CBA).
    Vram {
        /// The page.
        page: TexturePage,
        /// The CLUT's VRAM position.
        clut: (u16, u16),
    },
    /// An image of [`Texels::images`] (a scene material's texture), by index.
    Image(u32),
}

/// An image in 15-bit colours (0x0000 transparent, bit 15 STP), for textures that do not live
/// in VRAM.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Image15 {
    /// Width in texels.
    pub width: u32,
    /// Height in texels.
    pub height: u32,
    /// The texels, row by row.
    pub texels: Vec<u16>,
    /// Repeat outside the image (else clamp to the edge).
    pub repeat: bool,
}

/// The texel sources a frame draws from.
#[derive(Debug, Clone, Copy)]
pub struct Texels<'a> {
    /// The VRAM.
    pub vram: &'a Vram,
    /// Images of scene materials.
    pub images: &'a [Image15],
}

/// A polygon of the draw list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Poly {
    /// The corners (the first `count` are used).
    pub corners: [Corner; 4],
    /// 3 or 4.
    pub count: u8,
    /// The texture.
    pub texture: Texture,
    /// Gouraud shading (per-corner colours); else the first corner's colour.
    pub gouraud: bool,
    /// TGE: texels drawn without modulation.
    pub raw_texture: bool,
    /// ABE set: the semi-transparency mode ABR 0..3.
    pub blend: Option<u8>,
    /// The OT index (AVSZ).
    pub otz: i32,
}

/// Blends `front` over `back` by semi-transparency mode `abr`, per 5-bit channel.
pub fn blend(back: u16, front: u16, abr: u8) -> u16 {
    let mut out = 0;
    for s in [0, 5, 10] {
        let (b, f) = (i32::from((back >> s) & 31), i32::from((front >> s) & 31));
        let c = match abr & 3 {
            0 => (b + f) >> 1,
            1 => b + f,
            2 => b - f,
            _ => b + (f >> 2),
        };
        out |= (c.clamp(0, 31) as u16) << s;
    }
    out
}

/// The work of drawing `polys` into a `width` × `height` picture: the pixels the rasterizer
/// visits (each triangle's bounding box clipped to the picture) plus one per polygon. Computed
/// before drawing, so a caller can refuse a picture before paying for it.
pub fn work(polys: &[Poly], width: usize, height: usize) -> u64 {
    let (w, h) = (width as i64, height as i64);
    let visited = |v: &[Corner]| -> u64 {
        let span = |k: fn(&Corner) -> i32, side: i64| {
            let lo = v.iter().map(|c| i64::from(k(c))).min().unwrap_or(0).max(0);
            let hi = v
                .iter()
                .map(|c| i64::from(k(c)))
                .max()
                .unwrap_or(0)
                .min(side - 1);
            (hi - lo + 1).max(0) as u64
        };
        span(|c| c.x, w) * span(|c| c.y, h)
    };
    polys
        .iter()
        .map(|p| {
            let c = &p.corners[..usize::from(p.count).min(4)];
            let tris = match c.len() {
                4 => visited(&c[..3]) + visited(&c[1..]),
                3 => visited(c),
                _ => 0,
            };
            tris + 1
        })
        .fold(0, u64::saturating_add)
}

/// Draws the polygons in the order given.
pub fn draw(fb: &mut Framebuffer, polys: &[Poly], texels: &Texels<'_>) {
    for p in polys {
        let c = &p.corners[..usize::from(p.count).min(4)];
        let (min_x, max_x) = c
            .iter()
            .fold((i32::MAX, i32::MIN), |(a, b), v| (a.min(v.x), b.max(v.x)));
        let (min_y, max_y) = c
            .iter()
            .fold((i32::MAX, i32::MIN), |(a, b), v| (a.min(v.y), b.max(v.y)));
        if c.len() < 3 || max_x - min_x > 1023 || max_y - min_y > 511 {
            continue;
        }
        triangle(fb, p, [c[0], c[1], c[2]], texels);
        if c.len() == 4 {
            triangle(fb, p, [c[1], c[3], c[2]], texels);
        }
    }
}

/// An attribute's value at the first corner and its gradients, in 16.16.
#[derive(Clone, Copy)]
struct Grad {
    at0: i64,
    dx: i64,
    dy: i64,
}

impl Grad {
    fn new(a: [i32; 3], v: &[Corner; 3], area: i64) -> Grad {
        let (a0, a1, a2) = (i64::from(a[0]), i64::from(a[1]), i64::from(a[2]));
        let (x1, y1) = (i64::from(v[1].x - v[0].x), i64::from(v[1].y - v[0].y));
        let (x2, y2) = (i64::from(v[2].x - v[0].x), i64::from(v[2].y - v[0].y));
        Grad {
            at0: (a0 << 16) + 0x8000,
            dx: (((a1 - a0) * y2 - (a2 - a0) * y1) << 16) / area,
            dy: (((a2 - a0) * x1 - (a1 - a0) * x2) << 16) / area,
        }
    }

    #[inline]
    fn at(&self, dx: i64, dy: i64) -> i64 {
        self.at0 + self.dx * dx + self.dy * dy
    }
}

fn triangle(fb: &mut Framebuffer, p: &Poly, mut v: [Corner; 3], texels: &Texels<'_>) {
    let edge = |a: &Corner, b: &Corner, x: i32, y: i32| -> i64 {
        i64::from(b.x - a.x) * i64::from(y - a.y) - i64::from(b.y - a.y) * i64::from(x - a.x)
    };
    let mut area = edge(&v[0], &v[1], v[2].x, v[2].y);
    if area == 0 {
        return;
    }
    if area < 0 {
        v.swap(1, 2);
        area = -area;
    }
    let (w, h) = (fb.width as i32, fb.height as i32);
    let x0 = v.iter().map(|c| c.x).min().unwrap_or(0).max(0);
    let x1 = v.iter().map(|c| c.x).max().unwrap_or(0).min(w - 1);
    let y0 = v.iter().map(|c| c.y).min().unwrap_or(0).max(0);
    let y1 = v.iter().map(|c| c.y).max().unwrap_or(0).min(h - 1);
    if x0 > x1 || y0 > y1 {
        return;
    }
    // Edge k runs from corner k+1 to k+2 (opposite corner k). With a positive area and +Y
    // down, a top edge is horizontal running right, a left edge runs up.
    let ends = [(1, 2), (2, 0), (0, 1)];
    let bias = ends.map(|(a, b)| {
        let (dx, dy) = (v[b].x - v[a].x, v[b].y - v[a].y);
        if (dy == 0 && dx > 0) || dy < 0 {
            0
        } else {
            -1
        }
    });
    let step_x = ends.map(|(a, b)| i64::from(v[a].y - v[b].y));
    let textured = !matches!(p.texture, Texture::None);
    let col = |i: usize| v.map(|c| i32::from(c.color[i]));
    let shade = p
        .gouraud
        .then(|| [0, 1, 2].map(|i| Grad::new(col(i), &v, area)));
    let tex = textured.then(|| [0, 1].map(|i| Grad::new(v.map(|c| c.uv[i]), &v, area)));
    // Flat polygons take the colour of the packet's first corner.
    let flat = p.corners[0].color.map(i64::from);
    for y in y0..=y1 {
        let mut e = [0, 1, 2].map(|k| edge(&v[ends[k].0], &v[ends[k].1], x0, y) + bias[k]);
        let row = y as usize * fb.width;
        for x in x0..=x1 {
            if (e[0] | e[1] | e[2]) >= 0 {
                let (dx, dy) = (i64::from(x - v[0].x), i64::from(y - v[0].y));
                let rgb = match &shade {
                    Some(g) => g.map(|g| (g.at(dx, dy) >> 16).clamp(0, 255)),
                    None => flat,
                };
                if let Some(px) = shade_pixel(p, &tex, rgb, dx, dy, texels) {
                    let dst = &mut fb.pixels[row + x as usize];
                    *dst = match px {
                        (c, Some(abr)) => blend(*dst, c, abr),
                        (c, None) => c,
                    };
                }
            }
            for k in 0..3 {
                e[k] += step_x[k];
            }
        }
    }
}

/// The colour of one pixel and whether it blends (with which mode); `None` when a texel
/// 0x0000 leaves it undrawn.
#[inline]
fn shade_pixel(
    p: &Poly,
    tex: &Option<[Grad; 2]>,
    rgb: [i64; 3],
    dx: i64,
    dy: i64,
    texels: &Texels<'_>,
) -> Option<(u16, Option<u8>)> {
    let Some(t) = tex else {
        let c = rgb15(rgb.map(|c| c as u8));
        return Some((c, p.blend));
    };
    let (u, v) = (t[0].at(dx, dy) >> 16, t[1].at(dx, dy) >> 16);
    let texel = match p.texture {
        Texture::Vram { page, clut } => texels.vram.texel(page, clut, u as u8, v as u8),
        Texture::Image(i) => image_texel(texels.images.get(i as usize)?, u >> 4, v >> 4),
        Texture::None => return None,
    };
    if texel == 0 {
        return None;
    }
    let c = if p.raw_texture {
        texel & 0x7FFF
    } else {
        let mut out = 0;
        for (k, s) in [0, 5, 10].into_iter().enumerate() {
            let t = i64::from((texel >> s) & 31);
            out |= (((t * rgb[k]) >> 7).min(31) as u16) << s;
        }
        out
    };
    Some((c, p.blend.filter(|_| texel & 0x8000 != 0)))
}

fn image_texel(img: &Image15, u: i64, v: i64) -> u16 {
    let (w, h) = (i64::from(img.width), i64::from(img.height));
    if w == 0 || h == 0 {
        return 0;
    }
    let (u, v) = if img.repeat {
        (u.rem_euclid(w), v.rem_euclid(h))
    } else {
        (u.clamp(0, w - 1), v.clamp(0, h - 1))
    };
    img.texels.get((v * w + u) as usize).copied().unwrap_or(0)
}
