//! The sequence table an export recorded (`docs/extras.md`): which coordinates get a sequence
//! pointer and in what order, the stream ID each pointer starts each sequence with, and the
//! loops of each coordinate's sequence.

use crate::scene::{Animation, Scene};

use super::super::super::types::{ExtraSequence, SequencePointer, UpdateIndex};
use super::super::layout::Recorded;
use super::NodeTrack;

/// The type word's bits of each part ([`Recorded::parts`] bit 1 translation, 2 rotation,
/// 4 scale); the other bits (rotation order, category) are every pointer's.
const PART_BITS: [(u8, u32); 3] = [(1, 0x00F), (2, 0x0F0), (4, 0xF00)];

/// The pointers written for coordinate `node`: (the recorded pointer it stands for, the mask
/// of the type word it keeps). One per recorded pointer of the coordinate when it has several
/// whose parts are known and disjoint and together cover `used` (the parts the node's key
/// frames set); else one for all parts (standing for its first recorded pointer, if any).
pub(super) fn pointers_of(
    recorded: &[Recorded],
    node: usize,
    used: u8,
) -> Vec<(Option<usize>, u32)> {
    let mine: Vec<usize> = (0..recorded.len())
        .filter(|&i| recorded[i].pointer.update.coordinate() == Some(node))
        .collect();
    let parts: Option<Vec<u8>> = mine.iter().map(|&i| recorded[i].parts).collect();
    if let Some(parts) = parts.filter(|p| p.len() > 1) {
        let disjoint = parts
            .iter()
            .enumerate()
            .all(|(i, a)| *a != 0 && parts[..i].iter().all(|b| a & b == 0));
        let union = parts.iter().fold(0, |u, p| u | p);
        if disjoint && used & !union == 0 {
            return mine
                .iter()
                .zip(&parts)
                .map(|(&i, &p)| {
                    let keep = PART_BITS
                        .iter()
                        .filter(|(bit, _)| p & bit != 0)
                        .fold(0xFFFF_F000, |m, (_, bits)| m | bits);
                    (Some(i), keep)
                })
                .collect();
        }
    }
    vec![(mine.first().copied(), u32::MAX)]
}

/// The parts ([`Recorded::parts`] bits) a type word sets.
pub(super) fn parts_of_code(code: u32) -> u8 {
    PART_BITS
        .iter()
        .filter(|(_, bits)| code & bits != 0)
        .fold(0, |u, (bit, _)| u | bit)
}

/// The nodes that get a sequence pointer, sorted, and the same in pointer order: the coordinates
/// of the `recorded` pointers first, in the file's order (a coordinate no animation moves
/// holds its rest pose), then the other `moved` nodes. Only nodes below `count` (the
/// coordinates) count.
pub(super) fn pointer_nodes(
    recorded: &[Recorded],
    moved: impl Iterator<Item = usize>,
    count: usize,
) -> (Vec<usize>, Vec<usize>) {
    let mut order: Vec<usize> = Vec::new();
    for c in recorded
        .iter()
        .filter_map(|p| p.pointer.update.coordinate())
    {
        if c < count && !order.contains(&c) {
            order.push(c);
        }
    }
    let mut nodes: Vec<usize> = moved.chain(order.iter().copied()).collect();
    nodes.sort_unstable();
    nodes.dedup();
    let more: Vec<usize> = nodes
        .iter()
        .copied()
        .filter(|c| !order.contains(c))
        .collect();
    order.extend(more);
    (nodes, order)
}

/// The sequence each animation of `anims` was exported from (`retroanim.hmd.sequence`; its
/// position without one).
pub(super) fn sequence_indices(anims: &[&Animation]) -> Vec<usize> {
    anims
        .iter()
        .enumerate()
        .map(|(k, a)| {
            crate::scene::extras::get_u64(&a.extras, "hmd", "sequence")
                .and_then(|s| usize::try_from(s).ok())
                .unwrap_or(k)
        })
        .collect()
}

/// The animations (indices into the scene's written animations, exported from the sequences
/// `sequence_of`) a pointer standing for recorded pointer `rec` has sequences for: those
/// exported from a sequence the recorded pointer has (START, extra sequence 1, …), in
/// animation order. All of them without a recorded pointer, or when it has none of them
/// (a scene exported with one sequence the pointer does not have).
pub(super) fn sequences_for(
    recorded: &[Recorded],
    rec: Option<usize>,
    sequence_of: &[usize],
) -> Vec<usize> {
    let all: Vec<usize> = (0..sequence_of.len()).collect();
    let Some(r) = rec.and_then(|i| recorded.get(i)) else {
        return all;
    };
    let has = 1 + r.pointer.extra.len();
    let mine: Vec<usize> = all
        .iter()
        .copied()
        .filter(|&k| sequence_of[k] < has)
        .collect();
    if mine.is_empty() {
        all
    } else {
        mine
    }
}

/// Whether tracks `a` and `b` give the console the same values of the parts the type word
/// `keep` keeps at every frame up to twice the later one's last key (a loop's second cycle).
pub(super) fn same_values(a: &NodeTrack, b: &NodeTrack, keep: u32) -> bool {
    let parts = |t: &NodeTrack| t.code & keep & 0xFFF;
    let order = |t: &NodeTrack| (t.code >> 12) & 0xF;
    let last = |t: &NodeTrack| t.keys.last().map_or(0, |k| k.frame);
    let end = last(a).max(last(b)).saturating_mul(2).saturating_add(1);
    let kept: Vec<usize> = (0..9)
        .filter(|q| keep >> (4 * (q / 3)) & 0xF != 0)
        .collect();
    a.axes.is_none()
        && b.axes.is_none()
        && parts(a) == parts(b)
        && (keep & 0xF0 == 0 || order(a) == order(b))
        && (keep & 0xF00 == 0 || a.scaled == b.scaled)
        && (0..=end).all(|f| {
            let (x, y) = (a.values_at(f), b.values_at(f));
            kept.iter().all(|&q| x[q] == y[q])
        })
}

