//! `retroanim convert x.glb x.rtm --start S --duration D --rest origin|bind`: the phase window
//! of glTF → RTM from the command line (the refusals of `--start` and `--rest` on RTM → glTF:
//! `rtm_skin_cli.rs`); RTMs in a PBO converted the same by scan, convert -r and the report.

mod common;

use common::{convert_r, corpus, files, play_object, retroanim, succeed};
use serde_json::Value;

#[test]
fn start_and_duration_cut_a_window_of_the_animation() {
    let Some(rtm) = corpus("field_rations/anim/drink_source.rtm") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let glb = dir.path().join("x.glb");
    succeed(retroanim().arg("convert").arg(&rtm).arg(&glb));
    let back = dir.path().join("window.rtm");
    let run = succeed(retroanim().arg("convert").arg(&glb).arg(&back).args([
        "--start",
        "0.25",
        "--duration",
        "0.5",
        "--rest",
        "origin",
    ]));
    let err = String::from_utf8_lossy(&run.stderr);
    assert!(err.contains("key times outside 0.25 ..= 0.75 s"), "{err}");
    let whole = play_object(&succeed(retroanim().args(["play", "--json"]).arg(&rtm)).stdout);
    let cut = play_object(&succeed(retroanim().args(["play", "--json"]).arg(&back)).stdout);
    // The source's frames from phase 0.25 to 0.75 (the export's 1 s duration), each at its
    // phase within the window, with the same matrices.
    let inside: Vec<&serde_json::Value> = whole["frames"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| (0.25..=0.75).contains(&f["phase"].as_f64().unwrap()))
        .collect();
    let cut = cut["frames"].as_array().unwrap();
    assert_eq!(cut.len(), inside.len(), "{}", cut.len());
    for (c, w) in cut.iter().zip(inside) {
        let want = (w["phase"].as_f64().unwrap() - 0.25) / 0.5;
        assert!((c["phase"].as_f64().unwrap() - want).abs() < 1e-6);
        for (a, b) in c["bones"]
            .as_array()
            .unwrap()
            .iter()
            .zip(w["bones"].as_array().unwrap())
        {
            assert_eq!(a["name"], b["name"]);
            for (x, y) in a["matrix"]
                .as_array()
                .unwrap()
                .iter()
                .zip(b["matrix"].as_array().unwrap())
            {
                assert!((x.as_f64().unwrap() - y.as_f64().unwrap()).abs() < 1e-5);
            }
        }
    }
}

/// An Arma mod's animations in a PBO: `scan --extract --convert glb`, `convert -r` of the
/// extracted files and the report give each RTM the same skeleton GLB, and the report's card
/// says why it has no picture (bones alone, nothing to draw) instead of leaving it blank.
#[test]
fn rtms_in_a_pbo_give_the_same_glb_by_every_road() {
    let Some(prone) = corpus("addons/field_rations/anim/drink_prone.rtm") else {
        return;
    };
    let Some(crouch) = corpus("addons/field_rations/anim/drink_crouch.rtm") else {
        return;
    };
    let t = tempfile::tempdir().unwrap();
    let archive = retroanim::scan::pbo::write(
        &[("prefix", "z\\acex\\addons\\field_rations")],
        &[
            ("anim\\drink_prone.rtm", &std::fs::read(&prone).unwrap()),
            ("anim\\drink_crouch.rtm", &std::fs::read(&crouch).unwrap()),
        ],
        None,
    );
    let pbo = t.path().join("field_rations.pbo");
    std::fs::write(&pbo, archive).unwrap();
    let (ex, rep, cv) = (
        t.path().join("ex"),
        t.path().join("rep"),
        t.path().join("cv"),
    );
    succeed(
        retroanim()
            .arg("scan")
            .arg(&pbo)
            .arg("--extract")
            .arg(&ex)
            .args(["--convert", "glb", "--report"])
            .arg(&rep),
    );
    let out = convert_r(&ex, &cv);
    let extracted = files(&ex, ".glb");
    let converted = files(&cv, ".glb");
    assert_eq!(extracted.len(), 2, "{:?}", extracted.keys());
    for (name, bytes) in &extracted {
        let stem = name.strip_suffix(".glb").unwrap();
        let stem = &stem[..stem.rfind('.').unwrap()];
        let other = converted.get(&format!("{stem}.glb")).unwrap_or_else(|| {
            panic!(
                "{name}: no GLB from convert -r: {}",
                String::from_utf8_lossy(&out.stderr)
            )
        });
        assert!(bytes == other, "{name}: the GLBs differ");
        // One joint per bone of the file, and one animation.
        let v: Value = serde_json::from_slice(&glb_json(bytes)).unwrap();
        assert_eq!(v["animations"].as_array().map(Vec::len), Some(1), "{name}");
        // Named after the entry on every road (not after the extracted file's `@0.rtm`).
        let entry = if name.contains("drink_prone") {
            "drink_prone"
        } else {
            "drink_crouch"
        };
        assert_eq!(v["scenes"][0]["name"], entry, "{name}");
        assert_eq!(v["animations"][0]["name"], entry, "{name}");
    }
    let index: Value =
        serde_json::from_slice(&std::fs::read(rep.join("index.json")).unwrap()).unwrap();
    let rtms: Vec<&Value> = index["assets"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|a| a["format"] == "rtm")
        .collect();
    assert_eq!(rtms.len(), 2);
    for a in rtms {
        let glb =
            std::fs::read(rep.join(a["glb"].as_str().expect("an RTM card has its GLB"))).unwrap();
        assert!(
            extracted.values().any(|e| *e == glb),
            "{a}: not the extracted GLB"
        );
        let why = a["no_preview"].as_str().unwrap_or("");
        assert!(why.contains("bones alone"), "{a}");
    }
}

/// The JSON chunk of a GLB.
fn glb_json(glb: &[u8]) -> Vec<u8> {
    let len = u32::from_le_bytes(glb[12..16].try_into().unwrap()) as usize;
    glb[20..20 + len].to_vec()
}
