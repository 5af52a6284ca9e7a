//! One hand-built scene per drawing rule of the console renderer, each pixel checked against a
//! value worked out in the test from the rule itself (by hand, or by a few lines of f64
//! arithmetic), never against a picture the renderer made.

use retroanim::formats::tim::{Block, Tim};
use retroanim::formats::tmd::{
    self, ArrayVec, Object, Polygon, Primitive, PrimitiveData, Rgbx, SVector, Tmd,
};
use retroanim::render::{self, raster, Corner, Framebuffer, Poly, Texels, Texture, View};
use retroanim::vram::{TexturePage, Vram};

const BG: [u8; 3] = [10 << 3, 20 << 3, 30 << 3];

fn rgb5(r: u16, g: u16, b: u16) -> u16 {
    r | g << 5 | b << 10
}

fn corner(x: i32, y: i32, color: [u8; 3], uv: [i32; 2]) -> Corner {
    Corner { x, y, color, uv }
}

fn flat(corners: &[(i32, i32)], color: [u8; 3], otz: i32) -> Poly {
    let mut c = [Corner::default(); 4];
    for (k, &(x, y)) in corners.iter().enumerate() {
        c[k] = corner(x, y, color, [0, 0]);
    }
    Poly {
        corners: c,
        count: corners.len() as u8,
        texture: Texture::None,
        gouraud: false,
        raw_texture: false,
        blend: None,
        otz,
    }
}

fn draw(polys: &[Poly], vram: &Vram) -> Framebuffer {
    let mut fb = Framebuffer::new(64, 64, BG);
    raster::draw(&mut fb, polys, &Texels { vram, images: &[] });
    fb
}

fn at(fb: &Framebuffer, x: usize, y: usize) -> u16 {
    fb.pixels[y * fb.width + x]
}

const SQUARE: [(i32, i32); 4] = [(0, 0), (40, 0), (0, 40), (40, 40)];

#[test]
fn ordering_table_draws_far_first_and_the_last_inserted_first_in_a_bucket() {
    let vram = Vram::new();
    let red = [248, 0, 0];
    let green = [0, 248, 0];
    // Inserted near first, far second: the OT still draws the far one first.
    let mut polys = vec![flat(&SQUARE, red, 100), flat(&SQUARE, green, 4000)];
    render::ordering_table(&mut polys);
    assert_eq!(at(&draw(&polys, &vram), 10, 10), rgb5(31, 0, 0));
    // Same bucket (OT index >> 2 equal: 400 and 403): the one inserted last is drawn first,
    // so the first inserted covers it.
    let mut polys = vec![flat(&SQUARE, red, 400), flat(&SQUARE, green, 403)];
    render::ordering_table(&mut polys);
    assert_eq!(at(&draw(&polys, &vram), 10, 10), rgb5(31, 0, 0));
    let mut polys = vec![flat(&SQUARE, green, 403), flat(&SQUARE, red, 400)];
    render::ordering_table(&mut polys);
    assert_eq!(at(&draw(&polys, &vram), 10, 10), rgb5(0, 31, 0));
}

#[test]
fn every_blend_mode_per_channel_with_clamping() {
    // Back (10, 20, 30) from BG; front (8, 16, 4) in 5-bit channels.
    let front = [8 << 3, 16 << 3, 4 << 3];
    let want = [
        rgb5(9, 18, 17),  // 0: B/2 + F/2
        rgb5(18, 31, 31), // 1: B + F, clamped at 31
        rgb5(2, 4, 26),   // 2: B − F
        rgb5(12, 24, 31), // 3: B + F/4, clamped
    ];
    let vram = Vram::new();
    for (abr, want) in want.into_iter().enumerate() {
        let mut p = flat(&SQUARE, front, 1);
        p.blend = Some(abr as u8);
        let fb = draw(&[p], &vram);
        assert_eq!(at(&fb, 5, 5), want, "mode {abr}");
        assert_eq!(at(&fb, 50, 50), rgb5(10, 20, 30), "outside");
    }
}

/// A VRAM with a 15-bit texture page at x 64 whose texel (u, v) has red u/8, green v/8 and,
/// at u = v = 0, the STP bit (and at u = 1, v = 0, the transparent colour 0x0000).
fn gradient_vram() -> Vram {
    let mut vram = Vram::new();
    let mut data = Vec::new();
    for v in 0..64u16 {
        for u in 0..64u16 {
            data.push(rgb5(u / 2, v / 2, 3));
        }
    }
    data[0] |= 0x8000;
    data[1] = 0;
    vram.load(64, 0, 64, 64, &data);
    vram
}

