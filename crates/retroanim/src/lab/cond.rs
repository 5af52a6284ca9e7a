//! `#if` / `#elif` expressions (C precedence, 64-bit values) and the number syntax both the
//! preprocessor and labp read.

use super::lex::{Interner, Kind, Pos, Tok};
use super::pp::{error_at, Source};
use super::{LabError, LabErrorKind};

type R<T> = Result<T, LabError>;

/// `#if` expressions: C precedence, 64-bit values.
pub(crate) struct CondExpr<'p, 't> {
    pub names: &'p Interner,
    pub sources: &'p [Source],
    pub max_nesting: u32,
    pub toks: &'t [Tok],
    pub i: usize,
    pub pos: Pos,
    pub depth: u32,
}

impl CondExpr<'_, '_> {
    fn err(&self, pos: Pos, kind: LabErrorKind, m: impl Into<String>) -> LabError {
        error_at(self.sources, pos, kind, m.into())
    }

    pub(crate) fn fail(&self, m: &str) -> LabError {
        let pos = self.toks.get(self.i).map_or(self.pos, |t| t.pos);
        self.err(pos, LabErrorKind::Syntax, m)
    }

    fn peek(&self) -> Option<&str> {
        self.toks
            .get(self.i)
            .filter(|t| t.kind == Kind::Punct)
            .map(|t| self.names.text(t.sym))
    }

    fn eat(&mut self, p: &str) -> bool {
        if self.peek() == Some(p) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    pub(crate) fn ternary(&mut self) -> R<i64> {
        self.depth += 1;
        if self.depth > self.max_nesting {
            return Err(self.fail("#if expression nested too deeply"));
        }
        let c = self.binary(0)?;
        let v = if self.eat("?") {
            let a = self.ternary()?;
            if !self.eat(":") {
                return Err(self.fail("expected `:` in #if expression"));
            }
            let b = self.ternary()?;
            if c != 0 {
                a
            } else {
                b
            }
        } else {
            c
        };
        self.depth -= 1;
        Ok(v)
    }

    fn binary(&mut self, min: u8) -> R<i64> {
        let mut l = self.unary()?;
        while let Some(op) = self.peek() {
            let prec = match op {
                "||" => 1,
                "&&" => 2,
                "|" => 3,
                "^" => 4,
                "&" => 5,
                "==" | "!=" => 6,
                "<" | ">" | "<=" | ">=" => 7,
                "<<" | ">>" => 8,
                "+" | "-" => 9,
                "*" | "/" | "%" => 10,
                _ => break,
            };
            if prec <= min {
                break;
            }
            let op = op.to_string();
            self.i += 1;
            let r = self.binary(prec)?;
            l = match op.as_str() {
                "||" => i64::from(l != 0 || r != 0),
                "&&" => i64::from(l != 0 && r != 0),
                "|" => l | r,
                "^" => l ^ r,
                "&" => l & r,
                "==" => i64::from(l == r),
                "!=" => i64::from(l != r),
                "<" => i64::from(l < r),
                ">" => i64::from(l > r),
                "<=" => i64::from(l <= r),
                ">=" => i64::from(l >= r),
                "<<" => l.wrapping_shl(r as u32),
                ">>" => l.wrapping_shr(r as u32),
                "+" => l.wrapping_add(r),
                "-" => l.wrapping_sub(r),
                "*" => l.wrapping_mul(r),
                _ => {
                    if r == 0 {
                        return Err(self.fail("division by zero in #if"));
                    }
                    if op == "/" {
                        l.wrapping_div(r)
                    } else {
                        l.wrapping_rem(r)
                    }
                }
            };
        }
        Ok(l)
    }

    /// Prefix operators are gathered in a loop and applied innermost first, so a chain of any
    /// length (`#if - - - … 1`) costs no stack.
    fn unary(&mut self) -> R<i64> {
        let mut ops = Vec::new();
        while let Some(op) = self.peek() {
            let op = match op {
                "-" | "+" | "~" | "!" => op.as_bytes()[0],
                _ => break,
            };
            ops.push(op);
            self.i += 1;
        }
        let mut v = self.primary()?;
        for op in ops.iter().rev() {
            v = match op {
                b'-' => v.wrapping_neg(),
                b'~' => !v,
                b'!' => i64::from(v == 0),
                _ => v,
            };
        }
        Ok(v)
    }

    fn primary(&mut self) -> R<i64> {
        if self.eat("(") {
            let v = self.ternary()?;
            if !self.eat(")") {
                return Err(self.fail("expected `)` in #if expression"));
            }
            return Ok(v);
        }
        let Some(t) = self.toks.get(self.i) else {
            return Err(self.fail("#if expression ends early"));
        };
        self.i += 1;
        match t.kind {
            Kind::Ident => Ok(0),
            Kind::Number => parse_number(self.names.text(t.sym))
                .map(i64::from)
                .ok_or_else(|| self.err(t.pos, LabErrorKind::Syntax, "bad number")),
            _ => Err(self.err(
                t.pos,
                LabErrorKind::Syntax,
                format!("unexpected `{}` in #if expression", self.names.text(t.sym)),
            )),
        }
    }
}

/// A decimal or `0x` number of at most 32 bits (C suffixes `u`/`l` allowed).
pub(crate) fn parse_number(s: &str) -> Option<u32> {
    let s = s.trim_end_matches(['u', 'U', 'l', 'L']);
    if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        u32::from_str_radix(h, 16).ok()
    } else {
        s.parse::<u32>().ok()
    }
}
