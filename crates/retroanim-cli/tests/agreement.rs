//! `validate` is the truth (issues 26 and 27): for every input, if `validate` finds no error
//! then every conversion the library offers for its format ([`convert::targets`], and the
//! rewrite to the format itself) succeeds or fails only for a reason of the request (an
//! option, a parameter the input does not have, a limit); and if a conversion rejects the
//! content, `validate` has an error with the same message. Playback (TOD, HMD) runs too: it
//! has no content rejections and must not panic.
//!
//! Inputs: every corpus file of the kinds retroanim reads, deterministic mutations of them
//! (truncations, bit flips, hostile words: the generators of `mutation.rs`), PC2 files made
//! from the corpus MDDs, JSON dumps with arrays removed, emptied, shortened or duplicated, and
//! the kept fuzz regression inputs (`fuzz/regressions/`). Runs through the library, not the
//! CLI (the CLI's `validate` and `convert` call the same functions).
//!
//! By default a fixed sample keeps the test under a minute; `RETROANIM_AGREEMENT_FULL=1`
//! takes every corpus file with more mutations each.

mod common;

use std::path::Path;
use std::sync::Mutex;

use common::mutate::{corpus_files, mutate, Rng};
use retroanim::convert::{self, Options};
use retroanim::{Error, Format, Model, Severity};

/// The manifest kinds retroanim reads as models.
const KINDS: [&str; 7] = ["TOD", "HMD", "TMD", "TIM", "mdd", "p3d-mlod", "p3d-odol"];

/// Whether an error is the request's fault rather than the content's.
fn request_error(e: &Error) -> bool {
    matches!(
        e,
        Error::Option { .. } | Error::Parameter { .. } | Error::LimitExceeded { .. }
    )
}

/// What went wrong with one input, if anything.
fn check(data: &[u8]) -> Vec<String> {
    let model = match retroanim::read_any(data) {
        // `validate` reports the read error itself, and every command stops at the same read.
        Err(_) => return Vec::new(),
        Ok(m) => m,
    };
    let issues = model.validate();
    let errors: Vec<&str> = issues
        .iter()
        .filter(|i| i.severity == Severity::Error)
        .map(|i| i.message.as_str())
        .collect();
    let from = model.format();
    let mut problems = Vec::new();
    let targets = convert::targets(from)
        .iter()
        .copied()
        .chain(std::iter::once(from));
    let conversions = targets.map(|target| {
        let r = convert::convert(&model, target, &Options::default()).err();
        (format!("convert to {target}"), r)
    });
    let played = std::iter::once(("play".to_string(), play(&model)));
    for (command, e) in conversions.chain(played) {
        let e = match e {
            None => continue,
            Some(e) if request_error(&e) => continue,
            Some(e) => e,
        };
        let said = e.to_string();
        if errors.is_empty() {
            problems.push(format!(
                "{from}, {command}: validate finds no error, the command says {said:?}"
            ));
        } else if !errors.iter().any(|m| said.contains(m)) {
            problems.push(format!(
                "{from}, {command}: the command says {said:?}, validate's errors are {errors:?}"
            ));
        }
    }
    problems
}

/// Playback of a TOD or HMD for a few updates, as `play` runs it: `Some(error)` when it
/// refuses the content.
fn play(model: &Model) -> Option<Error> {
    match model {
        Model::Tod(t) => {
            let mut p = retroanim::formats::tod::Player::new(t, None);
            for _ in 0..60 {
                let _ = p.pose();
                if !p.advance() {
                    break;
                }
            }
            None
        }
        Model::Hmd(h) => {
            let o = retroanim::formats::hmd::PlayOptions::default();
            let mut p = match retroanim::formats::hmd::Player::start(h, &o) {
                Ok(p) => p,
                Err(e) => return Some(e),
            };
            for _ in 0..60 {
                if let Err(e) = p.step() {
                    return Some(e);
                }
            }
            None
        }
        _ => None,
    }
}

