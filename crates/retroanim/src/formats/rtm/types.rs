//! The RTM model: faithful to the file, every byte kept.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

use super::skeleton::Skeleton;

use super::{NAME_SIZE, TRANSFORM_SIZE};
use crate::formats::{is_default, json_f32};
use crate::report::Note;

/// An RTM file in either form.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "form", rename_all = "lowercase")]
pub enum Rtm {
    /// The editable form (`RTM_0101`, optionally after `RTM_MDAT`).
    Mlod(Mlod),
    /// The binarised form (`BMTR`), decoded to its bone names.
    Bmtr(Bmtr),
}

/// The editable form.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Mlod {
    /// The `RTM_MDAT` property block before the animation, if the file has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mdat: Option<Mdat>,
    /// Metres the animation moves its unit per cycle (x, y, z in the model's axes).
    #[serde(with = "json_f32::triple")]
    pub displacement: [f32; 3],
    /// The older header, `RTM_0100` (Operation Flashpoint): the displacement is stored as one
    /// f32, along z (x and y are 0 and cannot be written); everything else as `RTM_0101`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub v0100: bool,
    /// The bone names, in header order.
    pub bones: Vec<Name32>,
    /// The frames, in file order.
    pub frames: Vec<Frame>,
}

/// The `RTM_MDAT` block: properties stamped with a phase (sounds, actions).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Mdat {
    /// The 4 bytes after the magic, kept verbatim (0 in every file seen).
    pub reserved: u32,
    /// The properties, in file order.
    pub properties: Vec<Property>,
}

/// One `RTM_MDAT` property.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Property {
    /// The phase (0..1) it applies at.
    #[serde(with = "json_f32::scalar")]
    pub phase: f32,
    /// Its name (Latin-1, at most 255 bytes).
    pub name: String,
    /// Its value (Latin-1, at most 255 bytes).
    pub value: String,
}

/// A fixed 32-byte, NUL-padded name.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Name32 {
    /// The bytes before the first NUL, as Latin-1 (one char per byte).
    pub name: String,
    /// The bytes after the NUL when any is not zero (then exactly `31 − name length` bytes);
    /// empty when the padding is all zero.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tail: Vec<u8>,
}

impl Name32 {
    /// A name with zero padding.
    pub fn new(name: impl Into<String>) -> Name32 {
        Name32 {
            name: name.into(),
            tail: Vec::new(),
        }
    }

    /// Whether two names are the same bone (the engine compares bone names ignoring ASCII case).
    pub fn same_bone(&self, other: &str) -> bool {
        self.name.eq_ignore_ascii_case(other)
    }
}

/// One frame: a phase and one transform per bone.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Frame {
    /// Where in the cycle the frame sits, 0..1.
    #[serde(with = "json_f32::scalar")]
    pub phase: f32,
    /// One transform per bone (the file holds as many as the header has bones).
    pub transforms: Vec<BoneTransform>,
}

/// One bone's transform in a frame.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BoneTransform {
    /// The bone's name, as the frame repeats it.
    pub bone: Name32,
    /// BI's `Matrix4P`: rotation columns aside, up, direction, then the position (metres).
    #[serde(with = "json_f32::matrix12")]
    pub matrix: [f32; 12],
}

/// The binarised form: every field decoded; transforms kept as stored (quantised), each
/// parent-relative (see [`Bmtr::to_mlod`] for the model-space matrices).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Bmtr {
    /// The version (3 Arma 2, 4 and 5 Arma 3).
    pub version: u32,
    /// The byte after the version (1 in the wiki's files), kept verbatim.
    pub flag: u8,
    /// Metres the animation moves its unit per cycle.
    #[serde(with = "json_f32::triple")]
    pub displacement: [f32; 3],
    /// The word after the frame count (generally 0), kept verbatim.
    pub reserved: u32,
    /// The bone names (NUL-terminated in the file, Latin-1), in the order of every frame's
    /// transforms.
    pub bones: Vec<String>,
    /// Version 4 and later: the frame properties (sounds, actions stamped with a phase).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub properties: Option<BmtrProperties>,
    /// Whether each array carries a byte saying whether it is LZO-compressed (always in
    /// version 5, never in 3; version 4 files are read either way, see the module docs).
    pub flagged: bool,
    /// The phase (0..1) of each frame.
    #[serde(with = "json_f32::list")]
    pub phases: Vec<f32>,
    /// How the phase array is stored.
    #[serde(default, skip_serializing_if = "is_default")]
    pub phases_packing: Packing,
    /// The frames, in file order (one per phase).
    pub frames: Vec<BmtrFrame>,
}

