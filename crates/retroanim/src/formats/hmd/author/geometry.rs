//! Polygons and images (TMD author output → HMD packets, image primitive) and the layout of
//! the whole file: coordinates, primitive headers, primitives, sections.

use crate::error::Result;
use crate::formats::gte;
use crate::formats::tmd::author::{self as tmd_author, AuthorOptions, Counts, Instance};
use crate::formats::tmd::{flag, mode, PrimitiveData};
use crate::scene::Scene;

use super::super::cat0_polygon::{Packet, PacketRun, PolygonItem, UvWord};
use super::super::types::*;
use super::{unencodable, HmdAuthorOptions};

/// One block's polygons: (type word, packets of that type) runs, vertices and normals.
pub(super) struct Block {
    runs: Vec<(u32, PacketRun)>,
    vertices: Vec<SVector>,
    normals: Vec<SVector>,
    /// The node's vertex MIMe (morph targets).
    mime: Option<super::mime::Morph>,
}

/// The image primitive's entries (indices relative to its sections) and sections.
pub(super) struct Images {
    entries: Vec<ImageEntry>,
    pixels: Vec<u16>,
    cluts: Vec<u16>,
}

/// What [`build`] made: a block per node (None: the node shows no mesh), the images.
pub(super) struct Geometry {
    blocks: Vec<Option<Block>>,
    images: Option<Images>,
    /// Skinned meshes, as shared polygons (`skin` submodule).
    shared: Vec<super::skin::Shared>,
}

impl Geometry {
    /// The nodes with a vertex MIMe, in node order: (node, keys, rest weights).
    pub(super) fn morphs(&self) -> Vec<(usize, usize, Vec<i32>)> {
        self.blocks
            .iter()
            .enumerate()
            .filter_map(|(i, b)| {
                let m = b.as_ref()?.mime.as_ref()?;
                Some((i, m.num, m.weights.clone()))
            })
            .collect()
    }

    /// Per node: whether it has a block or shared polygons (whose notes are its own).
    pub(super) fn written(&self) -> Vec<bool> {
        let mut w: Vec<bool> = self.blocks.iter().map(Option::is_some).collect();
        for s in &self.shared {
            if let Some(x) = w.get_mut(s.node) {
                *x = true;
            }
        }
        w
    }
}

/// The animation primitive's parts (see `anim`).
pub(super) struct AnimParts {
    pub types: Vec<u32>,
    pub descriptors: Vec<SequenceDescriptor>,
    pub params: Vec<ParameterItem>,
    pub pointers: Vec<SequencePointer>,
    /// The joint axes MIMe: its number of keys (MIMEPR weights) and DIFF blocks (their
    /// `index` is set when written); `None` without one.
    pub joint: Option<(usize, Vec<JointDiff>)>,
}

/// The HMD primitive type and driver bits of a TMD packet (module docs).
fn hmd_type(tmd_mode: u8, tmd_flag: u8, quad: bool) -> u32 {
    let mut pt = if quad { 0x10 } else { 0x08 };
    if tmd_mode & mode::TME != 0 {
        pt |= 0x01;
    }
    if tmd_flag & flag::GRD != 0 && tmd_flag & flag::LGT == 0 {
        pt |= 0x02;
    }
    if tmd_mode & mode::IIP != 0 {
        pt |= 0x04;
    }
    if tmd_flag & flag::LGT != 0 {
        pt |= 0x40;
    }
    let mut driver = 0u32;
    if tmd_flag & flag::FCE != 0 {
        driver |= 0x10;
    }
    if tmd_mode & mode::ABE != 0 {
        driver |= 0x20;
    }
    driver << 16 | pt
}

/// The packets' pad halfwords a type needs (layouts differ; found once by trying).
fn with_pads(pt: u16, p: &mut Packet) -> Result<()> {
    for n in 0..=super::super::cat0_polygon::MAX_PADS {
        p.pads.clear();
        p.pads.extend(std::iter::repeat(0).take(n));
        if PacketRun::new(pt, std::slice::from_ref(p)).is_ok() {
            return Ok(());
        }
    }
    Err(unencodable(format!(
        "primitive type 0x{pt:x}: no packet layout fits the polygon"
    )))
}

