//! Small inputs that asked for gigabytes or minutes (issue 38, items 7 to 11 and 14): glTF files
//! whose shared data expands, a glTF embedding a PNG that declares 20000 × 20000 pixels, a
//! glTF of a million nodes, drawings whose work has no end, reports that wrote one texture
//! once per card or one model once per animation (item 8). Every input is generated here (no blobs). Each case runs in a child process
//! under an address-space limit (`ulimit -v`) and must end with the error naming its budget
//! (a `Limits` field); time bounds are benchmarks (`benches/author.rs`), not asserted here.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{json, Value};

fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_retroanim"))
}

/// Runs the CLI with `args` under an address-space limit of `mib` MiB: its exit code (`None`
/// when a signal ended it) and its standard error.
fn capped(mib: u64, args: &[&Path]) -> (Option<i32>, String) {
    let out = Command::new("sh")
        .arg("-c")
        .arg("ulimit -v \"$0\"; exec \"$@\"")
        .arg((mib * 1024).to_string())
        .arg(bin())
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn p(s: &str) -> &Path {
    Path::new(s)
}

/// A GLB: `doc` as its JSON chunk with `bin` as its one buffer (the BIN chunk).
fn gltf(mut doc: Value, bin: &[u8]) -> Vec<u8> {
    let mut bin = bin.to_vec();
    while bin.len() % 4 != 0 {
        bin.push(0);
    }
    doc["asset"] = json!({"version": "2.0"});
    doc["buffers"] = json!([{"byteLength": bin.len()}]);
    let mut text = serde_json::to_vec(&doc).unwrap();
    while text.len() % 4 != 0 {
        text.push(b' ');
    }
    let total = 12 + 8 + text.len() + 8 + bin.len();
    let mut out = b"glTF".to_vec();
    for w in [2, total as u32, text.len() as u32, 0x4E4F_534A] {
        out.extend_from_slice(&w.to_le_bytes());
    }
    out.extend_from_slice(&text);
    out.extend_from_slice(&(bin.len() as u32).to_le_bytes());
    out.extend_from_slice(&0x004E_4942u32.to_le_bytes());
    out.extend_from_slice(&bin);
    out
}

/// `n` vertices on a grid (VEC3 floats), then `n` u32 indices: two views of one buffer.
fn grid(n: u32) -> Vec<u8> {
    let mut bin = Vec::new();
    for i in 0..n {
        for v in [(i % 100) as f32, (i / 100) as f32, (i % 7) as f32] {
            bin.extend_from_slice(&(v * 0.01).to_le_bytes());
        }
    }
    for i in 0..n {
        bin.extend_from_slice(&i.to_le_bytes());
    }
    bin
}

/// One 30,000-vertex accessor (and its indices) read by `primitives` primitives.
fn reused_accessor(primitives: usize) -> Vec<u8> {
    let n = 30_000u32;
    let bin = grid(n);
    let prim = json!({"attributes": {"POSITION": 0}, "indices": 1});
    gltf(
        json!({
            "scenes": [{"nodes": [0]}],
            "nodes": [{"mesh": 0}],
            "meshes": [{"primitives": vec![prim; primitives]}],
            "bufferViews": [
                {"buffer": 0, "byteOffset": 0, "byteLength": n * 12},
                {"buffer": 0, "byteOffset": n * 12, "byteLength": n * 4},
            ],
            "accessors": [
                {"bufferView": 0, "componentType": 5126, "count": n, "type": "VEC3",
                 "min": [0.0, 0.0, 0.0], "max": [0.99, 2.99, 0.06]},
                {"bufferView": 1, "componentType": 5125, "count": n, "type": "SCALAR"},
            ],
        }),
        &bin,
    )
}

#[test]
fn an_accessor_read_by_many_primitives_is_budgeted_by_its_expanded_size() {
    let t = tempfile::tempdir().unwrap();
    let input = t.path().join("reuse.glb");
    // 480 KB of glTF; 2,000 copies of 30,000 vertices once read (about 1 GB).
    std::fs::write(&input, reused_accessor(2000)).unwrap();
    for out in ["m.tmd", "m.hmd", "a.tod", "m.png"] {
        let out = t.path().join(out);
        let cmd: &[&Path] = if out.extension().unwrap() == "png" {
            &[p("render"), &input, &out]
        } else {
            &[p("convert"), &input, &out]
        };
        // Before: a 320 MB TMD at 3.5 GB, aborts for HMD, TOD and render.
        let (code, err) = capped(1024, cmd);
        assert_eq!(code, Some(2), "{}: {err}", out.display());
        assert!(
            err.contains("max_expanded_bytes") && err.contains("limit exceeded"),
            "{}: {err}",
            out.display()
        );
        assert!(!out.exists(), "{}", out.display());
    }
    // The same accessor read by a few primitives is an ordinary model.
    std::fs::write(&input, reused_accessor(3)).unwrap();
    let out = t.path().join("few.tmd");
    let (code, err) = capped(1024, &[p("convert"), &input, &out]);
    assert_eq!(code, Some(0), "{err}");
}

/// The CRC-32 of PNG chunks (ISO 3309).
fn crc32(bytes: &[u8]) -> u32 {
    let mut c = !0u32;
    for &b in bytes {
        c ^= u32::from(b);
        for _ in 0..8 {
            c = if c & 1 != 0 {
                0xEDB8_8320 ^ (c >> 1)
            } else {
                c >> 1
            };
        }
    }
    !c
}

/// A PNG whose header declares `w` × `h` RGBA pixels, with a few bytes of (truncated) data.
fn declared_png(w: u32, h: u32) -> Vec<u8> {
    let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
    let mut chunk = |kind: &[u8; 4], data: &[u8]| {
        png.extend_from_slice(&(data.len() as u32).to_be_bytes());
        let mut body = kind.to_vec();
        body.extend_from_slice(data);
        png.extend_from_slice(&body);
        png.extend_from_slice(&crc32(&body).to_be_bytes());
    };
    let mut ihdr = Vec::new();
    ihdr.extend_from_slice(&w.to_be_bytes());
    ihdr.extend_from_slice(&h.to_be_bytes());
    ihdr.extend_from_slice(&[8, 6, 0, 0, 0]);
    chunk(b"IHDR", &ihdr);
    chunk(b"IDAT", &[0x78, 0x9C, 0x63, 0x00, 0x00]);
    chunk(b"IEND", &[]);
    png
}

#[test]
fn an_image_is_refused_from_its_header_before_it_is_decoded() {
    let t = tempfile::tempdir().unwrap();
    let png = declared_png(20_000, 20_000);
    let mut bin = grid(3);
    let image_at = bin.len();
    bin.extend_from_slice(&png);
    let doc = gltf(
        json!({
            "scenes": [{"nodes": [0]}],
            "nodes": [{"mesh": 0}],
            "meshes": [{"primitives": [{"attributes": {"POSITION": 0},
                "material": 0}]}],
            "materials": [{"pbrMetallicRoughness": {"baseColorTexture": {"index": 0}}}],
            "textures": [{"source": 0}],
            "images": [{"bufferView": 1, "mimeType": "image/png"}],
            "bufferViews": [
                {"buffer": 0, "byteOffset": 0, "byteLength": 36},
                {"buffer": 0, "byteOffset": image_at, "byteLength": png.len()},
            ],
            "accessors": [{"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3",
                "min": [0.0, 0.0, 0.0], "max": [0.02, 0.0, 0.02]}],
        }),
        &bin,
    );
    let input = t.path().join("big-texture.glb");
    std::fs::write(&input, doc).unwrap();
    // Before: decoded in full (1.6 GB of pixels, 2.35 GB peak) before being refused.
    for out in ["m.tmd", "m.png"] {
        let out = t.path().join(out);
        let verb = if out.extension().unwrap() == "png" {
            "render"
        } else {
            "convert"
        };
        let (code, err) = capped(512, &[p(verb), &input, &out]);
        assert_eq!(code, Some(2), "{err}");
        assert!(
            err.contains("20000 × 20000") && err.contains("max_image_pixels"),
            "{err}"
        );
    }
    // A PNG input: refused from its header too (it cannot be a TIM).
    let input = t.path().join("big.png");
    std::fs::write(&input, &png).unwrap();
    let (code, err) = capped(512, &[p("convert"), &input, &t.path().join("big.tim")]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("20000 × 20000"), "{err}");
}

#[test]
fn a_million_root_nodes_are_refused_before_the_scene_is_built() {
    let t = tempfile::tempdir().unwrap();
    let n = 1_000_000usize;
    let mut bin = grid(3);
    bin.truncate(36);
    let doc = gltf(
        json!({
            "scenes": [{"nodes": (0..n).collect::<Vec<_>>()}],
            "nodes": std::iter::once(json!({"mesh": 0}))
                .chain(std::iter::repeat(json!({})).take(n - 1))
                .collect::<Vec<_>>(),
            "meshes": [{"primitives": [{"attributes": {"POSITION": 0}}]}],
            "bufferViews": [{"buffer": 0, "byteLength": 36}],
            "accessors": [{"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3",
                "min": [0.0, 0.0, 0.0], "max": [0.02, 0.0, 0.02]}],
        }),
        &bin,
    );
    let input = t.path().join("roots.glb");
    std::fs::write(&input, doc).unwrap();
    // Before: 1.5 GB, SIGABRT for HMD output.
    for out in ["m.hmd", "m.tmd"] {
        let out = t.path().join(out);
        let (code, err) = capped(768, &[p("convert"), &input, &out]);
        assert_eq!(code, Some(2), "{err}");
        assert!(
            err.contains("1000000") && err.contains("max_scene_nodes"),
            "{err}"
        );
    }
}

/// `count` copies of one triangle that fills the picture, turning for `seconds` seconds (still
/// when 0).
fn overdrawn(count: usize, seconds: f32) -> Vec<u8> {
    let mut bin = Vec::new();
    for v in [-1.0f32, -1.0, 0.0, 1.0, -1.0, 0.0, 0.0, 1.0, 0.0] {
        bin.extend_from_slice(&v.to_le_bytes());
    }
    for _ in 0..count {
        for i in 0..3u16 {
            bin.extend_from_slice(&i.to_le_bytes());
        }
    }
    while bin.len() % 4 != 0 {
        bin.push(0);
    }
    let times_at = bin.len();
    for t in [0.0f32, seconds] {
        bin.extend_from_slice(&t.to_le_bytes());
    }
    for q in [[0.0f32, 0.0, 0.0, 1.0], [0.0, 0.0, 0.1, 0.995]] {
        for v in q {
            bin.extend_from_slice(&v.to_le_bytes());
        }
    }
    let mut doc = json!({
        "scenes": [{"nodes": [0]}],
        "nodes": [{"mesh": 0}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0}, "indices": 1}]}],
        "bufferViews": [
            {"buffer": 0, "byteOffset": 0, "byteLength": 36},
            {"buffer": 0, "byteOffset": 36, "byteLength": count * 6},
            {"buffer": 0, "byteOffset": times_at, "byteLength": 8},
            {"buffer": 0, "byteOffset": times_at + 8, "byteLength": 32},
        ],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3",
             "min": [-1.0, -1.0, 0.0], "max": [1.0, 1.0, 0.0]},
            {"bufferView": 1, "componentType": 5123, "count": count * 3, "type": "SCALAR"},
            {"bufferView": 2, "componentType": 5126, "count": 2, "type": "SCALAR",
             "min": [0.0], "max": [seconds]},
            {"bufferView": 3, "componentType": 5126, "count": 2, "type": "VEC4"},
        ],
        "animations": [{
            "samplers": [{"input": 2, "output": 3}],
            "channels": [{"sampler": 0, "target": {"node": 0, "path": "rotation"}}],
        }],
    });
    if seconds <= 0.0 {
        doc.as_object_mut().unwrap().remove("animations");
    }
    gltf(doc, &bin)
}

