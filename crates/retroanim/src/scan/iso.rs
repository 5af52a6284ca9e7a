//! ISO 9660 file systems (ECMA-119, 2048-byte logical sectors) with CD-ROM XA attributes.
//!
//! | where | size | field | source |
//! |---|---|---|---|
//! | sector 16.. | 2048 each | volume descriptors: type (1 primary, 255 terminator), `CD001`, version | ECMA-119 §8 |
//! | PVD +80 | 4+4 | volume space size in logical blocks, both byte orders | §8.4.8 |
//! | PVD +128 | 2+2 | logical block size (2048) | §8.4.12 |
//! | PVD +156 | 34 | root directory record | §8.4.18 |
//! | record +0 | 1 | record length (0: the rest of the sector is padding) | §9.1.1 |
//! | record +2 | 4+4 | extent location (logical block), both byte orders | §9.1.3 |
//! | record +10 | 4+4 | data length in bytes | §9.1.4 |
//! | record +25 | 1 | flags: bit 1 directory, bit 7 multi-extent | §9.1.6 |
//! | record +32 | 1 | name length; name at +33, `;1` version suffix; 0x00 / 0x01 = self / parent | §9.1.10 |
//! | after the name (padded to even) | 14 | XA: group ID, user ID, attributes (big-endian), `XA`, file number, 5 reserved | CD-ROM XA system use |
//!
//! XA attribute bits: 0x0800 Mode 2 Form 1, 0x1000 Mode 2 Form 2, 0x2000 interleaved, 0x4000
//! CD-DA, 0x8000 directory. Files with Form 2 or interleaved sectors (STR video, XA audio) are
//! listed but not scanned for model formats, which only live in Form 1 data.
//!
//! Readings taken: a directory extent reached a second time (a loop), any extent outside the
//! volume, and records that overrun their sector are errors naming the record's byte offset in
//! the image (the 2048-byte view of it); a multi-extent file is listed as its separate extents;
//! directory extents that add up to more than the image (they overlap) are an error, so a walk
//! reads each byte of the image at most once as a directory.

use std::collections::HashSet;

use super::source::Source;
use crate::bytes::{Be, ByteOrder, Le};
use crate::error::{Error, Result};

/// Logical sector size.
pub const SECTOR: u64 = 2048;
/// Most directory records walked in one image.
const MAX_RECORDS: usize = 1 << 20;
/// Deepest directory nesting (ECMA-119 allows 8; discs in the wild go a little deeper).
const MAX_DEPTH: usize = 32;

/// A file of the image.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IsoFile {
    /// Path from the root, `/` separated, without the `;1` version.
    pub path: String,
    /// Byte offset of the extent in the 2048-byte view.
    pub offset: u64,
    /// Length in bytes.
    pub size: u64,
    /// XA attributes, when the record has them.
    pub xa_attributes: Option<u16>,
    /// Byte offset of its directory record in the 2048-byte view.
    pub record: u64,
    /// The record's flags byte (bit 7: one extent of a multi-extent file).
    pub flags: u8,
}

/// One directory tree of a volume: its files, and the extents of its directories.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tree {
    /// Files, in directory order.
    pub files: Vec<IsoFile>,
    /// Each directory's extent: (byte offset in the view, length in bytes).
    pub dirs: Vec<(u64, u64)>,
}

impl IsoFile {
    /// True when the file is on Mode 2 Form 2 or interleaved sectors (video, audio streams).
    pub fn is_stream(&self) -> bool {
        self.xa_attributes
            .is_some_and(|a| a & (0x1000 | 0x2000 | 0x4000) != 0)
    }
}

/// True when `view` (2048-byte sectors) holds an ISO 9660 primary volume descriptor at sector 16.
pub fn looks_like(view: &dyn Source) -> bool {
    let mut h = [0u8; 6];
    view.read_at(16 * SECTOR, &mut h).is_ok() && &h[1..6] == b"CD001"
}

fn err(offset: u64, what: String) -> Error {
    Error::Container {
        container: "ISO 9660",
        offset,
        what,
    }
}

/// The little-endian `u32` at `at` of a directory record read from the image at `rec_at`.
fn le32(r: &[u8], at: usize, rec_at: u64) -> Result<u64> {
    Le::u32_at(r, at).map(u64::from).ok_or_else(|| {
        err(
            rec_at,
            format!("directory record of {} bytes is too short", r.len()),
        )
    })
}

/// Every file of the image, in directory order (the primary volume descriptor's tree).
pub fn list(view: &dyn Source) -> Result<Vec<IsoFile>> {
    let pvd_at = descriptors(view)?
        .into_iter()
        .find(|d| d.1 == 1)
        .map(|d| d.0)
        .ok_or_else(|| err(16 * SECTOR, "no primary volume descriptor".into()))?;
    Ok(tree(view, pvd_at)?.files)
}

