//! The P3D model: MLOD faithful to the file field by field, ODOL v7 as verbatim byte runs around
//! its typed LOD frames.

use std::collections::HashSet;
use std::sync::Arc;

/// The fixed-capacity list type of [`Face::vertices`] (re-exported from the `arrayvec` crate
/// so callers can build faces without depending on it).
pub use arrayvec::ArrayVec;
use serde::{Deserialize, Serialize};

use crate::formats::is_default;

/// A whole P3D file: editable MLOD or binarised ODOL.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "variant", rename_all = "lowercase")]
pub enum P3d {
    /// Editable model (`MLOD` magic).
    Mlod(Mlod),
    /// Binarised model (`ODOL` magic).
    Odol(Odol),
}

/// An MLOD file: header and LODs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Mlod {
    /// File version (0x101 in every known file; the engine refuses major version `> 1`).
    pub version: u32,
    /// The LODs, in file order (the LOD count is `lods.len()`).
    pub lods: Vec<Lod>,
    /// Bytes after the last LOD (the optional OFP-era 32-byte default path, or anything else).
    #[serde(default, skip_serializing_if = "Bytes::is_empty")]
    pub trailing: Bytes,
}

/// The 4-byte signature that opens an MLOD LOD.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Signature {
    /// Arma / O2PE / Object Builder LOD.
    #[serde(rename = "P3DM")]
    P3dm,
    /// OFP / O2 Light LOD: fixed 32-byte face textures, no materials, fixed 64-byte tagg names
    /// without an active flag.
    #[serde(rename = "SP3X")]
    Sp3x,
}

impl Signature {
    /// The four bytes in the file.
    pub fn magic(self) -> &'static [u8; 4] {
        match self {
            Signature::P3dm => b"P3DM",
            Signature::Sp3x => b"SP3X",
        }
    }

    /// The signature as text.
    pub fn name(self) -> &'static str {
        match self {
            Signature::P3dm => "P3DM",
            Signature::Sp3x => "SP3X",
        }
    }
}

/// One MLOD LOD: header, geometry, taggs and resolution.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Lod {
    /// `P3DM` or `SP3X`.
    pub signature: Signature,
    /// Header size field, including the signature (28 in every known file).
    pub header_size: u32,
    /// LOD version (P3DM 0x100; SP3X 0x99, or 1 in CWR-CE's synthetic fixtures).
    pub version: u32,
    /// The header's "unknown flags" word (0 in every known file).
    pub flags: u32,
    /// Header bytes beyond the 28 known ones (`header_size - 28`; the engine skips them).
    #[serde(default, skip_serializing_if = "Bytes::is_empty")]
    pub header_extra: Bytes,
    /// Points: position in model space (metres, left-handed, y up) and point flags.
    pub points: Vec<Point>,
    /// Normals referenced by the face vertices.
    #[serde(with = "float::vec_arr")]
    pub normals: Vec<[f32; 3]>,
    /// Faces, in file order.
    pub faces: Vec<Face>,
    /// Every tagg in file order, the closing `#EndOfFile#` included.
    pub taggs: Vec<Tagg>,
    /// The LOD's resolution / type value (the float after `#EndOfFile#`).
    #[serde(with = "float::one")]
    pub resolution: f32,
}

/// A point: position and flags (land, light, decal, fog, user value, hidden).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Point {
    /// x, y, z in metres.
    #[serde(with = "float::arr")]
    pub pos: [f32; 3],
    /// Point flags (see the module docs).
    #[serde(default, skip_serializing_if = "is_default")]
    pub flags: u32,
}

/// One face vertex: point and normal index and texture coordinates.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct VertexRef {
    /// Index into [`Lod::points`].
    pub point: u32,
    /// Index into [`Lod::normals`].
    pub normal: u32,
    /// Texture coordinates u, v.
    #[serde(with = "float::arr")]
    pub uv: [f32; 2],
}

