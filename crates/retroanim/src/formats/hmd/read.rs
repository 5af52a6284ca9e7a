//! HMD reader: `&[u8]` → [`Hmd`].
//!
//! The file is read into words through [`Reader`] once (borrowed in place when it is aligned on
//! a little-endian machine); then the structure is found by following pointers (each checked to
//! lie inside the file; chains followed with a mark per primitive read and the step limit), the
//! file is cut into regions, each decoded by what points to it, and a second pass
//! ([`super::read_referenced`]) decodes the
//! sections that primitives read at offsets of their own (key frames, camera and light
//! parameters, MIMe DIFF blocks, ground grids).

use std::collections::BTreeMap;

use crate::bytes::{le_halfwords, Reader, Words};
use crate::error::{Error, Result};
use crate::limits::Limits;
use crate::Format;

use super::cat0_polygon::{decode_strips, packet_words, run_of_words};
use super::cat3_anim::{SequenceDescriptor, SequencePointer};
use super::types::*;
use super::{role_of, VERSION};

/// Reads an HMD file with the default [`Limits`].
pub fn read(data: &[u8]) -> Result<Hmd> {
    read_with(data, &Limits::default())
}

fn malformed(word: usize, what: impl Into<String>) -> Error {
    Error::Malformed {
        format: Format::Hmd,
        offset: word as u64 * 4,
        what: what.into(),
    }
}

/// Where a structural region was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    Header,
    Coordinates,
    Headers,
    Primitive,
}

/// The file's words, by index: every pointer of an HMD counts words.
type Ctx<'a> = Words<'a>;

