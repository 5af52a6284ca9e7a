//! Reading inputs: the one limited reader every whole-file read of the library, the CLI and the
//! Python package goes through (`docs/safety.md`, "Read budget").
//!
//! | reader | for | accepts | reads at most |
//! |---|---|---|---|
//! | [`read_file`] | a file an option or another file names (`patch --replace`, `scan --vram`, `--tmd`, `--tim`, LAB includes) | regular files only: a FIFO, device or socket is refused before it is opened (opening a FIFO waits for a writer) | `limit` bytes: a larger file is refused from its size, before reading; one that grows past it while read, when it does |
//! | [`read_input`] | a command's own input (a path on the command line) | a regular file as [`read_file`]; a device or pipe as [`read_stream`] | `limit` bytes |
//! | [`read_stream`] | standard input, a pipe, a device | any reader | `limit` bytes, or its first [`PROBE`] bytes when they can start no format retroanim reads (`/dev/zero`, `/dev/urandom`) |
//! | [`read_prefix`], [`detect_file`] | format detection (`convert --out-dir` planning its outputs) | regular files only | `n` bytes; [`detect_file`] its first [`DETECT_PREFIX`], the whole file (up to `limit`) only when they cannot tell |
//!
//! The limit callers pass is [`crate::Limits::max_input_bytes`] unless the caller knows a
//! smaller one (a replacement no larger than the place it fills, a VRAM dump of 1 MiB). Errors
//! are [`Error::Io`] (with the path) and [`Error::LimitExceeded`]; none quotes the file's bytes.

use std::io::Read;
use std::path::Path;

use crate::error::{Error, Result};

/// Bytes read from a stream before judging whether it could hold a file retroanim reads at all.
pub const PROBE: u64 = 64 * 1024;

/// The kind of a path's target, refusing what must never be opened for a read of its own.
fn regular_len(path: &Path) -> Result<u64> {
    let meta = std::fs::metadata(path).map_err(|e| io(path, "cannot read", e))?;
    if meta.is_dir() {
        return Err(other(path, "a directory, not a file"));
    }
    if !meta.is_file() {
        return Err(other(
            path,
            "not a regular file (a FIFO, device or socket is not read here)",
        ));
    }
    Ok(meta.len())
}

fn io(path: &Path, what: &str, e: std::io::Error) -> Error {
    Error::Io(std::io::Error::new(
        e.kind(),
        format!(
            "{}: {what}: {e}",
            crate::text::escape(&path.display().to_string())
        ),
    ))
}

fn other(path: &Path, what: &str) -> Error {
    Error::Io(std::io::Error::new(
        std::io::ErrorKind::InvalidInput,
        format!(
            "{}: {what}",
            crate::text::escape(&path.display().to_string())
        ),
    ))
}

fn too_large(path: &Path, requested: u64, limit: u64) -> Error {
    Error::LimitExceeded {
        offset: None,
        what: format!(
            "{}: too large; its size in bytes",
            crate::text::escape(&path.display().to_string())
        ),
        requested,
        limit,
    }
}

/// Reads a whole regular file of at most `limit` bytes. A FIFO, device, socket or folder is
/// refused before it is opened; a larger file from its size, before any byte is read.
pub fn read_file(path: &Path, limit: u64) -> Result<Vec<u8>> {
    let len = regular_len(path)?;
    if len > limit {
        return Err(too_large(path, len, limit));
    }
    let file = std::fs::File::open(path).map_err(|e| io(path, "cannot read", e))?;
    // Checked again on what was opened: the name may now be something else.
    let meta = file.metadata().map_err(|e| io(path, "cannot read", e))?;
    if !meta.is_file() {
        return Err(other(path, "not a regular file"));
    }
    let mut data = Vec::with_capacity(meta.len().min(limit) as usize);
    file.take(limit.saturating_add(1))
        .read_to_end(&mut data)
        .map_err(|e| io(path, "cannot read", e))?;
    if data.len() as u64 > limit {
        return Err(too_large(path, data.len() as u64, limit));
    }
    Ok(data)
}

