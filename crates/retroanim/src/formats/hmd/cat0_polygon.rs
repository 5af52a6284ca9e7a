//! Categories 0 and 1: polygon packets of the polygon section (notes §4; File Formats
//! pp. 2-63..2-90).
//!
//! A packet layout is a list of word slots; a [`Packet`] holds the values of those slots by
//! kind (colours, UVs, normal and vertex indices, padding) so that decoding and encoding are
//! the same walk over the slots. Preset packets (PST, File Formats pp. 2-82..2-86) hold two
//! copies of the GPU packet (DMA tag, colours, screen XY, UVs) and then the vertex indices.
//! Strip meshes are typed for 0x18 and 0x1c, the only pattern the samples pin down (notes §13);
//! other strips and preset strips are kept as raw words.

use arrayvec::ArrayVec;
use serde::{Deserialize, Serialize};

use crate::formats::is_default;

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
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StripRun {
    /// The PRIMITIVE TYPE bits.
    pub primitive_type: u16,
    /// The strips.
    pub strips: Vec<Strip>,
}

impl StripRun {
    fn words(&self) -> usize {
        let Some((a, b)) = strip_layout(self.primitive_type) else {
            return 0;
        };
        self.strips
            .iter()
            .map(|s| 1 + a.len() + b.len() * s.extra.len())
            .sum()
    }

    fn encode(&self, out: &mut Vec<u32>) -> Option<()> {
        let (a, b) = strip_layout(self.primitive_type)?;
        let (need_a, need_b) = (Needs::of(a), Needs::of(b));
        out.reserve(self.words());
        for s in &self.strips {
            let num = u16::try_from(1 + s.extra.len()).ok()?;
            out.push(num as u32 | (s.pad as u32) << 16);
            s.first.encode(a, &need_a, out)?;
            for e in &s.extra {
                e.encode(b, &need_b, out)?;
            }
        }
        Some(())
    }
}

/// Decodes `count` strips of type `pt` from the start of `w`; returns them and the words used.
pub fn decode_strips(pt: u16, count: usize, w: &[u32]) -> Option<(StripRun, usize)> {
    let (a, b) = strip_layout(pt)?;
    let (need_a, need_b) = (Needs::of(a), Needs::of(b));
    let mut at = 0usize;
    // Each strip takes at least its head and first triangle: `count` is checked against the
    // words before the list is sized by it.
    if count > w.len() / (1 + a.len()) {
        return None;
    }
    let mut strips = Vec::with_capacity(count);
    for _ in 0..count {
        let head = *w.get(at)?;
        let num = (head & 0xFFFF) as usize;
        if num == 0 {
            return None;
        }
        let first = w.get(at + 1..at + 1 + a.len())?;
        at += 1 + a.len();
        let extra_words = w.get(at..at + (num - 1) * b.len())?;
        let mut extra = Vec::with_capacity(num - 1);
        for c in extra_words.chunks_exact(b.len()) {
            extra.push(Packet::decode(b, &need_b, c)?);
        }
        strips.push(Strip {
            pad: (head >> 16) as u16,
            first: Packet::decode(a, &need_a, first)?,
            extra,
        });
        at += extra_words.len();
    }
    Some((
        StripRun {
            primitive_type: pt,
            strips,
        },
        at,
    ))
}

/// Words one packet of primitive type `pt` takes, when the layout is known.
pub fn packet_words(pt: u16) -> Option<usize> {
    layout(pt).map(|s| s.len())
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
                Color => p.colors.try_push(x.to_le_bytes()).ok()?,
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
                    u32::from_le_bytes(self.colors[c - 1])
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PacketRun {
    /// The PRIMITIVE TYPE bits the packets were decoded with (bits 15..0 of the type word).
    pub primitive_type: u16,
    /// The packets.
    pub packets: Vec<Packet>,
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
    pub fn words(&self) -> usize {
        match self {
            PolygonItem::Packets(r) => {
                packet_words(r.primitive_type).unwrap_or(0) * r.packets.len()
            }
            PolygonItem::Strips(r) => r.words(),
            PolygonItem::Raw(w) => w.len(),
        }
    }

    /// Encodes the item; `None` when a packet does not match its type's layout.
    pub fn encode(&self, out: &mut Vec<u32>) -> Option<()> {
        match self {
            PolygonItem::Packets(r) => {
                let slots = layout(r.primitive_type)?;
                let need = Needs::of(&slots);
                out.reserve(slots.len() * r.packets.len());
                r.packets
                    .iter()
                    .try_for_each(|p| p.encode(&slots, &need, out))
            }
            PolygonItem::Strips(r) => r.encode(out),
            PolygonItem::Raw(w) => {
                out.extend_from_slice(w);
                Some(())
            }
        }
    }
}

/// Decodes `count` packets of type `pt` from the start of `w`, when the layout is known and
/// they fit.
pub fn decode_run(pt: u16, count: usize, w: &[u32]) -> Option<PacketRun> {
    let slots = layout(pt)?;
    let n = slots.len();
    if n == 0 {
        return None;
    }
    // The words are there before the list is sized by `count`.
    let all = w.get(..n.checked_mul(count)?)?;
    let need = Needs::of(&slots);
    let mut packets = Vec::with_capacity(count);
    for c in all.chunks_exact(n) {
        packets.push(Packet::decode(&slots, &need, c)?);
    }
    Some(PacketRun {
        primitive_type: pt,
        packets,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

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
            let mut out = Vec::new();
            PolygonItem::Packets(run).encode(&mut out).unwrap();
            assert_eq!(out, words, "type 0x{pt:x}");
        }
    }

    #[test]
    fn flat_triangle_fields_land_where_the_manual_says() {
        // [r g b 0x20] [n0 v0] [v1 v2]
        let w = [0x2000_00FF, 0x0005_0003, 0x0007_0006];
        let run = decode_run(0x08, 1, &w).unwrap();
        let p = &run.packets[0];
        assert_eq!(p.colors[..], [[0xFF, 0, 0, 0x20]]);
        assert_eq!(p.normals[..], [3]);
        assert_eq!(p.vertices[..], [5, 6, 7]);
    }
}
