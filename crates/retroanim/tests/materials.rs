//! Materials of the PlayStation glTF exports, from hand-built TMD and HMD primitives, one flag
//! at a time: double-sided (TMD FCE, HMD driver BOT) → `doubleSided`; semi-transparent (TMD
//! ABE, HMD driver STP or the GPU code's ABE bit) → `BLEND` at the alpha nearest the rate;
//! unlit (TMD LGT, HMD driver LGT) → `KHR_materials_unlit`; vertex colours times the texture.
//! Checked in the glTF JSON and, where `bpy` imports, in Blender's materials (backface
//! culling, blend mode, emission shader for unlit: `tests/blender/check_materials.py`).

mod common;

use common::psx_fixtures::{clut_tim, triangle_tmd};
use retroanim::convert::{convert_bytes, Options};
use retroanim::formats::{tim, tmd};
use retroanim::Format;
use serde_json::Value;

/// A one-triangle HMD (as `retroanim-cli/tests/hmd_cli.rs` builds it, File Formats p. 2-50 ff.)
/// whose polygon primitive has type `type_code` and whose packet is `packet` (3 words).
fn triangle_hmd(type_code: u32, packet: [u32; 3]) -> Vec<u8> {
    let mut w: Vec<u32> = vec![0x50, 0, 28, 3, 0, 34, 0, 1];
    w.extend([0, 4096, 0, 4096, 0, 4096, 0, (-100i32) as u32, 0]);
    w.extend([0; 8]);
    w.extend([0, 0, 0]);
    w.extend([
        1,
        4,
        0x8000_0000 | 40,
        0x8000_0000 | 43,
        0x8000_0000 | 49,
        0x8000_0000 | 7,
    ]);
    w.extend([0xFFFF_FFFF, 29, 0x8000_0001, type_code, 0x8001_0002, 0]);
    w.extend(packet);
    w.extend([0, 0, 100, 0, 0x0064_0000, 0, 0x1000_0000, 0]);
    assert_eq!(w.len(), 51);
    w.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// Lit flat triangle: red, code `code`, normal 0 / vertex 0, vertices 1 and 2.
fn lit(code: u32) -> [u32; 3] {
    [code << 24 | 0xFF, 0, 0x0002_0001]
}

/// Unlit (LMD) flat triangle: red, vertices 0 1 2.
const UNLIT: [u32; 3] = [0x2000_00FF, 0x0001_0000, 0x0000_0002];

/// The glTF JSON of converting `bytes`.
fn gltf(bytes: &[u8], opts: &Options) -> Value {
    let c = convert_bytes(bytes, None, Format::Gltf, opts).unwrap();
    serde_json::from_slice(&c.bytes).unwrap()
}

/// The material of the first mesh's only primitive.
fn material(g: &Value) -> &Value {
    let prims = g["meshes"][0]["primitives"].as_array().unwrap();
    assert_eq!(prims.len(), 1, "{prims:?}");
    &g["materials"][prims[0]["material"].as_u64().unwrap() as usize]
}

/// What a user sees of a material: double-sided, alpha mode and base alpha, unlit.
type Seen = (bool, String, f64, bool);

/// [`Seen`] of a glTF material.
fn look(m: &Value) -> Seen {
    (
        m["doubleSided"].as_bool().unwrap_or(false),
        m["alphaMode"].as_str().unwrap_or("OPAQUE").to_string(),
        m["pbrMetallicRoughness"]["baseColorFactor"][3]
            .as_f64()
            .unwrap_or(1.0),
        m["extensions"]["KHR_materials_unlit"].is_object(),
    )
}

fn opaque() -> Seen {
    (false, "OPAQUE".into(), 1.0, false)
}

#[test]
fn hmd_driver_bits_and_abe_become_material_properties() {
    let cases: [(&str, u32, [u32; 3], Seen); 5] = [
        ("plain", 0x0000_0008, lit(0x20), opaque()),
        (
            "BOT",
            0x0010_0008,
            lit(0x20),
            (true, "OPAQUE".into(), 1.0, false),
        ),
        (
            "STP",
            0x0020_0008,
            lit(0x20),
            (false, "BLEND".into(), 0.5, false),
        ),
        (
            "ABE",
            0x0000_0008,
            lit(0x22),
            (false, "BLEND".into(), 0.5, false),
        ),
        (
            "LGT",
            0x0004_0048,
            UNLIT,
            (false, "OPAQUE".into(), 1.0, true),
        ),
    ];
    let mut blender = Vec::new();
    for (what, code, packet, want) in cases {
        let bytes = triangle_hmd(code, packet);
        let g = gltf(&bytes, &Options::default());
        let m = material(&g);
        assert_eq!(look(m), want, "{what}: {m}");
        // Vertex colours stay on the primitive (the packet's red).
        let prim = &g["meshes"][0]["primitives"][0];
        assert!(prim["attributes"]["COLOR_0"].is_u64(), "{what}: {prim}");
        blender.push((format!("hmd-{what}"), bytes, want));
    }
    blender_check(&blender, "hmd");
}

#[test]
fn tmd_flags_and_blend_rates_become_material_properties() {
    const FCE: u8 = 2;
    const LGT: u8 = 1;
    // Untextured flat triangle 0x20, ABE 0x02; textured 0x24.
    let cases: [(&str, u8, u8, u16, Seen); 5] = [
        ("plain", 0, 0x20, 0, opaque()),
        ("FCE", FCE, 0x20, 0, (true, "OPAQUE".into(), 1.0, false)),
        ("LGT", LGT, 0x20, 0, (false, "OPAQUE".into(), 1.0, true)),
        ("ABE", 0, 0x22, 0, (false, "BLEND".into(), 0.5, false)),
        (
            "ABE-FCE-LGT",
            FCE | LGT,
            0x22,
            0,
            (true, "BLEND".into(), 0.5, true),
        ),
    ];
    let mut blender = Vec::new();
    for (what, flag, mode, tsb, want) in cases {
        let bytes = tmd::write(&triangle_tmd(flag, mode, tsb)).unwrap();
        let g = gltf(&bytes, &Options::default());
        assert_eq!(look(material(&g)), want, "{what}: {}", material(&g));
        blender.push((format!("tmd-{what}"), bytes, want));
    }
    // Textured and semi-transparent: the rate (TSB bits 6..5) sets the STP texels' alpha and is
    // kept in extras; colour-0 texels stay transparent, the others opaque.
    let opts = Options {
        textures: retroanim::convert::Textures {
            tims: vec![clut_tim()],
            ..Default::default()
        },
        ..Options::default()
    };
    for (abr, alpha) in [(0u16, 128u8), (1, 128), (2, 128), (3, 32)] {
        let tsb = 0x000A | abr << 5;
        let bytes = tmd::write(&triangle_tmd(LGT, 0x26, tsb)).unwrap();
        let c = convert_bytes(&bytes, None, Format::Gltf, &opts).unwrap();
        let g = common::gltf_read::Gltf::parse(&c.bytes);
        let m = material(&g.json).clone();
        assert_eq!(m["alphaMode"], "BLEND", "ABR {abr}: {m}");
        assert_eq!(m["extras"]["psx_blend"]["abr"], abr, "{m}");
        let img = image_alphas(&image(&g, 0));
        assert_eq!(img, vec![0, alpha, 255, 255], "ABR {abr}: texel alphas");
        // Vertex colours × texture: the packet's colour rides along as COLOR_0.
        let prim = &g.json["meshes"][0]["primitives"][0];
        assert!(prim["attributes"]["COLOR_0"].is_u64(), "{prim}");
        assert!(prim["attributes"]["TEXCOORD_0"].is_u64(), "{prim}");
    }
    blender_check(&blender, "tmd");
}

/// The PNG bytes of image `i` (a data URI or a buffer view).
fn image(g: &common::gltf_read::Gltf, i: usize) -> Vec<u8> {
    use base64::Engine;
    let img = &g.json["images"][i];
    if let Some(uri) = img["uri"].as_str() {
        let b64 = uri.split_once(',').unwrap().1;
        return base64::engine::general_purpose::STANDARD
            .decode(b64)
            .unwrap();
    }
    let v = &g.json["bufferViews"][img["bufferView"].as_u64().unwrap() as usize];
    let at = v["byteOffset"].as_u64().unwrap_or(0) as usize;
    g.bin[at..at + v["byteLength"].as_u64().unwrap() as usize].to_vec()
}

/// The alpha of the first four texels of a PNG (a row of the 4-texel-wide test image).
fn image_alphas(png: &[u8]) -> Vec<u8> {
    let img = tim::decode_png(png, &retroanim::Limits::default()).unwrap();
    img.pixels.chunks_exact(4).take(4).map(|p| p[3]).collect()
}

/// Has Blender import each file's GLB and check its one material: backface culling off for
/// double-sided, blended for BLEND, an emission (shadeless) shader for unlit.
fn blender_check(files: &[(String, Vec<u8>, Seen)], kind: &str) {
    let dir = tempfile::tempdir().unwrap();
    let mut expect = serde_json::Map::new();
    for (name, bytes, (double, alpha, _, unlit)) in files {
        let c = convert_bytes(bytes, None, Format::Glb, &Options::default()).unwrap();
        let path = dir.path().join(format!("{name}.glb"));
        std::fs::write(&path, &c.bytes).unwrap();
        expect.insert(
            path.to_string_lossy().into_owned(),
            serde_json::json!({
                "backface_culling": !double,
                "blended": alpha == "BLEND",
                "unlit": unlit,
            }),
        );
    }
    let exp = dir.path().join(format!("{kind}-expected.json"));
    std::fs::write(&exp, serde_json::to_vec(&Value::Object(expect)).unwrap()).unwrap();
    common::run_blender_check("check_materials.py", &[&exp]);
}
