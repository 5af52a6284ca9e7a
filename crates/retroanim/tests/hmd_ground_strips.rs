//! HMD ground primitives (category 5) and strip meshes exported as glTF meshes.

mod common;

use retroanim::formats::hmd::*;
use retroanim::scene::Scene;

fn export_clean(scene: &Scene) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("m.glb");
    std::fs::write(&out, retroanim::export::gltf::write_glb(scene).unwrap()).unwrap();
    common::assert_khronos_clean(&out);
}

/// GROUND.HMD: a textured and an untextured 6×6-cell grid of 100-unit cells from (−300, −300),
/// heights from the vertex section; every corner on the grid, facing the grid's normal.
#[test]
fn ground_grids_become_meshes() {
    let Some(m) = common::corpus_hmd("BASIC/GROUND.HMD") else {
        return;
    };
    let scene = m.to_scene(&SceneOptions::default()).unwrap();
    export_clean(&scene);
    let grounds: Vec<_> = scene
        .meshes
        .iter()
        .filter(|x| x.name.starts_with("ground"))
        .collect();
    assert_eq!(grounds.len(), 2);
    let mut textured = 0;
    for g in &grounds {
        let n: usize = g.primitives.iter().map(|p| p.positions.len()).sum();
        assert_eq!(n, 36 * 6, "36 cells of two triangles");
        for p in &g.primitives {
            for v in &p.positions {
                // Console (x, y) = (x, −y) here, in 1/4096 m: on the 100-unit grid.
                let (x, y) = (v[0] as f64 * 4096.0, -v[1] as f64 * 4096.0);
                for c in [x, y] {
                    assert!((-300.0..=300.0).contains(&c.round()), "{v:?}");
                    assert!(((c + 300.0) / 100.0 - ((c + 300.0) / 100.0).round()).abs() < 1e-3);
                }
            }
            for tri in p.positions.chunks_exact(3) {
                // Counter-clockwise seen from the normal's side (console +Z is −Z here).
                let e1: Vec<f32> = (0..3).map(|i| tri[1][i] - tri[0][i]).collect();
                let e2: Vec<f32> = (0..3).map(|i| tri[2][i] - tri[0][i]).collect();
                let nz = e1[0] * e2[1] - e1[1] * e2[0];
                assert!(nz < 0.0, "a cell faces away from its normal");
            }
            if p.material
                .is_some_and(|x| scene.materials[x].texture.is_some())
            {
                textured += 1;
                assert!(p.uvs.iter().all(|uv| (0.0..=1.0).contains(&uv[0])));
            }
        }
    }
    assert_eq!(textured, 1, "the first grid is textured");
}

/// The LEGS strips: a strip with N further vertices becomes N + 1 triangles, next to the
/// packets' triangles (a quad: two).
#[test]
fn strip_meshes_become_triangles() {
    let Some(m) = common::corpus_hmd("MIME/LEGS/LEGS0.HMD") else {
        return;
    };
    let mut strip_triangles = 0;
    let mut packet_triangles = 0;
    for r in &m.regions {
        if let RegionBody::Section(Section {
            data: SectionData::Polygons(items),
            ..
        }) = &r.body
        {
            for it in items {
                match it {
                    PolygonItem::Strips(run) => {
                        strip_triangles += run.strips().map(|s| 1 + s.extra.len()).sum::<usize>()
                    }
                    PolygonItem::Packets(run) => {
                        packet_triangles += run
                            .packets()
                            .map(|p| p.vertices.len().saturating_sub(2))
                            .sum::<usize>()
                    }
                    PolygonItem::Raw(_) => {}
                }
            }
        }
    }
    assert!(strip_triangles > 0);
    let scene = m.to_scene(&SceneOptions::default()).unwrap();
    export_clean(&scene);
    // Both legs draw the same polygon items (blocks 2–4 and 5–7 point to one section).
    let exported: usize = scene
        .meshes
        .iter()
        .flat_map(|x| &x.primitives)
        .map(|p| p.positions.len() / 3)
        .sum();
    assert_eq!(exported, 2 * (strip_triangles + packet_triangles));
}
