//! `convert` never succeeds silently with less than asked: options that do not apply, sequence
//! and stream IDs the file lacks, CLUT rows beyond the TIM's are exit 2 naming what is wrong;
//! what a conversion leaves out is a `note:` line with a count (issue 17).

mod common;
use common::retroanim;

const HMD: &str = "psx/data/HMD/SCEI";
const GRAPHICS: &str = "psyq/addons/graphics";

/// `convert IN OUT ARGS...` into a temporary folder: exit code and standard error.
fn convert(input: &std::path::Path, out_name: &str, args: &[&str]) -> (i32, String) {
    let dir = tempfile::tempdir().unwrap();
    let out = retroanim()
        .arg("convert")
        .arg(input)
        .arg(dir.path().join(out_name))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Per glTF animation of what `convert` writes with `args`: its name and number of frames.
fn animation_frames(input: &std::path::Path, args: &[&str]) -> Vec<(String, u64)> {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.gltf");
    retroanim()
        .arg("convert")
        .arg(input)
        .arg(&out)
        .args(args)
        .assert()
        .success();
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    v["animations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            (
                a["name"].as_str().unwrap().to_string(),
                a["extras"]["frames"].as_u64().unwrap(),
            )
        })
        .collect()
}

#[test]
fn speed_plays_the_hmd_as_play_does_and_refuses_what_the_console_cannot() {
    let Some(cube) = common::corpus(&format!("{HMD}/ANIM/CUBE0/CUBE0.HMD")) else {
        return;
    };
    // Sequence 0 loops after 500 updates at the file's speed (1×), 1000 at half, 250 at double.
    for (speed, frames) in [("1", 500), ("0.5", 1000), ("2", 250)] {
        let anims = animation_frames(&cube, &["--sequence", "0", "--speed", speed]);
        assert_eq!(anims.len(), 1, "{anims:?}");
        assert_eq!(anims[0].1, frames, "--speed {speed}: {anims:?}");
    }
    assert_eq!(animation_frames(&cube, &["--sequence", "0"])[0].1, 500);
    let (code, err) = convert(&cube, "x.glb", &["--speed", "9"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--speed") && err.contains("7.9375"), "{err}");
    // A missing sequence index or stream ID: exit 2 listing what exists.
    let (code, err) = convert(&cube, "x.glb", &["--sequence", "9"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("sequence 9") && err.contains("0..="), "{err}");
    let (code, err) = convert(&cube, "x.glb", &["--stream-id", "99"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("stream ID 99") && err.contains("0, 1"),
        "{err}"
    );
}

#[test]
fn intr_idx_exports_the_file_as_a_program_setting_it_plays_it() {
    let Some(pyramid) = common::corpus(&format!("{HMD}/TUTO/PYRAMID/PYRAMID5.HMD")) else {
        return;
    };
    // Sony's programs (INTR IDX 0xFFFF): one swing, 125 updates, looping. INTR IDX 0 (the
    // file's own value) overwrites key frame 0 as it plays: the swing changes after the first
    // loop, so the export runs on until the pose repeats too.
    let default = animation_frames(&pyramid, &[]);
    let intr = animation_frames(&pyramid, &["--intr-idx", "0"]);
    assert_eq!(default.len(), 1, "{default:?}");
    assert_eq!(default[0].1, 125, "{default:?}");
    assert!(intr[0].1 > default[0].1, "{intr:?}");
}

#[test]
fn options_that_do_not_apply_are_exit_2_naming_the_option() {
    let (Some(tod), Some(hmd), Some(p3d), Some(tim)) = (
        common::corpus(&format!("{GRAPHICS}/TOD/JANKEN/TOD/APPEAR.TOD")),
        common::corpus(&format!("{HMD}/ANIM/CUBE0/CUBE0.HMD")),
        common::corpus("CBA_A3/addons/ai/BuildingPos.p3d"),
        common::corpus("nobori/data/ROOT/TIM/ARMOR.TIM"),
    ) else {
        return;
    };
    let cases: [(&std::path::Path, &str, &[&str], &str); 7] = [
        (&tod, "x.glb", &["--lod", "1"], "--lod"),
        (&tod, "x.glb", &["--intr-idx", "0"], "--intr-idx"),
        (&hmd, "x.glb", &["--smooth"], "--smooth"),
        (&tod, "x.glb", &["--fps", "30"], "--fps"),
        (&p3d, "x.mdd", &["--scale", "2"], "--scale"),
        (&tod, "x.glb", &["--speed", "2"], "--speed"),
        // ARMOR.TIM has one CLUT row.
        (&tim, "x.png", &["--clut", "1"], "--clut"),
    ];
    for (input, out, args, flag) in cases {
        let (code, err) = convert(input, out, args);
        assert_eq!(code, 2, "{} {args:?}: {err}", input.display());
        assert!(err.contains(flag), "{args:?}: {err}");
        assert!(!err.contains("wrote"), "{args:?}: {err}");
    }
}

#[test]
fn tod_notes_say_what_the_model_lacks_with_a_count() {
    let (Some(tod), Some(cube), Some(hand)) = (
        common::corpus(&format!("{GRAPHICS}/TOD/JANKEN/TOD/APPEAR.TOD")),
        common::corpus(&format!("{GRAPHICS}/TMDVIEW/DATA/CUBE3.TMD")),
        common::corpus(&format!("{GRAPHICS}/TOD/JANKEN/TMD/TE.TMD")),
    ) else {
        return;
    };
    // A one-object TMD: the hand's TMD IDs are missing, one note with the count.
    let (code, err) = convert(&tod, "x.glb", &["--tmd", cube.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let notes: Vec<&str> = err
        .lines()
        .filter(|l| l.contains("note:") && l.contains("TMD ID"))
        .collect();
    assert_eq!(notes.len(), 1, "{err}");
    assert!(notes[0].contains("times in all"), "{err}");
    // The cube is textured and no TIM was given: said so, with the count.
    assert!(
        err.contains("note: 6 textured polygons (texture page 10) have no TIM"),
        "{err}"
    );
    // No TMD at all: said loudly, a warning (the GLB holds no mesh).
    let (code, err) = convert(&tod, "x.glb", &[]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("warning:") && err.contains("no TMD given"),
        "{err}"
    );
    // The hand's own TMD: nothing left out, nothing said.
    let (code, err) = convert(&tod, "x.glb", &["--tmd", hand.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("note:"), "{err}");
}

#[test]
fn hmd_notes_say_what_the_export_leaves_out_with_a_count() {
    let cases = [
        (
            "ANIM/CUBE0/CUBE0.HMD",
            "2 sequence(s) (1, 2) neither end nor repeat",
        ),
        ("ENVMAP/VENUS11.HMD", "1 environment-map primitive(s)"),
        (
            "ANIM/RING/TILED.HMD",
            "13 textured polygon(s) drawn untextured",
        ),
    ];
    for (file, note) in cases {
        let Some(path) = common::corpus(&format!("{HMD}/{file}")) else {
            return;
        };
        let (code, err) = convert(&path, "x.glb", &[]);
        assert_eq!(code, 0, "{file}: {err}");
        assert!(err.contains(&format!("note: {note}")), "{file}: {err}");
    }
    // Normal MIMe exports as morph-target normals: no note.
    if let Some(puyo) = common::corpus(&format!("{HMD}/MIME/PUYO.HMD")) {
        let (code, err) = convert(&puyo, "x.glb", &[]);
        assert_eq!(code, 0, "{err}");
        assert!(!err.contains("normal MIMe"), "{err}");
    }
    // A file the export carries whole (BALLOON's polygon indices run across its polygon
    // sections): no note.
    let Some(balloon) = common::corpus(&format!("{HMD}/ANIM/BALLOON/BALLOON.HMD")) else {
        return;
    };
    let (code, err) = convert(&balloon, "x.glb", &[]);
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("note:"), "{err}");
}
