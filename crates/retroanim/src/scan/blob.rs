//! Finding assets at any offset of a run of bytes: a fast candidate pass over the bytes in
//! chunks, then the format's full reader with strict limits at each candidate.
//!
//! Candidate tests (all little-endian words at the candidate offset; sources as in each
//! format's module docs):
//!
//! | format | test |
//! |---|---|
//! | TIM | word 0 = 0x10; flags: only PMODE (≤ 4) and CF; the first block's `bnum` within a quarter of 12 + 2·W·H (exact up to 16 bytes more, else a lenient find), W and H non-zero |
//! | TMD | word 0 = 0x41; flags 0 or 1; 1 ≤ NOBJ ≤ 4096; with FIXP clear, object 0's vertex pointer past the object table |
//! | PMD | word 0 = 0x42; 1 ≤ NOBJ ≤ 4096; PRIM POINT past the object table's first entry, VERT POINT 0 or past it; the first POINTER at or past PRIM POINT; the first group's TYPE names its first packet's GPU code ([`crate::formats::pmd::looks_like`]); an embedded PMD ends after the last shared vertex a packet uses |
//! | PXL / CLT | word 0 = 0x11 / 0x12; FLAG 0 or 1 / 2; `bnum` = 12 + 2·W·H (up to 16 bytes more); the rectangle inside the VRAM; a CLT's W 16 or 256 |
//! | HMD | word 0 = 0x50; MAP FLAG 0 or 1; 1 ≤ block count ≤ 4096; primitive header pointer past the block table |
//! | TOD | byte 0 = 0x50, version < 16, 1 ≤ frames ≤ 2²⁰, and the first frames walk as packets ([`crate::formats::tod::looks_like`]) |
//! | P3D | `MLOD` with major version ≤ 1 and 1..=4096 LODs; `ODOL` with version 7, 50 or 73 |
//! | RTM | `RTM_0101`, `RTM_0100` or `RTM_MDAT`, read to the size its header declares ([`rtm::declared_len`]); `BMTR` only where it starts its container (a file of its own, a PBO entry): it declares no size, so it is read to the container's end |
//!
//! A candidate is read from a window of the source that starts at 64 KiB (a TIM's exact size,
//! from its header) and doubles while the reader runs out of bytes, up to `max_asset`. It is
//! accepted when the reader succeeds, the validator reports no error, and its size follows from
//! its own structure: the window minus the bytes the reader kept as trailing (TOD, TIM, P3D),
//! minus a final gap (TMD), or where the structure ends (HMD: read from doubling windows until
//! the last word anything in it uses, [`hmd::structural_len`], lies in the window's first half,
//! or else to the end of its container, then cut after that word; an HMD at the start
//! of its container is a file of its own and keeps the whole container, unused tail included;
//! one whose last section's use nothing gives runs to the end of its container); an ODOL v7
//! ends where its model info's layout does ([`p3d::Odol::model_info_len`]; one whose model info
//! does not parse is accepted only where it ends its container). The summary
//! and issues are those of the asset alone: a TOD, TIM or TMD read from a larger window drops
//! what followed it (its readers use no byte past the asset, see `trim`); an HMD or P3D is read
//! once more from its own bytes.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use rayon::prelude::*;

use super::lenient::word as word_near;
use super::pretest::read_pretested;
use super::source::Source;
use super::ScanOptions;
use crate::bytes::{ByteOrder, Le};
use crate::error::{Error, Result};
use crate::formats::{clt, hmd, p3d, pmd, pxl, rtm, tim, tmd, tod};
use crate::{Format, Model, Severity};

/// Bytes the candidate pass looks at per task: large, so that few candidates' windows run past
/// a chunk's end (whose bytes the next chunk's task reads again).
const CHUNK: u64 = 1 << 20;
/// The candidate tests of an offset look at the bytes up to [`HEAD`] past the end of the
/// `TEST_BLOCK` (counted from the source's start) that holds it, wherever chunks end: what a
/// test sees, and so the candidates counted, does not depend on the chunk size.
const TEST_BLOCK: u64 = 1 << 20;
/// Bytes past a test block's end its candidate tests may look at.
const HEAD: u64 = 256;
/// First window a candidate is read from.
const FIRST_WINDOW: u64 = 64 * 1024;

