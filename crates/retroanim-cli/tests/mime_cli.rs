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
