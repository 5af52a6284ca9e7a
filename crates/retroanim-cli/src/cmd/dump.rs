//! `retroanim dump FILE [--json]`.

use anyhow::Result;

use crate::cli::DumpArgs;
use crate::Outcome;

pub fn run(args: &DumpArgs) -> Result<Outcome> {
    let (_, model) = super::load(&args.file)?;
    if args.json {
        outln!("{}", model.to_json()?);
    } else {
        let value = serde_json::to_value(&model)?;
        let mut out = String::new();
        super::render_text(&value, 0, &mut out);
        super::emit(&out)?;
    }
    Ok(Outcome::Clean)
}
