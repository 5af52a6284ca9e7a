//! Crafted input (issue 27, items 3, 5 and 6): inputs an attacker would build to make a scan read
//! the same bytes over and over, a LAB source blow up or leak files, or a command lose output.
//! Every input is generated here (no blobs): ISO 9660 images from the ECMA-119 record layout, cue
//! sheets, sparse files, LAB text. Bounds are asserted as counts (bytes scanned, files written,
//! peak memory, exit codes), never as times.

mod common;

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use common::iso::{dir_sectors, iso, record, SECTOR};
use common::{run_measured, Run};
use serde_json::Value;

fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_retroanim"))
}

fn sample(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../samples")
        .join(name)
}

/// Runs the CLI within two minutes.
fn run<S: AsRef<OsStr>>(args: &[S]) -> Run {
    let args: Vec<&OsStr> = args.iter().map(AsRef::as_ref).collect();
    run_measured(&bin(), &args, None, Duration::from_secs(120))
}

fn code(r: &Run) -> i32 {
    r.code.unwrap_or(-1)
}

fn stdout(r: &Run) -> String {
    String::from_utf8_lossy(&r.stdout).into_owned()
}

/// The JSON lines of `scan --json`: the finds and the summary.
fn scan_json(r: &Run) -> (Vec<Value>, Value) {
    let mut finds = Vec::new();
    let mut summary = Value::Null;
    for l in stdout(r).lines() {
        let v: Value = serde_json::from_str(l).unwrap();
        // Finds carry their own `summary` (as `info` gives it); the last line has only that.
        match v.get("summary") {
            Some(s) if v.get("format").is_none() => summary = s.clone(),
            _ => finds.push(v),
        }
    }
    (finds, summary)
}

fn tim() -> Vec<u8> {
    std::fs::read(sample("checker.tim")).unwrap()
}

/// `n` TIMs, one per 256 bytes.
fn tims(n: usize) -> Vec<u8> {
    let t = tim();
    let mut out = Vec::new();
    for _ in 0..n {
        out.extend_from_slice(&t);
        out.resize(out.len().div_ceil(256) * 256, 0);
    }
    out
}

// ---- 3. amplification ----

