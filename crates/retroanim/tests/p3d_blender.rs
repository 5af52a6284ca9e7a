//! Blender as a real client of P3D LOD frames: our MDD and PC2 (default axes) played through the
//! Mesh Cache modifier on a mesh built as Arma 3 Object Builder builds it, and our glTF imported
//! with shape keys (`tests/blender/check_p3d.py`).

mod common;

use retroanim::export::gltf;
use retroanim::formats::p3d::{self, scene, P3d};

#[test]
fn blender_plays_our_lod_frames() {
    let sample = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../samples/flag.p3d");
    let model = p3d::read(&std::fs::read(sample).unwrap()).unwrap();
    let P3d::Mlod(m) = &model else { panic!() };
    let lod = &m.lods[0];
    let dir = tempfile::tempdir().unwrap();
    let paths = ["flag.json", "flag.mdd", "flag.pc2", "flag.glb"].map(|n| dir.path().join(n));
    let frames = model.frames(0);
    let json = serde_json::json!({
        "points": lod.points.iter().map(|p| p.pos).collect::<Vec<_>>(),
        "faces": lod.faces.iter().map(|f| f.vertices.iter().map(|v| v.point).collect::<Vec<_>>()).collect::<Vec<_>>(),
        "frames": frames.iter().map(|f| f.positions.to_vec()).collect::<Vec<_>>(),
        "times": frames.iter().map(|f| f.time).collect::<Vec<_>>(),
        // The flag's faces front −z in P3D (module docs of formats::p3d::scene): Blender −y.
        "front_blender": [0.0, -1.0, 0.0],
    });
    std::fs::write(&paths[0], json.to_string()).unwrap();
    let axes = scene::CacheAxes::ObjectBuilder;
    std::fs::write(
        &paths[1],
        scene::write_mdd(&model, 0, axes, 1.0, Vec::new()).unwrap(),
    )
    .unwrap();
    let (pc2, _) = scene::write_pc2(&model, 0, axes, 1.0, 8.0, Vec::new()).unwrap();
    std::fs::write(&paths[2], pc2).unwrap();
    let s = scene::to_scene(&model, 0, scene::SceneAxes::Gltf, 1.0).unwrap();
    std::fs::write(&paths[3], gltf::write_glb(&s).unwrap()).unwrap();
    let mut args: Vec<std::path::PathBuf> = paths.to_vec();
    // A closed real LOD (the Object Builder test crate's visual LOD), when the corpus is there.
    let crate_lod = common::corpus_files("p3d-mlod")
        .into_iter()
        .find(|(n, _)| n.ends_with("sample_2_crate.p3d"));
    if let Some((_, path)) = crate_lod {
        let model = p3d::read(&std::fs::read(path).unwrap()).unwrap();
        let P3d::Mlod(m) = &model else { panic!() };
        let lod = &m.lods[0];
        let json = serde_json::json!({
            "points": lod.points.iter().map(|p| p.pos).collect::<Vec<_>>(),
            "faces": lod.faces.iter().map(|f| f.vertices.iter().map(|v| v.point).collect::<Vec<_>>()).collect::<Vec<_>>(),
        });
        let (j, g) = (dir.path().join("crate.json"), dir.path().join("crate.glb"));
        std::fs::write(&j, json.to_string()).unwrap();
        let s = scene::to_scene(&model, 0, scene::SceneAxes::Gltf, 1.0).unwrap();
        std::fs::write(&g, gltf::write_glb(&s).unwrap()).unwrap();
        args.extend([j, g]);
    }
    let args: Vec<&std::path::Path> = args.iter().map(|p| p.as_path()).collect();
    common::run_blender_check("check_p3d.py", &args);
}
