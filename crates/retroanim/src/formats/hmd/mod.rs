//! HMD: PlayStation libhmd hierarchical model, image and animation data (version 0x50).
//!
//! Sources: the seed `003_1e15be7fce037163.txt` (Sony *File Formats*, Nov 1998, pp. 2-49..2-133)
//! and `notes/hmd_layouts.md` (hmd.def, libhmd.h, the libhmd driver sources, the labp sources of
//! the sample files, PSXPrev). All little-endian; a word is 32 bits; every pointer is a word
//! offset from the start of the file (before GsMapUnit).
//!
//! | offset (words) | size | field | unit / meaning | source |
//! |---|---|---|---|---|
//! | 0 | 1 | version ID | 0x00000050 | seed "HMD Header" |
//! | 1 | 1 | MAP FLAG | 0 in files (see below) | seed; notes §2 |
//! | 2 | 1 | primitive header section pointer | word offset; MSB = mapped | seed; notes §2 |
//! | 3 | 1 | number of blocks N | coordinates + 2 | seed "HMD Header" |
//! | 4 | N | block pointers | word offset of the first primitive, 0 = empty; block 0 PRE-PROCESS, N−1 POST-PROCESS | seed "Primitive pointer table" |
//! | 4+N | 1 | coordinate count | | seed "Coordinate Section" |
//! | +1 | 20 each | GsCOORDUNIT | flg, MATRIX matrix, MATRIX workm, SVECTOR rot, super (word offset of the parent, 0 = none) | notes §1 |
//! | P | 1 | number of primitive headers | | notes §2 |
//! | +1 | 1+size each | primitive header | size, then words: MSB 1 = section pointer, MSB 0 = value | seed "Primitive Header" |
//! | prim | 3 | control section | next (0xFFFFFFFF = end), header pointer, type count (MSB = unmapped) | seed "Primitive structure" |
//! | +3 | 2+data | data section | type word, count/size (bits 15..0 size in words incl. itself, 30..16 count, 31 unscanned), data | notes §3 |
//!
//! Type word: bits 31..28 developer (0 SCE, 0xF user), 27..24 category, 23..16 driver bits,
//! 15..0 primitive type. Category data: 0 polygon index (upper 8 bits = division, see
//! [`TypeData::PolygonIndex`]); 1 the same for shared drivers, six words for pre-calculation
//! 0x01000000 ([`PreCalculation`]); 2 `[dx dy] [w h] index` (+ CLUT rectangle) per image; 3
//! sequence pointers ([`SequencePointer`], 7 words + 1 per extra sequence); 4 and 5 word offsets
//! into the MIMe DIFF section or the ground sections; 7 `[light number, parameter index]` for
//! lights, nothing for cameras. Section layouts: SVECTOR arrays for vertices and normals,
//! polygon packets per primitive type ([`Packet`], notes §4), the interpolation table (count
//! with MSB = unscanned, then type words), sequence descriptors ([`SequenceDescriptor`]) and key
//! frames ([`KeyFrame`], notes §7.5/7.6).
//!
//! How the file is modelled: the header fields, then [`Region`]s in file order: the coordinate
//! section, the primitive header section, each primitive, each section a header points to (it
//! ends where the next region starts) and any words nothing points to ([`RegionBody::Gap`]).
//! See [`write()`] for how pointers are recomputed.
//!
//! Playback and export: [`Player`] (module `play`) runs the standard frame update driver and
//! its interpolation drivers in the console's integer arithmetic (its docs list every reading
//! taken); [`Hmd::to_scene`] (module `scene`) builds the neutral scene for glTF from the
//! coordinates, the polygons, the devices and every sequence played out.
//!
//! Readings taken where the manual contradicts itself or is silent (following hmd.def, the
//! library sources and the sample data):
//! - **MAP FLAG**: p. 2-51 says 1 = mapped, p. 2-57 says 0 = mapped. Every sample file stores 0
//!   and labp writes 0; `validate` warns on any other value and treats the field as run time.
//! - **Animation section index**: p. 2-102 numbers the animation header's sections from the
//!   interpolation table (0); the drivers and the labp sources count from the header size word
//!   (0 = size word, 1 = interpolation table, 2 = control, 3 = parameters, 4.. = targets). We
//!   follow the library: [`UpdateIndex::section`] 4 is the first update target.
//! - **B-spline WORK parameter**: the manual fixes P1 = 127 for the WORK control descriptor; all
//!   sample data use P1 = 0. Both are accepted; P2 is the work area's word offset.
//! - **MIMe code values**: p. 2-119 gives CODE0 as 0 (joint) / 1 (vertex/normal); hmd.def and
//!   the sample types 0x04010010..0x04010029 put CODE0 at bits 5..4 with 1 = joint, 2 =
//!   vertex/normal, RST at bit 3 and CODE1 at bit 0. We follow hmd.def.
//! - **Count/size word**: the size counts the count/size word itself (labp `H(size); M(H(count))`);
//!   the data is read by the size field even where it disagrees with the type (STAR09 has such a
//!   word), and such data is kept raw.
//! - **Shared flat COL packets**: the manual says COL is not implemented for shared drivers;
//!   the samples (TILED.LAB) store flat COL shared polygons in the Gouraud layout without
//!   per-vertex colours, and they are decoded that way ([`PacketRun::primitive_type`] holds the
//!   layout used).
//! - **Polygon index**: a word offset into the polygon section for category 0; for the shared
//!   drivers of category 1 the samples only use 0, and it is read the same way.
//! - **Tiled textures**: p. 2-74 mentions a trailing reset word, but neither the packet listings
//!   nor the sample data have one; the window word is a prefix only.
//! - **Strip meshes**: `num` is the number of triangles (SWITCH.LAB: 29 = the first triangle
//!   and 28 groups of `[colour] [n1 n2] [n3 v3]`). Only the 0x18 / 0x1c patterns are pinned
//!   down by the manual and the samples; other strips keep their packets as raw words
//!   ([`PolygonItem::Raw`]) — exact, not typed.
//! - **Preset packets**: typed from the listings on pp. 2-82..2-86 (two GPU packets of DMA tag,
//!   colours, screen XY and UVs, then the indices; textured triangles put vert0 in the last UV
//!   word). No sample uses them. Preset strips stay raw.
//! - **TGT = 1 key frames**: the WRITE mask selects units; a key frame holds one value per set
//!   bit (three control points each for Bezier), packed at the unit length and padded to a word.
//!   The manual lists 0x03010222/0x03010242 with mask 0x1 in its macro column; we trust the
//!   bits of the type.
//! - **MIMe**: joint and vertex/normal DIFF blocks are typed ([`JointDiff`], [`VertexDiff`],
//!   [`VertexResetDiff`]) where a MIMe primitive points to them; a vertex/normal block whose data
//!   blocks are not laid out in order after it stays raw. ORGSVN and MIMEPR areas are run-time
//!   save areas and weights, kept as words / vectors.
//! - **Ground**: the polygon section ([`GroundPolygon`]), heights and grid entries are typed;
//!   a grid entry is one word for the textured type and two for the flat one, and one grid
//!   section may hold both (GROUND.HMD), so entries are placed by each primitive's grid offset,
//!   one per cell of its polygon section. The UV section is typed as 3-word groups when it
//!   holds whole groups.
//! - **Images**: pixel and CLUT data are kept as 16-bit VRAM units: the primitive stores no bit
//!   depth (a 16- or 256-entry CLUT implies 4 or 8 bits, PSXPrev's reading).
//! - **Indices are not pointers**: polygon, parameter, light and DIFF indices are offsets
//!   relative to a section; the writer keeps them as they are. Growing a section moves the
//!   sections after it (pointers follow) but does not renumber indices into the grown section.
//! - **Category 6** (environment map, beta): only LIBHMD.H's type names and `ENVMAP.DEF`'s bits
//!   are published. The sample LABs make the layout certain for the types LIBHMD.H names: they
//!   draw the category 0 / 1 polygons ([`TypeCode::drawn_as`]) — their sections take the same
//!   roles and their packets the same layouts; header words 3..12 (the map's image entries and
//!   bytes for texture mode, material, rates, screen colour) stay plain header words. Other
//!   category 6 types are kept raw.
//! - **Image entries short of the size field**: VENUS11.HMD's image primitive says 10 words for
//!   its one 3-word entry, the image data following the entry; the driver uploads `count`
//!   images, so a last image type is read by count (the size kept in `size_override`).
//! - **Developer ID 0xF** (user types) and unknown categories: kept raw, reported by `validate`.

