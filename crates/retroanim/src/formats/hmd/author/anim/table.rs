//! The sequence table an export recorded (`docs/extras.md`): which coordinates get a sequence
//! pointer and in what order, the stream ID each pointer starts each sequence with, and the
//! loops of each coordinate's sequence.

use crate::scene::{Animation, Scene};

use super::super::super::types::{ExtraSequence, SequencePointer, UpdateIndex};

/// The nodes that get a sequence pointer, sorted, and the same in pointer order: the coordinates
/// of the `recorded` pointers first, in the file's order (a coordinate no animation moves
/// holds its rest pose), then the other `moved` nodes. Only nodes below `count` (the
/// coordinates) count.
pub(super) fn pointer_nodes(
    recorded: &[SequencePointer],
    moved: impl Iterator<Item = usize>,
    count: usize,
) -> (Vec<usize>, Vec<usize>) {
    let mut order: Vec<usize> = Vec::new();
    for c in recorded.iter().filter_map(|p| p.update.coordinate()) {
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

/// The stream ID node `node`'s pointer starts animation `k` of `anims` with: what the recorded
/// pointer of that coordinate gives the sequence the animation was exported from
/// (`retroanim.hmd.sequence`: START SID for 0, the extra sequence's SID after that), else
/// `k + 1`.
pub(super) fn stream_ids<'a>(
    recorded: &'a [SequencePointer],
    anims: &[&Animation],
) -> impl Fn(usize, usize) -> u8 + 'a {
    let sequence_of: Vec<usize> = anims
        .iter()
        .enumerate()
        .map(|(k, a)| {
            crate::scene::extras::get_u64(&a.extras, "hmd", "sequence")
                .and_then(|s| usize::try_from(s).ok())
                .unwrap_or(k)
        })
        .collect();
    move |node, k| {
        let s = sequence_of.get(k).copied().unwrap_or(k);
        recorded
            .iter()
            .find(|p| p.update.coordinate() == Some(node))
            .and_then(|p| match s {
                0 => Some(p.start_sid),
                _ => p.extra.get(s - 1).map(|e| e.sid),
            })
            .unwrap_or((k + 1) as u8)
    }
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
    let Some(list) = extras::get(&a.extras, "hmd")
        .and_then(|h| h.get("coordinate_loops"))
        .and_then(|l| l.as_array())
    else {
        return Default::default();
    };
    list.iter()
        .filter_map(|l| {
            let node = *node_of.get(&l.get(0)?.as_u64()?)?;
            let j = u32::try_from(l.get(1)?.as_u64()?).ok()?;
            let p = u32::try_from(l.get(2)?.as_u64()?).ok().filter(|&p| p > 0)?;
            j.checked_add(p)?;
            Some((node, (j, p)))
        })
        .collect()
}

/// A sequence pointer updating `update`, with the sequences starting at `starts` (descriptor,
/// stream ID; one per animation, the first as START IDX, the others as extra sequences).
pub(super) fn pointer(update: UpdateIndex, starts: &[(u16, u8)]) -> SequencePointer {
    let (first, more) = starts
        .split_first()
        .map_or(((0, 0), &[][..]), |(f, m)| (*f, m));
    SequencePointer {
        update,
        num: starts.len() as u16,
        intr_idx: 0xFFFF,
        aframe: 0,
        sid: first.1,
        speed: 0x10,
        src_intr_idx: 0xFFFF,
        rframe: 0,
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