/// Meshes and textures: the TMD author's objects as HMD blocks, its TIMs as images.
pub(super) fn build(
    scene: &Scene,
    opts: &HmdAuthorOptions,
    conv: &super::ToConsole,
    places: &[super::layout::Place],
    notes: &mut Counts,
) -> Result<Geometry> {
    let shown: Vec<usize> = (0..scene.nodes.len())
        .filter(|&i| scene.nodes[i].mesh.is_some_and(|m| m < scene.meshes.len()))
        .collect();
    // A node that is not a coordinate is drawn in its coordinate's space (`layout`); a skinned
    // mesh ignores its node's transform.
    let instances: Vec<Instance> = shown
        .iter()
        .filter_map(|&i| {
            let matrix = places
                .get(i)
                .and_then(|p| p.matrix)
                .filter(|_| scene.nodes[i].skin.is_none());
            scene.nodes[i].mesh.map(|mesh| Instance { mesh, matrix })
        })
        .collect();
    let mut blocks: Vec<Option<Block>> = (0..scene.nodes.len()).map(|_| None).collect();
    let mut shared = Vec::new();
    if instances.is_empty() {
        return Ok(Geometry {
            blocks,
            images: None,
            shared,
        });
    }
    let model = tmd_author::author(
        scene,
        &instances,
        &AuthorOptions {
            axes: opts.axes,
            scale: opts.scale,
            by_joint: true,
        },
    )?;
    for n in model.notes {
        // Morph targets are written here, as vertex MIMe (the `mime` submodule notes the rest).
        if n.code == "morph-targets-dropped" {
            continue;
        }
        notes.add(n.code, 1, || n.message.clone());
    }
    let joints = model.vertex_joints.iter().zip(&model.normal_joints);
    for ((&node, object), (vjoints, njoints)) in shown.iter().zip(&model.tmd.objects).zip(joints) {
        if let Some(s) = super::skin::build(scene, conv, node, object, (vjoints, njoints), notes)? {
            shared.push(s);
            continue;
        }
        let built = runs(object, notes)?;
        let sv = |v: &crate::formats::tmd::SVector| SVector {
            v: [v.x, v.y, v.z],
            pad: 0,
        };
        let mut normals: Vec<SVector> = object.normals.iter().map(sv).collect();
        if normals.is_empty() {
            normals.push(SVector {
                v: [0, -4096, 0],
                pad: 0,
            });
        }
        if !built.is_empty() && !object.vertices.is_empty() {
            let vertices: Vec<SVector> = object.vertices.iter().map(sv).collect();
            let mime = scene.nodes[node]
                .mesh
                .and_then(|m| super::mime::build(scene, conv, node, m, &vertices, notes));
            blocks[node] = Some(Block {
                runs: built,
                vertices,
                normals,
                mime,
            });
        }
    }
    let images = (!model.tims.is_empty()).then(|| {
        let mut im = Images {
            entries: Vec::new(),
            pixels: Vec::new(),
            cluts: Vec::new(),
        };
        for t in &model.tims {
            let rect = |b: &crate::formats::tim::Block, data: &mut Vec<u16>| {
                let r = Rect {
                    xywh: [b.x, b.y, b.width, b.height],
                    index: (data.len() / 2) as u32,
                };
                data.extend_from_slice(&b.data);
                // Every rectangle starts on a word.
                if data.len() % 2 == 1 {
                    data.push(0);
                }
                r
            };
            let image = rect(&t.image, &mut im.pixels);
            let clut = t.clut.as_ref().map(|c| rect(c, &mut im.cluts));
            im.entries.push(ImageEntry { image, clut });
        }
        im
    });
    Ok(Geometry {
        blocks,
        images,
        shared,
    })
}

