//! CLT: palette data of the PlayStation sprite editor (ID 0x12), the CLUT half of a TIM.
//!
//! Source: Sony *File Formats* (Nov 1998) pp. 3-14..3-16 (`reference/Filefrmt.txt`, "CLT").
//! All little-endian.
//!
//! | offset | size | field | unit / meaning | source |
//! |---|---|---|---|---|
//! | 0 | 1 | ID | 0x12 | FF Figure 167 |
//! | 1 | 1 | version | 0 | FF |
//! | 2 | 2 | reserved | 0 | FF |
//! | 4 | 4 | FLAG | bits 1..0 PMODE: 2 (16-bit CLUT entries); other bits reserved, 0 | FF Figure 168 |
//! | 8 | 4 | bnum | bytes of the CLUT section incl. this 12-byte header | FF Figure 169 |
//! | 12 | 2+2 | DX, DY | VRAM position | FF |
//! | 16 | 2+2 | W, H | entries per CLUT (16 or 256), CLUTs | FF |
//! | 20 | 2·W·H | CLUT entries | 15-bit colour + STP, as a TIM's | FF Figure 170 |
//!
//! The section is a TIM's CLUT block ([`tim::Block`]), read and written by the same code.
//!
//! Readings taken: a file without the ID is read as a headerless palette only when asked for
//! by name ([`read_raw`], `--from clt`): Sony's SUBDIV sample loads its CD2.CLT, 256 bare
//! entries, with `LoadClut(p, 0, 500)`; such a file has no VRAM position of its own.

use serde::{Deserialize, Serialize};

use crate::bytes::{Reader, Writer};
use crate::error::{Error, Result};
use crate::formats::{is_default, tim};
use crate::report::Issue;
use crate::{Format, Limits};

/// The CLT ID byte.
pub const FILE_ID: u8 = 0x12;

/// A CLT file, or a headerless palette.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Clt {
    /// The ID word's version byte and FLAG; `None` for a headerless palette (entries only).
    pub header: Option<Header>,
    /// The CLUT section (a headerless palette: one row of its entries at VRAM (0, 0)).
    pub clut: tim::Block,
    /// Bytes after the section, kept verbatim.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub trailing: Vec<u8>,
}

/// A CLT's ID word and FLAG.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Header {
    /// Version (byte 1 of the ID word); 0.
    #[serde(default, skip_serializing_if = "is_default")]
    pub version: u8,
    /// Bytes 2..3 of the ID word (reserved, 0).
    #[serde(default, skip_serializing_if = "is_default")]
    pub id_reserved: u16,
    /// FLAG: PMODE in bits 1..0 (2).
    pub flag: u32,
}

/// The summary `retroanim info` prints for a CLT.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Summary {
    /// Always `"clt"`.
    pub format: &'static str,
    /// Whether the file has its ID and FLAG (false: a headerless palette).
    pub header: bool,
    /// VRAM position and size: x, y, W (entries per CLUT), H (CLUTs).
    pub rect: [u16; 4],
    /// Entries.
    pub entries: usize,
}

impl Clt {
    /// The summary `retroanim info` shows.
    pub fn summary(&self) -> Summary {
        let b = &self.clut;
        Summary {
            format: "clt",
            header: self.header.is_some(),
            rect: [b.x, b.y, b.width, b.height],
            entries: b.data.len(),
        }
    }
}

/// Reads a CLT file (ID 0x12) with the default [`Limits`].
pub fn read(data: &[u8]) -> Result<Clt> {
    read_with(data, &Limits::default())
}

/// Reads a CLT file (ID 0x12) with the given limits.
pub fn read_with(data: &[u8], limits: &Limits) -> Result<Clt> {
    let mut r = Reader::le(data, Format::Clt).with_limits(*limits);
    let id = r.u8("ID")?;
    if id != FILE_ID {
        return Err(r.malformed_at(
            0,
            format!(
                "expected ID 0x12, found 0x{id:02x} (a headerless palette reads with --from clt)"
            ),
        ));
    }
    let version = r.u8("version")?;
    let id_reserved = r.u16("ID word reserved bits")?;
    let flag = r.u32("FLAG")?;
    let clut = tim::read_block(&mut r, "CLUT section")?;
    Ok(Clt {
        header: Some(Header {
            version,
            id_reserved,
            flag,
        }),
        clut,
        trailing: r.rest().to_vec(),
    })
}

