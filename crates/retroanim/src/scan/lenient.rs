//! Lenient finds: a real asset with a damaged length field, read as its data shows it.
//!
//! | format | field | when | read as |
//! |---|---|---|---|
//! | TIM | a block's `bnum` | not 12 + 2·W·H (up to 16 bytes more), but within a quarter of it | 12 + 2·W·H: the block's header and its W × H halfwords (File Formats, "TIM") |
//! | TMD | NOBJ | the object table's last entries are all zero (the count runs into padding) | the entries before them |
//!
//! The candidate is read through the same reader and checks as any other, from its bytes with
//! the field replaced ([`Fix`]); it is reported with one more warning and
//! [`super::Find::lenient`] saying what was replaced. Its size is what the data shows (a TIM
//! ends after its W × H halfwords, whatever its `bnum` says); [`super::Find::bytes`] gives its
//! bytes as they are, [`super::Find::readable_bytes`] with the field replaced (what conversions
//! read).

use serde::Serialize;

use super::blob::{verify_strict, Found, Near, Reject};
use super::source::Source;
use super::ScanOptions;
use crate::bytes::{ByteOrder, Le};
use crate::Format;

/// A length field of a find replaced by what the data shows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Fix {
    /// Byte offset of the field (a little-endian word) in the asset.
    pub at: u32,
    /// The word as found.
    pub found: u32,
    /// The word read instead.
    pub read_as: u32,
    /// What disagreed, in words.
    pub warning: String,
}

impl Fix {
    /// Writes the replaced word into the asset's bytes (nothing where the field would run past
    /// their end).
    pub fn apply(&self, bytes: &mut [u8]) {
        let _written: Option<()> = Le::put_u32(bytes, self.at as usize, self.read_as);
    }
}

/// The little-endian word at `at` of the candidate at `offset` (from `near` where it holds it).
pub(super) fn word(src: &dyn Source, offset: u64, near: &[u8], at: u64) -> Option<u32> {
    if let Some(w) = usize::try_from(at).ok().and_then(|a| Le::u32_at(near, a)) {
        return Some(w);
    }
    let mut b = [0u8; 4];
    src.read_at(offset.checked_add(at)?, &mut b).ok()?;
    Some(Le::u32_from(b))
}

/// The TIM's first block whose `bnum` disagrees with its W × H (module docs), if any.
pub(crate) fn tim_fix(src: &dyn Source, offset: u64, near: &[u8]) -> Option<Fix> {
    let flags = word(src, offset, near, 4)?;
    let mut at = 8u64;
    let blocks: &[&str] = if flags & 8 != 0 {
        &["CLUT block", "pixel block"]
    } else {
        &["pixel block"]
    };
    for what in blocks {
        let bnum = word(src, offset, near, at)? as u64;
        let wh = word(src, offset, near, at + 8)?;
        let (w, h) = ((wh & 0xFFFF) as u64, (wh >> 16) as u64);
        let need = 12 + 2 * w * h;
        if bnum < need || bnum > need + 16 {
            return Some(Fix {
                at: u32::try_from(at).ok()?,
                found: bnum as u32,
                read_as: u32::try_from(need).ok()?,
                warning: format!(
                    "{what} at byte {at}: bnum says {bnum} bytes, its header and {w}×{h} halfwords take {need}: sized from W×H"
                ),
            });
        }
        at += bnum;
    }
    None
}

/// A whole file that is one lenient find (as `retroanim scan --extract` writes it, its bytes as
/// found): a copy with the length field replaced, and the fix; `None` when no fix applies.
/// `convert` reads an extracted lenient find through this, so it converts as the find does.
pub fn fixed(data: &[u8], format: Format) -> Option<(Vec<u8>, Fix)> {
    // Every word the fixes look at is in `data`; past it there is nothing to read.
    let none = super::source::MemSource(Vec::new().into());
    let fix = match format {
        Format::Tim => tim_fix(&none, 0, data),
        Format::Tmd => tmd_fix(&none, 0, data),
        _ => None,
    }?;
    let mut bytes = data.to_vec();
    fix.apply(&mut bytes);
    Some((bytes, fix))
}

/// Most object table entries looked at for padding.
const MAX_OBJECTS: u64 = 4096;

/// A TMD whose last object table entries are all zero: NOBJ counts padding (module docs).
pub(crate) fn tmd_fix(src: &dyn Source, offset: u64, near: &[u8]) -> Option<Fix> {
    let n = word(src, offset, near, 8)? as u64;
    if !(2..=MAX_OBJECTS).contains(&n) {
        return None;
    }
    let zero = |k: u64| (0..7).all(|i| word(src, offset, near, 12 + 28 * k + 4 * i) == Some(0));
    let mut k = n;
    while k > 0 && zero(k - 1) {
        k -= 1;
    }
    (k > 0 && k < n).then(|| Fix {
        at: 8,
        found: n as u32,
        read_as: k as u32,
        warning: format!(
            "NOBJ says {n} objects; entries {k}..{n} of the object table are all zero (padding): read as {k}"
        ),
    })
}

/// Reads the candidate with `fix` applied, as [`verify_strict`] reads any other: the field is
/// replaced in the bytes in memory while it is read, and put back after.
pub(crate) fn verify_fixed(
    near: &mut Near<'_>,
    offset: u64,
    format: Format,
    opts: &ScanOptions,
    fix: Fix,
) -> std::result::Result<Found, Reject> {
    let at = offset + fix.at as u64;
    let old = near
        .patch(at, Le::u32_to(fix.read_as))
        .map_err(|e| Reject {
            reason: "unreadable",
            detail: e.to_string(),
        })?;
    let found = verify_strict(near, offset, format, opts);
    near.put(at, old);
    let mut f = found?;
    f.warnings += 1;
    f.findings.push(crate::Issue {
        severity: crate::Severity::Warning,
        offset: u64::from(fix.at),
        code: "lenient-length".into(),
        message: fix.warning.clone(),
    });
    f.fix = Some(fix);
    Ok(f)
}
