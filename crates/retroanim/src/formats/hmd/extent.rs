//! Where an HMD ends, from its own structure.
//!
//! An HMD has no length field, and a section has no length of its own either: the reader cuts
//! each section where the next region starts, and the last one where the file ends. A file on
//! its own ends there; an HMD packed with other data (an archive, a RAM dump, a disc sector
//! run) does not, and the scanner needs to know where it stops. [`structural_len`] finds the
//! last word anything in the file uses: everything before the last region is bounded by the
//! region after it, so only the last region's used length is computed, from what points into
//! it:
//!
//! - **Vertex and normal sections** (vertex, normal, calculated, ORGSVN): the highest element
//!   any reference reaches — the corners and normals of polygon packets and strips (category 0:
//!   header words 1 and 2; category 1 shared polygons: words 2 and 4, the calculated areas),
//!   the pre-calculation ranges (type 0x01000000: source and destination ranges of words 1–4),
//!   vertex/normal MIMe differences (`vstart + vnum` into words 5/6) and reset records (ORGSVN
//!   `ostart + vnum`, vectors `vstart + vnum`) and ground grid entries (normals of header word
//!   3). An index counted from an earlier section that
//!   runs on into this one counts too (File Formats p. 2-56).
//! - **Image and CLUT sections**: the end of the last image (CLUT) rectangle, `index + ⌈w·h/2⌉`
//!   words.
//! - **Sections decoded as items** (polygon packets, key frames, device parameters, MIMe DIFF
//!   blocks, grids): the end of the last item something points to (words after it are kept raw
//!   by the reader and nothing uses them).
//! - **Interpolation table**: its count word and that many types.
//! - **Sequence control**: the descriptors the sequences reach, walked from each sequence
//!   pointer's start, source and target descriptors through key frames, WORK descriptors and
//!   jumps up to their END.
//! - **MIMe weights** (MIMEPR): one word per key, the count the MIMe primitive's header gives
//!   after the MIMEPR pointer.
//! - **Ground**: the polygon section's four words and rows; heights up to the last corner a
//!   row's cells reach (`vertex_start + grids + m + 1` halfwords after the vertex offset); UV
//!   groups up to the last one a textured grid entry names (3 words each).
//!
//! Any other last region (a section of unknown use, an animation target, a section no
//! primitive measures) gives `None`: the caller has only the container's end to go by, and
//! the scanner says so (`size_exact: false`).

use super::cat0_polygon::PolygonItem;
use super::cat3_anim::CONTROL_END;
use super::cat4_mime::{MimeDiffItem, MimeKind};
use super::types::*;
use super::Hmd;
use crate::bytes::{ByteOrder, Le};

/// Bytes from the start of the file to the end of the last word its structure uses; `None`
/// when the last region is a section whose used length nothing in the file gives (module docs).
pub fn structural_len(hmd: &Hmd) -> Option<u64> {
    let header_words = 4 + hmd.blocks.len() as u64;
    let Some(last) = hmd.regions.last() else {
        return Some(header_words * 4);
    };
    let start = last.offset as u64;
    let used = match &last.body {
        RegionBody::Section(s) => section_used(hmd, last.offset, s)?,
        // Words nothing points to are not part of the structure.
        RegionBody::Gap(_) => 0,
        other => other.words() as u64,
    };
    Some((start + used) * 4)
}

/// Words of the section at word `at` that something uses.
fn section_used(hmd: &Hmd, at: u32, s: &Section) -> Option<u64> {
    let items_end = |lens: &mut dyn Iterator<Item = (usize, bool)>| -> Option<u64> {
        let (mut word, mut end) = (0u64, None);
        for (n, used) in lens {
            word += n as u64;
            if used {
                end = Some(word);
            }
        }
        end
    };
    match &s.data {
        SectionData::Vectors { .. } => vector_extent(hmd, at),
        SectionData::Vram(_) => vram_extent(hmd, at),
        SectionData::Polygons(items) => items_end(
            &mut items
                .iter()
                .map(|i| (i.words().len(), !matches!(i, PolygonItem::Raw(_)))),
        ),
        SectionData::Parameters(items) => items_end(
            &mut items
                .iter()
                .map(|i| (i.words(), !matches!(i, ParameterItem::Raw(_)))),
        ),
        SectionData::Devices(items) => items_end(
            &mut items
                .iter()
                .map(|i| (i.words(), !matches!(i, DeviceItem::Raw(_)))),
        ),
        SectionData::MimeDiff(items) => items_end(
            &mut items
                .iter()
                .map(|i| (i.words(), !matches!(i, MimeDiffItem::Raw(_)))),
        ),
        SectionData::Grid(items) => items_end(
            &mut items
                .iter()
                .map(|i| (i.words(), !matches!(i, GridItem::Raw(_)))),
        ),
        SectionData::InterpolationTable { types, .. } => Some(1 + types.len() as u64),
        SectionData::SequenceControl(ds) => sequence_extent(hmd, at, ds),
        SectionData::Weights(_) => weights_extent(hmd, at),
        SectionData::Heights { .. } => heights_extent(hmd, at),
        SectionData::GroundUv(_) => uv_extent(hmd, at),
        SectionData::GroundPolygon(g) => Some((g.words() - g.extra_words.len()) as u64),
        _ => None,
    }
}

