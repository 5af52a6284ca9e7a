//! retroanim reads, checks, writes, plays back and converts the 3D animation data of old game
//! engines: PlayStation TOD animations, TMD models and TIM textures, with more formats joining
//! the same shape.
//!
//! Each format has a faithful model in [`formats`] that round-trips byte for byte:
//!
//! ```
//! use retroanim::formats::tod::{self, Coordinate, Frame, Header, ObjectControl, Packet, PacketData, Tod};
//!
//! let anim = Tod {
//!     header: Header { version: 0, resolution: 2 },
//!     frames: vec![Frame {
//!         number: 0,
//!         packets: vec![
//!             Packet::new(1, PacketData::ObjectControl(ObjectControl::Create)),
//!             Packet::new(1, PacketData::Coordinate(Coordinate {
//!                 translation: Some([0, -100, 0]),
//!                 ..Coordinate::default()
//!             })),
//!         ],
//!         extra_words: vec![],
//!         size_override: None,
//!     }],
//!     trailing: vec![],
//! };
//! let bytes = tod::write(&anim)?;
//! assert_eq!(tod::read(&bytes)?, anim);
//! assert!(tod::validate(&anim).is_empty());
//! # Ok::<(), retroanim::Error>(())
//! ```
//!
//! [`read_any`] detects the format from the content and returns a [`Model`].

#![forbid(unsafe_code)]

pub mod assemble;
pub mod bytes;
pub mod convert;
mod detect;
mod error;
pub mod export;
pub mod formats;
pub mod gallery;
pub mod import;
pub mod input;
pub mod lab;
mod limits;
pub mod output;
pub mod pairing;
pub mod patch;
pub mod render;
pub mod report;
pub mod scan;
pub mod scene;
pub mod text;
pub mod vram;

pub use detect::{detect, named_without_magic, plausible_start, Format};
pub use error::{Error, Result};
pub use limits::Limits;
pub use report::{Issue, Severity};

use serde::{Deserialize, Serialize};

/// A file read into its format's model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "format", content = "model", rename_all = "lowercase")]
#[non_exhaustive]
pub enum Model {
    /// A TOD animation.
    Tod(formats::tod::Tod),
    /// A TMD model.
    Tmd(formats::tmd::Tmd),
    /// A TIM texture.
    Tim(formats::tim::Tim),
    /// An Operation Flashpoint / Arma model (MLOD, or ODOL version 7).
    P3d(formats::p3d::P3d),
    /// An MDD point cache.
    Mdd(formats::mdd::Mdd),
    /// A PC2 point cache.
    Pc2(formats::pc2::Pc2),
    /// An HMD model / animation.
    Hmd(formats::hmd::Hmd),
    /// A PMD model.
    Pmd(formats::pmd::Pmd),
    /// A CLT palette.
    Clt(formats::clt::Clt),
    /// A PXL image.
    Pxl(formats::pxl::Pxl),
    /// A MIMe vertex difference file.
    Vdf(formats::mime::Diff),
    /// A MIMe normal difference file.
    Ndf(formats::mime::Diff),
    /// An Operation Flashpoint / Arma skeletal animation.
    Rtm(formats::rtm::Rtm),
}

impl Model {
    /// The format of this model.
    pub fn format(&self) -> Format {
        match self {
            Model::Tod(_) => Format::Tod,
            Model::Tmd(_) => Format::Tmd,
            Model::Tim(_) => Format::Tim,
            Model::P3d(_) => Format::P3d,
            Model::Mdd(_) => Format::Mdd,
            Model::Pc2(_) => Format::Pc2,
            Model::Hmd(_) => Format::Hmd,
            Model::Pmd(_) => Format::Pmd,
            Model::Clt(_) => Format::Clt,
            Model::Pxl(_) => Format::Pxl,
            Model::Vdf(_) => Format::Vdf,
            Model::Ndf(_) => Format::Ndf,
            Model::Rtm(_) => Format::Rtm,
        }
    }

