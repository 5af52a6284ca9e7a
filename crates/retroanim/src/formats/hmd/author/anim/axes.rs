//! Rotations about one fixed axis → joint axes MIMe (category 4, type 0x04010010), as
//! Sony's `SCEI/COMB/WALKRUN/SWITCH` moves its legs.
//!
//! The axes-MIMe driver multiplies a coordinate's matrix on the right by a rotation it builds
//! from a rotation vector `v = Σ dv·w` (a difference vector per key, the MIMe weights): the
//! vector's length is the angle, its direction the axis, both through the GTE's fixed-point
//! normalisation (`cat4_mime::vector_normal`, `rotate_about_axis`). The matrices it gives
//! have cosine/sine pairs no integer roll-pitch-yaw angle gives (SWITCH: a diagonal of 4087
//! and off-diagonal pairs scaled by the normalised axis), so RPY keys cannot come back to
//! them; this writes them the way they were made.
//!
//! A node qualifies when, in every animation that moves it, its local transform is its rest
//! matrix (as the coordinate section holds it) turned about one fixed axis and nothing else
//! (columns within 24/4096 of unit length, translation within 2 units: a child's local keeps
//! its parent's truncation), and its RPY keys miss the file (worst judge error over
//! [`TRY_OVER`]) where the MIMe does better. One key per such node: its difference record is
//! the axis as a unit vector of the console's axes (`±1` on an axis-aligned axis, so that the
//! weight alone sets `v` to the unit and every rounding of the normalisation can be matched;
//! else the axis × 4096, the angle then set to the 4096th of a turn), and its weight, per
//! frame, is the integer whose console matrix, judged as the RPY keys are
//! (`Ctx::local_judge`), lies nearest the file's local.

use super::solve::Ctx;
use super::NodeTrack;
use crate::formats::gte::Mat;
use crate::formats::hmd::cat4_mime::{rotate_about_axis, vector_normal};
use crate::scene::world_exact::Affine;
use crate::scene::Animation;

/// RPY keys whose worst judge error (4096ths) is above this are compared with a MIMe fit.
pub(super) const TRY_OVER: f64 = 1.0;

/// How many angle units either side of |v| / 4096 the weight search covers.
const SEARCH: i64 = 8;

/// A node written as a joint axes MIMe key: its difference and its weights per animation.
#[derive(Debug, Clone)]
pub(super) struct AxesNode {
    pub node: usize,
    pub dv: [i16; 3],
    pub weights: Vec<Vec<i32>>,
}

/// One node's rotation as a joint axes MIMe key.
#[derive(Debug, Clone)]
pub(super) struct AxesMime {
    /// The difference record's rotation vector.
    pub dv: [i16; 3],
    /// The coordinate's matrix the MIMe turns (its rest matrix in the file).
    pub base: Mat,
    /// The weight at frames 0, 1, … (the last one holds after).
    pub weights: Vec<i32>,
    /// The worst judge error of the frames (4096ths).
    pub worst: f64,
}

impl AxesMime {
    /// A node's track turned by this key (no key frames of its own).
    pub(super) fn track(self) -> NodeTrack {
        NodeTrack {
            scaled: false,
            code: 0,
            keys: Vec::new(),
            controls: Vec::new(),
            worst: self.worst,
            axes: Some(self),
            loop_from: None,
        }
    }

    /// The coordinate's matrix at frame `f`: the base turned as the driver turns it.
    pub(super) fn matrix_at(&self, f: u32) -> Mat {
        let w = self
            .weights
            .get(f as usize)
            .or(self.weights.last())
            .copied()
            .unwrap_or(0);
        turned(&self.base, self.dv, w)
    }
}

/// `base` turned by the driver for weight `w` on difference `dv` (one key).
fn turned(base: &Mat, dv: [i16; 3], w: i32) -> Mat {
    let mut m = *base;
    if w == 0 {
        return m;
    }
    let v = dv.map(|d| (d as i32).wrapping_mul(w));
    let (angle, axis) = vector_normal(v);
    if angle != 0 {
        rotate_about_axis(&mut m.m, axis, angle);
    }
    m
}

