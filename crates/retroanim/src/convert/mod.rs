//! Every conversion retroanim offers, in one place: source format × target format × typed
//! options → output bytes + notes.
//!
//! The command line, the Python package and any other program call [`convert`] (a model already
//! read) or [`convert_bytes`] (a file's bytes, the format detected or forced); none of them
//! needs to know which exporter a pair takes or which options it reads. [`targets`] lists what
//! a source format converts to, for "no such conversion" messages and menus.
//!
//! # Options
//!
//! [`Options`] holds one struct per concern: [`Geometry`] (axes, scale), [`Timing`] (frame rate,
//! phase duration, interpolation), [`TodInput`] (the TMD a TOD drives, TODs played first),
//! [`Textures`] (TIMs for textured polygons, CLUT and STP choice for TIM → PNG),
//! [`HmdSelection`] (sequence, stream ID, speed), [`P3dSelection`] (LOD, base model) and
//! [`MimeInput`] (VDF/NDF differences and their weights as glTF morph targets, [`mime`]). Every field
//! is unset by default; a conversion refuses an option it does not read with
//! [`Error::Option`] naming it, so that nothing the caller asked for is silently ignored.
//!
//! # Notes
//!
//! A conversion that leaves something of the input out, or cannot express it exactly, says so
//! in [`Conversion::notes`] (what and how many); the CLI prints them as `note:` lines.
//!
//! # Streaming
//!
//! [`stream`] converts the large point-cache cases (MLOD → MDD/PC2, cache → P3D with a base)
//! from readers to a writer, with one frame in memory; the output is byte-identical to
//! [`convert`]'s.

mod author;
mod clt_pxl;
mod gltf_p3d;
pub mod mime;
mod mime_author;
mod options;
mod p3d;
pub mod rsd;
mod rtm;
pub mod stream;

use crate::error::{Error, Result};
use crate::formats::{tim, tod::Tod};
use crate::{Format, Model};
pub use mime::MimeInput;
pub use options::*;

/// Something a conversion left out or could not carry exactly (defined beside the findings, in
/// [`crate::report`], so the formats' authors below this module can make them).
pub use crate::report::Note;

/// The result of a conversion.
#[derive(Debug, Clone, PartialEq)]
pub struct Conversion {
    /// The output file's bytes.
    pub bytes: Vec<u8>,
    /// The target format.
    pub format: Format,
    /// What the output leaves out or approximates.
    pub notes: Vec<Note>,
    /// Files that go with the output (glTF → TMD: the TIMs its textures became; glTF → TOD:
    /// the TMD model and its TIMs), each to be written beside it.
    pub extra: Vec<Extra>,
}

/// A file that goes with a conversion's output: written beside it, named after the output's
/// file stem followed by [`Extra::suffix`] (`out.tod` → `out.tmd`, `out_0.tim`).
#[derive(Debug, Clone, PartialEq)]
pub struct Extra {
    /// What follows the output's stem in the file name, e.g. `.tmd` or `_0.tim`.
    pub suffix: String,
    /// The file's format.
    pub format: Format,
    /// The file's bytes.
    pub bytes: Vec<u8>,
}

impl Extra {
    /// Where this file goes beside `output`: the output's folder, its file stem followed by
    /// [`Extra::suffix`] (the CLI and the Python package both name extra files this way).
    pub fn path_beside(&self, output: &std::path::Path) -> std::path::PathBuf {
        let mut name = output.file_stem().unwrap_or_default().to_os_string();
        name.push(&self.suffix);
        output.with_file_name(name)
    }
}

