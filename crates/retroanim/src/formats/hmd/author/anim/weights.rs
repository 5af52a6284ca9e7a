//! Morph weights → TGT = 1 key frames on the MIMEPR sections (as `SCEI/COMB/AMMONITE` drives
//! its MIMe: type 0x03010110, linear, WRITE mask 0x1, one 32-bit unit).
//!
//! One sequence pointer per weight of each node with a vertex MIMe, updating word *t* of that
//! node's MIMEPR section (animation header word 5 + *j* for the *j*-th such node, in node
//! order), with one sequence per scene animation (the same numbering and stream IDs as the
//! coordinate pointers). A sequence's keys: the weight (× 4096, rounded) sampled at every frame
//! (time × fps) of the animation's weights channel, as a glTF client evaluates it (LINEAR,
//! STEP and CUBICSPLINE alike), of which the keys the driver's own integer interpolation gives
//! back are dropped; an animation without a weights channel for the node holds the rest
//! weight. As for coordinates, the last key is repeated with TFRAME 1 before END; a weight
//! whose node the export found looping (`retroanim.hmd.coordinate_loops`) loops instead, with
//! a jump back, as a coordinate's sequence does.

use crate::error::Result;
use crate::scene::sample::sample;
use crate::scene::{Animation, Track};

use super::super::super::cat3_anim::{
    KeyFrame, ParameterItem, SequenceDescriptor, SequencePointer, UpdateIndex,
};
use super::super::super::play::console_lerp;
use super::super::layout::Recorded;
use super::super::mime::{console_weight, note_weights_clamped};
use super::super::unencodable;
use super::kept::scalar::Series;
use super::write::{store, Out as WOut};
use crate::formats::tmd::author::Counts;

/// TGT = 1, linear, WRITE mask 0x1, 32-bit units.
const WEIGHT_TYPE: u32 = 0x0301_0110;

/// Where the pointers' descriptors and parameters go (shared with the coordinate pointers),
/// and the author's notes.
pub(super) struct Out<'a> {
    pub types: &'a mut Vec<u32>,
    pub descriptors: &'a mut Vec<SequenceDescriptor>,
    pub params: &'a mut Vec<ParameterItem>,
    pub param_words: &'a mut usize,
    pub notes: &'a mut Counts,
}

/// Weight `t` of `node` under `a` (× 4096, rounded) at frames 0, 1, … to its last key.
fn samples(
    a: &Animation,
    node: usize,
    t: usize,
    rest: i32,
    fps: f64,
    max: usize,
    past: &mut usize,
) -> Result<Vec<i32>> {
    let Some(c) = a
        .channels
        .iter()
        .find(|c| c.node == node && matches!(c.track, Track::Weights(_)))
    else {
        return Ok(vec![rest]);
    };
    let Track::Weights(w) = &c.track else {
        return Ok(vec![rest]);
    };
    let values: Vec<[f32; 1]> = w
        .iter()
        .map(|v| [v.get(t).copied().unwrap_or(0.0)])
        .collect();
    let end = c.times.iter().fold(0.0f32, |m, &x| m.max(x)) as f64 * fps;
    let last = end.round().max(0.0);
    if last.is_nan() || last >= max as f64 {
        return Err(unencodable(format!(
            "animation {:?}, node {node}: weights run {last} frames, past the limit of {max} keys",
            a.name
        )));
    }
    Ok((0..=last as usize)
        .map(|f| {
            sample(
                &c.times,
                &values,
                c.interpolation,
                (f as f64 / fps) as f32,
                false,
            )
            .map_or(rest, |v| console_weight(v[0], past))
        })
        .collect())
}

/// The frames of `s` to keep as linear keys: the driver interpolates the rest exactly, and no
/// interval passes TFRAME's 255 frames.
fn keys(s: &[i32]) -> Vec<usize> {
    let exact = |a: usize, b: usize, m: usize| {
        let (t, r) = (((b - a) * 16) as i32, ((b - m) * 16) as i32);
        console_lerp(s[a], s[b], r, t) == s[m]
    };
    let mut out = vec![0];
    let mut i = 0;
    while i + 1 < s.len() {
        let mut e = i + 1;
        while e + 1 < s.len() && e + 1 - i <= 255 && (i + 1..=e).all(|m| exact(i, e + 1, m)) {
            e += 1;
        }
        out.push(e);
        i = e;
    }
    out
}