/// An accepted asset.
#[derive(Debug, Clone)]
pub struct Found {
    /// Byte offset in the source.
    pub offset: u64,
    /// Size in bytes.
    pub size: u64,
    /// Its format.
    pub format: Format,
    /// Its summary as `info --json` gives it, as JSON text (the model itself is dropped as soon
    /// as it is checked, so a blob's finds cost little memory however many there are).
    pub summary: Box<serde_json::value::RawValue>,
    /// Validation warnings (errors are never accepted).
    pub warnings: usize,
    /// Its validation findings (never an error: a candidate with one is rejected).
    pub findings: Vec<crate::Issue>,
    /// False when its end could not be known from its structure (an embedded HMD whose last
    /// section's used length nothing in it gives): it then runs to the end of its container.
    pub size_exact: bool,
    /// An HMD mapped in place by `GsMapUnit` (a RAM dump): the address its first byte had.
    /// Its summary and size are those of the file it was; [`super::ram::unmap_hmd`] gives
    /// the file's bytes.
    pub mapped_address: Option<u32>,
    /// A length field read as the data shows it ([`super::lenient`]).
    pub fix: Option<super::lenient::Fix>,
    /// What TOD ↔ TMD matching needs of the model.
    pub(crate) link: super::Link,
}

/// Counters of one scan.
#[derive(Debug, Default)]
pub struct Stats {
    /// Candidates the first pass found.
    pub candidates: AtomicU64,
    /// Candidates the full readers rejected.
    pub rejected: AtomicU64,
    /// Nanoseconds (summed over threads) in the candidate pass, reading included.
    pub candidate_ns: AtomicU64,
    /// Nanoseconds (summed over threads) in the full readers.
    pub parse_ns: AtomicU64,
    /// Bytes scanned.
    pub bytes: AtomicU64,
    /// Bytes not read because they lie in holes of a sparse file (they are zeros, where no
    /// format starts).
    pub holes: AtomicU64,
    /// Rejected candidates by format and reason (`"TIM: read error"`).
    pub rejected_by: std::sync::Mutex<std::collections::BTreeMap<String, u64>>,
    /// The first [`MAX_LISTED`] rejected candidates (in no particular order), for `scan -v`.
    pub rejections: std::sync::Mutex<Vec<Rejection>>,
}

/// Most rejected candidates [`Stats::rejections`] lists.
pub const MAX_LISTED: usize = 10_000;

/// A candidate the full reader did not accept.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Rejection {
    /// Byte offset in the container scanned as a blob.
    pub offset: u64,
    /// The format tried.
    pub format: Format,
    /// Why, in a few words (what the summary counts by).
    pub reason: &'static str,
    /// The reader's or validator's message.
    pub detail: String,
}

impl Stats {
    /// Counts a chunk's rejected candidates (one lock per chunk, not per candidate).
    fn record(&self, rejected: Vec<Rejection>) {
        if rejected.is_empty() {
            return;
        }
        self.rejected
            .fetch_add(rejected.len() as u64, Ordering::Relaxed);
        if let Ok(mut by) = self.rejected_by.lock() {
            for r in &rejected {
                let key = format!("{}: {}", r.format.name().to_uppercase(), r.reason);
                *by.entry(key).or_default() += 1;
            }
        }
        if let Ok(mut list) = self.rejections.lock() {
            let room = MAX_LISTED.saturating_sub(list.len());
            list.extend(rejected.into_iter().take(room));
        }
    }
}

fn tim_block_ok(b: &[u8], at: usize) -> bool {
    let (Some(bnum), Some(w), Some(h)) = (
        Le::u32_at(b, at),
        Le::u16_at(b, at + 8),
        Le::u16_at(b, at + 10),
    ) else {
        // Not in the buffer: let the reader decide.
        return b.len() < at + 12;
    };
    let need = 12 + 2 * w as u64 * h as u64;
    // Exact (up to 16 bytes more), or off by up to a quarter: a damaged length field read as
    // the data shows it (`super::lenient`).
    let slack = need / 4;
    w > 0 && h > 0 && (bnum as u64) + slack >= need && (bnum as u64) <= need + 16 + slack
}

