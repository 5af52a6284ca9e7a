//! Categories 0 and 1: polygon packets of the polygon section (notes §4; File Formats
//! pp. 2-63..2-90).
//!
//! A packet layout is a list of word slots; a [`Packet`] holds the values of those slots by
//! kind (colours, UVs, normal and vertex indices, padding) so that decoding and encoding are
//! the same walk over the slots. Preset packets (PST, File Formats pp. 2-82..2-86) hold two
//! copies of the GPU packet (DMA tag, colours, screen XY, UVs) and then the vertex indices.
//! Strip meshes are typed for 0x18 and 0x1c, the only pattern the samples pin down (notes §13);
//! other strips and preset strips are kept as raw words.
//!
//! Length: the code is under 800 lines; the unit tests beside it (every layout decoded and
//! encoded again) bring the file past that, and stay here to read next to the layouts.

use crate::bytes::{ByteOrder, Le};
use std::sync::OnceLock;

use arrayvec::ArrayVec;
use serde::{Deserialize, Serialize};

use crate::formats::is_default;
use crate::{Error, Format, Result};

/// A halfword slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Half {
    N(u8),
    V(u8),
    Pad,
    Cba,
    Tsb,
}

/// A word slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Slot {
    /// `[r g b code]`.
    Color,
    /// Tiled-texture window word.
    Window,
    /// `[u v aux]`.
    Uv(Half),
    /// Two halfwords.
    Pair(Half, Half),
    /// A DMA tag word (preset packets).
    Tag,
    /// A screen position `[x y]` (preset packets).
    Xy,
}

use Half::*;
use Slot::*;

const TRI_LIT_INDICES_FLAT: [Slot; 2] = [Pair(N(0), V(0)), Pair(V(1), V(2))];
const TRI_LIT_INDICES_GOURAUD: [Slot; 3] = [Pair(N(0), V(0)), Pair(N(1), V(1)), Pair(N(2), V(2))];
const QUAD_LIT_INDICES_FLAT: [Slot; 3] = [Pair(N(0), V(0)), Pair(V(1), V(2)), Pair(V(3), Pad)];
const QUAD_LIT_INDICES_GOURAUD: [Slot; 4] = [
    Pair(N(0), V(0)),
    Pair(N(1), V(1)),
    Pair(N(2), V(2)),
    Pair(N(3), V(3)),
];

/// Most word slots a packet has: a textured Gouraud preset quad's two 13-word GPU packets and
/// two index words.
const MAX_SLOTS: usize = 28;

/// A packet's word slots, held inline (a test checks every type fits).
type Slots = ArrayVec<Slot, MAX_SLOTS>;

/// The slots of a packet for the PRIMITIVE TYPE bits `pt`, or `None` for strips, presets and
/// combinations the manual does not list.
fn layout(pt: u16) -> Option<Slots> {
    let tme = pt & 1 != 0;
    let col = pt & 2 != 0;
    let iip = pt & 4 != 0;
    let code = (pt >> 3) & 7;
    let lmd = pt & 0x40 != 0;
    if pt & 0x100 != 0 {
        return preset_layout(pt);
    }
    if pt & !0x027F != 0 || !(1..=2).contains(&code) {
        return None;
    }
    let quad = code == 2;
    let corners = if quad { 4 } else { 3 };
    let mut s = Slots::new();
    if pt & 0x200 != 0 {
        if !tme {
            return None;
        }
        s.push(Window);
    }
    if !lmd {
        // With lighting: per-vertex colours only with COL; textured packets have no colour word
        // unless COL.
        if col {
            s.extend(std::iter::repeat(Color).take(corners));
        } else if !tme {
            s.push(Color);
        }
        if tme {
            s.extend([Uv(Cba), Uv(Tsb)]);
            match (quad, iip) {
                (false, _) => s.push(Uv(Pad)),
                (true, false) => s.extend([Uv(Pad), Uv(N(0))]),
                (true, true) => s.extend([Uv(N(0)), Uv(V(0))]),
            }
            match (quad, iip) {
                (false, false) => s.extend(TRI_LIT_INDICES_FLAT),
                (false, true) => s.extend(TRI_LIT_INDICES_GOURAUD),
                (true, false) => s.extend([Pair(V(0), V(1)), Pair(V(2), V(3))]),
                (true, true) => s.extend([Pair(N(1), V(1)), Pair(N(2), V(2)), Pair(N(3), V(3))]),
            }
        } else {
            match (quad, iip) {
                (false, false) => s.extend(TRI_LIT_INDICES_FLAT),
                (false, true) => s.extend(TRI_LIT_INDICES_GOURAUD),
                (true, false) => s.extend(QUAD_LIT_INDICES_FLAT),
                (true, true) => s.extend(QUAD_LIT_INDICES_GOURAUD),
            }
        }
    } else {
        if col {
            return None;
        }
        // Without lighting: one colour (flat) or one per corner (Gouraud), no normals.
        s.extend(std::iter::repeat(Color).take(if iip { corners } else { 1 }));
        if tme {
            s.extend([Uv(Cba), Uv(Tsb), Uv(V(0))]);
            if quad {
                s.extend([Uv(V(1)), Pair(V(2), V(3))]);
            } else {
                s.push(Pair(V(1), V(2)));
            }
        } else if quad {
            s.extend([Pair(V(0), V(1)), Pair(V(2), V(3))]);
        } else {
            s.extend([Pair(V(0), V(1)), Pair(V(2), Pad)]);
        }
    }
    Some(s)
}

