//! CLI: `play`, and TMD/TIM through `info`, `dump`, `convert` (incl. TIM → PNG), `roundtrip`.

use std::path::Path;

use assert_cmd::Command;
use retroanim::formats::{tim, tmd, tod};
use serde_json::Value;

mod common;
use common::retroanim;

fn sample_tod(dir: &Path) -> std::path::PathBuf {
    use tod::*;
    let anim = Tod {
        header: Header {
            version: 0,
            resolution: 2,
        },
        frames: vec![
            Frame {
                number: 0,
                packets: vec![
                    Packet::new(1, PacketData::ObjectControl(ObjectControl::Create)),
                    Packet::new(1, PacketData::TmdId(IdValue::new(1))),
                    Packet::new(
                        1,
                        PacketData::Coordinate(Coordinate {
                            translation: Some([0, -100, 0]),
                            ..Coordinate::default()
                        }),
                    ),
                ],
                extra_words: vec![],
                size_override: None,
            },
            Frame {
                number: 2,
                packets: vec![Packet::new(
                    1,
                    PacketData::Coordinate(Coordinate {
                        differential: true,
                        translation: Some([5, 0, 0]),
                        ..Coordinate::default()
                    }),
                )],
                extra_words: vec![],
                size_override: None,
            },
        ],
        trailing: vec![],
    };
    let path = dir.join("anim.tod");
    std::fs::write(&path, tod::write(&anim).unwrap()).unwrap();
    path
}

fn sample_tmd(dir: &Path) -> std::path::PathBuf {
    use tmd::*;
    let v = |x, y, z| SVector { x, y, z, pad: 0 };
    let mut model = Tmd {
        flags: 0,
        address_base: 0,
        objects: vec![Object {
            vert_top: 0,
            normal_top: 0,
            primitive_top: 0,
            scale: 0,
            vertices: vec![v(0, 0, 0), v(100, 0, 0), v(0, 100, 0)],
            normals: vec![v(0, 0, -4096)],
            primitives: vec![Primitive {
                olen: 4,
                flag: 0,
                mode: 0x20,
                data: PrimitiveData::Polygon(Polygon {
                    colors: [Rgbx {
                        r: 255,
                        g: 0,
                        b: 0,
                        x: 0x20,
                    }]
                    .into_iter()
                    .collect(),
                    uvs: Default::default(),
                    normals: [0].into_iter().collect(),
                    vertices: [0, 1, 2].into_iter().collect(),
                    pad: 0,
                }),
            }],
        }],
        gaps: vec![],
    };
    model.pack();
    let path = dir.join("model.tmd");
    std::fs::write(&path, tmd::write(&model).unwrap()).unwrap();
    path
}

fn sample_tim(dir: &Path) -> std::path::PathBuf {
    let image = tim::Tim {
        version: 0,
        id_reserved: 0,
        pmode: 2,
        flags_reserved: 0,
        clut: None,
        image: tim::Block {
            x: 640,
            y: 0,
            width: 2,
            height: 2,
            data: vec![0x001F, 0x0000, 0x83E0, 0x8000],
            extra: vec![],
        },
        trailing: vec![],
    };
    let path = dir.join("tex.tim");
    std::fs::write(&path, tim::write(&image).unwrap()).unwrap();
    path
}

/// `--json` output of a command that must succeed: `play`'s as one object (frames and
/// summary fields), any other's one item line.
fn json_of(cmd: &mut Command) -> Value {
    let out = cmd.assert().success().get_output().stdout.clone();
    let (mut items, summary) = common::json_lines(&out);
    if summary["command"] == "play" {
        common::play_object(&out)
    } else {
        items.remove(0)
    }
}

#[test]
fn play_prints_every_frame_with_matrices() {
    let dir = tempfile::tempdir().unwrap();
    let anim = sample_tod(dir.path());
    let model = sample_tmd(dir.path());
    let v = json_of(
        retroanim()
            .arg("play")
            .arg(&anim)
            .arg("--tmd")
            .arg(&model)
            .arg("--json"),
    );
    let frames = v["frames"].as_array().unwrap();
    assert_eq!(frames.len(), 3, "frames 0, 1 (waiting) and 2");
    let obj = &frames[2]["objects"][0];
    assert_eq!(obj["id"], 1);
    assert_eq!(obj["tmd_id"], 1);
    assert_eq!(obj["model"], 0);
    assert_eq!(obj["visible"], true);
    assert_eq!(obj["world"]["t"], serde_json::json!([5, -100, 0]));
    assert_eq!(obj["local"]["m"][0][0], 4096);
    assert!((frames[2]["time"].as_f64().unwrap() - 4.0 / 60.0).abs() < 1e-9);

    let one = json_of(
        retroanim()
            .arg("play")
            .arg(&anim)
            .args(["--frame", "1", "--json"]),
    );
    assert_eq!(one["frames"].as_array().unwrap().len(), 1);
    assert_eq!(one["frames"][0]["frame"], 1);
    assert_eq!(one["frames"][0]["objects"][0]["model"], Value::Null);
    let some = json_of(
        retroanim()
            .arg("play")
            .arg(&anim)
            .args(["--frames", "1..=2", "--json"]),
    );
    assert_eq!(some["frames"].as_array().unwrap().len(), 2);
    // A frame beyond the animation (frames 0..=2) is an error naming the range, not an
    // empty listing.
    let beyond = retroanim()
        .arg("play")
        .arg(&anim)
        .args(["--frame", "9"])
        .assert()
        .code(2);
    let err = String::from_utf8(beyond.get_output().stderr.clone()).unwrap();
    assert!(
        err.contains("--frame 9: the animation has frames 0..=2"),
        "{err}"
    );

    let text = retroanim().arg("play").arg(&anim).assert().success();
    let text = String::from_utf8(text.get_output().stdout.clone()).unwrap();
    assert!(text.contains("frame 2 (0.067 s): 1 objects"), "{text}");
}

