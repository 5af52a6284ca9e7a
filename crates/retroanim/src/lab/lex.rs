//! Tokens of LAB source: C preprocessing tokens (identifiers, numbers, punctuators, strings),
//! with comments removed, `\` line splices joined and newlines kept as tokens.

use std::collections::HashMap;
use std::rc::Rc;

/// An interned identifier, number or punctuator text.
pub(crate) type Sym = u32;

/// Interned token texts.
#[derive(Default)]
pub(crate) struct Interner {
    map: HashMap<Box<str>, Sym>,
    names: Vec<Box<str>>,
}

impl Interner {
    pub(crate) fn intern(&mut self, s: &str) -> Sym {
        if let Some(&k) = self.map.get(s) {
            return k;
        }
        let k = self.names.len() as Sym;
        self.names.push(s.into());
        self.map.insert(s.into(), k);
        k
    }

    pub(crate) fn get(&self, s: &str) -> Option<Sym> {
        self.map.get(s).copied()
    }

    pub(crate) fn text(&self, k: Sym) -> &str {
        &self.names[k as usize]
    }
}

/// What a token is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Ident,
    Number,
    Punct,
    /// A string or character literal (quotes included in the text).
    Str,
    /// A byte that starts no token.
    Other,
    Newline,
}

/// A position: source instance (one per file opening), 1-based line and column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Pos {
    pub src: u32,
    pub line: u32,
    pub col: u32,
}

/// One token.
#[derive(Debug, Clone)]
pub(crate) struct Tok {
    pub kind: Kind,
    pub sym: Sym,
    pub pos: Pos,
    /// Whitespace (or a comment) comes before it.
    pub space: bool,
    /// Macros that must not expand this token again (C hide set), sorted.
    pub hide: Option<Rc<[Sym]>>,
}

const PUNCT2: [&str; 10] = ["##", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "->"];

/// Splits `text` (Latin-1 bytes) into tokens. `budget` is decremented per token; running out is
/// reported as `Err((pos, None))`; a lexical error as `Err((pos, Some(message)))`.
pub(crate) fn lex(
    text: &[u8],
    src: u32,
    names: &mut Interner,
    budget: &mut u64,
) -> Result<Vec<Tok>, (Pos, Option<String>)> {
    let mut out = Vec::new();
    let mut i = 0usize;
    let mut line = 1u32;
    let mut line_start = 0usize;
    let mut space = false;
    let pos_of = |i: usize, line: u32, line_start: usize| Pos {
        src,
        line,
        col: (i - line_start + 1) as u32,
    };
    let mut buf = String::new();
    while i < text.len() {
        let c = text[i];
        // Line splice.
        if c == b'\\' && matches!(text.get(i + 1), Some(b'\n') | Some(b'\r')) {
            i += 1;
            if text[i] == b'\r' && text.get(i + 1) == Some(&b'\n') {
                i += 1;
            }
            i += 1;
            line += 1;
            line_start = i;
            space = true;
            continue;
        }
        let pos = pos_of(i, line, line_start);
        match c {
            b'\n' => {
                push(&mut out, budget, pos, Kind::Newline, 0, false)?;
                i += 1;
                line += 1;
                line_start = i;
                space = false;
                continue;
            }
            b' ' | b'\t' | b'\r' | 0x0b | 0x0c => {
                i += 1;
                space = true;
                continue;
            }
            b'/' if text.get(i + 1) == Some(&b'*') => {
                i += 2;
                loop {
                    match text.get(i) {
                        None => {
                            return Err((pos, Some("unterminated comment (no `*/`)".into())));
                        }
                        Some(b'*') if text.get(i + 1) == Some(&b'/') => {
                            i += 2;
                            break;
                        }
                        Some(b'\n') => {
                            i += 1;
                            line += 1;
                            line_start = i;
                        }
                        Some(_) => i += 1,
                    }
                }
                space = true;
                continue;
            }
            b'/' if text.get(i + 1) == Some(&b'/') => {
                while i < text.len() && text[i] != b'\n' {
                    i += 1;
                }
                space = true;
                continue;
            }
            _ => {}
        }
        buf.clear();
        let kind = if c.is_ascii_alphabetic() || c == b'_' {
            while i < text.len() && (text[i].is_ascii_alphanumeric() || text[i] == b'_') {
                buf.push(text[i] as char);
                i += 1;
            }
            Kind::Ident
        } else if c.is_ascii_digit() {
            while i < text.len() && (text[i].is_ascii_alphanumeric() || text[i] == b'_') {
                buf.push(text[i] as char);
                i += 1;
            }
            Kind::Number
        } else if c == b'"' || c == b'\'' {
            buf.push(c as char);
            i += 1;
            loop {
                match text.get(i) {
                    None | Some(b'\n') => {
                        let what = if c == b'"' {
                            "string"
                        } else {
                            "character constant"
                        };
                        return Err((pos, Some(format!("unterminated {what}"))));
                    }
                    Some(&b'\\') if i + 1 < text.len() && text[i + 1] != b'\n' => {
                        buf.push('\\');
                        buf.push(text[i + 1] as char);
                        i += 2;
                    }
                    Some(&d) => {
                        buf.push(d as char);
                        i += 1;
                        if d == c {
                            break;
                        }
                    }
                }
            }
            Kind::Str
        } else if c.is_ascii_punctuation() {
            let two = text.get(i..i + 2).and_then(|s| std::str::from_utf8(s).ok());
            match two.filter(|t| PUNCT2.contains(t)) {
                Some(t) => {
                    buf.push_str(t);
                    i += 2;
                }
                None => {
                    buf.push(c as char);
                    i += 1;
                }
            }
            Kind::Punct
        } else {
            buf.push(c as char);
            i += 1;
            Kind::Other
        };
        let sym = names.intern(&buf);
        push(&mut out, budget, pos, kind, sym, space)?;
        space = false;
    }
    Ok(out)
}

fn push(
    out: &mut Vec<Tok>,
    budget: &mut u64,
    pos: Pos,
    kind: Kind,
    sym: Sym,
    space: bool,
) -> Result<(), (Pos, Option<String>)> {
    if *budget == 0 {
        return Err((pos, None));
    }
    *budget -= 1;
    out.push(Tok {
        kind,
        sym,
        pos,
        space,
        hide: None,
    });
    Ok(())
}