/// A type's packet slots with what a packet's lists need to fill them.
struct PacketLayout {
    slots: Slots,
    need: Needs,
}

/// The packet layout of the PRIMITIVE TYPE bits `pt` ([`layout`]), built once for every type
/// on first use: every type with a layout is below 0x400 (a test checks).
fn packet_layout(pt: u16) -> Option<&'static PacketLayout> {
    static TABLE: OnceLock<Vec<Option<PacketLayout>>> = OnceLock::new();
    TABLE
        .get_or_init(|| {
            (0..0x400)
                .map(|pt| {
                    layout(pt).map(|slots| PacketLayout {
                        need: Needs::of(&slots),
                        slots,
                    })
                })
                .collect()
        })
        .get(usize::from(pt))?
        .as_ref()
}

/// Slots of a preset packet: two GPU packets, then the vertex indices (unlit types only).
fn preset_layout(pt: u16) -> Option<Slots> {
    let tme = pt & 1 != 0;
    let iip = pt & 4 != 0;
    let code = (pt >> 3) & 7;
    if pt & !0x017D != 0 || pt & 0x40 == 0 || !(1..=2).contains(&code) {
        return None;
    }
    let corners = if code == 2 { 4 } else { 3 };
    let mut gpu = Slots::new();
    gpu.push(Tag);
    for i in 0..corners {
        if i == 0 || iip {
            gpu.push(Color);
        }
        gpu.push(Xy);
        if tme {
            gpu.push(Uv(match i {
                0 => Cba,
                1 => Tsb,
                _ => Pad,
            }));
        }
    }
    let mut s = gpu.clone();
    s.extend(gpu);
    match (corners, tme) {
        (3, true) => {
            // The last UV word of the second copy carries vert0.
            let last = s.len() - 1;
            s[last] = Uv(V(0));
            s.push(Pair(V(1), V(2)));
        }
        (3, false) => s.extend([Pair(V(0), V(1)), Pair(V(2), Pad)]),
        _ => s.extend([Pair(V(0), V(1)), Pair(V(2), V(3))]),
    }
    Some(s)
}

/// Slots of a strip mesh's first triangle and of each further strip vertex, for the strip types
/// whose pattern the manual and the samples pin down: 0x18 (flat) and 0x1c (Gouraud), no
/// texture, with normals. `[num 0]` comes first; `num` is the number of triangles (SWITCH.LAB:
/// num 29 = the first triangle + 28 groups).
fn strip_layout(pt: u16) -> Option<(&'static [Slot], &'static [Slot])> {
    match pt {
        0x18 => Some((
            &[Color, Pair(N(0), V(0)), Pair(V(1), V(2))],
            &[Color, Pair(N(0), V(0))],
        )),
        0x1c => Some((
            &[Color, Pair(N(0), V(0)), Pair(N(1), V(1)), Pair(N(2), V(2))],
            &[Color, Pair(N(0), N(1)), Pair(N(2), V(0))],
        )),
        _ => None,
    }
}

/// One strip mesh: `[num pad]`, the first triangle, then one group per further vertex.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Strip {
    /// The halfword after `num`.
    #[serde(default, skip_serializing_if = "is_default")]
    pub pad: u16,
    /// The first triangle.
    pub first: Packet,
    /// One group per further strip vertex: its colour, the normals (the two before and its
    /// own) and its vertex. `num` is written as `1 + extra.len()`.
    pub extra: Vec<Packet>,
}

/// Strips of one primitive type, back to back.
///
/// The run holds the strips' words as the file has them and decodes a strip when asked for
/// ([`StripRun::strips`]): reading and writing copy words, nothing more. Made only by the
/// reader or by [`StripRun::new`], so the words always hold whole strips of a typed strip
/// layout.
#[derive(Clone, PartialEq, Eq)]
pub struct StripRun {
    primitive_type: u16,
    count: usize,
    words: Vec<u32>,
}

