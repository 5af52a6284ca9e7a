//! TIM reader: `&[u8]` → [`Tim`], every count checked against the bytes left first.

use crate::bytes::{Le, Reader};
use crate::error::Result;
use crate::limits::Limits;
use crate::Format;

use super::types::*;
use super::FILE_ID;

/// Reads a TIM file with the default [`Limits`].
pub fn read(data: &[u8]) -> Result<Tim> {
    read_with(data, &Limits::default())
}

/// Reads a TIM file with the given limits.
pub fn read_with(data: &[u8], limits: &Limits) -> Result<Tim> {
    let (mut tim, size) = read_own(data, limits)?;
    tim.trailing = data[size..].to_vec();
    Ok(tim)
}

/// Reads the TIM at the start of `data` without what follows it: the TIM (its `trailing`
/// empty) and its size in bytes. For files that hold several TIMs back to back.
pub fn read_own(data: &[u8], limits: &Limits) -> Result<(Tim, usize)> {
    let mut r = Reader::le(data, Format::Tim).with_limits(*limits);
    let id = r.u8("ID")?;
    if id != FILE_ID {
        return Err(r.malformed_at(0, format!("expected ID 0x10, found 0x{id:02x}")));
    }
    let version = r.u8("version")?;
    let id_reserved = r.u16("ID word reserved bits")?;
    let flags = r.u32("FLAGS")?;
    let clut = if flags & 8 != 0 {
        Some(read_block(&mut r, "CLUT block")?)
    } else {
        None
    };
    let image = read_block(&mut r, "pixel block")?;
    let tim = Tim {
        version,
        id_reserved,
        pmode: (flags & 7) as u8,
        flags_reserved: flags & !0xF,
        clut,
        image,
        trailing: Vec::new(),
    };
    Ok((tim, data.len() - r.rest().len()))
}

pub(crate) fn read_block(r: &mut Reader<'_, Le>, what: &str) -> Result<Block> {
    let at = r.offset();
    let bnum = r.u32(&format!("{what} bnum"))? as u64;
    let x = r.u16("DX")?;
    let y = r.u16("DY")?;
    let width = r.u16("W")?;
    let height = r.u16("H")?;
    let n = width as u64 * height as u64;
    let need = 12 + n * 2;
    if bnum < need {
        return Err(r.malformed_at(
            at,
            format!("{what}: bnum is {bnum} bytes, but the header and {width}×{height} halfwords take {need}"),
        ));
    }
    let n = r.count(n, 2, &format!("{what} W×H"))?;
    let data = r.u16_halfwords(n, "pixel data")?;
    let extra_len = r.count(bnum - need, 1, &format!("{what} bnum"))?;
    let extra = r
        .bytes(extra_len, "bytes bnum covers after the data")?
        .to_vec();
    Ok(Block {
        x,
        y,
        width,
        height,
        data,
        extra,
    })
}
