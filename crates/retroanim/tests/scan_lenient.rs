//! Lenient finds: a TIM whose pixel block length (`bnum`) disagrees with its width × height,
//! short or long, and a TMD whose object count runs into padding are found, with a warning
//! saying what was read instead and the size their data shows; the summary counts rejected
//! candidates by reason.

mod common;

use common::disc::noise;
use retroanim::scan::{scan_bytes, scan_source, MemSource, ScanOptions, Source};
use retroanim::Format;

fn put(v: &mut Vec<u8>, w: u32) {
    v.extend_from_slice(&w.to_le_bytes());
}

/// An 8-bit TIM (256-entry CLUT) of 65 × 192 halfwords (130 × 192 pixels) whose pixel block
/// says `bnum` bytes (the data needs 12 + 2·65·192 = 24,972).
fn tim(bnum: u32) -> Vec<u8> {
    let mut v = Vec::new();
    put(&mut v, 0x10);
    put(&mut v, 0x09);
    put(&mut v, 12 + 512);
    put(&mut v, 480 << 16);
    put(&mut v, 1 << 16 | 256);
    for i in 0..256u32 {
        v.extend_from_slice(&((i * 97) as u16 & 0x7FFF).to_le_bytes());
    }
    put(&mut v, bnum);
    put(&mut v, 320);
    put(&mut v, 192 << 16 | 65);
    for i in 0..65 * 192u32 {
        v.extend_from_slice(&((i * 31 + 7) as u16).to_le_bytes());
    }
    v
}

const NEED: u32 = 12 + 2 * 65 * 192;

fn embedded(asset: &[u8]) -> (Vec<u8>, u64) {
    let mut blob = vec![0u8; 1000];
    let at = blob.len() as u64;
    blob.extend_from_slice(asset);
    blob.extend_from_slice(&vec![0u8; 3000]);
    (blob, at)
}

#[test]
fn a_tim_whose_bnum_is_short_or_long_is_found_with_a_warning_and_its_data_size() {
    for bnum in [NEED - 192, NEED + 192, NEED - 2, NEED + 400] {
        let t = tim(bnum);
        let (blob, at) = embedded(&t);
        let finds = scan_bytes(&blob, &ScanOptions::default());
        let f = finds
            .iter()
            .find(|f| f.offset == at && f.format == Format::Tim)
            .unwrap_or_else(|| panic!("bnum {bnum}: not found: {finds:?}"));
        assert_eq!(f.size, t.len() as u64, "bnum {bnum}: sized from W×H");
        let fix = f.lenient.as_ref().expect("a lenient find");
        assert_eq!((fix.at, fix.found, fix.read_as), (8 + 524, bnum, NEED));
        assert!(fix.warning.contains("bnum"), "{}", fix.warning);
        assert!(f.warnings >= 1);
        // Its bytes as they are; readers take them with the field read as the data shows.
        assert_eq!(f.bytes().unwrap(), t);
        let readable = f.readable_bytes().unwrap();
        assert!(retroanim::formats::tim::read(&readable).is_ok());
        let json = serde_json::to_value(f).unwrap();
        assert_eq!(json["lenient"]["found"], bnum);
    }
    // An exact TIM is not lenient.
    let (blob, at) = embedded(&tim(NEED));
    let finds = scan_bytes(&blob, &ScanOptions::default());
    let f = finds.iter().find(|f| f.offset == at).unwrap();
    assert!(f.lenient.is_none());
    assert!(serde_json::to_value(f).unwrap().get("lenient").is_none());
}

/// A corpus TMD (FIXP 0) with `pad` all-zero entries added to its object table and counted in
/// NOBJ; the blocks move by as much (pointers are relative to the table).
fn padded_tmd(file: &[u8], pad: usize) -> Vec<u8> {
    let le = |at: usize| u32::from_le_bytes(file[at..at + 4].try_into().unwrap());
    let n = le(8) as usize;
    let mut v = file[..8].to_vec();
    put(&mut v, (n + pad) as u32);
    for k in 0..n {
        for f in 0..7 {
            let w = le(12 + 28 * k + 4 * f);
            put(
                &mut v,
                if f % 2 == 0 && f < 6 {
                    w + 28 * pad as u32
                } else {
                    w
                },
            );
        }
    }
    v.extend(std::iter::repeat(0).take(28 * pad));
    v.extend_from_slice(&file[12 + 28 * n..]);
    v
}

#[test]
fn a_tmd_whose_count_runs_into_padding_is_found_with_a_warning() {
    let mut tried = 0;
    for (name, file) in common::disc::pick("TMD", 10) {
        if u32::from_le_bytes(file[4..8].try_into().unwrap()) & 1 != 0 {
            continue;
        }
        let n = u32::from_le_bytes(file[8..12].try_into().unwrap());
        let t = padded_tmd(&file, 2);
        let (blob, at) = embedded(&t);
        let finds = scan_bytes(&blob, &ScanOptions::default());
        let f = finds
            .iter()
            .find(|f| f.offset == at && f.format == Format::Tmd)
            .unwrap_or_else(|| panic!("{name}: not found"));
        let fix = f
            .lenient
            .as_ref()
            .unwrap_or_else(|| panic!("{name}: not lenient"));
        assert_eq!((fix.at, fix.found, fix.read_as), (8, n + 2, n), "{name}");
        assert_eq!(f.size, t.len() as u64, "{name}");
        let summary: serde_json::Value = serde_json::from_str(f.summary.get()).unwrap();
        assert_eq!(summary["objects"], n, "{name}: {summary}");
        tried += 1;
    }
    assert!(tried > 0 || common::corpus_files("TMD").is_empty());
}

#[test]
fn the_summary_counts_rejected_candidates_by_reason() {
    // A TIM header whose pixel block cannot be read (it runs past the end), among noise.
    let mut blob = noise(4, 5000);
    let at = 1000;
    let mut t = tim(NEED);
    t.truncate(4000);
    blob[at..at + 4000].copy_from_slice(&t);
    let src: std::sync::Arc<dyn Source> = std::sync::Arc::new(MemSource(blob.into()));
    let report = scan_source(src, "blob", &ScanOptions::default());
    let summary = report.summary();
    let by = summary["rejected_by"].as_object().unwrap();
    let total: u64 = by.values().map(|v| v.as_u64().unwrap()).sum();
    assert_eq!(total, summary["rejected"].as_u64().unwrap());
    assert!(by.keys().any(|k| k.starts_with("TIM: ")), "{by:?}");
    let list = report.stats.rejections.lock().unwrap();
    assert!(list
        .iter()
        .any(|r| r.offset == at as u64 && r.format == Format::Tim));
}
