//! One path for a preserver (issue 39): scan, extract, convert and report give the same answer
//! whichever road a user takes; one test per thing that disagreed.

mod common;

use std::path::{Path, PathBuf};

use common::{convert_r, corpus, files, retroanim, succeed};
use serde_json::Value;

fn sample(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../samples")
        .join(name)
}

fn read(p: impl AsRef<Path>) -> Vec<u8> {
    std::fs::read(p.as_ref()).unwrap_or_else(|e| panic!("{}: {e}", p.as_ref().display()))
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A pack the way games hold them (an LBD, TIX or MOM): assets back to back after a header
/// retroanim does not read, at the offsets returned.
fn pack(parts: &[&[u8]]) -> (Vec<u8>, Vec<u64>) {
    let mut out = vec![0u8; 64];
    let mut at = Vec::new();
    for p in parts {
        at.push(out.len() as u64);
        out.extend_from_slice(p);
        out.resize(out.len().next_multiple_of(4) + 32, 0);
    }
    (out, at)
}

/// A folder with a pack holding an animation and its model, and another pack holding the
/// same model: the pack of the animation is the evidence that picks its model.
fn packs(dir: &Path) -> PathBuf {
    let folder = dir.join("STG00");
    std::fs::create_dir_all(&folder).unwrap();
    let (a, _) = pack(&[&read(sample("swing.tod")), &read(sample("link.tmd"))]);
    std::fs::write(folder.join("M001.LBD"), a).unwrap();
    let (b, _) = pack(&[&read(sample("link.tmd")), &read(sample("checker.tim"))]);
    std::fs::write(folder.join("M002.LBD"), b).unwrap();
    folder
}

// ---- 1, 2, 7, 8: the preserver recipe ----

#[test]
fn the_preserver_recipe_gives_the_same_glbs_by_every_road() {
    let Some(te) = corpus("3.6/PSX/SAMPLE/GRAPHICS/TOD/JANKEN/TMD/TE.TMD") else {
        return;
    };
    let Some(cube) = corpus("addons/graphics/TMDVIEW/DATA/CUBE4T.TMD") else {
        return;
    };
    let t = tempfile::tempdir().unwrap();
    let inputs = [
        te.parent().unwrap().parent().unwrap().to_path_buf(),
        cube.parent().unwrap().to_path_buf(),
        packs(t.path()),
    ];
    let ex = t.path().join("ex");
    let rep = t.path().join("rep");
    succeed(
        retroanim()
            .arg("scan")
            .args(&inputs)
            .arg("--extract")
            .arg(&ex)
            .args(["--convert", "glb", "--report"])
            .arg(&rep),
    );
    let cv = t.path().join("cv");
    let out = convert_r(&ex, &cv);
    // Road 1 (scan --extract --convert) against road 2 (convert -r of the extracted files):
    // the same GLB for every find, byte for byte (meshes, textures, the model of each TOD).
    let extracted = files(&ex, ".glb");
    let converted = files(&cv, ".glb");
    assert!(extracted.len() >= 10, "{:?}", extracted.keys());
    for (name, bytes) in &extracted {
        // `X.TOD@0.tod.glb` → `X.TOD@0.glb`.
        let stem = name.strip_suffix(".glb").unwrap();
        let stem = &stem[..stem.rfind('.').unwrap()];
        let other = converted
            .get(&format!("{stem}.glb"))
            .unwrap_or_else(|| panic!("{name}: no GLB from convert -r: {}", stderr(&out)));
        assert!(bytes == other, "{name}: the GLBs differ");
    }
    // Road 3 (the report): the same GLBs for its models (identical files written once); an
    // animation with a model is a `.gltf` there, its model part shared with the other
    // animations of that model (docs/scan.md), one per animation the other roads converted.
    let reported = files(&rep.join("glb"), ".glb");
    let animations = files(&rep.join("glb"), ".gltf");
    for (name, bytes) in &reported {
        assert!(
            extracted.values().any(|e| e == bytes),
            "{name}: the report's GLB is none of the extracted ones"
        );
    }
    let distinct: std::collections::BTreeSet<&Vec<u8>> = extracted
        .iter()
        .filter(|(n, _)| !n.to_ascii_lowercase().ends_with(".tod.glb"))
        .map(|(_, b)| b)
        .collect();
    assert_eq!(reported.len(), distinct.len(), "{:?}", reported.keys());
    let tods = extracted
        .keys()
        .filter(|n| n.to_ascii_lowercase().ends_with(".tod.glb"))
        .count();
    // Identical files (the same TOD found twice, its model part) are written once.
    assert!(
        !animations.is_empty() && animations.len() <= tods,
        "{} animations in the report, {tods} converted: {:?}",
        animations.len(),
        animations.keys()
    );
    for (name, text) in &animations {
        let v: serde_json::Value = serde_json::from_slice(text).unwrap();
        for b in v["buffers"].as_array().unwrap() {
            let uri = b["uri"].as_str().unwrap();
            assert!(rep.join("glb").join(uri).is_file(), "{name}: no {uri}");
        }
    }
    // The textured model is textured and the pack's animation drives its pack's model.
    let textured = extracted
        .iter()
        .find(|(n, _)| n.contains("CUBE4T.TMD@0"))
        .expect("CUBE4T converted");
    assert!(contains(textured.1, b"image/png"), "CUBE4T has no texture");
    let tod = extracted
        .iter()
        .find(|(n, _)| n.contains("STG00/M001.LBD@") && n.ends_with(".tod.glb"))
        .expect("the pack's TOD converted");
    assert!(
        contains(tod.1, b"\"meshes\""),
        "the pack's TOD GLB has no mesh"
    );
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

#[test]
fn pairing_is_the_same_from_the_container_and_from_extracted_files() {
    let t = tempfile::tempdir().unwrap();
    let folder = packs(t.path());
    let scan = |paths: &[&Path]| -> Vec<Value> {
        let out = succeed(retroanim().arg("scan").args(paths).arg("--json"));
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
            .filter(|v| v["format"] == "tod")
            .collect()
    };
    let before = scan(&[&folder]);
    assert_eq!(before.len(), 1);
    let best = &before[0]["tmd_candidates"][0];
    assert!(best["container"].as_str().unwrap().ends_with("M001.LBD"));
    let confidence = best["confidence"].as_f64().unwrap();
    assert!(confidence >= 0.5, "{best}");
    let ex = t.path().join("ex");
    succeed(
        retroanim()
            .arg("scan")
            .arg(&folder)
            .arg("--extract")
            .arg(&ex),
    );
    // The extracted files keep the container and the offset scan printed in their names.
    let after = scan(&[&ex]);
    let best_after = &after[0]["tmd_candidates"][0];
    assert!(
        best_after["container"]
            .as_str()
            .unwrap()
            .ends_with(&format!("STG00/M001.LBD@{}.tmd", best["offset"])),
        "{best_after}"
    );
    assert_eq!(best_after["confidence"].as_f64(), Some(confidence));
    // `convert` says the same, after the line of the file it belongs to (7).
    let cv = t.path().join("cv");
    let out = convert_r(&ex, &cv);
    let err = stderr(&out);
    let lines: Vec<&str> = err.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.contains("note: model") && l.contains("M001.LBD@"))
        .unwrap_or_else(|| panic!("{err}"));
    assert!(
        lines[at].contains(&format!("(confidence {confidence:.2})")),
        "{err}"
    );
    assert!(
        lines[..at]
            .iter()
            .rev()
            .find(|l| l.contains("wrote"))
            .is_some_and(|l| l.contains(".tod")),
        "the note does not follow its TOD's line: {err}"
    );
}

#[test]
fn an_animation_without_a_model_is_not_converted_and_says_so() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("in");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(sample("swing.tod"), dir.join("swing.tod")).unwrap();
    let out = retroanim()
        .args(["convert", "-r"])
        .arg(&dir)
        .arg("--out-dir")
        .arg(t.path().join("cv"))
        .output()
        .unwrap();
    let err = stderr(&out);
    assert!(
        err.contains("warning:") && err.contains("an animation without a model"),
        "{err}"
    );
    assert!(!t.path().join("cv/swing.glb").exists());
    let out = retroanim()
        .arg("scan")
        .arg(&dir)
        .arg("--extract")
        .arg(t.path().join("ex"))
        .args(["--convert", "glb"])
        .output()
        .unwrap();
    let err = stderr(&out);
    assert!(err.contains("an animation without a model"), "{err}");
    assert!(files(&t.path().join("ex"), ".glb").is_empty());
    // The report: no GLB either, and its card's placeholder says why (15).
    let rep = t.path().join("rep");
    succeed(retroanim().arg("scan").arg(&dir).arg("--report").arg(&rep));
    let index: Value = serde_json::from_slice(&read(rep.join("index.json"))).unwrap();
    let card = &index["assets"][0];
    assert_eq!(card["format"], "tod");
    assert!(card["glb"].is_null(), "{card}");
    assert!(
        card["no_preview"]
            .as_str()
            .is_some_and(|w| w.contains("an animation without a model")),
        "{card}"
    );
    assert!(
        index["notes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|n| n.as_str().unwrap().contains("animations without a model")),
        "{index}"
    );
    // Named with its model, it converts.
    succeed(
        retroanim()
            .arg("convert")
            .arg(dir.join("swing.tod"))
            .arg(t.path().join("s.glb"))
            .arg("--tmd")
            .arg(sample("link.tmd")),
    );
}

#[test]
fn a_container_in_convert_r_points_to_scan_extract() {
    let t = tempfile::tempdir().unwrap();
    let folder = packs(t.path());
    let out = succeed(
        retroanim()
            .args(["convert", "-r"])
            .arg(&folder)
            .arg("--out-dir")
            .arg(t.path().join("cv"))
            .args(["--to", "json"]),
    );
    let err = stderr(&out);
    assert!(
        err.contains("2 skipped (a container of assets: extract them with `retroanim scan FILE --extract DIR`"),
        "{err}"
    );
}

// ---- 3: what validate passes converts ----

/// A palette-only TIM: a 4-bit CLUT of 16 colours and a 0 × 0 pixel block.
fn palette_only() -> Vec<u8> {
    let mut b = vec![0x10, 0, 0, 0, 8, 0, 0, 0];
    b.extend((12u32 + 32).to_le_bytes());
    b.extend([0, 0, 0xE0, 0x01, 16, 0, 1, 0]);
    for k in 0..16u16 {
        b.extend(((k * 0x0842) | (0x1F * u16::from(k == 15))).to_le_bytes());
    }
    b.extend(12u32.to_le_bytes());
    b.extend([0u8; 8]);
    b
}

fn png_size(png: &[u8]) -> (u32, u32) {
    let be = |at: usize| u32::from_be_bytes([png[at], png[at + 1], png[at + 2], png[at + 3]]);
    (be(16), be(20))
}

#[test]
fn a_palette_only_tim_validates_and_converts_to_its_palette() {
    let t = tempfile::tempdir().unwrap();
    let tim = t.path().join("pal.tim");
    std::fs::write(&tim, palette_only()).unwrap();
    succeed(retroanim().arg("validate").arg(&tim));
    let png = t.path().join("pal.png");
    let out = succeed(retroanim().arg("convert").arg(&tim).arg(&png));
    assert!(stderr(&out).contains("palette-only"), "{}", stderr(&out));
    assert_eq!(png_size(&read(&png)), (16, 1));
}

#[test]
fn a_lenient_find_converts_the_same_from_either_road() {
    let t = tempfile::tempdir().unwrap();
    let mut tim = read(sample("checker.tim"));
    // The pixel block's bnum says 40 bytes more than its W × H.
    let flags = u32::from_le_bytes(tim[4..8].try_into().unwrap());
    let mut at = 8usize;
    if flags & 8 != 0 {
        at += u32::from_le_bytes(tim[8..12].try_into().unwrap()) as usize;
    }
    let bnum = u32::from_le_bytes(tim[at..at + 4].try_into().unwrap());
    tim[at..at + 4].copy_from_slice(&(bnum + 40).to_le_bytes());
    let (blob, offsets) = pack(&[&tim]);
    let dir = t.path().join("in");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("TEXA.TIX"), blob).unwrap();
    let ex = t.path().join("ex");
    succeed(
        retroanim()
            .arg("scan")
            .arg(&dir)
            .arg("--extract")
            .arg(&ex)
            .args(["--convert", "png"]),
    );
    let name = format!("in/TEXA.TIX@{}.tim", offsets[0]);
    let by_scan = read(ex.join(format!("{name}.png")));
    let png = t.path().join("again.png");
    let out = succeed(retroanim().arg("convert").arg(ex.join(&name)).arg(&png));
    assert!(
        stderr(&out).contains("read as scan reads it"),
        "{}",
        stderr(&out)
    );
    assert_eq!(read(&png), by_scan);
}

