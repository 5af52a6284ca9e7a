//! PXL: pixel data of the PlayStation sprite editor (ID 0x11), the pixel half of a TIM; and
//! the joins: PXL + CLT (or a TIM's CLUT) → TIM, TIM → PXL + CLT.
//!
//! Source: Sony *File Formats* (Nov 1998) pp. 3-11..3-13 (`reference/Filefrmt.txt`, "PXL").
//! All little-endian.
//!
//! | offset | size | field | unit / meaning | source |
//! |---|---|---|---|---|
//! | 0 | 1 | ID | 0x11 | FF Figure 161 |
//! | 1 | 1 | version | 0 | FF |
//! | 2 | 2 | reserved | 0 | FF |
//! | 4 | 4 | FLAG | bit 0 PMODE: 0 4-bit CLUT, 1 8-bit CLUT; other bits reserved, 0 | FF Figure 162 |
//! | 8 | 4 | bnum | bytes of the pixel section incl. this 12-byte header | FF Figure 163 |
//! | 12 | 2+2 | DX, DY | VRAM position | FF |
//! | 16 | 2+2 | W, H | 16-bit VRAM units (4 pixels at 4 bpp, 2 at 8 bpp), rows | FF |
//! | 20 | 2·W·H | pixels | CLUT indices, pixel 0 in the low bits | FF Figure 164 |
//!
//! The section is a TIM's pixel block ([`tim::Block`]), read and written by the same code: a
//! PXL and a CLT are exactly a 4- or 8-bit TIM cut in two, and [`to_tim`] / [`split_tim`] move
//! the blocks between them unchanged.

use serde::{Deserialize, Serialize};

use crate::bytes::{Reader, Writer};
use crate::error::{Error, Result};
use crate::formats::clt::{self, Clt};
use crate::formats::{is_default, tim};
use crate::report::Issue;
use crate::{Format, Limits};

/// The PXL ID byte.
pub const FILE_ID: u8 = 0x11;

/// A PXL file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pxl {
    /// Version (byte 1 of the ID word); 0.
    #[serde(default, skip_serializing_if = "is_default")]
    pub version: u8,
    /// Bytes 2..3 of the ID word (reserved, 0).
    #[serde(default, skip_serializing_if = "is_default")]
    pub id_reserved: u16,
    /// FLAG: bit 0 PMODE (0 4-bit, 1 8-bit); other bits reserved.
    pub flag: u32,
    /// The pixel section.
    pub image: tim::Block,
    /// Bytes after the section, kept verbatim.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub trailing: Vec<u8>,
}

/// The summary `retroanim info` prints for a PXL.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Summary {
    /// Always `"pxl"`.
    pub format: &'static str,
    /// Bits per pixel: 4 or 8.
    pub bpp: u8,
    /// Width in pixels.
    pub width: usize,
    /// Height in pixels.
    pub height: usize,
    /// VRAM position and size (16-bit units).
    pub rect: [u16; 4],
}

impl Pxl {
    /// Bits per pixel (FLAG bit 0).
    pub fn bpp(&self) -> u8 {
        if self.flag & 1 != 0 {
            8
        } else {
            4
        }
    }

    /// The summary `retroanim info` shows.
    pub fn summary(&self) -> Summary {
        let b = &self.image;
        Summary {
            format: "pxl",
            bpp: self.bpp(),
            width: b.width as usize * if self.bpp() == 8 { 2 } else { 4 },
            height: b.height as usize,
            rect: [b.x, b.y, b.width, b.height],
        }
    }
}

/// Reads a PXL file with the default [`Limits`].
pub fn read(data: &[u8]) -> Result<Pxl> {
    read_with(data, &Limits::default())
}

/// Reads a PXL file with the given limits.
pub fn read_with(data: &[u8], limits: &Limits) -> Result<Pxl> {
    let mut r = Reader::le(data, Format::Pxl).with_limits(*limits);
    let id = r.u8("ID")?;
    if id != FILE_ID {
        return Err(r.malformed_at(0, format!("expected ID 0x11, found 0x{id:02x}")));
    }
    let version = r.u8("version")?;
    let id_reserved = r.u16("ID word reserved bits")?;
    let flag = r.u32("FLAG")?;
    let image = tim::read_block(&mut r, "pixel section")?;
    Ok(Pxl {
        version,
        id_reserved,
        flag,
        image,
        trailing: r.rest().to_vec(),
    })
}

