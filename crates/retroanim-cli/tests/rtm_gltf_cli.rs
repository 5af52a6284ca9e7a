//! `retroanim convert x.glb x.rtm --start S --duration D --rest origin|bind`: the phase window
//! of glTF → RTM from the command line (the refusals of `--start` and `--rest` on RTM → glTF:
//! `rtm_skin_cli.rs`).

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