pub mod author;
mod cat0_polygon;
mod cat3_anim;
mod cat4_mime;
mod cat5_ground;
mod cat7_device;
mod extent;
mod play;
mod read;
mod read_referenced;
mod scene;
mod shared;
mod types;
mod validate;
mod write;

use std::collections::BTreeMap;

pub use cat3_anim::{key_frame_at, Layout, Method, CONTROL_END, CONTROL_WORK};
pub use extent::{pointer_floor, structural_len};
pub use play::{
    apply, rot_matrix_order, sequence_count, stream_ids, CoordinatePose, DeviceState, Frame,
    JointMimeRecord, MimeState, PlayOptions, Player, SequenceState, VertexMimeTargets,
};
pub use read::{read, read_with};
pub use scene::{image_tims, Axes, SceneOptions};
pub use shared::{
    calculated_vectors, contiguous_vectors, shared_bindings, CalculatedVectors, SharedBinding,
};
pub use types::*;
pub use validate::validate;
pub use write::write;

/// The version ID (word 0).
pub const VERSION: u32 = 0x50;

/// The role of the section that word `index` (after the size word) of a primitive header
/// points to, given one type word of a primitive using that header.
pub(crate) fn role_of(type_code: u32, index: usize) -> Option<SectionRole> {
    use SectionRole::*;
    let t = TypeCode(type_code).drawn_as();
    if t.developer() != 0 {
        return None;
    }
    let pt = t.primitive_type();
    let roles: &[SectionRole] = match t.category() {
        0 => &[Polygon, Vertex, Normal],
        1 => &[Polygon, Vertex, CalculatedVertex, Normal, CalculatedNormal],
        2 => &[Image, Clut],
        3 => &[
            Unknown,
            InterpolationTable,
            SequenceControl,
            Parameters,
            AnimationTarget,
        ],
        4 => match pt & 0x38 {
            0x10 => &[Unknown, MimeWeights, Unknown, Unknown, MimeDiff],
            0x18 => &[Unknown, Unknown, MimeDiff],
            0x20 => &[
                MimeWeights,
                Unknown,
                Unknown,
                MimeDiff,
                MimeOriginal,
                Vertex,
                Normal,
            ],
            0x28 => &[Unknown, MimeDiff, MimeOriginal, Vertex, Normal],
            _ => return None,
        },
        5 => &[GroundPolygon, GroundGrid, GroundVertex, Normal, GroundUv],
        7 => &[DeviceParameters],
        _ => return None,
    };
    match roles.get(index) {
        Some(Unknown) => None,
        Some(r) => Some(*r),
        // Animation targets beyond the first are all targets.
        None if t.category() == 3 => Some(AnimationTarget),
        None => None,
    }
}

