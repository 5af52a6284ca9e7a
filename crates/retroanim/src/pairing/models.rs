//! Models for animations: the TMDs a TOD could drive, ranked by evidence.
//!
//! A TOD's TMD-ID packets name TMD objects (ID k is object k − 1, `formats::tod::play`); a TMD
//! is a candidate only when it has every object they name. Its score (0..1) adds up:
//!
//! | evidence | weight |
//! |---|---|
//! | every TMD ID the TOD uses is an object of the TMD (a TOD with no TMD-ID packet gets 0) | 0.30 |
//! | the TMD has exactly as many objects as the largest ID | 0.10 |
//! | place: 0.45 × [`place_weight`] (same container 1, same folder 0.9, … another tree 0.05) | ≤ 0.45 |
//! | same name stem (`N_C.TOD`, `N_C.TMD`) | 0.15 |
//! | (a TOD without TMD-ID packets) a TOD with TMD IDs in its folder takes this TMD ([`rank_all`]) | 0.30 |
//!
//! Candidates are ranked by score, then nearness, then container name and offset, and the
//! confidence of each is its score weighed by its lead over the best other
//! ([`super::evidence::confidences`]). Below 0.5 a candidate is shown, never used.

use super::evidence::{confidences, place_weight, Names, Nearness, Place, Source};

/// Most candidates kept per animation.
pub const MAX_CANDIDATES: usize = 8;

/// What model matching needs of a TOD.
#[derive(Debug, Clone)]
pub struct TodKey<'a> {
    /// Where it is.
    pub source: &'a Source,
    /// The TMD IDs its packets set, sorted, without repeats.
    pub ids: &'a [u32],
}

/// What model matching needs of a TMD.
#[derive(Debug, Clone)]
pub struct TmdKey<'a> {
    /// Where it is.
    pub source: &'a Source,
    /// Its object count.
    pub objects: usize,
}

/// One ranked model: the index into the TMD list, its evidence score and confidence.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ranked {
    /// Index into the `tmds` given.
    pub tmd: usize,
    /// Evidence score, 0..1.
    pub score: f64,
    /// Confidence, 0..1.
    pub confidence: f64,
}

/// Ranks the models of every TOD: [`rank`], then a second pass for the TODs without TMD-ID
/// packets (the janken sample's `C_N.TOD` moves objects `APPEAR.TOD` created): a TMD that a
/// TOD with TMD IDs in the same folder (or container) takes with confidence ≥ 0.5 gets the
/// 0.30 of the ID evidence, since such a TOD is played after that one on the same model.
pub fn rank_all(tods: &[TodKey<'_>], tmds: &[TmdKey<'_>]) -> Vec<Vec<Ranked>> {
    use rayon::prelude::*;
    // Every TOD against every TMD: the places are worked out once, the TODs ranked in parallel.
    let mut names = Names::default();
    let tod_places: Vec<Place<'_>> = tods
        .iter()
        .map(|t| Place::new(t.source, &mut names))
        .collect();
    let tmd_places: Vec<Place<'_>> = tmds
        .iter()
        .map(|t| Place::new(t.source, &mut names))
        .collect();
    let first: Vec<Vec<Ranked>> = tods
        .par_iter()
        .zip(&tod_places)
        .map(|(t, p)| rank_with(t, p, tmds, &tmd_places, &[]))
        .collect();
    tods.par_iter()
        .zip(&tod_places)
        .enumerate()
        .map(|(i, (t, p))| {
            if !t.ids.is_empty() {
                return first[i].clone();
            }
            let mut boosted: Vec<usize> = tods
                .iter()
                .zip(&tod_places)
                .zip(&first)
                .filter(|((o, op), _)| !o.ids.is_empty() && p.nearness(op).steps == 0)
                .filter_map(|(_, r)| r.first().filter(|b| b.confidence >= 0.5).map(|b| b.tmd))
                .collect();
            if boosted.is_empty() {
                return first[i].clone();
            }
            boosted.sort_unstable();
            boosted.dedup();
            rank_with(t, p, tmds, &tmd_places, &boosted)
        })
        .collect()
}

