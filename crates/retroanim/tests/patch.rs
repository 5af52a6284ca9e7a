//! `patch` on images built from corpus files: an ISO (xorriso, no padding, so a grown file is
//! appended), the same as raw Mode 2 sectors with a cue sheet (some sectors Form 2 XA, which
//! must come back bit for bit), and a raw image whose data track is followed by an audio track
//! (a grown file moves into the track's free sectors). Same-size, smaller and larger
//! replacements of whole files and of assets packed in a blob: afterwards `scan` finds each new
//! asset at its place with its bytes and every other find as it was, and xorriso (through
//! bchunk for raw images) extracts every file with the expected contents. PBO entries grow with
//! the archive's SHA-1 footer computed again. Refused replacements leave no output.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::disc::{expected, have_tool, noise, pack, pick, raw_image};
use retroanim::patch::{self, Options, Replacement};
use retroanim::scan::{self, ScanOptions};
use retroanim::{Format, Severity};

type Finds = BTreeMap<String, (Format, u64, Vec<u8>)>;

/// Every find of an image by its place (`/PATH+OFFSET`), with format, size and bytes.
fn finds(path: &Path) -> Finds {
    let opts = ScanOptions {
        align: 1,
        ..ScanOptions::default()
    };
    let r = scan::scan_paths(&[path.to_path_buf()], &opts);
    assert!(r.errors.is_empty(), "{:?}", r.errors);
    r.finds
        .iter()
        .map(|f| {
            let c = &f.container;
            let inner = c.find(":/").map_or("", |i| &c[i + 1..]);
            (
                format!("{inner}+{}", f.offset),
                (f.format, f.size, f.bytes().unwrap()),
            )
        })
        .collect()
}

/// A TIM that is one whole file and validates without errors.
fn whole_tim(data: &[u8]) -> bool {
    expected(Format::Tim, data) == [(Format::Tim, 0, data.len() as u64)]
        && retroanim::read_any(data)
            .is_ok_and(|m| m.validate().iter().all(|i| i.severity != Severity::Error))
}

/// Small, medium and large whole-file TIMs (the large one needs sectors the small one's
/// extent does not have, and fits the 300 KiB xorriso pads a volume with).
fn three_tims() -> Option<[Vec<u8>; 3]> {
    let tims: Vec<Vec<u8>> = common::corpus_files("TIM")
        .into_iter()
        .map(|(_, p)| std::fs::read(p).unwrap())
        .filter(|d| whole_tim(d))
        .collect();
    let first = |lo: usize, hi: usize| tims.iter().find(|d| (lo..hi).contains(&d.len())).cloned();
    Some([
        first(400, 2100)?,
        first(4000, 12_000)?,
        first(16_000, 70_000)?,
    ])
}

/// The same TIM with other pixels (the last 64 bytes of its pixel block inverted).
fn repainted(tim: &[u8]) -> Vec<u8> {
    let mut t = tim.to_vec();
    let n = t.len();
    for b in &mut t[n - 64..] {
        *b ^= 0xFF;
    }
    t
}

struct Disc {
    tree: PathBuf,
    /// Expected file contents after the patch, by path in the image.
    after: BTreeMap<String, Vec<u8>>,
    reps: Vec<Replacement>,
    /// The blob's small TIM and a large TIM (a larger replacement that cannot fit).
    blob_small: (String, Vec<u8>),
}

