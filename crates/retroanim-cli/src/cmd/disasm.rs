//! `retroanim disasm MODEL.HMD [-o MODEL.LAB]`: an HMD as labp source (standard output by
//! default) that `retroanim asm` turns back into the same bytes.

use anyhow::{Context, Result};
use retroanim::lab;

use crate::cli::DisasmArgs;
use crate::Outcome;

pub fn run(args: &DisasmArgs) -> Result<Outcome> {
    let bytes = crate::io::read_input(&args.file)?;
    // Another format's magic: say what the file is, as `play` does, not "hmd: malformed at 0".
    if let Some(found) = retroanim::detect(&bytes).filter(|f| *f != retroanim::Format::Hmd) {
        anyhow::bail!(
            "{}: a {found} file; disasm takes an HMD (`retroanim dump` shows any file's model)",
            args.file.display()
        );
    }
    let text = lab::disassemble_bytes(&bytes).with_context(|| args.file.display().to_string())?;
    match &args.output {
        Some(out) => {
            crate::io::write_output(out, text.as_bytes(), &[&args.file], args.force)?;
            super::wrote(out, "lab", text.len(), &args.file);
        }
        None => super::emit(&text)?,
    }
    Ok(Outcome::Clean)
}