// ---- 4: one offset syntax ----

#[test]
fn scan_prints_extracts_and_patch_reads_one_place_syntax() {
    let t = tempfile::tempdir().unwrap();
    let tim = read(sample("checker.tim"));
    let (blob, offsets) = pack(&[&tim]);
    let img = t.path().join("TEXA.TIX");
    std::fs::write(&img, &blob).unwrap();
    let out = succeed(retroanim().arg("scan").arg(&img));
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let place = format!("{}@{}", img.display(), offsets[0]);
    assert!(text.contains(&format!("{place}: tim")), "{text}");
    let ex = t.path().join("ex");
    succeed(retroanim().arg("scan").arg(&img).arg("--extract").arg(&ex));
    assert_eq!(read(ex.join(format!("TEXA.TIX@{}.tim", offsets[0]))), tim);
    // The place as scan printed it goes to patch as it is.
    let patched = t.path().join("out.tix");
    succeed(
        retroanim()
            .arg("patch")
            .arg(&img)
            .args(["--replace", &place])
            .arg(sample("checker.tim"))
            .arg("-o")
            .arg(&patched),
    );
    assert_eq!(read(&patched), blob);
    // A place that names nothing suggests places in the same syntax.
    let out = retroanim()
        .arg("patch")
        .arg(&img)
        .args([
            "--replace",
            &format!("{}@{}", img.display(), offsets[0] + 4),
        ])
        .arg(sample("checker.tim"))
        .arg("-o")
        .arg(&patched)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains(&format!("@{}", offsets[0])),
        "{}",
        stderr(&out)
    );
    // render (and every command that reads a file) reads the find at the place scan printed:
    // the same picture as from the extracted file.
    let (a, b) = (t.path().join("a.png"), t.path().join("b.png"));
    succeed(retroanim().arg("render").arg(&place).arg(&a));
    succeed(
        retroanim()
            .arg("render")
            .arg(ex.join(format!("TEXA.TIX@{}.tim", offsets[0])))
            .arg(&b),
    );
    assert_eq!(read(&a), read(&b));
    let info = succeed(retroanim().arg("info").arg(&place));
    assert!(String::from_utf8_lossy(&info.stdout).contains("tim"));
    // A place where no asset starts names the nearest one.
    let out = retroanim()
        .arg("render")
        .arg(format!("{}@{}", img.display(), offsets[0] + 4))
        .arg(t.path().join("c.png"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains(&place), "{}", stderr(&out));
    assert!(!t.path().join("c.png").exists());
}