#[test]
fn drawing_work_is_bounded_before_it_is_spent() {
    let t = tempfile::tempdir().unwrap();
    let input = t.path().join("overdrawn.glb");
    // 6,000 triangles covering the picture, 100 s at 30 pictures per second: about 10^12 pixels
    // visited (before: no end in sight).
    std::fs::write(&input, overdrawn(6000, 100.0)).unwrap();
    let out = t.path().join("o.png");
    let (code, err) = capped(1024, &[p("render"), &input, &out]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("max_render_work") && err.contains("3001 pictures"),
        "{err}"
    );
    assert!(!out.exists());
    // The first second alone (--frames), small: drawn.
    let (code, err) = capped(
        1024,
        &[
            p("render"),
            &input,
            &out,
            p("--frames"),
            p("0..3"),
            p("--size"),
            p("32x32"),
        ],
    );
    assert_eq!(code, Some(0), "{err}");
    // The same as a TOD moving a TMD (the console's own pair): refused the same way.
    std::fs::write(t.path().join("short.glb"), overdrawn(6000, 40.0)).unwrap();
    let tod = t.path().join("a.tod");
    let (code, err) = capped(1024, &[p("convert"), &t.path().join("short.glb"), &tod]);
    assert_eq!(code, Some(0), "{err}");
    let tmd = t.path().join("a.tmd");
    assert!(tmd.is_file(), "{err}");
    let played = t.path().join("played.png");
    let (code, err) = capped(1024, &[p("render"), &tod, &played, p("--tmd"), &tmd]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("max_render_work"), "{err}");
    assert!(!played.exists());
    // The model itself as a TMD in a report: its still preview is over the preview budget,
    // and its card says so; the report is written.
    let dir = t.path().join("in");
    std::fs::create_dir(&dir).unwrap();
    std::fs::write(t.path().join("still.glb"), overdrawn(20_000, 0.0)).unwrap();
    let (code, err) = capped(
        1024,
        &[
            p("convert"),
            &t.path().join("still.glb"),
            &dir.join("m.tmd"),
        ],
    );
    assert_eq!(code, Some(0), "{err}");
    let report = t.path().join("report");
    let (code, err) = capped(1024, &[p("scan"), &dir, p("--report"), &report]);
    assert!(matches!(code, Some(0 | 1)), "{err}");
    let index: Value =
        serde_json::from_slice(&std::fs::read(report.join("index.json")).unwrap()).unwrap();
    let card = index["assets"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["format"] == "tmd")
        .unwrap();
    let why = card["no_preview"].as_str().unwrap_or_default();
    assert!(why.contains("max_preview_work"), "{card}");
}

