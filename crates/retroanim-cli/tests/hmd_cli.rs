//! The CLI on HMD files: info, dump (JSON and text), validate, roundtrip, convert to JSON and
//! back.

use serde_json::Value;

mod common;
use common::retroanim;

/// A one-triangle HMD built word by word from the layout (File Formats p. 2-50 ff.).
fn triangle_hmd() -> Vec<u8> {
    let mut w: Vec<u32> = vec![0x50, 0, 28, 3, 0, 34, 0, 1];
    // GsCOORDUNIT: flg, identity matrix + translation (0, -100, 0), zero workm, rot, super.
    w.extend([0, 4096, 0, 4096, 0, 4096, 0, (-100i32) as u32, 0]);
    w.extend([0; 8]);
    w.extend([0, 0, 0]);
    assert_eq!(w.len(), 28);
    // Primitive header section: one header, polygon / vertex / normal / coordinate pointers.
    w.extend([
        1,
        4,
        0x8000_0000 | 40,
        0x8000_0000 | 43,
        0x8000_0000 | 49,
        0x8000_0000 | 7,
    ]);
    // Primitive: end of chain, header at 29, one type: flat triangle, 1 packet at index 0.
    w.extend([0xFFFF_FFFF, 29, 0x8000_0001, 0x0000_0008, 0x8001_0002, 0]);
    // Packet: red, normal 0 / vertex 0, vertices 1 and 2.
    w.extend([0x2000_00FF, 0, 0x0002_0001]);
    // Three vertices and one normal.
    w.extend([0, 0, 100, 0, 0x0064_0000, 0, 0x1000_0000, 0]);
    assert_eq!(w.len(), 51);
    w.iter().flat_map(|x| x.to_le_bytes()).collect()
}

#[test]
fn info_json_reports_the_hmd_summary() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tri.hmd");
    std::fs::write(&path, triangle_hmd()).unwrap();
    let out = retroanim()
        .args(["info", "--json"])
        .arg(&path)
        .output()
        .unwrap();
    assert!(out.status.success());
    let v = common::json_lines(&out.stdout).0.remove(0);
    assert_eq!(v["format"], "hmd");
    assert_eq!(v["blocks"], 3);
    assert_eq!(v["coordinates"], 1);
    assert_eq!(v["polygons"], 1);
    assert_eq!(v["vertices"], 3);
    assert_eq!(v["images"], 0);
    assert_eq!(v["sequences"], 0);
    assert_eq!(v["primitive_types_by_category"]["0"], 1);
}

#[test]
fn validate_and_roundtrip_exit_codes() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("tri.hmd");
    std::fs::write(&good, triangle_hmd()).unwrap();
    retroanim().arg("validate").arg(&good).assert().code(0);
    retroanim().arg("roundtrip").arg(&good).assert().code(0);
    // A coordinate whose parent is not a GsCOORDUNIT: an error finding, exit 1.
    let mut bad = triangle_hmd();
    bad[27 * 4] = 5;
    let badp = dir.path().join("bad.hmd");
    std::fs::write(&badp, bad).unwrap();
    let out = retroanim()
        .args(["validate", "--json"])
        .arg(&badp)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("coordinate-parent"));
    // Truncated inside the block table: unreadable, exit 2.
    let cut = dir.path().join("cut.hmd");
    std::fs::write(&cut, &triangle_hmd()[..20]).unwrap();
    retroanim().arg("validate").arg(&cut).assert().code(2);
}

#[test]
fn dump_json_converts_back_to_the_same_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tri.hmd");
    std::fs::write(&path, triangle_hmd()).unwrap();
    let json = dir.path().join("tri.json");
    retroanim()
        .arg("convert")
        .arg(&path)
        .arg(&json)
        .assert()
        .code(0);
    let back = dir.path().join("back.hmd");
    retroanim()
        .arg("convert")
        .arg(&json)
        .arg(&back)
        .assert()
        .code(0);
    assert!(std::fs::read(&back).unwrap() == triangle_hmd());
    // An edit in the JSON shows up in the file.
    let text = std::fs::read_to_string(&json)
        .unwrap()
        .replacen("100", "123", 1);
    std::fs::write(&json, text).unwrap();
    let edited = dir.path().join("edited.hmd");
    retroanim()
        .arg("convert")
        .arg(&json)
        .arg(&edited)
        .assert()
        .code(0);
    let e = std::fs::read(&edited).unwrap();
    assert_eq!(e.len(), triangle_hmd().len());
    assert_ne!(e, triangle_hmd());
    let out = retroanim().args(["dump"]).arg(&path).output().unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("vertices"));
}