/// Reads the first `n` bytes of a regular file (fewer when it is shorter): enough to detect its
/// format without reading it whole.
pub fn read_prefix(path: &Path, n: u64) -> Result<Vec<u8>> {
    regular_len(path)?;
    let file = std::fs::File::open(path).map_err(|e| io(path, "cannot read", e))?;
    let mut data = Vec::new();
    file.take(n)
        .read_to_end(&mut data)
        .map_err(|e| io(path, "cannot read", e))?;
    Ok(data)
}

/// Bytes [`detect_file`] reads first.
pub const DETECT_PREFIX: u64 = 1 << 20;

/// The format of a regular file, detected from its first [`DETECT_PREFIX`] bytes. Only when they
/// cannot tell (a format known by its length, as an MDD is) is the file read whole, and only
/// when it is at most `limit` bytes; a larger one is `None` (reading it would be refused). A
/// file whose content names no format is what its name says for the formats without a magic
/// number ([`crate::named_without_magic`]).
pub fn detect_file(path: &Path, limit: u64) -> Result<Option<crate::Format>> {
    let len = regular_len(path)?;
    let prefix = read_prefix(path, DETECT_PREFIX)?;
    if let Some(f) = crate::detect(&prefix) {
        return Ok(Some(f));
    }
    let named = crate::named_without_magic(path);
    if len <= prefix.len() as u64 || len > limit {
        return Ok(named);
    }
    Ok(crate::detect(&read_file(path, limit)?).or(named))
}

/// Reads a command's input: a regular file as [`read_file`] does; a device or pipe as
/// [`read_stream`] does (a FIFO is opened, so it waits for its writer as any reader would).
pub fn read_input(path: &Path, limit: u64) -> Result<Vec<u8>> {
    let meta = std::fs::metadata(path).map_err(|e| io(path, "cannot read", e))?;
    if meta.is_dir() {
        return Err(other(path, "a directory, not a file"));
    }
    if meta.is_file() {
        return read_file(path, limit);
    }
    let file = std::fs::File::open(path).map_err(|e| io(path, "cannot read", e))?;
    read_stream(file, limit).map_err(|e| match e {
        Error::Io(e) => io(path, "cannot read", e),
        Error::LimitExceeded { requested, .. } => too_large(path, requested, limit),
        e => e,
    })
}

/// Reads a stream to its end, at most `limit` bytes; gives up after its first [`PROBE`] bytes
/// when they can start no format retroanim reads ([`crate::plausible_start`]).
pub fn read_stream(r: impl Read, limit: u64) -> Result<Vec<u8>> {
    let mut r = r.take(limit.saturating_add(1));
    let mut data = Vec::new();
    r.by_ref().take(PROBE).read_to_end(&mut data)?;
    if data.len() as u64 == PROBE && !crate::plausible_start(&data, limit) {
        return Err(Error::UnknownFormat(format!(
            "its first {PROBE} bytes start no format retroanim reads (stopped reading there)"
        )));
    }
    r.read_to_end(&mut data)?;
    if data.len() as u64 > limit {
        return Err(Error::LimitExceeded {
            offset: None,
            what: "the input (bytes read)".into(),
            requested: data.len() as u64,
            limit,
        });
    }
    Ok(data)
}

/// Identifies a file on disk whatever name reaches it (a hard link, a symbolic link, another
/// spelling): the device and inode on Unix, the canonical path elsewhere. `None` when the path
/// cannot be looked at.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FileId(Id);

#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Id {
    #[cfg(unix)]
    Inode(u64, u64),
    #[cfg(not(unix))]
    Path(std::path::PathBuf),
}

impl FileId {
    /// The identity of the file `path` names (links followed).
    pub fn of(path: &Path) -> Option<FileId> {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            let m = std::fs::metadata(path).ok()?;
            Some(FileId(Id::Inode(m.dev(), m.ino())))
        }
        #[cfg(not(unix))]
        {
            path.canonicalize().ok().map(|p| FileId(Id::Path(p)))
        }
    }
}