/// The formats whose candidate test passes at the start of `b` (see the module docs).
pub(crate) fn candidate(b: &[u8], want: &[Format], out: &mut Vec<Format>) {
    let Some(w0) = Le::u32_at(b, 0) else { return };
    let w = |i: usize| Le::u32_at(b, i * 4);
    let wants = |f: Format| want.contains(&f);
    match w0 {
        0x10 if wants(Format::Tim) => {
            if let Some(f) = w(1) {
                if f & !0xF == 0 && f & 7 <= 4 && tim_block_ok(b, 8) {
                    out.push(Format::Tim);
                }
            }
        }
        0x41 if wants(Format::Tmd) => {
            if let (Some(flags @ (0 | 1)), Some(n)) = (w(1), w(2)) {
                let vert_ok = flags == 1 || w(3).map_or(true, |v| v as u64 >= 28 * n as u64);
                if (1..=4096).contains(&n) && vert_ok {
                    out.push(Format::Tmd);
                }
            }
        }
        0x42 if wants(Format::Pmd) && pmd::looks_like(b, u64::MAX) => out.push(Format::Pmd),
        0x11 if wants(Format::Pxl) && pxl::looks_like(b) => out.push(Format::Pxl),
        0x12 if wants(Format::Clt) && clt::looks_like(b) => out.push(Format::Clt),
        _ => {}
    }
    if w0 == 0x50 && wants(Format::Hmd) {
        if let (Some(0 | 1), Some(ph), Some(nb)) = (w(1), w(2), w(3)) {
            if (1..=4096).contains(&nb) && ph & 0x7FFF_FFFF >= 4 + nb {
                out.push(Format::Hmd);
            }
        }
    }
    if b[0] == tod::FILE_ID && b[1] < 16 && wants(Format::Tod) {
        if let Some(frames) = w(1) {
            if (1..=1 << 20).contains(&frames) && tod::looks_like(b) {
                out.push(Format::Tod);
            }
        }
    }
    // A BMTR declares no size: it is a candidate only at its container's start (listed by
    // `scan_chunk`, rejected elsewhere by `verify_strict`), read to the container's end.
    if wants(Format::Rtm)
        && (b.starts_with(rtm::MAGIC)
            || b.starts_with(rtm::MAGIC_0100)
            || b.starts_with(rtm::MDAT_MAGIC)
            || b.starts_with(rtm::BMTR_MAGIC))
    {
        out.push(Format::Rtm);
    }
    if wants(Format::P3d) {
        match &b[..4] {
            b"MLOD" => {
                if let (Some(v), Some(n)) = (w(1), w(2)) {
                    if v >> 8 <= 1 && (1..=4096).contains(&n) {
                        out.push(Format::P3d);
                    }
                }
            }
            b"ODOL" => {
                if matches!(w(1), Some(7 | 50 | 73)) {
                    out.push(Format::P3d);
                }
            }
            _ => {}
        }
    }
}

/// True when an error says the reader ran out of bytes (a bigger window may help): it is near
/// the window's end, or names bytes left or the end.
fn ran_out(e: &Error, window: u64) -> bool {
    if e.offset().is_some_and(|o| o.saturating_add(4096) >= window) {
        return true;
    }
    let s = e.to_string();
    ["past the end", "left", "outside the file"]
        .iter()
        .any(|p| s.contains(p))
}