/// The frame properties of a BMTR (version 4 and later).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct BmtrProperties {
    /// The word before the count (0 in the sources' files), kept verbatim.
    pub reserved: u32,
    /// The properties, in file order.
    pub properties: Vec<BmtrProperty>,
}

/// One BMTR frame property.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BmtrProperty {
    /// The word before the name (0xFFFFFFFF in one reader's files), kept verbatim.
    pub unknown: u32,
    /// Its name (Latin-1), e.g. `StepSound`.
    pub name: String,
    /// The phase (0..1) it applies at.
    #[serde(with = "json_f32::scalar")]
    pub phase: f32,
    /// Its value (Latin-1).
    pub value: String,
}

/// One BMTR frame: a transform per bone, in the header's bone order.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct BmtrFrame {
    /// How the frame's array is stored.
    #[serde(default, skip_serializing_if = "is_default")]
    pub packing: Packing,
    /// One transform per bone.
    pub transforms: Vec<BmtrTransform>,
}

/// One bone's transform in a BMTR frame, relative to its parent bone, as stored.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BmtrTransform {
    /// The rotation quaternion x, y, z, w, each × 16384.
    pub rotation: [i16; 4],
    /// The translation x, y, z: IEEE half-precision bit patterns, metres.
    pub position: [u16; 3],
}

/// How one BMTR array is stored.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Packing {
    /// LZO-compressed. Written only where the file flags its arrays; elsewhere the writer
    /// follows the format's rule (compressed from 1024 bytes), which is what a read found.
    pub lzo: bool,
    /// The LZO1X stream as read: written back while it still decodes to the array's bytes,
    /// else (or when empty) the writer packs the array as one literal run.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stream: Vec<u8>,
}

/// What `retroanim info` shows for an RTM.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Summary {
    /// Always `"rtm"`.
    pub format: &'static str,
    /// `RTM_0101`, `RTM_MDAT + RTM_0101`, `BMTR v<version>` or, for a version 4 file whose
    /// arrays carry compression flags, `BMTR v4 (flagged arrays)`.
    pub form: String,
    /// Frames.
    pub frames: usize,
    /// Bones.
    pub bones: usize,
    /// The displacement (step) per cycle, metres.
    pub displacement: [f32; 3],
    /// `RTM_MDAT` properties, or a BMTR's frame properties (version 4 and later).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub properties: Option<usize>,
    /// The first and last frame phases.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub phases: Option<[f32; 2]>,
    /// BMTR: how many of its arrays (the phase times and one per frame) are LZO-compressed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lzo_arrays: Option<usize>,
}

fn first_last(mut phases: impl DoubleEndedIterator<Item = f32> + Clone) -> Option<[f32; 2]> {
    Some([phases.clone().next()?, phases.next_back()?])
}

impl Rtm {
    /// The summary `retroanim info` shows.
    pub fn summary(&self) -> Summary {
        match self {
            Rtm::Mlod(m) => Summary {
                format: "rtm",
                form: format!(
                    "{}{}",
                    if m.mdat.is_some() { "RTM_MDAT + " } else { "" },
                    if m.v0100 { "RTM_0100" } else { "RTM_0101" }
                ),
                frames: m.frames.len(),
                bones: m.bones.len(),
                displacement: m.displacement,
                properties: m.mdat.as_ref().map(|d| d.properties.len()),
                phases: first_last(m.frames.iter().map(|f| f.phase)),
                lzo_arrays: None,
            },
            Rtm::Bmtr(b) => Summary {
                format: "rtm",
                form: if b.version == 4 && b.flagged {
                    "BMTR v4 (flagged arrays)".into()
                } else {
                    format!("BMTR v{}", b.version)
                },
                frames: b.frames.len(),
                bones: b.bones.len(),
                displacement: b.displacement,
                properties: b.properties.as_ref().map(|p| p.properties.len()),
                phases: first_last(b.phases.iter().copied()),
                lzo_arrays: Some(
                    usize::from(b.phases_packing.lzo)
                        + b.frames.iter().filter(|f| f.packing.lzo).count(),
                ),
            },
        }
    }

