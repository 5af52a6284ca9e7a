//! A binarised RTM (BMTR) from the command line: `info` names the form, `play --skeleton`
//! composes the parent-relative bones (and says so without it), `validate` and `roundtrip`
//! pass, and a damaged one is an error naming BMTR and its offset, with nothing written.

mod common;

use common::{json, play_object, retroanim, succeed};

/// BMTR v3: bones pelvis and spine, two raw frames at phases 0 and 1. Pelvis: 180° about x
/// (quaternion (1, 0, 0, 0)) at translation (1, 1, 0.5); spine: no rotation at (0.5, 0.25, 0).
fn bmtr() -> Vec<u8> {
    let mut b = b"BMTR".to_vec();
    b.extend(3u32.to_le_bytes());
    b.push(1);
    b.extend([0u8; 12]);
    b.extend(2u32.to_le_bytes());
    b.extend(0u32.to_le_bytes());
    b.extend(2u32.to_le_bytes());
    b.extend(2u32.to_le_bytes());
    b.extend(b"pelvis\0spine\0");
    b.extend(2u32.to_le_bytes());
    b.extend([0.0f32, 1.0].iter().flat_map(|p| p.to_le_bytes()));
    // Halves: 1.0 = 0x3C00, 0.5 = 0x3800, 0.25 = 0x3400.
    let pelvis: [u16; 7] = [16384, 0, 0, 0, 0x3C00, 0x3C00, 0x3800];
    let spine: [u16; 7] = [0, 0, 0, 16384, 0x3800, 0x3400, 0];
    for _ in 0..2 {
        b.extend(2u32.to_le_bytes());
        for w in pelvis.iter().chain(&spine) {
            b.extend(w.to_le_bytes());
        }
    }
    b
}

const MODEL_CFG: &str = r#"class CfgSkeletons { class Test { skeletonBones[] = { "pelvis", "", "spine", "pelvis" }; }; };"#;

fn position(play: &serde_json::Value, bone: usize) -> Vec<f64> {
    play["frames"][0]["bones"][bone]["matrix"]
        .as_array()
        .unwrap()[9..]
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect()
}

#[test]
fn info_play_validate_and_roundtrip_take_a_bmtr() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("anim.rtm");
    std::fs::write(&file, bmtr()).unwrap();
    let cfg = dir.path().join("model.cfg");
    std::fs::write(&cfg, MODEL_CFG).unwrap();

    let info = json(retroanim().args(["info", "--json"]).arg(&file));
    assert_eq!(info["form"], "BMTR v3", "{info}");
    assert_eq!(info["frames"], 2);

    // Through the skeleton the spine's (−0.5, 0.25, 0) turns with the pelvis (y and z
    // over) and adds to its (−1, 1, −0.5); the file's x and z flip, as docs/rtm.md says.
    let nested = play_object(
        &succeed(
            retroanim()
                .args(["play", "--json", "--phase", "0"])
                .arg(&file)
                .arg("--skeleton")
                .arg(&cfg),
        )
        .stdout,
    );
    assert_eq!(position(&nested, 0), [-1.0, 1.0, -0.5]);
    assert_eq!(position(&nested, 1), [-1.5, 0.75, -0.5]);
    // Without it the bones are flat, and a note says so.
    let run = succeed(retroanim().args(["play", "--phase", "0"]).arg(&file));
    let err = String::from_utf8_lossy(&run.stderr);
    assert!(err.contains("without a skeleton"), "{err}");
    let flat = play_object(
        &succeed(
            retroanim()
                .args(["play", "--json", "--phase", "0"])
                .arg(&file),
        )
        .stdout,
    );
    assert_eq!(position(&flat, 1), [-0.5, 0.25, 0.0]);
    assert!(flat["notes"][0]["message"]
        .as_str()
        .unwrap()
        .contains("without a skeleton"));

    succeed(retroanim().arg("validate").arg(&file));
    succeed(retroanim().arg("roundtrip").arg(&file));
}

#[test]
fn a_damaged_bmtr_is_an_error_naming_its_offset_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("cut.rtm");
    let mut bytes = bmtr();
    // The second frame's count says 3 transforms for the header's 2 bones.
    let at = bytes.len() - 2 * 14 - 4;
    bytes[at..at + 4].copy_from_slice(&3u32.to_le_bytes());
    std::fs::write(&file, &bytes).unwrap();
    let out = dir.path().join("out.glb");
    let run = retroanim()
        .arg("convert")
        .arg(&file)
        .arg(&out)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(2), "{err}");
    assert!(
        err.contains("BMTR frame 1") && err.contains(&format!("byte {at}")),
        "{err}"
    );
    assert!(!out.exists());
}