fn read_model(format: Format, data: &[u8], opts: &ScanOptions) -> Result<Model> {
    let l = &opts.limits;
    match format {
        Format::Tim => tim::read_with(data, l).map(Model::Tim),
        Format::Tmd => tmd::read_with(data, l).map(Model::Tmd),
        Format::Tod => tod::read_with(data, l).map(Model::Tod),
        Format::Hmd => hmd::read_with(data, l).map(Model::Hmd),
        Format::Pmd => pmd::read_with(data, l).map(Model::Pmd),
        Format::Clt => clt::read_with(data, l).map(Model::Clt),
        Format::Pxl => pxl::read_with(data, l).map(Model::Pxl),
        Format::Rtm => {
            let own = rtm::declared_len(data).map_or(data.len(), |n| {
                usize::try_from(n).map_or(data.len(), |n| n.min(data.len()))
            });
            rtm::read_with(&data[..own], l).map(Model::Rtm)
        }
        _ => p3d::read_with(data, l).map(Model::P3d),
    }
}

/// [`hmd::structural_len`] of an HMD model (`None` for other formats): worked out once per
/// model read and handed to what needs it.
fn hmd_len(m: &Model) -> Option<u64> {
    match m {
        Model::Hmd(h) => hmd::structural_len(h),
        _ => None,
    }
}

/// The asset's own size inside a window of `len` bytes it was read from (`hmd_len`: its
/// [`hmd_len`]).
fn own_size(m: &Model, hmd_len: Option<u64>, len: u64, left: u64, at_start: bool) -> u64 {
    match m {
        Model::Tim(t) => len - t.trailing.len() as u64,
        Model::Tod(t) => len - t.trailing.len() as u64,
        Model::Clt(c) => len - c.trailing.len() as u64,
        Model::Pxl(p) => len - p.trailing.len() as u64,
        // A shared VERTEX group has no count: the PMD ends after the last vertex it uses.
        Model::Pmd(p) => (p.structural_len() as u64).min(len),
        Model::Rtm(rtm::Rtm::Mlod(m)) => m.frame_offset(m.frames.len()).min(len),
        Model::P3d(p3d::P3d::Mlod(m)) => len - m.trailing.0.len() as u64,
        Model::P3d(p3d::P3d::Odol(o)) => match &o.arma {
            Some(a) => len - a.trailing.0.len() as u64,
            // ODOL v7 keeps everything after its LODs as model info: it ends where the model
            // info's layout does, where that parses (else see `verify`).
            None => match o.model_info_len() {
                Some(k) => len - (o.model_info.0.len() - k) as u64,
                None => len,
            },
        },
        Model::Tmd(t) => match t.gaps.iter().max_by_key(|g| g.offset) {
            Some(g) if g.offset as u64 + g.bytes.len() as u64 == len => g.offset as u64,
            _ => len,
        },
        // A file of its own (at the start of its container): the whole rest, unused tail
        // included (sample files keep normals no polygon uses).
        Model::Hmd(_) if at_start && len == left => len,
        // Embedded: where its structure ends, where that is known.
        Model::Hmd(h) => match hmd_len {
            Some(s) => s.min(len),
            None if len == left => len,
            None => {
                let end = h
                    .regions
                    .iter()
                    .filter(|r| !matches!(r.body, hmd::RegionBody::Gap(_)))
                    .map(|r| (r.offset as u64 + r.body.words() as u64) * 4)
                    .max()
                    .unwrap_or(0);
                end.max((4 + h.blocks.len() as u64) * 4).min(len)
            }
        },
        _ => len,
    }
}

/// Bytes of a source from one offset on, held in memory and read further as candidates need
/// them: a chunk's buffer that a candidate's window running past its end extends (only the
/// bytes past the end are read), so the candidates after it in the chunk, and each larger
/// window of one candidate, find their bytes in memory instead of reading them again.
pub(crate) struct Near<'a> {
    src: &'a dyn Source,
    /// Source offset of `buf[0]`.
    start: u64,
    /// The bytes `buf[..have]` hold the source's; those after them are left from earlier use
    /// (kept so that extending the window does not zero memory again).
    buf: &'a mut Vec<u8>,
    have: usize,
}

