//! Writing a recorded sequence pointer's own control flow back (`docs/extras.md`, "Control
//! flow").
//!
//! An export records every descriptor of the file's animation primitive. Where the scene's
//! keys still fit them, the author writes the recorded descriptors that the pointer's
//! sequences can reach under any stream ID, in their order (packed), with the recorded
//! TFRAMEs, stream-ID jumps, control descriptors, SPEED and RFRAME, and puts the scene's
//! values in their key frames: a program that switches stream IDs or changes SPEED mid-play
//! then sees what it saw with the file.
//!
//! **When.** Every sequence of the recorded pointer has an animation; every key frame its
//! sequences reach has a recorded type word whose parts are linear (or unset), parts the
//! author's own keys also set linearly (or not at all), with one rotation order; a key frame
//! reached when its sequence is played from its start with its stream ID takes the scene's
//! value there (at the update the driver reaches it: its cumulative TFRAME × 16 / SPEED), one
//! that only a program's stream-ID switch reaches keeps the file's values (the export's
//! `parameters`); and the descriptors, played as the driver plays them (below), give the
//! pointer's coordinate the same translation, rotation matrix and scale as the author's own keys
//! at every update up to twice their last key, the parts no key has set yet staying at the
//! coordinate's rest. Where they do not (the author's keys solved a unit off the file's line
//! under a parent a unit off, or on another Euler triple at a gimbal lock: ROTS, SNOWMAN,
//! TRI), the file's own values (the export's `parameters`) go in the key frames where the scene
//! still shows them at the update each is reached, the scene's where it does not (an edited
//! key), and the flow is kept when every update it gives either equals the author's own or
//! shows the scene as well as the author's (the solver's judge, `Ctx::shows`: world
//! translation within a unit of the glTF world's, the re-exported local within 0.05/4096 of the
//! glTF local, or no worse than the author's own keys). Otherwise the
//! author's own sequences are written, and the author says how many recorded pointers lost
//! stream-ID jumps or control descriptors, or their SPEED (notes
//! `sequence-control-flow-rewritten`, `sequence-speed-rewritten`).
//!
//! **A key's angles.** Angles are a key's Euler solution nearest the previous key's (a
//! sequence's first key: nearest no turn), so that the driver's linear angles turn and round as
//! the file's did; where that interval does not then give the author's own values (a whole turn
//! in one interval, a loop's last key, which the author's own sequence never shows, or a gimbal
//! lock, where another triple gives the same matrix), the scene's own angles, or the value the
//! update before the key implies, when that interval then does.
//!
//! **As the driver plays.** An interval of TFRAME *T* lasts ⌈16·*T* / SPEED⌉ updates (SPEED 0
//! plays as 0x10; what is left of the last update is not carried); at update *m* of it the
//! value is `lerp(from, to, 16·T − m·SPEED, 16·T)` on the parts the target key's type sets
//! (both keys read in that type's layout, so keys of two types meet only at a TFRAME 0 key),
//! the first interval starting RFRAME into it; a TFRAME 0 key is reached at once; at END the
//! last value driven is held; the first key is START IDX when that is a key frame, else the
//! next key frame after it.
//!
//! **Bezier.** A Bezier part (type nibble 2, or 0xA for a 16-bit translation) runs from the
//! source key's P0 through its P1, P2 to the target's P0 as the driver evaluates it; Bezier
//! pointers are kept with the file's own key frames and their recorded control points, an
//! edited key taking the scene's value as its P0 (the curve passes there at the key) with the
//! control points it had. 16-bit translations (nibbles 9, 0xA) are kept where the values fit.
//!
//! **B-spline.** A B-spline part (nibble 3, or 0xB) runs over the driver's WORK history, the
//! last four key frames reached, which the driver tells apart by PARAMETER IDX
//! (`driver::play`). B-spline pointers are kept with the file's own key frames, each sequence
//! starting at its WORK control; they are written with one parameter per recorded parameter
//! (not shared with equal key frames: the history compares indices) and each WORK control's P2
//! naming a new null WORK area (one per recorded area and pointer). The curve passes through
//! no key, so a key the scene moved is found where the file's keys first miss the scene and
//! solved from where the curve starts the intervals (`spline_solved`, for up to four keys).
//!
//! **An edit at a gimbal lock.** There the scene's value at the key is one of a line of equal
//! triples, and the author's (its solution nearest the key before) need not be the edit's,
//! which the driver's linear angles turn through differently. When the flow with the edited
//! keys' scene values misses, each edited key takes the value the update before it implies
//! along the interval into it (`approached`), moved a unit or two part by part to where no
//! update misses the judge (`settled`, for up to four edited keys of a pointer: `edited.rs`).
//!
//! **Not kept.** A pointer whose edited keys do not settle so (more than four, or a motion
//! resampled between the file's keys) is written as the author's own sequences.
//! Descriptors that only reverse play (a negative SPEED set by a program) would walk into are
//! not copied.

