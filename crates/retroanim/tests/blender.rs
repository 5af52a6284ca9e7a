//! Blender as a real client: our MDD and PC2 played through its Mesh Cache modifier, and our glTF
//! of the same cache imported with shape keys and animated weights, compared at every frame
//! (`tests/blender/check_point_caches.py`).

mod common;

use retroanim::export::{gltf, point_cache_scene};
use retroanim::formats::{mdd, pc2};
use retroanim::scene::Interpolation;

#[test]
fn blender_plays_our_point_caches_and_gltf() {
    let sample = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../samples/wave.mdd");
    let m = mdd::read(&std::fs::read(&sample).unwrap()).unwrap();
    let cache = m.to_point_cache();
    let fps = cache.guess_fps().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (mdd_path, pc2_path, glb_path) = (
        dir.path().join("wave.mdd"),
        dir.path().join("wave.pc2"),
        dir.path().join("wave.glb"),
    );
    std::fs::write(&mdd_path, mdd::write(&m).unwrap()).unwrap();
    let p = pc2::Pc2::from_point_cache(&cache, fps).unwrap();
    std::fs::write(&pc2_path, pc2::write(&p).unwrap()).unwrap();
    let scene = point_cache_scene(&cache, "wave", Interpolation::Linear);
    std::fs::write(&glb_path, gltf::write_glb(&scene).unwrap()).unwrap();
    common::run_blender_check("check_point_caches.py", &[&mdd_path, &pc2_path, &glb_path]);
}