/// Reads an HMD file with the given limits.
pub fn read_with(data: &[u8], limits: &Limits) -> Result<Hmd> {
    let mut r = Reader::le(data, Format::Hmd).with_limits(*limits);
    let n = r.count((data.len() / 4) as u64, 4, "file words")?;
    let words = r.u32_words(n, "file words")?;
    let words: &[u32] = &words;
    let trailing = r.rest().to_vec();
    let cx = Words::new(words, Format::Hmd, *limits);
    let version = cx.at(0, "version ID")?;
    if version != VERSION {
        return Err(malformed(
            0,
            format!("expected version ID 0x50, found 0x{version:x}"),
        ));
    }
    let map_flag = cx.at(1, "MAP FLAG")?;
    let phs = cx.at(2, "primitive header section pointer")?;
    let nblocks = cx.at(3, "number of blocks")?;
    cx.limits().items(12, "primitive blocks", nblocks as u64)?;
    let blocks = cx
        .words_at(4, nblocks as u64, 3, "block pointer table")?
        .to_vec();
    let header_end = 4 + blocks.len();

    let mut structural: Vec<(usize, usize, Kind)> = vec![(0, header_end, Kind::Header)];
    let mut coordinates = None;
    let phs_at = cx.pointer(phs & 0x7FFF_FFFF, 2, "primitive header section pointer")?;
    if header_end < words.len() && header_end != phs_at {
        let count = cx.at(header_end, "coordinate count")? as u64;
        cx.limits()
            .items(header_end as u64 * 4, "coordinates", count)?;
        let s = cx.words_at(header_end + 1, count * 20, header_end, "coordinate section")?;
        coordinates = Some(s.chunks_exact(20).map(coord_unit).collect::<Vec<_>>());
        structural.push((header_end, header_end + 1 + s.len(), Kind::Coordinates));
    }

    // Primitive header section.
    let count = cx.at(phs_at, "number of primitive headers")? as usize;
    if count > words.len() - phs_at {
        return Err(malformed(
            phs_at,
            format!("{count} primitive headers cannot fit in the rest of the file"),
        ));
    }
    let mut headers = Vec::with_capacity(count);
    // Word offset of each header, ascending (they follow one another).
    let mut header_at = Vec::with_capacity(count);
    let mut q = phs_at + 1;
    for _ in 0..count {
        let size = cx.at(q, "primitive header size")?;
        let s = cx.words_at(q + 1, size as u64, q, "primitive header")?;
        header_at.push(q);
        headers.push(PrimitiveHeader {
            words: s.iter().map(|&x| HeaderEntry::from_word(x)).collect(),
        });
        q += 1 + s.len();
    }
    structural.push((phs_at, q, Kind::Headers));

    // Primitive chains. Every primitive read is marked in `read_at` (a bit per word), so a
    // chain that reaches one again (a shared tail, or a loop, which validate reports) stops.
    let mut primitives: Vec<(usize, Primitive)> = Vec::new();
    let mut read_at = vec![0u64; words.len().div_ceil(64)];
    let mut steps = 0u64;
    for (bi, &b) in blocks.iter().enumerate() {
        let mut p = b;
        let mut field = 4 + bi;
        while p != 0 && p != TERMINATE {
            let at = cx.pointer(p, field, "primitive pointer")?;
            let (bit, mask) = (at / 64, 1u64 << (at % 64));
            if read_at[bit] & mask != 0 {
                break;
            }
            read_at[bit] |= mask;
            steps += 1;
            cx.limits()
                .steps(field as u64 * 4, "primitive chain", steps)?;
            let (prim, end) = read_primitive(&cx, at)?;
            structural.push((at, end, Kind::Primitive));
            p = prim.next;
            field = at;
            primitives.push((at, prim));
        }
    }
    primitives.sort_unstable_by_key(|p| p.0);
    let header_index = |h: u32| header_at.binary_search(&(h as usize)).ok();

    structural.sort();
    for pair in structural.windows(2) {
        if pair[1].0 < pair[0].1 {
            return Err(malformed(
                pair[1].0,
                format!(
                    "{:?} at byte {} overlaps the {:?} at byte {}..{}",
                    pair[1].2,
                    pair[1].0 * 4,
                    pair[0].2,
                    pair[0].0 * 4,
                    pair[0].1 * 4
                ),
            ));
        }
    }
    let inside = |p: usize| {
        let i = structural.partition_point(|s| s.0 <= p);
        i > 0 && p < structural[i - 1].1
    };

    // Section starts and their roles, from the headers and the types of the primitives using
    // them.
    // (header offset, type code) of every data section, by header; stable, so each header's
    // types stay in the order of the primitives' offsets.
    let mut users: Vec<(usize, u32)> = primitives
        .iter()
        .flat_map(|(_, p)| p.types.iter().map(|t| (p.header as usize, t.type_code)))
        .collect();
    users.sort_by_key(|u| u.0);
    // (section, role) as each header word names it, in header order.
    let mut named: Vec<(usize, SectionRole)> = Vec::new();
    for (&at, h) in header_at.iter().zip(&headers) {
        let types =
            &users[users.partition_point(|u| u.0 < at)..users.partition_point(|u| u.0 <= at)];
        for (i, e) in h.words.iter().enumerate() {
            let Some(p) = e.pointer() else { continue };
            let p = p as usize;
            if p >= words.len() || inside(p) {
                continue;
            }
            let role = types
                .iter()
                .find_map(|&(_, t)| role_of(t, i))
                .unwrap_or(SectionRole::Unknown);
            named.push((p, role));
        }
    }
    named.sort_by_key(|n| n.0);
    // Each section's role: the first naming's, then merged with the others in order.
    let mut sections: Vec<(usize, SectionRole)> = Vec::with_capacity(named.len());
    for (p, role) in named {
        match sections.last_mut() {
            Some((q, slot)) if *q == p => {
                // An animation target is also whatever else points to it (PP_AIM animates
                // a vertex section); other disagreements leave the section untyped.
                if *slot == SectionRole::AnimationTarget {
                    *slot = role;
                } else if *slot != role && role != SectionRole::AnimationTarget {
                    *slot = SectionRole::Unknown;
                }
            }
            _ => sections.push((p, role)),
        }
    }
    let role_at = |p: usize| {
        sections
            .binary_search_by_key(&p, |s| s.0)
            .ok()
            .map(|i| sections[i].1)
    };

    // Polygon sections are decoded as they are cut, straight from the file's words.
    let runs = polygon_runs(primitives.iter().map(|(_, p)| p), |h| {
        headers.get(header_index(h)?)?.words.first()?.pointer()
    });

    // Cut the file into regions.
    let mut starts: Vec<usize> = structural.iter().map(|s| s.0).collect();
    starts.extend(sections.iter().map(|s| s.0));
    starts.sort_unstable();
    starts.dedup();
    let mut regions = Vec::with_capacity(starts.len());
    let mut structural_iter = structural.iter().skip(1).peekable();
    let mut pos = header_end;
    let mut headers = Some(headers);
    // The primitives, in the order of their offsets as the structural regions are.
    let mut primitives = primitives.into_iter().peekable();
    while pos < words.len() {
        let next_start = starts[starts.partition_point(|&s| s <= pos)..]
            .first()
            .copied()
            .unwrap_or(words.len());
        let body = match structural_iter.peek() {
            Some(&&(s, e, kind)) if s == pos => {
                structural_iter.next();
                let body = match kind {
                    Kind::Coordinates => {
                        RegionBody::Coordinates(coordinates.take().unwrap_or_default())
                    }
                    Kind::Headers => {
                        RegionBody::PrimitiveHeaders(headers.take().unwrap_or_default())
                    }
                    Kind::Primitive => match primitives.next_if(|p| p.0 == pos) {
                        Some((_, p)) => RegionBody::Primitive(p),
                        None => RegionBody::Gap(words[s..e].to_vec()),
                    },
                    Kind::Header => RegionBody::Gap(words[s..e].to_vec()),
                };
                regions.push(Region {
                    offset: pos as u32,
                    body,
                });
                pos = e;
                continue;
            }
            _ => match role_at(pos) {
                Some(SectionRole::Polygon) => {
                    let w = &words[pos..next_start];
                    RegionBody::Section(Section {
                        role: SectionRole::Polygon,
                        data: decode_polygons(w, pos as u64, &runs)
                            .map_or_else(|| SectionData::Raw(w.to_vec()), SectionData::Polygons),
                    })
                }
                Some(role) => RegionBody::Section(decode_section(role, &words[pos..next_start])),
                None => RegionBody::Gap(words[pos..next_start].to_vec()),
            },
        };
        regions.push(Region {
            offset: pos as u32,
            body,
        });
        pos = next_start;
    }

    let mut hmd = Hmd {
        map_flag,
        primitive_header_section: phs,
        blocks,
        regions,
        trailing,
    };
    super::read_referenced::decode_referenced_sections(&mut hmd);
    Ok(hmd)
}

