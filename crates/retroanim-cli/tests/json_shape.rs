//! Every `--json` output has one shape (docs/json.md): JSON Lines of item lines, then one
//! summary line. Each command runs on one file, many files, a folder (`-r`) and a failing
//! file; every line must validate against `docs/schema/retroanim-jsonl.schema.json` (with the
//! `jsonschema` crate), the summary must be the last line and only there, and its counts must
//! equal what the item lines say.

mod common;

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use common::retroanim;
use serde_json::Value;

fn sample(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../samples")
        .join(name)
}

fn validator() -> jsonschema::Validator {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/schema/retroanim-jsonl.schema.json");
    let schema: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    jsonschema::draft202012::new(&schema).expect("the schema compiles")
}

/// What one `--json` run printed.
struct Lines {
    items: Vec<Value>,
    summary: Value,
    code: Option<i32>,
}

/// Runs `retroanim ARGS` (which must include `--json`), checks every line against the schema
/// and the summary's counts against the items, and returns them.
fn run(args: &[OsString]) -> Lines {
    let out = retroanim().args(args).output().unwrap();
    let shown = format!("{args:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    let v = validator();
    let mut lines: Vec<Value> = Vec::new();
    for line in text.lines() {
        let value: Value = serde_json::from_str(line)
            .unwrap_or_else(|e| panic!("{shown}: not one JSON value per line ({e}): {line}"));
        let errors: Vec<String> = v.iter_errors(&value).map(|e| e.to_string()).collect();
        assert!(
            errors.is_empty(),
            "{shown}: a line does not fit the schema: {errors:?}\n{line}"
        );
        lines.push(value);
    }
    let summary = lines.pop().unwrap_or_else(|| {
        panic!(
            "{shown}: no output; stderr {}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    let summary = summary
        .get("summary")
        .unwrap_or_else(|| panic!("{shown}: the last line is no summary: {summary}"))
        .clone();
    for l in &lines {
        assert!(
            l.get("path").is_some(),
            "{shown}: a summary before the end: {l}"
        );
    }
    let count = |f: &dyn Fn(&Value) -> bool| lines.iter().filter(|l| f(l)).count() as u64;
    assert_eq!(summary["items"], lines.len() as u64, "{shown}: items");
    assert_eq!(summary["ok"], count(&|l| l["ok"] == true), "{shown}: ok");
    assert_eq!(
        summary["failed"],
        count(&|l| l.get("error").is_some()),
        "{shown}: failed"
    );
    assert_eq!(
        summary["invalid"],
        count(&|l| l["ok"] == false && l.get("error").is_none()),
        "{shown}: invalid"
    );
    for severity in ["error", "warning", "info"] {
        let n: usize = lines
            .iter()
            .filter_map(|l| l["findings"].as_array())
            .map(|f| f.iter().filter(|f| f["severity"] == severity).count())
            .sum();
        assert_eq!(
            summary["findings"][severity], n as u64,
            "{shown}: {severity} findings"
        );
    }
    Lines {
        items: lines,
        summary,
        code: out.status.code(),
    }
}

fn os(parts: &[&dyn AsRef<std::ffi::OsStr>]) -> Vec<OsString> {
    parts.iter().map(|p| p.as_ref().to_os_string()).collect()
}

/// A folder with the samples, a subfolder and a file of no known format (skipped, not failed).
fn folder(dir: &Path) -> PathBuf {
    let root = dir.join("folder");
    std::fs::create_dir_all(root.join("sub")).unwrap();
    for name in ["swing.tod", "link.tmd", "checker.tim"] {
        std::fs::copy(sample(name), root.join(name)).unwrap();
    }
    std::fs::copy(sample("flag.p3d"), root.join("sub/flag.p3d")).unwrap();
    std::fs::write(root.join("sub/notes.txt"), b"no format here").unwrap();
    root
}

/// A TOD cut in the middle of a frame: a file that fails to read.
fn broken(dir: &Path) -> PathBuf {
    let bytes = std::fs::read(sample("swing.tod")).unwrap();
    let path = dir.join("cut.tod");
    std::fs::write(&path, &bytes[..bytes.len() / 2 + 3]).unwrap();
    path
}

#[test]
fn file_commands_one_many_folder_failing() {
    let dir = tempfile::tempdir().unwrap();
    let root = folder(dir.path());
    let cut = broken(dir.path());
    let (tod, tmd, tim) = (
        sample("swing.tod"),
        sample("link.tmd"),
        sample("checker.tim"),
    );
    for command in ["info", "validate", "dump", "roundtrip"] {
        let one = run(&os(&[&command, &"--json", &tod]));
        assert_eq!(one.items.len(), 1, "{command}");
        assert_eq!(one.items[0]["path"], tod.display().to_string());
        assert_eq!(one.items[0]["format"], "tod");
        assert_eq!(one.items[0]["ok"], true);
        assert_eq!(one.code, Some(0), "{command}");

        let many = run(&os(&[&command, &"--json", &tod, &tmd, &tim]));
        let formats: Vec<&str> = many
            .items
            .iter()
            .map(|l| l["format"].as_str().unwrap())
            .collect();
        assert_eq!(formats, ["tod", "tmd", "tim"], "{command}");

        let walked = run(&os(&[&command, &"--json", &"-r", &root]));
        assert_eq!(
            walked.items.len(),
            4,
            "{command}: four files of known formats"
        );
        let skipped = walked.summary["skipped"].as_array().unwrap();
        assert_eq!(skipped.len(), 1, "{command}");
        assert!(skipped[0]["path"].as_str().unwrap().ends_with("notes.txt"));

        let failing = run(&os(&[&command, &"--json", &tod, &cut]));
        assert_eq!(failing.code, Some(2), "{command}");
        assert_eq!(failing.summary["failed"], 1, "{command}");
        let err = &failing.items[1]["error"];
        assert_eq!(err["kind"], "malformed", "{command}: {err}");
        assert!(err["offset"].as_u64().is_some(), "{command}: {err}");
        assert!(
            err["message"].as_str().unwrap().contains("cut.tod"),
            "{err}"
        );
    }
}

#[test]
fn command_fields_keep_their_names() {
    let tod = sample("swing.tod");
    let info = &run(&os(&[&"info", &"--json", &tod])).items[0];
    assert_eq!(info["frames"], 48);
    assert_eq!(info["packets"], 205);
    assert_eq!(info["objects"], serde_json::json!([1, 2, 3, 4]));
    let validate = &run(&os(&[&"validate", &"--json", &tod])).items[0];
    assert_eq!(validate["errors"], 0);
    let dump = &run(&os(&[&"dump", &"--json", &tod])).items[0];
    assert_eq!(dump["model"]["frames"].as_array().unwrap().len(), 48);
    let rt = &run(&os(&[&"roundtrip", &"--json", &tod])).items[0];
    assert_eq!(rt["identical"], true);
    assert_eq!(rt["bytes"], std::fs::metadata(&tod).unwrap().len());
}

#[test]
fn dump_json_lines_read_back_into_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let out = retroanim()
        .args(["dump", "--json"])
        .arg(sample("swing.tod"))
        .output()
        .unwrap();
    let jsonl = dir.path().join("swing.jsonl");
    std::fs::write(&jsonl, &out.stdout).unwrap();
    let back = dir.path().join("back.tod");
    retroanim()
        .arg("convert")
        .arg(&jsonl)
        .arg(&back)
        .assert()
        .success();
    assert_eq!(
        std::fs::read(&back).unwrap(),
        std::fs::read(sample("swing.tod")).unwrap()
    );
}

#[test]
fn roundtrip_difference_is_an_error_finding() {
    let dir = tempfile::tempdir().unwrap();
    // Two TIMs back to back: the reader keeps the second as trailing bytes, so it round-trips;
    // a JSON dump is refused (an editing format), a failure line.
    let json = dir.path().join("swing.json");
    retroanim()
        .arg("convert")
        .arg(sample("swing.tod"))
        .arg(&json)
        .assert()
        .success();
    let r = run(&os(&[&"roundtrip", &"--json", &json]));
    assert_eq!(r.items[0]["error"]["kind"], "usage");
    assert_eq!(r.code, Some(2));
}

#[test]
fn convert_one_many_folder_failing() {
    let dir = tempfile::tempdir().unwrap();
    let root = folder(dir.path());
    let cut = broken(dir.path());
    let glb = dir.path().join("swing.glb");
    let one = run(&os(&[
        &"convert",
        &"--json",
        &sample("swing.tod"),
        &glb,
        &"--tmd",
        &sample("link.tmd"),
    ]));
    let line = &one.items[0];
    assert_eq!(line["format"], "tod");
    assert_eq!(line["target"], "glb");
    assert_eq!(line["output"], glb.display().to_string());
    assert_eq!(line["bytes"], std::fs::metadata(&glb).unwrap().len());
    assert_eq!(one.code, Some(0));

    let out = dir.path().join("many");
    let many = run(&os(&[
        &"convert",
        &"--json",
        &sample("swing.tod"),
        &sample("checker.tim"),
        &sample("link.tmd"),
        &"--out-dir",
        &out,
    ]));
    // The TOD drives the TMD given with it (an animation without one is not converted).
    assert_eq!(many.items.len(), 3);
    assert_eq!(many.items[1]["target"], "png");

    let walked = run(&os(&[
        &"convert",
        &"--json",
        &"-r",
        &root,
        &"--out-dir",
        &dir.path().join("w"),
    ]));
    assert_eq!(walked.items.len(), 4);
    assert_eq!(walked.summary["skipped"].as_array().unwrap().len(), 1);
    // Pairing notes are findings of severity info.
    assert!(walked
        .items
        .iter()
        .flat_map(|l| l["findings"].as_array().unwrap())
        .all(|f| f["severity"] == "info" && f["offset"].is_null()));

    let failing = run(&os(&[
        &"convert",
        &"--json",
        &cut,
        &sample("checker.tim"),
        &"--out-dir",
        &dir.path().join("f"),
    ]));
    assert_eq!(failing.summary["failed"], 1);
    assert_eq!(failing.summary["ok"], 1);
    assert_eq!(failing.code, Some(2));
}

#[test]
fn scan_one_many_folder_failing() {
    let dir = tempfile::tempdir().unwrap();
    let root = folder(dir.path());
    let one = run(&os(&[&"scan", &"--json", &sample("swing.tod")]));
    assert_eq!(one.items.len(), 1);
    assert_eq!(one.items[0]["format"], "tod");
    assert_eq!(one.summary["finds"], 1);
    let many = run(&os(&[
        &"scan",
        &"--json",
        &sample("swing.tod"),
        &sample("checker.tim"),
    ]));
    assert_eq!(many.items.len(), 2);
    let walked = run(&os(&[&"scan", &"--json", &root]));
    assert!(walked.items.len() >= 4, "{:?}", walked.items);
    let missing = dir.path().join("missing.iso");
    let failing = run(&os(&[&"scan", &"--json", &sample("swing.tod"), &missing]));
    assert_eq!(failing.summary["failed"], 1);
    assert_eq!(failing.code, Some(2));
}

#[test]
fn play_frames_and_failures() {
    let tod = run(&os(&[
        &"play",
        &sample("swing.tod"),
        &"--tmd",
        &sample("link.tmd"),
        &"--frames",
        &"0..=9",
        &"--json",
    ]));
    assert_eq!(tod.items.len(), 10);
    assert_eq!(tod.items[3]["frame"], 3);
    assert!(tod.items[3]["objects"].is_array());
    assert_eq!(tod.summary["resolution"], 2);
    assert!(tod.summary["notes"].is_array());
    let hmd = run(&os(&[
        &"play",
        &sample("triangle.lab"),
        &"--frames",
        &"0..=4",
        &"--json",
    ]));
    assert_eq!(hmd.items.len(), 5);
    assert_eq!(hmd.items[0]["format"], "hmd");
    let failing = run(&os(&[&"play", &sample("checker.tim"), &"--json"]));
    assert_eq!(failing.items.len(), 1);
    assert_eq!(failing.summary["failed"], 1);
    assert_eq!(failing.code, Some(2));
}

#[test]
fn patch_replacements_and_failures() {
    let dir = tempfile::tempdir().unwrap();
    let tim = std::fs::read(sample("checker.tim")).unwrap();
    let blob = dir.path().join("blob.bin");
    std::fs::write(&blob, [&tim[..], &[0u8; 64], &tim[..]].concat()).unwrap();
    let out = dir.path().join("out.bin");
    let done = run(&os(&[
        &"patch",
        &blob,
        &"--replace",
        &"+0",
        &sample("checker.tim"),
        &"-o",
        &out,
        &"--json",
    ]));
    assert_eq!(done.items.len(), 1);
    assert_eq!(done.items[0]["format"], "tim");
    assert_eq!(done.items[0]["place"], "+0");
    assert_eq!(done.summary["written"][0], out.display().to_string());
    let failing = run(&os(&[
        &"patch",
        &blob,
        &"--replace",
        &"+7",
        &sample("checker.tim"),
        &"-o",
        &dir.path().join("no.bin"),
        &"--json",
    ]));
    assert_eq!(failing.summary["failed"], 1);
    assert_eq!(failing.code, Some(2));
}

#[test]
fn the_schema_refuses_other_shapes() {
    let v = validator();
    let bad = [
        // An array, a summary with no counts, a line without `ok`.
        r#"[{"path": "a.tod"}]"#,
        r#"{"summary": {"finds": 1}}"#,
        r#"{"path": "a.tod", "format": "tod", "findings": []}"#,
        // `ok` true beside an error finding; a failure with findings; an unknown severity.
        r#"{"path": "a.tod", "format": "tod", "ok": true, "findings": [{"code": "x", "severity": "error", "offset": 3, "message": "m"}]}"#,
        r#"{"path": "a.tod", "format": null, "ok": false, "error": {"kind": "io", "offset": null, "message": "m"}, "findings": []}"#,
        r#"{"path": "a.tod", "format": "tod", "ok": true, "findings": [{"code": "x", "severity": "fatal", "offset": 3, "message": "m"}]}"#,
    ];
    for line in bad {
        let value: Value = serde_json::from_str(line).unwrap();
        assert!(!v.is_valid(&value), "the schema accepts {line}");
    }
    let good = r#"{"path": "a.tod", "format": "tod", "ok": false, "frames": 3, "findings": [{"code": "x", "severity": "error", "offset": 3, "message": "m"}]}"#;
    assert!(v.is_valid(&serde_json::from_str(good).unwrap()));
}

#[test]
fn convert_writes_every_tim_and_refuses_tim_without_tmd() {
    let dir = tempfile::tempdir().unwrap();
    let tim = std::fs::read(sample("checker.tim")).unwrap();
    let three = dir.path().join("three.tim");
    std::fs::write(&three, [&tim[..], &tim[..], &tim[..]].concat()).unwrap();
    let png = dir.path().join("three.png");
    let done = run(&os(&[&"convert", &"--json", &three, &png]));
    let extra: Vec<&str> = done.items[0]["extra"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["path"].as_str().unwrap())
        .collect();
    assert_eq!(extra.len(), 2);
    for name in ["three_1.png", "three_2.png"] {
        assert!(dir.path().join(name).exists(), "{name}");
    }
    assert!(done.items[0]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .any(|f| f["code"] == "several-tims"));

    let glb = dir.path().join("swing.glb");
    let refused = run(&os(&[
        &"convert",
        &"--json",
        &sample("swing.tod"),
        &glb,
        &"--tim",
        &sample("checker.tim"),
    ]));
    assert_eq!(refused.items[0]["error"]["kind"], "option");
    assert!(refused.items[0]["error"]["message"]
        .as_str()
        .unwrap()
        .contains("--tmd"));
    assert_eq!(refused.code, Some(2));
    assert!(!glb.exists());
}