/// The summary `retroanim info` prints for an HMD.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Summary {
    /// Always `"hmd"`.
    pub format: &'static str,
    /// Number of primitive blocks.
    pub blocks: usize,
    /// Number of GsCOORDUNITs.
    pub coordinates: usize,
    /// Number of primitives reached from the block table.
    pub primitives: usize,
    /// Data sections per category (`"0"`..`"15"`) of SCE types; `"user"` for other
    /// developer IDs.
    pub primitive_types_by_category: BTreeMap<String, usize>,
    /// Distinct type words, in hex, ascending.
    pub type_codes: Vec<String>,
    /// Polygons drawn: the data counts of the polygon types (categories 0 and 1, and the
    /// environment maps drawing them, [`TypeCode::drawn_as`]).
    pub polygons: usize,
    /// SVECTORs in vertex sections.
    pub vertices: usize,
    /// Images uploaded by image primitives.
    pub images: usize,
    /// Sequence pointers of animation primitives.
    pub sequences: usize,
    /// Interpolation types over all interpolation tables.
    pub interpolation_types: usize,
    /// Sequence descriptors over all control sections.
    pub descriptors: usize,
    /// Decoded key frames.
    pub key_frames: usize,
    /// Words no pointer reaches.
    pub gap_words: usize,
}

