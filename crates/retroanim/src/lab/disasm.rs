//! HMD → LAB, in the style of Sony's samples: one label per region (coordinate section and
//! each coordinate, primitive header section and each header, each primitive, each section,
//! each gap), pointers as `Label / 4`, type words, sequence descriptors and update indices
//! through the `hmd.def` macros, coordinates as `COORDM` (or `MATRIX` / `SVECTOR`), and raw
//! words wherever nothing is typed.
//!
//! Every item is formatted from the file's own bits, and a symbolic form is used only when
//! its value is exactly those bits, so the text assembles back to the same bytes.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::asm::labp_rot_matrix;
use crate::bytes::{ByteOrder, Le};
use crate::formats::hmd::{read, write, Hmd, RegionBody, SectionData, SectionRole, TypeData};
use crate::Result;

/// Disassembles HMD bytes into LAB source that [`super::assemble`] turns back into `data`.
pub fn disassemble_bytes(data: &[u8]) -> Result<String> {
    let m = read(data)?;
    Ok(Dis::new(data, &m).run())
}

/// Disassembles an HMD model (as [`write()`] lays it out) into LAB source.
pub fn disassemble(m: &Hmd) -> Result<String> {
    let bytes = write(m)?;
    disassemble_bytes(&bytes)
}

struct Dis<'a> {
    words: Vec<u32>,
    tail: &'a [u8],
    m: &'a Hmd,
    labels: BTreeMap<u32, String>,
    /// Labels inside regions (key frames), printed where raw words pass them.
    interior: BTreeMap<u32, String>,
    /// Control section → parameter section, from the animation headers.
    params_of: BTreeMap<u32, u32>,
    /// Raw words as signed decimals (key frames) instead of hex.
    decimal: bool,
    out: String,
}

fn role_name(r: SectionRole) -> &'static str {
    use SectionRole::*;
    match r {
        Polygon => "PolySect",
        Vertex => "VertSect",
        Normal => "NormSect",
        CalculatedVertex => "CalcedVertSect",
        CalculatedNormal => "CalcedNormSect",
        Image => "ImageSect",
        Clut => "ClutSect",
        InterpolationTable => "InterpFuncSect",
        SequenceControl => "CtrlSect",
        Parameters => "ParamSect",
        AnimationTarget => "TargetSect",
        MimeDiff => "MIMeDiffSect",
        MimeOriginal => "OrgsVNSect",
        MimeWeights => "MIMePRSect",
        GroundPolygon => "GndPolySect",
        GroundGrid => "GridSect",
        GroundVertex => "GndVertSect",
        GroundUv => "GndUVSect",
        DeviceParameters => "DevParamSect",
        Unknown => "Sect",
    }
}

/// `name|name|0x..` for the bits of `v` that `table` names; `None` when nothing is named.
fn flags(v: u32, table: &[(&str, u32)]) -> String {
    let mut parts = Vec::new();
    let mut left = v;
    for (n, b) in table {
        if *b != 0 && left & b == *b {
            parts.push((*n).to_string());
            left &= !b;
        }
    }
    if left != 0 || parts.is_empty() {
        parts.push(format!("0x{left:02x}"));
    }
    parts.join("|")
}

const POLY_DRV: [(&str, u32); 8] = [
    ("INI", 0x80),
    ("CLP", 0x40),
    ("STP", 0x20),
    ("BOT", 0x10),
    ("ADV", 0x08),
    ("LGT", 0x04),
    ("FOG", 0x02),
    ("DIV", 0x01),
];

const POLY_TYPE: [(&str, u32); 11] = [
    ("MIMe", 0x0400),
    ("TILE", 0x0200),
    ("PST", 0x0100),
    ("MIP", 0x0080),
    ("LMD", 0x0040),
    ("MESH", 0x0018),
    ("QUAD", 0x0010),
    ("TRI", 0x0008),
    ("IIP", 0x0004),
    ("COL", 0x0002),
    ("TME", 0x0001),
];