#[test]
fn play_refuses_what_is_not_a_tod() {
    let dir = tempfile::tempdir().unwrap();
    let image = sample_tim(dir.path());
    retroanim().arg("play").arg(&image).assert().code(2);
    let anim = sample_tod(dir.path());
    retroanim()
        .arg("play")
        .arg(&anim)
        .args(["--frames", "5..1"])
        .assert()
        .code(2);
}

#[test]
fn tim_converts_to_png() {
    let dir = tempfile::tempdir().unwrap();
    let image = sample_tim(dir.path());
    let png = dir.path().join("tex.png");
    retroanim()
        .arg("convert")
        .arg(&image)
        .arg(&png)
        .assert()
        .success();
    let bytes = std::fs::read(&png).unwrap();
    assert!(bytes.starts_with(b"\x89PNG\r\n\x1a\n"));
    // IHDR: width 2, height 2, 8-bit RGBA.
    assert_eq!(&bytes[16..26], &[0, 0, 0, 2, 0, 0, 0, 2, 8, 6]);
    let info = json_of(retroanim().arg("info").arg(&image).arg("--json"));
    assert_eq!(info["format"], "tim");
    assert_eq!(info["width"], 2);
    assert_eq!(info["stp_entries"], 2);
}

#[test]
fn tmd_info_dump_convert_and_roundtrip() {
    let dir = tempfile::tempdir().unwrap();
    let model = sample_tmd(dir.path());
    let info = json_of(retroanim().arg("info").arg(&model).arg("--json"));
    assert_eq!(info["format"], "tmd");
    assert_eq!(info["triangles"], 1);
    let dump = dir.path().join("model.json");
    retroanim()
        .arg("convert")
        .arg(&model)
        .arg(&dump)
        .assert()
        .success();
    let back = dir.path().join("back.tmd");
    retroanim()
        .arg("convert")
        .arg(&dump)
        .arg(&back)
        .assert()
        .success();
    assert_eq!(
        std::fs::read(&back).unwrap(),
        std::fs::read(&model).unwrap()
    );
    retroanim().arg("roundtrip").arg(&model).assert().success();
    retroanim().arg("validate").arg(&model).assert().success();
}

#[test]
fn tod_and_tmd_convert_to_gltf() {
    let dir = tempfile::tempdir().unwrap();
    let anim = sample_tod(dir.path());
    let model = sample_tmd(dir.path());
    let glb = dir.path().join("anim.glb");
    retroanim()
        .arg("convert")
        .arg(&anim)
        .arg(&glb)
        .arg("--tmd")
        .arg(&model)
        .assert()
        .success();
    let bytes = std::fs::read(&glb).unwrap();
    assert_eq!(&bytes[..4], b"glTF");
    let gltf = dir.path().join("model.gltf");
    retroanim()
        .arg("convert")
        .arg(&model)
        .arg(&gltf)
        .args(["--axes", "raw", "--scale", "0.001"])
        .assert()
        .success();
    let v: Value = serde_json::from_slice(&std::fs::read(&gltf).unwrap()).unwrap();
    assert_eq!(v["asset"]["version"], "2.0");
    // Raw axes and 1 mm per unit: the triangle's corner at (100, 0, 0) is at x = 0.1 m.
    assert!((v["accessors"][0]["max"][0].as_f64().unwrap() - 0.1).abs() < 1e-6);
    retroanim()
        .arg("convert")
        .arg(&model)
        .arg(dir.path().join("bad.glb"))
        .args(["--scale", "-1"])
        .assert()
        .code(2);
}

#[test]
fn after_plays_on_the_same_object_table() {
    use tod::*;
    let dir = tempfile::tempdir().unwrap();
    let setup = sample_tod(dir.path());
    // A second animation that only moves object 1: alone it has nothing to move.
    let next = Tod {
        header: Header {
            version: 0,
            resolution: 2,
        },
        frames: vec![Frame {
            number: 0,
            packets: vec![Packet::new(
                1,
                PacketData::Coordinate(Coordinate {
                    translation: Some([7, 8, 9]),
                    ..Coordinate::default()
                }),
            )],
            extra_words: vec![],
            size_override: None,
        }],
        trailing: vec![],
    };
    let next_path = dir.path().join("next.tod");
    std::fs::write(&next_path, tod::write(&next).unwrap()).unwrap();
    let alone = json_of(retroanim().arg("play").arg(&next_path).arg("--json"));
    assert_eq!(alone["frames"][0]["objects"].as_array().unwrap().len(), 0);
    assert!(alone["notes"][0].as_str().unwrap().contains("not alive"));
    let chained = json_of(
        retroanim()
            .arg("play")
            .arg(&next_path)
            .arg("--after")
            .arg(&setup)
            .arg("--json"),
    );
    assert_eq!(
        chained["frames"][0]["objects"][0]["world"]["t"],
        serde_json::json!([7, 8, 9])
    );
    let model = sample_tmd(dir.path());
    let glb = dir.path().join("next.glb");
    retroanim()
        .arg("convert")
        .arg(&next_path)
        .arg(&glb)
        .arg("--tmd")
        .arg(&model)
        .arg("--after")
        .arg(&setup)
        .assert()
        .success();
    assert_eq!(&std::fs::read(&glb).unwrap()[..4], b"glTF");
}