/// A TMD object's polygon packets as HMD packet runs: (type word, packets of that type).
pub(super) fn runs(
    object: &crate::formats::tmd::Object,
    notes: &mut Counts,
) -> Result<Vec<(u32, PacketRun)>> {
    let mut runs: Vec<(u32, Vec<Packet>)> = Vec::new();
    let mut skipped = 0;
    for prim in &object.primitives {
        let PrimitiveData::Polygon(poly) = &prim.data else {
            skipped += 1;
            continue;
        };
        let quad = poly.vertices.len() == 4;
        let code = hmd_type(prim.mode, prim.flag, quad);
        let pt = code as u16;
        let mut p = Packet {
            vertices: poly.vertices.clone(),
            normals: poly.normals.clone(),
            ..Packet::default()
        };
        // The GPU code byte of the first colour word: the TMD mode is the GPU command.
        for (i, c) in poly.colors.iter().enumerate() {
            p.colors
                .push([c.r, c.g, c.b, if i == 0 { prim.mode } else { 0 }]);
        }
        if let (Some(cba), Some(tsb)) = (poly.cba(), poly.tsb()) {
            p.cba = cba;
            p.tsb = tsb;
            for uv in &poly.uvs {
                p.uvs.push(UvWord { uv: [uv.u, uv.v] });
            }
        }
        // Lit flat TMD packets name one normal; HMD flat lit layouts name one too.
        with_pads(pt, &mut p)?;
        match runs.iter_mut().find(|r| r.0 == code) {
            Some(r) => r.1.push(p),
            None => runs.push((code, vec![p])),
        }
    }
    notes.add("packet-dropped", skipped, || {
        "TMD packet(s) that are not polygons left out".into()
    });
    let mut built = Vec::with_capacity(runs.len());
    for (code, packets) in runs {
        built.push((code, PacketRun::new(code as u16, &packets)?));
    }
    Ok(built)
}

/// A polygon primitive's types (type word | `category`, index into the polygon section) and
/// the polygon section's items, for packet `runs`; `what` names the owner in errors.
fn polygon_types(
    runs: Vec<(u32, PacketRun)>,
    category: u32,
    what: impl Fn() -> String,
) -> Result<(Vec<DataSection>, Vec<PolygonItem>)> {
    let mut items = Vec::with_capacity(runs.len());
    let mut types = Vec::with_capacity(runs.len());
    let mut at = 0usize;
    for (code, run) in runs {
        let index = u32::try_from(at)
            .ok()
            .filter(|&i| i < 1 << 24)
            .ok_or_else(|| {
                unencodable(format!("{}: its polygon section passes 2^24 words", what()))
            })?;
        types.push(data_section(
            category | code,
            run.len(),
            TypeData::PolygonIndex { division: 0, index },
        )?);
        at += run.words().len();
        items.push(PolygonItem::Packets(run));
    }
    Ok((types, items))
}

fn section(role: SectionRole, data: SectionData) -> RegionBody {
    RegionBody::Section(Section { role, data })
}

fn vectors(v: Vec<SVector>) -> SectionData {
    SectionData::Vectors {
        vectors: v,
        odd_word: None,
    }
}

fn primitive(types: Vec<DataSection>) -> Primitive {
    Primitive {
        next: TERMINATE,
        header: 0,
        unmapped: true,
        types,
    }
}

fn data_section(type_code: u32, count: usize, data: TypeData) -> Result<DataSection> {
    let count = u16::try_from(count)
        .ok()
        .filter(|&c| c < 0x8000)
        .ok_or_else(|| {
            unencodable(format!(
                "type 0x{type_code:08x}: {count} data sets do not fit the 15-bit count"
            ))
        })?;
    Ok(DataSection {
        type_code,
        count,
        unscanned: true,
        data,
        size_override: None,
    })
}

