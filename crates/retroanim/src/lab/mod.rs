//! LAB: the text form of HMD that Sony's `labp` assembled and `xhmd` produced (Data Conversion
//! Utilities manual, "LABP" pp. 2-16..2-18 and "XHMD" pp. 2-50..2-51), both ways:
//! [`assemble`] turns LAB source into HMD bytes, [`disassemble`] turns HMD bytes into LAB source
//! that assembles back to the same bytes.
//!
//! # The language
//!
//! Sony ran the C preprocessor over a `.LAB` file and piped the result into `labp`. We do both
//! in one pass over tokens, so errors name the line and column of the source file (labp 1.10
//! did the same) and the chain of `#include`s that led there.
//!
//! **Preprocessor subset** (module `pp`): `/* */` and `//` comments, `\` line splicing,
//! `#include "f"` / `#include <f>`, `#define` object- and function-like (with `#` and `##`),
//! `#undef`, `#if` / `#ifdef` / `#ifndef` / `#elif` / `#else` / `#endif` (with `defined`, C
//! precedence, 64-bit integers), `#error`, and `#pragma` / `#line` / `#` (ignored). Macro
//! expansion follows the C standard's rescanning with hide sets (a macro is not expanded
//! inside its own expansion).
//!
//! **labp** (module `asm`): statements end with `;`; `Name:` defines a label at the current
//! byte address (the first item is address 0), also inside an item where a word can stand
//! (`H(Name: 4)`, a macro argument that becomes `(Name: 0)`), naming the item's address; an item is an expression (a 32-bit word),
//! `W(x)`, `H(x)` (16 bits), `B(x)` (8 bits) or `M(item)` (the item with its most significant
//! bit set); `RotMatrix(rx, ry, rz)` emits the nine halfwords of libgte's rotation matrix and a
//! pad halfword. Expressions hold decimal and `0x` numbers, labels (byte addresses, hence the
//! `/ 4` of every word pointer), parentheses, unary `-` `~` `+` and binary `* /`, `+ -`, `&`,
//! `|` (in that order of precedence).
//!
//! **Definitions**: `#include <hmd/hmd.def>` (any folder, any case) that is found neither beside
//! the including file nor in an include folder resolves to the project's own definitions file
//! (`hmd.def` beside this module), written from the layouts in `notes/hmd_layouts.md` and the
//! File Formats manual: the same names the samples use, equivalent values.
//!
//! # Readings taken
//! - **Operator precedence is C's**: the manual (written for labp 1.00) says labp has none and
//!   evaluates left to right, but its 1.10 notes fix "the intensity of operator combination",
//!   and `BASIC/DICE/DICE.LAB` writes `TSB(0, 0, 640+5*32/4, 0)` where only C's precedence
//!   gives the texture page stored in `DICE.HMD`. `hmd.def` parenthesises everything anyway.
//! - **32-bit arithmetic**: values are C `long`s of a 32-bit machine: wrapping two's complement,
//!   `/` truncates toward zero. `B` and `H` accept values that fit signed or unsigned (−128..255,
//!   −32768..65535); anything else is an error rather than a silent truncation.
//! - **Numbers** with a leading zero are decimal (labp knows decimal and `0x` only), in `#if` too.
//! - **RotMatrix** is labp's, not the console's: the corpus matrices (21 distinct angle triples,
//!   three with two or three axes) match the libgte formula M = Rx·Ry·Rz with the table
//!   `round(4096·sin)` and every product divided by 4096 *truncating toward zero*, i.e. the
//!   console's formula computed with C division on the host; the console's arithmetic shifts
//!   ([`crate::formats::gte::rot_matrix`]) differ in the last place for negative products.
//!   `VectorNormalS` (also a labp built-in, used by no sample) is reported as unsupported.
//! - **Include search**: beside the including file, then each include folder in order, then the
//!   built-in `hmd.def`; every path component matches case-insensitively (the samples were
//!   written on DOS: `"sphere.inc"` names `SPHERE.INC`). A file that includes itself through the
//!   chain is an error (C would recurse until its nesting limit).
//! - **Macro redefinition** replaces the old definition silently (the samples' `MAC.DEF` files
//!   include `hmd.def` a second time).
//! - Source bytes are read as Latin-1, so comments in any 8-bit encoding pass through.
//!
//! # Limits
//! [`LabOptions`] bounds include depth and count, file size, the tokens the preprocessor may
//! produce (which bounds macro bombs), macro nesting, expression nesting and the output size;
//! exceeding one is a [`LabError`] with its position, never a hang or an abort.

mod asm;
mod cond;
mod disasm;
mod lex;
mod pp;

use std::fmt;

pub use disasm::{disassemble, disassemble_bytes};

/// The project's own `hmd.def` (the definitions the samples include as `<hmd/hmd.def>`).
pub const HMD_DEF: &str = include_str!("hmd.def");

// Where the assembler (and the RSD reader) finds files: one level down, in `input`, so a
// format can read its companion files without importing the assembler.
pub use crate::input::{FsLoader, Loader};

/// A [`Loader`] over files held in memory, keyed by `/`-separated path (tests, fuzzing, the
/// Python layer).
#[derive(Debug, Clone, Default)]
pub struct MemLoader {
    files: std::collections::BTreeMap<String, Vec<u8>>,
}

