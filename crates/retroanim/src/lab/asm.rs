//! labp proper: statements, labels and items over the preprocessed tokens, in two passes
//! (addresses, then values).

use std::collections::HashMap;

use super::cond::parse_number;
use super::lex::{Kind, Pos, Sym, Tok};
use super::pp::Unit;
use super::{LabError, LabErrorKind, LabOptions};
use crate::bytes::{Le, Writer};
use crate::formats::gte;

type R<T> = Result<T, LabError>;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Add,
    Sub,
    Mul,
    Div,
    And,
    Or,
}

enum Expr {
    Num(i32),
    Label(Sym, Pos),
    Neg(Box<Expr>),
    Not(Box<Expr>),
    Bin(Op, Box<Expr>, Box<Expr>, Pos),
}

enum Item {
    /// `size` bytes (1, 2, 4), `msb` set by `M()`.
    Data {
        size: u8,
        msb: bool,
        expr: Expr,
        pos: Pos,
    },
    /// `RotMatrix(rx, ry, rz)`: nine halfwords and a pad.
    Rot { args: [Expr; 3], pos: Pos },
}

impl Item {
    fn size(&self) -> u64 {
        match self {
            Item::Data { size, .. } => u64::from(*size),
            Item::Rot { .. } => 20,
        }
    }
}

struct Parser<'u> {
    unit: &'u Unit,
    toks: Vec<&'u Tok>,
    i: usize,
    opts: &'u LabOptions,
    depth: u32,
    sym_b: Option<Sym>,
    sym_h: Option<Sym>,
    sym_w: Option<Sym>,
    sym_m: Option<Sym>,
    sym_rot: Option<Sym>,
    sym_norm: Option<Sym>,
    /// Labels met inside the item being parsed (`H(L: 4)`, `(L: 0)`): labp accepts a label
    /// wherever a word can stand; each names the item's address.
    inner_labels: Vec<(Sym, Pos)>,
}

pub(crate) fn assemble(unit: &Unit, opts: &LabOptions) -> R<Vec<u8>> {
    let get = |s: &str| unit.names.get(s);
    let mut p = Parser {
        unit,
        toks: unit
            .toks
            .iter()
            .filter(|t| t.kind != Kind::Newline)
            .collect(),
        i: 0,
        opts,
        depth: 0,
        sym_b: get("B"),
        sym_h: get("H"),
        sym_w: get("W"),
        sym_m: get("M"),
        sym_rot: get("RotMatrix"),
        sym_norm: get("VectorNormalS"),
        inner_labels: Vec::new(),
    };
    // Pass 1: items and label addresses.
    let mut items: Vec<Item> = Vec::new();
    let mut labels: HashMap<Sym, (u64, Pos)> = HashMap::new();
    let mut addr = 0u64;
    let mut define = |sym: Sym, pos: Pos, addr: u64| -> R<()> {
        if let Some((_, first)) = labels.get(&sym) {
            let f = unit.error(*first, LabErrorKind::Label, String::new());
            return Err(unit.error(
                pos,
                LabErrorKind::Label,
                format!(
                    "label {} defined twice (first at {}:{}:{})",
                    unit.names.text(sym),
                    f.file,
                    f.line,
                    f.column
                ),
            ));
        }
        labels.insert(sym, (addr, pos));
        Ok(())
    };
    while p.i < p.toks.len() {
        let t = p.toks[p.i];
        if t.kind == Kind::Ident && p.punct_at(p.i + 1, ":") {
            define(t.sym, t.pos, addr)?;
            p.i += 2;
            continue;
        }
        if p.punct_at(p.i, ";") {
            p.i += 1;
            continue;
        }
        let item = p.item()?;
        if !p.punct_at(p.i, ";") {
            return Err(p.fail("expected `;` after the item"));
        }
        p.i += 1;
        for (sym, pos) in std::mem::take(&mut p.inner_labels) {
            define(sym, pos, addr)?;
        }
        addr += item.size();
        if addr > opts.max_output_bytes {
            return Err(unit.error(
                t.pos,
                LabErrorKind::Limit,
                format!(
                    "output larger than {} bytes (LabOptions::max_output_bytes)",
                    opts.max_output_bytes
                ),
            ));
        }
        items.push(item);
    }
    // Pass 2: values.
    let mut out = Writer::<Le>::with_capacity(addr as usize);
    let ev = Eval {
        unit,
        labels: &labels,
    };
    for item in &items {
        match item {
            Item::Data {
                size,
                msb,
                expr,
                pos,
            } => {
                let v = ev.eval(expr)?;
                let (lo, hi): (i64, i64) = match size {
                    1 => (-0x80, 0xFF),
                    2 => (-0x8000, 0xFFFF),
                    _ => (i64::MIN, i64::MAX),
                };
                if i64::from(v) < lo || i64::from(v) > hi {
                    return Err(unit.error(
                        *pos,
                        LabErrorKind::Value,
                        format!(
                            "{v} does not fit {}",
                            if *size == 1 {
                                "B() (8 bits)"
                            } else {
                                "H() (16 bits)"
                            }
                        ),
                    ));
                }
                let mut u = v as u32;
                if *msb {
                    u |= 1 << (u32::from(*size) * 8 - 1);
                }
                // B(), H() or W(): the low `size` bytes.
                match size {
                    1 => out.u8(u as u8),
                    2 => out.u16(u as u16),
                    _ => out.u32(u),
                }
            }
            Item::Rot { args, .. } => {
                let mut r = [0i32; 3];
                for (o, a) in r.iter_mut().zip(args) {
                    *o = ev.eval(a)?;
                }
                for v in labp_rot_matrix(r) {
                    out.i16(v);
                }
                out.bytes(&[0, 0]);
            }
        }
    }
    Ok(out.into_vec())
}

