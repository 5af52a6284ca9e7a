//! P3D writer: [`Mlod`] → bytes, and ODOL v7 from its verbatim runs and typed frames. An
//! unchanged model writes the bytes it was read from.

use crate::bytes::{Le, Writer};
use crate::error::{Error, Result};
use crate::Format;

use super::types::*;

fn unencodable(what: String) -> Error {
    Error::Unencodable {
        format: Format::P3d,
        what,
    }
}

fn count(n: usize, what: &str) -> Result<u32> {
    u32::try_from(n).map_err(|_| unencodable(format!("{n} {what} do not fit a u32")))
}

/// Writes a P3D file (MLOD or ODOL v7).
pub fn write(p3d: &P3d) -> Result<Vec<u8>> {
    match p3d {
        P3d::Mlod(m) => write_mlod(m),
        P3d::Odol(o) => super::odol::write_odol(o),
    }
}

/// Writes an MLOD file.
pub fn write_mlod(m: &Mlod) -> Result<Vec<u8>> {
    let mut w = Writer::with_capacity(mlod_size(m));
    w.bytes(b"MLOD");
    w.u32(m.version);
    w.u32(count(m.lods.len(), "LODs")?);
    for (i, lod) in m.lods.iter().enumerate() {
        write_lod(&mut w, lod).map_err(|e| match e {
            Error::Unencodable { format, what } => Error::Unencodable {
                format,
                what: format!("LOD {i}: {what}"),
            },
            e => e,
        })?;
    }
    w.bytes(&m.trailing.0);
    Ok(w.into_vec())
}

/// Nearly the size a valid model writes to, as the output's starting capacity: everything but
/// the face names, which would take another pass over every face (slower than letting the
/// output grow once or twice at the end).
///
/// Each product below is at most the memory of the vector it counts; the sums saturate (tagg
/// names are shared, so their lengths are not bounded by memory), and the hint is capped.
fn mlod_size(m: &Mlod) -> usize {
    const MAX_HINT: usize = 1 << 30;
    let lods = m.lods.iter().map(|lod| {
        let face = match lod.signature {
            Signature::P3dm => 72 + 2,
            Signature::Sp3x => 32 + 72,
        };
        let taggs = lod.taggs.iter().map(|t| {
            let head = match lod.signature {
                Signature::P3dm => t.name.len().saturating_add(1 + 1 + 4),
                Signature::Sp3x => 64 + 4,
            };
            head.saturating_add(match &t.data {
                TaggData::Animation { positions, .. } => 4 + 12 * positions.len(),
                TaggData::Selection { points, faces } => points.0.len() + faces.0.len(),
                TaggData::Property { .. } => 128,
                TaggData::Mass { masses } => 4 * masses.len(),
                TaggData::UvSet { uvs, .. } => 4 + 8 * uvs.len(),
                TaggData::SharpEdges { edges } => 8 * edges.len(),
                TaggData::EndOfFile => 0,
                TaggData::Raw { data } => data.0.len(),
            })
        });
        [
            28 + 4 + 4,
            lod.header_extra.0.len(),
            16 * lod.points.len(),
            12 * lod.normals.len(),
            face * lod.faces.len(),
            taggs.fold(0, usize::saturating_add),
        ]
        .into_iter()
        .fold(0, usize::saturating_add)
    });
    lods.fold(12 + m.trailing.0.len(), usize::saturating_add)
        .min(MAX_HINT)
}

fn write_lod(w: &mut Writer<Le>, lod: &Lod) -> Result<()> {
    if lod.header_size as u64 != 28 + lod.header_extra.0.len() as u64 {
        return Err(unencodable(format!(
            "header size {} does not match the 28 header bytes plus {} extra bytes",
            lod.header_size,
            lod.header_extra.0.len()
        )));
    }
    w.bytes(lod.signature.magic());
    w.u32(lod.header_size);
    w.u32(lod.version);
    w.u32(count(lod.points.len(), "points")?);
    w.u32(count(lod.normals.len(), "normals")?);
    w.u32(count(lod.faces.len(), "faces")?);
    w.u32(lod.flags);
    w.bytes(&lod.header_extra.0);
    for p in &lod.points {
        vec3(w, p.pos);
        w.u32(p.flags);
    }
    for n in &lod.normals {
        vec3(w, *n);
    }
    for (i, f) in lod.faces.iter().enumerate() {
        write_face(w, f, lod.signature).map_err(|e| match e {
            Error::Unencodable { format, what } => Error::Unencodable {
                format,
                what: format!("face {i}: {what}"),
            },
            e => e,
        })?;
    }
    w.bytes(b"TAGG");
    for (i, t) in lod.taggs.iter().enumerate() {
        write_tagg(w, t, lod.signature).map_err(|e| match e {
            Error::Unencodable { format, what } => Error::Unencodable {
                format,
                what: format!("tagg {i}: {what}"),
            },
            e => e,
        })?;
    }
    w.f32(lod.resolution);
    Ok(())
}

