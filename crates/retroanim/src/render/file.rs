//! A file → picture bytes: what `retroanim render` and the Python `render()` call.
//!
//! | input | picture |
//! |---|---|
//! | TMD | one frame, the model at rest, textured from the TIMs given |
//! | TOD + TMD (`tmd`) | an animated PNG, one picture per output frame |
//! | TIM | its image through its first CLUT (0x0000 transparent) |
//! | raw VRAM dump ([`Input::VramDump`]) | the whole 1024 × 512 VRAM |
//!
//! HMD, P3D, glTF and point caches are not drawn yet: they are refused with an error naming
//! them. Output is PNG (animated PNG for animations); GIF and WebP are refused.

use crate::error::{Error, Result};
use crate::formats::tim::{self, Tim};
use crate::formats::tmd::author::Counts;
use crate::formats::tmd::Tmd;
use crate::formats::tod::{Player, Tod};
use crate::report::Note;
use crate::vram::Vram;
use crate::{Format, Limits, Model};

use super::{draw_tmd, front_area, tmd_bounds, with_yaw, Camera, Framebuffer, Instance, View};

/// How the input bytes are to be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Input {
    /// Detect the format from the content.
    #[default]
    Detect,
    /// A raw 1 MB VRAM dump (1024 × 512 little-endian halfwords).
    VramDump,
}

/// The picture file written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OutputKind {
    /// PNG; animated PNG (APNG) for more than one frame.
    #[default]
    Png,
    /// GIF (not written yet: refused).
    Gif,
    /// WebP (not written yet: refused).
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
    /// The model a TOD drives (TMD ID k shows TMD object k − 1).
    pub tmd: Option<Tmd>,
    /// TOD frame numbers to draw: `start..end` (end exclusive).
    pub frames: Option<(u32, u32)>,
    /// Output frames per second (default: one picture per TOD frame, at the TOD's own rate).
    pub fps: Option<f64>,
    /// How to read the input.
    pub input: Input,
    /// The picture file kind.
    pub output: OutputKind,
    /// Resource limits.
    pub limits: Limits,
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

fn option(option: &'static str, what: impl Into<String>) -> Error {
    Error::Option {
        option,
        what: what.into(),
    }
}

/// Renders a file's bytes (see the module table).
pub fn render_file(data: &[u8], opts: &RenderOptions) -> Result<Rendered> {
    match opts.output {
        OutputKind::Png => {}
        OutputKind::Gif | OutputKind::Webp => {
            return Err(Error::Parameter {
                what: "GIF and WebP output are not written yet: name the output .png (animations become animated PNG)".into(),
            })
        }
    }
    if opts.view.width == 0
        || opts.view.height == 0
        || opts.view.width > super::MAX_SIDE
        || opts.view.height > super::MAX_SIDE
    {
        return Err(option(
            "size",
            format!(
                "{}x{}: each side must be 1..={}",
                opts.view.width,
                opts.view.height,
                super::MAX_SIDE
            ),
        ));
    }
    if opts.input == Input::VramDump {
        refuse(
            opts,
            "a VRAM dump",
            &["tim", "tmd", "frames", "fps", "view"],
        )?;
        let vram = Vram::from_dump(data)?;
        return still(vram.to_rgba(), Vec::new());
    }
    match crate::read_any_with(data, &opts.limits)? {
        Model::Tim(t) => {
            refuse(opts, "a TIM", &["tim", "tmd", "frames", "fps", "view"])?;
            still(t.to_rgba(&tim::DecodeOptions::default())?, Vec::new())
        }
        Model::Tmd(t) => {
            refuse(opts, "a TMD", &["tmd", "frames", "fps"])?;
            let vram = vram_of(&opts.tims);
            let (fb, notes) = super::render_tmd(&t, &vram, &opts.view);
            still(rgba(&fb), notes)
        }
        Model::Tod(anim) => tod(&anim, opts),
        other => Err(Error::Unsupported {
            format: other.format(),
            offset: 0,
            feature: format!(
                "drawing {} files: render draws TMD models, TOD animations with their TMD, TIMs and VRAM dumps",
                other.format()
            ),
        }),
    }
}

