//! The command line: each command's output and exit codes (0 ok, 1 findings, 2 failure).

use std::path::{Path, PathBuf};

use assert_cmd::Command;

mod common;
use common::retroanim;

fn sample(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../samples")
        .join(name)
}

fn stdout(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap();
    String::from_utf8(out.stdout).unwrap()
}

/// A TOD with one frame: create object 1, then kill object 2 (never created): a validation error.
fn bad_tod(dir: &Path) -> PathBuf {
    let words: [u32; 6] = [
        0x50,
        1,
        4 | 2 << 16,
        0,
        1 | 8 << 16 | 1 << 24,
        2 | 8 << 16 | 1 << 20 | 1 << 24,
    ];
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let p = dir.join("bad.tod");
    std::fs::write(&p, bytes).unwrap();
    p
}

#[test]
fn info_json_has_the_contract_fields() {
    let out = stdout(
        retroanim()
            .args(["info", "--json"])
            .arg(sample("swing.tod")),
    );
    let v = common::json_lines(out.as_bytes()).0.remove(0);
    assert_eq!(v["format"], "tod");
    assert_eq!(v["version"], 0);
    assert_eq!(v["resolution"], 2);
    assert_eq!(v["frames"], 48);
    assert_eq!(v["packets"], 205);
    assert_eq!(v["objects"], serde_json::json!([1, 2, 3, 4]));
    assert_eq!(v["packet_types"]["1"], 192);
    assert_eq!(v["packet_types"]["8"], 5);
}

#[test]
fn info_text_is_readable() {
    retroanim()
        .arg("info")
        .arg(sample("swing.tod"))
        .assert()
        .success()
        .stdout(predicates::str::contains("format: tod"))
        .stdout(predicates::str::contains("objects: [1,2,3,4]"));
}

#[test]
fn dump_json_then_convert_rebuilds_the_identical_file() {
    let dir = tempfile::tempdir().unwrap();
    let json = stdout(
        retroanim()
            .args(["dump", "--json"])
            .arg(sample("swing.tod")),
    );
    let v = common::json_lines(json.as_bytes()).0.remove(0);
    assert_eq!(v["format"], "tod");
    assert!(v["model"]["frames"].as_array().unwrap().len() == 48);
    let jp = dir.path().join("swing.json");
    std::fs::write(&jp, &json).unwrap();
    let out = dir.path().join("again.tod");
    retroanim()
        .arg("convert")
        .arg(&jp)
        .arg(&out)
        .assert()
        .success();
    assert_eq!(
        std::fs::read(&out).unwrap(),
        std::fs::read(sample("swing.tod")).unwrap()
    );
}

#[test]
fn an_edit_in_json_lands_in_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let json = stdout(
        retroanim()
            .args(["dump", "--json"])
            .arg(sample("swing.tod")),
    );
    // One line of `dump --json` is a dump `convert` reads.
    let mut v = common::json_lines(json.as_bytes()).0.remove(0);
    v["model"]["header"]["resolution"] = 3.into();
    // Drop the last frame: the header's frame count follows.
    v["model"]["frames"].as_array_mut().unwrap().pop();
    let jp = dir.path().join("edit.json");
    std::fs::write(&jp, serde_json::to_string(&v).unwrap()).unwrap();
    let out = dir.path().join("edit.tod");
    retroanim()
        .arg("convert")
        .arg(&jp)
        .arg(&out)
        .assert()
        .success();
    let info = common::json(retroanim().args(["info", "--json"]).arg(&out));
    assert_eq!(info["resolution"], 3);
    assert_eq!(info["frames"], 47);
}

