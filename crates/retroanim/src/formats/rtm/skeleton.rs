//! Bone hierarchies from a `model.cfg`: the `skeletonBones[]` lists of `class CfgSkeletons`,
//! parsed from the config text (pairs of bone name and parent name, `""` for a root), with
//! `skeletonInherit` resolved (the inherited skeleton's bones come first).
//!
//! The parser knows the config syntax the lists need: `class Name [: Base] { ... };`,
//! `class Name;`, `name = value;`, `name[] = { ... };` (also `+=`), `"strings"` with `""` for a
//! quote, `//` and `/* */` comments; preprocessor lines (`#include`, `#define`) are skipped, not
//! expanded.

use crate::{Error, Result};

/// One skeleton of `CfgSkeletons`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Skeleton {
    /// The class name.
    pub name: String,
    /// `(bone, parent)` pairs, parent `""` for a root; inherited bones first.
    pub bones: Vec<(String, String)>,
}

impl Skeleton {
    /// The parent of `bone` (ignoring ASCII case): `Some("")` for a root, `None` when the
    /// skeleton has no such bone.
    pub fn parent_of(&self, bone: &str) -> Option<&str> {
        self.bones
            .iter()
            .find(|(b, _)| b.eq_ignore_ascii_case(bone))
            .map(|(_, p)| p.as_str())
    }

    /// How many of `bones` this skeleton names.
    pub fn covers(&self, bones: &[&str]) -> usize {
        bones.iter().filter(|b| self.parent_of(b).is_some()).count()
    }
}

/// Every skeleton of the `CfgSkeletons` class of a `model.cfg`'s text.
pub fn parse_model_cfg(text: &str) -> Result<Vec<Skeleton>> {
    let tokens = tokenize(text)?;
    let mut p = Parser {
        t: &tokens,
        i: 0,
        out: Vec::new(),
    };
    p.members(&mut Vec::new(), None)?;
    let raw = p.out;
    // Resolve inheritance (bounded by the number of skeletons, so a cycle ends).
    let mut done = Vec::with_capacity(raw.len());
    for s in &raw {
        let mut chain = vec![s];
        let mut base = s.inherit.clone();
        while !base.is_empty() && chain.len() <= raw.len() {
            match raw.iter().find(|r| r.name.eq_ignore_ascii_case(&base)) {
                Some(r) => {
                    chain.push(r);
                    base = r.inherit.clone();
                }
                None => break,
            }
        }
        let mut bones = Vec::new();
        for r in chain.iter().rev() {
            bones.extend(r.bones.iter().cloned());
        }
        done.push(Skeleton {
            name: s.name.clone(),
            bones,
        });
    }
    Ok(done)
}

/// The skeleton of `skeletons` that names most of `bones` (the first on a tie), if any names one.
pub fn best<'a>(skeletons: &'a [Skeleton], bones: &[&str]) -> Option<&'a Skeleton> {
    let mut best: Option<(&Skeleton, usize)> = None;
    for s in skeletons {
        let n = s.covers(bones);
        if n > 0 && best.map_or(true, |(_, m)| n > m) {
            best = Some((s, n));
        }
    }
    best.map(|(s, _)| s)
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Word(String),
    Str(String),
    Punct(char),
}

fn syntax(at: usize, what: String) -> Error {
    Error::Option {
        option: "skeleton",
        what: format!("model.cfg byte {at}: {what}"),
    }
}

fn tokenize(text: &str) -> Result<Vec<(usize, Tok)>> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let mut line_start = true;
    while i < b.len() {
        let c = b[i];
        if c == b'\n' {
            line_start = true;
            i += 1;
            continue;
        }
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if line_start && c == b'#' {
            // A preprocessor line, continued by a trailing backslash.
            while i < b.len() && !(b[i] == b'\n' && b[i - 1] != b'\\') {
                i += 1;
            }
            continue;
        }
        line_start = false;
        if b[i..].starts_with(b"//") {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if b[i..].starts_with(b"/*") {
            match text[i + 2..].find("*/") {
                Some(n) => i += n + 4,
                None => return Err(syntax(i, "a /* comment is not closed".into())),
            }
        } else if c == b'"' {
            let start = i;
            let mut s = Vec::new();
            i += 1;
            loop {
                match b.get(i) {
                    None => return Err(syntax(start, "a string is not closed".into())),
                    Some(b'"') if b.get(i + 1) == Some(&b'"') => {
                        s.push(b'"');
                        i += 2;
                    }
                    Some(b'"') => {
                        i += 1;
                        break;
                    }
                    Some(&ch) => {
                        s.push(ch);
                        i += 1;
                    }
                }
            }
            out.push((start, Tok::Str(String::from_utf8_lossy(&s).into_owned())));
        } else if c.is_ascii_alphanumeric() || c == b'_' || c == b'.' || c == b'-' {
            let start = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b"_.-".contains(&b[i])) {
                i += 1;
            }
            out.push((start, Tok::Word(text[start..i].to_string())));
        } else {
            out.push((i, Tok::Punct(c as char)));
            i += text[i..].chars().next().map_or(1, char::len_utf8);
        }
    }
    Ok(out)
}

