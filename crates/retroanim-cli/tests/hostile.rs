//! Hostile and damaged input (issue 13): every defect class a mutation sweep found, rebuilt from
//! corpus files (or by hand), asserting the exit code, the offset in the message and that no
//! command panics or runs away with memory.

mod common;

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use common::{corpus, run_measured, Run};
use serde_json::Value;

fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_retroanim"))
}

/// Runs the CLI with `args`, optionally feeding `stdin`, within a minute.
fn run(args: &[&str], stdin: Option<&[u8]>) -> Run {
    let args: Vec<&OsStr> = args.iter().map(OsStr::new).collect();
    run_measured(&bin(), &args, stdin, Duration::from_secs(60))
}

fn code(o: &Run) -> i32 {
    o.code.unwrap_or(-1)
}

fn err(o: &Run) -> &str {
    &o.stderr
}

fn no_panic(o: &Run) {
    assert!(
        !o.stderr.contains("panicked")
            && !o.stderr.contains("RUST_BACKTRACE")
            && matches!(code(o), 0..=2),
        "exit {:?}, stderr: {}",
        o.code,
        o.stderr
    );
}

/// Peak memory of a command, in MB, under `mb`.
fn bounded(o: &Run, mb: u64, what: &str) {
    assert!(
        o.peak_kb < mb * 1024,
        "{what}: peak resident memory {} kB, more than {mb} MB",
        o.peak_kb
    );
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> String {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p.to_str().unwrap().to_string()
}

const LINK_TMD: &str = "ROTATE/AXESMIME/HEAD.TMD";

/// A JSON TMD whose first polygon lost corners by hand: `info` and `convert` must not index past
/// them, `validate` must call it an error at the primitive's offset.
#[test]
fn json_tmd_with_a_shortened_polygon_is_reported_not_a_panic() {
    let Some(tmd) = corpus(LINK_TMD) else { return };
    let dir = tempfile::tempdir().unwrap();
    let dump = run(&["dump", "--json", tmd.to_str().unwrap()], None);
    assert_eq!(code(&dump), 0, "{}", err(&dump));
    let mut v: Value = common::json_lines(&dump.stdout).0.remove(0);
    let prims = v["model"]["objects"][0]["primitives"]
        .as_array_mut()
        .unwrap();
    let (k, poly) = prims
        .iter_mut()
        .enumerate()
        .find_map(|(k, p)| p["data"].get_mut("polygon").map(|p| (k, p)))
        .expect("a polygon");
    poly["vertices"].as_array_mut().unwrap().truncate(1);
    let json = write(dir.path(), "short.json", &serde_json::to_vec(&v).unwrap());
    let glb = dir.path().join("out.glb");
    for args in [
        vec!["info", &json],
        vec!["play", &json],
        vec!["convert", &json, glb.to_str().unwrap()],
    ] {
        no_panic(&run(&args, None));
    }
    let o = run(&["validate", "--json", &json], None);
    assert_eq!(code(&o), 1, "validate must fail: {}", err(&o));
    let report: Value = common::json_lines(&o.stdout).0.remove(0);
    let issue = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["code"] == "primitive-layout")
        .expect("a primitive-layout finding");
    assert_eq!(issue["severity"], "error");
    assert!(issue["offset"].as_u64().unwrap() > 12, "{issue}");
    let msg = issue["message"].as_str().unwrap();
    assert!(
        msg.contains(&format!("primitive {k}")) && msg.contains("1 vertex indices"),
        "{msg}"
    );
}

/// The offsets of a TOD's frames (header 8 bytes; each frame: size in words, packet count,
/// frame number), from the spec's layout, not from our reader.
fn tod_frames(bytes: &[u8]) -> Vec<usize> {
    let mut at = 8;
    let mut out = Vec::new();
    while at + 8 <= bytes.len() {
        out.push(at);
        let words = u16::from_le_bytes([bytes[at], bytes[at + 1]]) as usize;
        if words == 0 {
            break;
        }
        at += words * 4;
    }
    out
}

const SPARSE_TOD: &str = "graphics/TOD/JANKEN/TOD/APPEAR.TOD";