#[test]
fn validate_exit_codes() {
    let dir = tempfile::tempdir().unwrap();
    retroanim()
        .arg("validate")
        .arg(sample("swing.tod"))
        .assert()
        .code(0)
        .stdout(predicates::str::contains("ok (tod, 0 errors"));
    let bad = bad_tod(dir.path());
    retroanim()
        .arg("validate")
        .arg(&bad)
        .assert()
        .code(1)
        .stdout(predicates::str::contains(
            "error at byte 20 (0x14) [kill-unknown]",
        ));
    let junk = dir.path().join("junk.bin");
    std::fs::write(&junk, b"not an animation").unwrap();
    retroanim()
        .arg("validate")
        .arg(&junk)
        .arg(sample("swing.tod"))
        .assert()
        .code(2)
        .stderr(predicates::str::contains("junk.bin"));
    let out = stdout(retroanim().args(["validate", "--json"]).arg(&bad));
    let v = common::json_lines(out.as_bytes()).0.remove(0);
    assert_eq!(v["errors"], 1);
    assert_eq!(v["ok"], false);
    let issues = v["findings"].as_array().unwrap();
    let kill = issues.iter().find(|i| i["code"] == "kill-unknown").unwrap();
    assert_eq!(kill["offset"], 20);
    assert_eq!(kill["severity"], "error");
}

#[test]
fn truncated_input_names_path_offset_and_expectation() {
    let dir = tempfile::tempdir().unwrap();
    let bytes = std::fs::read(sample("swing.tod")).unwrap();
    let cut = dir.path().join("cut.tod");
    std::fs::write(&cut, &bytes[..1000]).unwrap();
    let out = retroanim().arg("info").arg(&cut).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("cut.tod"), "{err}");
    assert!(err.contains("tod: malformed at byte"), "{err}");
    assert!(err.contains("expected"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

/// `info` on a glTF file summarises the scene retroanim would author from: what a user checks
/// before converting it to the console's formats.
#[test]
fn info_summarises_a_gltf_scene() {
    let dir = tempfile::tempdir().unwrap();
    let glb = dir.path().join("swing.glb");
    retroanim()
        .arg("convert")
        .arg(sample("swing.tod"))
        .arg(&glb)
        .arg("--tmd")
        .arg(sample("link.tmd"))
        .assert()
        .code(0);
    let v = common::json(retroanim().args(["info", "--json"]).arg(&glb));
    assert_eq!(v["format"], "glb");
    let tod = common::json(
        retroanim()
            .args(["info", "--json"])
            .arg(sample("swing.tod")),
    );
    // One node per TOD object, each showing a mesh; one animation as long as the TOD.
    let objects = tod["objects"].as_array().unwrap().len();
    assert!(v["nodes"].as_u64().unwrap() as usize >= objects, "{v}");
    assert!(v["triangles"].as_u64().unwrap() > 0, "{v}");
    let anims = v["animations"].as_array().unwrap();
    assert_eq!(anims.len(), 1, "{v}");
    let seconds = anims[0]["duration_seconds"].as_f64().unwrap();
    let want = tod["duration_seconds"].as_f64().unwrap();
    assert!((seconds - want).abs() < 0.05, "{seconds} vs {want}");
    let text = stdout(retroanim().arg("info").arg(&glb));
    assert!(text.contains("animations:"), "{text}");
}

#[test]
fn roundtrip_reports_identical_files() {
    retroanim()
        .arg("roundtrip")
        .arg(sample("swing.tod"))
        .assert()
        .code(0)
        .stdout(predicates::str::contains("identical (3632 bytes)"));
    let dir = tempfile::tempdir().unwrap();
    let junk = dir.path().join("junk.bin");
    std::fs::write(&junk, [0u8; 3]).unwrap();
    retroanim().arg("roundtrip").arg(&junk).assert().code(2);
}

#[test]
fn convert_chooses_the_format_and_never_overwrites_its_input() {
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("copy.tod");
    std::fs::copy(sample("swing.tod"), &copy).unwrap();
    // --to wins over the extension; `-` writes to standard output.
    let out = stdout(
        retroanim()
            .arg("convert")
            .arg(&copy)
            .args(["-", "--to", "json"]),
    );
    assert!(out.contains("\"format\": \"tod\""));
    retroanim()
        .arg("convert")
        .arg(&copy)
        .arg(&copy)
        .assert()
        .code(2)
        .stderr(predicates::str::contains("refusing to replace it"));
    retroanim()
        .arg("convert")
        .arg(&copy)
        .arg(dir.path().join("x.unknownext"))
        .assert()
        .code(2)
        .stderr(predicates::str::contains("unknown output extension"));
    retroanim()
        .arg("convert")
        .arg(&copy)
        .arg(&copy)
        .arg("--force")
        .assert()
        .success();
    assert_eq!(
        std::fs::read(&copy).unwrap(),
        std::fs::read(sample("swing.tod")).unwrap()
    );
    // A new output gets the mode the user's umask gives new files (not the temporary file's
    // owner-only mode); a replaced output keeps its own.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let bin = assert_cmd::cargo::cargo_bin("retroanim");
        for (umask, want) in [("022", 0o644), ("027", 0o640), ("077", 0o600)] {
            let fresh = dir.path().join(format!("fresh{umask}.json"));
            let status = std::process::Command::new("sh")
                .arg("-c")
                .arg(format!(
                    "umask {umask} && exec \"$0\" convert \"$1\" \"$2\""
                ))
                .arg(&bin)
                .arg(&copy)
                .arg(&fresh)
                .status()
                .unwrap();
            assert!(status.success());
            let mode = std::fs::metadata(&fresh).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, want, "umask {umask}: {mode:o}");
        }
        let kept = dir.path().join("fresh077.json");
        std::fs::write(&kept, b"an older output").unwrap();
        std::fs::set_permissions(&kept, std::fs::Permissions::from_mode(0o664)).unwrap();
        retroanim()
            .arg("convert")
            .arg(&copy)
            .arg(&kept)
            .assert()
            .code(2)
            .stderr(predicates::str::contains("exists already"));
        retroanim()
            .arg("convert")
            .arg(&copy)
            .arg(&kept)
            .arg("--force")
            .assert()
            .success();
        assert_ne!(std::fs::read(&kept).unwrap(), b"an older output");
        let mode = std::fs::metadata(&kept).unwrap().permissions().mode();
        assert_eq!(
            mode & 0o777,
            0o664,
            "a replaced file keeps its mode: {mode:o}"
        );
    }
    // No temporary files are left behind.
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().starts_with(".retroanim-"))
        .collect();
    assert!(leftovers.is_empty());
}