/// A face record (both variants: P3DM with texture and material names, SP3X with a fixed
/// 32-byte texture name before the vertices).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Face {
    /// The vertex count field: 3 (triangle) or 4 (quad); the file always has 4 vertex slots.
    pub n: u32,
    /// The first `min(n, 4)` vertex slots (held inline: a face has at most 4).
    pub vertices: ArrayVec<VertexRef, 4>,
    /// The bytes of the slots beyond `n` (16 per slot), verbatim: writers that never cleared
    /// them leave earlier data there.
    #[serde(default, skip_serializing_if = "SlotBytes::is_empty")]
    pub unused_slots: SlotBytes,
    /// Face flags (lighting, shadow, z-bias, user value; see the module docs).
    #[serde(default, skip_serializing_if = "is_default")]
    pub flags: u32,
    /// Texture path (may be a procedural texture `#(argb,8,8,3)color(...)`).
    pub texture: Text,
    /// SP3X: the bytes after the texture name's NUL in its 32-byte field, when not all zero.
    #[serde(default, skip_serializing_if = "Bytes::is_empty")]
    pub texture_padding: Bytes,
    /// P3DM: material (`.rvmat`) path; `None` in SP3X faces, which have no material.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub material: Option<Text>,
}

/// A tagg: a named, sized data block after the faces.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Tagg {
    /// P3DM: the active byte (1 in every known file); `None` in SP3X LODs, which have none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub active: Option<u8>,
    /// The tagg name (`#Animation#`, a selection name, ...).
    pub name: Text,
    /// SP3X: the bytes after the name's NUL in its 64-byte field, when not all zero.
    #[serde(default, skip_serializing_if = "Bytes::is_empty")]
    pub name_padding: Bytes,
    /// The data block, decoded when its name and size say what it is.
    pub data: TaggData,
}

/// A tagg's data block.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum TaggData {
    /// `#Animation#`: one LOD frame, `4 + 12·points` bytes.
    Animation {
        /// Frame time (an animation phase, 0..1 in known files).
        #[serde(with = "float::one")]
        time: f32,
        /// One position per point, in point order.
        #[serde(with = "float::vec_arr")]
        positions: Vec<[f32; 3]>,
    },
    /// A named selection, proxy, `#Selected#`, `#Lock#` or `#Hidden#`: one weight byte per point,
    /// then one per face (`points + faces` bytes). 0 = not selected, 1 = fully selected.
    Selection {
        /// Weight per point.
        points: Bytes,
        /// Weight per face.
        faces: Bytes,
    },
    /// `#Property#`: two 64-byte NUL-padded strings.
    Property {
        /// Property name.
        name: Text,
        /// Bytes after the name's NUL, when not all zero.
        #[serde(default, skip_serializing_if = "Bytes::is_empty")]
        name_padding: Bytes,
        /// Property value.
        value: Text,
        /// Bytes after the value's NUL, when not all zero.
        #[serde(default, skip_serializing_if = "Bytes::is_empty")]
        value_padding: Bytes,
    },
    /// `#Mass#`: one mass per point (`4·points` bytes).
    Mass {
        /// Mass per point.
        #[serde(with = "float::vec")]
        masses: Vec<f32>,
    },
    /// `#UVSet#`: set id, then u, v for every real vertex of every face in face order.
    UvSet {
        /// UV set id (0 duplicates the face records' UVs).
        set: u32,
        /// u, v per face vertex.
        #[serde(with = "float::vec_arr")]
        uvs: Vec<[f32; 2]>,
    },
    /// `#SharpEdges#`: pairs of point indices.
    SharpEdges {
        /// Point index pairs.
        edges: Vec<[u32; 2]>,
    },
    /// `#EndOfFile#` with its empty data: the last tagg of a LOD.
    EndOfFile,
    /// Anything else, or a known name whose size does not fit its layout, verbatim.
    Raw {
        /// The data block.
        data: Bytes,
    },
}

