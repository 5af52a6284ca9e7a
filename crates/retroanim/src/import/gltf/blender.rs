//! What Blender's glTF add-on does to a scene retroanim exported, and how the import sees
//! through it (`docs/blender.md`, "The round trip through Blender"), so that a GLB that went
//! through Blender (import, export with *Custom Properties*) authors back as the original did:
//!
//! - **Extras Blender could not store.** Its importer keeps each `extras` member as a custom
//!   property; a value an ID property cannot hold (a `null` inside a list — a TOD object's
//!   open life `[0, null]` —, an integer past 2³¹ — a TOD attribute word with the display bit
//!   set, an HMD type word) is stored as the Python text of the value (`str(value)`), which its
//!   exporter writes back as a JSON string. A `retroanim` member that is such a string is read
//!   back from the Python literal ([`python_literal`]: dicts, lists, tuples, strings, numbers,
//!   `True`, `False`, `None`).
//! - **Animation extras.** Blender's importer drops an animation's extras (an action gets no
//!   custom properties), and its exporter names a merged animation `Animation`. The export
//!   records each animation's `retroanim` namespace in the scene's
//!   (`retroanim.animations`, which Blender keeps); an animation without its own is given the
//!   recorded one of its name (Blender's `.001` suffixes aside), or, when one animation and one
//!   record are left, that one ([`restore_animation_extras`]). Animations that take the same
//!   record and move different node properties (one clip split over several actions) are one
//!   animation again.
//! - **Channels Blender adds.** Its exporter keys every bone of an animated armature, also those
//!   the clip does not move. Such a channel holds its node's rest value at every key
//!   ([`crate::scene::Channel::is_still`]); the HMD author gives no sequence pointer to a node
//!   that only such channels key.
//!
//! - **Rest poses.** Blender has no rest pose for an animated object: its exporter writes the
//!   pose at the current frame as the node's transform. The export records the rest of every
//!   node an animation moves in its `retroanim` extras (`rest`); for the properties
//!   (translation, rotation, scale) an animation keys, the recorded rest is the node's again
//!   ([`restore_rests`]). A joint axes MIMe turns its coordinate's rest matrix, so the rest
//!   must be the file's.
//!
//! Nodes are never matched by name or order: the authors find coordinates, objects, cameras and
//! lights by their `retroanim` extras, and Blender's own nodes (an armature over skin joints,
//! bone-parented mesh nodes) carry none.

use serde_json::{Map, Number, Value};

use crate::scene::extras;
use crate::scene::{Scene, Track, Transform};

/// Nesting depth a Python literal may reach (a deeper one is not read).
const MAX_DEPTH: usize = 64;

/// `extras` with a `retroanim` member that Blender turned into Python text read back.
pub(super) fn recover(mut extras: Value) -> Value {
    if let Some(Value::String(text)) = extras.get(extras::KEY) {
        if let Some(v @ Value::Object(_)) = python_literal(text) {
            extras[extras::KEY] = v;
        }
    }
    extras
}

/// The JSON value of a Python literal as `repr` writes it: `{…}` with string keys, `[…]`,
/// `(…)`, `'…'` / `"…"` with Python's escapes, integers, floats (`inf` and `nan`, which JSON
/// cannot hold, become `null`), `True`, `False`, `None`. `None` when the text is anything
/// else or nests deeper than [`MAX_DEPTH`].
pub fn python_literal(text: &str) -> Option<Value> {
    let mut p = Parser {
        s: text.as_bytes(),
        at: 0,
    };
    let v = p.value(0)?;
    p.space();
    (p.at == p.s.len()).then_some(v)
}

