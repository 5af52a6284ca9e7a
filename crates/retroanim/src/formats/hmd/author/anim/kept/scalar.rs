//! A recorded MIMe weight pointer's own control flow written back (`docs/extras.md`, "Joint
//! MIMe"): TGT = 1 key frames of one linear 32-bit unit (SWITCH's walk/run weights, type
//! 0x03010110), played as the general driver plays them.
//!
//! **When.** Every sequence of the recorded pointer has an animation, every key frame its
//! sequences reach under any stream ID is of that type and has its value recorded (the export's
//! `parameters`). The key frames keep the file's values where, played from each sequence's
//! start with its stream ID, the value at the update a key is first reached shows the scene
//! (`judge`); the others take the scene's weight there (an edited key). The flow is kept when
//! then every update either gives the scene's weight or shows the scene as well. The scene's
//! weight at an edited key is one of the weights that give its matrix (for SWITCH's crotch,
//! about five per 4096th of a turn), not necessarily the edit's, and the driver's lerp towards
//! another turns through other matrices on the way: where updates then miss, each edited key is
//! moved within 32 of it to where the fewest miss (twice over the edited keys; the replays
//! bounded to 2^26 updates in all).
//!
//! **As the general driver plays.** Intervals are paced as a coordinate's (`driver::path`,
//! SPEED, the first interval RFRAME into it); a TFRAME 0 key is passed without writing (the
//! general driver returns before it writes); the word holds its value between intervals and
//! after END, and before the first write it is the MIMEPR section's, 0 as the author writes it.

use std::collections::BTreeMap;

use super::super::super::super::cat3_anim::{
    InterpolationType, KeyFrame, Layout, SequenceDescriptor,
};
use super::super::super::super::play::console_lerp;
use super::super::super::layout::Recorded;
use super::super::write::Out;
use super::driver::{interval, path, Pace, Visit};
use super::{emit, pace_and_starts, HORIZON};
use crate::error::Result;

/// How far (weights) an edited key is moved from the scene's weight at it to settle.
const RANGE: i32 = 32;

/// Most updates replayed to settle a pointer's edited keys (about a second).
const WORK: u64 = 1 << 26;

/// The type a weight key frame must have: TGT = 1, linear, one unit written, 32 bits.
fn weight_type(code: u32) -> bool {
    matches!(
        InterpolationType::from_code(code),
        InterpolationType::General {
            algorithm: 1,
            write_mask: 1,
            ..
        }
    ) && InterpolationType::from_code(code).layout()
        == Some(Layout::General {
            values: 1,
            bytes: 4,
        })
}

/// What a weight sequence is checked against: the scene's weight at frames 0, 1, … (the last
/// holds after), repeating from frame `j` with period `p` past them where it loops.
#[derive(Clone, Copy)]
pub(in super::super) struct Series<'a> {
    pub weights: &'a [i32],
    pub looping: Option<(u32, u32)>,
}

impl Series<'_> {
    /// The frame of the series shown at update `u` (the series covers its loop, `j + p` ≤
    /// its last frame, or holds its last frame).
    pub fn frame(&self, u: u32) -> u32 {
        let last = self.weights.len().saturating_sub(1) as u32;
        let f = match self.looping {
            // Frame j + p shows frame j again (the loop's start).
            Some((j, p)) if p > 0 && u >= j + p => j + (u - j) % p,
            _ => u,
        };
        f.min(last)
    }

    /// The scene's weight at update `u`.
    pub fn at(&self, u: u32) -> i32 {
        self.weights
            .get(self.frame(u) as usize)
            .copied()
            .unwrap_or(0)
    }
}

/// Whether weight `got` at update `u` of sequence `j` shows the scene as well as `want`.
pub(in super::super) type WeightJudge<'a> = dyn Fn(usize, u32, i32, i32) -> bool + 'a;

/// The word's value at updates 0..=`horizon` along `visits` with key frame values `value`
/// (module docs, "As the general driver plays").
fn play(visits: &[Visit], value: &BTreeMap<usize, i32>, pace: Pace, horizon: u64) -> Vec<i32> {
    let mut out: Vec<Option<i32>> = vec![None; horizon as usize + 1];
    for (i, w) in visits.windows(2).enumerate() {
        let t = 16 * i32::from(w[1].tframe);
        if t == 0 {
            continue;
        }
        let (a, b) = (value[&w[0].at], value[&w[1].at]);
        let (r0, _) = interval(t, i, pace);
        let n = (r0.max(0) as u64).div_ceil(pace.speed as u64);
        for m in 0..n {
            let Some(o) = out.get_mut((w[0].update + m) as usize) else {
                break;
            };
            *o = Some(console_lerp(a, b, r0 - m as i32 * pace.speed, t));
        }
    }
    let mut now = 0;
    out.into_iter()
        .map(|v| {
            now = v.unwrap_or(now);
            now
        })
        .collect()
}