/// Where the LAB assembler and the RSD reader find files: the library itself never touches the
/// file system but through a loader (or [`read_file`]).
///
/// Paths are `/`-separated strings as the caller gave them (the root file name, include
/// folders) joined with the names in `#include` lines.
pub trait Loader {
    /// The contents of the file at `path`, `Ok(None)` if there is no such file. Implementations
    /// must not return more than `max_bytes` bytes: a larger file is an error.
    fn read(&self, path: &str, max_bytes: u64) -> std::io::Result<Option<Vec<u8>>>;
    /// The names of the entries of folder `dir` (for case-insensitive lookup); empty if the
    /// folder does not exist.
    fn list(&self, dir: &str) -> std::io::Result<Vec<String>>;
    /// The path `path` resolves to with every symbolic link and `..` followed, where the loader
    /// has links (a file system); `None` when it has none or `path` does not exist. An
    /// `#include` whose file resolves outside the folders it may come from is refused by this
    /// name, before it is read. Required, so a loader wrapping another cannot drop the check.
    fn canonical(&self, path: &str) -> Option<String>;
}

/// A [`Loader`] over the local file system (the CLI's choice; tests use [`crate::lab::MemLoader`]).
#[derive(Debug, Clone, Copy, Default)]
pub struct FsLoader;

impl Loader for FsLoader {
    fn read(&self, path: &str, max_bytes: u64) -> std::io::Result<Option<Vec<u8>>> {
        let p = std::path::Path::new(if path.is_empty() { "." } else { path });
        if !p.is_file() {
            return Ok(None);
        }
        // Through the library's one limited reader (regular files, at most `max_bytes`).
        match read_file(p, max_bytes) {
            Ok(d) => Ok(Some(d)),
            Err(crate::Error::Io(e)) => Err(e),
            Err(_) => Err(std::io::Error::other(format!(
                "{path} is larger than {max_bytes} bytes"
            ))),
        }
    }

    fn canonical(&self, path: &str) -> Option<String> {
        let p = std::path::Path::new(if path.is_empty() { "." } else { path });
        let c = p.canonicalize().ok()?;
        c.to_str().map(str::to_string)
    }

    fn list(&self, dir: &str) -> std::io::Result<Vec<String>> {
        let d = if dir.is_empty() { "." } else { dir };
        match std::fs::read_dir(d) {
            Ok(it) => Ok(it
                .filter_map(|e| e.ok())
                .filter_map(|e| e.file_name().into_string().ok())
                .collect()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
            Err(e) => Err(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_stop_at_the_limit_and_at_a_hopeless_start() {
        let e = read_stream(std::io::repeat(0x41).take(1000), 100).unwrap_err();
        assert!(matches!(e, Error::LimitExceeded { limit: 100, .. }), "{e}");
        let e = read_stream(std::io::repeat(0xff), 1 << 30).unwrap_err();
        assert!(e.to_string().contains("stopped reading there"), "{e}");
        assert_eq!(read_stream(&b"abc"[..], 3).unwrap(), b"abc");
    }

    #[test]
    fn files_larger_than_the_limit_are_refused_unread() {
        let dir = std::env::temp_dir().join(format!("retroanim-input-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("f");
        std::fs::write(&p, [7u8; 50]).unwrap();
        assert_eq!(read_file(&p, 50).unwrap().len(), 50);
        let e = read_file(&p, 49).unwrap_err();
        assert!(
            e.to_string().contains("asks for 50, the limit is 49"),
            "{e}"
        );
        assert_eq!(read_prefix(&p, 8).unwrap(), [7u8; 8]);
        assert!(read_file(&dir, 10)
            .unwrap_err()
            .to_string()
            .contains("directory"));
        #[cfg(unix)]
        {
            let e = read_file(Path::new("/dev/zero"), 10).unwrap_err();
            assert!(e.to_string().contains("not a regular file"), "{e}");
            assert_eq!(
                FileId::of(&p),
                FileId::of(&dir.join(".").join("f")),
                "one file, two spellings"
            );
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