impl StripRun {
    /// Encodes `strips` of type `primitive_type` (0x18 or 0x1c, the typed strip layouts);
    /// fails when the type has no typed layout, a strip has no triangle or more than 65,535,
    /// or a packet's lists do not match the layout.
    pub fn new(primitive_type: u16, strips: &[Strip]) -> Result<StripRun> {
        let (a, b) = strip_layout(primitive_type).ok_or_else(|| {
            unencodable(format!(
                "primitive type 0x{primitive_type:x} has no typed strip layout"
            ))
        })?;
        let (need_a, need_b) = (Needs::of(a), Needs::of(b));
        let mut words = Vec::new();
        for (i, s) in strips.iter().enumerate() {
            let num = u16::try_from(1 + s.extra.len())
                .map_err(|_| unencodable(format!("strip {i} has more than 65,535 triangles")))?;
            words.push(num as u32 | (s.pad as u32) << 16);
            s.first
                .encode(a, &need_a, &mut words)
                .ok_or_else(|| mismatch(primitive_type, i))?;
            for e in &s.extra {
                e.encode(b, &need_b, &mut words)
                    .ok_or_else(|| mismatch(primitive_type, i))?;
            }
        }
        Ok(StripRun {
            primitive_type,
            count: strips.len(),
            words,
        })
    }

    /// The PRIMITIVE TYPE bits.
    pub fn primitive_type(&self) -> u16 {
        self.primitive_type
    }

    /// Number of strips.
    pub fn len(&self) -> usize {
        self.count
    }

    /// Whether the run has no strip.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// The strips' words, as written to the file.
    pub fn words(&self) -> &[u32] {
        &self.words
    }

    /// The strips, decoded one at a time.
    pub fn strips(&self) -> impl Iterator<Item = Strip> + '_ {
        let layout =
            strip_layout(self.primitive_type).map(|(a, b)| (a, b, Needs::of(a), Needs::of(b)));
        let mut at = 0usize;
        std::iter::from_fn(move || {
            let (a, b, need_a, need_b) = layout.as_ref()?;
            let head = *self.words.get(at)?;
            let num = (head & 0xFFFF) as usize;
            let first = self.words.get(at + 1..at + 1 + a.len())?;
            let end = at + 1 + a.len() + num.checked_sub(1)? * b.len();
            let extra = self.words.get(at + 1 + a.len()..end)?;
            at = end;
            Some(Strip {
                pad: (head >> 16) as u16,
                first: Packet::decode(a, need_a, first)?,
                extra: extra
                    .chunks_exact(b.len().max(1))
                    .filter_map(|c| Packet::decode(b, need_b, c))
                    .collect(),
            })
        })
    }
}

impl std::fmt::Debug for StripRun {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StripRun")
            .field("primitive_type", &self.primitive_type)
            .field("strips", &self.strips().collect::<Vec<_>>())
            .finish()
    }
}

/// The JSON form of a [`StripRun`]: its type and the decoded strips.
#[derive(Serialize, Deserialize)]
struct StripRunJson {
    primitive_type: u16,
    strips: Vec<Strip>,
}

impl Serialize for StripRun {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        StripRunJson {
            primitive_type: self.primitive_type,
            strips: self.strips().collect(),
        }
        .serialize(s)
    }
}

impl<'de> Deserialize<'de> for StripRun {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let j = StripRunJson::deserialize(d)?;
        StripRun::new(j.primitive_type, &j.strips).map_err(serde::de::Error::custom)
    }
}

/// Decodes `count` strips of type `pt` from the start of `w`; returns them and the words used.
/// Only the strip heads are walked: every strip's words are there and its packets fit the
/// layout (a test checks every typed layout decodes).
pub fn decode_strips(pt: u16, count: usize, w: &[u32]) -> Option<(StripRun, usize)> {
    let (a, b) = strip_layout(pt)?;
    let mut at = 0usize;
    for _ in 0..count {
        let num = (*w.get(at)? & 0xFFFF) as usize;
        if num == 0 {
            return None;
        }
        at = at
            .checked_add(1 + a.len())?
            .checked_add((num - 1) * b.len())?;
        if at > w.len() {
            return None;
        }
    }
    Some((
        StripRun {
            primitive_type: pt,
            count,
            words: w[..at].to_vec(),
        },
        at,
    ))
}

/// Words one packet of primitive type `pt` takes, when the layout is known.
pub fn packet_words(pt: u16) -> Option<usize> {
    packet_layout(pt).map(|l| l.slots.len())
}

/// A texture coordinate word's `u` and `v`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct UvWord {
    /// u, v.
    pub uv: [u8; 2],
}

/// Most colour words a packet has: a Gouraud preset quad's two GPU packets, 4 each.
pub const MAX_COLORS: usize = 8;
/// Most texture-coordinate words a packet has: a textured preset quad's two GPU packets.
pub const MAX_UVS: usize = 8;
/// Most normal indices a packet has (a Gouraud quad's).
pub const MAX_NORMALS: usize = 4;
/// Most vertex indices a packet has (a quad's).
pub const MAX_VERTICES: usize = 4;
/// Most padding halfwords a packet has (a textured preset quad's).
pub const MAX_PADS: usize = 4;
/// Most DMA tag words a packet has (a preset packet's two).
pub const MAX_TAGS: usize = 2;
/// Most screen positions a packet has (a preset quad's two GPU packets, 4 each).
pub const MAX_SCREEN: usize = 8;

