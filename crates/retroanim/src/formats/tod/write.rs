//! TOD writer: [`Tod`] → bytes. An unchanged model writes the bytes it was read from.

use crate::bytes::{Le, Writer};
use crate::error::{Error, Result};
use crate::Format;

use super::types::*;
use super::FILE_ID;

fn unencodable(what: String) -> Error {
    Error::Unencodable {
        format: Format::Tod,
        what,
    }
}

/// Writes a TOD file.
pub fn write(tod: &Tod) -> Result<Vec<u8>> {
    let size = 8 + tod.frames.iter().map(|f| f.words() * 4).sum::<usize>() + tod.trailing.len();
    let mut w = Writer::with_capacity(size);
    w.u8(FILE_ID);
    w.u8(tod.header.version);
    w.u16(tod.header.resolution);
    let n = u32::try_from(tod.frames.len())
        .map_err(|_| unencodable(format!("{} frames do not fit a u32", tod.frames.len())))?;
    w.u32(n);
    for (i, frame) in tod.frames.iter().enumerate() {
        write_frame(&mut w, frame).map_err(|e| match e {
            Error::Unencodable { what, format } => Error::Unencodable {
                format,
                what: format!("frame {i}: {what}"),
            },
            e => e,
        })?;
    }
    w.bytes(&tod.trailing);
    Ok(w.into_vec())
}

fn write_frame(w: &mut Writer<Le>, frame: &Frame) -> Result<()> {
    let size = u16::try_from(frame.size_field()).map_err(|_| {
        unencodable(format!(
            "the frame takes {} words; the size field holds at most 65535",
            frame.size_field()
        ))
    })?;
    let count = u16::try_from(frame.packets.len()).map_err(|_| {
        unencodable(format!(
            "{} packets; a frame holds at most 65535",
            frame.packets.len()
        ))
    })?;
    w.u16(size);
    w.u16(count);
    w.u32(frame.number);
    for (i, p) in frame.packets.iter().enumerate() {
        write_packet(w, p).map_err(|e| match e {
            Error::Unencodable { what, format } => Error::Unencodable {
                format,
                what: format!("packet {i}: {what}"),
            },
            e => e,
        })?;
    }
    for &x in &frame.extra_words {
        w.u32(x);
    }
    Ok(())
}

fn check_raw(p: &Packet) -> Result<()> {
    if let PacketData::Raw { kind, flag, .. } = &p.data {
        if *kind > 15 || *flag > 15 {
            return Err(unencodable(format!(
                "raw packet type {kind} / flag {flag}: both are 4-bit fields"
            )));
        }
    }
    if let PacketData::ObjectControl(ObjectControl::Reserved(n)) = &p.data {
        if !(2..=15).contains(n) {
            return Err(unencodable(format!(
                "object control reserved value {n}: reserved values are 2..15"
            )));
        }
    }
    if p.flag_reserved & !(0xF & !p.data.defined_flag_mask()) != 0 {
        return Err(unencodable(format!(
            "flag_reserved 0x{:x} sets bits the {} packet defines (mask 0x{:x})",
            p.flag_reserved,
            p.kind().name(),
            p.data.defined_flag_mask()
        )));
    }
    Ok(())
}

fn write_packet(w: &mut Writer<Le>, p: &Packet) -> Result<()> {
    check_raw(p)?;
    let words = p.words();
    if words > 255 {
        return Err(unencodable(format!(
            "the packet takes {words} words; its length field holds at most 255"
        )));
    }
    let header = p.object_id as u32
        | (p.kind().code() as u32) << 16
        | (p.flag() as u32) << 20
        | (words as u32) << 24;
    w.u32(header);
    let v3 = |w: &mut Writer<Le>, v: &[i32]| v.iter().for_each(|&x| w.i32(x));
    match &p.data {
        PacketData::Attribute(a) => {
            w.u32(a.mask);
            w.u32(a.value);
        }
        PacketData::Coordinate(c) => {
            if let Some(r) = &c.rotation {
                v3(w, r);
            }
            if let Some(s) = &c.scale {
                w.i16(s.x);
                w.i16(s.y);
                w.i16(s.z);
                w.u16(s.pad);
            }
            if let Some(t) = &c.translation {
                v3(w, t);
            }
        }
        PacketData::TmdId(v) | PacketData::Parent(v) => {
            w.u16(v.id);
            w.u16(v.pad);
        }
        PacketData::Matrix(m) => {
            m.m.iter().flatten().for_each(|&x| w.i16(x));
            w.u16(m.pad);
            v3(w, &m.t);
        }
        PacketData::TmdData { words } | PacketData::Raw { words, .. } => {
            words.iter().for_each(|&x| w.u32(x));
        }
        PacketData::Light(l) => {
            if let Some(d) = &l.direction {
                v3(w, d);
            }
            if let Some(c) = &l.color {
                w.bytes(&[c.r, c.g, c.b, c.pad]);
            }
        }
        PacketData::Camera(Camera::LookAt(c)) => {
            if let Some(p) = &c.position {
                v3(w, p);
            }
            if let Some(z) = c.z_angle {
                w.i32(z);
            }
        }
        PacketData::Camera(Camera::RotTrans(c)) => {
            if let Some(r) = &c.rotation {
                v3(w, r);
            }
            if let Some(t) = &c.translation {
                v3(w, t);
            }
        }
        PacketData::ObjectControl(_) => {}
    }
    for &x in &p.extra_words {
        w.u32(x);
    }
    Ok(())
}
