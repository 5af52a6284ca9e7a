//! The command line on MDD and PC2: info, validate, roundtrip, dump → convert, MDD ↔ PC2.

use std::path::{Path, PathBuf};

use retroanim::formats::mdd::{self, Mdd};
use serde_json::Value;

mod common;
use common::{json, retroanim};

/// Three frames of a two-point cache at 24 fps, optionally with the uncounted rest frame.
fn write_mdd(dir: &Path, name: &str, rest: bool) -> PathBuf {
    let frames: Vec<Vec<[f32; 3]>> = (0..3)
        .map(|f| vec![[f as f32, 0.0, 0.0], [0.0, 1.0, f as f32 * 0.5]])
        .collect();
    let m = Mdd {
        points: 2,
        times: (0..3).map(|f| (f as f64 / 24.0) as f32).collect(),
        rest_frame: rest.then(|| frames[0].clone()),
        frames,
    };
    let p = dir.join(name);
    std::fs::write(&p, mdd::write(&m).unwrap()).unwrap();
    p
}

#[test]
fn info_json_gives_format_frames_points() {
    let dir = tempfile::tempdir().unwrap();
    let m = write_mdd(dir.path(), "a.mdd", false);
    let v = json(retroanim().args(["info", "--json"]).arg(&m));
    assert_eq!(v["format"], "mdd");
    assert_eq!(v["frames"], 3);
    assert_eq!(v["points"], 2);
    let pc2 = dir.path().join("a.pc2");
    retroanim()
        .arg("convert")
        .arg(&m)
        .arg(&pc2)
        .assert()
        .success();
    let v = json(retroanim().args(["info", "--json"]).arg(&pc2));
    assert_eq!(v["format"], "pc2");
    assert_eq!(v["frames"], 3);
    assert_eq!(v["points"], 2);
    assert_eq!(v["sample_rate"], 1.0);
}

#[test]
fn mdd_pc2_mdd_gives_back_the_same_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let m = write_mdd(dir.path(), "a.mdd", false);
    let pc2 = dir.path().join("a.pc2");
    let back = dir.path().join("b.mdd");
    retroanim()
        .arg("convert")
        .arg(&m)
        .arg(&pc2)
        .assert()
        .success();
    // The frame rate is guessed from the MDD going in, and must be given coming back.
    retroanim()
        .arg("convert")
        .arg(&pc2)
        .arg(&back)
        .args(["--fps", "24"])
        .assert()
        .success();
    assert_eq!(std::fs::read(&back).unwrap(), std::fs::read(&m).unwrap());
}

#[test]
fn rest_frame_is_reported_and_left_out_of_pc2() {
    let dir = tempfile::tempdir().unwrap();
    let m = write_mdd(dir.path(), "rest.mdd", true);
    let out = retroanim().arg("validate").arg(&m).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "a warning is not an error");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("uncounted-rest-frame"), "{text}");
    retroanim().arg("roundtrip").arg(&m).assert().success();
    let pc2 = dir.path().join("rest.pc2");
    let out = retroanim()
        .arg("convert")
        .arg(&m)
        .arg(&pc2)
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("rest frame"));
    let v = json(retroanim().args(["info", "--json"]).arg(&pc2));
    assert_eq!(v["frames"], 3);
}

#[test]
fn dump_json_converts_back_to_the_identical_file() {
    let dir = tempfile::tempdir().unwrap();
    let m = write_mdd(dir.path(), "a.mdd", true);
    let dump = dir.path().join("a.json");
    let out = retroanim()
        .args(["dump", "--json"])
        .arg(&m)
        .output()
        .unwrap();
    std::fs::write(&dump, out.stdout).unwrap();
    let again = dir.path().join("again.mdd");
    retroanim()
        .arg("convert")
        .arg(&dump)
        .arg(&again)
        .assert()
        .success();
    assert_eq!(std::fs::read(&again).unwrap(), std::fs::read(&m).unwrap());
}

#[test]
fn truncated_cache_fails_with_exit_2_and_an_offset() {
    let dir = tempfile::tempdir().unwrap();
    let m = write_mdd(dir.path(), "a.mdd", false);
    let pc2 = dir.path().join("a.pc2");
    retroanim()
        .arg("convert")
        .arg(&m)
        .arg(&pc2)
        .assert()
        .success();
    let bytes = std::fs::read(&pc2).unwrap();
    std::fs::write(&pc2, &bytes[..bytes.len() - 5]).unwrap();
    let out = retroanim().arg("info").arg(&pc2).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("malformed at byte 28"), "{err}");
    let out = retroanim()
        .arg("convert")
        .arg(&m)
        .arg(dir.path().join("x.pc2"))
        .args(["--fps", "-3"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn caches_convert_to_gltf_and_glb() {
    let dir = tempfile::tempdir().unwrap();
    let m = write_mdd(dir.path(), "a.mdd", false);
    for ext in ["glb", "gltf"] {
        let out = dir.path().join(format!("a.{ext}"));
        retroanim()
            .arg("convert")
            .arg(&m)
            .arg(&out)
            .assert()
            .success();
        let bytes = std::fs::read(&out).unwrap();
        let doc: Value = if ext == "glb" {
            assert_eq!(&bytes[..4], b"glTF");
            let n = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
            serde_json::from_slice(&bytes[20..20 + n]).unwrap()
        } else {
            serde_json::from_slice(&bytes).unwrap()
        };
        assert_eq!(
            doc["meshes"][0]["extras"]["targetNames"],
            serde_json::json!(["frame 0", "frame 1", "frame 2"])
        );
        assert_eq!(
            doc["animations"][0]["channels"][0]["target"]["path"],
            "weights"
        );
    }
}