#[test]
fn identical_files_of_a_report_are_written_once() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("in");
    std::fs::create_dir(&dir).unwrap();
    let tim =
        std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../samples/checker.tim"))
            .unwrap();
    for k in 0..20 {
        std::fs::write(dir.join(format!("t{k}.tim")), &tim).unwrap();
    }
    let report = t.path().join("report");
    let (code, err) = capped(1024, &[p("scan"), &dir, p("--report"), &report]);
    assert!(matches!(code, Some(0 | 1)), "{err}");
    let index: Value =
        serde_json::from_slice(&std::fs::read(report.join("index.json")).unwrap()).unwrap();
    let assets = index["assets"].as_array().unwrap();
    assert_eq!(assets.len(), 20);
    // Every card names one PNG and one file, each written once.
    for key in ["png", "file"] {
        let named: std::collections::BTreeSet<&str> =
            assets.iter().map(|a| a[key].as_str().unwrap()).collect();
        assert_eq!(named.len(), 1, "{key}: {named:?}");
        assert!(report.join(named.first().unwrap()).is_file());
    }
    for sub in ["png", "files"] {
        let n = std::fs::read_dir(report.join(sub)).unwrap().count();
        assert_eq!(n, 1, "{sub}/ holds {n} files");
    }
}

/// A GLB of two objects showing one mesh: a `side` × `side` grid of vertices, two triangles
/// per cell.
fn grid_model(side: u32) -> Vec<u8> {
    let mut bin = Vec::new();
    for y in 0..side {
        for x in 0..side {
            for v in [x as f32 / side as f32, y as f32 / side as f32, 0.0] {
                bin.extend_from_slice(&v.to_le_bytes());
            }
        }
    }
    let positions = bin.len();
    let mut triangles = 0;
    for y in 0..side - 1 {
        for x in 0..side - 1 {
            let i = y * side + x;
            for v in [i, i + 1, i + side, i + 1, i + side + 1, i + side] {
                bin.extend_from_slice(&v.to_le_bytes());
            }
            triangles += 2;
        }
    }
    let doc = json!({
        "scenes": [{"nodes": [0, 1]}],
        "nodes": [{"mesh": 0}, {"mesh": 0, "translation": [2.0, 0.0, 0.0]}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0}, "indices": 1}]}],
        "bufferViews": [
            {"buffer": 0, "byteOffset": 0, "byteLength": positions},
            {"buffer": 0, "byteOffset": positions, "byteLength": triangles * 12},
        ],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": side * side, "type": "VEC3",
             "min": [0.0, 0.0, 0.0], "max": [1.0, 1.0, 0.0]},
            {"bufferView": 1, "componentType": 5125, "count": triangles * 3, "type": "SCALAR"},
        ],
    });
    gltf(doc, &bin)
}

