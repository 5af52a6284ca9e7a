//! The typed options of a conversion ([`Options`], one struct per concern) and their checks.
//!
//! Split from the conversion table in `mod.rs`; everything here is re-exported from
//! [`crate::convert`].

use super::MimeInput;
use crate::error::{Error, Result};
use crate::formats::{tim, tmd::Tmd, tod::Tod};
use crate::{Format, Limits};

/// Axis convention of the output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Axes {
    /// The target's usual axes: glTF's +Y up for PlayStation and P3D scenes, Arma 3 Object
    /// Builder's Blender axes for P3D point caches.
    #[default]
    Default,
    /// Coordinates exactly as stored.
    Raw,
}

/// Geometry options: axes and scale.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Geometry {
    /// Axis convention (TOD/TMD/HMD/P3D → glTF, P3D ↔ MDD/PC2).
    pub axes: Option<Axes>,
    /// Metres per PlayStation unit (TOD/TMD/HMD → glTF; default 1/4096).
    pub scale: Option<f32>,
}

/// Timing options.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Timing {
    /// Frames per second: of point caches (MDD ↔ PC2, PC2 → glTF, P3D), of HMD animation keys.
    pub fps: Option<f32>,
    /// P3D: seconds one phase unit (LOD frame time 0..1) lasts.
    pub duration: Option<f32>,
    /// glTF → RTM: the animation time (seconds) of phase 0 (default 0).
    pub start: Option<f32>,
    /// TOD → glTF: LINEAR keys instead of STEP.
    pub smooth: bool,
}

/// What a TOD animation needs besides itself.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TodInput {
    /// The TMD model the animation drives (TMD ID k shows TMD object k-1).
    pub tmd: Option<Tmd>,
    /// Animations played first on the same object table (only the input's frames become keys).
    pub after: Vec<Tod>,
    /// glTF → TOD: ticks (1/60 s) per TOD frame, the header's resolution (default 1).
    pub resolution: Option<u16>,
}

/// Texture options.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Textures {
    /// TIMs for textured polygons (TOD/TMD/HMD → glTF; HMD: besides its own image primitives).
    pub tims: Vec<tim::Tim>,
    /// TIM → PNG: which CLUT row to use.
    pub clut: Option<usize>,
    /// TIM → PNG: STP texels semi-transparent (alpha 128).
    pub semi_transparent: bool,
    /// PNG → TIM: bits per pixel, 4, 8 or 16 (default 16).
    pub bpp: Option<u8>,
    /// PNG → TIM: the image's VRAM position (x in 16-bit units, y).
    pub vram: Option<(u16, u16)>,
    /// PNG → TIM: the CLUT's VRAM position (4 and 8 bpp).
    pub clut_at: Option<(u16, u16)>,
    /// PXL → TIM/PNG: the palette (else the first TIM's CLUT).
    pub clt: Option<crate::formats::clt::Clt>,
}

/// Which part of an HMD's animation to export.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HmdSelection {
    /// Only this sequence index (0 = each pointer's START IDX, k = extra sequence k).
    pub sequence: Option<usize>,
    /// Stream ID to start the sequences with (0..=127).
    pub stream_id: Option<u8>,
    /// Playback speed as a multiple (1 = the sequence's own pace, −1 = reversed), rounded to
    /// the console's 1/16 steps (SPEED is sign + 3.4 fixed point, so −8 ..= 7.9375); default:
    /// the file's SPEED, 1 where it stores 0, as [`crate::formats::hmd::SceneOptions::speed`].
    pub speed: Option<f64>,
    /// INTR IDX to play with instead of 0xFFFF (Sony's samples'), as
    /// [`crate::formats::hmd::SceneOptions::intr_idx`]: every update also writes the
    /// interpolated pose into the key frame of this descriptor.
    pub intr_idx: Option<u16>,
}

/// Which part of a P3D to use, and the model a point cache goes into.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct P3dSelection {
    /// The LOD by its resolution value (default: the first LOD with frames, else the first).
    pub lod: Option<f64>,
    /// Cache → P3D: the model whose LOD frames the cache replaces.
    pub base: Option<crate::formats::p3d::P3d>,
}

/// What an RTM export needs besides itself.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RtmInput {
    /// RTM → glTF: the skeletons of a `model.cfg` (`--skeleton`), parsed with
    /// [`crate::formats::rtm::skeleton::parse_model_cfg`]; the one naming most bones is used.
    pub skeletons: Option<Vec<crate::formats::rtm::Skeleton>>,
    /// RTM → glTF: the model the animation moves (`--p3d`, an MLOD): one LOD (`--lod`, default
    /// the first whose named selections name a bone) becomes a mesh skinned to the bones.
    pub p3d: Option<crate::formats::p3d::P3d>,
    /// glTF → RTM: the pose the matrices are relative to (`--rest`; default
    /// [`crate::formats::rtm::Rest::default_for`]).
    pub rest: Option<crate::formats::rtm::Rest>,
}

