//! TOD: PlayStation libgs animation data (file ID 0x50).
//!
//! Sources: the seed `000_1f5331c085ce4730.txt` (Sony *File Formats*, Nov 1998, pp. 2-40..2-48),
//! `notes/hmd_layouts.md` §12 (PsyQ TOD player sample, PSXPrev, libLSD). All little-endian;
//! a word is 32 bits.
//!
//! | offset | size | field | unit / meaning | source |
//! |---|---|---|---|---|
//! | 0 | 1 | file ID | 0x50 | seed "Header" |
//! | 1 | 1 | version | 0 | seed "Header" |
//! | 2 | 2 | resolution | ticks of 1/60 s per frame; 0 = 1 tick | seed "Header"; notes §12 |
//! | 4 | 4 | number of frames | | seed "Header" |
//! | 8.. | | frames | | |
//! | +0 | 2 | frame size | words, including the 2-word frame header | seed "Frame" |
//! | +2 | 2 | number of packets | | seed "Frame" |
//! | +4 | 4 | frame number | frames | seed "Frame" |
//! | +8.. | | packets | | |
//! | +0 | 4 | packet header | bits 0..15 object ID, 16..19 type, 20..23 flag, 24..31 length in words incl. header | seed "Packet" |
//! | +4.. | 4×(length−1) | packet data | per type, see [`PacketData`] | seed "Packet Data" |
//!
//! Packet data per type (words): attribute 2 (mask, value); coordinate R 3 × int32 (4096 = 1°),
//! S `[Sx Sy] [Sz pad]` int16 (4096 = 1.0), T 3 × int32, each present per flag bits 1..3, bit 0 =
//! differential; TMD ID and parent 1 (`[id pad]`); matrix 8 (9 × int16, pad, 3 × int32); light
//! direction 3 × int32 and colour `[r g b pad]` per flag bits 1 and 2, bit 0 = differential;
//! camera type 0 (flag bit 0 clear) position + reference 6 × int32 (bit 2) and z angle (bit 3),
//! camera type 1 rotation 3 × int32 (bit 2) and translation 3 × int32 (bit 3), bit 1 =
//! differential; object control none (flag 0 create, 1 kill, 2..15 reserved).
//!
//! [`Player`] ([`play`]) plays a TOD as the PsyQ sample player does, in the console's
//! fixed-point arithmetic; its module documents the readings it takes.
//!
//! Readings taken where the sources are silent or disagree:
//! - The frame size field decides where the next frame starts when it covers more words than the
//!   packets (those words are kept); when the packets run past it, the packets win and the field is
//!   kept as [`Frame::size_override`] (reported by `validate`).
//! - A packet is always advanced over by its length field (as the PsyQ player does); a packet too
//!   short for what its flag announces is kept as [`PacketData::Raw`] and reported; words beyond
//!   what the flag announces are kept in [`Packet::extra_words`].
//! - The light colour word is drawn "B G R" high byte to low in the manual: R is byte 0.
//! - Semi-transparency rate 3 is "50% back + 25% polygon" in the TOD table but "100% back + 25%
//!   polygon" in the TMD section; the model stores the bits only.

pub mod author;
pub mod play;
mod read;
pub mod scene;
mod types;
mod validate;
mod write;

use std::collections::BTreeMap;

use crate::bytes::{ByteOrder, Le};

pub use play::{CameraState, LightState, ObjectPose, Player, Pose};
pub use read::{read, read_with};
pub use types::*;
pub use validate::validate;
pub use write::write;

/// The TOD file ID (byte 0).
pub const FILE_ID: u8 = 0x50;

/// True when `data` looks like a TOD: file ID 0x50 and packet headers with non-zero lengths
/// where the first frames put them. An HMD starts with the same first word as a version-0,
/// resolution-0 TOD, but its next words do not walk as frames holding packets. A file cut short
/// still looks like a TOD, so that reading it reports where it ends.
pub fn looks_like(data: &[u8]) -> bool {
    let word = |i: usize| Le::u32_at(data, i);
    if data.first() != Some(&FILE_ID) {
        return false;
    }
    let Some(frames) = word(4) else { return false };
    let mut at = 8usize;
    let mut packets_seen = 0u32;
    'frames: for _ in 0..frames.min(16) {
        let Some(fh) = word(at) else { break };
        let (size, count) = ((fh & 0xFFFF) as usize, fh >> 16);
        if size < 2 {
            return false;
        }
        let mut p = at + 8;
        for _ in 0..count {
            let Some(ph) = word(p) else { break 'frames };
            let len = (ph >> 24) as usize;
            if len == 0 {
                return false;
            }
            packets_seen += 1;
            p += len * 4;
        }
        at = p.max(at + size * 4);
    }
    packets_seen > 0
}

/// The summary `retroanim info` prints for a TOD.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Summary {
    /// Always `"tod"`.
    pub format: &'static str,
    /// Header version.
    pub version: u8,
    /// Header resolution (ticks per frame).
    pub resolution: u16,
    /// Number of frames.
    pub frames: usize,
    /// Number of packets over all frames.
    pub packets: usize,
    /// Object IDs addressed by object packets (not light or camera IDs), ascending.
    pub objects: Vec<u16>,
    /// Light IDs addressed by light packets, ascending.
    pub lights: Vec<u16>,
    /// Camera IDs addressed by camera packets, ascending.
    pub cameras: Vec<u16>,
    /// Packet count per packet type number.
    pub packet_types: BTreeMap<u8, usize>,
    /// Number of the first and last frame.
    pub frame_numbers: Option<[u32; 2]>,
    /// Playing time in seconds: (last frame number + 1) × resolution (0 read as 1) / 60.
    pub duration_seconds: f64,
}

impl Tod {
    /// The summary `retroanim info` shows.
    pub fn summary(&self) -> Summary {
        let mut objects = std::collections::BTreeSet::new();
        let mut lights = std::collections::BTreeSet::new();
        let mut cameras = std::collections::BTreeSet::new();
        let mut types: BTreeMap<u8, usize> = BTreeMap::new();
        let mut packets = 0;
        for p in self.frames.iter().flat_map(|f| &f.packets) {
            packets += 1;
            *types.entry(p.kind().code()).or_default() += 1;
            match p.kind() {
                PacketKind::Light => lights.insert(p.object_id),
                PacketKind::Camera => cameras.insert(p.object_id),
                _ => objects.insert(p.object_id),
            };
        }
        let frame_numbers = match (self.frames.first(), self.frames.last()) {
            (Some(a), Some(b)) => Some([a.number, b.number]),
            _ => None,
        };
        let last = self.frames.iter().map(|f| f.number).max();
        Summary {
            format: "tod",
            version: self.header.version,
            resolution: self.header.resolution,
            frames: self.frames.len(),
            packets,
            objects: objects.into_iter().collect(),
            lights: lights.into_iter().collect(),
            cameras: cameras.into_iter().collect(),
            packet_types: types,
            frame_numbers,
            duration_seconds: last.map_or(0.0, |n| {
                (n as f64 + 1.0) * self.ticks_per_frame() as f64 / 60.0
            }),
        }
    }

    /// Ticks (1/60 s) each frame is shown: the resolution, with 0 read as 1.
    pub fn ticks_per_frame(&self) -> u32 {
        self.header.resolution.max(1) as u32
    }
}
