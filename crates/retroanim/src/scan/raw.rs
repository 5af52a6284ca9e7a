//! Raw 2352-byte CD sectors: detection, the user-data view the file system is read through, and
//! the project's own Mode 2 Form 1 sector writer.
//!
//! Layout of one raw data sector (ECMA-130 §14; the CD-ROM XA Mode 2 forms from the "Green Book"
//! as summarised in `notes/`):
//!
//! | offset | size | Mode 1 | Mode 2 Form 1 | Mode 2 Form 2 |
//! |---|---|---|---|---|
//! | 0 | 12 | sync `00 FF×10 00` | sync | sync |
//! | 12 | 4 | header: minute, second, frame (BCD, +2 s), mode 1 | header, mode 2 | header, mode 2 |
//! | 16 | 8 | user data… | subheader: file, channel, submode, coding, repeated | subheader (submode bit 5 set) |
//! | 24 | 2048 | | user data | user data (2324 bytes) |
//! | 2072 | 4 | | EDC over bytes 16..2072 | |
//! | 2076 | 276 | | ECC (P and Q parity) | |
//! | 2348 | 4 | | | EDC over bytes 16..2348 |
//!
//! Mode 1 keeps its 2048 user bytes at 16, its EDC at 2064. The EDC is the CRC-32 with the
//! reflected polynomial 0xD8018001 (x³² + x³¹ + x¹⁶ + x¹⁵ + x⁴ + x³ + x + 1), initial value 0, no
//! final inversion, stored little-endian.
//!
//! Readings taken:
//! - The user-data view ([`SectorView`]) gives 2048 bytes per sector, at 16 for Mode 1 sectors
//!   and at 24 for Mode 2 sectors, chosen sector by sector from the mode byte, so a file that
//!   spans sectors reads as one run of bytes. A Form 2 sector contributes its first 2048 user
//!   bytes; files on Form 2 sectors are listed and not scanned (see `iso.rs`).
//! - [`write_mode2_image`] writes every sector as Form 1 with submode 0x08 (data), file and
//!   channel 0, a correct EDC and an **all-zero ECC**: emulators and `bchunk` read the user data
//!   and ignore the ECC; a disc burner would recompute it.

use std::io::{IoSliceMut, Read, Write};
use std::sync::Arc;

use super::source::Source;
use crate::bytes::{ByteOrder, Le};
use crate::error::{Error, Result};

/// Bytes of a raw sector.
pub const RAW_SECTOR: usize = 2352;
/// User bytes of a Mode 1 or Mode 2 Form 1 sector.
pub const USER_DATA: usize = 2048;
/// The 12-byte sync pattern that opens every data sector.
pub const SYNC: [u8; 12] = [
    0, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0,
];

/// True when `source` starts with a data sector's sync pattern and holds whole raw sectors.
pub fn looks_raw(source: &dyn Source) -> bool {
    let mut head = [0u8; 16];
    source.len() >= RAW_SECTOR as u64
        && source.len() % RAW_SECTOR as u64 == 0
        && source.read_at(0, &mut head).is_ok()
        && head[..12] == SYNC
        && matches!(head[15], 1 | 2)
}

/// The 2048-byte user data of each sector of a raw track, as one run of bytes.
#[derive(Debug, Clone)]
pub struct SectorView {
    inner: Arc<dyn Source>,
    start: u64,
    sectors: u64,
}

/// Raw sectors read at once by [`SectorView::read_at`].
const BATCH: u64 = 32;

impl SectorView {
    /// The track of `sectors` raw sectors starting at byte `start` of `inner`.
    pub fn new(inner: Arc<dyn Source>, start: u64, sectors: u64) -> Result<SectorView> {
        let end = sectors
            .checked_mul(RAW_SECTOR as u64)
            .and_then(|n| n.checked_add(start));
        match end {
            Some(e) if e <= inner.len() => Ok(SectorView {
                inner,
                start,
                sectors,
            }),
            _ => Err(Error::Container {
                container: "raw CD",
                offset: start,
                what: format!(
                    "{sectors} sectors of {RAW_SECTOR} bytes from byte {start} run past the end of the image ({} bytes)",
                    inner.len()
                ),
            }),
        }
    }

