//! P3D on the command line: info, roundtrip, conversions to and from point caches and glTF.

use std::path::{Path, PathBuf};

use serde_json::Value;

mod common;
use common::corpus;
use common::{json, retroanim};

fn sample() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../samples/flag.p3d")
}

#[test]
fn info_json_has_the_contract_fields() {
    let v = json(retroanim().arg("info").arg("--json").arg(sample()));
    assert_eq!(v["format"], "p3d");
    assert_eq!(v["variant"], "mlod");
    assert_eq!(v["version"], 257);
    let lod = &v["lods"][0];
    assert_eq!(lod["signature"], "P3DM");
    assert_eq!(lod["resolution"], 1.0);
    assert_eq!(lod["points"], 24);
    assert_eq!(lod["faces"], 15);
    assert_eq!(lod["frames"], 9);
    if let Some(odol) = corpus("animated_morph_odol.p3d") {
        let v = json(retroanim().arg("info").arg("--json").arg(odol));
        assert_eq!(v["variant"], "odol");
        assert_eq!(v["version"], 7);
        assert_eq!(v["lods"][0]["signature"], Value::Null);
        assert_eq!(v["lods"][0]["frames"], 3);
    }
}

#[test]
fn p3d_to_mdd_and_pc2_and_back_restores_the_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let mut models = vec![sample()];
    models.extend(corpus("agm_fastroping.p3d"));
    models.extend(corpus("animated_morph_odol.p3d"));
    for model in models {
        let original = std::fs::read(&model).unwrap();
        for ext in ["mdd", "pc2"] {
            let cache = dir.path().join(format!("cache.{ext}"));
            let back = dir.path().join(format!("back_{ext}.p3d"));
            // The same names for each model: the earlier model's files are replaced (--force).
            retroanim()
                .arg("convert")
                .arg(&model)
                .arg(&cache)
                .arg("--force")
                .assert()
                .success();
            retroanim()
                .arg("convert")
                .arg(&cache)
                .arg(&back)
                .arg("--base")
                .arg(&model)
                .arg("--force")
                .assert()
                .success();
            assert!(
                std::fs::read(&back).unwrap() == original,
                "{} via {ext}",
                model.display()
            );
        }
    }
}

#[test]
fn default_cache_axes_are_object_builders_and_raw_is_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let model = retroanim::formats::p3d::read(&std::fs::read(sample()).unwrap()).unwrap();
    let frame = model.frames(0)[3].positions.to_vec();
    for (axes, expect) in [
        (
            "default",
            frame.iter().map(|p| [p[0], p[2], p[1]]).collect::<Vec<_>>(),
        ),
        ("raw", frame.clone()),
    ] {
        let out = dir.path().join(format!("{axes}.mdd"));
        retroanim()
            .args(["convert", "--axes", axes])
            .arg(sample())
            .arg(&out)
            .assert()
            .success();
        let mdd = retroanim::formats::mdd::read(&std::fs::read(&out).unwrap()).unwrap();
        assert_eq!(mdd.frames[3], expect, "--axes {axes}");
        // Seconds are phases × 1 s by default, × --duration when given.
        assert_eq!(mdd.times[4], 0.5);
    }
    let out = dir.path().join("slow.mdd");
    retroanim()
        .args(["convert", "--duration", "4"])
        .arg(sample())
        .arg(&out)
        .assert()
        .success();
    let mdd = retroanim::formats::mdd::read(&std::fs::read(&out).unwrap()).unwrap();
    assert_eq!(mdd.times[8], 4.0);
}

#[test]
fn point_count_mismatch_names_both_counts_and_writes_nothing() {
    let Some(other) = corpus("agm_fastroping.p3d") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("flag.mdd");
    retroanim()
        .arg("convert")
        .arg(sample())
        .arg(&cache)
        .assert()
        .success();
    let out = dir.path().join("out.p3d");
    let o = retroanim()
        .arg("convert")
        .arg(&cache)
        .arg(&out)
        .arg("--base")
        .arg(&other)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("24 points") && err.contains("has 594"),
        "{err}"
    );
    assert!(!out.exists());
    assert!(
        std::fs::read_dir(dir.path()).unwrap().count() == 1,
        "no temporary file left"
    );
}

