//! `retroanim validate FILE...`: exit 0 clean, 1 error findings, 2 unreadable.

use anyhow::Result;
use retroanim::{report::has_errors, Severity};
use serde_json::json;

use crate::cli::ValidateArgs;
use crate::Outcome;

pub fn run(args: &ValidateArgs) -> Result<Outcome> {
    let inputs = super::batch::expand(&args.files)?;
    let quiet = super::global().quiet;
    if args.json {
        return super::batch::run_json(&inputs, "validate", |input| {
            let (format, issues) = super::rsd::issues(&input.path)?;
            let count = |s: Severity| issues.iter().filter(|i| i.severity == s).count();
            let fields = super::jsonl::fields(json!({
                "errors": count(Severity::Error),
                "warnings": count(Severity::Warning),
                "infos": count(Severity::Info),
            }));
            let line = super::jsonl::item(
                &input.path.display().to_string(),
                Some(format),
                fields,
                issues.iter().map(super::jsonl::finding).collect(),
            );
            Ok((verdict(&issues), line))
        });
    }
    let (outcome, _) = super::batch::run::<()>(&inputs, |input| {
        let path = &input.path;
        let shown = path.display();
        let (format, issues) = super::rsd::issues(path)?;
        let count = |s: Severity| issues.iter().filter(|i| i.severity == s).count();
        let (errors, warnings) = (count(Severity::Error), count(Severity::Warning));
        for i in &issues {
            if !quiet || i.severity == Severity::Error {
                outln!("{shown}: {i}");
            }
        }
        if !quiet || errors > 0 {
            let verdict = if errors > 0 { "invalid" } else { "ok" };
            outln!(
                "{shown}: {verdict} ({}, {errors} errors, {warnings} warnings)",
                format
            );
        }
        Ok((verdict(&issues), None))
    })?;
    Ok(outcome)
}

/// Exit 1 when any finding is an error.
fn verdict(issues: &[retroanim::Issue]) -> Outcome {
    if has_errors(issues) {
        Outcome::Findings
    } else {
        Outcome::Clean
    }
}
