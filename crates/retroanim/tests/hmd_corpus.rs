//! Every corpus HMD reads, validates without errors, round-trips byte for byte and keeps its
//! golden summary; the JSON dump rebuilds the same bytes.

mod common;

use retroanim::formats::hmd;
use retroanim::{detect, report, Format};

#[test]
fn corpus_hmd_round_trips_and_validates() {
    let files = common::corpus_files("HMD");
    let mut golden = String::new();
    let mut failures = Vec::new();
    for (name, path) in &files {
        let data = std::fs::read(path).unwrap();
        assert_eq!(detect(&data), Some(Format::Hmd), "{name}: detected as HMD");
        let model = match hmd::read(&data) {
            Ok(m) => m,
            Err(e) => {
                failures.push(format!("{name}: {e}"));
                continue;
            }
        };
        match hmd::write(&model) {
            Ok(out) if out == data => {}
            Ok(out) => {
                let at = out
                    .iter()
                    .zip(&data)
                    .position(|(a, b)| a != b)
                    .unwrap_or(out.len().min(data.len()));
                failures.push(format!(
                    "{name}: written bytes differ at byte {at} ({} vs {} bytes)",
                    out.len(),
                    data.len()
                ));
            }
            Err(e) => failures.push(format!("{name}: write: {e}")),
        }
        let issues = hmd::validate(&model);
        for i in issues
            .iter()
            .filter(|i| i.severity == report::Severity::Error)
        {
            failures.push(format!("{name}: {i}"));
        }
        let json = serde_json::to_string(&model).unwrap();
        let back: hmd::Hmd = serde_json::from_str(&json).unwrap();
        if back != model {
            failures.push(format!("{name}: JSON round trip changed the model"));
        }
        golden.push_str(&format!(
            "{name}\t{}\n",
            serde_json::to_string(&model.summary()).unwrap()
        ));
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    if !files.is_empty() {
        common::check_golden("hmd_summaries.tsv", &golden);
    }
}

#[test]
fn no_corpus_tod_is_taken_for_an_hmd() {
    for (name, path) in common::corpus_files("TOD") {
        let data = std::fs::read(&path).unwrap();
        assert_eq!(detect(&data), Some(Format::Tod), "{name}");
    }
}
