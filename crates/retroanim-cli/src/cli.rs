//! Command-line arguments (clap derive). These names are a contract other tools rely on.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

/// Read, check, write, play back and convert the 3D animation data of old game engines.
#[derive(Debug, Parser)]
#[command(name = "retroanim", version, about, long_about = None, arg_required_else_help = true)]
pub struct Cli {
    /// Options every command takes.
    #[command(flatten)]
    pub global: Global,
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// Options every command takes.
#[derive(Debug, Clone, Default, Args)]
pub struct Global {
    /// Print only errors (no per-file success lines, notes or summary).
    #[arg(long, short, global = true, conflicts_with = "verbose")]
    pub quiet: bool,
    /// Print more: every note, and a summary line even for one file.
    #[arg(long, short, global = true)]
    pub verbose: bool,
    /// Read every input as this format instead of detecting it from the content (for a damaged
    /// file whose magic number is gone): tod, hmd, tmd, tim, p3d, rtm, mdd, pc2, json, lab (HMD source text).
    #[arg(long, global = true, value_name = "FMT")]
    pub from: Option<String>,
    /// Walk folders given as inputs, and their subfolders (files of no known format found in
    /// them are skipped and counted).
    #[arg(long, short, global = true)]
    pub recursive: bool,
    /// Files processed in parallel (default: one per core).
    #[arg(long, short, global = true, value_name = "N")]
    pub jobs: Option<usize>,
}

/// The commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Summarise a file: format, version, counts.
    Info(InfoArgs),
    /// Print the whole typed model of a file (JSON with --json: a lossless editing format).
    Dump(DumpArgs),
    /// Check files against their format; exit 1 when any finding is an error.
    Validate(ValidateArgs),
    /// Read and write files again and compare; exit 1 unless byte-identical.
    Roundtrip(RoundtripArgs),
    /// Convert a file to another format (chosen by --to or OUT's extension).
    Convert(Box<ConvertArgs>),
    /// Play a file's animation (TOD, HMD) as the console does and print each frame's pose.
    Play(PlayArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    Completions(CompletionsArgs),
    /// Print a manual page (roff): `retroanim man > retroanim.1`, or a subcommand's page
    /// (`retroanim man convert > retroanim-convert.1`), as the main page's SEE ALSO lists them.
    Man(ManArgs),
    /// Assemble labp source (`.LAB`, with #include and hmd.def macros) into an HMD.
    Asm(AsmArgs),
    /// Disassemble an HMD into labp source that `asm` turns back into the same bytes.
    Disasm(DisasmArgs),
    /// Find every asset inside disc images (ISO, raw .bin/.cue), PBO archives, files and folders.
    Scan(ScanArgs),
    /// Put edited assets back into a disc image (ISO, raw .bin/.cue), a PBO archive or a file.
    Patch(PatchArgs),
    /// Draw a model, animation or texture as the PlayStation draws it, to a PNG, GIF or WebP
    /// (animated PNG or GIF for animations).
    Render(RenderArgs),
}

/// `retroanim patch`.
#[derive(Debug, Args)]
pub struct PatchArgs {
    /// The disc image (ISO, raw .bin, .cue), PBO archive or file; never modified.
    pub image: PathBuf,
    /// A find's place as `scan` prints it (`/DATA/PACK.BIN+4096`, `/ANIM/T0000.TOD+0`) and the
    /// file to put there (repeatable). A smaller file is padded with zeros; a larger one is
    /// allowed for a whole file of a disc image or a whole PBO entry.
    #[arg(long, num_args = 2, value_names = ["PLACE", "NEWFILE"], required = true)]
    pub replace: Vec<String>,
    /// The patched image (with a cue sheet: its .bin, and the new .cue beside it).
    #[arg(short, long, value_name = "OUT")]
    pub output: PathBuf,
    /// Print what would change; write nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Put files that are not valid files of the kind found at PLACE, and replace an existing
    /// output or its cue sheet (never a file the image is made of).
    #[arg(long)]
    pub force: bool,
    /// Print JSON Lines: one object per replacement, then a `{"summary": ...}` line
    /// (docs/json.md).
    #[arg(long)]
    pub json: bool,
}

/// `retroanim render`.
#[derive(Debug, Args)]
pub struct RenderArgs {
    /// The input: a TMD, HMD, P3D or glTF/GLB model, a TOD or MIMe VDF/NDF (with --tmd), a
    /// TIM, or a raw VRAM dump (with --vram).
    pub file: PathBuf,
    /// The picture to write: .png (an animation becomes an animated PNG), .gif (animated GIF)
    /// or .webp (lossless; an animation becomes an animated WebP).
    pub output: PathBuf,
    /// TIMs placed in VRAM at their own positions (repeatable).
    #[arg(long, value_name = "T.TIM")]
    pub tim: Vec<PathBuf>,
    /// The TMD model a TOD animation moves, or the base TMD a VDF/NDF changes.
    #[arg(long, value_name = "M.TMD")]
    pub tmd: Option<PathBuf>,
    /// VDF/NDF: the key weights of the one picture drawn.
    #[command(flatten)]
    pub keys: KeyWeights,
    /// A VDF drawn: its NDF (the normal differences of the same keys), played with it.
    #[arg(long, value_name = "DIFF.NDF")]
    pub ndf: Option<PathBuf>,
    /// An NDF drawn: its VDF (the vertex differences of the same keys), played with it.
    #[arg(long, value_name = "DIFF.VDF")]
    pub vdf: Option<PathBuf>,
    /// Read the input as a raw 1 MB VRAM dump (1024×512 little-endian halfwords).
    #[arg(long)]
    pub vram: bool,
    /// Camera turn about the vertical axis, degrees (default: the three-quarter view that
    /// shows the model's front faces best).
    #[arg(long, allow_negative_numbers = true)]
    pub yaw: Option<f64>,
    /// Camera tilt, degrees; positive looks down (default 30).
    #[arg(long, allow_negative_numbers = true)]
    pub pitch: Option<f64>,
    /// Camera distance as a multiple of the framing distance (default 1).
    #[arg(long)]
    pub distance: Option<f64>,
    /// Picture size WxH (default 256x256).
    #[arg(long, value_name = "WxH")]
    pub size: Option<String>,
    /// Frames to draw, A..B (B excluded): TOD frame numbers, picture numbers of an HMD, P3D or
    /// glTF animation, or MIMe keys of a VDF/NDF.
    #[arg(long, value_name = "A..B")]
    pub frames: Option<String>,
    /// Pictures per second of an animation (default: the TOD's own rate; HMD 60; P3D and
    /// glTF 30; a VDF/NDF's keys 2).
    #[arg(long)]
    pub fps: Option<f64>,
    /// HMD: the sequence index to play (default 0).
    #[arg(long, value_name = "N")]
    pub sequence: Option<usize>,
    /// HMD: the stream ID to start with instead of the sequence's START SID (0..=127).
    #[arg(long, value_name = "S")]
    pub stream_id: Option<u8>,
    /// P3D: the LOD by its resolution value or name as `info` prints it (e.g. 1, 1e13,
    /// Geometry). Default: the first LOD with frames, else the first LOD (RTM → glTF with
    /// --p3d: the first LOD whose named selections name a bone).
    #[arg(long, value_name = "RES", value_parser = parse_lod)]
    pub lod: Option<f64>,
    /// Background colour RRGGBB (hex; default 404040).
    #[arg(long, value_name = "RRGGBB")]
    pub background: Option<String>,
    /// Replace an existing output file (the input too, when named as the output).
    #[arg(long)]
    pub force: bool,
}

/// `retroanim completions`.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// `retroanim asm`.
#[derive(Debug, Args)]
pub struct AsmArgs {
    /// The LAB source.
    pub file: PathBuf,
    /// The HMD to write (`-` for standard output).
    #[arg(short, long, value_name = "OUT.HMD")]
    pub output: PathBuf,
    /// Folders searched for `#include`d files after the including file's own (repeatable);
    /// `hmd.def` found in none of them is the built-in one.
    #[arg(short = 'I', long = "include", value_name = "DIR")]
    pub include: Vec<PathBuf>,
    /// Replace an existing output file (the input too, when named as the output).
    #[arg(long)]
    pub force: bool,
}

/// `retroanim disasm`.
#[derive(Debug, Args)]
pub struct DisasmArgs {
    /// The HMD file.
    pub file: PathBuf,
    /// The LAB file to write (default: standard output).
    #[arg(short, long, value_name = "OUT.LAB")]
    pub output: Option<PathBuf>,
    /// Replace an existing output file (the input too, when named as the output).
    #[arg(long)]
    pub force: bool,
}

/// `retroanim scan`.
#[derive(Debug, Args)]
pub struct ScanArgs {
    /// Files or folders (recursive): disc images, cue sheets, archives, savestates, anything.
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// Print JSON Lines: one object per find (and per container that cannot be read), then a
    /// `{"summary": ...}` line (docs/json.md).
    #[arg(long)]
    pub json: bool,
    /// Formats to look for (default: all: tod, hmd, tmd, tim, p3d, pmd, clt, pxl, rtm, and
    /// vdf, ndf as loose files in a folder).
    #[arg(long, value_delimiter = ',', value_name = "FMT,...")]
    pub formats: Vec<String>,
    /// Try only offsets that are a multiple of N in each file (1: every byte).
    #[arg(long, default_value_t = 4, value_name = "N")]
    pub align: u64,
    /// Drop finds smaller than this.
    #[arg(long, default_value_t = 0, value_name = "BYTES")]
    pub min_size: u64,
    /// Write each find as its own file into DIR, with a manifest.json.
    #[arg(long, value_name = "DIR")]
    pub extract: Option<PathBuf>,
    /// With --extract: also convert each find (TIM → png; TMD, HMD, TOD, P3D → glb or gltf).
    #[arg(long, value_name = "glb|gltf|png", requires = "extract")]
    pub convert: Option<String>,
    /// With --extract or --report: replace files already in DIR (its manifest.json,
    /// index.html…; never a scanned file); without it an existing file (for --report, a
    /// folder that is not empty) is an error before anything is written.
    #[arg(long)]
    pub force: bool,
    /// Write a report a browser opens into DIR: index.html (a card per find, with its picture
    /// and links to its bytes, GLB and PNG) and index.json.
    #[arg(long, value_name = "DIR")]
    pub report: Option<PathBuf>,
    /// Address of the first byte of each file scanned, for a RAM dump that does not start at
    /// physical address 0 (hex with 0x, or decimal). Without it, where an HMD mapped in place
    /// by GsMapUnit was is read from its own pointers, or else the file is taken to start at
    /// physical address 0.
    #[arg(long, value_name = "ADDR", value_parser = parse_address)]
    pub base: Option<u64>,
    /// A VRAM dump (1 MiB: 1024 × 512 halfwords) to texture the models found: the pages and
    /// CLUTs they sample are cut from it as TIMs and listed as finds of it. A savestate
    /// (PCSX-ReARMed, PCSX-R) needs none: its own VRAM textures the models of its RAM, and
    /// --vram with one is an error.
    #[arg(long, value_name = "FILE")]
    pub vram: Option<PathBuf>,
    /// Print on standard error where the time went: reading, the candidate pass and the full
    /// readers (summed over threads), pairing, extracting, printing, the report.
    #[arg(long)]
    pub timings: bool,
    /// Read the files symbolic links inside a scanned folder point to outside it (without it
    /// such a link is listed as skipped, not read).
    #[arg(long)]
    pub follow_links: bool,
}

/// An address as `--base` takes it: `0x`-prefixed hex or decimal.
/// `retroanim man [SUBCOMMAND]`.
#[derive(Args, Debug, Clone)]
pub struct ManArgs {
    /// The subcommand whose page to print (default: the main page).
    pub command: Option<String>,
}

/// A LOD as `--lod` names it: its resolution value, or its name (`Geometry`, `Memory`…).
fn parse_lod(s: &str) -> Result<f64, String> {
    retroanim::formats::p3d::lod_value(s).ok_or_else(|| {
        format!("{s:?} is neither a resolution value (1, 1e13) nor a LOD name (Geometry, Memory, Shadow Volume 10…)")
    })
}

fn parse_address(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let v = match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        Some(h) => u64::from_str_radix(&h.replace('_', ""), 16),
        None => t.replace('_', "").parse(),
    };
    v.ok()
        .filter(|&a| a <= u32::MAX as u64)
        .ok_or_else(|| format!("{s:?}: give a 32-bit address, e.g. 0x80000000"))
}