/// Descriptors of the sequence control section at `at` that a sequence reaches: from each
/// sequence pointer's start, source and target descriptors (and its extra sequences' starts),
/// on through key frames and WORK descriptors to the next, jumps to their target (and, when
/// conditional, to the next) until an END (File Formats pp. 2-100..2-104). `None` when a
/// walk runs past the section (the section is what the window holds: its true end is not
/// known) or no sequence points to it.
fn sequence_extent(hmd: &Hmd, at: u32, ds: &[SequenceDescriptor]) -> Option<u64> {
    let mut starts = Vec::new();
    for (t, h) in typed_primitives(hmd) {
        let ptr = |i: usize| h.words.get(i).and_then(|e| e.pointer());
        let TypeData::Sequences(seqs) = &t.data else {
            continue;
        };
        if t.kind().category() != 3 || ptr(2) != Some(at) {
            continue;
        }
        for s in seqs {
            starts.extend([s.start, s.ctr_idx, s.tctr_idx].map(usize::from));
            starts.extend(s.extra.iter().map(|e| e.start as u16 as usize));
        }
    }
    if starts.is_empty() {
        return None;
    }
    let mut seen = vec![false; ds.len()];
    let mut end = 0usize;
    while let Some(i) = starts.pop() {
        let d = ds.get(i)?;
        if std::mem::replace(&mut seen[i], true) {
            continue;
        }
        end = end.max(i + 1);
        match *d {
            SequenceDescriptor::KeyFrame { .. } => starts.push(i + 1),
            SequenceDescriptor::Jump {
                sid_cnd, seq_idx, ..
            } => {
                starts.push(seq_idx as usize);
                if sid_cnd != 0 {
                    starts.push(i + 1);
                }
            }
            SequenceDescriptor::Control { code, .. } if code == CONTROL_END => {}
            SequenceDescriptor::Control { .. } => starts.push(i + 1),
        }
    }
    Some(end as u64)
}

/// Words of the MIMEPR section at `at` that MIMe primitives weight: one per key (the header
/// value after the MIMEPR pointer, File Formats p. 2-120).
fn weights_extent(hmd: &Hmd, at: u32) -> Option<u64> {
    let mut end = None;
    for (t, h) in typed_primitives(hmd) {
        if t.kind().category() != 4 {
            continue;
        }
        let Some((kind, false)) = MimeKind::from_code(t.type_code) else {
            continue;
        };
        let i = if matches!(kind, MimeKind::Vertex | MimeKind::Normal) {
            0
        } else {
            1
        };
        let ptr = h.words.get(i).and_then(|e| e.pointer());
        let num = match h.words.get(i + 1) {
            Some(HeaderEntry::Value(v)) => *v as u64,
            _ => continue,
        };
        if ptr == Some(at) {
            end = end.max(Some(num));
        }
    }
    end
}

