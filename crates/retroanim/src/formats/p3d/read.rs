//! MLOD reader: `&[u8]` → [`Mlod`], every count checked against the bytes left first.

use crate::bytes::{ByteOrder, Le, Reader};

use crate::error::Result;
use arrayvec::ArrayVec;

use super::types::*;

/// Smallest P3DM face: n, 4 vertex slots, flags, two empty names.
const MIN_FACE_P3DM: usize = 4 + 64 + 4 + 2;
/// An SP3X face: 32-byte texture, n, 4 vertex slots, flags.
const FACE_SP3X: usize = 32 + 4 + 64 + 4;
/// Smallest LOD: 28-byte header, "TAGG", one empty-named tagg (1 + 1 + 4) and the resolution.
const MIN_LOD: usize = 28 + 4 + 6 + 4;
/// Smallest tagg (P3DM): the active byte, an empty name's NUL and the data size (an SP3X tagg,
/// with its 64-byte name, is larger).
const MIN_TAGG: usize = 1 + 1 + 4;

pub(super) fn read_mlod(r: &mut Reader<'_, Le>) -> Result<Mlod> {
    let magic: [u8; 4] = r.array("MLOD magic")?;
    if &magic != b"MLOD" {
        return Err(r.malformed_at(0, format!("expected magic \"MLOD\", found {magic:02x?}")));
    }
    let version = r.u32("MLOD version")?;
    if version >> 8 > 1 {
        // The engine reads major = version >> 8 and refuses anything above 1.
        return Err(r.unsupported_at(
            4,
            format!(
                "MLOD version 0x{version:x} (major {}); only major version 0 and 1 are defined",
                version >> 8
            ),
        ));
    }
    let count = r.u32("LOD count")?;
    let count = r.count(count as u64, MIN_LOD, "LOD count")?;
    let mut lods = Vec::with_capacity(count);
    // One name table for the whole file: the LODs mostly share their textures and selections.
    let mut names = Names::default();
    for i in 0..count {
        lods.push(read_lod(r, i, &mut names)?);
    }
    Ok(Mlod {
        version,
        lods,
        trailing: Bytes(r.rest().to_vec()),
    })
}

fn read_lod(r: &mut Reader<'_, Le>, index: usize, names: &mut Names) -> Result<Lod> {
    let start = r.offset();
    let magic: [u8; 4] = r.array("LOD signature")?;
    let signature = match &magic {
        b"P3DM" => Signature::P3dm,
        b"SP3X" => Signature::Sp3x,
        _ => {
            return Err(r.malformed_at(
                start,
                format!("LOD {index}: expected signature \"P3DM\" or \"SP3X\", found {magic:02x?}"),
            ))
        }
    };
    let header_size = r.u32("LOD header size")?;
    if header_size < 28 {
        return Err(r.malformed_at(
            start + 4,
            format!(
                "LOD {index}: header size {header_size} is smaller than the 28 bytes of its fields"
            ),
        ));
    }
    let version = r.u32("LOD version")?;
    let n_points = r.u32("point count")?;
    let n_normals = r.u32("normal count")?;
    let n_faces = r.u32("face count")?;
    let flags = r.u32("LOD flags")?;
    let extra = r.count(header_size as u64 - 28, 1, "LOD header extra bytes")?;
    let header_extra = Bytes(r.bytes(extra, "LOD header extra bytes")?.to_vec());

    let at = start + 12;
    let n_points = checked(r, at, n_points, 16, "point count")?;
    // The count check above guarantees the bytes; decoding them in one pass is much faster
    // than field by field.
    let points = r
        .bytes(16 * n_points, "points")?
        .chunks_exact(16)
        .map(|c| Point {
            pos: [f32_at(c, 0), f32_at(c, 4), f32_at(c, 8)],
            flags: u32_at(c, 12),
        })
        .collect();
    let n_normals = checked(r, at + 4, n_normals, 12, "normal count")?;
    let normals = r
        .bytes(12 * n_normals, "normals")?
        .chunks_exact(12)
        .map(|c| [f32_at(c, 0), f32_at(c, 4), f32_at(c, 8)])
        .collect();
    let min_face = match signature {
        Signature::P3dm => MIN_FACE_P3DM,
        Signature::Sp3x => FACE_SP3X,
    };
    let n_faces = checked(r, at + 8, n_faces, min_face, "face count")?;
    let mut last = FaceNames::default();
    let mut faces = Vec::with_capacity(n_faces);
    for _ in 0..n_faces {
        read_face(r, signature, names, &mut last, &mut faces)?;
    }

    let tagg_at = r.offset();
    let magic: [u8; 4] = r.array("TAGG magic")?;
    if &magic != b"TAGG" {
        return Err(r.malformed_at(
            tagg_at,
            format!("LOD {index}: expected \"TAGG\" after the faces, found {magic:02x?}"),
        ));
    }
    // Room for a typical LOD's taggs up front, never more than the bytes left could hold.
    let mut taggs = Vec::with_capacity((r.remaining() / MIN_TAGG).min(16));
    // Every tagg takes at least 5 bytes, so this loop ends with the input.
    loop {
        let tagg = read_tagg(r, signature, n_points, n_faces, &faces, names)?;
        let end = tagg.kind() == TaggKind::EndOfFile;
        taggs.push(tagg);
        if end {
            break;
        }
    }
    let resolution = r.f32("LOD resolution")?;
    Ok(Lod {
        signature,
        header_size,
        version,
        flags,
        header_extra,
        points,
        normals,
        faces,
        taggs,
        resolution,
    })
}