impl MemLoader {
    /// An empty file set.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds (or replaces) a file.
    pub fn insert(&mut self, path: &str, data: impl Into<Vec<u8>>) -> &mut Self {
        self.files.insert(path.to_string(), data.into());
        self
    }
}

impl Loader for MemLoader {
    fn read(&self, path: &str, max_bytes: u64) -> std::io::Result<Option<Vec<u8>>> {
        match self.files.get(path) {
            Some(d) if d.len() as u64 > max_bytes => Err(std::io::Error::other(format!(
                "{path} is larger than {max_bytes} bytes"
            ))),
            Some(d) => Ok(Some(d.clone())),
            None => Ok(None),
        }
    }

    fn canonical(&self, _: &str) -> Option<String> {
        // No links in memory: the lexical check is the whole check.
        None
    }

    fn list(&self, dir: &str) -> std::io::Result<Vec<String>> {
        let prefix = if dir.is_empty() {
            String::new()
        } else {
            format!("{}/", dir.trim_end_matches('/'))
        };
        let mut out: Vec<String> = self
            .files
            .keys()
            .filter_map(|k| k.strip_prefix(&prefix))
            .map(|rest| rest.split('/').next().unwrap_or(rest).to_string())
            .collect();
        out.dedup();
        Ok(out)
    }
}

/// Options and limits of [`assemble`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LabOptions {
    /// Folders searched for `#include`d files after the including file's own folder (`-I`).
    pub include_dirs: Vec<String>,
    /// Whether `hmd.def` not found on disk resolves to the built-in [`HMD_DEF`].
    pub builtin_hmd_def: bool,
    /// Deepest `#include` nesting.
    pub max_include_depth: u32,
    /// Most `#include`s processed in total.
    pub max_includes: u32,
    /// Largest source file, in bytes.
    pub max_file_bytes: u64,
    /// Most tokens the preprocessor may produce (bounds macro bombs and memory).
    pub max_tokens: u64,
    /// Deepest nesting of macro arguments being expanded, and of parentheses in expressions.
    pub max_nesting: u32,
    /// Largest output, in bytes.
    pub max_output_bytes: u64,
    /// Most hide-set names macro expansion may record (each expansion records the macros it
    /// came through): bounds the memory and time of deep macro chains.
    pub max_expansion: u64,
    /// Most source bytes read in all, the root file and every `#include` (a file included
    /// twice counts twice).
    pub max_source_bytes: u64,
}

impl Default for LabOptions {
    fn default() -> Self {
        LabOptions {
            include_dirs: Vec::new(),
            builtin_hmd_def: true,
            max_include_depth: 32,
            max_includes: 4096,
            max_file_bytes: 64 << 20,
            max_tokens: 1 << 22,
            max_nesting: 200,
            max_output_bytes: 64 << 20,
            max_expansion: 1 << 24,
            max_source_bytes: 128 << 20,
        }
    }
}

/// What kind of problem a [`LabError`] reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum LabErrorKind {
    /// The text does not follow the LAB / preprocessor syntax.
    Syntax,
    /// A label or macro argument that is not defined, or a label defined twice.
    Label,
    /// An `#include` that cannot be found or read, or that includes itself.
    Include,
    /// A value that does not fit its item, or a division by zero.
    Value,
    /// A [`LabOptions`] limit was reached.
    Limit,
    /// A labp feature retroanim does not implement.
    Unsupported,
    /// `#error` in the source.
    User,
}

/// One step of an include chain: the file and the position of the `#include` line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IncludedFrom {
    /// The including file.
    pub file: String,
    /// 1-based line of the `#include`.
    pub line: u32,
    /// 1-based column of the `#include`.
    pub column: u32,
}

/// A problem in LAB source, with where it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LabError {
    /// What kind of problem.
    pub kind: LabErrorKind,
    /// The file (as named by the caller or the `#include` that opened it).
    pub file: String,
    /// 1-based line.
    pub line: u32,
    /// 1-based column (in bytes).
    pub column: u32,
    /// The chain of includes that led to `file`, innermost first.
    pub included_from: Vec<IncludedFrom>,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for LabError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use crate::text::escape;
        write!(
            f,
            "{}:{}:{}: {}",
            escape(&self.file),
            self.line,
            self.column,
            self.message
        )?;
        for inc in &self.included_from {
            write!(
                f,
                "\n  included from {}:{}:{}",
                escape(&inc.file),
                inc.line,
                inc.column
            )?;
        }
        Ok(())
    }
}

impl std::error::Error for LabError {}

/// Assembles the LAB file `root` (a path the `loader` understands) into HMD bytes.
pub fn assemble(
    root: &str,
    loader: &dyn Loader,
    options: &LabOptions,
) -> Result<Vec<u8>, LabError> {
    let unit = pp::preprocess(root, loader, options)?;
    asm::assemble(&unit, options)
}

/// Assembles LAB text held in memory (named `name` in errors); includes resolve beside `name`
/// through `loader`.
pub fn assemble_str(
    name: &str,
    text: &str,
    loader: &dyn Loader,
    options: &LabOptions,
) -> Result<Vec<u8>, LabError> {
    let unit = pp::preprocess_text(name, text.as_bytes(), loader, options)?;
    asm::assemble(&unit, options)
}
