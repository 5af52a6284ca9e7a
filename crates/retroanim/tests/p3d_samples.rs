//! `samples/flag.p3d` is made by the project itself: this test rebuilds it with the library's
//! own MLOD writer and checks the committed copy is identical (`UPDATE_SAMPLES=1` rewrites it).

mod common;

use common::samples::{check_sample, sine_4096};
use retroanim::formats::p3d::{
    self, Bytes, Face, Lod, Mlod, P3d, Point, Signature, SlotBytes, Tagg, TaggData, Text, VertexRef,
};

const COLS: u32 = 6;
const ROWS: u32 = 4;
const FRAMES: u32 = 9;

/// The flag's points for a phase step (`None`: the rest pose): a 1 m × 0.6 m cloth on the
/// x/y plane hanging from a pole at x = 0, a wave running along x in z.
fn points(step: Option<u32>) -> Vec<[f32; 3]> {
    let mut out = Vec::new();
    for r in 0..ROWS {
        for c in 0..COLS {
            let x = c as f32 * 0.2;
            let y = 2.0 - r as f32 * 0.2;
            let z = match step {
                None => 0.0,
                // Amplitude grows away from the pole; one wave length over the cloth.
                Some(s) => {
                    let phase = (c as i64) * 8 - (s as i64) * 16 * 4 / (FRAMES as i64 - 1);
                    (c as f32 * 0.03) * sine_4096(phase, 64) as f32 / 4096.0
                }
            };
            out.push([x, y, z]);
        }
    }
    out
}

/// A 6 × 4 point flag (15 quads) with nine `#Animation#` frames of a wave, phases 0..1.
fn waving_flag() -> P3d {
    let rest = points(None);
    let pts: Vec<Point> = rest.iter().map(|&pos| Point { pos, flags: 0 }).collect();
    let mut faces = Vec::new();
    for r in 0..ROWS - 1 {
        for c in 0..COLS - 1 {
            let i = r * COLS + c;
            let v = |p: u32| VertexRef {
                point: p,
                normal: 0,
                uv: [
                    (p % COLS) as f32 / (COLS - 1) as f32,
                    (p / COLS) as f32 / (ROWS - 1) as f32,
                ],
            };
            // MLOD order: the reverse of the engine's clockwise order, seen from the front (-z).
            faces.push(Face {
                n: 4,
                vertices: [v(i), v(i + COLS), v(i + COLS + 1), v(i + 1)].into(),
                unused_slots: SlotBytes::default(),
                flags: 0,
                texture: Text::from("samples\\flag_co.paa"),
                texture_padding: Bytes::default(),
                material: Some(Text::from("samples\\flag.rvmat")),
            });
        }
    }
    let nf = faces.len();
    let tagg = |name: &str, data: TaggData| Tagg {
        active: Some(1),
        name: Text::from(name),
        name_padding: Bytes::default(),
        data,
    };
    let mut taggs = vec![tagg(
        "pole_side",
        TaggData::Selection {
            points: Bytes((0..ROWS * COLS).map(|p| (p % COLS == 0) as u8).collect()),
            faces: Bytes(vec![0; nf]),
        },
    )];
    for s in 0..FRAMES {
        taggs.push(tagg(
            "#Animation#",
            TaggData::Animation {
                time: s as f32 / (FRAMES - 1) as f32,
                positions: points(Some(s)),
            },
        ));
    }
    taggs.push(tagg("#EndOfFile#", TaggData::EndOfFile));
    P3d::Mlod(Mlod {
        version: 0x101,
        lods: vec![Lod {
            signature: Signature::P3dm,
            header_size: 28,
            version: 0x100,
            flags: 0,
            header_extra: Bytes::default(),
            points: pts,
            // Stored normals point like the edges' cross product (inwards), as in real files.
            normals: vec![[0.0, 0.0, 1.0]],
            faces,
            taggs,
            resolution: 1.0,
        }],
        trailing: Bytes::default(),
    })
}

#[test]
fn flag_sample_is_up_to_date() {
    let bytes = p3d::write(&waving_flag()).unwrap();
    check_sample("flag.p3d", &bytes);
    let model = p3d::read(&bytes).unwrap();
    assert_eq!(model.frames(0).len(), FRAMES as usize);
    assert!(
        p3d::validate(&model).is_empty(),
        "{:?}",
        p3d::validate(&model)
    );
}
