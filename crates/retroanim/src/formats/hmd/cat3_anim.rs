//! Category 3, animation: sequence pointers, sequence descriptors, interpolation types and the
//! key-frame layouts of the parameter section (notes §7; File Formats pp. 2-95..2-117).
//!
//! These types are what a player steps through: a [`SequencePointer`] names the descriptor it
//! starts at and the section word it updates; each [`SequenceDescriptor::KeyFrame`] names an
//! interpolation type (by index into the table) and a [`KeyFrame`] in the parameter section.

use arrayvec::ArrayVec;
use serde::{Deserialize, Serialize};

use crate::bytes::{ByteOrder, Le, Writer};
use crate::formats::is_default;

/// The update index of a sequence pointer: where the interpolated value is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct UpdateIndex {
    /// Bits 31..24: index into the animation header counted from its size word
    /// (0 = size word, 1 = interpolation table, 2 = control, 3 = parameters, 4.. = targets;
    /// see the module docs for the manual's disagreement).
    pub section: u8,
    /// Bits 23..0: word offset inside that section (1 + 20·k for coordinate k).
    pub offset: u32,
}

impl UpdateIndex {
    /// Decodes the stored word.
    pub fn from_word(w: u32) -> Self {
        UpdateIndex {
            section: (w >> 24) as u8,
            offset: w & 0x00FF_FFFF,
        }
    }

    /// The stored word.
    pub fn word(self) -> u32 {
        (self.section as u32) << 24 | (self.offset & 0x00FF_FFFF)
    }

    /// The coordinate this index updates when its section is the coordinate section.
    pub fn coordinate(self) -> Option<usize> {
        let o = self.offset.checked_sub(1)? as usize;
        (o % 20 == 0).then_some(o / 20)
    }
}

/// One extra sequence held by a sequence pointer (`GsSEH`: start index and stream ID).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExtraSequence {
    /// Descriptor index the sequence starts at.
    pub start: i16,
    /// Stream ID to start it with.
    pub sid: u8,
    /// Pad byte.
    #[serde(default, skip_serializing_if = "is_default")]
    pub pad: u8,
}

/// A sequence pointer (`GsSEQ`, 7 words, then one word per extra sequence).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SequencePointer {
    /// Where interpolated values are written.
    pub update: UpdateIndex,
    /// Number of sequences this pointer manages (upper half of word 1).
    pub num: u16,
    /// INTR IDX: key frame that receives the interpolated result; 0xFFFF = none.
    pub intr_idx: u16,
    /// A FRAME: frames left; 0 stops, 0xFFFF = no limit.
    pub aframe: u16,
    /// Current stream ID.
    pub sid: u8,
    /// SPEED: sign + 3.4 fixed point, 0x10 = 1×.
    pub speed: i8,
    /// SRC INTR IDX (work).
    pub src_intr_idx: u16,
    /// RFRAME: time left to the target key frame, 12.4 fixed point.
    pub rframe: i16,
    /// TFRAME: length of the current interval, 12.4 fixed point.
    pub tframe: u16,
    /// CTR IDX: descriptor index of the source key frame.
    pub ctr_idx: u16,
    /// TCTR IDX: descriptor index of the target key frame.
    pub tctr_idx: u16,
    /// START IDX: descriptor index the sequence starts at.
    pub start: u16,
    /// START SID: stream ID to start with.
    pub start_sid: u8,
    /// TRAVELING: cleared on every key-frame switch.
    pub traveling: u8,
    /// Extra sequences (the size field is `7 + extra.len()`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub extra: Vec<ExtraSequence>,
}

impl SequencePointer {
    /// Words it takes.
    pub fn words(&self) -> usize {
        7 + self.extra.len()
    }

    /// Decodes one pointer at the start of `w`; returns it and the words it took, or `None`
    /// when its size field does not fit.
    pub fn decode(w: &[u32]) -> Option<(SequencePointer, usize)> {
        let head = w.get(..7)?;
        let size = (head[1] & 0xFFFF) as usize;
        if size < 7 || size > w.len() {
            return None;
        }
        let lo = |x: u32| x as u16;
        let hi = |x: u32| (x >> 16) as u16;
        let extra = w[7..size]
            .iter()
            .map(|&x| ExtraSequence {
                start: x as i16,
                sid: (x >> 16) as u8,
                pad: (x >> 24) as u8,
            })
            .collect();
        Some((
            SequencePointer {
                update: UpdateIndex::from_word(head[0]),
                num: hi(head[1]),
                intr_idx: lo(head[2]),
                aframe: hi(head[2]),
                sid: head[3] as u8,
                speed: (head[3] >> 8) as u8 as i8,
                src_intr_idx: hi(head[3]),
                rframe: lo(head[4]) as i16,
                tframe: hi(head[4]),
                ctr_idx: lo(head[5]),
                tctr_idx: hi(head[5]),
                start: lo(head[6]),
                start_sid: (head[6] >> 16) as u8,
                traveling: (head[6] >> 24) as u8,
                extra,
            },
            size,
        ))
    }

