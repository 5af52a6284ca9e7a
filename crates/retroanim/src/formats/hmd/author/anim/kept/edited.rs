//! Edited key frames at gimbal locks (`kept`'s module docs, "An edit at a gimbal lock"): the
//! value the motion into an edited key implies, settled to the unit by the judge.

use std::collections::BTreeMap;

use super::super::NodeTrack;
use super::driver::{interval, Controls, Identity, Keys, Visit};
use super::{misses, nearest, own_at, Fit, Judge};
use crate::formats::hmd::play::console_lerp;

/// Most edited key frames of one pointer whose values [`settled`] moves a unit or two.
pub(super) const SETTLED: usize = 4;

/// Most updates [`settled`] replays in all (a pointer of sequences an hour long is not
/// settled: about a second of work).
const WORK: u64 = 1 << 26;

/// `value` with each `edited` key frame's parts (of its type in `codes`) moved by up to two
/// units, part by part (twice over), to where the fewest updates miss the scene (the judge of
/// [`plays`]): the value the update before a key implies is exact only to the driver's
/// truncation, which near a gimbal lock the angles' conditioning magnifies. `Some` when no
/// update misses; `None` also for more than [`SETTLED`] edited keys or more than [`WORK`]
/// updates to replay (each try plays the pointer again).
pub(super) fn settled(
    mut value: BTreeMap<usize, [i32; 9]>,
    (edited, codes): (&[usize], &BTreeMap<usize, u32>),
    flow: (&[(Vec<Visit>, u64)], &[&NodeTrack]),
    (ctl, recorded): (&Controls, Identity<'_>),
    (fit, judge): (&Fit<'_>, &Judge<'_>),
) -> Option<BTreeMap<usize, [i32; 9]>> {
    // Each try plays every sequence of the pointer again: at most 72 per edited key.
    let updates: u64 = flow.0.iter().map(|p| p.1 + 1).sum();
    if edited.len() > SETTLED || updates.saturating_mul(72 * edited.len() as u64) > WORK {
        return None;
    }
    // Counted only as far as the best so far: a try is kept only when it misses fewer.
    let count = |v: &BTreeMap<usize, [i32; 9]>, most: usize| {
        misses(flow, Keys::new(v, ctl, recorded), fit, Some(judge), most)
    };
    let mut now = count(&value, usize::MAX);
    for _ in 0..2 {
        for &k in edited {
            let set = codes.get(&k).copied()?;
            for q in (0..9).filter(|&q| (set >> (4 * (q / 3))) & 0xF != 0) {
                if now == 0 {
                    return Some(value);
                }
                let at = value.get(&k)?[q];
                for d in [-1, 1, -2, 2] {
                    value.get_mut(&k)?[q] = at.saturating_add(d);
                    let n = count(&value, now);
                    if n < now {
                        now = n;
                        break;
                    }
                    value.get_mut(&k)?[q] = at;
                }
            }
        }
    }
    (now == 0).then_some(value)
}

/// `file` with each `edited` key frame given, on the parts its type (`codes`) sets, the value
/// the update before it implies along the interval into it (its first timed visit in
/// `paths`): the scene's own value at that update, in the Euler solution nearest the key
/// before, carried to the key's end of the driver's lerp. At a gimbal lock the scene's value at
/// the key is one of many triples; the motion into it tells which one the edit made. `None`
/// when a key has no such interval.
pub(super) fn approached(
    file: &BTreeMap<usize, [i32; 9]>,
    (edited, codes): (&[usize], &BTreeMap<usize, u32>),
    (paths, tracks): (&[(Vec<Visit>, u64)], &[&NodeTrack]),
    fit: &Fit<'_>,
) -> Option<BTreeMap<usize, [i32; 9]>> {
    let mut out = file.clone();
    for &k in edited {
        let (i, visits, track) = paths.iter().zip(tracks).find_map(|((visits, _), track)| {
            let i = visits
                .iter()
                .enumerate()
                .skip(1)
                .find(|(_, v)| v.at == k && v.tframe > 0)?
                .0;
            Some((i, visits, track))
        })?;
        let t = 16 * i32::from(visits[i].tframe);
        // RFRAME at the interval's first and last update (an interval of one update shows
        // only the key before: it implies nothing).
        let (r0, r) = interval(t, i - 1, fit.pace);
        if r >= t {
            continue;
        }
        let u = u32::try_from(visits[i].update.checked_sub(1)?).ok()?;
        let a = *out.get(&visits[i - 1].at)?;
        let y = nearest(&own_at(track, u), &a, fit.order());
        let set = codes.get(&k).copied()?;
        let sets = |q: usize| (set >> (4 * (q / 3))) & 0xF != 0;
        let mut c = *out.get(&k)?;
        for q in (0..9).filter(|&q| sets(q)) {
            let b = (f64::from(y[q]) * f64::from(t) - f64::from(a[q]) * f64::from(r))
                / f64::from(t - r);
            c[q] = b.round().clamp(-2147483648.0, 2147483647.0) as i32;
        }
        // The division undoes the driver's truncation only to a unit or two: per part, the
        // value within two whose lerp lies nearest the scene's own values over the interval.
        let n = (r0.max(0) as u64).div_ceil(fit.pace.speed as u64);
        let from = visits[i - 1].update;
        let seen: Vec<[i32; 9]> = (0..n)
            .filter_map(|m| {
                let rr = r0 - m as i32 * fit.pace.speed;
                let g: [i32; 9] = std::array::from_fn(|q| console_lerp(a[q], c[q], rr, t));
                Some(nearest(
                    &own_at(track, u32::try_from(from + m).ok()?),
                    &g,
                    fit.order(),
                ))
            })
            .collect();
        for q in (0..9).filter(|&q| sets(q)) {
            let miss = |b: i32| -> i64 {
                (0..n as usize)
                    .zip(&seen)
                    .map(|(m, w)| {
                        let rr = r0 - m as i32 * fit.pace.speed;
                        (i64::from(console_lerp(a[q], b, rr, t)) - i64::from(w[q])).abs()
                    })
                    .sum()
            };
            c[q] = [0, -1, 1, -2, 2]
                .map(|d| c[q].saturating_add(d))
                .into_iter()
                .min_by_key(|&b| miss(b))
                .unwrap_or(c[q]);
        }
        out.insert(k, c);
    }
    Some(out)
}
