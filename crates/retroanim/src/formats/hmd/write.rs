//! HMD writer: [`Hmd`] → bytes.
//!
//! Regions are laid out one after another in model order, starting right after the block
//! pointer table. Every pointer in the model (header word 2, block table, next and header
//! pointers of primitives, section pointers of primitive headers, coordinate parents) is a word
//! offset in the numbering the regions were read with; it is mapped to the region containing it
//! (the last region whose [`Region::offset`] is at or below it) and moved by as much as that
//! region moved. An unchanged model therefore writes its original bytes, and an edited one (a
//! region grown or shrunk, a region added) gets every pointer recomputed.

use crate::bytes::{Le, Writer};
use crate::error::{Error, Result};
use crate::Format;

use super::cat3_anim::InterpolationType;
use super::types::*;
use super::VERSION;

fn unencodable(what: impl Into<String>) -> Error {
    Error::Unencodable {
        format: Format::Hmd,
        what: what.into(),
    }
}

/// Maps old word offsets to new ones.
struct Relocation {
    /// (old offset, new offset) per region start, ascending by old offset.
    starts: Vec<(u32, u32)>,
    /// No region moved: every pointer stays as it is.
    identity: bool,
}

impl Relocation {
    /// Moves `p` by as much as the region containing it moved. Wrapping arithmetic keeps
    /// pointers that lie outside the file (which `validate` reports) exactly as they were when
    /// nothing moved.
    fn map(&self, p: u32) -> u32 {
        if self.identity {
            return p;
        }
        match self.starts.partition_point(|s| s.0 <= p) {
            0 => p,
            i => {
                let (old, new) = self.starts[i - 1];
                p.wrapping_sub(old).wrapping_add(new)
            }
        }
    }

    /// Maps a pointer whose MSB is a flag.
    fn map_flagged(&self, p: u32) -> u32 {
        (self.map(p & 0x7FFF_FFFF) & 0x7FFF_FFFF) | (p & 0x8000_0000)
    }
}

/// Writes an HMD file.
pub fn write(hmd: &Hmd) -> Result<Vec<u8>> {
    let header_words = 4 + hmd.blocks.len();
    let mut starts = Vec::with_capacity(hmd.regions.len());
    let mut sizes = Vec::with_capacity(hmd.regions.len());
    let mut at = header_words;
    for r in &hmd.regions {
        let new = u32::try_from(at).map_err(|_| unencodable("the file exceeds 2^32 words"))?;
        let size = r.body.words();
        starts.push((r.offset, new));
        sizes.push(size);
        at += size;
    }
    let identity = starts.iter().all(|&(old, new)| old == new);
    starts.sort_unstable();
    if let Some(w) = starts.windows(2).find(|w| w[0].0 == w[1].0) {
        return Err(unencodable(format!(
            "two regions have offset {}; every region needs its own",
            w[0].0
        )));
    }
    let rel = Relocation { starts, identity };
    let mut out: Vec<u32> = Vec::with_capacity(at);
    out.push(VERSION);
    out.push(hmd.map_flag);
    out.push(rel.map_flagged(hmd.primitive_header_section));
    out.push(u32::try_from(hmd.blocks.len()).map_err(|_| unencodable("too many blocks"))?);
    for &b in &hmd.blocks {
        out.push(if b == 0 { 0 } else { rel.map(b) });
    }
    for (i, (r, &size)) in hmd.regions.iter().zip(&sizes).enumerate() {
        let before = out.len();
        encode_region(&r.body, &rel, &mut out).map_err(|e| match e {
            Error::Unencodable { format, what } => Error::Unencodable {
                format,
                what: format!("region {i} (read at word {}): {what}", r.offset),
            },
            e => e,
        })?;
        if out.len() - before != size {
            // Pointers were computed from `words()`; a disagreement would misplace them.
            return Err(unencodable(format!(
                "region {i} (read at word {}) encodes to {} words but its size is {size}",
                r.offset,
                out.len() - before,
            )));
        }
    }
    let mut w: Writer<Le> = Writer::with_capacity(out.len() * 4 + hmd.trailing.len());
    w.u32_words(&out);
    w.bytes(&hmd.trailing);
    Ok(w.into_vec())
}

