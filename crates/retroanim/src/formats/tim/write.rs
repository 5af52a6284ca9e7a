//! TIM writer: [`Tim`] → bytes. An unchanged model writes the bytes it was read from.

use crate::bytes::{Le, Writer};
use crate::error::{Error, Result};
use crate::Format;

use super::types::*;
use super::FILE_ID;

fn unencodable(what: String) -> Error {
    Error::Unencodable {
        format: Format::Tim,
        what,
    }
}

/// Writes a TIM file.
pub fn write(tim: &Tim) -> Result<Vec<u8>> {
    if tim.pmode > 7 || tim.flags_reserved & 0xF != 0 {
        return Err(unencodable(format!(
            "pmode {} / flags_reserved 0x{:x}: PMODE is 3 bits and flags_reserved may not hold bits 0..3",
            tim.pmode, tim.flags_reserved
        )));
    }
    let size =
        8 + tim.clut.as_ref().map_or(0, block_size) + block_size(&tim.image) + tim.trailing.len();
    let mut w = Writer::with_capacity(size);
    w.u8(FILE_ID);
    w.u8(tim.version);
    w.u16(tim.id_reserved);
    w.u32(tim.flags());
    if let Some(c) = &tim.clut {
        write_block(&mut w, c, "CLUT block")?;
    }
    write_block(&mut w, &tim.image, "pixel block")?;
    w.bytes(&tim.trailing);
    Ok(w.into_vec())
}

/// The bytes a block takes when written.
fn block_size(b: &Block) -> usize {
    12 + 2 * b.data.len() + b.extra.len()
}

pub(crate) fn write_block(w: &mut Writer<Le>, b: &Block, what: &str) -> Result<()> {
    let n = b.width as usize * b.height as usize;
    if b.data.len() != n {
        return Err(unencodable(format!(
            "{what}: {}×{} needs {n} halfwords, the block holds {}",
            b.width,
            b.height,
            b.data.len()
        )));
    }
    let bnum = u32::try_from(b.bnum())
        .map_err(|_| unencodable(format!("{what}: {} bytes do not fit bnum", b.bnum())))?;
    w.u32(bnum);
    w.u16(b.x);
    w.u16(b.y);
    w.u16(b.width);
    w.u16(b.height);
    w.u16s(&b.data);
    w.bytes(&b.extra);
    Ok(())
}
