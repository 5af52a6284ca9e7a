//! The binarised form (`BMTR`) read and written field by field; the layout and the readings
//! taken are in the module docs of [`super`].

use std::borrow::Cow;

use super::types::{from_latin1, latin1, unencodable};
use super::{Bmtr, BmtrFrame, BmtrProperties, BmtrProperty, BmtrTransform, Packing, BMTR_MAGIC};
use crate::bytes::{ByteOrder, Le, Reader, Writer};
use crate::formats::lzo;
use crate::{Format, Limits, Result};

/// Bytes of one stored transform: 4 × i16 quaternion, 3 × half-float translation.
pub(super) const TRANSFORM_BYTES: usize = 14;
/// Offset of the first bone name.
pub(super) const NAMES_AT: u64 = 37;
/// The versions whose layout the sources give.
const VERSIONS: [u32; 3] = [3, 4, 5];

/// What comes after the bone names and the properties.
struct Arrays {
    flagged: bool,
    phases: Vec<f32>,
    phases_packing: Packing,
    frames: Vec<BmtrFrame>,
}

/// Reads a BMTR (`data` starts with the magic).
pub(super) fn read(data: &[u8], limits: &Limits) -> Result<Bmtr> {
    let mut r = Reader::le(data, Format::Rtm).with_limits(*limits);
    r.skip(4, "the BMTR magic")?;
    let version = r.u32("BMTR version")?;
    if !VERSIONS.contains(&version) {
        return Err(r.unsupported_at(
            4,
            format!("BMTR version {version} (known: 3 Arma 2, 4 and 5 Arma 3)"),
        ));
    }
    let flag = r.u8("the BMTR byte after the version")?;
    let displacement = [
        r.f32("BMTR displacement x")?,
        r.f32("BMTR displacement y")?,
        r.f32("BMTR displacement z")?,
    ];
    let frame_count = r.u32("BMTR frame count")?;
    let reserved = r.u32("the BMTR word after the frame count")?;
    let bone_count = r.u32("BMTR bone count")?;
    let at = r.offset();
    let again = r.u32("BMTR bone count (again)")?;
    if bone_count != again {
        return Err(r.malformed_at(
            at,
            format!("BMTR: the bone count is stored twice and differs: {bone_count} and {again}"),
        ));
    }
    let n = r.count(bone_count as u64, 1, "BMTR bone names")?;
    let mut bones = Vec::with_capacity(n);
    for _ in 0..n {
        bones.push(from_latin1(r.asciiz("a BMTR bone name")?));
    }
    let properties = if version >= 4 {
        Some(read_properties(&mut r)?)
    } else {
        None
    };
    let arrays = match version {
        3 => read_arrays(r, false, frame_count, bone_count)?,
        5 => read_arrays(r, true, frame_count, bone_count)?,
        // Version 4: the sources disagree on whether arrays carry a flag; the reading that
        // walks the file to its end exactly is taken, flagged first. When both fail, the
        // error of the one that got further is the likelier story.
        _ => match read_arrays(r.clone(), true, frame_count, bone_count) {
            Ok(a) => a,
            Err(flagged) => match read_arrays(r, false, frame_count, bone_count) {
                Ok(a) => a,
                Err(rule) if rule.offset() > flagged.offset() => return Err(rule),
                Err(_) => return Err(flagged),
            },
        },
    };
    Ok(Bmtr {
        version,
        flag,
        displacement,
        reserved,
        bones,
        properties,
        flagged: arrays.flagged,
        phases: arrays.phases,
        phases_packing: arrays.phases_packing,
        frames: arrays.frames,
    })
}

fn read_properties(r: &mut Reader<'_, Le>) -> Result<BmtrProperties> {
    let reserved = r.u32("the BMTR word before the property count")?;
    let n = r.u32("BMTR property count")?;
    // Each: u32, a name of at least its NUL, f32 phase, a value of at least its NUL.
    let n = r.count(n as u64, 10, "BMTR frame properties")?;
    let mut properties = Vec::with_capacity(n);
    for _ in 0..n {
        properties.push(BmtrProperty {
            unknown: r.u32("the BMTR word before a property")?,
            name: from_latin1(r.asciiz("a BMTR property name")?),
            phase: r.f32("a BMTR property phase")?,
            value: from_latin1(r.asciiz("a BMTR property value")?),
        });
    }
    Ok(BmtrProperties {
        reserved,
        properties,
    })
}

