//! `retroanim scan` on a disc image built from the project's own samples (the README's worked
//! example): JSON Lines contract, human output, --extract, --convert, exit codes.

use std::path::{Path, PathBuf};

use serde_json::Value;

mod common;
use common::retroanim;

fn sample(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../samples")
        .join(name)
}

const SAMPLES: [(&str, &str); 4] = [
    ("swing.tod", "tod"),
    ("link.tmd", "tmd"),
    ("checker.tim", "tim"),
    ("flag.p3d", "p3d"),
];

/// `samples.bin`: a raw Mode 2 image of an ISO (xorriso) holding the samples under /SAMPLES.
/// `None` (with a loud note) without xorriso, unless RETROANIM_REQUIRE_CORPUS=1.
fn disc(dir: &Path) -> Option<PathBuf> {
    let tree = dir.join("tree/SAMPLES");
    std::fs::create_dir_all(&tree).unwrap();
    for (name, _) in SAMPLES {
        std::fs::copy(sample(name), tree.join(name.to_uppercase())).unwrap();
    }
    let bin = dir.join("samples.bin");
    common::raw_disc(
        &dir.join("tree"),
        &dir.join("samples.iso"),
        &bin,
        &["-V", "SAMPLES"],
        "scan CLI test",
    )
    .then_some(bin)
}

#[test]
fn json_lines_name_every_sample_in_the_image() {
    let t = tempfile::tempdir().unwrap();
    let Some(bin) = disc(t.path()) else { return };
    let out = retroanim()
        .arg("scan")
        .arg(&bin)
        .arg("--json")
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let (summary, finds) = lines.split_last().unwrap();
    assert_eq!(summary["summary"]["finds"], finds.len());
    assert_eq!(finds.len(), SAMPLES.len(), "{finds:?}");
    let raw = std::fs::read(&bin).unwrap();
    for (name, format) in SAMPLES {
        let f = finds
            .iter()
            .find(|f| {
                f["container"]
                    .as_str()
                    .unwrap()
                    .ends_with(&format!(":/SAMPLES/{}", name.to_uppercase()))
            })
            .unwrap_or_else(|| panic!("{name} not found"));
        for key in [
            "path",
            "container",
            "offset",
            "image_offset",
            "format",
            "size",
            "summary",
            "status",
        ] {
            assert!(f.get(key).is_some(), "{name}: no {key}");
        }
        let bytes = std::fs::read(sample(name)).unwrap();
        assert_eq!(f["format"], format);
        assert_eq!(f["offset"], 0);
        assert_eq!(f["size"], bytes.len());
        assert_eq!(f["status"], "clean");
        // The first bytes of the sample sit at its image offset in the raw image.
        let at = f["image_offset"].as_u64().unwrap() as usize;
        assert_eq!(&raw[at..at + 16], &bytes[..16]);
    }
    // swing.tod animates link.tmd: the TMD is its first model candidate.
    let tod = finds.iter().find(|f| f["format"] == "tod").unwrap();
    let first = &tod["tmd_candidates"][0]["container"];
    assert!(first.as_str().unwrap().ends_with("LINK.TMD"), "{tod}");
}