fn coord_unit(w: &[u32]) -> CoordUnit {
    CoordUnit {
        flg: w[0],
        matrix: matrix(&w[1..9]),
        workm: matrix(&w[9..17]),
        rot: svector(w[17], w[18]),
        parent: w[19],
    }
}

fn matrix(w: &[u32]) -> Matrix {
    let h = |i: usize| (w[i / 2] >> (16 * (i % 2))) as u16;
    let mut m = [[0i16; 3]; 3];
    for (i, v) in m.iter_mut().flatten().enumerate() {
        *v = h(i) as i16;
    }
    Matrix {
        m,
        pad: h(9),
        t: [w[5] as i32, w[6] as i32, w[7] as i32],
    }
}

fn svector(a: u32, b: u32) -> SVector {
    SVector {
        v: [a as i16, (a >> 16) as i16, b as i16],
        pad: (b >> 16) as i16,
    }
}

/// The primitive at word `at`, and the word after it.
fn read_primitive(cx: &Ctx<'_>, at: usize) -> Result<(Primitive, usize)> {
    let control = cx.words_at(at, 3, at, "primitive control section")?;
    let (next, header, tc) = (control[0], control[1], control[2]);
    let ntypes = (tc & 0x7FFF_FFFF) as u64;
    if ntypes * 2 > (cx.words().len() - at - 3) as u64 {
        return Err(malformed(
            at + 2,
            format!(
                "type count {ntypes}: that many data sections cannot fit in the rest of the file"
            ),
        ));
    }
    cx.limits()
        .items((at as u64 + 2) * 4, "primitive types", ntypes)?;
    let mut types = Vec::with_capacity(ntypes as usize);
    let mut t = at + 3;
    for _ in 0..ntypes {
        let code = cx.at(t, "type word")?;
        let cs = cx.at(t + 1, "count/size word")?;
        let size = (cs & 0xFFFF) as u64;
        if size == 0 {
            return Err(malformed(
                t + 1,
                "count/size word with size 0: the size counts the count/size word itself, so it is at least 1",
            ));
        }
        let count = ((cs >> 16) & 0x7FFF) as u16;
        if types.len() as u64 + 1 == ntypes {
            if let Some((seqs, n)) = sequences_past_size(cx, code, count, t + 2, size as usize - 1)
            {
                types.push(DataSection {
                    type_code: code,
                    count,
                    unscanned: cs & 0x8000_0000 != 0,
                    data: TypeData::Sequences(seqs),
                    size_override: Some(size as u16),
                });
                t += 2 + n;
                continue;
            }
        }
        if types.len() as u64 + 1 == ntypes {
            if let Some(n) = images_short_of_size(code, count, size as usize - 1) {
                let data = cx.words_at(t + 2, n as u64, t + 1, "image entries (their count)")?;
                types.push(DataSection {
                    type_code: code,
                    count,
                    unscanned: cs & 0x8000_0000 != 0,
                    data: decode_type_data(code, data),
                    size_override: Some(size as u16),
                });
                t += 2 + n;
                continue;
            }
        }
        let data = cx.words_at(t + 2, size - 1, t + 1, "primitive data (its size field)")?;
        types.push(DataSection {
            type_code: code,
            count,
            unscanned: cs & 0x8000_0000 != 0,
            data: decode_type_data(code, data),
            size_override: None,
        });
        t += 1 + size as usize;
    }
    let prim = Primitive {
        next,
        header,
        unmapped: tc & 0x8000_0000 != 0,
        types,
    };
    Ok((prim, t))
}