// ---- 5: --frames ----

#[test]
fn frames_ranges_mean_the_same_in_play_and_render() {
    let t = tempfile::tempdir().unwrap();
    let play = |range: &str| -> usize {
        let out = succeed(
            retroanim()
                .arg("play")
                .arg(sample("swing.tod"))
                .arg("--tmd")
                .arg(sample("link.tmd"))
                .args(["--frames", range, "--json"]),
        );
        common::play_object(&out.stdout)["frames"]
            .as_array()
            .unwrap()
            .len()
    };
    assert_eq!(play("0..3"), 3);
    assert_eq!(play("0..=3"), 4);
    assert_eq!(play("1..2"), 1);
    let render = |range: &str| -> String {
        let out = succeed(
            retroanim()
                .arg("render")
                .arg(sample("swing.tod"))
                .arg(t.path().join("r.png"))
                .arg("--tmd")
                .arg(sample("link.tmd"))
                .args(["--frames", range, "--force"]),
        );
        stderr(&out)
    };
    // The TOD plays one frame per picture at its own rate.
    assert!(render("0..3").contains("3 pictures"), "{}", render("0..3"));
    assert!(
        render("0..=3").contains("4 pictures"),
        "{}",
        render("0..=3")
    );
    for bad in ["3..3", "4..2", "..=", "a..b"] {
        let out = retroanim()
            .arg("play")
            .arg(sample("swing.tod"))
            .args(["--frames", bad])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{bad}");
    }
}

