//! `retroanim convert IN OUT [--to FMT]` and `retroanim convert IN... --out-dir DIR [--to FMT]
//! [--no-pair]`: without --to each input goes to [`convert::natural_target`], paired by
//! [`retroanim::assemble`] (the pairing printed as notes); inputs with no such conversion are
//! skipped and counted.
//!
//! Argument parsing and printing only: the options become a [`retroanim::convert::Options`],
//! the library converts and says what it left out; this prints its notes and a one-line
//! success message. The large point-cache cases go through [`retroanim::convert::stream`] with
//! one frame in memory.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Context, Result};
use retroanim::convert::{self, stream, Options};
use retroanim::output::Role;
use retroanim::{Format, Model};

use crate::cli::{Axes, ConvertArgs, Rest};
use crate::Outcome;

pub fn run(args: &ConvertArgs) -> Result<Outcome> {
    let opts = options(args)?;
    let Some(dir) = &args.out_dir else {
        let [input, output] = &args.paths[..] else {
            bail!(
                "convert takes IN OUT (one input, one output), or inputs with --out-dir DIR --to FMT"
            );
        };
        if args.json && output == Path::new("-") {
            bail!("--json prints the report on standard output: name an output file instead of -");
        }
        let target = target_format(args.to.as_deref(), Some(output))?;
        let input = super::batch::Input {
            path: input.clone(),
            root: None,
        };
        return each(std::slice::from_ref(&input), args, |_| {
            Ok(Some((output.clone(), target, opts.clone(), Vec::new())))
        });
    };
    let to = args
        .to
        .as_deref()
        .map(|t| target_format(Some(t), None))
        .transpose()?;
    let inputs = super::batch::expand(&args.paths)?;
    // Every input of the run (and every file an option names) is one no output replaces.
    crate::io::run_inputs(inputs.iter().map(|i| i.path.as_path()), args.force);
    crate::io::run_inputs(protected(Path::new("-"), args), args.force);
    // Each input's target: --to where the input converts to it, else its natural one. The
    // format is detected from a prefix of each file, not from the whole file.
    let sources: HashMap<PathBuf, Option<Format>> = inputs
        .iter()
        .map(|i| (i.path.clone(), source_format(&i.path)))
        .collect();
    let targets: HashMap<PathBuf, Option<Format>> = inputs
        .iter()
        .map(|i| {
            // The PLY, MAT and GRP parts of an RSD set convert with their RSD, not alone
            // (judged from the file's first bytes).
            let part = rsd_part(&i.path);
            let t = match (sources[&i.path], to) {
                _ if part => None,
                (Some(f), Some(t)) => convert::can_convert(f, t).then_some(t),
                (Some(f), None) => convert::natural_target(f),
                (None, t) => t,
            };
            (i.path.clone(), t)
        })
        .collect();
    let pairing = !args.no_pair && to.map_or(true, |t| matches!(t, Format::Gltf | Format::Glb));
    let assembly = pairing.then(|| retroanim::assemble::from_paths(&args.paths));
    let outputs = output_names(&inputs, dir, |p| targets[p]);
    std::fs::create_dir_all(dir).with_context(|| format!("{}: cannot create", dir.display()))?;
    each(&inputs, args, |input| {
        if sources[&input.path].is_none() && holds_assets(&input.path, assembly.as_ref()) {
            return Err(super::batch::Skip(CONTAINER).into());
        }
        let Some(target) = targets[&input.path] else {
            return Err(super::batch::Skip("nothing to convert to").into());
        };
        let out = &outputs[&input.path];
        if let Some(parent) = out.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("{}: cannot create", parent.display()))?;
        }
        let mut opts = opts.clone();
        let mut paired = Vec::new();
        if let Some(a) = &assembly {
            let key = input.path.display().to_string();
            if let Some(asset) = a.asset_at(&key, 0) {
                paired = a
                    .pair_asset(asset, &mut opts)
                    .with_context(|| key.clone())?;
                if let Some(why) = a.missing_model(asset, &opts) {
                    let what = retroanim::assemble::without_model(asset.format);
                    errln!(
                        "retroanim: warning: {key}: {what}: not converted ({why}); convert it with --tmd MODEL.TMD"
                    );
                    return Err(super::batch::Skip(what).into());
                }
            }
        }
        Ok(Some((out.clone(), target, opts, paired)))
    })
}