#[test]
fn usage_errors_exit_2() {
    retroanim().arg("frobnicate").assert().code(2);
    retroanim().arg("info").assert().code(2);
    // One prefix for clap's usage errors and ours.
    for args in [&["frobnicate"][..], &["info"], &["play", "--frames"]] {
        let o = retroanim().args(args).output().unwrap();
        let err = String::from_utf8(o.stderr).unwrap();
        assert!(err.starts_with("retroanim: error: "), "{args:?}: {err}");
        assert_eq!(o.status.code(), Some(2));
    }
    let o = retroanim()
        .arg("play")
        .arg(sample("link.tmd"))
        .output()
        .unwrap();
    let err = String::from_utf8(o.stderr).unwrap();
    assert!(err.starts_with("retroanim: error: "), "{err}");
    // Help and version still print to standard output and succeed.
    let o = retroanim().arg("--version").output().unwrap();
    assert!(o.status.success() && o.stdout.starts_with(b"retroanim "));
    // A command given the wrong kind of file says what the file is.
    let o = retroanim()
        .arg("disasm")
        .arg(sample("swing.tod"))
        .output()
        .unwrap();
    let err = String::from_utf8(o.stderr).unwrap();
    assert!(err.contains("a tod file; disasm takes an HMD"), "{err}");
    assert_eq!(o.status.code(), Some(2));
    // The same style for every command that takes one kind: what the file is, what would do.
    let out = tempfile::tempdir().unwrap();
    for (args, want) in [
        (
            vec!["play".into(), sample("link.tmd")],
            "a tmd file; play needs a TOD, HMD or RTM",
        ),
        (
            vec![
                "asm".into(),
                sample("link.tmd"),
                "-o".into(),
                out.path().join("x.hmd"),
            ],
            "a tmd file; asm takes LAB source",
        ),
        (
            vec![
                "render".into(),
                sample("wave.mdd"),
                out.path().join("x.png"),
            ],
            "a mdd file; render draws",
        ),
    ] {
        let o = retroanim().args(&args).output().unwrap();
        let err = String::from_utf8(o.stderr).unwrap();
        assert!(
            err.starts_with("retroanim: error: ") && err.contains(want),
            "{args:?}: {err}"
        );
        assert_eq!(o.status.code(), Some(2), "{args:?}");
    }
    assert_eq!(std::fs::read_dir(out.path()).unwrap().count(), 0);
}