/// Writes a PXL file.
pub fn write(p: &Pxl) -> Result<Vec<u8>> {
    let mut w =
        Writer::with_capacity(20 + 2 * p.image.data.len() + p.image.extra.len() + p.trailing.len());
    w.u8(FILE_ID);
    w.u8(p.version);
    w.u16(p.id_reserved);
    w.u32(p.flag);
    tim::write_block(&mut w, &p.image, "pixel section")?;
    w.bytes(&p.trailing);
    Ok(w.into_vec())
}

/// Checks a PXL and returns every finding.
pub fn validate(p: &Pxl) -> Vec<Issue> {
    let mut out = Vec::new();
    let b = &p.image;
    if p.flag & !1 != 0 {
        out.push(Issue::warning(
            4,
            "reserved-value",
            format!(
                "FLAG 0x{:08x} sets reserved bits (only bit 0, PMODE, is defined)",
                p.flag
            ),
        ));
    }
    if p.version != 0 || p.id_reserved != 0 {
        out.push(Issue::warning(
            1,
            "reserved-value",
            "version or reserved bits of the ID word set",
        ));
    }
    if b.data.len() != b.width as usize * b.height as usize {
        out.push(Issue::error(
            20,
            "size",
            "the pixel data is not W × H halfwords",
        ));
    }
    if u32::from(b.x) + u32::from(b.width) > 1024 || u32::from(b.y) + u32::from(b.height) > 512 {
        out.push(Issue::error(
            12,
            "vram-bounds",
            "the image lies outside the 1024 × 512 VRAM",
        ));
    }
    if !p.trailing.is_empty() {
        out.push(Issue::info(
            8 + b.bnum(),
            "trailing-bytes",
            format!("{} bytes after the pixel section", p.trailing.len()),
        ));
    }
    out
}

/// Whether `data` starts a PXL: ID 0x11, FLAG 0 or 1, a non-empty section whose `bnum` covers it.
pub(crate) fn looks_like(data: &[u8]) -> bool {
    tim::HalfHead::of(data)
        .is_some_and(|head| head.id == 0x11 && matches!(head.flag, 0 | 1) && head.fits())
}

/// PXL + a palette → TIM: the PXL's pixel block and depth, the CLT's CLUT block (or `None`: a
/// TIM without CLUT). The blocks move unchanged, so `split_tim(to_tim(p, c))` gives `p` and
/// `c` back.
pub fn to_tim(p: &Pxl, clut: Option<&tim::Block>) -> Tim {
    tim::Tim {
        version: 0,
        id_reserved: 0,
        pmode: (p.flag & 1) as u8,
        flags_reserved: 0,
        clut: clut.cloned(),
        image: p.image.clone(),
        trailing: Vec::new(),
    }
}

use tim::Tim;

/// TIM → PXL + CLT: a 4- or 8-bit TIM's pixel block as a PXL and its CLUT block (when it has
/// one) as a CLT, with the FLAGs the manual gives (PXL bit 0 PMODE, CLT PMODE 2).
pub fn split_tim(t: &Tim) -> Result<(Pxl, Option<Clt>)> {
    if t.pmode > 1 {
        // A request this TIM cannot satisfy (its pixels are colours, not CLUT indices), not a
        // fault of the TIM.
        return Err(Error::Parameter {
            what: format!(
                "the TIM is PMODE {} (direct colour): a PXL and CLT hold 4- or 8-bit CLUT indices only",
                t.pmode
            ),
        });
    }
    let pxl = Pxl {
        version: 0,
        id_reserved: 0,
        flag: u32::from(t.pmode),
        image: t.image.clone(),
        trailing: Vec::new(),
    };
    let clt = t.clut.as_ref().map(|c| Clt {
        header: Some(clt::Header {
            version: 0,
            id_reserved: 0,
            flag: 2,
        }),
        clut: c.clone(),
        trailing: Vec::new(),
    });
    Ok((pxl, clt))
}
