//! One file per command; `run` dispatches.

/// `println!` for command output: a closed pipe (`retroanim ... | head`) ends the output quietly
/// instead of panicking; any other write error is an error.
macro_rules! outln {
    ($($arg:tt)*) => {
        $crate::cmd::batch::out(&format!("{}\n", format_args!($($arg)*)))?
    };
}

/// `eprintln!` for messages about one file, kept with that file's output in a batch.
macro_rules! errln {
    ($($arg:tt)*) => {
        $crate::cmd::batch::err(&format!("{}\n", format_args!($($arg)*)))
    };
}

/// A `note:` line, unless `--quiet`.
macro_rules! note {
    ($($arg:tt)*) => {
        if !$crate::cmd::global().quiet {
            errln!("retroanim: note: {}", format_args!($($arg)*));
        }
    };
}

mod asm;
mod batch;
mod convert;
mod disasm;
mod dump;
mod info;
mod jsonl;
mod patch;
mod play;
mod play_hmd;
mod play_mime;
mod play_rtm;
mod render;
mod roundtrip;
mod rsd;
mod scan;
mod stream;
mod validate;

use std::path::Path;
use std::sync::OnceLock;

use anyhow::{anyhow, Context, Result};
use retroanim::{Format, Model};

use crate::cli::{Cli, Command, Global};
use crate::Outcome;

static GLOBAL: OnceLock<Global> = OnceLock::new();

/// The options every command takes (set once, before the command runs).
pub fn global() -> &'static Global {
    GLOBAL.get_or_init(Global::default)
}

/// The format `--from` forces, if any.
pub fn forced_format() -> Result<Option<Format>> {
    match &global().from {
        None => Ok(None),
        Some(name) => match Format::from_name(name) {
            Some(f) if !matches!(f, Format::Gltf | Format::Glb | Format::Png) => Ok(Some(f)),
            _ => Err(anyhow!(
                "--from {name}: not a format retroanim reads (tod, hmd, tmd, tim, p3d, rtm, mdd, pc2, json, lab)"
            )),
        },
    }
}

/// Runs a parsed command line.
pub fn run(cli: Cli) -> Result<Outcome> {
    let _ = GLOBAL.set(cli.global.clone());
    forced_format()?;
    match cli.command {
        Command::Info(a) => info::run(&a),
        Command::Dump(a) => dump::run(&a),
        Command::Validate(a) => validate::run(&a),
        Command::Roundtrip(a) => roundtrip::run(&a),
        Command::Convert(a) => convert::run(&a),
        Command::Play(a) => play::run(&a),
        Command::Completions(a) => {
            let mut cmd = <Cli as clap::CommandFactory>::command();
            let mut out = Vec::new();
            clap_complete::generate(a.shell, &mut cmd, "retroanim", &mut out);
            emit(&String::from_utf8_lossy(&out))?;
            Ok(Outcome::Clean)
        }
        Command::Man(a) => {
            let mut cmd = <Cli as clap::CommandFactory>::command();
            if let Some(name) = &a.command {
                // Built, it lists `help` too, as the main page does.
                cmd.build();
                let Some(sub) = cmd.find_subcommand(name).cloned() else {
                    let names: Vec<String> = cmd
                        .get_subcommands()
                        .map(|c| c.get_name().to_string())
                        .collect();
                    anyhow::bail!("man {name}: no such command; one of {}", names.join(", "));
                };
                // The page's name is the one the main page's SEE ALSO gives (clap takes a
                // static name; this runs once, just before the process ends).
                let page: &'static str = Box::leak(format!("retroanim-{name}").into_boxed_str());
                cmd = sub.name(page);
            }
            let mut out = Vec::new();
            clap_mangen::Man::new(cmd)
                .render(&mut out)
                .context("cannot render the manual page")?;
            emit(&String::from_utf8_lossy(&out))?;
            Ok(Outcome::Clean)
        }
        Command::Asm(a) => asm::run(&a),
        Command::Disasm(a) => disasm::run(&a),
        Command::Scan(a) => scan::run(&a),
        Command::Patch(a) => patch::run(&a),
        Command::Render(a) => render::run(&a),
    }
}

/// Reads and parses one input, naming the path in any error.
pub fn load(path: &Path) -> Result<(Vec<u8>, Model)> {
    let (bytes, format) = input_bytes(path)?;
    let model = retroanim::read_as(&bytes, format, &retroanim::Limits::default())
        .with_context(|| path.display().to_string())?;
    Ok((bytes, model))
}

