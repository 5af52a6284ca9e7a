//! Edited key frames at gimbal locks (`kept`'s module docs, "An edit at a gimbal lock"): the
//! value the motion into an edited key implies, settled to the unit by the judge; and edited
//! B-spline key frames, solved from where the curve starts each interval ("B-spline").

use std::collections::BTreeMap;

use super::super::NodeTrack;
use super::driver::{interval, Controls, Identity, Keys, Visit};
use super::{misses, nearest, own_at, tally, Fit, Judge};
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

/// `file` (a B-spline pointer's key frames, the file's values) with the key frames the scene
/// moved solved from it: the B-spline driver starts the interval from visit *x* at
/// `(v[x−2] + 4·v[x−1] + v[x]) / 6` (its WORK history then holds visits *x*−2 … *x*+1), so
/// where the first update misses the scene (the judge of [`plays`]), each key of the history
/// there is solved from that equation at the update its interval starts (the target's at the
/// next interval's), and the one that leaves the fewest updates missing is taken; up to
/// [`SETTLED`] keys, one after the other, each moved up to 8 units part by part to where the
/// fewest updates miss (in every descriptor of its parameter, as the history holds key frames
/// by it). `None` when the keys do not then show the scene.
pub(super) fn spline_solved(
    mut value: BTreeMap<usize, [i32; 9]>,
    flow: (&[(Vec<Visit>, u64)], &[&NodeTrack]),
    (ctl, recorded): (&Controls, Identity<'_>),
    (fit, judge): (&Fit<'_>, &Judge<'_>),
) -> Option<BTreeMap<usize, [i32; 9]>> {
    let (paths, tracks) = flow;
    let codes = recorded.0;
    // Each try plays every sequence of the pointer again: at most 4 candidates × 217 tries per
    // solved key.
    let updates: u64 = paths.iter().map(|p| p.1 + 1).sum();
    if updates.saturating_mul(4 * 217 * SETTLED as u64) > WORK {
        return None;
    }
    let mut edited: Vec<usize> = Vec::new();
    // A key's value in every descriptor of its parameter (the history holds key frames by it).
    let put = |v: &mut BTreeMap<usize, [i32; 9]>, key: usize, k: [i32; 9]| {
        let param = recorded.1.get(&key);
        for (&d, x) in v.iter_mut() {
            if d == key || (param.is_some() && recorded.1.get(&d) == param) {
                *x = k;
            }
        }
    };
    let count = |v: &BTreeMap<usize, [i32; 9]>| {
        tally(
            flow,
            Keys::new(v, ctl, recorded),
            fit,
            Some(judge),
            usize::MAX,
        )
    };
    let (mut now, mut first) = count(&value);
    while now > 0 && edited.len() < SETTLED {
        let (j, u) = first?;
        let visits = &paths.get(j)?.0;
        let track = tracks.get(j)?;
        let i = visits.iter().rposition(|v| v.update <= u64::from(u))?;
        // The key at visit `x − 2 + w` solved from the scene where the interval from visit `x`
        // starts: `(v[x−2] + 4·v[x−1] + v[x]) / 6` there.
        let solve = |value: &BTreeMap<usize, [i32; 9]>, (x, w): (usize, usize)| {
            let at = |d: usize| visits.get((x + d).checked_sub(2)?);
            let (a, b, c) = (at(0)?, at(1)?, at(2)?);
            let key = [a, b, c][w].at;
            let set = codes.get(&key).copied()?;
            let u = u32::try_from(c.update).ok()?;
            let y = in_order(&own_at(track, u), fit.order(), set);
            let y = nearest(&y, value.get(&c.at)?, order_of(set));
            let v = [a, b, c].map(|p| value.get(&p.at).copied());
            let mut k = *value.get(&key)?;
            let weight = [1, 4, 1];
            for q in (0..9).filter(|&q| (set >> (4 * (q / 3))) & 0xF != 0) {
                let mut rest = 6 * i64::from(y[q]);
                for (d, p) in v.iter().enumerate().filter(|&(d, _)| d != w) {
                    rest -= weight[d] * i64::from(p.as_ref()?[q]);
                }
                let x = (rest as f64 / weight[w] as f64).round();
                k[q] = x.clamp(f64::from(i32::MIN), f64::from(i32::MAX)) as i32;
            }
            // Then part by part up to 8 units either way, to where the fewest updates miss:
            // the scene's value there is the author's own keys' (within 2/4096 of its matrix,
            // its angles a few units off), which the solve multiplies by 6; and the driver's
            // 16-bit coefficients round.
            let mut v = value.clone();
            put(&mut v, key, k);
            let mut best = count(&v);
            for _ in 0..3 {
                for q in (0..9).filter(|&q| (set >> (4 * (q / 3))) & 0xF != 0) {
                    let at = k[q];
                    let mut pick = at;
                    for d in [-1, 1, -2, 2, -4, 4, -8, 8] {
                        k[q] = at.saturating_add(d);
                        put(&mut v, key, k);
                        let n = count(&v);
                        if n.0 < best.0 {
                            (best, pick) = (n, k[q]);
                        }
                    }
                    k[q] = pick;
                    put(&mut v, key, k);
                }
            }
            Some((best.0, best.1, v, key))
        };
        // The history's four keys at the missed update: the three the interval starts from,
        // and its target, whose weight is 0 there (solved where the next interval starts).
        let best = [(i, 0), (i, 1), (i, 2), (i + 1, 2)]
            .into_iter()
            .filter_map(|x| solve(&value, x))
            .filter(|s| !edited.contains(&s.3))
            .min_by_key(|s| s.0)?;
        if best.0 >= now {
            break;
        }
        (now, first, value) = (best.0, best.1, best.2);
        edited.push(best.3);
    }
    (now == 0).then_some(value)
}

/// The rotation order of type word `code`.
fn order_of(code: u32) -> u8 {
    ((code >> 12) & 0xF) as u8
}

/// The author's own values `v` (angles in rotation `order`) with their angles in the order of
/// type word `code` when it sets the rotation in another: the same matrix.
fn in_order(v: &[i32; 9], order: u8, code: u32) -> [i32; 9] {
    let to = order_of(code);
    if code & 0xF0 == 0 || to == order {
        return *v;
    }
    let m = super::rotation(v, order).map(|r| r.map(|x| f64::from(x) / 4096.0));
    let e = super::super::super::euler(&m, to);
    let mut out = *v;
    for q in 0..3 {
        out[3 + q] = e[q].round().clamp(-32768.0, 32767.0) as i32;
    }
    out
}
