//! Hostile and damaged input (issue 13): every defect class a mutation sweep found, rebuilt from
//! corpus files (or by hand), asserting the exit code, the offset in the message and that no
//! command panics or runs away with memory.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use common::corpus;
use serde_json::Value;

fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_retroanim"))
}

/// Runs the CLI with `args`, optionally feeding `stdin`; returns the output.
fn run(args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut cmd = Command::new(bin());
    cmd.args(args)
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    if let Some(data) = stdin {
        use std::io::Write;
        let mut w = child.stdin.take().unwrap();
        // The command may stop reading early (a limit): a broken pipe is expected then.
        let _ = w.write_all(data);
    }
    child.wait_with_output().unwrap()
}

fn code(o: &Output) -> i32 {
    o.status.code().unwrap_or(-1)
}

fn err(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn no_panic(o: &Output) {
    let e = err(o);
    assert!(
        !e.contains("panicked") && !e.contains("RUST_BACKTRACE") && matches!(code(o), 0..=2),
        "exit {:?}, stderr: {e}",
        o.status
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
    let mut v: Value = serde_json::from_slice(&dump.stdout).unwrap();
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
    let report: Value = serde_json::from_slice(&o.stdout).unwrap();
    let issue = report[0]["issues"]
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
