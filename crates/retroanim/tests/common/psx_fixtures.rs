//! Hand-built PlayStation fixtures the tests share: a one-triangle TMD and a small 4-bit TIM.

use retroanim::formats::{tim, tmd};

/// A one-triangle TMD with `flag` (LGT, FCE) and `mode`, textured at TSB `tsb` when `mode`
/// has TME (0x04).
pub fn triangle_tmd(flag: u8, mode: u8, tsb: u16) -> tmd::Tmd {
    use tmd::*;
    let v = |x, y, z| SVector { x, y, z, pad: 0 };
    let textured = mode & 0x04 != 0;
    let lit = flag & 1 == 0;
    let uvs = if textured {
        [(0, 0, 0x7800), (3, 0, tsb), (0, 1, 0)]
            .map(|(u, v, extra)| Uv { u, v, extra })
            .into_iter()
            .collect()
    } else {
        Default::default()
    };
    let mut m = Tmd {
        flags: 0,
        address_base: 0,
        objects: vec![Object {
            vert_top: 0,
            normal_top: 0,
            primitive_top: 0,
            scale: 0,
            vertices: vec![v(0, 0, 0), v(0, -100, 0), v(100, 0, 0)],
            normals: vec![v(0, 0, -4096)],
            primitives: vec![Primitive {
                olen: 0,
                flag,
                mode,
                data: PrimitiveData::Polygon(Polygon {
                    colors: if textured && lit {
                        Default::default()
                    } else {
                        [Rgbx {
                            r: 128,
                            g: 64,
                            b: 32,
                            x: 0,
                        }]
                        .into_iter()
                        .collect()
                    },
                    uvs,
                    normals: if lit {
                        [0].into_iter().collect()
                    } else {
                        Default::default()
                    },
                    vertices: [0, 1, 2].into_iter().collect(),
                    pad: 0,
                }),
            }],
        }],
        gaps: vec![],
    };
    m.pack();
    m
}

/// A 4-bit TIM at VRAM (640, 0) with texels 0 (transparent), 1 (STP set) and 2 (opaque).
pub fn clut_tim() -> tim::Tim {
    tim::Tim {
        version: 0,
        id_reserved: 0,
        pmode: 0,
        flags_reserved: 0,
        clut: Some(tim::Block {
            x: 0,
            y: 480,
            width: 16,
            height: 1,
            data: (0..16)
                .map(|i| match i {
                    0 => 0,
                    1 => 0x801F,
                    _ => 0x7FFF,
                })
                .collect(),
            extra: vec![],
        }),
        image: tim::Block {
            x: 640,
            y: 0,
            width: 1,
            height: 2,
            data: vec![0x2210, 0x2222],
            extra: vec![],
        },
        trailing: vec![],
    }
}