/// The `hmd.def` expression of a type word (primitive or interpolation type).
pub(crate) fn type_word(w: u32) -> String {
    let dev = w >> 28;
    let ctg = (w >> 24) & 0xF;
    let drv = (w >> 16) & 0xFF;
    let pt = w & 0xFFFF;
    let ctg_s = match ctg {
        0 => "CTG_POLY".to_string(),
        1 => "CTG_SHARED".to_string(),
        2 => "CTG_IMAGE".to_string(),
        3 => "CTG_ANIM".to_string(),
        4 => "CTG_MIMe".to_string(),
        5 => "CTG_GND".to_string(),
        7 => "CTG_EQUIP".to_string(),
        c => c.to_string(),
    };
    let dev_s = if dev == 0 {
        "SCE".to_string()
    } else {
        format!("0x{dev:x}")
    };
    let (drv_s, pt_s) = match (dev, ctg) {
        (0, 0 | 1) => {
            // POLY_TYPE lists MESH before QUAD/TRI so a strip code is named once.
            let code = pt & 0x38;
            let mut parts = Vec::new();
            let mut left = pt;
            for (n, b) in POLY_TYPE {
                let is_code = matches!(b, 0x18 | 0x10 | 0x08);
                if is_code {
                    if code == b && left & 0x38 == b {
                        parts.push(n.to_string());
                        left &= !0x38;
                    }
                } else if left & b != 0 {
                    parts.push(n.to_string());
                    left &= !b;
                }
            }
            if left != 0 || parts.is_empty() {
                parts.push(format!("0x{left:04x}"));
            }
            (flags(drv, &POLY_DRV), parts.join("|"))
        }
        (0, 3) => {
            let mut d = Vec::new();
            if drv & 0x80 != 0 {
                d.push("INI".to_string());
            }
            d.push(match drv & 0x70 {
                0 => "CAT_STD".to_string(),
                c => format!("0x{c:02x}"),
            });
            d.push(match drv & 0x0F {
                0 => "TGT_COORD".to_string(),
                1 => "TGT_GENERAL".to_string(),
                t => format!("0x{t:02x}"),
            });
            let pt_s = if drv & 0x0F == 0 {
                let names = |v: u32, t: &[(&str, u32)]| {
                    t.iter()
                        .find(|(_, x)| *x == v)
                        .map_or(format!("0x{v:04x}"), |(n, _)| n.to_string())
                };
                let rot = [
                    ("ROT_XYZ", 0x0000),
                    ("ROT_XZY", 0x1000),
                    ("ROT_YXZ", 0x2000),
                    ("ROT_YZX", 0x3000),
                    ("ROT_ZXY", 0x4000),
                    ("ROT_ZYX", 0x5000),
                ];
                let si = [
                    ("SI_NONE", 0x000),
                    ("SI_LINEAR", 0x100),
                    ("SI_BEZIER", 0x200),
                    ("SI_BSPLINE", 0x300),
                    ("SI_LINEAR_1", 0x900),
                    ("SI_BEZIER_1", 0xa00),
                    ("SI_BSPLINE_1", 0xb00),
                ];
                let ri = [
                    ("RI_NONE", 0x00),
                    ("RI_LINEAR", 0x10),
                    ("RI_BEZIER", 0x20),
                    ("RI_BSPLINE", 0x30),
                ];
                let ti = [
                    ("TI_NONE", 0x0),
                    ("TI_LINEAR", 0x1),
                    ("TI_BEZIER", 0x2),
                    ("TI_BSPLINE", 0x3),
                    ("TI_LINEAR_S", 0x9),
                    ("TI_BEZIER_S", 0xa),
                    ("TI_BSPLINE_S", 0xb),
                ];
                format!(
                    "{}|{}|{}|{}",
                    names(pt & 0xF000, &rot),
                    names(pt & 0x0F00, &si),
                    names(pt & 0x00F0, &ri),
                    names(pt & 0x000F, &ti)
                )
            } else if drv & 0x0F == 1 && pt & 0xF000 == 0 && pt & 0xF <= 2 {
                let alg = ["GI_NONE", "GI_LINEAR", "GI_BEZIER", "GI_BSPLINE"]
                    .get(((pt >> 8) & 0xF) as usize)
                    .map_or(format!("0x{:04x}", pt & 0x0F00), |s| s.to_string());
                let len = ["GI_32", "GI_16", "GI_8"][(pt & 0xF) as usize];
                format!("{alg}|GI_WR({})|{len}", (pt >> 4) & 0xF)
            } else {
                format!("0x{pt:04x}")
            };
            (d.join("|"), pt_s)
        }
        (0, 7) => {
            let kind = match pt {
                0x0100 => "CAMERA".to_string(),
                0x0200 => "LIGHT".to_string(),
                p => format!("0x{p:04x}"),
            };
            (format!("0x{drv:02x}"), kind)
        }
        _ => (format!("0x{drv:02x}"), format!("0x{pt:04x}")),
    };
    format!("DEV_ID({dev_s})|CTG({ctg_s})|DRV({drv_s})|PRIM_TYPE({pt_s})")
}

