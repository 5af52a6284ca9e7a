//! Bases for MIMe differences: the TMDs a VDF or NDF could change, ranked by evidence, and the
//! VDF and NDF that go together.
//!
//! A VDF (NDF) holds differences for runs of a base TMD's vertices (normals), one block per
//! MIMe key (docs/vdf-ndf.md). A TMD is a candidate only when every block fits it: the block's
//! object exists and its run lies inside that object's vertices (normals), as
//! [`crate::formats::mime::validate_counts`] checks (no `object-range` or `vertex-range`
//! error). Its score (0..1) adds up, as a TOD's models do ([`super::models`]):
//!
//! | evidence | weight |
//! |---|---|
//! | every block fits the TMD (required) | 0.30 |
//! | the TMD has exactly the objects up to the highest a block changes | 0.10 |
//! | place: 0.45 × [`place_weight`] (same container 1, same folder 0.9, … another tree 0.05) | ≤ 0.45 |
//! | same name stem (`MD0.VDF`, `MD0.TMD`) | 0.15 |
//!
//! MIMEFILT's variants (`MD1.TMD` … beside `MD0.TMD`) have the base's vertex counts, so they
//! fit too: the name is what tells the base from them, and where nothing does (two fitting
//! TMDs of other names in the folder) the candidates tie below 0.5 and are only shown.
//!
//! **VDF with NDF** ([`partners`]): one MIMEFILT run writes both from the same variants, so
//! they have as many blocks, block k on the same object in each. A VDF and an NDF go together
//! when they have the same base, sit in the same folder or container, and agree so; among
//! several, the one with the same name stem; each must pick the other.

use super::evidence::{place_weight, Names, Nearness, Place, Source};
use super::models::{best_of, Ranked};
use crate::formats::mime::{validate_counts, Diff};
use crate::Severity;

/// What base matching needs of a VDF or NDF.
#[derive(Debug, Clone)]
pub struct DiffKey<'a> {
    /// Where it is.
    pub source: &'a Source,
    /// Its blocks.
    pub diff: &'a Diff,
    /// An NDF (its runs are of normals).
    pub normals: bool,
}

/// What base matching needs of a TMD.
#[derive(Debug, Clone)]
pub struct BaseKey<'a> {
    /// Where it is.
    pub source: &'a Source,
    /// Vertices per object.
    pub vertices: &'a [usize],
    /// Normals per object.
    pub normals: &'a [usize],
}

/// Whether every block of `d` fits `base` (no range error of the difference file's
/// validation against it).
pub fn fits(d: &DiffKey<'_>, base: &BaseKey<'_>) -> bool {
    let counts = if d.normals {
        base.normals
    } else {
        base.vertices
    };
    !validate_counts(d.diff, Some(counts), d.normals)
        .iter()
        .any(|i| i.severity == Severity::Error)
}

/// The evidence score of `base` for `d` (module table), or `None` when a block does not fit.
pub fn score(d: &DiffKey<'_>, base: &BaseKey<'_>, near: Nearness, same_stem: bool) -> Option<f64> {
    if !fits(d, base) {
        return None;
    }
    let mut s = 0.30;
    let top = d.diff.blocks.iter().map(|b| b.object as usize).max();
    if top.is_some_and(|t| t + 1 == base.vertices.len()) {
        s += 0.10;
    }
    s += 0.45 * place_weight(near);
    if same_stem {
        s += 0.15;
    }
    Some(s)
}

/// The bases of every difference file, best first (at most [`super::models::MAX_CANDIDATES`]
/// each); `Ranked::tmd` indexes `bases`.
pub fn rank_all(diffs: &[DiffKey<'_>], bases: &[BaseKey<'_>]) -> Vec<Vec<Ranked>> {
    let mut names = Names::default();
    let places: Vec<Place<'_>> = bases
        .iter()
        .map(|b| Place::new(b.source, &mut names))
        .collect();
    diffs
        .iter()
        .map(|d| {
            let place = Place::new(d.source, &mut names);
            best_of(&place, &places, |i, near, same_stem| {
                score(d, &bases[i], near, same_stem)
            })
        })
        .collect()
}

