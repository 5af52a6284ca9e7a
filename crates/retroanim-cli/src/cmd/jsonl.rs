//! The one shape of every `--json` output: JSON Lines, one object per input (per find for
//! `scan`, per frame for `play`, per replacement for `patch`), then one summary line
//! `{"summary": {...}}`. Users read it in `docs/json.md`; `docs/schema/retroanim-jsonl.schema.json`
//! is its JSON Schema, and `tests/json_shape.rs` checks every command against it.
//!
//! An item line is `{"path", "format", "ok", <the command's fields>, "findings": [...]}`, or for
//! an input the command could not process `{"path", "format", "ok": false, "error": {"kind",
//! "offset", "message"}}`. `ok` is false exactly when the line has an `error` or a finding of
//! severity `error`. The summary counts the item lines: `items`, `ok`, `invalid` (read, but with
//! error findings), `failed` (an `error`), and `findings` by severity; files a batch passed over
//! on purpose are listed in `skipped`, not as items.

use std::collections::BTreeMap;

use retroanim::{Format, Issue};
use serde_json::{json, Map, Value};

/// A validation finding as a line's `findings` entry.
pub fn finding(i: &Issue) -> Value {
    json!({
        "code": i.code,
        "severity": i.severity,
        "offset": i.offset,
        "message": i.message,
    })
}

/// A conversion note as a `findings` entry: severity `info`, no byte offset.
pub fn note(n: &retroanim::convert::Note) -> Value {
    json!({
        "code": n.code,
        "severity": "info",
        "offset": null,
        "message": n.message,
    })
}

/// An item line: `path`, `format`, `ok` (no error finding), the command's `fields`, `findings`.
pub fn item(
    path: &str,
    format: Option<Format>,
    fields: Map<String, Value>,
    findings: Vec<Value>,
) -> Value {
    let ok = !findings.iter().any(|f| f["severity"] == "error");
    let mut line = Map::new();
    line.insert("path".into(), path.into());
    line.insert("format".into(), json!(format));
    line.insert("ok".into(), ok.into());
    for (k, v) in fields {
        if !matches!(k.as_str(), "path" | "format" | "ok" | "findings" | "error") {
            line.insert(k, v);
        }
    }
    line.insert("findings".into(), findings.into());
    Value::Object(line)
}

/// The line of an input that could not be processed: `ok` false and an `error` with the kind
/// of failure, its byte offset when it has one, and the whole message.
pub fn failure(path: &str, e: &anyhow::Error) -> Value {
    let lib = e.chain().find_map(|c| c.downcast_ref::<retroanim::Error>());
    let io = e
        .chain()
        .any(|c| c.downcast_ref::<std::io::Error>().is_some());
    let kind = match lib {
        Some(l) => lib_kind(l),
        None if io => "io",
        None => "usage",
    };
    failure_line(path, lib, kind, format!("{e:#}"))
}

/// [`failure`] of a library error alone.
pub fn lib_failure(path: &str, e: &retroanim::Error) -> Value {
    failure_line(path, Some(e), lib_kind(e), e.to_string())
}

fn failure_line(path: &str, lib: Option<&retroanim::Error>, kind: &str, message: String) -> Value {
    let format = match lib {
        Some(
            retroanim::Error::Malformed { format, .. }
            | retroanim::Error::Unsupported { format, .. }
            | retroanim::Error::Unencodable { format, .. }
            | retroanim::Error::InconsistentScene { format, .. },
        ) => Some(*format),
        Some(retroanim::Error::Conversion { from, .. }) => Some(*from),
        _ => None,
    };
    let mut error = json!({
        "kind": kind,
        "offset": lib.and_then(|l| l.offset()),
        "message": message,
    });
    // An inconsistent scene lists every problem with its path, as `Scene::check` found them.
    if let Some(retroanim::Error::InconsistentScene { problems, .. }) = lib {
        error["problems"] = problems
            .iter()
            .map(|p| json!({ "path": p.path, "what": p.what }))
            .collect();
    }
    json!({
        "path": path,
        "format": format,
        "ok": false,
        "error": error,
    })
}

/// The kind of a library error, by its variant (who is to blame).
fn lib_kind(e: &retroanim::Error) -> &'static str {
    use retroanim::Error as E;
    match e {
        E::Io(_) => "io",
        E::Malformed { .. } => "malformed",
        E::Unsupported { .. } => "unsupported",
        E::LimitExceeded { .. } => "limit-exceeded",
        E::Unencodable { .. } => "unencodable",
        E::InconsistentScene { .. } => "inconsistent-scene",
        E::Container { .. } => "container",
        E::Parameter { .. } => "parameter",
        E::UnknownFormat(_) => "unknown-format",
        E::Option { .. } => "option",
        E::Conversion { .. } => "conversion",
        _ => "other",
    }
}

/// The counts of a summary line, added up line by line.
#[derive(Debug, Default, Clone)]
pub struct Tally {
    items: usize,
    ok: usize,
    invalid: usize,
    failed: usize,
    severities: BTreeMap<String, usize>,
    skipped: Vec<Value>,
}

impl Tally {
    /// Counts one item line.
    pub fn add(&mut self, line: &Value) {
        self.items += 1;
        if line.get("error").is_some() {
            self.failed += 1;
        } else if line["ok"] == true {
            self.ok += 1;
        } else {
            self.invalid += 1;
        }
        for f in line["findings"].as_array().into_iter().flatten() {
            if let Some(s) = f["severity"].as_str() {
                *self.severities.entry(s.to_string()).or_default() += 1;
            }
        }
    }

    /// Adds another tally's counts.
    pub fn merge(&mut self, other: Tally) {
        self.items += other.items;
        self.ok += other.ok;
        self.invalid += other.invalid;
        self.failed += other.failed;
        for (k, v) in other.severities {
            *self.severities.entry(k).or_default() += v;
        }
        self.skipped.extend(other.skipped);
    }

    /// Records a file passed over on purpose (no item line).
    pub fn skip(&mut self, path: &str, reason: &str) {
        self.skipped.push(json!({ "path": path, "reason": reason }));
    }

    /// The summary line: `{"summary": {"command", "items", "ok", "invalid", "failed",
    /// "findings": {"error", "warning", "info"}, "skipped": [...], <extra>}}`.
    pub fn summary(self, command: &str, extra: Map<String, Value>) -> Value {
        let count = |s: &str| self.severities.get(s).copied().unwrap_or(0);
        let mut s = Map::new();
        s.insert("command".into(), command.into());
        s.insert("items".into(), self.items.into());
        s.insert("ok".into(), self.ok.into());
        s.insert("invalid".into(), self.invalid.into());
        s.insert("failed".into(), self.failed.into());
        s.insert(
            "findings".into(),
            json!({ "error": count("error"), "warning": count("warning"), "info": count("info") }),
        );
        s.insert("skipped".into(), self.skipped.into());
        for (k, v) in extra {
            s.entry(k).or_insert(v);
        }
        json!({ "summary": s })
    }
}

/// A JSON object's fields (empty for anything else).
pub fn fields(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        _ => Map::new(),
    }
}
