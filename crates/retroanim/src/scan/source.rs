//! Byte sources: random access to a file, a part of one, or the user data of a raw CD image,
//! without loading it whole. Every container reader and the blob scanner read through
//! [`Source::read_at`], a bounded number of bytes at a time, so memory stays bounded whatever the
//! image size.

use std::fmt;
use std::fs::File;
use std::io::IoSliceMut;
use std::path::Path;
use std::sync::Arc;

use crate::error::{Error, Result};

/// Random-access bytes.
pub trait Source: Send + Sync + fmt::Debug {
    /// Length in bytes.
    fn len(&self) -> u64;

    /// True when the source holds no bytes.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Fills `buf` with the bytes at `offset`; an error when they run past the end.
    fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<()>;

    /// Fills each of `bufs` in turn with the bytes from `offset` on: a scatter read, one
    /// positioned read of the file where the system has one (`preadv`), so that the user data
    /// of raw sectors lands where it belongs with no copy ([`super::raw::SectorView`]). An
    /// error when the bytes run past the end.
    fn read_vectored_at(&self, offset: u64, bufs: &mut [IoSliceMut<'_>]) -> Result<()> {
        let mut at = offset;
        for b in bufs.iter_mut() {
            self.read_at(at, b)?;
            at += b.len() as u64;
        }
        Ok(())
    }

    /// Where byte `offset` of this source lies in the raw disc image it comes from, if any.
    fn image_offset(&self, offset: u64) -> Option<u64> {
        let _ = offset;
        None
    }

    /// The first offset at or after `offset` that may hold data: bytes before it lie in a hole
    /// of a sparse file (they read as zeros and were never written). [`Source::len`] when only
    /// holes follow. Sources that cannot tell answer `offset`.
    fn next_data(&self, offset: u64) -> u64 {
        offset
    }
}

/// Reads `n` bytes at `offset` into a new vector (the caller bounds `n`).
pub fn read_vec(src: &dyn Source, offset: u64, n: usize) -> Result<Vec<u8>> {
    let mut v = vec![0; n];
    src.read_at(offset, &mut v)?;
    Ok(v)
}

#[cold]
fn past_end(offset: u64, n: usize, len: u64) -> Error {
    Error::Io(std::io::Error::new(
        std::io::ErrorKind::UnexpectedEof,
        format!("{n} bytes at offset {offset} run past the end ({len} bytes)"),
    ))
}

fn check_range(offset: u64, n: usize, len: u64) -> Result<()> {
    match offset.checked_add(n as u64) {
        Some(end) if end <= len => Ok(()),
        _ => Err(past_end(offset, n, len)),
    }
}

/// A file on disk, read with positioned reads (no shared cursor, so threads read in parallel).
#[derive(Debug)]
pub struct FileSource {
    file: File,
    len: u64,
    #[cfg(not(unix))]
    lock: std::sync::Mutex<()>,
}

impl FileSource {
    /// Opens a regular file. Anything else is refused before it is opened: opening a FIFO that
    /// a cue sheet names would wait for a writer forever, and a device has no end.
    pub fn open(path: &Path) -> Result<FileSource> {
        if !std::fs::metadata(path)?.is_file() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!(
                    "{}: not a regular file (FIFOs, devices and sockets are not scanned)",
                    path.display()
                ),
            )
            .into());
        }
        let file = File::open(path)?;
        let len = file.metadata()?.len();
        Ok(FileSource {
            file,
            len,
            #[cfg(not(unix))]
            lock: std::sync::Mutex::new(()),
        })
    }
}

impl Source for FileSource {
    fn len(&self) -> u64 {
        self.len
    }

    fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<()> {
        check_range(offset, buf.len(), self.len)?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::FileExt;
            self.file.read_exact_at(buf, offset)?;
        }
        #[cfg(not(unix))]
        {
            use std::io::{Read, Seek, SeekFrom};
            let _guard = self
                .lock
                .lock()
                .map_err(|_| past_end(offset, 0, self.len))?;
            let mut f = &self.file;
            f.seek(SeekFrom::Start(offset))?;
            f.read_exact(buf)?;
        }
        Ok(())
    }

    fn next_data(&self, offset: u64) -> u64 {
        next_data(&self.file, offset, self.len)
    }

    #[cfg(any(
        target_os = "linux",
        target_os = "android",
        target_os = "macos",
        target_os = "freebsd"
    ))]
    fn read_vectored_at(&self, offset: u64, bufs: &mut [IoSliceMut<'_>]) -> Result<()> {
        let total = bufs.iter().map(|b| b.len()).sum::<usize>();
        check_range(offset, total, self.len)?;
        // At most IOV_MAX (1024) buffers per call.
        let mut at = offset;
        for group in bufs.chunks_mut(1024) {
            let want = group.iter().map(|b| b.len()).sum::<usize>();
            let got = rustix::io::preadv(&self.file, group, at).map_err(std::io::Error::from)?;
            if got < want {
                // A short read (a signal): the rest buffer by buffer.
                let mut skip = got;
                let mut pos = at;
                for b in group.iter_mut() {
                    let n = b.len();
                    if skip < n {
                        self.read_at(pos + skip as u64, &mut b[skip..])?;
                    }
                    skip = skip.saturating_sub(n);
                    pos += n as u64;
                }
            }
            at += want as u64;
        }
        Ok(())
    }
}

/// `lseek(SEEK_DATA)` where the system has it (through `rustix`, no `unsafe` here): holes of a
/// sparse file are skipped without reading them.
#[cfg(any(
    target_os = "linux",
    target_os = "android",
    target_os = "macos",
    target_os = "freebsd"
))]
fn next_data(file: &File, offset: u64, len: u64) -> u64 {
    if offset >= len {
        return len;
    }
    match rustix::fs::seek(file, rustix::fs::SeekFrom::Data(offset)) {
        Ok(at) => at.clamp(offset, len),
        // ENXIO: only a hole from `offset` to the end.
        Err(rustix::io::Errno::NXIO) => len,
        // A file system without SEEK_DATA support: read everything.
        Err(_) => offset,
    }
}

#[cfg(not(any(
    target_os = "linux",
    target_os = "android",
    target_os = "macos",
    target_os = "freebsd"
)))]
fn next_data(_: &File, offset: u64, _: u64) -> u64 {
    offset
}

/// Bytes in memory.
#[derive(Clone)]
pub struct MemSource(pub Arc<[u8]>);

impl fmt::Debug for MemSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "MemSource({} bytes)", self.0.len())
    }
}

impl Source for MemSource {
    fn len(&self) -> u64 {
        self.0.len() as u64
    }

    fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<()> {
        check_range(offset, buf.len(), self.len())?;
        let at = offset as usize;
        buf.copy_from_slice(&self.0[at..at + buf.len()]);
        Ok(())
    }
}

/// `len` bytes of another source from `start` (a file inside an image or archive).
#[derive(Debug, Clone)]
pub struct SubSource {
    inner: Arc<dyn Source>,
    start: u64,
    len: u64,
}

impl SubSource {
    /// The part `start .. start + len` of `inner`; an error when it runs past its end.
    pub fn new(inner: Arc<dyn Source>, start: u64, len: u64) -> Result<SubSource> {
        match start.checked_add(len) {
            Some(end) if end <= inner.len() => Ok(SubSource { inner, start, len }),
            _ => Err(past_end(start, len as usize, inner.len())),
        }
    }
}

impl Source for SubSource {
    fn len(&self) -> u64 {
        self.len
    }

    fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<()> {
        check_range(offset, buf.len(), self.len)?;
        self.inner.read_at(self.start + offset, buf)
    }

    fn read_vectored_at(&self, offset: u64, bufs: &mut [IoSliceMut<'_>]) -> Result<()> {
        check_range(offset, bufs.iter().map(|b| b.len()).sum(), self.len)?;
        self.inner.read_vectored_at(self.start + offset, bufs)
    }

    fn image_offset(&self, offset: u64) -> Option<u64> {
        self.inner.image_offset(self.start + offset)
    }

    fn next_data(&self, offset: u64) -> u64 {
        if offset >= self.len {
            return self.len;
        }
        let at = self.inner.next_data(self.start + offset);
        at.saturating_sub(self.start).clamp(offset, self.len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sub_sources_check_their_range() {
        let m: Arc<dyn Source> = Arc::new(MemSource((0u8..100).collect::<Vec<_>>().into()));
        let s = SubSource::new(m.clone(), 10, 20).unwrap();
        let mut b = [0u8; 5];
        s.read_at(15, &mut b).unwrap();
        assert_eq!(b, [25, 26, 27, 28, 29]);
        assert!(s.read_at(16, &mut b).is_err());
        assert!(s.read_at(u64::MAX, &mut b).is_err());
        assert!(SubSource::new(m, 90, 11).is_err());
    }
}
