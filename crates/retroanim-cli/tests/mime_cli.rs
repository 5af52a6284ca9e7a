//! MIMe differences on the command line, on Sony's TMDVIEW MIME sample: `convert MD0.TMD x.glb
//! --vdf --ndf [--mime-weights]` and back (`convert x.glb y.vdf --tmd MD0.TMD`), `validate
//! MD0.VDF --tmd MD0.TMD`, and `play MD0.VDF --tmd MD0.TMD --weights K=W`.

mod common;

use std::path::PathBuf;

use common::retroanim;

const DIR: &str = "3.6/PSX/SAMPLE/GRAPHICS/TMDVIEW/MIME/";

fn sample(name: &str) -> Option<PathBuf> {
    common::corpus(&format!("{DIR}{name}"))
}

#[test]
fn convert_to_morph_targets_and_back_to_the_same_vdf_and_ndf() {
    let (Some(tmd), Some(vdf), Some(ndf)) =
        (sample("MD0.TMD"), sample("MD0.VDF"), sample("MD0.NDF"))
    else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let glb = dir.path().join("md0.glb");
    let weights = dir.path().join("w.json");
    std::fs::write(&weights, "[[0,0,0,0],[4096,0,0,0],[0,0,4096,0]]").unwrap();
    let out = common::succeed(
        retroanim()
            .arg("convert")
            .arg(&tmd)
            .arg(&glb)
            .arg("--vdf")
            .arg(&vdf)
            .arg("--ndf")
            .arg(&ndf)
            .arg("--mime-weights")
            .arg(&weights),
    );
    // Whole weights only: nothing is approximated, so nothing is noted.
    assert!(
        !String::from_utf8_lossy(&out.stderr).contains("note:"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for (name, original) in [("back.vdf", &vdf), ("back.ndf", &ndf)] {
        let back = dir.path().join(name);
        common::succeed(
            retroanim()
                .arg("convert")
                .arg(&glb)
                .arg(&back)
                .arg("--tmd")
                .arg(&tmd),
        );
        assert_eq!(
            std::fs::read(&back).unwrap(),
            std::fs::read(original).unwrap(),
            "{name}: TMD + differences → glTF → differences is the sample's file"
        );
    }
    // --vdf where it does not apply is an error that names it, and nothing is written.
    let pmd = dir.path().join("x.pmd");
    let err = retroanim()
        .arg("convert")
        .arg(&tmd)
        .arg(&pmd)
        .arg("--vdf")
        .arg(&vdf)
        .assert()
        .failure()
        .get_output()
        .stderr
        .clone();
    assert!(String::from_utf8_lossy(&err).contains("--vdf"));
    assert!(!pmd.exists());
}

#[test]
fn validate_checks_the_differences_against_their_base() {
    let (Some(tmd), Some(vdf)) = (sample("MD0.TMD"), sample("MD0.VDF")) else {
        return;
    };
    retroanim()
        .arg("validate")
        .arg(&vdf)
        .arg("--tmd")
        .arg(&tmd)
        .assert()
        .success();
    // A base with fewer vertices than the runs: an error finding, exit 1.
    let Some(small) = common::corpus("psyq/addons/cd/STR3D/CUBE3.TMD") else {
        return;
    };
    let out = retroanim()
        .arg("validate")
        .arg(&vdf)
        .arg("--tmd")
        .arg(&small)
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8_lossy(&out);
    assert!(text.contains("vertex-range"), "{text}");
}

#[test]
fn play_prints_the_vertices_the_console_computes() {
    let (Some(tmd), Some(vdf), Some(md3)) =
        (sample("MD0.TMD"), sample("MD0.VDF"), sample("MD3.TMD"))
    else {
        return;
    };
    let line = common::json(
        retroanim()
            .arg("play")
            .arg(&vdf)
            .arg("--tmd")
            .arg(&tmd)
            .arg("--weights")
            .arg("2=4096")
            .arg("--json"),
    );
    let variant = retroanim::formats::tmd::read(&std::fs::read(md3).unwrap()).unwrap();
    let want: Vec<[i16; 3]> = variant.objects[0]
        .vertices
        .iter()
        .map(|v| [v.x, v.y, v.z])
        .collect();
    let got: Vec<[i16; 3]> = serde_json::from_value(line["vertices"].clone()).unwrap();
    assert_eq!(got, want, "key 2 at 4096 is MD3.TMD");
    // A key the file does not have, and --weights on something that is not a difference file.
    retroanim()
        .arg("play")
        .arg(&vdf)
        .arg("--tmd")
        .arg(&tmd)
        .arg("--weights")
        .arg("9=4096")
        .assert()
        .failure();
    retroanim()
        .arg("play")
        .arg(&tmd)
        .arg("--weights")
        .arg("0=4096")
        .assert()
        .failure();
}

/// Files without a magic number are read as their name says when their bytes begin no known
/// format: `info`, `validate` and `roundtrip` of MD0.VDF / MD0.NDF need no `--from`; a `.vdf`
/// name on a TIM's bytes is still a TIM (the content decides first).
#[test]
fn vdf_and_ndf_files_are_read_by_their_names() {
    let (Some(vdf), Some(ndf), Some(tmd)) =
        (sample("MD0.VDF"), sample("MD0.NDF"), sample("MD0.TMD"))
    else {
        return;
    };
    let info = common::succeed(retroanim().arg("info").arg("--json").arg(&vdf));
    let text = String::from_utf8_lossy(&info.stdout);
    assert!(text.contains("\"format\":\"vdf\""), "{text}");
    let v = common::succeed(retroanim().arg("validate").arg(&ndf));
    assert!(String::from_utf8_lossy(&v.stdout).contains("ndf"));
    let r = common::succeed(retroanim().arg("roundtrip").arg(&vdf));
    assert!(String::from_utf8_lossy(&r.stdout).contains("identical"));
    let dir = tempfile::tempdir().unwrap();
    let named = dir.path().join("model.vdf");
    std::fs::copy(&tmd, &named).unwrap();
    let info = common::succeed(retroanim().arg("info").arg("--json").arg(&named));
    assert!(String::from_utf8_lossy(&info.stdout).contains("\"format\":\"tmd\""));
}

fn files_named(dir: &std::path::Path, suffix: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(files_named(&p, suffix));
        } else if p.to_string_lossy().ends_with(suffix) {
            out.push(p);
        }
    }
    out
}

