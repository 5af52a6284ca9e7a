//! HMD validation: every finding with its severity and byte offset. Offsets are those of the
//! file the model writes (for an unchanged model, the file it was read from).

use std::collections::{BTreeMap, BTreeSet};

use crate::report::Issue;

use super::cat3_anim::{SequenceDescriptor, CONTROL_END, CONTROL_WORK};
use super::types::*;

/// Checks an HMD model and returns every finding.
pub fn validate(hmd: &Hmd) -> Vec<Issue> {
    let mut out = Vec::new();
    // Byte offset of each region as written, keyed by the offset it was read at.
    let mut at = (4 + hmd.blocks.len()) as u64 * 4;
    let mut byte_of = BTreeMap::new();
    let mut total_words = 4 + hmd.blocks.len();
    for r in &hmd.regions {
        byte_of.insert(r.offset, at);
        at += r.body.words() as u64 * 4;
        total_words += r.body.words();
    }
    let byte = |o: u32| byte_of.get(&o).copied().unwrap_or(0);
    let prims: BTreeMap<u32, &Primitive> = hmd.primitives().collect();
    let headers = hmd.headers();

    if hmd.map_flag != 0 {
        out.push(Issue::warning(
            4,
            "map-flag",
            format!(
                "MAP FLAG is {}; files hold 0 (the manual contradicts itself on its meaning, the library writes it at run time)",
                hmd.map_flag
            ),
        ));
    }
    let phs = hmd.primitive_header_section;
    if phs & 0x8000_0000 != 0 {
        out.push(Issue::warning(
            8,
            "mapped",
            "the primitive header section pointer has its MSB (mapped) set",
        ));
    }
    if !hmd
        .regions
        .iter()
        .any(|r| r.offset == phs & 0x7FFF_FFFF && matches!(r.body, RegionBody::PrimitiveHeaders(_)))
    {
        out.push(Issue::error(8, "pointer", format!("the primitive header section pointer {} does not point to the primitive header section", phs & 0x7FFF_FFFF)));
    }
    let coords = hmd.coordinates();
    let coord_start = hmd
        .regions
        .iter()
        .find(|r| matches!(r.body, RegionBody::Coordinates(_)))
        .map(|r| r.offset);
    let ncoords = coords.map_or(0, <[CoordUnit]>::len);
    if hmd.blocks.len() != ncoords + 2 {
        out.push(Issue::warning(
            12,
            "block-count",
            format!("{} blocks for {ncoords} coordinates; the format has coordinates + 2 (PRE- and POST-PROCESS)", hmd.blocks.len()),
        ));
    }
    for (i, &b) in hmd.blocks.iter().enumerate() {
        if b != 0 && !prims.contains_key(&b) {
            out.push(Issue::error(
                16 + i as u64 * 4,
                "pointer",
                format!("block {i} points to word {b}, which is not a primitive"),
            ));
        }
    }
    // Chains: loops. Primitives walked from an earlier block are known to end, so every
    // primitive is visited once.
    let mut walked = BTreeSet::new();
    for (i, &b) in hmd.blocks.iter().enumerate() {
        let mut seen = BTreeSet::new();
        let mut p = b;
        while p != 0 && p != TERMINATE && !walked.contains(&p) {
            if !seen.insert(p) {
                out.push(Issue::error(
                    byte(p),
                    "chain-loop",
                    format!("the primitive chain of block {i} loops back to word {p}"),
                ));
                break;
            }
            match prims.get(&p) {
                Some(prim) => p = prim.next,
                None => break,
            }
        }
        walked.extend(seen);
    }
    if let (Some(units), Some(start)) = (coords, coord_start) {
        for (k, u) in units.iter().enumerate() {
            let off = byte(start) + 4 + k as u64 * 80 + 76;
            if u.parent != 0 {
                let rel = u.parent.checked_sub(start + 1);
                match rel {
                    Some(r) if r % 20 == 0 && (r / 20) < units.len() as u32 => {
                        if (r / 20) as usize == k {
                            out.push(Issue::error(off, "coordinate-parent", format!("coordinate {k} is its own parent")));
                        }
                    }
                    _ => out.push(Issue::error(off, "coordinate-parent", format!("coordinate {k}: super = word {} is not the start of a GsCOORDUNIT of this file", u.parent))),
                }
            }
        }
    }
    if let (Some(units), Some(start)) = (coords, coord_start) {
        // The hierarchy must not loop: walk each coordinate's parents at most `len` steps.
        let parent = |k: usize| -> Option<usize> {
            let p = units[k].parent.checked_sub(start + 1)?;
            (p % 20 == 0 && ((p / 20) as usize) < units.len()).then_some((p / 20) as usize)
        };
        for k in 0..units.len() {
            let mut at = k;
            let mut steps = 0;
            while let Some(p) = parent(at) {
                steps += 1;
                if p == k || steps > units.len() {
                    out.push(Issue::error(
                        byte(start) + 4 + k as u64 * 80 + 76,
                        "coordinate-loop",
                        format!("coordinate {k}: its chain of parents loops"),
                    ));
                    break;
                }
                at = p;
            }
        }
    }
    // Headers of environment-map primitives: their words 3..7 point at the map's image
    // entries inside an image primitive (ENVMAP samples' LAB: `M(ImagePrim_0000 / 4)`).
    let env_headers: std::collections::BTreeSet<u32> = prims
        .values()
        .filter(|p| {
            p.types
                .iter()
                .any(|t| t.kind().developer() == 0 && t.kind().category() == 6)
        })
        .map(|p| p.header)
        .collect();
    for (&ho, h) in &headers {
        for (i, e) in h.words.iter().enumerate() {
            if let HeaderEntry::Pointer(p) = e {
                let inside_primitive = prims
                    .range(..=*p)
                    .next_back()
                    .is_some_and(|(&s, prim)| *p < s + prim.words() as u32);
                if inside_primitive && env_headers.contains(&ho) && (3..=7).contains(&i) {
                    out.push(Issue::info(
                        byte_in(&byte_of, ho) + 4 + i as u64 * 4,
                        "envmap-image",
                        format!("primitive header at word {ho}: environment-map word {i} points into a primitive at word {p} (the map's image entry, as Sony's ENVMAP samples write it)"),
                    ));
                } else if inside_primitive {
                    out.push(Issue::warning(
                        byte_in(&byte_of, ho) + 4 + i as u64 * 4,
                        "pointer-target",
                        format!("primitive header at word {ho}: section pointer {p} points into a primitive"),
                    ));
                }
                if *p as usize >= total_words {
                    out.push(Issue::error(
                        byte_in(&byte_of, ho) + 4 + i as u64 * 4,
                        "pointer",
                        format!("primitive header at word {ho}: section pointer {p} is outside the file ({total_words} words)"),
                    ));
                }
            }
        }
    }
    for (&po, p) in &prims {
        let b = byte(po);
        if p.next != TERMINATE && !prims.contains_key(&p.next) {
            out.push(Issue::error(
                b,
                "pointer",
                format!("next pointer {} is not a primitive", p.next),
            ));
        }
        if !headers.contains_key(&p.header) {
            out.push(Issue::error(
                b + 4,
                "pointer",
                format!("header pointer {} is not a primitive header", p.header),
            ));
        }
        if !p.unmapped {
            out.push(Issue::warning(
                b + 8,
                "mapped",
                "the type count's MSB (unmapped) is clear: the file was saved after GsMapUnit",
            ));
        }
        let mut t_at = b + 12;
        for t in &p.types {
            check_type(t, t_at, &mut out);
            t_at += (2 + t.data.words() as u64) * 4;
        }
    }
    let sections: BTreeMap<u32, &Section> = hmd
        .regions
        .iter()
        .filter_map(|r| match &r.body {
            RegionBody::Section(s) => Some((r.offset, s)),
            _ => None,
        })
        .collect();
    check_animation(hmd, &headers, &sections, &byte_of, &mut out);
    // Words nothing points to: after the last structure they are trailing bytes (a file cut
    // short of them and 100 KB of garbage appended look alike to the driver: unread).
    let last = hmd.regions.len().saturating_sub(1);
    for (k, r) in hmd.regions.iter().enumerate() {
        if let RegionBody::Gap(words) = &r.body {
            let (code, what) = if k == last {
                ("trailing-bytes", "after the last structure of the file")
            } else {
                ("unreferenced-bytes", "that no pointer or count reaches")
            };
            out.push(Issue::warning(
                byte(r.offset),
                code,
                format!("{} bytes {what}", words.len() * 4),
            ));
        }
    }
    // The last section runs to the end of the file: in a polygon section, words after the
    // last packet run nothing reached are bytes after the file's last structure.
    if let Some(Region {
        offset,
        body:
            RegionBody::Section(Section {
                data: SectionData::Polygons(items),
                ..
            }),
    }) = hmd.regions.last()
    {
        if let (Some(PolygonItem::Raw(words)), true) = (
            items.last(),
            items.iter().any(|i| !matches!(i, PolygonItem::Raw(_))),
        ) {
            let before: usize = items[..items.len() - 1]
                .iter()
                .map(|i| i.words().len())
                .sum();
            out.push(Issue::warning(
                byte(*offset) + before as u64 * 4,
                "trailing-bytes",
                format!(
                    "{} bytes after the last polygon packets of the last section, which no primitive reaches",
                    words.len() * 4
                ),
            ));
        }
    }
    // Bytes after the last word the structure uses that the last section took in (the
    // reader runs the last section to the end of the file): what no pointer or count reaches.
    let words_end = total_words as u64 * 4;
    if let Some(used) = super::structural_len(hmd).filter(|&u| u < words_end) {
        if !out
            .iter()
            .any(|i| i.code == "trailing-bytes" && i.offset == used)
        {
            out.push(Issue::warning(
                used,
                "trailing-bytes",
                format!(
                    "{} bytes after the last word of the last section that any pointer or count reaches",
                    words_end - used
                ),
            ));
        }
    }
    if !hmd.trailing.is_empty() {
        out.push(Issue::warning(
            total_words as u64 * 4,
            "trailing-bytes",
            format!("{} bytes after the last whole word", hmd.trailing.len()),
        ));
    }
    out
}

