//! Embedded HMDs end where their structure says, whatever kind of section comes last: every
//! corpus HMD, and HMDs rebuilt from them with each kind of section moved to the end, packed
//! among other bytes at offsets that are not a multiple of 4, are found once at their offset
//! with their exact size (the extracted bytes are the file), or say `size_exact: false`.

mod common;

use common::disc::{noise, pack};
use retroanim::formats::hmd::{self, RegionBody, SectionData};
use retroanim::scan::{scan_bytes, Find, ScanOptions};
use retroanim::Format;

fn opts() -> ScanOptions {
    ScanOptions {
        align: 1,
        formats: vec![Format::Hmd],
        ..ScanOptions::default()
    }
}

/// The HMD finds of `files` packed among noise: (find, file) pairs by offset.
fn packed(files: &[Vec<u8>]) -> Vec<(Option<Find>, usize)> {
    let slices: Vec<&[u8]> = files.iter().map(|f| &f[..]).collect();
    let (mut blob, offsets) = pack(&slices, 29);
    blob.extend_from_slice(&noise(5, 777));
    let finds = scan_bytes(&blob, &opts());
    offsets
        .iter()
        .enumerate()
        .map(|(i, &at)| (finds.iter().find(|f| f.offset == at).cloned(), i))
        .collect()
}

fn kind(d: &SectionData) -> &'static str {
    match d {
        SectionData::Vectors { .. } => "vectors",
        SectionData::Polygons(_) => "polygons",
        SectionData::InterpolationTable { .. } => "interpolation table",
        SectionData::SequenceControl(_) => "sequence control",
        SectionData::Parameters(_) => "parameters",
        SectionData::Devices(_) => "devices",
        SectionData::MimeDiff(_) => "MIMe DIFF",
        SectionData::Weights(_) => "MIMe weights",
        SectionData::Vram(_) => "image/CLUT",
        SectionData::GroundPolygon(_) => "ground polygon",
        SectionData::Grid(_) => "ground grid",
        SectionData::GroundUv(_) => "ground UV",
        SectionData::Heights { .. } => "ground heights",
        SectionData::Raw(_) => "unknown",
    }
}

#[test]
fn every_corpus_hmd_packed_at_odd_offsets_is_found_with_its_exact_size() {
    let files: Vec<(String, Vec<u8>)> = common::corpus_files("HMD")
        .into_iter()
        .map(|(n, p)| (n, std::fs::read(p).unwrap()))
        .collect();
    if files.is_empty() {
        return;
    }
    let data: Vec<Vec<u8>> = files.iter().map(|f| f.1.clone()).collect();
    let (mut whole, mut cut, mut unknown, mut bad) = (0, Vec::new(), Vec::new(), Vec::new());
    for (find, i) in packed(&data) {
        let (name, file) = &files[i];
        let Some(f) = find else {
            bad.push(format!("{name}: not found"));
            continue;
        };
        let bytes = f.bytes().unwrap();
        if !f.size_exact {
            unknown.push(name.clone());
        } else if bytes == *file {
            whole += 1;
        } else if file.starts_with(&bytes) {
            // Words past the structure's end that nothing uses (hmd_extent.rs shows they
            // change nothing).
            cut.push(format!("{name}: {} of {}", bytes.len(), file.len()));
        } else {
            bad.push(format!("{name}: other bytes"));
        }
    }
    println!(
        "{whole} of {} found whole; cut after their last used word: {cut:#?}; size not known: {unknown:?}",
        files.len()
    );
    assert!(bad.is_empty(), "{bad:#?}");
    // Sony's TRI.HMD (ANIM/TRI3) ends in a parameter section whose last 24 bytes repeat the
    // values of its last two key frames and are named by no descriptor: nothing in the file
    // reaches them, so the find ends after the last key frame a descriptor names.
    for (name, file) in files
        .iter()
        .filter(|(n, _)| n.ends_with("ANIM/TRI3/TRI.HMD"))
    {
        let h = hmd::read(file).unwrap();
        assert_eq!(
            hmd::structural_len(&h),
            Some(file.len() as u64 - 24),
            "{name}"
        );
    }
}

/// Each corpus HMD rewritten with one section region moved to the end of the file (the writer
/// recomputes every pointer), for every kind of section the corpus has.
fn ending_in_each_kind() -> Vec<(String, &'static str, Vec<u8>)> {
    let mut out: Vec<(String, &'static str, Vec<u8>)> = Vec::new();
    let mut kinds_seen = std::collections::BTreeMap::new();
    for (name, path) in common::corpus_files("HMD") {
        let data = std::fs::read(&path).unwrap();
        let h = hmd::read(&data).unwrap();
        for (i, r) in h.regions.iter().enumerate() {
            let RegionBody::Section(s) = &r.body else {
                continue;
            };
            let k = kind(&s.data);
            // A polygon section moved away from the sections its indices were counted with
            // reads as other packets (BALLOON.HMD's runs on into the bytes after it): the
            // corpus files that end in polygons (FLAG.HMD) cover that kind.
            if k == "polygons" || *kinds_seen.entry(k).or_insert(0) >= 3 {
                continue;
            }
            let mut moved = h.clone();
            let region = moved.regions.remove(i);
            moved.regions.push(region);
            let Ok(bytes) = hmd::write(&moved) else {
                continue;
            };
            // The moved section must read back as the same kind of last section.
            let Ok(back) = hmd::read(&bytes) else {
                continue;
            };
            let same = matches!(back.regions.last().map(|r| &r.body),
                Some(RegionBody::Section(b)) if kind(&b.data) == k);
            if same {
                *kinds_seen.get_mut(k).unwrap() += 1;
                out.push((name.clone(), k, bytes));
            }
        }
    }
    out
}

#[test]
fn hmds_ending_in_each_kind_of_section_are_found_with_their_exact_size() {
    let built = ending_in_each_kind();
    if built.is_empty() {
        return;
    }
    let data: Vec<Vec<u8>> = built.iter().map(|b| b.2.clone()).collect();
    let mut rows = Vec::new();
    let mut bad = Vec::new();
    for (find, i) in packed(&data) {
        let (name, k, file) = &built[i];
        let h = hmd::read(file).unwrap();
        let Some(f) = find else {
            bad.push(format!("{name} ending in {k}: not found"));
            continue;
        };
        let bytes = f.bytes().unwrap();
        let exact_len = hmd::structural_len(&h);
        match exact_len {
            // Where the structure gives the end, the find ends there.
            Some(len) => {
                if !f.size_exact || f.size != len || !file.starts_with(&bytes) {
                    bad.push(format!(
                        "{name} ending in {k}: {} bytes (exact: {}), structure says {len}",
                        f.size, f.size_exact
                    ));
                }
            }
            // Elsewhere the find says its size is not known.
            None => {
                if f.size_exact {
                    bad.push(format!("{name} ending in {k}: claims an exact size"));
                }
            }
        }
        rows.push(format!(
            "{k:20} {name}: {} of {} bytes{}",
            f.size,
            file.len(),
            if f.size_exact {
                ""
            } else {
                " (size_exact: false)"
            }
        ));
    }
    rows.sort();
    println!("{}", rows.join("\n"));
    assert!(bad.is_empty(), "{bad:#?}");
    // The kinds the end-finder models end exactly where the file does when every word of
    // the moved section is used.
    for k in [
        "sequence control",
        "MIMe weights",
        "interpolation table",
        "image/CLUT",
    ] {
        assert!(
            built.iter().any(|b| b.1 == k),
            "no corpus HMD has a {k} section to move"
        );
    }
}
