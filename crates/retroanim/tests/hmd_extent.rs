//! Where an HMD ends from its own structure ([`hmd::structural_len`], what the scanner sizes an
//! embedded HMD by): for every corpus HMD it is the file's length, or the words past it are
//! ones nothing uses — the file cut there reads, validates as cleanly and shows the same scene
//! (meshes, images, every sequence's animation) as the whole file.

mod common;

use retroanim::formats::hmd::{self, SceneOptions};
use retroanim::report::Severity;

fn errors(h: &hmd::Hmd) -> usize {
    hmd::validate(h)
        .iter()
        .filter(|i| i.severity == Severity::Error)
        .count()
}

fn scenes(h: &hmd::Hmd) -> Vec<retroanim::scene::Scene> {
    let n = hmd::sequence_count(h).max(1);
    (0..n)
        .map(|k| {
            let opts = SceneOptions {
                sequence: Some(k).filter(|_| hmd::sequence_count(h) > 0),
                ..SceneOptions::default()
            };
            h.to_scene(&opts).unwrap()
        })
        .collect()
}

#[test]
fn the_structure_ends_where_nothing_after_it_is_used() {
    let (mut whole, mut cut) = (0, Vec::new());
    for (name, path) in common::corpus_files("HMD") {
        let data = std::fs::read(&path).unwrap();
        let h = hmd::read(&data).unwrap();
        let len = hmd::structural_len(&h).unwrap_or(data.len() as u64);
        assert!(len <= data.len() as u64, "{name}: {len} past the file");
        if len == data.len() as u64 {
            whole += 1;
            continue;
        }
        let short =
            hmd::read(&data[..len as usize]).unwrap_or_else(|e| panic!("{name} cut at {len}: {e}"));
        assert_eq!(hmd::structural_len(&short), Some(len), "{name}");
        assert!(errors(&short) <= errors(&h), "{name}: cutting adds errors");
        assert!(
            scenes(&short) == scenes(&h),
            "{name}: the cut file shows something else"
        );
        cut.push(format!("{name}: {} of {} bytes", len, data.len()));
    }
    println!("{whole} HMDs end at their last byte; cut losslessly: {cut:#?}");
    assert!(whole > 0 || !cut.is_empty() || common::corpus_files("HMD").is_empty());
}
