//! What a scan is asked ([`ScanOptions`]) and what it gives ([`Report`], [`Find`] and the
//! records beside them), re-exported from [`super`].

use std::sync::Arc;

use serde::Serialize;

use super::blob::Stats;
use super::lenient;
use super::savestate::SavestateVram;
use super::source::Source;
use crate::error::{Error, Result};
use crate::{Format, Limits};

/// What to look for and how.
#[derive(Clone)]
pub struct ScanOptions {
    /// Formats to look for (default: TOD, HMD, TMD, TIM, P3D).
    pub formats: Vec<Format>,
    /// Only offsets that are a multiple of this (within the file that holds them) are tried.
    pub align: u64,
    /// Finds smaller than this many bytes are dropped.
    pub min_size: u64,
    /// Largest asset read (bytes); bounds the memory of one candidate.
    pub max_asset: u64,
    /// Limits for the readers.
    pub limits: Limits,
    /// Address of the first byte of each container scanned, for memory dumps that do not start
    /// at physical address 0 (`scan --base`); `None`: inferred ([`super::ram`]).
    pub base: Option<u64>,
    /// Called with the number of bytes each finished chunk covered (for a progress bar).
    pub progress: Arc<dyn Fn(u64) + Send + Sync>,
    /// Read the files symbolic links inside a scanned folder point to outside it (`scan
    /// --follow-links`); without it such a link is listed as skipped, not read.
    pub follow_links: bool,
    /// Cuts the TIMs a savestate's VRAM holds for the finds of its RAM, as soon as they are
    /// made (`crate::assemble::savestate_vram_cutter`), so the VRAM is released then instead of
    /// being kept in [`Report::vram`] for the whole scan. `None`: the VRAM is kept.
    pub vram_cutter: Option<VramCutter>,
}

/// See [`ScanOptions::vram_cutter`]: a savestate's VRAM and the finds of its RAM in, the TIM
/// finds cut from the VRAM out.
pub type VramCutter = Arc<dyn Fn(&SavestateVram, &[Find]) -> Vec<Find> + Send + Sync>;

impl std::fmt::Debug for ScanOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScanOptions")
            .field("formats", &self.formats)
            .field("align", &self.align)
            .field("min_size", &self.min_size)
            .field("max_asset", &self.max_asset)
            .finish_non_exhaustive()
    }
}

impl Default for ScanOptions {
    fn default() -> Self {
        ScanOptions {
            formats: SCANNABLE.to_vec(),
            align: 4,
            min_size: 0,
            max_asset: 32 << 20,
            limits: Limits {
                max_items: 1 << 20,
                max_bytes: 64 << 20,
                max_steps: 1 << 20,
                ..Limits::default()
            },
            base: None,
            progress: Arc::new(|_| {}),
            follow_links: false,
            vram_cutter: None,
        }
    }
}

/// The formats the scanner can find. VDF and NDF have no magic number: they are found only as
/// loose files in a folder, by their names ([`crate::named_without_magic`]).
pub const SCANNABLE: [Format; 11] = [
    Format::Tod,
    Format::Hmd,
    Format::Tmd,
    Format::Tim,
    Format::P3d,
    Format::Pmd,
    Format::Clt,
    Format::Pxl,
    Format::Rtm,
    Format::Vdf,
    Format::Ndf,
];

impl ScanOptions {
    /// Options from the values a caller gives (the CLI's `--formats`, `--align` and
    /// `--min-size`, the Python `scan()` arguments), checked in one place: format names
    /// (`tod`, `tmd`, … as [`Format::from_name`] reads them) must be [`SCANNABLE`] — none given
    /// means all of them — and `align` must be at least 1. The other fields keep their
    /// defaults. Errors are [`Error::Option`], naming the option as the CLI spells it.
    pub fn new<S: AsRef<str>>(formats: &[S], align: u64, min_size: u64) -> Result<ScanOptions> {
        let mut opts = ScanOptions::default();
        if !formats.is_empty() {
            opts.formats.clear();
            for name in formats {
                let name = name.as_ref();
                match Format::from_name(name) {
                    Some(f) if SCANNABLE.contains(&f) => {
                        if !opts.formats.contains(&f) {
                            opts.formats.push(f);
                        }
                    }
                    _ => {
                        return Err(Error::Option {
                            option: "formats",
                            what: format!(
                                "{name:?}: the scanner finds {}",
                                SCANNABLE.map(|f| f.name()).join(", ")
                            ),
                        })
                    }
                }
            }
        }
        if align == 0 {
            return Err(Error::Option {
                option: "align",
                what: "0: give 1 (every byte) or more".into(),
            });
        }
        opts.align = align;
        opts.min_size = min_size;
        Ok(opts)
    }