    /// The subheader submode byte of `sector` (Mode 2), or `None` for a Mode 1 sector.
    pub fn submode(&self, sector: u64) -> Result<Option<u8>> {
        let mut h = [0u8; 19];
        self.inner
            .read_at(self.start + sector * RAW_SECTOR as u64, &mut h)?;
        Ok((h[15] == 2).then_some(h[18]))
    }

    fn data_offset(raw: &[u8]) -> usize {
        if raw.get(15) == Some(&1) {
            16
        } else {
            24
        }
    }
}

impl Source for SectorView {
    fn len(&self) -> u64 {
        self.sectors * USER_DATA as u64
    }

    fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<()> {
        let end = offset
            .checked_add(buf.len() as u64)
            .filter(|&e| e <= self.len());
        if end.is_none() {
            return Err(Error::Io(std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                format!(
                    "{} bytes at user-data offset {offset} run past the end of the track",
                    buf.len()
                ),
            )));
        }
        if buf.len() >= SCATTER_FROM && self.scatter_user_data(offset, buf)? {
            return Ok(());
        }
        RAW_BUF.with(|cell| match cell.try_borrow_mut() {
            Ok(mut raw) => {
                raw.resize(BATCH as usize * RAW_SECTOR, 0);
                self.copy_user_data(offset, buf, &mut raw)
            }
            // A view read through another view on this thread (an image inside an image).
            Err(_) => self.copy_user_data(offset, buf, &mut vec![0; BATCH as usize * RAW_SECTOR]),
        })
    }

    fn image_offset(&self, offset: u64) -> Option<u64> {
        let sector = offset / USER_DATA as u64;
        let raw_at = self.start + sector * RAW_SECTOR as u64;
        let mut h = [0u8; 16];
        self.inner.read_at(raw_at, &mut h).ok()?;
        let raw = raw_at + Self::data_offset(&h) as u64 + offset % USER_DATA as u64;
        self.inner.image_offset(raw).or(Some(raw))
    }

    fn next_data(&self, offset: u64) -> u64 {
        // The first raw sector holding data, as user-data bytes (a sector partly in a hole is
        // read whole).
        if offset >= self.len() {
            return self.len();
        }
        let sector = offset / USER_DATA as u64;
        let raw_at = self.start + sector * RAW_SECTOR as u64;
        let data = self.inner.next_data(raw_at);
        let s = (data.saturating_sub(self.start)) / RAW_SECTOR as u64;
        (s * USER_DATA as u64).clamp(offset, self.len())
    }
}