/// What a tagg is, from its name (and data).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TaggKind {
    /// `#Animation#`.
    Animation,
    /// A named selection (name not starting with `#`).
    NamedSelection,
    /// A proxy: a named selection called `proxy:<path>.<NNN>`.
    Proxy,
    /// `#Selected#`.
    Selected,
    /// `#Lock#`.
    Lock,
    /// `#Hidden#`.
    Hidden,
    /// `#Property#`.
    Property,
    /// `#Mass#`.
    Mass,
    /// `#UVSet#`.
    UvSet,
    /// `#SharpEdges#`.
    SharpEdges,
    /// `#EndOfFile#`.
    EndOfFile,
    /// Any other `#...#` name.
    Other,
}

impl Tagg {
    /// What this tagg is, from its name.
    pub fn kind(&self) -> TaggKind {
        kind_of(self.name.as_bytes())
    }

    /// The proxy's model path and index when this tagg is a proxy selection
    /// (`proxy:\path\model.001` → (`\path\model`, 1)).
    pub fn proxy(&self) -> Option<(String, Option<u32>)> {
        let rest = self.name.as_bytes().strip_prefix(b"proxy:")?;
        let text = String::from_utf8_lossy(rest).into_owned();
        match text.rsplit_once('.') {
            Some((path, n)) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => {
                Some((path.to_string(), n.parse().ok()))
            }
            _ => Some((text, None)),
        }
    }
}

pub(crate) fn kind_of(name: &[u8]) -> TaggKind {
    match name {
        b"#Animation#" => TaggKind::Animation,
        b"#Selected#" => TaggKind::Selected,
        b"#Lock#" => TaggKind::Lock,
        b"#Hidden#" => TaggKind::Hidden,
        b"#Property#" => TaggKind::Property,
        b"#Mass#" => TaggKind::Mass,
        b"#UVSet#" => TaggKind::UvSet,
        b"#SharpEdges#" => TaggKind::SharpEdges,
        b"#EndOfFile#" => TaggKind::EndOfFile,
        n if n.starts_with(b"proxy:") => TaggKind::Proxy,
        n if n.starts_with(b"#") => TaggKind::Other,
        _ => TaggKind::NamedSelection,
    }
}

/// A binarised ODOL file.
///
/// Version 7 (OFP / CWA) and the Arma versions 50 and 73 are read. LODs are kept as verbatim
/// byte runs around the typed frames, so writing reproduces the file and replacing frames
/// leaves every other byte alone (Arma: the LOD address table is recomputed).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Odol {
    /// File version (7, 50 or 73).
    pub version: u32,
    /// The LODs, in LOD-index order (v7: also file order; Arma: see
    /// [`ArmaHeader::file_order`]).
    pub lods: Vec<OdolLod>,
    /// v7: the model info after the last LOD (starts with one f32 resolution per LOD).
    /// Arma: the model info and skeletal animations between the resolutions and the LOD
    /// address table. Verbatim.
    pub model_info: Bytes,
    /// What only Arma ODOL has (absent for v7).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arma: Option<ArmaHeader>,
}

/// The parts of an Arma ODOL (v50, v73) file around its model info and LODs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ArmaHeader {
    /// Application ID (v59+) and muzzle-flash selection name (v58+), verbatim (empty for v50).
    #[serde(default, skip_serializing_if = "Bytes::is_empty")]
    pub prefix: Bytes,
    /// One resolution / LOD type value per LOD.
    #[serde(with = "float::vec")]
    pub resolutions: Vec<f32>,
    /// After the two LOD address tables: one "permanent" byte per LOD and the loadable-LOD
    /// info of each non-permanent LOD, verbatim.
    pub lod_info: Bytes,
    /// LOD indices in the order their data is stored (the binariser writes them by
    /// descending resolution). The address table is recomputed from it on write.
    pub file_order: Vec<u32>,
    /// Bytes after the last LOD, verbatim.
    #[serde(default, skip_serializing_if = "Bytes::is_empty")]
    pub trailing: Bytes,
}