    /// Appends the encoded words.
    pub fn encode(&self, out: &mut Vec<u32>) {
        let pair = |a: u16, b: u16| a as u32 | (b as u32) << 16;
        out.push(self.update.word());
        out.push(pair(self.words() as u16, self.num));
        out.push(pair(self.intr_idx, self.aframe));
        out.push(
            self.sid as u32 | (self.speed as u8 as u32) << 8 | (self.src_intr_idx as u32) << 16,
        );
        out.push(pair(self.rframe as u16, self.tframe));
        out.push(pair(self.ctr_idx, self.tctr_idx));
        out.push(self.start as u32 | (self.start_sid as u32) << 16 | (self.traveling as u32) << 24);
        for e in &self.extra {
            out.push(e.start as u16 as u32 | (e.sid as u32) << 16 | (e.pad as u32) << 24);
        }
    }
}

/// One sequence descriptor of the sequence control section (notes §7.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SequenceDescriptor {
    /// Bit 31 = 0: a key frame.
    KeyFrame {
        /// Bits 30..24: index into the interpolation function table.
        type_idx: u8,
        /// Bits 23..16: frames to the next key frame.
        tframe: u8,
        /// Bits 15..0: word offset of the parameters in the parameter section.
        param_idx: u16,
    },
    /// Bits 31..30 = 10: a jump.
    Jump {
        /// Bits 29..23: stream ID set after the jump (0 = keep).
        sid_dst: u8,
        /// Bits 22..16: stream ID the jump needs (0 = any).
        sid_cnd: u8,
        /// Bits 15..0: descriptor index to jump to.
        seq_idx: u16,
    },
    /// Bits 31..30 = 11: a control descriptor (code 1 END, 2 WORK).
    Control {
        /// Bits 29..23.
        code: u8,
        /// Bits 22..16.
        p1: u8,
        /// Bits 15..0 (WORK: word offset of the work area in the parameter section).
        p2: u16,
    },
}

/// Control code END.
pub const CONTROL_END: u8 = 1;
/// Control code WORK.
pub const CONTROL_WORK: u8 = 2;

impl SequenceDescriptor {
    /// Decodes a stored word (every bit has a field, so this is exact).
    pub fn from_word(w: u32) -> Self {
        let a = ((w >> 23) & 0x7F) as u8;
        let b = ((w >> 16) & 0x7F) as u8;
        let low = w as u16;
        if w & 0x8000_0000 == 0 {
            SequenceDescriptor::KeyFrame {
                type_idx: ((w >> 24) & 0x7F) as u8,
                tframe: (w >> 16) as u8,
                param_idx: low,
            }
        } else if w & 0x4000_0000 == 0 {
            SequenceDescriptor::Jump {
                sid_dst: a,
                sid_cnd: b,
                seq_idx: low,
            }
        } else {
            SequenceDescriptor::Control {
                code: a,
                p1: b,
                p2: low,
            }
        }
    }

    /// The stored word; `None` when a field is wider than its bits.
    pub fn word(self) -> Option<u32> {
        let seven = |v: u8| (v < 0x80).then_some(v as u32);
        Some(match self {
            SequenceDescriptor::KeyFrame {
                type_idx,
                tframe,
                param_idx,
            } => seven(type_idx)? << 24 | (tframe as u32) << 16 | param_idx as u32,
            SequenceDescriptor::Jump {
                sid_dst,
                sid_cnd,
                seq_idx,
            } => 0x8000_0000 | seven(sid_dst)? << 23 | seven(sid_cnd)? << 16 | seq_idx as u32,
            SequenceDescriptor::Control { code, p1, p2 } => {
                0xC000_0000 | seven(code)? << 23 | seven(p1)? << 16 | p2 as u32
            }
        })
    }
}