thread_local! {
    /// Each thread's scratch buffer for the bytes between sectors' user data.
    static GAPS: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
    /// Each thread's buffer of raw sectors, kept between reads (the scanner reads a chunk at a
    /// time, and a view can sit on a view: each level borrows it only while it copies).
    static RAW_BUF: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Reads of at least this many bytes are scatter reads ([`SectorView::scatter_user_data`]).
const SCATTER_FROM: usize = 16 * USER_DATA;
/// Raw sectors read by one scatter read (two buffers each, within the 1024 of one `preadv`).
const SCATTER: u64 = 256;
/// Bytes between two sectors' user data in a Mode 2 track: the EDC and ECC of one (280) and
/// the sync, header and subheader of the next (24).
const GAP: usize = RAW_SECTOR - USER_DATA;

impl SectorView {
    /// Fills `buf` with the user data from `offset` (checked to lie inside the track) as the
    /// sectors were Mode 2 (user data at byte 24), [`SCATTER`] sectors per read straight into
    /// `buf` ([`Source::read_vectored_at`]); the bytes around the user data go to a scratch
    /// buffer, where each sector's mode byte is checked after the read. False when a sector is
    /// Mode 1 (user data at byte 16): `buf` is then to be read the other way.
    fn scatter_user_data(&self, offset: u64, buf: &mut [u8]) -> Result<bool> {
        GAPS.with(|cell| match cell.try_borrow_mut() {
            Ok(mut gaps) => {
                gaps.resize(SCATTER as usize * GAP, 0);
                self.scatter_with(offset, buf, &mut gaps)
            }
            // A view read through another view on this thread (an image inside an image).
            Err(_) => self.scatter_with(offset, buf, &mut vec![0; SCATTER as usize * GAP]),
        })
    }

    /// [`SectorView::scatter_user_data`] with `gaps` (room for [`SCATTER`] gaps) as the
    /// scratch buffer: kept per thread, so that it is not allocated and zeroed for each read
    /// (that zeroing was a tenth of a scan's time on an image of small assets).
    fn scatter_with(&self, offset: u64, buf: &mut [u8], gaps: &mut [u8]) -> Result<bool> {
        let mut head = [0u8; 24 + USER_DATA];
        let mut done = 0usize;
        while done < buf.len() {
            let pos = offset + done as u64;
            let first = pos / USER_DATA as u64;
            let in_sector = (pos % USER_DATA as u64) as usize;
            let needed = (in_sector as u64 + (buf.len() - done) as u64).div_ceil(USER_DATA as u64);
            let n = SCATTER.min(needed).min(self.sectors - first) as usize;
            let mut iov: Vec<IoSliceMut<'_>> = Vec::with_capacity(2 * n);
            iov.push(IoSliceMut::new(&mut head[..24 + in_sector]));
            let mut data: &mut [u8] = &mut buf[done..];
            let mut gap = gaps.chunks_exact_mut(GAP);
            let mut got = 0usize;
            for i in 0..n {
                if i > 0 {
                    match gap.next() {
                        Some(g) => iov.push(IoSliceMut::new(g)),
                        None => return Ok(false),
                    }
                }
                let room = if i == 0 {
                    USER_DATA - in_sector
                } else {
                    USER_DATA
                };
                let take = room.min(data.len());
                let (d, rest) = std::mem::take(&mut data).split_at_mut(take);
                data = rest;
                iov.push(IoSliceMut::new(d));
                got += take;
            }
            self.inner
                .read_vectored_at(self.start + first * RAW_SECTOR as u64, &mut iov)?;
            drop(iov);
            // Byte 15 of each sector: its mode (the first sector's header is in `head`, each
            // other's 24 bytes from the end of its gap).
            let mode1 = head[15] == 1
                || gaps
                    .chunks_exact(GAP)
                    .take(n - 1)
                    .any(|g| g[GAP - 24 + 15] == 1);
            if mode1 {
                return Ok(false);
            }
            done += got;
        }
        Ok(true)
    }

    /// Fills `buf` with the user data from `offset` (checked to lie inside the track), reading
    /// [`BATCH`] raw sectors at a time into `raw`.
    fn copy_user_data(&self, offset: u64, buf: &mut [u8], raw: &mut [u8]) -> Result<()> {
        let mut done = 0usize;
        while done < buf.len() {
            let pos = offset + done as u64;
            let sector = pos / USER_DATA as u64;
            // Only the sectors the rest of `buf` needs, at most BATCH.
            let needed =
                (pos % USER_DATA as u64 + (buf.len() - done) as u64).div_ceil(USER_DATA as u64);
            let n_sectors = BATCH.min(self.sectors - sector).min(needed);
            let raw = &mut raw[..n_sectors as usize * RAW_SECTOR];
            self.inner
                .read_at(self.start + sector * RAW_SECTOR as u64, raw)?;
            for (i, s) in raw.chunks_exact(RAW_SECTOR).enumerate() {
                let in_sector = if i == 0 {
                    (pos % USER_DATA as u64) as usize
                } else {
                    0
                };
                let take = (USER_DATA - in_sector).min(buf.len() - done);
                let at = Self::data_offset(s) + in_sector;
                buf[done..done + take].copy_from_slice(&s[at..at + take]);
                done += take;
                if done == buf.len() {
                    break;
                }
            }
        }
        Ok(())
    }
}

const EDC_POLY: u32 = 0xD801_8001;

const fn edc_table() -> [u32; 256] {
    let mut t = [0u32; 256];
    let mut i = 0;
    while i < 256 {
        let mut e = i as u32;
        let mut k = 0;
        while k < 8 {
            e = (e >> 1) ^ if e & 1 != 0 { EDC_POLY } else { 0 };
            k += 1;
        }
        t[i] = e;
        i += 1;
    }
    t
}

static EDC_TABLE: [u32; 256] = edc_table();

/// The CD-ROM EDC (see the module docs) of `data`.
pub fn edc(data: &[u8]) -> u32 {
    data.iter().fold(0u32, |e, &b| {
        (e >> 8) ^ EDC_TABLE[((e ^ b as u32) & 0xFF) as usize]
    })
}

fn bcd(v: u64) -> u8 {
    (((v / 10) << 4) | (v % 10)) as u8
}

/// One raw Mode 2 Form 1 sector holding `data` at logical block `lba` (see the module docs).
pub fn mode2_form1_sector(lba: u64, data: &[u8; USER_DATA]) -> [u8; RAW_SECTOR] {
    let mut s = [0u8; RAW_SECTOR];
    s[..12].copy_from_slice(&SYNC);
    // The header counts from 00:02:00: the first 150 frames are the lead-in pregap.
    let a = lba + 150;
    s[12] = bcd(a / (60 * 75));
    s[13] = bcd((a / 75) % 60);
    s[14] = bcd(a % 75);
    s[15] = 2;
    let sub = [0u8, 0, 0x08, 0];
    s[16..20].copy_from_slice(&sub);
    s[20..24].copy_from_slice(&sub);
    s[24..24 + USER_DATA].copy_from_slice(data);
    let e = edc(&s[16..24 + USER_DATA]);
    Le::put_u32(&mut s, 2072, e);
    s
}

/// Converts a 2048-byte-sector image (an ISO) into raw Mode 2 Form 1 sectors; returns the number
/// of sectors written. A last partial sector is padded with zeros.
pub fn write_mode2_image(iso: &mut dyn Read, out: &mut dyn Write) -> Result<u64> {
    let mut lba = 0u64;
    let mut block = [0u8; USER_DATA];
    loop {
        let mut got = 0;
        while got < USER_DATA {
            match iso.read(&mut block[got..])? {
                0 => break,
                n => got += n,
            }
        }
        if got == 0 {
            return Ok(lba);
        }
        block[got..].fill(0);
        out.write_all(&mode2_form1_sector(lba, &block))?;
        lba += 1;
        if got < USER_DATA {
            return Ok(lba);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scan::source::MemSource;

    #[test]
    fn edc_of_known_inputs() {
        // The EDC is a CRC without inversion: zero bytes give zero, and a single 1 bit at the
        // start of a one-byte message is the table entry for 1.
        assert_eq!(edc(&[0; 64]), 0);
        assert_eq!(edc(&[1]), EDC_TABLE[1]);
        // x^0 reflected through 8 shifts of the polynomial: computed by hand from the table rule.
        let mut e = 1u32;
        for _ in 0..8 {
            e = (e >> 1) ^ if e & 1 != 0 { EDC_POLY } else { 0 };
        }
        assert_eq!(EDC_TABLE[1], e);
    }

    #[test]
    fn sector_header_and_view() {
        let mut iso = vec![0u8; 3 * USER_DATA + 100];
        for (i, b) in iso.iter_mut().enumerate() {
            *b = (i % 251) as u8;
        }
        let mut raw = Vec::new();
        let n = write_mode2_image(&mut &iso[..], &mut raw).unwrap();
        assert_eq!(n, 4);
        assert_eq!(raw.len(), 4 * RAW_SECTOR);
        // LBA 0 is 00:02:00, LBA 3 is 00:02:03.
        assert_eq!(&raw[12..16], &[0, 2, 0, 2]);
        assert_eq!(
            &raw[RAW_SECTOR * 3 + 12..RAW_SECTOR * 3 + 16],
            &[0, 2, 3, 2]
        );
        let src: Arc<dyn Source> = Arc::new(MemSource(raw.into()));
        assert!(looks_raw(src.as_ref()));
        let view = SectorView::new(src, 0, 4).unwrap();
        let mut b = vec![0u8; 3000];
        view.read_at(1000, &mut b).unwrap();
        assert_eq!(&b[..], &iso[1000..4000]);
        assert_eq!(
            view.image_offset(2048 + 5),
            Some(RAW_SECTOR as u64 + 24 + 5)
        );
        assert_eq!(view.submode(1).unwrap(), Some(0x08));
        assert!(view.read_at(4 * 2048 - 10, &mut b).is_err());
    }

    #[test]
    fn bcd_minutes() {
        // LBA 4500 - 150 = one minute after the pregap: 01:00:00.
        let s = mode2_form1_sector(4350, &[0; USER_DATA]);
        assert_eq!(&s[12..15], &[1, 0, 0]);
        let s = mode2_form1_sector(74 * 60 * 75, &[0; USER_DATA]);
        assert_eq!(&s[12..15], &[0x74, 0x02, 0x00]);
    }
}
