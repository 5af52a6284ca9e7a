//! `retroanim dump FILE... [--json]`: one file prints its model (JSON with `--json`, which
//! `convert dump.json out.tod` reads back); several files print a `path` heading before each
//! text dump, or, with `--json`, one line per file `{"path": ..., "model": {...}}` (JSON Lines).

use anyhow::Result;

use crate::cli::DumpArgs;
use crate::Outcome;

pub fn run(args: &DumpArgs) -> Result<Outcome> {
    let inputs = super::batch::expand(&args.files)?;
    let several = inputs.len() > 1;
    let (outcome, _) = super::batch::run(&inputs, |input| {
        let (_, model) = super::load(&input.path)?;
        if args.json && several {
            let line = serde_json::json!({
                "path": input.path.display().to_string(),
                "model": &model,
            });
            outln!("{}", serde_json::to_string(&line)?);
        } else if args.json {
            outln!("{}", model.to_json()?);
        } else {
            let value = serde_json::to_value(&model)?;
            let (mut out, indent) = if several {
                (format!("{}\n", input.path.display()), 1)
            } else {
                (String::new(), 0)
            };
            super::render_text(&value, indent, &mut out);
            super::batch::out(&out)?;
        }
        Ok((Outcome::Clean, None::<()>))
    })?;
    Ok(outcome)
}