/// An 88-byte TOD: frame 0 creates object 1, shows TMD object `1 + k % 2` on it and sets its
/// rotation (by `k`) and translation; frame 1 moves it; frame 2 holds.
fn small_tod(k: u32) -> Vec<u8> {
    let packet = |kind: u32, flag: u32, data: &[u32]| {
        let mut v = vec![1 | kind << 16 | flag << 20 | (data.len() as u32 + 1) << 24];
        v.extend_from_slice(data);
        v
    };
    let frames: [Vec<Vec<u32>>; 3] = [
        vec![
            packet(8, 0, &[]),
            packet(2, 0, &[1 + k % 2]),
            packet(1, 2 | 8, &[4096 * k, 4096 * 3 * k, 0, 0, 0, 0]),
        ],
        vec![packet(1, 8, &[10 * k, 0, 0])],
        vec![],
    ];
    let mut words = vec![0x50 | 1 << 16, frames.len() as u32];
    for (number, packets) in frames.iter().enumerate() {
        let size = 2 + packets.iter().map(Vec::len).sum::<usize>();
        words.push(size as u32 | (packets.len() as u32) << 16);
        words.push(number as u32);
        words.extend(packets.iter().flatten());
    }
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// The files under `dir`, recursively, with their sizes.
fn files(dir: &Path) -> Vec<(PathBuf, u64)> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_dir() {
            out.extend(files(&e.path()));
        } else {
            out.push((e.path(), e.metadata().unwrap().len()));
        }
    }
    out
}