/// Why a file with no conversion of its own is passed over when it holds assets.
const CONTAINER: &str =
    "a container of assets: extract them with `retroanim scan FILE --extract DIR`, then convert those";

/// The format `convert` reads `path` as: `--from`, a `.lab` name (LAB is text, with no magic
/// number), else detected from its content.
fn source_format(path: &Path) -> Option<Format> {
    if let Ok(Some(f)) = super::forced_format() {
        return Some(f);
    }
    let lab = path
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("lab"));
    if lab {
        return Some(Format::Lab);
    }
    let limit = retroanim::Limits::default().max_input_bytes;
    retroanim::input::detect_file(path, limit).ok().flatten()
}

/// Whether `path` is the PLY, MAT or GRP part of an RSD set (from its first 64 KiB).
fn rsd_part(path: &Path) -> bool {
    use std::io::Read;
    let mut head = Vec::new();
    let read = std::fs::File::open(path).and_then(|f| f.take(64 * 1024).read_to_end(&mut head));
    read.is_ok() && retroanim::formats::rsd::text_kind(&head).is_some_and(|k| k != "rsd")
}

/// Whether scan finds assets inside `path` (an LBD, TIX or MOM pack, an archive, a disc
/// image): from the assembly when there is one, else by scanning it.
fn holds_assets(path: &Path, assembly: Option<&retroanim::assemble::Assembly>) -> bool {
    let key = path.display().to_string();
    match assembly {
        Some(a) => a.assets.iter().any(|x| x.source.path == key),
        None => !retroanim::scan::scan_paths(
            &[path.to_path_buf()],
            &retroanim::scan::ScanOptions::default(),
        )
        .finds
        .is_empty(),
    }
}

/// The work of one input: where its output goes, the target, the options, and the notes of
/// its pairing (`None`: nothing to do).
type Plan = Option<(PathBuf, Format, Options, Vec<convert::Note>)>;

/// Converts every input as `plan` says: text (notes and `wrote` lines on standard error) or,
/// with `--json`, one line per input.
fn each(
    inputs: &[super::batch::Input],
    args: &ConvertArgs,
    plan: impl Fn(&super::batch::Input) -> Result<Plan> + Sync,
) -> Result<Outcome> {
    let work = |input: &super::batch::Input| -> Result<Option<(Converted, Vec<convert::Note>)>> {
        let Some((output, target, opts, mut notes)) = plan(input)? else {
            return Ok(None);
        };
        let role = if args.out_dir.is_some() {
            Role::Derived
        } else {
            Role::Named
        };
        let mut done = one(&input.path, &output, role, target, args, &opts)?;
        notes.append(&mut done.notes);
        Ok(Some((done, notes)))
    };
    if args.json {
        return super::batch::run_json(inputs, "convert", |input| {
            let Some((done, notes)) = work(input)? else {
                return Err(super::batch::Skip("nothing to convert to").into());
            };
            let extra: Vec<serde_json::Value> = done
                .extra
                .iter()
                .map(|(path, format, bytes)| {
                    serde_json::json!({ "path": path.display().to_string(), "format": format, "bytes": bytes })
                })
                .collect();
            let fields = super::jsonl::fields(serde_json::json!({
                "target": done.target,
                "output": done.output.display().to_string(),
                "bytes": done.size,
                "extra": extra,
            }));
            let line = super::jsonl::item(
                &input.path.display().to_string(),
                done.source,
                fields,
                notes.iter().map(super::jsonl::note).collect(),
            );
            Ok((Outcome::Clean, line))
        });
    }
    let (outcome, _) = super::batch::run::<()>(inputs, |input| {
        let Some((done, notes)) = work(input)? else {
            return Err(super::batch::Skip("nothing to convert to").into());
        };
        let quiet = super::global().quiet;
        if !quiet && done.output != Path::new("-") {
            let size = done.size.map_or(String::new(), |s| format!(", {s} bytes"));
            errln!(
                "retroanim: wrote {} ({}{size}) from {}",
                done.output.display(),
                done.target,
                input.path.display()
            );
        }
        if !quiet {
            for (path, format, bytes) in &done.extra {
                errln!(
                    "retroanim: wrote {} ({format}, {bytes} bytes) beside it",
                    path.display()
                );
            }
        }
        // The notes of this file, after the line that names it.
        for n in &notes {
            if n.code == "no-model" {
                errln!("retroanim: warning: {}: {n}", input.path.display());
            } else {
                note!("{n}");
            }
        }
        Ok((Outcome::Clean, None))
    })?;
    Ok(outcome)
}

