//! Disc images built from corpus files with xorriso (ISO 9660) and with the library's Mode 2
//! sector writer (checked by Debian's bchunk converting it back to the same ISO): every
//! embedded TOD, TMD, TIM and HMD is found once, at its offset, with its size, and its bytes
//! read back are the file's. Hostile images and archives give errors naming their offset.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::disc::{expected, expected_embedded, have_tool, noise, pack, pick, raw_image, xorriso};
use retroanim::scan::{self, Report, ScanOptions};
use retroanim::Format;

/// Where each asset must be: container suffix → (format, offset, size) → expected bytes.
type Expect = BTreeMap<String, Vec<(Format, u64, u64, Vec<u8>)>>;

/// A folder of plain corpus files and two blob archives, and what it holds.
fn build_tree(dir: &Path) -> Option<Expect> {
    let kinds = [
        ("TOD", Format::Tod),
        ("TMD", Format::Tmd),
        ("TIM", Format::Tim),
        ("HMD", Format::Hmd),
    ];
    let mut want = Expect::new();
    let mut packed: Vec<(usize, Format, Vec<u8>)> = Vec::new();
    for (kind, format) in kinds {
        let files = pick(kind, 12);
        if files.is_empty() {
            return None;
        }
        std::fs::create_dir_all(dir.join(kind)).unwrap();
        for (i, (_, data)) in files.iter().enumerate() {
            if i % 2 == 0 {
                let name = format!("{kind}/F{i:02}.{kind}");
                std::fs::write(dir.join(&name), data).unwrap();
                let list = want.entry(format!(":/{name}")).or_default();
                for (f, o, s) in expected(format, data) {
                    list.push((f, o, s, data[o as usize..(o + s) as usize].to_vec()));
                }
            } else {
                packed.push((i, format, data.clone()));
            }
        }
    }
    std::fs::create_dir_all(dir.join("DATA")).unwrap();
    // Formats interleaved, so that HMDs sit between other assets (an HMD ends where its
    // structure does).
    packed.sort_by_key(|p| p.0);
    for (a, half) in packed.chunks(packed.len().div_ceil(2)).enumerate() {
        let files: Vec<(Format, &[u8])> = half.iter().map(|(_, f, d)| (*f, &d[..])).collect();
        let bytes: Vec<&[u8]> = files.iter().map(|(_, d)| *d).collect();
        let (mut blob, offsets) = pack(&bytes, 77 + a as u64);
        blob.extend_from_slice(&noise(5, 333));
        let name = format!("DATA/PACK{a}.BIN");
        std::fs::write(dir.join(&name), &blob).unwrap();
        let list = want.entry(format!(":/{name}")).or_default();
        for ((format, data), at) in files.iter().zip(offsets) {
            for (f, o, s) in expected_embedded(*format, data) {
                list.push((f, at + o, s, data[o as usize..(o + s) as usize].to_vec()));
            }
        }
    }
    Some(want)
}

fn opts() -> ScanOptions {
    ScanOptions {
        align: 1,
        ..ScanOptions::default()
    }
}

/// Checks the report holds exactly the expected finds, and that their bytes are the files'.
fn check(report: &Report, want: &Expect, image: Option<&[u8]>) {
    assert!(report.errors.is_empty(), "{:?}", report.errors);
    let mut got: BTreeMap<String, Vec<(Format, u64, u64)>> = BTreeMap::new();
    for f in &report.finds {
        let key = f
            .container
            .rsplit_once(":/")
            .map(|(_, p)| format!(":/{p}"))
            .unwrap();
        got.entry(key)
            .or_default()
            .push((f.format, f.offset, f.size));
        let bytes = f.bytes().unwrap();
        let exp = want
            .get(&format!(":/{}", f.container.rsplit_once(":/").unwrap().1))
            .and_then(|l| l.iter().find(|e| e.1 == f.offset))
            .unwrap_or_else(|| {
                panic!(
                    "unexpected find {} @ {} ({})",
                    f.container, f.offset, f.format
                )
            });
        assert!(bytes == exp.3, "{}@{}: bytes differ", f.container, f.offset);
        if let Some(img) = image {
            // The first bytes of the find sit at its image offset in the raw image.
            let at = f
                .image_offset
                .expect("finds in an image have an image offset") as usize;
            let n = (2048 - f.offset as usize % 2048).min(bytes.len()).min(16);
            assert_eq!(
                &img[at..at + n],
                &bytes[..n],
                "{}@{}",
                f.container,
                f.offset
            );
        }
    }
    let want_list: BTreeMap<String, Vec<(Format, u64, u64)>> = want
        .iter()
        .map(|(k, v)| (k.clone(), v.iter().map(|e| (e.0, e.1, e.2)).collect()))
        .collect();
    assert_eq!(got, want_list);
}