fn read_arrays(
    mut r: Reader<'_, Le>,
    flagged: bool,
    frame_count: u32,
    bone_count: u32,
) -> Result<Arrays> {
    let at = r.offset();
    let n = r.u32("BMTR phase count")?;
    if n != frame_count {
        return Err(r.malformed_at(
            at,
            format!("BMTR phase times: {n} phases for the header's {frame_count} frames"),
        ));
    }
    // Every frame's array takes at least its count word.
    let nf = r.count(n as u64, 4, "BMTR frames")?;
    let transforms = nf as u64 * bone_count as u64;
    r.limits().items(at, "BMTR transforms", transforms)?;
    // Bounded as the editable form they decode to (80 bytes a transform), not as stored.
    r.limits().bytes(
        at,
        "BMTR transforms",
        transforms.saturating_mul(super::TRANSFORM_SIZE as u64),
    )?;
    let (bytes, phases_packing) = array(&mut r, flagged, 4 * n as u64, "BMTR phase times")?;
    let phases = Le::f32s(&bytes).collect();
    let mut frames = Vec::with_capacity(nf);
    for f in 0..nf {
        let at = r.offset();
        let k = r.u32("a BMTR frame's transform count")?;
        if k != bone_count {
            return Err(r.malformed_at(
                at,
                format!("BMTR frame {f}: {k} transforms for the header's {bone_count} bones"),
            ));
        }
        let what = format!("BMTR frame {f}'s transforms");
        let (bytes, packing) = array(&mut r, flagged, TRANSFORM_BYTES as u64 * k as u64, &what)?;
        let transforms = bytes
            .chunks_exact(TRANSFORM_BYTES)
            .map(|c| {
                let w = |i: usize| Le::u16_from([c[2 * i], c[2 * i + 1]]);
                BmtrTransform {
                    rotation: [0, 1, 2, 3].map(|i| w(i) as i16),
                    position: [4, 5, 6].map(w),
                }
            })
            .collect();
        frames.push(BmtrFrame {
            packing,
            transforms,
        });
    }
    if !r.at_end() {
        return Err(r.malformed(format!(
            "BMTR: {} bytes after the last of {nf} frames",
            r.remaining()
        )));
    }
    Ok(Arrays {
        flagged,
        phases,
        phases_packing,
        frames,
    })
}

/// One array's data of `size` bytes after its count: a flag byte where arrays are flagged
/// (0 raw, 2 LZO), else LZO from 1024 bytes; then the raw bytes or an LZO1X stream.
fn array<'a>(
    r: &mut Reader<'a, Le>,
    flagged: bool,
    size: u64,
    what: &str,
) -> Result<(Cow<'a, [u8]>, Packing)> {
    let packed = if flagged {
        let at = r.offset();
        match r.u8(what)? {
            0 => false,
            2 => true,
            b => {
                return Err(r.unsupported_at(
                    at,
                    format!("{what}: compression flag {b} (known: 0 raw, 2 LZO)"),
                ))
            }
        }
    } else {
        size >= lzo::THRESHOLD
    };
    if !packed {
        let n = usize::try_from(size).unwrap_or(usize::MAX);
        return Ok((Cow::Borrowed(r.bytes(n, what)?), Packing::default()));
    }
    let mut probe = r.clone();
    let bytes = lzo::decompress_bounded(&mut probe, size, what)?;
    let stream = r.bytes(probe.position() - r.position(), what)?.to_vec();
    Ok((Cow::Owned(bytes), Packing { lzo: true, stream }))
}

/// The bytes one array takes after its count and flag: raw, the stream as read when it still
/// decodes to `raw`, or a literal-only stream. The writer and [`Layout`] share it.
fn payload<'a>(flagged: bool, p: &'a Packing, raw: &'a [u8]) -> (bool, Cow<'a, [u8]>) {
    let packed = if flagged {
        p.lzo
    } else {
        raw.len() as u64 >= lzo::THRESHOLD
    };
    if !packed {
        return (false, Cow::Borrowed(raw));
    }
    let mut r = Reader::le(&p.stream, Format::Rtm).with_limits(Limits::none());
    let same = !p.stream.is_empty()
        && lzo::decompress(&mut r, raw.len(), "").is_ok_and(|d| d == raw)
        && r.at_end();
    if same {
        (true, Cow::Borrowed(&p.stream))
    } else {
        (true, Cow::Owned(lzo::literal_stream(raw)))
    }
}

fn phase_bytes(b: &Bmtr) -> Vec<u8> {
    let mut w = Writer::<Le>::with_capacity(4 * b.phases.len());
    b.phases.iter().for_each(|&p| w.f32(p));
    w.into_vec()
}

fn frame_bytes(f: &BmtrFrame) -> Vec<u8> {
    let mut out = Writer::<Le>::with_capacity(f.transforms.len() * TRANSFORM_BYTES);
    for t in &f.transforms {
        t.rotation.iter().for_each(|&v| out.i16(v));
        t.position.iter().for_each(|&v| out.u16(v));
    }
    out.into_vec()
}

