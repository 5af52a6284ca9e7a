//! What Blender's glTF add-on does to a GLB retroanim exported (measured with Blender 5.0.1:
//! `docs/blender.md`, "The round trip through Blender"), done here by hand so that it is checked
//! without Blender, and seen through by the import: the file authors back as the untouched GLB
//! does.
//!
//! Done to the GLB, as Blender's import + export does it:
//! - every node's `retroanim` extras become the Python text of the value (what Blender's importer
//!   stores when an ID property cannot hold it: a `null` in a list, an integer past 2³¹);
//! - the animations lose their extras and the one animation is named `Animation`;
//! - each node an animation moves gets the pose of its first key as its transform (Blender has
//!   no rest pose for an animated object);
//! - the nodes are put in reverse order (Blender's exporter orders them its own way);
//! - a channel that holds the rest value is added for every node no animation moves (Blender
//!   keys every bone of an animated armature);
//! - morph-target accessors become sparse (Blender's "Use Sparse Accessor if better").
//!
//! Checked: the TOD (the repository's sample, with its TMD; the janken TOD from the corpus) has
//! the same object IDs, resolution and, at every frame, the same objects, parents, TMD IDs,
//! attribute words and world matrices; the HMDs (SWITCH: joint axes MIMe and shared polygons;
//! AMMONITE: vertex MIMe) have the same coordinates, sequence pointers and, for 240 updates,
//! the same world matrices and MIMe vertices as the HMD authored from the untouched GLB. A
//! sparse accessor replaces its elements, and one whose indices do not increase or pass its
//! count is an error naming it.

mod common;

use common::gltf_read::Gltf;
use retroanim::convert::{self, Options, TodInput};
use retroanim::formats::{hmd, tmd, tod};
use retroanim::{Format, Model};
use serde_json::{json, Value};

/// The JSON and BIN chunks of a GLB.
fn split(glb: &[u8]) -> Gltf {
    let len = u32::from_le_bytes(glb[12..16].try_into().unwrap()) as usize;
    let json = serde_json::from_slice(&glb[20..20 + len]).unwrap();
    let bin = glb.get(20 + len + 8..).unwrap_or_default().to_vec();
    Gltf { json, bin }
}

