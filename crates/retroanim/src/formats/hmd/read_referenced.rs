//! The HMD reader's second pass (see [`super::read`]): the sections that primitives read at
//! word offsets of their own — key frames of parameter sections, camera and light parameters,
//! MIMe DIFF blocks and ground grids — are found from the primitives that point into them and
//! decoded in place of their raw words.

use std::collections::BTreeSet;

use super::cat3_anim::{KeyFrame, ParameterItem, SequenceDescriptor, CONTROL_WORK};
use super::cat7_device::{DeviceItem, DeviceKind};
use super::read::{header_list, lay_out};
use super::types::*;

/// What the second pass of the reader looks things up in: the regions the first pass cut
/// (ascending by offset) and the primitive headers.
struct Lookup<'a> {
    regions: &'a [Region],
    headers: Vec<(u32, &'a PrimitiveHeader)>,
}

impl<'a> Lookup<'a> {
    fn new(hmd: &'a Hmd) -> Self {
        Lookup {
            regions: &hmd.regions,
            headers: header_list(hmd),
        }
    }

    fn primitives(&self) -> impl Iterator<Item = &'a Primitive> {
        self.regions.iter().filter_map(|r| match &r.body {
            RegionBody::Primitive(p) => Some(p),
            _ => None,
        })
    }

    /// Section pointer `i` of the header at word `at`.
    fn pointer(&self, at: u32, i: usize) -> Option<u32> {
        let h = self.headers[self.headers.binary_search_by_key(&at, |h| h.0).ok()?].1;
        h.words.get(i)?.pointer()
    }

    fn section(&self, at: Option<u32>) -> Option<&'a SectionData> {
        match &self.regions[region_at(self.regions, at?)?].body {
            RegionBody::Section(s) => Some(&s.data),
            _ => None,
        }
    }
}

/// The region starting at word `at` (the reader cuts regions in ascending order).
fn region_at(regions: &[Region], at: u32) -> Option<usize> {
    regions.binary_search_by_key(&at, |r| r.offset).ok()
}

/// Sorts `(section, start, what)` references by section and start; of those naming one start,
/// the first one found is kept.
fn sorted_refs<T>(mut refs: Vec<(u32, usize, T)>) -> Vec<(u32, usize, T)> {
    refs.sort_by_key(|r| (r.0, r.1));
    refs.dedup_by_key(|r| (r.0, r.1));
    refs
}

/// Replaces every raw section of `role` that `refs` (sorted) reference with what `decode`
/// makes of its words and the references into it.
fn decode_referenced<T: Copy>(
    hmd: &mut Hmd,
    role: SectionRole,
    refs: &[(u32, usize, T)],
    mut decode: impl FnMut(&[u32], &[(u32, usize, T)]) -> SectionData,
) {
    for group in refs.chunk_by(|a, b| a.0 == b.0) {
        let Some(ri) = region_at(&hmd.regions, group[0].0) else {
            continue;
        };
        let RegionBody::Section(s) = &mut hmd.regions[ri].body else {
            continue;
        };
        if s.role != role {
            continue;
        }
        if let SectionData::Raw(w) = &s.data {
            s.data = decode(w, group);
        }
    }
}

