//! What a glTF exported from a TOD kept of the console's structure (`docs/extras.md`, the
//! `tod` member of a node's `retroanim` extras): object IDs, lives, TMD IDs and attribute words.
//! A node without them (a scene made from scratch) is an object alive from frame 0 on, numbered
//! in node order, whose TMD ID and attribute follow its meshes and visibility alone.

use crate::scene::extras;
use crate::scene::{Node, Scene};

/// The object IDs of the object nodes `objects`: the ID a node's extras keep when it is valid
/// (1..=65534) and no earlier object took it; every other object the smallest free ID from 1.
pub(super) fn object_ids(scene: &Scene, objects: &[usize]) -> Vec<u16> {
    let kept: Vec<Option<u16>> = objects
        .iter()
        .map(|&i| {
            extras::get_u64(&scene.nodes[i].extras, "tod", "object")
                .and_then(|v| u16::try_from(v).ok())
                .filter(|&v| (1..=0xFFFE).contains(&v))
        })
        .collect();
    let mut taken = std::collections::BTreeSet::new();
    let mut ids: Vec<Option<u16>> = kept
        .iter()
        .map(|k| k.filter(|&v| taken.insert(v)))
        .collect();
    // Fresh IDs for the rest (at most 65534 objects: checked by the caller).
    let mut next = 1u16;
    for id in ids.iter_mut().filter(|x| x.is_none()) {
        while taken.contains(&next) {
            next = next.saturating_add(1);
        }
        taken.insert(next);
        *id = Some(next);
    }
    ids.into_iter().map(|x| x.unwrap_or(0xFFFE)).collect()
}

/// One object's kept lives, TMD IDs and attributes (frames from the clip's start).
#[derive(Debug, Clone)]
pub(super) struct Kept {
    /// `[create, kill)` frame ranges; `None`: never killed.
    lives: Vec<(u64, Option<u64>)>,
    tmd_ids: Vec<(u64, u64)>,
    attributes: Vec<(u64, u64)>,
}

impl Kept {
    /// What `node`'s extras keep (one life from frame 0 when they keep none).
    pub(super) fn of(node: &Node) -> Kept {
        let mut lives: Vec<(u64, Option<u64>)> = extras::get(&node.extras, "tod")
            .and_then(|v| v.get("lives"))
            .and_then(|v| v.as_array())
            .map(|l| {
                l.iter()
                    .filter_map(|p| Some((p.get(0)?.as_u64()?, p.get(1)?.as_u64())))
                    .filter(|(a, b)| b.map_or(true, |b| b > *a))
                    .collect()
            })
            .unwrap_or_default();
        lives.sort_by_key(|l| l.0);
        // Overlapping lives are one life.
        let mut merged: Vec<(u64, Option<u64>)> = Vec::with_capacity(lives.len());
        for l in lives {
            match merged.last_mut() {
                Some(m) if m.1.map_or(true, |end| l.0 < end) => {
                    m.1 = match (m.1, l.1) {
                        (Some(a), Some(b)) => Some(a.max(b)),
                        _ => None,
                    }
                }
                _ => merged.push(l),
            }
        }
        if merged.is_empty() {
            merged.push((0, None));
        }
        Kept {
            lives: merged,
            tmd_ids: extras::frame_values(&node.extras, "tod", "tmd_ids"),
            attributes: extras::frame_values(&node.extras, "tod", "attributes"),
        }
    }

    /// Alive at frame `f`.
    pub(super) fn alive(&self, f: u64) -> bool {
        self.lives
            .iter()
            .any(|&(a, b)| a <= f && b.map_or(true, |b| f < b))
    }

    /// A life starts at frame `f`.
    pub(super) fn born_at(&self, f: u64) -> bool {
        self.lives.iter().any(|l| l.0 == f)
    }

    /// A life ends at frame `f` (and no other starts there without a gap: merged above).
    pub(super) fn kills_at(&self, f: u64) -> bool {
        self.lives.iter().any(|l| l.1 == Some(f))
    }

    /// One life from frame 0 on: the console's parameters of the object are known all along,
    /// so differential packets may build on them (a created object takes a slot whose RST
    /// parameters an earlier occupant left).
    pub(super) fn one_life(&self) -> bool {
        self.lives == [(0, None)]
    }

    /// The TMD ID kept for frame `f` (the last change at or before it in the current life).
    pub(super) fn tmd_id_at(&self, f: u64) -> Option<u32> {
        let start = self.life_start(f)?;
        self.tmd_ids
            .iter()
            .rev()
            .find(|p| p.0 >= start && p.0 <= f)
            .and_then(|p| u32::try_from(p.1).ok())
    }

    /// The attribute word kept for frame `f`.
    pub(super) fn attribute_at(&self, f: u64) -> Option<u32> {
        let start = self.life_start(f)?;
        self.attributes
            .iter()
            .rev()
            .find(|p| p.0 >= start && p.0 <= f)
            .and_then(|p| u32::try_from(p.1).ok())
    }

    fn life_start(&self, f: u64) -> Option<u64> {
        self.lives
            .iter()
            .find(|&&(a, b)| a <= f && b.map_or(true, |b| f < b))
            .map(|l| l.0)
    }
}
