//! Pairing evidence: the rules that rank what belongs together — a TOD and the TMDs it could
//! drive (every TMD ID it sets exists, object counts, same container, folder or name stem,
//! distance), a MIMe VDF/NDF and the base TMD its blocks fit ([`bases`]), each with a
//! confidence 0..1. Below both [`crate::scan`] (a TOD find lists its
//! `tmd_candidates`) and [`crate::assemble`] (which pairs a collection's finds), so neither
//! imports the other for them; `assemble` re-exports these modules under its own name.

use crate::formats::tod;

pub mod bases;
pub mod evidence;
pub mod models;

/// The TMD IDs a TOD's packets set, sorted, without repeats.
pub fn tmd_ids(t: &tod::Tod) -> Vec<u32> {
    let mut ids: Vec<u32> = t
        .frames
        .iter()
        .flat_map(|f| &f.packets)
        .filter_map(|p| match &p.data {
            tod::PacketData::TmdId(v) => Some(v.id as u32 | (v.pad as u32) << 16),
            _ => None,
        })
        .collect();
    ids.sort_unstable();
    ids.dedup();
    ids
}