#[test]
fn usage_errors_are_clear() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("flag.pc2");
    retroanim()
        .arg("convert")
        .arg(sample())
        .arg(&cache)
        .assert()
        .success();
    let o = retroanim()
        .arg("convert")
        .arg(&cache)
        .arg(dir.path().join("x.p3d"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--base"));
    let o = retroanim()
        .args(["convert", "--lod", "5"])
        .arg(sample())
        .arg(dir.path().join("x.mdd"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("no LOD has that resolution"));
}

#[test]
fn gltf_and_glb_carry_the_frames_as_morph_targets() {
    let dir = tempfile::tempdir().unwrap();
    let gltf = dir.path().join("flag.gltf");
    retroanim()
        .arg("convert")
        .arg(sample())
        .arg(&gltf)
        .assert()
        .success();
    let v: Value = serde_json::from_slice(&std::fs::read(&gltf).unwrap()).unwrap();
    assert_eq!(
        v["meshes"][0]["primitives"][0]["targets"]
            .as_array()
            .unwrap()
            .len(),
        9
    );
    assert_eq!(
        v["animations"][0]["channels"][0]["target"]["path"],
        "weights"
    );
    let glb = dir.path().join("flag.glb");
    retroanim()
        .arg("convert")
        .arg(sample())
        .arg(&glb)
        .assert()
        .success();
    assert_eq!(&std::fs::read(&glb).unwrap()[..4], b"glTF");
}

#[test]
fn roundtrip_and_validate_over_p3d() {
    retroanim()
        .arg("roundtrip")
        .arg(sample())
        .assert()
        .success()
        .stdout(predicates::str::contains("identical"));
    retroanim().arg("validate").arg(sample()).assert().success();
    if let Some(arma) = corpus("ALiVE.OS/addons/m_tablet/tablet.p3d") {
        retroanim()
            .arg("roundtrip")
            .arg(&arma)
            .assert()
            .success()
            .stdout(predicates::str::contains("identical"));
        retroanim().arg("validate").arg(&arma).assert().success();
    }
}

#[test]
fn dump_json_converts_back_to_the_same_p3d() {
    let dir = tempfile::tempdir().unwrap();
    let dump = dir.path().join("flag.json");
    let out = retroanim()
        .args(["dump", "--json"])
        .arg(sample())
        .output()
        .unwrap();
    std::fs::write(&dump, out.stdout).unwrap();
    let back = dir.path().join("flag.p3d");
    retroanim()
        .arg("convert")
        .arg(&dump)
        .arg(&back)
        .assert()
        .success();
    assert_eq!(
        std::fs::read(back).unwrap(),
        std::fs::read(sample()).unwrap()
    );
}

#[test]
fn pc2_notes_only_real_unevenness() {
    let dir = tempfile::tempdir().unwrap();
    // Nine evenly spaced phases at --fps 7: times in f32 are off whole frames by rounding only.
    let o = retroanim()
        .args(["convert", "--fps", "7"])
        .arg(sample())
        .arg(dir.path().join("a.pc2"))
        .output()
        .unwrap();
    assert!(o.status.success());
    assert!(!String::from_utf8_lossy(&o.stderr).contains("not evenly spaced"));
    let p =
        retroanim::formats::pc2::read(&std::fs::read(dir.path().join("a.pc2")).unwrap()).unwrap();
    assert_eq!((p.start_frame, p.sample_rate), (0.0, 1.0));
    // --duration 1 at 5 fps puts the 9 frames 0.625 frames apart: still even, PC2 holds that.
    let o = retroanim()
        .args(["convert", "--fps", "5", "--duration", "1"])
        .arg(sample())
        .arg(dir.path().join("b.pc2"))
        .output()
        .unwrap();
    assert!(o.status.success());
    assert!(!String::from_utf8_lossy(&o.stderr).contains("not evenly spaced"));
    let p =
        retroanim::formats::pc2::read(&std::fs::read(dir.path().join("b.pc2")).unwrap()).unwrap();
    assert_eq!((p.start_frame, p.sample_rate), (0.0, 0.625));
}

#[test]
fn a_shorter_cache_replaces_the_frames_as_the_library_does() {
    use retroanim::formats::{mdd, p3d};
    let dir = tempfile::tempdir().unwrap();
    let full = dir.path().join("full.mdd");
    retroanim()
        .arg("convert")
        .arg(sample())
        .arg(&full)
        .assert()
        .success();
    let mut m = mdd::read(&std::fs::read(&full).unwrap()).unwrap();
    m.frames.truncate(3);
    m.times.truncate(3);
    for f in &mut m.frames {
        f.iter_mut().for_each(|p| p[1] += 1.0);
    }
    let short = dir.path().join("short.mdd");
    std::fs::write(&short, mdd::write(&m).unwrap()).unwrap();
    let out = dir.path().join("out.p3d");
    retroanim()
        .arg("convert")
        .arg(&short)
        .arg(&out)
        .arg("--base")
        .arg(sample())
        .assert()
        .success();
    let mut model = p3d::read(&std::fs::read(sample()).unwrap()).unwrap();
    let frames = m.times.iter().zip(&m.frames).map(|(t, f)| (*t, &f[..]));
    let axes = p3d::scene::CacheAxes::ObjectBuilder;
    p3d::scene::apply_frames(&mut model, 0, m.points as usize, frames, axes, 1.0).unwrap();
    assert!(std::fs::read(&out).unwrap() == p3d::write(&model).unwrap());
    assert_eq!(model.frames(0).len(), 3);

    // A cache with bytes after its last frame is refused, and nothing is written.
    let mut bad = std::fs::read(&short).unwrap();
    bad.extend_from_slice(&[0; 12 * 24 + 5]);
    std::fs::write(&short, bad).unwrap();
    let out2 = dir.path().join("out2.p3d");
    retroanim()
        .arg("convert")
        .arg(&short)
        .arg(&out2)
        .arg("--base")
        .arg(sample())
        .assert()
        .failure();
    assert!(!out2.exists());
}

#[test]
fn arma_odol_info_convert_and_frames_from_a_point_cache() {
    let Some(arma) = corpus("ALiVE.OS/addons/m_tablet/tablet.p3d") else {
        return;
    };
    let v = json(retroanim().arg("info").arg("--json").arg(&arma));
    assert_eq!(v["variant"], "odol");
    assert_eq!(v["version"], 50);
    let lods = v["lods"].as_array().unwrap();
    assert_eq!(lods.len(), 5);
    assert!(lods.iter().all(|l| l["frames"] == 0));
    assert_eq!(lods[3]["points"], 144);
    // Special LODs by name: the number stays in JSON beside the name; text shows the name.
    for l in lods {
        let r = l["resolution"].as_f64().unwrap();
        let name = l["name"].as_str().unwrap();
        if (1e15..1.5e15).contains(&r) {
            assert_eq!(name, "Memory");
        } else if r < 1000.0 {
            assert_eq!(name.parse::<f64>().unwrap(), r);
        }
    }
    let text = retroanim().arg("info").arg(&arma).output().unwrap();
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(!text.contains("e+") && !text.contains("00000000"), "{text}");
    for l in lods {
        let name = l["name"].as_str().unwrap();
        assert!(
            text.contains(&format!("resolution: {name}")),
            "{name}: {text}"
        );
    }
    let dir = tempfile::tempdir().unwrap();
    // A frameless LOD: no point cache, but a static glTF mesh.
    let mdd = dir.path().join("none.mdd");
    let o = retroanim()
        .arg("convert")
        .arg(&arma)
        .arg(&mdd)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("has no frames"));
    assert!(!mdd.exists());
    let glb = dir.path().join("tablet.glb");
    retroanim()
        .arg("convert")
        .arg(&arma)
        .arg(&glb)
        .assert()
        .success();
    assert_eq!(&std::fs::read(&glb).unwrap()[..4], b"glTF");
    // Give the geometry LOD (1e13, 144 vertices) two frames from an MDD, then read them back.
    let mut cache = Vec::new();
    cache.extend(2i32.to_be_bytes());
    cache.extend(144i32.to_be_bytes());
    cache.extend(0f32.to_be_bytes());
    cache.extend(1f32.to_be_bytes());
    for f in 0..2 {
        for p in 0..144 {
            for c in 0..3 {
                cache.extend(((p * 3 + c) as f32 * 0.01 + f as f32).to_be_bytes());
            }
        }
    }
    let input = dir.path().join("in.mdd");
    std::fs::write(&input, &cache).unwrap();
    let animated = dir.path().join("animated.p3d");
    retroanim()
        .arg("convert")
        .arg(&input)
        .arg(&animated)
        .arg("--base")
        .arg(&arma)
        .args(["--lod", "1e13"])
        .assert()
        .success();
    let v = json(retroanim().arg("info").arg("--json").arg(&animated));
    assert_eq!(v["lods"][3]["frames"], 2);
    assert_eq!(v["lods"][0]["frames"], 0);
    retroanim()
        .arg("roundtrip")
        .arg(&animated)
        .assert()
        .success();
    let out = dir.path().join("out.mdd");
    retroanim()
        .arg("convert")
        .arg(&animated)
        .arg(&out)
        .args(["--lod", "1e13"])
        .assert()
        .success();
    assert_eq!(std::fs::read(&out).unwrap(), cache);
}

#[test]
fn glb_morph_animation_goes_back_into_the_base_model() {
    let dir = tempfile::tempdir().unwrap();
    let (glb, back) = (dir.path().join("flag.glb"), dir.path().join("back.p3d"));
    let flag = sample();
    let convert = |args: &[&Path]| retroanim().arg("convert").args(args).output().unwrap();
    assert!(convert(&[&flag, &glb]).status.success());
    let base = [&glb, &back, Path::new("--base"), &flag];
    assert!(convert(&base).status.success());
    let v = json(retroanim().arg("info").arg("--json").arg(&back));
    assert_eq!(v["lods"][0]["frames"], 9);
    let out = convert(&[&base[..], &[Path::new("--animation"), Path::new("4")]].concat());
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("1 animation(s): 0 "), "{err}");
}
