//! `retroanim info FILE... [--json]`.

use anyhow::{Context, Result};
use retroanim::Format;

use crate::cli::InfoArgs;
use crate::Outcome;

pub fn run(args: &InfoArgs) -> Result<Outcome> {
    let inputs = super::batch::expand(&args.files)?;
    if args.json {
        return super::batch::run_json(&inputs, "info", |input| {
            let (bytes, summary, findings) = summary_of(&input.path, true)?;
            let format = summary["format"].as_str().and_then(Format::from_name);
            let mut fields = super::jsonl::fields(summary);
            fields.insert("bytes".into(), bytes.len().into());
            let findings = findings.iter().map(super::jsonl::finding).collect();
            let line =
                super::jsonl::item(&input.path.display().to_string(), format, fields, findings);
            Ok((Outcome::Clean, line))
        });
    }
    let (outcome, _) = super::batch::run::<()>(&inputs, |input| {
        let (bytes, mut summary, _) = summary_of(&input.path, false)?;
        if let Some(map) = summary.as_object_mut() {
            map.insert("bytes".into(), bytes.len().into());
        }
        let mut out = format!("{}\n", input.path.display());
        lod_names_for_text(&mut summary);
        super::render_text(&summary, 1, &mut out);
        super::batch::out(&out)?;
        Ok((Outcome::Clean, None))
    })?;
    Ok(outcome)
}

/// A file's bytes, its summary and its validation findings: a model's own, or for a glTF / GLB
/// file the summary of the scene the importer reads from it (with what it leaves out as
/// `notes`, and no findings).
fn summary_of(
    path: &std::path::Path,
    findings: bool,
) -> Result<(Vec<u8>, serde_json::Value, Vec<retroanim::Issue>)> {
    if let Some(set) = super::rsd::set_of(path)? {
        let issues = if findings {
            retroanim::formats::rsd::validate(&set)
        } else {
            Vec::new()
        };
        return Ok((
            crate::io::read_input(path)?,
            serde_json::to_value(set.summary())?,
            issues,
        ));
    }
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
            Ok((bytes, summary, Vec::new()))
        }
        _ => {
            // The bytes already read (standard input cannot be read twice).
            let model = retroanim::read_as(&bytes, format, &retroanim::Limits::default())
                .with_context(|| path.display().to_string())?;
            let issues = if findings {
                model.validate()
            } else {
                Vec::new()
            };
            Ok((bytes, model.summary(), issues))
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