/// A header count checked against the bytes left; an error points at the header field.
fn checked(r: &Reader<'_, Le>, at: u64, n: u32, size: usize, what: &str) -> Result<usize> {
    r.count(n as u64, size, what).map_err(|e| match e {
        crate::Error::Malformed { format, what, .. } => crate::Error::Malformed {
            format,
            offset: at,
            what,
        },
        e => e,
    })
}

/// Splits a fixed-size NUL-padded name field into the text and the bytes after its NUL (kept
/// only when they are not all zero).
pub(super) fn fixed_name(field: &[u8]) -> (&[u8], Bytes) {
    match field.iter().position(|&b| b == 0) {
        Some(n) => {
            // Trailing zeros are implied (the writer pads with them).
            let tail = &field[n + 1..];
            let end = tail.iter().rposition(|&b| b != 0).map_or(0, |i| i + 1);
            let padding = tail[..end].to_vec();
            (&field[..n], Bytes(padding))
        }
        None => (field, Bytes::default()),
    }
}

/// The fixed part of a face after an SP3X texture: n, 4 vertex slots, flags.
const FACE_FIXED: usize = 4 + 64 + 4;

/// The texture and material of the face read last: the next face mostly repeats them, which
/// is checked right at the cursor before anything is scanned for its NUL or looked up.
#[derive(Default)]
struct FaceNames<'a> {
    texture: LastName<'a>,
    material: LastName<'a>,
}

/// A name field's value in the face read last: the shared `Text` and where its bytes were in
/// the input (compared there, so the check reads only input bytes).
#[derive(Default)]
struct LastName<'a> {
    text: Text,
    bytes: &'a [u8],
}

/// Reads a NUL-terminated name, shared through `names`; `last` is the name the same field had
/// in the previous face, and becomes this one.
#[inline(always)]
fn face_name<'a>(
    r: &mut Reader<'a, Le>,
    names: &mut Names,
    last: &mut LastName<'a>,
    what: &str,
) -> Result<Text> {
    let n = last.bytes.len();
    let ahead = r.ahead();
    // `last` holds no NUL, so a NUL right after a copy of it ends the same name.
    if ahead.get(n) == Some(&0) && ahead[..n] == *last.bytes {
        last.bytes = &ahead[..n];
        r.skip(n + 1, what)?;
        return Ok(last.text.clone());
    }
    new_face_name(r, names, last, what)
}