/// What one conversion wrote.
struct Converted {
    /// The input's format, when known.
    source: Option<Format>,
    target: Format,
    output: PathBuf,
    /// The output's size (`None` when streamed).
    size: Option<usize>,
    /// Files written beside the output: path, format, size.
    extra: Vec<(PathBuf, Format, usize)>,
    notes: Vec<convert::Note>,
}

/// One conversion, `input` → `output`.
fn one(
    input: &Path,
    output: &Path,
    role: Role,
    target: Format,
    args: &ConvertArgs,
    opts: &Options,
) -> Result<Converted> {
    let ctx = || input.display().to_string();
    let mut extra = Vec::new();
    let (source, notes, size) = match streamed(input, output, role, target, args, opts)? {
        Some((from, notes, size)) => (Some(from), notes, size),
        None => {
            let rsd_set = super::rsd::set_of(input)?;
            let (bytes, from) = match &rsd_set {
                Some(_) => (crate::io::read_input(input)?, Some(Format::Rsd)),
                None => super::input_bytes(input)?,
            };
            let source = from.or_else(|| retroanim::detect(&bytes));
            let mut opts = opts.clone();
            // An RSD names its parts after the output (`out.rsd` → `out.ply`, `out.mat`).
            if target == Format::Rsd && opts.name.is_none() {
                opts.name = output.file_stem().map(|s| s.to_string_lossy().into_owned());
            }
            if let Some(base) = &args.base {
                match super::load(base)? {
                    (_, Model::P3d(p)) => opts.p3d.base = Some(p),
                    (_, m) => bail!(
                        "{}: --base must be a P3D model, this is {}",
                        base.display(),
                        m.format()
                    ),
                }
            }
            if opts.name.is_none() {
                // Named as scan and the report name the same asset (an extracted find as the
                // find it was cut from).
                opts.name = Some(retroanim::assemble::Source::name_of_file(
                    &input.to_string_lossy(),
                ));
            }
            let done = match &rsd_set {
                Some(set) => convert::rsd::convert_set(set, target, &opts),
                None => convert::convert_bytes(&bytes, from, target, &opts),
            }
            .with_context(ctx)?;
            if !done.extra.is_empty() && output == Path::new("-") {
                bail!(
                    "{}: this conversion writes {} more file(s) beside its output; name an output file instead of -",
                    input.display(),
                    done.extra.len()
                );
            }
            // Every output claimed before the first is written (the output rule,
            // retroanim::output): a file beside the output that holds something else (an
            // unrelated `anim.tmd` beside `anim.tod`) needs --force, an input of the run is
            // never replaced by a name the command made.
            let inputs = protected(input, args);
            if output == Path::new("-") {
                crate::io::write_output(output, &done.bytes, &inputs, args.force)?;
                return Ok(Converted {
                    source,
                    target,
                    output: output.to_path_buf(),
                    size: Some(done.bytes.len()),
                    extra,
                    notes: done.notes,
                });
            }
            let main = crate::io::claim(output, role, &inputs, Some(&done.bytes), args.force)?;
            let mut beside = Vec::new();
            for e in &done.extra {
                let path = e.path_beside(output);
                let c =
                    crate::io::claim(&path, Role::Derived, &inputs, Some(&e.bytes), args.force)?;
                beside.push((c, e));
            }
            main.write(&done.bytes)?;
            for (c, e) in beside {
                let path = c.path().to_path_buf();
                c.write(&e.bytes)?;
                extra.push((path, e.format, e.bytes.len()));
            }
            (source, done.notes, Some(done.bytes.len()))
        }
    };
    Ok(Converted {
        source,
        target,
        output: output.to_path_buf(),
        size,
        extra,
        notes,
    })
}

