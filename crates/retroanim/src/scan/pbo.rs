//! PBO archives (Operation Flashpoint / Arma): a header of entries, the data of each entry in
//! header order, and (from OFP: Resistance on) a SHA-1 footer.
//!
//! | field | size | meaning | source |
//! |---|---|---|---|
//! | name | asciiz | file path, `\` separated; empty for the first and last entry | community PBO notes (BI wiki "PBO File Format") |
//! | packing method | 4 | 0 stored; `Vers` (0x56657273) product entry; `Cprs` (0x43707273) compressed; `Enco` encrypted | same |
//! | original size | 4 | unpacked size (0 when stored) | same |
//! | reserved | 4 | 0 | same |
//! | timestamp | 4 | Unix seconds | same |
//! | data size | 4 | bytes the entry takes in the data block | same |
//!
//! The product entry (empty name, method `Vers`, other fields 0) is followed by asciiz
//! key/value strings ending with an empty string. The header ends with an entry whose name is
//! empty and whose fields are zero. The data block follows; after it, Resistance and Arma add a
//! zero byte and the 20-byte SHA-1 of everything before it.
//!
//! Readings taken: an entry is compressed when its method is `Cprs`, or when it is 0 and the
//! original size is non-zero and differs from the data size (OFP 1.0 wrote compressed entries
//! that way); compressed entries are unpacked ([`unpack_entry`], layout in `lzss.rs`) to their
//! original size, which the scanner bounds by its largest asset; encrypted entries are listed,
//! not scanned. Data sizes that add up
//! past the end of the archive are an error naming the entry's header offset, and so is a
//! packing method no packer writes (what follows a NUL inside a name, read as fields).

use super::source::Source;
use crate::bytes::{ByteOrder, Le, Writer};
use crate::error::{Error, Result};

const VERS: u32 = 0x5665_7273;
const CPRS: u32 = 0x4370_7273;
const ENCO: u32 = 0x456e_636f;
/// Longest entry name read.
const MAX_NAME: usize = 1024;
/// Header bytes read at a time.
const BLOCK: usize = 64 * 1024;

/// One entry of an archive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PboEntry {
    /// Path inside the archive, with `/` separators.
    pub name: String,
    /// Packing method word.
    pub method: u32,
    /// Unpacked size.
    pub original_size: u32,
    /// Reserved word.
    pub reserved: u32,
    /// Timestamp (Unix seconds).
    pub timestamp: u32,
    /// Bytes the entry takes in the data block.
    pub data_size: u32,
    /// Byte offset of its data in the archive.
    pub offset: u64,
    /// Byte offset of its header entry (for errors).
    pub header_offset: u64,
}

impl PboEntry {
    /// True when the data is LZSS-packed (unpacked by [`unpack_entry`]).
    pub fn is_packed(&self) -> bool {
        self.method == CPRS
            || (self.method == 0 && self.original_size != 0 && self.original_size != self.data_size)
    }

    /// True when the data is encrypted (listed, not scanned).
    pub fn is_encrypted(&self) -> bool {
        self.method == ENCO
    }
}

/// A parsed archive header.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Pbo {
    /// Key/value pairs of the product entry.
    pub properties: Vec<(String, String)>,
    /// The files.
    pub entries: Vec<PboEntry>,
    /// The SHA-1 footer, when present.
    pub sha1: Option<[u8; 20]>,
}

fn err(offset: u64, what: String) -> Error {
    Error::Container {
        container: "PBO",
        offset,
        what,
    }
}

/// True when the source opens with a PBO product entry (an empty name and `Vers`).
pub fn looks_like(src: &dyn Source) -> bool {
    let mut h = [0u8; 5];
    src.read_at(0, &mut h).is_ok() && h == [0, b's', b'r', b'e', b'V']
}

/// A buffered forward reader over the header.
struct Cursor<'a> {
    src: &'a dyn Source,
    buf: Vec<u8>,
    buf_at: u64,
    pos: u64,
}

