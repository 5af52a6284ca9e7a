//! The update driver as the kept flow is checked with it: the key frames a sequence reaches
//! (`get_tctr`'s walk, paced at SPEED from the pointer's RFRAME) and the values the
//! interpolation drivers give along them, update by update (`kept`'s module docs, "As the
//! driver plays", "Bezier").

use std::collections::BTreeMap;

use super::super::super::super::cat3_anim::{SequenceDescriptor, CONTROL_END};
use super::super::super::super::play::{bezier_cof, bspline_cof, console_lerp, horner};
use super::super::write::{bezier, bspline};

/// Most descriptors walked along one sequence's path, key frames and jumps together (a longer
/// walk is a loop of jumps, which the driver would not leave, or a table built to be slow):
/// the flow is then not kept.
const WALK: usize = 1 << 22;

/// A key frame reached: its descriptor, the update it is reached at and its TFRAME.
#[derive(Debug, Clone, Copy)]
pub(super) struct Visit {
    pub at: usize,
    pub update: u64,
    pub tframe: u8,
}

/// The next key frame from descriptor `at` with stream ID `sid` (updated by the jumps taken),
/// as the driver's `get_tctr` walks: `Ok(None)` at END or past the table, `Err(())` when the
/// walk spends the last of `budget` (descriptors looked at).
pub(super) fn next_key(
    d: &[SequenceDescriptor],
    mut at: usize,
    sid: &mut u8,
    budget: &mut usize,
) -> std::result::Result<Option<usize>, ()> {
    loop {
        *budget = budget.checked_sub(1).ok_or(())?;
        match d.get(at) {
            None => return Ok(None),
            Some(SequenceDescriptor::KeyFrame { .. }) => return Ok(Some(at)),
            Some(&SequenceDescriptor::Jump {
                sid_dst,
                sid_cnd,
                seq_idx,
            }) if sid_cnd == 0 || sid_cnd == *sid => {
                if sid_cnd != 0 || sid_dst != 0 {
                    *sid = sid_dst;
                }
                at = seq_idx as usize;
                continue;
            }
            Some(&SequenceDescriptor::Control { code, p1, .. })
                if code == CONTROL_END && (p1 == 0 || p1 == *sid) =>
            {
                return Ok(None)
            }
            Some(_) => at += 1,
        }
    }
}

/// How the driver steps through a pointer's intervals: SPEED (> 0), and the pointer's RFRAME
/// in the file, which the first interval starts that far into (1/16 frames).
#[derive(Debug, Clone, Copy)]
pub(super) struct Pace {
    pub speed: i32,
    pub offset: i32,
}

/// The key frames sequence `start` reaches with stream ID `sid` at `pace`, up to the first
/// past update `horizon`; `None` on a loop of jumps or of TFRAME 0 keys, or a first interval
/// shorter than the pointer's RFRAME.
pub(super) fn path(
    d: &[SequenceDescriptor],
    (start, sid): (usize, u8),
    pace: Pace,
    horizon: u64,
) -> Option<Vec<Visit>> {
    let tframe = |i: usize| match d.get(i) {
        Some(SequenceDescriptor::KeyFrame { tframe, .. }) => *tframe,
        _ => 0,
    };
    let mut sid = sid;
    let mut budget = WALK;
    let first = match d.get(start) {
        Some(SequenceDescriptor::KeyFrame { .. }) => Some(start),
        _ => next_key(d, start.saturating_add(1), &mut sid, &mut budget).ok()?,
    };
    let Some(mut at) = first else {
        return Some(Vec::new());
    };
    let mut out = vec![Visit {
        at,
        update: 0,
        tframe: tframe(at),
    }];
    let cap = 2 * (horizon as usize + d.len()) + 16;
    let mut update = 0u64;
    while update <= horizon {
        let Some(next) = next_key(d, at + 1, &mut sid, &mut budget).ok()? else {
            break;
        };
        let t = 16 * i32::from(tframe(next)) - if out.len() == 1 { pace.offset } else { 0 };
        if t < 0 || (t == 0 && out.len() == 1 && pace.offset != 0) {
            return None;
        }
        update += (t as u64).div_ceil(pace.speed as u64);
        out.push(Visit {
            at: next,
            update,
            tframe: tframe(next),
        });
        if out.len() > cap {
            return None;
        }
        at = next;
    }
    Some(out)
}