/// Lays the file out: coordinates, primitive headers, primitives, sections.
pub(super) fn assemble(
    coords: &[(gte::Mat, [i16; 3], Option<usize>)],
    geo: Geometry,
    anim: Option<AnimParts>,
    devices: Vec<super::devices::Device>,
    places: &[super::layout::Place],
) -> Result<Hmd> {
    let nblocks = coords.len() + 2;
    let post_block = nblocks - 1;
    // The block of node `i`'s primitives (`layout`).
    let slot = |i: usize| {
        places
            .get(i)
            .map_or(post_block, |p| p.block.min(post_block))
    };
    let base = u32::try_from(4 + nblocks).map_err(|_| unencodable("too many coordinates"))?;
    // Headers: (entries as (section number | coordinate section)); sections numbered in order.
    enum Entry {
        Section(usize),
        Coords,
        Coord(usize),
        Value(u32),
    }
    let mut headers: Vec<Vec<Entry>> = Vec::new();
    let mut prims: Vec<(usize, Primitive)> = Vec::new(); // (header, primitive)
    let mut sections: Vec<RegionBody> = Vec::new();
    // Per block, its primitives in drawing order (each `next` is the one after).
    let mut chains: Vec<Vec<usize>> = vec![Vec::new(); nblocks];
    // PRE-PROCESS: images, animation, joint MIMe, devices, then polygons.
    let mut pre: Vec<usize> = Vec::new();
    let mut pre_polygons: Vec<usize> = Vec::new();
    // Vertex MIMe: one DIFF section for the file (`mime` submodule), (MIMe, reset) block
    // offsets per node; the MIMEPR sections in node order; chained primitives (from, to).
    let (diff, mut mime_at) = mime_diffs(&geo.blocks)?;
    let diff_section = (!diff.is_empty()).then(|| {
        sections.push(section(SectionRole::MimeDiff, SectionData::MimeDiff(diff)));
        sections.len() - 1
    });
    let mut mimepr: Vec<usize> = Vec::new();
    for (node, b) in geo.blocks.into_iter().enumerate() {
        let Some(b) = b else { continue };
        let mime = b.mime;
        let s0 = sections.len();
        let (types, items) = polygon_types(b.runs, 0, || format!("node {node}"))?;
        sections.push(section(SectionRole::Polygon, SectionData::Polygons(items)));
        sections.push(section(SectionRole::Vertex, vectors(b.vertices)));
        sections.push(section(SectionRole::Normal, vectors(b.normals)));
        headers.push(vec![
            Entry::Section(s0),
            Entry::Section(s0 + 1),
            Entry::Section(s0 + 2),
            Entry::Coords,
        ]);
        prims.push((headers.len() - 1, primitive(types)));
        let chain = match slot(node) {
            0 => &mut pre_polygons,
            b => &mut chains[b],
        };
        chain.push(prims.len() - 1);
        if let (Some(m), Some(d), Some((at, rst))) = (mime, diff_section, mime_at.remove(&node)) {
            let polygons = prims.len() - 1;
            let o = sections.len();
            let saved = usize::from(m.span.1).max(1);
            sections.push(section(
                SectionRole::MimeOriginal,
                vectors(vec![SVector::default(); saved]),
            ));
            sections.push(section(
                SectionRole::MimeWeights,
                SectionData::Weights(m.weights),
            ));
            mimepr.push(o + 1);
            let num = u32::try_from(m.num).map_err(|_| unencodable("too many MIMe keys"))?;
            headers.push(vec![
                Entry::Section(o + 1),
                Entry::Value(num),
                Entry::Value(0),
                Entry::Section(d),
                Entry::Section(o),
                Entry::Section(s0 + 1),
                Entry::Section(s0 + 2),
            ]);
            let offsets = |i: u32| TypeData::Offsets(vec![i]);
            prims.push((
                headers.len() - 1,
                primitive(vec![data_section(0x0401_0020, 1, offsets(at))?]),
            ));
            headers.push(vec![
                Entry::Value(0),
                Entry::Section(d),
                Entry::Section(o),
                Entry::Section(s0 + 1),
                Entry::Section(s0 + 2),
            ]);
            prims.push((
                headers.len() - 1,
                primitive(vec![data_section(0x0401_0028, 1, offsets(rst))?]),
            ));
            // MIMe → polygons → reset.
            let chain = match slot(node) {
                0 => &mut pre_polygons,
                b => &mut chains[b],
            };
            chain.pop();
            chain.extend([prims.len() - 2, polygons, prims.len() - 1]);
        }
    }
    // Skinned meshes: per mesh one header and its five sections, a pre-calculation at the end
    // of each joint's block, the shared polygons in POST-PROCESS (`skin` submodule).
    let mut post: Vec<usize> = Vec::new();
    for sh in geo.shared {
        let s0 = sections.len();
        let (nv, nn) = (sh.vertices.len(), sh.normals.len());
        let (types, items) =
            polygon_types(sh.runs, super::skin::CATEGORY, || "a skinned mesh".into())?;
        sections.push(section(SectionRole::Polygon, SectionData::Polygons(items)));
        sections.push(section(SectionRole::Vertex, vectors(sh.vertices)));
        sections.push(section(
            SectionRole::CalculatedVertex,
            vectors(vec![SVector::default(); nv]),
        ));
        sections.push(section(SectionRole::Normal, vectors(sh.normals)));
        sections.push(section(
            SectionRole::CalculatedNormal,
            vectors(vec![SVector::default(); nn]),
        ));
        headers.push((0..5).map(|k| Entry::Section(s0 + k)).collect());
        let h = headers.len() - 1;
        for j in sh.joints {
            let pre = PreCalculation {
                vertices: j.vertices.1,
                vertex_source: j.vertices.0,
                vertex_destination: j.vertices.0,
                normals: j.normals.1,
                normal_source: j.normals.0,
                normal_destination: j.normals.0,
            };
            prims.push((
                h,
                primitive(vec![data_section(
                    super::skin::CATEGORY,
                    0,
                    TypeData::PreCalculation(pre),
                )?]),
            ));
            let k = prims.len() - 1;
            // After whatever the joint's block already draws.
            match slot(j.node) {
                0 => pre_polygons.push(k),
                b => chains[b].push(k),
            }
        }
        prims.push((h, primitive(types)));
        post.push(prims.len() - 1);
    }
    if let Some(im) = geo.images {
        let with_clut = im.entries.iter().any(|e| e.clut.is_some());
        let s0 = sections.len();
        sections.push(section(SectionRole::Image, SectionData::Vram(im.pixels)));
        let mut h = vec![Entry::Section(s0)];
        let entries = if with_clut {
            sections.push(section(SectionRole::Clut, SectionData::Vram(im.cluts)));
            h.push(Entry::Section(s0 + 1));
            // 0x02000001 needs a CLUT per entry: a direct-colour image gets an empty one.
            im.entries
                .into_iter()
                .map(|e| ImageEntry {
                    clut: Some(e.clut.unwrap_or(Rect {
                        xywh: [0; 4],
                        index: 0,
                    })),
                    ..e
                })
                .collect::<Vec<_>>()
        } else {
            im.entries
        };
        headers.push(h);
        let code = if with_clut { 0x0200_0001 } else { 0x0200_0000 };
        let n = entries.len();
        prims.push((
            headers.len() - 1,
            primitive(vec![data_section(code, n, TypeData::Images(entries))?]),
        ));
        pre.push(prims.len() - 1);
    }
    if let Some(a) = anim {
        let s0 = sections.len();
        sections.push(section(
            SectionRole::InterpolationTable,
            SectionData::InterpolationTable {
                unscanned: true,
                types: a.types,
                extra_words: Vec::new(),
            },
        ));
        sections.push(section(
            SectionRole::SequenceControl,
            SectionData::SequenceControl(a.descriptors),
        ));
        sections.push(section(
            SectionRole::Parameters,
            SectionData::Parameters(a.params),
        ));
        // Joint axes MIMe (`anim::axes`): one DIFF block per node (key k: its one record, the
        // rotation vector), a MIMEPR section of one weight per node after the morphs'.
        let joint = match a.joint {
            Some((keys, diffs)) => {
                let (items, offsets) = super::mime::joint_items(diffs)?;
                let d = sections.len();
                sections.push(section(SectionRole::MimeDiff, SectionData::MimeDiff(items)));
                sections.push(section(
                    SectionRole::MimeWeights,
                    SectionData::Weights(vec![0; keys]),
                ));
                Some((d, offsets, keys))
            }
            None => None,
        };
        // The animation header's first word is its own size (as labp writes it: the drivers
        // count the sections from the size word, so the interpolation table is word 1).
        // Sections 5.. are the MIMEPR weights the TGT = 1 pointers update, in node order,
        // then the joint MIMe's.
        let mut h = vec![
            Entry::Value(5 + mimepr.len() as u32 + u32::from(joint.is_some())),
            Entry::Section(s0),
            Entry::Section(s0 + 1),
            Entry::Section(s0 + 2),
            Entry::Coords,
        ];
        h.extend(mimepr.iter().map(|&s| Entry::Section(s)));
        h.extend(joint.iter().map(|(d, _, _)| Entry::Section(d + 1)));
        headers.push(h);
        let n = a.pointers.len();
        prims.push((
            headers.len() - 1,
            primitive(vec![data_section(
                0x0380_0000,
                n,
                TypeData::Sequences(a.pointers),
            )?]),
        ));
        pre.push(prims.len() - 1);
        // The MIMe after the animation (PRE-PROCESS), its reset last (POST-PROCESS), as
        // SWITCH has them.
        if let Some((d, offsets, keys)) = joint {
            let n = offsets.len();
            headers.push(vec![
                Entry::Coords,
                Entry::Section(d + 1),
                Entry::Value(keys as u32),
                Entry::Value(0),
                Entry::Section(d),
            ]);
            prims.push((
                headers.len() - 1,
                primitive(vec![data_section(
                    0x0401_0010,
                    n,
                    TypeData::Offsets(offsets.clone()),
                )?]),
            ));
            pre.push(prims.len() - 1);
            headers.push(vec![Entry::Coords, Entry::Value(0), Entry::Section(d)]);
            prims.push((
                headers.len() - 1,
                primitive(vec![data_section(
                    0x0401_0018,
                    n,
                    TypeData::Offsets(offsets),
                )?]),
            ));
            post.push(prims.len() - 1);
        }
    }
    // Cameras and lights: one parameter section each, in the coordinate of their node.
    for d in devices {
        let s0 = sections.len();
        sections.push(section(
            SectionRole::DeviceParameters,
            SectionData::Devices(vec![d.parameters]),
        ));
        headers.push(match d.coordinate {
            Some(c) => vec![Entry::Section(s0), Entry::Coord(c)],
            None => vec![Entry::Section(s0)],
        });
        let data = match d.light {
            Some(l) => data_section(d.type_code, 1, TypeData::Light(l))?,
            None => data_section(d.type_code, 0, TypeData::Raw(Vec::new()))?,
        };
        prims.push((headers.len() - 1, primitive(vec![data])));
        pre.push(prims.len() - 1);
    }
    // POST-PROCESS: its own polygons, the shared polygons, then the joint MIMe reset.
    chains[post_block].extend(post);
    pre.extend(pre_polygons);
    chains[0] = pre;
    // Each block's first primitive; primitive index → the next one's.
    let mut next_of: Vec<Option<usize>> = vec![None; prims.len()];
    let mut block_first: Vec<Option<usize>> = vec![None; nblocks];
    for (b, chain) in chains.iter().enumerate() {
        block_first[b] = chain.first().copied();
        for w in chain.windows(2) {
            next_of[w[0]] = Some(w[1]);
        }
    }
    // Offsets.
    let words = |n: usize| u32::try_from(n).map_err(|_| unencodable("the file exceeds 2^32 words"));
    let coord_at = base;
    let mut at = coord_at
        .checked_add(words(1 + coords.len() * CoordUnit::WORDS)?)
        .ok_or_else(|| unencodable("the file exceeds 2^32 words"))?;
    let headers_at = at;
    let mut header_at = Vec::with_capacity(headers.len());
    let mut h_at = headers_at + 1;
    for h in &headers {
        header_at.push(h_at);
        h_at += 1 + h.len() as u32;
    }
    at = h_at;
    let mut prim_at = Vec::with_capacity(prims.len());
    for (_, p) in &prims {
        prim_at.push(at);
        at = at
            .checked_add(words(p.words())?)
            .ok_or_else(|| unencodable("the file exceeds 2^32 words"))?;
    }
    let mut section_at = Vec::with_capacity(sections.len());
    for s in &sections {
        section_at.push(at);
        at = at
            .checked_add(words(s.words())?)
            .ok_or_else(|| unencodable("the file exceeds 2^32 words"))?;
    }
    if at >= 0x8000_0000 {
        return Err(unencodable(
            "the file exceeds 2^31 words (pointers have 31 bits)",
        ));
    }
    // Fill the pointers.
    let units: Vec<CoordUnit> = coords
        .iter()
        .map(|(m, rot, parent)| CoordUnit {
            flg: 0,
            matrix: Matrix {
                m: m.m,
                pad: 0,
                t: m.t,
            },
            workm: Matrix::default(),
            rot: SVector { v: *rot, pad: 0 },
            parent: parent.map_or(0, |p| coord_at + 1 + (p * CoordUnit::WORDS) as u32),
        })
        .collect();
    let header_words: Vec<PrimitiveHeader> = headers
        .iter()
        .map(|h| PrimitiveHeader {
            words: h
                .iter()
                .map(|e| match e {
                    Entry::Section(s) => HeaderEntry::Pointer(section_at[*s]),
                    Entry::Coords => HeaderEntry::Pointer(coord_at),
                    Entry::Coord(k) => {
                        HeaderEntry::Pointer(coord_at + 1 + (*k * CoordUnit::WORDS) as u32)
                    }
                    Entry::Value(v) => HeaderEntry::Value(*v),
                })
                .collect(),
        })
        .collect();
    let mut regions = Vec::with_capacity(2 + prims.len() + sections.len());
    regions.push(Region {
        offset: coord_at,
        body: RegionBody::Coordinates(units),
    });
    regions.push(Region {
        offset: headers_at,
        body: RegionBody::PrimitiveHeaders(header_words),
    });
    for (k, (h, mut p)) in prims.into_iter().enumerate() {
        p.header = header_at[h];
        p.next = next_of[k].map_or(TERMINATE, |n| prim_at[n]);
        regions.push(Region {
            offset: prim_at[k],
            body: RegionBody::Primitive(p),
        });
    }
    for (k, s) in sections.into_iter().enumerate() {
        regions.push(Region {
            offset: section_at[k],
            body: s,
        });
    }
    Ok(Hmd {
        map_flag: 0,
        primitive_header_section: headers_at,
        blocks: block_first
            .iter()
            .map(|b| b.map_or(0, |k| prim_at[k]))
            .collect(),
        regions,
        trailing: Vec::new(),
    })
}