/// One ODOL LOD.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OdolLod {
    /// Everything from the LOD's start up to the frame count, verbatim. v7: vertex table,
    /// hints, bounds, textures, edges, faces, sections, named selections, named properties.
    /// Arma: proxies, sub-skeleton maps, vertex count, hints, bounds, textures, materials,
    /// point/vertex maps, polygons, sections, named selections, named properties.
    pub geometry: Bytes,
    /// The LOD frames.
    pub frames: Vec<OdolFrame>,
    /// Everything after the frames, verbatim. v7: colours, special flags, proxies. Arma:
    /// colours, special flags and the vertex table (UVs, positions, normals, bone weights).
    pub tail: Bytes,
}

/// One ODOL LOD frame: a time and one position per vertex (`nBones` in the wiki).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OdolFrame {
    /// Frame time (phase).
    #[serde(with = "float::one")]
    pub time: f32,
    /// One position per ODOL vertex, relative to the model centre.
    #[serde(with = "float::vec_arr")]
    pub positions: Vec<[f32; 3]>,
}

/// Bytes as they appear in the file; JSON shows them as a hex string.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Bytes(pub Vec<u8>);

impl Bytes {
    /// True when there are no bytes.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl Serialize for Bytes {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&to_hex(&self.0))
    }
}

impl<'de> Deserialize<'de> for Bytes {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        from_hex(&String::deserialize(d)?)
            .map(Bytes)
            .map_err(serde::de::Error::custom)
    }
}

fn to_hex(bytes: &[u8]) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        out.push(HEX[(b >> 4) as usize] as char);
        out.push(HEX[(b & 15) as usize] as char);
    }
    out
}

fn from_hex(s: &str) -> Result<Vec<u8>, String> {
    let digit = |c: u8| -> Result<u8, String> {
        (c as char)
            .to_digit(16)
            .map(|v| v as u8)
            .ok_or_else(|| format!("not a hex digit: {:?}", c as char))
    };
    let b = s.as_bytes();
    if b.len() % 2 != 0 {
        return Err("hex string of odd length".into());
    }
    b.chunks(2)
        .map(|p| Ok(digit(p[0])? << 4 | digit(p[1])?))
        .collect()
}

/// The bytes of a face's unused vertex slots (16 per slot): none when they are all zero, as
/// writers that cleared them leave them. One slot (a triangle's fourth, the common case) is
/// held inline, so reading a face allocates nothing; JSON shows them as a hex string, like
/// [`Bytes`].
#[derive(Clone, PartialEq, Eq, Default)]
pub struct SlotBytes(Slots);

#[derive(Clone, PartialEq, Eq, Default)]
enum Slots {
    #[default]
    None,
    One([u8; 16]),
    More(Box<[u8]>),
}

impl SlotBytes {
    /// The bytes as given (empty: none kept).
    pub fn new(bytes: &[u8]) -> Self {
        SlotBytes(match bytes {
            [] => Slots::None,
            b => match <[u8; 16]>::try_from(b) {
                Ok(one) => Slots::One(one),
                Err(_) => Slots::More(b.into()),
            },
        })
    }

    /// The bytes.
    pub fn as_bytes(&self) -> &[u8] {
        match &self.0 {
            Slots::None => &[],
            Slots::One(b) => b,
            Slots::More(b) => b,
        }
    }

    /// True when there are no bytes.
    pub fn is_empty(&self) -> bool {
        self.as_bytes().is_empty()
    }
}

impl std::fmt::Debug for SlotBytes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("SlotBytes").field(&self.as_bytes()).finish()
    }
}

impl Serialize for SlotBytes {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&to_hex(self.as_bytes()))
    }
}

impl<'de> Deserialize<'de> for SlotBytes {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        from_hex(&String::deserialize(d)?)
            .map(|b| SlotBytes::new(&b))
            .map_err(serde::de::Error::custom)
    }
}

