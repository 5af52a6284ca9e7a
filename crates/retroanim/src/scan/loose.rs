//! Loose files a folder holds that no container could: text (an RSD set) and the formats
//! without a magic number (MIMe VDF / NDF, known by their names, as
//! [`crate::named_without_magic`] says). Each is listed as one find of the whole file, never
//! looked for inside containers or blobs.

use std::path::Path;
use std::sync::Arc;

use super::{Ctx, Find, Link, Source, Status};
use crate::report::Issue;
use crate::{Format, Severity};

/// A loose RSD file (text, so never found inside containers): listed as one find with the set
/// it names read from beside it; true when `path` was one.
pub(super) fn rsd_set(path: &Path, src: &Arc<dyn Source>, cx: &Ctx<'_>) -> bool {
    let mut head = vec![0u8; src.len().min(4096) as usize];
    if src.read_at(0, &mut head).is_err() || crate::formats::rsd::text_kind(&head) != Some("rsd") {
        return false;
    }
    let name = path.to_string_lossy();
    let set = match crate::formats::rsd::read_set(&name, &crate::lab::FsLoader) {
        Ok(s) => s,
        Err(e) => {
            cx.sink.error(cx.path, e);
            return true;
        }
    };
    let issues = crate::formats::rsd::validate(&set);
    list(
        src,
        cx,
        Format::Rsd,
        serde_json::to_string(&set.summary()).ok(),
        issues,
    );
    true
}

/// A loose `.vdf` / `.ndf` file whose bytes begin no format retroanim knows and read as MIMe
/// differences: listed as one find (its base TMD is paired by [`crate::assemble`]); true when
/// `path` was one. A file so named that does not read as one is scanned as any other file.
pub(super) fn diff_file(path: &Path, src: &Arc<dyn Source>, cx: &Ctx<'_>) -> bool {
    let Some(format) = crate::named_without_magic(path)
        .filter(|f| matches!(f, Format::Vdf | Format::Ndf) && cx.opts.formats.contains(f))
    else {
        return false;
    };
    let len = src.len();
    if len > cx.opts.max_asset || !cx.take(len) {
        return false;
    }
    let mut bytes = vec![0u8; len as usize];
    if src.read_at(0, &mut bytes).is_err() || crate::detect(&bytes).is_some() {
        return false;
    }
    let Ok(d) = crate::formats::mime::read_with(&bytes, format, &cx.opts.limits) else {
        return false;
    };
    let issues = crate::formats::mime::validate(&d, None, format == Format::Ndf);
    let summary = serde_json::to_string(&d.summary(format)).ok();
    list(src, cx, format, summary, issues);
    true
}

/// Lists a loose file as one find of `format` (an error when its validation finds one).
fn list(
    src: &Arc<dyn Source>,
    cx: &Ctx<'_>,
    format: Format,
    summary: Option<String>,
    issues: Vec<Issue>,
) {
    if let Some(e) = issues.iter().find(|i| i.severity == Severity::Error) {
        cx.sink.error(
            cx.path,
            crate::Error::Malformed {
                format,
                offset: e.offset,
                what: e.message.clone(),
            },
        );
        return;
    }
    let Some(summary) = summary.and_then(|t| serde_json::value::RawValue::from_string(t).ok())
    else {
        return;
    };
    let warnings = issues.len();
    if let Ok(mut v) = cx.sink.finds.lock() {
        v.push(Find {
            path: cx.path.to_string(),
            container: cx.path.to_string(),
            offset: 0,
            image_offset: None,
            format,
            size: src.len(),
            summary,
            status: if warnings == 0 {
                Status::Clean
            } else {
                Status::Warnings
            },
            warnings,
            ok: true,
            findings: issues,
            size_exact: true,
            mapped_address: None,
            lenient: None,
            tmd_candidates: None,
            contains: Vec::new(),
            source: Some(src.clone()),
            link: Link::None,
        });
    }
}
