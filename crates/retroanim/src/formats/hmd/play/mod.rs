//! HMD playback: the standard frame update driver (type 0x03000000) and its interpolation
//! drivers, in the console's integer arithmetic (notes §7.4; File Formats pp. 2-96..2-117 and
//! 2-133..2-135; the released libhmd driver sources `03000000.C`, `030000xx.C`, `0301xxxx.C`,
//! `BEZIER.C`, `BETA.C`).
//!
//! [`Player::new`] starts every sequence pointer as Sony's own programs do (see "Console
//! defaults"); [`Player::step`] runs the update once, as one `GsSortUnit` call does;
//! [`Player::frame`] reports each coordinate's local and world matrix and the MIMe weights.
//! Frame 0 is the pose after the first update (the update driver runs before the coordinates
//! are drawn), so key frame k of a sequence shows at the frame equal to the sum of the TFRAMEs
//! before it.
//!
//! # Console defaults
//! Every Sony sample program that plays HMD animation (ANIMVIEW and the ANIM tutorials of the
//! PsyQ SDK; `../shared/notes/console_semantics.md` §2) initialises each sequence pointer once
//! before the first update, and so does [`Player::new`]:
//! - INTR IDX = 0xFFFF: no interpolated value is written back into a key frame (files store 0,
//!   which would overwrite key frame 0's parameters whenever descriptor 0 is a key frame);
//! - AFRAME = 0xFFFF: the pointer runs until an END descriptor stops it;
//! - TCTR IDX = START IDX and SID = START SID (of the chosen sequence, see below);
//! - SPEED = 0x10 (1×) when the file stores 0 (the samples that leave the rate to the
//!   program: BALLOON, the PYRAMID tutorials, TRI3), else the file's SPEED;
//! - RFRAME, TFRAME and TRAVELING keep the file's values (0 in every file), so the first
//!   update switches to the first interval.
//! - CTR IDX = START IDX. Sony's programs leave the file's 0 here, which makes no difference
//!   forwards (the first update replaces CTR IDX with TCTR IDX); a pointer that starts
//!   backwards (negative SPEED) walks from CTR IDX, and starting it at START IDX plays the
//!   sequence in reverse from there instead of stopping at descriptor 0.
//!
//! [`PlayOptions`] overrides each: `speed`, `aframe`, `intr_idx` (the file's own INTR IDX, or a
//! spare key frame to save poses in). [`Player::switch_now`] is the real-time motion switch as
//! Sony's switch demo performs it (one update with INTR IDX at a spare key frame, then that
//! key frame as the source of a new interval).
//!
//! The update is split over four files: `sequence.rs` (the update driver), `drivers.rs` (the
//! interpolation drivers), `mime.rs` (category 4) and `world.rs` (world matrices, devices and
//! what a frame shows); each opens with its part of the rules.
//!
//! # Readings and approximations
//! - **Rotation orders**: each order with the formulas of its libgte routine
//!   ([`crate::formats::gte::rot_matrix_order`]), exact.
//! - **Beta-spline** (method 4): no driver or key-frame layout is published; such types are not
//!   interpolated (the driver is treated as absent: the type updates nothing).
//! - **Missing drivers / key frames**: a type with no known layout, or a descriptor whose key frame
//!   was not decoded, updates nothing (and returns 0, so time passes) — the console would call
//!   an unknown address.
//! - **Descriptor index out of range**: read as END (the console reads past the section).
//! - **Extra sequences**: starting sequence k > 0 copies its START IDX and SID into the pointer's
//!   START IDX / START SID as well, so a B-spline finds that sequence's WORK descriptor.
//! - **SPEED 0** given explicitly ([`PlayOptions::speed`] `Some(0)`) stalls the pointer, as
//!   on the console.
//! - **Order of updates**: all animation primitives update (in file order) before the world
//!   matrices are computed; the console updates them while sorting the blocks, which gives the
//!   same result when animation primitives sit in the PRE-PROCESS block (as in every sample).
//! - **TGT = 1 into the coordinate section** is not applied (no sample does it).
//! - **Endless loops**: a cycle of JUMPs (or of TFRAME 0 key frames) would hang the console;
//!   every update here takes at most `min(limits.max_steps, 2^20)` descriptor steps and fails
//!   with [`Error::LimitExceeded`] beyond.
//! - **World matrices**: `GsGetLw` — parent world ∘ local with `CompMatrix`
//!   ([`crate::formats::gte::compose`], the child translation cut to 16 bits); a parent chain
//!   longer than the coordinate count (a loop) stops there.