// ---- 6: LAB converts to HMD ----

#[test]
fn a_lab_converts_to_hmd_by_default() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("lab");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(sample("triangle.lab"), dir.join("triangle.lab")).unwrap();
    let out = t.path().join("out");
    succeed(
        retroanim()
            .arg("convert")
            .arg(dir.join("triangle.lab"))
            .arg("--out-dir")
            .arg(&out),
    );
    let hmd = read(out.join("triangle.hmd"));
    let asm = t.path().join("asm.hmd");
    succeed(
        retroanim()
            .arg("asm")
            .arg(dir.join("triangle.lab"))
            .arg("-o")
            .arg(&asm),
    );
    assert_eq!(hmd, read(&asm));
    let out2 = t.path().join("out2");
    convert_r(&dir, &out2);
    assert_eq!(read(out2.join("triangle.hmd")), hmd);
}

// ---- 9: LOD names ----

#[test]
fn lod_names_are_accepted_where_a_lod_is_named() {
    let Some(p3d) = corpus("CBA_A3/addons/ai/InvisibleTarget.p3d") else {
        return;
    };
    let info = succeed(retroanim().arg("info").arg(&p3d));
    assert!(String::from_utf8_lossy(&info.stdout).contains("resolution: Geometry"));
    let t = tempfile::tempdir().unwrap();
    let by_name = t.path().join("n.glb");
    let by_value = t.path().join("v.glb");
    succeed(
        retroanim()
            .arg("convert")
            .arg(&p3d)
            .arg(&by_name)
            .args(["--lod", "Geometry"]),
    );
    succeed(
        retroanim()
            .arg("convert")
            .arg(&p3d)
            .arg(&by_value)
            .args(["--lod", "1e13"]),
    );
    assert_eq!(read(&by_name), read(&by_value));
    succeed(
        retroanim()
            .arg("render")
            .arg(&p3d)
            .arg(t.path().join("g.png"))
            .args(["--lod", "geometry"]),
    );
    let out = retroanim()
        .arg("convert")
        .arg(&p3d)
        .arg(&by_name)
        .args(["--lod", "Nothing", "--force"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("LOD name"), "{}", stderr(&out));
}

// ---- 11: a closed standard error ----

#[test]
fn a_closed_standard_error_does_not_stop_a_batch() {
    use std::process::{Command, Stdio};
    let t = tempfile::tempdir().unwrap();
    let bin = assert_cmd::cargo::cargo_bin("retroanim");
    let run = |out: &Path, close: bool| {
        let mut child = Command::new(&bin)
            .args(["convert", "-r"])
            .arg(sample(""))
            .arg("--out-dir")
            .arg(out)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        if close {
            // The reader goes away before the first message is written.
            drop(child.stderr.take());
        }
        let status = child.wait_with_output().unwrap().status;
        (status.code(), files(out, "").len())
    };
    let (code, n) = run(&t.path().join("a"), false);
    let (closed_code, closed_n) = run(&t.path().join("b"), true);
    assert_ne!(closed_code, Some(101), "a panic");
    assert_eq!((closed_code, closed_n), (code, n));
    assert!(n >= 5, "{n}");
}

// ---- 12: manual pages ----

#[test]
fn every_page_the_manual_lists_is_produced() {
    let main = succeed(retroanim().arg("man"));
    let text = String::from_utf8_lossy(&main.stdout).into_owned();
    let listed: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("retroanim\\-"))
        .filter_map(|l| l.strip_suffix("(1)"))
        .collect();
    assert!(listed.len() >= 10, "{listed:?}");
    for name in listed {
        let page = succeed(retroanim().args(["man", name]));
        let page = String::from_utf8_lossy(&page.stdout).into_owned();
        assert!(
            page.contains(&format!("retroanim\\-{name}")),
            "{name}: {page}"
        );
    }
    assert_eq!(
        retroanim()
            .args(["man", "nothing"])
            .output()
            .unwrap()
            .status
            .code(),
        Some(2)
    );
}