/// The bytes of an input and the format to read them as (`None`: detect). LAB source — named by
/// `--from lab` or a `.lab` file name, since text has no magic number — is assembled first
/// (includes beside the file, then the built-in `hmd.def`), giving HMD bytes. A `.vdf`, `.ndf`
/// or `.clt` file whose bytes begin no known format is read as its name says.
pub fn input_bytes(path: &Path) -> Result<(Vec<u8>, Option<Format>)> {
    let forced = forced_format()?;
    let is_lab = path
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("lab"));
    if forced == Some(Format::Lab) || (forced.is_none() && is_lab) {
        use retroanim::lab;
        let root = path.to_string_lossy().into_owned();
        let bytes = lab::assemble(&root, &lab::FsLoader, &lab::LabOptions::default())
            .map_err(|e| anyhow!("{e}"))?;
        return Ok((bytes, Some(Format::Hmd)));
    }
    let bytes = crate::io::read_input(path)?;
    // Formats without a magic number (a VDF, an NDF, a headerless CLT palette) are read as
    // their file's name says when the bytes begin no format retroanim knows.
    if forced.is_none() && retroanim::detect(&bytes).is_none() {
        if let Some(named) = retroanim::named_without_magic(path) {
            return Ok((bytes, Some(named)));
        }
    }
    Ok((bytes, forced))
}

/// `--weights K=W,...` (`play` and `render` of a VDF/NDF) as one weight per key of a file with
/// `keys` blocks (keys not named 0).
pub fn mime_weights(list: &[String], keys: usize) -> Result<Vec<i32>> {
    let mut w = vec![0; keys];
    for item in list {
        let bad = || anyhow!("--weights {item}: expected KEY=WEIGHT (4096 = 1.0), e.g. 0=4096");
        let (k, v) = item.split_once('=').ok_or_else(bad)?;
        let k: usize = k.trim().parse().map_err(|_| bad())?;
        let v: i32 = v.trim().parse().map_err(|_| bad())?;
        let slot = w.get_mut(k).ok_or_else(|| {
            anyhow!("--weights {item}: key {k}, but the file has {keys} blocks (keys 0..{keys})")
        })?;
        *slot = v;
    }
    Ok(w)
}

/// Reads the TMD named by `--tmd`, if any.
pub fn load_tmd(path: Option<&Path>) -> Result<Option<retroanim::formats::tmd::Tmd>> {
    let Some(path) = path else { return Ok(None) };
    match load(path)? {
        (_, Model::Tmd(t)) => Ok(Some(t)),
        (_, m) => anyhow::bail!(
            "{}: a {} file; --tmd needs a TMD model",
            path.display(),
            m.format()
        ),
    }
}

/// Reads the VDF or NDF named by `--vdf` / `--ndf` (these files have no magic number: read as
/// `format`).
pub fn load_diff(
    path: Option<&Path>,
    format: Format,
) -> Result<Option<retroanim::formats::mime::Diff>> {
    let Some(path) = path else { return Ok(None) };
    let limits = retroanim::Limits::default();
    let data = retroanim::input::read_file(path, limits.max_input_bytes)
        .with_context(|| path.display().to_string())?;
    retroanim::formats::mime::read_with(&data, format, &limits)
        .map(Some)
        .with_context(|| format!("{} (read as {format})", path.display()))
}

/// Reads the P3D an option names (`--p3d`), if any.
pub fn load_p3d(path: Option<&Path>, flag: &str) -> Result<Option<retroanim::formats::p3d::P3d>> {
    let Some(path) = path else { return Ok(None) };
    match load(path)? {
        (_, Model::P3d(p)) => Ok(Some(p)),
        (_, m) => anyhow::bail!(
            "{}: a {} file; {flag} needs a P3D model",
            path.display(),
            m.format()
        ),
    }
}

/// Reads the skeletons (`CfgSkeletons`) of the `model.cfg` `--skeleton` names, if any.
pub fn load_skeletons(
    path: Option<&Path>,
    limit: u64,
) -> Result<Option<Vec<retroanim::formats::rtm::Skeleton>>> {
    let Some(path) = path else { return Ok(None) };
    let bytes = crate::io::read_named(path, limit).with_context(|| path.display().to_string())?;
    // model.cfg is 8-bit text (Latin-1 where not ASCII): each byte is its character.
    let text: String = bytes.iter().map(|&b| char::from(b)).collect();
    retroanim::formats::rtm::skeleton::parse_model_cfg(&text)
        .map(Some)
        .with_context(|| path.display().to_string())
}

