//! The blob scanner over corpus files: each file alone is found once, whole; packed together at
//! unaligned offsets with filler, each is found once at its offset (an HMD sized by where its
//! structure ends).

mod common;

use common::disc::{expected, expected_embedded, noise, pack};
use retroanim::scan::{scan_bytes, ScanOptions};
use retroanim::Format;

const KINDS: [(&str, Format); 4] = [
    ("TOD", Format::Tod),
    ("TMD", Format::Tmd),
    ("TIM", Format::Tim),
    ("HMD", Format::Hmd),
];

#[test]
fn every_corpus_file_alone_is_found_once_whole() {
    let opts = ScanOptions::default();
    let mut bad = Vec::new();
    for (kind, format) in KINDS {
        for (name, path) in common::corpus_files(kind) {
            let data = std::fs::read(&path).unwrap();
            let finds = scan_bytes(&data, &opts);
            let got: Vec<(Format, u64, u64)> =
                finds.iter().map(|f| (f.format, f.offset, f.size)).collect();
            let ok = got == expected(format, &data);
            if !ok {
                bad.push(format!(
                    "{name} ({} bytes): {:?}",
                    data.len(),
                    finds
                        .iter()
                        .map(|f| (f.format, f.offset, f.size, f.status))
                        .collect::<Vec<_>>()
                ));
            }
        }
    }
    assert!(bad.is_empty(), "{} files:\n{}", bad.len(), bad.join("\n"));
}

#[test]
fn every_corpus_hmd_packed_among_other_bytes_is_found_once_where_its_structure_ends() {
    let files: Vec<Vec<u8>> = common::corpus_files("HMD")
        .into_iter()
        .map(|(_, p)| std::fs::read(p).unwrap())
        .collect();
    if files.is_empty() {
        return;
    }
    let slices: Vec<&[u8]> = files.iter().map(|f| &f[..]).collect();
    let (mut blob, offsets) = pack(&slices, 11);
    blob.extend_from_slice(&noise(3, 333));
    let opts = ScanOptions {
        align: 1,
        ..ScanOptions::default()
    };
    let got: Vec<(Format, u64, u64)> = scan_bytes(&blob, &opts)
        .iter()
        .map(|f| (f.format, f.offset, f.size))
        .collect();
    let want: Vec<(Format, u64, u64)> = files
        .iter()
        .zip(offsets)
        .flat_map(|(d, at)| {
            expected_embedded(Format::Hmd, d)
                .into_iter()
                .map(move |(f, o, s)| (f, at + o, s))
        })
        .collect();
    assert_eq!(got, want);
}