/// One polygon packet.
///
/// The lists are held inline with the capacity the largest layout of the manual needs (the
/// `MAX_*` constants), so reading a packet allocates nothing; in JSON they are plain arrays.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Packet {
    /// Tiled-texture window word `0xE2000000 | TUM | TVM<<5 | TUA<<10 | TVA<<15`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<u32>,
    /// Colour words `[r g b code]` (code = the GPU command byte).
    #[serde(default, skip_serializing_if = "ArrayVec::is_empty")]
    pub colors: ArrayVec<[u8; 4], MAX_COLORS>,
    /// Texture coordinates per corner.
    #[serde(default, skip_serializing_if = "ArrayVec::is_empty")]
    pub uvs: ArrayVec<UvWord, MAX_UVS>,
    /// CLUT position word (textured packets).
    #[serde(default, skip_serializing_if = "is_default")]
    pub cba: u16,
    /// Texture page word (textured packets).
    #[serde(default, skip_serializing_if = "is_default")]
    pub tsb: u16,
    /// Normal indices.
    #[serde(default, skip_serializing_if = "ArrayVec::is_empty")]
    pub normals: ArrayVec<u16, MAX_NORMALS>,
    /// Vertex indices.
    pub vertices: ArrayVec<u16, MAX_VERTICES>,
    /// Padding halfwords, in order.
    #[serde(default, skip_serializing_if = "ArrayVec::is_empty")]
    pub pads: ArrayVec<u16, MAX_PADS>,
    /// DMA tag words of a preset packet's two GPU packets.
    #[serde(default, skip_serializing_if = "ArrayVec::is_empty")]
    pub tags: ArrayVec<u32, MAX_TAGS>,
    /// Screen positions of a preset packet's two GPU packets, in order.
    #[serde(default, skip_serializing_if = "ArrayVec::is_empty")]
    pub screen: ArrayVec<[i16; 2], MAX_SCREEN>,
}

/// How many values of each kind a layout's slots hold: what a packet's lists must match.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Needs {
    normals: usize,
    vertices: usize,
    pads: usize,
    colors: usize,
    uvs: usize,
    window: bool,
    tags: usize,
    screen: usize,
}

impl Needs {
    fn of(slots: &[Slot]) -> Needs {
        Needs {
            normals: slots.iter().map(|s| max_index(s, true)).max().unwrap_or(0),
            vertices: slots.iter().map(|s| max_index(s, false)).max().unwrap_or(0),
            pads: slots
                .iter()
                .map(|s| match s {
                    Uv(Pad) => 1,
                    Pair(a, b) => usize::from(*a == Pad) + usize::from(*b == Pad),
                    _ => 0,
                })
                .sum(),
            colors: slots.iter().filter(|s| **s == Color).count(),
            uvs: slots.iter().filter(|s| matches!(s, Uv(_))).count(),
            window: slots.contains(&Window),
            tags: slots.iter().filter(|s| **s == Tag).count(),
            screen: slots.iter().filter(|s| **s == Xy).count(),
        }
    }
}

impl Packet {
    /// Decodes one packet of a layout whose [`Needs`] are `need`; `None` only if the layout
    /// held more of a kind than its `MAX_*` capacity (a test checks that none does).
    fn decode(slots: &[Slot], need: &Needs, w: &[u32]) -> Option<Packet> {
        let mut p = Packet::default();
        let mut normals = [0u16; MAX_NORMALS];
        let mut vertices = [0u16; MAX_VERTICES];
        let mut half = |p: &mut Packet, h: Half, v: u16| -> Option<()> {
            match h {
                N(i) => *normals.get_mut(i as usize)? = v,
                V(i) => *vertices.get_mut(i as usize)? = v,
                Pad => p.pads.try_push(v).ok()?,
                Cba => p.cba = v,
                Tsb => p.tsb = v,
            }
            Some(())
        };
        for (slot, &x) in slots.iter().zip(w) {
            match *slot {
                Color => p.colors.try_push(Le::u32_to(x)).ok()?,
                Window => p.window = Some(x),
                Tag => p.tags.try_push(x).ok()?,
                Xy => p.screen.try_push([x as i16, (x >> 16) as i16]).ok()?,
                Uv(h) => {
                    p.uvs
                        .try_push(UvWord {
                            uv: [x as u8, (x >> 8) as u8],
                        })
                        .ok()?;
                    half(&mut p, h, (x >> 16) as u16)?;
                }
                Pair(a, b) => {
                    half(&mut p, a, x as u16)?;
                    half(&mut p, b, (x >> 16) as u16)?;
                }
            }
        }
        p.normals = ArrayVec::from(normals);
        p.normals.truncate(need.normals);
        p.vertices = ArrayVec::from(vertices);
        p.vertices.truncate(need.vertices);
        Some(p)
    }