impl Hmd {
    /// The summary `retroanim info` shows.
    pub fn summary(&self) -> Summary {
        let mut s = Summary {
            format: "hmd",
            blocks: self.blocks.len(),
            coordinates: 0,
            primitives: 0,
            primitive_types_by_category: BTreeMap::new(),
            type_codes: Vec::new(),
            polygons: 0,
            vertices: 0,
            images: 0,
            sequences: 0,
            interpolation_types: 0,
            descriptors: 0,
            key_frames: 0,
            gap_words: 0,
        };
        let mut codes = std::collections::BTreeSet::new();
        for r in &self.regions {
            match &r.body {
                RegionBody::Coordinates(c) => s.coordinates += c.len(),
                RegionBody::Primitive(p) => {
                    s.primitives += 1;
                    for t in &p.types {
                        codes.insert(t.type_code);
                        let key = match t.kind().developer() {
                            0 => t.kind().category().to_string(),
                            _ => "user".to_string(),
                        };
                        *s.primitive_types_by_category.entry(key).or_default() += 1;
                        match &t.data {
                            TypeData::PolygonIndex { .. } => s.polygons += t.count as usize,
                            TypeData::Images(v) => s.images += v.len(),
                            TypeData::Sequences(v) => s.sequences += v.len(),
                            _ => {}
                        }
                    }
                }
                RegionBody::Section(sec) => match &sec.data {
                    SectionData::Vectors { vectors, .. } if sec.role == SectionRole::Vertex => {
                        s.vertices += vectors.len()
                    }
                    SectionData::InterpolationTable { types, .. } => {
                        s.interpolation_types += types.len()
                    }
                    SectionData::SequenceControl(d) => s.descriptors += d.len(),
                    SectionData::Parameters(items) => {
                        s.key_frames += items
                            .iter()
                            .filter(|i| matches!(i, ParameterItem::KeyFrame { .. }))
                            .count()
                    }
                    _ => {}
                },
                RegionBody::Gap(g) => s.gap_words += g.len(),
                RegionBody::PrimitiveHeaders(_) => {}
            }
        }
        s.type_codes = codes.into_iter().map(|c| format!("0x{c:08x}")).collect();
        s
    }

    /// The regions that are primitives, with their word offsets.
    pub fn primitives(&self) -> impl Iterator<Item = (u32, &Primitive)> {
        self.regions.iter().filter_map(|r| match &r.body {
            RegionBody::Primitive(p) => Some((r.offset, p)),
            _ => None,
        })
    }

    /// The section read at word offset `at`.
    pub fn section_at(&self, at: u32) -> Option<&Section> {
        self.regions.iter().find_map(|r| match &r.body {
            RegionBody::Section(s) if r.offset == at => Some(s),
            _ => None,
        })
    }

    /// Mutable access to the section read at word offset `at`.
    pub fn section_at_mut(&mut self, at: u32) -> Option<&mut Section> {
        self.regions.iter_mut().find_map(|r| match &mut r.body {
            RegionBody::Section(s) if r.offset == at => Some(s),
            _ => None,
        })
    }

    /// The coordinate units, if the file has a coordinate section.
    pub fn coordinates(&self) -> Option<&[CoordUnit]> {
        self.regions.iter().find_map(|r| match &r.body {
            RegionBody::Coordinates(c) => Some(c.as_slice()),
            _ => None,
        })
    }

    /// The primitive headers with their word offsets.
    pub fn headers(&self) -> BTreeMap<u32, &PrimitiveHeader> {
        read::headers_by_offset(self)
    }
}

