//! `retroanim info FILE [--json]`.

use anyhow::Result;

use crate::cli::InfoArgs;
use crate::Outcome;

pub fn run(args: &InfoArgs) -> Result<Outcome> {
    let (bytes, model) = super::load(&args.file)?;
    let mut summary = model.summary();
    if let Some(map) = summary.as_object_mut() {
        map.insert("bytes".into(), bytes.len().into());
    }
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&summary)?);
    } else {
        let mut out = format!("{}\n", args.file.display());
        super::render_text(&summary, 1, &mut out);
        super::emit(&out)?;
    }
    Ok(Outcome::Clean)
}