/// Reads `data` as a CLT: a file with its ID as [`read_with`] does, else a headerless palette
/// of 16-bit entries (an even length; the entries of one row at VRAM (0, 0)).
pub fn read_raw(data: &[u8], limits: &Limits) -> Result<Clt> {
    if data.first() == Some(&FILE_ID) {
        return read_with(data, limits);
    }
    let mut r = Reader::le(data, Format::Clt).with_limits(*limits);
    let n = r.count((data.len() / 2) as u64, 2, "palette entries")?;
    if n == 0 || n > u16::MAX as usize {
        return Err(r.malformed_at(
            0,
            format!(
                "a headerless palette of {} bytes: 1 to 65535 16-bit entries expected",
                data.len()
            ),
        ));
    }
    let entries = r.u16_halfwords(n, "palette entries")?;
    Ok(Clt {
        header: None,
        clut: tim::Block {
            x: 0,
            y: 0,
            width: n as u16,
            height: 1,
            data: entries,
            extra: Vec::new(),
        },
        trailing: r.rest().to_vec(),
    })
}

/// Writes a CLT (or a headerless palette: its entries and trailing bytes).
pub fn write(c: &Clt) -> Result<Vec<u8>> {
    let mut w =
        Writer::with_capacity(20 + 2 * c.clut.data.len() + c.clut.extra.len() + c.trailing.len());
    match &c.header {
        Some(h) => {
            w.u8(FILE_ID);
            w.u8(h.version);
            w.u16(h.id_reserved);
            w.u32(h.flag);
            tim::write_block(&mut w, &c.clut, "CLUT section")?;
        }
        None => {
            if !c.clut.extra.is_empty() {
                return Err(Error::Unencodable {
                    format: Format::Clt,
                    what: "a headerless palette has no bnum to cover bytes after its entries"
                        .into(),
                });
            }
            w.u16s(&c.clut.data);
        }
    }
    w.bytes(&c.trailing);
    Ok(w.into_vec())
}

/// Checks a CLT and returns every finding.
pub fn validate(c: &Clt) -> Vec<Issue> {
    let mut out = Vec::new();
    let b = &c.clut;
    match &c.header {
        Some(h) => {
            if h.flag != 2 {
                out.push(Issue::warning(
                    4,
                    "flag",
                    format!(
                        "FLAG 0x{:08x}: a CLT's PMODE is 2 and its other bits are reserved",
                        h.flag
                    ),
                ));
            }
            if h.version != 0 || h.id_reserved != 0 {
                out.push(Issue::warning(
                    1,
                    "reserved-value",
                    "version or reserved bits of the ID word set",
                ));
            }
            if !matches!(b.width, 16 | 256) {
                out.push(Issue::warning(
                    16,
                    "clut-width",
                    format!(
                        "W {}: a CLUT has 16 (4-bit) or 256 (8-bit) entries",
                        b.width
                    ),
                ));
            }
            if b.data.len() != b.width as usize * b.height as usize {
                out.push(Issue::error(20, "size", "the entries are not W × H"));
            }
            if u32::from(b.x) + u32::from(b.width) > 1024
                || u32::from(b.y) + u32::from(b.height) > 512
            {
                out.push(Issue::error(
                    12,
                    "vram-bounds",
                    "the CLUT lies outside the 1024 × 512 VRAM",
                ));
            }
        }
        None => out.push(Issue::info(
            0,
            "headerless",
            format!(
                "a headerless palette of {} entries: no VRAM position of its own",
                b.data.len()
            ),
        )),
    }
    if !c.trailing.is_empty() {
        out.push(Issue::info(
            c.clut.bnum() + 8,
            "trailing-bytes",
            format!("{} bytes after the CLUT section", c.trailing.len()),
        ));
    }
    out
}

/// Reads the CLT at the start of a source, for the blob scan: ID 0x12, FLAG 2.
pub(crate) fn looks_like(data: &[u8]) -> bool {
    tim::HalfHead::of(data).is_some_and(|head| {
        head.id == 0x12 && head.flag == 2 && matches!(head.rect[2], 16 | 256) && head.fits()
    })
}
