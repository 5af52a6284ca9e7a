//! The blob scanner over corpus files: each file alone is found once, whole; packed together at
//! unaligned offsets with filler, each is found once at its offset.

mod common;

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

fn le(d: &[u8], at: usize) -> u64 {
    u32::from_le_bytes(d[at..at + 4].try_into().unwrap()) as u64
}

/// What the file holds, from the format tables alone: one asset filling the file, except for TIM
/// files, which may hold several TIMs back to back (PAT.TIM) and zero padding after the last
/// (its size is 8 + the CLUT block's bnum when CF is set + the pixel block's bnum: Sony File
/// Formats, "TIM").
pub fn expected(format: Format, data: &[u8]) -> Vec<(Format, u64, u64)> {
    if format != Format::Tim {
        return vec![(format, 0, data.len() as u64)];
    }
    let mut out = Vec::new();
    let mut at = 0usize;
    while at + 12 <= data.len() && le(data, at) == 0x10 {
        let mut size = 8;
        if le(data, at + 4) & 8 != 0 {
            size += le(data, at + 8) as usize;
        }
        size += le(data, at + size) as usize;
        out.push((Format::Tim, at as u64, size as u64));
        at += size;
    }
    out
}
