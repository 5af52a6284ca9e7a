//! A file → picture bytes: what `retroanim render` and the Python `render()` call.
//!
//! | input | picture |
//! |---|---|
//! | TMD | one frame, the model at rest, textured from the TIMs given |
//! | TOD + TMD (`tmd`) | an animated PNG, one picture per output frame |
//! | VDF / NDF + TMD (`tmd`) | the TMD at `weights`, or one picture per MIMe key (see [`super::mime`]) |
//! | HMD | the model at rest, or an animation of a sequence (see [`super::sources`]) |
//! | P3D | a LOD at rest, or an animation of its frames |
//! | glTF / GLB | the scene at rest, or an animation of its first animation |
//! | TIM | its image through its first CLUT (0x0000 transparent) |
//! | raw VRAM dump ([`Input::VramDump`]) | the whole 1024 × 512 VRAM |
//!
//! Point caches (MDD, PC2) are refused: they hold points without polygons. The file written
//! is [`RenderOptions::output`]: PNG (animated PNG for animations), GIF (animated GIF) or WebP
//! (still pictures only), see [`super::encode`].

use crate::error::{Error, Result};
use crate::formats::tim::{self, Tim};
use crate::formats::tmd::author::Counts;
use crate::formats::tmd::Tmd;
use crate::formats::tod::{Player, Tod};
use crate::report::Note;
use crate::vram::Vram;
use crate::{Format, Limits, Model};

use super::encode::encode_frames;
use super::{
    draw_tmd_within, front_area, tmd_bounds, with_yaw, Budget, Camera, Framebuffer, Instance, View,
};

/// How the input bytes are to be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Input {
    /// Detect the format from the content.
    #[default]
    Detect,
    /// A raw 1 MB VRAM dump (1024 × 512 little-endian halfwords).
    VramDump,
    /// A file whose name gives it a format ([`crate::named_without_magic`]: a `.vdf`, `.ndf`):
    /// read as that format when its bytes begin no format retroanim knows, else detected.
    Named(Format),
}

/// The picture file written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OutputKind {
    /// PNG; animated PNG (APNG) for more than one frame.
    #[default]
    Png,
    /// GIF; animated GIF for more than one frame.
    Gif,
    /// Lossless WebP, one frame (animations are refused).
    Webp,
}

impl OutputKind {
    /// The kind a file name's extension asks for (`.png`, `.apng`, `.gif`, `.webp`).
    pub fn from_path(path: &std::path::Path) -> Option<OutputKind> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        match ext.as_str() {
            "png" | "apng" => Some(OutputKind::Png),
            "gif" => Some(OutputKind::Gif),
            "webp" => Some(OutputKind::Webp),
            _ => None,
        }
    }
}

/// Everything `render` may be told. Options an input does not use are errors.
#[derive(Debug, Clone, Default)]
pub struct RenderOptions {
    /// Camera and picture.
    pub view: View,
    /// Whether the caller set the view (yaw, pitch, distance, size, background): refused for
    /// textures and VRAM dumps, which are shown as stored.
    pub view_set: bool,
    /// TIMs placed in VRAM at their own positions before drawing (TMD, TOD).
    pub tims: Vec<Tim>,
    /// The model a TOD drives (TMD ID k shows TMD object k − 1), or the base TMD MIMe
    /// differences (VDF, NDF) change.
    pub tmd: Option<Tmd>,
    /// MIMe differences: one weight per key (4096 = 1.0), as `play --weights` takes them; one
    /// picture of the base at those weights. `None`: one picture per key.
    pub weights: Option<Vec<i32>>,
    /// MIMe differences: the file of the other kind played with the one drawn (a VDF's NDF,
    /// an NDF's VDF), with the same weights.
    pub mime_partner: Option<crate::formats::mime::Diff>,
    /// Frames to draw: `start..end` (end exclusive): TOD frame numbers for a TOD, picture
    /// numbers (at the output fps) for HMD, P3D and glTF animations, keys for MIMe differences.
    pub frames: Option<(u32, u32)>,
    /// Output frames per second (default: a TOD's own rate; 60 for HMD; 30 for P3D and glTF).
    pub fps: Option<f64>,
    /// HMD: the sequence index to play (default 0).
    pub sequence: Option<usize>,
    /// HMD: the stream ID to start with instead of the sequence's START SID.
    pub stream_id: Option<u8>,
    /// P3D: the LOD by its resolution value (default: the first LOD with frames, else the
    /// first).
    pub lod: Option<f64>,
    /// Bounds for a preview (the report's pictures): never refused, used only by animations.
    pub preview: Option<Preview>,
    /// How to read the input.
    pub input: Input,
    /// The picture file kind.
    pub output: OutputKind,
    /// Resource limits.
    pub limits: Limits,
}

/// How an animation is cut down for a preview.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Preview {
    /// Pictures per second when `fps` is not given.
    pub fps: f64,
    /// The most pictures drawn: a longer animation shows its first ones.
    pub max_pictures: usize,
}