    /// Encodes in `slots` (whose [`Needs`] are `need`); `None` when the packet's lists do not
    /// match the layout.
    fn encode(&self, slots: &[Slot], need: &Needs, out: &mut Vec<u32>) -> Option<()> {
        let (mut c, mut u, mut pads, mut tg, mut xy) = (0usize, 0usize, 0usize, 0usize, 0usize);
        if self.normals.len() != need.normals
            || self.vertices.len() != need.vertices
            || self.pads.len() != need.pads
            || self.colors.len() != need.colors
            || self.uvs.len() != need.uvs
            || self.window.is_some() != need.window
            || self.tags.len() != need.tags
            || self.screen.len() != need.screen
            || (need.uvs == 0 && (self.cba != 0 || self.tsb != 0))
        {
            return None;
        }
        let mut half = |h: Half| -> u16 {
            match h {
                N(i) => self.normals[i as usize],
                V(i) => self.vertices[i as usize],
                Pad => {
                    pads += 1;
                    self.pads[pads - 1]
                }
                Cba => self.cba,
                Tsb => self.tsb,
            }
        };
        for slot in slots {
            out.push(match *slot {
                Color => {
                    c += 1;
                    Le::u32_from(self.colors[c - 1])
                }
                Window => self.window.unwrap_or(0),
                Tag => {
                    tg += 1;
                    self.tags[tg - 1]
                }
                Xy => {
                    xy += 1;
                    let [x, y] = self.screen[xy - 1];
                    x as u16 as u32 | (y as u16 as u32) << 16
                }
                Uv(h) => {
                    u += 1;
                    let [a, b] = self.uvs[u - 1].uv;
                    a as u32 | (b as u32) << 8 | (half(h) as u32) << 16
                }
                Pair(a, b) => half(a) as u32 | (half(b) as u32) << 16,
            });
        }
        Some(())
    }
}

fn max_index(s: &Slot, normal: bool) -> usize {
    let f = |h: &Half| match (h, normal) {
        (N(i), true) | (V(i), false) => *i as usize + 1,
        _ => 0,
    };
    match s {
        Uv(h) => f(h),
        Pair(a, b) => f(a).max(f(b)),
        _ => 0,
    }
}

/// Packets of one primitive type, back to back.
///
/// The run holds the packets' words as the file has them and decodes a packet when asked for
/// ([`PacketRun::get`], [`PacketRun::packets`]): reading and writing copy words, nothing
/// more. Made only by the reader or by [`PacketRun::new`], so the words always hold whole
/// packets of a known layout.
#[derive(Clone, PartialEq, Eq)]
pub struct PacketRun {
    primitive_type: u16,
    /// Words per packet (never 0).
    size: usize,
    words: Vec<u32>,
}

impl PacketRun {
    /// Encodes `packets` of type `primitive_type`; fails when the type's layout is unknown
    /// (strips, combinations the manual does not list) or a packet's lists do not match it.
    pub fn new(primitive_type: u16, packets: &[Packet]) -> Result<PacketRun> {
        let PacketLayout { slots, need } = packet_layout(primitive_type)
            .filter(|l| !l.slots.is_empty())
            .ok_or_else(|| {
                unencodable(format!(
                    "primitive type 0x{primitive_type:x} has no packet layout"
                ))
            })?;
        let mut words = Vec::with_capacity(slots.len() * packets.len());
        for (i, p) in packets.iter().enumerate() {
            p.encode(slots, need, &mut words)
                .ok_or_else(|| mismatch(primitive_type, i))?;
        }
        Ok(PacketRun {
            primitive_type,
            size: slots.len(),
            words,
        })
    }

    /// The PRIMITIVE TYPE bits the packets were decoded with (bits 15..0 of the type word).
    pub fn primitive_type(&self) -> u16 {
        self.primitive_type
    }

    /// Number of packets.
    pub fn len(&self) -> usize {
        self.words.len() / self.size
    }

    /// Whether the run has no packet.
    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    /// The packets' words, as written to the file.
    pub fn words(&self) -> &[u32] {
        &self.words
    }

    /// Packet `i`.
    pub fn get(&self, i: usize) -> Option<Packet> {
        let l = packet_layout(self.primitive_type)?;
        let w = self
            .words
            .get(i.checked_mul(self.size)?..)?
            .get(..self.size)?;
        Packet::decode(&l.slots, &l.need, w)
    }

    /// The packets, decoded one at a time.
    pub fn packets(&self) -> impl ExactSizeIterator<Item = Packet> + '_ {
        let l = packet_layout(self.primitive_type);
        self.words.chunks_exact(self.size).map(move |w| {
            l.and_then(|l| Packet::decode(&l.slots, &l.need, w))
                .unwrap_or_default()
        })
    }

    /// Replaces packet `i`; fails when there is no packet `i` or `packet`'s lists do not match
    /// the run's layout (the run is then unchanged).
    pub fn set(&mut self, i: usize, packet: &Packet) -> Result<()> {
        let mut w = Vec::with_capacity(self.size);
        packet_layout(self.primitive_type)
            .and_then(|l| packet.encode(&l.slots, &l.need, &mut w))
            .ok_or_else(|| mismatch(self.primitive_type, i))?;
        let at = i
            .checked_mul(self.size)
            .and_then(|at| self.words.get_mut(at..)?.get_mut(..self.size))
            .ok_or_else(|| unencodable(format!("packet run has no packet {i}")))?;
        at.copy_from_slice(&w);
        Ok(())
    }
}

