//! Crafted scenes that once made authoring quadratic: a glTF node chain tens of thousands deep,
//! as many animated nodes side by side, and one channel of a hundred thousand keys. Each one
//! authors to TOD and HMD (or stops at the format's own limit with an exact error) in time
//! linear in its size: the parent walks, the channel lookups per node and the key search per
//! sample are each done once. Quadratic versions took minutes to hours here, so the test is its
//! own guard (no timing is asserted: a regression shows as a test that does not finish).

use base64::Engine as _;
use retroanim::convert::{convert_bytes, Options};
use retroanim::Format;

/// A glTF (JSON, buffer embedded) of `n` nodes, chained (each the child of the one before) or
/// side by side, each with a `keys`-key LINEAR translation channel.
fn scene(n: usize, keys: usize, chained: bool) -> Vec<u8> {
    let times: Vec<f32> = (0..keys).map(|i| i as f32 / 60.0).collect();
    let mut buf: Vec<u8> = times.iter().flat_map(|t| t.to_le_bytes()).collect();
    let time_len = buf.len();
    for i in 0..keys {
        for v in [0.01 * i as f32, 0.0, 0.0] {
            buf.extend_from_slice(&v.to_le_bytes());
        }
    }
    let nodes: Vec<serde_json::Value> = (0..n)
        .map(|i| {
            let mut node =
                serde_json::json!({"name": format!("n{i}"), "translation": [0.0, 0.001, 0.0]});
            if chained && i + 1 < n {
                node["children"] = serde_json::json!([i + 1]);
            }
            node
        })
        .collect();
    let roots: Vec<usize> = if chained { vec![0] } else { (0..n).collect() };
    let channels: Vec<serde_json::Value> = (0..n)
        .map(|i| serde_json::json!({"sampler": 0, "target": {"node": i, "path": "translation"}}))
        .collect();
    let gltf = serde_json::json!({
        "asset": {"version": "2.0"},
        "scene": 0,
        "scenes": [{"nodes": roots}],
        "nodes": nodes,
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": keys, "type": "SCALAR",
             "min": [times[0]], "max": [times[keys - 1]]},
            {"bufferView": 1, "componentType": 5126, "count": keys, "type": "VEC3"}
        ],
        "bufferViews": [
            {"buffer": 0, "byteOffset": 0, "byteLength": time_len},
            {"buffer": 0, "byteOffset": time_len, "byteLength": buf.len() - time_len}
        ],
        "buffers": [{"byteLength": buf.len(), "uri": format!(
            "data:application/octet-stream;base64,{}",
            base64::engine::general_purpose::STANDARD.encode(&buf))}],
        "animations": [{"samplers": [{"input": 0, "output": 1, "interpolation": "LINEAR"}],
                        "channels": channels}]
    });
    serde_json::to_vec(&gltf).expect("json")
}

/// Authors `gltf` to `target`: written, or refused as unencodable at the format's own limit
/// (a TOD frame's size field, an HMD start index), never any other failure.
fn authors(gltf: &[u8], target: Format) -> Option<usize> {
    match convert_bytes(gltf, Some(Format::Gltf), target, &Options::default()) {
        Ok(out) => Some(out.bytes.len()),
        Err(retroanim::Error::Unencodable { .. }) => None,
        Err(e) => panic!("{target:?}: {e}"),
    }
}

#[test]
fn a_chain_thirty_thousand_deep_authors_in_linear_time() {
    let gltf = scene(30_000, 2, true);
    authors(&gltf, Format::Tod);
    authors(&gltf, Format::Hmd);
}

#[test]
fn thirty_thousand_animated_nodes_side_by_side_author_in_linear_time() {
    let gltf = scene(30_000, 2, false);
    authors(&gltf, Format::Tod);
    authors(&gltf, Format::Hmd);
}

#[test]
fn a_channel_of_a_hundred_thousand_keys_authors_in_linear_time() {
    let gltf = scene(1, 100_000, false);
    let tod = authors(&gltf, Format::Tod).expect("one object's 100,000 frames fit a TOD");
    assert!(tod > 100_000 * 4, "a frame per key: {tod} bytes");
    assert!(authors(&gltf, Format::Hmd).is_some());
}
