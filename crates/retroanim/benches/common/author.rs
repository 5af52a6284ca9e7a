//! The corpus's TODs and HMDs exported to GLB, ready to author back: what the bench `author`
//! and the example `author_times` time (the example includes this file by path).
//!
//! Every distinct TOD (with the TMD of its folder, or of a sibling `TMD` folder, that holds
//! every TMD ID it uses) and every distinct HMD of the manifest is exported to GLB with default
//! options; authoring is `convert X.glb Y.tod` / `Y.hmd` with default options.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use retroanim::convert::{self, Options, TodInput};
use retroanim::{Format, Model};

#[path = "../../tests/common/tod_model.rs"]
mod tod_model;

/// One corpus file exported to GLB.
pub struct Case {
    /// Its path below the corpus folder.
    pub name: String,
    /// The manifest's `repo` column: the collection it comes from.
    pub collection: String,
    /// `TOD+TMD`, `TOD` (no model found) or `HMD`.
    pub what: &'static str,
    /// What authoring writes: [`Format::Tod`] or [`Format::Hmd`].
    pub to: Format,
    /// The export.
    pub glb: Vec<u8>,
}

/// The manifest's files of `kind` with their `repo` column (empty without a manifest).
pub fn files(dir: &Path, kind: &str) -> Vec<(PathBuf, String)> {
    let manifest = std::fs::read_to_string(dir.join("MANIFEST.tsv")).unwrap_or_default();
    manifest
        .lines()
        .filter_map(|l| {
            let mut cols = l.split('\t');
            let path = cols.next()?;
            (cols.next()? == kind).then(|| (dir.join(path), cols.next().unwrap_or("").into()))
        })
        .collect()
}

/// Exports every distinct corpus TOD, then HMD, whose path holds `only`, handing each export to
/// `each` (one at a time: only what `each` keeps stays in memory). Returns the export failures.
pub fn for_each_case(dir: &Path, only: &str, mut each: impl FnMut(Case)) -> Vec<String> {
    let tmds = files(dir, "TMD");
    let mut failed = Vec::new();
    let mut seen = BTreeSet::new();
    for (path, collection) in files(dir, "TOD").into_iter().chain(files(dir, "HMD")) {
        if !path.to_string_lossy().contains(only) {
            continue;
        }
        let Ok(bytes) = std::fs::read(&path) else {
            continue;
        };
        if !seen.insert(bytes.clone()) {
            continue;
        }
        let name = path
            .strip_prefix(dir)
            .unwrap_or(&path)
            .display()
            .to_string();
        let (model, to, what) = match retroanim::read_any(&bytes) {
            Ok(Model::Tod(t)) => {
                let tmd = tod_model::model_for(&path, &t, tmds.iter().map(|(p, _)| p.as_path()));
                let what = if tmd.is_some() { "TOD+TMD" } else { "TOD" };
                let opts = Options {
                    tod: TodInput {
                        tmd,
                        ..TodInput::default()
                    },
                    ..Options::default()
                };
                (
                    convert::convert(&Model::Tod(t), Format::Glb, &opts),
                    Format::Tod,
                    what,
                )
            }
            Ok(m @ Model::Hmd(_)) => (
                convert::convert(&m, Format::Glb, &Options::default()),
                Format::Hmd,
                "HMD",
            ),
            _ => continue,
        };
        match model {
            Ok(out) => each(Case {
                name,
                collection,
                what,
                to,
                glb: out.bytes,
            }),
            Err(e) => failed.push(format!("{name}: export: {e}")),
        }
    }
    failed
}

/// Authors `glb` as `to` with default options: the file's bytes, or the error.
pub fn author(glb: &[u8], to: Format) -> Result<Vec<u8>, String> {
    convert::convert_bytes(glb, None, to, &Options::default())
        .map(|c| c.bytes)
        .map_err(|e| e.to_string())
}

/// [`author`]'s wall time, or the error.
pub fn time_author(glb: &[u8], to: Format) -> Result<Duration, String> {
    let t = Instant::now();
    author(glb, to)?;
    Ok(t.elapsed())
}
