//! TMD + VDF/NDF (Sony's TMDVIEW MIME sample) → glTF morph targets and back: at weight 1.0
//! the glTF's key k is exactly the variant TMD MIMEFILT made key k from, the Khronos validator
//! accepts the file, and the glTF's targets author back the sample's VDF and NDF byte for byte.

mod common;

use common::gltf_read::Gltf;
use retroanim::convert::{self, Options};
use retroanim::formats::{mime, tmd};
use retroanim::{Format, Limits};

const DIR: &str = "3.6/PSX/SAMPLE/GRAPHICS/TMDVIEW/MIME/";

fn file(kind: &str, name: &str) -> Option<Vec<u8>> {
    let p = common::corpus_file(kind, &format!("{DIR}{name}"))?;
    Some(std::fs::read(p).unwrap())
}

fn tmd_at(name: &str) -> Option<tmd::Tmd> {
    Some(tmd::read(&file("TMD", name)?).unwrap())
}

fn diff(kind: &str, format: Format) -> Option<(Vec<u8>, mime::Diff)> {
    let bytes = file(kind, &format!("MD0.{kind}"))?;
    let d = mime::read_with(&bytes, format, &Limits::default()).unwrap();
    Some((bytes, d))
}

/// The sample exported with its VDF and NDF, as a `.gltf`.
fn export(opts: &mut Options) -> Option<(retroanim::convert::Conversion, tmd::Tmd)> {
    let base = tmd_at("MD0.TMD")?;
    opts.mime.vdf = Some(diff("VDF", Format::Vdf)?.1);
    opts.mime.ndf = Some(diff("NDF", Format::Ndf)?.1);
    let c = convert::convert(&retroanim::Model::Tmd(base.clone()), Format::Gltf, opts).unwrap();
    Some((c, base))
}

/// Every POSITION of every primitive of mesh `m`, with target `t` added when given.
fn positions(g: &Gltf, m: usize, t: Option<usize>) -> Vec<[f32; 3]> {
    let prims = g.json["meshes"][m]["primitives"].as_array().unwrap();
    let mut out = Vec::new();
    for p in prims {
        let base = g.accessor(p["attributes"]["POSITION"].as_u64().unwrap() as usize);
        let delta = t.map(|t| g.accessor(p["targets"][t]["POSITION"].as_u64().unwrap() as usize));
        for (i, b) in base.iter().enumerate() {
            let d = delta.as_ref().map_or([0.0; 3], |d| {
                [d[i][0] as f32, d[i][1] as f32, d[i][2] as f32]
            });
            // Weight 1.0: base + displacement, in float32 as a viewer adds them.
            out.push([0, 1, 2].map(|a| b[a] as f32 + d[a]));
        }
    }
    out
}