/// How one channel of a TGT = 0 key frame is interpolated, and how it is stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Method {
    /// 0: not updated.
    None,
    /// 1 (or 9 short / one-parameter).
    Linear,
    /// 2 (or A).
    Bezier,
    /// 3 (or B).
    BSpline,
    /// 4: beta-spline (scale only; no parameter layout is published).
    BetaSpline,
}

/// An interpolation (or frame update) type word of category 3, decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InterpolationType {
    /// TGT = 0: updates a GsCOORDUNIT.
    Coordinate {
        /// Bits 15..12: 0 XYZ, 1 XZY, 2 YXZ, 3 YZX, 4 ZXY, 5 ZYX.
        rot_order: u8,
        /// Bits 11..8.
        scale: u8,
        /// Bits 7..4.
        rotation: u8,
        /// Bits 3..0.
        translation: u8,
    },
    /// TGT = 1: general-purpose update of up to four units.
    General {
        /// Bits 11..8: 1 linear, 2 Bezier, 3 B-spline.
        algorithm: u8,
        /// Bits 7..4: which of four consecutive units are written.
        write_mask: u8,
        /// Bits 3..0: unit length 0 = 32 bits, 1 = 16 bits, 2 = 8 bits.
        length: u8,
    },
    /// Any other TGT.
    Other,
}

impl InterpolationType {
    /// Decodes a type word (category 3 assumed).
    pub fn from_code(code: u32) -> Self {
        let nib = |s: u32| ((code >> s) & 0xF) as u8;
        match (code >> 16) & 0xF {
            0 => InterpolationType::Coordinate {
                rot_order: nib(12),
                scale: nib(8),
                rotation: nib(4),
                translation: nib(0),
            },
            1 => InterpolationType::General {
                algorithm: nib(8),
                write_mask: nib(4),
                length: nib(0),
            },
            _ => InterpolationType::Other,
        }
    }

    /// The key-frame layout of this type, or `None` when it is not known.
    pub fn layout(self) -> Option<Layout> {
        match self {
            InterpolationType::Coordinate {
                scale,
                rotation,
                translation,
                ..
            } => {
                let (t32, t16) = match translation {
                    0 => (0, 0),
                    1 | 3 => (3, 0),
                    2 => (9, 0),
                    9 | 0xB => (0, 3),
                    0xA => (0, 9),
                    _ => return None,
                };
                let r = match rotation {
                    0 => 0,
                    1 | 3 => 3,
                    2 => 9,
                    _ => return None,
                };
                let s = match scale {
                    0 => 0,
                    1 | 3 => 3,
                    2 => 9,
                    9 | 0xB => 1,
                    0xA => 3,
                    _ => return None,
                };
                Some(Layout::Coordinate { t32, t16, r, s })
            }
            InterpolationType::General {
                algorithm,
                write_mask,
                length,
            } => {
                let per_unit = match algorithm {
                    1 | 3 => 1,
                    2 => 3,
                    _ => return None,
                };
                let bytes = match length {
                    0 => 4,
                    1 => 2,
                    2 => 1,
                    _ => return None,
                };
                Some(Layout::General {
                    values: write_mask.count_ones() as usize * per_unit,
                    bytes,
                })
            }
            InterpolationType::Other => None,
        }
    }

    /// The method of a TGT = 0 channel code.
    pub fn method(code: u8) -> Option<Method> {
        Some(match code {
            0 => Method::None,
            1 | 9 => Method::Linear,
            2 | 0xA => Method::Bezier,
            3 | 0xB => Method::BSpline,
            4 => Method::BetaSpline,
            _ => return None,
        })
    }
}

/// Storage of one key frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// TGT = 0: `t32` int32 translation values, then a halfword stream of `t16` int16
    /// translation values, `r` rotation and `s` scale values, padded to a word.
    Coordinate {
        /// int32 translation values.
        t32: usize,
        /// int16 translation values.
        t16: usize,
        /// rotation values.
        r: usize,
        /// scale values.
        s: usize,
    },
    /// TGT = 1: `values` units of `bytes` bytes each, padded to a word.
    General {
        /// Number of values.
        values: usize,
        /// Bytes per value (4, 2 or 1).
        bytes: usize,
    },
}

impl Layout {
    /// Words one key frame takes.
    pub fn words(self) -> usize {
        match self {
            Layout::Coordinate { t32, t16, r, s } => t32 + (t16 + r + s).div_ceil(2),
            Layout::General { values, bytes } => (values * bytes).div_ceil(4),
        }
    }
}