/// Decodes the sections that primitives read at word offsets of their own: key frames of
/// parameter sections, camera and light parameters, MIMe DIFF blocks and ground grids.
pub(super) fn decode_referenced_sections(hmd: &mut Hmd) {
    let (params, devices, mimes, grids) = {
        let cx = Lookup::new(hmd);
        (
            parameter_refs(&cx),
            device_refs(&cx),
            mime_refs(&cx),
            grid_refs(&cx),
        )
    };
    decode_referenced(hmd, SectionRole::Parameters, &params, |w, refs| {
        SectionData::Parameters(parameter_items(w, refs))
    });
    decode_referenced(hmd, SectionRole::DeviceParameters, &devices, |w, refs| {
        SectionData::Devices(lay_out(
            w,
            refs.iter().map(|r| (r.1, r.2)),
            |start, kind| {
                if start > u16::MAX as usize {
                    return None;
                }
                let item = DeviceItem::decode(kind, start as u16, w.get(start..)?)?;
                let n = item.words();
                Some((item, n))
            },
            DeviceItem::Raw,
        ))
    });
    decode_referenced(hmd, SectionRole::MimeDiff, &mimes, |w, refs| {
        use super::cat4_mime::{JointDiff, MimeDiffItem, MimeKind, VertexDiff, VertexResetDiff};
        SectionData::MimeDiff(lay_out(
            w,
            refs.iter().map(|r| (r.1, r.2)),
            |st, (kind, reset)| {
                let rest = w.get(st..).filter(|r| !r.is_empty())?;
                let start = st as u32;
                let item = match (kind, reset) {
                    (MimeKind::JointAxes | MimeKind::JointRpy, _) => {
                        JointDiff::decode(kind, start, rest).map(MimeDiffItem::Joint)
                    }
                    (_, false) => VertexDiff::decode(start, rest).map(MimeDiffItem::Vertex),
                    (_, true) => {
                        VertexResetDiff::decode(start, rest).map(MimeDiffItem::VertexReset)
                    }
                }?;
                let n = item.words();
                Some((item, n))
            },
            MimeDiffItem::Raw,
        ))
    });
    decode_referenced(hmd, SectionRole::GroundGrid, &grids, |w, refs| {
        use super::cat5_ground::GridItem;
        SectionData::Grid(lay_out(
            w,
            refs.iter().map(|r| (r.1, r.2)),
            |st, (textured, n)| {
                let item = GridItem::decode(st as u32, textured, n, w.get(st..)?)?;
                let words = item.words();
                Some((item, words))
            },
            GridItem::Raw,
        ))
    });
}

/// Key frames (with their type word) and WORK areas (`None`) of parameter sections, from the
/// descriptors and the interpolation table of every animation header pointing to them.
///
/// Only offsets inside a still-raw parameter section are kept, each once (the first header
/// naming it gives its type): many headers sharing one descriptor section then add nothing
/// beyond the section's own words.
fn parameter_refs(cx: &Lookup<'_>) -> Vec<(u32, usize, Option<u32>)> {
    let mut refs = Vec::new();
    let mut claimed = BTreeSet::new();
    let mut seen = BTreeSet::new();
    for p in cx.primitives() {
        if !p
            .types
            .iter()
            .any(|t| t.kind().category() == 3 && t.kind().developer() == 0)
        {
            continue;
        }
        let ptr = |i: usize| cx.pointer(p.header, i);
        // Headers naming the same sections give the same references.
        if !seen.insert((ptr(1), ptr(2), ptr(3))) {
            continue;
        }
        let (
            Some(SectionData::InterpolationTable { types, .. }),
            Some(SectionData::SequenceControl(ds)),
            Some(params),
        ) = (cx.section(ptr(1)), cx.section(ptr(2)), ptr(3))
        else {
            continue;
        };
        let Some(SectionData::Raw(words)) = cx.section(Some(params)) else {
            continue;
        };
        for d in ds {
            let (at, code) = match *d {
                SequenceDescriptor::KeyFrame {
                    type_idx,
                    param_idx,
                    ..
                } => match types.get(type_idx as usize) {
                    Some(&code) => (param_idx as usize, Some(code)),
                    None => continue,
                },
                SequenceDescriptor::Control { code, p2, .. } if code == CONTROL_WORK => {
                    (p2 as usize, None)
                }
                _ => continue,
            };
            if at < words.len() && claimed.insert((params, at)) {
                refs.push((params, at, code));
            }
        }
    }
    sorted_refs(refs)
}