    /// Writes the model in its own format.
    pub fn write(&self) -> Result<Vec<u8>> {
        match self {
            Model::Tod(t) => formats::tod::write(t),
            Model::Tmd(t) => formats::tmd::write(t),
            Model::Tim(t) => formats::tim::write(t),
            Model::P3d(p) => formats::p3d::write(p),
            Model::Mdd(m) => formats::mdd::write(m),
            Model::Pc2(p) => formats::pc2::write(p),
            Model::Hmd(h) => formats::hmd::write(h),
            Model::Pmd(p) => formats::pmd::write(p),
            Model::Clt(c) => formats::clt::write(c),
            Model::Pxl(p) => formats::pxl::write(p),
            Model::Vdf(d) | Model::Ndf(d) => formats::mime::write(d),
            Model::Rtm(r) => formats::rtm::write(r),
        }
    }

    /// Every validation finding. A model that cannot be written back in its own format (one
    /// read from a JSON dump whose arrays disagree, say) also has an `unwritable` error with
    /// the writer's message: every command that needs its bytes refuses it the same way.
    pub fn validate(&self) -> Vec<Issue> {
        let mut issues = self.format_findings();
        if let Err(e) = self.write() {
            issues.push(Issue::error(
                e.offset().unwrap_or(0),
                "unwritable",
                e.to_string(),
            ));
        }
        issues
    }

    /// [`Model::validate`] for a model read from bytes (what the scanner finds): such a model
    /// writes back by construction (every reader's fuzz target asserts that what reads writes
    /// back identically), so the writer is not run to check it.
    pub(crate) fn validate_read(&self) -> Vec<Issue> {
        debug_assert!(self.write().is_ok(), "a model read from bytes writes");
        self.format_findings()
    }

    fn format_findings(&self) -> Vec<Issue> {
        match self {
            Model::Tod(t) => formats::tod::validate(t),
            Model::Tmd(t) => formats::tmd::validate(t),
            Model::Tim(t) => formats::tim::validate(t),
            Model::P3d(p) => formats::p3d::validate(p),
            Model::Mdd(m) => formats::mdd::validate(m),
            Model::Pc2(p) => formats::pc2::validate(p),
            Model::Hmd(h) => formats::hmd::validate(h),
            Model::Pmd(p) => formats::pmd::validate(p),
            Model::Clt(c) => formats::clt::validate(c),
            Model::Pxl(p) => formats::pxl::validate(p),
            Model::Vdf(d) => formats::mime::validate(d, None, false),
            Model::Ndf(d) => formats::mime::validate(d, None, true),
            Model::Rtm(r) => formats::rtm::validate(r),
        }
    }

    /// The summary `retroanim info` shows, as JSON.
    pub fn summary(&self) -> serde_json::Value {
        let v = match self {
            Model::Tod(t) => serde_json::to_value(t.summary()),
            Model::Tmd(t) => serde_json::to_value(t.summary()),
            Model::Tim(t) => serde_json::to_value(t.summary()),
            Model::P3d(p) => serde_json::to_value(p.summary()),
            Model::Mdd(m) => serde_json::to_value(m.summary()),
            Model::Pc2(p) => serde_json::to_value(p.summary()),
            Model::Hmd(h) => serde_json::to_value(h.summary()),
            Model::Pmd(p) => serde_json::to_value(p.summary()),
            Model::Clt(c) => serde_json::to_value(c.summary()),
            Model::Pxl(p) => serde_json::to_value(p.summary()),
            Model::Vdf(d) => serde_json::to_value(d.summary(Format::Vdf)),
            Model::Ndf(d) => serde_json::to_value(d.summary(Format::Ndf)),
            Model::Rtm(r) => serde_json::to_value(r.summary()),
        };
        v.unwrap_or_else(|e| serde_json::json!({ "error": e.to_string() }))
    }

    /// The whole model as JSON (`retroanim dump --json`): `{"format": ..., "model": ...}`.
    pub fn to_json(&self) -> Result<String> {
        serde_json::to_string_pretty(self).map_err(|e| Error::Unencodable {
            format: Format::Json,
            what: e.to_string(),
        })
    }