/// The files a conversion reads, which its outputs replace only with `--force`: the input and
/// every file an option names (`--base`, `--tmd`, `--tim`, `--after`).
fn protected<'a>(input: &'a Path, args: &'a ConvertArgs) -> Vec<&'a Path> {
    let mut v = vec![input];
    v.extend(args.base.as_deref());
    v.extend(args.skeleton.as_deref());
    v.extend(args.p3d.as_deref());
    v.extend(args.tmd.as_deref());
    v.extend(args.tim.iter().map(PathBuf::as_path));
    v.extend(args.after.iter().map(PathBuf::as_path));
    v.extend(args.vdf.as_deref());
    v.extend(args.ndf.as_deref());
    v.extend(args.mime_weights.as_deref());
    v
}

/// The output format: `--to`, else OUT's extension.
fn target_format(to: Option<&str>, output: Option<&Path>) -> Result<Format> {
    if let Some(name) = to {
        return Format::from_name(name).ok_or_else(|| anyhow!("--to {name}: unknown format"));
    }
    let output = output.ok_or_else(|| anyhow!("--out-dir needs --to FMT"))?;
    let ext = output.extension().and_then(|e| e.to_str()).ok_or_else(|| {
        anyhow!(
            "{}: no extension to choose the output format from; pass --to FMT",
            output.display()
        )
    })?;
    Format::from_name(ext).ok_or_else(|| {
        anyhow!(
            "{}: unknown output extension .{ext}; pass --to FMT",
            output.display()
        )
    })
}

/// Where each input's output goes under `dir`: its path below the folder it was found in (its
/// file name for a file named directly), with the target's extension instead of its own. Two
/// inputs that would share an output (`a.tod`, `a.tmd` → `a.glb`) keep their extension too
/// (`a.tod.glb`, `a.tmd.glb`).
fn output_names(
    inputs: &[super::batch::Input],
    dir: &Path,
    target: impl Fn(&PathBuf) -> Option<Format>,
) -> HashMap<PathBuf, PathBuf> {
    let ext = |i: &super::batch::Input| target(&i.path).map_or("out", |t| t.name());
    let plain = |i: &super::batch::Input| dir.join(i.relative().with_extension(ext(i)));
    // Names are compared without case: `a.png` and `A.PNG` are one file on many systems.
    let key = |p: &Path| p.to_string_lossy().to_lowercase();
    let is_input = |p: &Path| crate::io::plan(false).is_input(p);
    let mut count: HashMap<String, usize> = HashMap::new();
    for i in inputs {
        *count.entry(key(&plain(i))).or_default() += 1;
    }
    // Names shared by two outputs, or naming an input of the run (`a.tim` → `a.png` beside an
    // input `a.png`), keep the input's extension (`a.tim.png`); names still shared (`a/x.tod`
    // and `b/x.tod` named directly are both `x.tod.json`) get `_2`, `_3`… before their
    // extension, in input order.
    let mut taken: std::collections::HashSet<String> = Default::default();
    inputs
        .iter()
        .map(|i| {
            let p = plain(i);
            let mut out = if count[&key(&p)] > 1 || is_input(&p) {
                let mut name = i.relative().into_os_string();
                name.push(".");
                name.push(ext(i));
                dir.join(name)
            } else {
                p
            };
            if taken.contains(&key(&out)) || is_input(&out) {
                let stem = out.file_stem().unwrap_or_default().to_os_string();
                let e = out.extension().map(|e| e.to_os_string());
                for n in 2usize.. {
                    let mut name = stem.clone();
                    name.push(format!("_{n}"));
                    if let Some(e) = &e {
                        name.push(".");
                        name.push(e);
                    }
                    let candidate = out.with_file_name(name);
                    if !taken.contains(&key(&candidate)) && !is_input(&candidate) {
                        out = candidate;
                        break;
                    }
                }
            }
            taken.insert(key(&out));
            (i.path.clone(), out)
        })
        .collect()
}