#[test]
fn iso_records_sharing_one_extent_are_scanned_once() {
    let t = tempfile::tempdir().unwrap();
    let data = tims(50);
    let img = iso(
        |at| {
            (0..3000)
                .map(|i| {
                    record(
                        format!("F{i}.BIN;1").as_bytes(),
                        at,
                        data.len() as u32,
                        false,
                    )
                })
                .collect()
        },
        &data,
    );
    let p = t.path().join("shared.iso");
    std::fs::write(&p, &img).unwrap();
    let r = run(&[OsStr::new("scan"), OsStr::new("--json"), p.as_os_str()]);
    assert_eq!(code(&r), 0, "{}", r.stderr);
    let (finds, summary) = scan_json(&r);
    // 50 TIMs found once, not 3000 × 50; the other records listed as aliases.
    assert_eq!(finds.len(), 50);
    let aliases = summary["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["reason"].as_str().unwrap().contains("the same extent as"))
        .count();
    // At most 1000 are listed by name; the others are counted.
    assert_eq!(aliases, 1000);
    assert_eq!(
        aliases as u64 + summary["skipped_unlisted"]["count"].as_u64().unwrap(),
        2999
    );
    assert!(summary["bytes_scanned"].as_u64().unwrap() <= img.len() as u64);
}

#[test]
fn overlapping_extents_cannot_make_a_scan_read_more_than_four_times_the_image() {
    let t = tempfile::tempdir().unwrap();
    // 17 MiB of data; 300 files each starting one sector later and running to its end.
    let data = vec![0u8; 17 << 20];
    let img = iso(
        |at| {
            (0..300u32)
                .map(|i| {
                    let size = data.len() as u32 - i * SECTOR as u32;
                    record(format!("F{i}.BIN;1").as_bytes(), at + i, size, false)
                })
                .collect()
        },
        &data,
    );
    let p = t.path().join("overlap.iso");
    std::fs::write(&p, &img).unwrap();
    let r = run(&[OsStr::new("scan"), OsStr::new("--json"), p.as_os_str()]);
    assert_eq!(code(&r), 0, "{}", r.stderr);
    let (_, summary) = scan_json(&r);
    let scanned = summary["bytes_scanned"].as_u64().unwrap();
    assert!(scanned <= 4 * img.len() as u64, "{scanned} bytes scanned");
    assert!(summary["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .any(|s| s["reason"].as_str().unwrap().contains("4 times its size")));
}

#[test]
fn directories_over_one_extent_are_an_error_not_a_long_walk() {
    let t = tempfile::tempdir().unwrap();
    let data = vec![0u8; 4 << 20];
    let img = iso(
        |at| {
            // Each directory one sector later than the last, all running to the image's end
            // (one extent shared outright is a loop, an error of its own).
            (0..500u32)
                .map(|i| {
                    let size = data.len() as u32 - i * SECTOR as u32;
                    record(format!("D{i}").as_bytes(), at + i, size, true)
                })
                .collect()
        },
        &data,
    );
    let p = t.path().join("dirs.iso");
    std::fs::write(&p, &img).unwrap();
    let r = run(&[OsStr::new("scan"), p.as_os_str()]);
    assert_eq!(code(&r), 2, "{}", r.stderr);
    assert!(r.stderr.contains("overlap"), "{}", r.stderr);
}

#[test]
fn a_cue_naming_one_file_two_ways_reads_it_once() {
    let t = tempfile::tempdir().unwrap();
    // 40 tracks of 2048-byte sectors, one TIM each, alternating two spellings of one file,
    // and track 41 starting where track 40 does.
    let mut bin = Vec::new();
    for _ in 0..40 {
        bin.extend_from_slice(&tim());
        bin.resize(bin.len().div_ceil(SECTOR) * SECTOR, 0);
    }
    std::fs::write(t.path().join("game.bin"), &bin).unwrap();
    std::fs::create_dir_all(t.path().join("sub")).unwrap();
    let mut cue = String::new();
    for k in 0..41usize {
        let name = if k % 2 == 0 {
            "game.bin"
        } else {
            "sub/../game.bin"
        };
        let sector = k.min(39);
        cue.push_str(&format!(
            "FILE \"{name}\" BINARY\n  TRACK {:02} MODE1/2048\n    INDEX 01 00:00:{sector:02}\n",
            k + 1
        ));
    }
    let p = t.path().join("game.cue");
    std::fs::write(&p, cue).unwrap();
    let r = run(&[OsStr::new("scan"), OsStr::new("--json"), p.as_os_str()]);
    assert_eq!(code(&r), 0, "{}", r.stderr);
    let (finds, summary) = scan_json(&r);
    assert_eq!(finds.len(), 40);
    assert_eq!(summary["bytes_scanned"].as_u64(), Some(bin.len() as u64));
    assert!(summary["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .any(|s| s["reason"].as_str().unwrap().contains("the same bytes as")));
}

#[test]
fn a_cue_sheet_larger_than_one_mib_is_refused() {
    let t = tempfile::tempdir().unwrap();
    std::fs::write(t.path().join("a.bin"), vec![0u8; SECTOR]).unwrap();
    let mut cue =
        String::from("FILE \"a.bin\" BINARY\n  TRACK 01 MODE1/2048\n    INDEX 01 00:00:00\n");
    while cue.len() <= 1 << 20 {
        cue.push_str("REM padding padding padding padding padding padding padding\n");
    }
    let p = t.path().join("big.cue");
    std::fs::write(&p, cue).unwrap();
    let r = run(&[OsStr::new("scan"), p.as_os_str()]);
    assert_eq!(code(&r), 2, "{}", r.stderr);
    assert!(r.stderr.contains("1048576"), "{}", r.stderr);
}

#[test]
fn holes_of_a_sparse_file_are_not_read() {
    use std::os::unix::fs::MetadataExt;
    let t = tempfile::tempdir().unwrap();
    let p = t.path().join("sparse.bin");
    let f = std::fs::File::create(&p).unwrap();
    f.set_len(16 << 30).unwrap();
    {
        use std::os::unix::fs::FileExt;
        f.write_all_at(&tim(), 8 << 30).unwrap();
    }
    drop(f);
    let meta = std::fs::metadata(&p).unwrap();
    if meta.blocks() * 512 > 64 << 20 {
        eprintln!("\n*** SKIPPING sparse-file test: this file system does not keep holes ***\n");
        return;
    }
    let r = run(&[OsStr::new("scan"), OsStr::new("--json"), p.as_os_str()]);
    assert_eq!(code(&r), 0, "{}", r.stderr);
    let (finds, summary) = scan_json(&r);
    assert_eq!(finds.len(), 1);
    assert_eq!(finds[0]["offset"].as_u64(), Some(8 << 30));
    let scanned = summary["bytes_scanned"].as_u64().unwrap();
    // Without SEEK_DATA every byte is scanned: then the test says so rather than failing.
    if scanned > 64 << 20 {
        eprintln!(
            "\n*** sparse-file test: SEEK_DATA not supported here, {scanned} bytes read ***\n"
        );
        return;
    }
    assert!(summary["bytes_in_holes"].as_u64().unwrap() > 15 << 30);
}

/// Writes `files` into `dir` and runs `asm` on the first, output `out`.
fn lab(dir: &Path, files: &[(&str, &[u8])], extra: &[&str]) -> Run {
    for (name, text) in files {
        let p = dir.join(name);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    let mut args: Vec<String> = vec!["asm".into(), dir.join(files[0].0).display().to_string()];
    args.extend(extra.iter().map(|s| s.to_string()));
    if !extra.contains(&"-o") {
        args.extend(["-o".into(), dir.join("out.hmd").display().to_string()]);
    }
    run(&args)
}

#[test]
fn deep_macro_chains_stop_at_a_limit_with_bounded_memory() {
    for levels in [400, 2000] {
        let t = tempfile::tempdir().unwrap();
        let mut text = String::from("#define A0 1;\n");
        for k in 1..=levels {
            text.push_str(&format!("#define A{k} A{} A{}\n", k - 1, k - 1));
        }
        text.push_str(&format!("A{levels}\n"));
        let r = lab(t.path(), &[("m.lab", text.as_bytes())], &[]);
        assert_eq!(code(&r), 2, "{levels}: {}", r.stderr);
        assert!(r.stderr.contains("LabOptions::max_"), "{}", r.stderr);
        assert!(r.peak_kb < 400 * 1024, "{levels} levels: {} kB", r.peak_kb);
    }
}

#[test]
fn a_large_file_included_many_times_stops_at_the_source_limit() {
    let t = tempfile::tempdir().unwrap();
    let big = vec![b' '; 8 << 20];
    let mut text = String::new();
    for _ in 0..40 {
        text.push_str("#include \"big.inc\"\n");
    }
    let r = lab(
        t.path(),
        &[("m.lab", text.as_bytes()), ("big.inc", &big)],
        &[],
    );
    assert_eq!(code(&r), 2, "{}", r.stderr);
    assert!(
        r.stderr.contains("LabOptions::max_source_bytes"),
        "{}",
        r.stderr
    );
}

// ---- 6. leaks ----

#[test]
fn includes_stay_in_the_source_tree_and_the_include_folders() {
    let t = tempfile::tempdir().unwrap();
    std::fs::write(t.path().join("secret.txt"), "TOPSECRET junk ;;").unwrap();
    let r = lab(
        &t.path().join("src"),
        &[("m.lab", b"#include \"../secret.txt\"\n1;\n")],
        &[],
    );
    assert_eq!(code(&r), 2, "{}", r.stderr);
    assert!(r.stderr.contains("../secret.txt"), "{}", r.stderr);
    assert!(r.stderr.contains("outside"), "{}", r.stderr);
    assert!(!r.stderr.contains("TOPSECRET"), "{}", r.stderr);
    // Deeper escapes and a detour through a subfolder are refused the same way.
    let r = lab(
        &t.path().join("src"),
        &[(
            "m.lab",
            b"#include \"sub/../../../../../../etc/passwd\"\n1;\n",
        )],
        &[],
    );
    assert_eq!(code(&r), 2, "{}", r.stderr);
    assert!(!r.stderr.contains("root:"), "{}", r.stderr);
    // A subfolder's file may include its parent's (still inside the tree), and a -I folder
    // outside the tree is searched.
    let inc = t.path().join("inc");
    std::fs::create_dir_all(&inc).unwrap();
    std::fs::write(inc.join("other.def"), "#define OTHER 9\n").unwrap();
    let r = lab(
        &t.path().join("ok"),
        &[
            (
                "m.lab",
                b"#include \"sub/a.inc\"\n#include \"other.def\"\nVALUE; OTHER;\n",
            ),
            ("sub/a.inc", b"#include \"../b.inc\"\n"),
            ("b.inc", b"#define VALUE 7\n"),
        ],
        &["-I", inc.to_str().unwrap()],
    );
    assert_eq!(code(&r), 0, "{}", r.stderr);
}

#[test]
fn echoed_identifiers_are_cut_short() {
    let t = tempfile::tempdir().unwrap();
    let long = "x".repeat(1 << 20);
    let text = format!("1;\n{long};\n");
    let r = lab(t.path(), &[("m.lab", text.as_bytes())], &[]);
    assert_eq!(code(&r), 2, "{}", r.stderr);
    assert!(r.stderr.len() < 2000, "{} bytes of stderr", r.stderr.len());
    assert!(r.stderr.contains('…'), "{}", r.stderr);
}

#[test]
fn scan_text_output_escapes_control_characters_in_names() {
    let t = tempfile::tempdir().unwrap();
    let data = tims(1);
    let img = iso(
        |at| {
            vec![record(
                b"EVIL\x1b[2J\nFAKE.TIM;1",
                at,
                data.len() as u32,
                false,
            )]
        },
        &data,
    );
    let p = t.path().join("evil.iso");
    std::fs::write(&p, &img).unwrap();
    let r = run(&[OsStr::new("scan"), p.as_os_str()]);
    assert_eq!(code(&r), 0, "{}", r.stderr);
    let out = stdout(&r);
    assert!(!out.contains('\x1b'), "{out:?}");
    assert!(out.contains("EVIL\\x1b[2J\\nFAKE.TIM@0"), "{out}");
}

// ---- 5. output never lost ----

/// An image of files whose names collide after sanitising, and one path far over 255 bytes
/// (a 200-byte folder name, a 200-byte file name), each holding its own TIM.
fn colliding_image() -> (Vec<u8>, usize) {
    let names: Vec<Vec<u8>> = vec![
        b"A B.TIM".to_vec(),
        b"A_B.TIM".to_vec(),
        b"A:B.TIM".to_vec(),
        "Aé.TIM".as_bytes().to_vec(),
        "Aè.TIM".as_bytes().to_vec(),
        b"a_b.tim".to_vec(),
        [b"L".repeat(200), b".TIM".to_vec()].concat(),
        b"Z.TIM".to_vec(),
    ];
    // Layout: root directory at 20..24 (4 sectors), the sub-folder at 24, data from 25.
    let (root_at, sub_at, data_at) = (20u32, 24u32, 25u32);
    let n = names.len() as u32;
    let mut root: Vec<Vec<u8>> = names
        .iter()
        .enumerate()
        .map(|(i, nm)| record(nm, data_at + i as u32, 192, false))
        .collect();
    root.push(record(&b"D".repeat(200), sub_at, SECTOR as u32, true));
    let root = dir_sectors(&root);
    assert!(root.len() <= 4 * SECTOR);
    let long = [b"F".repeat(200), b".TIM;1".to_vec()].concat();
    let sub = dir_sectors(&[record(&long, data_at + n, 192, false)]);
    let mut img = vec![0u8; (data_at + n + 1) as usize * SECTOR];
    let put = |img: &mut Vec<u8>, sector: u32, b: &[u8]| {
        let at = sector as usize * SECTOR;
        img[at..at + b.len()].copy_from_slice(b);
    };
    let pvd = 16 * SECTOR;
    img[pvd] = 1;
    img[pvd + 1..pvd + 6].copy_from_slice(b"CD001");
    img[pvd + 128..pvd + 130].copy_from_slice(&2048u16.to_le_bytes());
    let r = record(&[0], root_at, 4 * SECTOR as u32, true);
    img[pvd + 156..pvd + 156 + r.len()].copy_from_slice(&r);
    put(&mut img, 17, b"\xffCD001");
    put(&mut img, root_at, &root);
    put(&mut img, sub_at, &sub);
    for i in 0..=n {
        put(&mut img, data_at + i, &tim());
    }
    (img, n as usize + 1)
}

#[test]
fn extraction_names_are_unique_short_and_in_the_manifest() {
    let t = tempfile::tempdir().unwrap();
    let (img, n) = colliding_image();
    let p = t.path().join("names.iso");
    std::fs::write(&p, &img).unwrap();
    let out = t.path().join("out");
    let r = run(&[
        OsStr::new("scan"),
        p.as_os_str(),
        OsStr::new("--extract"),
        out.as_os_str(),
    ]);
    assert_eq!(code(&r), 0, "{}", r.stderr);
    let manifest: Value =
        serde_json::from_slice(&std::fs::read(out.join("manifest.json")).unwrap()).unwrap();
    let finds = manifest["finds"].as_array().unwrap();
    assert_eq!(finds.len(), n, "{manifest}");
    // Every find its own file (in the folders of its container), plus the manifest.
    assert_eq!(files_below(&out), n + 1);
    for e in finds {
        let name = e["file"].as_str().unwrap();
        // A path of folders (the container's): each name fits a file system's 255 bytes.
        assert!(name.split('/').all(|part| part.len() <= 255), "{name}");
        assert_eq!(std::fs::read(out.join(name)).unwrap(), tim());
    }
}

#[test]
fn extraction_never_replaces_files_without_force() {
    let t = tempfile::tempdir().unwrap();
    let data = tims(2);
    let img = iso(
        |at| vec![record(b"A.BIN;1", at, data.len() as u32, false)],
        &data,
    );
    let p = t.path().join("a.iso");
    std::fs::write(&p, &img).unwrap();
    let out = t.path().join("out");
    std::fs::create_dir_all(&out).unwrap();
    std::fs::write(out.join("manifest.json"), "mine").unwrap();
    let args = [
        OsStr::new("scan"),
        p.as_os_str(),
        OsStr::new("--extract"),
        out.as_os_str(),
    ];
    let r = run(&args);
    assert_eq!(code(&r), 2, "{}", r.stderr);
    assert!(r.stderr.contains("--force"), "{}", r.stderr);
    // Nothing was written: the folder holds only the user's file, unchanged.
    assert_eq!(files_below(&out), 1);
    assert_eq!(std::fs::read(out.join("manifest.json")).unwrap(), b"mine");
    let r = run(&[&args[..], &[OsStr::new("--force")]].concat());
    assert_eq!(code(&r), 0, "{}", r.stderr);
    assert_eq!(files_below(&out), 3);
}

/// The files below `dir`, in every folder.
fn files_below(dir: &std::path::Path) -> usize {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .map(|p| if p.is_dir() { files_below(&p) } else { 1 })
        .sum()
}

#[test]
fn out_dir_gives_inputs_of_one_name_distinct_outputs() {
    let t = tempfile::tempdir().unwrap();
    for d in ["a", "b"] {
        std::fs::create_dir_all(t.path().join(d)).unwrap();
        std::fs::copy(sample("swing.tod"), t.path().join(d).join("x.tod")).unwrap();
    }
    let out = t.path().join("D");
    let r = run(&[
        OsStr::new("convert"),
        t.path().join("a/x.tod").as_os_str(),
        t.path().join("b/x.tod").as_os_str(),
        OsStr::new("--out-dir"),
        out.as_os_str(),
        OsStr::new("--to"),
        OsStr::new("json"),
    ]);
    assert_eq!(code(&r), 0, "{}", r.stderr);
    assert_eq!(std::fs::read_dir(&out).unwrap().count(), 2);
}

#[test]
fn files_a_command_reads_are_replaced_only_with_force() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    // --base as the output.
    for f in ["flag.p3d", "wave.pc2"] {
        std::fs::copy(sample(f), d.join(f)).unwrap();
    }
    let base = d.join("flag.p3d");
    let r = run(&[
        OsStr::new("convert"),
        d.join("wave.pc2").as_os_str(),
        base.as_os_str(),
        OsStr::new("--base"),
        base.as_os_str(),
    ]);
    assert_eq!(code(&r), 2, "{}", r.stderr);
    assert!(r.stderr.contains("--force"), "{}", r.stderr);
    assert_eq!(
        std::fs::read(&base).unwrap(),
        std::fs::read(sample("flag.p3d")).unwrap()
    );
    // asm -o onto a file the source includes.
    let r = lab(
        &d.join("lab"),
        &[
            ("m.lab", b"#include \"defs.inc\"\nVALUE;\n"),
            ("defs.inc", b"#define VALUE 7\n"),
        ],
        &["-o", d.join("lab/defs.inc").to_str().unwrap()],
    );
    assert_eq!(code(&r), 2, "{}", r.stderr);
    assert_eq!(
        std::fs::read(d.join("lab/defs.inc")).unwrap(),
        b"#define VALUE 7\n"
    );
}

#[test]
fn an_unrelated_file_beside_the_output_needs_force() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    // A glTF of the sample animation; converting it to TOD writes its model beside it.
    let glb = d.join("anim.glb");
    let r = run(&[
        OsStr::new("convert"),
        sample("swing.tod").as_os_str(),
        glb.as_os_str(),
        OsStr::new("--tmd"),
        sample("link.tmd").as_os_str(),
    ]);
    assert_eq!(code(&r), 0, "{}", r.stderr);
    std::fs::write(d.join("anim.tmd"), "someone else's model").unwrap();
    let tod = d.join("anim.tod");
    let args = [OsStr::new("convert"), glb.as_os_str(), tod.as_os_str()];
    let r = run(&args);
    // This conversion writes a TMD beside its output: it must not replace ours, and nothing is
    // written before that is checked.
    assert_eq!(code(&r), 2, "{}", r.stderr);
    assert!(r.stderr.contains("--force"), "{}", r.stderr);
    assert_eq!(
        std::fs::read(d.join("anim.tmd")).unwrap(),
        b"someone else's model"
    );
    assert!(!tod.exists());
    let r = run(&[&args[..], &[OsStr::new("--force")]].concat());
    assert_eq!(code(&r), 0, "{}", r.stderr);
}

#[test]
fn outputs_that_are_not_regular_files_are_refused() {
    let t = tempfile::tempdir().unwrap();
    let fifo = t.path().join("out.json");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    let mut targets = vec![PathBuf::from("/dev/null"), t.path().to_path_buf()];
    if made.is_ok_and(|s| s.success()) {
        targets.push(fifo.clone());
    }
    for target in targets {
        let r = run(&[
            OsStr::new("convert"),
            sample("swing.tod").as_os_str(),
            target.as_os_str(),
            OsStr::new("--to"),
            OsStr::new("json"),
            OsStr::new("--force"),
        ]);
        assert_eq!(code(&r), 2, "{}: {}", target.display(), r.stderr);
        assert!(r.stderr.contains("not a regular file"), "{}", r.stderr);
    }
    use std::os::unix::fs::FileTypeExt;
    assert!(std::fs::metadata("/dev/null")
        .unwrap()
        .file_type()
        .is_char_device());
    if fifo.exists() {
        assert!(std::fs::symlink_metadata(&fifo)
            .unwrap()
            .file_type()
            .is_fifo());
    }
}
