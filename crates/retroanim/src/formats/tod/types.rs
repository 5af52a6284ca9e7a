//! The TOD model: faithful to the file, typed to the seed's tables.

use serde::{Deserialize, Serialize};

use crate::formats::is_default;

/// A whole TOD file.
///
/// The header's frame count is not stored: it is always `frames.len()`, because the reader reads
/// exactly as many frames as the header announces.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tod {
    /// The file header (file ID 0x50 is implied).
    pub header: Header,
    /// The frames, in file order.
    pub frames: Vec<Frame>,
    /// Bytes after the last frame (not part of the format; kept for a byte-exact round trip).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub trailing: Vec<u8>,
}

/// The 2-word file header (seed, "Header").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Header {
    /// Animation version (bits 8..15 of word 0). Sony's tools write 0.
    pub version: u8,
    /// Time one frame is displayed, in ticks of 1/60 s (bits 16..31 of word 0). The PsyQ samples
    /// use 0, which players treat as 1 tick.
    pub resolution: u16,
}

/// One frame: a 2-word header and its packets (seed, "Frame").
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Frame {
    /// Frame number: the time, in frames, at which the frame is applied.
    pub number: u32,
    /// The packets, in file order (their count is the header's packet count).
    pub packets: Vec<Packet>,
    /// Words inside the frame's declared size after its last packet.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub extra_words: Vec<u32>,
    /// The frame size field when it disagrees with the words the frame really takes (only when
    /// the packets run past the declared size); `None` means the size is computed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size_override: Option<u16>,
}

impl Frame {
    /// Words this frame takes in the file: the 2-word header, its packets and extra words.
    pub fn words(&self) -> usize {
        2 + self.packets.iter().map(Packet::words).sum::<usize>() + self.extra_words.len()
    }

    /// The value of the frame size field as written.
    pub fn size_field(&self) -> u32 {
        match self.size_override {
            Some(s) => s as u32,
            None => self.words() as u32,
        }
    }
}

/// One packet: a 1-word header (object ID, type, flag, length) and its data (seed, "Packet").
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Packet {
    /// The object the packet applies to (a light ID for light packets, a camera ID for cameras).
    pub object_id: u16,
    /// The typed packet data; it fixes the packet type and the flag bits that have a meaning.
    pub data: PacketData,
    /// Flag bits that the packet type does not define, kept verbatim.
    #[serde(default, skip_serializing_if = "is_default")]
    pub flag_reserved: u8,
    /// Words after the data the flag describes, inside the packet's length.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub extra_words: Vec<u32>,
}

impl Packet {
    /// A packet with no reserved bits and no extra words.
    pub fn new(object_id: u16, data: PacketData) -> Self {
        Packet {
            object_id,
            data,
            flag_reserved: 0,
            extra_words: Vec::new(),
        }
    }

    /// The 4-bit packet type.
    pub fn kind(&self) -> PacketKind {
        self.data.kind()
    }

    /// The 4-bit flag as written.
    pub fn flag(&self) -> u8 {
        (self.data.flag_bits() | self.flag_reserved) & 0xF
    }

    /// Packet length in words, including the header word.
    pub fn words(&self) -> usize {
        1 + self.data.words() + self.extra_words.len()
    }
}

/// The packet type (bits 16..19 of the packet header; seed table "Packet type values").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PacketKind {
    /// 0000: attribute.
    Attribute,
    /// 0001: coordinate (RST).
    Coordinate,
    /// 0010: TMD data ID.
    TmdId,
    /// 0011: parent object ID.
    Parent,
    /// 0100: matrix value.
    Matrix,
    /// 0101: TMD data (not supported by libgs).
    TmdData,
    /// 0110: light source.
    Light,
    /// 0111: camera.
    Camera,
    /// 1000: object control.
    ObjectControl,
    /// 1001..1101: user defined (the type number).
    UserDefined(u8),
    /// 1110: system reserved / extended commands.
    SystemReserved,
    /// 1111: special commands.
    Special,
}

