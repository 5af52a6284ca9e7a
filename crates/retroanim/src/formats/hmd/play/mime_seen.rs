//! Which vertex and normal MIMe primitives each block's polygons see: the morph targets the
//! glTF export gives that block's mesh.
//!
//! A vertex/normal MIMe driver adds its keys into the vector section in place, and a reset
//! (RstVN) copies the originals back; a polygon primitive drawing from the section sees what
//! has been added since the last reset, whichever primitive added it. `SCEI/MIME/TWINP/`
//! draws one model twice: block 1 runs MIMe 0, its polygons, reset 0; block 2 MIMe 1, its
//! polygons, reset 1 — so each twin shows only its own MIMe, weighted by its own MIMe ID.
//!
//! Readings: a reset primitive is taken to undo every MIMe on its section (the corpus resets
//! restore the records their MIMe moved); the schedule is walked twice, as two updates, so a
//! MIMe that runs after a drawing without a reset between (the drivers accumulate) is seen by
//! that drawing from the next update on.

use std::collections::{BTreeMap, BTreeSet};

use super::{Action, Player};

impl Player<'_> {
    /// Per block index: for each vector section its polygons draw from, the vertex/normal MIMe
    /// primitives (word offsets) whose changes they see. Empty when the file has no MIMe.
    pub fn mime_seen(&self) -> Vec<BTreeMap<u32, BTreeSet<u32>>> {
        let mut active: BTreeMap<u32, BTreeSet<u32>> = BTreeMap::new();
        let mut out = vec![BTreeMap::<u32, BTreeSet<u32>>::new(); self.schedule.len()];
        for update in 0..2 {
            for (b, actions) in self.schedule.iter().enumerate() {
                for a in actions {
                    match a {
                        Action::Mime(i) => {
                            let Some(m) = self.mimes.get(*i) else {
                                continue;
                            };
                            let Some(s) = m.vn_section() else { continue };
                            if m.reset {
                                active.remove(&s);
                            } else {
                                active.entry(s).or_default().insert(m.primitive);
                            }
                        }
                        Action::Draw(sections) if update == 1 => {
                            for s in sections {
                                let seen = out[b].entry(*s).or_default();
                                seen.extend(active.get(s).into_iter().flatten());
                            }
                        }
                        Action::Draw(_) => {}
                    }
                }
            }
        }
        out
    }
}
