//! File input and atomic output.

use std::io::Write;
use std::path::Path;

use anyhow::{bail, Context, Result};

/// Reads a whole input: a file, or standard input for `-`, through the library's one limited
/// reader ([`retroanim::input`]): at most [`retroanim::Limits::max_input_bytes`] are read; a
/// larger regular file is refused before reading, a device or pipe when it goes past the limit,
/// or after its first 64 KiB when they cannot start any format retroanim reads (`/dev/zero`,
/// `/dev/urandom`).
pub fn read_input(path: &Path) -> Result<Vec<u8>> {
    let limit = retroanim::Limits::default().max_input_bytes;
    if path == Path::new("-") {
        return retroanim::input::read_stream(std::io::stdin().lock(), limit)
            .context("standard input (-)");
    }
    Ok(retroanim::input::read_input(path, limit)?)
}

/// Reads a file an option names (`--tmd`, `--tim`, `--vram`, `patch --replace`): a regular file
/// of at most `limit` bytes ([`retroanim::input::read_file`]); FIFOs and devices are refused
/// before they are opened.
pub fn read_named(path: &Path, limit: u64) -> Result<Vec<u8>> {
    Ok(retroanim::input::read_file(path, limit)?)
}

/// Writes `bytes` to `out` atomically (a temporary file in the same folder, then a rename), or to
/// standard output for `-`. Refuses to replace one of `inputs` unless `force`, and anything
/// that is not a regular file always ([`check_output`]).
pub fn write_output(out: &Path, bytes: &[u8], inputs: &[&Path], force: bool) -> Result<()> {
    write_output_with(out, inputs, force, |w| Ok(w.write_all(bytes)?))
}

/// Whether `out` may be written: `-` always; never over a FIFO, device or folder (the
/// library's [`retroanim::output::check_replaceable`]); over one of `inputs` (a file the command
/// reads) only with `force`. Commands call it for every output before writing the first.
pub fn check_output(out: &Path, inputs: &[&Path], force: bool) -> Result<()> {
    if out == Path::new("-") {
        return Ok(());
    }
    retroanim::output::check_replaceable(out)?;
    if !force && inputs.iter().any(|i| same_file(i, out)) {
        bail!(
            "{}: refusing to overwrite the input or another file this command reads (pass --force to allow it)",
            shown_path(out)
        );
    }
    Ok(())
}

/// Whether `out`, a file the command writes that the user did not name (a model written
/// beside the output, an extracted find), may be written: a new name, or a file holding these
/// very bytes, always; another existing file only with `force`.
pub fn check_other(out: &Path, bytes: Option<&[u8]>, force: bool) -> Result<()> {
    check_output(out, &[], force)?;
    if force {
        return Ok(());
    }
    let Ok(meta) = std::fs::metadata(out) else {
        return Ok(());
    };
    let same = bytes.is_some_and(|b| {
        meta.len() == b.len() as u64 && std::fs::read(out).is_ok_and(|old| old == b)
    });
    if !same {
        bail!(
            "{}: exists and is not this command's output; pass --force to replace it",
            shown_path(out)
        );
    }
    Ok(())
}

/// A path for messages: control characters escaped.
pub fn shown_path(p: &Path) -> String {
    retroanim::text::escape(&p.display().to_string())
}

/// [`write_output`] for output produced piece by piece: `produce` writes into a buffered
/// writer on the temporary file (or standard output); on error nothing replaces `out`.
pub fn write_output_with(
    out: &Path,
    inputs: &[&Path],
    force: bool,
    produce: impl FnOnce(&mut dyn Write) -> Result<()>,
) -> Result<()> {
    if out == Path::new("-") {
        let mut w = std::io::BufWriter::new(std::io::stdout().lock());
        produce(&mut w)?;
        w.flush().context("cannot write to standard output")?;
        return Ok(());
    }
    check_output(out, inputs, force)?;
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
    // Checked again just before the rename: something may have appeared at the name meanwhile.
    retroanim::output::check_replaceable(out)?;
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
