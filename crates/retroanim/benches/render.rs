//! The console renderer: one 256×256 frame of a 3,000-triangle textured, lit, Gouraud-shaded
//! model (a sphere of GT3 packets built here, sampling an 8-bit TIM page in VRAM).
//!
//! `cargo bench -p retroanim --bench render`. `draw` is the frame (RTPS, lighting, ordering
//! table, rasterizing); `render_tmd` adds the default camera's choice of yaw (four more passes
//! of projection and culling, without rasterizing).
//!
//! Measured 2026-12-04 on the shared 2-core machine (another build running): `draw` 1.27 ms
//! (target ≤ 2 ms), `render_tmd` 1.96 ms; 14,884 of 65,536 pixels covered.

use std::hint::black_box;

use criterion::Criterion;
use retroanim::formats::gte::Mat;
use retroanim::formats::tim::{Block, Tim};
use retroanim::formats::tmd::{
    ArrayVec, Object, Polygon, Primitive, PrimitiveData, SVector, Tmd, Uv,
};
use retroanim::render::{self, Camera, View};
use retroanim::vram::Vram;

const LAT: usize = 30;
const LON: usize = 50;

fn sphere() -> Tmd {
    let mut vertices = Vec::new();
    for i in 0..=LAT {
        let th = std::f64::consts::PI * i as f64 / LAT as f64;
        for j in 0..LON {
            let ph = std::f64::consts::TAU * j as f64 / LON as f64;
            let p = [th.sin() * ph.cos(), -th.cos(), th.sin() * ph.sin()];
            vertices.push(p);
        }
    }
    let sv = |p: [f64; 3], k: f64| SVector {
        x: (p[0] * k) as i16,
        y: (p[1] * k) as i16,
        z: (p[2] * k) as i16,
        pad: 0,
    };
    let mut primitives = Vec::new();
    let at = |i: usize, j: usize| (i * LON + j % LON) as u16;
    for i in 0..LAT {
        for j in 0..LON {
            for tri in [
                [at(i, j), at(i + 1, j), at(i, j + 1)],
                [at(i, j + 1), at(i + 1, j), at(i + 1, j + 1)],
            ] {
                let mut uvs = ArrayVec::new();
                for (k, &v) in tri.iter().enumerate() {
                    let (vi, vj) = (v as usize / LON, v as usize % LON);
                    uvs.push(Uv {
                        u: (vj * 255 / LON) as u8,
                        v: (vi * 255 / LAT) as u8,
                        extra: match k {
                            0 => 480 << 6,     // CBA: CLUT at (0, 480)
                            1 => (1 << 7) | 5, // TSB: 8-bit, page 5
                            _ => 0,
                        },
                    });
                }
                primitives.push(Primitive {
                    olen: 9,
                    flag: 0,
                    mode: 0x34,
                    data: PrimitiveData::Polygon(Polygon {
                        uvs,
                        normals: tri.into_iter().collect(),
                        vertices: tri.into_iter().collect(),
                        ..Polygon::default()
                    }),
                });
            }
        }
    }
    Tmd {
        flags: 0,
        address_base: 0,
        objects: vec![Object {
            vert_top: 0,
            normal_top: 0,
            primitive_top: 0,
            scale: 0,
            vertices: vertices.iter().map(|&p| sv(p, 1000.0)).collect(),
            normals: vertices.iter().map(|&p| sv(p, 4096.0)).collect(),
            primitives,
        }],
        gaps: vec![],
    }
}

fn texture() -> Tim {
    Tim {
        version: 0,
        id_reserved: 0,
        pmode: 1,
        flags_reserved: 0,
        clut: Some(Block {
            x: 0,
            y: 480,
            width: 256,
            height: 1,
            data: (0..256u16)
                .map(|i| 0x8000 | (i & 31) | ((i >> 3) << 5))
                .collect(),
            extra: vec![],
        }),
        image: Block {
            x: 320,
            y: 0,
            width: 128,
            height: 256,
            data: (0..128 * 256u32)
                .map(|i| (i.wrapping_mul(2654435761u32) >> 16) as u16)
                .collect(),
            extra: vec![],
        },
        trailing: vec![],
    }
}

fn main() {
    let tmd = sphere();
    let mut vram = Vram::new();
    vram.place_tim(&texture());
    let view = View {
        yaw: Some(45.0),
        ..View::default()
    };
    let shown = [(0usize, Mat::IDENTITY)];
    let bounds = render::tmd_bounds(&tmd, &shown).unwrap();
    let camera = Camera::frame(bounds, &view);
    let (fb, _) = render::draw_tmd(&tmd, &shown, &vram, &camera, &view);
    let covered = fb.pixels.iter().filter(|&&p| p != 0x2108).count();
    eprintln!("{} triangles, {covered} pixels drawn", tmd.triangle_count());
    let mut c = Criterion::default().configure_from_args();
    c.bench_function("draw 256x256, 3000 GT3", |b| {
        b.iter(|| black_box(render::draw_tmd(&tmd, &shown, &vram, &camera, &view)))
    });
    c.bench_function("render_tmd (auto yaw) 256x256, 3000 GT3", |b| {
        let auto = View::default();
        b.iter(|| black_box(render::render_tmd(&tmd, &vram, &auto)))
    });
    c.final_summary();
}
