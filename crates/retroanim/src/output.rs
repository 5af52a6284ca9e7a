//! The output rule: the one place that decides whether a file may be written, and the one
//! writer that writes it. The CLI, the scan report, `patch`, the Python package and the Blender
//! add-on all write through an [`Outputs`] plan; none has a writer of its own.
//!
//! The rule (docs/safety.md states it for users):
//!
//! 1. **Not a regular file**: a FIFO, a device node (`/dev/null`), a socket or a folder at an
//!    output's name is refused, with or without `force`.
//! 2. **Inputs of the run**: an output never replaces a file the run reads. Files are told
//!    apart by identity (device and inode, so hard links and symbolic links to an input are the
//!    input) and by their full path compared without case (`a.tim` and `A.TIM` are one file on
//!    case-insensitive file systems). The one exception: the user named this very output
//!    ([`Role::Named`], e.g. `convert a.tim a.tim`) and passed `force`.
//! 3. **Existing files**: a name that exists (a file, or a symbolic link, even a dangling one)
//!    is replaced only with `force` — unless it already holds exactly the bytes to be written,
//!    when nothing is written at all ([`Written::Unchanged`]).
//! 4. **One run, one file per name**: two outputs of one run that name the same file (again
//!    without case) are a collision: the second is refused, naming the first.
//! 5. **Atomic**: the bytes go to a new temporary file beside the output, created with
//!    `O_CREAT | O_EXCL` (a planted symbolic link at a temporary name is never followed or
//!    truncated), synced, then renamed into place; on every error path the temporary file is
//!    removed. A name that was new when checked is linked into place without replacing
//!    (`renameat2(RENAME_NOREPLACE)` or `link`), so a file that appears meanwhile is not lost.
//!
//! A caller checks every output of a step with [`Outputs::claim`] before writing the first
//! ([`Claim::write`]), so a refusal leaves nothing half written.

use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::error::{Error, Result};

/// Who chose an output's name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// The user named this file (the command line's OUT, a file chosen in a dialog): with
    /// `force` it may replace even an input of the run.
    Named,
    /// A name the program made (a file beside the output, `--out-dir` names, a report's or an
    /// extraction's files, a patched image's cue sheet): never replaces an input of the run.
    Derived,
}

/// What [`Claim::write`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Written {
    /// The file was written (new, or replaced with `force`).
    Written,
    /// The file already held these very bytes; nothing was written.
    Unchanged,
}

/// A file's identity: its device and inode where the system has them, and its full path
/// (symbolic links resolved) compared without case.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Identity {
    node: Option<(u64, u64)>,
    folded: String,
}

/// The outputs of one run (one command, one export): the inputs they must not replace, the
/// names already claimed, and whether the user passed `force`. Shared by the run's threads.
#[derive(Debug, Default)]
pub struct Outputs {
    force: bool,
    inputs: Mutex<Inputs>,
    claimed: Mutex<HashMap<String, PathBuf>>,
}

/// The files a run reads, by identity and by folded name.
#[derive(Debug, Default)]
struct Inputs {
    nodes: HashSet<(u64, u64)>,
    names: HashSet<String>,
}

impl Outputs {
    /// A plan for a run; `force` is the user's `--force`.
    pub fn new(force: bool) -> Outputs {
        Outputs {
            force,
            ..Outputs::default()
        }
    }

    /// Whether the user passed `force`.
    pub fn force(&self) -> bool {
        self.force
    }

    /// Records a file the run reads. A path that does not exist (yet) is recorded by name.
    pub fn input(&self, path: &Path) {
        let id = identity(path);
        let mut inputs = lock(&self.inputs);
        if let Some(n) = id.node {
            inputs.nodes.insert(n);
        }
        inputs.names.insert(id.folded);
    }

