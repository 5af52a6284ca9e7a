//! `retroanim patch`: put edited assets back into a disc image, PBO archive or file.

use anyhow::{Context, Result};
use retroanim::patch::{self, Options, Replacement};

use crate::cli::PatchArgs;
use crate::Outcome;

/// Runs `retroanim patch`.
pub fn run(args: &PatchArgs) -> Result<Outcome> {
    let mut reps = Vec::new();
    for (place, file) in pairs(args)? {
        let limit = retroanim::Limits::default().max_input_bytes;
        let data = crate::io::read_named(std::path::Path::new(file), limit)
            .with_context(|| format!("--replace {place}"))?;
        reps.push(Replacement {
            place: place.clone(),
            data,
        });
    }
    let opts = Options {
        force: args.force,
        dry_run: args.dry_run,
        replace: args.force,
    };
    let done = patch::patch(&args.image, &reps, &args.output, opts)
        .with_context(|| args.image.display().to_string());
    if args.json {
        return json_lines(args, done);
    }
    let done = done?;
    for n in &done.notes {
        note!("{n}");
    }
    let verb = if args.dry_run { "would put" } else { "put" };
    for c in &done.changes {
        outln!(
            "{}: {verb} {} bytes in place of a {} of {} bytes: {}",
            c.place,
            c.new_size,
            c.format,
            c.old_size,
            c.how
        );
    }
    if args.dry_run {
        outln!("dry run: nothing written");
    } else if !super::global().quiet {
        let files: Vec<String> = done
            .written
            .iter()
            .map(|p| p.display().to_string())
            .collect();
        outln!("wrote {}", files.join(" and "));
    }
    Ok(Outcome::Clean)
}

/// The `--replace PLACE NEWFILE` pairs.
fn pairs(args: &PatchArgs) -> Result<Vec<(&String, &String)>> {
    args.replace
        .chunks(2)
        .map(|pair| match pair {
            [place, file] => Ok((place, file)),
            _ => anyhow::bail!("--replace takes two values: PLACE NEWFILE"),
        })
        .collect()
}

/// `--json`: one line per replacement (`path` the new file, `place`, the `format` found there,
/// `old_size`, `new_size`, `how`), or one failure line for the image; then the summary with
/// `image`, `dry_run`, `written`, `grown` and the `notes`.
fn json_lines(args: &PatchArgs, done: Result<patch::Patched>) -> Result<Outcome> {
    use super::jsonl;
    let mut tally = jsonl::Tally::default();
    let mut extra = serde_json::Map::new();
    extra.insert("image".into(), args.image.display().to_string().into());
    extra.insert("dry_run".into(), args.dry_run.into());
    let result = match done {
        Ok(done) => {
            // One change per replacement, in the order given.
            let files = pairs(args)?;
            for (i, c) in done.changes.iter().enumerate() {
                let path = match files.get(i) {
                    Some((_, f)) if done.changes.len() == files.len() => f.to_string(),
                    _ => c.place.clone(),
                };
                let fields = jsonl::fields(serde_json::json!({
                    "place": c.place,
                    "old_size": c.old_size,
                    "new_size": c.new_size,
                    "how": c.how,
                }));
                let line = jsonl::item(&path, Some(c.format), fields, Vec::new());
                tally.add(&line);
                outln!("{}", serde_json::to_string(&line)?);
            }
            let written: Vec<String> = done
                .written
                .iter()
                .map(|p| p.display().to_string())
                .collect();
            extra.insert("written".into(), written.into());
            extra.insert("grown".into(), done.grown.into());
            extra.insert("notes".into(), done.notes.into());
            Ok(Outcome::Clean)
        }
        Err(e) => {
            let line = jsonl::failure(&args.image.display().to_string(), &e);
            tally.add(&line);
            outln!("{}", serde_json::to_string(&line)?);
            Err(e)
        }
    };
    outln!("{}", serde_json::to_string(&tally.summary("patch", extra))?);
    result
}