/// A folder of corpus files and a blob, and the replacements the tests make in it.
fn build(dir: &Path) -> Option<Disc> {
    let [s, m, l] = three_tims()?;
    let others: Vec<(&str, Vec<u8>)> = ["TMD", "TOD", "HMD"]
        .iter()
        .flat_map(|k| pick(k, 2).into_iter().map(move |(_, d)| (*k, d)))
        .collect();
    if others.is_empty() {
        return None;
    }
    let tree = dir.join("tree");
    let mut files: BTreeMap<String, Vec<u8>> = BTreeMap::new();
    files.insert("/TIM/S.TIM".into(), s.clone());
    files.insert("/TIM/M.TIM".into(), m.clone());
    files.insert("/TIM/L.TIM".into(), l.clone());
    for (i, (k, d)) in others.iter().enumerate() {
        files.insert(format!("/{k}/F{i}.{k}"), d.clone());
    }
    let (mut blob, at) = pack(&[&m, &l, &s, &others[0].1], 5);
    blob.extend_from_slice(&noise(9, 500));
    files.insert("/DATA/PACK.BIN".into(), blob.clone());
    files.insert("/XA/NOISE.BIN".into(), noise(3, 20 * 2048));
    for (name, d) in &files {
        let p = tree.join(name.trim_start_matches('/'));
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, d).unwrap();
    }
    let mut after = files.clone();
    let mut reps = Vec::new();
    let mut put = |place: String, data: Vec<u8>| {
        reps.push(Replacement { place, data });
    };
    // Whole files: same size, smaller (padded), larger (moved).
    let m2 = repainted(&m);
    put("/TIM/M.TIM+0".into(), m2.clone());
    after.insert("/TIM/M.TIM".into(), m2.clone());
    let mut padded = s.clone();
    padded.resize(l.len(), 0);
    put("/TIM/L.TIM+0".into(), s.clone());
    after.insert("/TIM/L.TIM".into(), padded);
    put("/TIM/S.TIM+0".into(), l.clone());
    after.insert("/TIM/S.TIM".into(), l.clone());
    // Inside the blob: same size, and smaller.
    let mut b = blob;
    put(format!("/DATA/PACK.BIN+{}", at[0]), m2.clone());
    b[at[0] as usize..at[0] as usize + m.len()].copy_from_slice(&m2);
    put(format!("/DATA/PACK.BIN+{}", at[1]), s.clone());
    let end = at[1] as usize + l.len();
    b[at[1] as usize..end].fill(0);
    b[at[1] as usize..at[1] as usize + s.len()].copy_from_slice(&s);
    after.insert("/DATA/PACK.BIN".into(), b);
    Some(Disc {
        tree,
        after,
        reps,
        blob_small: (format!("/DATA/PACK.BIN+{}", at[2]), l),
    })
}