/// Words of the ground vertex (height) section at `at` that ground cells reach: each cell's
/// corners `v, v + 1, v + m, v + m + 1` from its row's first vertex, counted from the
/// primitive's vertex offset (halfwords, two to a word).
fn heights_extent(hmd: &Hmd, at: u32) -> Option<u64> {
    let mut end = None;
    for (t, h) in typed_primitives(hmd) {
        let ptr = |i: usize| h.words.get(i).and_then(|e| e.pointer());
        let (TypeData::Offsets(off), 5) = (&t.data, t.kind().category()) else {
            continue;
        };
        let (Some(&po), Some(&vo)) = (off.first(), off.get(2)) else {
            continue;
        };
        if ptr(2) != Some(at) {
            continue;
        }
        let Some(SectionData::GroundPolygon(g)) = ptr(0)
            .and_then(|p| hmd.section_at(p.checked_add(po)?))
            .map(|s| &s.data)
        else {
            continue;
        };
        let m = g.counts[0] as u64;
        for r in g.rows.iter().filter(|r| r.grids > 0) {
            let top = r.vertex_start as u64 + r.grids as u64 + m + 1;
            end = end.max(Some((2 * vo as u64 + top).div_ceil(2)));
        }
    }
    end
}

/// Words of the ground UV section at `at` that textured grid entries name (3 words each).
fn uv_extent(hmd: &Hmd, at: u32) -> Option<u64> {
    let mut end = None;
    for (t, h) in typed_primitives(hmd) {
        let ptr = |i: usize| h.words.get(i).and_then(|e| e.pointer());
        let (TypeData::Offsets(off), 5) = (&t.data, t.kind().category()) else {
            continue;
        };
        if ptr(4) != Some(at) {
            continue;
        }
        let Some(SectionData::Grid(items)) =
            ptr(1).and_then(|g| hmd.section_at(g)).map(|s| &s.data)
        else {
            continue;
        };
        let grid = off
            .get(1)
            .and_then(|&go| items.iter().find(|i| i.index() == Some(go)));
        if let Some(GridItem::Entries { entries, .. }) = grid {
            for e in entries {
                if let GridEntry::Textured { uv, .. } = e {
                    end = end.max(Some(3 * (*uv as u64 + 1)));
                }
            }
        }
    }
    end
}

/// Every primitive's type entries with the header its pointers are read from.
fn typed_primitives(hmd: &Hmd) -> impl Iterator<Item = (&DataSection, &PrimitiveHeader)> {
    let headers = hmd.headers();
    hmd.primitives()
        .filter_map(move |(_, p)| Some((p, *headers.get(&p.header)?)))
        .flat_map(|(p, h)| p.types.iter().map(move |t| (t, h)))
}

/// Words of the vector section at `at` that references reach (module docs).
fn vector_extent(hmd: &Hmd, at: u32) -> Option<u64> {
    let mut end: Option<u64> = None;
    // An element range [first, first + count) of the section at word `base`.
    let mut reach = |base: Option<u32>, first: u64, count: u64| {
        let Some(base) = base.filter(|&b| b <= at) else {
            return;
        };
        if count == 0 {
            return;
        }
        let last_word = base as u64 + 2 * (first + count);
        if last_word > at as u64 {
            end = end.max(Some(last_word - at as u64));
        }
    };
    for (t, h) in typed_primitives(hmd) {
        let ptr = |i: usize| h.words.get(i).and_then(|e| e.pointer());
        let kind = t.kind();
        if kind.developer() != 0 {
            continue;
        }
        match (&t.data, kind.category()) {
            (TypeData::PolygonIndex { index, .. }, c @ (0 | 1)) => {
                let (v, n) = if c == 0 { (1, 2) } else { (2, 4) };
                // The highest corner and normal the item's packets (or strips) name.
                let (top_v, top_n) = ptr(0)
                    .and_then(|s| super::scene::polygon_item(hmd, s, *index))
                    .map_or((None, None), PolygonItem::top_indices);
                if let Some(i) = top_v {
                    reach(ptr(v), i as u64, 1);
                }
                if let Some(i) = top_n {
                    reach(ptr(n), i as u64, 1);
                }
            }
            (TypeData::PreCalculation(c), 1) => {
                reach(ptr(1), c.vertex_source as u64, c.vertices as u64);
                reach(ptr(2), c.vertex_destination as u64, c.vertices as u64);
                reach(ptr(3), c.normal_source as u64, c.normals as u64);
                reach(ptr(4), c.normal_destination as u64, c.normals as u64);
            }
            (TypeData::Offsets(offsets), 4) => {
                let Some((k @ (MimeKind::Vertex | MimeKind::Normal), reset)) =
                    MimeKind::from_code(t.type_code)
                else {
                    continue;
                };
                // Header words (File Formats p. 2-120/2-121): DIFF, ORGSVN, vertex, normal.
                let [diff, orgs, vert, norm] = if reset { [1, 2, 3, 4] } else { [3, 4, 5, 6] };
                let target = ptr(if k == MimeKind::Vertex { vert } else { norm });
                let Some(SectionData::MimeDiff(items)) =
                    ptr(diff).and_then(|d| hmd.section_at(d)).map(|s| &s.data)
                else {
                    continue;
                };
                for item in items
                    .iter()
                    .filter(|i| i.index().is_some_and(|x| offsets.contains(&x)))
                {
                    match item {
                        MimeDiffItem::Vertex(d) => {
                            for key in &d.keys {
                                reach(target, key.vstart as u64, key.deltas.len() as u64);
                            }
                        }
                        MimeDiffItem::VertexReset(r) => {
                            for rec in &r.records {
                                reach(target, rec.vstart as u64, rec.vnum as u64);
                                reach(ptr(orgs), rec.ostart as u64, rec.vnum as u64);
                            }
                        }
                        _ => {}
                    }
                }
            }
            (TypeData::Offsets(offsets), 5) => {
                // Ground: the grid entries at the primitive's grid offset name normals of the
                // section at header word 3.
                let Some(SectionData::Grid(items)) =
                    ptr(1).and_then(|g| hmd.section_at(g)).map(|s| &s.data)
                else {
                    continue;
                };
                let grid = offsets
                    .get(1)
                    .and_then(|&go| items.iter().find(|i| i.index() == Some(go)));
                if let Some(GridItem::Entries { entries, .. }) = grid {
                    for e in entries {
                        let (GridEntry::Flat { normal, .. } | GridEntry::Textured { normal, .. }) =
                            e;
                        reach(ptr(3), *normal as u64, 1);
                    }
                }
            }
            _ => {}
        }
    }
    end
}

