//! `retroanim asm MODEL.LAB -o MODEL.HMD [-I DIR]...`: assemble labp source into an HMD.

use anyhow::{bail, Result};
use retroanim::formats::hmd::lab;

use crate::cli::AsmArgs;
use crate::Outcome;

pub fn run(args: &AsmArgs) -> Result<Outcome> {
    let options = lab::LabOptions {
        include_dirs: args
            .include
            .iter()
            .map(|d| d.to_string_lossy().into_owned())
            .collect(),
        ..lab::LabOptions::default()
    };
    let root = args.file.to_string_lossy().into_owned();
    let bytes = match lab::assemble(&root, &lab::FsLoader, &options) {
        Ok(b) => b,
        // The error names file:line:column and the include chain itself.
        Err(e) => bail!("{e}"),
    };
    crate::io::write_output(&args.output, &bytes, Some(&args.file), args.force)?;
    if args.output != std::path::Path::new("-") {
        eprintln!(
            "{}: {} bytes of HMD written to {}",
            args.file.display(),
            bytes.len(),
            args.output.display()
        );
    }
    Ok(Outcome::Clean)
}
