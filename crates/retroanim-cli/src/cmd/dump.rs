//! `retroanim dump FILE... [--json]`: prints each file's whole typed model. Text: a `path`
//! heading before each dump when there are several files. `--json`: one line per file
//! `{"path", "format", "ok", "model": {...}, "findings": [...]}` and a summary line; the output
//! (or any one line of it) reads back with `convert dump.jsonl out.tod`, as the library's
//! JSON dump reader takes a line's `format` and `model`.

use anyhow::Result;

use crate::cli::DumpArgs;
use crate::Outcome;

pub fn run(args: &DumpArgs) -> Result<Outcome> {
    let inputs = super::batch::expand(&args.files)?;
    if args.json {
        return super::batch::run_json(&inputs, "dump", |input| {
            let (_, model) = super::load(&input.path)?;
            let findings = model.validate().iter().map(super::jsonl::finding).collect();
            // The model serializes as `{"format", "model"}`: its `model` becomes the field.
            let mut fields = super::jsonl::fields(serde_json::to_value(&model)?);
            fields.remove("format");
            let line = super::jsonl::item(
                &input.path.display().to_string(),
                Some(model.format()),
                fields,
                findings,
            );
            Ok((Outcome::Clean, line))
        });
    }
    let several = inputs.len() > 1;
    let (outcome, _) = super::batch::run(&inputs, |input| {
        let (_, model) = super::load(&input.path)?;
        let value = serde_json::to_value(&model)?;
        let (mut out, indent) = if several {
            (format!("{}\n", input.path.display()), 1)
        } else {
            (String::new(), 0)
        };
        super::render_text(&value, indent, &mut out);
        super::batch::out(&out)?;
        Ok((Outcome::Clean, None::<()>))
    })?;
    Ok(outcome)
}