/// Reads the TIMs named by `--tim`, in order.
pub fn load_tims(paths: &[std::path::PathBuf]) -> Result<Vec<retroanim::formats::tim::Tim>> {
    paths
        .iter()
        .map(|path| match load(path)? {
            (_, Model::Tim(t)) => Ok(t),
            (_, m) => anyhow::bail!(
                "{}: a {} file; --tim needs a TIM",
                path.display(),
                m.format()
            ),
        })
        .collect()
}

/// Reads the TODs named by `--after`, in order.
pub fn load_tods(paths: &[std::path::PathBuf]) -> Result<Vec<retroanim::formats::tod::Tod>> {
    paths
        .iter()
        .map(|path| match load(path)? {
            (_, Model::Tod(t)) => Ok(t),
            (_, m) => anyhow::bail!(
                "{}: a {} file; --after needs a TOD",
                path.display(),
                m.format()
            ),
        })
        .collect()
}

/// Renders a JSON value as indented `key: value` text, for the human forms of `info` and `dump`.
pub fn render_text(v: &serde_json::Value, indent: usize, out: &mut String) {
    use serde_json::Value;
    let pad = "  ".repeat(indent);
    match v {
        Value::Object(map) => {
            for (k, v) in map {
                if is_scalar_or_short(v) {
                    out.push_str(&format!(
                        "{pad}{}: {}\n",
                        retroanim::text::escape(k),
                        inline(v)
                    ));
                } else {
                    out.push_str(&format!("{pad}{}:\n", retroanim::text::escape(k)));
                    render_text(v, indent + 1, out);
                }
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                if is_scalar_or_short(v) {
                    out.push_str(&format!("{pad}- {}\n", inline(v)));
                } else {
                    out.push_str(&format!("{pad}[{i}]\n"));
                    render_text(v, indent + 1, out);
                }
            }
        }
        v => out.push_str(&format!("{pad}{}\n", inline(v))),
    }
}

fn is_scalar_or_short(v: &serde_json::Value) -> bool {
    use serde_json::Value;
    match v {
        Value::Array(a) => a.iter().all(|x| match x {
            Value::Array(inner) => inner.iter().all(|y| !y.is_object() && !y.is_array()),
            Value::Object(_) => false,
            _ => true,
        }),
        Value::Object(m) => m.is_empty(),
        _ => true,
    }
}

fn inline(v: &serde_json::Value) -> String {
    match v {
        // Names from inputs (textures, selections, labels) may hold control characters.
        serde_json::Value::String(s) => retroanim::text::escape(s),
        v => v.to_string(),
    }
}

/// Writes to standard output; a closed pipe (`| head`) ends quietly.
pub(crate) fn emit(s: &str) -> Result<()> {
    use std::io::Write;
    match std::io::stdout().lock().write_all(s.as_bytes()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        r => r.context("cannot write to standard output"),
    }
}

/// The success line every command that writes a file prints on standard error (unless
/// `--quiet`, or the output is standard output): `retroanim: wrote OUT (WHAT, N bytes) from IN`.
pub fn wrote(output: &Path, what: &str, bytes: usize, from: &Path) {
    if global().quiet || output == Path::new("-") {
        return;
    }
    errln!(
        "retroanim: wrote {} ({what}, {bytes} bytes) from {}",
        crate::io::shown_path(output),
        crate::io::shown_path(from)
    );
}

/// `--frames` as every command reads it (`play`, `render`), as Rust writes ranges: `A..B`
/// excludes B, `A..=B` includes it; `A..` runs to the end and `..B` starts at 0. Returns the
/// first and the last frame, both included (`None` for the last: to the end).
pub fn frame_range(s: &str) -> Result<(u32, Option<u32>)> {
    let bad = |why: &str| anyhow!("--frames {s}: {why} (A..B excludes B, A..=B includes it)");
    let (a, b) = s.split_once("..").ok_or_else(|| bad("expected A..B"))?;
    let (b, inclusive) = match b.strip_prefix('=') {
        Some(b) => (b, true),
        None => (b, false),
    };
    let number = |v: &str| -> Result<Option<u32>> {
        let v = v.trim();
        if v.is_empty() {
            return Ok(None);
        }
        v.parse()
            .map(Some)
            .map_err(|_| bad(&format!("{v:?} is not a frame number")))
    };
    let first = number(a)?.unwrap_or(0);
    let last = match (number(b)?, inclusive) {
        (None, true) => return Err(bad("..= needs an end")),
        (None, false) => None,
        (Some(b), true) => Some(b),
        (Some(b), false) => Some(b.checked_sub(1).ok_or_else(|| bad("the range is empty"))?),
    };
    if last.is_some_and(|l| l < first) {
        return Err(bad("the range is empty"));
    }
    Ok((first, last))
}
