//! One file per command; `run` dispatches.

/// `println!` for command output: a closed pipe (`retroanim ... | head`) ends the output quietly
/// instead of panicking; any other write error is an error.
macro_rules! outln {
    ($($arg:tt)*) => {
        $crate::cmd::emit(&format!("{}\n", format_args!($($arg)*)))?
    };
}

mod convert;
mod dump;
mod info;
mod p3d;
mod play;
mod play_hmd;
mod roundtrip;
mod stream;
mod validate;

use std::path::Path;

use anyhow::{Context, Result};
use retroanim::Model;

use crate::cli::{Cli, Command};
use crate::Outcome;

/// Runs a parsed command line.
pub fn run(cli: Cli) -> Result<Outcome> {
    match cli.command {
        Command::Info(a) => info::run(&a),
        Command::Dump(a) => dump::run(&a),
        Command::Validate(a) => validate::run(&a),
        Command::Roundtrip(a) => roundtrip::run(&a),
        Command::Convert(a) => convert::run(&a),
        Command::Play(a) => play::run(&a),
    }
}

/// Reads and parses one input, naming the path in any error.
pub fn load(path: &Path) -> Result<(Vec<u8>, Model)> {
    let bytes = crate::io::read_input(path)?;
    let model = retroanim::read_any(&bytes).with_context(|| path.display().to_string())?;
    Ok((bytes, model))
}

/// Reads the TMD named by `--tmd`, if any.
pub fn load_tmd(path: Option<&Path>) -> Result<Option<retroanim::formats::tmd::Tmd>> {
    let Some(path) = path else { return Ok(None) };
    match load(path)? {
        (_, Model::Tmd(t)) => Ok(Some(t)),
        (_, m) => anyhow::bail!(
            "{}: a {} file; --tmd needs a TMD model",
            path.display(),
            m.format()
        ),
    }
}

/// Reads the TODs named by `--after`, in order.
pub fn load_tods(paths: &[std::path::PathBuf]) -> Result<Vec<retroanim::formats::tod::Tod>> {
    paths
        .iter()
        .map(|path| match load(path)? {
            (_, Model::Tod(t)) => Ok(t),
            (_, m) => anyhow::bail!(
                "{}: a {} file; --after needs a TOD",
                path.display(),
                m.format()
            ),
        })
        .collect()
}

/// Renders a JSON value as indented `key: value` text, for the human forms of `info` and `dump`.
pub fn render_text(v: &serde_json::Value, indent: usize, out: &mut String) {
    use serde_json::Value;
    let pad = "  ".repeat(indent);
    match v {
        Value::Object(map) => {
            for (k, v) in map {
                if is_scalar_or_short(v) {
                    out.push_str(&format!("{pad}{k}: {}\n", inline(v)));
                } else {
                    out.push_str(&format!("{pad}{k}:\n"));
                    render_text(v, indent + 1, out);
                }
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                if is_scalar_or_short(v) {
                    out.push_str(&format!("{pad}- {}\n", inline(v)));
                } else {
                    out.push_str(&format!("{pad}[{i}]\n"));
                    render_text(v, indent + 1, out);
                }
            }
        }
        v => out.push_str(&format!("{pad}{}\n", inline(v))),
    }
}

fn is_scalar_or_short(v: &serde_json::Value) -> bool {
    use serde_json::Value;
    match v {
        Value::Array(a) => a.iter().all(|x| match x {
            Value::Array(inner) => inner.iter().all(|y| !y.is_object() && !y.is_array()),
            Value::Object(_) => false,
            _ => true,
        }),
        Value::Object(m) => m.is_empty(),
        _ => true,
    }
}

fn inline(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s.clone(),
        v => v.to_string(),
    }
}

/// Writes to standard output; a closed pipe (`| head`) ends quietly.
pub(crate) fn emit(s: &str) -> Result<()> {
    use std::io::Write;
    match std::io::stdout().lock().write_all(s.as_bytes()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        r => r.context("cannot write to standard output"),
    }
}
