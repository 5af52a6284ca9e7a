//! The rule every writer of the library (and the CLI) follows before it replaces a file: an
//! output is written to a temporary file beside it and renamed into place, and only a regular
//! file (or a name that does not exist yet) is replaced that way. A FIFO, a device node or a
//! folder at the output's name is refused: renaming a regular file onto `/dev/null` would
//! replace the system's device node, and a FIFO's reader would never see the data.

use std::path::Path;

use crate::error::Result;

/// `Ok` when `path` does not exist or is a regular file (a symbolic link counts as what it
/// points to); an error naming what it is otherwise.
pub fn check_replaceable(path: &Path) -> Result<()> {
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e.into()),
    };
    if meta.is_file() {
        return Ok(());
    }
    let what = if meta.is_dir() {
        "a folder"
    } else {
        kind_of(&meta)
    };
    Err(std::io::Error::new(
        std::io::ErrorKind::InvalidInput,
        format!(
            "{}: {what}, not a regular file; refusing to write over it (name a new file or a regular one)",
            crate::text::escape(&path.display().to_string())
        ),
    )
    .into())
}

#[cfg(unix)]
fn kind_of(meta: &std::fs::Metadata) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    let t = meta.file_type();
    if t.is_fifo() {
        "a FIFO"
    } else if t.is_char_device() || t.is_block_device() {
        "a device"
    } else if t.is_socket() {
        "a socket"
    } else {
        "a special file"
    }
}

#[cfg(not(unix))]
fn kind_of(_: &std::fs::Metadata) -> &'static str {
    "a special file"
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn devices_and_folders_are_refused() {
        assert!(check_replaceable(Path::new("/dev/null")).is_err());
        assert!(check_replaceable(Path::new("/")).is_err());
        let dir = tempfile::tempdir().unwrap();
        assert!(check_replaceable(&dir.path().join("new.bin")).is_ok());
        std::fs::write(dir.path().join("old.bin"), b"x").unwrap();
        assert!(check_replaceable(&dir.path().join("old.bin")).is_ok());
    }
}