impl PacketKind {
    /// The kind for a 4-bit type number.
    pub fn from_code(code: u8) -> PacketKind {
        match code & 0xF {
            0 => PacketKind::Attribute,
            1 => PacketKind::Coordinate,
            2 => PacketKind::TmdId,
            3 => PacketKind::Parent,
            4 => PacketKind::Matrix,
            5 => PacketKind::TmdData,
            6 => PacketKind::Light,
            7 => PacketKind::Camera,
            8 => PacketKind::ObjectControl,
            14 => PacketKind::SystemReserved,
            15 => PacketKind::Special,
            n => PacketKind::UserDefined(n),
        }
    }

    /// The 4-bit type number.
    pub fn code(self) -> u8 {
        match self {
            PacketKind::Attribute => 0,
            PacketKind::Coordinate => 1,
            PacketKind::TmdId => 2,
            PacketKind::Parent => 3,
            PacketKind::Matrix => 4,
            PacketKind::TmdData => 5,
            PacketKind::Light => 6,
            PacketKind::Camera => 7,
            PacketKind::ObjectControl => 8,
            PacketKind::UserDefined(n) => n & 0xF,
            PacketKind::SystemReserved => 14,
            PacketKind::Special => 15,
        }
    }

    /// A human name, as in the seed's table.
    pub fn name(self) -> &'static str {
        match self {
            PacketKind::Attribute => "attribute",
            PacketKind::Coordinate => "coordinate (RST)",
            PacketKind::TmdId => "TMD data ID",
            PacketKind::Parent => "parent object ID",
            PacketKind::Matrix => "matrix value",
            PacketKind::TmdData => "TMD data",
            PacketKind::Light => "light source",
            PacketKind::Camera => "camera",
            PacketKind::ObjectControl => "object control",
            PacketKind::UserDefined(_) => "user defined",
            PacketKind::SystemReserved => "system reserved",
            PacketKind::Special => "special command",
        }
    }
}

/// Typed packet data, one variant per packet type.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PacketData {
    /// Type 0: attribute mask and value.
    Attribute(Attribute),
    /// Type 1: rotation, scaling, translation.
    Coordinate(Coordinate),
    /// Type 2: the TMD data ID of the object.
    TmdId(IdValue),
    /// Type 3: the parent object ID (0 or 0xFFFF: no parent).
    Parent(IdValue),
    /// Type 4: the coord matrix of the object's GsCOORDINATE2.
    Matrix(Matrix),
    /// Type 5: TMD data (declared by the format but "not supported at present"), kept raw.
    TmdData {
        /// The packet's data words.
        words: Vec<u32>,
    },
    /// Type 6: a light source.
    Light(Light),
    /// Type 7: a camera.
    Camera(Camera),
    /// Type 8: create or kill an object.
    ObjectControl(ObjectControl),
    /// Types 9..15 (user defined, system reserved, special), and any packet too short for the
    /// data its flag announces: type, flag and words kept verbatim.
    Raw {
        /// The 4-bit packet type.
        kind: u8,
        /// The 4-bit flag.
        flag: u8,
        /// The packet's data words.
        words: Vec<u32>,
    },
}

impl PacketData {
    /// The packet type this data is written as.
    pub fn kind(&self) -> PacketKind {
        match self {
            PacketData::Attribute(_) => PacketKind::Attribute,
            PacketData::Coordinate(_) => PacketKind::Coordinate,
            PacketData::TmdId(_) => PacketKind::TmdId,
            PacketData::Parent(_) => PacketKind::Parent,
            PacketData::Matrix(_) => PacketKind::Matrix,
            PacketData::TmdData { .. } => PacketKind::TmdData,
            PacketData::Light(_) => PacketKind::Light,
            PacketData::Camera(_) => PacketKind::Camera,
            PacketData::ObjectControl(_) => PacketKind::ObjectControl,
            PacketData::Raw { kind, .. } => PacketKind::from_code(*kind),
        }
    }

