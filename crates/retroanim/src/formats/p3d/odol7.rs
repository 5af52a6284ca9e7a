//! ODOL version 7 (OFP / CWA) read typed: every field of a LOD and of the model info, in file
//! order (layout in the module docs of [`super`]; notes §4, aczwink ODOL7Lod.cpp and
//! ODOL7ModelInfo.cpp, CWR-CE P3DStructures.hpp). A file cut anywhere fails at the field
//! whose bytes are missing.
//!
//! The model keeps each LOD's bytes around its frames verbatim (compressed arrays are
//! written back exactly as packed), so [`super::Odol`] decodes these types from them:
//! [`super::Odol::v7_lod`] and [`super::Odol::v7_model_info`].

use crate::bytes::{Le, Reader};
use crate::error::Result;

use super::lzss::{compressed_array, f32s, u16s, u32s};
use super::types::{OdolFrame, Text};

/// One ODOL v7 LOD, every field typed.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Odol7Lod {
    /// Per-vertex point flags (compressed array).
    pub vertex_flags: Vec<u32>,
    /// Per-vertex texture coordinates (compressed array; empty or one per vertex).
    pub uvs: Vec<[f32; 2]>,
    /// Vertex positions, relative to the model centre.
    pub positions: Vec<[f32; 3]>,
    /// Vertex normals.
    pub normals: Vec<[f32; 3]>,
    /// OR of the faces' special flags.
    pub or_hints: u32,
    /// AND of the faces' special flags.
    pub and_hints: u32,
    /// Bounding box minimum.
    pub min: [f32; 3],
    /// Bounding box maximum.
    pub max: [f32; 3],
    /// Bounding centre.
    pub centre: [f32; 3],
    /// Bounding sphere radius.
    pub radius: f32,
    /// Texture names.
    pub textures: Vec<Text>,
    /// MLOD edge table (compressed array of u16).
    pub mlod_edges: Vec<u16>,
    /// ODOL edge table (compressed array of u16).
    pub odol_edges: Vec<u16>,
    /// The word after the face count (aczwink: the offset to the sections).
    pub face_data_size: u32,
    /// Polygons, in the engine's order.
    pub faces: Vec<Odol7Face>,
    /// Sections (runs of polygons drawn with one texture).
    pub sections: Vec<Odol7Section>,
    /// Named selections.
    pub selections: Vec<Odol7Selection>,
    /// Named properties (name, value).
    pub properties: Vec<(Text, Text)>,
    /// LOD frames.
    pub frames: Vec<OdolFrame>,
    /// Map icon colour.
    pub icon_colour: u32,
    /// Map selected colour.
    pub selected_colour: u32,
    /// Special flags.
    pub special: u32,
    /// Proxies.
    pub proxies: Vec<Odol7Proxy>,
}

/// One ODOL v7 polygon.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Odol7Face {
    /// Face flags.
    pub flags: u32,
    /// Texture index (−1: none).
    pub texture: i16,
    /// Vertex indices (3 or 4 in real files).
    pub vertices: Vec<u16>,
}

/// One ODOL v7 section (18 bytes).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Odol7Section {
    /// First polygon offset.
    pub first_face: u32,
    /// End polygon offset.
    pub end_face: u32,
    /// User value.
    pub user_value: u32,
    /// Texture index.
    pub texture: i16,
    /// Polygon flags.
    pub flags: u32,
}

/// One ODOL v7 named selection.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Odol7Selection {
    /// Selection name.
    pub name: Text,
    /// Polygon indices.
    pub faces: Vec<u16>,
    /// Polygon weights (always empty in known files).
    pub face_weights: Vec<u8>,
    /// Unknown u32 array.
    pub unknown: Vec<u32>,
    /// Whether the selection is sectional.
    pub sectional: u8,
    /// Section indices.
    pub sections: Vec<u32>,
    /// Vertex indices.
    pub vertices: Vec<u16>,
    /// Vertex weights.
    pub vertex_weights: Vec<u8>,
}

/// One ODOL v7 proxy.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Odol7Proxy {
    /// Proxy model name.
    pub name: Text,
    /// Transform: 3 × 3 orientation rows and the position.
    pub transform: [[f32; 3]; 4],
    /// Proxy sequence ID.
    pub sequence: u32,
    /// Named selection index.
    pub selection: u32,
}