/// A rendered picture file.
#[derive(Debug, Clone, PartialEq)]
pub struct Rendered {
    /// The file's bytes.
    pub bytes: Vec<u8>,
    /// Pictures in it (1, or the frames of an animation).
    pub frames: usize,
    /// What the picture leaves out.
    pub notes: Vec<Note>,
}

/// The most pictures one animation is drawn into.
pub const MAX_FRAMES: usize = 3600;

pub(super) fn option(option: &'static str, what: impl Into<String>) -> Error {
    Error::Option {
        option,
        what: what.into(),
    }
}

/// The options that do not apply to a picture shown as stored (a TIM, a VRAM dump): no model,
/// no camera, no animation.
const SHOWN_AS_STORED: &[&str] = &[
    "weights",
    "mime-partner",
    "tim",
    "tmd",
    "frames",
    "fps",
    "view",
    "sequence",
    "stream-id",
    "lod",
];

/// Renders a file's bytes (see the module table).
pub fn render_file(data: &[u8], opts: &RenderOptions) -> Result<Rendered> {
    check_size(opts)?;
    if opts.input == Input::VramDump {
        refuse(opts, "a VRAM dump", SHOWN_AS_STORED)?;
        let vram = Vram::from_dump(data)?;
        return still(vram.to_rgba(), Vec::new(), opts);
    }
    if let (Input::Named(f), None) = (opts.input, crate::detect(data)) {
        return render_model(&crate::read_as(data, Some(f), &opts.limits)?, opts);
    }
    if matches!(crate::detect(data), Some(Format::Gltf | Format::Glb)) {
        refuse(opts, "a glTF", &["weights", "mime-partner"])?;
        return super::sources::gltf(data, opts);
    }
    render_model(&crate::read_any_with(data, &opts.limits)?, opts)
}

/// Renders a model already read (see the module table; glTF goes through [`render_file`]).
pub fn render_model(model: &Model, opts: &RenderOptions) -> Result<Rendered> {
    check_size(opts)?;
    if !matches!(model, Model::Vdf(_) | Model::Ndf(_)) {
        refuse(
            opts,
            &format!("a {}", model.format()),
            &["weights", "mime-partner"],
        )?;
    }
    match model {
        Model::Tim(t) => {
            refuse(
                opts,
                "a TIM",
                SHOWN_AS_STORED,
            )?;
            still(t.to_rgba(&tim::DecodeOptions::default())?, Vec::new(), opts)
        }
        Model::Tmd(t) => {
            refuse(
                opts,
                "a TMD",
                &["tmd", "frames", "fps", "sequence", "stream-id", "lod"],
            )?;
            let vram = vram_of(&opts.tims);
            let (fb, notes) =
                super::render_tmd_within(t, &vram, &opts.view, &mut Budget::of(opts, 1))?;
            still(rgba(&fb), notes, opts)
        }
        // A PMD is drawn as the TMD its packets make (`pmd::to_tmd`: the same polygons,
        // vertices and texture places), with that conversion's notes.
        Model::Pmd(p) => {
            let (tmd, noted) = crate::formats::pmd::to_tmd(p)?;
            let mut r = render_model(&Model::Tmd(tmd), opts)?;
            r.notes.extend(noted.into_iter().map(|(code, message)| Note {
                code,
                message,
            }));
            Ok(r)
        }
        Model::Tod(anim) => tod(anim, opts),
        Model::Vdf(d) => super::mime::render(d, Format::Vdf, opts),
        Model::Ndf(d) => super::mime::render(d, Format::Ndf, opts),
        Model::Hmd(h) => super::sources::hmd(h, opts),
        Model::P3d(p) => super::sources::p3d(p, opts),
        other => Err(Error::Unsupported {
            format: other.format(),
            offset: 0,
            feature: format!(
                "drawing {} files: render draws TMD, PMD, HMD, P3D and glTF models, TOD animations and MIMe differences with their TMD, TIMs and VRAM dumps",
                other.format()
            ),
        }),
    }
}

fn check_size(opts: &RenderOptions) -> Result<()> {
    let (w, h) = (opts.view.width, opts.view.height);
    if w == 0 || h == 0 || w > super::MAX_SIDE || h > super::MAX_SIDE {
        return Err(option(
            "size",
            format!("{w}x{h}: each side must be 1..={}", super::MAX_SIDE),
        ));
    }
    Ok(())
}