/// Everything a conversion may be told. Unset fields take each conversion's defaults; a set
/// field the conversion does not read is an [`Error::Option`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Options {
    /// Axes and scale.
    pub geometry: Geometry,
    /// Frame rates, durations, interpolation.
    pub timing: Timing,
    /// TOD: its model and the animations played before it.
    pub tod: TodInput,
    /// TIM inputs and TIM → PNG decoding.
    pub textures: Textures,
    /// HMD sequence choice.
    pub hmd: HmdSelection,
    /// P3D LOD and base model.
    pub p3d: P3dSelection,
    /// RTM skeleton.
    pub rtm: RtmInput,
    /// TMD → glTF: MIMe vertex and normal differences as morph targets, and their weights.
    pub mime: MimeInput,
    /// glTF → TOD/P3D: which of the glTF's animations to write (default 0, the first).
    pub animation: Option<usize>,
    /// The name given to the output's scene (glTF); default: the format's own.
    pub name: Option<String>,
    /// Resource limits for reading and playback.
    pub limits: Limits,
}

/// One option, by the name the command line gives it (`--lod` is `lod`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum OptionName {
    /// [`Geometry::axes`].
    Axes,
    /// [`Geometry::scale`].
    Scale,
    /// [`Timing::fps`].
    Fps,
    /// [`Timing::duration`].
    Duration,
    /// [`Timing::smooth`].
    Smooth,
    /// [`TodInput::tmd`].
    Tmd,
    /// [`TodInput::after`].
    After,
    /// [`TodInput::resolution`].
    Resolution,
    /// [`Textures::tims`].
    Tim,
    /// [`Textures::clut`].
    Clut,
    /// [`Textures::semi_transparent`].
    SemiTransparent,
    /// [`Textures::bpp`].
    Bpp,
    /// [`Textures::vram`].
    Vram,
    /// [`Textures::clut_at`].
    ClutAt,
    /// [`Textures::clt`].
    Clt,
    /// [`HmdSelection::sequence`].
    Sequence,
    /// [`HmdSelection::stream_id`].
    StreamId,
    /// [`HmdSelection::speed`].
    Speed,
    /// [`HmdSelection::intr_idx`].
    IntrIdx,
    /// [`P3dSelection::lod`].
    Lod,
    /// [`P3dSelection::base`].
    Base,
    /// [`Options::animation`].
    Animation,
    /// [`RtmInput::skeletons`].
    Skeleton,
    /// [`MimeInput::vdf`].
    Vdf,
    /// [`MimeInput::ndf`].
    Ndf,
    /// [`MimeInput::weights`].
    MimeWeights,
    /// [`RtmInput::p3d`].
    P3d,
    /// [`Timing::start`].
    Start,
    /// [`RtmInput::rest`].
    Rest,
}

impl OptionName {
    /// The option's name on the command line (without the dashes).
    pub fn name(self) -> &'static str {
        match self {
            OptionName::Axes => "axes",
            OptionName::Scale => "scale",
            OptionName::Fps => "fps",
            OptionName::Duration => "duration",
            OptionName::Smooth => "smooth",
            OptionName::Tmd => "tmd",
            OptionName::After => "after",
            OptionName::Resolution => "resolution",
            OptionName::Tim => "tim",
            OptionName::Clut => "clut",
            OptionName::SemiTransparent => "semi-transparent",
            OptionName::Bpp => "bpp",
            OptionName::Vram => "vram",
            OptionName::ClutAt => "clut",
            OptionName::Clt => "clt",
            OptionName::Sequence => "sequence",
            OptionName::StreamId => "stream-id",
            OptionName::Speed => "speed",
            OptionName::IntrIdx => "intr-idx",
            OptionName::Lod => "lod",
            OptionName::Base => "base",
            OptionName::Animation => "animation",
            OptionName::Skeleton => "skeleton",
            OptionName::Vdf => "vdf",
            OptionName::Ndf => "ndf",
            OptionName::MimeWeights => "mime-weights",
            OptionName::P3d => "p3d",
            OptionName::Start => "start",
            OptionName::Rest => "rest",
        }
    }
}