// ---- 13: success messages ----

#[test]
fn every_command_that_writes_a_file_says_so() {
    let t = tempfile::tempdir().unwrap();
    let hmd = t.path().join("t.hmd");
    let lab = t.path().join("t.lab");
    let png = t.path().join("t.png");
    let cases: Vec<(Vec<std::ffi::OsString>, &Path)> = vec![
        (
            vec![
                "asm".into(),
                sample("triangle.lab").into(),
                "-o".into(),
                hmd.clone().into(),
            ],
            &hmd,
        ),
        (
            vec![
                "disasm".into(),
                hmd.clone().into(),
                "-o".into(),
                lab.clone().into(),
            ],
            &lab,
        ),
        (
            vec![
                "render".into(),
                sample("link.tmd").into(),
                png.clone().into(),
            ],
            &png,
        ),
    ];
    for (args, out) in &cases {
        let o = succeed(retroanim().args(args));
        let err = stderr(&o);
        assert!(
            err.starts_with(&format!("retroanim: wrote {}", out.display())),
            "{args:?}: {err}"
        );
        let q = succeed(retroanim().arg("--quiet").args(args).arg("--force"));
        assert_eq!(stderr(&q), "", "{args:?} --quiet");
    }
}

#[test]
fn a_glb_without_animation_becomes_a_tod_with_a_note() {
    let t = tempfile::tempdir().unwrap();
    let glb = t.path().join("m.glb");
    succeed(retroanim().arg("convert").arg(sample("link.tmd")).arg(&glb));
    let out = succeed(
        retroanim()
            .arg("convert")
            .arg(&glb)
            .arg(t.path().join("m.tod")),
    );
    assert!(
        stderr(&out).contains("the glTF has no animation"),
        "{}",
        stderr(&out)
    );
}

