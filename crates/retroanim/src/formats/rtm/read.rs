//! Reading RTM files (both forms).

use super::types::from_latin1;
use super::{BoneTransform, Frame, Mdat, Mlod, Name32, Property, Rtm};
use super::{BMTR_MAGIC, MAGIC, MAGIC_0100, MDAT_MAGIC, NAME_SIZE, TRANSFORM_SIZE};
use crate::bytes::{Le, Reader};
use crate::{Format, Limits, Result};

/// Reads an RTM file (`RTM_0101` or `RTM_0100`, either after an `RTM_MDAT` block or not, or
/// `BMTR`).
pub fn read(data: &[u8]) -> Result<Rtm> {
    read_with(data, &Limits::default())
}

/// [`read`] with explicit limits.
pub fn read_with(data: &[u8], limits: &Limits) -> Result<Rtm> {
    if data.starts_with(BMTR_MAGIC) {
        return super::bmtr::read(data, limits).map(Rtm::Bmtr);
    }
    let mut r = Reader::le(data, Format::Rtm).with_limits(*limits);
    let mdat = if data.starts_with(MDAT_MAGIC) {
        Some(read_mdat(&mut r)?)
    } else {
        None
    };
    let at = r.offset();
    let magic: [u8; 8] = r.array("the RTM_0101 magic")?;
    let v0100 = &magic == MAGIC_0100;
    if &magic != MAGIC && !v0100 {
        return Err(r.malformed_at(
            at,
            format!(
                "expected the magic \"RTM_0101\" or \"RTM_0100\"{}, found {:?}",
                if mdat.is_some() {
                    " after the RTM_MDAT block"
                } else {
                    " (or RTM_MDAT, BMTR)"
                },
                String::from_utf8_lossy(&magic)
            ),
        ));
    }
    // RTM_0100 stores the step along z alone.
    let displacement = if v0100 {
        [0.0, 0.0, r.f32("displacement z")?]
    } else {
        [
            r.f32("displacement x")?,
            r.f32("displacement y")?,
            r.f32("displacement z")?,
        ]
    };
    let frame_count = signed_count(&mut r, "frame count")?;
    let bone_at = r.offset();
    let bone_count = r.i32("bone count")?;
    if bone_count < 0 {
        return Err(r.malformed_at(bone_at, format!("bone count {bone_count} is negative")));
    }
    let nb = r.count(bone_count as u64, NAME_SIZE, "bone names")?;
    let mut bones = Vec::with_capacity(nb);
    for _ in 0..nb {
        bones.push(name32(&mut r, "a bone name")?);
    }
    let frame_size = 4 + TRANSFORM_SIZE * nb;
    let need = frame_count.0 as u64 * frame_size as u64;
    if need != r.remaining() as u64 {
        let what = if need > r.remaining() as u64 {
            format!(
                "{} frames of {nb} bones need {need} bytes ({frame_size} each), only {} are left",
                frame_count.0,
                r.remaining()
            )
        } else {
            format!(
                "{} bytes after the last of {} frames",
                r.remaining() as u64 - need,
                frame_count.0
            )
        };
        let at = if need > r.remaining() as u64 {
            frame_count.1
        } else {
            r.offset() + need
        };
        return Err(r.malformed_at(at, what));
    }
    let nf = r.count(frame_count.0, frame_size, "frames")?;
    let mut frames = Vec::with_capacity(nf);
    for _ in 0..nf {
        let phase = r.f32("frame phase")?;
        let mut transforms = Vec::with_capacity(nb);
        for _ in 0..nb {
            let bone = name32(&mut r, "a frame's bone name")?;
            let mut matrix = [0f32; 12];
            for v in &mut matrix {
                *v = r.f32("a bone matrix")?;
            }
            transforms.push(BoneTransform { bone, matrix });
        }
        frames.push(Frame { phase, transforms });
    }
    Ok(Rtm::Mlod(Mlod {
        mdat,
        displacement,
        v0100,
        bones,
        frames,
    }))
}

/// An i32 count that must not be negative, with its offset.
fn signed_count(r: &mut Reader<'_, Le>, what: &str) -> Result<(u64, u64)> {
    let at = r.offset();
    let n = r.i32(what)?;
    if n < 0 {
        return Err(r.malformed_at(at, format!("{what} {n} is negative")));
    }
    Ok((n as u64, at))
}

fn name32(r: &mut Reader<'_, Le>, what: &str) -> Result<Name32> {
    let raw = r.bytes(NAME_SIZE, what)?;
    Ok(match raw.iter().position(|&b| b == 0) {
        Some(n) => Name32 {
            name: from_latin1(&raw[..n]),
            tail: if raw[n + 1..].iter().all(|&b| b == 0) {
                Vec::new()
            } else {
                raw[n + 1..].to_vec()
            },
        },
        None => Name32 {
            name: from_latin1(raw),
            tail: Vec::new(),
        },
    })
}

fn read_mdat(r: &mut Reader<'_, Le>) -> Result<Mdat> {
    r.skip(8, "the RTM_MDAT magic")?;
    let reserved = r.u32("the word after RTM_MDAT")?;
    let n = r.u32("property count")?;
    let n = r.count(n as u64, 6, "properties")?;
    let mut properties = Vec::with_capacity(n);
    for _ in 0..n {
        let phase = r.f32("property phase")?;
        let name = lascii(r, "property name")?;
        let value = lascii(r, "property value")?;
        properties.push(Property { phase, name, value });
    }
    Ok(Mdat {
        reserved,
        properties,
    })
}

/// A string of a u8 length then that many bytes.
fn lascii(r: &mut Reader<'_, Le>, what: &str) -> Result<String> {
    let n = r.u8(what)?;
    Ok(from_latin1(r.bytes(n as usize, what)?))
}

/// The size the editable RTM at the start of `data` declares (MDAT block, header, bone names
/// and frames), when its header reads; `None` for a BMTR (its compressed frames declare no
/// size: only a walk through them finds the end) or a header that is cut or damaged. The scanner reads an embedded RTM to this size.
pub fn declared_len(data: &[u8]) -> Option<u64> {
    let mut r = Reader::le(data, Format::Rtm);
    if data.starts_with(MDAT_MAGIC) {
        read_mdat(&mut r).ok()?;
    }
    let start = r.offset();
    let magic = r.array::<8>("the RTM_0101 magic").ok()?;
    let step = match &magic {
        m if m == MAGIC => 12,
        m if m == MAGIC_0100 => 4,
        _ => return None,
    };
    r.skip(step, "displacement").ok()?;
    let (f, b) = (r.i32("frame count").ok()?, r.i32("bone count").ok()?);
    let (f, b) = (u64::try_from(f).ok()?, u64::try_from(b).ok()?);
    let frame = 4 + TRANSFORM_SIZE as u64 * b;
    Some(start + 16 + step as u64 + NAME_SIZE as u64 * b + f * frame)
}