fn textured(corners: [(i32, i32, [i32; 2]); 4], tsb: u16) -> Poly {
    let mut c = [Corner::default(); 4];
    for (k, (x, y, uv)) in corners.into_iter().enumerate() {
        c[k] = corner(x, y, [128; 3], uv);
    }
    Poly {
        corners: c,
        count: 4,
        texture: Texture::Vram {
            page: TexturePage::from_tsb(tsb),
            clut: (0, 0),
        },
        gouraud: false,
        raw_texture: false,
        blend: None,
        otz: 1,
    }
}

#[test]
fn texture_mapping_is_affine_on_a_trapezoid() {
    let vram = gradient_vram();
    // Top edge 0..48 wide, bottom 12..36: a trapezoid mapped to the square u, v 0..48.
    let quad = [
        (0, 0, [0, 0]),
        (48, 0, [48, 0]),
        (12, 48, [0, 48]),
        (36, 48, [48, 48]),
    ];
    let tsb = (2 << 7) | 1;
    let fb = draw(&[textured(quad, tsb)], &vram);
    // Each triangle maps screen to texture by its own affine map (no perspective divide):
    // solve for the barycentric weights in f64, interpolate u and v, round to nearest.
    let tri_value = |t: [(f64, f64, [f64; 2]); 3], x: f64, y: f64| -> Option<[f64; 2]> {
        let (a, b, c) = (t[0], t[1], t[2]);
        let d = (b.0 - a.0) * (c.1 - a.1) - (c.0 - a.0) * (b.1 - a.1);
        let wb = ((x - a.0) * (c.1 - a.1) - (c.0 - a.0) * (y - a.1)) / d;
        let wc = ((b.0 - a.0) * (y - a.1) - (x - a.0) * (b.1 - a.1)) / d;
        let wa = 1.0 - wb - wc;
        (wa > 1e-9 && wb > 1e-9 && wc > 1e-9)
            .then(|| [0, 1].map(|i| wa * a.2[i] + wb * b.2[i] + wc * c.2[i]))
    };
    let q = quad.map(|(x, y, uv)| (x as f64, y as f64, uv.map(|e| e as f64)));
    let mut checked = 0;
    for &(x, y) in &[(24, 10), (20, 30), (30, 40), (14, 44), (40, 4), (24, 24)] {
        let (fx, fy) = (x as f64, y as f64);
        let uv = tri_value([q[0], q[1], q[2]], fx, fy).or(tri_value([q[1], q[3], q[2]], fx, fy));
        let Some([u, v]) = uv else { continue };
        let (u, v) = ((u + 0.5).floor() as u16, (v + 0.5).floor() as u16);
        assert_eq!(
            at(&fb, x, y),
            rgb5(u / 2, v / 2, 3),
            "pixel ({x}, {y}) → u {u} v {v}"
        );
        checked += 1;
    }
    assert!(checked >= 5);
}

#[test]
fn stp_texels_blend_only_with_abe_and_colour_zero_is_not_drawn() {
    let vram = gradient_vram();
    let quad = [
        (0, 0, [0, 0]),
        (40, 0, [40, 0]),
        (0, 40, [0, 40]),
        (40, 40, [40, 40]),
    ];
    // ABR 1 (B + F) in TSB bits 6..5.
    let tsb = (2 << 7) | (1 << 5) | 1;
    let mut p = textured(quad, tsb);
    let fb = draw(&[p], &vram);
    assert_eq!(at(&fb, 0, 0), rgb5(0, 0, 3), "STP texel opaque without ABE");
    assert_eq!(
        at(&fb, 1, 0),
        rgb5(10, 20, 30),
        "0x0000 leaves the background"
    );
    p.blend = Some(1);
    let fb = draw(&[p], &vram);
    assert_eq!(at(&fb, 0, 0), rgb5(10, 20, 31), "STP texel: B + F");
    assert_eq!(
        at(&fb, 4, 4),
        rgb5(2, 2, 3),
        "texel without STP stays opaque"
    );
}

/// A TIM at 4 or 8 bits whose CLUT entry i is `rgb5(i % 32, i / 32, 1)`, with index i at
/// texel (i mod width, row).
fn clut_tim(bits8: bool) -> Tim {
    let (w16, per, n) = if bits8 { (8u16, 2, 256) } else { (4, 4, 16) };
    let mut data = Vec::new();
    for row in 0..4u16 {
        for hw in 0..w16 {
            let mut word = 0u16;
            for k in 0..per {
                let index = (row * 3 + hw * per + k) % n;
                word |= index << (k * (16 / per));
            }
            data.push(word);
        }
    }
    Tim {
        version: 0,
        id_reserved: 0,
        pmode: u8::from(bits8),
        flags_reserved: 0,
        clut: Some(Block {
            x: 32,
            y: 300,
            width: n,
            height: 1,
            data: (0..n).map(|i| rgb5(i % 32, i / 32, 1)).collect(),
            extra: vec![],
        }),
        image: Block {
            x: 128,
            y: 0,
            width: w16,
            height: 4,
            data,
            extra: vec![],
        },
        trailing: vec![],
    }
}