/// The stream ID a pointer standing for recorded pointer `rec` starts animation `k` with (of
/// the animations exported from the sequences `sequence_of`): what that pointer gives the
/// sequence the animation was exported from (START SID for 0, the extra sequence's SID after
/// that), else `k + 1`.
pub(super) fn stream_id(
    recorded: &[Recorded],
    sequence_of: &[usize],
    rec: Option<usize>,
    k: usize,
) -> u8 {
    let s = sequence_of.get(k).copied().unwrap_or(k);
    rec.and_then(|i| recorded.get(i))
        .and_then(|r| match s {
            0 => Some(r.pointer.start_sid),
            _ => r.pointer.extra.get(s - 1).map(|e| e.sid),
        })
        .unwrap_or((k + 1) as u8)
}

/// The loops an export kept for animation `a` (`retroanim.hmd.coordinate_loops`:
/// `[coordinate, start frame, period]`), by the node that is that coordinate (its
/// `retroanim.hmd.coordinate` extras).
pub(super) fn kept_loops(
    scene: &Scene,
    a: &Animation,
) -> std::collections::BTreeMap<usize, (u32, u32)> {
    use crate::scene::extras;
    let node_of: std::collections::BTreeMap<u64, usize> = scene
        .nodes
        .iter()
        .enumerate()
        .filter_map(|(i, x)| Some((extras::get_u64(&x.extras, "hmd", "coordinate")?, i)))
        .collect();
    loops_of(a, "coordinate_loops")
        .into_iter()
        .flatten()
        .filter_map(|(c, l)| Some((*node_of.get(&c)?, l)))
        .collect()
}

/// The `[what, start frame, period]` triples of animation `a`'s loop member `key`, as
/// (what, (start, period)) with a period over 0 and an end within 32 bits; `None` without the
/// member.
fn loops_of(a: &Animation, key: &str) -> Option<Vec<(u64, (u32, u32))>> {
    let list = crate::scene::extras::get(&a.extras, "hmd")?
        .get(key)?
        .as_array()?;
    Some(
        list.iter()
            .filter_map(|l| {
                let what = l.get(0)?.as_u64()?;
                let j = u32::try_from(l.get(1)?.as_u64()?).ok()?;
                let p = u32::try_from(l.get(2)?.as_u64()?).ok().filter(|&p| p > 0)?;
                j.checked_add(p)?;
                Some((what, (j, p)))
            })
            .collect(),
    )
}

/// SPEED at the console's own rate (1×; a file's 0 plays so as well).
pub(super) const SPEED_1X: i8 = 0x10;

/// The loops an export kept for each of the file's sequence pointers in animation `a`
/// (`retroanim.hmd.pointer_loops`: `[pointer, start frame, period]`, the pointer by its index
/// among all the file's pointers, [`Recorded::index`]); `None` when the animation records none
/// (an export that did not write them: the coordinates' loops stand for their pointers').
pub(super) fn kept_pointer_loops(
    a: &Animation,
) -> Option<std::collections::BTreeMap<usize, (u32, u32)>> {
    Some(
        loops_of(a, "pointer_loops")?
            .into_iter()
            .filter_map(|(i, l)| Some((usize::try_from(i).ok()?, l)))
            .collect(),
    )
}

/// A sequence pointer updating `update`, with the sequences starting at `starts` (descriptor,
/// stream ID; one per animation, the first as START IDX, the others as extra sequences).
/// INTR IDX, AFRAME and SPEED are the `recorded` pointer's; SPEED only when its recorded
/// control flow was kept (its TFRAMEs: the `kept` flag) or it plays at the console's rate (0
/// or 0x10: the author's own keys hold the effect of any other rate, which would then play
/// twice), else 0x10; RFRAME (the phase the first interval starts in) only when kept.
/// Without a recorded pointer: no INTR IDX (0xFFFF), AFRAME 0, SPEED 0x10.
pub(super) fn pointer(
    update: UpdateIndex,
    starts: &[(u16, u8)],
    recorded: Option<(&SequencePointer, bool)>,
) -> SequencePointer {
    let (recorded, kept) = recorded.map_or((None, false), |(r, k)| (Some(r), k));
    let (first, more) = starts
        .split_first()
        .map_or(((0, 0), &[][..]), |(f, m)| (*f, m));
    SequencePointer {
        update,
        num: starts.len() as u16,
        intr_idx: recorded.map_or(0xFFFF, |r| r.intr_idx),
        aframe: recorded.map_or(0, |r| r.aframe),
        sid: first.1,
        speed: recorded
            .map(|r| r.speed)
            .filter(|&s| kept || s == 0 || s == SPEED_1X)
            .unwrap_or(SPEED_1X),
        src_intr_idx: 0xFFFF,
        // The phase the recorded flow starts in (SNAKE's segments each start further on).
        rframe: recorded.filter(|_| kept).map_or(0, |r| r.rframe),
        tframe: 0,
        ctr_idx: 0,
        tctr_idx: 0,
        start: first.0,
        start_sid: first.1,
        traveling: 0,
        extra: more
            .iter()
            .map(|&(start, sid)| ExtraSequence {
                start: start as i16,
                sid,
                pad: 0,
            })
            .collect(),
    }
}
