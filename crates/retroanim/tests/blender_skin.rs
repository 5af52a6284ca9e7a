//! An armature-skinned mesh made in Blender (`tests/blender/skin_scene.py`: three bones in a
//! chain, a column skinned through vertex groups at weight 1, the armature moving and two bones
//! bending), exported by Blender's own glTF exporter → HMD shared polygons: the vertices our
//! player calculates at every frame equal the mesh Blender evaluates, within the console's
//! integer steps (rounded keys and vertices, the GTE's floor, 12-bit angles: 2.5 units).

mod common;

use retroanim::convert::{self, Options};
use retroanim::formats::hmd::{self, calculated_vectors, PlayOptions, Player};
use retroanim::Format;
use serde_json::Value;

#[test]
fn blender_skinned_mesh_to_hmd_plays_as_blender_shows_it() {
    let dir = tempfile::tempdir().unwrap();
    let (glb, expected) = (dir.path().join("skin.glb"), dir.path().join("skin.json"));
    if !common::run_blender_check("skin_scene.py", &[&glb, &expected]) {
        return;
    }
    let bytes = std::fs::read(&glb).unwrap();
    let want: Value = serde_json::from_slice(&std::fs::read(&expected).unwrap()).unwrap();
    let out = convert::convert_bytes(&bytes, None, Format::Hmd, &Options::default()).unwrap();
    assert!(
        out.notes.iter().all(|n| !n.code.starts_with("skin")),
        "{:?}",
        out.notes
    );
    let h = hmd::read(&out.bytes).unwrap();
    common::hmd_no_errors(&h, "Blender skin → HMD");
    assert_eq!(
        hmd::shared_bindings(&h).len(),
        3,
        "one pre-calculation per bone"
    );
    let mut p = Player::new(&h, &PlayOptions::default());
    let mut worst = (0.0f64, 0usize);
    for (f, frame) in want["frames"].as_array().unwrap().iter().enumerate() {
        p.step().unwrap();
        let got: Vec<[f64; 3]> = calculated_vectors(&h, &p, &p.frame())
            .into_iter()
            .filter(|c| c.kind == "vertices")
            .flat_map(|c| c.vectors)
            .flatten()
            .map(|v| v.map(f64::from))
            .collect();
        // Blender's points in console axes and units.
        let blender: Vec<[f64; 3]> = frame["points"]
            .as_array()
            .unwrap()
            .iter()
            .map(|q| {
                let c = |i: usize| q[i].as_f64().unwrap() * 4096.0;
                [c(0), -c(1), -c(2)]
            })
            .collect();
        assert_eq!(got.len(), blender.len(), "frame {f}: vertex count");
        let d =
            |a: &[f64; 3], b: &[f64; 3]| (0..3).map(|i| (a[i] - b[i]).abs()).fold(0.0, f64::max);
        let one = |x: &[[f64; 3]], y: &[[f64; 3]]| {
            x.iter()
                .map(|a| y.iter().map(|b| d(a, b)).fold(f64::INFINITY, f64::min))
                .fold(0.0, f64::max)
        };
        let off = one(&got, &blender).max(one(&blender, &got));
        assert!(
            off <= 2.5,
            "frame {f}: played vertices {off:.2} units from Blender's"
        );
        if off > worst.0 {
            worst = (off, f);
        }
    }
    eprintln!(
        "Blender skin: worst {:.2} units from Blender's evaluated mesh (frame {})",
        worst.0, worst.1
    );
}
