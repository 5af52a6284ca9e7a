//! The one library error type.
//!
//! Errors are sorted by who is to blame: the operating system ([`Error::Io`]), the input
//! ([`Error::Malformed`], [`Error::Unsupported`], [`Error::UnknownFormat`]), a resource limit the
//! caller set ([`Error::LimitExceeded`]), a request the input cannot satisfy
//! ([`Error::Parameter`]) or a model the caller built that cannot be written
//! ([`Error::Unencodable`], [`Error::InconsistentScene`]).

use crate::Format;

/// Everything that can go wrong in retroanim.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Reading or writing a file failed.
    #[error("I/O error: {0}")]
    Io(#[from] std::io::Error),

    /// The input does not follow its format; `offset` is the absolute byte offset in the input
    /// where the problem was found.
    #[error("{format}: malformed at byte {offset} (0x{offset:x}): {what}")]
    Malformed {
        /// The format being read.
        format: Format,
        /// Absolute byte offset of the problem.
        offset: u64,
        /// What was expected and what was found.
        what: String,
    },

    /// The input is well formed but uses a feature retroanim does not read.
    #[error("{format}: unsupported at byte {offset} (0x{offset:x}): {feature}")]
    Unsupported {
        /// The format being read.
        format: Format,
        /// Absolute byte offset of the unsupported structure.
        offset: u64,
        /// What is not supported.
        feature: String,
    },

    /// The input asks for more than the configured [`crate::Limits`] allow.
    #[error("limit exceeded{}: {what} asks for {requested}, the limit is {limit}", at_byte(*.offset))]
    LimitExceeded {
        /// Absolute byte offset of the field that asked, when a file's field did (a caller's
        /// request, such as a range of frames to print, has none).
        offset: Option<u64>,
        /// What was asked for.
        what: String,
        /// How much was asked for.
        requested: u64,
        /// The configured limit.
        limit: u64,
    },

    /// A model cannot be written because a value does not fit the format.
    #[error("{format}: cannot encode: {what}")]
    Unencodable {
        /// The format being written.
        format: Format,
        /// What does not fit.
        what: String,
    },

    /// A container (disc image, cue sheet, archive) does not follow its layout; `offset` is the
    /// absolute byte offset in the container file (the image, the cue sheet, the archive).
    #[error("{container}: malformed at byte {offset} (0x{offset:x}): {what}")]
    Container {
        /// The container kind, e.g. `"ISO 9660"`, `"cue sheet"`, `"PBO"`.
        container: &'static str,
        /// Absolute byte offset of the problem.
        offset: u64,
        /// What was expected and what was found.
        what: String,
    },

    /// The caller asked for something the input does not have (a sequence, stream ID, CLUT
    /// row … beyond what exists): neither a malformed input nor a failed conversion. `what`
    /// names the request and lists what exists.
    #[error("{what}")]
    Parameter {
        /// The request and what the input offers instead.
        what: String,
    },

    /// No format could be recognised from the content.
    #[error("unknown format: {0}")]
    UnknownFormat(String),

    /// An option the caller gave does not apply, or its value is out of range (the caller's
    /// fault, not the input's).
    #[error("--{option}: {what}")]
    Option {
        /// The option's name as the command line spells it, without the dashes (`lod`).
        option: &'static str,
        /// What is wrong with it.
        what: String,
    },

    /// An output that the output rule refuses to write ([`crate::output`]): it would replace
    /// a file the run reads, an existing file without `force`, another output of the run, or
    /// something that is not a regular file.
    #[error("{path}: {why}")]
    Refused {
        /// The output's path, control characters escaped.
        path: String,
        /// Why, and what the user can do.
        why: String,
    },

    /// A scene whose parts do not fit together (a dangling index, a count that does not
    /// match): every problem [`crate::scene::Scene::check`] found, each with its path, kept
    /// apart to the end rather than joined into one message.
    #[error("{format}: the scene is inconsistent: {}", joined(problems))]
    InconsistentScene {
        /// The format being written (a scene read from a file that does not fit together is
        /// [`Error::Malformed`]: the input's fault).
        format: Format,
        /// Every problem, in the order found.
        problems: Vec<SceneError>,
    },

    /// A conversion between two formats that retroanim does not offer.
    #[error("cannot convert {from} to {to}: {why}")]
    Conversion {
        /// Source format.
        from: Format,
        /// Requested target format.
        to: Format,
        /// Why not.
        why: String,
    },
}

impl Error {
    /// The absolute byte offset of the problem, when the error has one.
    pub fn offset(&self) -> Option<u64> {
        match self {
            Error::Malformed { offset, .. }
            | Error::Unsupported { offset, .. }
            | Error::Container { offset, .. } => Some(*offset),
            Error::LimitExceeded { offset, .. } => *offset,
            _ => None,
        }
    }
}

/// One inconsistency [`crate::scene::Scene::check`] found, with a JSON-pointer-like path to it
/// (as gltf-json's validation keeps each error's `Path`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SceneError {
    /// Where, e.g. `/meshes/0/primitives/1/normals`.
    pub path: String,
    /// What is wrong.
    pub what: String,
}

impl std::fmt::Display for SceneError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path, self.what)
    }
}

fn joined(problems: &[SceneError]) -> String {
    problems
        .iter()
        .map(|p| p.to_string())
        .collect::<Vec<_>>()
        .join("; ")
}

fn at_byte(offset: Option<u64>) -> String {
    offset.map_or(String::new(), |o| format!(" at byte {o} (0x{o:x})"))
}

/// `Result` with the library error.
pub type Result<T, E = Error> = std::result::Result<T, E>;
