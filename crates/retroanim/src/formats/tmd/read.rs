//! TMD reader: `&[u8]` → [`Tmd`], every count checked against the bytes left first.

use crate::bytes::{Le, Reader};
use crate::error::Result;
use crate::limits::Limits;
use crate::Format;

use super::types::*;
use super::{FILE_ID, OBJECT_TABLE, OBJECT_WORDS};

/// Reads a TMD file with the default [`Limits`].
pub fn read(data: &[u8]) -> Result<Tmd> {
    read_with(data, &Limits::default())
}

/// Reads a TMD file with the given limits.
pub fn read_with(data: &[u8], limits: &Limits) -> Result<Tmd> {
    let mut r = Reader::le(data, Format::Tmd).with_limits(*limits);
    let id = r.u32("ID")?;
    if id != FILE_ID {
        return Err(r.malformed_at(0, format!("expected ID 0x00000041, found 0x{id:08x}")));
    }
    let flags = r.u32("FLAGS")?;
    let n = r.u32("NOBJ")?;
    let n = r.count(n as u64, OBJECT_WORDS * 4, "number of objects (NOBJ)")?;
    let mut entries = Vec::with_capacity(n);
    for _ in 0..n {
        let at = r.offset();
        let mut e = [0u32; 7];
        for (w, what) in e.iter_mut().zip([
            "vert_top",
            "n_vert",
            "normal_top",
            "n_normal",
            "primitive_top",
            "n_primitive",
            "scale",
        ]) {
            *w = r.u32(what)?;
        }
        entries.push((at, e));
    }
    let table_end = r.position();
    let address_base = if flags & 1 != 0 {
        infer_base(&entries, n)
    } else {
        0
    };
    let mut covered: Vec<(usize, usize)> = vec![(0, table_end)];
    let mut objects = Vec::with_capacity(n);
    for &(at, [vert_top, n_vert, normal_top, n_normal, primitive_top, n_primitive, scale]) in
        &entries
    {
        let vertices = read_vectors(
            &mut r,
            at,
            address_base,
            vert_top,
            n_vert,
            "vertices",
            &mut covered,
        )?;
        let normals = read_vectors(
            &mut r,
            at + 8,
            address_base,
            normal_top,
            n_normal,
            "normals",
            &mut covered,
        )?;
        let primitives = read_primitives(
            &mut r,
            at + 16,
            address_base,
            primitive_top,
            n_primitive,
            &mut covered,
        )?;
        objects.push(Object {
            vert_top,
            normal_top,
            primitive_top,
            scale: scale as i32,
            vertices,
            normals,
            primitives,
        });
    }
    Ok(Tmd {
        flags,
        address_base,
        objects,
        gaps: gaps(data, covered),
    })
}

/// With FIXP set the pointers are addresses; the object table's address is taken to be the
/// lowest pointer of a non-empty block minus the table's size (the first block follows the
/// table, as in every file the PsyQ tools write).
fn infer_base(entries: &[(u64, [u32; 7])], n: usize) -> u32 {
    entries
        .iter()
        .flat_map(|(_, e)| [(e[0], e[1]), (e[2], e[3]), (e[4], e[5])])
        .filter(|&(_, count)| count > 0)
        .map(|(top, _)| top)
        .min()
        .map_or(0, |top| top.wrapping_sub((n * OBJECT_WORDS * 4) as u32))
}

/// File position of a block from its pointer.
fn block_pos(r: &Reader<'_, Le>, field_at: u64, base: u32, top: u32, what: &str) -> Result<usize> {
    let pos = OBJECT_TABLE as u64 + top.wrapping_sub(base) as u64;
    if pos > r.len() as u64 {
        return Err(r.malformed_at(
            field_at,
            format!(
                "{what} pointer 0x{top:08x} points to byte {pos}, past the end of the file ({} bytes)",
                r.len()
            ),
        ));
    }
    Ok(pos as usize)
}

fn read_vectors(
    r: &mut Reader<'_, Le>,
    field_at: u64,
    base: u32,
    top: u32,
    count: u32,
    what: &str,
    covered: &mut Vec<(usize, usize)>,
) -> Result<Vec<SVector>> {
    if count == 0 {
        return Ok(Vec::new());
    }
    let pos = block_pos(r, field_at, base, top, what)?;
    r.seek(pos, what)?;
    let n = r
        .count(count as u64, 8, what)
        .map_err(|e| at_field(e, field_at + 4))?;
    let mut v = Vec::with_capacity(n);
    for _ in 0..n {
        v.push(SVector {
            x: r.i16("x")?,
            y: r.i16("y")?,
            z: r.i16("z")?,
            pad: r.i16("pad")?,
        });
    }
    covered.push((pos, r.position()));
    Ok(v)
}

/// Points a count error at the count's table field rather than the block.
fn at_field(e: crate::Error, field_at: u64) -> crate::Error {
    match e {
        crate::Error::Malformed { format, what, .. } => crate::Error::Malformed {
            format,
            offset: field_at,
            what,
        },
        e => e,
    }
}

