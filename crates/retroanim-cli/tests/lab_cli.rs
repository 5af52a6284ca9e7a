//! `retroanim asm` and `retroanim disasm`: the sample LAB assembles, disassembles and
//! assembles back; errors name file:line:column and exit 2.

use std::path::Path;

mod common;
use common::retroanim;

fn sample() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../samples/triangle.lab")
}

#[test]
fn sample_assembles_and_round_trips_through_disasm() {
    let dir = tempfile::tempdir().unwrap();
    let hmd = dir.path().join("triangle.hmd");
    retroanim()
        .args(["asm"])
        .arg(sample())
        .arg("-o")
        .arg(&hmd)
        .assert()
        .success();
    let bytes = std::fs::read(&hmd).unwrap();
    let m = retroanim::formats::hmd::read(&bytes).unwrap();
    // One coordinate rotated 45° about y (labp's RotMatrix: cos = sin = 2896/4096).
    let c = &m.coordinates().unwrap()[0];
    assert_eq!(
        c.matrix.m,
        [[2896, 0, 2896], [0, 4096, 0], [-2896, 0, 2896]]
    );
    assert_eq!(c.matrix.t, [0, -100, 0]);
    let lab = dir.path().join("back.lab");
    retroanim()
        .arg("disasm")
        .arg(&hmd)
        .arg("-o")
        .arg(&lab)
        .assert()
        .success();
    let text = std::fs::read_to_string(&lab).unwrap();
    assert!(text.contains("COORDM(0, 512, 0,"), "{text}");
    assert!(
        text.contains("DEV_ID(SCE)|CTG(CTG_POLY)|DRV(0x00)|PRIM_TYPE(TRI)"),
        "{text}"
    );
    let again = dir.path().join("again.hmd");
    retroanim()
        .arg("asm")
        .arg(&lab)
        .arg("-o")
        .arg(&again)
        .assert()
        .success();
    assert_eq!(std::fs::read(&again).unwrap(), bytes);
    // Standard output by default.
    let out = retroanim().arg("disasm").arg(&hmd).assert().success();
    assert_eq!(String::from_utf8_lossy(&out.get_output().stdout), text);
}

#[test]
fn errors_name_file_line_column_and_include_folders_work() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("inc")).unwrap();
    std::fs::write(dir.path().join("inc/VALUES.DEF"), "#define V 5\n").unwrap();
    let src = dir.path().join("m.lab");
    std::fs::write(&src, "#include \"values.def\"\n\tV;\n\tMissing / 4;\n").unwrap();
    let out = dir.path().join("m.hmd");
    // Without -I the include is not found: exit 2, position of the #include.
    let a = retroanim()
        .arg("asm")
        .arg(&src)
        .arg("-o")
        .arg(&out)
        .assert()
        .code(2);
    let err = String::from_utf8_lossy(&a.get_output().stderr).into_owned();
    assert!(
        err.contains("m.lab:1:2: cannot find #include file values.def"),
        "{err}"
    );
    // With -I the undefined label is next, at line 3 column 2.
    let a = retroanim()
        .arg("asm")
        .arg(&src)
        .arg("-o")
        .arg(&out)
        .arg("-I")
        .arg(dir.path().join("inc"))
        .assert()
        .code(2);
    let err = String::from_utf8_lossy(&a.get_output().stderr).into_owned();
    assert!(err.contains("m.lab:3:2: undefined label Missing"), "{err}");
    assert!(!out.exists(), "nothing written on error");
    // Disassembling something that is not an HMD fails with exit 2.
    retroanim().arg("disasm").arg(&src).assert().code(2);
}