struct Raw {
    name: String,
    inherit: String,
    bones: Vec<(String, String)>,
}

struct Parser<'a> {
    t: &'a [(usize, Tok)],
    i: usize,
    out: Vec<Raw>,
}

impl Parser<'_> {
    fn at(&self) -> usize {
        self.t.get(self.i).map_or(usize::MAX, |t| t.0)
    }

    fn peek(&self) -> Option<&Tok> {
        self.t.get(self.i).map(|t| &t.1)
    }

    fn punct(&mut self, c: char) -> bool {
        if self.peek() == Some(&Tok::Punct(c)) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    fn word(&mut self) -> Result<String> {
        match self.peek() {
            Some(Tok::Word(w)) => {
                let w = w.clone();
                self.i += 1;
                Ok(w)
            }
            other => Err(syntax(
                self.at(),
                format!("expected a name, found {other:?}"),
            )),
        }
    }

    /// A class body after `{`, up to and including `}`; at the top (`path` empty), the whole
    /// text.
    fn members(&mut self, path: &mut Vec<String>, slot: Option<usize>) -> Result<()> {
        loop {
            match self.peek() {
                None if path.is_empty() => return Ok(()),
                None => return Err(syntax(self.at(), "a class is not closed".into())),
                Some(Tok::Punct('}')) if path.is_empty() => {
                    return Err(syntax(self.at(), "a } closes no class".into()))
                }
                Some(Tok::Punct('}')) => {
                    self.i += 1;
                    return Ok(());
                }
                Some(Tok::Word(w)) if w == "class" => {
                    // Nested classes go through `body` one at a time.
                    let start = self.i;
                    self.i += 1;
                    self.word()?;
                    if self.punct(':') {
                        self.word()?;
                    }
                    if self.punct('{') {
                        self.i = start;
                        self.nested(path)?;
                    }
                }
                Some(Tok::Punct(';')) => self.i += 1,
                Some(Tok::Word(_)) => self.member(slot)?,
                Some(_) => return Err(syntax(self.at(), format!("unexpected {:?}", self.peek()))),
            }
        }
    }

    /// One `class X [: B] { ... }` at the cursor.
    fn nested(&mut self, path: &mut Vec<String>) -> Result<()> {
        self.i += 1; // class
        let name = self.word()?;
        if self.punct(':') {
            self.word()?;
        }
        self.punct('{');
        if path.len() > 64 {
            return Err(syntax(self.at(), "classes nest too deep".into()));
        }
        let in_skeletons = path
            .last()
            .is_some_and(|p| p.eq_ignore_ascii_case("CfgSkeletons"));
        let slot = if in_skeletons {
            self.out.push(Raw {
                name: name.clone(),
                inherit: String::new(),
                bones: Vec::new(),
            });
            Some(self.out.len() - 1)
        } else {
            None
        };
        path.push(name);
        self.members(path, slot)?;
        path.pop();
        Ok(())
    }

    /// `name = value;` or `name[] (+)= { ... };`.
    fn member(&mut self, slot: Option<usize>) -> Result<()> {
        let name = self.word()?;
        let array = self.punct('[');
        if array && !self.punct(']') {
            return Err(syntax(self.at(), format!("expected ] after {name}[")));
        }
        self.punct('+');
        if !self.punct('=') {
            return Err(syntax(self.at(), format!("expected = after {name}")));
        }
        if array {
            let values = self.array()?;
            if let (Some(k), true) = (slot, name.eq_ignore_ascii_case("skeletonBones")) {
                self.out[k].bones.extend(
                    values
                        .chunks(2)
                        .map(|p| (p[0].clone(), p.get(1).cloned().unwrap_or_default())),
                );
            }
        } else {
            let mut value = String::new();
            while let Some(t) = self.peek() {
                match t {
                    Tok::Punct(';') | Tok::Punct('}') => break,
                    Tok::Str(s) | Tok::Word(s) => value.push_str(s),
                    Tok::Punct(c) => value.push(*c),
                }
                self.i += 1;
            }
            if let (Some(k), true) = (slot, name.eq_ignore_ascii_case("skeletonInherit")) {
                self.out[k].inherit = value;
            }
        }
        self.punct(';');
        Ok(())
    }

    /// `{ v, v, { ... }, ... }`, flattened to its strings and words.
    fn array(&mut self) -> Result<Vec<String>> {
        let start = self.at();
        if !self.punct('{') {
            return Err(syntax(start, "expected { to open an array".into()));
        }
        let mut depth = 1usize;
        let mut out = Vec::new();
        while depth > 0 {
            match self.peek() {
                None => return Err(syntax(start, "an array is not closed".into())),
                Some(Tok::Punct('{')) => depth += 1,
                Some(Tok::Punct('}')) => depth -= 1,
                Some(Tok::Str(s)) | Some(Tok::Word(s)) => out.push(s.clone()),
                Some(Tok::Punct(_)) => {}
            }
            self.i += 1;
        }
        Ok(out)
    }
}
