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

/// The model info of an ODOL v7 with its f32 mass array replaced by `masses` (LZSS-packed, all
/// literals, from 1024 bytes on, as the format packs every array that size).
fn with_masses(odol: &retroanim::formats::p3d::Odol, masses: usize) -> Vec<u8> {
    let n = odol.lods.len();
    let info = &odol.model_info.0;
    let at = 4 * n + 150; // resolutions, 144 bytes of fields, 6 flag bytes
    let old = u32::from_le_bytes(info[at..at + 4].try_into().unwrap()) as usize;
    assert!(old * 4 < 1024, "the fixture's mass array is stored raw");
    let data: Vec<u8> = (0..masses)
        .flat_map(|i| (i as f32 * 0.25).to_le_bytes())
        .collect();
    let mut out = info[..at].to_vec();
    out.extend_from_slice(&(masses as u32).to_le_bytes());
    if data.len() < 1024 {
        out.extend_from_slice(&data);
    } else {
        for chunk in data.chunks(8) {
            out.push(0xFF);
            out.extend_from_slice(chunk);
        }
        let sum = data.iter().fold(0u32, |s, &b| s.wrapping_add(b as u32));
        out.extend_from_slice(&sum.to_le_bytes());
    }
    out.extend_from_slice(&info[at + 4 + old * 4..]);
    out
}

#[test]
fn odol_v7_packed_among_other_bytes_ends_where_its_model_info_does() {
    use retroanim::formats::p3d::{self, P3d};
    // Every corpus ODOL v7, as it is and with a mass array stored raw (100 floats) and
    // LZSS-packed (300 floats), packed between filler: each found once, at its offset, with
    // its own size (before, an ODOL v7 was found only where it ended its container).
    let mut files = Vec::new();
    for (_, path) in common::corpus_files("p3d-odol") {
        let data = std::fs::read(path).unwrap();
        let Ok(P3d::Odol(o)) = p3d::read(&data) else {
            continue;
        };
        if o.arma.is_some() {
            continue;
        }
        assert_eq!(o.model_info_len(), Some(o.model_info.0.len()));
        let head = data.len() - o.model_info.0.len();
        for masses in [100, 300] {
            let mut v = data[..head].to_vec();
            v.extend_from_slice(&with_masses(&o, masses));
            let Ok(P3d::Odol(back)) = p3d::read(&v) else {
                panic!("the rebuilt ODOL does not read");
            };
            assert_eq!(back.model_info_len(), Some(back.model_info.0.len()));
            files.push(v);
        }
        files.push(data);
    }
    if files.is_empty() {
        return;
    }
    let slices: Vec<&[u8]> = files.iter().map(|f| &f[..]).collect();
    let (mut blob, offsets) = pack(&slices, 5);
    blob.extend_from_slice(&noise(9, 500));
    let opts = ScanOptions {
        align: 1,
        ..ScanOptions::default()
    };
    let got: Vec<(Format, u64, u64)> = scan_bytes(&blob, &opts)
        .iter()
        .filter(|f| f.format == Format::P3d)
        .map(|f| (f.format, f.offset, f.size))
        .collect();
    let want: Vec<(Format, u64, u64)> = files
        .iter()
        .zip(offsets)
        .map(|(d, at)| (Format::P3d, at, d.len() as u64))
        .collect();
    assert_eq!(got, want);
}

/// A find followed by other bytes (read from a window larger than itself) has the summary and
/// warnings of the asset alone: the bytes after it change nothing the user sees.
#[test]
fn a_find_followed_by_other_bytes_reports_what_the_asset_alone_does() {
    let opts = ScanOptions::default();
    let shown = |finds: &[retroanim::scan::Find], end: u64| -> Vec<String> {
        finds
            .iter()
            .filter(|f| f.offset < end)
            .map(|f| {
                format!(
                    "{:?}@{} {} bytes, {} warnings: {}",
                    f.format,
                    f.offset,
                    f.size,
                    f.warnings,
                    f.summary.get()
                )
            })
            .collect()
    };
    let mut bad = Vec::new();
    let mut checked = 0;
    for (kind, _) in KINDS {
        for (name, path) in common::corpus_files(kind) {
            let data = std::fs::read(&path).unwrap();
            let alone = scan_bytes(&data, &opts);
            // Filler that opens no candidate before the asset (so that an HMD is embedded rather
            // than at the start of its container) and after it.
            let at = 8;
            let mut blob = vec![0xEE; at as usize];
            blob.extend_from_slice(&data);
            blob.extend_from_slice(&[0xEE; 70_000]);
            let followed = scan_bytes(&blob, &opts);
            let want = shown(&alone, data.len() as u64);
            let embedded: Vec<retroanim::scan::Find> = followed
                .into_iter()
                .filter(|f| f.offset >= at)
                .map(|mut f| {
                    f.offset -= at;
                    f
                })
                .collect();
            let got = shown(&embedded, data.len() as u64);
            let want_embedded = if kind == "HMD" {
                // An embedded HMD ends where its structure does: compare with those bytes alone.
                let (_, _, len) = expected_embedded(Format::Hmd, &data)[0];
                shown(&scan_bytes(&data[..len as usize], &opts), len)
            } else {
                want
            };
            if got != want_embedded {
                bad.push(format!("{name} embedded:\n  {got:?}\n  {want_embedded:?}"));
            }
            checked += 1;
        }
    }
    assert!(
        bad.is_empty(),
        "{} of {checked} files:\n{}",
        bad.len(),
        bad.join("\n")
    );
}
