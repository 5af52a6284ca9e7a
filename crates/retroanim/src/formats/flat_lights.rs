//! The scene's lights as the console's flat lights, for every PlayStation author (TOD light
//! packets, HMD light devices): one reading, one colour convention, one set of notes.
//!
//! - The console lights a scene with three flat (parallel) lights — `GsSetFlatLight` 0..2, the
//!   GTE's light matrix: the first three directional or spot lights in node order are kept;
//!   later ones are left out.
//! - A spot light shines along its axis as a flat light; its cone is left out. A point light
//!   has no flat counterpart: left out. Ranges are left out (console lights reach everywhere).
//! - **Colour**: glTF's light colour is linear and scaled by its intensity; the console's
//!   colour bytes scale what the screen shows, as vertex colours do. Both bridges (TOD and HMD)
//!   read a light's bytes as sRGB display values (as they read vertex and ground colours), so
//!   the bytes are `sRGB(colour × intensity) × 255`, clamped at 255 (counted in a note).
//!
//! Every thing left out is a note with a count, under the same codes for both formats.

use crate::formats::tmd::author::{linear_to_srgb, Counts};
use crate::scene::{LightKind, Scene};

/// Flat lights the GTE's light matrix holds.
pub(crate) const CONSOLE_LIGHTS: usize = 3;

/// One light the console keeps: the node it sits on (it shines down the node's −Z) and its
/// colour bytes.
pub(crate) struct FlatLight {
    pub(crate) node: usize,
    pub(crate) color: [u8; 3],
}

/// The scene's lights the console can hold, in node order (at most [`CONSOLE_LIGHTS`]), with a
/// note for each thing it cannot.
pub(crate) fn pick(scene: &Scene, notes: &mut Counts) -> Vec<FlatLight> {
    let mut lights = Vec::new();
    let (mut point, mut cone, mut range, mut bright, mut extra) = (0, 0, 0, 0, 0);
    for (node, x) in scene.nodes.iter().enumerate() {
        let Some(l) = x.light.and_then(|l| scene.lights.get(l)) else {
            continue;
        };
        match l.kind {
            LightKind::Point => {
                point += 1;
                continue;
            }
            LightKind::Spot { .. } => cone += 1,
            LightKind::Directional => {}
        }
        if lights.len() == CONSOLE_LIGHTS {
            extra += 1;
            continue;
        }
        range += usize::from(l.range.is_some());
        let lit = l.color.map(|c| c * l.intensity.max(0.0));
        bright += usize::from(lit.iter().any(|&c| c > 1.0 + 1e-6));
        let color = lit.map(|c| (linear_to_srgb(c) * 255.0).round().clamp(0.0, 255.0) as u8);
        lights.push(FlatLight { node, color });
    }
    notes.add("light-point-dropped", point, || {
        "point lights left out: the console's lights are parallel (directional)".into()
    });
    notes.add("light-cone-dropped", cone, || {
        "spot lights written as directional lights along their axis: the cone is left out".into()
    });
    notes.add("light-range-dropped", range, || {
        "light ranges left out: console lights reach everywhere".into()
    });
    notes.add("light-clamped", bright, || {
        "lights whose colour × intensity exceeds 1 clamped to the console's 255 per channel".into()
    });
    notes.add("light-beyond-three", extra, || {
        format!("lights past the first {CONSOLE_LIGHTS} left out: the console lights a scene with {CONSOLE_LIGHTS}")
    });
    lights
}