/// JSON dump mutation `k`: one array (picked by `rng`) removed, emptied, shortened or given
/// a duplicate of its first element.
fn mutate_json(json: &serde_json::Value, rng: &mut Rng, k: usize) -> Option<(String, Vec<u8>)> {
    use serde_json::Value;
    fn arrays(v: &Value, path: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
        match v {
            Value::Array(a) => {
                out.push(path.clone());
                // Arrays of numbers are leaves; arrays of objects or arrays go on.
                for (i, x) in a.iter().enumerate().take(4) {
                    path.push(i.to_string());
                    arrays(x, path, out);
                    path.pop();
                }
            }
            Value::Object(o) => {
                for (key, x) in o {
                    path.push(key.clone());
                    arrays(x, path, out);
                    path.pop();
                }
            }
            _ => {}
        }
    }
    let mut found = Vec::new();
    arrays(json, &mut Vec::new(), &mut found);
    if found.is_empty() {
        return None;
    }
    let path = &found[rng.below(found.len())];
    let mut v = json.clone();
    let (last, parent) = path.split_last()?;
    let mut at = &mut v;
    for p in parent {
        at = match at {
            Value::Array(a) => a.get_mut(p.parse::<usize>().ok()?)?,
            Value::Object(o) => o.get_mut(p)?,
            _ => return None,
        };
    }
    let how = match (k % 4, at) {
        (0, Value::Object(o)) => {
            o.remove(last);
            "removed"
        }
        (_, parent) => {
            let target = match parent {
                Value::Array(a) => a.get_mut(last.parse::<usize>().ok()?)?,
                Value::Object(o) => o.get_mut(last)?,
                _ => return None,
            };
            let Value::Array(a) = target else { return None };
            match k % 4 {
                1 => {
                    a.clear();
                    "emptied"
                }
                2 => {
                    a.pop();
                    "shortened"
                }
                _ => {
                    let first = a.first()?.clone();
                    a.push(first);
                    "given a duplicate element"
                }
            }
        }
    };
    let bytes = serde_json::to_vec(&v).ok()?;
    Some((format!("JSON array {} {how}", path.join("/")), bytes))
}

#[test]
fn validate_errors_are_exactly_what_commands_reject() {
    let full = std::env::var("RETROANIM_AGREEMENT_FULL").as_deref() == Ok("1");
    let (files_per_kind, mutations, json_per_kind) = if full {
        (usize::MAX, 24, 12)
    } else {
        (6, 10, 4)
    };
    let mut rng = Rng(0xA9EE_2026);
    // (what, bytes)
    let mut inputs: Vec<(String, Vec<u8>)> = Vec::new();
    for kind in KINDS {
        let Some(files) = corpus_files(kind) else {
            return;
        };
        let step = (files.len() / files_per_kind.min(files.len()).max(1)).max(1);
        for (i, f) in files.iter().enumerate() {
            let data = std::fs::read(f).unwrap();
            let name = f.display().to_string();
            // Every corpus file unmutated; a spread sample of them mutated.
            let sampled = i % step == 0 && i / step < files_per_kind;
            if sampled {
                for k in 0..mutations {
                    let (how, bytes) = mutate(&data, &mut rng, k);
                    inputs.push((format!("{name} ({how})"), bytes));
                }
                if let Ok(model) = retroanim::read_any(&data) {
                    if kind == "mdd" {
                        if let Ok(c) = convert::convert(&model, Format::Pc2, &Options::default()) {
                            for k in 0..mutations {
                                let (how, bytes) = mutate(&c.bytes, &mut rng, k);
                                inputs.push((format!("{name} as PC2 ({how})"), bytes));
                            }
                            inputs.push((format!("{name} as PC2"), c.bytes));
                        }
                    }
                    if data.len() < 256 * 1024 {
                        let json: serde_json::Value =
                            serde_json::from_str(&model.to_json().unwrap()).unwrap();
                        for k in 0..json_per_kind {
                            if let Some((how, bytes)) = mutate_json(&json, &mut rng, k) {
                                inputs.push((format!("{name} ({how})"), bytes));
                            }
                        }
                    }
                }
            }
            inputs.push((name, data));
        }
    }
    let fuzz = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/regressions");
    for target in std::fs::read_dir(&fuzz).into_iter().flatten().flatten() {
        for input in std::fs::read_dir(target.path())
            .into_iter()
            .flatten()
            .flatten()
        {
            let path = input.path();
            inputs.push((path.display().to_string(), std::fs::read(&path).unwrap()));
        }
    }
    let total = inputs.len();
    let jobs = Mutex::new(inputs.into_iter());
    let failures = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let Some((what, data)) = jobs.lock().unwrap().next() else {
                    break;
                };
                match std::panic::catch_unwind(|| check(&data)) {
                    Ok(problems) => {
                        for p in problems {
                            failures.lock().unwrap().push(format!("{what}: {p}"));
                        }
                    }
                    Err(_) => failures.lock().unwrap().push(format!("{what}: panicked")),
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    eprintln!(
        "agreement{}: {total} inputs, {} disagreements",
        if full { " (full)" } else { "" },
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} disagreements:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The corpus P3D whose first LOD has points but no faces converts to glTF.
#[test]
fn a_lod_without_faces_converts_to_gltf() {
    let Some(path) = common::corpus("agm_fastroping_helper.p3d") else {
        return;
    };
    let data = std::fs::read(path).unwrap();
    let model = retroanim::read_any(&data).unwrap();
    assert!(!retroanim::report::has_errors(&model.validate()));
    for target in [Format::Glb, Format::Gltf] {
        let c = convert::convert(&model, target, &Options::default()).unwrap();
        assert!(!c.bytes.is_empty());
        assert!(
            c.notes.iter().any(|n| n.code == "no-faces"),
            "{:?}",
            c.notes
        );
    }
}
