//! TMD writer: [`Tmd`] → bytes. Blocks go where the object table's pointers say, so an unchanged
//! model writes the bytes it was read from; [`Tmd::pack`] lays out a model built by hand.

use crate::bytes::Writer;
use crate::error::{Error, Result};
use crate::Format;

use super::types::*;
use super::{FILE_ID, OBJECT_TABLE, OBJECT_WORDS};

fn unencodable(what: String) -> Error {
    Error::Unencodable {
        format: Format::Tmd,
        what,
    }
}

impl Tmd {
    /// Assigns the pointers of every object the way the PsyQ tools lay a file out: the object
    /// table, then every object's primitives, then every object's vertices, then every object's
    /// normals, in object order; gaps are dropped.
    pub fn pack(&mut self) {
        let table = (self.objects.len() * OBJECT_WORDS * 4) as u32;
        let base = if self.flags & 1 != 0 {
            self.address_base
        } else {
            0
        };
        let mut at = table;
        for o in &mut self.objects {
            o.primitive_top = base.wrapping_add(at);
            at += o.primitives.iter().map(|p| p.bytes() as u32).sum::<u32>();
        }
        for o in &mut self.objects {
            o.vert_top = base.wrapping_add(at);
            at += o.vertices.len() as u32 * 8;
        }
        for o in &mut self.objects {
            o.normal_top = base.wrapping_add(at);
            at += o.normals.len() as u32 * 8;
        }
        self.gaps.clear();
    }
}

/// Writes a TMD file.
pub fn write(tmd: &Tmd) -> Result<Vec<u8>> {
    let base = if tmd.flags & 1 != 0 {
        tmd.address_base
    } else {
        0
    };
    let table_end = OBJECT_TABLE + tmd.objects.len() * OBJECT_WORDS * 4;
    // Every block, rendered, with its file position.
    let mut blocks: Vec<(usize, Vec<u8>, String)> = Vec::new();
    let pos = |top: u32| OBJECT_TABLE + top.wrapping_sub(base) as usize;
    for (i, o) in tmd.objects.iter().enumerate() {
        if !o.primitives.is_empty() {
            let mut w = Writer::le();
            for (k, p) in o.primitives.iter().enumerate() {
                write_primitive(&mut w, p)
                    .map_err(|e| unencodable(format!("object {i} primitive {k}: {e}")))?;
            }
            blocks.push((
                pos(o.primitive_top),
                w.into_vec(),
                format!("object {i} primitives"),
            ));
        }
        for (list, top, what) in [
            (&o.vertices, o.vert_top, "vertices"),
            (&o.normals, o.normal_top, "normals"),
        ] {
            if list.is_empty() {
                continue;
            }
            let mut w = Writer::le();
            for v in list {
                w.i16(v.x);
                w.i16(v.y);
                w.i16(v.z);
                w.i16(v.pad);
            }
            blocks.push((pos(top), w.into_vec(), format!("object {i} {what}")));
        }
    }
    for g in &tmd.gaps {
        blocks.push((g.offset as usize, g.bytes.clone(), "gap".into()));
    }
    let mut w = Writer::le();
    w.u32(FILE_ID);
    w.u32(tmd.flags);
    w.u32(u32::try_from(tmd.objects.len()).map_err(|_| unencodable("too many objects".into()))?);
    for o in &tmd.objects {
        for v in [
            o.vert_top,
            o.vertices.len() as u32,
            o.normal_top,
            o.normals.len() as u32,
            o.primitive_top,
            o.primitives.len() as u32,
            o.scale as u32,
        ] {
            w.u32(v);
        }
    }
    debug_assert_eq!(w.len(), table_end);
    blocks.push((0, w.into_vec(), "header and object table".into()));
    // The file is exactly these blocks: no byte may be left uncovered (that also bounds the
    // allocation by the model's own size). Blocks may overlap (shared data, or a pointer into
    // the table) when they agree on the bytes.
    blocks.sort_by_key(|b| b.0);
    let mut end = 0;
    for (at, bytes, what) in &blocks {
        if *at > end {
            return Err(unencodable(format!(
                "bytes {end}..{at} are covered by no block or gap (before {what}); call Tmd::pack() to lay the file out"
            )));
        }
        end = end.max(at + bytes.len());
    }
    let mut out = vec![0u8; end];
    let mut written = vec![false; end];
    for (at, bytes, what) in &blocks {
        let range = *at..at + bytes.len();
        for (k, b) in range.clone().zip(bytes) {
            if written[k] && out[k] != *b {
                return Err(unencodable(format!(
                    "{what} overlaps another block at byte {k} with different content"
                )));
            }
        }
        out[range.clone()].copy_from_slice(bytes);
        written[range].iter_mut().for_each(|x| *x = true);
    }
    Ok(out)
}