#[test]
fn play_prints_each_frame_and_rejects_bad_options() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tri.hmd");
    std::fs::write(&path, triangle_hmd()).unwrap();
    // No animation: every frame shows the file's coordinates; an explicit range is honoured.
    let v = play_json(&path, &["--frames", "2..=4", "--vertices"]);
    let frames = v["frames"].as_array().unwrap();
    assert_eq!(frames.len(), 3);
    assert_eq!(frames[0]["frame"], 2);
    assert_eq!(
        frames[0]["coordinates"][0]["world"]["t"],
        serde_json::json!([0, -100, 0])
    );
    assert_eq!(
        frames[0]["vectors"][0]["vectors"][1],
        serde_json::json!([100, 0, 0])
    );
    for bad in [
        &["--speed", "9"][..],
        &["--frames", "5..2"],
        &["--stream-id", "200"],
    ] {
        retroanim()
            .arg("play")
            .arg(&path)
            .args(bad)
            .assert()
            .code(2);
    }
}

#[test]
fn convert_hmd_to_gltf_with_axes_and_scale() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tri.hmd");
    std::fs::write(&path, triangle_hmd()).unwrap();
    let out = dir.path().join("tri.gltf");
    retroanim()
        .args(["convert", path.to_str().unwrap(), out.to_str().unwrap()])
        .assert()
        .success();
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    // Coordinate 0 at (0, −100, 0) console units: Y up and 1/4096 m per unit → (0, 100/4096, 0).
    let t = &v["nodes"][0]["translation"];
    assert!(
        (t[1].as_f64().unwrap() - 100.0 / 4096.0).abs() < 1e-6,
        "{t}"
    );
    assert_eq!(v["meshes"].as_array().unwrap().len(), 1);
    let raw = dir.path().join("raw.gltf");
    retroanim()
        .args([
            "convert",
            path.to_str().unwrap(),
            raw.to_str().unwrap(),
            "--axes",
            "raw",
            "--scale",
            "1",
        ])
        .assert()
        .success();
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&raw).unwrap()).unwrap();
    assert_eq!(v["nodes"][0]["translation"][1].as_f64().unwrap(), -100.0);
    retroanim()
        .args([
            "convert",
            path.to_str().unwrap(),
            raw.to_str().unwrap(),
            "--force",
            "--scale",
            "0",
        ])
        .assert()
        .code(2);
}

/// One coordinate at (0, −100, 0) and a pre-calculation primitive (type 0x01000000) in its
/// block that moves one shared vertex (10, 20, 30) and one normal (0, 0, 4096) into the
/// calculated sections (File Formats p. 2-54 ff., notes §5).
fn shared_vertex_hmd() -> Vec<u8> {
    let p = |x: u32| 0x8000_0000 | x;
    let mut w: Vec<u32> = vec![0x50, 0, 28, 3, 0, 35, 0, 1];
    w.extend([0, 4096, 0, 4096, 0, 4096, 0, (-100i32) as u32, 0]);
    w.extend([0; 8]);
    w.extend([0, 0, 0]);
    // Shared header: polygon, shared vertex, calculated vertex, shared normal, calculated normal.
    w.extend([1, 5, p(54), p(46), p(48), p(50), p(52)]);
    // Pre-calculation: 1 vertex 0 → 0, 1 normal 0 → 0.
    w.extend([
        0xFFFF_FFFF,
        29,
        0x8000_0001,
        0x0100_0000,
        0x8000_0007,
        1,
        0,
        0,
        1,
        0,
        0,
    ]);
    w.extend([10 | 20 << 16, 30, 0, 0, 0, 4096, 0, 0, 0]);
    assert_eq!(w.len(), 55);
    w.iter().flat_map(|x| x.to_le_bytes()).collect()
}