/// The MIMe DIFF section's items for the blocks' vertex MIMe, and per node the word offsets of
/// its MIMe and reset blocks in that section.
#[allow(clippy::type_complexity)]
fn mime_diffs(
    blocks: &[Option<Block>],
) -> Result<(
    Vec<MimeDiffItem>,
    std::collections::HashMap<usize, (u32, u32)>,
)> {
    let mut items = Vec::new();
    let mut at = std::collections::HashMap::new();
    let mut words = 0usize;
    let word = |n: usize| {
        u32::try_from(n).map_err(|_| unencodable("the MIMe DIFF section exceeds 2^32 words"))
    };
    for (node, b) in blocks.iter().enumerate() {
        let Some(m) = b.as_ref().and_then(|b| b.mime.as_ref()) else {
            continue;
        };
        let index = word(words)?;
        let records = if m.keys.is_empty() {
            Vec::new()
        } else {
            vec![VertexReset {
                vstart: m.span.0,
                ostart: 0,
                changed: 0,
                vnum: m.span.1,
            }]
        };
        let mut d = VertexDiff {
            index,
            dflags: m.dflags,
            reset_offsets: Vec::new(),
            keys: m.keys.clone(),
        };
        // The reset block follows; its one record's `changed` word is its third.
        let reset = word(words + d.words() + records.len())?;
        if !records.is_empty() {
            d.reset_offsets.push(reset + 3);
        }
        words += d.words();
        let r = VertexResetDiff {
            index: reset,
            pad: 0,
            records,
        };
        words += r.words();
        at.insert(node, (index, reset));
        items.push(MimeDiffItem::Vertex(d));
        items.push(MimeDiffItem::VertexReset(r));
    }
    Ok((items, at))
}