/// For each difference file, the one of the other kind that goes with it (module docs), as an
/// index into `diffs`. `base[i]` is the base `diffs[i]` uses (any number naming it, e.g. an
/// index into the bases), `None` when it uses none.
pub fn partners(diffs: &[DiffKey<'_>], base: &[Option<usize>]) -> Vec<Option<usize>> {
    let mut names = Names::default();
    let places: Vec<Place<'_>> = diffs
        .iter()
        .map(|d| Place::new(d.source, &mut names))
        .collect();
    let agree = |a: &Diff, b: &Diff| {
        a.blocks.len() == b.blocks.len()
            && a.blocks
                .iter()
                .zip(&b.blocks)
                .all(|(x, y)| x.object == y.object)
    };
    let pick = |i: usize| -> Option<usize> {
        let b = base.get(i).copied().flatten()?;
        let near: Vec<usize> = (0..diffs.len())
            .filter(|&j| {
                diffs[j].normals != diffs[i].normals
                    && base.get(j).copied().flatten() == Some(b)
                    && places[i].nearness(&places[j]).steps == 0
                    && agree(diffs[i].diff, diffs[j].diff)
            })
            .collect();
        match near[..] {
            [one] => Some(one),
            _ => {
                let named: Vec<usize> = near
                    .into_iter()
                    .filter(|&j| places[j].stem_id == places[i].stem_id)
                    .collect();
                match named[..] {
                    [one] => Some(one),
                    _ => None,
                }
            }
        }
    };
    let picked: Vec<Option<usize>> = (0..diffs.len()).map(pick).collect();
    picked
        .iter()
        .enumerate()
        .map(|(i, p)| p.filter(|&j| picked[j] == Some(i)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::mime::Block;
    use crate::formats::tmd::SVector;

    fn src(c: &str) -> Source {
        Source {
            path: c.into(),
            container: c.into(),
            offset: 0,
            size: 1,
        }
    }

    fn diff(blocks: &[(u32, u32, usize)]) -> Diff {
        Diff {
            blocks: blocks
                .iter()
                .map(|&(object, offset, n)| Block {
                    object,
                    offset,
                    differences: vec![SVector::default(); n],
                })
                .collect(),
            trailing: Vec::new(),
        }
    }

    #[test]
    fn a_base_must_hold_every_run_and_the_name_decides_among_equals() {
        let d = diff(&[(0, 0, 10), (0, 5, 20)]);
        let (s, a, b, small) = (
            src("M/MD0.VDF"),
            src("M/MD0.TMD"),
            src("M/MD1.TMD"),
            src("M/X.TMD"),
        );
        let key = DiffKey {
            source: &s,
            diff: &d,
            normals: false,
        };
        let fit = [25usize];
        let short = [24usize];
        let bases = [
            BaseKey {
                source: &b,
                vertices: &fit,
                normals: &[],
            },
            BaseKey {
                source: &small,
                vertices: &short,
                normals: &[],
            },
            BaseKey {
                source: &a,
                vertices: &fit,
                normals: &[],
            },
        ];
        let r = &rank_all(std::slice::from_ref(&key), &bases)[0];
        // X.TMD's object 0 has 24 vertices: block 1 runs to 25, so it is no candidate.
        assert_eq!(r.iter().map(|x| x.tmd).collect::<Vec<_>>(), vec![2, 0]);
        assert!(r[0].confidence >= 0.5 && r[1].confidence < 0.5, "{r:?}");
        // Normals are checked against the normal counts.
        let n = DiffKey {
            normals: true,
            ..key
        };
        assert!(rank_all(&[n], &bases)[0].is_empty());
        // Two fitting TMDs named otherwise tie: neither is sure enough to use.
        let (c, e) = (src("M/P.TMD"), src("M/Q.TMD"));
        let tie = [
            BaseKey {
                source: &c,
                vertices: &fit,
                normals: &[],
            },
            BaseKey {
                source: &e,
                vertices: &fit,
                normals: &[],
            },
        ];
        let r = &rank_all(
            &[DiffKey {
                source: &s,
                diff: &d,
                normals: false,
            }],
            &tie,
        )[0];
        assert!(r.iter().all(|x| x.confidence < 0.5), "{r:?}");
    }

    #[test]
    fn vdf_and_ndf_go_together_when_they_agree_and_pick_each_other() {
        let v = diff(&[(0, 0, 4), (0, 2, 4)]);
        let n = diff(&[(0, 1, 3), (0, 0, 2)]);
        let other = diff(&[(0, 0, 4)]);
        let (sv, sn, sw, so) = (
            src("M/A.VDF"),
            src("M/A.NDF"),
            src("M/B.VDF"),
            src("N/A.NDF"),
        );
        let k = |s, d, normals| DiffKey {
            source: s,
            diff: d,
            normals,
        };
        let all = [
            k(&sv, &v, false),
            k(&sn, &n, true),
            k(&sw, &v, false),
            k(&so, &n, true),
        ];
        // A.VDF and B.VDF both fit A.NDF: the name picks A.VDF; N/A.NDF is another folder.
        let p = partners(&all, &[Some(0), Some(0), Some(0), Some(0)]);
        assert_eq!(p, vec![Some(1), Some(0), None, None]);
        // Another base, or a different block count: none.
        assert_eq!(partners(&all[..2], &[Some(0), Some(1)]), vec![None, None]);
        let odd = [k(&sv, &other, false), k(&sn, &n, true)];
        assert_eq!(partners(&odd, &[Some(0), Some(0)]), vec![None, None]);
    }
}