struct Parser<'a> {
    s: &'a [u8],
    at: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.at).copied()
    }

    fn space(&mut self) {
        while self.peek().is_some_and(|c| c.is_ascii_whitespace()) {
            self.at += 1;
        }
    }

    fn eat(&mut self, c: u8) -> bool {
        self.space();
        let hit = self.peek() == Some(c);
        self.at += usize::from(hit);
        hit
    }

    fn word(&mut self, w: &str) -> bool {
        let hit = self.s[self.at..].starts_with(w.as_bytes())
            && !self
                .s
                .get(self.at + w.len())
                .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_');
        if hit {
            self.at += w.len();
        }
        hit
    }

    fn value(&mut self, depth: usize) -> Option<Value> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.space();
        match self.peek()? {
            b'{' => {
                self.at += 1;
                let mut map = Map::new();
                if self.eat(b'}') {
                    return Some(Value::Object(map));
                }
                loop {
                    let key = match self.value(depth + 1)? {
                        Value::String(k) => k,
                        Value::Number(n) => n.to_string(),
                        _ => return None,
                    };
                    if !self.eat(b':') {
                        return None;
                    }
                    let v = self.value(depth + 1)?;
                    map.insert(key, v);
                    if self.eat(b'}') {
                        return Some(Value::Object(map));
                    }
                    if !self.eat(b',') {
                        return None;
                    }
                    if self.eat(b'}') {
                        return Some(Value::Object(map));
                    }
                }
            }
            open @ (b'[' | b'(') => {
                self.at += 1;
                let close = if open == b'[' { b']' } else { b')' };
                let mut list = Vec::new();
                if self.eat(close) {
                    return Some(Value::Array(list));
                }
                loop {
                    list.push(self.value(depth + 1)?);
                    if self.eat(close) {
                        return Some(Value::Array(list));
                    }
                    if !self.eat(b',') {
                        return None;
                    }
                    if self.eat(close) {
                        return Some(Value::Array(list));
                    }
                }
            }
            q @ (b'\'' | b'"') => self.string(q).map(Value::String),
            _ if self.word("True") => Some(Value::Bool(true)),
            _ if self.word("False") => Some(Value::Bool(false)),
            _ if self.word("None") => Some(Value::Null),
            _ => self.number(),
        }
    }

    fn string(&mut self, quote: u8) -> Option<String> {
        self.at += 1;
        let mut out: Vec<u8> = Vec::new();
        loop {
            let c = self.peek()?;
            self.at += 1;
            if c == quote {
                return String::from_utf8(out).ok();
            }
            if c != b'\\' {
                out.push(c);
                continue;
            }
            let e = self.peek()?;
            self.at += 1;
            let ch = match e {
                b'n' => '\n',
                b'r' => '\r',
                b't' => '\t',
                b'a' => '\u{7}',
                b'b' => '\u{8}',
                b'f' => '\u{c}',
                b'v' => '\u{b}',
                b'0' => '\0',
                b'x' => self.hex(2)?,
                b'u' => self.hex(4)?,
                b'U' => self.hex(8)?,
                b'\\' | b'\'' | b'"' => e as char,
                _ => return None,
            };
            let mut buf = [0u8; 4];
            out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
        }
    }

    fn hex(&mut self, digits: usize) -> Option<char> {
        let h = self.s.get(self.at..self.at + digits)?;
        self.at += digits;
        char::from_u32(u32::from_str_radix(std::str::from_utf8(h).ok()?, 16).ok()?)
    }

    fn number(&mut self) -> Option<Value> {
        let start = self.at;
        if matches!(self.peek(), Some(b'-' | b'+')) {
            self.at += 1;
        }
        if self.word("inf") || self.word("nan") {
            return Some(Value::Null);
        }
        while self
            .peek()
            .is_some_and(|c| c.is_ascii_digit() || matches!(c, b'.' | b'e' | b'E' | b'+' | b'-'))
        {
            self.at += 1;
        }
        let text = std::str::from_utf8(&self.s[start..self.at]).ok()?;
        let text = text.strip_prefix('+').unwrap_or(text);
        if text.is_empty() {
            return None;
        }
        if let Ok(i) = text.parse::<i64>() {
            return Some(Value::Number(i.into()));
        }
        if let Ok(u) = text.parse::<u64>() {
            return Some(Value::Number(u.into()));
        }
        let f: f64 = text.parse().ok()?;
        Some(Number::from_f64(f).map_or(Value::Null, Value::Number))
    }
}

/// Blender's `.001`-style suffix removed from a name.
fn without_suffix(name: &str) -> &str {
    match name.rsplit_once('.') {
        Some((stem, n)) if n.len() == 3 && n.bytes().all(|b| b.is_ascii_digit()) => stem,
        _ => name,
    }
}

/// Gives each animation without `retroanim` extras the one the scene recorded for it (module
/// docs), and joins animations that took the same record.
pub(super) fn restore_animation_extras(scene: &mut Scene) {
    let records = extras::animation_records(&scene.extras);
    if records.is_empty() {
        return;
    }
    let has_own = |e: &Value| extras::namespace(e).is_some();
    let mut used = vec![false; records.len()];
    let mut taken: Vec<Option<usize>> = vec![None; scene.animations.len()];
    for (k, a) in scene.animations.iter().enumerate() {
        if has_own(&a.extras) {
            continue;
        }
        let want = without_suffix(&a.name);
        let pick = records
            .iter()
            .position(|(name, _)| name == &a.name)
            .or_else(|| records.iter().position(|(name, _)| name == want));
        if let Some(r) = pick {
            taken[k] = Some(r);
            used[r] = true;
        }
    }
    let bare: Vec<usize> = (0..scene.animations.len())
        .filter(|&k| taken[k].is_none() && !has_own(&scene.animations[k].extras))
        .collect();
    let left: Vec<usize> = (0..records.len()).filter(|&r| !used[r]).collect();
    if let ([k], [r]) = (&bare[..], &left[..]) {
        taken[*k] = Some(*r);
    }
    // One record taken by several animations: one clip that Blender exported in parts.
    let mut first_of: Vec<Option<usize>> = vec![None; records.len()];
    let mut remove = vec![false; scene.animations.len()];
    for k in 0..scene.animations.len() {
        let Some(r) = taken[k] else { continue };
        match first_of[r] {
            None => {
                first_of[r] = Some(k);
                scene.animations[k].extras = records[r].1.clone();
            }
            Some(f) if disjoint(scene, f, k) => {
                let channels = std::mem::take(&mut scene.animations[k].channels);
                scene.animations[f].channels.extend(channels);
                remove[k] = true;
            }
            Some(_) => scene.animations[k].extras = records[r].1.clone(),
        }
    }
    let mut k = 0;
    scene.animations.retain(|_| {
        k += 1;
        !remove[k - 1]
    });
}