impl Cursor<'_> {
    fn byte(&mut self) -> Result<u8> {
        if self.pos < self.buf_at || self.pos >= self.buf_at + self.buf.len() as u64 {
            let n = (self.src.len().saturating_sub(self.pos)).min(BLOCK as u64) as usize;
            if n == 0 {
                return Err(err(
                    self.pos,
                    "the header runs past the end of the archive".into(),
                ));
            }
            self.buf.resize(n, 0);
            self.src.read_at(self.pos, &mut self.buf)?;
            self.buf_at = self.pos;
        }
        let b = self.buf[(self.pos - self.buf_at) as usize];
        self.pos += 1;
        Ok(b)
    }

    fn u32(&mut self) -> Result<u32> {
        let mut w = [0u8; 4];
        for b in &mut w {
            *b = self.byte()?;
        }
        Ok(Le::u32_from(w))
    }

    fn asciiz(&mut self) -> Result<String> {
        let start = self.pos;
        let mut s = Vec::new();
        loop {
            match self.byte()? {
                0 => return Ok(String::from_utf8_lossy(&s).into_owned()),
                b if s.len() < MAX_NAME => s.push(b),
                _ => return Err(err(start, format!("a string longer than {MAX_NAME} bytes"))),
            }
        }
    }
}

/// Reads an archive's header and checks every entry's data lies inside it.
pub fn read(src: &dyn Source) -> Result<Pbo> {
    let len = src.len();
    let mut c = Cursor {
        src,
        buf: Vec::new(),
        buf_at: 0,
        pos: 0,
    };
    let mut pbo = Pbo::default();
    let mut first = true;
    loop {
        let header_offset = c.pos;
        let name = c.asciiz()?;
        let method = c.u32()?;
        let original_size = c.u32()?;
        let reserved = c.u32()?;
        let timestamp = c.u32()?;
        let data_size = c.u32()?;
        if name.is_empty() {
            if first && method == VERS {
                // Product entry: key/value strings up to an empty one.
                loop {
                    let k = c.asciiz()?;
                    if k.is_empty() {
                        break;
                    }
                    let v = c.asciiz()?;
                    pbo.properties.push((k, v));
                    if pbo.properties.len() > 4096 {
                        return Err(err(
                            header_offset,
                            "more than 4096 product properties".into(),
                        ));
                    }
                }
                first = false;
                continue;
            }
            break;
        }
        first = false;
        if ![0, CPRS, ENCO, VERS].contains(&method) {
            // What follows a NUL inside a name is read as the entry's fields: a method no
            // packer writes says the header is damaged here, and nothing after it can be placed.
            return Err(err(
                header_offset,
                format!(
                    "entry {:?}: packing method 0x{method:08x} is none of stored, Cprs, Enco and Vers: the header is damaged here (a NUL inside a name?)",
                    crate::text::escape(&name)
                ),
            ));
        }
        // Each entry takes at least 21 header bytes: the count is bounded by the archive length.
        pbo.entries.push(PboEntry {
            name: name.replace('\\', "/"),
            method,
            original_size,
            reserved,
            timestamp,
            data_size,
            offset: 0,
            header_offset,
        });
    }
    let mut at = c.pos;
    for e in &mut pbo.entries {
        e.offset = at;
        at = match at.checked_add(e.data_size as u64) {
            Some(end) if end <= len => end,
            _ => {
                return Err(err(
                    e.header_offset,
                    format!(
                        "entry {:?}: {} data bytes at offset {at} run past the end of the archive ({len} bytes)",
                        e.name, e.data_size
                    ),
                ))
            }
        };
    }
    if len - at == 21 {
        let mut f = [0u8; 21];
        src.read_at(at, &mut f)?;
        if f[0] == 0 {
            let mut h = [0u8; 20];
            h.copy_from_slice(&f[1..]);
            pbo.sha1 = Some(h);
        }
    }
    Ok(pbo)
}

