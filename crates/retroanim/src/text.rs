//! Names and tokens from inputs, made safe to print: control characters escaped (a crafted
//! disc image cannot move the cursor or clear the terminal through a file name) and long text
//! cut short (a 60 MB identifier is not echoed whole into an error).

use std::fmt::Write;

/// Characters of input text shown at most by [`shown`].
pub const SHOWN_CHARS: usize = 80;

/// `s` with control characters escaped as [`escape`] does, cut after [`SHOWN_CHARS`]
/// characters with `…`.
pub fn shown(s: &str) -> String {
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i == SHOWN_CHARS {
            out.push('…');
            break;
        }
        push_escaped(&mut out, c);
    }
    out
}

/// `s` with every control character escaped: `\n`, `\r`, `\t`, `\\x1b` (ASCII and C1 controls
/// as `\xNN`, other Unicode controls such as bidirectional overrides as `\u{NNNN}`); a
/// backslash stays as it is. Nothing is cut.
pub fn escape(s: &str) -> String {
    if !s.chars().any(needs_escape) {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        push_escaped(&mut out, c);
    }
    out
}

/// Characters of a whole message kept by [`message`].
pub const MESSAGE_CHARS: usize = 1000;

/// A message that quotes input text: control characters escaped, every run of text without a
/// space cut after [`SHOWN_CHARS`] characters with `…`, the whole cut after [`MESSAGE_CHARS`].
pub fn message(s: &str) -> String {
    let mut out = String::new();
    let mut run = 0usize;
    for (i, c) in s.chars().enumerate() {
        if i == MESSAGE_CHARS {
            out.push('…');
            break;
        }
        if c == ' ' {
            run = 0;
        } else {
            run += 1;
            if run > SHOWN_CHARS {
                if run == SHOWN_CHARS + 1 {
                    out.push('…');
                }
                continue;
            }
        }
        push_escaped(&mut out, c);
    }
    out
}

fn needs_escape(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

fn push_escaped(out: &mut String, c: char) {
    match c {
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        c if needs_escape(c) && (c as u32) < 0x100 => {
            let _ = write!(out, "\\x{:02x}", c as u32);
        }
        c if needs_escape(c) => {
            let _ = write!(out, "\\u{{{:04x}}}", c as u32);
        }
        c => out.push(c),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_are_escaped_and_long_text_cut() {
        assert_eq!(escape("a\nb\x1b[2J\u{202e}"), "a\\nb\\x1b[2J\\u{202e}");
        assert_eq!(escape("plain/path é"), "plain/path é");
        let long = "x".repeat(1000);
        let s = shown(&long);
        assert_eq!(s.chars().count(), SHOWN_CHARS + 1);
        assert!(s.ends_with('…'));
        assert_eq!(shown("ok"), "ok");
        let m = message(&format!("unknown `{}` here\n", "x".repeat(200)));
        assert_eq!(m, format!("unknown `{}… here\\n", "x".repeat(79)));
    }
}
