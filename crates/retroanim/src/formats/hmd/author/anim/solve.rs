//! Each key's local values solved against the console's fixed-point parent world (the way the
//! TOD author does). The parent's world is what the player builds at that frame (`GsGetLw`:
//! each ancestor's key values, interpolated in the driver's integers, composed with
//! `CompMatrix`'s rounding).
//!
//! - **Translation**: the world the glTF client composes in float is the target; of the
//!   integer neighbours (±1 per axis) of the exact local under the console parent, the one
//!   whose console world lies nearest it. Neighbours whose console worlds are the same
//!   integers (`CompMatrix` truncates: a unit along a parent's turned axis often moves the
//!   world by less than one) tie, and the tie goes to the one nearest the previous key's
//!   translation: the key's value is also shown at other frames (interpolated towards its
//!   neighbours, and again in each later cycle of a loop, under parents in another phase),
//!   where the arbitrary one of the tie is a unit off. SNAKE 04_2 (translations constant at
//!   100 under 25 levels, each coordinate looping with its own period) played 1,820
//!   coordinate-frames a unit or two off in 1,000 updates with the first neighbour found, none
//!   with the previous key's.
//! - **Angles and scale** (the judge): a candidate is scored by writing its console world back
//!   as the exporter writes a local (`crate::scene::world_exact`: the glTF parent's world
//!   inverted, then the nearest TRS by polar decomposition, which drops shear) and comparing
//!   with the file's local. Candidates: the file local's Euler angles in the track's order,
//!   rounded, and their ±1 neighbours, in both Euler solutions (the console's sine tables give
//!   the two different matrices); then, for a scaled track, the scale by descent (a unit per
//!   axis at a time) with the angles searched again at it, from each Euler solution. Near
//!   gimbal lock (the middle angle within 48/4096 of a quarter turn) the float local's Euler
//!   split is arbitrary, so the outer angles are also tried along the lines where they trade
//!   off (±12, each with the middle angle ±1), and every candidate is scored there (no stop
//!   at the first close one): PP_AIM's gun needed 3 units of that trade at frame 67. A glTF
//!   exported from an HMD then
//!   gets the original integers back (their re-export equals the file to f32 precision), and
//!   with them the original's `CompMatrix` rounding at every depth. Judging by the distance of
//!   the console world to the float world instead (as before) chased the shear the export
//!   drops and drifted 13/4096 down SNAKE's 25 levels.
use super::*;
use crate::formats::gte::Mat;
use crate::formats::hmd::play::{bezier_cof, horner};
use crate::scene::sample::Sampler;
use crate::scene::world_exact::Affine;
use std::cell::RefCell;
use std::collections::HashMap;

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
    /// One sampler per animation written, its channels grouped by node.
    pub(super) samplers: Vec<Sampler<'a>>,
    /// Worlds already composed: console worlds of solved ancestors and glTF worlds, by
    /// (animation, node, frame), so a deep chain costs one product per node and frame.
    pub(super) memo: Memo,
}

/// Composed worlds kept between calls (see [`Ctx::memo`]); emptied when it grows past
/// [`Memo::MAX`] entries, so memory stays bounded on any input.
#[derive(Default)]
pub(super) struct Memo {
    console: RefCell<HashMap<(usize, usize, u32), Mat>>,
    target: RefCell<HashMap<(usize, usize, u64), Affine>>,
}

impl Memo {
    const MAX: usize = 1 << 20;
}

impl<'a> Ctx<'a> {
    /// Node `node`'s local TRS at `time` of `a` (through its sampler where there is one).
    pub(super) fn local(&self, a: &Animation, node: usize, time: f32) -> Trs {
        match self.samplers.iter().find(|s| s.is_of(a)) {
            Some(s) => s.local(node, time),
            None => local_at(self.scene, Some(a), node, time),
        }
    }

    /// The channels of `a` that drive `node`.
    pub(super) fn channels<'s>(
        &'s self,
        a: &'s Animation,
        node: usize,
    ) -> Box<dyn Iterator<Item = &'s crate::scene::Channel> + 's> {
        match self.samplers.iter().find(|s| s.is_of(a)) {
            Some(s) => Box::new(s.channels(node)),
            None => Box::new(a.channels.iter().filter(move |c| c.node == node)),
        }
    }
}

