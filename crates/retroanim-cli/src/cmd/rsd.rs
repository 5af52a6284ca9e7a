//! RSD sets in the commands: an `.rsd` input (or one whose text opens with `@RSDnnnnnn`) is
//! read with the PLY, MAT, GRP and TIM files it names, from beside it.

use std::path::Path;

use anyhow::{anyhow, Result};
use retroanim::formats::rsd::{self, RsdSet};
use retroanim::{Format, Issue};

/// Whether `path` names an RSD file: by its extension, by `--from rsd`, or by its first line.
pub fn is_rsd(path: &Path) -> bool {
    if super::forced_format().ok().flatten() == Some(Format::Rsd) {
        return true;
    }
    if path
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("rsd"))
    {
        return true;
    }
    if path == Path::new("-") || !path.is_file() {
        return false;
    }
    let mut head = [0u8; 4096];
    let n = std::fs::File::open(path)
        .and_then(|mut f| std::io::Read::read(&mut f, &mut head))
        .unwrap_or(0);
    rsd::text_kind(&head[..n]) == Some("rsd")
}

/// The RSD set `path` names, when it names one.
pub fn set_of(path: &Path) -> Result<Option<RsdSet>> {
    if !is_rsd(path) {
        return Ok(None);
    }
    let p = path.to_string_lossy();
    rsd::read_set(&p, &retroanim::lab::FsLoader)
        .map(Some)
        .map_err(|e| anyhow!("{e}"))
}

/// The format and validation findings of an input: an RSD set's or a model's.
pub fn issues(path: &Path) -> Result<(Format, Vec<Issue>)> {
    if let Some(set) = set_of(path)? {
        return Ok((Format::Rsd, rsd::validate(&set)));
    }
    let (_, model) = super::load(path)?;
    Ok((model.format(), model.validate()))
}

/// A part of a set: its path, its bytes on disk and the bytes written again.
pub type Part = (String, Vec<u8>, Vec<u8>);

/// An RSD set's files as read and as written again, part by part.
pub fn again(path: &Path, set: &RsdSet) -> Result<Vec<Part>> {
    let dir = path.parent().unwrap_or(Path::new(""));
    let mut out = Vec::new();
    for f in rsd::write_set(set)? {
        let (name, original) = if f.name.is_empty() {
            (path.display().to_string(), crate::io::read_input(path)?)
        } else {
            let found = std::fs::read_dir(if dir.as_os_str().is_empty() {
                Path::new(".")
            } else {
                dir
            })?
            .filter_map(|e| e.ok())
            .find(|e| {
                e.file_name()
                    .to_string_lossy()
                    .eq_ignore_ascii_case(&f.name)
            })
            .ok_or_else(|| anyhow!("{}: {} not found beside it", path.display(), f.name))?;
            (
                found.path().display().to_string(),
                crate::io::read_named(&found.path(), retroanim::Limits::default().max_input_bytes)?,
            )
        };
        out.push((name, original, f.bytes));
    }
    Ok(out)
}

/// An RSD set linked into TMD bytes (what `render` draws), with its TIMs.
pub fn tmd_bytes(set: &RsdSet) -> Result<(Vec<u8>, Vec<retroanim::formats::tim::Tim>)> {
    let linked = rsd::to_tmd(set)?;
    for n in &linked.notes {
        note!("{n}");
    }
    Ok((
        retroanim::formats::tmd::write(&linked.tmd)?,
        set.tims.iter().flatten().cloned().collect(),
    ))
}