mod drivers;
pub(crate) use drivers::lerp as console_lerp;
pub(crate) use drivers::{bezier_cof, bspline_cof, horner};
mod mime;
mod mime_seen;
mod sequence;
mod world;

use std::collections::BTreeMap;

use serde::Serialize;

use super::cat3_anim::{InterpolationType, KeyFrame, Method, SequenceDescriptor, SequencePointer};
use super::cat4_mime::{
    JointDiff, JointReset, MimeDiffItem, MimeKind, VertexDiff, VertexResetDiff,
};
use super::cat7_device::{DeviceItem, DeviceKind};
use super::types::{Hmd, RegionBody, SectionData, TypeData};
use crate::error::{Error, Result};
use crate::formats::gte::{self, Mat};
use crate::limits::Limits;

pub use crate::formats::gte::rot_matrix_order;
pub use world::apply;

/// How to start playback. The default runs the file as Sony's programs do (module docs,
/// "Console defaults").
#[derive(Debug, Clone, Default)]
pub struct PlayOptions {
    /// Which sequence of every sequence pointer to start: 0 = the pointer's own START IDX,
    /// k = its k-th extra sequence. Pointers with fewer sequences start sequence 0;
    /// [`PlayOptions::check`] refuses an index no pointer has.
    pub sequence: Option<usize>,
    /// Stream ID to start with instead of the sequence's START SID.
    pub stream_id: Option<u8>,
    /// SPEED (sign + 3.4 fixed point, 0x10 = 1×) instead of the file's (or, when the file
    /// stores 0, instead of 0x10).
    pub speed: Option<i8>,
    /// AFRAME (updates to run before the pointer stops) instead of 0xFFFF (endless).
    pub aframe: Option<u16>,
    /// INTR IDX instead of 0xFFFF: every update also writes the interpolated values into the
    /// key frame of this descriptor (File Formats p. 2-135). The file's own value is
    /// [`SequencePointer::intr_idx`] (0 in every file: key frame 0 is overwritten as it plays).
    pub intr_idx: Option<u16>,
    /// Bounds on the work one update may do.
    pub limits: Limits,
}

impl PlayOptions {
    /// Checks the options against the file: a sequence index no sequence pointer has, or a
    /// stream ID outside 0..=127 or not named by the file, is an [`Error::Parameter`] that lists
    /// what exists.
    pub fn check(&self, hmd: &Hmd) -> Result<()> {
        if let Some(k) = self.sequence {
            let n = sequence_count(hmd);
            if k >= n.max(1) {
                return Err(Error::Parameter {
                    what: match n {
                        0 => format!("sequence {k}: the file has no animation"),
                        _ => format!("sequence {k}: the file has sequences 0..={}", n - 1),
                    },
                });
            }
        }
        if let Some(sid) = self.stream_id {
            let known = stream_ids(hmd);
            if sid > 127 || !known.contains(&sid) {
                let list: Vec<String> = known.iter().map(u8::to_string).collect();
                return Err(Error::Parameter {
                    what: format!(
                        "stream ID {sid}: the file's sequences name stream IDs {}",
                        if list.is_empty() {
                            "none".to_string()
                        } else {
                            list.join(", ")
                        }
                    ),
                });
            }
        }
        Ok(())
    }
}

/// Number of sequence indices any sequence pointer of `hmd` has (1 + its extra sequences);
/// 0 without animation.
pub fn sequence_count(hmd: &Hmd) -> usize {
    hmd.animations()
        .iter()
        .flat_map(|a| a.sequences.iter().map(|s| s.extra.len() + 1))
        .max()
        .unwrap_or(0)
}

