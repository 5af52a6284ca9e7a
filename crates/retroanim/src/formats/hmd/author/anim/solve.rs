//! Each key's local values solved against the console's fixed-point parent world (the way the
//! TOD author does): the world the glTF client composes in float is the target; the parent's
//! world is what the player builds at that frame (`GsGetLw`: each ancestor's key values,
//! interpolated in the driver's integers, composed with `CompMatrix`'s rounding). Of the
//! integer neighbours of the exact local (angles ±1 each, then scale ±1 per axis; translation
//! ±1 per axis) the one whose console world lies nearest the target is kept.

use super::*;
use crate::formats::gte::Mat;
use crate::formats::hmd::play::{bezier_cof, horner};
use crate::scene::world_exact::Affine;

/// What the solver needs: the scene, the hierarchy, the rest matrices and the tracks solved so
/// far (parents are solved before their children).
pub(super) struct Ctx<'a> {
    pub(super) scene: &'a Scene,
    pub(super) conv: &'a ToConsole,
    pub(super) fps: f64,
    pub(super) parents: &'a [Option<usize>],
    /// Each coordinate's matrix in the file (what a node no sequence moves keeps).
    pub(super) rest: &'a [Mat],
    /// `tracks[node][animation]`.
    pub(super) tracks: Vec<Vec<Option<NodeTrack>>>,
}

/// A key value as the key frame stores it (translation int32, angles and scale int16).
fn stored(q: usize, v: f64) -> i32 {
    if q < 3 {
        v.round() as i32
    } else {
        v.round().clamp(-32768.0, 32767.0) as i32
    }
}

impl NodeTrack {
    /// The values the driver gives the coordinate at frame `f` (the player's frame count).
    fn values_at(&self, f: u32) -> [i32; 9] {
        let Some(i) = self.keys.iter().rposition(|k| k.frame <= f).or(
            // Before the first key (not reached: key 0 is at frame 0).
            (!self.keys.is_empty()).then_some(0),
        ) else {
            return [0, 0, 0, 0, 0, 0, 4096, 4096, 4096];
        };
        let k = &self.keys[i];
        let now: [i32; 9] = std::array::from_fn(|q| stored(q, k.pose[q]));
        let Some(next) = self.keys.get(i + 1).filter(|n| n.frame > f) else {
            return now;
        };
        let t = ((next.frame - k.frame) * 16) as i32;
        let r = ((next.frame - f) * 16) as i32;
        let (p1, p2) = self.controls[i];
        std::array::from_fn(|q| {
            let code = (self.code >> (4 * (q / 3))) & 0xF;
            let end = stored(q, next.pose[q]);
            if code == BEZIER {
                let t16 = (t - r).wrapping_mul(0xFFFF) / t;
                let co = bezier_cof(now[q], stored(q, p1[q]), stored(q, p2[q]), end);
                horner(co, t16)
            } else {
                console_lerp(now[q], end, r, t)
            }
        })
    }

    /// The coordinate's local matrix at frame `f`.
    fn matrix_at(&self, f: u32) -> Mat {
        let v = self.values_at(f);
        let order = ((self.code >> 12) & 0xF) as u8;
        let mut m = Mat::IDENTITY;
        gte::rot_matrix_order(order, [v[3], v[4], v[5]].map(|a| a as i16), &mut m);
        if self.scaled {
            gte::scale_matrix(&mut m, [v[6], v[7], v[8]]);
        }
        m.t = [v[0], v[1], v[2]];
        m
    }
}