/// The formats a model of format `from` converts to (itself and JSON included), in a stable
/// order. Every pair listed here is one [`convert`] accepts.
pub fn targets(from: Format) -> &'static [Format] {
    use Format::*;
    match from {
        Tod => &[Gltf, Glb, Json],
        Tmd => &[Gltf, Glb, Json, Pmd, Rsd],
        Pmd => &[Tmd, Gltf, Glb, Json],
        // An RSD set (read with `formats::rsd::read_set`; see `rsd::convert_set`).
        Rsd => &[Tmd, Gltf, Glb, Json],
        Hmd => &[Gltf, Glb, Json, Lab],
        Tim => &[Png, Json, Pxl, Clt],
        Pxl => &[Tim, Png, Json],
        Clt => &[Png, Json],
        // On their base TMD (`--tmd`), as morph targets (see `mime`).
        Vdf | Ndf => &[Gltf, Glb, Json],
        P3d => &[Mdd, Pc2, Gltf, Glb, Json],
        Mdd => &[Pc2, P3d, Gltf, Glb, Json],
        Pc2 => &[Mdd, P3d, Gltf, Glb, Json],
        Png => &[Tim],
        // A JSON dump converts to whatever its model converts to.
        // LAB source is assembled first (it needs its includes: see `lab`).
        Lab => &[Hmd],
        // Authoring for the console (see `author`); morph animation into a P3D's LOD frames.
        // Morph targets on a TMD's mesh back into MIMe differences (with --tmd).
        Gltf | Glb => &[Tmd, Tod, Hmd, P3d, Rsd, Rtm, Vdf, Ndf],
        Rtm => &[Gltf, Glb, Json],
        Json => &[],
    }
}

/// What a file of format `from` becomes when a folder is converted without a target
/// (`convert -r DIR --out-dir OUT`): models, animations and MIMe differences (on their base) a
/// GLB, TIM a PNG, a point cache a GLB, PNG a TIM, LAB source an HMD; `None` for kinds with
/// nothing to convert to (glTF, JSON).
pub fn natural_target(from: Format) -> Option<Format> {
    use Format::*;
    match from {
        Tod | Tmd | Hmd | P3d | Mdd | Pc2 | Pmd | Rtm | Vdf | Ndf => Some(Glb),
        Tim | Pxl | Clt => Some(Png),
        Png => Some(Tim),
        Lab => Some(Hmd),
        Rsd => Some(Tmd),
        Gltf | Glb | Json => None,
    }
}

/// Whether [`targets`] of `from` includes `to`, or `to` is `from` itself (a rewrite).
pub fn can_convert(from: Format, to: Format) -> bool {
    from == to || targets(from).contains(&to)
}

/// Reads `data` (format detected from the content, or `from` when given) and converts it.
pub fn convert_bytes(
    data: &[u8],
    from: Option<Format>,
    target: Format,
    opts: &Options,
) -> Result<Conversion> {
    match from.or_else(|| crate::detect(data)) {
        Some(Format::Png) => return png_to_tim(data, target, opts),
        Some(f @ (Format::Gltf | Format::Glb)) if target == Format::Rsd => {
            return rsd::gltf_to_rsd(data, f, opts)
        }
        Some(f @ (Format::Gltf | Format::Glb)) if target == Format::P3d => {
            return gltf_p3d::gltf_to_p3d(data, f, opts)
        }
        Some(f @ (Format::Gltf | Format::Glb)) if target == Format::Rtm => {
            return rtm::gltf_to_rtm(data, f, opts)
        }
        Some(f @ (Format::Gltf | Format::Glb)) if matches!(target, Format::Vdf | Format::Ndf) => {
            return mime_author::gltf_to_diff(data, f, target, opts)
        }
        Some(f @ (Format::Gltf | Format::Glb)) => {
            return author::gltf_to_psx(data, f, target, opts)
        }
        _ => {}
    }
    let model = match crate::read_as(data, from, &opts.limits) {
        Ok(m) => m,
        // A find scan reads leniently (a TIM's or TMD's length field the data disagrees with)
        // converts as scan converts it, with a note.
        Err(e) => {
            let format = from.or_else(|| crate::detect(data));
            let Some((bytes, fix)) = format.and_then(|f| crate::scan::lenient::fixed(data, f))
            else {
                return Err(e);
            };
            let Ok(model) = crate::read_as(&bytes, format, &opts.limits) else {
                return Err(e);
            };
            let mut done = convert(&model, target, opts)?;
            done.notes.insert(
                0,
                Note {
                    code: "lenient-length",
                    message: format!("read as scan reads it: {}", fix.warning),
                },
            );
            return Ok(done);
        }
    };
    convert(&model, target, opts)
}