/// The values of one key frame, held inline: a layout has at most 9 values per TGT = 0 channel
/// (three control points of x, y, z) and 12 TGT = 1 values (4 units of 3 control points), so a
/// key frame needs no allocation of its own.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum KeyFrame {
    /// TGT = 0. Bezier channels hold three control points (P0, P1, P2) of x, y, z each.
    Coordinate {
        /// Translation (x, y, z per control point); int16 in the "short" types.
        #[serde(default, skip_serializing_if = "ArrayVec::is_empty")]
        translation: ArrayVec<i32, 9>,
        /// Rotation, 4096 = 360°.
        #[serde(default, skip_serializing_if = "ArrayVec::is_empty")]
        rotation: ArrayVec<i16, 9>,
        /// Scale, 4096 = 1.0 (one value in the one-parameter types).
        #[serde(default, skip_serializing_if = "ArrayVec::is_empty")]
        scale: ArrayVec<i16, 9>,
        /// The padding halfword when the halfwords are odd in number.
        #[serde(default, skip_serializing_if = "is_default")]
        pad: u16,
    },
    /// TGT = 1: the unit values (16- and 8-bit units sign-extended), then padding bytes.
    General {
        /// Values, three control points per unit for Bezier.
        values: ArrayVec<i32, 12>,
        /// Bytes after the values up to the word boundary.
        #[serde(default, skip_serializing_if = "ArrayVec::is_empty")]
        pad: ArrayVec<u8, 3>,
    },
}

impl KeyFrame {
    /// Decodes a key frame of `layout` from the start of `w` (the caller checked the length).
    pub fn decode(layout: Layout, w: &[u32]) -> Option<KeyFrame> {
        let w = w.get(..layout.words())?;
        match layout {
            Layout::Coordinate { t32, t16, r, s } => {
                // Halfword i of the words, low half first (the layout's words hold them all).
                let hw = |i: usize| w.get(i / 2).map_or(0, |&x| (x >> (16 * (i % 2))) as i16);
                let base = t32 * 2;
                let mut translation = ArrayVec::new();
                translation.extend(w.get(..t32)?.iter().map(|&x| x as i32));
                for i in 0..t16 {
                    translation.try_push(hw(base + i) as i32).ok()?;
                }
                let mut rotation = ArrayVec::new();
                let mut scale = ArrayVec::new();
                for i in 0..r {
                    rotation.try_push(hw(base + t16 + i)).ok()?;
                }
                for i in 0..s {
                    scale.try_push(hw(base + t16 + r + i)).ok()?;
                }
                let n = t16 + r + s;
                let pad = if n % 2 == 1 { hw(base + n) as u16 } else { 0 };
                Some(KeyFrame::Coordinate {
                    translation,
                    rotation,
                    scale,
                    pad,
                })
            }
            Layout::General { values, bytes: b } => {
                // Byte i of the words, little-endian.
                let byte = |i: usize| (w[i / 4] >> (8 * (i % 4))) as u8;
                let mut v = ArrayVec::new();
                for i in 0..values {
                    let at = i * b;
                    let x = match b {
                        4 => Le::u32_from([byte(at), byte(at + 1), byte(at + 2), byte(at + 3)])
                            as i32,
                        2 => Le::u16_from([byte(at), byte(at + 1)]) as i16 as i32,
                        _ => byte(at) as i8 as i32,
                    };
                    v.try_push(x).ok()?;
                }
                let mut pad = ArrayVec::new();
                for i in values * b..w.len() * 4 {
                    pad.try_push(byte(i)).ok()?;
                }
                Some(KeyFrame::General { values: v, pad })
            }
        }
    }

    /// Encodes the key frame in `layout`; `None` when the values do not match the layout.
    pub fn encode(&self, layout: Layout, out: &mut Vec<u32>) -> Option<()> {
        let mut bytes = Writer::<Le>::with_capacity(layout.words() * 4);
        match (self, layout) {
            (
                KeyFrame::Coordinate {
                    translation,
                    rotation,
                    scale,
                    pad,
                },
                Layout::Coordinate { t32, t16, r, s },
            ) => {
                if translation.len() != t32 + t16 || rotation.len() != r || scale.len() != s {
                    return None;
                }
                for &t in &translation[..t32] {
                    bytes.i32(t);
                }
                for &t in &translation[t32..] {
                    bytes.i16(i16::try_from(t).ok()?);
                }
                for &x in rotation.iter().chain(scale) {
                    bytes.i16(x);
                }
                if (t16 + r + s) % 2 == 1 {
                    bytes.u16(*pad);
                } else if *pad != 0 {
                    return None;
                }
            }
            (
                KeyFrame::General { values, pad },
                Layout::General {
                    values: n,
                    bytes: b,
                },
            ) => {
                if values.len() != n || n * b + pad.len() != layout.words() * 4 {
                    return None;
                }
                for &v in values {
                    match b {
                        4 => bytes.i32(v),
                        2 => bytes.i16(i16::try_from(v).ok()?),
                        _ => bytes.i8(i8::try_from(v).ok()?),
                    }
                }
                bytes.bytes(pad);
            }
            _ => return None,
        }
        out.extend(Le::u32s(&bytes.into_vec()));
        Some(())
    }
}