/// `retroanim play`.
#[derive(Debug, Args)]
pub struct PlayArgs {
    /// The animation: a TOD, an HMD model with its animation, an RTM, or MIMe differences
    /// (VDF/NDF, with --tmd).
    pub file: PathBuf,
    /// TOD: the TMD model the animation drives (TMD ID k links TMD object k-1). VDF/NDF: the
    /// base TMD the differences apply to.
    #[arg(long, value_name = "MODEL.TMD")]
    pub tmd: Option<PathBuf>,
    /// TOD: animations to play first on the same object table (repeatable), as the janken
    /// sample plays APPEAR.TOD before the others.
    #[arg(long, value_name = "ANIM.TOD")]
    pub after: Vec<PathBuf>,
    /// TOD: print only this frame.
    #[arg(long, value_name = "N", conflicts_with = "frames")]
    pub frame: Option<u32>,
    /// Print only the frames in this inclusive range, e.g. `10..20` (HMD default: from 0 until
    /// every sequence ends, at most 600 frames).
    #[arg(long, value_name = "A..B")]
    pub frames: Option<String>,
    /// HMD: which sequence of every sequence pointer to start (0 = its START IDX, k = its k-th
    /// extra sequence).
    #[arg(long, value_name = "N")]
    pub sequence: Option<usize>,
    /// HMD: stream ID to start with (0..127) instead of the sequence's START SID.
    #[arg(long, value_name = "S")]
    pub stream_id: Option<u8>,
    /// HMD: playback speed as a multiple (e.g. 1, 0.5, 2, -1 for reverse), rounded to the
    /// console's 1/16 steps (−8 ..= 7.9375).
    #[arg(long, value_name = "X", allow_hyphen_values = true)]
    pub speed: Option<f64>,
    /// HMD: INTR IDX to play with instead of 0xFFFF, as a program that sets it does: every
    /// update also writes the interpolated pose into the key frame of descriptor N (the file's
    /// own value, 0 in every Sony sample, would overwrite key frame 0; Sony's real-time motion
    /// switch uses it).
    #[arg(long, value_name = "N")]
    pub intr_idx: Option<u16>,
    /// HMD: AFRAME, updates to run before each sequence pointer stops, instead of 0xFFFF
    /// (endless, as Sony's programs set it).
    #[arg(long, value_name = "N")]
    pub aframe: Option<u16>,
    /// HMD: MIMEPR weights to give every MIMe primitive before the first frame, as a game
    /// sets them (comma-separated, 1.0 = 4096; key k gets the k-th value, keys beyond the
    /// list keep the file's weights).
    /// Animation that drives the weights overrides them.
    #[arg(
        long,
        value_delimiter = ',',
        allow_negative_numbers = true,
        value_name = "W,W,..."
    )]
    pub mime_weights: Vec<f64>,
    /// VDF/NDF (with --tmd): the key weights to play.
    #[command(flatten)]
    pub keys: KeyWeights,
    /// HMD: also print the vertices (and normals) as MIMe deforms them, and the shared
    /// (category 1) vertices and normals the pre-calculation primitives compute, in world
    /// coordinates.
    #[arg(long)]
    pub vertices: bool,
    /// RTM: print the pose at this phase (0..1) only, interpolated between the frames around it.
    #[arg(long, value_name = "P", conflicts_with = "frames")]
    pub phase: Option<f32>,
    /// RTM: add phase × displacement (the unit's travel over the cycle) to every bone.
    #[arg(long)]
    pub step: bool,
    /// RTM: a `model.cfg` whose `CfgSkeletons` give the bone hierarchy (the skeleton naming
    /// most of the bones): a binarised RTM (BMTR) stores each bone relative to its parent, so
    /// its poses need it.
    #[arg(long, value_name = "MODEL.CFG")]
    pub skeleton: Option<PathBuf>,
    /// Print JSON Lines: one object per frame, then a `{"summary": ...}` line (docs/json.md).
    #[arg(long)]
    pub json: bool,
}