#[test]
fn clut_lookup_at_4_and_8_bits() {
    for bits8 in [false, true] {
        let mut vram = Vram::new();
        vram.place_tim(&clut_tim(bits8));
        let quad = [
            (0, 0, [0, 0]),
            (16, 0, [16, 0]),
            (0, 4, [0, 4]),
            (16, 4, [16, 4]),
        ];
        let tsb = (u16::from(bits8) << 7) | 2; // page 2: x 128
        let mut p = textured(quad, tsb);
        p.texture = Texture::Vram {
            page: TexturePage::from_tsb(tsb),
            clut: (32, 300),
        };
        let fb = draw(&[p], &vram);
        let n = if bits8 { 256 } else { 16 };
        for (x, y) in [(1usize, 0usize), (5, 1), (15, 3), (7, 2)] {
            let index = (y as u16 * 3 + x as u16) % n;
            let want = if index == 0 {
                rgb5(10, 20, 30)
            } else {
                rgb5(index % 32, index / 32, 1)
            };
            assert_eq!(
                at(&fb, x, y),
                want,
                "{}-bit texel ({x}, {y}) index {index}",
                if bits8 { 8 } else { 4 }
            );
        }
    }
}

#[test]
fn gouraud_interpolates_the_corner_colours() {
    let mut p = flat(&[(0, 0), (64, 0), (0, 64)], [0; 3], 1);
    p.corners[0].color = [248, 0, 0];
    p.corners[1].color = [0, 248, 0];
    p.corners[2].color = [0, 0, 248];
    p.gouraud = true;
    let fb = draw(&[p], &Vram::new());
    // At (16, 16) the weights are 1/2, 1/4, 1/4: (124, 62, 62) → 5 bits (15, 7, 7).
    assert_eq!(at(&fb, 16, 16), rgb5(15, 7, 7));
    // At (32, 8): 3/8, 1/2, 1/8 → (93, 124, 31) → (11, 15, 3).
    assert_eq!(at(&fb, 32, 8), rgb5(11, 15, 3));
    // The 15-bit output expands as (x << 3) | (x >> 2).
    let rgba = fb.to_rgba();
    let o = (16 * 64 + 16) * 4;
    assert_eq!(
        &rgba[o..o + 4],
        &[(15 << 3) | (15 >> 2), (7 << 3) | 1, (7 << 3) | 1, 255]
    );
}

/// A one-triangle TMD in the z = 0 plane; `clockwise` as seen from the default camera side
/// (−Z), `fce` double-sided.
fn triangle_tmd(clockwise: bool, fce: bool) -> Tmd {
    let mut vertices = ArrayVec::new();
    if clockwise {
        vertices.extend([0u16, 1, 2]);
    } else {
        vertices.extend([0u16, 2, 1]);
    }
    let mut colors = ArrayVec::new();
    colors.push(Rgbx {
        r: 248,
        g: 248,
        b: 248,
        x: 0x21,
    });
    Tmd {
        flags: 0,
        address_base: 0,
        objects: vec![Object {
            vert_top: 0,
            normal_top: 0,
            primitive_top: 0,
            scale: 0,
            vertices: vec![
                SVector {
                    x: -100,
                    y: -100,
                    z: 0,
                    pad: 0,
                },
                SVector {
                    x: 100,
                    y: -100,
                    z: 0,
                    pad: 0,
                },
                SVector {
                    x: 0,
                    y: 100,
                    z: 0,
                    pad: 0,
                },
            ],
            normals: vec![],
            primitives: vec![Primitive {
                olen: 4,
                flag: tmd::flag::LGT | if fce { tmd::flag::FCE } else { 0 },
                mode: 0x21,
                data: PrimitiveData::Polygon(Polygon {
                    colors,
                    vertices,
                    ..Polygon::default()
                }),
            }],
        }],
        gaps: vec![],
    }
}

#[test]
fn back_faces_are_culled_unless_double_sided() {
    let view = View {
        yaw: Some(0.0),
        pitch: 0.0,
        background: [0; 3],
        ..View::default()
    };
    let covered = |t: &Tmd| {
        let (fb, _) = render::render_tmd(t, &Vram::new(), &view);
        fb.pixels.iter().filter(|&&p| p != 0).count()
    };
    let front = covered(&triangle_tmd(true, false));
    assert!(front > 1000, "the clockwise (front) face is drawn: {front}");
    assert_eq!(
        covered(&triangle_tmd(false, false)),
        0,
        "the back face is culled"
    );
    assert_eq!(
        covered(&triangle_tmd(false, true)),
        front,
        "FCE draws the back face"
    );
    // Unlit (LGT) white stays white: 248 → 31 → 255.
    let (fb, _) = render::render_tmd(&triangle_tmd(true, false), &Vram::new(), &view);
    assert_eq!(fb.pixels[128 * 256 + 128], rgb5(31, 31, 31));
}