/// labp's built-in `RotMatrix`: libgte's M = Rx·Ry·Rz from the console's sine table, every
/// product divided by 4096 with truncation toward zero (see the module docs), row-major.
pub(crate) fn labp_rot_matrix(r: [i32; 3]) -> [i16; 9] {
    let sc = |a: i32| gte::sin_cos(a as i16);
    let (sx, cx) = sc(r[0]);
    let (sy, cy) = sc(r[1]);
    let (sz, cz) = sc(r[2]);
    let d = |a: i32, b: i32| a.wrapping_mul(b) / 4096;
    let m = [
        d(cy, cz),
        d(-cy, sz),
        sy,
        d(cx, sz) + d(d(sx, sy), cz),
        d(cx, cz) - d(d(sx, sy), sz),
        d(-sx, cy),
        d(sx, sz) - d(d(cx, sy), cz),
        d(sx, cz) + d(d(cx, sy), sz),
        d(cx, cy),
    ];
    m.map(|v| v as i16)
}

impl<'u> Parser<'u> {
    fn punct_at(&self, i: usize, p: &str) -> bool {
        self.toks
            .get(i)
            .is_some_and(|t| t.kind == Kind::Punct && self.unit.names.text(t.sym) == p)
    }

    fn pos(&self) -> Pos {
        match self.toks.get(self.i).or(self.toks.last()) {
            Some(t) => t.pos,
            None => Pos {
                src: 0,
                line: 1,
                col: 1,
            },
        }
    }

    fn fail(&self, m: &str) -> LabError {
        let what = match self.toks.get(self.i) {
            Some(t) => format!("{m}, found `{}`", self.unit.names.text(t.sym)),
            None => format!("{m}, found the end of the input"),
        };
        self.unit.error(self.pos(), LabErrorKind::Syntax, what)
    }

    fn expect(&mut self, p: &str) -> R<()> {
        if self.punct_at(self.i, p) {
            self.i += 1;
            Ok(())
        } else {
            Err(self.fail(&format!("expected `{p}`")))
        }
    }

