//! `retroanim info FILE... [--json]`.

use anyhow::Result;

use crate::cli::InfoArgs;
use crate::Outcome;

pub fn run(args: &InfoArgs) -> Result<Outcome> {
    let inputs = super::batch::expand(&args.files)?;
    let several = inputs.len() > 1;
    let (outcome, summaries) = super::batch::run(&inputs, |input| {
        let (bytes, model) = super::load(&input.path)?;
        let mut summary = model.summary();
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
