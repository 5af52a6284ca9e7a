//! Cards' pictures: a texture is its own PNG; a TMD is drawn as the console draws it
//! ([`crate::render::render_tmd`], the default three-quarter view, 256 × 256) with the TIMs the
//! assembly matched to it placed in VRAM. Animations, HMDs and P3Ds have no picture yet: their
//! cards say so.

use crate::assemble::{Assembly, Asset};
use crate::error::Result;
use crate::formats::tim::{encode_png, Rgba};
use crate::formats::tmd::Tmd;
use crate::render::{render_tmd, View};
use crate::vram::Vram;

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
    let (fb, drawn) = render_tmd(tmd, &vram, &View::default());
    notes.extend(drawn.iter().map(|n| format!("picture: {n}")));
    let png = encode_png(&Rgba {
        width: fb.width,
        height: fb.height,
        pixels: fb.to_rgba(),
    })?;
    Ok((png, notes))
}