    /// The flag bits this data determines.
    pub fn flag_bits(&self) -> u8 {
        let b = |cond: bool, bit: u8| if cond { 1 << bit } else { 0 };
        match self {
            PacketData::Coordinate(c) => {
                b(c.differential, 0)
                    | b(c.rotation.is_some(), 1)
                    | b(c.scale.is_some(), 2)
                    | b(c.translation.is_some(), 3)
            }
            PacketData::Light(l) => {
                b(l.differential, 0) | b(l.direction.is_some(), 1) | b(l.color.is_some(), 2)
            }
            PacketData::Camera(Camera::LookAt(c)) => {
                b(c.differential, 1) | b(c.position.is_some(), 2) | b(c.z_angle.is_some(), 3)
            }
            PacketData::Camera(Camera::RotTrans(c)) => {
                1 | b(c.differential, 1)
                    | b(c.rotation.is_some(), 2)
                    | b(c.translation.is_some(), 3)
            }
            PacketData::ObjectControl(o) => o.code(),
            PacketData::Raw { flag, .. } => *flag & 0xF,
            _ => 0,
        }
    }

    /// The flag bits this packet type gives a meaning to (the rest are reserved).
    pub fn defined_flag_mask(&self) -> u8 {
        match self {
            PacketData::Coordinate(_)
            | PacketData::Camera(_)
            | PacketData::ObjectControl(_)
            | PacketData::Raw { .. } => 0xF,
            PacketData::Light(_) => 0x7,
            _ => 0,
        }
    }

    /// Data words (without the header word and extra words).
    pub fn words(&self) -> usize {
        let n = |o: bool, w: usize| if o { w } else { 0 };
        match self {
            PacketData::Attribute(_) => 2,
            PacketData::Coordinate(c) => {
                n(c.rotation.is_some(), 3) + n(c.scale.is_some(), 2) + n(c.translation.is_some(), 3)
            }
            PacketData::TmdId(_) | PacketData::Parent(_) => 1,
            PacketData::Matrix(_) => 8,
            PacketData::TmdData { words } | PacketData::Raw { words, .. } => words.len(),
            PacketData::Light(l) => n(l.direction.is_some(), 3) + n(l.color.is_some(), 1),
            PacketData::Camera(Camera::LookAt(c)) => {
                n(c.position.is_some(), 6) + n(c.z_angle.is_some(), 1)
            }
            PacketData::Camera(Camera::RotTrans(c)) => {
                n(c.rotation.is_some(), 3) + n(c.translation.is_some(), 3)
            }
            PacketData::ObjectControl(_) => 0,
        }
    }
}

/// One item of the GsDOBJ2 attribute word (seed table "Packet data bit-by-bit breakdown").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AttributeItem {
    /// Bits 0..2: material damping 0..3.
    MaterialDamping,
    /// Bit 3: lighting mode part 1, fog on.
    Fog,
    /// Bit 4: lighting mode part 2, material off.
    MaterialOff,
    /// Bit 5: lighting mode part 3, use the default lighting mode.
    DefaultLightingMode,
    /// Bit 6: forced light-source calculation on.
    ForceLighting,
    /// Bit 7: NearZ overflow not clipped.
    NoNearZClip,
    /// Bit 8: back clipping invalid.
    BackClipInvalid,
    /// Bits 9..27: reserved, initialised to 0.
    Reserved,
    /// Bits 28..29: semi-transparency rate (0: 50%+50%, 1: 100%+100%, 2: 100%-100%,
    /// 3: 50% back + 25% polygon per the TOD table, 100% back + 25% polygon per the TMD one).
    SemiTransparencyRate,
    /// Bit 30: semi-transparency on.
    SemiTransparency,
    /// Bit 31: display off (1 = not displayed).
    Hidden,
}