#[test]
fn a_report_writes_a_model_once_for_all_its_animations() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("in");
    std::fs::create_dir(&dir).unwrap();
    std::fs::write(t.path().join("grid.glb"), grid_model(92)).unwrap();
    let tmd = dir.join("model.tmd");
    let (code, err) = capped(1024, &[p("convert"), &t.path().join("grid.glb"), &tmd]);
    assert_eq!(code, Some(0), "{err}");
    for k in 0..20 {
        let tod = small_tod(k + 1);
        assert_eq!(tod.len(), 88);
        std::fs::write(dir.join(format!("a{k}.tod")), tod).unwrap();
    }
    let input: u64 = files(&dir).iter().map(|(_, n)| n).sum();
    let report = t.path().join("report");
    let (code, err) = capped(2048, &[p("scan"), &dir, p("--report"), &report]);
    assert!(matches!(code, Some(0 | 1)), "{err}");
    let index: Value =
        serde_json::from_slice(&std::fs::read(report.join("index.json")).unwrap()).unwrap();
    let assets = index["assets"].as_array().unwrap();
    let tods: Vec<&Value> = assets.iter().filter(|a| a["format"] == "tod").collect();
    assert_eq!(tods.len(), 20);
    let written = files(&report);
    let total: u64 = written.iter().map(|(_, n)| n).sum();
    eprintln!("input {input} bytes, report {total} bytes");
    for (path, n) in &written {
        eprintln!("  {n:>9} {}", path.strip_prefix(&report).unwrap().display());
    }
    // Every TOD plays on the model, and its glTF reads the model's part from one shared file,
    // whichever of the model's two objects it shows.
    let mut model_parts = std::collections::BTreeSet::new();
    for a in &tods {
        assert!(!a["model"].is_null(), "{a}");
        let gltf = report.join(a["glb"].as_str().unwrap());
        let doc: Value = serde_json::from_slice(&std::fs::read(&gltf).unwrap()).unwrap();
        assert!(!doc["meshes"].as_array().unwrap().is_empty(), "{doc}");
        let uri = doc["buffers"][0]["uri"].as_str().unwrap();
        model_parts.insert(gltf.parent().unwrap().join(uri));
    }
    assert_eq!(model_parts.len(), 1, "{model_parts:?}");
    khronos_clean(&report.join(tods[0]["glb"].as_str().unwrap()));
    let model_part = model_parts.first().unwrap();
    let model_size = std::fs::metadata(model_part).unwrap().len();
    assert!(
        model_size > input / 2,
        "{model_size} bytes of model for {input} in"
    );
    // The model's bytes are in the report twice at most (the TMD's own GLB, and the part its
    // animations share), whatever the number of animations: before, once per TOD (121 MB).
    let holding = written.iter().filter(|(_, n)| *n >= model_size).count();
    assert!(holding <= 2, "{holding} files as large as the model");
    assert!(
        total < 3 * model_size + input,
        "{total} bytes written for {input} in"
    );
}