    /// Reads a model back from its JSON dump: `{"format": ..., "model": ...}`, or the JSON Lines
    /// `retroanim dump --json` prints for one file (its item line holds `format` and `model`
    /// among other fields; the summary line that follows is passed over).
    pub fn from_json(data: &[u8]) -> Result<Model> {
        let malformed = |offset: usize, what: String| Error::Malformed {
            format: Format::Json,
            offset: offset as u64,
            what,
        };
        let mut values = serde_json::Deserializer::from_slice(data).into_iter::<Model>();
        let model = match values.next() {
            Some(Ok(m)) => m,
            None => return Err(malformed(0, "no JSON value".into())),
            Some(Err(e)) => {
                let offset = line_column_offset(data, e.line(), e.column());
                return Err(malformed(offset as usize, e.to_string()));
            }
        };
        // What follows may only be the summary line of `dump --json`.
        let rest_at = values.byte_offset();
        let mut rest =
            serde_json::Deserializer::from_slice(&data[rest_at..]).into_iter::<serde_json::Value>();
        while let Some(v) = rest.next() {
            let at = rest_at + rest.byte_offset();
            match v {
                Ok(serde_json::Value::Object(m)) if m.len() == 1 && m.contains_key("summary") => {}
                Ok(_) => {
                    return Err(malformed(
                        at,
                        "a second model after the first: a JSON dump holds one (split the lines of `dump --json`, one file each)".into(),
                    ))
                }
                Err(e) => return Err(malformed(at, e.to_string())),
            }
        }
        Ok(model)
    }
}

fn line_column_offset(data: &[u8], line: usize, column: usize) -> u64 {
    if line == 0 {
        return 0;
    }
    let mut off = 0usize;
    for (i, l) in data.split(|&b| b == b'\n').enumerate() {
        if i + 1 == line {
            return (off + column.saturating_sub(1).min(l.len())) as u64;
        }
        off += l.len() + 1;
    }
    data.len() as u64
}

/// Reads any supported file, detecting its format from the content.
pub fn read_any(data: &[u8]) -> Result<Model> {
    read_any_with(data, &Limits::default())
}

/// [`read_any`] with explicit limits.
pub fn read_any_with(data: &[u8], limits: &Limits) -> Result<Model> {
    read_as(data, None, limits)
}

/// Reads `data` as `format` when given (the caller knows better than detection, e.g. for a
/// damaged file whose magic is gone), else as the format detected from the content.
pub fn read_as(data: &[u8], format: Option<Format>, limits: &Limits) -> Result<Model> {
    match format.or_else(|| detect(data)) {
        Some(Format::Tod) => formats::tod::read_with(data, limits).map(Model::Tod),
        Some(Format::Tmd) => formats::tmd::read_with(data, limits).map(Model::Tmd),
        Some(Format::Tim) => formats::tim::read_with(data, limits).map(Model::Tim),
        Some(Format::P3d) => formats::p3d::read_with(data, limits).map(Model::P3d),
        Some(Format::Mdd) => formats::mdd::read_with(data, limits).map(Model::Mdd),
        Some(Format::Pc2) => formats::pc2::read_with(data, limits).map(Model::Pc2),
        Some(Format::Hmd) => formats::hmd::read_with(data, limits).map(Model::Hmd),
        Some(Format::Pmd) => formats::pmd::read_with(data, limits).map(Model::Pmd),
        // Named by the caller: a headerless palette reads too.
        Some(Format::Clt) if format.is_some() => {
            formats::clt::read_raw(data, limits).map(Model::Clt)
        }
        Some(Format::Clt) => formats::clt::read_with(data, limits).map(Model::Clt),
        Some(Format::Pxl) => formats::pxl::read_with(data, limits).map(Model::Pxl),
        Some(Format::Vdf) => formats::mime::read_with(data, Format::Vdf, limits).map(Model::Vdf),
        Some(Format::Ndf) => formats::mime::read_with(data, Format::Ndf, limits).map(Model::Ndf),
        Some(Format::Rtm) => formats::rtm::read_with(data, limits).map(Model::Rtm),
        Some(Format::Json) => Model::from_json(data),
        Some(Format::Rsd) => Err(Error::Unsupported {
            format: Format::Rsd,
            offset: 0,
            feature: "an RSD file names the PLY, MAT and GRP files of its set: read the set with formats::rsd::read_set".into(),
        }),
        Some(other) => Err(Error::Unsupported {
            format: other,
            offset: 0,
            feature: format!("reading {other} files is not implemented yet"),
        }),
        None => match detect::detect_damaged(data) {
            Some(Format::Tmd) => formats::tmd::read_with(data, limits).map(Model::Tmd),
            Some(Format::Mdd) => formats::mdd::read_with(data, limits).map(Model::Mdd),
            _ => Err(Error::UnknownFormat(
                "no known magic number or structure at the start of the file".into(),
            )),
        },
    }
}