    /// The bone names, in the file's order.
    pub fn bone_names(&self) -> Vec<&str> {
        match self {
            Rtm::Mlod(m) => m.bones.iter().map(|b| b.name.as_str()).collect(),
            Rtm::Bmtr(b) => b.bones.iter().map(String::as_str).collect(),
        }
    }

    /// The animation as model-space matrices, which playing, validating the poses and the glTF
    /// export take: the editable form as it is; a BMTR decoded by [`Bmtr::to_mlod`] (its
    /// transforms are parent-relative, so `skeleton` places the bones; the notes say what was
    /// assumed).
    pub fn to_mlod(&self, skeleton: Option<&Skeleton>) -> (Cow<'_, Mlod>, Vec<Note>) {
        match self {
            Rtm::Mlod(m) => (Cow::Borrowed(m), Vec::new()),
            Rtm::Bmtr(b) => {
                let (m, notes) = b.to_mlod(skeleton);
                (Cow::Owned(m), notes)
            }
        }
    }
}

impl Mlod {
    /// Bytes before the `RTM_0101` magic (the MDAT block's size).
    pub fn mdat_size(&self) -> u64 {
        self.mdat.as_ref().map_or(0, |d| {
            16 + d
                .properties
                .iter()
                .map(|p| 6 + latin1_len(&p.name) + latin1_len(&p.value))
                .sum::<u64>()
        })
    }

    /// Bytes of the header before the bone names: magic, displacement (3 × f32, or one in
    /// `RTM_0100`), frame and bone counts.
    pub fn header_size(&self) -> u64 {
        if self.v0100 {
            20
        } else {
            28
        }
    }

    /// Offset of bone name `i` in the header.
    pub fn bone_offset(&self, i: usize) -> u64 {
        self.mdat_size() + self.header_size() + (NAME_SIZE * i) as u64
    }

    /// Offset of frame `f`.
    pub fn frame_offset(&self, f: usize) -> u64 {
        self.mdat_size()
            + self.header_size()
            + (NAME_SIZE * self.bones.len()) as u64
            + f as u64 * (4 + (TRANSFORM_SIZE * self.bones.len()) as u64)
    }

    /// Offset of bone `b`'s transform in frame `f`.
    pub fn transform_offset(&self, f: usize, b: usize) -> u64 {
        self.frame_offset(f) + 4 + (TRANSFORM_SIZE * b) as u64
    }

    /// Index of the transform of header bone `b` in frame `f`: the same index when the names
    /// agree, else the first transform of that name (ignoring ASCII case).
    pub fn find(&self, frame: &Frame, b: usize) -> Option<usize> {
        let name = &self.bones.get(b)?.name;
        if frame
            .transforms
            .get(b)
            .is_some_and(|t| t.bone.same_bone(name))
        {
            return Some(b);
        }
        frame.transforms.iter().position(|t| t.bone.same_bone(name))
    }
}

/// Bytes of `s` as Latin-1 (chars past U+00FF count one byte each; the writer refuses them).
pub(crate) fn latin1_len(s: &str) -> u64 {
    s.chars().count() as u64
}

/// Latin-1 bytes as a string, one char per byte.
pub(crate) fn from_latin1(b: &[u8]) -> String {
    b.iter().map(|&c| c as char).collect()
}

/// `s` as Latin-1 bytes, or the first char that has none.
pub(crate) fn to_latin1(s: &str) -> Result<Vec<u8>, char> {
    s.chars()
        .map(|c| u8::try_from(u32::from(c)).map_err(|_| c))
        .collect()
}

/// An [`crate::Error::Unencodable`] for an RTM.
pub(crate) fn unencodable(what: String) -> crate::Error {
    crate::Error::Unencodable {
        format: crate::Format::Rtm,
        what,
    }
}

/// `s` as Latin-1 bytes, or an unencodable error naming `what`.
pub(crate) fn latin1(s: &str, what: &str) -> crate::Result<Vec<u8>> {
    to_latin1(s).map_err(|c| unencodable(format!("{what} {s:?}: {c:?} is not a Latin-1 character")))
}
