//! Many inputs: folders walked with `--recursive`, files processed in parallel (`--jobs`), each
//! file's output printed whole and in input order, a progress bar on a terminal, and a summary
//! line at the end.
//!
//! A command's per-file work prints with `outln!` / `errln!` as it would for one file; while a
//! batch runs, those lines are captured per file (on the worker thread that runs it) and
//! printed together once the file is done, so parallel files never interleave.

use std::cell::RefCell;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use rayon::prelude::*;

use crate::Outcome;

/// One input of a batch.
#[derive(Debug, Clone)]
pub struct Input {
    /// The file.
    pub path: PathBuf,
    /// The folder argument it was found in (`None` for a file named on the command line).
    pub root: Option<PathBuf>,
}

impl Input {
    /// The path below the folder it was found in (the file name for a file named directly).
    pub fn relative(&self) -> PathBuf {
        match &self.root {
            Some(root) => self
                .path
                .strip_prefix(root)
                .map(Path::to_path_buf)
                .unwrap_or_else(|_| self.path.clone()),
            None => self
                .path
                .file_name()
                .map(PathBuf::from)
                .unwrap_or_else(|| self.path.clone()),
        }
    }
}

/// The files named by `paths`: files as given, folders walked (in name order) when
/// `--recursive` is set, else an error.
pub fn expand(paths: &[PathBuf]) -> Result<Vec<Input>> {
    let recursive = super::global().recursive;
    let mut out = Vec::new();
    for p in paths {
        if p.as_os_str() != "-" && p.is_dir() {
            if !recursive {
                bail!(
                    "{}: is a folder; pass --recursive (-r) to process the files in it",
                    p.display()
                );
            }
            walk(p, p, &mut out)?;
        } else {
            out.push(Input {
                path: p.clone(),
                root: None,
            });
        }
    }
    Ok(out)
}

fn walk(root: &Path, dir: &Path, out: &mut Vec<Input>) -> Result<()> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .with_context(|| format!("{}: cannot read the folder", dir.display()))?
        .collect::<std::io::Result<_>>()
        .with_context(|| format!("{}: cannot read the folder", dir.display()))?;
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let path = e.path();
        let kind = e
            .file_type()
            .with_context(|| format!("{}: cannot read", path.display()))?;
        // Links to files are followed; links to folders are not (they could loop).
        let is_file = kind.is_file() || (kind.is_symlink() && path.is_file());
        if kind.is_dir() {
            walk(root, &path, out)?;
        } else if is_file {
            out.push(Input {
                path,
                root: Some(root.to_path_buf()),
            });
        }
    }
    Ok(())
}

thread_local! {
    /// Captured (stdout, stderr) of the file this thread is working on, while a batch runs.
    static CAPTURE: RefCell<Option<(String, String)>> = const { RefCell::new(None) };
}

/// Standard output of a command: captured during a batch, else written through.
pub fn out(s: &str) -> Result<()> {
    let captured = CAPTURE.with(|c| match c.borrow_mut().as_mut() {
        Some((o, _)) => {
            o.push_str(s);
            true
        }
        None => false,
    });
    if captured {
        Ok(())
    } else {
        super::emit(s)
    }
}

/// Standard error of a command: captured during a batch, else written through.
pub fn err(s: &str) {
    let captured = CAPTURE.with(|c| match c.borrow_mut().as_mut() {
        Some((_, e)) => {
            e.push_str(s);
            true
        }
        None => false,
    });
    if !captured {
        eprint!("{s}");
    }
}

/// A file a batch passes over on purpose (counted as skipped, with this reason, not failed).
#[derive(Debug)]
pub struct Skip(pub &'static str);

impl std::fmt::Display for Skip {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0)
    }
}

impl std::error::Error for Skip {}

/// What one file came to.
struct Done<T> {
    path: PathBuf,
    outcome: Outcome,
    skipped: Option<&'static str>,
    value: Option<T>,
    stdout: String,
    stderr: String,
}

/// Runs `work` on every input (in parallel with `--jobs`), prints each file's output in input
/// order, and returns the worst outcome and the values `work` returned, in input order.
///
/// A file found in a walked folder whose format is unknown is skipped and counted, not failed.
/// With more than one input (or `--verbose`) a summary line ends the run on standard error.
pub fn run<T: Send>(
    inputs: &[Input],
    work: impl Fn(&Input) -> Result<(Outcome, Option<T>)> + Sync,
) -> Result<(Outcome, Vec<T>)> {
    run_skips(inputs, work).map(|(o, v, _)| (o, v))
}

