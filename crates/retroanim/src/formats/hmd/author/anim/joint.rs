//! A recorded joint axes MIMe written back as the file had it (`docs/extras.md`, "Joint
//! MIMe"): its keys (weights), DIFF blocks and weight pointers, as Sony's
//! `SCEI/COMB/WALKRUN/SWITCH` turns its legs (4 weights, each driving the coordinates whose
//! blocks' `dflags` name it: the crotch with one, the knee and ankle with another).
//!
//! **When.** The scene records exactly one joint MIMe, of axes type, with at most 32 keys;
//! each of its DIFF blocks turns a coordinate of the scene that no recorded coordinate pointer
//! updates, with one difference record (one `dflags` bit, below the key count) and no
//! translation, each coordinate once. Then every node of the MIMe is written as its DIFF
//! block's key turning it: the key's weight at each frame is solved on the first of its nodes
//! the author reaches (parents first), as the judge finds the rotation nearest the file's local
//! (`axes::weights_for`, either way round the recorded axis), and the other nodes of the key
//! turn with the same weights. The MIMe is kept when every node comes back as close as the
//! author's own roll-pitch-yaw keys do, or within [`axes::TRY_OVER`]; otherwise the scene is
//! authored as if it recorded none (noted `joint-mime-rewritten`).

use std::collections::BTreeMap;

use super::super::layout::{Recorded, RecordedJoint};
use super::axes::AxesMime;
use super::solve::Ctx;
use super::NodeTrack;
use crate::formats::hmd::types::JointDiff;
use crate::scene::Animation;

/// The recorded joint MIMe the author writes back, with each of its nodes' key and
/// difference, and the weights each key has been solved to so far.
pub(super) struct Joint<'a> {
    pub rec: &'a RecordedJoint,
    /// Node → (key, rotation difference).
    pub key_of: BTreeMap<usize, (usize, [i16; 3])>,
    /// Per key: per animation, the weight at each frame (`None` until a node solves it).
    pub weights: Vec<Option<Vec<Vec<i32>>>>,
    /// Per key: the node its weights were solved on (its loop is the weights' loop).
    pub solved_on: Vec<Option<usize>>,
}

impl<'a> Joint<'a> {
    /// `rec` when the author can write it back (module docs, "When") over `coordinates`
    /// coordinates, none of which `recorded` (the recorded coordinate pointers) updates.
    pub fn usable(
        rec: &'a RecordedJoint,
        coordinates: usize,
        recorded: &[Recorded],
    ) -> Option<Self> {
        let mut key_of = BTreeMap::new();
        for d in &rec.diffs {
            let node = usize::from(d.coord_id);
            let [x] = &d.differences[..] else {
                return None;
            };
            let one = d.dflags.count_ones() == 1 && (d.dflags.trailing_zeros() as usize) < rec.keys;
            let moved = recorded
                .iter()
                .any(|r| r.pointer.update.coordinate() == Some(node));
            if !one || node >= coordinates || moved || x.translation != [0; 3] || x.dtp & 2 != 0 {
                return None;
            }
            let key = d.dflags.trailing_zeros() as usize;
            if key_of.insert(node, (key, x.rotation)).is_some() {
                return None;
            }
        }
        Some(Joint {
            rec,
            key_of,
            weights: vec![None; rec.keys],
            solved_on: vec![None; rec.keys],
        })
    }

    /// The tracks of `node` (one per animation of `sources`: what moves the node, the
    /// animation moving its ancestors) as its recorded key turns it, solving the key's weights
    /// when `node` is the first of its nodes; `None` when it is not a node of the MIMe.
    /// `Err(())` when they come back farther from the file than `own` (the author's own
    /// roll-pitch-yaw tracks) and [`super::axes::TRY_OVER`].
    pub fn tracks(
        &mut self,
        ctx: &Ctx,
        sources: &[(&Animation, &Animation)],
        node: usize,
        own: &[NodeTrack],
    ) -> Option<std::result::Result<Vec<NodeTrack>, ()>> {
        let &(key, dv) = self.key_of.get(&node)?;
        let fits: Option<Vec<AxesMime>> = match &self.weights[key] {
            Some(w) => sources
                .iter()
                .enumerate()
                .map(|(k, &(_, a))| super::axes::with_weights(ctx, (k, a), node, dv, w.get(k)?))
                .collect(),
            None => sources
                .iter()
                .enumerate()
                .map(|(k, &(src, a))| {
                    let last = own.get(k)?.keys.last().map_or(0, |x| x.frame);
                    super::axes::weights_for(ctx, (src, k, a), node, dv, last)
                })
                .collect(),
        };
        let Some(fits) = fits else {
            return Some(Err(()));
        };
        let mine = fits.iter().map(|x| x.worst).fold(0.0, f64::max);
        let theirs = own.iter().map(|t| t.worst).fold(0.0, f64::max);
        if mine > theirs.max(super::axes::TRY_OVER) {
            return Some(Err(()));
        }
        if self.weights[key].is_none() {
            self.weights[key] = Some(fits.iter().map(|x| x.weights.clone()).collect());
            self.solved_on[key] = Some(node);
        }
        Some(Ok(fits.into_iter().map(AxesMime::track).collect()))
    }

    /// The DIFF blocks to write (the recorded ones) and the key count.
    pub fn parts(&self) -> (usize, Vec<JointDiff>) {
        (self.rec.keys, self.rec.diffs.clone())
    }
}