/// Writes a BMTR: the bytes [`read`] reads.
pub(super) fn write(b: &Bmtr) -> Result<Vec<u8>> {
    if !VERSIONS.contains(&b.version) {
        return Err(unencodable(format!(
            "BMTR version {}: only the layouts of 3, 4 and 5 are known",
            b.version
        )));
    }
    if b.flagged != (b.version >= 5) && b.version != 4 {
        return Err(unencodable(format!(
            "BMTR v{} arrays {} compression flags",
            b.version,
            if b.version >= 5 { "carry" } else { "carry no" }
        )));
    }
    if b.properties.is_some() != (b.version >= 4) {
        return Err(unencodable(format!(
            "BMTR v{}: frame properties exist from version 4 on, and there always",
            b.version
        )));
    }
    let nb = b.bones.len();
    let too_many = |n: usize| u32::try_from(n).is_err();
    if too_many(nb) || too_many(b.frames.len()) {
        return Err(unencodable("more than 2^32-1 BMTR bones or frames".into()));
    }
    if b.phases.len() != b.frames.len() {
        return Err(unencodable(format!(
            "BMTR: {} phases for {} frames (one each)",
            b.phases.len(),
            b.frames.len()
        )));
    }
    if let Some(f) = b.frames.iter().position(|f| f.transforms.len() != nb) {
        return Err(unencodable(format!(
            "BMTR frame {f} has {} transforms, the header has {nb} bones (one each)",
            b.frames[f].transforms.len()
        )));
    }
    let mut w = Writer::<Le>::with_capacity(64 + b.frames.len() * (6 + nb * TRANSFORM_BYTES));
    w.bytes(BMTR_MAGIC);
    w.u32(b.version);
    w.u8(b.flag);
    b.displacement.iter().for_each(|&v| w.f32(v));
    w.u32(b.frames.len() as u32);
    w.u32(b.reserved);
    w.u32(nb as u32);
    w.u32(nb as u32);
    for name in &b.bones {
        asciiz(&mut w, name, "BMTR bone name")?;
    }
    if let Some(p) = &b.properties {
        if too_many(p.properties.len()) {
            return Err(unencodable("more than 2^32-1 BMTR properties".into()));
        }
        w.u32(p.reserved);
        w.u32(p.properties.len() as u32);
        for q in &p.properties {
            w.u32(q.unknown);
            asciiz(&mut w, &q.name, "BMTR property name")?;
            w.f32(q.phase);
            asciiz(&mut w, &q.value, "BMTR property value")?;
        }
    }
    let put = |w: &mut Writer<Le>, count: usize, p: &Packing, raw: &[u8]| {
        w.u32(count as u32);
        let (packed, data) = payload(b.flagged, p, raw);
        if b.flagged {
            w.u8(if packed { 2 } else { 0 });
        }
        w.bytes(&data);
    };
    put(&mut w, b.phases.len(), &b.phases_packing, &phase_bytes(b));
    for f in &b.frames {
        put(&mut w, nb, &f.packing, &frame_bytes(f));
    }
    Ok(w.into_vec())
}

fn asciiz(w: &mut Writer<Le>, s: &str, what: &str) -> Result<()> {
    let bytes = latin1(s, what)?;
    if bytes.contains(&0) {
        return Err(unencodable(format!("{what} {s:?} holds a NUL")));
    }
    w.bytes(&bytes);
    w.u8(0);
    Ok(())
}

/// Where one array sits in the file the writer makes of a model.
#[derive(Debug, Clone, Copy)]
pub(super) struct ArrayAt {
    /// Offset of the count word.
    pub count: u64,
    /// Offset of the data (after the count and the flag).
    pub data: u64,
    /// LZO-compressed: items inside have no file offset of their own.
    pub lzo: bool,
}

impl ArrayAt {
    /// Offset of item `i` of `size` bytes: its own when raw, the array's count when packed.
    pub fn item(&self, i: usize, size: usize) -> u64 {
        if self.lzo {
            self.count
        } else {
            self.data + (i * size) as u64
        }
    }
}

/// Offsets of a BMTR's parts, for findings.
#[derive(Debug, Clone)]
pub(super) struct Layout {
    /// Each bone name.
    pub bones: Vec<u64>,
    /// Each property.
    pub properties: Vec<u64>,
    /// The phase array.
    pub phases: ArrayAt,
    /// Each frame's array.
    pub frames: Vec<ArrayAt>,
}

impl Layout {
    /// The offsets the writer's bytes have (for a model read from a file, the file's).
    pub fn of(b: &Bmtr) -> Layout {
        let latin1 = |s: &str| s.chars().count() as u64;
        let mut at = NAMES_AT;
        let mut bones = Vec::with_capacity(b.bones.len());
        for name in &b.bones {
            bones.push(at);
            at += latin1(name) + 1;
        }
        let mut properties = Vec::new();
        if let Some(p) = &b.properties {
            at += 8;
            for q in &p.properties {
                properties.push(at);
                at += 4 + latin1(&q.name) + 1 + 4 + latin1(&q.value) + 1;
            }
        }
        let mut next = |p: &Packing, raw: &[u8]| {
            let (lzo, data) = payload(b.flagged, p, raw);
            let a = ArrayAt {
                count: at,
                data: at + 4 + u64::from(b.flagged),
                lzo,
            };
            at = a.data + data.len() as u64;
            a
        };
        let phases = next(&b.phases_packing, &phase_bytes(b));
        let frames = b
            .frames
            .iter()
            .map(|f| next(&f.packing, &frame_bytes(f)))
            .collect();
        Layout {
            bones,
            properties,
            phases,
            frames,
        }
    }
}