#[test]
fn play_vertices_prints_the_calculated_shared_vertices() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("shared.hmd");
    std::fs::write(&path, shared_vertex_hmd()).unwrap();
    let frame = frame0(&path, &["--vertices"]);
    let calc = &frame["calculated"];
    // The vertex moved by coordinate 0: (10, 20 − 100, 30); the normal only rotated.
    assert_eq!(calc[0]["kind"], "vertices");
    assert_eq!(calc[0]["vectors"][0], serde_json::json!([10, -80, 30]));
    assert_eq!(calc[0]["coordinates"][0], 0);
    assert_eq!(calc[1]["kind"], "normals");
    assert_eq!(calc[1]["vectors"][0], serde_json::json!([0, 0, 4096]));
    // Without shared polygons nothing is drawn from them, but the export still works.
    let gltf = dir.path().join("shared.gltf");
    retroanim()
        .args(["convert", path.to_str().unwrap(), gltf.to_str().unwrap()])
        .assert()
        .success();
}

#[test]
fn convert_hmd_takes_only_tims_with_tim() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tri.hmd");
    std::fs::write(&path, triangle_hmd()).unwrap();
    let out = dir.path().join("tri.glb");
    retroanim()
        .args([
            "convert",
            path.to_str().unwrap(),
            out.to_str().unwrap(),
            "--tim",
        ])
        .arg(&path)
        .assert()
        .code(2)
        .stderr(predicates::str::contains("--tim needs a TIM"));
}

/// `play FILE --json ARGS`, which must succeed.
fn play_json(file: &std::path::Path, args: &[&str]) -> Value {
    let out = retroanim()
        .arg("play")
        .arg(file)
        .arg("--json")
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    common::play_object(&out.stdout)
}

/// `play --json` of frame 0 with these extra arguments.
fn frame0(file: &std::path::Path, extra: &[&str]) -> Value {
    let args: Vec<&str> = ["--frames", "0..=0"].iter().chain(extra).copied().collect();
    play_json(file, &args)["frames"][0].clone()
}

/// Every vertex of every vertex section, as integers.
fn vertices(frame: &Value) -> Vec<[i64; 3]> {
    frame["vectors"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["kind"] == "vertices")
        .flat_map(|s| s["vectors"].as_array().unwrap().clone())
        .map(|v| [0, 1, 2].map(|k| v[k].as_i64().unwrap()))
        .collect()
}

/// The MIMe samples keep their weights at 0 in the file (the sample programs set them from the
/// pad at run time): `--mime-weights` sets them, and the vertices move by that share of the key.
#[test]
fn play_mime_weights_deform_as_the_weights_say() {
    let Some(vtx) = common::corpus("TUTO/PYRAMID/VTXMIME.HMD") else {
        return;
    };
    let rest = vertices(&frame0(&vtx, &["--vertices"]));
    let full = frame0(&vtx, &["--vertices", "--mime-weights", "1"]);
    let half = vertices(&frame0(&vtx, &["--vertices", "--mime-weights", "0.5"]));
    assert_eq!(full["mime"][0]["weights"][0], 4096, "{}", full["mime"]);
    let full = vertices(&full);
    assert_eq!(
        (rest.len(), full.len(), half.len()),
        (rest.len(), rest.len(), rest.len())
    );
    let moved = (0..rest.len()).filter(|&i| rest[i] != full[i]).count();
    assert!(moved > 0, "weight 1.0 moves no vertex");
    for i in 0..rest.len() {
        for k in 0..3 {
            let mid = (rest[i][k] + full[i][k]) as f64 / 2.0;
            assert!(
                (half[i][k] as f64 - mid).abs() <= 1.0,
                "vertex {i}: rest {:?}, full {:?}, half {:?}",
                rest[i],
                full[i],
                half[i]
            );
        }
    }

    // Joint MIMe: the weights turn the coordinates.
    let Some(axes) = common::corpus("MIME/TRIAXES.HMD") else {
        return;
    };
    let local = |f: &Value| f["coordinates"].clone();
    assert_ne!(
        local(&frame0(&axes, &[])),
        local(&frame0(&axes, &["--mime-weights", "1,1,1"]))
    );
}