/// `node`'s rest matrix, as an affine (units, 1.0 = 4096) and its inverse.
fn rest_of(ctx: &Ctx, node: usize) -> Option<(Mat, Affine, Affine)> {
    let base = *ctx.rest.get(node)?;
    let b = Affine {
        m: base.m.map(|r| r.map(|v| v as f64 / 4096.0)),
        t: base.t.map(f64::from),
    };
    let inv = b.inverse()?;
    Some((base, b, inv))
}

/// The rotation (axis, angle in radians) of an orthonormal-ish matrix.
fn axis_angle(r: &[[f64; 3]; 3]) -> ([f64; 3], f64) {
    let s = [r[2][1] - r[1][2], r[0][2] - r[2][0], r[1][0] - r[0][1]];
    let len = (s[0] * s[0] + s[1] * s[1] + s[2] * s[2]).sqrt();
    let cos = ((r[0][0] + r[1][1] + r[2][2]) - 1.0) / 2.0;
    let angle = (len / 2.0).atan2(cos);
    if len < 1e-12 {
        return ([1.0, 0.0, 0.0], angle);
    }
    (s.map(|x| x / len), angle)
}

/// The frames' rotation of `node` in `a` (animation number `k`) relative to its rest matrix,
/// about one axis, as a MIMe key; `None` when the node does anything else (module docs).
pub(super) fn fit(
    ctx: &Ctx,
    (a, k, world): (&Animation, usize, &Animation),
    node: usize,
    last: u32,
) -> Option<AxesMime> {
    let (base, b, inv) = rest_of(ctx, node)?;
    // Per frame: the angle about the (common) axis, signed.
    let mut axis: Option<[f64; 3]> = None;
    let mut angles = Vec::with_capacity(last as usize + 1);
    for f in 0..=last {
        let l = ctx.file_local(a, node, f as f64);
        // (A child's local, written under its parent's client world, keeps the console's
        // truncating composition: its translation wanders by a unit or so.)
        if (0..3).any(|i| (l.t[i] - b.t[i]).abs() > 2.0) {
            return None;
        }
        // Scale stays (the console's matrices are a unit or so off orthonormal).
        let rel = inv.mul(&Affine {
            m: l.m,
            t: [0.0; 3],
        });
        for j in 0..3 {
            let len = (0..3).map(|i| rel.m[i][j].powi(2)).sum::<f64>().sqrt();
            if (len - 1.0).abs() > 24.0 / 4096.0 {
                return None;
            }
        }
        let (u, mut angle) = axis_angle(&rel.m);
        if angle.abs() > 1e-3 {
            match axis {
                None => axis = Some(u),
                Some(a0) => {
                    let dot = a0[0] * u[0] + a0[1] * u[1] + a0[2] * u[2];
                    if dot.abs() < 0.9999 {
                        return None;
                    }
                    if dot < 0.0 {
                        angle = -angle;
                    }
                }
            }
        }
        angles.push(angle);
    }
    // A node this animation does not turn keeps weight 0.
    let Some(u) = axis else {
        return Some(AxesMime {
            dv: [4096, 0, 0],
            base,
            weights: vec![0],
            worst: 0.0,
        });
    };
    let aligned = (0..3).find(|&i| (u[i].abs() - 1.0).abs() < 1e-6);
    let dv: [i16; 3] = match aligned {
        Some(i) => std::array::from_fn(|q| if q == i { u[i].signum() as i16 } else { 0 }),
        None => u.map(|x| (x * 4096.0).round().clamp(-32768.0, 32767.0) as i16),
    };
    let len = dv.map(|d| (d as f64).powi(2)).iter().sum::<f64>().sqrt();
    // Which way the driver turns for a positive weight: tried on the largest angle.
    let (fm, am) = angles
        .iter()
        .enumerate()
        .max_by(|x, y| x.1.abs().total_cmp(&y.1.abs()))
        .map(|(f, &a)| (f as u32, a))?;
    let wm = (am / std::f64::consts::TAU * 4096.0 * 4096.0 / len).round() as i32;
    let judge = ctx.local_judge(world, k, node, fm)?;
    let flip = judge(&turned(&base, dv, wm.wrapping_neg())) < judge(&turned(&base, dv, wm));
    let dv = if flip {
        dv.map(|d| d.saturating_neg())
    } else {
        dv
    };
    solved(ctx, (k, world), node, (base, dv), (&angles, false))
}

