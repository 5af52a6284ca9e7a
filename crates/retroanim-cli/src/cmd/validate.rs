//! `retroanim validate FILE...`: exit 0 clean, 1 error findings, 2 unreadable.

use anyhow::Result;
use retroanim::{report::has_errors, Severity};
use serde_json::json;

use crate::cli::ValidateArgs;
use crate::Outcome;

pub fn run(args: &ValidateArgs) -> Result<Outcome> {
    let inputs = super::batch::expand(&args.files)?;
    let quiet = super::global().quiet;
    let (outcome, reports) = super::batch::run(&inputs, |input| {
        let path = &input.path;
        let shown = path.display();
        let model = match super::load(path) {
            Err(e) if args.json && !is_skip(input, &e) => {
                errln!("retroanim: error: {}", crate::shown_error(&e));
                let report = json!({"path": shown.to_string(), "error": format!("{e:#}")});
                return Ok((Outcome::Failed, Some(report)));
            }
            Err(e) => return Err(e),
            Ok((_, model)) => model,
        };
        let issues = model.validate();
        let count = |s: Severity| issues.iter().filter(|i| i.severity == s).count();
        let (errors, warnings) = (count(Severity::Error), count(Severity::Warning));
        let outcome = if has_errors(&issues) {
            Outcome::Findings
        } else {
            Outcome::Clean
        };
        if args.json {
            let report = json!({
                "path": shown.to_string(),
                "format": model.format(),
                "errors": errors,
                "warnings": warnings,
                "issues": issues,
            });
            return Ok((outcome, Some(report)));
        }
        for i in &issues {
            if !quiet || i.severity == Severity::Error {
                outln!("{shown}: {i}");
            }
        }
        if !quiet || errors > 0 {
            let verdict = if errors > 0 { "invalid" } else { "ok" };
            outln!(
                "{shown}: {verdict} ({}, {errors} errors, {warnings} warnings)",
                model.format()
            );
        }
        Ok((outcome, None))
    })?;
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&reports)?);
    }
    Ok(outcome)
}

/// Whether an error is one a batch skips (a file of no known format found in a folder).
fn is_skip(input: &super::batch::Input, e: &anyhow::Error) -> bool {
    input.root.is_some()
        && e.chain().any(|c| {
            matches!(
                c.downcast_ref::<retroanim::Error>(),
                Some(retroanim::Error::UnknownFormat(_))
            )
        })
}