/// Refuses a model its own writer cannot write (arrays that disagree, as a JSON dump edited by
/// hand can hold), with validate's `unwritable` offset and message.
fn refuse_unwritable(model: &Model) -> Result<()> {
    match model.write() {
        Ok(_) => Ok(()),
        Err(e) => Err(Error::Malformed {
            format: model.format(),
            offset: e.offset().unwrap_or(0),
            what: e.to_string(),
        }),
    }
}

/// PNG → TIM ([`tim::Tim::from_rgba`]), with a note for each change the console's format forces.
fn png_to_tim(data: &[u8], target: Format, opts: &Options) -> Result<Conversion> {
    use OptionName as O;
    if target != Format::Tim {
        return Err(no_such(Format::Png, target));
    }
    opts.check(Format::Png, target, &[O::Bpp, O::Vram, O::ClutAt])?;
    let d = tim::EncodeOptions::default();
    let depth = match opts.textures.bpp.unwrap_or(16) {
        4 => tim::Depth::Clut4,
        8 => tim::Depth::Clut8,
        16 => tim::Depth::Direct15,
        b => {
            return Err(option_error(
                O::Bpp,
                format!("{b}: TIMs are written at 4, 8 or 16 bpp"),
            ))
        }
    };
    if depth == tim::Depth::Direct15 && opts.textures.clut_at.is_some() {
        return Err(option_error(O::ClutAt, "a 16 bpp TIM has no CLUT".into()));
    }
    // The VRAM holds 1024 × 512 halfwords: a wider or taller image cannot be a TIM, and is
    // refused from its header before its pixels are decoded.
    let (w, h) = tim::png_dimensions(data)?;
    let per_unit = match depth {
        tim::Depth::Clut4 => 4,
        tim::Depth::Clut8 => 2,
        _ => 1,
    };
    if u64::from(w) > 1024 * per_unit || h > 512 {
        return Err(Error::Unencodable {
            format: Format::Tim,
            what: format!(
                "a {w} × {h} image does not fit the 1024 × 512-halfword VRAM at this depth (at most {} × 512 pixels)",
                1024 * per_unit
            ),
        });
    }
    let img = tim::decode_png(data, &opts.limits)?;
    let e = tim::EncodeOptions {
        depth,
        vram: opts.textures.vram.unwrap_or(d.vram),
        clut: opts.textures.clut_at.unwrap_or(d.clut),
    };
    let (t, r) = tim::Tim::from_rgba(&img, &e)?;
    let mut notes = Vec::new();
    if r.pixels_rounded > 0 {
        notes.push(Note {
            code: "colour-rounded",
            message: format!(
                "{} pixels had channels between the console's 32 levels and were rounded down to 5 bits per channel",
                r.pixels_rounded
            ),
        });
    }
    if r.pixels_changed > 0 {
        notes.push(Note {
            code: "palette-reduced",
            message: format!(
                "{} colours reduced to a palette of {}: {} pixels changed, by at most {} in a channel",
                r.colours, r.palette, r.pixels_changed, r.max_channel_error
            ),
        });
    }
    if r.padded_columns > 0 {
        notes.push(Note {
            code: "width-padded",
            message: format!(
                "{} transparent columns added on the right to fill the last 16-bit VRAM unit of each row",
                r.padded_columns
            ),
        });
    }
    Ok(done_notes(tim::write(&t)?, target, notes))
}

/// A TOD as a `.gltf` whose binary data is in two parts ([`crate::export::gltf::Parts`]): its
/// model's meshes, materials and textures (the same bytes for every animation of one model with
/// the same textures and options, so they can be written once and shared), and its own.
pub fn tod_gltf_parts(
    anim: &Tod,
    opts: &Options,
) -> Result<(crate::export::gltf::Parts, Vec<Note>)> {
    let (scene, notes) = tod_gltf_scene(anim, Format::Gltf, opts)?;
    Ok((crate::export::gltf::write_parts(&scene)?, notes))
}