impl Ctx<'_> {
    /// The root-first chain of `node` and its ancestors (bounded by the node count).
    fn chain(&self, node: usize) -> Vec<usize> {
        let mut chain = vec![node];
        let mut at = node;
        while let Some(p) = self.parents.get(at).copied().flatten() {
            if chain.len() > self.parents.len() || chain.contains(&p) {
                break;
            }
            chain.push(p);
            at = p;
        }
        chain.reverse();
        chain
    }

    /// The player's world matrix of `node` at frame `f` of animation `k`.
    pub(super) fn console_world(&self, node: usize, k: usize, f: u32) -> Mat {
        let mut world: Option<Mat> = None;
        for c in self.chain(node) {
            let local = match self.tracks.get(c).and_then(|t| t.get(k)) {
                Some(Some(track)) => track.matrix_at(f),
                _ => self.rest.get(c).copied().unwrap_or(Mat::IDENTITY),
            };
            world = Some(match world {
                Some(p) => gte::compose(&p, &local),
                None => local,
            });
        }
        world.unwrap_or(Mat::IDENTITY)
    }

    /// The local transform of `node` at `frame` of `a` as the glTF file holds it (console axes
    /// and units).
    fn file_local(&self, a: &Animation, node: usize, frame: f64) -> Affine {
        let trs = local_at(self.scene, Some(a), node, (frame / self.fps) as f32);
        let r = self.conv.rotation(trs.rotation);
        Affine {
            m: r.map(|row| std::array::from_fn(|j| row[j] * trs.scale[j])),
            t: self.conv.point(trs.translation),
        }
    }

    /// The world of `node` at `frame` of `a` as a glTF client composes it (console axes, units).
    fn target_world(&self, a: &Animation, node: usize, frame: f64) -> Affine {
        self.chain(node).into_iter().fold(Affine::IDENTITY, |w, c| {
            w.mul(&self.file_local(a, c, frame))
        })
    }

    /// Replaces `pose`'s values (key at `frame` of animation `k`, `a`) with the integers
    /// whose console world lies nearest the target (module docs). Left alone where the
    /// target or the parent cannot be inverted (a scale of 0).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn solve(
        &self,
        a: &Animation,
        k: usize,
        node: usize,
        order: u8,
        scaled: bool,
        frame: u32,
        pose: &mut [f64; 9],
    ) {
        let w = self.target_world(a, node, frame as f64);
        let parent = self.parents[node].map(|p| self.console_world(p, k, frame));
        let local = match &parent {
            None => w,
            Some(p) => {
                let pa = Affine {
                    m: p.m.map(|r| r.map(|v| v as f64 / 4096.0)),
                    t: p.t.map(f64::from),
                };
                match pa.inverse() {
                    Some(inv) => inv.mul(&w),
                    None => return,
                }
            }
        };
        // Scale: the columns' lengths (signs as sampled); the rotation what is left.
        let mut s = [1.0f64; 3];
        for j in 0..3 {
            let len = (0..3).map(|i| local.m[i][j].powi(2)).sum::<f64>().sqrt();
            if len < 1e-6 || (scaled && pose[6 + j].abs() < 1.0) {
                return;
            }
            s[j] = if scaled {
                len * pose[6 + j].signum()
            } else {
                len
            };
        }
        let rot: [[f64; 3]; 3] = local.m.map(|row| std::array::from_fn(|j| row[j] / s[j]));
        let mut v = *pose;
        v[3..6].copy_from_slice(&euler(&rot, order));
        unwrap(&mut v, pose, order);
        let want: [[f64; 3]; 3] = w.m.map(|r| r.map(|x| x * 4096.0));
        let place = |m: &Mat| match &parent {
            Some(p) => gte::compose(p, m),
            None => *m,
        };
        let err = |ang: [f64; 3], sc: [f64; 3]| -> (f64, f64) {
            let mut m = Mat::IDENTITY;
            let ang = ang.map(|x| (x as i64).rem_euclid(4096) as i16);
            gte::rot_matrix_order(order, ang, &mut m);
            if scaled {
                gte::scale_matrix(&mut m, sc.map(|x| x as i32));
            }
            let g = place(&m);
            let (mut max, mut sq) = (0.0f64, 0.0);
            for i in 0..3 {
                for j in 0..3 {
                    let d = g.m[i][j] as f64 - want[i][j];
                    max = max.max(d.abs());
                    sq += d * d;
                }
            }
            (max, sq)
        };
        let base = [v[3], v[4], v[5]].map(f64::round);
        let mut sc = if scaled {
            s.map(|x| (x * 4096.0).round().clamp(-32768.0, 32767.0))
        } else {
            [4096.0; 3]
        };
        let mut steps: Vec<[i32; 3]> = (0..27)
            .map(|d| [d % 3 - 1, d / 3 % 3 - 1, d / 9 - 1])
            .collect();
        steps.sort_by_key(|d| d.iter().map(|x| x.abs()).sum::<i32>());
        let mut best = (err(base, sc), base);
        for d in steps {
            if best.0 .0 <= 0.5 {
                break;
            }
            let ang = [0, 1, 2].map(|i| base[i] + d[i] as f64);
            let e = err(ang, sc);
            if e < best.0 {
                best = (e, ang);
            }
        }
        if scaled {
            for j in 0..3 {
                for step in [-1.0, 1.0] {
                    let mut c = sc;
                    c[j] = (c[j] + step).clamp(-32768.0, 32767.0);
                    let e = err(best.1, c);
                    if e < best.0 {
                        best.0 = e;
                        sc = c;
                    }
                }
            }
        }
        // Translation: the rounded local, or the neighbour whose world lies nearest.
        let base_t = local.t.map(|x| x.round());
        let mut t = base_t;
        if let Some(p) = &parent {
            let t_err = |t: [f64; 3]| -> (f64, f64) {
                let m = Mat {
                    m: Mat::IDENTITY.m,
                    t: t.map(|x| x.clamp(-32768.0, 32767.0) as i32),
                };
                let g = gte::compose(p, &m);
                let d = [0, 1, 2].map(|i| (g.t[i] as f64 - w.t[i]).abs());
                (d.iter().copied().fold(0.0, f64::max), d.iter().sum())
            };
            let mut best_t = (t_err(base_t), base_t);
            for d in 0..27 {
                let c = [d % 3, d / 3 % 3, d / 9].map(|x| x as f64 - 1.0);
                let cand = [0, 1, 2].map(|i| base_t[i] + c[i]);
                let e = t_err(cand);
                if e < best_t.0 {
                    best_t = (e, cand);
                }
            }
            t = best_t.1;
        }
        pose[0..3].copy_from_slice(&t);
        pose[3..6].copy_from_slice(&best.1);
        if scaled {
            pose[6..9].copy_from_slice(&sc);
        }
    }
}
