//! `retroanim patch`: put edited assets back into a disc image, PBO archive or file.

use anyhow::{Context, Result};
use retroanim::patch::{self, Options, Replacement};

use crate::cli::PatchArgs;
use crate::Outcome;

/// Runs `retroanim patch`.
pub fn run(args: &PatchArgs) -> Result<Outcome> {
    let mut reps = Vec::new();
    for pair in args.replace.chunks(2) {
        let [place, file] = pair else {
            anyhow::bail!("--replace takes two values: PLACE NEWFILE");
        };
        let data = std::fs::read(file).with_context(|| format!("{file}: cannot read"))?;
        reps.push(Replacement {
            place: place.clone(),
            data,
        });
    }
    let opts = Options {
        force: args.force,
        dry_run: args.dry_run,
    };
    let done = patch::patch(&args.image, &reps, &args.output, opts)
        .with_context(|| args.image.display().to_string())?;
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