/// `scan --extract --convert gltf` writes a model once for all its animations too: each TOD's
/// `.gltf` reads the model's part from one shared `.model.bin`; with `--convert glb` each GLB
/// holds its model whole (a GLB is one file), and the summary says how to share it.
#[test]
fn an_extraction_writes_a_model_once_for_all_its_animations() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("in");
    std::fs::create_dir(&dir).unwrap();
    std::fs::write(t.path().join("grid.glb"), grid_model(92)).unwrap();
    let (code, err) = capped(
        1024,
        &[
            p("convert"),
            &t.path().join("grid.glb"),
            &dir.join("model.tmd"),
        ],
    );
    assert_eq!(code, Some(0), "{err}");
    for k in 0..20 {
        std::fs::write(dir.join(format!("a{k}.tod")), small_tod(k + 1)).unwrap();
    }
    let input: u64 = files(&dir).iter().map(|(_, n)| n).sum();
    let out = t.path().join("ex");
    let (code, err) = capped(
        2048,
        &[
            p("scan"),
            &dir,
            p("--extract"),
            &out,
            p("--convert"),
            p("gltf"),
        ],
    );
    assert!(matches!(code, Some(0 | 1)), "{err}");
    let written = files(&out);
    let gltfs: Vec<&PathBuf> = written
        .iter()
        .map(|(p, _)| p)
        .filter(|p| p.to_string_lossy().ends_with(".tod.gltf"))
        .collect();
    assert_eq!(gltfs.len(), 20, "{written:?}");
    let mut model_parts = std::collections::BTreeSet::new();
    for gltf in &gltfs {
        let doc: Value = serde_json::from_slice(&std::fs::read(gltf).unwrap()).unwrap();
        assert!(!doc["meshes"].as_array().unwrap().is_empty(), "{doc}");
        assert!(!doc["animations"].as_array().unwrap().is_empty(), "{doc}");
        let uri = doc["buffers"][0]["uri"].as_str().unwrap();
        model_parts.insert(gltf.parent().unwrap().join(uri));
    }
    assert_eq!(model_parts.len(), 1, "{model_parts:?}");
    khronos_clean(gltfs[0]);
    khronos_clean(gltfs[19]);
    let model_size = std::fs::metadata(model_parts.first().unwrap())
        .unwrap()
        .len();
    let total: u64 = written.iter().map(|(_, n)| n).sum();
    assert!(
        total < 3 * model_size + 2 * input,
        "{total} bytes extracted for {input} in"
    );
    // The manifest lists the files each animation's .gltf reads.
    let manifest: Value =
        serde_json::from_slice(&std::fs::read(out.join("manifest.json")).unwrap()).unwrap();
    let entry = manifest["finds"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["format"] == "tod")
        .unwrap();
    assert!(
        entry["converted_extra"].as_array().is_some_and(|x| x
            .iter()
            .any(|f| f.as_str().unwrap().ends_with(".model.bin"))),
        "{entry}"
    );
    // As GLBs, each holds the model, and the summary says so and how to share it.
    let glbs = t.path().join("ex-glb");
    let run = Command::new(bin())
        .args([
            p("scan"),
            &dir,
            p("--extract"),
            &glbs,
            p("--convert"),
            p("glb"),
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        stdout.contains("20 animation GLBs each hold their model")
            && stdout.contains("--convert gltf writes each model once"),
        "{stdout}"
    );
}

/// Asserts that the Khronos glTF Validator (`tools/gltf-validator`) finds no error and no
/// warning in `path`, reading the files its buffers name; skipped loudly when it is not
/// installed, unless `RETROANIM_REQUIRE_CORPUS=1` (CI).
fn khronos_clean(path: &Path) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tools/gltf-validator");
    if !dir.join("node_modules/gltf-validator").is_dir() {
        assert_ne!(
            std::env::var("RETROANIM_REQUIRE_CORPUS").as_deref(),
            Ok("1"),
            "the Khronos glTF Validator is not installed (npm ci in {})",
            dir.display()
        );
        eprintln!(
            "\n*** SKIPPING Khronos glTF Validator check of {} ***\n",
            path.display()
        );
        return;
    }
    let out = Command::new("node")
        .arg(dir.join("validate.mjs"))
        .arg(path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let issues = &report["issues"];
    assert_eq!(
        (issues["numErrors"].as_u64(), issues["numWarnings"].as_u64()),
        (Some(0), Some(0)),
        "{}: {}",
        path.display(),
        issues["messages"]
    );
}
