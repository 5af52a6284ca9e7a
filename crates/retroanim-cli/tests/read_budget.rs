//! The read side of issue 38: one read budget, in one place. Every input here is generated (ISO
//! images from the ECMA-119 record layout, PBO archives from the library's writer, links, FIFOs),
//! and every case asserts what a user would notice: the exit code, the error text, that the
//! inputs are unchanged, and peak memory under a stated bound with the command run under an
//! address-space limit (`ulimit -v`).
#![cfg(unix)]

mod common;

use std::ffi::OsStr;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::time::Duration;

use common::iso::{iso, record, SECTOR};
use common::{json_lines, run_capped, Run};
use serde_json::Value;

/// Address space every command here gets, in MiB: far below what the issue's inputs took
/// (1.9 to 3.75 GB), well above what a bounded run needs.
const CAP_MB: u64 = 1024;
/// Peak resident memory every command here must stay under, in MiB.
const PEAK_MB: u64 = 300;

fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_retroanim"))
}

/// Runs the CLI under [`CAP_MB`] of address space, within two minutes, and checks it stayed
/// under [`PEAK_MB`] and did not panic.
fn run<S: AsRef<OsStr>>(args: &[S]) -> Run {
    let args: Vec<&OsStr> = args.iter().map(AsRef::as_ref).collect();
    let r = run_capped(&bin(), &args, CAP_MB, Duration::from_secs(120));
    assert!(r.code.is_some(), "killed or timed out: {}", r.stderr);
    assert!(!r.stderr.contains("panicked"), "{}", r.stderr);
    assert!(
        r.peak_kb < PEAK_MB * 1024,
        "{args:?}: peak {} kB, more than {PEAK_MB} MiB",
        r.peak_kb
    );
    r
}

fn code(r: &Run) -> i32 {
    r.code.unwrap_or(-1)
}

fn scan_json(r: &Run) -> (Vec<Value>, Value) {
    json_lines(&r.stdout)
}

fn tim() -> Vec<u8> {
    std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../samples/checker.tim")).unwrap()
}

/// Every file under `dir` with its bytes, to show a command changed nothing.
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            let m = std::fs::symlink_metadata(&p).unwrap();
            if m.is_dir() {
                stack.push(p);
            } else if m.is_file() {
                let bytes = std::fs::read(&p).unwrap();
                out.push((p, bytes));
            }
        }
    }
    out.sort();
    out
}