impl<'a> Near<'a> {
    /// `buf[..have]` holding the source's bytes from `start` on (any number of them; what
    /// follows in `buf` is scratch space).
    pub(crate) fn new(
        src: &'a dyn Source,
        start: u64,
        buf: &'a mut Vec<u8>,
        have: usize,
    ) -> Near<'a> {
        let have = have.min(buf.len());
        Near {
            src,
            start,
            buf,
            have,
        }
    }

    /// The source.
    pub(crate) fn src(&self) -> &'a dyn Source {
        self.src
    }

    /// The bytes from `offset` on that are in memory (none when it lies outside them).
    pub(crate) fn at(&self, offset: u64) -> &[u8] {
        self.index(offset)
            .and_then(|d| self.buf[..self.have].get(d..))
            .unwrap_or(&[])
    }

    fn index(&self, offset: u64) -> Option<usize> {
        usize::try_from(offset.checked_sub(self.start)?).ok()
    }

    /// The `len` bytes at `offset` (at or after the buffer's start), reading those past the
    /// buffer's end into it.
    pub(crate) fn window(&mut self, offset: u64, len: usize) -> Result<&[u8]> {
        let outside = || {
            Error::Io(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!("{len} bytes at offset {offset}: before the buffered bytes"),
            ))
        };
        let d = self.index(offset).ok_or_else(outside)?;
        let end = d.checked_add(len).ok_or_else(outside)?;
        let have = self.have;
        if end > have {
            if end > self.buf.len() {
                self.buf.resize(end, 0);
            }
            self.src
                .read_at(self.start + have as u64, &mut self.buf[have..end])?;
            self.have = end;
        }
        Ok(&self.buf[d..end])
    }

    /// Replaces the 4 bytes at `offset` (read into the buffer first), returning what they were:
    /// a damaged length field read as the data shows it ([`super::lenient`]).
    pub(crate) fn patch(&mut self, offset: u64, word: [u8; 4]) -> Result<[u8; 4]> {
        let w = self.window(offset, 4)?;
        let old = [w[0], w[1], w[2], w[3]];
        self.put(offset, word);
        Ok(old)
    }

    /// Writes back the bytes [`Near::patch`] returned.
    pub(crate) fn put(&mut self, offset: u64, word: [u8; 4]) {
        let have = self.have;
        if let Some(b) = self
            .index(offset)
            .and_then(|d| self.buf[..have].get_mut(d..d.checked_add(4)?))
        {
            b.copy_from_slice(&word);
        }
    }
}

/// Reads the candidate at `offset` fully; `None` when it is not an asset. `near` holds the
/// source's bytes from (at most) `offset` on that are in memory already, and reads further
/// into itself as the candidate's windows need.
///
/// A TIM whose block lengths disagree with their width × height, and a TMD whose object
/// count runs into padding, are read as the data shows them ([`super::lenient`]).
pub(crate) fn verify(
    near: &mut Near<'_>,
    offset: u64,
    format: Format,
    opts: &ScanOptions,
) -> Result<Found, Reject> {
    let src = near.src();
    match format {
        Format::Tim => {
            if let Some(fix) = super::lenient::tim_fix(src, offset, near.at(offset)) {
                return super::lenient::verify_fixed(near, offset, format, opts, fix);
            }
            verify_strict(near, offset, format, opts)
        }
        Format::Tmd => match super::lenient::tmd_fix(src, offset, near.at(offset)) {
            Some(fix) => super::lenient::verify_fixed(near, offset, format, opts, fix)
                .or_else(|_| verify_strict(near, offset, format, opts)),
            None => verify_strict(near, offset, format, opts),
        },
        _ => verify_strict(near, offset, format, opts),
    }
}

/// Why a candidate was not accepted: a reason to count by, and the detail to list.
#[derive(Debug, Clone)]
pub(crate) struct Reject {
    pub reason: &'static str,
    pub detail: String,
}

fn reject(reason: &'static str, detail: impl Into<String>) -> Reject {
    Reject {
        reason,
        detail: detail.into(),
    }
}