/// A key value as the key frame stores it (translation int32, angles and scale int16).
fn stored(q: usize, v: f64) -> i32 {
    if q < 3 {
        v.round() as i32
    } else {
        v.round().clamp(-32768.0, 32767.0) as i32
    }
}

/// A candidate whose re-exported local lies this close (4096ths) is the file's own: the f32
/// of the glTF values leaves about 10⁻³.
const EXACT: f64 = 0.05;

/// Above this (4096ths) the best re-exported local is not the file's own and the angles are
/// judged by world distance instead (the previous judge). A console file's export comes back
/// within it even below a parent that differs by a unit (SNAKE 64 plays within 2 units; with
/// 0.5 here, 8; with 1.0, 6); the Blender scene's test measures the same from 0.05 to 3.
const FILE_LOCAL: f64 = 2.0;

/// How near a quarter turn (4096ths) the middle Euler angle must be for the outer two to be
/// searched along the lines where they trade off (gimbal lock; PP_AIM's gun at 1015 needed 3
/// units of that trade).
const LOCK: f64 = 48.0;

/// How far along those lines the search goes (units of each outer angle).
const LINE: i32 = 12;

/// The largest element difference of two matrices and the sum of their squares.
fn distance(a: [[f64; 3]; 3], b: [[f64; 3]; 3]) -> (f64, f64) {
    let (mut max, mut sq) = (0.0f64, 0.0);
    for i in 0..3 {
        for j in 0..3 {
            let d = a[i][j] - b[i][j];
            max = max.max(d.abs());
            sq += d * d;
        }
    }
    (max, sq)
}

impl NodeTrack {
    /// The values the driver gives the coordinate at frame `f` (the player's frame count).
    pub(super) fn values_at(&self, f: u32) -> [i32; 9] {
        self.values_on(f, false)
    }