/// The library options from the command line; files named by options are read here.
fn options(args: &ConvertArgs) -> Result<Options> {
    let mut o = Options::default();
    o.geometry.axes = args.axes.map(|a| match a {
        Axes::Default => convert::Axes::Default,
        Axes::Raw => convert::Axes::Raw,
    });
    o.geometry.scale = args.scale;
    o.timing.fps = args.fps;
    o.timing.duration = args.duration;
    o.timing.start = args.start;
    o.timing.smooth = args.smooth;
    o.tod.tmd = super::load_tmd(args.tmd.as_deref())?;
    o.tod.after = super::load_tods(&args.after)?;
    o.tod.resolution = args.resolution;
    o.textures.tims = super::load_tims(&args.tim)?;
    if let Some(path) = &args.clt {
        let data = crate::io::read_named(path, o.limits.max_input_bytes)
            .with_context(|| format!("{}", path.display()))?;
        o.textures.clt = Some(
            retroanim::formats::clt::read_raw(&data, &o.limits)
                .with_context(|| format!("{}", path.display()))?,
        );
    }
    match args.clut.as_deref() {
        None => {}
        Some(v) if v.contains(',') => o.textures.clut_at = Some(xy("--clut", v)?),
        Some(v) => {
            o.textures.clut =
                Some(v.parse().map_err(|_| {
                    anyhow!("--clut {v}: a CLUT row (TIM → PNG) or X,Y (PNG → TIM)")
                })?)
        }
    }
    o.textures.bpp = args.bpp;
    o.textures.vram = args.vram.as_deref().map(|v| xy("--vram", v)).transpose()?;
    o.textures.semi_transparent = args.semi_transparent;
    o.hmd.sequence = args.sequence;
    o.hmd.stream_id = args.stream_id;
    o.hmd.speed = args.speed;
    o.hmd.intr_idx = args.intr_idx;
    o.p3d.lod = args.lod;
    o.mime.vdf = super::load_diff(args.vdf.as_deref(), Format::Vdf)?;
    o.mime.ndf = super::load_diff(args.ndf.as_deref(), Format::Ndf)?;
    if let Some(path) = &args.mime_weights {
        let limit = o.limits.max_input_bytes;
        let data =
            retroanim::input::read_file(path, limit).with_context(|| path.display().to_string())?;
        o.mime.weights = Some(
            convert::mime::weights_from_json(&data).with_context(|| path.display().to_string())?,
        );
    }
    o.rtm.p3d = super::load_p3d(args.p3d.as_deref(), "--p3d")?;
    o.rtm.rest = args.rest.map(|r| match r {
        Rest::Origin => retroanim::formats::rtm::Rest::Origin,
        Rest::Bind => retroanim::formats::rtm::Rest::Bind,
    });
    o.animation = args.animation;
    o.rtm.skeletons = super::load_skeletons(args.skeleton.as_deref(), o.limits.max_input_bytes)?;
    Ok(o)
}

/// `X,Y` as two VRAM coordinates.
fn xy(flag: &str, v: &str) -> Result<(u16, u16)> {
    let parse = |s: &str| s.trim().parse::<u16>().ok();
    match v.split_once(',') {
        Some((x, y)) => parse(x).zip(parse(y)),
        None => None,
    }
    .ok_or_else(|| anyhow!("{flag} {v}: expected X,Y (two numbers 0..=1023, 0..=511)"))
}

