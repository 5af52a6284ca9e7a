//! HMD textures: image primitives (category 2) and `--tim` TIMs become glTF images, and
//! textured packets map onto them texel for texel.

mod common;

use common::gltf_read::Gltf;
use retroanim::formats::hmd::{self, *};

/// Every texture coordinate of a textured primitive, in texels of its image.
fn texel_uvs(g: &Gltf) -> Vec<(usize, [f64; 2])> {
    let mut out = Vec::new();
    for m in g.json["meshes"].as_array().into_iter().flatten() {
        for p in m["primitives"].as_array().unwrap() {
            let Some(mat) = p["material"].as_u64() else {
                continue;
            };
            let Some(tex) = g.json["materials"][mat as usize]["pbrMetallicRoughness"]
                ["baseColorTexture"]["index"]
                .as_u64()
            else {
                continue;
            };
            let uv = p["attributes"]["TEXCOORD_0"]
                .as_u64()
                .expect("textured without UVs");
            for e in g.accessor(uv as usize) {
                out.push((tex as usize, [e[0], e[1]]));
            }
        }
    }
    out
}

#[test]
fn textured_corpus_hmds_get_their_images() {
    let dir = tempfile::tempdir().unwrap();
    let mut checked = 0;
    for (name, path) in common::corpus_files("HMD") {
        let m = hmd::read(&std::fs::read(&path).unwrap()).unwrap();
        let tims = image_tims(&m);
        if tims.is_empty() {
            continue;
        }
        let (scene, notes) = m
            .to_scene_noted(&SceneOptions {
                max_frames: 120,
                ..SceneOptions::default()
            })
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        // Files whose images no polygon is textured from (the environment-map samples'
        // images are the maps) say so, naming each (tests/hmd_envmap.rs).
        let all_unused = format!("{} image(s)", tims.len());
        let unused = notes
            .iter()
            .any(|n| n.0 == "images-unused" && n.1.starts_with(&all_unused));
        let text = retroanim::export::gltf::write_gltf(&scene).unwrap();
        let out = dir.path().join(format!("{checked}.gltf"));
        std::fs::write(&out, &text).unwrap();
        common::assert_khronos_clean(&out);
        let g = Gltf::parse(&text);
        let uvs = texel_uvs(&g);
        let missing = notes.iter().any(|n| n.0 == "textures-missing");
        if scene.meshes.is_empty() || (unused && !missing) {
            // GROUND's polygons are ground primitives (category 5).
            continue;
        }
        assert!(!uvs.is_empty(), "{name}: no textured polygon");
        assert!(
            !g.json["images"].as_array().unwrap().is_empty(),
            "{name}: no image"
        );
        // Tiled packets (a texture window word) wrap their UVs inside the window on the
        // console; the export maps them as stored.
        let tiled = m.regions.iter().any(|r| {
            match &r.body {
            RegionBody::Section(Section {
                data: SectionData::Polygons(items),
                ..
            }) => items.iter().any(|it| {
                matches!(it, PolygonItem::Packets(run) if run.packets().any(|p| p.window.is_some()))
            }),
            _ => false,
        }
        });
        for (_, uv) in uvs.iter().filter(|_| !tiled) {
            assert!(
                (0.0..=1.0).contains(&uv[0]) && (0.0..=1.0).contains(&uv[1]),
                "{name}: UV {uv:?} outside its image"
            );
        }
        checked += 1;
    }
    eprintln!("{checked} textured HMDs checked");
}

/// DICE: six faces, six images; every corner lands on a whole texel of its image, at the
/// packet's (u, v) minus the image's place in the texture page (the tiled die: at (u, v) on
/// the repeating 32×32 tile).
#[test]
fn dice_faces_map_texel_for_texel() {
    let Some(m) = common::corpus_hmd("BASIC/DICE/DICE.HMD") else {
        return;
    };
    let tims = image_tims(&m);
    assert_eq!(tims.len(), 6);
    let scene = m.to_scene(&SceneOptions::default()).unwrap();
    assert_eq!(scene.textures.len(), 6);
    for t in &scene.textures {
        assert_eq!((t.width, t.height), (32, 32), "{}", t.name);
    }
    // The packets' own (u, v): each face's four corners.
    let mut packet_uvs = std::collections::BTreeSet::new();
    for r in &m.regions {
        if let RegionBody::Section(Section {
            data: SectionData::Polygons(items),
            ..
        }) = &r.body
        {
            for it in items {
                if let PolygonItem::Packets(run) = it {
                    for p in run.packets() {
                        for uv in &p.uvs {
                            packet_uvs.insert((uv.uv[0] as i64, uv.uv[1] as i64));
                        }
                    }
                }
            }
        }
    }
    let g = Gltf::parse(&retroanim::export::gltf::write_gltf(&scene).unwrap());
    let uvs = texel_uvs(&g);
    assert_eq!(
        uvs.len(),
        2 * 6 * 6,
        "two dice of six quads of two triangles"
    );
    for (_, uv) in uvs {
        let (u, v) = (uv[0] * 32.0, uv[1] * 32.0);
        assert!((u - u.round()).abs() < 1e-4 && (v - v.round()).abs() < 1e-4);
        // Untextured-window faces: u − 32·face (the image's place in the page); tiled faces
        // (window 32×32 on a repeating texture): u itself.
        let (u, v) = (u.round() as i64, v.round() as i64);
        assert!(
            (0..6).any(|face| packet_uvs.contains(&(u + 32 * (face + 1), v)))
                || packet_uvs.contains(&(u, v)),
            "texel ({u}, {v}) is no packet's UV"
        );
    }
}

/// The same images given as TIMs (`--tim`) instead of image primitives texture the model the
/// same way.
#[test]
fn tims_given_separately_texture_like_image_primitives() {
    let Some(m) = common::corpus_hmd("BASIC/DICE/DICE.HMD") else {
        return;
    };
    let with_images = m.to_scene(&SceneOptions::default()).unwrap();
    let tims = image_tims(&m);
    let mut bare = m.clone();
    bare.blocks[0] = 0; // unlink the PRE-PROCESS image primitive
    assert!(image_tims(&bare).is_empty());
    let untextured = bare.to_scene(&SceneOptions::default()).unwrap();
    assert!(untextured.textures.is_empty());
    let with_tims = bare
        .to_scene(&SceneOptions {
            tims,
            ..SceneOptions::default()
        })
        .unwrap();
    assert_eq!(with_tims.textures, with_images.textures);
    assert_eq!(with_tims.meshes, with_images.meshes);
}