// ---- 14: the README's quick start runs as written ----

#[test]
fn the_readme_quick_start_runs_as_written_on_the_samples() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let readme = std::fs::read_to_string(repo.join("README.md")).unwrap();
    let block = readme
        .split("## Quick start")
        .nth(1)
        .and_then(|s| s.split("```sh\n").nth(1))
        .and_then(|s| s.split("```").next())
        .expect("a quick start block");
    let t = tempfile::tempdir().unwrap();
    let samples = t.path().join("samples");
    std::fs::create_dir_all(&samples).unwrap();
    for e in std::fs::read_dir(sample("")).unwrap() {
        let p = e.unwrap().path();
        std::fs::copy(&p, samples.join(p.file_name().unwrap())).unwrap();
    }
    let mut ran = 0;
    for line in block.lines() {
        let command = line.split('#').next().unwrap().trim();
        let Some(args) = command.strip_prefix("retroanim ") else {
            continue;
        };
        let out = retroanim()
            .current_dir(t.path())
            .args(args.split_whitespace())
            .output()
            .unwrap();
        assert!(out.status.success(), "{command}: {}", stderr(&out));
        ran += 1;
    }
    assert!(ran >= 5, "{block}");
}

// ---- 15: every card shows its asset ----

/// Whether a PNG's first picture is one colour throughout.
fn one_colour(png_bytes: &[u8]) -> bool {
    let mut reader = png::Decoder::new(png_bytes).read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    let px = info.line_size / info.width as usize;
    let pixels = &buf[..info.buffer_size()];
    pixels.chunks(px).all(|p| p == &pixels[..px])
}

/// On real folders (the JANKEN TODs, which move objects APPEAR.TOD creates, and PMDs): every
/// card has a picture or says why not, and no model or animation is a blank picture: a TOD that
/// shows no object on its own shows its model at rest and says so, a PMD is drawn.
#[test]
fn every_card_shows_its_asset_or_says_why() {
    let Some(te) = corpus("addons/graphics/TOD/JANKEN/TMD/TE.TMD") else {
        return;
    };
    let Some(pmd) = corpus("addons/graphics/PMD/SHARE.PMD") else {
        return;
    };
    let t = tempfile::tempdir().unwrap();
    let rep = t.path().join("rep");
    succeed(
        retroanim()
            .arg("scan")
            .arg(te.parent().unwrap().parent().unwrap())
            .arg(pmd.parent().unwrap())
            .arg("--report")
            .arg(&rep),
    );
    let index: Value = serde_json::from_slice(&read(rep.join("index.json"))).unwrap();
    let assets = index["assets"].as_array().unwrap();
    let mut pmds = 0;
    let mut at_rest = 0;
    for a in assets {
        let Some(preview) = a["preview"].as_str() else {
            let why = a["no_preview"].as_str().unwrap_or("");
            assert!(!why.is_empty(), "a card with no picture and no reason: {a}");
            assert_ne!(a["format"], "pmd", "{a}");
            continue;
        };
        let bytes = read(rep.join(preview));
        if a["format"] != "tim" {
            assert!(!one_colour(&bytes), "a blank picture: {a}");
        }
        pmds += usize::from(a["format"] == "pmd");
        let warnings = a["warnings"].to_string();
        if warnings.contains("its model at rest") {
            assert_eq!(a["format"], "tod");
            assert!(warnings.contains("--after"), "{warnings}");
            at_rest += 1;
        }
    }
    assert!(pmds >= 2, "{pmds} PMDs drawn");
    // C_N, G_N, N_C, N_G, N_P, P_N and DISAPP move what APPEAR creates.
    assert!(at_rest >= 6, "{at_rest} TODs shown at rest");
}