/// One item of a parameter section.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ParameterItem {
    /// A key frame some descriptor points to, decoded with that descriptor's type.
    KeyFrame {
        /// Word offset in the section (the descriptors' PARAMETER IDX).
        index: u16,
        /// The interpolation type word it was decoded with.
        type_code: u32,
        /// The values.
        frame: KeyFrame,
    },
    /// The 4-word B-spline WORK area a WORK descriptor points to.
    Work {
        /// Word offset in the section.
        index: u16,
        /// The four (run-time) words.
        words: [u32; 4],
    },
    /// Words no descriptor describes.
    Raw(Vec<u32>),
}

impl ParameterItem {
    /// Words the item takes.
    pub fn words(&self) -> usize {
        match self {
            ParameterItem::KeyFrame {
                type_code, frame, ..
            } => match InterpolationType::from_code(*type_code).layout() {
                Some(l) => l.words(),
                // Unencodable; the writer reports it. Count what the values would take.
                None => match frame {
                    KeyFrame::Coordinate { translation, .. } => translation.len(),
                    KeyFrame::General { values, .. } => values.len(),
                },
            },
            ParameterItem::Work { .. } => 4,
            ParameterItem::Raw(w) => w.len(),
        }
    }
}

/// Finds the key frame at word offset `index` of a parameter section.
pub fn key_frame_at(items: &[ParameterItem], index: u16) -> Option<(u32, &KeyFrame)> {
    items.iter().find_map(|i| match i {
        ParameterItem::KeyFrame {
            index: at,
            type_code,
            frame,
        } if *at == index => Some((*type_code, frame)),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every type code with a known layout: TGT = 0 channels and TGT = 1 units.
    fn codes_with_layouts() -> Vec<u32> {
        let mut codes = Vec::new();
        for s in [0u32, 1, 2, 3, 9, 0xA, 0xB] {
            for r in [0u32, 1, 2, 3] {
                for t in [0u32, 1, 2, 3, 9, 0xA, 0xB] {
                    codes.push((s << 8) | (r << 4) | t);
                }
            }
        }
        for alg in 1u32..=3 {
            for mask in 0u32..=0xF {
                for len in 0u32..=2 {
                    codes.push((1 << 16) | (alg << 8) | (mask << 4) | len);
                }
            }
        }
        codes
    }

    #[test]
    fn every_layout_fits_inline_and_round_trips() {
        for code in codes_with_layouts() {
            let layout = InterpolationType::from_code(code)
                .layout()
                .unwrap_or_else(|| panic!("type 0x{code:08x} has a layout"));
            let words: Vec<u32> = (0..layout.words() as u32)
                .map(|i| 0x8123_4567u32.rotate_left(i * 7) ^ code)
                .collect();
            let frame = KeyFrame::decode(layout, &words)
                .unwrap_or_else(|| panic!("type 0x{code:08x} decodes"));
            let mut back = Vec::new();
            frame.encode(layout, &mut back).unwrap();
            assert_eq!(back, words, "type 0x{code:08x}");
        }
    }

    #[test]
    fn json_key_frame_longer_than_any_layout_is_refused() {
        let ok = r#"{"coordinate":{"translation":[1,2,3,4,5,6,7,8,9]}}"#;
        assert!(serde_json::from_str::<KeyFrame>(ok).is_ok());
        let long = r#"{"coordinate":{"translation":[1,2,3,4,5,6,7,8,9,10]}}"#;
        assert!(serde_json::from_str::<KeyFrame>(long).is_err());
        let long = r#"{"general":{"values":[0,0,0,0,0,0,0,0,0,0,0,0,0]}}"#;
        assert!(serde_json::from_str::<KeyFrame>(long).is_err());
    }
}