#[test]
fn extract_gives_back_the_bytes_and_converts() {
    let t = tempfile::tempdir().unwrap();
    let Some(bin) = disc(t.path()) else { return };
    let dir = t.path().join("out");
    let out = retroanim()
        .arg("scan")
        .arg(&bin)
        .arg("--extract")
        .arg(&dir)
        .args(["--convert", "png"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0), "{text}");
    // One line per find, then the summary line, then what was not converted.
    assert!(
        text.lines()
            .nth(4)
            .unwrap()
            .starts_with("4 finds (1 p3d, 1 tim, 1 tmd, 1 tod)"),
        "{text}"
    );
    assert!(
        text.contains("not converted: 1 finds (tmd → png is not offered"),
        "{text}"
    );
    let manifest: Value =
        serde_json::from_slice(&std::fs::read(dir.join("manifest.json")).unwrap()).unwrap();
    let finds = manifest["finds"].as_array().unwrap();
    assert_eq!(finds.len(), 4);
    for (name, format) in SAMPLES {
        let e = finds.iter().find(|e| e["format"] == format).unwrap();
        let got = std::fs::read(dir.join(e["file"].as_str().unwrap())).unwrap();
        assert!(
            got == std::fs::read(sample(name)).unwrap(),
            "{name} differs"
        );
        assert_eq!(e.get("converted").is_some(), format == "tim", "{e}");
    }
    let png = finds.iter().find(|e| e["format"] == "tim").unwrap()["converted"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(std::fs::read(dir.join(png))
        .unwrap()
        .starts_with(b"\x89PNG"));
}

#[test]
fn bad_options_and_bad_inputs_exit_2() {
    retroanim()
        .args(["scan", "x", "--align", "0"])
        .assert()
        .code(2);
    retroanim()
        .args(["scan", "x", "--formats", "png"])
        .assert()
        .code(2);
    retroanim()
        .args(["scan", "x", "--convert", "png"])
        .assert()
        .code(2);
    let t = tempfile::tempdir().unwrap();
    let cue = t.path().join("a.cue");
    std::fs::write(t.path().join("a.bin"), [0u8; 2352]).unwrap();
    std::fs::write(
        &cue,
        "FILE \"a.bin\" BINARY\nTRACK 01 MODE2/2352\nINDEX 01 00:10:00\n",
    )
    .unwrap();
    let out = retroanim().arg("scan").arg(&cue).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("cue sheet: malformed at byte 40"), "{err}");
    retroanim()
        .arg("scan")
        .arg(t.path().join("missing"))
        .assert()
        .code(2);
}

/// An uncompressed PCSX-ReARMed savestate (the stream its libretro core writes) with `tmd` at
/// RAM offset 0x10000: header, version, HLE flag, thumbnail, RAM, BIOS, hardware and CPU
/// registers (792 bytes), GPU section (freeze version 1) and VRAM, the SPU section's size twice.
fn savestate(tmd: &[u8]) -> Vec<u8> {
    let mut s = b"STv4 PCSXra r24".to_vec();
    s.resize(32, 0);
    s.extend(0x8b41_0006u32.to_le_bytes());
    s.push(0);
    s.resize(s.len() + 36_864, 0);
    let ram = s.len();
    s.resize(ram + (2 << 20) + (512 << 10) + (64 << 10) + 792, 0);
    s[ram + 0x1_0000..][..tmd.len()].copy_from_slice(tmd);
    s.extend(1u32.to_le_bytes());
    s.resize(s.len() + 1028 + (1 << 20), 0);
    let spu = 0x9_0000u32;
    s.extend(spu.to_le_bytes());
    s.extend(b"PBOSP2\0\0\x05\0\0\0");
    s.extend(spu.to_le_bytes());
    s.resize(s.len() + spu as usize - 16, 0);
    s
}

#[test]
fn a_savestate_is_scanned_as_its_ram_and_refuses_vram() {
    let t = tempfile::tempdir().unwrap();
    let state = t.path().join("game.state");
    std::fs::write(
        &state,
        savestate(&std::fs::read(sample("link.tmd")).unwrap()),
    )
    .unwrap();
    let out = retroanim()
        .arg("scan")
        .arg(&state)
        .arg("--json")
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0), "{text}");
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let tmd = lines
        .iter()
        .find(|l| l["format"] == "tmd")
        .unwrap_or_else(|| panic!("{text}"));
    assert_eq!(tmd["container"], format!("{}:/RAM", state.display()));
    assert_eq!(tmd["offset"], 0x1_0000);
    assert_eq!(tmd["size"], 272);
    // The savestate's own VRAM is the texture source: --vram does not apply.
    let out = retroanim()
        .arg("scan")
        .arg(&state)
        .arg("--vram")
        .arg(sample("checker.tim"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("does not apply to a savestate"), "{err}");
    // A savestate cut short is an error naming the byte.
    let bytes = std::fs::read(&state).unwrap();
    std::fs::write(&state, &bytes[..3_000_000]).unwrap();
    let out = retroanim().arg("scan").arg(&state).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("pcsx savestate: malformed at byte 3000000"),
        "{err}"
    );
}