fn encode_region(body: &RegionBody, rel: &Relocation, out: &mut Vec<u32>) -> Result<()> {
    match body {
        RegionBody::Coordinates(units) => {
            out.push(count32(units.len(), "coordinates")?);
            for u in units {
                out.push(u.flg);
                matrix(&u.matrix, out);
                matrix(&u.workm, out);
                out.extend(svector(&u.rot));
                out.push(if u.parent == 0 { 0 } else { rel.map(u.parent) });
            }
        }
        RegionBody::PrimitiveHeaders(hs) => {
            out.push(count32(hs.len(), "primitive headers")?);
            for h in hs {
                out.push(count32(h.words.len(), "header words")?);
                for e in &h.words {
                    out.push(match *e {
                        HeaderEntry::Pointer(p) => rel.map_flagged(p | 0x8000_0000),
                        HeaderEntry::Value(v) if v & 0x8000_0000 != 0 => {
                            return Err(unencodable(format!(
                                "header value 0x{v:x} has its MSB set, which marks a pointer"
                            )))
                        }
                        HeaderEntry::Value(v) => v,
                    });
                }
            }
        }
        RegionBody::Primitive(p) => {
            out.push(if p.next == TERMINATE {
                TERMINATE
            } else {
                rel.map(p.next)
            });
            out.push(rel.map(p.header));
            let n = count32(p.types.len(), "types")?;
            if n > 0x7FFF_FFFF {
                return Err(unencodable("type count exceeds 31 bits"));
            }
            out.push(n | if p.unmapped { 0x8000_0000 } else { 0 });
            for (i, t) in p.types.iter().enumerate() {
                data_section(t, out).map_err(|e| match e {
                    Error::Unencodable { format, what } => Error::Unencodable {
                        format,
                        what: format!("type {i} (0x{:08x}): {what}", t.type_code),
                    },
                    e => e,
                })?;
            }
        }
        RegionBody::Section(s) => section(&s.data, out)?,
        RegionBody::Gap(g) => out.extend_from_slice(g),
    }
    Ok(())
}

fn count32(n: usize, what: &str) -> Result<u32> {
    u32::try_from(n).map_err(|_| unencodable(format!("{n} {what} do not fit a word")))
}

fn matrix(m: &Matrix, out: &mut Vec<u32>) {
    let [[a, b, c], [d, e, f], [g, h, i]] = m.m.map(|r| r.map(|x| x as u16));
    out.extend(
        [[a, b], [c, d], [e, f], [g, h], [i, m.pad]].map(|[lo, hi]| lo as u32 | (hi as u32) << 16),
    );
    out.extend(m.t.map(|x| x as u32));
}

/// Halfwords two to a word, low half first; an odd last one with a zero high half.
fn halfwords(h: &[u16], out: &mut Vec<u32>) {
    let pairs = h.chunks_exact(2);
    let odd = pairs.remainder().first().map(|&lo| lo as u32);
    out.extend(pairs.map(|c| c[0] as u32 | (c[1] as u32) << 16));
    out.extend(odd);
}

/// The two words of a short vector: x, y, then z and the pad halfword.
fn svector(v: &SVector) -> [u32; 2] {
    [
        v.v[0] as u16 as u32 | (v.v[1] as u16 as u32) << 16,
        v.v[2] as u16 as u32 | (v.pad as u16 as u32) << 16,
    ]
}

fn data_section(t: &DataSection, out: &mut Vec<u32>) -> Result<()> {
    if t.count > 0x7FFF {
        return Err(unencodable(format!(
            "data count {} exceeds 15 bits",
            t.count
        )));
    }
    let size = t.size_override.map_or(1 + t.data.words(), usize::from);
    if size > 0xFFFF {
        return Err(unencodable(format!(
            "data of {size} words exceeds the 16-bit size field"
        )));
    }
    out.push(t.type_code);
    out.push(size as u32 | (t.count as u32) << 16 | if t.unscanned { 0x8000_0000 } else { 0 });
    match &t.data {
        TypeData::PolygonIndex { division, index } => {
            if *index > 0x00FF_FFFF {
                return Err(unencodable(format!(
                    "polygon index {index} exceeds 24 bits"
                )));
            }
            out.push((*division as u32) << 24 | index);
        }
        TypeData::PreCalculation(p) => out.extend([
            p.vertices,
            p.vertex_source,
            p.vertex_destination,
            p.normals,
            p.normal_source,
            p.normal_destination,
        ]),
        TypeData::Images(v) => {
            for e in v {
                for r in std::iter::once(&e.image).chain(e.clut.as_ref()) {
                    out.push(r.xywh[0] as u32 | (r.xywh[1] as u32) << 16);
                    out.push(r.xywh[2] as u32 | (r.xywh[3] as u32) << 16);
                    out.push(r.index);
                }
            }
        }
        TypeData::Sequences(v) => v.iter().for_each(|s| s.encode(out)),
        TypeData::Offsets(v) | TypeData::Raw(v) => out.extend_from_slice(v),
        TypeData::Light(l) => out.push(l.word()),
    }
    Ok(())
}