/// A TOD's glTF scene (with its model and textures when given) and its notes.
fn tod_gltf_scene(
    anim: &Tod,
    target: Format,
    opts: &Options,
) -> Result<(crate::scene::Scene, Vec<Note>)> {
    use OptionName as O;
    let from = Format::Tod;
    opts.check(
        from,
        target,
        &[O::Axes, O::Scale, O::Tim, O::Smooth, O::Tmd, O::After],
    )?;
    // The textures belong to the model: without one they would texture nothing.
    if opts.tod.tmd.is_none() && !opts.textures.tims.is_empty() {
        return Err(option_error(
            O::Tim,
            "a TOD's textures go on its model: give the model with --tmd, or leave --tim out"
                .into(),
        ));
    }
    let before: Vec<&Tod> = opts.tod.after.iter().collect();
    let (scene, noted) = crate::formats::tod::scene::tod_scene_noted(
        &before,
        anim,
        opts.tod.tmd.as_ref(),
        &psx_options(opts),
    )?;
    let mut notes = coded(noted);
    if opts.tod.tmd.is_none() && !scene.nodes.is_empty() {
        notes.push(Note {
            code: "no-model",
            message: format!(
                "no TMD given (--tmd): the {} object(s) are exported without geometry",
                scene.nodes.len()
            ),
        });
    }
    Ok((scene, notes))
}