/// [`run`] in JSON Lines (`--json`): `work` returns the input's item line
/// ([`super::jsonl::item`]), printed as one line; an input that fails prints its
/// [`super::jsonl::failure`] line (its message also goes to standard error); a summary line
/// counting the lines ends the output. Skipped files are listed in the summary, not as lines.
pub fn run_json(
    inputs: &[Input],
    command: &str,
    work: impl Fn(&Input) -> Result<(Outcome, serde_json::Value)> + Sync,
) -> Result<Outcome> {
    use super::jsonl;
    let (outcome, tallies, skips) = run_skips(inputs, |input| {
        let (outcome, line) = match work(input) {
            Ok(done) => done,
            Err(e) if e.downcast_ref::<Skip>().is_some() => return Err(e),
            Err(e) if input.root.is_some() && is_unknown_format(&e) => return Err(e),
            Err(e) => {
                err(&format!("retroanim: error: {e:#}\n"));
                let line = jsonl::failure(&input.path.display().to_string(), &e);
                (Outcome::Failed, line)
            }
        };
        out(&format!("{}\n", serde_json::to_string(&line)?))?;
        let mut t = jsonl::Tally::default();
        t.add(&line);
        Ok((outcome, Some(t)))
    })?;
    let mut tally = jsonl::Tally::default();
    for t in tallies {
        tally.merge(t);
    }
    for (path, why) in skips {
        tally.skip(&path.display().to_string(), why);
    }
    let line = tally.summary(command, serde_json::Map::new());
    super::emit(&format!("{}\n", serde_json::to_string(&line)?))?;
    Ok(outcome)
}

/// Files a batch passed over on purpose, and why.
type Skipped = Vec<(PathBuf, &'static str)>;

/// [`run`], also returning the files skipped and why.
fn run_skips<T: Send>(
    inputs: &[Input],
    work: impl Fn(&Input) -> Result<(Outcome, Option<T>)> + Sync,
) -> Result<(Outcome, Vec<T>, Skipped)> {
    let g = super::global();
    let jobs = g.jobs.unwrap_or(0);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .build()
        .context("cannot start worker threads")?;
    let bar = progress(inputs.len());
    let one = |input: &Input| -> Done<T> {
        CAPTURE.with(|c| *c.borrow_mut() = Some((String::new(), String::new())));
        let result = work(input);
        let (stdout, mut stderr) = CAPTURE.with(|c| c.borrow_mut().take()).unwrap_or_default();
        let done = match result {
            Ok((outcome, value)) => Done {
                path: input.path.clone(),
                outcome,
                skipped: None,
                value,
                stdout,
                stderr,
            },
            Err(e) if e.downcast_ref::<Skip>().is_some() => Done {
                path: input.path.clone(),
                outcome: Outcome::Clean,
                skipped: e.downcast_ref::<Skip>().map(|s| s.0),
                value: None,
                stdout,
                stderr,
            },
            Err(e) if input.root.is_some() && is_unknown_format(&e) => Done {
                path: input.path.clone(),
                outcome: Outcome::Clean,
                skipped: Some("no known format"),
                value: None,
                stdout,
                stderr,
            },
            Err(e) => {
                stderr.push_str(&format!("retroanim: error: {}\n", crate::shown_error(&e)));
                Done {
                    path: input.path.clone(),
                    outcome: Outcome::Failed,
                    skipped: None,
                    value: None,
                    stdout,
                    stderr,
                }
            }
        };
        if let Some(b) = &bar {
            b.inc(1);
        }
        done
    };
    let mut outcome = Outcome::Clean;
    let mut values = Vec::new();
    let (mut ok, mut findings, mut failed) = (0usize, 0usize, 0usize);
    let mut skips: std::collections::BTreeMap<&'static str, usize> = Default::default();
    let mut skipped_files = Vec::new();
    // A window of files at a time: output stays in order and memory holds one window's output.
    let window = pool.current_num_threads().max(1) * 4;
    for chunk in inputs.chunks(window) {
        let results: Vec<Done<T>> = pool.install(|| chunk.par_iter().map(one).collect());
        for d in results {
            if let Some(b) = &bar {
                b.suspend(|| print_done(&d))?;
            } else {
                print_done(&d)?;
            }
            outcome = outcome.worst(d.outcome);
            match (d.skipped, d.outcome) {
                (Some(why), _) => {
                    *skips.entry(why).or_default() += 1;
                    skipped_files.push((d.path.clone(), why));
                }
                (_, Outcome::Clean) => ok += 1,
                (_, Outcome::Findings) => findings += 1,
                (_, Outcome::Failed) => failed += 1,
            }
            values.extend(d.value);
        }
    }
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    let skipped: usize = skips.values().sum();
    if !g.quiet && (inputs.len() > 1 || g.verbose) {
        let mut line = format!(
            "retroanim: {} file{}: {ok} ok, {findings} with findings, {failed} failed",
            inputs.len() - skipped,
            if inputs.len() - skipped == 1 { "" } else { "s" }
        );
        for (why, n) in &skips {
            line.push_str(&format!("; {n} skipped ({why})"));
        }
        eprintln!("{line}");
    }
    Ok((outcome, values, skipped_files))
}

fn print_done<T>(d: &Done<T>) -> Result<()> {
    super::emit(&d.stdout)?;
    if !d.stderr.is_empty() {
        eprint!("{}", d.stderr);
    }
    Ok(())
}

fn is_unknown_format(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        matches!(
            c.downcast_ref::<retroanim::Error>(),
            Some(retroanim::Error::UnknownFormat(_))
        )
    })
}

/// A progress bar on standard error when it is a terminal and the batch is long enough to
/// need one.
fn progress(len: usize) -> Option<indicatif::ProgressBar> {
    if len < 2 || super::global().quiet || !std::io::stderr().is_terminal() {
        return None;
    }
    let bar = indicatif::ProgressBar::new(len as u64);
    if let Ok(style) = indicatif::ProgressStyle::with_template(
        "{bar:40} {pos}/{len} files, {elapsed} ({eta} left)",
    ) {
        bar.set_style(style);
    }
    Some(bar)
}