/// The key of difference `dv` turning `node`'s rest matrix `base` by `angles` (radians, at
/// frames 0, 1, …): each frame's [`best_weight`] and the worst judge error.
fn solved(
    ctx: &Ctx,
    (k, world): (usize, &Animation),
    node: usize,
    (base, dv): (Mat, [i16; 3]),
    (angles, both): (&[f64], bool),
) -> Option<AxesMime> {
    let mut weights = Vec::with_capacity(angles.len());
    let mut worst = 0.0f64;
    for (f, &angle) in angles.iter().enumerate() {
        let best = best_weight(ctx, (k, world), node, (&base, dv), (f as u32, angle, both))?;
        worst = worst.max(best.0 .0);
        weights.push(best.1 as i32);
    }
    Some(AxesMime {
        dv,
        base,
        weights,
        worst,
    })
}

/// The joint axes MIMe tracks of `node` in place of its RPY `tracks` (one per animation of
/// `sources`: (what moves the node, the animation moving its ancestors)), when its keys miss
/// the file by more than [`TRY_OVER`], every animation fits one axis (the same difference),
/// and the MIMe comes back closer.
pub(super) fn choose(
    ctx: &Ctx,
    sources: &[(&Animation, &Animation)],
    node: usize,
    tracks: &[NodeTrack],
) -> Option<Vec<NodeTrack>> {
    let worst = tracks.iter().map(|t| t.worst).fold(0.0, f64::max);
    if worst <= TRY_OVER {
        return None;
    }
    let fits: Vec<AxesMime> = sources
        .iter()
        .enumerate()
        .map(|(k, &(own, a))| {
            let last = tracks.get(k)?.keys.last().map_or(0, |key| key.frame);
            fit(ctx, (own, k, a), node, last)
        })
        .collect::<Option<_>>()?;
    let better = fits.iter().map(|x| x.worst).fold(0.0, f64::max) < worst - super::RESCALE_GAIN;
    let turns = fits.iter().any(|x| x.weights.iter().any(|&w| w != 0));
    let one_axis = fits.iter().all(|x| x.dv == fits[0].dv);
    (better && turns && one_axis).then(|| fits.into_iter().map(AxesMime::track).collect())
}

/// `node` as a MIMe key when its tracks are joint axes MIMe tracks.
pub(super) fn node_of(node: usize, tracks: &[Option<NodeTrack>]) -> Option<AxesNode> {
    let first = tracks.first()?.as_ref()?.axes.as_ref()?;
    Some(AxesNode {
        node,
        dv: first.dv,
        weights: tracks
            .iter()
            .map(|t| {
                t.as_ref()
                    .and_then(|t| t.axes.as_ref())
                    .map_or(vec![0], |x| x.weights.clone())
            })
            .collect(),
    })
}

/// The weight near `w0` whose `score` (the judge's) is least, and that score: coarse then
/// fine, [`SEARCH`] angle units either side. One angle unit spans 4096 / |dv| weights
/// (`len` = |dv|), and the driver's normalisation gives an angle up to 3 units off |v| / 4096
/// (SWITCH: 715 for 718).
fn search(score: &dyn Fn(i64) -> (f64, f64), w0: i64, len: f64) -> ((f64, f64), i64) {
    let span = (4096.0 / len).ceil() as i64;
    let stride = (span / 64).max(1);
    let mut best = (score(w0), w0);
    let mut w = w0 - SEARCH * span;
    while w <= w0 + SEARCH * span {
        let e = score(w);
        if e < best.0 {
            best = (e, w);
        }
        w += stride;
    }
    if stride > 1 {
        let c = best.1;
        for w in c - stride..=c + stride {
            let e = score(w);
            if e < best.0 {
                best = (e, w);
            }
        }
    }
    best
}