/// Animations `a` and `b` animate different (node, property) pairs.
fn disjoint(scene: &Scene, a: usize, b: usize) -> bool {
    let key = |c: &crate::scene::Channel| (c.node, std::mem::discriminant(&c.track));
    let of_a: Vec<_> = scene.animations[a].channels.iter().map(key).collect();
    scene.animations[b]
        .channels
        .iter()
        .all(|c| !of_a.contains(&key(c)))
}

/// For each node with a recorded rest (module docs), the recorded translation, rotation and
/// scale where an animation keys that property; the others stay as the file gives them.
pub(super) fn restore_rests(scene: &mut Scene) {
    let n = scene.nodes.len();
    let mut keyed = vec![[false; 3]; n];
    for c in scene.animations.iter().flat_map(|a| &a.channels) {
        let Some(k) = keyed.get_mut(c.node) else {
            continue;
        };
        match c.track {
            Track::Translation(_) => k[0] = true,
            Track::Rotation(_) => k[1] = true,
            Track::Scale(_) | Track::Visibility(_) => k[2] = true,
            Track::Weights(_) => {}
        }
    }
    for (node, k) in scene.nodes.iter_mut().zip(keyed) {
        let (t, r, s) = extras::rest(&node.extras);
        if let Transform::Trs {
            translation,
            rotation,
            scale,
        } = &mut node.transform
        {
            if let (true, Some(t)) = (k[0], t) {
                *translation = t;
            }
            if let (true, Some(r)) = (k[1], r) {
                *rotation = r;
            }
            if let (true, Some(s)) = (k[2], s) {
                *scale = s;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn python_literals_read_as_json() {
        let text = r#"{'a': [1, -2, 2147483648, 1.5, 1e-05, -inf, nan], 'b': (None, True, False),
            "c'": 'it\'s \\ \n \x41\u00e9\U0001F600', 3: [], 'd': {}, 'e': (1,), }"#;
        assert_eq!(
            python_literal(text),
            Some(json!({
                "a": [1, -2, 2147483648u64, 1.5, 1e-05, null, null],
                "b": [null, true, false],
                "c'": "it's \\ \n Aé😀",
                "3": [],
                "d": {},
                "e": [1],
            }))
        );
        for bad in [
            "",
            "{",
            "{'a' 1}",
            "[1 2]",
            "'open",
            "Nonesuch",
            "{'a': 1} x",
            "[1,,]",
            "'\\q'",
            "{[1]: 2}",
        ] {
            assert_eq!(python_literal(bad), None, "{bad:?}");
        }
        let deep = "[".repeat(MAX_DEPTH + 2) + &"]".repeat(MAX_DEPTH + 2);
        assert_eq!(python_literal(&deep), None);
        let ok = "[".repeat(MAX_DEPTH) + &"]".repeat(MAX_DEPTH);
        assert!(python_literal(&ok).is_some());
    }

    #[test]
    fn only_a_retroanim_member_in_python_text_is_read_back() {
        let e = recover(
            json!({ "retroanim": "{'version': 1, 'tod': {'lives': [[0, None]]}}",
                                "other": "{'x': 1}" }),
        );
        assert_eq!(e["retroanim"]["tod"]["lives"], json!([[0, null]]));
        assert_eq!(e["other"], "{'x': 1}");
        // Text that is no dict stays as it is.
        assert_eq!(recover(json!({ "retroanim": "[1]" }))["retroanim"], "[1]");
    }

    #[test]
    fn blender_suffixes_come_off() {
        assert_eq!(without_suffix("sequence 0 sid 0.001"), "sequence 0 sid 0");
        assert_eq!(without_suffix("take.12"), "take.12");
        assert_eq!(without_suffix("a.b.0004"), "a.b.0004");
    }
}