/// The ODOL v7 model info, after the last LOD (144 bytes of fixed fields after the
/// resolutions, six flag bytes, a compressed array of masses, four masses, 12 bytes of
/// special-LOD indices).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Odol7ModelInfo {
    /// One resolution per LOD.
    pub resolutions: Vec<f32>,
    /// Index word.
    pub index: u32,
    /// Memory LOD bounding sphere radius.
    pub mem_lod_sphere: f32,
    /// Geometry LOD bounding sphere radius.
    pub geo_lod_sphere: f32,
    /// Three point-flag words.
    pub point_flags: [u32; 3],
    /// First offset vector.
    pub offset1: [f32; 3],
    /// Map icon colour.
    pub map_icon_colour: u32,
    /// Map selected colour.
    pub map_selected_colour: u32,
    /// View density.
    pub view_density: f32,
    /// Bounding box minimum.
    pub bbox_min: [f32; 3],
    /// Bounding box maximum.
    pub bbox_max: [f32; 3],
    /// Centre of gravity.
    pub centre_of_gravity: [f32; 3],
    /// Second offset vector.
    pub offset2: [f32; 3],
    /// Centre-of-gravity offset.
    pub cog_offset: [f32; 3],
    /// Mass inertia matrix.
    pub mass_vectors: [[f32; 3]; 3],
    /// Auto centre, lock auto centre, can occlude, can be occluded, allow animation, unknown.
    pub flags: [u8; 6],
    /// Per-point masses (compressed array).
    pub masses: Vec<f32>,
    /// Mass, its reciprocal, the alternative mass and its reciprocal.
    pub mass: [f32; 4],
    /// Special LOD indices, verbatim.
    pub special_lods: [u8; 12],
}

/// Where a LOD's parts start, as reader positions.
#[derive(Debug, Clone, Copy)]
pub(super) struct LodSpans {
    /// The frame count.
    pub frames_at: usize,
    /// The end of the LOD.
    pub end: usize,
}

fn vec3(r: &mut Reader<'_, Le>, what: &str) -> Result<[f32; 3]> {
    Ok([r.f32(what)?, r.f32(what)?, r.f32(what)?])
}

fn vec3s(r: &mut Reader<'_, Le>, n: usize, what: &str) -> Result<Vec<[f32; 3]>> {
    let b = r.bytes(n * 12, what)?;
    Ok(f32s(b)
        .chunks_exact(3)
        .map(|c| [c[0], c[1], c[2]])
        .collect())
}

/// Reads a whole v7 LOD at the reader's position.
pub(super) fn read_lod(r: &mut Reader<'_, Le>) -> Result<(Odol7Lod, LodSpans)> {
    let mut lod = read_geometry(r)?;
    let frames_at = r.position();
    lod.frames = super::odol::read_frames(r)?;
    read_tail(r, &mut lod)?;
    Ok((
        lod,
        LodSpans {
            frames_at,
            end: r.position(),
        },
    ))
}

/// Reads a v7 LOD from its start up to its frame count (vertex table, hints, bounds,
/// textures, edges, faces, sections, named selections, named properties).
pub(super) fn read_geometry(r: &mut Reader<'_, Le>) -> Result<Odol7Lod> {
    let mut l = Odol7Lod {
        vertex_flags: u32s(&compressed_array(r, 4, "vertex flags")?),
        ..Odol7Lod::default()
    };
    l.uvs = f32s(&compressed_array(r, 8, "vertex UVs")?)
        .chunks_exact(2)
        .map(|c| [c[0], c[1]])
        .collect();
    let n = r.u32("vertex count")?;
    let n = r.count(n as u64, 12, "vertex count")?;
    l.positions = vec3s(r, n, "vertex positions")?;
    let n = r.u32("normal count")?;
    let n = r.count(n as u64, 12, "normal count")?;
    l.normals = vec3s(r, n, "vertex normals")?;
    l.or_hints = r.u32("or-hints")?;
    l.and_hints = r.u32("and-hints")?;
    l.min = vec3(r, "bounding box minimum")?;
    l.max = vec3(r, "bounding box maximum")?;
    l.centre = vec3(r, "bounding centre")?;
    l.radius = r.f32("bounding radius")?;
    let n = r.u32("texture count")?;
    let n = r.count(n as u64, 1, "texture count")?;
    l.textures.reserve(n);
    for _ in 0..n {
        l.textures.push(Text::from(r.asciiz("texture name")?));
    }
    l.mlod_edges = u16s(&compressed_array(r, 2, "MLOD edge table")?);
    l.odol_edges = u16s(&compressed_array(r, 2, "ODOL edge table")?);
    let n = r.u32("face count")?;
    let n = r.count(n as u64, 7, "face count")?;
    l.face_data_size = r.u32("face data size")?;
    l.faces.reserve(n);
    for _ in 0..n {
        let flags = r.u32("face flags")?;
        let texture = r.i16("face texture index")?;
        let k = r.u8("face vertex count")? as usize;
        let vertices = u16s(r.bytes(2 * k, "face vertex indices")?);
        l.faces.push(Odol7Face {
            flags,
            texture,
            vertices,
        });
    }
    let n = r.u32("section count")?;
    let n = r.count(n as u64, 18, "section count")?;
    l.sections.reserve(n);
    for _ in 0..n {
        l.sections.push(Odol7Section {
            first_face: r.u32("section first polygon")?,
            end_face: r.u32("section end polygon")?,
            user_value: r.u32("section user value")?,
            texture: r.i16("section texture index")?,
            flags: r.u32("section polygon flags")?,
        });
    }
    let n = r.u32("named selection count")?;
    let n = r.count(n as u64, 1 + 6 * 4 + 1, "named selection count")?;
    l.selections.reserve(n);
    for _ in 0..n {
        l.selections.push(Odol7Selection {
            name: Text::from(r.asciiz("named selection name")?),
            faces: u16s(&compressed_array(r, 2, "selection faces")?),
            face_weights: compressed_array(r, 1, "selection face weights")?.into_owned(),
            unknown: u32s(&compressed_array(r, 4, "selection sections (unknown)")?),
            sectional: r.u8("selection is-sectional flag")?,
            sections: u32s(&compressed_array(r, 4, "selection sections")?),
            vertices: u16s(&compressed_array(r, 2, "selection vertices")?),
            vertex_weights: compressed_array(r, 1, "selection vertex weights")?.into_owned(),
        });
    }
    let n = r.u32("named property count")?;
    let n = r.count(n as u64, 2, "named property count")?;
    l.properties.reserve(n);
    for _ in 0..n {
        let name = Text::from(r.asciiz("property name")?);
        let value = Text::from(r.asciiz("property value")?);
        l.properties.push((name, value));
    }
    Ok(l)
}