fn section(d: &SectionData, out: &mut Vec<u32>) -> Result<()> {
    match d {
        SectionData::Vectors { vectors, odd_word } => {
            out.extend(vectors.iter().flat_map(svector));
            out.extend(odd_word);
        }
        SectionData::Polygons(items) => items
            .iter()
            .for_each(|it| out.extend_from_slice(it.words())),
        SectionData::InterpolationTable {
            unscanned,
            types,
            extra_words,
        } => {
            let n = count32(types.len(), "interpolation types")?;
            if n > 0x7FFF_FFFF {
                return Err(unencodable("interpolation table count exceeds 31 bits"));
            }
            out.push(n | if *unscanned { 0x8000_0000 } else { 0 });
            out.extend_from_slice(types);
            out.extend_from_slice(extra_words);
        }
        SectionData::SequenceControl(ds) => {
            for (i, d) in ds.iter().enumerate() {
                out.push(d.word().ok_or_else(|| {
                    unencodable(format!(
                        "descriptor {i}: a 7-bit field holds a value over 127"
                    ))
                })?);
            }
        }
        SectionData::Parameters(items) => {
            let start = out.len();
            for (i, it) in items.iter().enumerate() {
                let here = out.len() - start;
                if let ParameterItem::KeyFrame { index, .. } | ParameterItem::Work { index, .. } =
                    it
                {
                    if *index as usize != here {
                        return Err(unencodable(format!(
                            "parameter item {i} has index {index} but lands at word {here} of its section (resize or reindex the items before it, and the descriptors pointing to them)"
                        )));
                    }
                }
                match it {
                    ParameterItem::KeyFrame {
                        type_code, frame, ..
                    } => {
                        let layout = InterpolationType::from_code(*type_code)
                            .layout()
                            .ok_or_else(|| {
                                unencodable(format!(
                                    "parameter item {i}: type 0x{type_code:08x} has no known key-frame layout"
                                ))
                            })?;
                        frame.encode(layout, out).ok_or_else(|| {
                            unencodable(format!(
                                "parameter item {i}: the values do not match type 0x{type_code:08x} (or do not fit its field widths)"
                            ))
                        })?;
                    }
                    ParameterItem::Work { words, .. } => out.extend_from_slice(words),
                    ParameterItem::Raw(w) => out.extend_from_slice(w),
                }
            }
        }
        SectionData::Devices(items) => {
            let start = out.len();
            for (i, it) in items.iter().enumerate() {
                let here = out.len() - start;
                if it.index().is_some_and(|x| x as usize != here) {
                    return Err(unencodable(format!(
                        "device item {i} has index {:?} but lands at word {here} of its section",
                        it.index()
                    )));
                }
                it.encode(out);
            }
        }
        SectionData::MimeDiff(items) => {
            let start = out.len();
            for (i, it) in items.iter().enumerate() {
                let here = out.len() - start;
                if it.index().is_some_and(|x| x as usize != here) {
                    return Err(unencodable(format!(
                        "MIMe DIFF item {i} has index {:?} but lands at word {here} of its section",
                        it.index()
                    )));
                }
                it.encode(out).ok_or_else(|| {
                    unencodable(format!(
                        "MIMe DIFF item {i}: a count exceeds its 16-bit field"
                    ))
                })?;
            }
        }
        SectionData::Weights(w) => out.extend(w.iter().map(|&x| x as u32)),
        SectionData::Vram(v) => halfwords(v, out),
        SectionData::Grid(items) => {
            let start = out.len();
            for (i, it) in items.iter().enumerate() {
                let here = out.len() - start;
                if it.index().is_some_and(|x| x as usize != here) {
                    return Err(unencodable(format!(
                        "grid item {i} has index {:?} but lands at word {here} of its section",
                        it.index()
                    )));
                }
                it.encode(out);
            }
        }
        SectionData::GroundUv(groups) => groups.iter().for_each(|g| g.encode(out)),
        SectionData::GroundPolygon(g) => g
            .encode(out)
            .ok_or_else(|| unencodable("a ground polygon section holds at most 65535 rows"))?,
        SectionData::Heights { heights } => halfwords(bytemuck::cast_slice(heights), out),
        SectionData::Raw(w) => out.extend_from_slice(w),
    }
    Ok(())
}