    /// [`Outputs::input`] for each path.
    pub fn inputs<'a>(&self, paths: impl IntoIterator<Item = &'a Path>) {
        for p in paths {
            self.input(p);
        }
    }

    /// Whether `path` is one of the run's inputs (by identity or by name without case).
    pub fn is_input(&self, path: &Path) -> bool {
        let id = identity(path);
        let inputs = lock(&self.inputs);
        id.node.is_some_and(|n| inputs.nodes.contains(&n)) || inputs.names.contains(&id.folded)
    }

    /// Checks that `path` may be written under the rule (see the module docs) and claims its
    /// name for this run. `bytes`, when known now, lets an existing file that already holds
    /// them pass without `force` (it is then left as it is). Nothing is written.
    pub fn claim(&self, path: &Path, role: Role, bytes: Option<&[u8]>) -> Result<Claim> {
        check_replaceable(path)?;
        let shown = || crate::text::escape(&path.display().to_string());
        if self.is_input(path) && !(role == Role::Named && self.force) {
            let how = match role {
                Role::Named => "pass --force to replace it, or name another output",
                Role::Derived => "write the output into another folder",
            };
            return Err(refused(
                shown(),
                format!("is a file this run reads; refusing to replace it ({how})"),
            ));
        }
        let existing = std::fs::symlink_metadata(path).ok();
        let unchanged = match (&existing, bytes) {
            (Some(meta), Some(b)) if meta.is_file() && meta.len() == b.len() as u64 => {
                std::fs::read(path).is_ok_and(|old| old == b)
            }
            _ => false,
        };
        // An existing regular file and output whose bytes are not known yet (made piece by
        // piece): judged when they are, before anything replaces the file.
        let compare = existing.as_ref().is_some_and(|m| m.is_file()) && bytes.is_none();
        if existing.is_some() && !unchanged && !compare && !self.force {
            return Err(exists(shown()));
        }
        let folded = identity(path).folded;
        {
            let mut claimed = lock(&self.claimed);
            if let Some(first) = claimed.get(&folded) {
                return Err(refused(
                    shown(),
                    format!(
                        "this run writes {} there already (names that differ only in case are one file on many systems); give the outputs distinct names",
                        crate::text::escape(&first.display().to_string())
                    ),
                ));
            }
            claimed.insert(folded, path.to_path_buf());
        }
        Ok(Claim {
            path: path.to_path_buf(),
            replace: existing.is_some() && !unchanged,
            unchanged,
            compare: compare && !self.force,
        })
    }

    /// [`Outputs::claim`] then [`Claim::write`]: one output, checked and written.
    pub fn write(&self, path: &Path, role: Role, bytes: &[u8]) -> Result<Written> {
        self.claim(path, role, Some(bytes))?.write(bytes)
    }
}

/// A name [`Outputs::claim`] allowed; writing it consumes the claim.
#[derive(Debug)]
#[must_use = "a claim writes nothing until `write` is called"]
pub struct Claim {
    path: PathBuf,
    /// An existing file is replaced (the user passed `force`).
    replace: bool,
    /// The file already holds the bytes.
    unchanged: bool,
    /// An existing file, no `force`: replaced only if it turns out to hold the same bytes
    /// (then it is left as it is), else refused.
    compare: bool,
}

impl Claim {
    /// The claimed path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Writes `bytes` atomically (see the module docs).
    pub fn write(self, bytes: &[u8]) -> Result<Written> {
        if self.unchanged {
            return Ok(Written::Unchanged);
        }
        self.write_with(|w| Ok(w.write_all(bytes)?))?;
        Ok(Written::Written)
    }

    /// Writes what `produce` writes (output made piece by piece) atomically; when `produce`
    /// fails nothing replaces the file and the temporary file is removed.
    pub fn write_with(self, produce: impl FnOnce(&mut dyn Write) -> Result<()>) -> Result<()> {
        self.write_checked(produce, |_| Ok(()))
    }

    /// [`Claim::write_with`], with `check` run on the complete temporary file (its path)
    /// before it is renamed into place: a `patch` reads its replacements back there.
    pub fn write_checked(
        self,
        produce: impl FnOnce(&mut dyn Write) -> Result<()>,
        check: impl FnOnce(&Path) -> Result<()>,
    ) -> Result<()> {
        let path = &self.path;
        let dir = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        let tmp = temp_in(dir)?;
        let mut w = std::io::BufWriter::with_capacity(1 << 16, tmp);
        produce(&mut w)?;
        let tmp = w.into_inner().map_err(|e| e.into_error())?;
        if let Ok(meta) = std::fs::metadata(path) {
            tmp.as_file().set_permissions(meta.permissions())?;
        }
        tmp.as_file().sync_all()?;
        check(tmp.path())?;
        if self.compare {
            if same_content(tmp.path(), path)? {
                return Ok(());
            }
            return Err(exists(crate::text::escape(&path.display().to_string())));
        }
        // Checked again just before the rename: something may have appeared at the name.
        check_replaceable(path)?;
        if self.replace {
            tmp.persist(path).map_err(|e| e.error)?;
        } else {
            tmp.persist_noclobber(path).map_err(|e| {
                if e.error.kind() == std::io::ErrorKind::AlreadyExists {
                    refused(
                        crate::text::escape(&path.display().to_string()),
                        "appeared while it was being written; left as it is".into(),
                    )
                } else {
                    e.error.into()
                }
            })?;
        }
        Ok(())
    }
}

/// A new temporary file in `dir` (`.retroanim-XXXXXX`, `O_CREAT | O_EXCL`, mode 0o666 less
/// the umask, as `open` creates a file), removed when dropped unless persisted.
pub fn temp_in(dir: &Path) -> Result<tempfile::NamedTempFile> {
    let mut builder = tempfile::Builder::new();
    builder.prefix(".retroanim-");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    builder.tempfile_in(dir).map_err(|e| {
        Error::Io(std::io::Error::new(
            e.kind(),
            format!(
                "{}: cannot create a temporary file: {e}",
                crate::text::escape(&dir.display().to_string())
            ),
        ))
    })
}

