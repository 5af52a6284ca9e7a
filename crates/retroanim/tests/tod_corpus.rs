//! Every TOD in the corpus: reads, validates without errors, round-trips byte for byte, matches
//! its committed golden summary; truncations and bit flips fail cleanly.

mod common;

use retroanim::formats::tod;
use retroanim::{report::has_errors, Error};

fn distinct_tods() -> Vec<(String, Vec<u8>)> {
    let mut seen = std::collections::HashSet::new();
    common::corpus_files("TOD")
        .into_iter()
        .filter_map(|(name, path)| {
            let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
            seen.insert(bytes.clone()).then_some((name, bytes))
        })
        .collect()
}

#[test]
fn every_corpus_tod_reads_validates_and_round_trips() {
    let mut golden = String::new();
    for (name, path) in common::corpus_files("TOD") {
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(
            retroanim::detect(&bytes),
            Some(retroanim::Format::Tod),
            "{name}: not detected as TOD"
        );
        let model = tod::read(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        let issues = tod::validate(&model);
        assert!(!has_errors(&issues), "{name}: {issues:#?}");
        let written = tod::write(&model).unwrap();
        assert!(written == bytes, "{name}: round trip differs");
        let summary = serde_json::to_string(&model.summary()).unwrap();
        golden.push_str(&format!("{name}\t{summary}\n"));
    }
    if !golden.is_empty() {
        common::check_golden("tod_summaries.tsv", &golden);
    }
}

#[test]
fn corpus_facts_the_notes_state() {
    // The janken TODs use packet types 0, 1, 2, 3 and 8; the LSD ones exactly one type-15 packet.
    for (name, bytes) in distinct_tods() {
        let model = tod::read(&bytes).unwrap();
        let s = model.summary();
        if name.contains("LSDRevamped") {
            assert_eq!(s.packet_types.get(&15), Some(&1), "{name}");
        } else {
            assert_eq!(s.resolution, 0, "{name}");
            for t in s.packet_types.keys() {
                assert!([0, 1, 2, 3, 8].contains(t), "{name}: type {t}");
            }
        }
        let frames = u32::from_le_bytes(bytes[4..8].try_into().unwrap()) as usize;
        assert_eq!(model.frames.len(), frames, "{name}");
    }
}

#[test]
fn every_truncation_fails_with_an_offset_inside_the_prefix() {
    for (name, bytes) in distinct_tods() {
        let end = bytes.len() - tod::read(&bytes).unwrap().trailing.len();
        for cut in 0..end {
            match tod::read(&bytes[..cut]) {
                Ok(_) => panic!("{name}: truncated to {cut} bytes still reads"),
                Err(Error::Malformed { offset, .. }) => {
                    assert!(offset <= cut as u64, "{name}: cut {cut}, offset {offset}")
                }
                Err(e) => panic!("{name}: cut {cut}: unexpected error {e}"),
            }
        }
    }
}

#[test]
fn bit_flips_never_panic_and_what_reads_writes_back() {
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut read_ok = 0;
    for (name, bytes) in distinct_tods() {
        for _ in 0..200 {
            let mut b = bytes.clone();
            for _ in 0..1 + next() % 4 {
                let i = (next() % b.len() as u64) as usize;
                b[i] ^= 1 << (next() % 8);
            }
            match tod::read(&b) {
                Ok(m) => {
                    read_ok += 1;
                    let _ = tod::validate(&m);
                    assert!(
                        tod::write(&m).unwrap() == b,
                        "{name}: flipped file reads but writes differently"
                    );
                }
                Err(e) => assert!(
                    e.offset().is_some_and(|o| o <= b.len() as u64),
                    "{name}: {e}"
                ),
            }
        }
    }
    // Most flips land in values, not structure: the reader must keep such files.
    assert!(read_ok > 0);
}