fn vec3(w: &mut Writer<Le>, v: [f32; 3]) {
    w.f32(v[0]);
    w.f32(v[1]);
    w.f32(v[2]);
}

/// Writes a NUL-padded fixed-size name field.
pub(super) fn fixed_name(
    w: &mut Writer<Le>,
    text: &Text,
    padding: &Bytes,
    size: usize,
    what: &str,
) -> Result<()> {
    let t = text.as_bytes();
    if t.contains(&0) {
        return Err(unencodable(format!("{what} contains a NUL byte")));
    }
    if t.len() == size && padding.is_empty() {
        w.bytes(t);
        return Ok(());
    }
    if t.len() + 1 + padding.0.len() > size {
        return Err(unencodable(format!(
            "{what} takes {} bytes with its NUL and padding; the field holds {size}",
            t.len() + 1 + padding.0.len()
        )));
    }
    w.bytes(t);
    w.u8(0);
    w.bytes(&padding.0);
    for _ in t.len() + 1 + padding.0.len()..size {
        w.u8(0);
    }
    Ok(())
}

fn asciiz(w: &mut Writer<Le>, text: &Text, what: &str) -> Result<()> {
    if text.as_bytes().contains(&0) {
        return Err(unencodable(format!("{what} contains a NUL byte")));
    }
    w.bytes(text.as_bytes());
    w.u8(0);
    Ok(())
}

fn write_face(w: &mut Writer<Le>, f: &Face, signature: Signature) -> Result<()> {
    if f.vertices.len() > 4 || f.vertices.len() != f.n.min(4) as usize {
        return Err(unencodable(format!(
            "vertex count {} but {} vertices (at most 4)",
            f.n,
            f.vertices.len()
        )));
    }
    let unused = 16 * (4 - f.vertices.len());
    if !f.unused_slots.is_empty() && f.unused_slots.as_bytes().len() != unused {
        return Err(unencodable(format!(
            "{} bytes of unused vertex slots; {} vertices leave {unused}",
            f.unused_slots.as_bytes().len(),
            f.vertices.len()
        )));
    }
    if signature == Signature::Sp3x {
        if f.material.is_some() {
            return Err(unencodable("an SP3X face has no material".into()));
        }
        fixed_name(w, &f.texture, &f.texture_padding, 32, "texture name")?;
    }
    w.u32(f.n);
    for v in &f.vertices {
        w.u32(v.point);
        w.u32(v.normal);
        w.f32(v.uv[0]);
        w.f32(v.uv[1]);
    }
    if f.unused_slots.is_empty() {
        w.bytes(&[0; 64][..unused]);
    } else {
        w.bytes(f.unused_slots.as_bytes());
    }
    w.u32(f.flags);
    if signature == Signature::P3dm {
        if !f.texture_padding.is_empty() {
            return Err(unencodable(
                "texture padding exists only in SP3X faces".into(),
            ));
        }
        asciiz(w, &f.texture, "texture name")?;
        let none = Text::default();
        asciiz(w, f.material.as_ref().unwrap_or(&none), "material name")?;
    }
    Ok(())
}

fn write_tagg(w: &mut Writer<Le>, t: &Tagg, signature: Signature) -> Result<()> {
    match signature {
        Signature::P3dm => {
            if !t.name_padding.is_empty() {
                return Err(unencodable(
                    "tagg name padding exists only in SP3X LODs".into(),
                ));
            }
            w.u8(t.active.unwrap_or(1));
            asciiz(w, &t.name, "tagg name")?;
        }
        Signature::Sp3x => {
            if t.active.is_some() {
                return Err(unencodable("SP3X taggs have no active flag".into()));
            }
            fixed_name(w, &t.name, &t.name_padding, 64, "tagg name")?;
        }
    }
    let size = w.reserve_u32();
    let start = w.len();
    match &t.data {
        TaggData::Animation { time, positions } => {
            w.f32(*time);
            for p in positions {
                vec3(w, *p);
            }
        }
        TaggData::Selection { points, faces } => {
            w.bytes(&points.0);
            w.bytes(&faces.0);
        }
        TaggData::Property {
            name,
            name_padding,
            value,
            value_padding,
        } => {
            fixed_name(w, name, name_padding, 64, "property name")?;
            fixed_name(w, value, value_padding, 64, "property value")?;
        }
        TaggData::Mass { masses } => {
            for m in masses {
                w.f32(*m);
            }
        }
        TaggData::UvSet { set, uvs } => {
            w.u32(*set);
            for uv in uvs {
                w.f32(uv[0]);
                w.f32(uv[1]);
            }
        }
        TaggData::SharpEdges { edges } => {
            for e in edges {
                w.u32(e[0]);
                w.u32(e[1]);
            }
        }
        TaggData::EndOfFile => {}
        TaggData::Raw { data } => w.bytes(&data.0),
    }
    let n = count(w.len() - start, "tagg data bytes")?;
    w.patch_u32(size, n);
    Ok(())
}
