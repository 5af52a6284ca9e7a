//! TMD validation: every finding with its severity and byte offset.

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

fn check_primitive(i: usize, k: usize, o: &Object, p: &Primitive, at: u64, out: &mut Vec<Issue>) {
    let name = format!(
        "object {i} primitive {k} (mode 0x{:02x} flag 0x{:02x})",
        p.mode, p.flag
    );
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