/// [`verify`] without leniency.
pub(crate) fn verify_strict(
    near: &mut Near<'_>,
    offset: u64,
    format: Format,
    opts: &ScanOptions,
) -> Result<Found, Reject> {
    let src = near.src();
    let left = src.len() - offset;
    let cap = left.min(opts.max_asset);
    let mut window = match format {
        Format::Tim => tim_size(src, offset, near.at(offset))
            .ok_or_else(|| reject("header past the end", "TIM block header"))?
            .min(cap),
        // An HMD at the start of its container is a file of its own: all of it is read.
        Format::Hmd if offset == 0 => cap,
        // So is a BMTR, which is a candidate nowhere else: it has no size to go by.
        Format::Rtm if near.at(offset).starts_with(rtm::BMTR_MAGIC) => {
            if offset != 0 {
                return Err(reject(
                    "BMTR not at the start of its container",
                    "a BMTR declares no size: it is read only as a file of its own",
                ));
            }
            cap
        }
        _ => FIRST_WINDOW.min(cap),
    };
    // An HMD mapped in RAM is read as the file it was (its pointers turned back into offsets).
    // Its block table is looked at in the first window (whatever else is in memory), so the
    // answer does not depend on where chunks end.
    let mapped = match format {
        Format::Hmd => match near.window(offset, FIRST_WINDOW.min(cap) as usize) {
            Ok(first) => super::ram::hmd_address(first, offset, opts.base),
            Err(e) => return Err(reject("unreadable", e.to_string())),
        },
        _ => None,
    };
    // An embedded HMD whose header points past half a window is cut short in that window
    // whatever else it holds: its doubling starts at the first window that can hold it
    // ([`hmd::pointer_floor`]), the same window the doubling would have reached, without
    // reading and decoding the ones before it.
    if format == Format::Hmd && mapped.is_none() && offset != 0 {
        let floor = hmd::pointer_floor(near.at(offset));
        while window < cap && window < floor.saturating_mul(2) {
            window = (window * 2).min(cap);
        }
    }
    let mut unmapped: Vec<u8>;
    loop {
        let data = match near.window(offset, window as usize) {
            Ok(d) => d,
            Err(e) => return Err(reject("unreadable", e.to_string())),
        };
        let data: &[u8] = match mapped {
            Some(address) => match super::ram::unmap_hmd(data, address) {
                Some(u) => {
                    unmapped = u;
                    &unmapped
                }
                None => {
                    return Err(reject(
                        "mapped pointer out of place",
                        format!("not an HMD mapped at 0x{address:08x}"),
                    ))
                }
            },
            None => data,
        };
        match read_model(format, data, opts) {
            // An ODOL v7 whose model info the window cuts: a bigger window may hold it.
            Ok(Model::P3d(p3d::P3d::Odol(o)))
                if o.arma.is_none() && o.model_info_len().is_none() && window < cap =>
            {
                window = (window * 2).min(cap)
            }
            Ok(m) => {
                let hl = hmd_len(&m);
                if matches!(m, Model::Hmd(_)) && window < cap && !hmd_ends_inside(hl, window) {
                    window = (window * 2).min(cap);
                    continue;
                }
                let size = own_size(&m, hl, window, left, offset == 0);
                return accept(m, hl, size, data, offset, format, left, opts).map(|mut f| {
                    f.mapped_address = mapped;
                    f
                });
            }
            // An embedded HMD read from less than the rest of its container: its last section
            // was cut short, whatever the error says.
            Err(e) if window < cap && (format == Format::Hmd || ran_out(&e, window)) => {
                window = (window * 2).min(cap)
            }
            Err(e) => return Err(reject("read error", e.to_string())),
        }
    }
}

/// True when an HMD read from a window shorter than the rest of its container ends well inside
/// it: the last word anything in it uses ([`hmd::structural_len`]) lies in the window's first
/// half. Its last section ran to the window's end instead of the container's; what points into
/// it points before that half, and the next window (twice as large) is read where it does not.
/// An HMD whose end its structure does not give is read on to the end of its container, as
/// before windows. The accepted bytes are read again on their own and must end there too.
fn hmd_ends_inside(structural_len: Option<u64>, window: u64) -> bool {
    structural_len.is_some_and(|s| s <= window / 2)
}

