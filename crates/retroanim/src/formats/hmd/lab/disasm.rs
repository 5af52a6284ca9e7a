//! HMD → LAB.

use crate::formats::hmd::Hmd;
use crate::Result;

/// Disassembles HMD bytes into LAB source.
pub fn disassemble_bytes(data: &[u8]) -> Result<String> {
    let m = crate::formats::hmd::read(data)?;
    disassemble(&m)
}

/// Disassembles an HMD model into LAB source.
pub fn disassemble(m: &Hmd) -> Result<String> {
    let _ = m;
    Ok(String::new())
}