/// The weight nearest turning `node`'s rest matrix `base` by `angle` (radians) about
/// difference `dv` at frame `f` of animation `k` (`world`), by the judge, and its score; with
/// `both`, either way round the axis. `None` without a judge or for an angle no weight holds.
fn best_weight(
    ctx: &Ctx,
    (k, world): (usize, &Animation),
    node: usize,
    (base, dv): (&Mat, [i16; 3]),
    (f, angle, both): (u32, f64, bool),
) -> Option<((f64, f64), i64)> {
    let len = dv.map(|d| (d as f64).powi(2)).iter().sum::<f64>().sqrt();
    // |v| / 4096 is the angle in 4096ths of a turn.
    let w0 = (angle / std::f64::consts::TAU * 4096.0 * 4096.0 / len).round();
    if !w0.is_finite() || w0.abs() > i32::MAX as f64 / 2.0 {
        return None;
    }
    let judge = ctx.local_judge(world, k, node, f)?;
    let score = |w: i64| judge(&turned(base, dv, w as i32));
    let one = search(&score, w0 as i64, len);
    if !both {
        return Some(one);
    }
    let other = search(&score, -(w0 as i64), len);
    Some(if other.0 < one.0 { other } else { one })
}

/// The weights at frames 0..=`last` with which difference `dv` (a recorded key's, fixed)
/// turns `node`'s rest matrix nearest the file's local, each frame's best by the judge
/// (either way round the axis), as an [`AxesMime`]; `None` when a frame has no judge.
pub(super) fn weights_for(
    ctx: &Ctx,
    (a, k, world): (&Animation, usize, &Animation),
    node: usize,
    dv: [i16; 3],
    last: u32,
) -> Option<AxesMime> {
    let (base, _, inv) = rest_of(ctx, node)?;
    let angles: Vec<f64> = (0..=last)
        .map(|f| {
            let l = ctx.file_local(a, node, f as f64);
            let rel = inv.mul(&Affine {
                m: l.m,
                t: [0.0; 3],
            });
            axis_angle(&rel.m).1
        })
        .collect();
    solved(ctx, (k, world), node, (base, dv), (&angles, true))
}

/// `node` turned by difference `dv` with a key's `weights` (solved on another node of the
/// key, [`weights_for`]), as an [`AxesMime`] with its worst judge error; `None` when a frame
/// has no judge.
pub(super) fn with_weights(
    ctx: &Ctx,
    (k, world): (usize, &Animation),
    node: usize,
    dv: [i16; 3],
    weights: &[i32],
) -> Option<AxesMime> {
    let base = *ctx.rest.get(node)?;
    let mut worst = 0.0f64;
    for (f, &w) in weights.iter().enumerate() {
        worst = worst.max(error_at(ctx, (k, world), node, (dv, w), f as u32)?);
    }
    Some(AxesMime {
        dv,
        base,
        weights: weights.to_vec(),
        worst,
    })
}

/// The judge's error (largest element, 4096ths) of `node` turned by `dv` with weight `w` at
/// frame `f` of animation `k` (`world`); `None` without a judge.
pub(super) fn error_at(
    ctx: &Ctx,
    (k, world): (usize, &Animation),
    node: usize,
    (dv, w): ([i16; 3], i32),
    f: u32,
) -> Option<f64> {
    let base = *ctx.rest.get(node)?;
    let judge = ctx.local_judge(world, k, node, f)?;
    Some(judge(&turned(&base, dv, w)).0)
}