/// Checks a model read from `data` (a window at `offset`) whose own size is `size` (`hl`: its
/// [`hmd_len`]).
#[allow(clippy::too_many_arguments)]
fn accept(
    model: Model,
    hl: Option<u64>,
    size: u64,
    data: &[u8],
    offset: u64,
    format: Format,
    left: u64,
    opts: &ScanOptions,
) -> Result<Found, Reject> {
    let window = data.len() as u64;
    if size == 0 || size < opts.min_size {
        return Err(reject("smaller than --min-size", format!("{size} bytes")));
    }
    // An ODOL v7 whose model info does not parse runs to the end of whatever it is read from:
    // accepted only where that is the end of its container (a file of its own).
    if matches!(&model, Model::P3d(p3d::P3d::Odol(o)) if o.arma.is_none() && o.model_info_len().is_none())
        && size != left
    {
        return Err(reject(
            "model info does not parse",
            "ODOL v7 not at the end of its container",
        ));
    }
    let (model, hl) = if size < window {
        let m = trim(model, format, &data[..size as usize], opts)
            .ok_or_else(|| reject("does not read alone", format!("its own {size} bytes")))?;
        let hl = hmd_len(&m);
        (m, hl)
    } else {
        (model, hl)
    };
    if own_size(&model, hl, size, left, offset == 0) != size {
        return Err(reject(
            "size does not hold",
            format!("read alone, its {size} bytes give another size"),
        ));
    }
    let issues = model.validate_read();
    if let Some(e) = issues.iter().find(|i| i.severity == Severity::Error) {
        return Err(reject("validation error", e.to_string()));
    }
    let size_exact = match &model {
        Model::Hmd(_) => (offset == 0 && size == left) || hl.is_some(),
        _ => true,
    };
    Ok(Found {
        offset,
        size,
        format: model.format(),
        summary: super::compact_summary(&model),
        warnings: issues
            .iter()
            .filter(|i| i.severity == Severity::Warning)
            .count(),
        findings: issues,
        size_exact,
        mapped_address: None,
        fix: None,
        link: super::link_of(&model),
    })
}

/// The model of the asset's own bytes `own`, a prefix of the window `model` was read from.
/// The TOD, TIM and TMD readers read fields in order or where pointers say, and fail only when
/// a count or pointer runs past the end: the bytes they used all lie in `own`, so reading `own`
/// gives the same model less what followed it — the TOD's and TIM's `trailing` bytes, the
/// TMD's last gap (`tests/scan_blob.rs` checks this on every corpus file). Others (an HMD's
/// last section runs to the end of what it is read from; P3D) are read again from `own`.
fn trim(model: Model, format: Format, own: &[u8], opts: &ScanOptions) -> Option<Model> {
    match model {
        Model::Tod(mut t) => {
            t.trailing = Vec::new();
            Some(Model::Tod(t))
        }
        Model::Tim(mut t) => {
            t.trailing = Vec::new();
            Some(Model::Tim(t))
        }
        Model::Tmd(mut t)
            if t.gaps
                .last()
                .is_some_and(|g| g.offset as usize == own.len()) =>
        {
            t.gaps.pop();
            Some(Model::Tmd(t))
        }
        _ => read_model(format, own, opts).ok(),
    }
}

/// A TIM's size from its block headers (words taken from `near` where it holds them).
fn tim_size(src: &dyn Source, offset: u64, near: &[u8]) -> Option<u64> {
    let word = |at: u64| word_near(src, offset, near, at);
    let flags = word(4)?;
    let mut at = 8u64;
    if flags & 8 != 0 {
        at += word(8)? as u64;
    }
    Some(at + word(at)? as u64)
}

/// Largest chunk buffer a thread keeps between chunks (a candidate's window can grow it up to
/// `max_asset` past the chunk; a larger one shrinks back to a chunk).
const KEEP_BUF: usize = 2 * CHUNK as usize + (4 << 20);

