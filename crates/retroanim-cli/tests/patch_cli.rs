//! `retroanim patch` on a raw image of the project's samples: the README's loop (scan, extract,
//! PNG, back to TIM, patch, scan again), --dry-run, and refused places with exit code 2.

use std::path::{Path, PathBuf};

use serde_json::Value;

mod common;
use common::retroanim;

/// `disc.bin` (raw Mode 2, from an xorriso ISO) holding the samples under /SAMPLES; `None`
/// (loudly) without xorriso, unless RETROANIM_REQUIRE_CORPUS=1.
fn disc(dir: &Path) -> Option<PathBuf> {
    let tree = dir.join("tree/SAMPLES");
    std::fs::create_dir_all(&tree).unwrap();
    let samples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../samples");
    for name in ["checker.tim", "link.tmd", "swing.tod"] {
        std::fs::copy(samples.join(name), tree.join(name.to_uppercase())).unwrap();
    }
    let bin = dir.join("disc.bin");
    common::raw_disc(
        &dir.join("tree"),
        &dir.join("disc.iso"),
        &bin,
        &["-no-pad"],
        "patch CLI test",
    )
    .then_some(bin)
}

/// `scan --json` finds by place.
fn scan(image: &Path) -> Vec<(String, Value)> {
    let out = retroanim()
        .arg("scan")
        .arg(image)
        .arg("--json")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|v| v.get("container").is_some())
        .map(|v| {
            let c = v["container"].as_str().unwrap();
            let place = format!("{}+{}", &c[c.find(":/").unwrap() + 1..], v["offset"]);
            (place, v)
        })
        .collect()
}

#[test]
fn the_readme_loop() {
    let t = tempfile::tempdir().unwrap();
    let Some(bin) = disc(t.path()) else { return };
    let before = scan(&bin);
    let place = "/SAMPLES/CHECKER.TIM+0";
    assert!(before.iter().any(|(p, _)| p == place), "{before:?}");
    let ex = t.path().join("ex");
    retroanim()
        .arg("scan")
        .arg(&bin)
        .arg("--extract")
        .arg(&ex)
        .args(["--convert", "png"])
        .assert()
        .success();
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(ex.join("manifest.json")).unwrap()).unwrap();
    let png = manifest["finds"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|f| f["converted"].as_str())
        .find(|c| c.ends_with("CHECKER.TIM@0.tim.png"))
        .map(|c| ex.join(c))
        .expect("the TIM as PNG");
    let tim = t.path().join("new.tim");
    retroanim()
        .args(["convert"])
        .arg(&png)
        .arg(&tim)
        .args(["--bpp", "16"])
        .assert()
        .success();
    let new = std::fs::read(&tim).unwrap();
    let out = t.path().join("out.bin");
    let dry = retroanim()
        .arg("patch")
        .arg(&bin)
        .args(["--replace", place])
        .arg(&tim)
        .arg("-o")
        .arg(&out)
        .arg("--dry-run")
        .assert()
        .success();
    let text = String::from_utf8_lossy(&dry.get_output().stdout).into_owned();
    assert!(
        text.contains("would put") && text.contains("nothing written"),
        "{text}"
    );
    assert!(!out.exists());
    retroanim()
        .arg("patch")
        .arg(&bin)
        .args(["--replace", place])
        .arg(&tim)
        .arg("-o")
        .arg(&out)
        .assert()
        .success();
    let after = scan(&out);
    let (_, f) = after
        .iter()
        .find(|(p, _)| p == place)
        .expect("the new TIM at its place");
    assert_eq!(f["size"], new.len() as u64);
    assert_eq!(after.len(), before.len());
}

#[test]
fn refused_places_exit_2_and_write_nothing() {
    let t = tempfile::tempdir().unwrap();
    let Some(bin) = disc(t.path()) else { return };
    let tim = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../samples/checker.tim");
    let tmd = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../samples/link.tmd");
    let out = t.path().join("out.bin");
    for (place, file, says) in [
        ("/SAMPLES/NOPE.TIM+0", &tim, "nearest finds: /SAMPLES/"),
        ("/SAMPLES/CHECKER.TIM+4", &tim, "no asset starts there"),
        ("/SAMPLES/CHECKER.TIM+0", &tmd, "not a valid tim"),
        ("CHECKER", &tim, "no @OFFSET"),
    ] {
        let o = retroanim()
            .arg("patch")
            .arg(&bin)
            .args(["--replace", place])
            .arg(file)
            .arg("-o")
            .arg(&out)
            .assert()
            .code(2);
        let err = String::from_utf8_lossy(&o.get_output().stderr).into_owned();
        assert!(err.contains(says), "{place}: {err}");
        assert!(!out.exists(), "{place}");
    }
    // --force puts the TMD where the TIM was.
    retroanim()
        .arg("patch")
        .arg(&bin)
        .args(["--replace", "/SAMPLES/CHECKER.TIM+0"])
        .arg(&tmd)
        .arg("-o")
        .arg(&out)
        .arg("--force")
        .assert()
        .success();
    assert!(out.exists());
}