/// [`face_name`] when the name differs from the last one: kept out of line so the check for a
/// repeat stays small.
#[inline(never)]
fn new_face_name<'a>(
    r: &mut Reader<'a, Le>,
    names: &mut Names,
    last: &mut LastName<'a>,
    what: &str,
) -> Result<Text> {
    let b = r.asciiz(what)?;
    last.text = names.get(b);
    last.bytes = b;
    Ok(last.text.clone())
}

fn read_face<'a>(
    r: &mut Reader<'a, Le>,
    signature: Signature,
    names: &mut Names,
    last: &mut FaceNames<'a>,
    faces: &mut Vec<Face>,
) -> Result<()> {
    let mut sp3x_texture = None;
    if signature == Signature::Sp3x {
        let (t, p) = fixed_name(r.bytes(32, "face texture name")?);
        let last = &mut last.texture;
        if t != last.bytes {
            last.text = names.get(t);
            last.bytes = t;
        }
        let t = last.text.clone();
        sp3x_texture = Some((t, p));
    }
    let (n, vertices, unused_slots, flags) = if r.remaining() >= FACE_FIXED {
        // The whole fixed part is there: decode it from one slice (the field-by-field path
        // below is only needed to name the field a truncated file ends in).
        let at = r.offset();
        let d = r.bytes(FACE_FIXED, "face")?;
        let n = u32_at(d, 0);
        if n > 4 {
            return Err(r.malformed_at(
                at,
                format!("face vertex count {n}: a face has 3 or 4 vertices (4 slots)"),
            ));
        }
        let slots = &d[4..68];
        let slot = |i: usize| VertexRef {
            point: u32_at(slots, 16 * i),
            normal: u32_at(slots, 16 * i + 4),
            uv: [f32_at(slots, 16 * i + 8), f32_at(slots, 16 * i + 12)],
        };
        // All four slots decode straight-line; the ones beyond `n` are dropped again.
        let mut vertices = ArrayVec::from([slot(0), slot(1), slot(2), slot(3)]);
        vertices.truncate(n as usize);
        (
            n,
            vertices,
            unused(&slots[16 * n as usize..]),
            u32_at(d, 68),
        )
    } else {
        let n = r.u32("face vertex count")?;
        if n > 4 {
            return Err(r.malformed_at(
                r.offset() - 4,
                format!("face vertex count {n}: a face has 3 or 4 vertices (4 slots)"),
            ));
        }
        let mut vertices = ArrayVec::<VertexRef, 4>::new();
        for _ in 0..n {
            vertices.push(VertexRef {
                point: r.u32("face point index")?,
                normal: r.u32("face normal index")?,
                uv: [r.f32("face u")?, r.f32("face v")?],
            });
        }
        let slots = unused(r.bytes(16 * (4 - n as usize), "unused face vertex slots")?);
        (n, vertices, slots, r.u32("face flags")?)
    };
    let (texture, texture_padding, material) = match sp3x_texture {
        Some((t, p)) => (t, p, None),
        None => {
            let t = face_name(r, names, &mut last.texture, "face texture name")?;
            let m = face_name(r, names, &mut last.material, "face material name")?;
            (t, Bytes::default(), Some(m))
        }
    };
    // Pushed here rather than returned: the face is then built in the vector, not built on the
    // stack and copied (which measurably stalled on every face).
    faces.push(Face {
        n,
        vertices,
        unused_slots,
        flags,
        texture,
        texture_padding,
        material,
    });
    Ok(())
}

/// The unused vertex slots of a face: all-zero slots (what most writers leave) are implied by
/// an empty field.
fn unused(slots: &[u8]) -> SlotBytes {
    const ZEROS: [u8; 64] = [0; 64];
    if ZEROS.get(..slots.len()) == Some(slots) {
        SlotBytes::default()
    } else {
        SlotBytes::new(slots)
    }
}

