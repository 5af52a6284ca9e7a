//! `retroanim convert anim.rtm out.glb --p3d model.p3d [--lod N|name]`: the skinned export
//! from the command line, its notes, and the option errors of RTM → glTF (nothing written).

mod common;

use common::{corpus, retroanim, succeed};

#[test]
fn convert_skins_a_corpus_model_and_says_what_it_left_out() {
    let (Some(rtm), Some(p3d)) = (
        corpus("field_rations/anim/drink_prone.rtm"),
        corpus("AGM_FastRoping/animbase/agm_fastroping.p3d"),
    ) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("skinned.glb");
    let run = succeed(
        retroanim()
            .arg("convert")
            .arg(&rtm)
            .arg(&out)
            .arg("--p3d")
            .arg(&p3d),
    );
    let err = String::from_utf8_lossy(&run.stderr);
    // The animation base names 66 of the RTM's 67 bones and carries 3 LOD frames of its own.
    assert!(
        err.contains("1 of the RTM's 67 bones name no selection"),
        "{err}"
    );
    assert!(
        err.contains("3 LOD frames (#Animation#) are left out"),
        "{err}"
    );
    let glb = std::fs::read(&out).unwrap();
    let len = u32::from_le_bytes(glb[12..16].try_into().unwrap()) as usize;
    let json: serde_json::Value = serde_json::from_slice(&glb[20..20 + len]).unwrap();
    assert_eq!(json["skins"][0]["joints"].as_array().unwrap().len(), 68);
    // The LOD by name gives the same file.
    let again = dir.path().join("again.glb");
    succeed(
        retroanim()
            .arg("convert")
            .arg(&rtm)
            .arg(&again)
            .args(["--lod", "0", "--p3d"])
            .arg(&p3d),
    );
    assert_eq!(std::fs::read(&again).unwrap(), glb);
}

#[test]
fn options_that_cannot_apply_are_errors_and_write_nothing() {
    let (Some(rtm), Some(no_bones)) = (
        corpus("field_rations/anim/drink_prone.rtm"),
        corpus("CBA_A3/addons/ai/BuildingPos.p3d"),
    ) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x.glb");
    for (args, says) in [
        (
            vec!["--lod".into(), "1".into()],
            "--lod: applies to RTM → glTF only with --p3d",
        ),
        (
            vec!["--p3d".into(), no_bones.display().to_string()],
            "no named selection of its",
        ),
        (
            vec!["--p3d".into(), rtm.display().to_string()],
            "--p3d needs a P3D model",
        ),
        // glTF → RTM's options.
        (
            vec!["--start".into(), "0.5".into()],
            "--start: does not apply to rtm → glb",
        ),
        (
            vec!["--rest".into(), "bind".into()],
            "--rest: does not apply to rtm → glb",
        ),
        (
            vec!["--rest".into(), "sideways".into()],
            "invalid value 'sideways'",
        ),
    ] {
        let run = retroanim()
            .arg("convert")
            .arg(&rtm)
            .arg(&out)
            .args(&args)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&run.stderr);
        assert!(!run.status.success(), "{args:?}");
        assert!(err.contains(says), "{args:?}: {err}");
        assert!(!out.exists(), "{args:?} wrote {}", out.display());
    }
}