/// A bit flip that raises the last frame's number by 2^20 (or 2^30): playback memory must not
/// follow frame numbers. `convert` keys only what changes; `play` streams, and refuses a
/// billion printed ticks with an error naming --frames.
#[test]
fn a_raised_frame_number_costs_no_memory() {
    let Some(tod) = corpus(SPARSE_TOD) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let mut bytes = std::fs::read(&tod).unwrap();
    let last = *tod_frames(&bytes).last().unwrap();
    let number = u32::from_le_bytes(bytes[last + 4..last + 8].try_into().unwrap());
    bytes[last + 6] ^= 0x10; // + 2^20
    let sparse = write(dir.path(), "sparse.tod", &bytes);
    let glb = dir.path().join("out.glb");
    let o = run(&["convert", &sparse, glb.to_str().unwrap()], None);
    assert_eq!(code(&o), 0, "{}", err(&o));
    bounded(&o, 64, "convert of a TOD with a frame 2^20 ticks later");
    let jump = number + (1 << 20);
    let window = format!("{}..{}", jump - 5, jump + 5);
    let o = run(&["play", &sparse, "--json", "--frames", &window], None);
    assert_eq!(code(&o), 0, "{}", err(&o));
    bounded(&o, 64, "play of a TOD with a frame 2^20 ticks later");
    let v: Value = common::play_object(&o.stdout);
    let frames = v["frames"].as_array().unwrap();
    assert_eq!(frames.len(), 6, "ticks {window} up to the last frame");
    assert_eq!(frames[5]["frame"], jump);

    bytes[last + 7] ^= 0x40; // + 2^30 more
    let far = write(dir.path(), "far.tod", &bytes);
    let o = run(&["play", &far], None);
    assert_eq!(code(&o), 2);
    assert!(
        err(&o).contains("--frames") && err(&o).contains("limit"),
        "{}",
        err(&o)
    );
    // 2^30 ticks are 207 days: glTF's float times cannot hold single ticks there; plain words.
    let o = run(&["convert", &far, glb.to_str().unwrap()], None);
    assert_eq!(code(&o), 2, "{}", err(&o));
    assert!(
        err(&o).contains("32-bit float") && !err(&o).contains("SceneError"),
        "{}",
        err(&o)
    );
    bounded(&o, 64, "convert of a TOD with a frame 2^30 ticks later");
}

const FLAG_HMD: &str = "HMD/SCEI/BASIC/FLAG.HMD";

#[test]
fn hmd_frame_ranges_are_limited_and_streamed() {
    let Some(hmd) = corpus(FLAG_HMD) else { return };
    let hmd = hmd.to_str().unwrap();
    let o = run(&["play", hmd, "--frames", "0..4294967295"], None);
    assert_eq!(code(&o), 2);
    assert!(
        err(&o).contains("--frames 0..4294967295") && err(&o).contains("limit"),
        "{}",
        err(&o)
    );
    bounded(&o, 64, "play --frames 0..4294967295");
    // 3001 frames with every vertex: about 14 MB of JSON, printed as it is made (building it
    // whole took over 120 MB).
    let o = run(
        &["play", hmd, "--vertices", "--json", "--frames", "0..=3000"],
        None,
    );
    assert_eq!(code(&o), 0, "{}", err(&o));
    bounded(&o, 40, "play --vertices --json --frames 0..=3000");
    let v: Value = common::play_object(&o.stdout);
    assert_eq!(v["frames"].as_array().unwrap().len(), 3001);
}