/// Issue #39's one-path rule for MIMe differences: `scan --report`, `scan --extract --convert
/// glb`, `convert -r` of the folder and `convert -r` of the extracted files pair MD0.VDF with
/// MD0.TMD and MD0.NDF alike, and write the same glTF (the TMD with one morph target per key).
#[test]
fn every_road_pairs_the_sample_vdf_with_its_base_and_ndf() {
    let (Some(tmd), Some(vdf), Some(ndf)) =
        (sample("MD0.TMD"), sample("MD0.VDF"), sample("MD0.NDF"))
    else {
        return;
    };
    let folder = vdf.parent().unwrap();
    let t = tempfile::tempdir().unwrap();
    let [ex, rep, cv, cv2] = ["ex", "rep", "cv", "cv2"].map(|n| t.path().join(n));
    common::succeed(
        retroanim()
            .arg("scan")
            .arg(folder)
            .arg("--extract")
            .arg(&ex)
            .args(["--convert", "glb", "--report"])
            .arg(&rep),
    );
    let out = common::succeed(
        retroanim()
            .args(["convert", "-r"])
            .arg(folder)
            .arg("--out-dir")
            .arg(&cv),
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("base model") && err.contains("MD0.TMD"),
        "{err}"
    );
    assert!(err.contains("with the NDF"), "{err}");
    common::succeed(
        retroanim()
            .args(["convert", "-r"])
            .arg(&ex)
            .arg("--out-dir")
            .arg(&cv2),
    );
    // By hand: the TMD with both files.
    let by_hand = t.path().join("hand.glb");
    common::succeed(
        retroanim()
            .arg("convert")
            .arg(&tmd)
            .arg(&by_hand)
            .arg("--vdf")
            .arg(&vdf)
            .arg("--ndf")
            .arg(&ndf),
    );
    let want = std::fs::read(&by_hand).unwrap();
    let one = |dir: &std::path::Path, suffix: &str| {
        let found = files_named(dir, suffix);
        assert_eq!(
            found.len(),
            1,
            "{suffix} under {}: {found:?}",
            dir.display()
        );
        std::fs::read(&found[0]).unwrap()
    };
    assert!(one(&cv, "MD0.VDF.glb") == want, "convert -r of the folder");
    assert!(one(&ex, ".vdf.glb") == want, "scan --extract --convert glb");
    assert!(
        one(&cv2, "VDF@0.glb") == want,
        "convert -r of the extracted files"
    );
    assert!(
        one(&cv, "MD0.NDF.glb") == want,
        "the NDF's glTF is the pair's"
    );
    let index: serde_json::Value =
        serde_json::from_slice(&std::fs::read(rep.join("index.json")).unwrap()).unwrap();
    let card = index["assets"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["format"] == "vdf")
        .expect("a VDF card");
    assert!(card["model"]["source"]["container"]
        .as_str()
        .unwrap()
        .ends_with("MD0.TMD"));
    assert!(card["partner"]["source"]["container"]
        .as_str()
        .unwrap()
        .ends_with("MD0.NDF"));
    assert_eq!(card["animated"], true, "{card}");
    let glb = std::fs::read(rep.join(card["glb"].as_str().unwrap())).unwrap();
    assert!(glb == want, "the report's GLB of the pair");
}