/// Words of the image or CLUT section at `at` that the image primitives' rectangles reach.
fn vram_extent(hmd: &Hmd, at: u32) -> Option<u64> {
    let mut end: Option<u64> = None;
    for (t, h) in typed_primitives(hmd) {
        let TypeData::Images(images) = &t.data else {
            continue;
        };
        let ptr = |i: usize| h.words.get(i).and_then(|e| e.pointer());
        for e in images {
            let rects = [(ptr(0), Some(e.image)), (ptr(1), e.clut)];
            for (base, rect) in rects {
                let (Some(base), Some(r)) = (base, rect) else {
                    continue;
                };
                let [_, _, w, h] = r.xywh.map(u64::from);
                let last = base as u64 + r.index as u64 + (w * h).div_ceil(2);
                if base <= at && last > at as u64 {
                    end = end.max(Some(last - at as u64));
                }
            }
        }
    }
    end
}

/// A lower bound of [`structural_len`] (bytes) of the HMD whose first bytes are `head`, from
/// the pointers its header and primitive headers hold: the primitive header section pointer,
/// the block pointers and every section pointer (MSB set) of the primitive headers `head`
/// holds. Each of these starts a region (or lies inside one), so the last region, and the last
/// word used, lie at or past the highest of them: a window of an embedded HMD shorter than
/// twice this bound can only be cut short, and the scanner starts at the first window of its
/// doubling sequence that is not ([`crate::scan`]'s module docs). 0 when `head` holds too
/// little to tell.
pub fn pointer_floor(head: &[u8]) -> u64 {
    let word =
        |i: u64| -> Option<u32> { Le::u32_at(head, usize::try_from(i.checked_mul(4)?).ok()?) };
    let (Some(phs), Some(blocks)) = (word(2), word(3)) else {
        return 0;
    };
    let phs = (phs & 0x7FFF_FFFF) as u64;
    let mut top = phs;
    for i in 0..blocks as u64 {
        match word(4 + i) {
            Some(p) if p != 0 && p != TERMINATE => top = top.max(p as u64),
            Some(_) => {}
            None => break,
        }
    }
    // Each iteration moves `q` on by at least one word, and `word` is `None` past `head`:
    // the loops end within `head`'s words whatever the counts say.
    if let Some(count) = word(phs) {
        let mut q = phs + 1;
        for _ in 0..count {
            let Some(size) = word(q) else { break };
            for k in 0..size as u64 {
                match word(q + 1 + k) {
                    Some(w) if w & 0x8000_0000 != 0 => top = top.max((w & 0x7FFF_FFFF) as u64),
                    Some(_) => {}
                    None => break,
                }
            }
            q += 1 + size as u64;
        }
    }
    top * 4
}