/// `retroanim info`.
#[derive(Debug, Args)]
pub struct InfoArgs {
    /// The files (or, with --recursive, folders) to summarise; `-` reads standard input.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Print JSON Lines: one object per file, then a `{"summary": ...}` line (docs/json.md).
    #[arg(long)]
    pub json: bool,
}

/// `retroanim dump`.
#[derive(Debug, Args)]
pub struct DumpArgs {
    /// The files (or, with --recursive, folders) to dump; `-` reads standard input.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Print JSON Lines: one object per file with its `model`, then a `{"summary": ...}` line
    /// (docs/json.md); `retroanim convert dump.jsonl out.tod` rebuilds the file.
    #[arg(long)]
    pub json: bool,
}

/// `retroanim validate`.
#[derive(Debug, Args)]
pub struct ValidateArgs {
    /// Files (or, with --recursive, folders) to check.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// VDF/NDF: the base TMD the differences apply to (object and vertex/normal ranges are
    /// checked against it).
    #[arg(long, value_name = "BASE.TMD")]
    pub tmd: Option<PathBuf>,
    /// Print JSON Lines: one object per file, then a `{"summary": ...}` line (docs/json.md).
    #[arg(long)]
    pub json: bool,
}

/// `retroanim roundtrip`.
#[derive(Debug, Args)]
pub struct RoundtripArgs {
    /// Files (or, with --recursive, folders) to read, write and compare.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Print JSON Lines: one object per file, then a `{"summary": ...}` line (docs/json.md).
    #[arg(long)]
    pub json: bool,
}