fn xorriso(dir: &Path, iso: &Path, pad: bool) {
    let mut c = Command::new("xorriso");
    c.args(["-as", "mkisofs", "-quiet", "-V", "PATCH"]);
    if !pad {
        c.arg("-no-pad");
    }
    let out = c.arg("-o").arg(iso).arg(dir).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The scan of the output: each replacement at its place with its own bytes, every other
/// find as before.
fn check_finds(before: &Finds, after: &Finds, reps: &[Replacement]) {
    for r in reps {
        let (f, size, bytes) = after
            .get(&r.place)
            .unwrap_or_else(|| panic!("{} not found", r.place));
        assert_eq!(
            (*f, *size),
            (Format::Tim, r.data.len() as u64),
            "{}",
            r.place
        );
        assert!(bytes == &r.data, "{}: other bytes", r.place);
    }
    let others = |m: &Finds| -> Finds {
        m.iter()
            .filter(|(k, _)| !reps.iter().any(|r| &r.place == *k))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    };
    let (b, a) = (others(before), others(after));
    assert_eq!(b.keys().collect::<Vec<_>>(), a.keys().collect::<Vec<_>>());
    for (k, v) in &b {
        assert!(a[k] == *v, "{k} changed");
    }
}

/// Extracts an ISO with xorriso and compares every file with `want`.
fn check_extract(iso: &Path, want: &BTreeMap<String, Vec<u8>>, dir: &Path) {
    let list = Command::new("xorriso")
        .args(["-indev"])
        .arg(iso)
        .args(["-find", "/", "-type", "f"])
        .output()
        .unwrap();
    assert!(
        list.status.success(),
        "{}",
        String::from_utf8_lossy(&list.stderr)
    );
    let listed = String::from_utf8_lossy(&list.stdout);
    for name in want.keys() {
        assert!(
            listed.contains(&format!("'{name}'")),
            "{name} not listed:\n{listed}"
        );
    }
    let out = Command::new("xorriso")
        .args(["-osirrox", "on", "-indev"])
        .arg(iso)
        .args(["-extract", "/"])
        .arg(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for (name, data) in want {
        let got = std::fs::read(dir.join(name.trim_start_matches('/'))).unwrap();
        assert!(
            &got == data,
            "{name}: extracted bytes differ ({} vs {})",
            got.len(),
            data.len()
        );
    }
}

/// The test disc as an ISO without padding (`None` without xorriso or the corpus).
fn unpadded_iso(dir: &Path) -> Option<(Disc, PathBuf)> {
    if !have_tool("xorriso") {
        return None;
    }
    let d = build(dir)?;
    let iso = dir.join("disc.iso");
    xorriso(&d.tree, &iso, false);
    Some((d, iso))
}

fn bchunk(bin: &Path, cue: &Path, stem: &Path) {
    let out = Command::new("bchunk")
        .arg(bin)
        .arg(cue)
        .arg(stem)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "bchunk: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn an_iso_patched_and_grown() {
    let t = tempfile::tempdir().unwrap();
    let Some((d, iso)) = unpadded_iso(t.path()) else {
        return;
    };
    let input = std::fs::read(&iso).unwrap();
    let out = t.path().join("out.iso");
    let done = patch::patch(&iso, &d.reps, &out, Options::default()).unwrap();
    assert_eq!(
        std::fs::read(&iso).unwrap(),
        input,
        "the input is never written"
    );
    assert!(done.grown > 0, "{done:?}");
    assert_eq!(
        std::fs::metadata(&out).unwrap().len(),
        input.len() as u64 + done.grown
    );
    assert_eq!(done.notes.len(), 2, "{:?}", done.notes);
    check_finds(&finds(&iso), &finds(&out), &d.reps);
    check_extract(&out, &d.after, &t.path().join("x"));
    // A dry run writes nothing and tells the same changes.
    let dry = t.path().join("dry.iso");
    let plan = patch::patch(
        &iso,
        &d.reps,
        &dry,
        Options {
            dry_run: true,
            ..Options::default()
        },
    )
    .unwrap();
    assert_eq!(plan.changes, done.changes);
    assert!(!dry.exists() && plan.written.is_empty());
}

/// Rewrites the raw sectors of `file` (an ISO path) as Form 2 XA sectors of noise.
fn make_form2(bin: &Path, iso: &Path, file: &str) -> Vec<(usize, Vec<u8>)> {
    let src = scan::FileSource::open(iso).unwrap();
    let f = scan::iso::list(&src)
        .unwrap()
        .into_iter()
        .find(|f| f.path == file)
        .unwrap();
    let mut raw = std::fs::read(bin).unwrap();
    let mut out = Vec::new();
    for (k, lba) in (f.offset / 2048..(f.offset + f.size).div_ceil(2048)).enumerate() {
        let at = lba as usize * 2352;
        let s = &mut raw[at..at + 2352];
        s[16..24].copy_from_slice(&[1, 1, 0x64, 0, 1, 1, 0x64, 0]);
        s[24..2348].copy_from_slice(&noise(100 + k as u64, 2324));
        s[2348..].fill(0);
        out.push((at, s.to_vec()));
    }
    std::fs::write(bin, raw).unwrap();
    out
}

#[test]
fn a_raw_image_with_its_cue_patched_and_grown() {
    if !have_tool("xorriso") || !have_tool("bchunk") {
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let Some(d) = build(t.path()) else { return };
    let iso = t.path().join("disc.iso");
    xorriso(&d.tree, &iso, false);
    let bin = t.path().join("disc.bin");
    let cue = raw_image(&iso, &bin);
    let form2 = make_form2(&bin, &iso, "/XA/NOISE.BIN");
    let before = finds(&bin);
    let out = t.path().join("new.bin");
    let done = patch::patch(&bin, &d.reps, &out, Options::default()).unwrap();
    let out_cue = t.path().join("new.cue");
    assert_eq!(done.written, vec![out.clone(), out_cue.clone()]);
    assert!(done.grown > 0 && done.grown % 2352 == 0, "{done:?}");
    let raw = std::fs::read(&out).unwrap();
    for (at, sector) in &form2 {
        assert!(
            raw[*at..at + 2352] == sector[..],
            "Form 2 sector at {at} changed"
        );
    }
    check_finds(&before, &finds(&out), &d.reps);
    let text = std::fs::read_to_string(&out_cue).unwrap();
    assert!(text.contains("FILE \"new.bin\" BINARY"), "{text}");
    // The same through the cue sheet given as IMAGE, OUT a cue sheet.
    let out2 = t.path().join("two.cue");
    patch::patch(&cue, &d.reps, &out2, Options::default()).unwrap();
    assert!(std::fs::read(t.path().join("two.bin")).unwrap() == raw);
    bchunk(&out, &out_cue, &t.path().join("back"));
    // The Form 2 file reads back as the first 2048 user bytes of each of its sectors.
    let mut want = d.after.clone();
    let xa: Vec<u8> = form2
        .iter()
        .flat_map(|(_, s)| s[24..2072].to_vec())
        .collect();
    want.insert("/XA/NOISE.BIN".into(), xa);
    check_extract(&t.path().join("back01.iso"), &want, &t.path().join("x"));
}

#[test]
fn a_data_track_followed_by_audio_moves_into_free_sectors() {
    if !have_tool("xorriso") || !have_tool("bchunk") {
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let Some(d) = build(t.path()) else { return };
    let iso = t.path().join("disc.iso");
    xorriso(&d.tree, &iso, true);
    let bin = t.path().join("game.bin");
    raw_image(&iso, &bin);
    let data_sectors = std::fs::metadata(&bin).unwrap().len() / 2352;
    let audio = noise(77, 300 * 2352);
    let mut raw = std::fs::read(&bin).unwrap();
    raw.extend_from_slice(&audio);
    std::fs::write(&bin, &raw).unwrap();
    let msf = |s: u64| format!("{:02}:{:02}:{:02}", s / 4500, s / 75 % 60, s % 75);
    let cue = t.path().join("game.cue");
    std::fs::write(
        &cue,
        format!("FILE \"game.bin\" BINARY\n  TRACK 01 MODE2/2352\n    INDEX 01 00:00:00\n  TRACK 02 AUDIO\n    INDEX 01 {}\n", msf(data_sectors)),
    )
    .unwrap();
    let before = finds(&cue);
    let out = t.path().join("out").join("game2.cue");
    std::fs::create_dir_all(out.parent().unwrap()).unwrap();
    let done = patch::patch(&cue, &d.reps, &out, Options::default()).unwrap();
    assert_eq!(done.grown, 0, "{done:?}");
    assert!(
        done.changes.iter().any(|c| c.how.contains("moved")),
        "{:?}",
        done.changes
    );
    let new_bin = out.with_extension("bin");
    let patched = std::fs::read(&new_bin).unwrap();
    assert_eq!(patched.len(), raw.len());
    assert!(
        patched[raw.len() - audio.len()..] == audio[..],
        "the audio track changed"
    );
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(text.contains("FILE \"game2.bin\" BINARY"), "{text}");
    assert!(
        text.contains(&format!("INDEX 01 {}", msf(data_sectors))),
        "{text}"
    );
    check_finds(&before, &finds(&out), &d.reps);
    bchunk(&new_bin, &out, &t.path().join("back"));
    check_extract(&t.path().join("back01.iso"), &d.after, &t.path().join("x"));

    // A larger asset than the track's free sectors hold: how many bytes are missing.
    let huge = Replacement {
        place: "/TIM/M.TIM+0".into(),
        data: {
            let mut v = d.reps[2].data.clone();
            v.resize(2 << 20, 0);
            v
        },
    };
    let e = patch::patch(
        &cue,
        &[huge],
        &t.path().join("no.cue"),
        Options {
            force: true,
            ..Options::default()
        },
    )
    .unwrap_err();
    assert!(e.to_string().contains("bytes are missing"), "{e}");
    assert!(!t.path().join("no.bin").exists() && !t.path().join("no.cue").exists());
}

#[test]
fn refused_replacements_leave_no_output() {
    let t = tempfile::tempdir().unwrap();
    let Some((d, iso)) = unpadded_iso(t.path()) else {
        return;
    };
    let out = t.path().join("out.iso");
    let fail = |place: &str, data: &[u8], wants: &[&str]| {
        let rep = Replacement {
            place: place.into(),
            data: data.to_vec(),
        };
        let e = patch::patch(&iso, &[rep], &out, Options::default())
            .unwrap_err()
            .to_string();
        assert!(!out.exists(), "an output after {e}");
        let leftovers = std::fs::read_dir(t.path())
            .unwrap()
            .filter(|e| {
                let name = e.as_ref().unwrap().file_name();
                name.to_string_lossy().starts_with(".retroanim")
            })
            .count();
        assert_eq!(leftovers, 0);
        for w in wants {
            assert!(e.contains(w), "{w:?} not in {e}");
        }
    };
    // A larger asset inside a blob: the bytes missing.
    let (place, large) = d.blob_small.clone();
    let small = &d
        .reps
        .iter()
        .find(|r| r.place == "/TIM/L.TIM+0")
        .unwrap()
        .data;
    let missing = format!("{} bytes are missing", large.len() - small.len());
    fail(&place, &large, &[&missing, "inside a larger file"]);
    // A place that names no find, or no file: the nearest finds listed.
    fail(
        "/DATA/PACK.BIN+3",
        &large,
        &["nearest finds", "/DATA/PACK.BIN+"],
    );
    fail(
        "/TIM/X.TIM+0",
        &large,
        &["no file /TIM/X.TIM", "nearest finds: /TIM/"],
    );
    // Bytes that are not a TIM.
    fail(
        "/TIM/M.TIM+0",
        b"not a TIM at all",
        &["not a valid tim", "--force"],
    );
    // The output may not be the input.
    let e = patch::patch(&iso, &d.reps, &iso, Options::default()).unwrap_err();
    assert!(e.to_string().contains("never modified"), "{e}");
}

#[test]
fn a_pbo_entry_grows() {
    let p3ds: Vec<Vec<u8>> = pick("p3d-mlod", 8)
        .into_iter()
        .map(|(_, d)| d)
        .filter(|d| {
            retroanim::read_any(d)
                .is_ok_and(|m| m.validate().iter().all(|i| i.severity != Severity::Error))
        })
        .collect();
    if p3ds.len() < 3 {
        return;
    }
    let mut sorted = p3ds.clone();
    sorted.sort_by_key(Vec::len);
    let (small, large) = (&sorted[0], &sorted[sorted.len() - 1]);
    let entries = [
        ("data\\a.p3d", &small[..]),
        ("data\\b.p3d", &sorted[1][..]),
        ("c.txt", b"hello"),
    ];
    let body = scan::pbo::write(&[("prefix", "x")], &entries, None);
    let mut archive = body.clone();
    archive.push(0);
    archive.extend_from_slice(&sha1_smol::Sha1::from(&body).digest().bytes());
    let t = tempfile::tempdir().unwrap();
    let pbo = t.path().join("m.pbo");
    std::fs::write(&pbo, &archive).unwrap();
    let out = t.path().join("n.pbo");
    let rep = Replacement {
        place: "/data/a.p3d+0".into(),
        data: large.clone(),
    };
    patch::patch(&pbo, &[rep], &out, Options::default()).unwrap();
    let bytes = std::fs::read(&out).unwrap();
    let src = scan::MemSource(bytes.clone().into());
    let read = scan::pbo::read(&src).unwrap();
    let (head, sum) = bytes.split_at(bytes.len() - 21);
    assert_eq!(sum[0], 0);
    assert_eq!(
        read.sha1,
        Some(sha1_smol::Sha1::from(head).digest().bytes())
    );
    let want: [&[u8]; 3] = [large, &sorted[1], b"hello"];
    assert_eq!(read.entries.len(), 3);
    for (e, w) in read.entries.iter().zip(want) {
        assert!(
            &bytes[e.offset as usize..(e.offset + e.data_size as u64) as usize] == w,
            "{}",
            e.name
        );
    }
    // The same archive as a file of an ISO: the ISO file grows with it.
    if !have_tool("xorriso") {
        return;
    }
    let tree = t.path().join("tree/ADDONS");
    std::fs::create_dir_all(&tree).unwrap();
    std::fs::write(tree.join("M.PBO"), &archive).unwrap();
    let iso = t.path().join("a.iso");
    xorriso(&t.path().join("tree"), &iso, false);
    let out = t.path().join("b.iso");
    let rep = Replacement {
        place: "/ADDONS/M.PBO:/data/a.p3d+0".into(),
        data: large.clone(),
    };
    patch::patch(&iso, &[rep], &out, Options::default()).unwrap();
    check_extract(
        &out,
        &BTreeMap::from([("/ADDONS/M.PBO".to_string(), bytes)]),
        &t.path().join("x"),
    );
}

#[test]
fn cut_and_garbled_images_give_errors_not_panics() {
    let t = tempfile::tempdir().unwrap();
    let Some((_disc, iso)) = unpadded_iso(t.path()) else {
        return;
    };
    let bin = t.path().join("disc.bin");
    raw_image(&iso, &bin);
    // What the fuzz target does (fuzz/fuzz_targets/patch_image.rs), on damaged copies.
    for path in [&iso, &bin] {
        let data = std::fs::read(path).unwrap();
        let mut inputs = vec![
            data[..data.len() / 3].to_vec(),
            data[..17 * 2048 + 5].to_vec(),
        ];
        for (i, at) in [
            16 * 2048 + 80,
            16 * 2048 + 140,
            16 * 2048 + 158,
            18 * 2048 + 2,
        ]
        .into_iter()
        .enumerate()
        {
            let mut g = data.clone();
            g[at..at + 4].copy_from_slice(&[0xFF, 0xFF, 0xFF, 0x7F - i as u8]);
            inputs.push(g);
        }
        for input in inputs {
            let src = std::sync::Arc::new(scan::MemSource(input.into()));
            let _ = patch::inspect(src.clone(), false);
            let _ = patch::inspect(src, true);
        }
    }
}