/// The `hmd.def` expression of a sequence descriptor.
pub(crate) fn descriptor(w: u32) -> String {
    if w & 0x8000_0000 == 0 {
        format!(
            "SEQD(NORMAL)|TYPE_IDX({})|TFRAME({})|PARAM_IDX({})",
            (w >> 24) & 0x7F,
            (w >> 16) & 0xFF,
            w & 0xFFFF
        )
    } else if w & 0x4000_0000 == 0 {
        format!(
            "SEQD(JUMP)|SID_DST({})|SID_CND({})|SEQ_IDX({})",
            (w >> 23) & 0x7F,
            (w >> 16) & 0x7F,
            w & 0xFFFF
        )
    } else {
        format!(
            "SEQD(CONTROL)|CODE({})|P1({})|P2({})",
            (w >> 23) & 0x7F,
            (w >> 16) & 0x7F,
            w & 0xFFFF
        )
    }
}

fn h(v: u32) -> String {
    format!("H({})", v as i16)
}

impl<'a> Dis<'a> {
    fn new(data: &'a [u8], m: &'a Hmd) -> Self {
        let whole = data.len() / 4 * 4;
        let words = data[..whole]
            .chunks_exact(4)
            .map(|c| Le::u32_from([c[0], c[1], c[2], c[3]]))
            .collect();
        Dis {
            words,
            tail: &data[whole..],
            m,
            labels: BTreeMap::new(),
            interior: BTreeMap::new(),
            params_of: BTreeMap::new(),
            decimal: false,
            out: String::new(),
        }
    }

    fn label(&mut self, at: u32, name: String) {
        self.labels.entry(at).or_insert(name);
    }

    /// `Label / 4` for a word offset with a label, else the number.
    fn ptr(&self, w: u32) -> String {
        match self.labels.get(&w) {
            Some(l) => format!("{l} / 4"),
            None => format!("0x{w:08x}"),
        }
    }

    fn word(&self, at: usize) -> u32 {
        self.words.get(at).copied().unwrap_or(0)
    }

    fn line(&mut self, s: &str) {
        self.out.push('\t');
        self.out.push_str(s);
        self.out.push('\n');
    }

    fn raw(&mut self, from: usize, to: usize) {
        let to = to.min(self.words.len());
        let mut k = from;
        while k < to {
            if let Some(l) = self.interior.get(&(k as u32)) {
                let _ = writeln!(self.out, "{l}:");
            }
            let next_label = self
                .interior
                .range(k as u32 + 1..to as u32)
                .next()
                .map_or(to, |(&a, _)| a as usize);
            let end = (k + 4).min(to).min(next_label);
            let row: Vec<String> = (k..end)
                .map(|i| {
                    if self.decimal {
                        format!("{};", self.words[i] as i32)
                    } else {
                        format!("0x{:08x};", self.words[i])
                    }
                })
                .collect();
            self.line(&row.join(" "));
            k = end;
        }
    }