/// A JSON value as Python's `str()` writes the value Blender's importer got for it.
fn python(v: &Value) -> String {
    match v {
        Value::Null => "None".into(),
        Value::Bool(b) => (if *b { "True" } else { "False" }).into(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => format!(
            "'{}'",
            s.replace('\\', "\\\\")
                .replace('\'', "\\'")
                .replace('\n', "\\n")
        ),
        Value::Array(a) => format!("[{}]", a.iter().map(python).collect::<Vec<_>>().join(", ")),
        Value::Object(o) => format!(
            "{{{}}}",
            o.iter()
                .map(|(k, v)| format!("'{k}': {}", python(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// Appends `bytes` to the BIN chunk as a new buffer view; returns its index.
fn push_view(g: &mut Gltf, bytes: &[u8]) -> usize {
    while g.bin.len() % 4 != 0 {
        g.bin.push(0);
    }
    let views = g.json["bufferViews"].as_array_mut().unwrap();
    views.push(json!({ "buffer": 0, "byteOffset": g.bin.len(), "byteLength": bytes.len() }));
    g.bin.extend_from_slice(bytes);
    views.len() - 1
}

/// Appends a float accessor of `rows`; returns its index.
fn push_floats(g: &mut Gltf, rows: &[Vec<f64>], kind: &str) -> usize {
    let bytes: Vec<u8> = rows
        .iter()
        .flatten()
        .flat_map(|&x| (x as f32).to_le_bytes())
        .collect();
    let view = push_view(g, &bytes);
    let acc =
        json!({ "bufferView": view, "componentType": 5126, "count": rows.len(), "type": kind });
    let list = g.json["accessors"].as_array_mut().unwrap();
    list.push(acc);
    list.len() - 1
}

/// What Blender's import + export does to the GLB (module docs).
fn through_blender(glb: &[u8]) -> Vec<u8> {
    let mut g = split(glb);
    let n = g.json["nodes"].as_array().map_or(0, Vec::len);
    // Extras as Python text.
    for node in g.json["nodes"].as_array_mut().unwrap() {
        if let Some(ns) = node.pointer("/extras/retroanim").cloned() {
            node["extras"]["retroanim"] = json!(python(&ns));
        }
    }
    // Animations: no extras, one named `Animation`; moved nodes at their first key's pose.
    let anims = g.json["animations"].as_array().cloned().unwrap_or_default();
    let mut moved = vec![false; n];
    for (k, a) in anims.iter().enumerate() {
        for c in a["channels"].as_array().unwrap() {
            let node = c["target"]["node"].as_u64().unwrap() as usize;
            let path = c["target"]["path"].as_str().unwrap();
            if path == "weights" {
                continue;
            }
            moved[node] = true;
            let sampler = &a["samplers"][c["sampler"].as_u64().unwrap() as usize];
            let out = g.accessor(sampler["output"].as_u64().unwrap() as usize);
            let cubic = sampler["interpolation"] == "CUBICSPLINE";
            if k == 0 {
                g.json["nodes"][node][path] = json!(out[usize::from(cubic)]);
            }
        }
        g.json["animations"][k]
            .as_object_mut()
            .unwrap()
            .remove("extras");
    }
    if anims.len() == 1 {
        g.json["animations"][0]["name"] = json!("Animation");
    }
    // A still channel for each node no animation moves (with the first animation's times).
    if let Some(input) = anims
        .first()
        .and_then(|a| a["samplers"][0]["input"].as_u64())
    {
        let keys = g.accessor(input as usize).len();
        for node in (0..n).filter(|&i| !moved[i]) {
            let t = g.json["nodes"][node]["translation"].clone();
            let t: Vec<f64> = serde_json::from_value(t).unwrap_or(vec![0.0; 3]);
            let output = push_floats(&mut g, &vec![t; keys], "VEC3");
            let a = &mut g.json["animations"][0];
            let sampler = a["samplers"].as_array().unwrap().len();
            a["samplers"]
                .as_array_mut()
                .unwrap()
                .push(json!({ "input": input, "output": output, "interpolation": "LINEAR" }));
            a["channels"].as_array_mut().unwrap().push(
                json!({ "sampler": sampler, "target": { "node": node, "path": "translation" } }),
            );
        }
    }
    // Morph targets as sparse accessors (every third element replaced; the others zero).
    let targets: Vec<usize> = g.json["meshes"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|m| m["primitives"].as_array().unwrap().clone())
        .flat_map(|p| p["targets"].as_array().cloned().unwrap_or_default())
        .filter_map(|t| t["POSITION"].as_u64().map(|a| a as usize))
        .collect();
    for a in targets {
        let rows = g.accessor(a);
        let keep: Vec<usize> = (0..rows.len())
            .filter(|i| i % 3 == 0 || rows[*i].iter().any(|&x| x != 0.0))
            .collect();
        let idx: Vec<u8> = keep
            .iter()
            .flat_map(|&i| (i as u32).to_le_bytes())
            .collect();
        let vals: Vec<u8> = keep
            .iter()
            .flat_map(|&i| rows[i].clone())
            .flat_map(|x| (x as f32).to_le_bytes())
            .collect();
        let (iv, vv) = (push_view(&mut g, &idx), push_view(&mut g, &vals));
        let acc = &mut g.json["accessors"][a];
        acc.as_object_mut().unwrap().remove("bufferView");
        acc["sparse"] = json!({
            "count": keep.len(),
            "indices": { "bufferView": iv, "componentType": 5125 },
            "values": { "bufferView": vv },
        });
    }
    // The nodes in reverse order.
    let new_of = |i: u64| json!(n as u64 - 1 - i);
    let mut nodes = g.json["nodes"].as_array().unwrap().clone();
    nodes.reverse();
    for node in &mut nodes {
        if let Some(c) = node["children"].as_array_mut() {
            for x in c {
                *x = new_of(x.as_u64().unwrap());
            }
        }
    }
    g.json["nodes"] = json!(nodes);
    for s in g.json["scenes"].as_array_mut().unwrap() {
        for x in s["nodes"].as_array_mut().unwrap() {
            *x = new_of(x.as_u64().unwrap());
        }
    }
    let skins = g.json.get_mut("skins").and_then(Value::as_array_mut);
    for s in skins.into_iter().flatten() {
        for x in s["joints"].as_array_mut().unwrap() {
            *x = new_of(x.as_u64().unwrap());
        }
    }
    let anims = g.json.get_mut("animations").and_then(Value::as_array_mut);
    for a in anims.into_iter().flatten() {
        for c in a["channels"].as_array_mut().unwrap() {
            let node = c["target"]["node"].as_u64().unwrap();
            c["target"]["node"] = new_of(node);
        }
    }
    g.json["buffers"][0]["byteLength"] = json!(g.bin.len());
    common::glb::glb(&g.json, &g.bin)
}

/// The structure and poses of a TOD played with its TMD: per frame, each object's (ID, parent,
/// TMD ID, attribute, world).
type TodFrame = Vec<(
    u16,
    Option<u16>,
    Option<u32>,
    u32,
    retroanim::formats::gte::Mat,
)>;

fn tod_frames(glb: &[u8]) -> (u16, Vec<TodFrame>) {
    let out = convert::convert_bytes(glb, None, Format::Tod, &Options::default()).unwrap();
    let t = tod::read(&out.bytes).unwrap();
    let model = out
        .extra
        .iter()
        .find(|e| e.format == Format::Tmd)
        .map(|e| tmd::read(&e.bytes).unwrap());
    let frames = tod::Player::new(&t, model.as_ref())
        .map(|p| {
            let mut f: TodFrame = p
                .objects
                .iter()
                .map(|o| (o.id, o.parent, o.tmd_id, o.attribute, o.world))
                .collect();
            f.sort_by_key(|o| o.0);
            f
        })
        .collect();
    (t.header.resolution, frames)
}

fn tod_seen_through(name: &str, anim: &tod::Tod, model: &tmd::Tmd) {
    let opts = Options {
        tod: TodInput {
            tmd: Some(model.clone()),
            ..TodInput::default()
        },
        ..Options::default()
    };
    let glb = convert::convert(&Model::Tod(anim.clone()), Format::Glb, &opts)
        .unwrap()
        .bytes;
    let (res, want) = tod_frames(&glb);
    let (res2, got) = tod_frames(&through_blender(&glb));
    assert_eq!(res, res2, "{name}: resolution");
    assert_eq!(want.len(), got.len(), "{name}: frames");
    for (f, (a, b)) in want.iter().zip(&got).enumerate() {
        assert_eq!(a, b, "{name}: frame {f}");
    }
    eprintln!(
        "{name}: {} frames of {} objects the same through Blender's changes",
        want.len(),
        want.first().map_or(0, Vec::len)
    );
}

#[test]
fn a_tod_through_blenders_changes_authors_the_same() {
    let samples = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../samples");
    let anim = tod::read(&std::fs::read(samples.join("swing.tod")).unwrap()).unwrap();
    let model = tmd::read(&std::fs::read(samples.join("link.tmd")).unwrap()).unwrap();
    tod_seen_through("swing.tod", &anim, &model);
    if let Some((model, tods)) = common::janken() {
        let (name, anim) = tods
            .iter()
            .find(|(n, _)| n.ends_with("JAANKEN.TOD"))
            .unwrap();
        tod_seen_through(name, anim, &model);
    }
}

/// Per update: every coordinate's world, the MIMe state and the shared vertices.
fn hmd_updates(h: &hmd::Hmd) -> Vec<(Vec<retroanim::formats::gte::Mat>, Value, Value)> {
    let mut p = hmd::Player::new(h, &hmd::PlayOptions::default());
    (0..240)
        .map(|_| {
            p.step().unwrap();
            let f = p.frame();
            let worlds = f.coordinates.iter().map(|c| c.world).collect();
            let shared: Vec<_> = hmd::calculated_vectors(h, &p, &f)
                .into_iter()
                .map(|c| c.vectors)
                .collect();
            (worlds, json!(f.mime), json!(shared))
        })
        .collect()
}

#[test]
fn hmds_through_blenders_changes_author_the_same() {
    let files = common::corpus_files("HMD");
    for suffix in ["COMB/WALKRUN/SWITCH.HMD", "COMB/AMMONITE/AMMONITE.HMD"] {
        let Some((name, path)) = files.iter().find(|(n, _)| n.ends_with(suffix)) else {
            continue;
        };
        let m = hmd::read(&std::fs::read(path).unwrap()).unwrap();
        let glb = convert::convert(&Model::Hmd(m), Format::Glb, &Options::default())
            .unwrap()
            .bytes;
        let author = |glb: &[u8]| {
            let out = convert::convert_bytes(glb, None, Format::Hmd, &Options::default()).unwrap();
            hmd::read(&out.bytes).unwrap()
        };
        let (want, got) = (author(&glb), author(&through_blender(&glb)));
        common::hmd_no_errors(&got, name);
        let pointers = |h: &hmd::Hmd| -> Vec<_> {
            h.animations()
                .iter()
                .flat_map(|a| {
                    a.sequences
                        .iter()
                        .map(|p| (p.update, p.start_sid, p.extra.len()))
                })
                .collect()
        };
        assert_eq!(pointers(&want), pointers(&got), "{name}: sequence pointers");
        assert_eq!(
            hmd::sequence_count(&want),
            hmd::sequence_count(&got),
            "{name}"
        );
        let deltas = |h: &hmd::Hmd| {
            hmd::Player::new(h, &hmd::PlayOptions::default())
                .vertex_mime_deltas()
                .into_iter()
                .map(|t| t.keys)
                .collect::<Vec<_>>()
        };
        assert_eq!(
            deltas(&want),
            deltas(&got),
            "{name}: vertex MIMe differences"
        );
        let (a, b) = (hmd_updates(&want), hmd_updates(&got));
        for (f, (x, y)) in a.iter().zip(&b).enumerate() {
            assert_eq!(x, y, "{name}: update {f}");
        }
        eprintln!("{name}: 240 updates the same through Blender's changes");
    }
}

#[test]
fn python_text_blender_stores_reads_back() {
    // What `str()` of the JSON value gives, as Blender's importer stores it.
    let v = json!({
        "version": 1,
        "tod": { "object": 5, "lives": [[0, null]], "attributes": [[0, 2147483648u64]],
                 "name": "it's \"x\"\n", "on": true, "scale": 0.25, "empty": [] }
    });
    let glb = {
        let mut doc = json!({
            "asset": { "version": "2.0" },
            "scene": 0,
            "scenes": [{ "nodes": [0] }],
            "nodes": [{ "name": "n", "extras": { "retroanim": python(&v), "other": "kept" } }]
        });
        doc["nodes"][0]["extras"]["retroanim"] = json!(python(&v));
        common::glb::glb(&doc, &[])
    };
    let scene = retroanim::import::gltf::read(&glb, &retroanim::Limits::default())
        .unwrap()
        .scene;
    assert_eq!(scene.nodes[0].extras["retroanim"], v);
    assert_eq!(scene.nodes[0].extras["other"], "kept");
}

/// A sparse POSITION accessor: base zeros, `indices` replaced by (i, i, i) each.
fn sparse_triangle(indices: &[u32]) -> Vec<u8> {
    let mut bin: Vec<u8> = indices.iter().flat_map(|i| i.to_le_bytes()).collect();
    let values: Vec<f32> = indices.iter().flat_map(|&i| [i as f32; 3]).collect();
    let at = bin.len();
    bin.extend(common::glb::f32s(&values));
    let doc = json!({
        "asset": { "version": "2.0" },
        "scene": 0,
        "scenes": [{ "nodes": [0] }],
        "nodes": [{ "mesh": 0 }],
        "meshes": [{ "primitives": [{ "attributes": { "POSITION": 0 } }] }],
        "accessors": [{
            "componentType": 5126, "count": 3, "type": "VEC3",
            "sparse": {
                "count": indices.len(),
                "indices": { "bufferView": 0, "componentType": 5125 },
                "values": { "bufferView": 1 }
            }
        }],
        "bufferViews": [
            { "buffer": 0, "byteLength": at },
            { "buffer": 0, "byteOffset": at, "byteLength": values.len() * 4 }
        ],
        "buffers": [{ "byteLength": bin.len() }]
    });
    common::glb::glb(&doc, &bin)
}

#[test]
fn sparse_accessors_replace_their_elements_and_are_checked() {
    let limits = retroanim::Limits::default();
    let read = |idx: &[u32]| retroanim::import::gltf::read(&sparse_triangle(idx), &limits);
    let scene = read(&[0, 2]).unwrap().scene;
    assert_eq!(
        scene.meshes[0].primitives[0].positions,
        vec![[0.0; 3], [0.0; 3], [2.0; 3]]
    );
    for (bad, why) in [
        (&[2u32, 1][..], "must increase"),
        (&[0, 3][..], "element 3 of an accessor of 3"),
        (&[0, 1, 2, 2][..], "4 elements of an accessor of 3"),
    ] {
        let e = read(bad).unwrap_err().to_string();
        assert!(
            e.contains("accessors[0].sparse") && e.contains(why),
            "{bad:?}: {e}"
        );
    }
}