    /// The identifier at the cursor is `sym` and a `(` follows.
    fn call_of(&self, sym: Option<Sym>) -> bool {
        match (self.toks.get(self.i), sym) {
            (Some(t), Some(s)) => {
                t.kind == Kind::Ident && t.sym == s && self.punct_at(self.i + 1, "(")
            }
            _ => false,
        }
    }

    /// `Name:` where a word can stand inside an item (labp accepts it there, as after a macro
    /// argument list's `(`): a label at the address of the item being parsed.
    fn take_labels(&mut self) -> R<()> {
        while let Some(t) = self.toks.get(self.i).copied() {
            if t.kind != Kind::Ident || !self.punct_at(self.i + 1, ":") {
                break;
            }
            if self.inner_labels.len() >= 1024 {
                return Err(self.fail("more than 1024 labels inside one item"));
            }
            self.inner_labels.push((t.sym, t.pos));
            self.i += 2;
        }
        Ok(())
    }

    fn item(&mut self) -> R<Item> {
        self.take_labels()?;
        let pos = self.pos();
        if self.call_of(self.sym_m) {
            self.i += 2;
            let inner = self.item()?;
            self.expect(")")?;
            return match inner {
                Item::Data {
                    size, expr, pos, ..
                } => Ok(Item::Data {
                    size,
                    msb: true,
                    expr,
                    pos,
                }),
                Item::Rot { pos, .. } => Err(self.unit.error(
                    pos,
                    LabErrorKind::Syntax,
                    "M() cannot mark RotMatrix()".into(),
                )),
            };
        }
        for (sym, size) in [(self.sym_b, 1u8), (self.sym_h, 2), (self.sym_w, 4)] {
            if self.call_of(sym) {
                self.i += 2;
                let expr = self.expr()?;
                self.expect(")")?;
                return Ok(Item::Data {
                    size,
                    msb: false,
                    expr,
                    pos,
                });
            }
        }
        if self.call_of(self.sym_rot) {
            self.i += 2;
            let a = self.expr()?;
            self.expect(",")?;
            let b = self.expr()?;
            self.expect(",")?;
            let c = self.expr()?;
            self.expect(")")?;
            return Ok(Item::Rot {
                args: [a, b, c],
                pos,
            });
        }
        if self.call_of(self.sym_norm) {
            return Err(self.unit.error(
                pos,
                LabErrorKind::Unsupported,
                "the labp built-in VectorNormalS is not supported".into(),
            ));
        }
        let expr = self.expr()?;
        Ok(Item::Data {
            size: 4,
            msb: false,
            expr,
            pos,
        })
    }

    fn expr(&mut self) -> R<Expr> {
        self.depth += 1;
        if self.depth > self.opts.max_nesting {
            return Err(self.unit.error(
                self.pos(),
                LabErrorKind::Limit,
                format!(
                    "expression nested deeper than {} (LabOptions::max_nesting)",
                    self.opts.max_nesting
                ),
            ));
        }
        let e = self.binary(0)?;
        self.depth -= 1;
        Ok(e)
    }

    /// Binary operators with C's precedence (`*` `/`, then `+` `-`, then `&`, then `|`), left
    /// associative; `min` is the lowest precedence this call may consume.
    fn binary(&mut self, min: u8) -> R<Expr> {
        let mut lhs = self.unary()?;
        loop {
            let (op, prec) = match self.toks.get(self.i) {
                Some(t) if t.kind == Kind::Punct => match self.unit.names.text(t.sym) {
                    "|" => (Op::Or, 1),
                    "&" => (Op::And, 2),
                    "+" => (Op::Add, 3),
                    "-" => (Op::Sub, 3),
                    "*" => (Op::Mul, 4),
                    "/" => (Op::Div, 4),
                    _ => break,
                },
                _ => break,
            };
            if prec <= min {
                break;
            }
            let pos = self.pos();
            self.i += 1;
            let rhs = self.binary(prec)?;
            lhs = Expr::Bin(op, Box::new(lhs), Box::new(rhs), pos);
        }
        Ok(lhs)
    }