    fn run(mut self) -> String {
        let m = self.m;
        // Labels first: every region and the units inside the first two.
        let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
        for r in &m.regions {
            let mut next = |base: &'static str| {
                let k = counts.entry(base).or_insert(0);
                *k += 1;
                format!("{base}_{:04}", *k - 1)
            };
            match &r.body {
                RegionBody::Coordinates(c) => {
                    self.label(r.offset, "CoordSect".to_string());
                    for k in 0..c.len() {
                        self.label(r.offset + 1 + 20 * k as u32, format!("Coord_{k:04}"));
                    }
                }
                RegionBody::PrimitiveHeaders(hs) => {
                    self.label(r.offset, "PrimHdrSect".to_string());
                    let mut at = r.offset + 1;
                    for (k, hdr) in hs.iter().enumerate() {
                        self.label(at, format!("PrimHdr_{k:04}"));
                        at += 1 + hdr.words.len() as u32;
                    }
                }
                RegionBody::Primitive(_) => {
                    let l = next("PrimSet");
                    self.label(r.offset, l);
                }
                RegionBody::Section(s) => {
                    let l = next(role_name(s.role));
                    self.label(r.offset, l);
                }
                RegionBody::Gap(_) => {
                    let l = next("Gap");
                    self.label(r.offset, l);
                }
            }
        }
        // Key frames: every NORMAL descriptor's parameter word gets a label in its section.
        for a in m.animations() {
            let (Some(Some(ctrl)), Some(Some(param))) = (a.sections.get(2), a.sections.get(3))
            else {
                continue;
            };
            let (ctrl, param) = (*ctrl, *param);
            if self.params_of.contains_key(&ctrl) || !self.labels.contains_key(&param) {
                continue;
            }
            self.params_of.insert(ctrl, param);
            // Only sections written as raw words print labels inside them.
            let param_end = m
                .regions
                .iter()
                .find(|r| r.offset == param)
                .filter(|r| {
                    matches!(
                        &r.body,
                        RegionBody::Section(s)
                            if !matches!(
                                s.data,
                                SectionData::Vectors { .. }
                                    | SectionData::SequenceControl(_)
                                    | SectionData::InterpolationTable { .. }
                            )
                    )
                })
                .map_or(param, |r| param + r.body.words() as u32);
            let ctrl_len = m
                .regions
                .iter()
                .find(|r| r.offset == ctrl)
                .map_or(0, |r| r.body.words() as u32);
            for k in 0..ctrl_len {
                let d = self.word((ctrl + k) as usize);
                if d & 0x8000_0000 != 0 {
                    continue;
                }
                let at = param + (d & 0xFFFF);
                if at > param && at < param_end && !self.labels.contains_key(&at) {
                    let n = self.interior.len();
                    self.interior
                        .entry(at)
                        .or_insert_with(|| format!("Key_{n:04}"));
                }
            }
        }
        let n = m.blocks.len();
        self.out.push_str(
            "/* HMD disassembled by retroanim; `retroanim asm` turns it back into the same bytes */\n\
             #include <hmd/hmd.def>\n\n",
        );
        self.line("HMD_VERSION;");
        let mf = self.word(1);
        self.line(&format!("0x{mf:08x};\t/* MAP FLAG */"));
        let ph = self.word(2);
        let phs = self.ptr(ph);
        self.line(&format!("{phs};\t/* primitive header section */"));
        self.line(&format!("{n};\t/* num of blocks */"));
        for k in 0..n {
            let b = self.word(4 + k);
            let s = if b == 0 { "0".to_string() } else { self.ptr(b) };
            let what = match k {
                0 => " (pre-process)".to_string(),
                _ if k + 1 == n => " (post-process)".to_string(),
                _ => format!(" (coordinate {})", k - 1),
            };
            self.line(&format!("{s};\t/* block {k}{what} */"));
        }
        let mut at = 4 + n;
        for r in &m.regions {
            let start = r.offset as usize;
            if start > at {
                self.raw(at, start);
            }
            self.out.push('\n');
            // Every label at this offset (zero-length regions share it).
            let names: Vec<String> = self
                .labels
                .range(r.offset..=r.offset)
                .map(|(_, l)| l.clone())
                .collect();
            for l in names {
                let _ = writeln!(self.out, "{l}:");
            }
            let end = start + r.body.words();
            match &r.body {
                RegionBody::Coordinates(c) => self.coordinates(start, c.len()),
                RegionBody::PrimitiveHeaders(hs) => {
                    let count: Vec<usize> = hs.iter().map(|h| h.words.len()).collect();
                    self.headers(start, &count);
                }
                RegionBody::Primitive(p) => {
                    let sizes: Vec<(usize, bool)> = p
                        .types
                        .iter()
                        .map(|t| (t.data.words(), matches!(t.data, TypeData::Sequences(_))))
                        .collect();
                    self.primitive(start, &sizes);
                }
                RegionBody::Section(s) => self.section(start, end, &s.data),
                RegionBody::Gap(_) => self.raw(start, end),
            }
            at = at.max(end);
        }
        if at < self.words.len() {
            self.raw(at, self.words.len());
        }
        if !self.tail.is_empty() {
            let t: Vec<String> = self.tail.iter().map(|b| format!("B(0x{b:02x});")).collect();
            let s = format!("{}\t/* bytes after the last word */", t.join(" "));
            self.line(&s);
        }
        self.out
    }

    fn matrix(&mut self, at: usize, what: &str) {
        let hw = |k: usize| -> u32 {
            let w = self.word(at + k / 2);
            if k % 2 == 0 {
                w & 0xFFFF
            } else {
                w >> 16
            }
        };
        let m: Vec<i16> = (0..9).map(|k| hw(k) as i16).collect();
        let pad = hw(9);
        let t: Vec<i32> = (0..3).map(|k| self.word(at + 5 + k) as i32).collect();
        if pad == 0 {
            self.line(&format!(
                "MATRIX(\t/* {what} */\n\t\t{:6}, {:6}, {:6},\n\t\t{:6}, {:6}, {:6},\n\t\t{:6}, {:6}, {:6},\n\t\t{:6}, {:6}, {:6});",
                m[0], m[1], m[2], m[3], m[4], m[5], m[6], m[7], m[8], t[0], t[1], t[2]
            ));
        } else {
            let hs: Vec<String> = (0..10).map(|k| format!("{};", h(hw(k)))).collect();
            self.line(&format!("{}\t/* {what} m[3][3], pad */", hs.join(" ")));
            self.line(&format!("{}; {}; {};\t/* {what} t */", t[0], t[1], t[2]));
        }
    }

    fn svector(&mut self, at: usize, what: &str) {
        let a = self.word(at);
        let b = self.word(at + 1);
        let (x, y, z, p) = (a as u16 as i16, (a >> 16) as i16, b as u16 as i16, b >> 16);
        if p == 0 {
            self.line(&format!("SVECTOR({x:6}, {y:6}, {z:6});\t/* {what} */"));
        } else {
            self.line(&format!(
                "H({x}); H({y}); H({z}); {};\t/* {what}, pad */",
                h(p)
            ));
        }
    }

    fn coordinates(&mut self, at: usize, count: usize) {
        self.line(&format!("{};\t/* num of coords */", self.word(at)));
        for k in 0..count {
            let u = at + 1 + 20 * k;
            self.out.push('\n');
            let _ = writeln!(self.out, "Coord_{k:04}:");
            self.line(&format!("0x{:08x};\t/* flg */", self.word(u)));
            // COORDM when the matrix is labp's RotMatrix of `rot` and the work matrix is zero.
            let m0 = self.word(u + 1);
            let rot = [
                self.word(u + 17) as u16 as i16,
                (self.word(u + 17) >> 16) as i16,
                self.word(u + 18) as u16 as i16,
            ];
            let rpad = self.word(u + 18) >> 16;
            let mut mat = [0i16; 9];
            for (j, e) in mat.iter_mut().enumerate() {
                let w = self.word(u + 1 + j / 2);
                *e = if j % 2 == 0 {
                    w as u16 as i16
                } else {
                    (w >> 16) as i16
                };
            }
            let pad = self.word(u + 5) >> 16;
            let workm_zero = (u + 9..u + 17).all(|i| self.word(i) == 0);
            let _ = m0;
            if pad == 0
                && rpad == 0
                && workm_zero
                && mat == labp_rot_matrix([rot[0].into(), rot[1].into(), rot[2].into()])
            {
                let t: Vec<i32> = (0..3).map(|j| self.word(u + 6 + j) as i32).collect();
                self.line(&format!(
                    "COORDM({}, {}, {},\t/* rot */\n\t\t{}, {}, {});\t/* trans */",
                    rot[0], rot[1], rot[2], t[0], t[1], t[2]
                ));
            } else {
                self.matrix(u + 1, "matrix");
                self.matrix(u + 9, "workm");
                self.svector(u + 17, "rot");
            }
            let sup = self.word(u + 19);
            let s = if sup == 0 {
                "0".to_string()
            } else {
                self.ptr(sup)
            };
            self.line(&format!("{s};\t/* super */"));
        }
    }

    fn headers(&mut self, at: usize, sizes: &[usize]) {
        self.line(&format!("{};\t/* num prim hdrs */", self.word(at)));
        let mut p = at + 1;
        for (k, &size) in sizes.iter().enumerate() {
            self.out.push('\n');
            let _ = writeln!(self.out, "PrimHdr_{k:04}:");
            self.line(&format!("{};\t/* hdr size */", self.word(p)));
            for i in 0..size {
                let w = self.word(p + 1 + i);
                let s = if w & 0x8000_0000 != 0 && self.labels.contains_key(&(w & 0x7FFF_FFFF)) {
                    format!("M({});", self.ptr(w & 0x7FFF_FFFF))
                } else {
                    format!("0x{w:08x};")
                };
                self.line(&s);
            }
            p += 1 + size;
        }
    }

    fn primitive(&mut self, at: usize, types: &[(usize, bool)]) {
        let next = self.word(at);
        let s = if next == 0xFFFF_FFFF {
            "TERMINATE".to_string()
        } else {
            self.ptr(next)
        };
        self.line(&format!("{s};\t/* next prim */"));
        let hdr = self.word(at + 1);
        let s = self.ptr(hdr);
        self.line(&format!("{s};\t/* prim hdr */"));
        let n = self.word(at + 2);
        let s = if n & 0x8000_0000 != 0 {
            format!("M({})", n & 0x7FFF_FFFF)
        } else {
            n.to_string()
        };
        self.line(&format!("{s};\t/* num of types */"));
        let mut p = at + 3;
        for &(words, seqs) in types {
            self.out.push('\n');
            let t = self.word(p);
            self.line(&format!("{};", type_word(t)));
            let cs = self.word(p + 1);
            let count = (cs >> 16) & 0x7FFF;
            let cnt = if cs & 0x8000_0000 != 0 {
                format!("M(H({count}))")
            } else {
                format!("H({count})")
            };
            self.line(&format!("H({}); {cnt};\t/* size, data */", cs & 0xFFFF));
            if seqs {
                self.sequences(p + 2, p + 2 + words);
            } else {
                self.raw(p + 2, p + 2 + words);
            }
            p += 2 + words;
        }
    }

    /// Sequence pointers (GsSEQ, 7 words + one per extra sequence).
    fn sequences(&mut self, from: usize, to: usize) {
        let mut p = from;
        while p + 7 <= to {
            let w: Vec<u32> = (0..7).map(|k| self.word(p + k)).collect();
            let size = (w[1] & 0xFFFF) as usize;
            let lo = |x: u32| x & 0xFFFF;
            let hi = |x: u32| x >> 16;
            self.line(&format!(
                "SECT_OFFSET({})|OFFSET_IN_SECT({});\t/* update index */",
                w[0] >> 24,
                w[0] & 0xFF_FFFF
            ));
            self.line(&format!(
                "H({}); H({});\t/* size, num of sequences */",
                lo(w[1]),
                hi(w[1])
            ));
            self.line(&format!(
                "H(0x{:04x}); H(0x{:04x});\t/* intr idx, aframe */",
                lo(w[2]),
                hi(w[2])
            ));
            self.line(&format!(
                "B({}); B(0x{:02x}); H(0x{:04x});\t/* stream id, speed, src intr idx */",
                w[3] & 0xFF,
                (w[3] >> 8) & 0xFF,
                hi(w[3])
            ));
            self.line(&format!(
                "H(0x{:04x}); H(0x{:04x});\t/* rframe, tframe */",
                lo(w[4]),
                hi(w[4])
            ));
            self.line(&format!(
                "H({}); H({});\t/* ctr idx, tctr idx */",
                lo(w[5]),
                hi(w[5])
            ));
            self.line(&format!(
                "H({}); B({}); B({});\t/* start idx, start sid, traveling */",
                lo(w[6]),
                (w[6] >> 16) & 0xFF,
                w[6] >> 24
            ));
            // Extra sequences: one word each, up to the pointer's size (never past `to`).
            let extra_end = (p + size.max(7)).min(to);
            for k in p + 7..extra_end {
                let x = self.word(k);
                self.line(&format!(
                    "H({}); B({}); B({});\t/* sequence idx, sid, pad */",
                    lo(x),
                    (x >> 16) & 0xFF,
                    x >> 24
                ));
            }
            p = extra_end.max(p + 7);
        }
        self.raw(p, to);
    }

    fn section(&mut self, from: usize, to: usize, data: &SectionData) {
        match data {
            SectionData::Vectors { vectors, .. } => {
                for k in 0..vectors.len() {
                    self.svector(from + 2 * k, &format!("[{k}]"));
                }
                self.raw(from + 2 * vectors.len(), to);
            }
            SectionData::SequenceControl(d) => {
                let param = self.params_of.get(&(from as u32)).copied();
                for k in 0..d.len().min(to - from) {
                    let w = self.word(from + k);
                    let s = match param {
                        Some(p) if w & 0x8000_0000 == 0 => {
                            let at = p + (w & 0xFFFF);
                            let key = self
                                .interior
                                .get(&at)
                                .or_else(|| (at == p).then(|| self.labels.get(&p)).flatten());
                            match (key, self.labels.get(&p)) {
                                (Some(key), Some(sect)) => format!(
                                    "SEQD(NORMAL)|TYPE_IDX({})|TFRAME({})|PARAM_IDX(({key} - {sect}) / 4)",
                                    (w >> 24) & 0x7F,
                                    (w >> 16) & 0xFF
                                ),
                                _ => descriptor(w),
                            }
                        }
                        _ => descriptor(w),
                    };
                    self.line(&format!("{s};\t/* [{k}] */"));
                }
                self.raw(from + d.len(), to);
            }
            SectionData::InterpolationTable { types, .. } => {
                let c = self.word(from);
                let s = if c & 0x8000_0000 != 0 {
                    format!("M({})", c & 0x7FFF_FFFF)
                } else {
                    c.to_string()
                };
                self.line(&format!("{s};\t/* num of types */"));
                for k in 0..types.len().min(to.saturating_sub(from + 1)) {
                    let s = type_word(self.word(from + 1 + k));
                    self.line(&format!("{s};\t/* type [{k}] */"));
                }
                self.raw(from + 1 + types.len(), to);
            }
            SectionData::Parameters(_) => {
                self.decimal = true;
                self.raw(from, to);
                self.decimal = false;
            }
            _ => self.raw(from, to),
        }
    }
}