use std::collections::BTreeMap;

use super::super::super::cat3_anim::{
    InterpolationType, KeyFrame, SequenceDescriptor, CONTROL_END, CONTROL_WORK,
};
use super::super::super::play::console_lerp;
use super::super::layout::Recorded;
use super::super::ConsolePose;
use super::write::{bezier, key_frame_of, store, store_own, type_index, work_area, Out};
use super::{NodeTrack, BEZIER};
use crate::error::Result;
use crate::formats::gte::Mat;

/// Most updates compared per sequence (over an hour at 60 updates a second).
const HORIZON: u64 = 1 << 18;

/// The console rotation matrix of angles `v[3..6]` in rotation `order`.
fn rotation(v: &[i32; 9], order: u8) -> [[i16; 3]; 3] {
    ConsolePose {
        order,
        rot: [v[3], v[4], v[5]].map(|a| a.clamp(-32768, 32767) as i16),
        t: [0.0; 3],
        s: [4096.0; 3],
    }
    .matrix()
    .m
}

/// Whether `got` (the recorded flow's value) gives the console what `want` (the author's own
/// keys') does: the same translation, rotation matrix and scale on the parts type word `code`
/// sets; on the parts only `own` (the author's type word) sets, `rest` (the coordinate's
/// matrix, which the recorded pointer leaves as it is).
fn agrees(got: &[i32; 9], want: &[i32; 9], (code, own): (u32, u32), rest: &Mat) -> bool {
    let sets = |c: u32, part: u32| (c >> (4 * part)) & 0xF != 0;
    let order = |c: u32| ((c >> 12) & 0xF) as u8;
    let translation = if sets(code, 0) {
        got[..3] == want[..3]
    } else {
        !sets(own, 0) || rest.t[..] == want[..3]
    };
    let turned = if sets(code, 1) {
        rotation(got, order(code)) == rotation(want, order(own))
    } else {
        !sets(own, 1) || rest.m == rotation(want, order(own))
    };
    let scaled = if sets(code, 2) {
        got[6..] == want[6..]
    } else {
        !sets(own, 2)
    };
    translation && turned && scaled
}

/// `v` with its angles moved to the Euler solution (of rotation `order`) nearest `near`'s,
/// whole turns included: the same matrix.
fn nearest(v: &[i32; 9], near: &[i32; 9], order: u8) -> [i32; 9] {
    let mut x = v.map(f64::from);
    super::unwrap(&mut x, &near.map(f64::from), order);
    x.map(|a| a.round().clamp(-2147483648.0, 2147483647.0) as i32)
}

/// What the author's own sequence for `track` gives at update `u`: its keys' values, and past
/// the last key of a loop those of the cycle again (the jump back reaches the loop's start at
/// once, at the last key's update).
fn own_at(track: &NodeTrack, u: u32) -> [i32; 9] {
    track.values_at(cycle(track, u))
}