impl std::fmt::Debug for PacketRun {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PacketRun")
            .field("primitive_type", &self.primitive_type)
            .field("packets", &self.packets().collect::<Vec<_>>())
            .finish()
    }
}

/// The JSON form of a [`PacketRun`]: its type and the decoded packets.
#[derive(Serialize, Deserialize)]
struct PacketRunJson {
    primitive_type: u16,
    packets: Vec<Packet>,
}

impl Serialize for PacketRun {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        PacketRunJson {
            primitive_type: self.primitive_type,
            packets: self.packets().collect(),
        }
        .serialize(s)
    }
}

impl<'de> Deserialize<'de> for PacketRun {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let j = PacketRunJson::deserialize(d)?;
        PacketRun::new(j.primitive_type, &j.packets).map_err(serde::de::Error::custom)
    }
}

fn unencodable(what: String) -> Error {
    Error::Unencodable {
        format: Format::Hmd,
        what,
    }
}

fn mismatch(pt: u16, i: usize) -> Error {
    unencodable(format!(
        "packet {i} of type 0x{pt:x}: its colours, UVs or indices do not match the type's layout"
    ))
}

/// One item of a polygon section.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PolygonItem {
    /// Packets a polygon primitive points to.
    Packets(PacketRun),
    /// Strip meshes a polygon primitive points to.
    Strips(StripRun),
    /// Words of strips, presets, unknown types or no primitive.
    Raw(Vec<u32>),
}

impl PolygonItem {
    /// Words the item takes.
    pub fn words(&self) -> &[u32] {
        match self {
            PolygonItem::Packets(r) => &r.words,
            PolygonItem::Strips(r) => &r.words,
            PolygonItem::Raw(w) => w,
        }
    }

    /// The highest vertex and the highest normal index the item's packets name — for strips,
    /// those their triangles use (the first triangle's, and per further vertex that group's
    /// vertex and normals) — read from the words without decoding packets. `None` where the
    /// item names none.
    pub fn top_indices(&self) -> (Option<u16>, Option<u16>) {
        let mut top = (None, None);
        match self {
            PolygonItem::Packets(r) => {
                if let Some(l) = packet_layout(r.primitive_type) {
                    for w in r.words.chunks_exact(r.size) {
                        slot_indices(&l.slots, w, false, &mut top);
                    }
                }
            }
            PolygonItem::Strips(r) => {
                let Some((a, b)) = strip_layout(r.primitive_type) else {
                    return top;
                };
                // As [`StripRun::strips`] walks them.
                let mut at = 0usize;
                while let Some(&head) = r.words.get(at) {
                    let Some(extra) = ((head & 0xFFFF) as usize).checked_sub(1) else {
                        break;
                    };
                    let end = at + 1 + a.len() + extra * b.len();
                    let (Some(first), Some(groups)) = (
                        r.words.get(at + 1..at + 1 + a.len()),
                        r.words.get(at + 1 + a.len()..end),
                    ) else {
                        break;
                    };
                    slot_indices(a, first, false, &mut top);
                    for g in groups.chunks_exact(b.len().max(1)) {
                        slot_indices(b, g, true, &mut top);
                    }
                    at = end;
                }
            }
            PolygonItem::Raw(_) => {}
        }
        top
    }
}

/// Raises `top` (highest vertex, highest normal) to the indices in the words `w` of a packet
/// laid out as `slots`; with `first_vertex`, only its vertex 0 counts.
fn slot_indices(
    slots: &[Slot],
    w: &[u32],
    first_vertex: bool,
    top: &mut (Option<u16>, Option<u16>),
) {
    let mut half = |h: Half, v: u16| match h {
        V(i) if !first_vertex || i == 0 => top.0 = top.0.max(Some(v)),
        N(_) => top.1 = top.1.max(Some(v)),
        _ => {}
    };
    for (slot, &x) in slots.iter().zip(w) {
        match *slot {
            Uv(h) => half(h, (x >> 16) as u16),
            Pair(a, b) => {
                half(a, x as u16);
                half(b, (x >> 16) as u16);
            }
            _ => {}
        }
    }
}

/// Decodes `count` packets of type `pt` from the start of `w`, when the layout is known and
/// they fit. Only the words are copied: every layout decodes any words (a test checks).
#[cfg(test)]
fn decode_run(pt: u16, count: usize, w: &[u32]) -> Option<PacketRun> {
    let n = packet_words(pt)?;
    run_of_words(pt, n, w.get(..n.checked_mul(count)?)?)
}

