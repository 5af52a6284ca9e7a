//! `retroanim disasm MODEL.HMD [-o MODEL.LAB]`: an HMD as labp source (standard output by
//! default) that `retroanim asm` turns back into the same bytes.

use anyhow::{Context, Result};
use retroanim::formats::hmd::lab;

use crate::cli::DisasmArgs;
use crate::Outcome;

pub fn run(args: &DisasmArgs) -> Result<Outcome> {
    let bytes = crate::io::read_input(&args.file)?;
    let text = lab::disassemble_bytes(&bytes).with_context(|| args.file.display().to_string())?;
    match &args.output {
        Some(out) => crate::io::write_output(out, text.as_bytes(), Some(&args.file), args.force)?,
        None => super::emit(&text)?,
    }
    Ok(Outcome::Clean)
}