/// The evidence score of `tmd` as `tod`'s model, or `None` when it lacks an object the TOD names.
pub fn score(tod: &TodKey<'_>, tmd: &TmdKey<'_>, near: Nearness) -> Option<f64> {
    score_of(tod, tmd, near, tod.source.stem() == tmd.source.stem())
}

/// [`score`], the name stems' comparison given.
fn score_of(tod: &TodKey<'_>, tmd: &TmdKey<'_>, near: Nearness, same_stem: bool) -> Option<f64> {
    // The IDs are sorted: the first and the last bound them all.
    if tod.ids.first().is_some_and(|&id| id < 1)
        || tod.ids.last().is_some_and(|&id| id as usize > tmd.objects)
    {
        return None;
    }
    let mut s = 0.0;
    if let Some(&top) = tod.ids.last() {
        s += 0.30;
        if top as usize == tmd.objects {
            s += 0.10;
        }
    }
    s += 0.45 * place_weight(near);
    if same_stem {
        s += 0.15;
    }
    Some(s)
}

/// The best [`MAX_CANDIDATES`] models for `tod`, best first.
pub fn rank(tod: &TodKey<'_>, tmds: &[TmdKey<'_>]) -> Vec<Ranked> {
    let mut names = Names::default();
    let places: Vec<Place<'_>> = tmds
        .iter()
        .map(|t| Place::new(t.source, &mut names))
        .collect();
    rank_with(tod, &Place::new(tod.source, &mut names), tmds, &places, &[])
}

/// [`rank`] (`place` is the TOD's, `places` the TMDs'), with 0.30 more for the TMDs in
/// `sibling` (indices into `tmds`, sorted).
fn rank_with(
    tod: &TodKey<'_>,
    place: &Place<'_>,
    tmds: &[TmdKey<'_>],
    places: &[Place<'_>],
    sibling: &[usize],
) -> Vec<Ranked> {
    best_of(place, places, |i, near, same_stem| {
        let s = score_of(tod, &tmds[i], near, same_stem)?;
        Some(
            s + if sibling.binary_search(&i).is_ok() {
                0.30
            } else {
                0.0
            },
        )
    })
}

/// The best [`MAX_CANDIDATES`] of the candidates at `places` for the asset at `place`, scored
/// by `score(index, nearness, same name stem)` (`None`: not a candidate), best first: by
/// score, then nearness, then container name and offset, each with its confidence
/// ([`confidences`]). Every ranking of models (a TOD's, a MIMe difference file's base) goes
/// through it.
pub fn best_of(
    place: &Place<'_>,
    places: &[Place<'_>],
    score: impl Fn(usize, Nearness, bool) -> Option<f64>,
) -> Vec<Ranked> {
    type Entry<'b> = (f64, Nearness, &'b str, u64, usize);
    let order = |a: &Entry<'_>, b: &Entry<'_>| {
        b.0.total_cmp(&a.0)
            .then(a.1.cmp(&b.1))
            .then(a.2.cmp(b.2))
            .then(a.3.cmp(&b.3))
            .then(a.4.cmp(&b.4))
    };
    // A disc holds thousands: only the best few are kept, in order, as they come (most are
    // turned away by one comparison with the worst kept).
    let mut c: Vec<Entry<'_>> = Vec::with_capacity(MAX_CANDIDATES + 1);
    for (i, tp) in places.iter().enumerate() {
        let near = place.nearness(tp);
        let Some(s) = score(i, near, place.stem_id == tp.stem_id) else {
            continue;
        };
        let (container, offset) = tp.source.origin();
        let e = (s, near, container, offset, i);
        if c.len() == MAX_CANDIDATES && c.last().is_some_and(|w| order(&e, w).is_ge()) {
            continue;
        }
        let at = c.partition_point(|k| order(k, &e).is_le());
        c.insert(at, e);
        c.truncate(MAX_CANDIDATES);
    }
    let scores: Vec<f64> = c.iter().map(|e| e.0).collect();
    let conf = confidences(&scores);
    c.iter()
        .zip(conf)
        .map(|(e, confidence)| Ranked {
            tmd: e.4,
            score: e.0,
            confidence,
        })
        .collect()
}
