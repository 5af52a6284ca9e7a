//! RTM speed: a 100-frame, 60-bone animation read, written, and converted to GLB (issue 41
//! asks ≤ 5 ms each), beside a plain copy of the same bytes for scale.
//!
//! `cargo bench -p retroanim --bench rtm`.

use std::hint::black_box;

use criterion::{Criterion, Throughput};
use retroanim::convert::{self, Options};
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
        bones,
        frames,
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
    g.finish();
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    bench(&mut c);
    c.final_summary();
}