fn skipped_with(summary: &Value, words: &str) -> usize {
    summary["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["reason"].as_str().unwrap().contains(words))
        .count()
}

// ---- 5. nested ISO: what is skipped is counted, not stored ----

#[test]
fn an_iso_of_isos_counts_its_skipped_records_with_bounded_memory() {
    let t = tempfile::tempdir().unwrap();
    let n = 1500u32;
    let data = tim();
    // The inner image: n records sharing one extent (one scanned, the others aliases), and
    // two spare sectors so the outer records may cut its end.
    let mut inner = iso(
        |at| {
            (0..n)
                .map(|i| {
                    record(
                        format!("T{i}.TIM;1").as_bytes(),
                        at,
                        data.len() as u32,
                        false,
                    )
                })
                .collect()
        },
        &data,
    );
    inner.resize(inner.len() + 2 * SECTOR, 0);
    // The outer image: n records over the inner image, each of another length (so none is an
    // alias of another): every one walks the inner image again.
    let img = iso(
        |at| {
            (0..n)
                .map(|i| {
                    record(
                        format!("I{i}.ISO;1").as_bytes(),
                        at,
                        inner.len() as u32 - i,
                        false,
                    )
                })
                .collect()
        },
        &inner,
    );
    assert!(img.len() < 400 << 10, "a small input: {} bytes", img.len());
    let p = t.path().join("nested.iso");
    std::fs::write(&p, &img).unwrap();
    let before = snapshot(t.path());
    let r = run(&[OsStr::new("scan"), OsStr::new("--json"), p.as_os_str()]);
    assert_eq!(code(&r), 0, "{}", r.stderr);
    let (_, summary) = scan_json(&r);
    let listed = summary["skipped"].as_array().unwrap().len() as u64;
    let unlisted = summary["skipped_unlisted"]["count"].as_u64().unwrap();
    assert_eq!(listed, 1000, "at most 1000 listed by name");
    // Every inner walk skips n - 1 aliases: all of them are counted.
    assert!(
        listed + unlisted >= u64::from(n) * u64::from(n - 1),
        "{listed} + {unlisted}"
    );
    assert!(r.stdout.len() < 4 << 20, "{} bytes of JSON", r.stdout.len());
    assert_eq!(snapshot(t.path()), before, "the input is unchanged");
}

// ---- 12. every read goes through the one limited reader ----

#[test]
fn replacement_data_vram_dumps_and_fifos_are_read_within_the_limit() {
    let t = tempfile::tempdir().unwrap();
    let tim_path = t.path().join("a.tim");
    std::fs::write(&tim_path, tim()).unwrap();
    let archive = retroanim::scan::pbo::write(&[("prefix", "x")], &[("a.tim", &tim())], None);
    let pbo = t.path().join("m.pbo");
    std::fs::write(&pbo, &archive).unwrap();
    let fifo = t.path().join("fifo");
    assert!(std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let out = t.path().join("out.pbo");
    let before = snapshot(t.path());
    for data in [Path::new("/dev/zero"), fifo.as_path()] {
        let r = run(&[
            OsStr::new("patch"),
            pbo.as_os_str(),
            OsStr::new("--replace"),
            OsStr::new("/a.tim+0"),
            data.as_os_str(),
            OsStr::new("-o"),
            out.as_os_str(),
        ]);
        assert_eq!(code(&r), 2, "{}", r.stderr);
        assert!(r.stderr.contains("not a regular file"), "{}", r.stderr);
        assert!(r.stderr.contains("--replace /a.tim+0"), "{}", r.stderr);
    }
    let r = run(&[
        OsStr::new("scan"),
        tim_path.as_os_str(),
        OsStr::new("--vram"),
        OsStr::new("/dev/zero"),
    ]);
    assert_eq!(code(&r), 2, "{}", r.stderr);
    assert!(r.stderr.contains("--vram"), "{}", r.stderr);
    assert!(r.stderr.contains("not a regular file"), "{}", r.stderr);
    // A file larger than a VRAM dump is refused from its size, before it is read.
    let big = t.path().join("big.bin");
    std::fs::File::create(&big)
        .unwrap()
        .set_len(3 << 30)
        .unwrap();
    let r = run(&[
        OsStr::new("scan"),
        tim_path.as_os_str(),
        OsStr::new("--vram"),
        big.as_os_str(),
    ]);
    assert_eq!(code(&r), 2, "{}", r.stderr);
    assert!(
        r.stderr
            .contains("asks for 3221225472, the limit is 1048576"),
        "{}",
        r.stderr
    );
    std::fs::remove_file(&big).unwrap();
    assert_eq!(snapshot(t.path()), before, "inputs unchanged, no output");
}

#[test]
fn convert_out_dir_detects_a_huge_file_from_its_first_bytes() {
    let t = tempfile::tempdir().unwrap();
    let src = t.path().join("src");
    std::fs::create_dir(&src).unwrap();
    std::fs::write(src.join("a.tim"), tim()).unwrap();
    // 3 GB of holes: reading it whole to detect its format would take gigabytes.
    std::fs::File::create(src.join("huge.bin"))
        .unwrap()
        .set_len(3 << 30)
        .unwrap();
    let out = t.path().join("out");
    let r = run(&[
        OsStr::new("convert"),
        OsStr::new("-r"),
        src.as_os_str(),
        OsStr::new("--out-dir"),
        out.as_os_str(),
    ]);
    // The huge file is refused from its size when its turn comes; the TIM converts.
    assert!(matches!(code(&r), 0..=2), "{}", r.stderr);
    assert!(out.join("a.png").is_file(), "{}", r.stderr);
}

// ---- 13. one file, many names: scanned once ----

#[test]
fn a_file_reached_by_many_names_is_scanned_once() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("d");
    std::fs::create_dir(&dir).unwrap();
    let mut body = Vec::new();
    for _ in 0..200 {
        body.extend_from_slice(&tim());
        body.resize(body.len().div_ceil(256) * 256, 0);
    }
    let file = dir.join("one.bin");
    std::fs::write(&file, &body).unwrap();
    for i in 0..100 {
        symlink(&file, dir.join(format!("sym{i}.bin"))).unwrap();
        std::fs::hard_link(&file, dir.join(format!("hard{i}.bin"))).unwrap();
    }
    let before = snapshot(t.path());
    let r = run(&[OsStr::new("scan"), OsStr::new("--json"), dir.as_os_str()]);
    assert_eq!(code(&r), 0, "{}", r.stderr);
    let (finds, summary) = scan_json(&r);
    assert_eq!(finds.len(), 200, "one file's TIMs, once");
    assert_eq!(skipped_with(&summary, "the same file as"), 200);
    // The same name given three times.
    let sym = dir.join("sym0.bin");
    let r = run(&[
        OsStr::new("scan"),
        OsStr::new("--json"),
        sym.as_os_str(),
        sym.as_os_str(),
        sym.as_os_str(),
    ]);
    assert_eq!(code(&r), 0, "{}", r.stderr);
    let (finds, summary) = scan_json(&r);
    assert_eq!(finds.len(), 200);
    // One other name (given twice), listed once.
    assert_eq!(skipped_with(&summary, "the same file as"), 1);
    assert_eq!(snapshot(t.path()), before);
}

#[test]
fn a_cue_naming_one_file_by_a_hundred_hard_links_reads_it_once() {
    let t = tempfile::tempdir().unwrap();
    let data = tim();
    let img = iso(
        |at| vec![record(b"A.TIM;1", at, data.len() as u32, false)],
        &data,
    );
    std::fs::write(t.path().join("disc.iso"), &img).unwrap();
    let mut cue = String::new();
    for i in 0..100 {
        if i > 0 {
            std::fs::hard_link(
                t.path().join("disc.iso"),
                t.path().join(format!("l{i}.iso")),
            )
            .unwrap();
        }
        let name = if i == 0 {
            "disc.iso".to_string()
        } else {
            format!("l{i}.iso")
        };
        cue.push_str(&format!(
            "FILE \"{name}\" BINARY\n  TRACK {:02} MODE1/2048\n    INDEX 01 00:00:00\n",
            i + 1
        ));
    }
    let sheet = t.path().join("game.cue");
    std::fs::write(&sheet, cue).unwrap();
    let before = snapshot(t.path());
    let r = run(&[OsStr::new("scan"), OsStr::new("--json"), sheet.as_os_str()]);
    assert_eq!(code(&r), 0, "{}", r.stderr);
    let (finds, summary) = scan_json(&r);
    assert_eq!(finds.len(), 1, "{finds:?}");
    assert_eq!(skipped_with(&summary, "the same bytes as"), 99);
    assert!(summary["bytes_scanned"].as_u64().unwrap() <= img.len() as u64);
    assert_eq!(snapshot(t.path()), before);
}

// ---- 16. links out of a scanned folder ----

#[test]
fn a_link_out_of_a_scanned_folder_is_listed_not_read() {
    let t = tempfile::tempdir().unwrap();
    let outside = t.path().join("outside.tim");
    std::fs::write(&outside, tim()).unwrap();
    let dir = t.path().join("d");
    std::fs::create_dir(&dir).unwrap();
    std::fs::write(dir.join("in.tim"), tim()).unwrap();
    symlink(&outside, dir.join("link.tim")).unwrap();
    let r = run(&[OsStr::new("scan"), OsStr::new("--json"), dir.as_os_str()]);
    assert_eq!(code(&r), 0, "{}", r.stderr);
    let (finds, summary) = scan_json(&r);
    assert_eq!(finds.len(), 1, "only the file inside");
    assert_eq!(
        skipped_with(
            &summary,
            "outside the scanned folder: not read (--follow-links reads it)"
        ),
        1,
        "{summary}"
    );
    let r = run(&[
        OsStr::new("scan"),
        OsStr::new("--json"),
        OsStr::new("--follow-links"),
        dir.as_os_str(),
    ]);
    let (finds, _) = scan_json(&r);
    assert_eq!(finds.len(), 2, "--follow-links reads it");
}

// ---- 15. LAB includes through links ----

#[test]
fn a_lab_include_through_a_link_out_of_the_tree_is_refused_unread() {
    let t = tempfile::tempdir().unwrap();
    std::fs::write(t.path().join("secret.txt"), "TOPSECRET junk ;;\n").unwrap();
    let src = t.path().join("src");
    std::fs::create_dir(&src).unwrap();
    symlink(t.path().join("secret.txt"), src.join("inc.lab")).unwrap();
    symlink(t.path(), src.join("updir")).unwrap();
    for (include, shown) in [
        ("inc.lab", "inc.lab"),
        ("updir/secret.txt", "updir/secret.txt"),
    ] {
        let m = src.join("m.lab");
        std::fs::write(&m, format!("#include \"{include}\"\n1;\n")).unwrap();
        let out = t.path().join("out.hmd");
        let r = run(&[
            OsStr::new("asm"),
            m.as_os_str(),
            OsStr::new("-o"),
            out.as_os_str(),
        ]);
        assert_eq!(code(&r), 2, "{}", r.stderr);
        assert!(r.stderr.contains(shown), "{}", r.stderr);
        assert!(r.stderr.contains("outside"), "{}", r.stderr);
        assert!(!r.stderr.contains("TOPSECRET"), "{}", r.stderr);
        assert!(!out.exists());
    }
}

// ---- 17. damaged containers: reported, and their contents still found ----

#[test]
fn a_pbo_with_a_nul_in_a_name_is_reported_and_its_tims_found() {
    let t = tempfile::tempdir().unwrap();
    let tim = tim();
    let mut archive = retroanim::scan::pbo::write(
        &[("prefix", "x")],
        &[("one.tim", &tim), ("twoX.tim", &tim), ("three.tim", &tim)],
        None,
    );
    let at = archive.windows(4).position(|w| w == b"twoX").unwrap() + 3;
    archive[at] = 0;
    let p = t.path().join("bad.pbo");
    std::fs::write(&p, &archive).unwrap();
    let before = snapshot(t.path());
    let r = run(&[OsStr::new("scan"), OsStr::new("--json"), p.as_os_str()]);
    assert_eq!(code(&r), 2, "damage is an error: {}", r.stderr);
    let (lines, summary) = scan_json(&r);
    let finds = lines.iter().filter(|l| l["ok"] == true).count();
    assert_eq!(finds, 3, "{lines:?}");
    assert_eq!(summary["failed"], 1);
    let error = summary["errors"][0]["error"].as_str().unwrap();
    assert!(error.contains("the header is damaged here"), "{error}");
    assert_eq!(snapshot(t.path()), before);
}

#[test]
fn one_bad_iso_record_leaves_the_image_scanned() {
    let t = tempfile::tempdir().unwrap();
    let mut data = tim();
    data.resize(SECTOR, 0);
    data.extend_from_slice(&tim());
    let img = iso(
        |at| {
            vec![
                record(b"A.TIM;1", at, SECTOR as u32, false),
                // A directory far outside the image.
                record(b"BAD", 0x00ff_ffff, SECTOR as u32, true),
                record(b"B.TIM;1", at + 1, SECTOR as u32, false),
            ]
        },
        &data,
    );
    let p = t.path().join("bad.iso");
    std::fs::write(&p, &img).unwrap();
    let r = run(&[OsStr::new("scan"), OsStr::new("--json"), p.as_os_str()]);
    assert_eq!(code(&r), 2, "damage is an error: {}", r.stderr);
    let (lines, summary) = scan_json(&r);
    let finds = lines.iter().filter(|l| l["ok"] == true).count();
    assert_eq!(finds, 2, "{lines:?}");
    assert_eq!(summary["failed"], 1);
}

// ---- 18. an ambiguous place is refused ----

#[test]
fn patch_refuses_a_pbo_entry_name_held_twice_naming_both() {
    let t = tempfile::tempdir().unwrap();
    let tim = tim();
    let archive = retroanim::scan::pbo::write(
        &[("prefix", "x")],
        &[("a.tim", &tim), ("a.tim", &tim)],
        None,
    );
    let pbo = t.path().join("m.pbo");
    std::fs::write(&pbo, &archive).unwrap();
    let new = t.path().join("new.tim");
    std::fs::write(&new, &tim).unwrap();
    let out = t.path().join("out.pbo");
    let before = snapshot(t.path());
    let r = run(&[
        OsStr::new("patch"),
        pbo.as_os_str(),
        OsStr::new("--replace"),
        OsStr::new("/a.tim+0"),
        new.as_os_str(),
        OsStr::new("-o"),
        out.as_os_str(),
    ]);
    assert_eq!(code(&r), 2, "{}", r.stderr);
    assert!(r.stderr.contains("2 entries named a.tim"), "{}", r.stderr);
    assert!(
        r.stderr.contains("entry 1 (data at byte") && r.stderr.contains("entry 2 (data at byte"),
        "{}",
        r.stderr
    );
    assert_eq!(snapshot(t.path()), before, "nothing written");
}
