//! RSD sets through the command line: info, validate, roundtrip, convert (to TMD, glTF, back to
//! RSD, batch), render; a damaged part names file:line:column and nothing is written.

use std::path::{Path, PathBuf};
use std::process::Command;

fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_retroanim"))
}

fn run(args: &[&str], dir: &Path) -> (i32, String, String) {
    let o = Command::new(bin())
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// A small set: a lit red quad and an unlit Gouraud triangle, with a group.
fn set(dir: &Path) {
    let w = |n: &str, t: &str| std::fs::write(dir.join(n), t).unwrap();
    w(
        "box.rsd",
        "@RSD970401\n# a box\nPLY=BOX.PLY\nMAT=box.mat\nGRP=box.grp\nNTEX=0\n",
    );
    w(
        "BOX.PLY",
        "@PLY970401\n5 1 2\n0 0 0\n100 0 0\n100 100 0\n0 100 0\n50 50 -70.5\n0 0 -1\n1 0 1 3 2 0 0 0 0\n0 0 1 4 0 0 0 0 0\n",
    );
    w(
        "box.mat",
        "@MAT970401\n2\n0 0 F C 255 0 0\n1 1 G G 255 0 0 0 255 0 0 0 255 0 0 0\n",
    );
    w("box.grp", "@GRP970401\n1\nall 1 2\n0-1\n");
}

#[test]
fn info_validate_roundtrip_and_convert_an_rsd_set() {
    let d = tempfile::tempdir().unwrap();
    set(d.path());
    let (code, out, err) = run(&["info", "box.rsd", "--json"], d.path());
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
    assert_eq!(v["format"], "rsd", "{out}");
    assert_eq!(
        (v["vertices"].as_u64(), v["quads"].as_u64()),
        (Some(5), Some(1)),
        "{out}"
    );
    let (code, out, err) = run(&["validate", "box.rsd"], d.path());
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("ok (rsd"), "{out}");
    let (code, out, err) = run(&["roundtrip", "box.rsd"], d.path());
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("identical"), "{out}");
    let (code, _, err) = run(&["convert", "box.rsd", "box.tmd"], d.path());
    assert_eq!(code, 0, "{err}");
    let tmd = std::fs::read(d.path().join("box.tmd")).unwrap();
    assert_eq!(tmd[0], 0x41);
    // TMD → RSD names its parts after the output and links back to the same TMD.
    let (code, _, err) = run(&["convert", "box.tmd", "again.rsd"], d.path());
    assert_eq!(code, 0, "{err}");
    let rsd = std::fs::read_to_string(d.path().join("again.rsd")).unwrap();
    assert!(
        rsd.contains("PLY=again.ply") && d.path().join("again.mat").is_file(),
        "{rsd}"
    );
    let (code, _, err) = run(&["convert", "again.rsd", "again.tmd"], d.path());
    assert_eq!(code, 0, "{err}");
    assert_eq!(std::fs::read(d.path().join("again.tmd")).unwrap(), tmd);
    let (code, _, err) = run(&["convert", "box.rsd", "box.glb"], d.path());
    assert_eq!(code, 0, "{err}");
    // The GRP's group is a named node and mesh of the glTF.
    let glb = std::fs::read(d.path().join("box.glb")).unwrap();
    let json_len = u32::from_le_bytes([glb[12], glb[13], glb[14], glb[15]]) as usize;
    let gltf: serde_json::Value = serde_json::from_slice(&glb[20..20 + json_len]).unwrap();
    assert_eq!(gltf["nodes"][0]["name"], "all", "{gltf}");
    assert_eq!(gltf["meshes"][0]["name"], "all", "{gltf}");
    let (code, _, err) = run(&["render", "box.rsd", "box.png"], d.path());
    assert_eq!(code, 0, "{err}");
    assert!(d.path().join("box.png").is_file());
    // Batch: the folder's RSDs become TMDs (their natural target), their parts are not
    // inputs of their own.
    let b = d.path().join("batch");
    std::fs::create_dir(&b).unwrap();
    set(&b);
    let (code, _, err) = run(&["convert", "-r", "batch", "--out-dir", "out"], d.path());
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("3 skipped"), "{err}");
    assert_eq!(std::fs::read(d.path().join("out/box.tmd")).unwrap(), tmd);
}

#[test]
fn a_damaged_part_is_named_and_nothing_written() {
    let d = tempfile::tempdir().unwrap();
    set(d.path());
    std::fs::write(
        d.path().join("box.mat"),
        "@MAT970401\n2\n0 0 F C 255 0 0\n1 1 G G 255 0\n",
    )
    .unwrap();
    let (code, _, err) = run(&["convert", "box.rsd", "box.tmd"], d.path());
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("box.mat:4:"), "{err}");
    assert!(!d.path().join("box.tmd").exists());
    let (code, _, err) = run(&["validate", "box.rsd"], d.path());
    assert_eq!(code, 2, "{err}");
    // A part not beside it: validate reports it (exit 1).
    set(d.path());
    std::fs::remove_file(d.path().join("box.grp")).unwrap();
    let (code, out, err) = run(&["validate", "box.rsd"], d.path());
    assert_eq!(code, 0, "a missing GRP is a warning: {out}{err}");
    assert!(out.contains("GRP=box.grp"), "{out}");
    std::fs::remove_file(d.path().join("box.mat")).unwrap();
    let (code, out, err) = run(&["validate", "box.rsd"], d.path());
    assert_eq!(code, 1, "a missing MAT is an error: {out}{err}");
    assert!(out.contains("MAT=box.mat"), "{out}");
}