/// An animation primitive's last data section whose `count` sequence pointers take more words
/// than its size field says (UFO.HMD): the driver walks them by count, so they are read by count.
fn sequences_past_size(
    cx: &Ctx<'_>,
    code: u32,
    count: u16,
    at: usize,
    size_words: usize,
) -> Option<(Vec<SequencePointer>, usize)> {
    let t = TypeCode(code);
    if t.developer() != 0 || t.category() != 3 || count == 0 {
        return None;
    }
    let mut seqs = Vec::new();
    let mut n = 0usize;
    for _ in 0..count {
        let (s, k) = SequencePointer::decode(cx.words().get(at + n..)?)?;
        seqs.push(s);
        n += k;
    }
    (n > size_words).then_some((seqs, n))
}

/// An image primitive's last data section whose size field says more words than its `count`
/// image entries take (VENUS11.HMD: size 10 for one entry of 3 words, the image data starting
/// right after the entry): the driver uploads `count` images, so the entries are read by
/// count and the words after them are the sections they point to. Gives the words the
/// entries take.
fn images_short_of_size(code: u32, count: u16, size_words: usize) -> Option<usize> {
    let t = TypeCode(code);
    let k = match (t.developer(), t.category(), t.primitive_type()) {
        (0, 2, 0) => 3,
        (0, 2, 1) => 6,
        _ => return None,
    };
    let n = usize::from(count) * k;
    (count > 0 && n < size_words).then_some(n)
}