/// Every stream ID the file's sequences name: START SIDs (extra sequences included), the SID
/// conditions and destinations of JUMP descriptors, and the SIDs END controls test.
pub fn stream_ids(hmd: &Hmd) -> std::collections::BTreeSet<u8> {
    let mut out = std::collections::BTreeSet::new();
    for a in hmd.animations() {
        for s in a.sequences {
            out.insert(s.start_sid & 0x7F);
            out.extend(s.extra.iter().map(|e| e.sid & 0x7F));
        }
        for d in a.descriptors {
            match d {
                SequenceDescriptor::Jump {
                    sid_dst, sid_cnd, ..
                } => {
                    out.insert(*sid_dst & 0x7F);
                    out.insert(*sid_cnd & 0x7F);
                }
                SequenceDescriptor::Control { code, p1, .. } if *code == super::CONTROL_END => {
                    out.insert(*p1 & 0x7F);
                }
                _ => {}
            }
        }
    }
    out
}

/// A coordinate as the player keeps it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Coord {
    matrix: Mat,
    rot: [i16; 3],
    flg: u32,
    parent: Option<usize>,
}

/// Per animation primitive.
#[derive(Debug, Clone)]
struct AnimState {
    primitive: u32,
    types: Vec<u32>,
    descriptors: Vec<SequenceDescriptor>,
    sections: Vec<Option<u32>>,
    seqs: Vec<SequencePointer>,
    params: BTreeMap<u16, KeyFrame>,
    /// B-spline WORK areas by parameter word offset: four key-frame "pointers".
    work: BTreeMap<u16, [Option<u16>; 4]>,
}

/// One MIMe primitive (or MIMe reset primitive) as played.
#[derive(Debug, Clone)]
struct Mime {
    primitive: u32,
    kind: MimeKind,
    reset: bool,
    weights_at: Option<u32>,
    num: usize,
    /// Word offsets of the DIFF blocks (the primitive's data).
    diffs: Vec<u32>,
    diff_section: Option<u32>,
    orgs_section: Option<u32>,
    vertex_section: Option<u32>,
    normal_section: Option<u32>,
    coord_section: Option<u32>,
}

impl Mime {
    /// The vertex or normal section a vertex/normal (reset) MIMe works on.
    fn vn_section(&self) -> Option<u32> {
        match self.kind {
            MimeKind::Vertex => self.vertex_section,
            MimeKind::Normal => self.normal_section,
            _ => None,
        }
    }
}

/// The run-time save area after a joint DIFF block (`RstJnt*MIMeDiffData`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct JointSave {
    changed: u16,
    rot: [i16; 3],
    m: [[i16; 3]; 3],
    t: [i32; 3],
}

/// What one primitive of a block chain does in an update, in chain order.
#[derive(Debug, Clone)]
enum Action {
    /// Run MIMe primitive `mimes[i]`.
    Mime(usize),
    /// Draw polygons from these vector sections (their state is what the frame shows).
    Draw(Vec<u32>),
}

/// Plays every animation of an HMD.
#[derive(Debug, Clone)]
pub struct Player<'a> {
    hmd: &'a Hmd,
    coord_section: Option<u32>,
    coords: Vec<Coord>,
    anims: Vec<AnimState>,
    /// Words of every non-coordinate section an animation or MIMe touches, by section offset.
    targets: BTreeMap<u32, Vec<u32>>,
    mimes: Vec<Mime>,
    /// MIMEPR weights an application supplies (primitives whose MIMEPR pointer is 0).
    external_weights: BTreeMap<u32, Vec<i32>>,
    /// Per block, the MIMe and drawing primitives of its chain in order.
    schedule: Vec<Vec<Action>>,
    /// Joint reset save areas by (DIFF section, block offset).
    joint_saves: BTreeMap<(u32, u32), JointSave>,
    /// Vertex/normal reset `changed` halfwords by (DIFF section, word offset).
    changed: BTreeMap<(u32, u32), u16>,
    /// The coordinates as the frame shows them (before the POST-PROCESS block ran).
    shown_coords: Option<Vec<Coord>>,
    /// Vector sections as the frame shows them (when last drawn), by section offset.
    shown_vectors: BTreeMap<u32, Vec<[i16; 3]>>,
    budget: u64,
    updates: u64,
}