/// One weight's sequence for animation number `k` (samples `s` at frames 0, 1, …): its linear
/// keys' descriptors (equal key values stored once), then END — or, when the sequence loops
/// from frame `j` with period `p` (`looping`), the keys up to `j + p` with the key at `j` once
/// more with TFRAME 0 after it, and a jump back to that key, as the coordinate pointers loop;
/// returns its start and stream ID as a pointer names them.
fn sequence(
    out: &mut WOut,
    type_idx: u8,
    (s, k, looping): (&[i32], usize, Option<(u32, u32)>),
    what: &dyn Fn() -> String,
) -> Result<(u16, u8)> {
    let start = out.descriptors.len();
    let mut prev = 0usize;
    let mut param = 0u16;
    // A loop: the samples up to j + p (the last one held past the end), keys on both sides of j.
    let looping = looping.map(|(j, p)| (j as usize, j as usize + p as usize));
    let held: Vec<i32>;
    let (s, frames) = match looping {
        Some((j, end)) => {
            let last = s.last().copied().unwrap_or(0);
            held = (0..=end)
                .map(|f| s.get(f).copied().unwrap_or(last))
                .collect();
            let mut frames = keys(&held[..=j]);
            frames.extend(keys(&held[j..]).into_iter().skip(1).map(|f| f + j));
            (&held[..], frames)
        }
        None => (s, keys(s)),
    };
    let mut anchor = None;
    for f in frames {
        let frame = KeyFrame::General {
            values: [s[f]].into_iter().collect(),
            pad: Default::default(),
        };
        param = store(out, WEIGHT_TYPE, Some(frame), what)?;
        out.descriptors.push(SequenceDescriptor::KeyFrame {
            type_idx,
            tframe: (f - prev) as u8,
            param_idx: param,
        });
        prev = f;
        if looping.is_some_and(|(j, end)| f == j && j < end) && anchor.is_none() {
            anchor = Some(out.descriptors.len());
            out.descriptors.push(SequenceDescriptor::KeyFrame {
                type_idx,
                tframe: 0,
                param_idx: param,
            });
        }
    }
    match anchor {
        Some(at) => {
            let seq_idx = u16::try_from(at).map_err(|_| {
                unencodable(format!(
                    "{}: the loop starts at descriptor {at}, past 65535 (a jump's index is 16 bits)",
                    what()
                ))
            })?;
            out.descriptors.push(SequenceDescriptor::Jump {
                sid_dst: 0,
                sid_cnd: 0,
                seq_idx,
            });
        }
        None => super::end_sequence(out.descriptors, type_idx, param),
    }
    // START IDX is 16 bits, an extra sequence's start a signed 16-bit value.
    let limit = if k == 0 { 0xFFFF } else { 0x7FFF };
    let start = u16::try_from(start)
        .ok()
        .filter(|&s| s <= limit)
        .ok_or_else(|| {
            unencodable(format!(
                "{}: sequence starts past descriptor {limit}",
                what()
            ))
        })?;
    Ok((start, (k + 1) as u8))
}

/// The MIMe weights' sources: the morph weights of `morphs` ((node, keys, rest weights) in
/// node order, MIMEPR sections 5, 6, …) and the joint axes MIMe keys of `axes` ((node,
/// difference, weights per animation), one MIMEPR section after the morphs' with a weight
/// per node).
pub(super) struct Sources<'a> {
    pub morphs: &'a [(usize, usize, Vec<i32>)],
    pub axes: &'a [super::axes::AxesNode],
    /// The recorded joint axes MIMe written back instead of `axes` (`joint` module).
    pub joint: Option<JointWeights<'a>>,
    /// Per animation, the loops the export kept, by node (`table::kept_loops`).
    pub loops: &'a [std::collections::BTreeMap<usize, (u32, u32)>],
}

/// The weights of a recorded joint axes MIMe written back (`joint::Joint`): its key count,
/// per key the weights per animation and frame and the node they were solved on, its recorded
/// weight pointers, each animation's recorded sequence, and the judge's error of a key's nodes
/// turned by a weight (key, animation, frame, weight).
pub(super) struct JointWeights<'a> {
    pub keys: usize,
    pub weights: &'a [Option<Vec<Vec<i32>>>],
    pub solved_on: &'a [Option<usize>],
    pub recorded: &'a [Recorded],
    pub sequence_of: &'a [usize],
    pub error: &'a dyn Fn(usize, usize, u32, i32) -> Option<f64>,
}

/// A weight shows the scene as well as the scene's own weight when the judge's error of its
/// key's nodes is no larger, or within this (4096ths, as `Ctx::shows` takes a local).
const SHOWN: f64 = 0.05;

/// Notes recorded MIMe weight pointers written as the author's own sequences.
pub(super) fn note_rewritten(notes: &mut Counts, n: usize) {
    notes.add(
        "weights-control-flow-rewritten",
        n,
        || "recorded MIMe weight sequence pointer(s) with stream-ID jumps or control descriptors other than END written as the author's own sequences: each sequence plays from its start as exported, but a program that switches stream IDs mid-play does not switch as it did".into(),
    );
}

