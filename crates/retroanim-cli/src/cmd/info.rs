//! `retroanim info FILE... [--json]`.

use anyhow::{Context, Result};
use retroanim::Format;

use crate::cli::InfoArgs;
use crate::Outcome;

pub fn run(args: &InfoArgs) -> Result<Outcome> {
    let inputs = super::batch::expand(&args.files)?;
    let several = inputs.len() > 1;
    let (outcome, summaries) = super::batch::run(&inputs, |input| {
        let (bytes, mut summary) = summary_of(&input.path)?;
        if let Some(map) = summary.as_object_mut() {
            map.insert("bytes".into(), bytes.len().into());
        }
        if args.json {
            if several {
                let mut entry = serde_json::Map::new();
                entry.insert("path".into(), input.path.display().to_string().into());
                if let serde_json::Value::Object(map) = summary {
                    entry.extend(map);
                }
                return Ok((Outcome::Clean, Some(serde_json::Value::Object(entry))));
            }
            outln!("{}", serde_json::to_string_pretty(&summary)?);
        } else {
            let mut out = format!("{}\n", input.path.display());
            lod_names_for_text(&mut summary);
            super::render_text(&summary, 1, &mut out);
            super::batch::out(&out)?;
        }
        Ok((Outcome::Clean, None))
    })?;
    if args.json && several {
        outln!("{}", serde_json::to_string_pretty(&summaries)?);
    }
    Ok(outcome)
}

/// A file's bytes and its summary: a model's own, or for a glTF / GLB file the summary of the
/// scene the importer reads from it (with what it leaves out as `notes`).
fn summary_of(path: &std::path::Path) -> Result<(Vec<u8>, serde_json::Value)> {
    let (bytes, format) = super::input_bytes(path)?;
    match format.or_else(|| retroanim::detect(&bytes)) {
        Some(f @ (Format::Gltf | Format::Glb)) => {
            let imported = retroanim::import::gltf::read(&bytes, &retroanim::Limits::default())
                .with_context(|| path.display().to_string())?;
            let mut summary = serde_json::json!({ "format": f.to_string() });
            if let (Some(map), serde_json::Value::Object(counts)) = (
                summary.as_object_mut(),
                serde_json::to_value(imported.scene.summary())?,
            ) {
                map.extend(counts);
                if !imported.notes.is_empty() {
                    map.insert("notes".into(), imported.notes.into());
                }
            }
            Ok((bytes, summary))
        }
        _ => {
            // The bytes already read (standard input cannot be read twice).
            let model = retroanim::read_as(&bytes, format, &retroanim::Limits::default())
                .with_context(|| path.display().to_string())?;
            Ok((bytes, model.summary()))
        }
    }
}

/// Text output names P3D LODs as modders know them (`resolution: Memory`, not
/// `999999986991104.0`); `--json` keeps the number and the name side by side.
fn lod_names_for_text(summary: &mut serde_json::Value) {
    let Some(lods) = summary.get_mut("lods").and_then(|l| l.as_array_mut()) else {
        return;
    };
    for lod in lods.iter_mut().filter_map(|l| l.as_object_mut()) {
        if let Some(name) = lod.remove("name") {
            lod.insert("resolution".into(), name);
        }
    }
}