fn read_primitives(
    r: &mut Reader<'_, Le>,
    field_at: u64,
    base: u32,
    top: u32,
    count: u32,
    covered: &mut Vec<(usize, usize)>,
) -> Result<Vec<Primitive>> {
    if count == 0 {
        return Ok(Vec::new());
    }
    let pos = block_pos(r, field_at, base, top, "primitives")?;
    r.seek(pos, "primitives")?;
    let n = r
        .count(count as u64, 4, "primitives")
        .map_err(|e| at_field(e, field_at + 4))?;
    let mut v = Vec::with_capacity(n);
    for _ in 0..n {
        v.push(read_primitive(r)?);
    }
    covered.push((pos, r.position()));
    Ok(v)
}

fn read_primitive(r: &mut Reader<'_, Le>) -> Result<Primitive> {
    let olen = r.u8("olen")?;
    let ilen = r.u8("ilen")? as usize;
    let flag_byte = r.u8("flag")?;
    let mode_byte = r.u8("mode")?;
    let mut body = r.sub(ilen * 4, "primitive data (ilen words)")?;
    let data = match expected_words(mode_byte, flag_byte) {
        Some(words) if words == ilen => decode(&mut body, mode_byte, flag_byte)?,
        _ => {
            let mut words = Vec::with_capacity(ilen);
            for _ in 0..ilen {
                words.push(body.u32("primitive word")?);
            }
            PrimitiveData::Raw { words }
        }
    };
    Ok(Primitive {
        olen,
        flag: flag_byte,
        mode: mode_byte,
        data,
    })
}

/// Data words the typed layout for `mode` and `flag` takes, or `None` for an unknown CODE.
pub(crate) fn expected_words(mode_byte: u8, flag_byte: u8) -> Option<usize> {
    match mode_byte >> mode::CODE_SHIFT {
        1 => Some(PolygonLayout::of(mode_byte, flag_byte).words()),
        2 => Some(if mode_byte & mode::IIP != 0 { 3 } else { 2 }),
        3 => Some(if (mode_byte >> 3) & 3 == 0 { 3 } else { 2 }),
        _ => None,
    }
}

fn rgbx(r: &mut Reader<'_, Le>) -> Result<Rgbx> {
    let [r_, g, b, x] = r.array::<4>("colour")?;
    Ok(Rgbx { r: r_, g, b, x })
}

fn uv(r: &mut Reader<'_, Le>) -> Result<Uv> {
    Ok(Uv {
        u: r.u8("u")?,
        v: r.u8("v")?,
        extra: r.u16("CBA/TSB")?,
    })
}

/// Decodes typed data; the caller has checked the body holds exactly the layout's words.
fn decode(r: &mut Reader<'_, Le>, mode_byte: u8, flag_byte: u8) -> Result<PrimitiveData> {
    Ok(match mode_byte >> mode::CODE_SHIFT {
        1 => {
            let layout = PolygonLayout::of(mode_byte, flag_byte);
            let mut p = Polygon::default();
            let textured = layout.uvs > 0;
            if textured {
                for _ in 0..layout.uvs {
                    p.uvs.push(uv(r)?);
                }
            }
            for _ in 0..layout.colors {
                p.colors.push(rgbx(r)?);
            }
            // At most 8 index halfwords (4 normals, 4 vertices).
            let mut halves = ArrayVec::<u16, 8>::new();
            for _ in 0..layout.halfwords().div_ceil(2) * 2 {
                halves.push(r.u16("index")?);
            }
            if layout.halfwords() % 2 == 1 {
                p.pad = halves.pop().unwrap_or(0);
            }
            split_indices(&layout, &halves, &mut p);
            PrimitiveData::Polygon(p)
        }
        2 => {
            let n = if mode_byte & mode::IIP != 0 { 2 } else { 1 };
            let mut colors = ArrayVec::new();
            for _ in 0..n {
                colors.push(rgbx(r)?);
            }
            PrimitiveData::Line(Line {
                colors,
                vertices: [r.u16("v0")?, r.u16("v1")?],
            })
        }
        _ => {
            let vertex = r.u16("sprite vertex")?;
            let tsb = r.u16("TSB")?;
            let uv = uv(r)?;
            let size = if (mode_byte >> 3) & 3 == 0 {
                Some([r.u16("width")?, r.u16("height")?])
            } else {
                None
            };
            PrimitiveData::Sprite(Sprite {
                vertex,
                tsb,
                uv,
                size,
            })
        }
    })
}

/// Lit Gouraud: `n0 v0 n1 v1 ..`; lit flat: `n0 v0 v1 ..`; unlit: `v0 v1 ..`.
fn split_indices(layout: &PolygonLayout, halves: &[u16], p: &mut Polygon) {
    if layout.normals == layout.vertices {
        for pair in halves.chunks(2) {
            p.normals.push(pair[0]);
            p.vertices.push(pair[1]);
        }
    } else {
        p.normals = halves[..layout.normals].iter().copied().collect();
        p.vertices = halves[layout.normals..].iter().copied().collect();
    }
}

/// Bytes covered by no block, as gaps.
fn gaps(data: &[u8], mut covered: Vec<(usize, usize)>) -> Vec<Gap> {
    covered.sort_unstable();
    let mut out = Vec::new();
    let mut pos = 0usize;
    for (s, e) in covered {
        if s > pos {
            out.push(Gap {
                offset: pos as u32,
                bytes: data[pos..s].to_vec(),
            });
        }
        pos = pos.max(e);
    }
    if pos < data.len() {
        out.push(Gap {
            offset: pos as u32,
            bytes: data[pos..].to_vec(),
        });
    }
    out
}
