//! `retroanim render`: one run per input kind (TMD with a TIM, TOD + TMD, TIM, VRAM dump), the
//! picture checked as a PNG a decoder reads, and options that do not apply refused.

mod common;
use common::retroanim;

use std::path::{Path, PathBuf};

fn sample(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../samples")
        .join(name)
}

/// (width, height, frames) of a PNG read by the `png` crate's decoder.
fn png_info(path: &Path) -> (u32, u32, u32) {
    let d = png::Decoder::new(std::fs::File::open(path).unwrap());
    let r = d.read_info().unwrap();
    let i = r.info();
    (
        i.width,
        i.height,
        i.animation_control().map_or(1, |a| a.num_frames),
    )
}

#[test]
fn a_model_a_texture_an_animation_and_a_vram_dump() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("m.png");
    retroanim()
        .args(["render"])
        .arg(sample("link.tmd"))
        .arg(&out)
        .args(["--size", "64x48", "--yaw", "10", "--background", "102030"])
        .assert()
        .success();
    assert_eq!(png_info(&out), (64, 48, 1));

    let tex = dir.path().join("t.png");
    retroanim()
        .arg("render")
        .arg(sample("checker.tim"))
        .arg(&tex)
        .assert()
        .success();
    let (w, h, n) = png_info(&tex);
    assert!(w > 0 && h > 0 && n == 1);

    let anim = dir.path().join("a.png");
    retroanim()
        .arg("render")
        .arg(sample("swing.tod"))
        .arg(&anim)
        .arg("--tmd")
        .arg(sample("link.tmd"))
        .args(["--frames", "0..5", "--size", "32x32"])
        .assert()
        .success();
    let (w, h, n) = png_info(&anim);
    assert_eq!((w, h), (32, 32));
    assert!(n >= 2, "an animated PNG: {n} frames");

    let dump = dir.path().join("vram.bin");
    std::fs::write(&dump, vec![0xFFu8; 1024 * 512 * 2]).unwrap();
    let v = dir.path().join("v.png");
    retroanim()
        .arg("render")
        .arg(&dump)
        .arg(&v)
        .arg("--vram")
        .assert()
        .success();
    assert_eq!(png_info(&v), (1024, 512, 1));
}

#[test]
fn options_that_do_not_apply_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x.png");
    retroanim()
        .arg("render")
        .arg(sample("checker.tim"))
        .arg(&out)
        .args(["--yaw", "10"])
        .assert()
        .code(2);
    retroanim()
        .arg("render")
        .arg(sample("link.tmd"))
        .arg(&out)
        .args(["--fps", "10"])
        .assert()
        .code(2);
    retroanim()
        .arg("render")
        .arg(sample("swing.tod"))
        .arg(&out)
        .assert()
        .code(2);
    assert!(!out.exists());
}
