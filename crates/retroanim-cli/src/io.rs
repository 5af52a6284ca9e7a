//! File input and atomic output.

use std::io::{Read, Write};
use std::path::Path;

use anyhow::{bail, Context, Result};

/// Bytes read from a stream before judging whether it could hold a file we read at all.
const PROBE: u64 = 64 * 1024;

/// Reads a whole input: a file, or standard input for `-`. At most
/// [`retroanim::Limits::max_input_bytes`] are read: a larger regular file is refused before
/// reading, a device or pipe when it goes past the limit, or after its first 64 KiB when they
/// cannot start any format retroanim reads (`/dev/zero`, `/dev/urandom`).
pub fn read_input(path: &Path) -> Result<Vec<u8>> {
    let limit = retroanim::Limits::default().max_input_bytes;
    if path == Path::new("-") {
        return read_limited(std::io::stdin().lock(), limit).context("standard input (-)");
    }
    let file =
        std::fs::File::open(path).with_context(|| format!("{}: cannot read", path.display()))?;
    let meta = file
        .metadata()
        .with_context(|| format!("{}: cannot read", path.display()))?;
    if meta.is_dir() {
        bail!("{}: a directory, not a file", path.display());
    }
    if meta.is_file() {
        retroanim::Limits::default()
            .input(None, "the input file's size", meta.len())
            .with_context(|| format!("{}: too large", path.display()))?;
    }
    read_limited(file, limit).with_context(|| path.display().to_string())
}

fn read_limited(r: impl Read, limit: u64) -> Result<Vec<u8>> {
    let mut r = r.take(limit.saturating_add(1));
    let mut data = Vec::new();
    r.by_ref()
        .take(PROBE)
        .read_to_end(&mut data)
        .context("cannot read")?;
    if data.len() as u64 == PROBE && !retroanim::plausible_start(&data, limit) {
        bail!(
            "unknown format: its first {PROBE} bytes start no format retroanim reads \
             (stopped reading there)"
        );
    }
    r.read_to_end(&mut data).context("cannot read")?;
    retroanim::Limits::default().input(None, "the input", data.len() as u64)?;
    Ok(data)
}

/// Writes `bytes` to `out` atomically (a temporary file in the same folder, then a rename), or to
/// standard output for `-`. Refuses to replace `input` unless `force`.
pub fn write_output(out: &Path, bytes: &[u8], input: Option<&Path>, force: bool) -> Result<()> {
    write_output_with(out, input, force, |w| Ok(w.write_all(bytes)?))
}

/// [`write_output`] for output produced piece by piece: `produce` writes into a buffered
/// writer on the temporary file (or standard output); on error nothing replaces `out`.
pub fn write_output_with(
    out: &Path,
    input: Option<&Path>,
    force: bool,
    produce: impl FnOnce(&mut dyn Write) -> Result<()>,
) -> Result<()> {
    if out == Path::new("-") {
        let mut w = std::io::BufWriter::new(std::io::stdout().lock());
        produce(&mut w)?;
        w.flush().context("cannot write to standard output")?;
        return Ok(());
    }
    if let Some(input) = input {
        if !force && same_file(input, out) {
            bail!(
                "{}: refusing to overwrite the input file (pass --force to allow it)",
                out.display()
            );
        }
    }
    let dir = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let mut builder = tempfile::Builder::new();
    builder.prefix(".retroanim-");
    #[cfg(unix)]
    {
        // Created as `open(…, 0o666)` does, so the user's umask sets a new file's mode.
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    let tmp = builder
        .tempfile_in(dir)
        .with_context(|| format!("{}: cannot create a temporary file", dir.display()))?;
    let mut w = std::io::BufWriter::with_capacity(1 << 16, tmp);
    produce(&mut w)?;
    let tmp = w
        .into_inner()
        .map_err(|e| e.into_error())
        .with_context(|| format!("{}: cannot write", out.display()))?;
    match output_permissions(out) {
        Some(p) => tmp.as_file().set_permissions(p),
        None => Ok(()),
    }
    .and_then(|_| tmp.as_file().sync_all())
    .with_context(|| format!("{}: cannot write", out.display()))?;
    tmp.persist(out).map_err(|e| e.error).with_context(|| {
        format!(
            "{}: cannot rename the temporary file into place",
            out.display()
        )
    })?;
    Ok(())
}

/// The permissions the output gets: those of the file it replaces; a new file keeps the mode
/// it was created with (0o666 less the user's umask).
fn output_permissions(out: &Path) -> Option<std::fs::Permissions> {
    std::fs::metadata(out).ok().map(|meta| meta.permissions())
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}
