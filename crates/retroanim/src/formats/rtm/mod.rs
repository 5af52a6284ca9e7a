//! RTM: Operation Flashpoint / Arma skeletal animations — the editable form (`RTM_0101`,
//! optionally preceded by an `RTM_MDAT` block of phase-stamped properties) read and written
//! field by field, and the binarised form (`BMTR`, versions 3 to 5) read and written field by
//! field, its parent-relative quaternion frames turned into the editable form's matrices.
//!
//! Sources: the BI community wiki pages *Rtm (Animation) File Format* and *Rtm Binarised File
//! Format* (with its page history); the corpus (six `RTM_0101` files of a well-known Arma 3
//! mod) decides where they are vague. For BMTR, two readers by one author, consulted as facts
//! only: `armaio` (`src/armaio/rtm/_bmtr.py`, `_rtm.py`, 2026) and the older Arma 3 Object
//! Builder add-on's RTM module (`io/data_rtm.py`). No BMTR is in the corpus. All
//! little-endian.
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
//! ## RTM_0100 (the older header, Operation Flashpoint)
//!
//! The magic `RTM_0100`, then **one** f32, the displacement along z (forward; x and y are 0),
//! then from the frame count on exactly as `RTM_0101` (so every offset after it is 8 bytes
//! less). The wiki documents `RTM_0101` only; this rests on one public reader that reads both
//! magics (Poseidon's `RTMAnimation` reader: `RTM_0100` → one float, the z step) and on the
//! strings of BI's own tools, whose RTM reader compares both magics and warns "Old format used
//! in animation" on the older one. No `RTM_0100` file is in the corpus: the tests build one
//! from this table. [`Mlod::v0100`] records the form; the writer writes it back byte for byte
//! and refuses a displacement off the z axis for it.
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
//! | 4 | 4 | version | 3 Arma 2, 4 and 5 Arma 3; others refused | wiki, both readers |
//! | 8 | 1 | unknown | 1 in the wiki's files; kept | wiki "Always1" |
//! | 9 | 12 | displacement | f32 x, y, z metres, as `RTM_0101`'s | wiki |
//! | 21 | 4 | frame count F | u32 | wiki "nFrames" |
//! | 25 | 4 | unknown | generally 0; kept | wiki "Generally0" |
//! | 29 | 4 | bone count B | u32 | wiki "nBones" |
//! | 33 | 4 | bone count again | must equal B | wiki "NoOfBones"; the older reader checks it |
//! | 37 | | B bone names | NUL-terminated, back to back (no list terminator) | wiki "BoneNames" |
//! | | 4 | v ≥ 4: unknown | 0; kept | wiki "Zero", armaio |
//! | | 4 | v ≥ 4: property count K | u32 | wiki "nFrameProperties", armaio |
//! | | | v ≥ 4: K properties | u32 (0xFFFFFFFF in armaio's files; kept), asciiz name, f32 phase, asciiz value | armaio |
//! | | | phase times | array of F × f32 phases (0..1) | wiki "FrameTimes" |
//! | | | F frames | each an array of B × 14-byte transforms, header bone order | wiki "FramePosition" |
//!
//! An *array* is a u32 count (must equal F for the phase times and B for each frame), then —
//! where arrays are flagged — a u8 (0 raw, 2 LZO; others refused as unsupported), then the
//! count × item bytes, raw or as an LZO1X stream (which ends with its own end marker; the
//! decoded size must be the declared one). Unflagged, an array of 1024 bytes or more is LZO.
//! The file ends with the last frame.
//!
//! A transform: 4 × i16 quaternion x, y, z, w × 16384 (wiki, Voyager's section; armaio), 3 ×
//! half-float translation x, y, z (wiki's conversion formula, armaio). Each is relative to the
//! bone's parent in the model's skeleton ([`Bmtr::to_mlod`] has the conversion).
//!
//! Readings taken:
//! - Bone names are Latin-1 up to the first NUL; bytes after the NUL are kept when any is not
//!   zero ([`Name32::tail`]), so every file writes back byte for byte. A name of 32 bytes has no
//!   NUL: it reads, and `validate` reports it.
//! - Each frame repeats the bone names; the engine pairs transforms with bones by name, so a
//!   frame whose order differs from the header's is read as stored, played by name, and
//!   reported by `validate`.
//! - BMTR arrays are flagged in version 5 and never in 3 (wiki, both readers). For version 4
//!   the sources disagree (the wiki: the flag came with 5; armaio: from 4; the older reader:
//!   from 5), so a version 4 file is read flagged if that walks it to its end exactly, else by
//!   the 1024-byte rule; [`Bmtr::flagged`] records which, and the writer repeats it.
//! - BMTR frame properties exist from version 4 (wiki and armaio; the older reader: from 5).
//! - BMTR: a flag byte is read even before an empty array (armaio), unlike ODOL's rule.
//! - BMTR: an LZO array writes back as the stream read while it decodes to the array's bytes,
//!   so a read file writes back byte for byte; a changed array is packed as one literal run.
//! - `play` interpolates between the two frames around a phase: translation linearly,
//!   rotation by quaternion slerp, the stretch linearly (see its module for what is assumed).

mod author;
mod bmtr;
mod bmtr_pose;
mod matrix;
mod play;
mod read;
mod scene;
pub mod skeleton;
mod skin;
mod skin_odol;
mod types;
mod validate;
mod write;

pub use author::{from_scene, AuthorOptions, Rest};
pub use bmtr_pose::half_to_f32;
pub use play::{pose, PlayOptions};
pub use read::{declared_len, read, read_with};
pub use scene::{to_scene, SceneOptions};
pub use skeleton::Skeleton;
pub use skin::{selection_weight, skinnable_lods, skinned_scene};
pub use types::{
    Bmtr, BmtrFrame, BmtrProperties, BmtrProperty, BmtrTransform, BoneTransform, Frame, Mdat, Mlod,
    Name32, Packing, Property, Rtm, Summary,
};
pub use validate::validate;
pub use write::write;

/// The editable form's magic.
pub const MAGIC: &[u8; 8] = b"RTM_0101";
/// The older editable form's magic (Operation Flashpoint): the displacement is one f32, along
/// z ([`Mlod::v0100`]).
pub const MAGIC_0100: &[u8; 8] = b"RTM_0100";
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
    data.starts_with(MAGIC)
        || data.starts_with(MAGIC_0100)
        || data.starts_with(MDAT_MAGIC)
        || data.starts_with(BMTR_MAGIC)
}
