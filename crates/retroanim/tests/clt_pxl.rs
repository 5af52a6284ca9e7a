//! CLT and PXL: SUBDIV's CD2.CLT (a headerless palette) read and written back; hand-built
//! files from the manual's tables; a TIM split into PXL + CLT and joined back byte for byte;
//! damaged files named by offset; scan finds them in a blob.

mod common;

use retroanim::convert::{convert_bytes, Options};
use retroanim::formats::{clt, pxl, tim};
use retroanim::{Format, Limits, Severity};

fn le32(w: &[u32]) -> Vec<u8> {
    w.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// A file of ID `id`, FLAG `flag`, and a section at (x, y) of `w × h` halfwords `data`.
fn file(id: u32, flag: u32, x: u16, y: u16, w: u16, h: u16, data: &[u16]) -> Vec<u8> {
    let bnum = 12 + 2 * data.len() as u32;
    let mut b = le32(&[id, flag, bnum]);
    for v in [x, y, w, h].iter().chain(data) {
        b.extend(v.to_le_bytes());
    }
    b
}

#[test]
fn the_corpus_palette_reads_as_a_headerless_palette_and_writes_back() {
    for (name, path) in common::corpus_files("CLT") {
        let bytes = std::fs::read(&path).unwrap();
        // No ID 0x12: not detected, and the strict reader says why at byte 0.
        assert_eq!(retroanim::detect(&bytes), None, "{name}");
        match clt::read(&bytes) {
            Err(retroanim::Error::Malformed { offset: 0, .. }) => {}
            other => panic!("{name}: {other:?}"),
        }
        // Named as a CLT (`--from clt`): 256 entries, as SUBDIV's LoadClut takes them.
        let m = retroanim::read_as(&bytes, Some(Format::Clt), &Limits::default()).unwrap();
        let retroanim::Model::Clt(c) = &m else {
            panic!("{name}")
        };
        assert!(c.header.is_none());
        assert_eq!(c.clut.data.len(), bytes.len() / 2);
        assert_eq!(c.clut.data[1], u16::from_le_bytes([bytes[2], bytes[3]]));
        assert_eq!(m.write().unwrap(), bytes, "{name}");
        assert!(m.validate().iter().all(|i| i.severity == Severity::Info));
    }
}

#[test]
fn hand_built_files_read_as_the_manual_lays_them_out() {
    // CLT: 4-bit CLUTs, 16 entries × 2 rows at (0, 480).
    let entries: Vec<u16> = (0..32).map(|i| i * 0x0421).collect();
    let c = file(0x12, 2, 0, 480, 16, 2, &entries);
    assert_eq!(retroanim::detect(&c), Some(Format::Clt));
    let m = clt::read(&c).unwrap();
    assert_eq!(
        (m.clut.x, m.clut.y, m.clut.width, m.clut.height),
        (0, 480, 16, 2)
    );
    assert_eq!(m.clut.data, entries);
    assert_eq!(clt::write(&m).unwrap(), c);
    assert!(clt::validate(&m).is_empty());
    // PXL: 4 bpp, 8 × 2 pixels (2 VRAM units wide) at (640, 0); pixel 0 in the low nibble.
    let px = [0x3210u16, 0x7654, 0xBA98, 0xFEDC];
    for (flag, bpp, width) in [(0u32, 4u8, 8usize), (1, 8, 4)] {
        let p = file(0x11, flag, 640, 0, 2, 2, &px);
        assert_eq!(retroanim::detect(&p), Some(Format::Pxl));
        let m = pxl::read(&p).unwrap();
        assert_eq!(
            (m.bpp(), m.summary().width, m.summary().height),
            (bpp, width, 2)
        );
        assert_eq!(pxl::write(&m).unwrap(), p);
        assert!(pxl::validate(&m).is_empty());
    }
    // Joined: the PXL's pixels through the CLT's row 1 (`--clut 1`): pixel k is entry 16 + k.
    let p = file(0x11, 0, 640, 0, 2, 2, &px);
    let t = pxl::to_tim(&pxl::read(&p).unwrap(), Some(&clt::read(&c).unwrap().clut));
    let rgba = t
        .to_rgba(&tim::DecodeOptions {
            clut_row: 1,
            ..Default::default()
        })
        .unwrap();
    for k in 0..16 {
        let want = tim::color15(entries[16 + k], tim::Stp::Opaque);
        let at = 4 * k;
        assert_eq!(rgba.pixels[at..at + 4], want, "pixel {k}");
    }
}

#[test]
fn a_tim_splits_into_pxl_and_clt_and_joins_back_exactly() {
    let mut n = 0;
    for (name, path) in common::corpus_files("TIM") {
        let bytes = std::fs::read(&path).unwrap();
        let Ok(t) = tim::read(&bytes) else { continue };
        if t.pmode > 1
            || t.clut.is_none()
            || !t.trailing.is_empty()
            || t.version != 0
            || t.flags_reserved != 0
            || t.id_reserved != 0
        {
            continue;
        }
        n += 1;
        let out = convert_bytes(&bytes, None, Format::Pxl, &Options::default()).unwrap();
        assert_eq!(out.extra.len(), 1, "{name}: the CLT goes beside the PXL");
        let p = pxl::read(&out.bytes).unwrap();
        let c = clt::read(&out.extra[0].bytes).unwrap();
        assert!(
            pxl::validate(&p)
                .iter()
                .all(|i| i.severity != Severity::Error),
            "{name}"
        );
        let opts = Options {
            textures: retroanim::convert::Textures {
                clt: Some(c),
                ..Default::default()
            },
            ..Default::default()
        };
        let back = convert_bytes(&out.bytes, None, Format::Tim, &opts).unwrap();
        assert_eq!(back.bytes, bytes, "{name}");
        assert!(back.notes.is_empty(), "{name}: {:?}", back.notes);
        if n >= 40 {
            break;
        }
    }
    if n == 0 && !common::corpus_files("TIM").is_empty() {
        panic!("no 4- or 8-bit corpus TIM with a CLUT to split");
    }
}

#[test]
fn a_pxl_without_a_palette_says_so() {
    let p = file(0x11, 0, 640, 0, 1, 1, &[0x1234]);
    match convert_bytes(&p, None, Format::Png, &Options::default()) {
        Err(e) => assert!(e.to_string().contains("--clt"), "{e}"),
        Ok(_) => panic!("a PXL became a PNG without a palette"),
    }
    let out = convert_bytes(&p, None, Format::Tim, &Options::default()).unwrap();
    assert!(out.notes.iter().any(|n| n.code == "no-clut"));
}

#[test]
fn damaged_files_are_refused_naming_the_offset() {
    // bnum shorter than W × H: the bnum field is blamed.
    let mut c = file(0x12, 2, 0, 480, 16, 1, &[0; 16]);
    c[8..12].copy_from_slice(&20u32.to_le_bytes());
    match clt::read(&c) {
        Err(retroanim::Error::Malformed { offset: 8, .. }) => {}
        other => panic!("{other:?}"),
    }
    // Cut short: an error, never a panic.
    let p = file(0x11, 1, 0, 0, 4, 4, &[7; 16]);
    for cut in 0..p.len() {
        assert!(pxl::read(&p[..cut]).is_err(), "cut at {cut}");
    }
    // A rectangle past the VRAM: a validation error.
    let p = file(0x11, 1, 1020, 0, 8, 1, &[0; 8]);
    let m = pxl::read(&p).unwrap();
    assert!(pxl::validate(&m)
        .iter()
        .any(|i| i.code == "vram-bounds" && i.severity == Severity::Error));
}

#[test]
fn scan_finds_pmd_clt_and_pxl_in_a_blob() {
    let Some(share) = common::corpus_file("PMD", "3.6/PSX/SAMPLE/GRAPHICS/PMD/SHARE.PMD") else {
        return;
    };
    let pmd = std::fs::read(share).unwrap();
    let c = file(0x12, 2, 0, 480, 16, 1, &[0x7FFF; 16]);
    let p = file(0x11, 0, 640, 0, 2, 2, &[1, 2, 3, 4]);
    let mut blob = vec![0xA5u8; 64];
    let mut want = Vec::new();
    for part in [&pmd, &c, &p] {
        want.push(blob.len() as u64);
        blob.extend_from_slice(part);
        blob.extend_from_slice(&[0x5A; 36]);
    }
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("blob.bin");
    std::fs::write(&f, &blob).unwrap();
    let finds = retroanim::scan::scan_paths(&[f], &retroanim::scan::ScanOptions::default());
    let got: Vec<(Format, u64, u64)> = finds
        .finds
        .iter()
        .map(|x| (x.format, x.offset, x.size))
        .collect();
    assert_eq!(
        got,
        vec![
            (Format::Pmd, want[0], pmd.len() as u64),
            (Format::Clt, want[1], c.len() as u64),
            (Format::Pxl, want[2], p.len() as u64),
        ]
    );
}