    /// [`Self::values_at`], or with `left` the values a STEP change at `f` leaves (the
    /// interval to `f` ends on them; the change itself is a TFRAME 0 key at `f`).
    pub(super) fn values_on(&self, f: u32, left: bool) -> [i32; 9] {
        // A looping track repeats its keys from `loop_from` on (its jump back): a child's keys
        // past the end of its parent's loop are solved against the parent's next cycle.
        let f = match (self.loop_from, self.keys.last()) {
            (Some(j), Some(last)) if f > last.frame && last.frame > j => {
                j + (f - j) % (last.frame - j)
            }
            _ => f,
        };
        // The last key at or before `f` (keys are in frame order: a binary search, so solving
        // every key of a long track stays linear in its keys), stepping back over the STEP
        // changes at `f` itself when `left`.
        let mut end = self.keys.partition_point(|k| k.frame <= f);
        while left && end > 0 && self.keys[end - 1].instant && self.keys[end - 1].frame == f {
            end -= 1;
        }
        let Some(i) = end.checked_sub(1).or(
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
    pub(super) fn matrix_at(&self, f: u32) -> Mat {
        if let Some(x) = &self.axes {
            return x.matrix_at(f);
        }
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

    /// The coordinate's local matrix at frame `f` when one pointer's values `got` drive the
    /// parts of type word `driven` (rotation order included) and the parts of `keep` it has not
    /// driven yet stay at `rest`: the other parts as this track's (other pointers' parts).
    pub(super) fn matrix_with(
        &self,
        f: u32,
        (got, driven): (&[i32; 9], u32),
        keep: u32,
        rest: &Mat,
    ) -> Mat {
        let own = self.values_at(f);
        let sets = |c: u32, part: u32| (c >> (4 * part)) & 0xF != 0;
        let pick = |part: u32| {
            if sets(driven, part) {
                Some(got)
            } else if sets(keep, part) {
                None
            } else {
                Some(&own)
            }
        };
        let mut m = Mat::IDENTITY;
        match pick(1) {
            Some(v) => {
                let order = if sets(driven, 1) { driven } else { self.code };
                let order = ((order >> 12) & 0xF) as u8;
                gte::rot_matrix_order(order, [v[3], v[4], v[5]].map(|a| a as i16), &mut m);
            }
            None => m.m = rest.m,
        }
        if let Some(v) = pick(2).filter(|_| self.scaled || sets(driven, 2)) {
            gte::scale_matrix(&mut m, [v[6], v[7], v[8]]);
        }
        m.t = pick(0).map_or(rest.t, |v| [v[0], v[1], v[2]]);
        m
    }
}

impl Ctx<'_> {
    /// `node`'s parent, if it has one.
    fn tree_parent(&self, node: usize) -> Option<usize> {
        self.parents.get(node).copied().flatten()
    }

    /// The local matrix the player uses for `c` at frame `f` of animation `k`.
    fn console_local(&self, c: usize, k: usize, f: u32) -> Mat {
        match self.tracks.get(c).and_then(|t| t.get(k)) {
            Some(Some(track)) => track.matrix_at(f),
            _ => self.rest.get(c).copied().unwrap_or(Mat::IDENTITY),
        }
    }

    /// The player's world matrix of `node` at frame `f` of animation `k`. Its ancestors are
    /// solved before it (parents first), so their worlds are kept; the node's own is not, as
    /// its track may still change.
    pub(super) fn console_world(&self, node: usize, k: usize, f: u32) -> Mat {
        let local = self.console_local(node, k, f);
        match self.tree_parent(node) {
            Some(p) => gte::compose(&self.ancestor_world(p, k, f), &local),
            None => local,
        }
    }

    /// The world of an ancestor (solved: its world is kept), composed root first along its
    /// chain (bounded by the node count), from the deepest world already kept.
    fn ancestor_world(&self, node: usize, k: usize, f: u32) -> Mat {
        if let Some(m) = self.memo.console.borrow().get(&(k, node, f)) {
            return *m;
        }
        // Up to the nearest ancestor whose world is kept (or the root), then down.
        let mut up = vec![node];
        let mut world: Option<Mat> = None;
        let mut at = node;
        while let Some(p) = self.tree_parent(at) {
            if up.len() > self.parents.len() {
                break;
            }
            if let Some(m) = self.memo.console.borrow().get(&(k, p, f)) {
                world = Some(*m);
                break;
            }
            up.push(p);
            at = p;
        }
        for &c in up.iter().rev() {
            let local = self.console_local(c, k, f);
            let w = match world {
                Some(p) => gte::compose(&p, &local),
                None => local,
            };
            self.remember_console((k, c, f), w);
            world = Some(w);
        }
        world.unwrap_or(Mat::IDENTITY)
    }

    fn remember_console(&self, key: (usize, usize, u32), m: Mat) {
        let mut memo = self.memo.console.borrow_mut();
        if memo.len() >= Memo::MAX {
            memo.clear();
        }
        memo.insert(key, m);
    }

    /// The local transform of `node` at `frame` of `a` as the glTF file holds it (console axes
    /// and units).
    pub(super) fn file_local(&self, a: &Animation, node: usize, frame: f64) -> Affine {
        let trs = self.local(a, node, (frame / self.fps) as f32);
        let r = self.conv.rotation(trs.rotation);
        Affine {
            m: r.map(|row| std::array::from_fn(|j| row[j] * trs.scale[j])),
            t: self.conv.point(trs.translation),
        }
    }

    /// The world of `node` at `frame` of `a` as a glTF client composes it (console axes, units).
    /// It depends on the file alone, so every world composed is kept.
    fn target_world(&self, a: &Animation, node: usize, frame: f64) -> Affine {
        let id = a as *const Animation as usize;
        let key = |c: usize| (id, c, frame.to_bits());
        if let Some(w) = self.memo.target.borrow().get(&key(node)) {
            return *w;
        }
        // Up to the nearest ancestor whose world is kept (or the root), then down.
        let mut up = vec![node];
        let mut world = Affine::IDENTITY;
        let mut at = node;
        while let Some(p) = self.tree_parent(at) {
            if up.len() > self.parents.len() {
                break;
            }
            if let Some(w) = self.memo.target.borrow().get(&key(p)) {
                world = *w;
                break;
            }
            up.push(p);
            at = p;
        }
        for &c in up.iter().rev() {
            world = world.mul(&self.file_local(a, c, frame));
            let mut memo = self.memo.target.borrow_mut();
            if memo.len() >= Memo::MAX {
                memo.clear();
            }
            memo.insert(key(c), world);
        }
        world
    }

    /// Whether `node` holding its rest matrix at every frame up to `last` of animation `k`
    /// (`a`) stays on the file's world there: translation within [`REST_UNITS`], matrix
    /// within [`REST_MATRIX`] 4096ths, under its parent's console world.
    pub(super) fn rest_fits(&self, a: &Animation, k: usize, node: usize, last: u32) -> bool {
        let Some(rest) = self.rest.get(node) else {
            return false;
        };
        (0..=last).all(|f| {
            let parent = self.parents[node].map(|p| self.console_world(p, k, f));
            let g = placed(parent.as_ref(), rest);
            let want = self.target_world(a, node, f as f64);
            (0..3).all(|i| {
                (g.t[i] as f64 - want.t[i]).abs() <= REST_UNITS
                    && (0..3)
                        .all(|j| (g.m[i][j] as f64 - want.m[i][j] * 4096.0).abs() <= REST_MATRIX)
            })
        })
    }

    /// The judge of a candidate local matrix of `node` at `frame` of animation `k` (`a`): its
    /// console world under the parent's, written back as the exporter writes a glTF local,
    /// against the file's local (largest element and sum of squares, 4096ths; as
    /// [`Ctx::solve`] judges angles). `None` where the glTF parent cannot be inverted.
    pub(super) fn local_judge<'s>(
        &'s self,
        a: &'s Animation,
        k: usize,
        node: usize,
        frame: u32,
    ) -> Option<impl Fn(&Mat) -> (f64, f64) + 's> {
        let file = self.file_local(a, node, frame as f64);
        let parent = self.parents[node].map(|p| self.console_world(p, k, frame));
        let client_inv = match self.parents[node] {
            Some(p) => Affine {
                m: self.target_world(a, p, frame as f64).inverse()?.m,
                t: [0.0; 3],
            },
            None => Affine::IDENTITY,
        };
        let want = file.m.map(|r| r.map(|x| x * 4096.0));
        Some(move |local: &Mat| {
            let g = placed(parent.as_ref(), local);
            let world = Affine {
                m: g.m.map(|r| r.map(|v| v as f64 / 4096.0)),
                t: [0.0; 3],
            };
            let back = Affine::from_trs(&client_inv.mul(&world).to_trs());
            distance(back.m.map(|r| r.map(|x| x * 4096.0)), want)
        })
    }