/// The starts of recorded weight pointer `r`'s sequences written with its recorded control
/// flow and values that show `series` (one per sequence: START, extra 1, …), or `Ok(None)`
/// when that flow does not fit them (module docs): nothing is written then.
pub(in super::super) fn write(
    r: &Recorded,
    series: &[Option<Series<'_>>],
    judge: &WeightJudge<'_>,
    out: &mut Out<'_>,
) -> Result<Option<Vec<(u16, u8)>>> {
    let d = &r.flow.descriptors[..];
    let Some((pace, starts)) = pace_and_starts(r) else {
        return Ok(None);
    };
    let Some(series) = series
        .iter()
        .copied()
        .collect::<Option<Vec<Series>>>()
        .filter(|s| s.len() == starts.len())
    else {
        return Ok(None);
    };
    let seen = r
        .flow
        .reachable(&starts.iter().map(|s| s.0).collect::<Vec<_>>());
    // The file's value of every key frame the sequences reach.
    let mut value: BTreeMap<usize, i32> = BTreeMap::new();
    let mut code = None;
    for (i, x) in d.iter().enumerate() {
        let SequenceDescriptor::KeyFrame {
            type_idx,
            param_idx,
            ..
        } = x
        else {
            continue;
        };
        if !seen[i] {
            continue;
        }
        let Some(&c) = r.flow.types.get(usize::from(*type_idx)) else {
            return Ok(None);
        };
        let v = match r.flow.params.get(param_idx) {
            Some((recorded, KeyFrame::General { values, .. }))
                if weight_type(c) && weight_type(*recorded) =>
            {
                values.first().copied()
            }
            _ => None,
        };
        let Some(v) = v else {
            return Ok(None);
        };
        if *code.get_or_insert(c) != c {
            return Ok(None);
        }
        value.insert(i, v);
    }
    let Some(code) = code else {
        return Ok(None);
    };
    let mut paths = Vec::with_capacity(starts.len());
    for (&start, s) in starts.iter().zip(&series) {
        let last = match s.looping {
            Some((j, p)) => u64::from(j) + u64::from(p),
            None => s.weights.len() as u64,
        };
        let horizon = 2 * last + 2;
        if horizon > HORIZON {
            return Ok(None);
        }
        match path(d, start, pace, horizon) {
            Some(v) if v.len() >= 2 => paths.push((v, horizon)),
            _ => return Ok(None),
        }
    }
    // The key frames whose file value does not show the scene where first reached: edited.
    let mut edited = Vec::new();
    let mut first = std::collections::BTreeSet::new();
    for (j, (visits, horizon)) in paths.iter().enumerate() {
        let got = play(visits, &value, pace, *horizon);
        for v in visits {
            let Ok(u) = u32::try_from(v.update) else {
                return Ok(None);
            };
            if v.update > *horizon || !first.insert(v.at) {
                continue;
            }
            let (g, want) = (got[v.update as usize], series[j].at(u));
            if g != want && !judge(j, u, g, want) {
                value.insert(v.at, want);
                edited.push(v.at);
            }
        }
    }
    // Every update shows the scene; else each edited key is moved within [`RANGE`] of the
    // scene's weight to where the fewest updates miss (the scene's weight at the key is one of
    // the weights that give its matrix, not necessarily the edit's: the driver's lerp towards
    // another one turns through other matrices), twice over the edited keys.
    let misses = |value: &BTreeMap<usize, i32>, most: usize| {
        let mut n = 0;
        for (j, (visits, horizon)) in paths.iter().enumerate() {
            let got = play(visits, value, pace, *horizon);
            for (u, &g) in got.iter().enumerate() {
                let want = series[j].at(u as u32);
                if g != want && !judge(j, u as u32, g, want) {
                    n += 1;
                    if n >= most {
                        return most;
                    }
                }
            }
        }
        n
    };
    let mut left = misses(&value, usize::MAX);
    if left > 0 {
        let updates: u64 = paths.iter().map(|p| p.1 + 1).sum();
        let replays = edited.len() as u64 * 2 * (2 * RANGE as u64 + 1);
        if edited.is_empty() || replays.saturating_mul(updates) > WORK {
            return Ok(None);
        }
        for _ in 0..2 {
            for &i in &edited {
                let c = value[&i];
                let mut best = (left, c);
                for x in (-RANGE..=RANGE).map(|d| c.saturating_add(d)) {
                    value.insert(i, x);
                    let m = misses(&value, best.0);
                    if m < best.0 {
                        best = (m, x);
                    }
                }
                value.insert(i, best.1);
                left = best.0;
            }
        }
        if left > 0 {
            return Ok(None);
        }
    }
    let key = |i: usize| {
        let mut values = arrayvec::ArrayVec::new();
        values.push(value[&i]);
        let frame = KeyFrame::General {
            values,
            pad: arrayvec::ArrayVec::new(),
        };
        (code, Some(frame))
    };
    emit(r, (&seen, &starts), (&key, false), out)
}
