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

/// `value` as pretty JSON whose lines after the first are indented by `indent` spaces, to sit
/// inside an enclosing pretty-printed object or array (JSON strings hold no raw newline).
pub fn pretty_at<T: Serialize + ?Sized>(value: &T, indent: usize) -> Result<String> {
    let s = serde_json::to_string_pretty(value)?;
    Ok(s.replace('\n', &format!("\n{}", " ".repeat(indent))))
}

/// A JSON array of items written one by one as the `key` of a pretty-printed object (the items
/// sit two levels deep, as `serde_json::to_string_pretty` of the whole object would put them).
pub struct JsonItems {
    count: usize,
    key: &'static str,
}

impl JsonItems {
    /// Starts the array `key` (the object's opening and earlier fields are the caller's).
    pub fn new(key: &'static str) -> JsonItems {
        JsonItems { count: 0, key }
    }

    /// Writes one item.
    pub fn item<T: Serialize + ?Sized>(&mut self, out: &mut Out, value: &T) -> Result<()> {
        let sep = if self.count == 0 {
            format!("  \"{}\": [\n", self.key)
        } else {
            ",\n".to_string()
        };
        self.count += 1;
        out.put(&format!("{sep}    {}", pretty_at(value, 4)?))
    }

    /// Closes the array; `more` when further fields follow.
    pub fn end(self, out: &mut Out, more: bool) -> Result<()> {
        let comma = if more { "," } else { "" };
        if self.count == 0 {
            out.put(&format!("  \"{}\": []{comma}\n", self.key))
        } else {
            out.put(&format!("\n  ]{comma}\n"))
        }
    }
}