/// Reads what follows a v7 LOD's frames: colours, special flags, proxies.
fn read_tail(r: &mut Reader<'_, Le>, l: &mut Odol7Lod) -> Result<()> {
    l.icon_colour = r.u32("LOD icon colour")?;
    l.selected_colour = r.u32("LOD selected colour")?;
    l.special = r.u32("LOD special flags")?;
    let n = r.u32("proxy count")?;
    let n = r.count(n as u64, 1 + 48 + 8, "proxy count")?;
    l.proxies.reserve(n);
    for _ in 0..n {
        let name = Text::from(r.asciiz("proxy name")?);
        let mut transform = [[0.0; 3]; 4];
        for row in &mut transform {
            *row = vec3(r, "proxy transform")?;
        }
        l.proxies.push(Odol7Proxy {
            name,
            transform,
            sequence: r.u32("proxy sequence ID")?,
            selection: r.u32("proxy named selection index")?,
        });
    }
    Ok(())
}

/// Reads the v7 model info of a model with `lods` LODs at the reader's position; bytes after
/// it are left unread.
pub(super) fn read_model_info(r: &mut Reader<'_, Le>, lods: usize) -> Result<Odol7ModelInfo> {
    let mut m = Odol7ModelInfo::default();
    r.count(lods as u64, 4, "model info resolutions (one per LOD)")?;
    m.resolutions = (0..lods)
        .map(|_| r.f32("LOD resolution"))
        .collect::<Result<_>>()?;
    m.index = r.u32("model info index")?;
    m.mem_lod_sphere = r.f32("memory LOD sphere radius")?;
    m.geo_lod_sphere = r.f32("geometry LOD sphere radius")?;
    for w in &mut m.point_flags {
        *w = r.u32("model point flags")?;
    }
    m.offset1 = vec3(r, "model offset")?;
    m.map_icon_colour = r.u32("map icon colour")?;
    m.map_selected_colour = r.u32("map selected colour")?;
    m.view_density = r.f32("view density")?;
    m.bbox_min = vec3(r, "model bounding box minimum")?;
    m.bbox_max = vec3(r, "model bounding box maximum")?;
    m.centre_of_gravity = vec3(r, "centre of gravity")?;
    m.offset2 = vec3(r, "second model offset")?;
    m.cog_offset = vec3(r, "centre-of-gravity offset")?;
    for row in &mut m.mass_vectors {
        *row = vec3(r, "mass inertia")?;
    }
    m.flags = r.array("model flags (auto centre, occlusion, animation)")?;
    m.masses = f32s(&compressed_array(r, 4, "model info masses")?);
    for x in &mut m.mass {
        *x = r.f32("model mass")?;
    }
    m.special_lods = r.array("special LOD indices")?;
    Ok(m)
}