/// Devices, endless pipes and huge files fail fast with a clear message; `-` reads standard
/// input.
#[test]
fn inputs_are_read_with_a_size_limit() {
    for dev in ["/dev/zero", "/dev/urandom"] {
        if !Path::new(dev).exists() {
            continue;
        }
        let started = std::time::Instant::now();
        let o = run(&["info", dev], None);
        assert_eq!(code(&o), 2, "{dev}: {}", err(&o));
        // Random bytes begin like a TOD (0x50 and packets of any length) about one time in 256:
        // then the input is read as that format up to the size limit, which it names.
        let given_up = err(&o).contains("unknown format");
        let known = given_up || (dev == "/dev/urandom" && err(&o).contains("limit exceeded"));
        assert!(known, "{dev}: {}", err(&o));
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "{dev} took long"
        );
        if given_up {
            bounded(&o, 32, dev);
        }
    }
    // A 300 MB file (sparse: no disk space) is refused before it is read.
    let dir = tempfile::tempdir().unwrap();
    let huge = dir.path().join("huge.mdd");
    let f = std::fs::File::create(&huge).unwrap();
    f.set_len(300_000_000).unwrap();
    drop(f);
    let o = run(&["validate", huge.to_str().unwrap()], None);
    assert_eq!(code(&o), 2);
    assert!(
        err(&o).contains("too large") && err(&o).contains("limit"),
        "{}",
        err(&o)
    );
    bounded(&o, 32, "a 300 MB file");
    // Zeros through a pipe: refused after the first bytes, not read to the end.
    let zeros = vec![0u8; 8 << 20];
    let o = run(&["info", "-"], Some(&zeros));
    assert_eq!(code(&o), 2);
    assert!(err(&o).contains("standard input"), "{}", err(&o));

    // A corpus TOD through standard input reads as it does from its file.
    let Some(tod) = corpus(SPARSE_TOD) else {
        return;
    };
    let bytes = std::fs::read(&tod).unwrap();
    for cmd in ["info", "validate", "dump", "play"] {
        let from_file = run(&[cmd, tod.to_str().unwrap()], None);
        let from_stdin = run(&[cmd, "-"], Some(&bytes));
        assert_eq!(code(&from_stdin), 0, "{cmd} -: {}", err(&from_stdin));
        // Lines name the input: `-` for standard input.
        let file = String::from_utf8_lossy(&from_file.stdout).replace(tod.to_str().unwrap(), "-");
        assert_eq!(String::from_utf8_lossy(&from_stdin.stdout), file, "{cmd}");
    }
}

/// Files detection cannot place but whose header fits a format get that format's error, with
/// the offset of what is missing.
#[test]
fn damaged_files_name_their_format_and_offset() {
    let (Some(mdd), Some(tmd)) = (corpus("female_char.mdd"), corpus(LINK_TMD)) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let mdd = std::fs::read(mdd).unwrap();
    let tmd = std::fs::read(tmd).unwrap();
    for (name, bytes, format) in [
        ("cut.mdd", &mdd[..7000], "mdd"),
        ("cut2.mdd", &mdd[..mdd.len() - 5], "mdd"),
        ("cut.tmd", &tmd[..40], "tmd"),
        ("cut2.tmd", &tmd[..12], "tmd"),
    ] {
        let p = write(dir.path(), name, bytes);
        for cmd in ["info", "validate"] {
            let o = run(&[cmd, &p], None);
            assert_eq!(code(&o), 2, "{cmd} {name}");
            assert!(
                err(&o).contains(&format!("{format}: malformed at byte ")),
                "{cmd} {name}: {}",
                err(&o)
            );
        }
    }
}

/// A TIM with a CLUT and a 0×0 pixel block: `convert` to PNG says there is no image, at the
/// pixel block's W field; `validate` warns.
#[test]
fn a_palette_only_tim_converts_to_its_palette() {
    let Some(tim) = corpus("STR3D/PAT4.TIM") else {
        return;
    };
    let bytes = std::fs::read(tim).unwrap();
    let flags = u32::from_le_bytes(bytes[4..8].try_into().unwrap());
    assert!(flags & 8 != 0, "the sample has a CLUT");
    let clut_bnum = u32::from_le_bytes(bytes[8..12].try_into().unwrap()) as usize;
    let image_at = 8 + clut_bnum;
    let mut palette_only = bytes[..image_at].to_vec();
    // Pixel block: bnum 12 (just its header), DX, DY kept, W = H = 0.
    palette_only.extend(12u32.to_le_bytes());
    palette_only.extend(&bytes[image_at + 4..image_at + 8]);
    palette_only.extend([0, 0, 0, 0]);
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "palette.tim", &palette_only);
    let png = dir.path().join("out.png");
    // What validate passes converts: the PNG is the palette, one pixel per CLUT entry.
    let o = run(&["convert", &p, png.to_str().unwrap()], None);
    assert_eq!(code(&o), 0, "{}", err(&o));
    assert!(err(&o).contains("palette-only"), "{}", err(&o));
    let out = std::fs::read(&png).unwrap();
    let be = |at: usize| u32::from_be_bytes(out[at..at + 4].try_into().unwrap());
    let clut_wh = u32::from_le_bytes(bytes[16..20].try_into().unwrap());
    assert_eq!((be(16), be(20)), (clut_wh & 0xFFFF, clut_wh >> 16));
    let o = run(&["validate", &p], None);
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("[no-image]"),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
}