/// A name or path as stored (no encoding is defined; files use ASCII and Windows code pages).
/// JSON shows valid UTF-8 as a string and anything else as `{"bytes": "<hex>"}`.
///
/// The bytes are shared: the reader gives every face with the same texture or material, and
/// every tagg with the same name, one copy (a LOD names a handful of textures over thousands
/// of faces). Cloning is cheap; a changed name is a new `Text`. The empty name (a fifth of the
/// face names in real files) holds nothing, so cloning and dropping it costs nothing at all.
#[derive(Clone, Default)]
pub struct Text(Option<Arc<[u8]>>);

impl std::fmt::Debug for Text {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Text").field(&self.as_bytes()).finish()
    }
}

impl Text {
    /// The `Text` for `b`: `None` exactly when `b` is empty.
    fn new(b: Arc<[u8]>) -> Self {
        Text((!b.is_empty()).then_some(b))
    }

    /// The raw bytes.
    pub fn as_bytes(&self) -> &[u8] {
        match &self.0 {
            Some(a) => a,
            None => &[],
        }
    }

    /// The text, with invalid UTF-8 replaced.
    pub fn lossy(&self) -> String {
        String::from_utf8_lossy(self.as_bytes()).into_owned()
    }

    /// Number of bytes.
    pub fn len(&self) -> usize {
        self.as_bytes().len()
    }

    /// True when the name is empty.
    pub fn is_empty(&self) -> bool {
        self.0.is_none()
    }
}

impl PartialEq for Text {
    fn eq(&self, other: &Self) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl Eq for Text {}

impl From<&str> for Text {
    fn from(s: &str) -> Self {
        s.as_bytes().into()
    }
}

impl From<&[u8]> for Text {
    fn from(b: &[u8]) -> Self {
        Text((!b.is_empty()).then(|| b.into()))
    }
}

impl From<Vec<u8>> for Text {
    fn from(b: Vec<u8>) -> Self {
        Text::new(b.into())
    }
}

/// Shares the bytes of equal names read from one file (see [`Text`]): the number of distinct
/// names is bounded by the file's size, since each one was read from it.
#[derive(Debug, Default)]
pub(crate) struct Names {
    /// The last few names handed out, most recent first: consecutive faces mostly repeat
    /// their texture and material, which this finds without hashing.
    recent: [Text; 4],
    seen: HashSet<Arc<[u8]>>,
}

impl Names {
    /// The shared `Text` for `b`.
    pub(crate) fn get(&mut self, b: &[u8]) -> Text {
        if b.is_empty() {
            return Text::default();
        }
        if let Some(i) = self.recent.iter().position(|t| t.as_bytes() == b) {
            self.recent[..=i].rotate_right(1);
            return self.recent[0].clone();
        }
        let t = match self.seen.get(b) {
            Some(a) => Text(Some(a.clone())),
            None => {
                let a: Arc<[u8]> = b.into();
                self.seen.insert(a.clone());
                Text(Some(a))
            }
        };
        self.recent.rotate_right(1);
        self.recent[0] = t.clone();
        t
    }
}

#[derive(Serialize, Deserialize)]
#[serde(untagged)]
enum TextRepr {
    Utf8(String),
    Raw { bytes: Bytes },
}

impl Serialize for Text {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match std::str::from_utf8(self.as_bytes()) {
            Ok(t) => s.serialize_str(t),
            Err(_) => TextRepr::Raw {
                bytes: Bytes(self.as_bytes().to_vec()),
            }
            .serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for Text {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(match TextRepr::deserialize(d)? {
            TextRepr::Utf8(s) => s.into_bytes().into(),
            TextRepr::Raw { bytes } => bytes.0.into(),
        })
    }
}

/// serde helpers that keep every `f32` bit pattern through JSON: finite values are numbers,
/// NaN and infinities (real files have NaN texture coordinates) are strings `"f32:<hex bits>"`.
pub(crate) mod float {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    struct J(f32);

