//! Bytes after an HMD's last section that no pointer or count reaches (issue 27): 100 KB of
//! random bytes appended to any corpus HMD never validate clean — the file fails to read,
//! validate finds an error, or it reports the bytes as `trailing-bytes` /
//! `unreferenced-bytes` with their count.

mod common;

use retroanim::formats::hmd;
use retroanim::Severity;

/// SplitMix64: a fixed random sequence.
fn noise(n: usize, mut seed: u64) -> Vec<u8> {
    (0..n)
        .map(|_| {
            seed = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = seed;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            (z ^ (z >> 31)) as u8
        })
        .collect()
}

#[test]
fn random_bytes_appended_to_an_hmd_are_reported() {
    let mut checked = 0;
    for (i, (name, path)) in common::corpus_files("HMD").into_iter().enumerate() {
        let mut data = std::fs::read(&path).unwrap();
        let len = data.len();
        data.extend(noise(100 * 1024, i as u64));
        let Ok(h) = hmd::read(&data) else { continue };
        checked += 1;
        let issues = hmd::validate(&h);
        if issues.iter().any(|i| i.severity == Severity::Error) {
            continue;
        }
        let reported: u64 = issues
            .iter()
            .filter(|i| i.code == "trailing-bytes" || i.code == "unreferenced-bytes")
            .filter_map(|i| i.message.split(' ').next()?.parse::<u64>().ok())
            .sum();
        assert!(
            reported >= 100 * 1024,
            "{name} ({len} bytes) + 100 KB of noise: only {reported} bytes reported: {issues:#?}"
        );
    }
    eprintln!("{checked} HMDs with noise appended read and were checked");
}

#[test]
fn words_after_the_last_used_vertex_are_trailing_bytes() {
    // Every corpus HMD whose structure ends before its last word says how many bytes follow.
    for (name, path) in common::corpus_files("HMD") {
        let data = std::fs::read(&path).unwrap();
        let Ok(h) = hmd::read(&data) else { continue };
        let Some(used) = hmd::structural_len(&h) else {
            continue;
        };
        let words_end = (data.len() - h.trailing.len()) as u64;
        if used >= words_end {
            continue;
        }
        let issues = hmd::validate(&h);
        assert!(
            issues
                .iter()
                .any(|i| i.code == "trailing-bytes" && i.offset == used),
            "{name}: the structure ends at byte {used} of {words_end}, but validate says {issues:#?}"
        );
    }
}
