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
        // Bytes that do not start on a word boundary are converted rather than borrowed as
        // words: the same model either way.
        let mut shifted = vec![0u8; data.len() + 1];
        shifted[1..].copy_from_slice(&data);
        match hmd::read(&shifted[1..]) {
            Ok(m) if m == model => {}
            _ => failures.push(format!("{name}: read from an unaligned buffer differs")),
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

#[test]
fn corrupted_corpus_files_never_panic_and_what_reads_writes_back() {
    let files = common::corpus_files("HMD");
    // Small files that between them hold polygons, shared polygons, joint and vertex MIMe,
    // ground, images and animation.
    let picked = [
        "JOINT.HMD",
        "JNTMIME.HMD",
        "VTXMIME.HMD",
        "GROUND.HMD",
        "CUBE0.HMD",
        "04_2.HMD",
    ];
    for (name, path) in files
        .iter()
        .filter(|(n, _)| picked.iter().any(|p| n.ends_with(&format!("/{p}"))))
    {
        let data = std::fs::read(path).unwrap();
        let spots: Vec<usize> = (0..data.len().min(1024) * 8)
            .step_by(5)
            .chain((data.len().saturating_sub(1024) * 8..data.len() * 8).step_by(11))
            .collect();
        for bit in spots {
            let mut d = data.clone();
            d[bit / 8] ^= 1 << (bit % 8);
            if let Ok(m) = hmd::read(&d) {
                let _ = hmd::validate(&m);
                assert!(hmd::write(&m).unwrap() == d, "{name}: bit {bit}");
            }
        }
        for n in (0..data.len()).step_by(13) {
            match hmd::read(&data[..n]) {
                Ok(m) => assert!(hmd::write(&m).unwrap() == data[..n], "{name}: cut at {n}"),
                Err(e) => assert!(e.offset().is_none_or(|o| o <= n as u64), "{name}: {e}"),
            }
        }
    }
}