impl Options {
    /// The options that are set, in a stable order.
    pub fn set(&self) -> Vec<OptionName> {
        use OptionName as O;
        let mut v = Vec::new();
        let mut add = |on: bool, name| {
            if on {
                v.push(name)
            }
        };
        add(self.geometry.axes.is_some(), O::Axes);
        add(self.geometry.scale.is_some(), O::Scale);
        add(self.timing.fps.is_some(), O::Fps);
        add(self.timing.duration.is_some(), O::Duration);
        add(self.timing.smooth, O::Smooth);
        add(self.tod.tmd.is_some(), O::Tmd);
        add(!self.tod.after.is_empty(), O::After);
        add(self.tod.resolution.is_some(), O::Resolution);
        add(!self.textures.tims.is_empty(), O::Tim);
        add(self.textures.clut.is_some(), O::Clut);
        add(self.textures.semi_transparent, O::SemiTransparent);
        add(self.textures.bpp.is_some(), O::Bpp);
        add(self.textures.vram.is_some(), O::Vram);
        add(self.textures.clut_at.is_some(), O::ClutAt);
        add(self.textures.clt.is_some(), O::Clt);
        add(self.hmd.sequence.is_some(), O::Sequence);
        add(self.hmd.stream_id.is_some(), O::StreamId);
        add(self.hmd.speed.is_some(), O::Speed);
        add(self.hmd.intr_idx.is_some(), O::IntrIdx);
        add(self.p3d.lod.is_some(), O::Lod);
        add(self.p3d.base.is_some(), O::Base);
        add(self.animation.is_some(), O::Animation);
        add(self.rtm.skeletons.is_some(), O::Skeleton);
        add(self.mime.vdf.is_some(), O::Vdf);
        add(self.mime.ndf.is_some(), O::Ndf);
        add(self.mime.weights.is_some(), O::MimeWeights);
        add(self.rtm.p3d.is_some(), O::P3d);
        add(self.timing.start.is_some(), O::Start);
        add(self.rtm.rest.is_some(), O::Rest);
        v
    }

    /// Checks that every set option is one `allowed` names, and that the numbers given are in
    /// range.
    pub(super) fn check(&self, from: Format, to: Format, allowed: &[OptionName]) -> Result<()> {
        if let Some(bad) = self.set().into_iter().find(|o| !allowed.contains(o)) {
            let reads: Vec<String> = allowed.iter().map(|o| format!("--{}", o.name())).collect();
            return Err(option_error(
                bad,
                format!(
                    "does not apply to {from} → {to}{}",
                    if reads.is_empty() {
                        " (it takes no options)".to_string()
                    } else {
                        format!(" (it takes {})", reads.join(", "))
                    }
                ),
            ));
        }
        positive(OptionName::Scale, self.geometry.scale)?;
        positive(OptionName::Fps, self.timing.fps)?;
        positive(OptionName::Duration, self.timing.duration)?;
        if let Some(x) = self.timing.start.filter(|x| !x.is_finite()) {
            return Err(option_error(
                OptionName::Start,
                format!("{x}: must be a number"),
            ));
        }
        if self.tod.resolution == Some(0) {
            return Err(option_error(
                OptionName::Resolution,
                "0: a TOD frame lasts at least one tick".into(),
            ));
        }
        if let Some(s) = self.hmd.stream_id {
            if s > 127 {
                return Err(option_error(
                    OptionName::StreamId,
                    format!("{s}: stream IDs are 0..=127"),
                ));
            }
        }
        if let Some(x) = self.hmd.speed {
            speed_code(x)?;
        }
        Ok(())
    }
}

/// SPEED (sign + 3.4 fixed point, 0x10 = 1×) for a playback speed given as a multiple, rounded
/// to the console's 1/16 steps; an [`Error::Option`] outside −8 ..= 7.9375.
pub fn speed_code(x: f64) -> Result<i8> {
    let v = (x * 16.0).round();
    if !(x.is_finite() && (-128.0..=127.0).contains(&v)) {
        return Err(option_error(
            OptionName::Speed,
            format!(
                "{x}: must lie in -8 ..= 7.9375 (the console's SPEED is sign + 3.4 fixed point)"
            ),
        ));
    }
    Ok(v as i8)
}

fn positive(name: OptionName, v: Option<f32>) -> Result<()> {
    match v {
        Some(x) if !(x.is_finite() && x > 0.0) => Err(option_error(
            name,
            format!("{x}: must be a positive number"),
        )),
        _ => Ok(()),
    }
}

/// An [`Error::Option`] for `name`.
pub(crate) fn option_error(name: OptionName, what: String) -> Error {
    Error::Option {
        option: name.name(),
        what,
    }
}