fn write_primitive(
    w: &mut Writer<crate::bytes::Le>,
    p: &Primitive,
) -> std::result::Result<(), String> {
    let ilen = p.ilen();
    let ilen8 = u8::try_from(ilen).map_err(|_| format!("{ilen} data words; ilen holds 255"))?;
    w.u8(p.olen);
    w.u8(ilen8);
    w.u8(p.flag);
    w.u8(p.mode);
    let rgbx = |w: &mut Writer<crate::bytes::Le>, c: &Rgbx| w.bytes(&[c.r, c.g, c.b, c.x]);
    let uv = |w: &mut Writer<crate::bytes::Le>, t: &Uv| {
        w.u8(t.u);
        w.u8(t.v);
        w.u16(t.extra);
    };
    match &p.data {
        PrimitiveData::Polygon(poly) => {
            if p.code() != 1 {
                return Err(format!(
                    "polygon data under mode 0x{:02x} (CODE is not 1)",
                    p.mode
                ));
            }
            let l = PolygonLayout::of(p.mode, p.flag);
            let got = (
                poly.colors.len(),
                poly.uvs.len(),
                poly.normals.len(),
                poly.vertices.len(),
            );
            if got != (l.colors, l.uvs, l.normals, l.vertices) {
                return Err(format!(
                    "mode 0x{:02x} flag 0x{:02x} needs {} colours, {} uvs, {} normals, {} vertices; the polygon has {got:?}",
                    p.mode, p.flag, l.colors, l.uvs, l.normals, l.vertices
                ));
            }
            poly.uvs.iter().for_each(|t| uv(w, t));
            poly.colors.iter().for_each(|c| rgbx(w, c));
            let mut halves = Vec::with_capacity(l.halfwords() + 1);
            if l.normals == l.vertices {
                for (n, v) in poly.normals.iter().zip(&poly.vertices) {
                    halves.extend([*n, *v]);
                }
            } else {
                halves.extend(&poly.normals);
                halves.extend(&poly.vertices);
            }
            if halves.len() % 2 == 1 {
                halves.push(poly.pad);
            }
            halves.iter().for_each(|&h| w.u16(h));
        }
        PrimitiveData::Line(line) => {
            let n = if p.mode & mode::IIP != 0 { 2 } else { 1 };
            if p.code() != 2 || line.colors.len() != n {
                return Err(format!(
                    "line data under mode 0x{:02x} needs CODE 2 and {n} colours",
                    p.mode
                ));
            }
            line.colors.iter().for_each(|c| rgbx(w, c));
            w.u16(line.vertices[0]);
            w.u16(line.vertices[1]);
        }
        PrimitiveData::Sprite(s) => {
            let free = (p.mode >> 3) & 3 == 0;
            if p.code() != 3 || free != s.size.is_some() {
                return Err(format!(
                    "sprite data under mode 0x{:02x} needs CODE 3 and a size exactly for SIZ 0",
                    p.mode
                ));
            }
            w.u16(s.vertex);
            w.u16(s.tsb);
            uv(w, &s.uv);
            if let Some([wd, ht]) = s.size {
                w.u16(wd);
                w.u16(ht);
            }
        }
        PrimitiveData::Raw { words } => words.iter().for_each(|&x| w.u32(x)),
    }
    Ok(())
}