fn byte_in(byte_of: &BTreeMap<u32, u64>, o: u32) -> u64 {
    match byte_of.range(..=o).next_back() {
        Some((&s, &b)) => b + (o - s) as u64 * 4,
        None => o as u64 * 4,
    }
}

fn check_type(t: &DataSection, at: u64, out: &mut Vec<Issue>) {
    let k = t.kind();
    if !t.unscanned {
        out.push(Issue::warning(at + 4, "scanned", format!("type 0x{:08x}: the count's MSB (unscanned) is clear: the file was saved after GsScanUnit", t.type_code)));
    }
    if k.developer() == 0xF {
        out.push(Issue::info(
            at,
            "user-type",
            format!(
                "type 0x{:08x} is user defined (developer ID 0xF); kept raw",
                t.type_code
            ),
        ));
        return;
    }
    if k.developer() != 0 {
        out.push(Issue::warning(
            at,
            "unknown-type",
            format!(
                "type 0x{:08x}: developer ID {} is not SCE (0) or user (0xF); kept raw",
                t.type_code,
                k.developer()
            ),
        ));
        return;
    }
    if let Some(size) = t.size_override {
        out.push(Issue::warning(
            at + 4,
            "type-size",
            format!(
                "type 0x{:08x}: size field says {size} words, but its {} data sets take {}; the driver walks them by count",
                t.type_code,
                t.count,
                1 + t.data.words()
            ),
        ));
    }
    let raw = matches!(t.data, TypeData::Raw(_));
    match k.category() {
        6 if k.drawn_as() != k => out.push(Issue::info(
            at,
            "beta",
            format!(
                "type 0x{:08x}: environment map (category 6, beta): its packets read as type 0x{:08x}; the mapping itself is not modelled",
                t.type_code,
                k.drawn_as().0
            ),
        )),
        6 => out.push(Issue::info(
            at,
            "beta",
            format!(
                "type 0x{:08x}: environment map (category 6, beta) LIBHMD.H does not name; kept raw",
                t.type_code
            ),
        )),
        8.. => out.push(Issue::warning(
            at,
            "unknown-type",
            format!(
                "type 0x{:08x}: category {} is not defined; kept raw",
                t.type_code,
                k.category()
            ),
        )),
        7 if k.primitive_type() == 0x0100 && raw && t.data.words() == 0 => {}
        0..=3 | 7 if raw => out.push(Issue::error(
            at + 4,
            "type-size",
            format!(
                "type 0x{:08x}: size {} does not fit the data this type describes",
                t.type_code,
                1 + t.data.words()
            ),
        )),
        _ => {}
    }
}