/// `render X.VDF --tmd X.TMD [--ndf X.NDF] [--weights K=W,...]`: one picture at the weights
/// given (the same `K=W` list `play` takes), else one per key; options that cannot apply are
/// refused and nothing is written.
#[test]
fn render_draws_a_vdf_on_its_base() {
    let (Some(tmd), Some(vdf), Some(ndf)) =
        (sample("MD0.TMD"), sample("MD0.VDF"), sample("MD0.NDF"))
    else {
        return;
    };
    let t = tempfile::tempdir().unwrap();
    let render = |out: &str, extra: &[&str]| {
        let o = common::succeed(
            retroanim()
                .arg("render")
                .arg(&vdf)
                .arg(t.path().join(out))
                .arg("--tmd")
                .arg(&tmd)
                .arg("--ndf")
                .arg(&ndf)
                .args(extra),
        );
        String::from_utf8_lossy(&o.stderr).into_owned()
    };
    assert!(render("keys.png", &[]).contains("(4 pictures"));
    assert!(render("k2.png", &["--weights", "2=4096", "--yaw", "45"]).contains("(1 picture"));
    // Key 2 alone from the keys (frames are keys) is the same picture.
    render("f2.png", &["--frames", "2..=2", "--yaw", "45"]);
    let read = |n: &str| std::fs::read(t.path().join(n)).unwrap();
    assert!(read("k2.png") == read("f2.png"));
    assert!(read("k2.png") != read("keys.png"));
    for (args, says) in [
        (vec!["--weights", "9=4096"], "key 9"),
        (vec!["--weights", "0=4096", "--fps", "5"], "--fps"),
        (vec!["--vdf", "x.vdf"], "--vdf and --ndf"),
    ] {
        let out = t.path().join("no.png");
        let err = retroanim()
            .arg("render")
            .arg(&vdf)
            .arg(&out)
            .arg("--tmd")
            .arg(&tmd)
            .arg("--ndf")
            .arg(&ndf)
            .args(&args)
            .assert()
            .code(2)
            .get_output()
            .stderr
            .clone();
        let err = String::from_utf8_lossy(&err);
        assert!(err.contains(says), "{args:?}: {err}");
        assert!(!out.exists());
    }
    // --weights on a TMD, and a VDF without its base.
    for args in [
        vec![
            tmd.clone(),
            t.path().join("a.png"),
            "--weights".into(),
            "0=1".into(),
        ],
        vec![vdf.clone(), t.path().join("b.png")],
    ] {
        retroanim().arg("render").args(&args).assert().code(2);
        assert!(!args[1].exists());
    }
}