/// Refuses the options named in `unused` that the caller set.
fn refuse(opts: &RenderOptions, what: &str, unused: &[&'static str]) -> Result<()> {
    for &name in unused {
        let set = match name {
            "tim" => !opts.tims.is_empty(),
            "tmd" => opts.tmd.is_some(),
            "frames" => opts.frames.is_some(),
            "fps" => opts.fps.is_some(),
            "view" => opts.view_set,
            _ => false,
        };
        if set {
            let name = if name == "view" {
                "yaw/--pitch/--distance/--size/--background"
            } else {
                name
            };
            return Err(option(name, format!("does not apply to {what}")));
        }
    }
    Ok(())
}

fn vram_of(tims: &[Tim]) -> Vram {
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

fn still(img: tim::Rgba, notes: Vec<Note>) -> Result<Rendered> {
    Ok(Rendered {
        bytes: tim::encode_png(&img)?,
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
    let fps = opts.fps.unwrap_or(60.0 / tpf);
    if !(fps.is_finite() && fps > 0.0 && fps <= 240.0) {
        return Err(option("fps", format!("{fps}: must be in (0, 240]")));
    }
    // Output frame k shows the pose at k / fps seconds after `start`.
    let mut ticks = Vec::new();
    let end = end.min(last.saturating_add(1));
    let mut k = 0u64;
    loop {
        let tick = f64::from(start) + (k as f64 / fps) * 60.0 / tpf;
        if tick >= f64::from(end) {
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
    let mut bounds: Option<[[f64; 3]; 2]> = None;
    for p in &poses {
        if let Some(b) = tmd_bounds(model, p) {
            let e = bounds.get_or_insert(b);
            for i in 0..3 {
                e[0][i] = e[0][i].min(b[0][i]);
                e[1][i] = e[1][i].max(b[1][i]);
            }
        }
    }
    let bounds = bounds.unwrap_or([[0.0; 3]; 2]);
    let vram = vram_of(&opts.tims);
    let first_pose: &[Instance] = poses.first().map_or(&[], |p| p.as_slice());
    let view = with_yaw(&opts.view, |v| {
        front_area(model, first_pose, &vram, &Camera::frame(bounds, v))
    });
    let camera = Camera::frame(bounds, &view);
    let mut counts = Counts::default();
    let mut frames = Vec::with_capacity(poses.len());
    for p in &poses {
        let (fb, notes) = draw_tmd(model, p, &vram, &camera, &view);
        for n in notes {
            counts.add(n.code, 1, || format!("frames where {}", n.message));
        }
        frames.push(fb);
    }
    let empty = poses.iter().filter(|p| p.is_empty()).count();
    counts.add("no-objects", empty, || {
        "frames show no object (no TMD object linked and visible)".into()
    });
    for (code, text) in player.coded_notes() {
        counts.add(code, 1, || text.to_string());
    }
    let bytes = apng(&frames, fps)?;
    Ok(Rendered {
        bytes,
        frames: frames.len(),
        notes: counts.finish(),
    })
}

/// The frames as a PNG (one frame) or an animated PNG looping forever at `fps`.
fn apng(frames: &[Framebuffer], fps: f64) -> Result<Vec<u8>> {
    let fail = |e: png::EncodingError| Error::Unencodable {
        format: Format::Png,
        what: e.to_string(),
    };
    let Some(f0) = frames.first() else {
        return Err(Error::Parameter {
            what: "no frame to draw".into(),
        });
    };
    let mut out = Vec::new();
    let mut enc = png::Encoder::new(&mut out, f0.width as u32, f0.height as u32);
    enc.set_color(png::ColorType::Rgba);
    enc.set_depth(png::BitDepth::Eight);
    if frames.len() > 1 {
        enc.set_animated(frames.len() as u32, 0).map_err(fail)?;
        // Delay as a fraction: 1000 / (fps · 1000) seconds.
        let den = (fps * 100.0).round().clamp(1.0, 65535.0) as u16;
        enc.set_frame_delay(100, den).map_err(fail)?;
    }
    let mut w = enc.write_header().map_err(fail)?;
    for f in frames {
        w.write_image_data(&f.to_rgba()).map_err(fail)?;
    }
    w.finish().map_err(fail)?;
    Ok(out)
}
