//! `retroanim validate FILE...`: exit 0 clean, 1 error findings, 2 unreadable.

use anyhow::Result;
use retroanim::{report::has_errors, Severity};
use serde_json::json;

use crate::cli::ValidateArgs;
use crate::Outcome;

pub fn run(args: &ValidateArgs) -> Result<Outcome> {
    let inputs = super::batch::expand(&args.files)?;
    let quiet = super::global().quiet;
    let base = super::load_tmd(args.tmd.as_deref())?;
    let issues_of = |path: &std::path::Path| -> Result<(retroanim::Format, Vec<retroanim::Issue>)> {
        let Some(tmd) = &base else {
            return super::rsd::issues(path);
        };
        // --tmd is the base of MIMe differences: checked against it.
        let Some(format) = super::play_mime::diff_format(path)? else {
            anyhow::bail!(
                "{}: --tmd is for MIMe difference files (VDF, NDF: a .vdf/.ndf name or --from vdf|ndf)",
                path.display()
            );
        };
        let d = super::load_diff(Some(path), format)?.expect("a path was given");
        let normals = format == retroanim::Format::Ndf;
        Ok((
            format,
            retroanim::formats::mime::validate(&d, Some(tmd), normals),
        ))
    };
    if args.json {
        return super::batch::run_json(&inputs, "validate", |input| {
            let (format, issues) = issues_of(&input.path)?;
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
        let (format, issues) = issues_of(path)?;
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