/// Converts a model to `target`.
pub fn convert(model: &Model, target: Format, opts: &Options) -> Result<Conversion> {
    use OptionName as O;
    let from = model.format();
    let done = |bytes: Vec<u8>, notes: Vec<Note>| done_notes(bytes, target, notes);
    if target == Format::Json {
        opts.check(from, target, &[])?;
        let mut s = model.to_json()?;
        s.push('\n');
        return Ok(done(s.into_bytes(), Vec::new()));
    }
    if target == from {
        opts.check(from, target, &[])?;
        return Ok(done(model.write()?, Vec::new()));
    }
    if !can_convert(from, target) {
        return Err(no_such(from, target));
    }
    let gltf = matches!(target, Format::Gltf | Format::Glb);
    if let (Model::Hmd(h), Format::Lab) = (model, target) {
        opts.check(from, target, &[])?;
        let text = crate::lab::disassemble(h)?;
        return Ok(done(text.into_bytes(), Vec::new()));
    }
    if let Some(c) = clt_pxl::convert(model, target, opts) {
        return c;
    }
    match model {
        Model::Rtm(r) if gltf => rtm::to_gltf(model, r, target, opts),
        Model::P3d(_) | Model::Mdd(_) | Model::Pc2(_)
            if from == Format::P3d || target == Format::P3d =>
        {
            p3d::convert(model, target, opts)
        }
        Model::Mdd(_) if target == Format::Pc2 => {
            opts.check(from, target, &[O::Fps])?;
            let bytes = model.write()?;
            let mut out = Vec::new();
            let r = crate::export::mdd_to_pc2(
                &bytes[..],
                bytes.len() as u64,
                &mut out,
                opts.timing.fps,
                &opts.limits,
            )?;
            Ok(done(out, cache_notes(&r)))
        }
        Model::Pc2(_) if target == Format::Mdd => {
            opts.check(from, target, &[O::Fps])?;
            let bytes = model.write()?;
            let mut out = Vec::new();
            let fps = opts.timing.fps.unwrap_or(crate::export::DEFAULT_FPS);
            crate::export::pc2_to_mdd(&bytes[..], bytes.len() as u64, &mut out, fps, &opts.limits)?;
            Ok(done(out, Vec::new()))
        }
        Model::Mdd(m) if gltf => {
            opts.check(from, target, &[])?;
            refuse_invalid(model)?;
            let scene = crate::export::point_cache_scene(
                &m.to_point_cache(),
                opts.name.as_deref().unwrap_or("point cache"),
                crate::scene::Interpolation::Linear,
            );
            Ok(done(
                crate::export::gltf::write(&scene, target)?,
                Vec::new(),
            ))
        }
        Model::Pc2(p) if gltf => {
            opts.check(from, target, &[O::Fps])?;
            refuse_invalid(model)?;
            let fps = opts.timing.fps.unwrap_or(crate::export::DEFAULT_FPS);
            let scene = crate::export::point_cache_scene(
                &p.to_point_cache(fps),
                opts.name.as_deref().unwrap_or("point cache"),
                crate::scene::Interpolation::Linear,
            );
            Ok(done(
                crate::export::gltf::write(&scene, target)?,
                Vec::new(),
            ))
        }
        Model::Tim(t) if target == Format::Png => {
            opts.check(from, target, &[O::Clut, O::SemiTransparent])?;
            let clut_row = opts.textures.clut.unwrap_or(0);
            let cluts = t
                .clut
                .as_ref()
                .map_or(0, |c| c.data.len().div_ceil(usize::from(c.width).max(1)));
            if opts.textures.clut.is_some() && clut_row >= cluts.max(1) {
                return Err(option_error(
                    O::Clut,
                    match cluts {
                        0 => format!("{clut_row}: the TIM has no CLUT"),
                        n => format!("{clut_row}: the TIM has {n} CLUT row(s), 0..={}", n - 1),
                    },
                ));
            }
            let d = tim::DecodeOptions {
                clut_row,
                stp: if opts.textures.semi_transparent {
                    tim::Stp::SemiTransparent
                } else {
                    tim::Stp::Opaque
                },
            };
            if let Some(strip) = palette_strip(t, &d)? {
                return Ok(strip);
            }
            let first = tim::encode_png(&t.to_rgba(&d)?)?;
            let mut notes = Vec::new();
            if t.depth() == Some(tim::Depth::Mixed) {
                notes.push(Note {
                    code: "mixed-mode",
                    message: "a mixed-mode (PMODE 4) TIM records no mode for its parts: its halfwords are shown as 15-bit direct colour, as they lie in VRAM".into(),
                });
            }
            if opts.textures.clut.is_none() && cluts > 1 {
                notes.push(Note {
                    code: "clut-rows",
                    message: format!(
                        "the TIM stacks {cluts} CLUT rows: decoded through row 0; pass --clut 1..={} for the others",
                        cluts - 1
                    ),
                });
            }
            let mut out = done(first, notes);
            following_tims(&t.trailing, &d, opts, &mut out)?;
            Ok(out)
        }
        Model::Pmd(p) if target == Format::Tmd || gltf => {
            opts.check(from, target, &[O::Axes, O::Scale, O::Tim])?;
            let (t, noted) = crate::formats::pmd::to_tmd(p)?;
            let mut notes = coded(noted);
            if target == Format::Tmd {
                opts.check(from, target, &[])?;
                return Ok(done(crate::formats::tmd::write(&t)?, notes));
            }
            let (scene, more) =
                crate::formats::tmd::scene::tmd_scene_noted(&t, &psx_options(opts))?;
            notes.extend(coded(more));
            Ok(done(crate::export::gltf::write(&scene, target)?, notes))
        }
        Model::Tmd(t) if target == Format::Pmd => {
            opts.check(from, target, &[])?;
            // A TMD that cannot be written cannot be laid out as a PMD either: the same error
            // `validate` reports.
            crate::formats::tmd::write(t)?;
            let (p, noted) = crate::formats::pmd::from_tmd(t, &Default::default())?;
            Ok(done(crate::formats::pmd::write(&p)?, coded(noted)))
        }
        Model::Tmd(t) if target == Format::Rsd => rsd::tmd_to_rsd(t, opts, &[]),
        Model::Vdf(d) | Model::Ndf(d) if gltf => {
            let (scene, notes) = mime::diff_scene(d, from, target, opts)?;
            Ok(done(crate::export::gltf::write(&scene, target)?, notes))
        }
        Model::Tmd(t) if gltf && opts.mime != MimeInput::default() => {
            let (scene, notes) = mime::tmd_scene(t, target, opts)?;
            Ok(done(crate::export::gltf::write(&scene, target)?, notes))
        }
        Model::Tmd(t) if gltf => {
            opts.check(from, target, &[O::Axes, O::Scale, O::Tim])?;
            let (scene, noted) =
                crate::formats::tmd::scene::tmd_scene_noted(t, &psx_options(opts))?;
            Ok(done(
                crate::export::gltf::write(&scene, target)?,
                coded(noted),
            ))
        }
        Model::Tod(anim) if gltf => {
            let (scene, notes) = tod_gltf_scene(anim, target, opts)?;
            Ok(done(crate::export::gltf::write(&scene, target)?, notes))
        }
        Model::Hmd(h) if gltf => {
            opts.check(
                from,
                target,
                &[
                    O::Axes,
                    O::Scale,
                    O::Tim,
                    O::Fps,
                    O::Sequence,
                    O::StreamId,
                    O::Speed,
                    O::IntrIdx,
                ],
            )?;
            use crate::formats::hmd;
            let d = hmd::SceneOptions::default();
            let options = hmd::SceneOptions {
                tims: opts.textures.tims.clone(),
                axes: match opts.geometry.axes.unwrap_or_default() {
                    Axes::Default => hmd::Axes::YUp,
                    Axes::Raw => hmd::Axes::Raw,
                },
                scale: opts.geometry.scale.unwrap_or(d.scale),
                fps: opts.timing.fps.unwrap_or(d.fps),
                sequence: opts.hmd.sequence,
                stream_id: opts.hmd.stream_id,
                speed: opts.hmd.speed.map(speed_code).transpose()?,
                intr_idx: opts.hmd.intr_idx,
                limits: opts.limits,
                ..d
            };
            let (scene, noted) = h.to_scene_noted(&options)?;
            Ok(done(
                crate::export::gltf::write(&scene, target)?,
                coded(noted),
            ))
        }
        _ => Err(no_such(from, target)),
    }
}