#[test]
fn each_morph_target_at_weight_one_is_its_variant_tmd() {
    let Some((c, base)) = export(&mut Options::default()) else {
        return;
    };
    assert!(c.notes.is_empty(), "{:?}", c.notes);
    let g = Gltf::parse(&c.bytes);
    let names = &g.json["meshes"][0]["extras"]["targetNames"];
    assert_eq!(
        names,
        &serde_json::json!(["key 0", "key 1", "key 2", "key 3"])
    );
    let (_, vdf) = diff("VDF", Format::Vdf).unwrap();
    // The console's +Y-down axes at 4096 units per metre, as the export's default.
    let scene = |v: &tmd::SVector| {
        [
            v.x as f32 / 4096.0,
            -(v.y as f32) / 4096.0,
            -(v.z as f32) / 4096.0,
        ]
    };
    let xyz = |v: &tmd::SVector| [v.x, v.y, v.z];
    // Each exported vertex shows one MD0 vertex: found by its base position (the sample's
    // vertices are distinct points).
    let verts = &base.objects[0].vertices;
    let mut at = std::collections::HashMap::new();
    for (i, v) in verts.iter().enumerate() {
        assert!(
            at.insert(scene(v).map(f32::to_bits), i).is_none(),
            "vertex {i} repeats a point"
        );
    }
    let rest = positions(&g, 0, None);
    let shows: Vec<usize> = rest.iter().map(|p| at[&p.map(f32::to_bits)]).collect();
    let all: Vec<Vec<tmd::SVector>> = base.objects.iter().map(|o| o.vertices.clone()).collect();
    for k in 0..4 {
        let Some(variant) = tmd_at(&format!("MD{}.TMD", k + 1)) else {
            return;
        };
        let mut w = vec![0; 4];
        w[k] = 4096;
        let played = mime::play(&vdf, &all, &w);
        let got = positions(&g, 0, Some(k));
        for (i, (p, &v)) in got.iter().zip(&shows).enumerate() {
            // Weight 1.0 in float32 is the console's play at 4096, which is MD(k+1).TMD.
            assert_eq!(
                *p,
                scene(&played[0][v]),
                "key {k}, glTF vertex {i} (TMD vertex {v})"
            );
            assert_eq!(xyz(&played[0][v]), xyz(&variant.objects[0].vertices[v]));
        }
        assert_ne!(got, rest, "key {k} moves the model");
        // The NDF's differences ride along as target normals.
        let p = &g.json["meshes"][0]["primitives"][0]["targets"][k]["NORMAL"];
        let n = g.accessor(p.as_u64().expect("target NORMAL") as usize);
        assert!(n.iter().any(|v| v.iter().any(|&c| c != 0.0)), "key {k}");
    }
    let dir = std::env::temp_dir().join(format!("retroanim-mime-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("md0_mime.gltf");
    std::fs::write(&path, &c.bytes).unwrap();
    common::assert_khronos_clean(&path);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn vdf_and_ndf_author_back_from_the_gltf_byte_for_byte() {
    let Some((c, base)) = export(&mut Options::default()) else {
        return;
    };
    let opts = Options {
        tod: convert::TodInput {
            tmd: Some(base),
            ..Default::default()
        },
        ..Options::default()
    };
    for (kind, format) in [("VDF", Format::Vdf), ("NDF", Format::Ndf)] {
        let (bytes, _) = diff(kind, format).unwrap();
        let back = convert::convert_bytes(&c.bytes, None, format, &opts).unwrap();
        assert!(back.notes.is_empty(), "{kind}: {:?}", back.notes);
        assert_eq!(
            back.bytes, bytes,
            "{kind} after TMD + {kind} → glTF → {kind}"
        );
    }
    // Without its base the differences cannot be placed.
    match convert::convert_bytes(&c.bytes, None, Format::Vdf, &Options::default()) {
        Err(retroanim::Error::Option { option: "tmd", .. }) => {}
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_weights_sequence_becomes_a_weights_animation() {
    let frames =
        convert::mime::weights_from_json(b"[[0,0,0,0],[2048,0,0,0],[4096,0,0,0],[0,0,0,4096]]")
            .unwrap();
    let mut opts = Options::default();
    opts.mime.weights = Some(frames);
    opts.timing.fps = Some(30.0);
    let Some((c, _)) = export(&mut opts) else {
        return;
    };
    let g = Gltf::parse(&c.bytes);
    let ch = &g.json["animations"][0]["channels"][0];
    assert_eq!(ch["target"]["path"], "weights");
    let s = &g.json["animations"][0]["samplers"][0];
    let times = g.accessor(s["input"].as_u64().unwrap() as usize);
    assert_eq!(times.len(), 4);
    assert!(
        (times[3][0] - 0.1).abs() < 1e-6,
        "frame 3 at 30 fps: {times:?}"
    );
    let w: Vec<f64> = g
        .accessor(s["output"].as_u64().unwrap() as usize)
        .into_iter()
        .flatten()
        .collect();
    assert_eq!(&w[4..8], &[0.5, 0.0, 0.0, 0.0]);
    assert_eq!(&w[12..16], &[0.0, 0.0, 0.0, 1.0]);
    // The half weight is one the console floors: said in a note.
    assert!(
        c.notes.iter().any(|n| n.code == "mime-weights-linear"),
        "{:?}",
        c.notes
    );
    // Not JSON frames of integers: the file is blamed.
    assert!(convert::mime::weights_from_json(b"{\"weights\": 1}").is_err());
}

#[test]
fn mime_options_apply_only_where_they_are_read() {
    let Some(base) = tmd_at("MD0.TMD") else {
        return;
    };
    let Some((_, d)) = diff("VDF", Format::Vdf) else {
        return;
    };
    let model = retroanim::Model::Tmd(base);
    let mut opts = Options::default();
    opts.mime.vdf = Some(d.clone());
    // TMD → PMD reads no differences.
    match convert::convert(&model, Format::Pmd, &opts) {
        Err(retroanim::Error::Option { option: "vdf", .. }) => {}
        other => panic!("{other:?}"),
    }
    // Weights without differences, and --fps without weights.
    let mut w = Options::default();
    w.mime.weights = Some(vec![vec![4096]]);
    assert!(matches!(
        convert::convert(&model, Format::Glb, &w),
        Err(retroanim::Error::Option {
            option: "mime-weights",
            ..
        })
    ));
    let mut f = opts.clone();
    f.timing.fps = Some(30.0);
    assert!(matches!(
        convert::convert(&model, Format::Glb, &f),
        Err(retroanim::Error::Option { option: "fps", .. })
    ));
    // A frame of the wrong length.
    let mut short = opts.clone();
    short.mime.weights = Some(vec![vec![0; 4], vec![0; 3]]);
    match convert::convert(&model, Format::Glb, &short) {
        Err(retroanim::Error::Option {
            option: "mime-weights",
            what,
        }) => {
            assert!(what.contains("frame 1 has 3 weights"), "{what}")
        }
        other => panic!("{other:?}"),
    }
    // A block past the base's vertices is refused with the VDF's offset.
    let mut far = d;
    far.blocks[0].offset = 1000;
    opts.mime.vdf = Some(far);
    match convert::convert(&model, Format::Glb, &opts) {
        Err(retroanim::Error::Malformed {
            format: Format::Vdf,
            offset: 8,
            ..
        }) => {}
        other => panic!("{other:?}"),
    }
}