fn read_tagg(
    r: &mut Reader<'_, Le>,
    signature: Signature,
    n_points: usize,
    n_faces: usize,
    faces: &[Face],
    names: &mut Names,
) -> Result<Tagg> {
    let (active, name, name_padding) = match signature {
        Signature::P3dm => {
            let active = r.u8("tagg active flag")?;
            let name = names.get(r.asciiz("tagg name")?);
            (Some(active), name, Bytes::default())
        }
        Signature::Sp3x => {
            let (name, pad) = fixed_name(r.bytes(64, "tagg name")?);
            (None, names.get(name), pad)
        }
    };
    let size = r.u32("tagg data size")?;
    let size = r.count(size as u64, 1, "tagg data size")?;
    let data = r.bytes(size, "tagg data")?;
    let data = decode_tagg(kind_of(name.as_bytes()), data, n_points, n_faces, faces);
    Ok(Tagg {
        active,
        name,
        name_padding,
        data,
    })
}

/// The `f32` at `i` of a tagg's bytes, whose length was checked against its items.
fn f32_at(d: &[u8], i: usize) -> f32 {
    f32::from_bits(u32_at(d, i))
}

/// The `u32` at `i` of a tagg's bytes, whose length was checked against its items.
fn u32_at(d: &[u8], i: usize) -> u32 {
    Le::u32_from([d[i], d[i + 1], d[i + 2], d[i + 3]])
}

/// Decodes a tagg's data when its size fits the layout its name announces; otherwise keeps it
/// raw (validation reports the mismatch). The data slice is already in memory, so nothing here
/// allocates more than its length.
fn decode_tagg(
    kind: TaggKind,
    d: &[u8],
    n_points: usize,
    n_faces: usize,
    faces: &[Face],
) -> TaggData {
    let len = d.len();
    match kind {
        TaggKind::EndOfFile if len == 0 => TaggData::EndOfFile,
        TaggKind::Animation if len >= 4 && len == 4 + 12 * n_points => TaggData::Animation {
            time: f32_at(d, 0),
            positions: d[4..]
                .chunks_exact(12)
                .map(|c| [f32_at(c, 0), f32_at(c, 4), f32_at(c, 8)])
                .collect(),
        },
        TaggKind::NamedSelection
        | TaggKind::Proxy
        | TaggKind::Selected
        | TaggKind::Lock
        | TaggKind::Hidden
            if len == n_points + n_faces =>
        {
            TaggData::Selection {
                points: Bytes(d[..n_points].to_vec()),
                faces: Bytes(d[n_points..].to_vec()),
            }
        }
        TaggKind::Property if len == 128 => {
            let (name, name_padding) = fixed_name(&d[..64]);
            let (value, value_padding) = fixed_name(&d[64..]);
            TaggData::Property {
                name: name.into(),
                name_padding,
                value: value.into(),
                value_padding,
            }
        }
        TaggKind::Mass if len == 4 * n_points => TaggData::Mass {
            masses: d.chunks_exact(4).map(|c| f32_at(c, 0)).collect(),
        },
        TaggKind::UvSet
            if len >= 4
                && len as u64
                    == 4 + 8 * faces.iter().map(|f| f.vertices.len() as u64).sum::<u64>() =>
        {
            TaggData::UvSet {
                set: u32_at(d, 0),
                uvs: d[4..]
                    .chunks_exact(8)
                    .map(|c| [f32_at(c, 0), f32_at(c, 4)])
                    .collect(),
            }
        }
        TaggKind::SharpEdges if len % 8 == 0 => TaggData::SharpEdges {
            edges: d
                .chunks_exact(8)
                .map(|c| [u32_at(c, 0), u32_at(c, 4)])
                .collect(),
        },
        _ => TaggData::Raw {
            data: Bytes(d.to_vec()),
        },
    }
}
