//! What the HMD → scene bridge keeps of the console's structure in the `retroanim` extras
//! (`docs/extras.md`): each node's GsCOORDUNIT index or block, the block count, the file's
//! sequence table (sequence pointers, descriptors with their jumps and controls, interpolation
//! types, the parameter section's key frames), the joint MIMe primitives' DIFF blocks and
//! MIMEPR sections, and per animation the loop of each
//! coordinate's sequence pointers, so that the HMD author writes a looping sequence as a loop.

use serde_json::{json, Value};

use super::super::cat3_anim::ParameterItem;
use super::super::cat4_mime::MimeKind;
use super::super::play::{Frame, JointMimeRecord};
use super::super::types::Hmd;

/// The scene's `hmd` member: block and coordinate counts, the sequence table and the joint
/// MIMe primitives (`joints`, from [`crate::formats::hmd::Player::joint_mimes`]).
pub(super) fn scene_member(hmd: &Hmd, coordinates: usize, joints: &[JointMimeRecord]) -> Value {
    let anims = hmd.animations();
    let animations: Vec<Value> = anims
        .iter()
        .map(|a| {
            json!({
                "interpolation_types": a.interpolation_types,
                "descriptors": a.descriptors,
                // The key frames (the values of those no exported sequence plays); words no
                // descriptor describes are not the structure's.
                "parameters": a
                    .parameters
                    .iter()
                    .filter(|p| matches!(p, ParameterItem::KeyFrame { .. }))
                    .collect::<Vec<_>>(),
                "pointers": a.sequences,
                "coordinate_section": hmd.coordinate_section(a),
            })
        })
        .collect();
    // Each joint MIMe's weights: the header word of the (first) animation primitive that
    // points at its MIMEPR section, which the weight pointers' update indices name.
    let joint_mimes: Vec<Value> = joints
        .iter()
        .map(|j| {
            let section = anims.iter().find_map(|a| {
                let at = j.weights_at?;
                a.sections.iter().position(|&s| s == Some(at))
            });
            json!({
                "kind": match j.kind {
                    MimeKind::JointRpy => "rpy",
                    _ => "axes",
                },
                "keys": j.keys,
                "weights_section": section,
                "diffs": j.diffs,
            })
        })
        .collect();
    json!({
        "joint_mimes": joint_mimes,
        "blocks": hmd.blocks.len(),
        "coordinates": coordinates,
        "sequence_count": super::super::play::sequence_count(hmd),
        "animations": animations,
    })
}

/// The coordinate each sequence pointer of the file updates (`None`: another target), in the
/// order the player reports them ([`Frame::sequences`]): an update index into the coordinate
/// section ([`Hmd::coordinate_section`]) at word 1 + 20·k is coordinate k.
pub(super) fn pointer_coordinates(hmd: &Hmd) -> Vec<Option<usize>> {
    hmd.animations()
        .iter()
        .flat_map(|a| {
            a.sequences
                .iter()
                .map(|s| hmd.updated_coordinate(a, s.update))
                .collect::<Vec<_>>()
        })
        .collect()
}

/// Per coordinate with sequence pointers, the first frame `j` and period `p` with which the
/// state of its pointers repeats (state at `j + p` = state at `j`) within `frames` and the frame
/// that follows them (`after`, the repeated state that closed a looping take), as
/// `[coordinate, j, p]`. A coordinate without pointers of its own (of `coordinates`, moved by
/// a joint axes MIMe whose weights other pointers drive) takes the loop of every pointer's
/// state together, when there is one.
pub(super) fn coordinate_loops(
    frames: &[Frame],
    after: Option<&Frame>,
    owners: &[Option<usize>],
    coordinates: usize,
) -> Vec<[usize; 3]> {
    let coords: std::collections::BTreeSet<usize> = owners.iter().flatten().copied().collect();
    let all: Vec<&Frame> = frames.iter().chain(after).collect();
    let looped =
        |keep: &dyn Fn(&Option<usize>) -> bool| repeat(&all, &|i| owners.get(i).is_some_and(keep));
    let mut out: Vec<[usize; 3]> = coords
        .iter()
        .filter_map(|&c| looped(&|o| *o == Some(c)).map(|(j, p)| [c, j, p]))
        .collect();
    if let Some((j, p)) = looped(&|_| true) {
        out.extend(
            (0..coordinates)
                .filter(|c| !coords.contains(c))
                .map(|c| [c, j, p]),
        );
    }
    out
}

/// The animation member's `coordinate_loops` and `pointer_loops` of a take's `frames` and
/// `after` ([`coordinate_loops`], [`pointer_loops`]); empty unless the take `repeats` (looped,
/// or cut: an ended take stopped its pointers, so nothing loops).
pub(super) fn loops(
    (frames, after, repeats): (&[Frame], Option<&Frame>, bool),
    owners: &[Option<usize>],
    coordinates: usize,
) -> (Vec<[usize; 3]>, Vec<[usize; 3]>) {
    if !repeats {
        return (Vec::new(), Vec::new());
    }
    (
        coordinate_loops(frames, after, owners, coordinates),
        pointer_loops(frames, after, owners),
    )
}

/// Per sequence pointer that updates a coordinate (its index in the order of `owners`, the
/// player's), the first frame `j` and period `p` with which its own state repeats within
/// `frames` and `after` (as [`coordinate_loops`]), as `[pointer, j, p]`: a coordinate with
/// several pointers whose periods differ (CUBE0's translation every 500 updates, rotation
/// every 251) repeats only when all do, each pointer on its own.
pub(super) fn pointer_loops(
    frames: &[Frame],
    after: Option<&Frame>,
    owners: &[Option<usize>],
) -> Vec<[usize; 3]> {
    let all: Vec<&Frame> = frames.iter().chain(after).collect();
    (0..owners.len())
        .filter(|&i| owners[i].is_some())
        .filter_map(|i| repeat(&all, &|x| x == i).map(|(j, p)| [i, j, p]))
        .collect()
}

/// The first frame `j` and period `p` with which the state of the sequence pointers `keep`
/// takes (by index) repeats in `frames`; `None` when it does not, or when one of them has
/// stopped (AFRAME 0 repeats trivially).
fn repeat(frames: &[&Frame], keep: &dyn Fn(usize) -> bool) -> Option<(usize, usize)> {
    let mut seen = std::collections::HashMap::new();
    for (f, frame) in frames.iter().enumerate() {
        let state: Vec<_> = frame
            .sequences
            .iter()
            .enumerate()
            .filter(|(i, _)| keep(*i))
            .map(|(_, s)| (s.sid, s.ctr_idx, s.tctr_idx, s.rframe, s.tframe, s.aframe))
            .collect();
        if state.is_empty() || state.iter().any(|s| s.5 == 0) {
            return None;
        }
        if let Some(&j) = seen.get(&state) {
            return Some((j, f - j));
        }
        seen.insert(state, f);
    }
    None
}

/// The extras of coordinate node `index`.
pub(super) fn coordinate(index: usize) -> Value {
    crate::scene::extras::tagged("hmd", json!({ "coordinate": index }))
}

/// The extras of a node that draws block `block` without being its coordinate's node.
pub(super) fn block(block: usize) -> Value {
    crate::scene::extras::tagged("hmd", json!({ "block": block }))
}

/// Merges the `retroanim` member into existing extras.
pub(super) fn put(extras: &mut Value, member: Value) {
    crate::scene::extras::put(extras, "hmd", member);
}