/// The volume descriptors from sector 16 up to the terminator (at most 32): (byte offset,
/// type: 0 boot record, 1 primary, 2 supplementary, 3 partition, 255 terminator). A primary
/// descriptor with a logical block size other than 2048 is an error; what follows the primary
/// descriptor without `CD001` ends the list.
pub fn descriptors(view: &dyn Source) -> Result<Vec<(u64, u8)>> {
    let len = view.len();
    let mut out: Vec<(u64, u8)> = Vec::new();
    let mut d = [0u8; 130];
    for i in 16..48u64 {
        let at = i * SECTOR;
        if at + SECTOR > len {
            break;
        }
        view.read_at(at, &mut d)?;
        if &d[1..6] != b"CD001" && out.iter().any(|x| x.1 == 1) {
            // Scanning needs only the primary descriptor: whatever follows it is not judged.
            break;
        }
        if &d[1..6] != b"CD001" {
            return Err(err(
                at + 1,
                format!(
                    "volume descriptor {i}: expected \"CD001\", found {:02x?}",
                    &d[1..6]
                ),
            ));
        }
        out.push((at, d[0]));
        match d[0] {
            1 => {
                let block = Le::u16_from([d[128], d[129]]);
                if block as u64 != SECTOR {
                    return Err(Error::Container {
                        container: "ISO 9660",
                        offset: at + 128,
                        what: format!("logical block size {block}; only 2048 is read"),
                    });
                }
            }
            255 => break,
            _ => {}
        }
    }
    Ok(out)
}

