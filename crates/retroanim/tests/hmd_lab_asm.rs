//! The LAB assembler and disassembler (`formats::hmd::lab`): Sony's labp sources in the corpus
//! assemble to the HMD files beside them, every corpus HMD survives disassembly and assembly,
//! edits in LAB play back, and hostile sources fail cleanly with their position.

mod common;

use std::path::{Path, PathBuf};

use retroanim::formats::hmd::{self, lab};

/// The corpus file of manifest kind `HMD` that sits beside `lab` with the same stem (any case).
fn hmd_beside(lab_path: &Path) -> Option<PathBuf> {
    let stem = lab_path.file_stem()?.to_str()?.to_ascii_lowercase();
    std::fs::read_dir(lab_path.parent()?)
        .ok()?
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .find(|p| {
            p.extension().is_some_and(|e| e.eq_ignore_ascii_case("hmd"))
                && p.file_stem()
                    .and_then(|s| s.to_str())
                    .is_some_and(|s| s.to_ascii_lowercase() == stem)
        })
}

fn assemble_file(path: &Path) -> Result<Vec<u8>, lab::LabError> {
    lab::assemble(
        path.to_str().unwrap(),
        &lab::FsLoader,
        &lab::LabOptions::default(),
    )
}

/// The first differing byte of two buffers, for messages.
fn first_difference(a: &[u8], b: &[u8]) -> String {
    match a.iter().zip(b).position(|(x, y)| x != y) {
        Some(i) => format!(
            "first difference at byte {i} (0x{i:x}): {:#04x} vs {:#04x}",
            a[i], b[i]
        ),
        None => format!("lengths {} vs {}", a.len(), b.len()),
    }
}

#[test]
fn every_corpus_lab_assembles_to_the_hmd_beside_it() {
    let files = common::corpus_files("LAB");
    let mut identical = Vec::new();
    let mut different = Vec::new();
    let mut unpaired = Vec::new();
    for (name, path) in &files {
        let out = assemble_file(path).unwrap_or_else(|e| panic!("{name}: {e}"));
        match hmd_beside(path) {
            Some(h) => {
                let want = std::fs::read(&h).unwrap();
                if out == want {
                    identical.push(name.clone());
                } else {
                    different.push(format!("{name}: {}", first_difference(&out, &want)));
                }
            }
            None => {
                // No HMD beside it: the output must still be an HMD the reader accepts.
                hmd::read(&out).unwrap_or_else(|e| panic!("{name} assembles to a bad HMD: {e}"));
                unpaired.push(name.clone());
            }
        }
    }
    eprintln!(
        "LAB: {} identical, {} different, {} without an HMD beside them",
        identical.len(),
        different.len(),
        unpaired.len()
    );
    for d in &different {
        eprintln!("  differs: {d}");
    }
    assert!(different.is_empty(), "{different:#?}");
    if !files.is_empty() {
        assert!(identical.len() >= 30, "{identical:?}");
    }
}