impl AttributeItem {
    /// Every item, in bit order.
    pub const ALL: [AttributeItem; 11] = [
        AttributeItem::MaterialDamping,
        AttributeItem::Fog,
        AttributeItem::MaterialOff,
        AttributeItem::DefaultLightingMode,
        AttributeItem::ForceLighting,
        AttributeItem::NoNearZClip,
        AttributeItem::BackClipInvalid,
        AttributeItem::Reserved,
        AttributeItem::SemiTransparencyRate,
        AttributeItem::SemiTransparency,
        AttributeItem::Hidden,
    ];

    /// (first bit, number of bits).
    pub fn bits(self) -> (u32, u32) {
        match self {
            AttributeItem::MaterialDamping => (0, 3),
            AttributeItem::Fog => (3, 1),
            AttributeItem::MaterialOff => (4, 1),
            AttributeItem::DefaultLightingMode => (5, 1),
            AttributeItem::ForceLighting => (6, 1),
            AttributeItem::NoNearZClip => (7, 1),
            AttributeItem::BackClipInvalid => (8, 1),
            AttributeItem::Reserved => (9, 19),
            AttributeItem::SemiTransparencyRate => (28, 2),
            AttributeItem::SemiTransparency => (30, 1),
            AttributeItem::Hidden => (31, 1),
        }
    }

    /// The item's bits as a mask of the attribute word.
    pub fn mask(self) -> u32 {
        let (first, n) = self.bits();
        (((1u64 << n) - 1) as u32) << first
    }
}

/// Type 0: attribute. A 0 bit in `mask` marks a bit that changes; `value` holds the new bits
/// there and 0 elsewhere. The seed's example `0xffbf` / `0x0040` switches forced lighting on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Attribute {
    /// Word 1: 0 = changes, 1 = keeps.
    pub mask: u32,
    /// Word 2: the new bits.
    pub value: u32,
}

impl Attribute {
    /// A packet that changes nothing (`mask` all ones, `value` 0).
    pub fn unchanged() -> Self {
        Attribute {
            mask: u32::MAX,
            value: 0,
        }
    }

    /// This attribute with `item` set to `v` (truncated to the item's width).
    pub fn with(mut self, item: AttributeItem, v: u32) -> Self {
        let (first, _) = item.bits();
        let m = item.mask();
        self.mask &= !m;
        self.value = (self.value & !m) | ((v << first) & m);
        self
    }

    /// The new value of `item`, or `None` when the packet leaves all of its bits unchanged.
    /// (An item only partly masked reports the bits that change.)
    pub fn get(&self, item: AttributeItem) -> Option<u32> {
        let m = item.mask();
        if self.mask & m == m {
            None
        } else {
            Some((self.value & m & !self.mask) >> item.bits().0)
        }
    }

    /// The attribute word after applying this packet to `current`:
    /// kept bits from `current`, changed bits from `value`.
    pub fn apply(&self, current: u32) -> u32 {
        (current & self.mask) | (self.value & !self.mask)
    }
}

/// A 16-bit ID (TMD data ID, parent object ID) and the pad halfword after it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct IdValue {
    /// The ID.
    pub id: u16,
    /// The second halfword of the word, kept verbatim.
    #[serde(default, skip_serializing_if = "is_default")]
    pub pad: u16,
}

impl IdValue {
    /// An ID with a zero pad.
    pub fn new(id: u16) -> Self {
        IdValue { id, pad: 0 }
    }
}

/// Type 1: coordinate (RST). Present parts are written in the order R, S, T.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Coordinate {
    /// Flag bit 0: the values are differences from the preceding frame.
    pub differential: bool,
    /// Flag bit 1: rotation about X, Y, Z; 4096 = one degree (fixed point 1.19.12).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rotation: Option<[i32; 3]>,
    /// Flag bit 2: scaling; 4096 = 1.0 (fixed point 1.3.12).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scale: Option<Scale>,
    /// Flag bit 3: translation (integers).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub translation: Option<[i32; 3]>,
}

