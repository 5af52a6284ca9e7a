//! `retroanim asm MODEL.LAB -o MODEL.HMD [-I DIR]...`: assemble labp source into an HMD.

use std::cell::RefCell;
use std::path::PathBuf;

use anyhow::{bail, Result};
use retroanim::lab;

use crate::cli::AsmArgs;
use crate::Outcome;

/// The file-system loader, remembering every file it read (the source and its includes), so
/// the output never replaces one of them without `--force`.
struct Recording {
    read: RefCell<Vec<PathBuf>>,
}

impl lab::Loader for Recording {
    fn read(&self, path: &str, max_bytes: u64) -> std::io::Result<Option<Vec<u8>>> {
        let r = lab::FsLoader.read(path, max_bytes)?;
        if r.is_some() {
            self.read.borrow_mut().push(PathBuf::from(path));
        }
        Ok(r)
    }

    fn list(&self, dir: &str) -> std::io::Result<Vec<String>> {
        lab::FsLoader.list(dir)
    }

    fn canonical(&self, path: &str) -> Option<String> {
        lab::FsLoader.canonical(path)
    }
}

pub fn run(args: &AsmArgs) -> Result<Outcome> {
    let options = lab::LabOptions {
        include_dirs: args
            .include
            .iter()
            .map(|d| d.to_string_lossy().into_owned())
            .collect(),
        ..lab::LabOptions::default()
    };
    // A binary asset is not LAB source: say what it is, as `disasm` and `play` do.
    let named = args.file != std::path::Path::new("-");
    if let Some(head) = named
        .then(|| crate::io::read_input(&args.file).ok())
        .flatten()
    {
        if let Some(found) = retroanim::detect(&head).filter(|f| *f != retroanim::Format::Lab) {
            bail!(
                "{}: a {found} file; asm takes LAB source (`retroanim disasm` turns an HMD into LAB)",
                crate::io::shown_path(&args.file)
            );
        }
    }
    let root = args.file.to_string_lossy().into_owned();
    let loader = Recording {
        read: RefCell::new(Vec::new()),
    };
    let bytes = match lab::assemble(&root, &loader, &options) {
        Ok(b) => b,
        // The error names file:line:column and the include chain itself.
        Err(e) => bail!("{e}"),
    };
    let read = loader.read.into_inner();
    let mut inputs: Vec<&std::path::Path> = vec![&args.file];
    inputs.extend(read.iter().map(PathBuf::as_path));
    crate::io::write_output(&args.output, &bytes, &inputs, args.force)?;
    super::wrote(&args.output, "hmd", bytes.len(), &args.file);
    Ok(Outcome::Clean)
}
