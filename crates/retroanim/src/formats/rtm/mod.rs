//! RTM: Operation Flashpoint / Arma skeletal animations — the editable form (`RTM_0101`,
//! optionally preceded by an `RTM_MDAT` block of phase-stamped properties) read and written
//! field by field, and the binarised form (`BMTR`) read to its bone names and kept verbatim.
//!
//! Sources: the BI community wiki pages *Rtm (Animation) File Format* and *Rtm Binarised File
//! Format*; the corpus (six `RTM_0101` files of a well-known Arma 3 mod) decides where they are
//! vague. All little-endian.
//!
//! ## RTM_MDAT (optional, first)
//!
//! | offset | size | field | unit / meaning | source |
//! |---|---|---|---|---|
//! | 0 | 8 | magic `RTM_MDAT` | | Arma 3 tools' RTM readers |
//! | 8 | 4 | reserved | kept verbatim (0 in every file seen) | same |
//! | 12 | 4 | property count K | u32 | same |
//! | 16.. | | K properties | f32 phase (0..1); u8 length + name bytes; u8 length + value bytes | same |
//!
//! ## RTM_0101 (at 0, or right after the MDAT block)
//!
//! | offset | size | field | unit / meaning | source |
//! |---|---|---|---|---|
//! | +0 | 8 | magic `RTM_0101` | not NUL-terminated | wiki "RtmFile" |
//! | +8 | 12 | displacement | f32 x, y, z metres: how far the animation moves its unit per cycle ("step") | wiki "Vertex\[3\]" |
//! | +20 | 4 | frame count F | i32 | wiki "TotalFrames" |
//! | +24 | 4 | bone count B | i32 | wiki "nPictures" |
//! | +28 | 32·B | bone names | NUL-padded, fixed 32 bytes | wiki "P3dNames\[\]\[32\]" |
//! | | F·(4 + 80·B) | frames | f32 phase (0..1); then B × { 32-byte bone name; 12 × f32 matrix } | wiki "Frame" |
//!
//! The matrix is BI's `Matrix4P`: the rotation's three columns (aside, up, direction: the
//! images of the x, y and z axes) then the position, so a point `p` of the bone's vertices goes
//! to `[m0 m3 m6; m1 m4 m7; m2 m5 m8]·p + [m9 m10 m11]` — the same twelve numbers as the top
//! three rows of a column-major 4×4 matrix. It moves the model's rest-pose vertices of that bone
//! in model space (it is not relative to a parent bone).
//!
//! ## BMTR (binarised)
//!
//! | offset | size | field | unit / meaning | source |
//! |---|---|---|---|---|
//! | 0 | 4 | magic `BMTR` | | wiki "RTMBHeader" |
//! | 4 | 4 | version | 3 Arma 2, 4 and 5 Arma 3 | wiki |
//! | 8 | 1 | unknown | 1 | wiki "Always1" |
//! | 9 | 12 | displacement | f32 x, y, z | wiki |
//! | 21 | 4 | frame count | | wiki |
//! | 25 | 4 | unknown | generally 0 | wiki |
//! | 29 | 4 | bone count | | wiki |
//! | 33 | 4 | bone count again | | wiki |
//! | 37.. | | bone names | NUL-terminated, back to back | wiki |
//! | | | the rest | v ≥ 4 frame properties; phase times and per-frame compressed quaternion + translation, LZO-compressed when large | wiki |
//!
//! Readings taken:
//! - Bone names are Latin-1 up to the first NUL; bytes after the NUL are kept when any is not
//!   zero ([`Name32::tail`]), so every file writes back byte for byte. A name of 32 bytes has no
//!   NUL: it reads, and `validate` reports it.
//! - Each frame repeats the bone names; the engine pairs transforms with bones by name, so a
//!   frame whose order differs from the header's is read as stored, played by name, and
//!   reported by `validate`.
//! - BMTR: only the fields above are decoded. The rest (its layout differs by version and is
//!   documented only in part) is kept verbatim, so the file writes back unchanged; playing or
//!   converting a BMTR is [`crate::Error::Unsupported`].
//! - `play` interpolates between the two frames around a phase: translation linearly,
//!   rotation by quaternion slerp, the stretch linearly (see its module for what is assumed).

mod author;
mod matrix;
mod play;
mod read;
mod scene;
pub mod skeleton;
mod skin;
mod types;
mod validate;
mod write;

pub use author::{from_scene, AuthorOptions};
pub use play::{pose, PlayOptions};
pub use read::{declared_len, read, read_with};
pub use scene::{to_scene, SceneOptions};
pub use skeleton::Skeleton;
pub use skin::{selection_weight, skinnable_lods, skinned_scene};
pub use types::{Bmtr, BoneTransform, Frame, Mdat, Mlod, Name32, Property, Rtm, Summary};
pub use validate::validate;
pub use write::write;

/// The editable form's magic.
pub const MAGIC: &[u8; 8] = b"RTM_0101";
/// The property block's magic.
pub const MDAT_MAGIC: &[u8; 8] = b"RTM_MDAT";
/// The binarised form's magic.
pub const BMTR_MAGIC: &[u8; 4] = b"BMTR";
/// Bytes of a bone name field.
pub const NAME_SIZE: usize = 32;
/// Bytes of one bone's transform in a frame: its name and 12 × f32.
pub const TRANSFORM_SIZE: usize = NAME_SIZE + 48;

/// Whether `data` starts like an RTM (any form).
pub fn looks_like(data: &[u8]) -> bool {
    data.starts_with(MAGIC) || data.starts_with(MDAT_MAGIC) || data.starts_with(BMTR_MAGIC)
}
