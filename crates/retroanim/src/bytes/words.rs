//! [`Words`]: random access by word index over a file read as words.

use crate::error::{Error, Result};
use crate::limits::Limits;
use crate::Format;

/// A file read as little-endian 32-bit words ([`super::Reader::u32_words`]), with random access by
/// word index: for layouts whose pointers count words (HMD), as object's `read_at` gives
/// random access beside its cursor. Every error names the byte offset (4 × the word index) of
/// the field that asked, in the original input.
#[derive(Debug, Clone, Copy)]
pub struct Words<'a> {
    w: &'a [u32],
    format: Format,
    limits: Limits,
}

impl<'a> Words<'a> {
    /// Random access to `w`, the words of a `format` file read under `limits`.
    pub fn new(w: &'a [u32], format: Format, limits: Limits) -> Self {
        Words { w, format, limits }
    }

    /// All the words.
    pub fn words(&self) -> &'a [u32] {
        self.w
    }

    /// The limits the file is read under.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// An error at word `word` (byte `4 × word`).
    #[cold]
    pub fn malformed_at_word(&self, word: usize, what: impl Into<String>) -> Error {
        Error::Malformed {
            format: self.format,
            offset: word as u64 * 4,
            what: what.into(),
        }
    }

    /// The word at index `i`.
    pub fn at(&self, i: usize, what: &str) -> Result<u32> {
        self.w.get(i).copied().ok_or_else(|| {
            self.malformed_at_word(
                i,
                format!(
                    "expected {what}, but the file ends at byte {}",
                    self.w.len() * 4
                ),
            )
        })
    }

    /// `n` words from index `at`, checked to lie inside the file; an error names `field`, the
    /// word that gave `at` or `n`.
    pub fn words_at(&self, at: usize, n: u64, field: usize, what: &str) -> Result<&'a [u32]> {
        let end = at as u64 + n;
        if end > self.w.len() as u64 {
            return Err(self.malformed_at_word(
                field,
                format!(
                    "{what}: {n} words from byte {} run past the end of the file ({} bytes)",
                    at * 4,
                    self.w.len() * 4
                ),
            ));
        }
        Ok(&self.w[at..end as usize])
    }

    /// A word pointer `p` read from word `field`, checked to point inside the file.
    pub fn pointer(&self, p: u32, field: usize, what: &str) -> Result<usize> {
        if p as usize >= self.w.len() {
            return Err(self.malformed_at_word(
                field,
                format!(
                    "{what}: word offset {p} (byte {}) is outside the file ({} bytes)",
                    p as u64 * 4,
                    self.w.len() * 4
                ),
            ));
        }
        Ok(p as usize)
    }
}
