//! File input and atomic output.

use std::io::Write;
use std::path::Path;

use anyhow::{Context, Result};
use retroanim::output::{Claim, Outputs, Role};

/// Reads a whole input: a file, or standard input for `-`, through the library's one limited
/// reader ([`retroanim::input`]): at most [`retroanim::Limits::max_input_bytes`] are read; a
/// larger regular file is refused before reading, a device or pipe when it goes past the limit,
/// or after its first 64 KiB when they cannot start any format retroanim reads (`/dev/zero`,
/// `/dev/urandom`). A path that names no file but a find as `scan` prints it
/// (`IMAGE:CONTAINER@OFFSET`, `FILE@OFFSET`) reads that find's bytes
/// ([`retroanim::patch::place::find_at`]).
pub fn read_input(path: &Path) -> Result<Vec<u8>> {
    let limit = retroanim::Limits::default().max_input_bytes;
    if path == Path::new("-") {
        return retroanim::input::read_stream(std::io::stdin().lock(), limit)
            .context("standard input (-)");
    }
    // A find named as `scan` prints it (`disc.bin:/DATA/X.TIX@2064`), where no such file is.
    if std::fs::symlink_metadata(path).is_err() {
        if let Some(text) = path.to_str() {
            if let Some(find) = retroanim::patch::place::find_at(text)? {
                return Ok(find.readable_bytes()?);
            }
        }
    }
    Ok(retroanim::input::read_input(path, limit)?)
}

/// Reads a file an option names (`--tmd`, `--tim`, `--vram`, `patch --replace`): a regular file
/// of at most `limit` bytes ([`retroanim::input::read_file`]); FIFOs and devices are refused
/// before they are opened.
pub fn read_named(path: &Path, limit: u64) -> Result<Vec<u8>> {
    Ok(retroanim::input::read_file(path, limit)?)
}

/// The run's output plan ([`retroanim::output::Outputs`]): one per process, as a process runs
/// one command with one `--force`. Every output of the command is claimed in it, so an output
/// never replaces an input of the run, another output of the run (names compared without case)
/// or, without `--force`, any existing file.
static RUN: std::sync::OnceLock<Outputs> = std::sync::OnceLock::new();

/// The run's plan, made on first use with the command's `--force`.
pub fn plan(force: bool) -> &'static Outputs {
    RUN.get_or_init(|| Outputs::new(force))
}

/// Records files the run reads (every input of a batch, every file an option names), which no
/// output of the run replaces ([`Role::Derived`]) or replaces only with `--force` when the user
/// named that output ([`Role::Named`]).
pub fn run_inputs<'a>(paths: impl IntoIterator<Item = &'a Path>, force: bool) {
    plan(force).inputs(paths.into_iter().filter(|p| *p != Path::new("-")));
}

/// Checks that `out` may be written under the output rule and claims it ([`Outputs::claim`]);
/// `inputs` are files this step reads; `bytes`, when known, let a file that already holds them
/// pass. Every output of a step is claimed before the first is written.
pub fn claim(
    out: &Path,
    role: Role,
    inputs: &[&Path],
    bytes: Option<&[u8]>,
    force: bool,
) -> Result<Claim> {
    run_inputs(inputs.iter().copied(), force);
    Ok(plan(force).claim(out, role, bytes)?)
}

/// Writes `bytes` to `out`, the output the user named, atomically (a temporary file in the same
/// folder, then a rename), or to standard output for `-`.
pub fn write_output(out: &Path, bytes: &[u8], inputs: &[&Path], force: bool) -> Result<()> {
    if out == Path::new("-") {
        return write_output_with(out, inputs, force, |w| Ok(w.write_all(bytes)?));
    }
    claim(out, Role::Named, inputs, Some(bytes), force)?.write(bytes)?;
    Ok(())
}

/// Writes `bytes` to `out`, a name the command made (an extracted find, a file beside the
/// output, an `--out-dir` name), under the output rule: never over a file the run reads, over
/// an existing file only with `--force`.
pub fn write_derived(out: &Path, bytes: &[u8], force: bool) -> Result<()> {
    claim(out, Role::Derived, &[], Some(bytes), force)?.write(bytes)?;
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
    write_stream(out, Role::Named, inputs, force, produce)
}

/// [`write_output_with`] for an output of either [`Role`] (never standard output).
pub fn write_stream(
    out: &Path,
    role: Role,
    inputs: &[&Path],
    force: bool,
    produce: impl FnOnce(&mut dyn Write) -> Result<()>,
) -> Result<()> {
    let c = claim(out, role, inputs, None, force)?;
    let mut failed = None;
    let done = c.write_with(|w| {
        produce(w).map_err(|e| {
            let text = format!("{e:#}");
            failed = Some(e);
            retroanim::Error::Parameter { what: text }
        })
    });
    match (done, failed) {
        (Ok(()), _) => Ok(()),
        (Err(_), Some(e)) => Err(e),
        (Err(e), None) => Err(e).with_context(|| format!("{}: cannot write", shown_path(out))),
    }
}
