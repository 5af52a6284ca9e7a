//! glTF → HMD key sampling (issue 38, item 11): one node translated through `n` LINEAR keys,
//! authored as an HMD with default options, at 50,000, 100,000 and 200,000 keys. The time per
//! key should stay flat as the keys double (it was quadratic: 1.2 / 4.4 / 18 s).
//!
//! `cargo bench -p retroanim --bench gltf_keys`. The input is generated here (a GLB); no corpus.

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, SamplingMode, Throughput};
use retroanim::convert::{convert_bytes, Options};
use retroanim::Format;

/// A GLB of one triangle whose node moves through `n` translation keys, 30 per second.
fn keyed(n: usize) -> Vec<u8> {
    let mut bin = Vec::new();
    for v in [0.0f32, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0] {
        bin.extend_from_slice(&v.to_le_bytes());
    }
    for k in 0..n {
        bin.extend_from_slice(&(k as f32 / 30.0).to_le_bytes());
    }
    for k in 0..n {
        let x = ((k % 10) as f32) * 0.1;
        for v in [x, 0.0, 0.0] {
            bin.extend_from_slice(&v.to_le_bytes());
        }
    }
    let last = (n - 1) as f32 / 30.0;
    let doc = serde_json::json!({
        "asset": {"version": "2.0"},
        "scenes": [{"nodes": [0]}],
        "nodes": [{"mesh": 0}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0}}]}],
        "buffers": [{"byteLength": bin.len()}],
        "bufferViews": [
            {"buffer": 0, "byteOffset": 0, "byteLength": 36},
            {"buffer": 0, "byteOffset": 36, "byteLength": n * 4},
            {"buffer": 0, "byteOffset": 36 + n * 4, "byteLength": n * 12},
        ],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3",
             "min": [0.0, 0.0, 0.0], "max": [1.0, 1.0, 0.0]},
            {"bufferView": 1, "componentType": 5126, "count": n, "type": "SCALAR",
             "min": [0.0], "max": [last]},
            {"bufferView": 2, "componentType": 5126, "count": n, "type": "VEC3"},
        ],
        "animations": [{
            "samplers": [{"input": 1, "output": 2, "interpolation": "LINEAR"}],
            "channels": [{"sampler": 0, "target": {"node": 0, "path": "translation"}}],
        }],
    });
    let mut text = serde_json::to_vec(&doc).unwrap();
    while text.len() % 4 != 0 {
        text.push(b' ');
    }
    let total = 12 + 8 + text.len() + 8 + bin.len();
    let mut out = b"glTF".to_vec();
    for w in [2, total as u32, text.len() as u32, 0x4E4F_534A] {
        out.extend_from_slice(&w.to_le_bytes());
    }
    out.extend_from_slice(&text);
    out.extend_from_slice(&(bin.len() as u32).to_le_bytes());
    out.extend_from_slice(&0x004E_4942u32.to_le_bytes());
    out.extend_from_slice(&bin);
    out
}

fn main() {
    let mut c = Criterion::default()
        .configure_from_args()
        .sample_size(10)
        .measurement_time(Duration::from_secs(20));
    let mut g = c.benchmark_group("gltf_to_hmd_keys");
    g.sampling_mode(SamplingMode::Flat);
    for n in [50_000usize, 100_000, 200_000] {
        let glb = keyed(n);
        g.throughput(Throughput::Elements(n as u64));
        g.bench_with_input(BenchmarkId::from_parameter(n), &glb, |b, glb| {
            b.iter(|| black_box(convert_bytes(glb, None, Format::Hmd, &Options::default())))
        });
    }
    g.finish();
    c.final_summary();
}
