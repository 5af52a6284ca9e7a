//! RTM speed: a 100-frame, 60-bone animation read, written, and converted to GLB (issue 41
//! asks ≤ 5 ms each), beside a plain copy of the same bytes for scale; and the same converted
//! with a P3D to skin (`--p3d`: 60 boxes, one per bone, 480 points).
//!
//! `cargo bench -p retroanim --bench rtm`.

use std::hint::black_box;

use criterion::{Criterion, Throughput};
use retroanim::convert::{self, Options};
use retroanim::formats::p3d::{self, P3d};
use retroanim::formats::rtm::{self, BoneTransform, Frame, Mlod, Name32, Rtm};
use retroanim::{Format, Model};

/// 100 frames of 60 bones, each turning about its own axis and drifting, with a little shear
/// on every fifth bone (as the corpus's exporters leave).
fn animation() -> Rtm {
    let bones: Vec<Name32> = (0..60).map(|b| Name32::new(format!("bone{b}"))).collect();
    let frames = (0..100)
        .map(|f| {
            let phase = f as f32 / 99.0;
            Frame {
                phase,
                transforms: bones
                    .iter()
                    .enumerate()
                    .map(|(b, n)| {
                        let a = phase * 3.0 + b as f32 * 0.1;
                        let (s, c) = a.sin_cos();
                        let shear = if b % 5 == 0 { 0.004 } else { 0.0 };
                        BoneTransform {
                            bone: n.clone(),
                            matrix: [
                                c,
                                shear,
                                -s,
                                0.0,
                                1.0,
                                0.0,
                                s,
                                0.0,
                                c,
                                b as f32 * 0.01,
                                phase,
                                0.0,
                            ],
                        }
                    })
                    .collect(),
            }
        })
        .collect();
    Rtm::Mlod(Mlod {
        mdat: None,
        displacement: [0.0, 0.0, 1.0],
        v0100: false,
        bones,
        frames,
    })
}

/// An MLOD of 60 boxes (8 points, 6 quads), box `b` in the named selection `bone{b}`.
fn boxes() -> P3d {
    use p3d::{Bytes, Face, Lod, Point, SlotBytes, Tagg, TaggData, Text, VertexRef};
    let tagg = |name: String, data| Tagg {
        active: Some(1),
        name: Text::from(name.as_str()),
        name_padding: Bytes::default(),
        data,
    };
    let (nb, np) = (60usize, 480usize);
    let mut points = Vec::with_capacity(np);
    let mut faces = Vec::new();
    let mut taggs = Vec::new();
    for b in 0..nb {
        let base = points.len() as u32;
        for k in 0..8 {
            let s = |bit: usize| if k & bit != 0 { 0.05 } else { -0.05 };
            points.push(Point {
                pos: [b as f32 * 0.01 + s(1), s(2), s(4)],
                flags: 0,
            });
        }
        for q in [
            [0, 1, 3, 2],
            [4, 6, 7, 5],
            [0, 4, 5, 1],
            [2, 3, 7, 6],
            [0, 2, 6, 4],
            [1, 5, 7, 3],
        ] {
            faces.push(Face {
                n: 4,
                vertices: q
                    .iter()
                    .map(|&i| VertexRef {
                        point: base + i,
                        normal: 0,
                        uv: [0.0, 0.0],
                    })
                    .collect(),
                unused_slots: SlotBytes::default(),
                flags: 0,
                texture: Text::from(""),
                texture_padding: Bytes::default(),
                material: Some(Text::from("")),
            });
        }
    }
    for b in 0..nb {
        let mut sel = vec![0u8; np];
        sel[8 * b..8 * b + 8].fill(1);
        let data = TaggData::Selection {
            points: Bytes(sel),
            faces: Bytes(vec![0; faces.len()]),
        };
        taggs.push(tagg(format!("bone{b}"), data));
    }
    taggs.push(tagg("#EndOfFile#".into(), TaggData::EndOfFile));
    P3d::Mlod(p3d::Mlod {
        version: 0x101,
        lods: vec![Lod {
            signature: p3d::Signature::P3dm,
            header_size: 28,
            version: 0x100,
            flags: 0,
            header_extra: Bytes::default(),
            points,
            normals: vec![[0.0, 1.0, 0.0]],
            faces,
            taggs,
            resolution: 1.0,
        }],
        trailing: Bytes::default(),
    })
}

fn bench(c: &mut Criterion) {
    let rtm = animation();
    let bytes = rtm::write(&rtm).unwrap();
    let model = Model::Rtm(rtm.clone());
    let mut g = c.benchmark_group("rtm 100 frames x 60 bones");
    g.throughput(Throughput::Bytes(bytes.len() as u64));
    g.bench_function("copy (baseline)", |b| b.iter(|| black_box(bytes.clone())));
    g.bench_function("read", |b| b.iter(|| rtm::read(black_box(&bytes)).unwrap()));
    g.bench_function("write", |b| b.iter(|| rtm::write(black_box(&rtm)).unwrap()));
    g.bench_function("convert to glb", |b| {
        b.iter(|| convert::convert(black_box(&model), Format::Glb, &Options::default()).unwrap())
    });
    // The conversion's parts: validation (refused when invalid), the scene, the GLB writer.
    let mlod = match &rtm {
        Rtm::Mlod(m) => m.clone(),
        Rtm::Bmtr(_) => unreachable!("built editable"),
    };
    g.bench_function("part: validate", |b| {
        b.iter(|| black_box(&model).validate())
    });
    g.bench_function("part: scene", |b| {
        b.iter(|| rtm::to_scene(black_box(&mlod), &rtm::SceneOptions::default()).unwrap())
    });
    let (scene, _) = rtm::to_scene(&mlod, &rtm::SceneOptions::default()).unwrap();
    g.bench_function("part: glb writer", |b| {
        b.iter(|| retroanim::export::gltf::write(black_box(&scene), Format::Glb).unwrap())
    });
    let skinned = Options {
        rtm: convert::RtmInput {
            skeletons: None,
            p3d: Some(boxes()),
            ..Default::default()
        },
        ..Options::default()
    };
    g.bench_function("convert to glb with a 60-box P3D", |b| {
        b.iter(|| convert::convert(black_box(&model), Format::Glb, &skinned).unwrap())
    });
    g.finish();
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    bench(&mut c);
    c.final_summary();
}