/// The RFRAME interval `i` of a path (of TFRAME·16 `t`) is driven from, and the RFRAME of its
/// last update: the first interval starts `pace.offset` into it.
pub(super) fn interval(t: i32, i: usize, pace: Pace) -> (i32, i32) {
    let r0 = t - if i == 0 { pace.offset } else { 0 };
    let n = (r0.max(0) as u64).div_ceil(pace.speed as u64).max(1);
    (r0, r0 - (n as i32 - 1) * pace.speed)
}

/// How many updates interval `i` of a path (of TFRAME·16 `t`) lasts.
fn r0_updates(t: i32, i: usize, pace: Pace) -> u64 {
    (interval(t, i, pace).0.max(0) as u64).div_ceil(pace.speed as u64)
}

/// The parts a type word sets, as a type word: 1 in each part's nibble, and its rotation
/// order when it sets the rotation.
pub(super) fn parts(code: u32) -> u32 {
    let mut out = 0;
    for q in 0..3 {
        if (code >> (4 * q)) & 0xF != 0 {
            out |= 1 << (4 * q);
        }
    }
    if out & 0xF0 != 0 {
        out |= code & 0xF000;
    }
    out
}

/// A coordinate's values at one update and the parts driven so far ([`parts`]).
pub(super) type Driven = ([i32; 9], u32);

/// Control points P1, P2 of the Bezier key frames, by descriptor.
pub(super) type Controls = BTreeMap<usize, [[i32; 9]; 2]>;

/// The key frames a flow is played or written with, by descriptor.
#[derive(Clone, Copy)]
pub(super) struct Keys<'a> {
    /// Values (P0).
    pub value: &'a BTreeMap<usize, [i32; 9]>,
    /// Recorded type words.
    pub codes: &'a BTreeMap<usize, u32>,
    /// The Bezier key frames' control points.
    pub ctl: &'a Controls,
    /// The recorded PARAMETER IDX of each key frame: the B-spline driver's WORK history holds
    /// key frames by it (`src == cpt[1]` compares indices, not values).
    pub params: &'a BTreeMap<usize, u16>,
}

/// The recorded type words and PARAMETER IDX of a flow's key frames, by descriptor.
pub(super) type Identity<'a> = (&'a BTreeMap<usize, u32>, &'a BTreeMap<usize, u16>);

impl<'a> Keys<'a> {
    /// Values and control points with the recorded type words and parameter indices.
    pub fn new(
        value: &'a BTreeMap<usize, [i32; 9]>,
        ctl: &'a Controls,
        (codes, params): Identity<'a>,
    ) -> Self {
        Keys {
            value,
            codes,
            ctl,
            params,
        }
    }
}

/// Whether type word `code` has a B-spline part ([`bspline`]).
pub(super) fn spline(code: u32) -> bool {
    (0..3).any(|q| bspline((code >> (4 * q)) & 0xF))
}

/// The B-spline driver's WORK history (`03000003.C`, forwards): four key frames by parameter
/// index, shifted at each interval's start.
#[derive(Default)]
struct Work([Option<u16>; 4]);

impl Work {
    /// The driver's call at the start of an interval from parameter `src` to `dst`: whether
    /// it then evaluates (`Some(true)`), returns 1 without a value (`Some(false)`: a TFRAME 0
    /// key, or a history not yet full), or takes the branch that frees a history slot
    /// (`src` equal to its second key frame: `None`, not followed).
    fn start(&mut self, src: u16, dst: u16, t: i32) -> Option<bool> {
        let c = &mut self.0;
        if Some(src) == c[1] {
            return None;
        }
        *c = [c[1], c[2], Some(src), Some(dst)];
        Some(t != 0 && !c.contains(&None))
    }

    /// The driver's call later in the interval: `None` where it would take that branch.
    fn within(&self, src: u16) -> Option<()> {
        (Some(src) != self.0[1]).then_some(())
    }
}

/// A translation nibble of 16-bit values (9: linear, 0xA: Bezier, 0xB: B-spline).
pub(super) fn short(nibble: u32) -> bool {
    nibble & 8 != 0
}