/// The packets of type `pt` whose layout takes `n` words ([`packet_words`]) held in `w`.
pub(crate) fn run_of_words(pt: u16, n: usize, w: &[u32]) -> Option<PacketRun> {
    (n > 0 && w.len() % n == 0).then(|| PacketRun {
        primitive_type: pt,
        size: n,
        words: w.to_vec(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn top_indices_are_those_the_packets_and_strip_triangles_name() {
        let packet = |vertices: &[u16], normals: &[u16]| Packet {
            colors: [[1, 2, 3, 0x30]].into_iter().collect(),
            vertices: vertices.iter().copied().collect(),
            normals: normals.iter().copied().collect(),
            ..Packet::default()
        };
        // Gouraud strips (0x1c): the first triangle, then per vertex three normals and it.
        let strips = [
            Strip {
                pad: 0,
                first: packet(&[1, 2, 3], &[4, 5, 6]),
                extra: vec![packet(&[12], &[7, 8, 9]), packet(&[10], &[3, 2, 1])],
            },
            Strip {
                pad: 0,
                first: packet(&[0, 5, 11], &[0, 1, 2]),
                extra: vec![],
            },
        ];
        let run = StripRun::new(0x1c, &strips).unwrap();
        let item = PolygonItem::Strips(run);
        assert_eq!(item.top_indices(), (Some(12), Some(9)));
        // The same as the triangles the scene builds from them.
        let tris = match &item {
            PolygonItem::Strips(r) => crate::formats::hmd::scene::strip_triangles(r),
            _ => unreachable!(),
        };
        let top_v = tris.iter().flat_map(|p| p.vertices.iter().copied()).max();
        let top_n = tris.iter().flat_map(|p| p.normals.iter().copied()).max();
        assert_eq!(item.top_indices(), (top_v, top_n));
        // A run of lit Gouraud triangles (0x0c): every corner and normal counts.
        let run = PacketRun::new(
            0x0c,
            &[
                packet(&[3, 40, 2], &[6, 0, 1]),
                packet(&[1, 2, 7], &[2, 9, 3]),
            ],
        )
        .unwrap();
        assert_eq!(PolygonItem::Packets(run).top_indices(), (Some(40), Some(9)));
        assert_eq!(PolygonItem::Raw(vec![1, 2, 3]).top_indices(), (None, None));
    }

    #[test]
    fn every_listed_type_has_its_manual_packet_size() {
        // (type, words) from the notes' packet tables.
        let sizes = [
            (0x08, 3),
            (0x0c, 4),
            (0x0a, 5),
            (0x0e, 6),
            (0x09, 5),
            (0x0d, 6),
            (0x0b, 8),
            (0x0f, 9),
            (0x10, 4),
            (0x14, 5),
            (0x12, 7),
            (0x16, 8),
            (0x11, 6),
            (0x15, 7),
            (0x13, 10),
            (0x17, 11),
            (0x48, 3),
            (0x4c, 5),
            (0x49, 5),
            (0x4d, 7),
            (0x50, 3),
            (0x54, 6),
            (0x51, 6),
            (0x55, 9),
            (0x209, 6),
            (0x251, 7),
        ];
        for (pt, words) in sizes {
            assert_eq!(packet_words(pt), Some(words), "type 0x{pt:x}");
        }
        assert_eq!(packet_words(0x18), None, "strips are kept raw");
        // Presets (pp. 2-82..2-86): two GPU packets, then indices.
        for (pt, words) in [
            (0x148, 2 * 5 + 2),
            (0x14c, 2 * 7 + 2),
            (0x149, 2 * 8 + 1),
            (0x14d, 2 * 10 + 1),
            (0x150, 2 * 6 + 2),
            (0x154, 2 * 9 + 2),
            (0x151, 2 * 10 + 2),
            (0x155, 2 * 13 + 2),
        ] {
            assert_eq!(packet_words(pt), Some(words), "preset 0x{pt:x}");
        }
        assert_eq!(packet_words(0x158), None, "preset strips are kept raw");
    }

    #[test]
    fn every_layout_fits_the_packet_capacities() {
        // Packet::decode gives up on a layout holding more of a kind than the inline lists
        // can: no primitive type may have one.
        let fits = |slots: &[Slot]| {
            let n = Needs::of(slots);
            n.normals <= MAX_NORMALS
                && n.vertices <= MAX_VERTICES
                && n.pads <= MAX_PADS
                && n.colors <= MAX_COLORS
                && n.uvs <= MAX_UVS
                && n.tags <= MAX_TAGS
                && n.screen <= MAX_SCREEN
        };
        let mut largest_preset = Needs::of(&[]);
        let mut most_slots = 0;
        for pt in 0..=u16::MAX {
            // Building a layout with more than MAX_SLOTS slots would panic here.
            if let Some(slots) = layout(pt) {
                assert!(pt < 0x400, "type 0x{pt:x} is outside the layout table");
                most_slots = most_slots.max(slots.len());
                assert!(fits(&slots), "type 0x{pt:x}");
                let words: Vec<u32> = (0..slots.len() as u32).collect();
                let p = Packet::decode(&slots, &Needs::of(&slots), &words);
                assert!(p.is_some(), "type 0x{pt:x}");
                if pt & 0x100 != 0 && Needs::of(&slots).colors > largest_preset.colors {
                    largest_preset = Needs::of(&slots);
                }
            }
            if let Some((a, b)) = strip_layout(pt) {
                assert!(fits(a) && fits(b), "strip 0x{pt:x}");
            }
        }
        // The capacities are no larger than the largest packet needs.
        assert_eq!(largest_preset.colors, MAX_COLORS);
        assert_eq!(largest_preset.screen, MAX_SCREEN);
        assert_eq!(most_slots, MAX_SLOTS);
    }

    #[test]
    fn packets_round_trip_through_their_slots() {
        for pt in [
            0x08u16, 0x0c, 0x0a, 0x0e, 0x09, 0x0d, 0x0b, 0x0f, 0x10, 0x14, 0x12, 0x16, 0x11, 0x15,
            0x13, 0x17, 0x48, 0x4c, 0x49, 0x4d, 0x50, 0x54, 0x51, 0x55, 0x209, 0x215, 0x249, 0x255,
        ] {
            let n = packet_words(pt).unwrap();
            let words: Vec<u32> = (0..n as u32 * 2)
                .map(|i| i.wrapping_mul(0x9E37_79B9))
                .collect();
            let run = decode_run(pt, 2, &words).unwrap();
            let packets: Vec<Packet> = run.packets().collect();
            let rebuilt = PacketRun::new(pt, &packets).unwrap();
            assert_eq!(rebuilt.words(), words, "type 0x{pt:x}");
        }
    }

    #[test]
    fn flat_triangle_fields_land_where_the_manual_says() {
        // [r g b 0x20] [n0 v0] [v1 v2]
        let w = [0x2000_00FF, 0x0005_0003, 0x0007_0006];
        let run = decode_run(0x08, 1, &w).unwrap();
        let p = run.get(0).unwrap();
        assert_eq!(p.colors[..], [[0xFF, 0, 0, 0x20]]);
        assert_eq!(p.normals[..], [3]);
        assert_eq!(p.vertices[..], [5, 6, 7]);
    }

    #[test]
    fn a_packet_edit_lands_in_the_words_and_a_mismatched_one_is_refused() {
        // Two flat triangles: [r g b 0x20] [n0 v0] [v1 v2].
        let w = [
            0x2000_00FF,
            0x0005_0003,
            0x0007_0006,
            0x2000_FF00,
            0x0001_0000,
            0x0003_0002,
        ];
        let mut run = decode_run(0x08, 2, &w).unwrap();
        let mut p = run.get(1).unwrap();
        p.vertices[2] = 9;
        run.set(1, &p).unwrap();
        assert_eq!(run.words()[..3], w[..3], "packet 0 untouched");
        assert_eq!(run.words()[5], 0x0009_0002);
        assert_eq!(run.get(1).unwrap().vertices[..], [1, 2, 9]);

        // A quad's four vertices do not fit a triangle's layout: refused, nothing changed.
        let before = run.clone();
        p.vertices.push(10);
        assert!(run.set(1, &p).is_err());
        assert!(run.set(2, &run.get(0).unwrap()).is_err(), "no packet 2");
        assert_eq!(run, before);
        assert!(PacketRun::new(0x08, &[p]).is_err());
        assert!(
            PacketRun::new(0x18, &[]).is_err(),
            "strips have no packet layout"
        );
    }

    #[test]
    fn runs_read_from_json_are_checked_against_their_layout() {
        let w = [0x2000_00FF, 0x0005_0003, 0x0007_0006];
        let run = decode_run(0x08, 1, &w).unwrap();
        let json = serde_json::to_string(&run).unwrap();
        assert!(json.contains("\"packets\":[{"), "{json}");
        let back: PacketRun = serde_json::from_str(&json).unwrap();
        assert_eq!(back, run);
        let quad = json.replace("\"vertices\":[5,6,7]", "\"vertices\":[5,6,7,8]");
        assert_ne!(quad, json);
        let err = serde_json::from_str::<PacketRun>(&quad).unwrap_err();
        assert!(err.to_string().contains("0x8"), "{err}");

        // A flat strip: [num pad] [colour] [n0 v0] [v1 v2], then [colour] [n0 v0] per vertex.
        let sw = [
            2,
            0x2000_0000,
            0x0001_0000,
            0x0003_0002,
            0x2000_0001,
            0x0004_0005,
        ];
        let (strips, used) = decode_strips(0x18, 1, &sw).unwrap();
        assert_eq!(used, sw.len());
        let json = serde_json::to_string(&strips).unwrap();
        let back: StripRun = serde_json::from_str(&json).unwrap();
        assert_eq!(back.words(), sw);
        let list: Vec<Strip> = back.strips().collect();
        assert_eq!(list[0].extra[0].vertices[..], [4]);
        assert!(
            decode_strips(0x18, 2, &sw).is_none(),
            "a second strip is not there"
        );
        assert!(decode_strips(0x18, 1, &[0, 0, 0, 0]).is_none(), "num 0");
    }
}