/// `retroanim convert`.
#[derive(Debug, Args)]
pub struct ConvertArgs {
    /// `IN OUT`: one input file and the output file (`-` for standard output, then --to is
    /// required). With --out-dir: every argument is an input (files, or folders with
    /// --recursive).
    #[arg(required = true, value_name = "IN... [OUT]")]
    pub paths: Vec<PathBuf>,
    /// Write each output into this folder, named after its input with the target's extension.
    /// Without --to each file goes to its natural target (models and animations GLB, TIM PNG,
    /// ...), paired with its model and textures as `scan` assembles them; files with nothing
    /// to convert to are skipped and counted.
    #[arg(long, value_name = "DIR")]
    pub out_dir: Option<PathBuf>,
    /// With --out-dir: do not pair animations with models and models with TIMs.
    #[arg(long, requires = "out_dir")]
    pub no_pair: bool,
    /// Output format (default: from OUT's extension): tod, hmd, tmd, tim, p3d, mdd, pc2, gltf, glb, json, png (from a TIM), lab (from an HMD), tim (from a PNG).
    #[arg(long, value_name = "FMT")]
    pub to: Option<String>,
    /// Frames per second for point caches: PC2 counts time in frames, MDD in seconds.
    /// MDD → PC2 default: guessed from the MDD's frame times (else 30); PC2 → MDD default: 30.
    #[arg(long, value_name = "FPS")]
    pub fps: Option<f32>,
    /// P3D: seconds one phase unit (a LOD frame time of 0..1) lasts. Default: (frames − 1) / --fps
    /// when --fps is given, else 1 (seconds equal phases). RTM ↔ glTF: seconds phase 0..1
    /// lasts (RTM → glTF default 1; glTF → RTM default: the duration an RTM export recorded,
    /// else the last key time − --start).
    #[arg(long, value_name = "SECONDS")]
    pub duration: Option<f32>,
    /// glTF → RTM: the animation time of phase 0 (default 0): phase = (time − start) /
    /// --duration; keys outside that span are left out and its ends sampled.
    #[arg(long, value_name = "SECONDS", allow_hyphen_values = true)]
    pub start: Option<f32>,
    /// glTF → RTM: the pose the RTM's matrices are relative to: `origin` (the bones' world
    /// matrices: every bone rests at the origin, as retroanim's RTM → glTF binds them) or
    /// `bind` (world × inverse bind matrix: the skin's bind pose, a skeleton built in an
    /// editor). Default: origin when the glTF records an RTM export (extras.rtm), else bind.
    #[arg(long, value_enum)]
    pub rest: Option<Rest>,
    /// P3D: the LOD by its resolution value or name as `info` prints it (e.g. 1, 1e13,
    /// Geometry). Default: the first LOD with frames, else the first LOD (RTM → glTF with
    /// --p3d: the first LOD whose named selections name a bone).
    #[arg(long, value_name = "RES", value_parser = parse_lod)]
    pub lod: Option<f64>,
    /// Cache or glTF → P3D: the model whose LOD frames the cache (or the glTF's morph
    /// animation) replaces (everything else is kept byte for byte).
    #[arg(long, value_name = "P3D")]
    pub base: Option<PathBuf>,
    /// glTF → TOD/P3D: which of the glTF's animations to write, by index (default 0, the
    /// first); the others are left out with a note.
    #[arg(long, value_name = "N")]
    pub animation: Option<usize>,
    /// RTM → glTF: a `model.cfg` whose `CfgSkeletons` give the bone hierarchy (the skeleton
    /// naming most of the RTM's bones); without it the joints are flat.
    #[arg(long, value_name = "MODEL.CFG")]
    pub skeleton: Option<PathBuf>,
    /// RTM → glTF: the P3D model (MLOD or binarised ODOL) the animation moves: its LOD (--lod,
    /// default the first whose named selections, or an Arma ODOL's skeleton bones, name a bone)
    /// becomes a mesh skinned to the joints.
    #[arg(long, value_name = "MODEL.P3D")]
    pub p3d: Option<PathBuf>,
    /// Axes: `default` or `raw` (coordinates as stored). P3D: point caches in Arma 3 Object
    /// Builder's Blender axes, glTF right-handed +Y up with the model facing +Z. TOD/TMD/HMD → glTF:
    /// the PlayStation's Y-down axes turned 180° about X into glTF's +Y up.
    #[arg(long, value_enum)]
    pub axes: Option<Axes>,
    /// Replace existing output files (the input too, when named as the output; with
    /// --out-dir never an input).
    #[arg(long)]
    pub force: bool,
    /// Print JSON Lines: one object per input (its output, extra files and notes), then a
    /// `{"summary": ...}` line (docs/json.md).
    #[arg(long)]
    pub json: bool,
    /// TIM → PNG: which CLUT row to use when the TIM stacks several CLUTs (default 0).
    /// PNG → TIM: `X,Y`, the CLUT's VRAM position (default 0,480; X a multiple of 16).
    #[arg(long, value_name = "ROW | X,Y")]
    pub clut: Option<String>,
    /// PNG → TIM: bits per pixel, 4, 8 (indexed, palette reduced when needed) or 16 (default).
    #[arg(long, value_name = "4|8|16")]
    pub bpp: Option<u8>,
    /// PNG → TIM: the image's VRAM position `X,Y` (X in 16-bit units; default 640,0).
    #[arg(long, value_name = "X,Y")]
    pub vram: Option<String>,
    /// TIM → PNG: show STP pixels semi-transparent (alpha 128), as primitives with ABE set do.
    #[arg(long)]
    pub semi_transparent: bool,
    /// TOD → glTF: the TMD model the animation drives (TMD ID k shows TMD object k-1).
    /// glTF → TOD: the model the TOD's TMD IDs name (mesh k is TMD ID k+1); without it the
    /// model is written beside the TOD (OUT's stem + .tmd, and its textures as _K.tim).
    #[arg(long, value_name = "MODEL.TMD")]
    pub tmd: Option<PathBuf>,
    /// TOD → glTF: animations to play first on the same object table (repeatable), as the
    /// janken sample plays APPEAR.TOD before the others; only the input's frames become keys.
    #[arg(long, value_name = "ANIM.TOD")]
    pub after: Vec<PathBuf>,
    /// TOD/TMD/HMD → glTF: a TIM texture for the model's textured polygons (repeatable; HMD:
    /// in addition to its own image primitives).
    #[arg(long, value_name = "TEX.TIM")]
    pub tim: Vec<PathBuf>,
    /// PXL → TIM/PNG: the palette (a CLT file, or a headerless palette of 16-bit entries);
    /// else the CLUT of the first --tim.
    #[arg(long, value_name = "PALETTE.CLT")]
    pub clt: Option<PathBuf>,
    /// TOD → glTF: interpolate linearly between frames (default: STEP, as the console showed).
    #[arg(long)]
    pub smooth: bool,
    /// HMD → glTF: export only this sequence index (0 = each pointer's START IDX, k = extra
    /// sequence k); default: every sequence, one glTF animation each.
    #[arg(long, value_name = "N")]
    pub sequence: Option<usize>,
    /// HMD → glTF: stream ID to start the sequences with (0..127).
    #[arg(long, value_name = "S")]
    pub stream_id: Option<u8>,
    /// HMD → glTF: INTR IDX to play with instead of 0xFFFF, as `play --intr-idx`.
    #[arg(long, value_name = "N")]
    pub intr_idx: Option<u16>,
    /// HMD → glTF: playback speed as a multiple (e.g. 1, 0.5, 2, -1 for reverse), rounded to
    /// the console's 1/16 steps (−8 ..= 7.9375), as `play --speed`.
    #[arg(long, value_name = "X", allow_hyphen_values = true)]
    pub speed: Option<f64>,
    /// TOD/TMD/HMD ↔ glTF: metres per PlayStation unit (default 1/4096: 4096 units = 1 m).
    #[arg(long, value_name = "METRES")]
    pub scale: Option<f32>,
    /// glTF → TOD: ticks (1/60 s) per TOD frame (default 1).
    #[arg(long, value_name = "TICKS")]
    pub resolution: Option<u16>,
    /// TMD → glTF: MIMe vertex differences (MIMEFILT's VDF): one morph target per block (key).
    #[arg(long, value_name = "DIFF.VDF")]
    pub vdf: Option<PathBuf>,
    /// TMD → glTF: MIMe normal differences (MIMEFILT's NDF): the morph targets' normals.
    #[arg(long, value_name = "DIFF.NDF")]
    pub ndf: Option<PathBuf>,
    /// TMD → glTF with --vdf: a weights animation, a JSON array of frames each holding one
    /// integer weight per key (4096 = 1.0), e.g. `[[0,0],[2048,0],[4096,0]]`; --fps sets its
    /// rate (default 60), --smooth interpolates linearly (default STEP).
    #[arg(long, value_name = "WEIGHTS.JSON")]
    pub mime_weights: Option<PathBuf>,
}

/// `--weights` of `play` and `render`: the keys of a MIMe VDF/NDF weighed.
#[derive(Debug, Clone, Default, Args)]
pub struct KeyWeights {
    /// VDF/NDF: MIMe key weights as KEY=WEIGHT pairs, comma-separated, 4096 = 1.0 (e.g.
    /// `0=4096,2=2048`); keys not named weigh 0. `render` draws one picture at these weights
    /// (without them, one picture per key).
    #[arg(
        long,
        value_delimiter = ',',
        value_name = "K=W,...",
        allow_hyphen_values = true
    )]
    pub weights: Vec<String>,
}

/// `--rest`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Rest {
    /// The bones' world matrices as they are.
    Origin,
    /// Each bone's world matrix times its inverse bind matrix.
    Bind,
}

/// `--axes`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Axes {
    /// The target format's usual axes.
    Default,
    /// Coordinates exactly as stored.
    Raw,
}
