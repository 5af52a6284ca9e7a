//! `validate` agrees with the exporters (issue 13): whatever makes an export refuse a file
//! (a face past its LOD's vertices, a position that is not a number) is a validation error
//! first. Each corpus ODOL is overwritten byte by byte and word by word; every variant whose
//! glTF export fails for such a reason must fail validation too.

mod common;

use retroanim::formats::p3d::{self, scene, P3d};
use retroanim::report::has_errors;

#[test]
fn odol_faces_and_floats_that_break_export_are_validation_errors() {
    let mut checked = 0;
    for (name, path) in common::corpus_files("p3d-odol") {
        let data = std::fs::read(&path).unwrap();
        // About 500 places per file, spread evenly (the test stays quick).
        let stride = (data.len() / 500).max(1);
        for at in (0..data.len().saturating_sub(4)).step_by(stride) {
            for value in [0xFFu8, 0x7F] {
                let mut d = data.clone();
                d[at] = value;
                d[at + 1] = value;
                let Ok(model) = p3d::read(&d) else { continue };
                let P3d::Odol(_) = &model else { continue };
                let Err(e) = scene::to_scene(&model, 0, scene::SceneAxes::Gltf, 1.0) else {
                    continue;
                };
                let e = e.to_string();
                if !(e.contains("vertex index") || e.contains("finite")) {
                    continue;
                }
                checked += 1;
                assert!(
                    has_errors(&p3d::validate(&model)),
                    "{name} with bytes {at}..{} set to {value:#x}: export says {e:?}, validate says ok",
                    at + 2
                );
            }
        }
    }
    eprintln!("{checked} ODOL variants that export refuses were checked");
}
