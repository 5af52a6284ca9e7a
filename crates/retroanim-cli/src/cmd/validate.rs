//! `retroanim validate FILE...`: exit 0 clean, 1 error findings, 2 unreadable.

use anyhow::Result;
use retroanim::{report::has_errors, Severity};
use serde_json::json;

use crate::cli::ValidateArgs;
use crate::Outcome;

pub fn run(args: &ValidateArgs) -> Result<Outcome> {
    let mut outcome = Outcome::Clean;
    let mut reports = Vec::new();
    for path in &args.files {
        let shown = path.display();
        match super::load(path) {
            Err(e) => {
                outcome = outcome.worst(Outcome::Failed);
                if args.json {
                    reports.push(json!({"path": shown.to_string(), "error": format!("{e:#}")}));
                } else {
                    eprintln!("retroanim: error: {e:#}");
                }
            }
            Ok((_, model)) => {
                let issues = model.validate();
                let errors = issues
                    .iter()
                    .filter(|i| i.severity == Severity::Error)
                    .count();
                let warnings = issues
                    .iter()
                    .filter(|i| i.severity == Severity::Warning)
                    .count();
                if has_errors(&issues) {
                    outcome = outcome.worst(Outcome::Findings);
                }
                if args.json {
                    reports.push(json!({
                        "path": shown.to_string(),
                        "format": model.format(),
                        "errors": errors,
                        "warnings": warnings,
                        "issues": issues,
                    }));
                    continue;
                }
                for i in &issues {
                    if !args.quiet || i.severity == Severity::Error {
                        outln!("{shown}: {i}");
                    }
                }
                let verdict = if errors > 0 { "invalid" } else { "ok" };
                outln!(
                    "{shown}: {verdict} ({}, {errors} errors, {warnings} warnings)",
                    model.format()
                );
            }
        }
    }
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&reports)?);
    }
    Ok(outcome)
}
