//! `retroanim convert x.glb x.rtm --start S --duration D --rest origin|bind`: the phase window
//! and the rest pose of glTF → RTM from the command line, and the refusals.

mod common;

use common::{corpus, play_object, retroanim, succeed};

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

#[test]
fn rest_and_start_are_refused_where_they_cannot_apply() {
    let Some(rtm) = corpus("field_rations/anim/drink_source.rtm") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x.glb");
    for (args, says) in [
        (
            vec!["--start", "0.5"],
            "--start: does not apply to rtm → glb",
        ),
        (
            vec!["--rest", "bind"],
            "--rest: does not apply to rtm → glb",
        ),
        (vec!["--rest", "sideways"], "invalid value 'sideways'"),
    ] {
        let run = retroanim()
            .arg("convert")
            .arg(&rtm)
            .arg(&out)
            .args(&args)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
        assert!(!out.exists(), "{args:?} wrote {}", out.display());
    }
}
