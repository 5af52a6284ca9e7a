//! The RTM model: faithful to the file, every byte kept.

use serde::{Deserialize, Serialize};

use super::{NAME_SIZE, TRANSFORM_SIZE};
use crate::formats::json_f32;

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

/// The binarised form, decoded to its bone names; the rest kept verbatim.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Bmtr {
    /// The version (3 Arma 2, 4 and 5 Arma 3).
    pub version: u32,
    /// The byte after the version (1 in the wiki's files).
    pub flag: u8,
    /// Metres the animation moves its unit per cycle.
    #[serde(with = "json_f32::triple")]
    pub displacement: [f32; 3],
    /// The frame count.
    pub frame_count: u32,
    /// The word after the frame count (generally 0).
    pub reserved: u32,
    /// The bone count.
    pub bone_count: u32,
    /// The bone count, stored a second time.
    pub bone_count_again: u32,
    /// The bone names (NUL-terminated in the file, Latin-1).
    pub bones: Vec<String>,
    /// Everything after the bone names, verbatim (frame properties, phase times, compressed
    /// frames): not decoded.
    pub body: Vec<u8>,
}

/// What `retroanim info` shows for an RTM.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Summary {
    /// Always `"rtm"`.
    pub format: &'static str,
    /// `RTM_0101`, `RTM_MDAT + RTM_0101` or `BMTR v<version>`.
    pub form: String,
    /// Frames.
    pub frames: usize,
    /// Bones.
    pub bones: usize,
    /// The displacement (step) per cycle, metres.
    pub displacement: [f32; 3],
    /// `RTM_MDAT` properties.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub properties: Option<usize>,
    /// The first and last frame phases (editable form only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub phases: Option<[f32; 2]>,
    /// What is not decoded (BMTR).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub undecoded: Option<String>,
}

impl Rtm {
    /// The summary `retroanim info` shows.
    pub fn summary(&self) -> Summary {
        match self {
            Rtm::Mlod(m) => Summary {
                format: "rtm",
                form: if m.mdat.is_some() {
                    "RTM_MDAT + RTM_0101".into()
                } else {
                    "RTM_0101".into()
                },
                frames: m.frames.len(),
                bones: m.bones.len(),
                displacement: m.displacement,
                properties: m.mdat.as_ref().map(|d| d.properties.len()),
                phases: match (m.frames.first(), m.frames.last()) {
                    (Some(a), Some(b)) => Some([a.phase, b.phase]),
                    _ => None,
                },
                undecoded: None,
            },
            Rtm::Bmtr(b) => Summary {
                format: "rtm",
                form: format!("BMTR v{}", b.version),
                frames: b.frame_count as usize,
                bones: b.bones.len(),
                displacement: b.displacement,
                properties: None,
                phases: None,
                undecoded: Some(format!(
                    "{} bytes of phase times and compressed frames",
                    b.body.len()
                )),
            },
        }
    }

    /// The editable form, or [`crate::Error::Unsupported`] for a BMTR (whose frames are not
    /// decoded).
    pub fn mlod(&self) -> crate::Result<&Mlod> {
        match self {
            Rtm::Mlod(m) => Ok(m),
            Rtm::Bmtr(b) => Err(crate::Error::Unsupported {
                format: crate::Format::Rtm,
                offset: b.body_offset(),
                feature: format!(
                    "BMTR v{} frames (phase times and compressed quaternion + translation per bone, LZO-compressed when large) are not decoded; only the header and bone names are",
                    b.version
                ),
            }),
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

    /// Offset of bone name `i` in the header.
    pub fn bone_offset(&self, i: usize) -> u64 {
        self.mdat_size() + 28 + (NAME_SIZE * i) as u64
    }

    /// Offset of frame `f`.
    pub fn frame_offset(&self, f: usize) -> u64 {
        self.mdat_size()
            + 28
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

impl Bmtr {
    /// Offset of the undecoded body.
    pub fn body_offset(&self) -> u64 {
        37 + self.bones.iter().map(|b| latin1_len(b) + 1).sum::<u64>()
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
