//! The library's rooms import only downward: no two of its modules (the top-level ones, and
//! each format under `formats/`) reach each other through `crate::` paths, directly or round a
//! circle. Comments and unit-test modules are left out; `pub use` re-exports count.
//!
//! Every byte goes through the byte layer (`bytes.rs` and `bytes/`): no other library code converts
//! integers to or from raw bytes itself.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The room a source file belongs to: `scan`, `formats/tmd`, `lib`...
fn room(rel: &Path) -> String {
    let parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().trim_end_matches(".rs").to_string())
        .collect();
    match parts.as_slice() {
        [f, sub, ..] if f == "formats" => format!("formats/{sub}"),
        [first, ..] => first.clone(),
        [] => String::new(),
    }
}

/// The rooms `text` names with `crate::` paths.
fn named(text: &str) -> BTreeSet<String> {
    let code: String = text
        .split("#[cfg(test)]\nmod tests")
        .next()
        .unwrap_or("")
        .lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n");
    let mut out = BTreeSet::new();
    for (at, _) in code.match_indices("crate::") {
        let rest = &code[at + 7..];
        let word = |s: &str| -> String {
            s.chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect()
        };
        let first = word(rest);
        if first == "formats" {
            let sub = word(rest.get(9..).unwrap_or(""));
            if !sub.is_empty() {
                out.insert(format!("formats/{sub}"));
                continue;
            }
        }
        out.insert(first);
    }
    out
}

fn walk(dir: &Path, root: &Path, edges: &mut BTreeMap<String, BTreeSet<String>>) {
    let mut files = Vec::new();
    rust_files(dir, &mut files);
    for p in files {
        let from = room(p.strip_prefix(root).unwrap());
        let text = std::fs::read_to_string(&p).unwrap();
        let to = edges.entry(from.clone()).or_default();
        to.extend(named(&text).into_iter().filter(|t| *t != from));
    }
}

/// Every `.rs` file under `dir`.
fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

#[test]
fn no_module_of_the_library_imports_round_a_circle() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut edges = BTreeMap::new();
    walk(&root, &root, &mut edges);
    assert!(edges.len() > 15, "{} rooms", edges.len());
    // A circle exists when some room reaches itself: depth-first from each room.
    let mut circles = Vec::new();
    for start in edges.keys() {
        let mut stack: Vec<(String, Vec<String>)> = vec![(start.clone(), vec![start.clone()])];
        let mut seen = BTreeSet::new();
        while let Some((at, path)) = stack.pop() {
            for next in edges.get(&at).into_iter().flatten() {
                if next == start {
                    circles.push(format!("{} → {start}", path.join(" → ")));
                } else if seen.insert(next.clone()) {
                    let mut p = path.clone();
                    p.push(next.clone());
                    stack.push((next.clone(), p));
                }
            }
        }
    }
    assert!(
        circles.is_empty(),
        "import circles:\n{}",
        circles.join("\n")
    );
}

#[test]
fn formats_never_import_the_rooms_above_them() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut edges = BTreeMap::new();
    walk(&root, &root, &mut edges);
    let above = [
        "convert", "export", "import", "assemble", "render", "scan", "patch", "gallery", "lab",
    ];
    let wrong: Vec<String> = edges
        .iter()
        .filter(|(from, _)| from.starts_with("formats/"))
        .flat_map(|(from, to)| {
            to.iter()
                .filter(|t| above.contains(&t.as_str()))
                .map(move |t| format!("{from} → {t}"))
        })
        .collect();
    assert!(wrong.is_empty(), "{wrong:#?}");
}

/// The lines of `text` before its first `#[cfg(test)]` (library code, not unit tests) that
/// call a standard byte conversion, comments left out.
fn raw_conversions(text: &str) -> Vec<String> {
    const RAW: [&str; 4] = [
        "from_le_bytes",
        "to_le_bytes",
        "from_be_bytes",
        "to_be_bytes",
    ];
    text.lines()
        .enumerate()
        .take_while(|(_, l)| !l.trim_start().starts_with("#[cfg(test)]"))
        .filter(|(_, l)| {
            let code = l.split("//").next().unwrap_or("");
            RAW.iter().any(|r| code.contains(r))
        })
        .map(|(i, l)| format!("{}: {}", i + 1, l.trim()))
        .collect()
}

#[test]
fn every_byte_goes_through_the_byte_layer() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    assert!(files.len() > 50, "{} source files", files.len());
    let mut raw = Vec::new();
    for p in &files {
        let rel = p
            .strip_prefix(&root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        if rel == "bytes.rs" || rel.starts_with("bytes/") {
            continue;
        }
        let lines = raw_conversions(&std::fs::read_to_string(p).unwrap());
        raw.extend(lines.iter().map(|l| format!("{rel}:{l}")));
    }
    assert!(
        raw.is_empty(),
        "raw byte conversions outside bytes.rs (use crate::bytes: Reader, Writer, Le::u32_at, \
         Le::put_u32...):\n{}",
        raw.join("\n")
    );
}