/// The frame of `track`'s own sequence shown at update `u` (past the last key of a loop, the
/// frame of the cycle again).
pub(super) fn cycle(track: &NodeTrack, u: u32) -> u32 {
    match (track.loop_from, track.keys.last()) {
        (Some(j), Some(last)) if u >= last.frame && last.frame > j => {
            j + (u - j) % (last.frame - j)
        }
        _ => u,
    }
}

/// Whether the values a recorded flow gives where they differ from the author's own show the
/// scene as well (sequence, update, values, parts driven: [`driver::parts`]).
pub(super) type Judge<'a> = dyn Fn(usize, u32, &[i32; 9], u32) -> bool + 'a;

/// Whether the driver, playing each of `paths` (with its horizon) with `value`s of types
/// `codes`, gives the author's own values of `tracks` at every update, or values `judge`
/// accepts where it does not.
fn plays(
    paths: &[(Vec<Visit>, u64)],
    tracks: &[&NodeTrack],
    keys: Keys<'_>,
    fit: &Fit<'_>,
    judge: Option<&Judge<'_>>,
) -> bool {
    misses((paths, tracks), keys, fit, judge, 1) == 0
}

/// How many updates of [`plays`] give neither the author's own values nor values `judge`
/// accepts, counted up to `most` (a flow the driver does not follow: `most`).
fn misses(
    flow: (&[(Vec<Visit>, u64)], &[&NodeTrack]),
    keys: Keys<'_>,
    fit: &Fit<'_>,
    judge: Option<&Judge<'_>>,
    most: usize,
) -> usize {
    tally(flow, keys, fit, judge, most).0
}

/// [`misses`], and the first update that misses (its sequence and update; `None` also for a
/// flow the driver does not follow).
fn tally(
    (paths, tracks): (&[(Vec<Visit>, u64)], &[&NodeTrack]),
    keys: Keys<'_>,
    fit: &Fit<'_>,
    judge: Option<&Judge<'_>>,
    most: usize,
) -> (usize, Option<(usize, u32)>) {
    let (mut n, mut first) = (0, None);
    for (j, ((visits, horizon), track)) in paths.iter().zip(tracks).enumerate() {
        let Some(got) = play(visits, keys, fit.pace, *horizon) else {
            return (most, None);
        };
        for (u, g) in got.iter().enumerate() {
            let Some((g, driven)) = g else {
                return (most, None);
            };
            let u = u as u32;
            if !fit.agrees(g, &own_at(track, u), *driven)
                && !judge.is_some_and(|f| f(j, u, g, *driven))
            {
                n += 1;
                first = first.or(Some((j, u)));
                if n >= most {
                    return (most, first);
                }
            }
        }
    }
    (n, first)
}

/// What the recorded flow's values are checked against: the author's own type word `own`, the
/// coordinate's `rest` and the pointer's `pace`.
struct Fit<'a> {
    own: u32,
    rest: &'a Mat,
    pace: Pace,
}

impl Fit<'_> {
    /// [`agrees`] on the parts type word `code` sets.
    fn agrees(&self, got: &[i32; 9], want: &[i32; 9], code: u32) -> bool {
        agrees(got, want, (code, self.own), self.rest)
    }

    fn order(&self) -> u8 {
        ((self.own >> 12) & 0xF) as u8
    }
}