    /// The first bytes a candidate of a wanted format can start with.
    pub(super) fn first_bytes(&self) -> [bool; 256] {
        let mut t = [false; 256];
        for f in &self.formats {
            match f {
                Format::Tim => t[0x10] = true,
                Format::Tmd => t[0x41] = true,
                Format::Pmd => t[0x42] = true,
                Format::Pxl => t[0x11] = true,
                Format::Clt => t[0x12] = true,
                Format::Tod | Format::Hmd => t[0x50] = true,
                Format::P3d => {
                    t[b'M' as usize] = true;
                    t[b'O' as usize] = true;
                }
                Format::Rtm => t[b'R' as usize] = true,
                _ => {}
            }
        }
        t
    }
}

/// A find's validation state (finds with errors are not accepted).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// No finding.
    Clean,
    /// Warnings only.
    Warnings,
}

/// A TMD that could be a TOD's model, as [`crate::assemble::models`] ranks it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TmdCandidate {
    /// The input path it was found under.
    pub path: String,
    /// Its container.
    pub container: String,
    /// Its offset in the container.
    pub offset: u64,
    /// Its size in bytes.
    pub size: u64,
    /// Its object count.
    pub objects: usize,
    /// Confidence 0..1 that it is the TOD's model; below 0.5 it is a candidate to show, not
    /// a model to use.
    pub confidence: f64,
}

/// A find inside another.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Nested {
    /// Format.
    pub format: Format,
    /// Offset in the container (not in the parent).
    pub offset: u64,
    /// Size.
    pub size: u64,
}

/// One asset found.
#[derive(Debug, Clone, Serialize)]
pub struct Find {
    /// The input path it was found under.
    pub path: String,
    /// The file holding it: the input, or `input:/PATH/IN/IMAGE` (nested as needed).
    pub container: String,
    /// Byte offset in the container.
    pub offset: u64,
    /// Byte offset of its first byte in the disc image file, when it is in one.
    pub image_offset: Option<u64>,
    /// Format.
    pub format: Format,
    /// Size in bytes, from its own structure.
    pub size: u64,
    /// Summary as `retroanim info --json` gives it, kept as JSON text: a parsed value costs
    /// ten times its text in memory, and a disc holds thousands of finds.
    pub summary: Box<serde_json::value::RawValue>,
    /// Validation state.
    pub status: Status,
    /// Number of validation warnings.
    pub warnings: usize,
    /// Always true: a candidate with a finding of severity error is not accepted as a find.
    /// There for the one JSON shape of `--json` outputs (`docs/json.md`).
    pub ok: bool,
    /// Its validation findings (infos and warnings).
    pub findings: Vec<crate::Issue>,
    /// False when the size could not be known from the asset's own structure (an embedded HMD
    /// whose last section nothing measures): it runs to the end of its container. Written to
    /// JSON only when false.
    #[serde(skip_serializing_if = "is_true")]
    pub size_exact: bool,
    /// An HMD found mapped in place in a RAM dump (`GsMapUnit`): the address of its first
    /// byte. [`Find::bytes`] gives the file it was, pointers turned back into offsets.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mapped_address: Option<u32>,
    /// A damaged length field read as the data shows it (counted in `warnings`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lenient: Option<lenient::Fix>,
    /// TOD only: TMD finds that could be its model, best first, each with its confidence.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tmd_candidates: Option<Vec<TmdCandidate>>,
    /// Finds inside this one.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub contains: Vec<Nested>,
    #[serde(skip)]
    pub(super) source: Option<Arc<dyn Source>>,
    /// TOD: TMD IDs its packets set; TMD: object count.
    #[serde(skip)]
    pub(super) link: Link,
}

