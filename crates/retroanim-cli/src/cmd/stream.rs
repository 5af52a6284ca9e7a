//! Output written piece by piece: `play` prints one frame at a time, so its memory does not grow
//! with the number of frames (a report of millions of frames never exists whole).

use std::io::{BufWriter, StdoutLock, Write};

use anyhow::{Context, Result};
use serde::Serialize;

/// Buffered standard output; a closed pipe (`| head`) ends the output quietly and tells the
/// producer to stop.
pub struct Out {
    w: BufWriter<StdoutLock<'static>>,
    closed: bool,
}

impl Out {
    /// Standard output, buffered.
    pub fn stdout() -> Out {
        Out {
            w: BufWriter::with_capacity(1 << 16, std::io::stdout().lock()),
            closed: false,
        }
    }

    /// True once the reader went away: nothing more needs producing.
    pub fn closed(&self) -> bool {
        self.closed
    }

    /// Writes `s` (nothing once the pipe closed).
    pub fn put(&mut self, s: &str) -> Result<()> {
        if self.closed {
            return Ok(());
        }
        let r = self.w.write_all(s.as_bytes());
        self.check(r)
    }

    /// Flushes what is buffered.
    pub fn finish(mut self) -> Result<()> {
        if self.closed {
            return Ok(());
        }
        let r = self.w.flush();
        self.check(r)
    }

    fn check(&mut self, r: std::io::Result<()>) -> Result<()> {
        match r {
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {
                self.closed = true;
                Ok(())
            }
            r => r.context("cannot write to standard output"),
        }
    }
}

/// `play --json`: one item line per frame, then the summary line
/// ([`super::jsonl`]). Fields known only at the end (the animation's notes) go into the summary.
pub struct JsonLines {
    path: String,
    format: Option<retroanim::Format>,
    tally: super::jsonl::Tally,
    /// Fields of the summary line besides the counts.
    pub extra: serde_json::Map<String, serde_json::Value>,
}

impl JsonLines {
    /// Lines about the input `path`.
    pub fn new(path: String) -> JsonLines {
        JsonLines {
            path,
            format: None,
            tally: Default::default(),
            extra: Default::default(),
        }
    }

    /// The input's format, once it is read.
    pub fn set_format(&mut self, format: retroanim::Format) {
        self.format = Some(format);
    }

    /// Writes one frame: `fields` (an object) as an item line.
    pub fn frame<T: Serialize + ?Sized>(&mut self, out: &mut Out, fields: &T) -> Result<()> {
        let fields = super::jsonl::fields(serde_json::to_value(fields)?);
        let line = super::jsonl::item(&self.path, self.format, fields, Vec::new());
        self.tally.add(&line);
        out.put(&format!("{}\n", serde_json::to_string(&line)?))
    }

    /// Ends the output: a failure line when `result` is an error (the error is still returned,
    /// for the message and exit status), then the summary line.
    pub fn finish(mut self, out: &mut Out, result: Result<()>) -> Result<()> {
        if let Err(e) = &result {
            let mut line = super::jsonl::failure(&self.path, e);
            if line["format"].is_null() {
                line["format"] = serde_json::json!(self.format);
            }
            self.tally.add(&line);
            out.put(&format!("{}\n", serde_json::to_string(&line)?))?;
        }
        let summary = self.tally.summary("play", self.extra);
        out.put(&format!("{}\n", serde_json::to_string(&summary)?))?;
        result
    }
}