fn check_animation(
    hmd: &Hmd,
    headers: &BTreeMap<u32, &PrimitiveHeader>,
    sections: &BTreeMap<u32, &Section>,
    byte_of: &BTreeMap<u32, u64>,
    out: &mut Vec<Issue>,
) {
    let mut done = BTreeSet::new();
    for (_, p) in hmd.primitives() {
        if !p
            .types
            .iter()
            .any(|t| t.kind().category() == 3 && t.kind().developer() == 0)
        {
            continue;
        }
        let Some(h) = headers.get(&p.header) else {
            continue;
        };
        let ptr = |i: usize| h.words.get(i).and_then(|e| e.pointer());
        let (Some(tab), Some(ctl)) = (ptr(1), ptr(2)) else {
            continue;
        };
        let ntypes = match sections.get(&tab).map(|s| &s.data) {
            Some(SectionData::InterpolationTable {
                types, unscanned, ..
            }) => {
                if !unscanned && done.insert((tab, 0)) {
                    out.push(Issue::warning(
                        byte_in(byte_of, tab),
                        "scanned",
                        "interpolation table count has its MSB (unscanned) clear",
                    ));
                }
                types.len()
            }
            _ => continue,
        };
        let Some(SectionData::SequenceControl(ds)) = sections.get(&ctl).map(|s| &s.data) else {
            continue;
        };
        let params = ptr(3)
            .and_then(|a| sections.get(&a))
            .map_or(0, |s| s.words());
        if done.insert((ctl, 1)) {
            for (i, d) in ds.iter().enumerate() {
                let at = byte_in(byte_of, ctl) + i as u64 * 4;
                match *d {
                    SequenceDescriptor::KeyFrame {
                        type_idx,
                        param_idx,
                        ..
                    } => {
                        if type_idx as usize >= ntypes {
                            out.push(Issue::error(at, "descriptor", format!("descriptor {i}: TYPE IDX {type_idx} but the interpolation table has {ntypes} types")));
                        }
                        if param_idx as usize >= params {
                            out.push(Issue::error(at, "descriptor", format!("descriptor {i}: PARAMETER IDX {param_idx} is past the parameter section ({params} words)")));
                        }
                    }
                    SequenceDescriptor::Jump { seq_idx, .. } => {
                        if seq_idx as usize >= ds.len() {
                            out.push(Issue::error(at, "jump-range", format!("descriptor {i}: jump to {seq_idx}, outside the control section ({} descriptors)", ds.len())));
                        }
                    }
                    SequenceDescriptor::Control { code, p2, .. } => {
                        if code == CONTROL_WORK && p2 as usize + 4 > params {
                            out.push(Issue::error(at, "descriptor", format!("descriptor {i}: WORK area at {p2} runs past the parameter section ({params} words)")));
                        } else if code != CONTROL_END && code != CONTROL_WORK {
                            out.push(Issue::warning(at, "descriptor", format!("descriptor {i}: control code {code} is not END (1) or WORK (2)")));
                        }
                    }
                }
            }
        }
        for t in &p.types {
            if let TypeData::Sequences(seqs) = &t.data {
                for (i, s) in seqs.iter().enumerate() {
                    let starts = std::iter::once(s.start as i64)
                        .chain(s.extra.iter().map(|e| e.start as i64));
                    for st in starts {
                        if st < 0 || st as usize >= ds.len() {
                            out.push(Issue::error(
                                byte_in(byte_of, ctl),
                                "sequence-start",
                                format!("sequence pointer {i} starts at descriptor {st}, outside the control section ({} descriptors)", ds.len()),
                            ));
                        }
                    }
                    if s.update.section < 4 {
                        out.push(Issue::warning(byte_in(byte_of, ctl), "update-index", format!("sequence pointer {i} updates section {}, which is not an update target (4..)", s.update.section)));
                    }
                }
            }
        }
    }
}
