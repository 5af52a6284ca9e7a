//! TOD reader: `&[u8]` → [`Tod`], every count checked against the bytes left first.

use crate::bytes::{Le, Reader};
use crate::error::Result;
use crate::limits::Limits;
use crate::Format;

use super::types::*;
use super::FILE_ID;

/// Reads a TOD file with the default [`Limits`].
pub fn read(data: &[u8]) -> Result<Tod> {
    read_with(data, &Limits::default())
}

/// Reads a TOD file with the given limits.
pub fn read_with(data: &[u8], limits: &Limits) -> Result<Tod> {
    let mut r = Reader::le(data, Format::Tod).with_limits(*limits);
    let id = r.u8("file ID")?;
    if id != FILE_ID {
        return Err(r.malformed_at(0, format!("expected file ID 0x50, found 0x{id:02x}")));
    }
    let version = r.u8("version")?;
    let resolution = r.u16("resolution")?;
    let count = r.u32("number of frames")?;
    // A frame takes at least its 2-word header.
    let count = r.count(count as u64, 8, "number of frames")?;
    let mut frames = Vec::with_capacity(count);
    for _ in 0..count {
        frames.push(read_frame(&mut r)?);
    }
    Ok(Tod {
        header: Header {
            version,
            resolution,
        },
        frames,
        trailing: r.rest().to_vec(),
    })
}

fn read_frame(r: &mut Reader<'_, Le>) -> Result<Frame> {
    let start = r.position();
    let size = r.u16("frame size")?;
    let count = r.u16("number of packets")?;
    let count = r.count(count as u64, 4, "number of packets")?;
    let number = r.u32("frame number")?;
    let mut packets = Vec::with_capacity(count);
    for _ in 0..count {
        packets.push(read_packet(r)?);
    }
    let used = (r.position() - start) / 4;
    let declared = size as usize;
    let mut extra_words = Vec::new();
    let mut size_override = None;
    if declared > used {
        // The frame size is the authority on where the next frame starts (the player advances by
        // it); words it covers beyond the packets are kept.
        let n = r.count((declared - used) as u64, 4, "frame size")?;
        extra_words.reserve_exact(n);
        for _ in 0..n {
            extra_words.push(r.u32("word after the frame's packets")?);
        }
    } else if declared < used {
        size_override = Some(size);
    }
    Ok(Frame {
        number,
        packets,
        extra_words,
        size_override,
    })
}

/// Data words a typed packet needs for its flag, or `None` for types kept raw.
pub(crate) fn required_words(kind: u8, flag: u8) -> Option<usize> {
    let bit = |b: u8| flag & (1 << b) != 0;
    let n = |cond: bool, w: usize| if cond { w } else { 0 };
    Some(match kind {
        0 => 2,
        1 => n(bit(1), 3) + n(bit(2), 2) + n(bit(3), 3),
        2 | 3 => 1,
        4 => 8,
        5 => 0,
        6 => n(bit(1), 3) + n(bit(2), 1),
        7 if !bit(0) => n(bit(2), 6) + n(bit(3), 1),
        7 => n(bit(2), 3) + n(bit(3), 3),
        8 => 0,
        _ => return None,
    })
}

fn read_packet(r: &mut Reader<'_, Le>) -> Result<Packet> {
    let at = r.offset();
    let h = r.u32("packet header")?;
    let object_id = h as u16;
    let kind = ((h >> 16) & 0xF) as u8;
    let flag = ((h >> 20) & 0xF) as u8;
    let len = (h >> 24) as usize;
    if len == 0 {
        return Err(r.malformed_at(
            at,
            "packet length 0: the length counts the header word, so it must be at least 1",
        ));
    }
    let mut body = r.sub((len - 1) * 4, "packet data (its length field)")?;
    let data = match required_words(kind, flag) {
        Some(need) if need < len => decode(&mut body, kind, flag)?,
        _ => PacketData::Raw {
            kind,
            flag,
            words: words(&mut body)?,
        },
    };
    let flag_reserved = flag & !data.defined_flag_mask();
    Ok(Packet {
        object_id,
        data,
        flag_reserved,
        extra_words: words(&mut body)?,
    })
}