    impl Serialize for J {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            if self.0.is_finite() {
                s.serialize_f32(self.0)
            } else {
                s.serialize_str(&format!("f32:{:08x}", self.0.to_bits()))
            }
        }
    }

    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Repr {
        Num(f32),
        Str(String),
    }

    impl<'de> Deserialize<'de> for J {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            match Repr::deserialize(d)? {
                Repr::Num(v) => Ok(J(v)),
                Repr::Str(s) => s
                    .strip_prefix("f32:")
                    .and_then(|h| u32::from_str_radix(h, 16).ok())
                    .map(|b| J(f32::from_bits(b)))
                    .ok_or_else(|| serde::de::Error::custom(format!("not an f32: {s:?}"))),
            }
        }
    }

    /// One `f32`.
    pub mod one {
        use super::*;
        pub fn serialize<S: Serializer>(v: &f32, s: S) -> Result<S::Ok, S::Error> {
            J(*v).serialize(s)
        }
        pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<f32, D::Error> {
            Ok(J::deserialize(d)?.0)
        }
    }

    /// `[f32; N]`.
    pub mod arr {
        use super::*;
        pub fn serialize<S: Serializer, const N: usize>(
            v: &[f32; N],
            s: S,
        ) -> Result<S::Ok, S::Error> {
            s.collect_seq(v.iter().map(|x| J(*x)))
        }
        pub fn deserialize<'de, D: Deserializer<'de>, const N: usize>(
            d: D,
        ) -> Result<[f32; N], D::Error> {
            let v: Vec<J> = Vec::deserialize(d)?;
            let n = v.len();
            let a: Vec<f32> = v.into_iter().map(|j| j.0).collect();
            a.try_into()
                .map_err(|_| serde::de::Error::custom(format!("expected {N} numbers, found {n}")))
        }
    }

    /// `Vec<f32>`.
    pub mod vec {
        use super::*;
        pub fn serialize<S: Serializer>(v: &[f32], s: S) -> Result<S::Ok, S::Error> {
            s.collect_seq(v.iter().map(|x| J(*x)))
        }
        pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<f32>, D::Error> {
            Ok(Vec::<J>::deserialize(d)?.into_iter().map(|j| j.0).collect())
        }
    }

    /// `Vec<[f32; N]>`.
    pub mod vec_arr {
        use super::*;
        struct A<const N: usize>([f32; N]);
        impl<const N: usize> Serialize for A<N> {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                super::arr::serialize(&self.0, s)
            }
        }
        impl<'de, const N: usize> Deserialize<'de> for A<N> {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                super::arr::deserialize(d).map(A)
            }
        }
        pub fn serialize<S: Serializer, const N: usize>(
            v: &[[f32; N]],
            s: S,
        ) -> Result<S::Ok, S::Error> {
            s.collect_seq(v.iter().map(|x| A(*x)))
        }
        pub fn deserialize<'de, D: Deserializer<'de>, const N: usize>(
            d: D,
        ) -> Result<Vec<[f32; N]>, D::Error> {
            Ok(Vec::<A<N>>::deserialize(d)?
                .into_iter()
                .map(|a| a.0)
                .collect())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slot_bytes_keep_any_length_and_show_as_hex_like_bytes() {
        for n in [0usize, 16, 32, 48, 64] {
            let b: Vec<u8> = (0..n as u8).map(|i| i.wrapping_mul(37)).collect();
            let s = SlotBytes::new(&b);
            assert_eq!(s.as_bytes(), &b[..]);
            assert_eq!(s.is_empty(), n == 0);
            let json = serde_json::to_string(&s).unwrap();
            assert_eq!(json, serde_json::to_string(&Bytes(b.clone())).unwrap());
            assert_eq!(serde_json::from_str::<SlotBytes>(&json).unwrap(), s);
        }
        assert!(serde_json::from_str::<SlotBytes>("\"0g\"").is_err());
        assert!(serde_json::from_str::<SlotBytes>("\"012\"").is_err());
    }
}
