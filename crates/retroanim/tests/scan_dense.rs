//! A dense disc image: every corpus TOD, TMD, TIM and HMD packed back to back (0–60 bytes of
//! filler between them, the corpus repeated to over 12 MB, so that assets straddle the scanner's
//! chunks and its candidate windows run past them), written as raw Mode 2 sectors. Every asset
//! is found at its offset with its size, each find reports what its own bytes read alone give
//! (format, summary, warnings), and the raw image gives the same finds as the same bytes in
//! memory.

mod common;

use std::collections::BTreeSet;

use common::disc::{expected_embedded, noise};
use retroanim::scan::{self, Find, ScanOptions};
use retroanim::Format;

const KINDS: [(&str, Format); 4] = [
    ("TOD", Format::Tod),
    ("TMD", Format::Tmd),
    ("TIM", Format::Tim),
    ("HMD", Format::Hmd),
];

/// Where an asset lies: format, offset, size.
type Planted = (Format, u64, u64);

/// The blob and where each asset lies in it.
fn dense_blob(min_len: usize) -> Option<(Vec<u8>, Vec<Planted>)> {
    let mut files = Vec::new();
    for (kind, format) in KINDS {
        for (_, path) in common::corpus_files(kind) {
            files.push((format, std::fs::read(path).unwrap()));
        }
    }
    if files.is_empty() {
        return None;
    }
    let mut blob = Vec::new();
    let mut want = Vec::new();
    let mut i = 0usize;
    while blob.len() < min_len {
        // Word-aligned (the default --align 4), 0–60 bytes apart.
        blob.extend_from_slice(&noise(i as u64 + 1, 4 * ((i * 13) % 16)));
        while blob.len() % 4 != 0 {
            blob.push(0xA5);
        }
        let (format, data) = &files[i % files.len()];
        let at = blob.len() as u64;
        want.extend(
            expected_embedded(*format, data)
                .into_iter()
                .map(|(f, o, s)| (f, at + o, s)),
        );
        blob.extend_from_slice(data);
        i += 1;
    }
    blob.extend_from_slice(&noise(7, 4096));
    Some((blob, want))
}

/// What a user compares: format, offset, size, summary, warnings, what is inside.
fn shown(f: &Find) -> String {
    format!(
        "{:?}@{} {} bytes, {} warnings, lenient {:?}, inside {:?}: {}",
        f.format,
        f.offset,
        f.size,
        f.warnings,
        f.lenient,
        f.contains,
        f.summary.get()
    )
}

#[test]
fn a_dense_raw_image_gives_every_asset_as_its_own_bytes_read_alone_do() {
    let Some((blob, want)) = dense_blob(12 << 20) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("dense.bin");
    {
        let mut out = std::io::BufWriter::new(std::fs::File::create(&bin).unwrap());
        scan::raw::write_mode2_image(&mut &blob[..], &mut out).unwrap();
    }
    let opts = ScanOptions::default();
    let report = scan::scan_paths(std::slice::from_ref(&bin), &opts);
    assert!(report.errors.is_empty(), "{:?}", report.errors);

    // Every asset planted is found, at its offset with its size (or inside a larger find).
    let mut found: BTreeSet<Planted> = BTreeSet::new();
    for f in &report.finds {
        found.insert((f.format, f.offset, f.size));
        found.extend(f.contains.iter().map(|n| (n.format, n.offset, n.size)));
    }
    let missing: Vec<_> = want.iter().filter(|w| !found.contains(w)).collect();
    assert!(
        missing.is_empty(),
        "{} of {} assets not found as planted, first: {:?}",
        missing.len(),
        want.len(),
        &missing[..missing.len().min(5)]
    );

    // Each find says what its own bytes say when read alone.
    let mut bad = Vec::new();
    for f in &report.finds {
        let bytes = f.readable_bytes().unwrap();
        let alone = Find::from_bytes("alone", "alone", bytes).unwrap();
        let lenient = usize::from(f.lenient.is_some());
        if (alone.format, alone.summary.get(), alone.warnings + lenient)
            != (f.format, f.summary.get(), f.warnings)
        {
            bad.push(format!("{}\n  alone: {}", shown(f), shown(&alone)));
        }
    }
    assert!(bad.is_empty(), "{} finds:\n{}", bad.len(), bad.join("\n"));

    // The same bytes in memory (no sectors, no file reads) give the same finds.
    let in_memory: Vec<String> = scan::scan_bytes(&blob, &opts).iter().map(shown).collect();
    let from_disc: Vec<String> = report.finds.iter().map(shown).collect();
    assert_eq!(from_disc.len(), in_memory.len());
    for (a, b) in from_disc.iter().zip(&in_memory) {
        assert_eq!(a, b);
    }
}