/// One animation primitive with the sections its header names: what a player steps through.
#[derive(Debug, Clone, PartialEq)]
pub struct Animation<'a> {
    /// Word offset of the animation primitive.
    pub primitive: u32,
    /// Its sequence pointers, over all its category 3 data sections.
    pub sequences: Vec<&'a SequencePointer>,
    /// The interpolation function table (type words), indexed by TYPE IDX.
    pub interpolation_types: &'a [u32],
    /// The sequence descriptors, indexed by the sequence pointers' descriptor indices.
    pub descriptors: &'a [SequenceDescriptor],
    /// The parameter section's items (see [`key_frame_at`]).
    pub parameters: &'a [ParameterItem],
    /// The header's section pointers by update-index section number (index 4 onwards are the
    /// update targets; the coordinate section is usually number 4).
    pub sections: Vec<Option<u32>>,
}

impl Animation<'_> {
    /// The interpolation type and key frame a key-frame descriptor names.
    pub fn key_frame(&self, descriptor: usize) -> Option<(InterpolationType, &KeyFrame)> {
        match self.descriptors.get(descriptor)? {
            SequenceDescriptor::KeyFrame {
                type_idx,
                param_idx,
                ..
            } => {
                let code = *self.interpolation_types.get(*type_idx as usize)?;
                let (_, frame) = key_frame_at(self.parameters, *param_idx)?;
                Some((InterpolationType::from_code(code), frame))
            }
            _ => None,
        }
    }
}

impl Hmd {
    /// Every animation primitive whose interpolation table, control and parameter sections were
    /// decoded.
    pub fn animations(&self) -> Vec<Animation<'_>> {
        let headers = self.headers();
        let by_offset: BTreeMap<u32, &Section> = self
            .regions
            .iter()
            .filter_map(|r| match &r.body {
                RegionBody::Section(s) => Some((r.offset, s)),
                _ => None,
            })
            .collect();
        let mut out = Vec::new();
        for (at, p) in self.primitives() {
            let sequences: Vec<&SequencePointer> = p
                .types
                .iter()
                .filter_map(|t| match &t.data {
                    TypeData::Sequences(s) => Some(s),
                    _ => None,
                })
                .flatten()
                .collect();
            if sequences.is_empty() {
                continue;
            }
            let Some(h) = headers.get(&p.header) else {
                continue;
            };
            // Section number k is header word k (word 0 is the animation header size).
            let sections: Vec<Option<u32>> = h.words.iter().map(|e| e.pointer()).collect();
            let data = |k: usize| {
                sections
                    .get(k)
                    .copied()
                    .flatten()
                    .and_then(|s| by_offset.get(&s))
                    .map(|s| &s.data)
            };
            let (
                Some(SectionData::InterpolationTable { types, .. }),
                Some(SectionData::SequenceControl(descriptors)),
                Some(SectionData::Parameters(parameters)),
            ) = (data(1), data(2), data(3))
            else {
                continue;
            };
            out.push(Animation {
                primitive: at,
                sequences,
                interpolation_types: types,
                descriptors,
                parameters,
                sections,
            });
        }
        out
    }

    /// The section number (header word) of animation primitive `a` that points at the
    /// coordinate section (usually 4; AMMONITE's is 5), if one does.
    pub fn coordinate_section(&self, a: &Animation<'_>) -> Option<usize> {
        let at = self
            .regions
            .iter()
            .find(|r| matches!(r.body, RegionBody::Coordinates(_)))?
            .offset;
        a.sections.iter().position(|&s| s == Some(at))
    }

    /// The coordinate (GsCOORDUNIT index) update index `update` of animation primitive `a`
    /// updates: one into its [`Hmd::coordinate_section`] at word 1 + 20·k is coordinate k.
    pub fn updated_coordinate(&self, a: &Animation<'_>, update: UpdateIndex) -> Option<usize> {
        (Some(update.section as usize) == self.coordinate_section(a))
            .then(|| update.coordinate())
            .flatten()
    }
}
