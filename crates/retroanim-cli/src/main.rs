//! `retroanim`: read, check, write, play back and convert old game engines' 3D animation data.
//!
//! Parse arguments → typed config → dispatch; the library knows nothing of the command line.
//! Exit codes: 0 success, 1 findings (validation errors, round-trip differences), 2 failure
//! (usage, I/O, unreadable input).

/// `eprintln!` that never panics: a closed standard error (`retroanim ... 2>&1 | head`) is
/// ignored as a closed standard output is, so the command still does all its work. Defined
/// before the modules, it takes the place of the standard macro in the whole crate.
macro_rules! eprintln {
    ($($arg:tt)*) => {
        $crate::to_stderr(&format!("{}\n", format_args!($($arg)*)))
    };
}

/// `eprint!` that never panics (see `eprintln!` above).
macro_rules! eprint {
    ($($arg:tt)*) => {
        $crate::to_stderr(&format!($($arg)*))
    };
}

mod cli;
mod cmd;
mod io;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let args = match cli::Cli::try_parse() {
        Ok(args) => args,
        // Help and version go to standard output as clap prints them; usage errors get the
        // same `retroanim: error:` prefix as every other error (exit 2).
        Err(e) if !e.use_stderr() => e.exit(),
        Err(e) => {
            let text = e.render().to_string();
            eprint!("retroanim: {}", text.trim_start());
            return ExitCode::from(2);
        }
    };
    match cmd::run(args) {
        Ok(code) => code.into(),
        Err(e) => {
            eprintln!("retroanim: error: {}", shown_error(&e));
            ExitCode::from(2)
        }
    }
}

/// Writes to standard error, ignoring a failure (a closed pipe): messages are never worth a
/// panic or an unfinished batch.
pub fn to_stderr(s: &str) {
    use std::io::Write;
    let _ = std::io::stderr().lock().write_all(s.as_bytes());
}

/// An error chain as printed: each line with control characters escaped and cut after 2,000
/// characters (input text inside messages is cut shorter where it is quoted, see
/// [`retroanim::text::message`]; paths are left whole).
pub fn shown_error(e: &anyhow::Error) -> String {
    format!("{e:#}")
        .split('\n')
        .map(|line| {
            let mut s = retroanim::text::escape(line);
            if let Some((at, _)) = s.char_indices().nth(2000) {
                s.truncate(at);
                s.push('…');
            }
            s
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// How a command ended when it did not fail outright.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Everything as expected: exit 0.
    Clean,
    /// The command ran but found problems (validation errors, differences): exit 1.
    Findings,
    /// At least one input could not be processed: exit 2.
    Failed,
}

impl Outcome {
    /// The worse of two outcomes.
    pub fn worst(self, other: Outcome) -> Outcome {
        use Outcome::*;
        match (self, other) {
            (Failed, _) | (_, Failed) => Failed,
            (Findings, _) | (_, Findings) => Findings,
            _ => Clean,
        }
    }
}

impl From<Outcome> for ExitCode {
    fn from(o: Outcome) -> ExitCode {
        ExitCode::from(match o {
            Outcome::Clean => 0,
            Outcome::Findings => 1,
            Outcome::Failed => 2,
        })
    }
}