/// The directory tree of the primary or supplementary volume descriptor at byte `pvd_at`.
pub fn tree(view: &dyn Source, pvd_at: u64) -> Result<Tree> {
    let len = view.len();
    let mut pvd = vec![0u8; SECTOR as usize];
    view.read_at(pvd_at, &mut pvd)?;
    let block = Le::u16_at(&pvd, 128);
    if block != Some(SECTOR as u16) {
        return Err(err(
            pvd_at + 128,
            format!(
                "logical block size {}; only 2048 is read",
                block.unwrap_or_default()
            ),
        ));
    }
    let root = &pvd[156..190];
    let root_extent = le32(root, 2, pvd_at + 156)?;
    let root_size = le32(root, 10, pvd_at + 156)?;
    let mut files = Vec::new();
    let mut dirs = Vec::new();
    let mut visited = HashSet::new();
    let mut records = 0usize;
    let mut dir_bytes = 0u64;
    // (path, extent, size, offset of the record that points there, depth)
    let mut stack = vec![(
        String::new(),
        root_extent,
        root_size,
        pvd_at + 156 + 2,
        0usize,
    )];
    let mut sector = vec![0u8; SECTOR as usize];
    while let Some((dir, extent, size, from, depth)) = stack.pop() {
        let start = extent.saturating_mul(SECTOR);
        if start.checked_add(size).map_or(true, |e| e > len) {
            return Err(err(
                from,
                format!(
                    "directory {:?}: extent at block {extent} ({size} bytes) lies outside the image ({len} bytes)",
                    if dir.is_empty() { "/" } else { &dir }
                ),
            ));
        }
        if !visited.insert(extent) {
            return Err(err(
                from,
                format!(
                    "directory {dir:?} points back to block {extent}, which was already walked: a directory loop"
                ),
            ));
        }
        if depth > MAX_DEPTH {
            return Err(err(
                from,
                format!("directories nest deeper than {MAX_DEPTH}"),
            ));
        }
        // Directories do not overlap on a real disc: records pointing many directories at
        // one big extent must not make the walk read the image many times over.
        dir_bytes = dir_bytes.saturating_add(size);
        if dir_bytes > len {
            return Err(err(
                from,
                format!(
                    "directory {dir:?}: the directory extents add up to more than the image ({len} bytes); they overlap"
                ),
            ));
        }
        dirs.push((start, size));
        let mut subdirs = Vec::new();
        let sectors = size.div_ceil(SECTOR);
        for s in 0..sectors {
            let sec_at = start + s * SECTOR;
            view.read_at(sec_at, &mut sector)?;
            let limit = (size - s * SECTOR).min(SECTOR) as usize;
            let mut p = 0usize;
            while p < limit {
                let rlen = sector[p] as usize;
                if rlen == 0 {
                    break;
                }
                let rec_at = sec_at + p as u64;
                if rlen < 34 || p + rlen > SECTOR as usize {
                    return Err(err(
                        rec_at,
                        format!("directory record of {rlen} bytes does not fit its sector (at least 34, at most {} left)", SECTOR as usize - p),
                    ));
                }
                records += 1;
                if records > MAX_RECORDS {
                    return Err(err(
                        rec_at,
                        format!("more than {MAX_RECORDS} directory records"),
                    ));
                }
                let r = &sector[p..p + rlen];
                let name_len = r[32] as usize;
                if 33 + name_len > rlen {
                    return Err(err(
                        rec_at + 32,
                        format!("name of {name_len} bytes overruns its {rlen}-byte record"),
                    ));
                }
                let name = &r[33..33 + name_len];
                p += rlen;
                if name == [0] || name == [1] {
                    continue;
                }
                let su = 33 + name_len + (1 - name_len % 2);
                let xa = r
                    .get(su..su + 14)
                    .filter(|x| &x[6..8] == b"XA")
                    .and_then(|x| Be::u16_at(x, 4));
                let mut name = String::from_utf8_lossy(name).into_owned();
                if let Some(i) = name.rfind(';') {
                    name.truncate(i);
                }
                let path = format!("{dir}/{name}");
                let (ext, dlen) = (le32(r, 2, rec_at)?, le32(r, 10, rec_at)?);
                if r[25] & 2 != 0 {
                    subdirs.push((path, ext, dlen, rec_at + 2, depth + 1));
                } else {
                    let off = ext.saturating_mul(SECTOR);
                    if off.checked_add(dlen).map_or(true, |e| e > len) {
                        return Err(err(
                            rec_at + 2,
                            format!("file {path:?}: extent at block {ext} ({dlen} bytes) runs past the end of the image ({len} bytes)"),
                        ));
                    }
                    files.push(IsoFile {
                        path,
                        offset: off,
                        size: dlen,
                        xa_attributes: xa,
                        record: rec_at,
                        flags: r[25],
                    });
                }
            }
        }
        // Walk subdirectories in directory order.
        stack.extend(subdirs.into_iter().rev());
    }
    Ok(Tree { files, dirs })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::scan::source::MemSource;
    use std::sync::Arc;

    /// A directory record.
    pub fn record(name: &[u8], extent: u32, size: u32, dir: bool, xa: Option<u16>) -> Vec<u8> {
        let mut r = vec![0u8; 33];
        r[2..6].copy_from_slice(&extent.to_le_bytes());
        r[6..10].copy_from_slice(&extent.to_be_bytes());
        r[10..14].copy_from_slice(&size.to_le_bytes());
        r[14..18].copy_from_slice(&size.to_be_bytes());
        r[25] = if dir { 2 } else { 0 };
        r[32] = name.len() as u8;
        r.extend_from_slice(name);
        if name.len() % 2 == 0 {
            r.push(0);
        }
        if let Some(a) = xa {
            r.extend_from_slice(&[0, 0, 0, 0]);
            r.extend_from_slice(&a.to_be_bytes());
            r.extend_from_slice(b"XA\0\0\0\0\0\0");
        }
        r[0] = r.len() as u8;
        r
    }

    /// A 24-sector image: PVD at 16, terminator at 17, root directory at 18 holding `root`.
    pub fn image(root: &[Vec<u8>]) -> Vec<u8> {
        let mut img = vec![0u8; 24 * 2048];
        let pvd = 16 * 2048;
        img[pvd] = 1;
        img[pvd + 1..pvd + 6].copy_from_slice(b"CD001");
        img[pvd + 128..pvd + 130].copy_from_slice(&2048u16.to_le_bytes());
        let r = record(&[0], 18, 2048, true, None);
        img[pvd + 156..pvd + 156 + r.len()].copy_from_slice(&r);
        img[17 * 2048] = 255;
        img[17 * 2048 + 1..17 * 2048 + 6].copy_from_slice(b"CD001");
        let mut at = 18 * 2048;
        for r in root {
            img[at..at + r.len()].copy_from_slice(r);
            at += r.len();
        }
        img
    }

    fn src(v: Vec<u8>) -> MemSource {
        MemSource(Arc::from(v))
    }

    #[test]
    fn files_with_xa_attributes() {
        let img = image(&[
            record(b"A.TMD;1", 20, 100, false, Some(0x0800)),
            record(b"MOV.STR;1", 21, 4096, false, Some(0x1000 | 0x2000)),
            record(b"SUB", 19, 2048, true, None),
        ]);
        let files = list(&src(img)).unwrap();
        assert_eq!(files.len(), 2);
        assert_eq!(files[0].path, "/A.TMD");
        assert_eq!(files[0].offset, 20 * 2048);
        assert!(!files[0].is_stream());
        assert!(files[1].is_stream());
    }

    #[test]
    fn a_loop_names_the_record() {
        // SUB's extent is the root directory itself.
        let img = image(&[record(b"SUB", 18, 2048, true, None)]);
        let e = list(&src(img)).unwrap_err();
        assert_eq!(e.offset(), Some(18 * 2048 + 2), "{e}");
        assert!(e.to_string().contains("loop"), "{e}");
    }

    #[test]
    fn extents_past_the_end() {
        let img = image(&[record(b"BIG.BIN;1", 23, 1 << 30, false, None)]);
        let e = list(&src(img)).unwrap_err();
        assert_eq!(e.offset(), Some(18 * 2048 + 2), "{e}");
        let img = image(&[record(b"D", 0xFFFF_FFFF, 2048, true, None)]);
        assert_eq!(list(&src(img)).unwrap_err().offset(), Some(18 * 2048 + 2));
    }

    #[test]
    fn short_records_and_missing_descriptors() {
        let mut img = image(&[]);
        img[18 * 2048] = 20;
        assert_eq!(list(&src(img)).unwrap_err().offset(), Some(18 * 2048));
        let mut img = image(&[]);
        img[16 * 2048 + 1] = b'X';
        assert!(list(&src(img.clone())).is_err());
        assert!(!looks_like(&src(img)));
        assert!(!looks_like(&src(vec![0; 100])));
    }
}
