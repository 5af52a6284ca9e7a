//! TMD validation: every finding with its severity and byte offset.

use std::fmt;

use crate::report::Issue;

use super::read::expected_words;
use super::types::*;
use super::{OBJECT_TABLE, OBJECT_WORDS};

/// Checks a TMD model and returns every finding. Offsets are those of the file the model
/// describes (blocks sit where their pointers say).
pub fn validate(tmd: &Tmd) -> Vec<Issue> {
    let mut out = Vec::new();
    if tmd.flags & !1 != 0 {
        out.push(Issue::warning(
            4,
            "reserved-value",
            format!(
                "FLAGS 0x{:08x} sets reserved bits (only bit 0, FIXP, is defined)",
                tmd.flags
            ),
        ));
    }
    if tmd.flags & 1 != 0 {
        out.push(Issue::info(
            4,
            "fixp",
            format!(
                "FIXP set: pointers are RAM addresses (object table taken to be at 0x{:08x})",
                tmd.address_base
            ),
        ));
    }
    if tmd.objects.is_empty() {
        out.push(Issue::warning(
            8,
            "no-objects",
            "NOBJ is 0: the model is empty",
        ));
    }
    let base = if tmd.flags & 1 != 0 {
        tmd.address_base
    } else {
        0
    };
    for (i, o) in tmd.objects.iter().enumerate() {
        let entry = (OBJECT_TABLE + i * OBJECT_WORDS * 4) as u64;
        if !(-8..=8).contains(&o.scale) {
            out.push(Issue::warning(
                entry + 24,
                "scale",
                format!(
                    "object {i}: scale exponent {} (2^{}) is implausible",
                    o.scale, o.scale
                ),
            ));
        }
        let mut at = OBJECT_TABLE as u64 + o.primitive_top.wrapping_sub(base) as u64;
        for (k, p) in o.primitives.iter().enumerate() {
            check_primitive(i, k, o, p, at, &mut out);
            at += p.bytes() as u64;
        }
    }
    for g in &tmd.gaps {
        out.push(Issue::warning(
            g.offset as u64,
            "unreferenced-bytes",
            format!("{} bytes belong to no object's block", g.bytes.len()),
        ));
    }
    out
}

/// How a finding names a primitive: formatted only when a finding is reported (a model has
/// thousands of primitives and most have none).
struct PrimitiveName {
    object: usize,
    index: usize,
    mode: u8,
    flag: u8,
}

impl fmt::Display for PrimitiveName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "object {} primitive {} (mode 0x{:02x} flag 0x{:02x})",
            self.object, self.index, self.mode, self.flag
        )
    }
}

fn check_primitive(i: usize, k: usize, o: &Object, p: &Primitive, at: u64, out: &mut Vec<Issue>) {
    let name = PrimitiveName {
        object: i,
        index: k,
        mode: p.mode,
        flag: p.flag,
    };
    if let PrimitiveData::Raw { words } = &p.data {
        match expected_words(p.mode, p.flag) {
            Some(n) => out.push(Issue::error(
                at + 1,
                "primitive-length",
                format!(
                    "{name}: ilen is {} but the layout needs {n} words",
                    words.len()
                ),
            )),
            None => out.push(Issue::warning(
                at + 3,
                "unknown-primitive",
                format!(
                    "{name}: CODE {} is not polygon, line or sprite; kept raw",
                    p.code()
                ),
            )),
        }
        return;
    }
    if p.flag & !7 != 0 {
        out.push(Issue::warning(
            at + 2,
            "reserved-value",
            format!("{name}: flag sets bits beyond LGT, FCE and GRD"),
        ));
    }
    check_layout(&name, p, at, out);
    let sprite;
    let (verts, norms): (&[u16], &[u16]) = match &p.data {
        PrimitiveData::Polygon(poly) => (&poly.vertices, &poly.normals),
        PrimitiveData::Line(l) => (&l.vertices, &[]),
        PrimitiveData::Sprite(s) => {
            sprite = [s.vertex];
            (&sprite, &[])
        }
        PrimitiveData::Raw { .. } => unreachable!("handled above"),
    };
    if let Some(v) = verts.iter().find(|&&v| v as usize >= o.vertices.len()) {
        out.push(Issue::error(
            at + 4,
            "vertex-index",
            format!(
                "{name}: vertex index {v}, but the object has {} vertices",
                o.vertices.len()
            ),
        ));
    }
    if let Some(n) = norms.iter().find(|&&n| n as usize >= o.normals.len()) {
        out.push(Issue::warning(
            at + 4,
            "normal-index",
            format!(
                "{name}: normal index {n}, but the object has {} normals (the console lights it with whatever follows)",
                o.normals.len()
            ),
        ));
    }
}

/// The typed fields hold as many entries as the mode and flag bytes ask for. A file read by
/// `read` always agrees (other packets stay raw); a model edited as JSON may not, and would then
/// be written with a different `ilen` than its header bytes promise.
fn check_layout(name: &PrimitiveName, p: &Primitive, at: u64, out: &mut Vec<Issue>) {
    let code = p.code();
    let mut wrong = Vec::new();
    match &p.data {
        PrimitiveData::Polygon(poly) => {
            if code != 1 {
                wrong.push(format!("CODE {code} is not a polygon's (1)"));
            }
            let l = PolygonLayout::of(p.mode, p.flag);
            for (what, has, wants) in [
                ("vertex indices", poly.vertices.len(), l.vertices),
                ("normal indices", poly.normals.len(), l.normals),
                ("colours", poly.colors.len(), l.colors),
                ("texture coordinates", poly.uvs.len(), l.uvs),
            ] {
                if has != wants {
                    wrong.push(format!("{has} {what}, the layout needs {wants}"));
                }
            }
        }
        PrimitiveData::Line(l) => {
            if code != 2 {
                wrong.push(format!("CODE {code} is not a line's (2)"));
            }
            let wants = if p.mode & mode::IIP != 0 { 2 } else { 1 };
            if l.colors.len() != wants {
                wrong.push(format!(
                    "{} colours, the layout needs {wants}",
                    l.colors.len()
                ));
            }
        }
        PrimitiveData::Sprite(sp) => {
            if code != 3 {
                wrong.push(format!("CODE {code} is not a sprite's (3)"));
            }
            // SIZ 0 (free size) stores width and height; the fixed sizes do not.
            let free = (p.mode >> 3) & 3 == 0;
            if sp.size.is_some() != free {
                wrong.push(format!(
                    "the size is {}given, the mode's SIZ bits say it is {}",
                    if sp.size.is_some() { "" } else { "not " },
                    if free {
                        "free (stored)"
                    } else {
                        "fixed (not stored)"
                    }
                ));
            }
        }
        _ => {}
    }
    if !wrong.is_empty() {
        out.push(Issue::error(
            at,
            "primitive-layout",
            format!("{name}: {}", wrong.join("; ")),
        ));
    }
}