    /// Whether local `got` of `node` at `frame` of animation `k` (`a`) shows the scene as
    /// well as the author's own local `own` there: its console world's translation within
    /// [`SHOWN_UNITS`] of the glTF world's on every axis (or no farther than `own`'s), and
    /// [`Ctx::local_judge`]'s largest element within [`EXACT`] (or no larger than `own`'s).
    /// A console file's own key frames pass where the scene still shows them, an edited key's
    /// old value does not. `false` where the glTF parent cannot be inverted.
    pub(super) fn shows(
        &self,
        (a, k): (&Animation, usize),
        node: usize,
        frame: u32,
        (got, own): (&Mat, &Mat),
    ) -> bool {
        let Some(judge) = self.local_judge(a, k, node, frame) else {
            return false;
        };
        let want = self.target_world(a, node, frame as f64);
        let parent = self.parents[node].map(|p| self.console_world(p, k, frame));
        let score = |m: &Mat| {
            let g = placed(parent.as_ref(), m);
            let t = (0..3)
                .map(|i| (g.t[i] as f64 - want.t[i]).abs())
                .fold(0.0, f64::max);
            (t, judge(m).0)
        };
        let (g, o) = (score(got), score(own));
        g.0 <= o.0.max(SHOWN_UNITS) && g.1 <= o.1.max(EXACT)
    }