/// Decodes a data section's words by its type; anything that does not fit its type stays raw.
pub(crate) fn decode_type_data(code: u32, d: &[u32]) -> TypeData {
    // Environment maps as the polygon types they draw ([`TypeCode::drawn_as`]).
    let t = TypeCode(code).drawn_as();
    if t.developer() != 0 {
        return TypeData::Raw(d.to_vec());
    }
    let typed = match (t.category(), t.primitive_type()) {
        (0, _) | (1, 1..) if d.len() == 1 => Some(TypeData::PolygonIndex {
            division: (d[0] >> 24) as u8,
            index: d[0] & 0x00FF_FFFF,
        }),
        (1, 0) if d.len() == 6 => Some(TypeData::PreCalculation(PreCalculation {
            vertices: d[0],
            vertex_source: d[1],
            vertex_destination: d[2],
            normals: d[3],
            normal_source: d[4],
            normal_destination: d[5],
        })),
        (2, pt @ 0..=1) => {
            let k = if pt == 1 { 6 } else { 3 };
            (d.len() % k == 0).then(|| {
                TypeData::Images(
                    d.chunks_exact(k)
                        .map(|c| {
                            let rect = |c: &[u32]| Rect {
                                xywh: [
                                    c[0] as u16,
                                    (c[0] >> 16) as u16,
                                    c[1] as u16,
                                    (c[1] >> 16) as u16,
                                ],
                                index: c[2],
                            };
                            ImageEntry {
                                image: rect(&c[..3]),
                                clut: (k == 6).then(|| rect(&c[3..])),
                            }
                        })
                        .collect(),
                )
            })
        }
        (3, _) => {
            let mut out = Vec::new();
            let mut at = 0;
            let mut ok = true;
            while at < d.len() {
                match SequencePointer::decode(&d[at..]) {
                    Some((s, n)) => {
                        out.push(s);
                        at += n;
                    }
                    None => {
                        ok = false;
                        break;
                    }
                }
            }
            ok.then_some(TypeData::Sequences(out))
        }
        (4 | 5, _) => Some(TypeData::Offsets(d.to_vec())),
        (7, 0x0200) if d.len() == 1 => Some(TypeData::Light(LightData::from_word(d[0]))),
        _ => None,
    };
    typed.unwrap_or_else(|| TypeData::Raw(d.to_vec()))
}

fn decode_section(role: SectionRole, w: &[u32]) -> Section {
    use SectionRole::*;
    let data = match role {
        Vertex | Normal | CalculatedVertex | CalculatedNormal | MimeOriginal => {
            SectionData::Vectors {
                vectors: w
                    .chunks_exact(2)
                    .map(|c| match *c {
                        [a, b] => svector(a, b),
                        _ => SVector::default(),
                    })
                    .collect(),
                odd_word: (w.len() % 2 == 1).then(|| w[w.len() - 1]),
            }
        }
        InterpolationTable => {
            let count = w.first().map_or(u64::MAX, |&c| (c & 0x7FFF_FFFF) as u64);
            if count < w.len() as u64 {
                let n = count as usize;
                SectionData::InterpolationTable {
                    unscanned: w[0] & 0x8000_0000 != 0,
                    types: w[1..=n].to_vec(),
                    extra_words: w[n + 1..].to_vec(),
                }
            } else {
                SectionData::Raw(w.to_vec())
            }
        }
        SequenceControl => SectionData::SequenceControl(
            w.iter()
                .map(|&x| SequenceDescriptor::from_word(x))
                .collect(),
        ),
        MimeWeights => SectionData::Weights(w.iter().map(|&x| x as i32).collect()),
        Image | Clut => SectionData::Vram(le_halfwords(w)),
        GroundUv => match super::cat5_ground::UvGroup::decode_all(w) {
            Some(g) => SectionData::GroundUv(g),
            None => SectionData::Raw(w.to_vec()),
        },
        GroundPolygon => match super::cat5_ground::GroundPolygon::decode(w) {
            Some(g) => SectionData::GroundPolygon(g),
            None => SectionData::Raw(w.to_vec()),
        },
        // Heights are halfwords; the last one of an odd count is the pad halfword, kept as a
        // height so the section stays exact.
        GroundVertex => SectionData::Heights {
            heights: le_halfwords(w).into_iter().map(|h| h as i16).collect(),
        },
        _ => SectionData::Raw(w.to_vec()),
    };
    Section { role, data }
}

/// Primitive headers by their word offset.
pub(crate) fn headers_by_offset(hmd: &Hmd) -> BTreeMap<u32, &PrimitiveHeader> {
    header_list(hmd).into_iter().collect()
}