fn tmp() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

#[test]
fn iso_and_raw_images_from_the_corpus() {
    if !have_tool("xorriso") || !have_tool("bchunk") {
        return;
    }
    let t = tmp();
    let tree = t.path().join("tree");
    let Some(want) = build_tree(&tree) else {
        return;
    };
    let iso = t.path().join("disc.iso");
    xorriso(&tree, &iso);

    let report = scan::scan_paths(std::slice::from_ref(&iso), &opts());
    check(&report, &want, None);
    assert!(report
        .finds
        .iter()
        .all(|f| f.container.starts_with(&*iso.display().to_string())));

    // Raw Mode 2 image by our writer; bchunk turns it back into the same ISO.
    let bin = t.path().join("disc.bin");
    let cue = raw_image(&iso, &bin);
    let out = Command::new("bchunk")
        .arg(&bin)
        .arg(&cue)
        .arg(t.path().join("back"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "bchunk: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let iso_bytes = std::fs::read(&iso).unwrap();
    let back = std::fs::read(t.path().join("back01.iso")).unwrap();
    assert_eq!(back.len(), iso_bytes.len().div_ceil(2048) * 2048);
    assert!(
        back[..iso_bytes.len()] == iso_bytes[..],
        "bchunk gives back another ISO"
    );

    let raw = std::fs::read(&bin).unwrap();
    let report = scan::scan_paths(std::slice::from_ref(&bin), &opts());
    check(&report, &want, Some(&raw));
    // Through the cue sheet: the same finds, and the .bin beside it is not scanned twice.
    let report = scan::scan_paths(&[t.path().to_path_buf()], &opts());
    let in_bin = report
        .finds
        .iter()
        .filter(|f| f.container.starts_with(&*bin.display().to_string()))
        .count();
    let n: usize = want.values().map(Vec::len).sum();
    assert_eq!(in_bin, n, "the image through its cue sheet");
}

/// Corpus P3Ds that are models on their own (the corpus also holds broken fuzz fixtures).
fn valid_p3ds() -> Vec<(String, Vec<u8>)> {
    pick("p3d-mlod", 6)
        .into_iter()
        .filter(|(_, d)| {
            retroanim::formats::p3d::read(d).is_ok_and(|p| {
                retroanim::formats::p3d::validate(&p)
                    .iter()
                    .all(|i| i.severity != retroanim::Severity::Error)
            })
        })
        .collect()
}

#[test]
fn pbo_archives_hold_corpus_p3ds() {
    let files = valid_p3ds();
    if files.is_empty() {
        return;
    }
    let entries: Vec<(String, &[u8])> = files
        .iter()
        .enumerate()
        .map(|(i, (_, d))| (format!("data\\m{i}.p3d"), &d[..]))
        .collect();
    let named: Vec<(&str, &[u8])> = entries.iter().map(|(n, d)| (n.as_str(), *d)).collect();
    let archive = scan::pbo::write(&[("prefix", "test")], &named, Some([0; 20]));
    let t = tmp();
    let path = t.path().join("models.pbo");
    std::fs::write(&path, &archive).unwrap();
    let report = scan::scan_paths(std::slice::from_ref(&path), &ScanOptions::default());
    assert!(report.errors.is_empty(), "{:?}", report.errors);
    assert_eq!(report.finds.len(), files.len(), "{:?}", report.finds);
    for (i, (_, data)) in files.iter().enumerate() {
        let f = report
            .finds
            .iter()
            .find(|f| f.container.ends_with(&format!(":/data/m{i}.p3d")))
            .expect("each entry found");
        assert_eq!((f.format, f.offset), (Format::P3d, 0));
        // An MLOD ends after its last LOD; bytes after it (OFP's default path) are not its own.
        let bytes = f.bytes().unwrap();
        assert!(bytes.len() <= data.len() && bytes[..] == data[..bytes.len()]);
        assert!(
            data.len() - bytes.len() <= 64,
            "{} of {} bytes",
            bytes.len(),
            data.len()
        );
    }
}

/// A PBO header entry as the layout table gives it: asciiz name, then method, original size,
/// reserved, timestamp and data size (little-endian words).
fn pbo_entry(out: &mut Vec<u8>, name: &str, method: &[u8; 4], original: usize, size: usize) {
    out.extend_from_slice(name.as_bytes());
    out.push(0);
    out.extend_from_slice(&u32::from_le_bytes(*method).to_be_bytes());
    for w in [original as u32, 0, 0, size as u32] {
        out.extend_from_slice(&w.to_le_bytes());
    }
}

#[test]
fn packed_pbo_entries_are_unpacked_and_scanned() {
    let files = valid_p3ds();
    let Some((_, model)) = files.first() else {
        return;
    };
    let packed = scan::lzss::pack(model);
    assert!(packed.len() < model.len());
    // Header: product entry, one packed entry ("Cprs" read as a big-endian tag), one stored
    // entry, the end entry; then the data.
    let build = |packed: &[u8], claimed: usize| {
        let mut a = Vec::new();
        pbo_entry(&mut a, "", b"Vers", 0, 0);
        a.extend_from_slice(b"prefix\0x\0\0");
        pbo_entry(&mut a, "data\\packed.p3d", b"Cprs", model.len(), claimed);
        pbo_entry(&mut a, "data\\stored.txt", &[0; 4], 0, 5);
        pbo_entry(&mut a, "", &[0; 4], 0, 0);
        let data_at = a.len();
        a.extend_from_slice(packed);
        a.extend_from_slice(b"hello");
        (a, data_at)
    };
    let t = tmp();
    let path = t.path().join("packed.pbo");
    let (archive, _) = build(&packed, packed.len());
    std::fs::write(&path, &archive).unwrap();
    let report = scan::scan_paths(std::slice::from_ref(&path), &ScanOptions::default());
    assert!(report.errors.is_empty(), "{:?}", report.errors);
    assert_eq!(report.finds.len(), 1, "{:?}", report.finds);
    let f = &report.finds[0];
    assert!(
        f.container.ends_with(":/data/packed.p3d"),
        "{}",
        f.container
    );
    assert_eq!((f.format, f.offset, f.image_offset), (Format::P3d, 0, None));
    let bytes = f.bytes().unwrap();
    assert!(bytes[..] == model[..bytes.len()] && model.len() - bytes.len() <= 64);

    // A flipped checksum byte: an error at the checksum's offset in the archive.
    let mut bad = packed.clone();
    let last = bad.len() - 1;
    bad[last] ^= 0x55;
    let (archive, data_at) = build(&bad, bad.len());
    std::fs::write(&path, &archive).unwrap();
    let report = scan::scan_paths(std::slice::from_ref(&path), &ScanOptions::default());
    let (offset, text) = first_error(&report);
    assert_eq!(offset, Some((data_at + last - 3) as u64), "{text}");
    assert!(text.contains("checksum"), "{text}");
    // Packed data cut short (the entry claims fewer bytes): an error inside the entry's data.
    let (archive, data_at) = build(&packed[..packed.len() / 2], packed.len() / 2);
    std::fs::write(&path, &archive).unwrap();
    let report = scan::scan_paths(std::slice::from_ref(&path), &ScanOptions::default());
    let (offset, text) = first_error(&report);
    let o = offset.expect("an offset") as usize;
    assert!(
        (data_at..=data_at + packed.len() / 2).contains(&o),
        "{text}"
    );
    // A data size far beyond what LZSS can take for the original size: named at the header.
    let mut a = Vec::new();
    pbo_entry(&mut a, "", b"Vers", 0, 0);
    a.push(0);
    let header = a.len();
    pbo_entry(&mut a, "x.p3d", b"Cprs", 16, 4000);
    pbo_entry(&mut a, "", &[0; 4], 0, 0);
    a.resize(a.len() + 4000, 0);
    std::fs::write(&path, &a).unwrap();
    let report = scan::scan_paths(std::slice::from_ref(&path), &ScanOptions::default());
    assert_eq!(first_error(&report).0, Some(header as u64));
}

fn first_error(report: &Report) -> (Option<u64>, String) {
    let e = report.errors.first().expect("an error");
    (e.error.offset(), e.error.to_string())
}

#[test]
fn hostile_containers_give_errors_with_offsets() {
    let t = tmp();
    // A cue sheet whose track starts past the end of its image.
    std::fs::write(t.path().join("short.bin"), vec![0u8; 2352 * 4]).unwrap();
    let cue = t.path().join("short.cue");
    std::fs::write(
        &cue,
        "FILE \"short.bin\" BINARY\n  TRACK 01 MODE2/2352\n    INDEX 01 00:01:00\n",
    )
    .unwrap();
    let (off, msg) = first_error(&scan::scan_paths(&[cue], &opts()));
    assert_eq!(off, Some(46), "{msg}");
    assert!(msg.contains("track 1"), "{msg}");

    // A PBO whose entry claims more data than the archive has.
    let mut a = scan::pbo::write(&[], &[("a.p3d", b"MLOD"), ("b.p3d", b"MLOD")], None);
    let b_header = 22 + 26; // product entry, then "a.p3d\0" and 20 bytes
    a[b_header + 6 + 16..b_header + 6 + 20].copy_from_slice(&0x7FFF_FFFFu32.to_le_bytes());
    let pbo = t.path().join("lying.pbo");
    std::fs::write(&pbo, &a).unwrap();
    let (off, msg) = first_error(&scan::scan_paths(&[pbo], &opts()));
    assert_eq!(off, Some(b_header as u64), "{msg}");

    if !have_tool("xorriso") {
        return;
    }
    // An ISO whose subdirectory points back at the root directory.
    let tree = t.path().join("tree");
    std::fs::create_dir_all(tree.join("SUB")).unwrap();
    std::fs::write(tree.join("SUB/X.BIN"), b"data").unwrap();
    let iso = t.path().join("loop.iso");
    xorriso(&tree, &iso);
    let mut img = std::fs::read(&iso).unwrap();
    let root = 16 * 2048 + 156;
    let root_extent = u32::from_le_bytes(img[root + 2..root + 6].try_into().unwrap()) as usize;
    let mut p = root_extent * 2048;
    let sub = loop {
        let len = img[p] as usize;
        assert!(len > 0, "SUB's record");
        if img[p + 25] & 2 != 0 && img[p + 32] == 3 && &img[p + 33..p + 36] == b"SUB" {
            break p;
        }
        p += len;
    };
    img[sub + 2..sub + 6].copy_from_slice(&(root_extent as u32).to_le_bytes());
    img[sub + 6..sub + 10].copy_from_slice(&(root_extent as u32).to_be_bytes());
    std::fs::write(&iso, &img).unwrap();
    let (off, msg) = first_error(&scan::scan_paths(std::slice::from_ref(&iso), &opts()));
    assert_eq!(off, Some(sub as u64 + 2), "{msg}");
    assert!(msg.contains("loop"), "{msg}");
    // The same subdirectory pointing past the end of the image.
    img[sub + 2..sub + 6].copy_from_slice(&0x00FF_FFFFu32.to_le_bytes());
    std::fs::write(&iso, &img).unwrap();
    let (off, msg) = first_error(&scan::scan_paths(&[iso], &opts()));
    assert_eq!(off, Some(sub as u64 + 2), "{msg}");
}

/// Megabytes of random bytes to scan: 8 by default, `RETROANIM_SCAN_RANDOM_MB` to change it.
fn random_mb() -> usize {
    std::env::var("RETROANIM_SCAN_RANDOM_MB")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(8)
}

#[test]
fn random_bytes_hold_no_clean_asset() {
    let data = noise(0x5EED, random_mb() << 20);
    let t = tmp();
    let path = t.path().join("random.bin");
    std::fs::write(&path, &data).unwrap();
    for align in [1, 4] {
        let r = scan::scan_paths(
            std::slice::from_ref(&path),
            &ScanOptions {
                align,
                ..ScanOptions::default()
            },
        );
        let clean: Vec<_> = r
            .finds
            .iter()
            .filter(|f| f.status == scan::Status::Clean)
            .collect();
        assert!(clean.is_empty(), "align {align}: {clean:?}");
    }
}

/// Shared libraries and executables of the machine (at most 64 MB of them by default).
fn system_binaries() -> Vec<PathBuf> {
    let mut files = Vec::new();
    for dir in ["/usr/lib/x86_64-linux-gnu", "/usr/bin"] {
        if let Ok(rd) = std::fs::read_dir(dir) {
            let mut v: Vec<PathBuf> = rd
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.is_file())
                .filter(|p| {
                    dir.ends_with("bin") || p.file_name().unwrap().to_string_lossy().contains(".so")
                })
                .collect();
            v.sort();
            files.extend(v);
        }
    }
    let limit = (random_mb() as u64 * 8) << 20;
    let mut total = 0;
    files.retain(|p| {
        let n = std::fs::metadata(p).map(|m| m.len()).unwrap_or(0);
        total += n;
        total <= limit
    });
    files
}

#[test]
fn system_binaries_hold_no_clean_asset() {
    let files = system_binaries();
    if files.is_empty() {
        eprintln!("\n*** SKIPPING: no system binaries found ***\n");
        return;
    }
    let r = scan::scan_paths(&files, &ScanOptions::default());
    let clean: Vec<String> = r
        .finds
        .iter()
        .filter(|f| f.status == scan::Status::Clean)
        .map(|f| format!("{}@{} {} {}", f.container, f.offset, f.format, f.size))
        .collect();
    assert!(
        clean.is_empty(),
        "{} clean finds:\n{}",
        clean.len(),
        clean.join("\n")
    );
}

#[test]
fn a_cue_naming_a_fifo_is_an_error_not_a_hang() {
    // Opening a FIFO waits for a writer forever: the scan refuses anything but a regular file
    // before opening it, and goes on with the rest.
    let dir = tmp();
    let fifo = dir.path().join("TRACK.BIN");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    if !made.is_ok_and(|s| s.success()) {
        eprintln!("*** SKIPPING: mkfifo unavailable ***");
        return;
    }
    let cue = dir.path().join("GAME.CUE");
    std::fs::write(
        &cue,
        "FILE \"TRACK.BIN\" BINARY\n  TRACK 01 MODE2/2352\n    INDEX 01 00:00:00\n",
    )
    .unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let paths = vec![cue.clone(), fifo.clone()];
    std::thread::spawn(move || {
        let r = retroanim::scan::scan_paths(&paths, &opts());
        let _ = tx.send(r);
    });
    let report = rx
        .recv_timeout(std::time::Duration::from_secs(60))
        .expect("the scan returned instead of waiting on the FIFO");
    assert!(report.finds.is_empty());
    let msgs: Vec<String> = report.errors.iter().map(|e| e.error.to_string()).collect();
    assert!(
        msgs.iter().any(|m| m.contains("not a regular file")),
        "{msgs:?}"
    );
}