/// `retroanim ... | head`: when the reader closes the pipe early, every printing command stops
/// quietly (no panic message, no failure exit) instead of dying on the broken pipe. Each output
/// here is far larger than a pipe's buffer, so the command is still writing when the pipe closes.
#[test]
fn a_closed_output_pipe_ends_quietly() {
    use std::ffi::OsString;
    use std::io::{BufRead, BufReader};
    use std::process::{Command as Std, Stdio};
    let dir = tempfile::tempdir().unwrap();
    // An MDD of 200 frames of 200 points (big-endian counts, times, then positions).
    let (frames, points) = (200u32, 200u32);
    let mut mdd = Vec::new();
    mdd.extend(frames.to_be_bytes());
    mdd.extend(points.to_be_bytes());
    for f in 0..frames {
        mdd.extend((f as f32 / 24.0).to_be_bytes());
    }
    for i in 0..frames * points * 3 {
        mdd.extend((i as f32 * 0.001).to_be_bytes());
    }
    let big = dir.path().join("big.mdd");
    std::fs::write(&big, mdd).unwrap();
    let tod = sample("swing.tod");
    let many = |cmd: &str| -> Vec<OsString> {
        std::iter::once(OsString::from(cmd))
            .chain(std::iter::repeat_n(tod.clone().into_os_string(), 2000))
            .collect()
    };
    let cases: [Vec<OsString>; 6] = [
        vec!["dump".into(), big.clone().into()],
        vec!["dump".into(), "--json".into(), big.clone().into()],
        vec!["play".into(), tod.clone().into(), "--json".into()],
        many("validate"),
        many("roundtrip"),
        vec!["info".into(), "--json".into(), big.clone().into()],
    ];
    for args in cases {
        let shown = format!("{:?}", &args[..2]);
        let mut child = Std::new(env!("CARGO_BIN_EXE_retroanim"))
            .args(&args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut first = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut first)
            .unwrap();
        // the reader is dropped here: the pipe is closed after one line
        let out = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!first.is_empty(), "{shown}: no output at all");
        assert!(!err.contains("panicked"), "{shown}: {err}");
        assert_eq!(out.status.code(), Some(0), "{shown}: {err}");
    }
}

#[test]
fn a_tod_claiming_millions_of_frames_needs_an_explicit_range() {
    // The last frame's number raised to 4,194,311: a 500-byte file would stream four million
    // poses by default. It must ask for --frames instead; an explicit range still plays.
    use retroanim::formats::tod;
    let mut anim = tod::read(&std::fs::read(sample("swing.tod")).unwrap()).unwrap();
    anim.frames.last_mut().unwrap().number = 4_194_311;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("long.tod");
    std::fs::write(&path, tod::write(&anim).unwrap()).unwrap();
    let o = retroanim().arg("play").arg(&path).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(o.stdout.is_empty(), "nothing printed before the refusal");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("4194311") && err.contains("--frames"), "{err}");
    retroanim()
        .args(["play", "--frames", "0..10"])
        .arg(&path)
        .assert()
        .success();
    // The shipped sample plays whole by default.
    retroanim()
        .arg("play")
        .arg(sample("swing.tod"))
        .assert()
        .success();
}