/// What a streamed conversion did: the source format, its notes, the output size if known.
type Streamed = (Format, Vec<convert::Note>, Option<usize>);

/// The streamed conversions: MLOD → MDD/PC2, and MDD/PC2 → P3D into an MLOD base. `None`
/// when this conversion is not one of them (or the input turns out not to be streamable).
fn streamed(
    input: &Path,
    output: &Path,
    role: Role,
    target: Format,
    args: &ConvertArgs,
    opts: &Options,
) -> Result<Option<Streamed>> {
    if super::forced_format()?.is_some() {
        return Ok(None);
    }
    fn write(
        out: &Path,
        role: Role,
        inputs: &[&Path],
        force: bool,
        produce: impl FnOnce(&mut dyn std::io::Write) -> Result<()>,
    ) -> Result<()> {
        if out == Path::new("-") {
            crate::io::write_output_with(out, inputs, force, produce)
        } else {
            crate::io::write_stream(out, role, inputs, force, produce)
        }
    }
    let ctx = || input.display().to_string();
    if target == Format::P3d {
        let Some(base) = args.base.as_deref().filter(|b| starts_with(b, b"MLOD")) else {
            return Ok(None);
        };
        let Some(cache) = cache_reader(input, opts)? else {
            return Ok(None);
        };
        let from = match &cache {
            stream::CacheReader::Mdd(_) => Format::Mdd,
            stream::CacheReader::Pc2(_) => Format::Pc2,
        };
        let mut notes = Vec::new();
        write(output, role, &protected(input, args), args.force, |w| {
            notes = stream::cache_into_mlod(cache, open_buffered(base)?, opts, w)
                .with_context(|| base.display().to_string())?;
            Ok(())
        })
        .with_context(ctx)?;
        return Ok(Some((from, notes, None)));
    }
    if !matches!(target, Format::Mdd | Format::Pc2) || !starts_with(input, b"MLOD") {
        return Ok(None);
    }
    let mut notes = Vec::new();
    write(output, role, &protected(input, args), args.force, |w| {
        notes = stream::mlod_frames(open_buffered(input)?, target, opts, w).with_context(ctx)?;
        Ok(())
    })?;
    Ok(Some((Format::P3d, notes, None)))
}

/// A PC2 (by its magic) or a `.mdd` whose header fits its size, opened for streaming.
fn cache_reader(
    input: &Path,
    opts: &Options,
) -> Result<Option<stream::CacheReader<std::io::BufReader<std::fs::File>>>> {
    use retroanim::formats::{mdd, pc2};
    let ctx = || input.display().to_string();
    if starts_with(input, b"POINTCACHE2\0") {
        let r = pc2::StreamReader::new(open_buffered(input)?, &opts.limits).with_context(ctx)?;
        return Ok(Some(stream::CacheReader::Pc2(r)));
    }
    let is_mdd_name = input
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("mdd"));
    if !is_mdd_name {
        return Ok(None);
    }
    let len = std::fs::metadata(input)
        .with_context(|| format!("{}: cannot read", input.display()))?
        .len();
    // Not an MDD after all: the in-memory path detects what it is.
    Ok(
        mdd::StreamReader::new(open_buffered(input)?, len, &opts.limits)
            .ok()
            .map(stream::CacheReader::Mdd),
    )
}

fn starts_with(path: &Path, magic: &[u8]) -> bool {
    use std::io::Read;
    let mut head = vec![0u8; magic.len()];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut head))
        .is_ok()
        && head == magic
}

fn open_buffered(path: &Path) -> Result<std::io::BufReader<std::fs::File>> {
    let file =
        std::fs::File::open(path).with_context(|| format!("{}: cannot read", path.display()))?;
    Ok(std::io::BufReader::with_capacity(1 << 16, file))
}