fn words(r: &mut Reader<'_, Le>) -> Result<Vec<u32>> {
    let n = r.remaining() / 4;
    let mut v = Vec::with_capacity(n);
    for _ in 0..n {
        v.push(r.u32("packet word")?);
    }
    Ok(v)
}

fn vec3(r: &mut Reader<'_, Le>, what: &str) -> Result<[i32; 3]> {
    Ok([r.i32(what)?, r.i32(what)?, r.i32(what)?])
}

fn opt<T>(
    present: bool,
    r: &mut Reader<'_, Le>,
    f: impl FnOnce(&mut Reader<'_, Le>) -> Result<T>,
) -> Result<Option<T>> {
    if present {
        f(r).map(Some)
    } else {
        Ok(None)
    }
}

/// Decodes typed data; the caller has checked the body holds the words the flag requires.
fn decode(r: &mut Reader<'_, Le>, kind: u8, flag: u8) -> Result<PacketData> {
    let bit = |b: u8| flag & (1 << b) != 0;
    Ok(match kind {
        0 => PacketData::Attribute(Attribute {
            mask: r.u32("attribute mask")?,
            value: r.u32("attribute value")?,
        }),
        1 => PacketData::Coordinate(Coordinate {
            differential: bit(0),
            rotation: opt(bit(1), r, |r| vec3(r, "rotation"))?,
            scale: opt(bit(2), r, |r| {
                Ok(Scale {
                    x: r.i16("scale x")?,
                    y: r.i16("scale y")?,
                    z: r.i16("scale z")?,
                    pad: r.u16("scale pad")?,
                })
            })?,
            translation: opt(bit(3), r, |r| vec3(r, "translation"))?,
        }),
        2 | 3 => {
            let v = IdValue {
                id: r.u16("ID")?,
                pad: r.u16("ID pad")?,
            };
            if kind == 2 {
                PacketData::TmdId(v)
            } else {
                PacketData::Parent(v)
            }
        }
        4 => {
            let mut m = [[0i16; 3]; 3];
            for row in &mut m {
                for c in row.iter_mut() {
                    *c = r.i16("matrix element")?;
                }
            }
            PacketData::Matrix(Matrix {
                m,
                pad: r.u16("matrix pad")?,
                t: vec3(r, "matrix translation")?,
            })
        }
        5 => PacketData::TmdData { words: words(r)? },
        6 => PacketData::Light(Light {
            differential: bit(0),
            direction: opt(bit(1), r, |r| vec3(r, "light direction"))?,
            color: opt(bit(2), r, |r| {
                Ok(Color {
                    r: r.u8("red")?,
                    g: r.u8("green")?,
                    b: r.u8("blue")?,
                    pad: r.u8("colour pad")?,
                })
            })?,
        }),
        7 if !bit(0) => PacketData::Camera(Camera::LookAt(LookAtCamera {
            differential: bit(1),
            position: opt(bit(2), r, |r| {
                let a = vec3(r, "camera position")?;
                let b = vec3(r, "camera reference position")?;
                Ok([a[0], a[1], a[2], b[0], b[1], b[2]])
            })?,
            z_angle: opt(bit(3), r, |r| r.i32("camera z angle"))?,
        })),
        7 => PacketData::Camera(Camera::RotTrans(RotTransCamera {
            differential: bit(1),
            rotation: opt(bit(2), r, |r| vec3(r, "camera rotation"))?,
            translation: opt(bit(3), r, |r| vec3(r, "camera translation"))?,
        })),
        8 => PacketData::ObjectControl(ObjectControl::from_code(flag)),
        _ => unreachable!("required_words returns None for raw kinds"),
    })
}
