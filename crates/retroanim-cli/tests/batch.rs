//! Many inputs at once: folders, `--out-dir`, `--jobs`, the summary line, `--from`, shell
//! completions and the man page.

mod common;
use common::retroanim;

use std::path::{Path, PathBuf};

use predicates::prelude::*;

/// A folder of corpus files of several formats (linked, not copied into the repository), one
/// cut short, and one text file of no format.
fn mixed_folder() -> Option<tempfile::TempDir> {
    let picks = [
        "ANIM/SNAKE/04.HMD",
        "TUTO/PYRAMID/JOINT.HMD",
        "nobori/data/ROOT/TIM/ARMOR.TIM",
        "nobori/data/ROOT/TIM/BOX4D.TIM",
    ];
    let dir = tempfile::tempdir().unwrap();
    for p in picks {
        let src = common::corpus(p)?;
        let name = p.replace('/', "_");
        std::os::unix::fs::symlink(&src, dir.path().join(name)).unwrap();
    }
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    for s in ["swing.tod", "link.tmd", "wave.mdd"] {
        std::fs::copy(sample(s), dir.path().join("sub").join(s)).unwrap();
    }
    let tod = std::fs::read(sample("swing.tod")).unwrap();
    std::fs::write(dir.path().join("sub/cut.tod"), &tod[..tod.len() - 5]).unwrap();
    std::fs::write(dir.path().join("notes.txt"), "not a model\n").unwrap();
    Some(dir)
}

fn sample(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../samples")
        .join(name)
}

