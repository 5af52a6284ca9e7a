//! Helpers the CLI test files share.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::Value;

/// The `retroanim` binary built for these tests.
pub fn retroanim() -> Command {
    Command::cargo_bin("retroanim").unwrap()
}

/// Runs `cmd` (a `--json` command on one input), which must succeed (else its standard error
/// is shown), and returns its one item line.
pub fn json(cmd: &mut Command) -> Value {
    let (mut items, _) = json_lines(&succeed(cmd).stdout);
    assert_eq!(items.len(), 1, "one item line expected: {items:?}");
    items.remove(0)
}

/// `--json` output split into its item lines and its summary (the last line's `summary`).
pub fn json_lines(out: &[u8]) -> (Vec<Value>, Value) {
    let mut lines: Vec<Value> = String::from_utf8_lossy(out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let last = lines.pop().expect("a summary line");
    let summary = last
        .get("summary")
        .cloned()
        .expect("the last line is the summary");
    (lines, summary)
}

/// `play --json` output as one object: the summary's fields (`notes`, `resolution`, ...) and
/// the frame lines as `frames`.
pub fn play_object(out: &[u8]) -> Value {
    let (frames, mut summary) = json_lines(out);
    summary["frames"] = Value::Array(frames);
    summary
}

/// Runs `cmd`, which must succeed (else its standard error is shown).
pub fn succeed(cmd: &mut Command) -> std::process::Output {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// A corpus file by the end of its manifest path (`None`, loudly, without the corpus).
pub fn corpus(suffix: &str) -> Option<PathBuf> {
    let dir = match std::env::var_os("RETROANIM_CORPUS") {
        Some(p) => PathBuf::from(p),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus"),
    };
    let Ok(text) = std::fs::read_to_string(dir.join("MANIFEST.tsv")) else {
        assert!(
            std::env::var("RETROANIM_REQUIRE_CORPUS").as_deref() != Ok("1"),
            "RETROANIM_REQUIRE_CORPUS=1 but {} has no MANIFEST.tsv",
            dir.display()
        );
        eprintln!("\n*** SKIPPING: no corpus at {} ***\n", dir.display());
        return None;
    };
    let name = text
        .lines()
        .filter_map(|l| l.split('\t').next())
        .find(|n| n.ends_with(suffix))
        .unwrap_or_else(|| panic!("{suffix} is not in the corpus manifest"));
    Some(dir.join(name))
}

/// What a finished child process did.
pub struct Run {
    /// Exit code (`None` when killed by a signal or the time limit).
    pub code: Option<i32>,
    /// Standard output.
    pub stdout: Vec<u8>,
    /// Standard error, as text.
    pub stderr: String,
    /// Peak resident memory seen (VmHWM from /proc, kB; 0 where /proc is missing).
    pub peak_kb: u64,
}

/// Runs `bin args` with `stdin` fed in (or none), killing it after `limit`, and watches its peak
/// resident memory (the high-water mark only grows, so the last reading before exit is the peak
/// up to a few milliseconds of work).
pub fn run_measured(
    bin: &Path,
    args: &[&std::ffi::OsStr],
    stdin: Option<&[u8]>,
    limit: std::time::Duration,
) -> Run {
    use std::io::{Read, Seek, Write};
    use std::process::Stdio;
    let mut out = tempfile::tempfile().unwrap();
    let mut err = tempfile::tempfile().unwrap();
    let mut child = std::process::Command::new(bin)
        .args(args)
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(out.try_clone().unwrap())
        .stderr(err.try_clone().unwrap())
        .spawn()
        .unwrap();
    let feeder = stdin.map(|data| {
        let mut w = child.stdin.take().unwrap();
        let data = data.to_vec();
        // The command may stop reading early (a limit): a broken pipe is expected then.
        std::thread::spawn(move || drop(w.write_all(&data)))
    });
    let status_path = format!("/proc/{}/status", child.id());
    let start = std::time::Instant::now();
    let mut peak_kb = 0;
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break Some(s);
        }
        if let Ok(text) = std::fs::read_to_string(&status_path) {
            if let Some(kb) = text
                .lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            {
                peak_kb = peak_kb.max(kb);
            }
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(std::time::Duration::from_millis(2));
    };
    if let Some(f) = feeder {
        let _ = f.join();
    }
    let mut stdout = Vec::new();
    out.rewind().unwrap();
    out.read_to_end(&mut stdout).unwrap();
    let mut stderr = String::new();
    err.rewind().unwrap();
    let mut raw = Vec::new();
    err.read_to_end(&mut raw).unwrap();
    stderr.push_str(&String::from_utf8_lossy(&raw));
    Run {
        code: status.and_then(|s| s.code()),
        stdout,
        stderr,
        peak_kb,
    }
}
pub mod iso;
pub mod mutate;

/// [`run_measured`] under an address-space limit of `mb` MiB (`ulimit -v`), the way a user's
/// 2 GB container would hold it: an allocation past it aborts the command instead of the machine.
pub fn run_capped(
    bin: &Path,
    args: &[&std::ffi::OsStr],
    mb: u64,
    limit: std::time::Duration,
) -> Run {
    let script = format!("ulimit -v {}; exec \"$0\" \"$@\"", mb * 1024);
    let mut all: Vec<&std::ffi::OsStr> = vec!["-c".as_ref(), script.as_ref(), bin.as_os_str()];
    all.extend_from_slice(args);
    run_measured(Path::new("/bin/sh"), &all, None, limit)
}

/// Builds `iso` from the folder `tree` with xorriso (`-as mkisofs -quiet`, plus `extra`
/// arguments) and writes it as a raw Mode 2 image at `bin`; `false` (with a loud note naming
/// `what`) when xorriso is not installed, which fails instead under RETROANIM_REQUIRE_CORPUS=1.
pub fn raw_disc(tree: &Path, iso: &Path, bin: &Path, extra: &[&str], what: &str) -> bool {
    let ok = std::process::Command::new("xorriso")
        .args(["-as", "mkisofs", "-quiet"])
        .args(extra)
        .arg("-o")
        .arg(iso)
        .arg(tree)
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        assert!(
            std::env::var("RETROANIM_REQUIRE_CORPUS").as_deref() != Ok("1"),
            "xorriso is not installed (scripts/test installs it)"
        );
        eprintln!("\n*** SKIPPING {what}: xorriso is not installed ***\n");
        return false;
    }
    let mut input = std::fs::File::open(iso).unwrap();
    let mut out = std::fs::File::create(bin).unwrap();
    retroanim::scan::raw::write_mode2_image(&mut input, &mut out).unwrap();
    true
}

/// Every file below `dir` ending in `ext`, by its path below `dir`.
pub fn files(dir: &Path, ext: &str) -> std::collections::BTreeMap<String, Vec<u8>> {
    fn walk(
        root: &Path,
        dir: &Path,
        ext: &str,
        out: &mut std::collections::BTreeMap<String, Vec<u8>>,
    ) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(root, &p, ext, out);
            } else if p.to_string_lossy().ends_with(ext) {
                let rel = p.strip_prefix(root).unwrap().to_string_lossy().into_owned();
                out.insert(rel, std::fs::read(&p).unwrap());
            }
        }
    }
    let mut out = std::collections::BTreeMap::new();
    walk(dir, dir, ext, &mut out);
    out
}

/// `convert -r DIR --out-dir OUT`, which must succeed; its output.
pub fn convert_r(dir: impl AsRef<Path>, out: impl AsRef<Path>) -> std::process::Output {
    succeed(
        retroanim()
            .args(["convert", "-r"])
            .arg(dir.as_ref())
            .arg("--out-dir")
            .arg(out.as_ref()),
    )
}