/// Refuses the options named in `unused` that the caller set.
pub(super) fn refuse(opts: &RenderOptions, what: &str, unused: &[&'static str]) -> Result<()> {
    for &name in unused {
        let set = match name {
            "tim" => !opts.tims.is_empty(),
            "tmd" => opts.tmd.is_some(),
            "frames" => opts.frames.is_some(),
            "fps" => opts.fps.is_some(),
            "view" => opts.view_set,
            "sequence" => opts.sequence.is_some(),
            "stream-id" => opts.stream_id.is_some(),
            "lod" => opts.lod.is_some(),
            "weights" => opts.weights.is_some(),
            "mime-partner" => opts.mime_partner.is_some(),
            _ => false,
        };
        if set {
            let name = match name {
                "view" => "yaw/--pitch/--distance/--size/--background",
                "mime-partner" => "vdf/--ndf",
                _ => name,
            };
            return Err(option(name, format!("does not apply to {what}")));
        }
    }
    Ok(())
}

pub(super) fn vram_of(tims: &[Tim]) -> Vram {
    let mut vram = Vram::new();
    for t in tims {
        vram.place_tim(t);
    }
    vram
}

fn rgba(fb: &Framebuffer) -> tim::Rgba {
    tim::Rgba {
        width: fb.width,
        height: fb.height,
        pixels: fb.to_rgba(),
    }
}

fn still(img: tim::Rgba, notes: Vec<Note>, opts: &RenderOptions) -> Result<Rendered> {
    let size = (img.width as u32, img.height as u32);
    let mut pixels = Some(img.pixels);
    Ok(Rendered {
        bytes: encode_frames(opts.output, size, 1, 1.0, |_| {
            Ok(pixels.take().unwrap_or_default())
        })?,
        frames: 1,
        notes,
    })
}

/// A TOD played on its TMD: one picture per output frame, the camera framing every pose.
fn tod(anim: &Tod, opts: &RenderOptions) -> Result<Rendered> {
    let Some(model) = &opts.tmd else {
        return Err(option(
            "tmd",
            "a TOD animation moves the objects of a TMD model: give it with --tmd",
        ));
    };
    let tpf = f64::from(anim.ticks_per_frame());
    let first = anim.frames.first().map_or(0, |f| f.number);
    let last = anim.frames.iter().map(|f| f.number).max().unwrap_or(first);
    let (start, end) = opts.frames.unwrap_or((first, last.saturating_add(1)));
    if start >= end || start > last {
        return Err(option(
            "frames",
            format!("{start}..{end}: the TOD's frames are {first}..{}", last + 1),
        ));
    }
    let fps = opts
        .fps
        .or(opts.preview.map(|p| p.fps))
        .unwrap_or(60.0 / tpf);
    if !(fps.is_finite() && fps > 0.0 && fps <= 240.0) {
        return Err(option("fps", format!("{fps}: must be in (0, 240]")));
    }
    // Output frame k shows the pose at k / fps seconds after `start`.
    let mut ticks = Vec::new();
    let end = end.min(last.saturating_add(1));
    let cap = opts.preview.map_or(usize::MAX, |p| p.max_pictures.max(1));
    let mut k = 0u64;
    loop {
        let tick = f64::from(start) + (k as f64 / fps) * 60.0 / tpf;
        if tick >= f64::from(end) || ticks.len() == cap {
            break;
        }
        if ticks.len() == MAX_FRAMES {
            return Err(Error::LimitExceeded {
                offset: None,
                what: "pictures in one animation".into(),
                requested: ticks.len() as u64 + 1,
                limit: MAX_FRAMES as u64,
            });
        }
        ticks.push(tick.floor() as u32);
        k += 1;
    }
    let mut player = Player::new(anim, Some(model));
    let mut poses: Vec<Vec<Instance>> = Vec::with_capacity(ticks.len());
    for &t in &ticks {
        player.seek(t);
        let pose = player.pose();
        poses.push(
            pose.objects
                .iter()
                .filter(|o| o.visible)
                .filter_map(|o| Some((o.model?, o.world)))
                .collect(),
        );
    }
    let bounds = super::union_bounds(poses.iter().map(|p| tmd_bounds(model, p)));
    let vram = vram_of(&opts.tims);
    let first_pose: &[Instance] = poses.first().map_or(&[], |p| p.as_slice());
    let view = with_yaw(&opts.view, |v| {
        front_area(model, first_pose, &vram, &Camera::frame(bounds, v))
    });
    let camera = Camera::frame(bounds, &view);
    let mut counts = Counts::default();
    let mut budget = Budget::of(opts, poses.len());
    let bytes = encode_frames(
        opts.output,
        (view.width, view.height),
        poses.len(),
        fps,
        |k| {
            let (fb, notes) =
                draw_tmd_within(model, &poses[k], &vram, (&camera, &view), &mut budget)?;
            for n in notes {
                counts.add(n.code, 1, || format!("frames where {}", n.message));
            }
            Ok(fb.to_rgba())
        },
    )?;
    let empty = poses.iter().filter(|p| p.is_empty()).count();
    counts.add("no-objects", empty, || {
        "frames show no object (no TMD object linked and visible)".into()
    });
    for (code, text) in player.coded_notes() {
        counts.add(code, 1, || text.to_string());
    }
    Ok(Rendered {
        bytes,
        frames: poses.len(),
        notes: counts.finish(),
    })
}