/// The sequence pointers of the MIMe weights of `src` under `anims`.
pub(super) fn pointers(
    anims: &[&Animation],
    src: Sources,
    (fps, max): (f64, usize),
    out: Out,
) -> Result<Vec<SequencePointer>> {
    let mut pointers = Vec::new();
    if (src.morphs.is_empty() && src.axes.is_empty() && src.joint.is_none()) || anims.is_empty() {
        return Ok(pointers);
    }
    let Out {
        types,
        descriptors,
        params,
        param_words,
        notes,
    } = out;
    // Equal weight key frames are stored once.
    let mut stored = std::collections::HashMap::new();
    let mut out = WOut {
        types,
        descriptors,
        params,
        param_words,
        stored: &mut stored,
    };
    let type_idx = super::write::type_index(out.types, WEIGHT_TYPE)?;
    let mut past = 0;
    let section_of = |j: usize| {
        u8::try_from(5 + j)
            .ok()
            .filter(|&s| s < 0x80)
            .ok_or_else(|| {
                unencodable("more than 122 MIMe weight sections for one animation header")
            })
    };
    // One pointer per weight: word `offset` of MIMEPR section `section`, a sequence per
    // animation from `samples` (animation number, animation → that weight's samples).
    let loops = src.loops;
    let pointer = |out: &mut WOut,
                   (section, offset, node): (u8, usize, usize),
                   what: &dyn Fn(&Animation) -> String,
                   samples: &mut dyn FnMut(usize, &Animation) -> Result<Vec<i32>>|
     -> Result<SequencePointer> {
        let mut starts: Vec<(u16, u8)> = Vec::with_capacity(anims.len());
        for (k, a) in anims.iter().enumerate() {
            let s = samples(k, a)?;
            let label = || what(a);
            let looping = loops.get(k).and_then(|l| l.get(&node)).copied();
            starts.push(sequence(out, type_idx, (&s, k, looping), &label)?);
        }
        Ok(super::table::pointer(
            UpdateIndex {
                section,
                offset: offset as u32,
            },
            &starts,
            None,
        ))
    };
    for (j, (node, num, rest)) in src.morphs.iter().enumerate() {
        let section = section_of(j)?;
        for t in 0..*num {
            let rest_w = rest.get(t).copied().unwrap_or(0);
            pointers.push(pointer(
                &mut out,
                (section, t, *node),
                &|a| format!("animation {:?}, node {node}", a.name),
                &mut |_, a| samples(a, *node, t, rest_w, fps, max, &mut past),
            )?);
        }
    }
    if let Some(j) = &src.joint {
        let section = section_of(src.morphs.len())?;
        let mut has = vec![false; j.keys];
        let (mut rewritten, mut dropped) = (0, 0);
        let series_of = |w: usize, k: usize| Series {
            weights: j
                .weights
                .get(w)
                .and_then(|x| x.as_ref()?.get(k))
                .map_or(&[0][..], |v| &v[..]),
            looping: j.solved_on[w].and_then(|n| loops.get(k)?.get(&n).copied()),
        };
        // Key `w`'s weights as the author's own sequences (looping as its node does).
        let own_key = |out: &mut WOut, w: usize| {
            pointer(
                out,
                (section, w, j.solved_on[w].unwrap_or(usize::MAX)),
                &|a| format!("animation {:?}, joint MIMe key {w}", a.name),
                &mut |k, _| Ok(series_of(w, k).weights.to_vec()),
            )
        };
        for r in j.recorded {
            let w = r.pointer.update.offset as usize;
            // A pointer that updates a word past the MIMe's keys writes nothing it reads.
            let Some(h) = has.get_mut(w) else {
                dropped += 1;
                continue;
            };
            *h = true;
            let anim_of = |s: usize| (0..anims.len()).find(|&k| j.sequence_of[k] == s);
            let series: Vec<Option<Series>> = (0..=r.pointer.extra.len())
                .map(|s| Some(series_of(w, anim_of(s)?)))
                .collect();
            let judge = |s: usize, u: u32, got: i32, want: i32| {
                let (Some(k), Some(Some(x))) = (anim_of(s), series.get(s)) else {
                    return false;
                };
                let f = x.frame(u);
                match ((j.error)(w, k, f, got), (j.error)(w, k, f, want)) {
                    (Some(g), Some(e)) => g <= e.max(SHOWN),
                    _ => false,
                }
            };
            if let Some(starts) = super::kept::scalar::write(r, &series, &judge, &mut out)? {
                pointers.push(super::table::pointer(
                    UpdateIndex {
                        section,
                        offset: w as u32,
                    },
                    &starts,
                    Some((&r.pointer, true)),
                ));
                continue;
            }
            rewritten += usize::from(r.flow.switches(&r.pointer));
            pointers.push(own_key(&mut out, w)?);
        }
        // A key no recorded pointer drives that the scene turns gets a pointer of its own.
        for w in (0..j.keys).filter(|&w| !has[w]) {
            if (0..anims.len()).any(|k| series_of(w, k).weights.iter().any(|&x| x != 0)) {
                pointers.push(own_key(&mut out, w)?);
            }
        }
        note_rewritten(notes, rewritten);
        notes.add("weights-pointer-dropped", dropped, || {
            "recorded MIMe weight sequence pointer(s) updating a word past the joint MIMe's keys left out (the MIMe does not read it)".into()
        });
    } else if !src.axes.is_empty() {
        let section = section_of(src.morphs.len())?;
        for (t, x) in src.axes.iter().enumerate() {
            pointers.push(pointer(
                &mut out,
                (section, t, x.node),
                &|a| format!("animation {:?}, node {} (joint axes MIMe)", a.name, x.node),
                &mut |k, _| Ok(x.weights.get(k).cloned().unwrap_or_else(|| vec![0])),
            )?);
        }
    }
    note_weights_clamped(notes, past);
    Ok(pointers)
}