/// A coordinate's pose.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CoordinatePose {
    /// Index in the coordinate section.
    pub index: usize,
    /// Parent coordinate.
    pub parent: Option<usize>,
    /// Rotation angles, 4096 = 360°.
    pub rot: [i16; 3],
    /// The local matrix (`GsCOORDUNIT.matrix`).
    pub local: Mat,
    /// The world matrix (`GsGetLw`).
    pub world: Mat,
}

/// A sequence pointer's play state.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SequenceState {
    /// Word offset of the animation primitive.
    pub primitive: u32,
    /// Index of the pointer in the primitive.
    pub pointer: usize,
    /// Current stream ID.
    pub sid: u8,
    /// Source key-frame descriptor.
    pub ctr_idx: u16,
    /// Target key-frame descriptor.
    pub tctr_idx: u16,
    /// RFRAME, 1/16 frame.
    pub rframe: i16,
    /// TFRAME, 1/16 frame.
    pub tframe: u16,
    /// AFRAME: 0 = stopped.
    pub aframe: u16,
}

/// A MIMe primitive's weights.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MimeState {
    /// Word offset of the MIMe primitive.
    pub primitive: u32,
    /// Joint axes, joint RPY, vertex or normal.
    pub kind: MimeKind,
    /// One weight per MIMe key, 4096 = 1.0 (empty when the MIMEPR pointer is 0).
    pub weights: Vec<i32>,
}

/// The morph targets of one vertex (or normal) MIMe primitive ([`Player::vertex_mime_deltas`],
/// [`Player::normal_mime_deltas`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VertexMimeTargets {
    /// Word offset of the MIMe primitive.
    pub primitive: u32,
    /// Word offset of the vertex (normal MIMe: normal) section it moves.
    pub section: u32,
    /// Per MIMe key: vertex (normal) index → difference.
    pub keys: Vec<BTreeMap<usize, [i32; 3]>>,
}

/// A joint MIMe primitive's structure ([`Player::joint_mimes`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JointMimeRecord {
    /// Axes or roll-pitch-yaw.
    pub kind: MimeKind,
    /// Word offset of its MIMEPR (weights) section; `None` when the header's pointer is 0.
    pub weights_at: Option<u32>,
    /// Its number of keys (weights).
    pub keys: usize,
    /// Its DIFF blocks, in the primitive's order.
    pub diffs: Vec<JointDiff>,
}

/// Everything one frame shows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Frame {
    /// Frame number (0 = after the first update).
    pub frame: u64,
    /// Every coordinate.
    pub coordinates: Vec<CoordinatePose>,
    /// Every sequence pointer.
    pub sequences: Vec<SequenceState>,
    /// Every MIMe primitive.
    pub mime: Vec<MimeState>,
    /// Every camera and light primitive.
    pub devices: Vec<DeviceState>,
}

/// A camera or light primitive placed in the world (notes §11).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DeviceState {
    /// Word offset of the device primitive.
    pub primitive: u32,
    /// What it is.
    pub kind: DeviceKind,
    /// Light number (lights only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub light_number: Option<u16>,
    /// The parameters as stored.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parameters: Option<DeviceItem>,
    /// The coordinate the device sits in (FIX and AIM).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub coordinate: Option<usize>,
    /// The coordinate the target is given in (AIM).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reference_coordinate: Option<usize>,
    /// Position in world coordinates (not for projection and ambient).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub position: Option<[i32; 3]>,
    /// Target point in world coordinates (not for projection and ambient).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<[i32; 3]>,
}

const NO_IDX: u16 = 0xFFFF;