/// TIM → PNG of a file that holds more than one TIM: every TIM that follows the first in
/// `trailing` becomes a PNG beside the output (`NAME_1.png`, `NAME_2.png`, …), with a note
/// counting them; bytes after the last TIM that start none are left out with a note.
/// A palette-only TIM (no pixels, a CLUT) as a PNG strip of its CLUT: one pixel per entry,
/// one row per CLUT row, with a note. `None` for a TIM with an image (or without a CLUT).
fn palette_strip(t: &tim::Tim, d: &tim::DecodeOptions) -> Result<Option<Conversion>> {
    let Some(c) = t
        .clut
        .as_ref()
        .filter(|c| c.width > 0 && !c.data.is_empty())
    else {
        return Ok(None);
    };
    if t.image.width > 0 && t.image.height > 0 {
        return Ok(None);
    }
    let width = usize::from(c.width);
    let rows = c.data.len().div_ceil(width);
    let mut pixels = Vec::with_capacity(width * rows * 4);
    for k in 0..width * rows {
        pixels.extend(tim::color15(c.data.get(k).copied().unwrap_or(0), d.stp));
    }
    let png = tim::encode_png(&tim::Rgba {
        width,
        height: rows,
        pixels,
    })?;
    Ok(Some(done_notes(
        png,
        Format::Png,
        vec![Note {
            code: "palette-only",
            message: format!(
                "a palette-only TIM (its pixel block is {}×{}): the PNG is its CLUT, {rows} row(s) of {width} colours",
                t.image.width, t.image.height
            ),
        }],
    )))
}