/// A parameter section's words as the key frames and WORK areas `refs` (sorted) name, and
/// raw words elsewhere.
fn parameter_items(w: &[u32], refs: &[(u32, usize, Option<u32>)]) -> Vec<ParameterItem> {
    let mut items = Vec::with_capacity(2 * refs.len() + 1);
    let mut pos = 0usize;
    let mut raw_from = 0usize;
    for &(_, start, code) in refs {
        if start < pos || start >= w.len() || start > u16::MAX as usize {
            continue;
        }
        let decoded = match code {
            Some(code) => super::cat3_anim::InterpolationType::from_code(code)
                .layout()
                .filter(|l| l.words() > 0 && start + l.words() <= w.len())
                .and_then(|l| KeyFrame::decode(l, &w[start..]).map(|f| (l.words(), f)))
                .map(|(n, frame)| {
                    (
                        n,
                        ParameterItem::KeyFrame {
                            index: start as u16,
                            type_code: code,
                            frame,
                        },
                    )
                }),
            None => (start + 4 <= w.len()).then(|| {
                (
                    4,
                    ParameterItem::Work {
                        index: start as u16,
                        words: [w[start], w[start + 1], w[start + 2], w[start + 3]],
                    },
                )
            }),
        };
        if let Some((n, item)) = decoded {
            if start > raw_from {
                items.push(ParameterItem::Raw(w[raw_from..start].to_vec()));
            }
            items.push(item);
            pos = start + n;
            raw_from = pos;
        }
    }
    if raw_from < w.len() {
        items.push(ParameterItem::Raw(w[raw_from..].to_vec()));
    }
    items
}

/// Camera and light parameters at the offsets the device primitives read.
fn device_refs(cx: &Lookup<'_>) -> Vec<(u32, usize, DeviceKind)> {
    let mut refs = Vec::new();
    for p in cx.primitives() {
        let Some(section) = cx.pointer(p.header, 0) else {
            continue;
        };
        for t in &p.types {
            if t.kind().developer() != 0 || t.kind().category() != 7 {
                continue;
            }
            let Some(kind) = DeviceKind::from_code(t.type_code) else {
                continue;
            };
            let index = match (&t.data, kind.is_light()) {
                (TypeData::Light(l), true) => l.parameter_index as usize,
                (_, false) => 0,
                _ => continue,
            };
            // A projection reads only word 0 of the camera parameters; it is decoded with
            // the other camera kinds' 8 words.
            refs.push((section, index, kind));
        }
    }
    sorted_refs(refs)
}

/// DIFF blocks of MIMe DIFF sections at the offsets the MIMe primitives name.
fn mime_refs(cx: &Lookup<'_>) -> Vec<(u32, usize, (super::cat4_mime::MimeKind, bool))> {
    use super::cat4_mime::MimeKind;
    let mut refs = Vec::new();
    for p in cx.primitives() {
        for t in &p.types {
            let (TypeData::Offsets(offsets), 0, 4) =
                (&t.data, t.kind().developer(), t.kind().category())
            else {
                continue;
            };
            let Some((kind, reset)) = MimeKind::from_code(t.type_code) else {
                continue;
            };
            let joint = matches!(kind, MimeKind::JointAxes | MimeKind::JointRpy);
            let diff_word = match (joint, reset) {
                (true, false) => 4,
                (true, true) => 2,
                (false, false) => 3,
                (false, true) => 1,
            };
            let Some(section) = cx.pointer(p.header, diff_word) else {
                continue;
            };
            refs.extend(
                offsets
                    .iter()
                    .map(|&o| (section, o as usize, (kind, reset))),
            );
        }
    }
    sorted_refs(refs)
}

/// Ground grids: each ground primitive reads one entry per grid cell of its polygon section,
/// at its grid offset, one word (textured) or two (flat) each.
fn grid_refs(cx: &Lookup<'_>) -> Vec<(u32, usize, (bool, usize))> {
    let mut refs = Vec::new();
    for p in cx.primitives() {
        for t in &p.types {
            let (TypeData::Offsets(o), 0, 5) = (&t.data, t.kind().developer(), t.kind().category())
            else {
                continue;
            };
            let (Some(&[0, grid_off, _]), Some(poly), Some(grid)) = (
                o.get(..3).and_then(|s| <&[u32; 3]>::try_from(s).ok()),
                cx.pointer(p.header, 0),
                cx.pointer(p.header, 1),
            ) else {
                continue;
            };
            let Some(SectionData::GroundPolygon(g)) = cx.section(Some(poly)) else {
                continue;
            };
            let cells: usize = g.rows.iter().map(|r| r.grids as usize).sum();
            let textured = t.kind().primitive_type() & 1 != 0;
            refs.push((grid, grid_off as usize, (textured, cells)));
        }
    }
    sorted_refs(refs)
}
