//! Deterministic mutations of corpus files, shared by the mutation sweep (`mutation.rs`) and
//! the validate/convert agreement test (`agreement.rs`).

use std::path::{Path, PathBuf};

/// SplitMix64: a fixed, dependency-free random sequence.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

pub fn corpus_files(kind: &str) -> Option<Vec<PathBuf>> {
    let dir = match std::env::var_os("RETROANIM_CORPUS") {
        Some(p) => PathBuf::from(p),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus"),
    };
    let Ok(text) = std::fs::read_to_string(dir.join("MANIFEST.tsv")) else {
        assert!(
            std::env::var("RETROANIM_REQUIRE_CORPUS").as_deref() != Ok("1"),
            "RETROANIM_REQUIRE_CORPUS=1 but {} has no MANIFEST.tsv",
            dir.display()
        );
        eprintln!(
            "\n*** SKIPPING the mutation sweep: no corpus at {} ***\n",
            dir.display()
        );
        return None;
    };
    // Identical files (the same sha256) once.
    let mut seen = std::collections::BTreeSet::new();
    let mut files: Vec<PathBuf> = text
        .lines()
        .skip(1)
        .filter_map(|l| {
            let cols: Vec<&str> = l.split('\t').collect();
            (cols.get(1) == Some(&kind) && seen.insert(cols.get(6).copied()?.to_string()))
                .then(|| dir.join(cols[0]))
        })
        .collect();
    files.sort();
    Some(files)
}

/// Mutation `k` of `data`: truncations, single bit flips, and 32-bit words overwritten with
/// values parsers trip on (0, all ones, the sign bit, small and large counts).
pub fn mutate(data: &[u8], rng: &mut Rng, k: usize) -> (String, Vec<u8>) {
    let mut d = data.to_vec();
    let n = d.len();
    match k % 3 {
        0 => {
            // Cut anywhere, and often near the end, where tails hide.
            let at = if rng.below(2) == 0 {
                rng.below(n)
            } else {
                n.saturating_sub(1 + rng.below(200.min(n)))
            };
            d.truncate(at);
            (format!("cut at {at}"), d)
        }
        1 => {
            let at = rng.below(n);
            let bit = rng.below(8);
            if n > 0 {
                d[at] ^= 1 << bit;
            }
            (format!("bit {bit} of byte {at} flipped"), d)
        }
        _ => {
            const WORDS: [u32; 8] = [
                0,
                u32::MAX,
                0x8000_0000,
                0x7FFF_FFFF,
                1,
                0xFFFF,
                0x0001_0000,
                0x4000_0000,
            ];
            let at = rng.below(n.saturating_sub(3)) & !3;
            let w = WORDS[rng.below(WORDS.len())];
            if at + 4 <= n {
                d[at..at + 4].copy_from_slice(&w.to_le_bytes());
            }
            (format!("word at {at} set to 0x{w:08x}"), d)
        }
    }
}
