//! PBO archives written again with some entries' data replaced (layout in `scan/pbo.rs`).
//!
//! The header is copied byte for byte except the data size (and, for a packed entry, the
//! original size) of each replaced entry; entry data follows in header order, unchanged
//! entries copied from the input; bytes after the data block are copied, except a SHA-1 footer
//! (a zero byte and 20 bytes), which is computed again over everything before it.

use std::collections::BTreeMap;
use std::io::Write;

use crate::bytes::{ByteOrder, Le};
use crate::error::{Error, Result};
use crate::scan::pbo::Pbo;
use crate::scan::source::{read_vec, Source};

/// Largest PBO header read into memory.
const MAX_HEADER: u64 = 64 << 20;
/// Bytes copied at a time.
const CHUNK: usize = 1 << 20;

/// New data for one entry.
#[derive(Debug, Clone)]
pub struct EntryData {
    /// The bytes the entry takes in the data block.
    pub bytes: Vec<u8>,
    /// For a packed entry: its new unpacked size.
    pub original_size: Option<u32>,
}

fn err(offset: u64, what: String) -> Error {
    Error::Container {
        container: "PBO",
        offset,
        what,
    }
}

/// A writer that hashes what passes through.
struct Hashing<'a> {
    inner: &'a mut dyn Write,
    sha: sha1_smol::Sha1,
    written: u64,
}

impl Write for Hashing<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.sha.update(&buf[..n]);
        self.written += n as u64;
        Ok(n)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// Copies `n` bytes of `src` from `at` into `w`, a chunk at a time.
pub(crate) fn copy(src: &dyn Source, at: u64, n: u64, w: &mut dyn Write) -> Result<()> {
    let mut buf = vec![0u8; CHUNK.min(n as usize)];
    let mut done = 0u64;
    while done < n {
        let k = (n - done).min(CHUNK as u64) as usize;
        src.read_at(at + done, &mut buf[..k])?;
        w.write_all(&buf[..k])?;
        done += k as u64;
    }
    Ok(())
}

/// Writes the archive `src` (read as `pbo`) to `w` with the entries of `new` (by index)
/// replaced; returns the bytes written.
pub fn rewrite(
    src: &dyn Source,
    pbo: &Pbo,
    new: &BTreeMap<usize, EntryData>,
    w: &mut dyn Write,
) -> Result<u64> {
    let data_start = match pbo.entries.first() {
        Some(e) => e.offset,
        None => return Err(err(0, "the archive holds no entry to replace".into())),
    };
    if data_start > MAX_HEADER {
        return Err(Error::LimitExceeded {
            offset: Some(0),
            what: "the PBO header".into(),
            requested: data_start,
            limit: MAX_HEADER,
        });
    }
    let mut header = read_vec(src, 0, data_start as usize)?;
    for (&i, d) in new {
        let e = &pbo.entries[i];
        let at = e.header_offset as usize;
        let no_header = || err(e.header_offset, format!("entry {:?}: no header", e.name));
        let name_end = memchr::memchr(0, header.get(at..).unwrap_or(&[]))
            .map(|n| at + n)
            .filter(|&n| n + 21 <= header.len())
            .ok_or_else(no_header)?;
        let size = u32::try_from(d.bytes.len()).map_err(|_| {
            err(
                e.header_offset,
                format!(
                    "entry {:?}: {} bytes do not fit a 32-bit size",
                    e.name,
                    d.bytes.len()
                ),
            )
        })?;
        if let Some(o) = d.original_size {
            Le::put_u32(&mut header, name_end + 5, o).ok_or_else(no_header)?;
        }
        Le::put_u32(&mut header, name_end + 17, size).ok_or_else(no_header)?;
    }
    let mut h = Hashing {
        inner: w,
        sha: sha1_smol::Sha1::new(),
        written: 0,
    };
    h.write_all(&header)?;
    for (i, e) in pbo.entries.iter().enumerate() {
        match new.get(&i) {
            Some(d) => h.write_all(&d.bytes)?,
            None => copy(src, e.offset, e.data_size as u64, &mut h)?,
        }
    }
    let end = pbo
        .entries
        .last()
        .map_or(data_start, |e| e.offset + e.data_size as u64);
    match pbo.sha1 {
        Some(_) => {
            let digest = h.sha.digest().bytes();
            h.inner.write_all(&[0])?;
            h.inner.write_all(&digest)?;
            Ok(h.written + 21)
        }
        None => {
            copy(src, end, src.len() - end, &mut h)?;
            Ok(h.written)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scan::pbo::{read, write};
    use crate::scan::MemSource;
    use std::sync::Arc;

    #[test]
    fn a_grown_entry_moves_the_others_and_the_footer_follows() {
        let a = write(
            &[("prefix", "p")],
            &[("a.bin", b"1234"), ("b.bin", b"xyz")],
            Some([0; 20]),
        );
        let src = MemSource(Arc::from(a));
        let pbo = read(&src).unwrap();
        let mut new = BTreeMap::new();
        new.insert(
            0,
            EntryData {
                bytes: b"123456789".to_vec(),
                original_size: None,
            },
        );
        let mut out = Vec::new();
        let n = rewrite(&src, &pbo, &new, &mut out).unwrap();
        assert_eq!(n, out.len() as u64);
        let again = read(&MemSource(Arc::from(out.clone()))).unwrap();
        assert_eq!(again.entries[0].data_size, 9);
        let b = &again.entries[1];
        assert_eq!(&out[b.offset as usize..b.offset as usize + 3], b"xyz");
        let body = &out[..out.len() - 21];
        assert_eq!(
            again.sha1,
            Some(sha1_smol::Sha1::from(body).digest().bytes())
        );
    }
}
