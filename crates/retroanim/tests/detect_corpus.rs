//! Detection by content: every corpus file of every kind is recognised as its format, never by
//! its extension (the names are not consulted).

mod common;

use retroanim::{detect, Format};

#[test]
fn every_corpus_file_is_detected_as_its_kind() {
    let kinds = [
        ("TOD", Format::Tod),
        ("HMD", Format::Hmd),
        ("TMD", Format::Tmd),
        ("TIM", Format::Tim),
        ("mdd", Format::Mdd),
        ("p3d-mlod", Format::P3d),
        ("p3d-odol", Format::P3d),
        ("RSD", Format::Rsd),
    ];
    for (kind, format) in kinds {
        for (name, path) in common::corpus_files(kind) {
            let bytes = std::fs::read(&path).unwrap();
            assert_eq!(detect(&bytes), Some(format), "{name}");
        }
    }
}

#[test]
fn the_labp_sources_and_other_sdk_files_are_not_mistaken_for_models() {
    for kind in ["LAB", "RSD", "COD"] {
        for (name, path) in common::corpus_files(kind) {
            let bytes = std::fs::read(&path).unwrap();
            let d = detect(&bytes);
            assert!(
                !matches!(
                    d,
                    Some(Format::Tod | Format::Hmd | Format::Tmd | Format::Tim)
                ),
                "{name}: {d:?}"
            );
        }
    }
}