    fn unary(&mut self) -> R<Expr> {
        self.take_labels()?;
        let Some(t) = self.toks.get(self.i).copied() else {
            return Err(self.fail("expected a value"));
        };
        match t.kind {
            Kind::Punct => {
                let s = self.unit.names.text(t.sym);
                self.i += 1;
                match s {
                    "-" | "~" | "+" => {
                        self.depth += 1;
                        if self.depth > self.opts.max_nesting {
                            return Err(self.unit.error(
                                t.pos,
                                LabErrorKind::Limit,
                                "unary operators nested too deeply".into(),
                            ));
                        }
                        let e = self.unary()?;
                        self.depth -= 1;
                        Ok(match s {
                            "-" => Expr::Neg(Box::new(e)),
                            "~" => Expr::Not(Box::new(e)),
                            _ => e,
                        })
                    }
                    "(" => {
                        let e = self.expr()?;
                        self.expect(")")?;
                        Ok(e)
                    }
                    _ => {
                        self.i -= 1;
                        Err(self.fail("expected a value"))
                    }
                }
            }
            Kind::Number => {
                self.i += 1;
                match parse_number(self.unit.names.text(t.sym)) {
                    Some(v) => Ok(Expr::Num(v as i32)),
                    None => Err(self.unit.error(
                        t.pos,
                        LabErrorKind::Syntax,
                        format!(
                            "`{}` is not a 32-bit decimal or 0x number",
                            self.unit.names.text(t.sym)
                        ),
                    )),
                }
            }
            Kind::Ident => {
                if [self.sym_b, self.sym_h, self.sym_w, self.sym_m, self.sym_rot]
                    .contains(&Some(t.sym))
                    && self.punct_at(self.i + 1, "(")
                {
                    return Err(self.unit.error(
                        t.pos,
                        LabErrorKind::Syntax,
                        format!(
                            "{}() makes an item of its own and cannot be part of an expression",
                            self.unit.names.text(t.sym)
                        ),
                    ));
                }
                self.i += 1;
                Ok(Expr::Label(t.sym, t.pos))
            }
            Kind::Str => {
                Err(self
                    .unit
                    .error(t.pos, LabErrorKind::Syntax, "labp has no strings".into()))
            }
            _ => Err(self.fail("expected a value")),
        }
    }
}

struct Eval<'a> {
    unit: &'a Unit,
    labels: &'a HashMap<Sym, (u64, Pos)>,
}

impl Eval<'_> {
    fn eval(&self, e: &Expr) -> R<i32> {
        Ok(match e {
            Expr::Num(v) => *v,
            Expr::Label(s, pos) => match self.labels.get(s) {
                Some((a, _)) => *a as i32,
                None => {
                    return Err(self.unit.error(
                        *pos,
                        LabErrorKind::Label,
                        format!("undefined label {}", self.unit.names.text(*s)),
                    ))
                }
            },
            Expr::Neg(x) => self.eval(x)?.wrapping_neg(),
            Expr::Not(x) => !self.eval(x)?,
            Expr::Bin(op, a, b, pos) => {
                let (v, r) = (self.eval(a)?, self.eval(b)?);
                match op {
                    Op::Add => v.wrapping_add(r),
                    Op::Sub => v.wrapping_sub(r),
                    Op::Mul => v.wrapping_mul(r),
                    Op::And => v & r,
                    Op::Or => v | r,
                    Op::Div => {
                        if r == 0 {
                            return Err(self.unit.error(
                                *pos,
                                LabErrorKind::Value,
                                "division by zero".into(),
                            ));
                        }
                        v.wrapping_div(r)
                    }
                }
            }
        })
    }
}
