//! The assembly's pairings ([`crate::assemble`]) as the report shows and uses them: textures
//! with their confidence and alternatives, an animation's model (used from
//! [`crate::assemble::USE_FROM`]) and its other candidates, and the conversion options that
//! give a GLB its matched TIMs and model.

use std::collections::HashMap;

use super::index::{Pairing, SourceRef};
use crate::assemble::{self, Assembly, Candidate, Source};
use crate::formats::texpage::Cover;

/// Each asset's id by (container, offset).
pub type Ids = HashMap<(String, u64), String>;

fn source_ref(s: &Source) -> SourceRef {
    SourceRef {
        path: s.path.clone(),
        container: s.container.clone(),
        offset: s.offset,
        size: None,
        image_offset: None,
    }
}

fn pairing(s: &Source, confidence: f64, why: String, ids: &Ids) -> Pairing {
    Pairing {
        source: source_ref(s),
        id: ids.get(&(s.container.clone(), s.offset)).cloned(),
        confidence,
        why,
        alternatives: Vec::new(),
    }
}

fn candidate(c: &Candidate, ids: &Ids) -> Pairing {
    pairing(&c.source, c.confidence, String::new(), ids)
}

/// The textures of `a`, best first, each with its alternatives.
pub fn textures(a: &assemble::Asset, ids: &Ids) -> Vec<Pairing> {
    a.textures
        .iter()
        .map(|t| {
            let cover = match t.cover {
                Cover::Covers => "holds every texel they sample",
                Cover::Overlaps => "lies in their texture page, missing some texels",
            };
            let mut p = pairing(
                &t.source,
                t.confidence,
                format!("textures {} polygons; {cover}", t.polygons),
                ids,
            );
            p.alternatives = t.alternatives.iter().map(|c| candidate(c, ids)).collect();
            p
        })
        .collect()
}

/// The model `a` animates (when used) and the other candidates (all of them when none is
/// used).
pub fn model(a: &assemble::Asset, ids: &Ids) -> (Option<Pairing>, Vec<Pairing>) {
    let Some(m) = &a.model else {
        return (None, Vec::new());
    };
    let others = m
        .candidates
        .iter()
        .filter(|c| !(m.used && c.source == m.source))
        .map(|c| candidate(c, ids))
        .collect();
    let why = match a.format {
        crate::Format::Vdf => "every block's object and vertex run lie inside this TMD",
        crate::Format::Ndf => "every block's object and normal run lie inside this TMD",
        _ => "every TMD ID it sets is an object of this TMD",
    };
    let used = m
        .used
        .then(|| pairing(&m.source, m.confidence, why.into(), ids));
    (used, others)
}

/// The difference file that goes with `a` (MIMe: a VDF's NDF, an NDF's VDF), as sure as the
/// base both use.
pub fn partner(a: &assemble::Asset, ids: &Ids) -> Option<Pairing> {
    let confidence = a.model.as_ref().map_or(0.0, |m| m.confidence);
    a.partner.as_ref().map(|p| {
        pairing(
            p,
            confidence,
            "MIMe differences of the same base beside it, block k on the same object in both"
                .into(),
            ids,
        )
    })
}

/// Conversion options giving `a`'s GLB its matched TIMs and (animations) its model with that
/// model's TIMs, as every other road pairs ([`Assembly::pair_asset`]); notes of what could not
/// be read again.
pub fn convert_options(
    assembly: &Assembly,
    a: &assemble::Asset,
    base: crate::convert::Options,
    notes: &mut Vec<String>,
) -> crate::convert::Options {
    let mut opts = base.clone();
    match assembly.pair_asset(a, &mut opts) {
        Ok(_) => opts,
        Err(e) => {
            notes.push(format!("GLB without its pairing: {e}"));
            base
        }
    }
}
