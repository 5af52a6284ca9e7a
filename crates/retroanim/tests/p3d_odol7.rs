//! ODOL v7 read typed (issue 27): every field of a LOD and of the model info, so a cut anywhere
//! is an error at the field whose bytes are missing; its geometry exported to glTF; bytes after
//! the model info reported; a face past the LOD's vertices a validation error with the
//! message the export gives.

mod common;

use retroanim::convert::{self, Options};
use retroanim::formats::p3d::{self, scene, P3d};
use retroanim::report::has_errors;
use retroanim::{Format, Model};

fn fixture() -> Option<Vec<u8>> {
    let path = common::corpus_file("p3d-odol", "animated_morph_odol.p3d")?;
    Some(std::fs::read(path).unwrap())
}

fn odol(data: &[u8]) -> p3d::Odol {
    match p3d::read(data).unwrap() {
        P3d::Odol(o) => o,
        P3d::Mlod(_) => panic!("not an ODOL"),
    }
}

#[test]
fn v7_lod_and_model_info_read_typed() {
    let Some(data) = fixture() else { return };
    let o = odol(&data);
    let lod = o.v7_lod(0).unwrap();
    assert_eq!(lod.positions.len(), 4);
    assert_eq!(lod.normals.len(), 4);
    assert_eq!(lod.uvs.len(), 4);
    assert_eq!(lod.faces.len(), 1);
    assert_eq!(lod.faces[0].vertices, [0, 1, 2, 3]);
    assert_eq!(lod.frames.len(), 3);
    assert_eq!(lod.selections.len(), 1);
    assert_eq!(lod.selections[0].name.lossy(), "synthetic_panel");
    let info = o.v7_model_info().unwrap();
    assert_eq!(info.resolutions, [1.0]);
    assert_eq!(info.special_lods, [0xFF; 12]);
    // The model info's layout takes exactly what follows the last LOD.
    assert_eq!(o.model_info_len(), Some(o.model_info.0.len()));
    assert_eq!(p3d::write(&P3d::Odol(o)).unwrap(), data);
}

#[test]
fn every_cut_of_a_v7_odol_fails_where_its_data_ends() {
    let Some(data) = fixture() else { return };
    for cut in 0..data.len() {
        let e = match p3d::read(&data[..cut]) {
            Err(e) => e,
            Ok(_) => panic!("the file cut to {cut} of {} bytes reads", data.len()),
        };
        let at = e
            .offset()
            .unwrap_or_else(|| panic!("cut {cut}: no offset in {e}"));
        assert!(
            at <= cut as u64,
            "cut at {cut}: the error names byte {at}, past the data: {e}"
        );
    }
}

#[test]
fn bytes_after_the_model_info_are_a_warning_with_their_count() {
    let Some(mut data) = fixture() else { return };
    let end = data.len();
    data.extend_from_slice(&[0xA5; 37]);
    let issues = p3d::validate(&p3d::read(&data).unwrap());
    let t = issues
        .iter()
        .find(|i| i.code == "trailing-bytes")
        .expect("a trailing-bytes finding");
    assert_eq!(t.offset, end as u64);
    assert!(t.message.starts_with("37 bytes"), "{}", t.message);
    assert!(!has_errors(&issues));
}

#[test]
fn v7_geometry_exports_faces_and_uvs_to_gltf() {
    let Some(data) = fixture() else { return };
    let model = p3d::read(&data).unwrap();
    let s = scene::to_scene(&model, 0, scene::SceneAxes::Gltf, 1.0).unwrap();
    let p = &s.meshes[0].primitives[0];
    // One quad: two triangles over its four vertices, each with a UV.
    assert_eq!(p.indices.len(), 6);
    assert_eq!(p.positions.len(), 4);
    assert_eq!(p.uvs.len(), 4);
    assert_eq!(p.targets.len(), 3);
    let glb = convert::convert(&Model::P3d(model), Format::Glb, &Options::default()).unwrap();
    assert_eq!(&glb.bytes[..4], b"glTF");
}

#[test]
fn a_face_past_the_vertices_is_a_validation_error_with_the_exports_message() {
    let Some(mut data) = fixture() else { return };
    // The quad: texture −1, 4 vertices, indices 0, 1, 2, 3.
    let quad = [0xFF, 0xFF, 4, 0, 0, 1, 0, 2, 0, 3, 0];
    let at = data
        .windows(quad.len())
        .position(|w| w == quad)
        .expect("the fixture's quad");
    data[at + 9] = 9;
    let model = Model::P3d(p3d::read(&data).unwrap());
    let issues = model.validate();
    let e = issues
        .iter()
        .find(|i| i.code == "vertex-index")
        .expect("a vertex-index error");
    assert!(e.message.contains("vertex index 9"), "{}", e.message);
    let err = convert::convert(&model, Format::Glb, &Options::default()).unwrap_err();
    assert!(err.to_string().contains(&e.message), "{err}");
    assert_eq!(err.offset(), Some(e.offset));
    // A point cache needs the frames only.
    convert::convert(&model, Format::Mdd, &Options::default()).unwrap();
}

#[test]
fn frame_times_that_do_not_increase_are_an_error_validate_and_export_share() {
    let Some(data) = fixture() else { return };
    let mut o = odol(&data);
    o.lods[0].frames[2].time = 0.5;
    let model = Model::P3d(P3d::Odol(o));
    let issues = model.validate();
    let e = issues
        .iter()
        .find(|i| i.code == "frame-order")
        .expect("a frame-order error");
    assert_eq!(e.severity, retroanim::Severity::Error);
    let err = convert::convert(&model, Format::Glb, &Options::default()).unwrap_err();
    assert!(err.to_string().contains(&e.message), "{err}");
}