/// The value of the key frame `v` reaches (with `left`, the value a STEP change at its update
/// leaves), from `track`: its angles continue the previous key's (`prev`: the visit before and
/// its value; a sequence's first key: the solution nearest no turn), so that the driver's
/// linear angles turn the way the scene does and round as the file's did; `prev` holds the
/// interval's index in the path. Where that interval
/// then misses the author's own values: the scene's own angles (a whole turn in one interval,
/// CUBE0's), else the value the update before the key implies (a loop's last key, which the
/// author's own sequence never shows, or another triple at a gimbal lock), when those fit.
fn key_value(
    (fit, code): (&Fit<'_>, u32),
    track: &NodeTrack,
    (v, left): (&Visit, bool),
    prev: Option<(usize, &Visit, [i32; 9])>,
) -> [i32; 9] {
    let f = v.update as u32;
    let raw = track.values_on(f, left);
    let x = nearest(&raw, &prev.map_or([0; 9], |p| p.2), fit.order());
    let Some((i, h, a)) = prev else {
        return x;
    };
    let t = 16 * i32::from(v.tframe);
    let (r0, r) = interval(t, i, fit.pace);
    let fits = |b: &[i32; 9]| {
        (0..(r0.max(0) as u64).div_ceil(fit.pace.speed as u64)).all(|m| {
            let r = r0 - m as i32 * fit.pace.speed;
            let g = std::array::from_fn(|q| console_lerp(a[q], b[q], r, t));
            u32::try_from(h.update + m).is_ok_and(|u| fit.agrees(&g, &own_at(track, u), code))
        })
    };
    if fits(&x) {
        return x;
    }
    if fits(&raw) {
        return raw;
    }
    if t > 0 && r < r0 && f > 0 {
        let before = own_at(track, f - 1);
        let n = (r0.max(0) as u64).div_ceil(fit.pace.speed as u64);
        for y in [nearest(&before, &a, fit.order()), before] {
            let c: [i32; 9] = std::array::from_fn(|q| {
                let b = (f64::from(y[q]) * f64::from(t) - f64::from(a[q]) * f64::from(r))
                    / f64::from(t - r);
                b.round().clamp(-32768.0, 32767.0) as i32
            });
            if fits(&c) {
                return c;
            }
            // The division above undoes the driver's truncation only to a unit or two: each
            // value within two of it that gives the author's own values at every update of the
            // interval (angles in the representation nearest the interval's).
            let mut refined = c;
            for q in 0..9 {
                let target = |m: u64| {
                    let rr = r0 - m as i32 * fit.pace.speed;
                    let g: [i32; 9] = std::array::from_fn(|k| console_lerp(a[k], c[k], rr, t));
                    let w = own_at(track, (h.update + m) as u32);
                    nearest(&w, &g, fit.order())[q]
                };
                let targets: Vec<i32> = (0..n).map(target).collect();
                if let Some(b) = [0, -1, 1, -2, 2].iter().map(|d| c[q] + d).find(|&b| {
                    targets.iter().enumerate().all(|(m, &w)| {
                        console_lerp(a[q], b, r0 - m as i32 * fit.pace.speed, t) == w
                    })
                }) {
                    refined[q] = b;
                }
            }
            if fits(&refined) {
                return refined;
            }
        }
    }
    x
}

/// The recorded values of key frame `i` of `r`'s recording, of type `code`: its parameter's
/// translation, angles and scale (P0; 4096 where the type sets none), and its Bezier parts'
/// control points P1, P2.
fn recorded_value(r: &Recorded, i: usize, code: u32) -> Option<([i32; 9], [[i32; 9]; 2])> {
    let SequenceDescriptor::KeyFrame { param_idx, .. } = r.flow.descriptors.get(i)? else {
        return None;
    };
    let (recorded, frame) = r.flow.params.get(param_idx)?;
    let KeyFrame::Coordinate {
        translation,
        rotation,
        scale,
        ..
    } = frame
    else {
        return None;
    };
    // Decoded in the same layout (the rotation order does not change it: Sony's files share
    // one parameter between types that differ only in it).
    let layout = |c: u32| InterpolationType::from_code(c).layout();
    if layout(*recorded) != layout(code) {
        return None;
    }
    let mut v = [[0, 0, 0, 0, 0, 0, 4096, 4096, 4096]; 3];
    let words: [Vec<i32>; 3] = [
        translation.to_vec(),
        rotation.iter().map(|&a| i32::from(a)).collect(),
        scale.iter().map(|&a| i32::from(a)).collect(),
    ];
    for (part, w) in words.iter().enumerate() {
        let points = match (code >> (4 * part)) & 0xF {
            0 => 0,
            n if bezier(n) => 3,
            _ => 1,
        };
        for (k, point) in v.iter_mut().take(points).enumerate() {
            point[3 * part..3 * part + 3].copy_from_slice(w.get(3 * k..3 * k + 3)?);
        }
    }
    Some((v[0], [v[1], v[2]]))
}

/// `value` with the file's own values (the export's `parameters`: with their control points
/// for Bezier parts) in the key frames where `judge` accepts what the driver shows with them at
/// the update each is first reached (of `paths`, played at `pace` with the file's values
/// throughout): an edited key keeps the scene's value, the others take the file's. Also the
/// edited keys, `None` where a key frame has no recorded value.
fn file_values(
    r: &Recorded,
    (value, (codes, params)): (&BTreeMap<usize, [i32; 9]>, Identity<'_>),
    (paths, pace): (&[(Vec<Visit>, u64)], Pace),
    judge: &Judge<'_>,
) -> (BTreeMap<usize, [i32; 9]>, Controls, Option<Vec<usize>>) {
    let mut file = value.clone();
    let mut ctl = Controls::new();
    let mut all = true;
    for (&i, &code) in codes {
        match recorded_value(r, i, code) {
            Some((x, c)) => {
                file.insert(i, x);
                ctl.insert(i, c);
            }
            None => all = false,
        }
    }
    let mut edited = Vec::new();
    let mut shown: BTreeMap<usize, bool> = BTreeMap::new();
    for (j, (visits, horizon)) in paths.iter().enumerate() {
        let got = play(
            visits,
            Keys::new(&file, &ctl, (codes, params)),
            pace,
            *horizon,
        );
        for v in visits {
            if shown.contains_key(&v.at) {
                continue;
            }
            let at = got.as_ref().and_then(|g| *g.get(v.update as usize)?);
            let ok = at.is_some_and(|(g, driven)| {
                u32::try_from(v.update).is_ok_and(|u| judge(j, u, &g, driven))
            });
            shown.insert(v.at, ok);
        }
    }
    for (i, ok) in shown {
        if !ok {
            edited.push(i);
            if let Some(&x) = value.get(&i) {
                file.insert(i, x);
            }
        }
    }
    (file, ctl, all.then_some(edited))
}

/// How recorded pointer `r` steps (its SPEED, > 0, and RFRAME) and its sequences' starts
/// (START IDX or extra start, stream ID); `None` for a pointer the kept flow does not follow
/// (a negative SPEED, or one stored mid-interval: TFRAME set).
fn pace_and_starts(r: &Recorded) -> Option<(Pace, Vec<(usize, u8)>)> {
    let p = &r.pointer;
    let speed = match i32::from(p.speed) {
        0 => i32::from(super::table::SPEED_1X),
        s if s > 0 => s,
        _ => return None,
    };
    if p.tframe != 0 || p.rframe < 0 {
        return None;
    }
    let mut starts = vec![(p.start as usize, p.start_sid)];
    for e in &p.extra {
        starts.push((usize::try_from(e.start).ok()?, e.sid));
    }
    let pace = Pace {
        speed,
        offset: i32::from(p.rframe),
    };
    Some((pace, starts))
}

/// The starts (START IDX or extra start, stream ID) of recorded pointer `r`'s sequences,
/// written with the recorded control flow and the values of `tracks` (one per sequence of
/// `r`: START, extra 1, …; the parts of each track's type word that `keep` keeps; `rest` the
/// coordinate's matrix), or
/// `Ok(None)` when that flow does not fit them (module docs): nothing is written then.
pub(super) fn write(
    r: &Recorded,
    tracks: &[Option<&NodeTrack>],
    (keep, rest): (u32, &Mat),
    judge: &Judge<'_>,
    out: &mut Out<'_>,
) -> Result<Option<Vec<(u16, u8)>>> {
    let d = &r.flow.descriptors[..];
    let Some((pace, starts)) = pace_and_starts(r) else {
        return Ok(None);
    };
    let Some(tracks) = tracks
        .iter()
        .copied()
        .collect::<Option<Vec<&NodeTrack>>>()
        .filter(|t| t.len() == starts.len())
    else {
        return Ok(None);
    };
    // The author's type word: one for every sequence's track.
    let own = tracks[0].code & keep;
    if tracks
        .iter()
        .any(|t| t.code & keep != own || t.axes.is_some())
    {
        return Ok(None);
    }
    let seen = r
        .flow
        .reachable(&starts.iter().map(|s| s.0).collect::<Vec<_>>());
    // The recorded type of every key frame the sequences reach: linear (or unset) parts that
    // the author's keys set linearly (or not at all), or Bezier parts (kept with the file's own
    // key frames only), one rotation order.
    let mut codes: BTreeMap<usize, u32> = BTreeMap::new();
    let nibble = |c: u32, part: u32| (c >> (4 * part)) & 0xF;
    let mut order = None;
    for (i, x) in d.iter().enumerate() {
        let SequenceDescriptor::KeyFrame { type_idx, .. } = x else {
            continue;
        };
        if !seen[i] {
            continue;
        }
        let Some(&code) = r.flow.types.get(*type_idx as usize) else {
            return Ok(None);
        };
        let fits = code & 0xFFFF_0000 == own & 0xFFFF_0000
            && (0..3).all(|q| match nibble(code, q) {
                0 | BEZIER | BSPLINE => true,
                1 => nibble(own, q) <= 1,
                // 16-bit translations.
                0xA | 0xB => q == 0,
                9 => q == 0 && nibble(own, q) <= 1,
                _ => false,
            })
            && code & 0xFFF != 0;
        if !fits
            || (nibble(code, 1) != 0 && *order.get_or_insert(nibble(code, 3)) != nibble(code, 3))
        {
            return Ok(None);
        }
        codes.insert(i, code);
    }
    // The recorded PARAMETER IDX of each: the B-spline driver's history compares them.
    let params: BTreeMap<usize, u16> = codes
        .keys()
        .filter_map(|&i| match d.get(i) {
            Some(&SequenceDescriptor::KeyFrame { param_idx, .. }) => Some((i, param_idx)),
            _ => None,
        })
        .collect();
    // A B-spline sequence starts at its WORK control (the driver finds its history there).
    let spline_any = codes.values().any(|&c| spline(c));
    let work_at = |&(s, _): &(usize, u8)| matches!(d.get(s), Some(&SequenceDescriptor::Control { code, .. }) if code == CONTROL_WORK);
    if spline_any && !starts.iter().all(work_at) {
        return Ok(None);
    }
    let fit = Fit { own, rest, pace };
    // Each sequence's path and the scene's value at each key frame's first visit.
    let mut value: BTreeMap<usize, [i32; 9]> = BTreeMap::new();
    let mut paths = Vec::with_capacity(starts.len());
    for (&start, track) in starts.iter().zip(&tracks) {
        let last = track.keys.last().map_or(0, |k| u64::from(k.frame));
        let horizon = 2 * last + 2;
        if horizon > HORIZON {
            return Ok(None);
        }
        let Some(visits) = path(d, start, pace, horizon) else {
            return Ok(None);
        };
        if visits.len() < 2 {
            return Ok(None);
        }
        for (i, v) in visits.iter().enumerate() {
            if u32::try_from(v.update).is_err() {
                return Ok(None);
            }
            // The first key shows as it is only when the pointer starts at its interval's
            // beginning.
            if value.contains_key(&v.at) || (i == 0 && pace.offset != 0) {
                continue;
            }
            let left = visits
                .get(i + 1)
                .is_some_and(|n| n.tframe == 0 && n.update == v.update);
            let prev = i
                .checked_sub(1)
                .and_then(|h| Some((h, &visits[h], *value.get(&visits[h].at)?)));
            let x = key_value((&fit, codes[&v.at]), track, (v, left), prev);
            value.insert(v.at, x);
        }
        paths.push((visits, horizon));
    }
    // A reachable key frame no sequence plays (one a program's stream-ID switch reaches) keeps
    // the file's values.
    for (&i, &code) in &codes {
        if value.contains_key(&i) {
            continue;
        }
        let Some((v, _)) = recorded_value(r, i, code) else {
            return Ok(None);
        };
        value.insert(i, v);
    }
    // Bezier and B-spline pointers are kept with the file's own key frames: the edited ones
    // solved from the curve for a B-spline (it passes through none of them), taking the
    // scene's P0 with their recorded control points for a Bezier (the curve reaches P0 at the
    // key).
    let file_only = spline_any
        || codes
            .values()
            .any(|&c| (0..3).any(|q| bezier(nibble(c, q))));
    // Played as the driver plays them, the descriptors give the author's own values; else
    // with the file's values where the scene still shows them (Sony's own key frames: the
    // author's keys at a gimbal lock or under a parent a unit off lie on another line), or
    // the author's, as `judge` accepts.
    let mut ctl = Controls::new();
    let recorded = (&codes, &params);
    if file_only
        || !plays(
            &paths,
            &tracks,
            Keys::new(&value, &ctl, recorded),
            &fit,
            None,
        )
    {
        let (file, file_ctl, edited) = file_values(r, (&value, recorded), (&paths, pace), judge);
        let shows = |v: &BTreeMap<usize, [i32; 9]>| {
            let keys = Keys::new(v, &file_ctl, recorded);
            plays(&paths, &tracks, keys, &fit, Some(judge))
        };
        // An edited key the scene's own value there does not carry (another Euler triple at a
        // gimbal lock): the value the motion into it implies.
        let chosen = match edited {
            None => None,
            Some(_) if shows(&file) => Some(file),
            Some(e) if e.is_empty() => None,
            // A B-spline curve passes through no key: the moved keys are solved from the scene
            // where the curve starts each interval, from the file's own values.
            Some(_) if spline_any => codes
                .iter()
                .map(|(&i, &c)| Some((i, recorded_value(r, i, c)?.0)))
                .collect::<Option<BTreeMap<_, _>>>()
                .and_then(|pure| {
                    let keys = (&file_ctl, recorded);
                    spline_solved(pure, (&paths, &tracks), keys, (&fit, judge))
                }),
            Some(e) => approached(&file, (&e, &codes), (&paths, &tracks), &fit).and_then(|a| {
                let keys = (&file_ctl, recorded);
                settled(a, (&e, &codes), (&paths, &tracks), keys, (&fit, judge))
            }),
        };
        if let Some(file) = chosen {
            (value, ctl) = (file, file_ctl);
        } else if file_only
            || !plays(
                &paths,
                &tracks,
                Keys::new(&value, &ctl, recorded),
                &fit,
                Some(judge),
            )
        {
            return Ok(None);
        }
    }
    // Angles and scales the parameter section holds, and 16-bit translations.
    let fits16 = |x: &[i32]| x.iter().all(|&x| i16::try_from(x).is_ok());
    if value
        .iter()
        .any(|(i, v)| !fits16(&v[3..]) || (short(nibble(codes[i], 0)) && !fits16(&v[..3])))
    {
        return Ok(None);
    }
    let key = |i: usize| {
        let code = codes[&i];
        let v = value[&i].map(f64::from);
        let [p1, p2] = ctl.get(&i).map_or([v; 2], |c| c.map(|p| p.map(f64::from)));
        (code, key_frame_of(&v, &(p1, p2), code))
    };
    emit(r, (&seen, &starts), (&key, spline_any), out)
}

/// Writes the descriptors `seen` marks (of `r`'s recording) packed in their order, with the
/// type word and key frame `key` gives each key frame descriptor; the starts of `starts` in
/// the packed table, or `Ok(None)` when one does not fit its 16-bit field (nothing is written
/// then). With `history` (a pointer with B-spline keys), every key frame by recorded
/// PARAMETER IDX (one each, so the history, which holds the source and target of every
/// B-spline interval, tells the same ones apart as in the file); WORK areas by recorded word
/// offset.
fn emit(
    r: &Recorded,
    (seen, starts): (&[bool], &[(usize, u8)]),
    (key, history): (&dyn Fn(usize) -> (u32, Option<KeyFrame>), bool),
    out: &mut Out<'_>,
) -> Result<Option<Vec<(u16, u8)>>> {
    let mut own: BTreeMap<u16, u16> = BTreeMap::new();
    let mut works: BTreeMap<u16, u16> = BTreeMap::new();
    let d = &r.flow.descriptors[..];
    // Written in their order, packed: descriptor i of the recording becomes `new[i]`.
    let base = out.descriptors.len();
    let mut new = vec![usize::MAX; d.len() + 1];
    let mut k = base;
    for (i, &s) in seen.iter().enumerate() {
        if s {
            new[i] = k;
            k += 1;
        }
    }
    let placed = |i: usize, limit: usize| Some(new[i.min(d.len())]).filter(|&n| n <= limit);
    let mut firsts = Vec::with_capacity(starts.len());
    for (j, &(s, sid)) in starts.iter().enumerate() {
        // START IDX is 16 bits, an extra start a signed 16-bit index.
        let Some(at) = placed(s, if j == 0 { 0xFFFF } else { 0x7FFF }) else {
            return Ok(None);
        };
        firsts.push((at as u16, sid));
    }
    if k > 0x1_0000 {
        return Ok(None);
    }
    for (i, &s) in seen.iter().enumerate() {
        if !s {
            continue;
        }
        let x = match d.get(i) {
            None => SequenceDescriptor::Control {
                code: CONTROL_END,
                p1: 0,
                p2: 0,
            },
            Some(&SequenceDescriptor::KeyFrame {
                tframe,
                param_idx: recorded,
                ..
            }) => {
                let (code, frame) = key(i);
                let type_idx = type_index(out.types, code)?;
                let what = || format!("recorded sequence pointer {}: key frame {i}", r.index);
                let param_idx = match own.get(&recorded) {
                    _ if !history => store(out, code, frame, what)?,
                    Some(&p) => p,
                    None => {
                        let p = store_own(out, code, frame, what)?;
                        own.insert(recorded, p);
                        p
                    }
                };
                SequenceDescriptor::KeyFrame {
                    type_idx,
                    tframe,
                    param_idx,
                }
            }
            Some(&SequenceDescriptor::Jump {
                sid_dst,
                sid_cnd,
                seq_idx,
            }) => SequenceDescriptor::Jump {
                sid_dst,
                sid_cnd,
                seq_idx: new[(seq_idx as usize).min(d.len())] as u16,
            },
            Some(&SequenceDescriptor::Control { code, p1, p2 }) if code == CONTROL_WORK => {
                let p2 = match works.get(&p2) {
                    Some(&w) => w,
                    None => {
                        let w = work_area(out, || {
                            format!("recorded sequence pointer {}: WORK at {i}", r.index)
                        })?;
                        works.insert(p2, w);
                        w
                    }
                };
                SequenceDescriptor::Control { code, p1, p2 }
            }
            Some(&c) => c,
        };
        out.descriptors.push(x);
    }
    Ok(Some(firsts))
}

mod driver;
mod edited;
pub(super) mod scalar;
use driver::{interval, path, play, short, spline, Controls, Identity, Keys, Pace, Visit};
use edited::{approached, settled, spline_solved};

/// The B-spline nibble.
const BSPLINE: u32 = 3;

#[cfg(test)]
mod tests;
