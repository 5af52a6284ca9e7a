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
    /// Play a file's animation as the console does and print each frame's pose.
    Play(PlayArgs),
}

/// `retroanim play`.
#[derive(Debug, Args)]
pub struct PlayArgs {
    /// The animated model (HMD).
    pub file: PathBuf,
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
    /// Print only the frames in this inclusive range, e.g. `0..100` (default: from 0 until
    /// every sequence ends, at most 600 frames).
    #[arg(long, value_name = "A..B")]
    pub frames: Option<String>,
    /// Also print the vertices (and normals) as MIMe deforms them.
    #[arg(long)]
    pub vertices: bool,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
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
    /// Output format (default: from OUT's extension): tod, hmd, mdd, pc2, gltf, glb, json.
    #[arg(long, value_name = "FMT")]
    pub to: Option<String>,
    /// Frames per second for point caches: PC2 counts time in frames, MDD in seconds.
    /// MDD → PC2 default: guessed from the MDD's frame times (else 30); PC2 → MDD default: 30.
    #[arg(long, value_name = "FPS")]
    pub fps: Option<f32>,
    /// Allow the output to replace the input file.
    #[arg(long)]
    pub force: bool,
    /// HMD → glTF: export only this sequence index (0 = each pointer's START IDX, k = extra
    /// sequence k); default: every sequence, one glTF animation each.
    #[arg(long, value_name = "N")]
    pub sequence: Option<usize>,
    /// HMD → glTF: stream ID to start the sequences with (0..127).
    #[arg(long, value_name = "S")]
    pub stream_id: Option<u8>,
    /// TOD/TMD/HMD → glTF: `yup` turns the PlayStation's Y-down axes 180° about X into glTF's
    /// Y-up; `raw` keeps them.
    #[arg(long, value_enum, default_value_t = AxesArg::Yup)]
    pub axes: AxesArg,
    /// TOD/TMD/HMD → glTF: metres per PlayStation unit (default 1/4096: 4096 units = 1 m).
    #[arg(long, value_name = "METRES", default_value_t = 1.0 / 4096.0)]
    pub scale: f32,
}

/// `--axes`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum AxesArg {
    /// glTF's +Y up (the console's axes turned 180° about X).
    Yup,
    /// The console's own axes (+Y down, +Z into the screen).
    Raw,
}
