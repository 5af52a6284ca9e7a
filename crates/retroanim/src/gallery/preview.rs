//! Cards' pictures, drawn as the console draws them ([`crate::render`]) with the TIMs the
//! assembly matched:
//!
//! | asset | picture |
//! |---|---|
//! | TIM | its own PNG |
//! | TMD | the model at rest, 256 × 256, the default three-quarter view |
//! | PMD | the TMD its packets make (`pmd::to_tmd`), drawn as a TMD |
//! | TOD | an animated PNG of the TOD playing on its model, when the assembly pairs one with confidence ≥ 0.5 (else no picture: the card lists the candidates); the model at rest, with a note saying why, when no picture of the animation shows an object (it moves objects another TOD creates) |
//! | HMD | the model at rest, or an animated PNG of its sequence 0 when it has one |
//! | P3D | its default LOD (the first with frames, else the first), animated when that LOD has frames |
//! | VDF / NDF | its base TMD (as the assembly pairs it, with confidence ≥ 0.5, and that TMD's TIMs) at each MIMe key in turn: an animated PNG, picture k the base with key k at 1.0 ([`crate::render::mime`]); else no picture, the card lists the candidates |
//!
//! Animated previews are bounded so that a whole disc stays quick to report:
//! [`ANIMATED_SIDE`] pixels square, [`ANIMATED_FPS`] pictures per second, at most
//! [`MAX_ANIMATED_PICTURES`] pictures (the first seconds of a longer animation, with a note on
//! the card). HMD and P3D stills use the same size.

use crate::assemble::{Assembly, Asset};
use crate::error::Result;
use crate::formats::tim::{encode_png, Rgba};
use crate::formats::tmd::Tmd;
use crate::render::{render_model, render_tmd_within, Budget, Preview, RenderOptions, View};
use crate::vram::Vram;
use crate::Model;

/// Side in pixels of TOD, HMD and P3D pictures.
pub const ANIMATED_SIDE: u32 = 128;
/// Pictures per second of animated previews.
pub const ANIMATED_FPS: f64 = 15.0;
/// The most pictures in one animated preview (8 seconds at [`ANIMATED_FPS`]).
pub const MAX_ANIMATED_PICTURES: usize = 120;

/// The PNG of `tmd` drawn with `asset`'s matched TIMs, and the drawing's notes.
pub fn tmd_png(tmd: &Tmd, assembly: &Assembly, asset: &Asset) -> Result<(Vec<u8>, Vec<String>)> {
    let mut notes = Vec::new();
    let mut vram = Vram::new();
    match assembly.tims_for(asset) {
        Ok(tims) => {
            for t in &tims {
                vram.place_tim(t);
            }
        }
        Err(e) => notes.push(format!("picture without its textures: {e}")),
    }
    let limits = crate::Limits::default();
    let (fb, drawn) = render_tmd_within(
        tmd,
        &vram,
        &View::default(),
        &mut Budget::preview(&limits, 1),
    )?;
    notes.extend(drawn.iter().map(|n| format!("picture: {n}")));
    Ok((png_of(&fb)?, notes))
}

/// A drawn preview: the PNG, its number of pictures, notes for the card.
pub type Drawn = (Vec<u8>, usize, Vec<String>);

/// The preview of a TOD, HMD, P3D, VDF or NDF (module table): `Ok(Err(reason))` when there is
/// none to draw (a TOD or difference file without a confident model).
pub fn animated_png(
    model: &Model,
    assembly: &Assembly,
    asset: &Asset,
) -> Result<std::result::Result<Drawn, String>> {
    let mut notes = Vec::new();
    let mut opts = RenderOptions {
        view: View {
            width: ANIMATED_SIDE,
            height: ANIMATED_SIDE,
            ..View::default()
        },
        preview: Some(Preview {
            fps: ANIMATED_FPS,
            max_pictures: MAX_ANIMATED_PICTURES,
        }),
        ..RenderOptions::default()
    };
    let take_tims = |a: &Asset, notes: &mut Vec<String>| match assembly.tims_for(a) {
        Ok(t) => t,
        Err(e) => {
            notes.push(format!("picture without its textures: {e}"));
            Vec::new()
        }
    };
    match model {
        Model::Tod(_) | Model::Vdf(_) | Model::Ndf(_) => match assembly.model_for(asset) {
            Ok(Some((tmd, m))) => {
                if let Some(a) = assembly.asset_at(&m.source.container, m.source.offset) {
                    opts.tims = take_tims(a, &mut notes);
                }
                opts.tmd = Some(tmd);
            }
            Ok(None) => {
                let why = assembly
                    .missing_model(asset, &Default::default())
                    .unwrap_or_default();
                return Ok(Err(format!(
                    "{} ({why}); no GLB either",
                    crate::assemble::without_model(model.format())
                )));
            }
            Err(e) => return Ok(Err(format!("its model cannot be read ({e})"))),
        },
        Model::Hmd(_) => opts.tims = take_tims(asset, &mut notes),
        _ => {}
    }
    if matches!(model, Model::Vdf(_) | Model::Ndf(_)) {
        // Each key held long enough to be seen, with the difference file that goes with it.
        opts.fps = Some(crate::render::mime::KEY_FPS);
        if let Some(p) = &asset.partner {
            match assembly.read(p) {
                Ok(Model::Vdf(d) | Model::Ndf(d)) => opts.mime_partner = Some(d),
                Ok(_) => {}
                Err(e) => notes.push(format!("picture without {}: {e}", p.container)),
            }
        }
    }
    let r = render_model(model, &opts)?;
    // A TOD whose every picture shows no object plays after another one (its objects are
    // created there): its model at rest is shown instead of a blank picture, and says why.
    let all_empty = format!("{} ×", r.frames);
    if let (Model::Tod(_), Some(tmd)) = (model, &opts.tmd) {
        if r.notes
            .iter()
            .any(|n| n.code == "no-objects" && n.message.starts_with(&all_empty))
        {
            let (fb, drawn) = render_tmd_within(
                tmd,
                &{
                    let mut vram = Vram::new();
                    for t in &opts.tims {
                        vram.place_tim(t);
                    }
                    vram
                },
                &opts.view,
                &mut Budget::preview(&crate::Limits::default(), 1),
            )?;
            notes.push(
                "picture: its model at rest: the animation shows no object on its own (it moves objects another animation creates: play it with --after FIRST.TOD)"
                    .into(),
            );
            notes.extend(r.notes.iter().map(|n| format!("picture: {n}")));
            notes.extend(drawn.iter().map(|n| format!("picture: {n}")));
            return Ok(Ok((png_of(&fb)?, 1, notes)));
        }
    }
    notes.extend(r.notes.iter().map(|n| format!("picture: {n}")));
    Ok(Ok((r.bytes, r.frames, notes)))
}

/// A drawn picture as PNG bytes.
fn png_of(fb: &crate::render::Framebuffer) -> Result<Vec<u8>> {
    encode_png(&Rgba {
        width: fb.width,
        height: fb.height,
        pixels: fb.to_rgba(),
    })
}
