//! Textures by VRAM: the TIMs that hold what a model's textured polygons sample.
//!
//! Each TIM is placed in VRAM at its own image and CLUT positions. A textured polygon's TSB,
//! CBA and UVs name the halfwords it samples ([`Sampled`]); the TIMs that cover them at the
//! page's colour depth with a CLUT row at the CBA are its candidates ([`Sampled::cover`]),
//! and only when none covers, the TIMs that overlap its page. Candidates are ranked by
//! whether they cover, then by place (same container, then folder steps, then byte distance),
//! then container name and offset: the order the glTF bridges take TIMs in
//! ([`crate::formats::texpage::find`]), so the first is the texture the model is converted
//! with. Score: 0.5 for covering (0.25 for overlapping) + 0.5 × [`place_weight`]; confidence
//! as for models ([`super::evidence::confidences`]), except that byte-identical copies of a
//! TIM (the same texture kept twice) are not each other's rivals.

use std::collections::BTreeMap;

use super::evidence::{confidences_among, nearness, place_weight, Nearness, Source};
use crate::formats::texpage::{Cover, Sampled};
use crate::formats::tim::Tim;

/// Most alternatives kept per polygon group.
pub const MAX_ALTERNATIVES: usize = 8;

/// A TIM as matching needs it (its pixels may be left out: only its header is read).
#[derive(Debug, Clone)]
pub struct TimKey<'a> {
    /// Where it is.
    pub source: &'a Source,
    /// The TIM (image and CLUT positions, depth).
    pub tim: &'a Tim,
    /// A hash of its bytes: byte-identical copies are not rivals.
    pub content: u64,
}

/// Textured polygons that sample the same texels (same TSB page and depth, CBA and UV extent).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Group {
    /// What they sample.
    pub sampled: Sampled,
    /// How many polygons.
    pub polygons: usize,
}

/// Groups polygons given as (TSB, CBA, corner UVs).
pub fn groups<'a>(polys: impl Iterator<Item = (u16, u16, &'a [[u8; 2]])>) -> Vec<Group> {
    let mut map: BTreeMap<(u16, u16, [u8; 2], [u8; 2]), Group> = BTreeMap::new();
    for (tsb, cba, uvs) in polys {
        let s = Sampled::new(tsb, cba, uvs);
        map.entry((tsb & 0x19F, cba, s.uv_min, s.uv_max))
            .or_insert(Group {
                sampled: s,
                polygons: 0,
            })
            .polygons += 1;
    }
    map.into_values().collect()
}

/// The TIMs ranked for one group, best first: (TIM index, confidence), and how they hold it.
#[derive(Debug, Clone, PartialEq)]
pub struct GroupMatch {
    /// Candidates, best first, at most [`MAX_ALTERNATIVES`] + 1.
    pub ranked: Vec<(usize, f64)>,
    /// Whether the best covers every sampled halfword (else it only overlaps the page).
    pub cover: Option<Cover>,
    /// No TIM matched, but one holds the image at the right depth without a CLUT row at the CBA.
    pub clut_missing: bool,
}

/// The rank key of a TIM for a model: place first (the bridges take TIMs in this order).
pub fn place_key<'a>(model: &Source, tim: &'a Source) -> (Nearness, &'a str, u64) {
    let (container, offset) = tim.origin();
    (nearness(model, tim), container, offset)
}

/// Ranks the TIMs for one group of `model`'s polygons.
pub fn match_group(model: &Source, g: &Group, tims: &[TimKey<'_>]) -> GroupMatch {
    let mut found: Vec<(Cover, (Nearness, &str, u64), usize)> = Vec::new();
    let mut clut_missing = false;
    for (i, t) in tims.iter().enumerate() {
        match g.sampled.cover(t.tim) {
            Some((c, _)) => found.push((c, place_key(model, t.source), i)),
            None => {
                if t.tim.depth() == Some(g.sampled.depth)
                    && crate::formats::texpage::image_rect(t.tim).contains(&g.sampled.halfwords())
                {
                    clut_missing = true;
                }
            }
        }
    }
    let best = found.iter().map(|f| f.0).min();
    found.retain(|f| Some(f.0) == best);
    found.sort_by(|a, b| a.1.cmp(&b.1).then(a.2.cmp(&b.2)));
    found.truncate(MAX_ALTERNATIVES + 1);
    let scores: Vec<f64> = found
        .iter()
        .map(|f| {
            let base = if f.0 == Cover::Covers { 0.5 } else { 0.25 };
            base + 0.5 * place_weight(f.1 .0)
        })
        .collect();
    let conf = confidences_among(&scores, |i, j| {
        tims[found[i].2].content == tims[found[j].2].content
    });
    GroupMatch {
        ranked: found.iter().zip(conf).map(|(f, c)| (f.2, c)).collect(),
        cover: best,
        clut_missing: best.is_none() && clut_missing,
    }
}