/// The unpacked bytes of a packed entry (the caller bounds its original size). The packed
/// data can take at most 9 bytes per 8 output bytes plus a flag byte and the checksum: a data
/// size beyond that is an error naming the entry's header, before anything is read.
pub fn unpack_entry(src: &dyn Source, e: &PboEntry) -> Result<Vec<u8>> {
    let size = e.original_size as u64;
    let most = size + size.div_ceil(8) + 5;
    if e.data_size as u64 > most {
        return Err(err(
            e.header_offset,
            format!(
                "entry {:?}: {} packed bytes for {size} unpacked (at most {most} expected)",
                e.name, e.data_size
            ),
        ));
    }
    let mut packed = vec![0; e.data_size as usize];
    src.read_at(e.offset, &mut packed)?;
    super::lzss::unpack(&packed, size as usize, e.offset)
}

/// Builds an archive (for tests and tools): a product entry with `properties`, stored entries,
/// and a footer of a zero byte and `sha1` (the caller computes the hash, or passes zeros).
pub fn write(
    properties: &[(&str, &str)],
    files: &[(&str, &[u8])],
    sha1: Option<[u8; 20]>,
) -> Vec<u8> {
    let mut out = Writer::le();
    let entry = |out: &mut Writer<Le>, name: &str, method: u32, size: u32| {
        out.bytes(name.as_bytes());
        out.u8(0);
        for w in [method, 0, 0, 0, size] {
            out.u32(w);
        }
    };
    entry(&mut out, "", VERS, 0);
    for (k, v) in properties {
        out.bytes(k.as_bytes());
        out.u8(0);
        out.bytes(v.as_bytes());
        out.u8(0);
    }
    out.u8(0);
    for (name, data) in files {
        entry(&mut out, name, 0, data.len() as u32);
    }
    entry(&mut out, "", 0, 0);
    for (_, data) in files {
        out.bytes(data);
    }
    if let Some(h) = sha1 {
        out.u8(0);
        out.bytes(&h);
    }
    out.into_vec()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scan::source::MemSource;
    use std::sync::Arc;

    fn src(v: Vec<u8>) -> MemSource {
        MemSource(Arc::from(v))
    }

    #[test]
    fn entries_properties_and_footer() {
        let a = write(
            &[("prefix", "x\\y")],
            &[("data\\a.p3d", b"MLOD1234"), ("b.txt", b"hi")],
            Some([7; 20]),
        );
        let s = src(a.clone());
        assert!(looks_like(&s));
        let p = read(&s).unwrap();
        assert_eq!(p.properties, vec![("prefix".into(), "x\\y".into())]);
        assert_eq!(p.entries.len(), 2);
        assert_eq!(p.entries[0].name, "data/a.p3d");
        let at = p.entries[0].offset as usize;
        assert_eq!(&a[at..at + 8], b"MLOD1234");
        assert_eq!(p.entries[1].offset, p.entries[0].offset + 8);
        assert_eq!(p.sha1, Some([7; 20]));
    }

    #[test]
    fn lying_sizes_name_the_entry() {
        let mut a = write(&[], &[("a", b"1234"), ("b", b"5678")], None);
        // Entry "b" starts after the product entry (21 + 1 bytes) and "a" (2 + 20 bytes).
        let b_header = 22 + 22;
        let size_at = b_header + 2 + 16;
        a[size_at..size_at + 4].copy_from_slice(&0xFFFF_FFF0u32.to_le_bytes());
        let e = read(&src(a)).unwrap_err();
        assert_eq!(e.offset(), Some(b_header as u64), "{e}");
    }

    #[test]
    fn cut_headers_and_long_names() {
        let a = write(&[], &[("a", b"1234")], None);
        for n in 0..30 {
            assert!(read(&src(a[..n].to_vec())).is_err(), "cut at {n}");
        }
        let mut long = vec![b'x'; 5000];
        long.push(0);
        assert!(read(&src(long)).is_err());
    }
}