thread_local! {
    /// Each worker's chunk buffer, kept between chunks (one chunk plus its head per thread,
    /// and the windows of candidates that ran past it).
    static CHUNK_BUF: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// The candidates at the offsets `at` of `buf` (which starts at byte `start` of the source
/// and runs up to [`HEAD`] bytes past the scanned part).
fn candidates(buf: &[u8], start: u64, at: &[usize], opts: &ScanOptions) -> Vec<(u64, Format)> {
    let mut cands = Vec::new();
    let mut fmts = Vec::new();
    for &p in at {
        fmts.clear();
        let abs = start + p as u64;
        let end = ((abs / TEST_BLOCK + 1) * TEST_BLOCK + HEAD - start).min(buf.len() as u64);
        candidate(&buf[p..end as usize], &opts.formats, &mut fmts);
        cands.extend(fmts.iter().map(|&f| (abs, f)));
    }
    cands
}

/// Scans every aligned offset of `src`; finds in offset order.
pub(crate) fn scan(src: &dyn Source, opts: &ScanOptions, stats: &Stats) -> Result<Vec<Found>> {
    let len = src.len();
    let chunks = len.div_ceil(CHUNK);
    let per_chunk: Result<Vec<Vec<Found>>> = (0..chunks)
        .into_par_iter()
        .map(|i| scan_chunk(src, i * CHUNK, opts, stats))
        .collect();
    Ok(per_chunk?.into_iter().flatten().collect())
}

fn scan_chunk(
    src: &dyn Source,
    start: u64,
    opts: &ScanOptions,
    stats: &Stats,
) -> Result<Vec<Found>> {
    let t0 = Instant::now();
    let len = src.len();
    let scan_len = CHUNK.min(len - start);
    // A chunk wholly inside a hole holds only zeros: no candidate starts with a zero byte.
    if src.next_data(start) >= start + scan_len {
        stats.holes.fetch_add(scan_len, Ordering::Relaxed);
        (opts.progress)(scan_len);
        return Ok(Vec::new());
    }
    let found = CHUNK_BUF.with(|cell| -> Result<Vec<Found>> {
        let mut buf = cell.borrow_mut();
        // Every byte up to `n` is overwritten by the read: the buffer is only grown (zeroed
        // once), never cut to the chunk and grown again.
        let n = (scan_len + HEAD).min(len - start) as usize;
        if buf.len() < n {
            buf.resize(n, 0);
        }
        let mut at = read_pretested(src, start, &mut buf[..n], scan_len as usize, opts)?;
        // A BMTR opens no pre-tested word: it is looked for at its container's start only.
        if start == 0
            && buf.starts_with(rtm::BMTR_MAGIC)
            && opts.formats.contains(&Format::Rtm)
            && at.first() != Some(&0)
        {
            at.insert(0, 0);
        }
        let cands = candidates(&buf[..n], start, &at, opts);
        let t1 = Instant::now();
        stats
            .candidate_ns
            .fetch_add((t1 - t0).as_nanos() as u64, Ordering::Relaxed);
        stats
            .candidates
            .fetch_add(cands.len() as u64, Ordering::Relaxed);
        let mut found = Vec::new();
        let mut rejected = Vec::new();
        // A window that lies in the chunk is parsed where it is, not read again; one that runs
        // past it extends the buffer for the candidates after it.
        let mut near = Near::new(src, start, &mut buf, n);
        for (off, f) in cands {
            match verify(&mut near, off, f, opts) {
                Ok(x) => found.push(x),
                Err(r) => rejected.push(Rejection {
                    offset: off,
                    format: f,
                    reason: r.reason,
                    detail: r.detail,
                }),
            }
        }
        stats.record(rejected);
        if buf.capacity() > KEEP_BUF {
            // Shrunk in place, not dropped: the next chunk's bytes need no zeroing again.
            buf.truncate((CHUNK + HEAD) as usize);
            buf.shrink_to((CHUNK + HEAD) as usize);
        }
        stats
            .parse_ns
            .fetch_add(t1.elapsed().as_nanos() as u64, Ordering::Relaxed);
        Ok(found)
    })?;
    stats.bytes.fetch_add(scan_len, Ordering::Relaxed);
    (opts.progress)(scan_len);
    Ok(found)
}