impl<'a> Player<'a> {
    /// Starts playback of every sequence pointer of `hmd` after checking `options` against the
    /// file ([`PlayOptions::check`]).
    pub fn start(hmd: &'a Hmd, options: &PlayOptions) -> Result<Player<'a>> {
        options.check(hmd)?;
        Ok(Player::new(hmd, options))
    }

    /// Starts playback of every sequence pointer of `hmd` (options not checked: a sequence
    /// index a pointer lacks starts its sequence 0).
    pub fn new(hmd: &'a Hmd, options: &PlayOptions) -> Player<'a> {
        let mut coord_section = None;
        let mut coords = Vec::new();
        for r in &hmd.regions {
            if let RegionBody::Coordinates(c) = &r.body {
                coord_section = Some(r.offset);
                coords = c
                    .iter()
                    .map(|u| Coord {
                        matrix: Mat {
                            m: u.matrix.m,
                            t: u.matrix.t,
                        },
                        rot: u.rot.v,
                        flg: u.flg,
                        parent: None,
                    })
                    .collect();
                let n = c.len() as u64;
                for (i, u) in c.iter().enumerate() {
                    let p = (u.parent as u64)
                        .checked_sub(r.offset as u64 + 1)
                        .filter(|d| d % 20 == 0 && d / 20 < n)
                        .map(|d| (d / 20) as usize);
                    coords[i].parent = p.filter(|&p| p != i);
                }
                break;
            }
        }
        let mut anims = Vec::new();
        for a in hmd.animations() {
            let mut params = BTreeMap::new();
            for item in a.parameters {
                if let super::cat3_anim::ParameterItem::KeyFrame { index, frame, .. } = item {
                    params.insert(*index, frame.clone());
                }
            }
            let mut seqs: Vec<SequencePointer> = a.sequences.iter().map(|s| (*s).clone()).collect();
            for s in &mut seqs {
                let (start, sid) = match options.sequence {
                    Some(k) if k >= 1 && k <= s.extra.len() => {
                        let e = s.extra[k - 1];
                        (e.start as u16, e.sid)
                    }
                    _ => (s.start, s.start_sid),
                };
                s.start = start;
                s.start_sid = sid;
                s.tctr_idx = start;
                // Forwards the first update overwrites CTR IDX with TCTR IDX, so this matters
                // only backwards (see the module docs).
                s.ctr_idx = start;
                s.sid = options.stream_id.unwrap_or(sid) & 0x7F;
                s.intr_idx = options.intr_idx.unwrap_or(NO_IDX);
                s.aframe = options.aframe.unwrap_or(0xFFFF);
                s.speed = match options.speed {
                    Some(sp) => sp,
                    None if s.speed == 0 => 0x10,
                    None => s.speed,
                };
            }
            anims.push(AnimState {
                primitive: a.primitive,
                types: a.interpolation_types.to_vec(),
                descriptors: a.descriptors.to_vec(),
                sections: a.sections.clone(),
                seqs,
                params,
                work: BTreeMap::new(),
            });
        }
        let mut player = Player {
            hmd,
            coord_section,
            coords,
            anims,
            targets: BTreeMap::new(),
            mimes: Vec::new(),
            external_weights: BTreeMap::new(),
            schedule: Vec::new(),
            joint_saves: BTreeMap::new(),
            changed: BTreeMap::new(),
            shown_coords: None,
            shown_vectors: BTreeMap::new(),
            budget: options.limits.max_steps.min(1 << 20),
            updates: 0,
        };
        player.find_mimes();
        player.build_schedule();
        player.init_reset_areas();
        player
    }

    /// Number of updates run so far.
    pub fn updates(&self) -> u64 {
        self.updates
    }

    /// True when every sequence pointer has stopped (AFRAME 0), or there is none.
    pub fn finished(&self) -> bool {
        self.anims
            .iter()
            .all(|a| a.seqs.iter().all(|s| s.aframe == 0))
    }

    /// The current state of every sequence pointer.
    pub fn sequences(&self) -> Vec<SequenceState> {
        let mut out = Vec::new();
        for a in &self.anims {
            for (i, s) in a.seqs.iter().enumerate() {
                out.push(SequenceState {
                    primitive: a.primitive,
                    pointer: i,
                    sid: s.sid,
                    ctr_idx: s.ctr_idx,
                    tctr_idx: s.tctr_idx,
                    rframe: s.rframe,
                    tframe: s.tframe,
                    aframe: s.aframe,
                });
            }
        }
        out
    }

    /// Sets the stream ID of every sequence pointer (switching at the next key frame, as an
    /// application rewriting SID does).
    pub fn set_stream_id(&mut self, sid: u8) {
        for a in &mut self.anims {
            for s in &mut a.seqs {
                s.sid = sid & 0x7F;
            }
        }
    }
}