fn exists(path: String) -> Error {
    refused(
        path,
        "exists already; pass --force to replace it, or name a new file".into(),
    )
}

/// Whether two files hold the same bytes (read in blocks, never whole).
fn same_content(a: &Path, b: &Path) -> Result<bool> {
    use std::io::Read;
    let (fa, fb) = (std::fs::File::open(a)?, std::fs::File::open(b)?);
    if fa.metadata()?.len() != fb.metadata()?.len() {
        return Ok(false);
    }
    let (mut ra, mut rb) = (std::io::BufReader::new(fa), std::io::BufReader::new(fb));
    let (mut x, mut y) = (vec![0u8; 1 << 16], vec![0u8; 1 << 16]);
    loop {
        let n = ra.read(&mut x)?;
        if n == 0 {
            return Ok(true);
        }
        rb.read_exact(&mut y[..n])?;
        if x[..n] != y[..n] {
            return Ok(false);
        }
    }
}

/// A lock that a panicked thread left behind still guards plain sets: take it.
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

fn refused(path: String, why: String) -> Error {
    Error::Refused { path, why }
}

/// The identity of `path`: of the file it names (links followed) when it exists, else of its
/// folder's resolved path joined with its name.
fn identity(path: &Path) -> Identity {
    let resolved = std::fs::canonicalize(path).ok().or_else(|| {
        let name = path.file_name()?;
        let parent = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        Some(std::fs::canonicalize(parent).ok()?.join(name))
    });
    let full = resolved.unwrap_or_else(|| path.to_path_buf());
    Identity {
        node: node_of(path),
        folded: full.to_string_lossy().to_lowercase(),
    }
}

#[cfg(unix)]
fn node_of(path: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

#[cfg(not(unix))]
fn node_of(_: &Path) -> Option<(u64, u64)> {
    None
}

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
    Err(refused(
        crate::text::escape(&path.display().to_string()),
        format!(
            "{what}, not a regular file; refusing to write over it (name a new file or a regular one)"
        ),
    ))
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
        let plan = Outputs::new(true);
        let e = plan.write(Path::new("/dev/null"), Role::Named, b"x");
        assert!(e.unwrap_err().to_string().contains("a device"));
    }

    #[test]
    fn inputs_are_never_replaced_by_derived_names() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.tim");
        std::fs::write(&a, b"input").unwrap();
        let plan = Outputs::new(true);
        plan.input(&a);
        // Another spelling of the input: a case twin and a symbolic link.
        let twin = dir.path().join("A.TIM");
        let link = dir.path().join("link.tim");
        std::os::unix::fs::symlink(&a, &link).unwrap();
        for p in [&a, &twin, &link] {
            let e = plan.write(p, Role::Derived, b"out").unwrap_err();
            assert!(e.to_string().contains("this run reads"), "{e}");
        }
        assert_eq!(std::fs::read(&a).unwrap(), b"input");
        // Named by the user with force: allowed.
        assert_eq!(
            plan.write(&a, Role::Named, b"new").unwrap(),
            Written::Written
        );
        assert_eq!(std::fs::read(&a).unwrap(), b"new");
    }

    #[test]
    fn existing_files_need_force_unless_unchanged() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("x.glb");
        std::fs::write(&p, b"old").unwrap();
        let plan = Outputs::new(false);
        let e = plan.write(&p, Role::Named, b"new").unwrap_err();
        assert!(e.to_string().contains("--force"), "{e}");
        assert_eq!(std::fs::read(&p).unwrap(), b"old");
        let plan = Outputs::new(false);
        assert_eq!(
            plan.write(&p, Role::Named, b"old").unwrap(),
            Written::Unchanged
        );
        // A dangling symbolic link is an existing name too.
        let l = dir.path().join("dangling.glb");
        std::os::unix::fs::symlink(dir.path().join("nowhere"), &l).unwrap();
        assert!(plan.write(&l, Role::Derived, b"x").is_err());
        assert!(!dir.path().join("nowhere").exists());
    }

    #[test]
    fn one_name_once_per_run_ignoring_case() {
        let dir = tempfile::tempdir().unwrap();
        let plan = Outputs::new(true);
        plan.write(&dir.path().join("a.png"), Role::Derived, b"1")
            .unwrap();
        let e = plan
            .write(&dir.path().join("A.PNG"), Role::Derived, b"2")
            .unwrap_err();
        assert!(e.to_string().contains("writes"), "{e}");
        assert_eq!(std::fs::read(dir.path().join("a.png")).unwrap(), b"1");
    }

    #[test]
    fn a_failed_write_leaves_no_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        let plan = Outputs::new(false);
        let c = plan
            .claim(&dir.path().join("x.bin"), Role::Named, None)
            .unwrap();
        let r = c.write_with(|w| {
            w.write_all(b"partial")?;
            Err(Error::Parameter {
                what: "stop".into(),
            })
        });
        assert!(r.is_err());
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}