    /// Replaces `pose`'s values (key at `frame` of animation `k`, `a`) with the integers
    /// whose console world lies nearest the target (module docs). Left alone where the
    /// target or the parent cannot be inverted (a scale of 0). Returns the judge's error of
    /// the values chosen (largest element, 4096ths; 0 where left alone).
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
        prev: Option<[f64; 3]>,
    ) -> f64 {
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
                    None => return 0.0,
                }
            }
        };
        // Scale: the columns' lengths (signs as sampled); the rotation what is left.
        let mut s = [1.0f64; 3];
        for j in 0..3 {
            let len = (0..3).map(|i| local.m[i][j].powi(2)).sum::<f64>().sqrt();
            if len < 1e-6 || (scaled && pose[6 + j].abs() < 1.0) {
                return 0.0;
            }
            s[j] = if scaled {
                len * pose[6 + j].signum()
            } else {
                len
            };
        }
        // Angles: the file's own local rotation (relative to the glTF parent) in `order`,
        // unwrapped near the sampled key (module docs, "Judge").
        let file = self.file_local(a, node, frame as f64);
        let mut fs = [1.0f64; 3];
        for j in 0..3 {
            let len = (0..3).map(|i| file.m[i][j].powi(2)).sum::<f64>().sqrt();
            if len < 1e-6 {
                return 0.0;
            }
            fs[j] = if scaled {
                len * pose[6 + j].signum()
            } else {
                len
            };
        }
        let rot: [[f64; 3]; 3] = file.m.map(|row| std::array::from_fn(|j| row[j] / fs[j]));
        let mut v = *pose;
        v[3..6].copy_from_slice(&euler(&rot, order));
        unwrap(&mut v, pose, order);
        // The candidate's local matrix (angles, scale) and its console world.
        let local_of = |ang: [f64; 3], sc: [f64; 3]| -> Mat {
            let mut m = Mat::IDENTITY;
            let ang = ang.map(|x| (x as i64).rem_euclid(4096) as i16);
            gte::rot_matrix_order(order, ang, &mut m);
            if scaled {
                gte::scale_matrix(&mut m, sc.map(|x| x as i32));
            }
            m
        };
        let world_of = |ang: [f64; 3], sc: [f64; 3]| placed(parent.as_ref(), &local_of(ang, sc));
        // How far the candidate's console world, written back as a glTF local the way the
        // exporter writes one, lies from the file's local (`local_judge`).
        let Some(judge) = self.local_judge(a, k, node, frame) else {
            return 0.0;
        };
        let err = |ang: [f64; 3], sc: [f64; 3]| judge(&local_of(ang, sc));
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
        // Both Euler solutions: the console's tables give their matrices different roundings.
        let (i, j, k) = super::super::axes_of(order);
        let other = |b: [f64; 3]| {
            let mut o = b;
            o[i] += 2048.0;
            o[j] = 2048.0 - o[j];
            o[k] += 2048.0;
            o
        };
        // Near gimbal lock (the middle angle within `LOCK` of a quarter turn) the outer
        // angles trade off against each other: the float local's Euler split need not be the
        // file's, so candidates also lie along both lines where they trade (±`LINE`).
        let locked = |b: [f64; 3]| (b[j].rem_euclid(2048.0) - 1024.0).abs() <= LOCK;
        let mut lines: Vec<[i32; 3]> = Vec::new();
        for d in (-LINE..=LINE).filter(|d| d.abs() > 1) {
            for sign in [1, -1] {
                for m in [0, -1, 1] {
                    let mut c = [0; 3];
                    c[i] = d;
                    c[k] = sign * d;
                    c[j] = m;
                    lines.push(c);
                }
            }
        }
        // The best angles around `base` (and around its other Euler solution with `both`) at
        // scale `sc`; stops at the first within `enough` unless near gimbal lock.
        let search = |err: &dyn Fn([f64; 3], [f64; 3]) -> (f64, f64),
                      base: [f64; 3],
                      enough: f64,
                      sc: [f64; 3],
                      both: bool| {
            let mut best = (err(base, sc), base);
            let pair = [base, other(base)];
            for &b in if both { &pair[..] } else { &pair[..1] } {
                let more: &[[i32; 3]] = if locked(b) { &lines } else { &[] };
                for d in steps.iter().chain(more) {
                    if best.0 .0 <= enough && more.is_empty() {
                        return best;
                    }
                    let ang = [0, 1, 2].map(|q| b[q] + d[q] as f64);
                    let e = err(ang, sc);
                    if e < best.0 {
                        best = (e, ang);
                    }
                }
            }
            best
        };
        let want: [[f64; 3]; 3] = w.m.map(|r| r.map(|x| x * 4096.0));
        let err_world = |ang: [f64; 3], sc: [f64; 3]| -> (f64, f64) {
            distance(world_of(ang, sc).m.map(|r| r.map(f64::from)), want)
        };
        let mut best = search(&err, base, EXACT, sc, true);
        let mut fallback = false;
        if best.0 .0 > FILE_LOCAL {
            // No integers give the file's local back (not a console file's export, e.g. a
            // Blender scene): the angles whose console world lies nearest the float world,
            // around the exact local under the console parent.
            let lr: [[f64; 3]; 3] = local.m.map(|row| std::array::from_fn(|j| row[j] / s[j]));
            let mut lv = *pose;
            lv[3..6].copy_from_slice(&euler(&lr, order));
            unwrap(&mut lv, pose, order);
            best = search(
                &err_world,
                [lv[3], lv[4], lv[5]].map(f64::round),
                0.5,
                sc,
                true,
            );
            fallback = true;
        }
        if scaled {
            // The scale by descent (a unit on one axis at a time), then the angles again
            // around the result, from each Euler solution: the glTF's scale along the polar
            // rotation's axes can lie units from the key's (PP_AIM: 4097 for a key of 4095),
            // and at the rounded one the other solution may score best.
            let judge: &dyn Fn([f64; 3], [f64; 3]) -> (f64, f64) =
                if fallback { &err_world } else { &err };
            let enough = if fallback { 0.5 } else { EXACT };
            let mut winner = (best.0, best.1, sc);
            for start in [best.1, other(best.1)] {
                let mut cur = (judge(start, sc), start, sc);
                for _ in 0..4 {
                    for _ in 0..16 {
                        let mut moved = false;
                        for j in 0..3 {
                            for step in [-1.0, 1.0] {
                                let mut c = cur.2;
                                c[j] = (c[j] + step).clamp(-32768.0, 32767.0);
                                let e = judge(cur.1, c);
                                if e < cur.0 {
                                    cur = (e, cur.1, c);
                                    moved = true;
                                }
                            }
                        }
                        if !moved {
                            break;
                        }
                    }
                    if cur.0 .0 <= enough {
                        break;
                    }
                    let (e, ang) = search(judge, cur.1, enough, cur.2, false);
                    if e >= cur.0 {
                        break;
                    }
                    cur = (e, ang, cur.2);
                }
                if cur.0 < winner.0 {
                    winner = cur;
                }
                if winner.0 .0 <= enough {
                    break;
                }
            }
            best = (winner.0, winner.1);
            sc = winner.2;
        }
        // Each angle the turn nearest the unwrapped value.
        best.1 = [0, 1, 2].map(|q| best.1[q] + ((base[q] - best.1[q]) / 4096.0).round() * 4096.0);
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
            // Candidates whose console worlds are the same integers tie: the one nearest the
            // previous key's translation wins (then the rounded local), so a translation the
            // file holds constant stays so and a key played again in a later loop cycle, under
            // other parents, keeps the file's integers.
            let near_prev =
                |t: [f64; 3]| prev.map_or(0.0, |p| (0..3).map(|i| (t[i] - p[i]).abs()).sum());
            let mut best_t = ((t_err(base_t), near_prev(base_t)), base_t);
            for d in 0..27 {
                let c = [d % 3, d / 3 % 3, d / 9].map(|x| x as f64 - 1.0);
                let cand = [0, 1, 2].map(|i| base_t[i] + c[i]);
                let e = (t_err(cand), near_prev(cand));
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
        best.0 .0
    }
}

/// How far (units) a coordinate's world may be from the file's for its rest to stand for it
/// ([`Ctx::rest_fits`]): the console's rounding of its parent's world moves a child by up to
/// a unit and a half.
const REST_UNITS: f64 = 1.5;

/// How far (units) from the glTF world a recorded key frame's console world may lie for
/// [`Ctx::shows`]: the console's truncating `CompMatrix` leaves a file's own worlds up to a
/// unit from the float composition of its exported locals.
const SHOWN_UNITS: f64 = 1.0;

/// How far (4096ths) its world matrix may be ([`Ctx::rest_fits`]).
const REST_MATRIX: f64 = 2.0;

/// `m` composed under `parent` (the console's `CompMatrix`), or `m` for a root.
pub(super) fn placed(parent: Option<&Mat>, m: &Mat) -> Mat {
    match parent {
        Some(p) => gte::compose(p, m),
        None => *m,
    }
}