/// The values the driver gives at updates 0..=`horizon` along `visits` (module docs) with the
/// parts driven so far ([`parts`] of the key frames' types `codes`), `None` where it gives
/// none yet. An interval drives the parts its target key's type sets, reading both keys in that
/// type's layout: a TFRAME 0 key of another type is reached at once, but an interval between
/// keys of two types would read other words (`None` then: not followed). A Bezier part runs
/// from the source key's P0 through its control points `ctl` (P1, P2) to the target's P0, as
/// the driver does (`t = (TFRAME − RFRAME)·0xFFFF / TFRAME`, Horner in 16-bit coefficients).
/// A B-spline type runs its parts over the WORK history (the last four key frames reached,
/// by parameter index, the values of each its descriptors' `value`): at a TFRAME 0 key and
/// until the history is full the driver writes nothing, and a sequence that would leave an
/// interval early (a timed key reached before the history is full, a first interval started
/// RFRAME into it, the branch for a source equal to the history's second key) is not followed.
pub(super) fn play(
    visits: &[Visit],
    keys: Keys<'_>,
    pace: Pace,
    horizon: u64,
) -> Option<Vec<Option<Driven>>> {
    let Keys {
        value,
        codes,
        ctl,
        params,
    } = keys;
    let mut out: Vec<Option<Driven>> = vec![None; horizon as usize + 1];
    let (mut now, mut driven) = ([0i32; 9], 0u32);
    let mut work = Work::default();
    // The values of the key frames the history holds, by parameter index.
    let mut held: BTreeMap<u16, [i32; 9]> = BTreeMap::new();
    for (i, w) in visits.windows(2).enumerate() {
        let (a, b) = (value[&w[0].at], value[&w[1].at]);
        let code = codes[&w[1].at];
        let t = 16 * i32::from(w[1].tframe);
        if t != 0 && codes[&w[0].at] != code {
            return None;
        }
        let mut history: Option<[[i32; 9]; 4]> = None;
        if spline(code) {
            let (src, dst) = (*params.get(&w[0].at)?, *params.get(&w[1].at)?);
            for (p, v) in [(src, a), (dst, b)] {
                if *held.entry(p).or_insert(v) != v {
                    return None;
                }
            }
            if w[0].at == w[1].at || (i == 0 && pace.offset != 0) {
                return None;
            }
            if !work.start(src, dst, t)? {
                if t != 0 {
                    return None;
                }
                continue;
            }
            if r0_updates(t, i, pace) > 1 {
                work.within(src)?;
            }
            let cpt = work.0.map(|p| p.and_then(|p| held.get(&p).copied()));
            history = Some([cpt[0]?, cpt[1]?, cpt[2]?, cpt[3]?]);
        }
        let set = parts(code);
        driven |= set & 0xFFF;
        if set & 0xF0 != 0 {
            driven = (driven & !0xF000) | (set & 0xF000);
        }
        let sets = |q: usize| (set >> (4 * (q / 3))) & 0xF != 0;
        if t == 0 {
            for q in (0..9).filter(|&q| sets(q)) {
                now[q] = b[q];
            }
            if let Some(o) = out.get_mut(w[0].update as usize) {
                *o = Some((now, driven));
            }
            continue;
        }
        let (r0, _) = interval(t, i, pace);
        for m in 0..r0_updates(t, i, pace) {
            let Some(o) = out.get_mut((w[0].update + m) as usize) else {
                break;
            };
            let r = r0 - m as i32 * pace.speed;
            let t16 = (t - r).wrapping_mul(0xFFFF) / t;
            for q in (0..9).filter(|&q| sets(q)) {
                let nibble = (code >> (4 * (q / 3))) & 0xF;
                now[q] = if bezier(nibble) {
                    let [p1, p2] = ctl.get(&w[0].at)?;
                    horner(bezier_cof(a[q], p1[q], p2[q], b[q]), t16)
                } else if let (Some(p), true) = (history, bspline(nibble)) {
                    horner(bspline_cof(p[0][q], p[1][q], p[2][q], p[3][q]), t16)
                } else {
                    console_lerp(a[q], b[q], r, t)
                };
            }
            *o = Some((now, driven));
        }
    }
    // END holds the last value driven.
    for u in 1..out.len() {
        if out[u].is_none() {
            out[u] = out[u - 1];
        }
    }
    Some(out)
}
