//! Findings and notes, the library's two words for "worth telling the user": a finding
//! ([`Issue`]) is what `validate` reports about a file; a [`Note`] is what a conversion, a
//! rendering or an assembly left out or approximated. Both are data, not errors. They live on
//! the ground floor so that every module (formats, authors, renderer, assembler, converter)
//! can make them without importing a module above it.

use serde::{Deserialize, Serialize};

/// How bad a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Worth knowing; the file is fine.
    Info,
    /// Unusual but playable; some tool or engine may mind.
    Warning,
    /// The file breaks its format: the engine would misbehave or a field is inconsistent.
    Error,
}

impl std::fmt::Display for Severity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        })
    }
}

/// One validation finding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Issue {
    /// How bad it is.
    pub severity: Severity,
    /// Absolute byte offset in the file the finding refers to.
    pub offset: u64,
    /// A short stable identifier of the kind of finding, e.g. `frame-size`.
    pub code: String,
    /// What was found and what was expected.
    pub message: String,
}

impl Issue {
    /// Builds a finding.
    pub fn new(
        severity: Severity,
        offset: u64,
        code: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        Issue {
            severity,
            offset,
            code: code.into(),
            message: message.into(),
        }
    }

    /// An error finding.
    pub fn error(offset: u64, code: impl Into<String>, message: impl Into<String>) -> Self {
        Issue::new(Severity::Error, offset, code, message)
    }

    /// A warning finding.
    pub fn warning(offset: u64, code: impl Into<String>, message: impl Into<String>) -> Self {
        Issue::new(Severity::Warning, offset, code, message)
    }

    /// An informational finding.
    pub fn info(offset: u64, code: impl Into<String>, message: impl Into<String>) -> Self {
        Issue::new(Severity::Info, offset, code, message)
    }
}

impl std::fmt::Display for Issue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} at byte {} (0x{:x}) [{}]: {}",
            self.severity, self.offset, self.offset, self.code, self.message
        )
    }
}

/// True when any finding has [`Severity::Error`].
pub fn has_errors(issues: &[Issue]) -> bool {
    issues.iter().any(|i| i.severity == Severity::Error)
}

/// Something a conversion (or a rendering, or an assembly) left out or could not carry exactly.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Note {
    /// A stable code, e.g. `rest-frame-dropped`.
    pub code: &'static str,
    /// What happened, in plain words.
    pub message: String,
}

impl std::fmt::Display for Note {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}
