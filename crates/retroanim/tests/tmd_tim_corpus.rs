//! Corpus tests for TMD and TIM: every file round-trips byte for byte, decodes, and its summary
//! matches the committed golden file for a sample of files.

mod common;

use retroanim::formats::{tim, tmd};
use retroanim::{read_any, Format, Model};

#[test]
fn every_corpus_tmd_round_trips_byte_for_byte() {
    let files = common::corpus_files("TMD");
    let mut triangles = 0usize;
    for (name, path) in &files {
        let data = std::fs::read(path).unwrap();
        assert_eq!(retroanim::detect(&data), Some(Format::Tmd), "{name}");
        let model = tmd::read(&data).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(tmd::write(&model).unwrap(), data, "{name}");
        // Every corpus packet has a known layout: none is kept raw.
        assert_eq!(model.summary().raw_packets, 0, "{name}");
        let meshes = model.meshes();
        // Every corpus packet is a polygon with valid indices: none is skipped.
        assert!(meshes.iter().all(|m| m.skipped == 0), "{name}");
        triangles += meshes.iter().map(|m| m.triangles.len()).sum::<usize>();
        // The JSON dump rebuilds the same file.
        let json = Model::Tmd(model).to_json().unwrap();
        let back = Model::from_json(json.as_bytes()).unwrap();
        assert_eq!(back.write().unwrap(), data, "{name} via JSON");
    }
    if !files.is_empty() {
        assert!(
            triangles > 70_000,
            "corpus TMDs decode to {triangles} triangles"
        );
    }
}

#[test]
fn every_corpus_tim_round_trips_and_decodes() {
    let files = common::corpus_files("TIM");
    for (name, path) in &files {
        let data = std::fs::read(path).unwrap();
        let model = match read_any(&data) {
            Ok(Model::Tim(t)) => t,
            other => panic!("{name}: {other:?}"),
        };
        assert_eq!(tim::write(&model).unwrap(), data, "{name}");
        let json = Model::Tim(model.clone()).to_json().unwrap();
        let back = Model::from_json(json.as_bytes()).unwrap();
        assert_eq!(back.write().unwrap(), data, "{name} via JSON");
        // Every depth decodes, mixed mode (PMODE 4) as the 15-bit halfwords it holds.
        let img = model
            .to_rgba(&tim::DecodeOptions::default())
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(img.pixels.len(), img.width * img.height * 4, "{name}");
        assert_eq!(img.width, model.pixel_width(), "{name}");
    }
}

#[test]
fn corpus_summaries_match_golden() {
    let mut out = String::new();
    for kind in ["TMD", "TIM"] {
        for (name, path) in common::corpus_files(kind).iter().step_by(25) {
            let data = std::fs::read(path).unwrap();
            let m = read_any(&data).unwrap();
            out.push_str(&format!(
                "{name}\n{}\n",
                serde_json::to_string(&m.summary()).unwrap()
            ));
        }
    }
    if !out.is_empty() {
        common::check_golden("tmd_tim_summaries.txt", &out);
    }
}
