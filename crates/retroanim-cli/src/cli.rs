//! Command-line arguments (clap derive). These names are a contract other tools rely on.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

/// Read, check, write, play back and convert the 3D animation data of old game engines.
#[derive(Debug, Parser)]
#[command(name = "retroanim", version, about, long_about = None, arg_required_else_help = true)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
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
    Convert(ConvertArgs),
}

/// `retroanim info`.
#[derive(Debug, Args)]
pub struct InfoArgs {
    /// The file to summarise.
    pub file: PathBuf,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// `retroanim dump`.
#[derive(Debug, Args)]
pub struct DumpArgs {
    /// The file to dump.
    pub file: PathBuf,
    /// Print the model as JSON (`retroanim convert dump.json out.tod` rebuilds the file).
    #[arg(long)]
    pub json: bool,
}

/// `retroanim validate`.
#[derive(Debug, Args)]
pub struct ValidateArgs {
    /// Files to check.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Print JSON (one array with an entry per file).
    #[arg(long)]
    pub json: bool,
    /// Only print errors (and the per-file verdict).
    #[arg(long, short)]
    pub quiet: bool,
}

/// `retroanim roundtrip`.
#[derive(Debug, Args)]
pub struct RoundtripArgs {
    /// Files to read, write and compare.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
}

/// `retroanim convert`.
#[derive(Debug, Args)]
pub struct ConvertArgs {
    /// Input file (format detected from its content).
    pub input: PathBuf,
    /// Output file, or `-` for standard output (then --to is required).
    pub output: PathBuf,
    /// Output format (default: from OUT's extension): tod, hmd, p3d, mdd, pc2, gltf, glb, json.
    #[arg(long, value_name = "FMT")]
    pub to: Option<String>,
    /// Frames per second for point caches: PC2 counts time in frames, MDD in seconds.
    /// MDD → PC2 default: guessed from the MDD's frame times (else 30); PC2 → MDD default: 30.
    #[arg(long, value_name = "FPS")]
    pub fps: Option<f32>,
    /// P3D: seconds one phase unit (a LOD frame time of 0..1) lasts. Default: (frames − 1) / --fps
    /// when --fps is given, else 1 (seconds equal phases).
    #[arg(long, value_name = "SECONDS")]
    pub duration: Option<f32>,
    /// P3D: the LOD by its resolution value (e.g. 1, 1e13). Default: the first LOD with frames,
    /// else the first LOD.
    #[arg(long, value_name = "RES")]
    pub lod: Option<f64>,
    /// Cache → P3D: the model whose LOD frames the cache replaces (everything else is kept byte
    /// for byte).
    #[arg(long, value_name = "P3D")]
    pub base: Option<PathBuf>,
    /// P3D axes: `default` (point caches in Arma 3 Object Builder's Blender axes, glTF right-handed
    /// +Y up with the model facing +Z) or `raw` (coordinates as stored).
    #[arg(long, value_enum, default_value_t = Axes::Default)]
    pub axes: Axes,
    /// Allow the output to replace the input file.
    #[arg(long)]
    pub force: bool,
}

/// `--axes`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Axes {
    /// The target format's usual axes.
    Default,
    /// Coordinates exactly as stored.
    Raw,
}
