//! MIMe differences in an assembly: each VDF / NDF with the base TMD its blocks fit, ranked as
//! [`bases`] says, and the difference file of the other kind that goes with it
//! ([`bases::partners`]).

use std::collections::BTreeMap;

use super::{bases, Candidate, ModelMatch, Parsed, Source, USE_FROM};

/// A difference file's pairing.
pub(super) struct Paired {
    /// Its base TMD, when any fits.
    pub model: Option<ModelMatch>,
    /// The VDF's NDF (the NDF's VDF).
    pub partner: Option<Source>,
}

/// The best model of a ranking, with every candidate, `source(i)` giving the place of
/// candidate `i`.
pub(super) fn model_match(
    ranked: &[super::models::Ranked],
    source: impl Fn(usize) -> Source,
) -> Option<ModelMatch> {
    ranked.first().map(|best| ModelMatch {
        source: source(best.tmd),
        confidence: best.confidence,
        used: best.confidence >= USE_FROM,
        candidates: ranked
            .iter()
            .map(|r| Candidate {
                source: source(r.tmd),
                confidence: r.confidence,
            })
            .collect(),
    })
}

/// The pairing of every VDF and NDF among `parsed`, by its index.
pub(super) fn pair(parsed: &[Parsed], sources: &[Source]) -> BTreeMap<usize, Paired> {
    let base_index: Vec<usize> = (0..parsed.len())
        .filter(|&i| matches!(parsed[i], Parsed::Tmd { .. }))
        .collect();
    let bases: Vec<bases::BaseKey<'_>> = base_index
        .iter()
        .filter_map(|&i| match &parsed[i] {
            Parsed::Tmd {
                vertices, normals, ..
            } => Some(bases::BaseKey {
                source: &sources[i],
                vertices,
                normals,
            }),
            _ => None,
        })
        .collect();
    let diff_index: Vec<usize> = (0..parsed.len())
        .filter(|&i| matches!(parsed[i], Parsed::Diff(..)))
        .collect();
    if diff_index.is_empty() {
        return BTreeMap::new();
    }
    let diffs: Vec<bases::DiffKey<'_>> = diff_index
        .iter()
        .filter_map(|&i| match &parsed[i] {
            Parsed::Diff(d, normals) => Some(bases::DiffKey {
                source: &sources[i],
                diff: d,
                normals: *normals,
            }),
            _ => None,
        })
        .collect();
    let ranked = bases::rank_all(&diffs, &bases);
    let used: Vec<Option<usize>> = ranked
        .iter()
        .map(|r| {
            r.first()
                .filter(|b| b.confidence >= USE_FROM)
                .map(|b| b.tmd)
        })
        .collect();
    let partners = bases::partners(&diffs, &used);
    diff_index
        .iter()
        .zip(ranked)
        .zip(partners)
        .map(|((&i, r), p)| {
            let paired = Paired {
                model: model_match(&r, |t| sources[base_index[t]].clone()),
                partner: p.map(|j| sources[diff_index[j]].clone()),
            };
            (i, paired)
        })
        .collect()
}