fn following_tims(
    trailing: &[u8],
    d: &tim::DecodeOptions,
    opts: &Options,
    out: &mut Conversion,
) -> Result<()> {
    let mut rest = trailing;
    // Each TIM is at least its 8-byte header and two 12-byte block headers long: the loop ends.
    while crate::detect(rest) == Some(Format::Tim) {
        let Ok((next, size)) = tim::read_own(rest, &opts.limits) else {
            break;
        };
        if size == 0 || size > rest.len() {
            break;
        }
        // A CLUT row the first TIM has but this one lacks: its first row, said in a note.
        let rows = next
            .clut
            .as_ref()
            .map_or(0, |c| c.data.len().div_ceil(usize::from(c.width).max(1)));
        let mut dk = *d;
        if dk.clut_row >= rows.max(1) {
            dk.clut_row = 0;
        }
        let k = out.extra.len() + 1;
        let Ok(img) = next.to_rgba(&dk) else {
            break;
        };
        out.extra.push(Extra {
            suffix: format!("_{k}.png"),
            format: Format::Png,
            bytes: tim::encode_png(&img)?,
        });
        if dk.clut_row != d.clut_row {
            out.notes.push(Note {
                code: "clut-row-missing",
                message: format!(
                    "TIM {k} has no CLUT row {}: decoded through row 0",
                    d.clut_row
                ),
            });
        }
        rest = &rest[size..];
    }
    if !out.extra.is_empty() {
        let n = out.extra.len();
        out.notes.push(Note {
            code: "several-tims",
            message: format!(
                "the file holds {} TIMs back to back: the first is the output, {} beside it as NAME_1.png{}",
                n + 1,
                if n > 1 { format!("the other {n} are written") } else { "the second is written".to_string() },
                if n > 1 { format!(" … NAME_{n}.png") } else { String::new() }
            ),
        });
    }
    if !rest.is_empty() {
        out.notes.push(Note {
            code: "trailing-bytes",
            message: format!(
                "the last {} bytes of the file follow the {} but start no TIM: left out",
                rest.len(),
                if out.extra.is_empty() {
                    "TIM"
                } else {
                    "last TIM"
                }
            ),
        });
    }
    Ok(())
}

/// Refuses a model whose validation finds an error, with validate's own offset and message
/// (a point cache's errors are all about the frame times an animation needs).
fn refuse_invalid(model: &Model) -> Result<()> {
    match model
        .validate()
        .into_iter()
        .find(|i| i.severity == crate::Severity::Error)
    {
        Some(i) => Err(Error::Malformed {
            format: model.format(),
            offset: i.offset,
            what: i.message,
        }),
        None => Ok(()),
    }
}

/// The scene options of a TOD or TMD export.
fn psx_options(opts: &Options) -> crate::formats::tmd::scene::PsxOptions {
    use crate::formats::tmd::scene as psx;
    let d = psx::PsxOptions::default();
    psx::PsxOptions {
        axes: match opts.geometry.axes.unwrap_or_default() {
            Axes::Default => psx::Axes::YUp,
            Axes::Raw => psx::Axes::Raw,
        },
        scale: opts.geometry.scale.unwrap_or(d.scale),
        smooth: opts.timing.smooth,
        tims: opts.textures.tims.clone(),
        limits: opts.limits,
    }
}

/// A format bridge's `(code, message)` notes as [`Note`]s.
fn coded(notes: Vec<(&'static str, String)>) -> Vec<Note> {
    notes
        .into_iter()
        .map(|(code, message)| Note { code, message })
        .collect()
}

/// The notes of an MDD → PC2 conversion.
fn cache_notes(r: &crate::export::CacheConversion) -> Vec<Note> {
    let mut notes = Vec::new();
    if r.rest_frame_dropped {
        notes.push(Note {
            code: "rest-frame-dropped",
            message: "the MDD's uncounted rest frame has no place in PC2 and is left out".into(),
        });
    }
    if !r.times_exact {
        notes.push(Note {
            code: "times-uneven",
            message: format!(
                "the MDD's frame times are not evenly spaced whole frames at {} fps; PC2 keeps only a start frame and a sample rate",
                r.fps
            ),
        });
    }
    notes
}

/// A [`Conversion`] of `bytes` in `format` with `notes`.
pub(crate) fn done_notes(bytes: Vec<u8>, format: Format, notes: Vec<Note>) -> Conversion {
    Conversion {
        bytes,
        format,
        notes,
        extra: Vec::new(),
    }
}

/// "No such conversion", listing what the source does convert to.
pub(crate) fn no_such(from: Format, to: Format) -> Error {
    let list: Vec<&str> = targets(from).iter().map(|f| f.name()).collect();
    Error::Conversion {
        from,
        to,
        why: if list.is_empty() {
            format!("{from} is not read as a model")
        } else {
            format!(
                "no such conversion; {from} converts to {} (and to {from} itself)",
                list.join(", ")
            )
        },
    }
}