#[derive(Debug, Clone, Default)]
pub(crate) enum Link {
    #[default]
    None,
    Tod(Vec<u32>),
    Tmd(usize),
}

/// A file listed but not scanned (audio track, video stream, packed archive entry).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Skipped {
    /// Where.
    pub container: String,
    /// Bytes.
    pub size: u64,
    /// Why.
    pub reason: String,
}

/// Entries skipped but not listed one by one.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Unlisted {
    /// How many.
    pub count: u64,
    /// Their bytes in all.
    pub bytes: u64,
}

/// A container that could not be walked.
#[derive(Debug)]
pub struct ContainerError {
    /// Where.
    pub container: String,
    /// What went wrong (with its byte offset).
    pub error: Error,
}

/// Everything one scan found.
#[derive(Debug, Default)]
pub struct Report {
    /// Finds, by input, container and offset.
    pub finds: Vec<Find>,
    /// Files listed but not scanned: at most [`super::MAX_SKIPPED_LISTED`], the first by
    /// container name; the others are counted in [`Report::skipped_unlisted`].
    pub skipped: Vec<Skipped>,
    /// Files not scanned beyond those [`Report::skipped`] lists: how many, and their bytes.
    pub skipped_unlisted: Unlisted,
    /// Containers that could not be walked (the rest of the scan went on).
    pub errors: Vec<ContainerError>,
    /// Counters.
    pub stats: Stats,
    /// The VRAM of each savestate scanned (its RAM is scanned as `STATE:/RAM`): a texture
    /// source for the models found there, as `retroanim scan --vram` makes a VRAM dump one
    /// (`crate::assemble::add_savestate_vram` cuts it into TIM finds). Its bytes are empty when
    /// [`ScanOptions::vram_cutter`] cut them during the scan.
    pub vram: Vec<SavestateVram>,
    /// Wall-clock seconds.
    pub seconds: f64,
}

impl Report {
    /// The scan's totals as the CLI's last `--json` line holds them: `finds`, `formats` (count
    /// per format name), `bytes_scanned`, `seconds`, `mb_per_second`, `candidates`, `rejected`,
    /// `rejected_by` (count per format and reason),
    /// `skipped`, `skipped_unlisted` (`count`, `bytes` of the skipped entries not listed) and
    /// `errors` (container, byte offset, message).
    pub fn summary(&self) -> serde_json::Value {
        use std::sync::atomic::Ordering::Relaxed;
        let mut formats: std::collections::BTreeMap<&str, usize> = Default::default();
        for f in &self.finds {
            *formats.entry(f.format.name()).or_default() += 1;
        }
        let bytes = self.stats.bytes.load(Relaxed);
        let severity = |s: crate::Severity| {
            self.finds
                .iter()
                .flat_map(|f| &f.findings)
                .filter(|i| i.severity == s)
                .count()
        };
        // The counts every `--json` summary has (docs/json.md): a line per find and per
        // container that could not be read.
        serde_json::json!({
            "command": "scan",
            "items": self.finds.len() + self.errors.len(),
            "ok": self.finds.iter().filter(|f| f.ok).count(),
            "invalid": self.finds.iter().filter(|f| !f.ok).count(),
            "failed": self.errors.len(),
            "findings": {
                "error": severity(crate::Severity::Error),
                "warning": severity(crate::Severity::Warning),
                "info": severity(crate::Severity::Info),
            },
            "finds": self.finds.len(),
            "formats": formats,
            "bytes_scanned": bytes,
            "seconds": self.seconds,
            "mb_per_second": bytes as f64 / 1e6 / self.seconds.max(1e-9),
            "candidates": self.stats.candidates.load(Relaxed),
            "rejected": self.stats.rejected.load(Relaxed),
            "rejected_by": self.stats.rejected_by.lock().map(|m| m.clone()).unwrap_or_default(),
            "bytes_in_holes": self.stats.holes.load(Relaxed),
            "skipped": self.skipped,
            "skipped_unlisted": self.skipped_unlisted,
            "errors": self.errors.iter().map(|e| serde_json::json!({
                "container": e.container,
                "offset": e.error.offset(),
                "error": e.error.to_string(),
            })).collect::<Vec<_>>(),
        })
    }
}

fn is_true(b: &bool) -> bool {
    *b
}
