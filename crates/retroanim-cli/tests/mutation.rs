//! A deterministic mutation sweep (issue 13): corpus files truncated, bit-flipped and overwritten
//! with hostile words, run through every command. Every run must exit 0, 1 or 2, print no panic,
//! stay under 200 MB of resident memory, and every exit-2 message must name a byte offset
//! unless it is a usage, I/O or unknown-format error.
//!
//! By default a fixed-seed sample (a few files of every kind, a few mutations each) keeps CI to
//! a minute or two; `RETROANIM_MUTATION_FULL=1` takes every corpus file and more mutations.

mod common;

use std::ffi::OsStr;
use std::path::PathBuf;
use std::time::Duration;

use common::mutate::{corpus_files, mutate, Rng};
use common::{run_measured, Run};

/// Resident memory no run may reach for corpus-sized inputs.
const PEAK_LIMIT_KB: u64 = 200 * 1024;

/// Whether an exit-2 message may lack a byte offset: the caller's own mistakes, I/O, input
/// that is no format at all, and requests that do not apply to what the input turned out to be.
fn needs_no_offset(msg: &str) -> bool {
    [
        "unknown format",
        "cannot read",
        "cannot write",
        "cannot create",
        "refusing",
        "--",
        "cannot convert",
        "a JSON dump is an editing format",
        "play needs",
        "needs a",
    ]
    .iter()
    .any(|s| msg.contains(s))
}

fn has_offset(msg: &str) -> bool {
    msg.split("byte ")
        .skip(1)
        .any(|rest| rest.starts_with(|c: char| c.is_ascii_digit()))
}

/// The manifest kinds the CLI reads, and what `convert` is asked to make of each.
const KINDS: [(&str, &str, &[&str]); 7] = [
    ("TOD", "tod", &["gltf", "json", "tod"]),
    ("HMD", "hmd", &["glb", "json", "hmd"]),
    ("TMD", "tmd", &["glb", "json", "tmd"]),
    ("TIM", "tim", &["png", "json", "tim"]),
    ("mdd", "mdd", &["pc2", "json", "mdd"]),
    ("p3d-mlod", "p3d", &["glb", "json", "p3d"]),
    ("p3d-odol", "p3d", &["glb", "json", "p3d"]),
];

#[derive(Default)]
struct Tally {
    runs: usize,
    by_code: [usize; 3],
    peak_kb: u64,
    peak_what: String,
    failures: Vec<String>,
}

fn check(t: &mut Tally, what: String, o: &Run) {
    t.runs += 1;
    if o.peak_kb > t.peak_kb {
        t.peak_kb = o.peak_kb;
        t.peak_what = what.clone();
    }
    let msg = o.stderr.trim();
    let problem = match o.code {
        Some(c @ 0..=2) => {
            t.by_code[c as usize] += 1;
            if msg.contains("panicked") || msg.contains("RUST_BACKTRACE") {
                Some("panic text".to_string())
            } else if o.peak_kb > PEAK_LIMIT_KB {
                Some(format!("peak memory {} kB", o.peak_kb))
            } else if c == 2 && !has_offset(msg) && !needs_no_offset(msg) {
                Some("exit 2 without a byte offset".to_string())
            } else {
                None
            }
        }
        other => Some(format!("exit {other:?} (killed, crashed or over a minute)")),
    };
    if let Some(p) = problem {
        let first: String = msg.lines().next().unwrap_or("").chars().take(300).collect();
        t.failures.push(format!("{what}: {p}: {first}"));
    }
}

#[test]
fn mutated_corpus_files_never_crash_blow_up_or_go_unplaced() {
    let full = std::env::var("RETROANIM_MUTATION_FULL").as_deref() == Ok("1");
    let (files_per_kind, mutations) = if full { (usize::MAX, 12) } else { (4, 9) };
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_retroanim"));
    let dir = tempfile::tempdir().unwrap();
    let mut rng = Rng(0x5EED_1313);
    let mut jobs = Vec::new();
    for (kind, ext, targets) in KINDS {
        let Some(files) = corpus_files(kind) else {
            return;
        };
        // A fixed sample spread over the list (the smallest files would all be alike).
        let step = (files.len() / files_per_kind.min(files.len()).max(1)).max(1);
        for f in files.iter().step_by(step).take(files_per_kind) {
            let data = std::fs::read(f).unwrap();
            for k in 0..mutations {
                let (how, bytes) = mutate(&data, &mut rng, k);
                let name = format!("m{}.{ext}", jobs.len());
                let path = dir.path().join(&name);
                std::fs::write(&path, &bytes).unwrap();
                jobs.push((format!("{} ({how})", f.display()), path, targets));
            }
        }
    }
    let jobs = std::sync::Mutex::new(jobs.into_iter());
    let tally = std::sync::Mutex::new(Tally::default());
    std::thread::scope(|s| {
        for worker in 0..2 {
            let (jobs, tally, bin, dir) = (&jobs, &tally, &bin, dir.path());
            s.spawn(move || loop {
                let Some((what, path, targets)) = jobs.lock().unwrap().next() else {
                    break;
                };
                let p = path.as_os_str();
                let mut commands: Vec<Vec<&OsStr>> = vec![
                    vec!["info".as_ref(), p],
                    vec!["validate".as_ref(), p],
                    vec!["roundtrip".as_ref(), p],
                    vec!["dump".as_ref(), "--json".as_ref(), p],
                    vec!["play".as_ref(), p, "--frames".as_ref(), "0..60".as_ref()],
                ];
                let outs: Vec<PathBuf> = targets
                    .iter()
                    .map(|t| dir.join(format!("out{worker}.{t}")))
                    .collect();
                for (t, out) in targets.iter().zip(&outs) {
                    commands.push(vec![
                        "convert".as_ref(),
                        p,
                        out.as_os_str(),
                        "--to".as_ref(),
                        OsStr::new(t),
                    ]);
                }
                for args in commands {
                    let o = run_measured(bin, &args, None, Duration::from_secs(60));
                    let shown: Vec<String> = args
                        .iter()
                        .skip(1)
                        .map(|a| a.to_string_lossy().into_owned())
                        .collect();
                    let label = format!("{} {what}", args[0].to_string_lossy());
                    let _ = shown;
                    check(&mut tally.lock().unwrap(), label, &o);
                }
                for out in &outs {
                    let _ = std::fs::remove_file(out);
                }
            });
        }
    });
    let t = tally.into_inner().unwrap();
    eprintln!(
        "mutation sweep{}: {} runs (exit 0: {}, 1: {}, 2: {}); peak resident memory {} kB ({})",
        if full { " (full)" } else { "" },
        t.runs,
        t.by_code[0],
        t.by_code[1],
        t.by_code[2],
        t.peak_kb,
        t.peak_what
    );
    assert!(
        t.failures.is_empty(),
        "{} of {} runs broke a promise:\n{}",
        t.failures.len(),
        t.runs,
        t.failures.join("\n")
    );
}