fn files_in(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let rel = p.strip_prefix(dir).unwrap().to_path_buf();
                out.push((rel, std::fs::read(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn a_folder_converts_to_one_output_per_input_with_a_summary() {
    let Some(input) = mixed_folder() else { return };
    let out = tempfile::tempdir().unwrap();
    let run = retroanim()
        .args(["convert", "-r", "--to", "json", "--out-dir"])
        .arg(out.path())
        .arg(input.path())
        .args(["--jobs", "1"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    // The cut TOD fails: the exit code is the worst result.
    assert_eq!(run.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("cut.tod"), "{stderr}");
    let summary = stderr.lines().last().unwrap();
    assert_eq!(
        summary, "retroanim: 8 files: 7 ok, 0 with findings, 1 failed; 1 skipped (no known format)",
        "{stderr}"
    );
    let outputs = files_in(out.path());
    assert_eq!(outputs.len(), 7, "{outputs:?}");
    assert!(outputs
        .iter()
        .any(|(p, _)| p == Path::new("sub/swing.json")));
    // Each output is the dump of its input.
    let swing = outputs
        .iter()
        .find(|(p, _)| p == Path::new("sub/swing.json"))
        .unwrap();
    let model = retroanim::Model::from_json(&swing.1).unwrap();
    assert_eq!(
        model.write().unwrap(),
        std::fs::read(sample("swing.tod")).unwrap()
    );

    // Two workers give the same files, byte for byte.
    let out2 = tempfile::tempdir().unwrap();
    let run2 = retroanim()
        .args(["convert", "-r", "--to", "json", "--jobs", "2", "--out-dir"])
        .arg(out2.path())
        .arg(input.path())
        .output()
        .unwrap();
    assert_eq!(run2.status.code(), Some(2));
    assert_eq!(files_in(out2.path()), outputs);
    // And the same messages, in the same order.
    let same = |s: &str, dir: &Path| s.replace(&dir.display().to_string(), "OUT");
    assert_eq!(
        same(&String::from_utf8_lossy(&run2.stderr), out2.path()),
        same(&stderr, out.path())
    );
}

#[test]
fn a_folder_needs_recursive() {
    let dir = tempfile::tempdir().unwrap();
    retroanim()
        .arg("validate")
        .arg(dir.path())
        .assert()
        .code(2)
        .stderr(predicates::str::contains("pass --recursive"));
}

#[test]
fn validate_a_folder_quietly_prints_only_errors() {
    let Some(input) = mixed_folder() else { return };
    let run = retroanim()
        .args(["validate", "-r", "-q"])
        .arg(input.path())
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(2));
    assert!(
        run.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&run.stdout)
    );
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("cut.tod"), "{stderr}");
}

#[test]
fn same_named_inputs_keep_their_extension() {
    let out = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(sample("wave.mdd"), dir.path().join("wave.mdd")).unwrap();
    std::fs::copy(sample("wave.pc2"), dir.path().join("wave.pc2")).unwrap();
    retroanim()
        .args(["convert", "--to", "glb", "--out-dir"])
        .arg(out.path())
        .arg(dir.path().join("wave.mdd"))
        .arg(dir.path().join("wave.pc2"))
        .assert()
        .success();
    let names: Vec<PathBuf> = files_in(out.path()).into_iter().map(|(p, _)| p).collect();
    assert_eq!(
        names,
        vec![PathBuf::from("wave.mdd.glb"), PathBuf::from("wave.pc2.glb")]
    );
}

#[test]
fn convert_says_what_it_wrote_and_quiet_says_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("link.glb");
    retroanim()
        .arg("convert")
        .arg(sample("link.tmd"))
        .arg(&out)
        .assert()
        .success()
        .stderr(predicates::str::contains("wrote").and(predicates::str::contains("link.glb")));
    retroanim()
        .args(["-q", "convert"])
        .arg(sample("link.tmd"))
        .arg(&out)
        .assert()
        .success()
        .stderr("");
}

#[test]
fn an_impossible_conversion_lists_what_is_possible() {
    let dir = tempfile::tempdir().unwrap();
    retroanim()
        .arg("convert")
        .arg(sample("link.tmd"))
        .arg(dir.path().join("x.png"))
        .assert()
        .code(2)
        .stderr(predicates::str::contains("tmd converts to gltf, glb, json"));
}

#[test]
fn an_option_that_does_not_apply_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    retroanim()
        .arg("convert")
        .arg(sample("swing.tod"))
        .arg(dir.path().join("x.glb"))
        .args(["--lod", "1"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "--lod: does not apply to tod → glb",
        ));
    assert!(!dir.path().join("x.glb").exists());
}

#[test]
fn from_reads_a_damaged_file_as_the_named_format() {
    let dir = tempfile::tempdir().unwrap();
    let data = std::fs::read(sample("wave.mdd")).unwrap();
    let cut = dir.path().join("cut.mdd");
    std::fs::write(&cut, &data[..data.len() / 2]).unwrap();
    let run = retroanim()
        .args(["info", "--from", "mdd"])
        .arg(&cut)
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(stderr.contains("mdd: malformed at byte"), "{stderr}");
    retroanim()
        .args(["info", "--from", "png"])
        .arg(sample("wave.mdd"))
        .assert()
        .code(2)
        .stderr(predicates::str::contains("--from png"));
}

#[test]
fn completions_and_man_page_are_generated() {
    for shell in ["bash", "zsh", "fish"] {
        let out = retroanim().args(["completions", shell]).output().unwrap();
        assert!(out.status.success());
        let text = String::from_utf8(out.stdout).unwrap();
        for word in ["convert", "validate", "out-dir"] {
            assert!(text.contains(word), "{shell}: {word} missing");
        }
    }
    let man = retroanim().arg("man").output().unwrap();
    let text = String::from_utf8(man.stdout).unwrap();
    assert!(text.contains(".TH retroanim 1"), "{text}");
}

#[test]
fn convert_reads_and_writes_lab() {
    let Some(hmd) = common::corpus("TUTO/PYRAMID/JOINT.HMD") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let lab = dir.path().join("joint.lab");
    let back = dir.path().join("joint.hmd");
    retroanim()
        .arg("convert")
        .arg(&hmd)
        .arg(&lab)
        .assert()
        .success();
    retroanim()
        .arg("convert")
        .arg(&lab)
        .arg(&back)
        .assert()
        .success();
    assert_eq!(std::fs::read(&back).unwrap(), std::fs::read(&hmd).unwrap());
    retroanim()
        .arg("convert")
        .arg(&lab)
        .arg(dir.path().join("joint.glb"))
        .assert()
        .success();
}

#[test]
fn dump_takes_several_files_as_json_lines_that_read_back() {
    let names = ["swing.tod", "link.tmd", "checker.tim"];
    let out = retroanim()
        .arg("dump")
        .args(names.map(sample))
        .arg("--json")
        .assert()
        .success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    let (lines, summary) = common::json_lines(text.as_bytes());
    assert_eq!(lines.len(), names.len(), "{text}");
    assert_eq!(summary["items"], names.len());
    let dir = tempfile::tempdir().unwrap();
    for (line, name) in lines.iter().zip(names) {
        assert!(line["path"].as_str().unwrap().ends_with(name));
        // Each line (its `format` and `model`) is a dump `convert` turns back into the identical
        // file.
        let json = dir.path().join(format!("{name}.json"));
        std::fs::write(&json, serde_json::to_vec(&line).unwrap()).unwrap();
        let back = dir.path().join(name);
        retroanim()
            .arg("convert")
            .arg(&json)
            .arg(&back)
            .assert()
            .success();
        assert_eq!(
            std::fs::read(&back).unwrap(),
            std::fs::read(sample(name)).unwrap()
        );
    }
    // Text: a heading per file.
    let out = retroanim()
        .arg("dump")
        .args(names.map(sample))
        .assert()
        .success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    for name in names {
        assert!(text.lines().any(|l| l.ends_with(name)), "{name}");
    }
}

/// The PsyQ TOD sample folder (janken TODs beside their TE.TMD, and TODVIEW), from the corpus.
fn tod_samples() -> Option<PathBuf> {
    let te = common::corpus("addons/graphics/TOD/JANKEN/TMD/TE.TMD")?;
    Some(te.parent()?.parent()?.parent()?.to_path_buf())
}

#[test]
fn a_folder_without_to_converts_each_kind_paired_with_no_failures() {
    let Some(dir) = tod_samples() else { return };
    let out = tempfile::tempdir().unwrap();
    let o = retroanim()
        .args(["convert", "-r"])
        .arg(&dir)
        .arg("--out-dir")
        .arg(out.path())
        .assert()
        .success()
        .get_output()
        .clone();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains(" 0 failed"), "{err}");
    // Every animation was given its model, and the pairing is printed.
    assert!(
        err.contains("note: model ") && err.contains("JANKEN/TMD/TE.TMD (confidence"),
        "{err}"
    );
    for f in [
        "JANKEN/TOD/APPEAR.glb",
        "JANKEN/TMD/TE.glb",
        "TODVIEW/JAANKEN.glb",
    ] {
        assert!(out.path().join(f).is_file(), "{f}: {err}");
    }
    // The paired animation carries the model's meshes besides the bare animation.
    let paired = std::fs::metadata(out.path().join("JANKEN/TOD/APPEAR.glb"))
        .unwrap()
        .len();
    let out2 = tempfile::tempdir().unwrap();
    let o = retroanim()
        .args(["convert", "-r"])
        .arg(&dir)
        .arg("--out-dir")
        .arg(out2.path())
        .arg("--no-pair")
        .assert()
        .success()
        .get_output()
        .clone();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!err.contains("note: model "), "{err}");
    let bare = std::fs::metadata(out2.path().join("JANKEN/TOD/APPEAR.glb"))
        .unwrap()
        .len();
    let model = std::fs::metadata(out.path().join("JANKEN/TMD/TE.glb"))
        .unwrap()
        .len();
    assert!(
        paired > bare + model / 2,
        "paired {paired} bytes, bare {bare}, model {model}"
    );
}

#[test]
fn a_folder_with_to_skips_files_that_do_not_convert_to_it() {
    let Some(dir) = tod_samples() else { return };
    let out = tempfile::tempdir().unwrap();
    let o = retroanim()
        .args(["convert", "-r"])
        .arg(&dir)
        .arg("--out-dir")
        .arg(out.path())
        .args(["--to", "png"])
        .assert()
        .success()
        .get_output()
        .clone();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains(" 0 failed") && err.contains("skipped (nothing to convert to)"),
        "{err}"
    );
    assert!(files_in(out.path()).is_empty(), "the folder holds no TIM");
}