/// Scaling as packed in a coordinate packet: `[Sx Sy]` in one word, `[Sz pad]` in the next.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Scale {
    /// X scale, 4096 = 1.0.
    pub x: i16,
    /// Y scale, 4096 = 1.0.
    pub y: i16,
    /// Z scale, 4096 = 1.0.
    pub z: i16,
    /// The halfword after Sz, kept verbatim.
    #[serde(default, skip_serializing_if = "is_default")]
    pub pad: u16,
}

impl Scale {
    /// Unit scale (4096 on every axis).
    pub const ONE: Scale = Scale {
        x: 4096,
        y: 4096,
        z: 4096,
        pad: 0,
    };
}

/// Type 4: the `coord` MATRIX of a GsCOORDINATE2: 3×3 int16 (4096 = 1.0), a pad halfword, and a
/// translation of 3 int32 (8 words).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Matrix {
    /// Rotation/scale part, row-major.
    pub m: [[i16; 3]; 3],
    /// The halfword after the 3×3 part.
    #[serde(default, skip_serializing_if = "is_default")]
    pub pad: u16,
    /// Translation.
    pub t: [i32; 3],
}

/// Type 6: light source. The object ID is a light number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Light {
    /// Flag bit 0: differences from the preceding frame.
    pub differential: bool,
    /// Flag bit 1: direction X, Y, Z (3 words).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub direction: Option<[i32; 3]>,
    /// Flag bit 2: colour (1 word).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub color: Option<Color>,
}

/// A colour word. The manual draws it as "B G R" from the high byte down, i.e. R in the lowest
/// byte, as the PsyQ CVECTOR (r, g, b, cd).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Color {
    /// Red (byte 0).
    pub r: u8,
    /// Green (byte 1).
    pub g: u8,
    /// Blue (byte 2).
    pub b: u8,
    /// Byte 3, kept verbatim.
    #[serde(default, skip_serializing_if = "is_default")]
    pub pad: u8,
}

/// Type 7: camera. The object ID is a camera number; flag bit 0 selects the type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Camera {
    /// Camera type 0: position, reference (look-at) position and a z (roll) angle.
    LookAt(LookAtCamera),
    /// Camera type 1: rotation and translation.
    RotTrans(RotTransCamera),
}

/// Camera type 0 fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct LookAtCamera {
    /// Flag bit 1: differences from the preceding frame.
    pub differential: bool,
    /// Flag bit 2: `[Tx, Ty, Tz, TRx, TRy, TRz]`: camera position, then the reference position.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub position: Option<[i32; 6]>,
    /// Flag bit 3: the z (roll) angle.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub z_angle: Option<i32>,
}

/// Camera type 1 fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct RotTransCamera {
    /// Flag bit 1: differences from the preceding frame.
    pub differential: bool,
    /// Flag bit 2: rotation Rx, Ry, Rz.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rotation: Option<[i32; 3]>,
    /// Flag bit 3: translation Tx, Ty, Tz.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub translation: Option<[i32; 3]>,
}

/// Type 8: object control, the operation given by the flag.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ObjectControl {
    /// Flag 0: create the object.
    Create,
    /// Flag 1: kill the object.
    Kill,
    /// Flags 2..15: system reserved.
    Reserved(u8),
}

impl ObjectControl {
    /// The operation for a flag value.
    pub fn from_code(flag: u8) -> Self {
        match flag & 0xF {
            0 => ObjectControl::Create,
            1 => ObjectControl::Kill,
            n => ObjectControl::Reserved(n),
        }
    }

    /// The flag value.
    pub fn code(self) -> u8 {
        match self {
            ObjectControl::Create => 0,
            ObjectControl::Kill => 1,
            ObjectControl::Reserved(n) => n & 0xF,
        }
    }
}