/// Primitive headers with their word offsets, ascending.
pub(super) fn header_list(hmd: &Hmd) -> Vec<(u32, &PrimitiveHeader)> {
    let phs = hmd.primitive_header_section & 0x7FFF_FFFF;
    let Some(RegionBody::PrimitiveHeaders(hs)) = hmd
        .regions
        .iter()
        .find(|r| r.offset == phs)
        .map(|r| &r.body)
    else {
        return Vec::new();
    };
    let mut q = phs + 1;
    hs.iter()
        .map(|h| {
            let at = q;
            q = q.saturating_add(1 + h.words.len() as u32);
            (at, h)
        })
        .collect()
}

/// Where packet runs start: absolute word → (primitive type, packet count), from the polygon
/// primitives and the polygon section their header names (`section_of` maps a header offset to
/// it). A polygon index is relative to the section its header names but may land in a later
/// section (BALLOON.HMD indexes packets that follow the shared polygon section from the
/// non-shared one), so runs are placed by absolute word.
fn polygon_runs<'a>(
    primitives: impl Iterator<Item = &'a Primitive>,
    section_of: impl Fn(u32) -> Option<u32>,
) -> Vec<(u64, u16, usize)> {
    let mut runs = Vec::new();
    for p in primitives {
        let Some(section) = section_of(p.header) else {
            continue;
        };
        for t in &p.types {
            if let TypeData::PolygonIndex { index, .. } = t.data {
                let kind = t.kind().drawn_as();
                let mut pt = kind.primitive_type();
                // Shared drivers do not implement COL for flat polygons: their packets have the
                // Gouraud layout without per-vertex colours (TILED.LAB, SharedPoly_0008/0009).
                if kind.category() == 1 && pt & 0x6 == 0x2 {
                    pt = (pt & !0x2) | 0x4;
                }
                runs.push((section as u64 + index as u64, pt, t.count as usize));
            }
        }
    }
    // By start; of runs starting at one word the first one read wins (stable sort).
    runs.sort_by_key(|r| r.0);
    runs.dedup_by_key(|r| r.0);
    runs
}

/// A polygon section at word `base` as packet runs where [`polygon_runs`] says they start, and
/// raw words elsewhere; `None` when no run starts in it.
fn decode_polygons(w: &[u32], base: u64, runs: &[(u64, u16, usize)]) -> Option<Vec<PolygonItem>> {
    let end = base + w.len() as u64;
    let starts = &runs[runs.partition_point(|r| r.0 < base)..runs.partition_point(|r| r.0 < end)];
    if starts.is_empty() {
        return None;
    }
    Some(lay_out(
        w,
        starts
            .iter()
            .enumerate()
            .map(|(i, &(start, _, _))| ((start - base) as usize, i)),
        |start, i| {
            let (_, pt, count) = starts[i];
            let limit = starts.get(i + 1).map_or(w.len(), |n| (n.0 - base) as usize);
            if count == 0 {
                return None;
            }
            match packet_words(pt) {
                Some(n) if start + n * count <= limit => {
                    run_of_words(pt, n, &w[start..start + n * count])
                        .map(|r| (PolygonItem::Packets(r), n * count))
                }
                Some(_) => None,
                None => decode_strips(pt, count, &w[start..limit])
                    .map(|(r, n)| (PolygonItem::Strips(r), n)),
            }
        },
        PolygonItem::Raw,
    ))
}

/// Lays out a section's words as the items decoded at ascending word offsets, keeping the words
/// before, between and after them as raw items. `decode(start, key)` gives the item at `start`
/// and the words it takes, or `None` to leave those words raw; a start inside an earlier item is
/// skipped.
pub(super) fn lay_out<K, T>(
    w: &[u32],
    starts: impl IntoIterator<Item = (usize, K)>,
    mut decode: impl FnMut(usize, K) -> Option<(T, usize)>,
    raw: impl Fn(Vec<u32>) -> T,
) -> Vec<T> {
    let mut items = Vec::new();
    let mut pos = 0usize;
    for (start, key) in starts {
        if start < pos {
            continue;
        }
        let Some((item, n)) = decode(start, key) else {
            continue;
        };
        if start > pos {
            items.push(raw(w[pos..start].to_vec()));
        }
        pos = start + n;
        items.push(item);
    }
    if pos < w.len() {
        items.push(raw(w[pos..].to_vec()));
    }
    items
}