#[test]
fn play_rejects_options_of_the_other_format() {
    let dir = tempfile::tempdir().unwrap();
    let hmd = dir.path().join("tri.hmd");
    std::fs::write(&hmd, triangle_hmd()).unwrap();
    let tod = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../samples/swing.tod");
    let cases: [(&std::path::Path, &[&str], &str); 6] = [
        (&hmd, &["--mime-weights", "1"], "no MIMe primitive"),
        (
            &tod,
            &["--intr-idx", "0"],
            "--intr-idx is for HMD animations",
        ),
        (&hmd, &["--mime-weights", "x"], "invalid value"),
        (&hmd, &["--frame", "3"], "--frame is for TOD animations"),
        (
            &tod,
            &["--mime-weights", "1"],
            "--mime-weights is for HMD animations",
        ),
        (
            &tod,
            &["--sequence", "1"],
            "--sequence is for HMD animations",
        ),
    ];
    for (file, args, message) in cases {
        let out = retroanim()
            .arg("play")
            .arg(file)
            .args(args)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(message), "{args:?}: {err}");
    }
}

/// `play --intr-idx` and `--aframe` run the file as a program that sets them: PYRAMID5 with
/// INTR IDX 0 (the file's own value) overwrites key frame 0 and stops swinging after the first
/// loop, where Sony's programs (0xFFFF, the default) keep it swinging; AFRAME 10 stops every
/// pointer after 10 updates.
#[test]
fn play_intr_idx_and_aframe_override_sonys_defaults() {
    let Some(path) = common::corpus("SCEI/TUTO/PYRAMID/PYRAMID5.HMD") else {
        return;
    };
    // Coordinate 1's local translation at each frame 0..=400.
    let moves = |args: &[&str]| -> Vec<Value> {
        let all: Vec<&str> = ["--frames", "0..=400"]
            .iter()
            .chain(args)
            .copied()
            .collect();
        play_json(&path, &all)["frames"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["coordinates"][1]["local"]["t"].clone())
            .collect()
    };
    let distinct = |v: &[Value]| {
        let set: std::collections::BTreeSet<String> = v.iter().map(Value::to_string).collect();
        set.len()
    };
    let default = moves(&[]);
    assert!(distinct(&default[200..]) > 1, "swings on by default");
    let intr = moves(&["--intr-idx", "0"]);
    assert_eq!(distinct(&intr[200..]), 1, "INTR IDX 0 stops the swing");
    assert!(distinct(&intr[..100]) > 1, "after swinging first");
    let aframe = moves(&["--aframe", "10"]);
    assert_eq!(distinct(&aframe[20..]), 1, "AFRAME 10 stops");
    assert_eq!(aframe[..10], default[..10], "the same first 10 updates");
}

#[test]
fn default_play_of_an_endless_sequence_says_where_it_stopped() {
    // DOMES and PYRAMID5 loop (the default range stops at 600 frames and says so); PYRAMID's
    // sequence ends by itself (no note).
    let base = "psyq/psx/data/HMD/SCEI/";
    for (file, endless) in [
        ("ANIM/DOMES/DOMES.HMD", true),
        ("TUTO/PYRAMID/PYRAMID5.HMD", true),
        ("TUTO/PYRAMID/PYRAMID.HMD", false),
    ] {
        let Some(path) = common::corpus(&format!("{base}{file}")) else {
            return;
        };
        let v = play_json(&path, &[]);
        let frames = v["frames"].as_array().unwrap().len();
        let notes = v["notes"].as_array().unwrap();
        assert_eq!(frames == 600, endless, "{file}: {frames} frames");
        assert_eq!(notes.len(), usize::from(endless), "{file}: {notes:?}");
        if endless {
            assert!(notes[0].as_str().unwrap().contains("--frames"), "{notes:?}");
            let text = retroanim().arg("play").arg(&path).output().unwrap();
            let err = String::from_utf8_lossy(&text.stderr);
            assert!(err.contains("note:") && err.contains("600 frames"), "{err}");
        }
    }
}
