//! Writes a synthetic animated MLOD (one P3DM LOD: a grid of points, quads between them, and
//! one `#Animation#` tagg per frame, with a named selection between the frames) for measuring
//! the streaming conversions.
//!
//! `cargo run --release -p retroanim --example synthetic_p3d -- OUT.p3d FRAMES POINTS`
//! (3,000 frames × 5,500 points is about 200 MB).

use retroanim::formats::p3d::{
    self, Bytes, Face, Lod, Mlod, P3d, Point, Signature, SlotBytes, Tagg, TaggData, Text, VertexRef,
};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [out, frames, points] = &args[..] else {
        return Err("usage: synthetic_p3d OUT.p3d FRAMES POINTS".into());
    };
    let model = synthetic(frames.parse()?, points.parse()?);
    std::fs::write(out, p3d::write(&model)?)?;
    Ok(())
}

/// `frames` frames of a waving `points`-point grid, 100 points wide.
fn synthetic(frames: usize, points: usize) -> P3d {
    let width = 100;
    let pos = |i: usize, t: f32| {
        let (x, z) = ((i % width) as f32 * 0.1, (i / width) as f32 * 0.1);
        [x, (x * 3.0 + t * std::f32::consts::TAU).sin() * 0.2, z]
    };
    let v = |p: usize| VertexRef {
        point: p as u32,
        normal: 0,
        uv: [0.0, 0.0],
    };
    let faces = (0..points.saturating_sub(width + 1))
        .filter(|i| i % width != width - 1)
        .map(|i| Face {
            n: 4,
            vertices: [v(i), v(i + width), v(i + width + 1), v(i + 1)].into(),
            unused_slots: SlotBytes::default(),
            flags: 0,
            texture: Text::from("data\\flag_co.paa"),
            texture_padding: Bytes::default(),
            material: Some(Text::from("")),
        })
        .collect::<Vec<_>>();
    let tagg = |name: &str, data| Tagg {
        active: Some(1),
        name: Text::from(name),
        name_padding: Bytes::default(),
        data,
    };
    let mut taggs = Vec::new();
    for k in 0..frames {
        let t = if frames > 1 {
            k as f32 / (frames - 1) as f32
        } else {
            0.0
        };
        taggs.push(tagg(
            "#Animation#",
            TaggData::Animation {
                time: t,
                positions: (0..points).map(|i| pos(i, t)).collect(),
            },
        ));
        if k == frames / 2 {
            taggs.push(tagg(
                "cloth",
                TaggData::Selection {
                    points: Bytes(vec![1; points]),
                    faces: Bytes(vec![0; faces.len()]),
                },
            ));
        }
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
            points: (0..points)
                .map(|i| Point {
                    pos: pos(i, 0.0),
                    flags: 0,
                })
                .collect(),
            normals: vec![[0.0, -1.0, 0.0]],
            faces,
            taggs,
            resolution: 1.0,
        }],
        trailing: Bytes::default(),
    })
}
