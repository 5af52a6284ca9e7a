//! HMD playback: the standard frame update driver (type 0x03000000) and its interpolation
//! drivers, in the console's integer arithmetic (notes §7.4; File Formats pp. 2-96..2-117 and
//! 2-133..2-135; the released libhmd driver sources `03000000.C`, `030000xx.C`, `0301xxxx.C`,
//! `BEZIER.C`, `BETA.C`).
//!
//! [`Player::new`] starts the chosen sequence of every sequence pointer as an application does
//! (START IDX into TCTR IDX and CTR IDX, START SID into SID, RFRAME = TFRAME = 0);
//! [`Player::step`] runs the update once, as one `GsSortUnit` call does; [`Player::frame`]
//! reports each coordinate's local and world matrix and the MIMe weights. Frame 0 is the pose
//! after the first update (the update driver runs before the coordinates are drawn), so key
//! frame k of a sequence shows at the frame equal to the sum of the TFRAMEs before it.
//!
//! # Update driver
//! Per sequence pointer, per update: nothing when AFRAME is 0, else AFRAME is decremented unless
//! 0xFFFF. RFRAME 0x7000 / 0x6000 (the overshoot sentinels) are read as 0 with the direction
//! forced forwards / backwards. When RFRAME or TFRAME is 0 the key frames switch: forwards, the
//! target becomes the source and the next NORMAL descriptor after it the target (walking JUMP
//! and CONTROL descriptors: a JUMP is taken when its SID CND is 0 or equals SID, and SID becomes
//! SID DST unless both are 0; END stops the pointer when its P1 is 0 or equals SID; any other
//! control, WORK included, is stepped over); backwards the mirror image. TFRAME is the target
//! descriptor's TFRAME × 16, and forwards RFRAME becomes TFRAME − RFRAME. The interpolation
//! driver named by the target's TYPE IDX is then called when source ≠ target; when it returns 1
//! (TFRAME 0, or a B-spline still filling its history) the key frames switch again at once
//! without using time. Otherwise RFRAME −= SPEED; an overshoot past the key frame becomes the
//! sentinel, so the fraction left over is dropped (the next interval starts on its key frame).
//!
//! # Interpolation
//! - Linear: `(src·RFRAME + dst·(TFRAME − RFRAME)) / TFRAME` in 32-bit arithmetic (C division
//!   truncates towards zero), for translation, rotation angles and scale alike.
//! - Bezier: `t = (TFRAME − RFRAME)·0xFFFF / TFRAME`; coefficients `−p0 + 3(p1 − p2) + p3`,
//!   `3(p0 + p2) − 6p1`, `3(p1 − p0)`, `p0` from src.P0, src.P1, src.P2, dst.P0, each truncated
//!   to 16 bits as the driver stores them in `short`s; Horner with `>> 16` after each product.
//! - B-spline: the same Horner evaluation over the uniform cubic B-spline coefficients
//!   `(−682p0 + 2048p1 − 2048p2 + 682p3) >> 12`, `(2048p0 − 4096p1 + 2048p2) >> 12`,
//!   `(−2048p0 + 2048p2) >> 12`, `(682p0 + 2730p1 + 682p2) >> 12` (4096/6 and 4096·2/3 truncated,
//!   as `ONE/6` is in C), again kept in 16 bits. The four control points are the WORK area's
//!   history: its four pointers (to key frames) live in the parameter section at the word the
//!   descriptor at START IDX names (its low 16 bits), are all null in files, and shift by one
//!   whenever an interval starts (forwards: the source and target enter at the end; backwards:
//!   at the front). The driver returns 1 until all four are set, which is why B-spline
//!   sequences begin with a WORK control and three TFRAME 0 key frames.
//! - Rotation angles are stored as int16 and turned into the matrix with the rotation order's
//!   `RotMatrix` variant; scale is applied afterwards with `ScaleMatrix` (columns × s / 4096).
//!   Types that scale without rotating scale the coordinate's current matrix again every update,
//!   as the drivers do (`03000901.C`).
//! - Short translation (9/A/B) reads int16 values; one-parameter scale uses its single value for
//!   x, y and z. The arithmetic is the same.
//! - TGT = 1 (general purpose): the same three algorithms per unit; unit k of the WRITE mask
//!   (bit k, k = 0..3) is written at byte `4·offset + k·size` of the target section, truncated to
//!   the unit size; key frames hold one value (three for Bezier) per set bit, in bit order.
//! - INTR IDX (immediate sequence switching, p. 2-135): when not 0xFFFF, the interpolated value
//!   is also written into the key frame of the descriptor at INTR IDX (for Bezier channels into
//!   its P0), so that an application can continue from it.
//!
//! # Readings and approximations
//! - **Rotation orders other than XYZ**: only `RotMatrix` (XYZ, `M = Rx·Ry·Rz`) is reproduced
//!   step by step ([`crate::formats::gte::rot_matrix`]); the other orders are the product of the
//!   three axis matrices in the order the type names (YXZ: `M = Ry·Rx·Rz`), each product
//!   `>> 12`. The console's `RotMatrixYXZ` etc. may differ from this by one unit in the last
//!   place. The sine table is rebuilt, not copied (see the gte module).
//! - **Beta-spline** (method 4): no driver or key-frame layout is published; such types are not
//!   interpolated (the driver is treated as absent: the type updates nothing).
//! - **Missing drivers / key frames**: a type with no known layout, or a descriptor whose key frame
//!   was not decoded, updates nothing (and returns 0, so time passes) — the console would call
//!   an unknown address.
//! - **Descriptor index out of range**: read as END (the console reads past the section).
//! - **AFRAME 0 in the file**: a pointer whose AFRAME is 0 would never play; starting a sequence
//!   sets it to 0xFFFF (infinite) unless the file gives another value.
//! - **Extra sequences**: starting sequence k > 0 copies its START IDX and SID into the pointer's
//!   START IDX / START SID as well, so a B-spline finds that sequence's WORK descriptor.
//! - **SPEED 0** ("keep the previous rate") stalls the pointer here: there is no previous rate.
//! - **Order of updates**: all animation primitives update (in file order) before the world
//!   matrices are computed; the console updates them while sorting the blocks, which gives the
//!   same result when animation primitives sit in the PRE-PROCESS block (as in every sample).
//! - **TGT = 1 into the coordinate section** is not applied (no sample does it).
//! - **Endless loops**: a cycle of JUMPs (or of TFRAME 0 key frames) would hang the console;
//!   every update here takes at most `min(limits.max_steps, 2^20)` descriptor steps and fails
//!   with [`Error::LimitExceeded`] beyond.
//! - **World matrices**: `GsGetLw` — parent world ∘ local with the GTE's product
//!   ([`crate::formats::gte::compose`]); a parent chain longer than the coordinate count (a
//!   loop) stops there.
//!
//! # MIMe (category 4; libhmd `GsU_04010010/11/18/19/20/21/28/29`, File Formats pp. 2-118..2-124)
//! After the animation updates, every block's primitive chain is walked in order (PRE-PROCESS,
//! the object blocks, POST-PROCESS) and each MIMe primitive runs where it sits, changing the
//! coordinates and vector sections in place as the drivers do:
//! - **Joint MIMe** (axes 0x10, RPY 0x11): for each DIFF block, over keys `k < MIMe_num` with
//!   dflags bit k (the k-th set bit takes the next record), keys with weight `w_k ≠ 0` add
//!   `d·w_k` into 32-bit sums, rotation only when the record's dtp bit 0 is set and
//!   translation only with bit 1. When anything was added, the coordinate's rotation angles
//!   (RPY) or matrix (axes) and translation are saved in the block's reset area and marked
//!   changed, then `t += Σt / 4096` (C division). RPY: `rot += Σv / 4096` in 16 bits and
//!   `RotMatrix`. Axes: `Σv` is a rotation vector; its length / 4096 is the angle (4096ths of a
//!   turn) and its direction the axis (`myVectorNormal`: normalised to 14 bits by the GTE's
//!   leading-bit count, `InvSquareRoot`), and the coordinate matrix is multiplied on the right
//!   by the rotation about that axis (`check_z`: Rodrigues' formula in 12-bit fixed point, each
//!   product through the GTE as the driver does). Sums shorter than the driver's threshold
//!   (|Σv|²/4096 after normalising < 10) rotate nothing.
//! - **Vertex / normal MIMe** (0x20 / 0x21): per key with `w_k ≠ 0`, each delta of the key is
//!   added in place: `v += sat16((w_k · d) >> 12)` per component, stored in 16 bits
//!   (`GsVNMIMeFunc`); the reset records named by the block's `onum` offsets are marked changed.
//! - **Resets**: RstJnt (0x18 / 0x19) restores, for each block marked changed, the saved matrix
//!   (axes) or rotation angles (RPY) and the translation, and clears the mark; RstVN (0x28 /
//!   0x29) copies each changed record's `vnum` vectors back from the ORGSVN section at `ostart`
//!   and clears it. At start, as an application calls `GsInitRstVtxMIMe` / `GsInitRstNrmMIMe`
//!   after scanning, every RstVN primitive copies the original vectors into ORGSVN.
//! - **Weights**: MIMEPR words (4096 = 1.0) as they are at that moment, so a TGT = 1 animation
//!   earlier in the same update writing MIMEPR drives them. A MIMEPR pointer of 0 (area outside
//!   the file) reads the weights given with [`Player::set_mime_weights`], none by default.
//!
//! What a frame shows: vector sections as the last drawing primitive using them (category 0,
//! 5, 6, or the category 1 pre-calculation type 0x01000000, with the section in its header)
//! saw them in the update, and coordinates (and
//! sections no polygon draws) as they were when the POST-PROCESS block began. Every corpus
//! sample puts its MIMe primitives in PRE-PROCESS (or before the polygons of an object block)
//! and the resets in POST-PROCESS (or after the polygons), so a frame shows the deformed
//! model and the next update starts again from the originals.
//!
//! MIMe readings and approximations:
//! - Without reset primitives the drivers accumulate: each update adds the weighted
//!   differences again (the console does the same; a file meant to be played that way is
//!   played that way).
//! - RstJntRPY restores the angles but not the matrix (the driver does not call RotMatrix):
//!   the matrix is rebuilt at the next JntRPY call that rotates. Reproduced.
//! - The vertex/normal weight goes through the GTE's 16-bit IR0: weights beyond ±32767 wrap,
//!   as on the console. `GsVNMIMeFunc` is assembly; its arithmetic is taken from the C
//!   version next to it in the driver source (`gteMIMefunc`).
//! - `InvSquareRoot`'s table is rebuilt as `round(32768 / √x)` (see
//!   `cat4_mime::inv_square_root`); the axis may differ by one unit from the console.
//!   The axes driver indexes the sine table with the unmasked angle; we take it modulo a turn
//!   (an angle ≥ 4096 reads beyond the console's table).
//! - `MIMe_num` is capped at 32 (File Formats: at most 32 keys; `1 << key` would wrap on the
//!   console beyond).
//! - A DIFF block reaching past the end of its vector section (TUTO/PYRAMID/VTXMIME.HMD: the
//!   file's vertex sections are contiguous and the key moves vertices of the next one) goes on
//!   into the vector sections that follow back to back in the file, as the console's writes
//!   through one block of memory do; past the last of them it stops (the console would write
//!   into whatever follows). The glTF export's morph targets keep to the MIMe's own section.
//! - DIFF blocks that could not be typed (vertex blocks whose data do not follow in order) are
//!   kept raw and not applied.
//! - The joint drivers set the coordinate's `flg` to 0 (world matrix to be recomputed); the
//!   player recomputes every world matrix every frame anyway.

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

/// How to start playback.
#[derive(Debug, Clone, Default)]
pub struct PlayOptions {
    /// Which sequence of every sequence pointer to start: 0 = the pointer's own START IDX,
    /// k = its k-th extra sequence. Pointers with fewer sequences start sequence 0.
    pub sequence: Option<usize>,
    /// Stream ID to start with instead of the sequence's START SID.
    pub stream_id: Option<u8>,
    /// SPEED (sign + 3.4 fixed point, 0x10 = 1×) instead of the file's.
    pub speed: Option<i8>,
    /// Bounds on the work one update may do.
    pub limits: Limits,
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

/// The morph targets of one vertex MIMe primitive ([`Player::vertex_mime_deltas`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VertexMimeTargets {
    /// Word offset of the MIMe primitive.
    pub primitive: u32,
    /// Word offset of the vertex section it moves.
    pub section: u32,
    /// Per MIMe key: vertex index → difference.
    pub keys: Vec<BTreeMap<usize, [i32; 3]>>,
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
    /// Starts playback of every sequence pointer of `hmd`.
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
                s.ctr_idx = start;
                s.tctr_idx = start;
                s.sid = options.stream_id.unwrap_or(sid) & 0x7F;
                s.rframe = 0;
                s.tframe = 0;
                s.traveling = 0;
                if let Some(sp) = options.speed {
                    s.speed = sp;
                }
                if s.aframe == 0 {
                    s.aframe = 0xFFFF;
                }
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

    /// Immediate sequence switching (Realtime Motion Switch, p. 2-135) of pointer `pointer` of
    /// animation `anim`: the current pose is captured into the key frame of descriptor `dummy`
    /// (it must be a key frame of the same type), which becomes the source, and descriptor
    /// `target` the target, `tframe` frames away; SID becomes `sid`. Returns false when the
    /// indices do not name such descriptors.
    pub fn switch_now(
        &mut self,
        anim: usize,
        pointer: usize,
        dummy: u16,
        target: u16,
        tframe: u8,
        sid: u8,
    ) -> Result<bool> {
        let Some(a) = self.anims.get(anim) else {
            return Ok(false);
        };
        let is_key = |i: u16| {
            matches!(
                a.descriptors.get(i as usize),
                Some(SequenceDescriptor::KeyFrame { .. })
            )
        };
        if pointer >= a.seqs.len() || !is_key(dummy) || !is_key(target) {
            return Ok(false);
        }
        // Frame 1 of the switch: INTR IDX = the dummy, so the driver saves the pose into it.
        {
            let s = &mut self.anims[anim].seqs[pointer];
            s.intr_idx = dummy;
            s.aframe = s.aframe.max(1);
        }
        let saved = self.anims[anim].seqs[pointer].clone();
        self.capture(anim, pointer)?;
        let s = &mut self.anims[anim].seqs[pointer];
        *s = SequencePointer {
            intr_idx: NO_IDX,
            ctr_idx: dummy,
            tctr_idx: target,
            tframe: (tframe as u16) << 4,
            rframe: ((tframe as u16) << 4) as i16,
            sid: sid & 0x7F,
            ..saved
        };
        Ok(true)
    }

    /// Runs the current interval's driver once without moving time (used to capture a pose).
    fn capture(&mut self, anim: usize, pointer: usize) -> Result<()> {
        let a = &self.anims[anim];
        let s = &a.seqs[pointer];
        if s.ctr_idx == s.tctr_idx || s.tframe == 0 {
            // Nothing interpolating: save the coordinate's current values.
            return Ok(());
        }
        let Some(SequenceDescriptor::KeyFrame { type_idx, .. }) =
            a.descriptors.get(s.tctr_idx as usize).copied()
        else {
            return Ok(());
        };
        self.drive(anim, pointer, type_idx)?;
        Ok(())
    }

    /// One update (one `GsSortUnit` call): every sequence pointer of every animation.
    pub fn step(&mut self) -> Result<()> {
        for a in 0..self.anims.len() {
            for s in 0..self.anims[a].seqs.len() {
                self.update_pointer(a, s)?;
            }
        }
        self.run_schedule();
        self.updates += 1;
        Ok(())
    }

    fn spend(&self, steps: &mut u64) -> Result<()> {
        *steps += 1;
        if *steps > self.budget {
            return Err(Error::LimitExceeded {
                offset: None,
                what: "HMD sequence steps in one update".into(),
                requested: *steps,
                limit: self.budget,
            });
        }
        Ok(())
    }

    /// `get_tctr`: the next NORMAL descriptor from `idx`, walking jumps and controls; `None` on
    /// END.
    fn next_key(
        &self,
        anim: usize,
        pointer: usize,
        mut idx: u16,
        steps: &mut u64,
    ) -> Result<(Option<u16>, u8)> {
        let a = &self.anims[anim];
        let s = &a.seqs[pointer];
        let dir: i32 = if s.speed < 0 { -1 } else { 1 };
        let mut sid = s.sid;
        loop {
            self.spend(steps)?;
            match a.descriptors.get(idx as usize) {
                None => return Ok((None, sid)),
                Some(SequenceDescriptor::KeyFrame { .. }) => return Ok((Some(idx), sid)),
                Some(SequenceDescriptor::Jump {
                    sid_dst,
                    sid_cnd,
                    seq_idx,
                }) => {
                    if *sid_cnd == 0 || *sid_cnd == sid {
                        if *sid_cnd != 0 || *sid_dst != 0 {
                            sid = *sid_dst;
                        }
                        idx = *seq_idx;
                        continue;
                    }
                }
                Some(SequenceDescriptor::Control { code, p1, .. }) => {
                    if *code == super::CONTROL_END && (*p1 == 0 || *p1 == sid) {
                        return Ok((None, sid));
                    }
                }
            }
            idx = (idx as i32 + dir) as u16;
        }
    }

    fn is_key(&self, anim: usize, idx: u16) -> bool {
        matches!(
            self.anims[anim].descriptors.get(idx as usize),
            Some(SequenceDescriptor::KeyFrame { .. })
        )
    }

    fn tframe_of(&self, anim: usize, idx: u16) -> u8 {
        match self.anims[anim].descriptors.get(idx as usize) {
            Some(SequenceDescriptor::KeyFrame { tframe, .. }) => *tframe,
            _ => 0,
        }
    }

    /// `GsU_03000000` for one sequence pointer.
    fn update_pointer(&mut self, anim: usize, pointer: usize) -> Result<()> {
        let mut steps = 0u64;
        {
            let s = &mut self.anims[anim].seqs[pointer];
            if s.aframe == 0 {
                return Ok(());
            }
            if s.aframe != 0xFFFF {
                s.aframe -= 1;
            }
        }
        let mut dir: i32 = if self.anims[anim].seqs[pointer].speed < 0 {
            -1
        } else {
            1
        };
        {
            let s = &mut self.anims[anim].seqs[pointer];
            if s.rframe == 0x7000 {
                dir = 1;
                s.rframe = 0;
            } else if s.rframe == 0x6000 {
                dir = -1;
                s.rframe = 0;
            }
        }
        loop {
            self.spend(&mut steps)?;
            let (rframe, tframe) = {
                let s = &self.anims[anim].seqs[pointer];
                (s.rframe, s.tframe)
            };
            if rframe == 0 || tframe == 0 {
                self.anims[anim].seqs[pointer].traveling = 0;
                let (ci, ti) = {
                    let s = &self.anims[anim].seqs[pointer];
                    (s.ctr_idx, s.tctr_idx)
                };
                let step = |i: u16| (i as i32 + dir) as u16;
                // Forward, the old target key becomes the source and the next key the target;
                // in reverse the roles of the two indices swap.
                let mut at = if dir == 1 { ti } else { ci };
                if !self.is_key(anim, at) {
                    match self.walk(anim, pointer, step(at), &mut steps)? {
                        Some(i) => at = i,
                        None => return Ok(()),
                    }
                }
                let s = &mut self.anims[anim].seqs[pointer];
                if dir == 1 {
                    s.ctr_idx = at;
                } else {
                    s.tctr_idx = at;
                }
                let Some(next) = self.walk(anim, pointer, step(at), &mut steps)? else {
                    return Ok(());
                };
                let s = &mut self.anims[anim].seqs[pointer];
                if dir == 1 {
                    s.tctr_idx = next;
                } else {
                    s.ctr_idx = next;
                }
                let ti = self.anims[anim].seqs[pointer].tctr_idx;
                let tf = (self.tframe_of(anim, ti) as u16) << 4;
                let s = &mut self.anims[anim].seqs[pointer];
                s.tframe = tf;
                if dir == 1 {
                    s.rframe = (tf as i16).wrapping_sub(s.rframe);
                }
            }
            let (ci, ti) = {
                let s = &self.anims[anim].seqs[pointer];
                (s.ctr_idx, s.tctr_idx)
            };
            if ci == ti {
                return Ok(());
            }
            let Some(SequenceDescriptor::KeyFrame {
                type_idx, tframe, ..
            }) = self.anims[anim].descriptors.get(ti as usize).copied()
            else {
                return Ok(());
            };
            if self.drive(anim, pointer, type_idx)? {
                self.anims[anim].seqs[pointer].rframe = 0;
                continue;
            }
            if tframe == 0 {
                continue;
            }
            let s = &mut self.anims[anim].seqs[pointer];
            s.rframe = s.rframe.wrapping_sub(s.speed as i16);
            if dir == 1 && s.rframe < 0 {
                s.rframe = 0x7000;
            } else if dir == -1 && s.rframe as i32 >= s.tframe as i32 {
                s.rframe = 0x6000;
            }
            return Ok(());
        }
    }

    /// [`Self::next_key`] that also stores the new SID, and stops the pointer at END.
    fn walk(
        &mut self,
        anim: usize,
        pointer: usize,
        idx: u16,
        steps: &mut u64,
    ) -> Result<Option<u16>> {
        let (found, sid) = self.next_key(anim, pointer, idx, steps)?;
        let s = &mut self.anims[anim].seqs[pointer];
        s.sid = sid;
        if found.is_none() {
            s.aframe = 0;
        }
        Ok(found)
    }

    /// Calls the interpolation driver of table entry `type_idx`; true when it returned 1.
    fn drive(&mut self, anim: usize, pointer: usize, type_idx: u8) -> Result<bool> {
        let a = &self.anims[anim];
        let Some(&code) = a.types.get(type_idx as usize) else {
            return Ok(false);
        };
        let itype = InterpolationType::from_code(code);
        Ok(match itype {
            InterpolationType::Coordinate {
                rot_order,
                scale,
                rotation,
                translation,
            } => {
                let methods = [translation, rotation, scale].map(InterpolationType::method);
                let [Some(tm), Some(rm), Some(sm)] = methods else {
                    return Ok(false);
                };
                if [tm, rm, sm].contains(&Method::BetaSpline) {
                    return Ok(false);
                }
                let spec = CoordSpec {
                    order: rot_order,
                    t: tm,
                    r: rm,
                    s: sm,
                    short_t: translation >= 9,
                    one_s: scale >= 9,
                };
                self.coord_driver(anim, pointer, spec)?
            }
            InterpolationType::General {
                algorithm,
                write_mask,
                length,
            } => {
                let m = match algorithm {
                    1 => Method::Linear,
                    2 => Method::Bezier,
                    3 => Method::BSpline,
                    _ => return Ok(false),
                };
                let bytes = match length {
                    0 => 4,
                    1 => 2,
                    2 => 1,
                    _ => return Ok(false),
                };
                self.general_driver(anim, pointer, m, write_mask, bytes)?
            }
            InterpolationType::Other => false,
        })
    }

    /// The B-spline history update of `03000003.C`; returns `Some(true)` when the driver
    /// returns 1, `Some(false)` to go on, `None` when there is no work area.
    fn bspline_history(&mut self, anim: usize, pointer: usize) -> bool {
        let a = &mut self.anims[anim];
        let s = &a.seqs[pointer];
        let work_at = match a.descriptors.get(s.start as usize) {
            Some(d) => d.word().unwrap_or(0) as u16,
            None => return true,
        };
        let param = |i: u16| match a.descriptors.get(i as usize) {
            Some(SequenceDescriptor::KeyFrame { param_idx, .. }) => Some(*param_idx),
            _ => None,
        };
        let (src, dst) = (param(s.ctr_idx), param(s.tctr_idx));
        let (rframe, tframe, speed) = (s.rframe, s.tframe as i16, s.speed);
        let cpt = a.work.entry(work_at).or_insert([None; 4]);
        if speed >= 0 {
            if src == cpt[1] {
                cpt[2] = cpt[1];
                cpt[1] = None;
                return true;
            }
            if tframe == 0 || rframe == tframe {
                *cpt = [cpt[1], cpt[2], src, dst];
                if cpt.contains(&None) {
                    return true;
                }
            }
        } else {
            if src == cpt[1] {
                cpt[1] = cpt[2];
                cpt[2] = None;
                return true;
            }
            if tframe == 0 || rframe == 0 {
                *cpt = [src, dst, cpt[1], cpt[2]];
                if cpt.contains(&None) {
                    return true;
                }
            }
        }
        tframe == 0
    }

    fn frames_of(&self, anim: usize, pointer: usize) -> (Option<u16>, Option<u16>, Option<u16>) {
        let a = &self.anims[anim];
        let s = &a.seqs[pointer];
        let param = |i: u16| match a.descriptors.get(i as usize) {
            Some(SequenceDescriptor::KeyFrame { param_idx, .. }) => Some(*param_idx),
            _ => None,
        };
        let intr = if s.intr_idx == NO_IDX {
            None
        } else {
            param(s.intr_idx)
        };
        (param(s.ctr_idx), param(s.tctr_idx), intr)
    }

    fn coord_driver(&mut self, anim: usize, pointer: usize, spec: CoordSpec) -> Result<bool> {
        let uses_bspline = [spec.t, spec.r, spec.s].contains(&Method::BSpline);
        if uses_bspline {
            if self.bspline_history(anim, pointer) {
                return Ok(true);
            }
        } else if self.anims[anim].seqs[pointer].tframe == 0 {
            return Ok(true);
        }
        let (src, dst, intr) = self.frames_of(anim, pointer);
        let a = &self.anims[anim];
        let s = &a.seqs[pointer];
        let (rframe, tframe) = (s.rframe as i32, s.tframe as i32);
        // Where the values go.
        let target = a.sections.get(s.update.section as usize).copied().flatten();
        let coord = match (target, self.coord_section) {
            (Some(t), Some(c)) if t == c => s.update.coordinate(),
            _ => None,
        };
        let Some(coord) = coord.filter(|&c| c < self.coords.len()) else {
            return Ok(false);
        };
        let kf = |p: Option<u16>| p.and_then(|p| a.params.get(&p));
        let (Some(src_kf), Some(dst_kf)) = (kf(src), kf(dst)) else {
            return Ok(false);
        };
        let cpt: [Option<&KeyFrame>; 4] = match a.work.get(&work_index(a, s)) {
            Some(c) if uses_bspline => c.map(kf),
            _ => [None; 4],
        };
        let t16 = if tframe == 0 {
            0
        } else {
            (tframe - rframe).wrapping_mul(0xFFFF) / tframe
        };
        // One channel: `part` picks the values of a key frame; `n` values per control point.
        let channel =
            |m: Method, part: &dyn Fn(&KeyFrame) -> Vec<i32>, n: usize| -> Option<Vec<i32>> {
                let sv = part(src_kf);
                let dv = part(dst_kf);
                Some(match m {
                    Method::None | Method::BetaSpline => return None,
                    Method::Linear => (0..n)
                        .map(|i| Some(lerp(*sv.get(i)?, *dv.get(i)?, rframe, tframe)))
                        .collect::<Option<Vec<_>>>()?,
                    Method::Bezier => (0..n)
                        .map(|i| {
                            let co = bezier_cof(
                                *sv.get(i)?,
                                *sv.get(n + i)?,
                                *sv.get(2 * n + i)?,
                                *dv.get(i)?,
                            );
                            Some(horner(co, t16))
                        })
                        .collect::<Option<Vec<_>>>()?,
                    Method::BSpline => {
                        let p: Vec<Vec<i32>> = cpt
                            .iter()
                            .map(|k| k.map(part).unwrap_or_default())
                            .collect();
                        (0..n)
                            .map(|i| {
                                let co = bspline_cof(
                                    *p[0].get(i)?,
                                    *p[1].get(i)?,
                                    *p[2].get(i)?,
                                    *p[3].get(i)?,
                                );
                                Some(horner(co, t16))
                            })
                            .collect::<Option<Vec<_>>>()?
                    }
                })
            };
        let trans = |k: &KeyFrame| match k {
            KeyFrame::Coordinate { translation, .. } => translation.to_vec(),
            _ => Vec::new(),
        };
        let rots = |k: &KeyFrame| match k {
            KeyFrame::Coordinate { rotation, .. } => rotation.iter().map(|&v| v as i32).collect(),
            _ => Vec::new(),
        };
        let scales = |k: &KeyFrame| match k {
            KeyFrame::Coordinate { scale, .. } => scale.iter().map(|&v| v as i32).collect(),
            _ => Vec::new(),
        };
        let t = channel(spec.t, &trans, 3);
        let r = channel(spec.r, &rots, 3);
        let sc = channel(spec.s, &scales, if spec.one_s { 1 } else { 3 });
        let _ = spec.short_t; // int16 translations were widened when the key frame was decoded
        let c = &mut self.coords[coord];
        if let Some(t) = &t {
            c.matrix.t = [t[0], t[1], t[2]];
        }
        if let Some(r) = &r {
            c.rot = [r[0] as i16, r[1] as i16, r[2] as i16];
            rot_matrix_order(spec.order, c.rot, &mut c.matrix);
        }
        let scale3 = sc.as_ref().map(|v| {
            if v.len() == 1 {
                [v[0]; 3]
            } else {
                [v[0], v[1], v[2]]
            }
        });
        if let Some(s3) = scale3 {
            gte::scale_matrix(&mut c.matrix, s3);
        }
        c.flg = 0;
        // INTR IDX: save the interpolated values.
        if let Some(p) = intr {
            let a = &mut self.anims[anim];
            if let Some(KeyFrame::Coordinate {
                translation,
                rotation,
                scale,
                ..
            }) = a.params.get_mut(&p)
            {
                if let Some(t) = &t {
                    for (d, v) in translation.iter_mut().zip(t) {
                        *d = *v;
                    }
                }
                if let Some(r) = &r {
                    for (d, v) in rotation.iter_mut().zip(r) {
                        *d = *v as i16;
                    }
                }
                if let Some(s) = &sc {
                    for (d, v) in scale.iter_mut().zip(s) {
                        *d = *v as i16;
                    }
                }
            }
        }
        Ok(false)
    }

    fn general_driver(
        &mut self,
        anim: usize,
        pointer: usize,
        m: Method,
        mask: u8,
        bytes: usize,
    ) -> Result<bool> {
        if m == Method::BSpline {
            if self.bspline_history(anim, pointer) {
                return Ok(true);
            }
        } else if self.anims[anim].seqs[pointer].tframe == 0 {
            return Ok(true);
        }
        let (src, dst, intr) = self.frames_of(anim, pointer);
        let a = &self.anims[anim];
        let s = &a.seqs[pointer];
        let (rframe, tframe) = (s.rframe as i32, s.tframe as i32);
        let Some(target) = a.sections.get(s.update.section as usize).copied().flatten() else {
            return Ok(false);
        };
        if Some(target) == self.coord_section {
            return Ok(false);
        }
        let vals = |p: Option<u16>| match p.and_then(|p| a.params.get(&p)) {
            Some(KeyFrame::General { values, .. }) => Some(values.to_vec()),
            _ => None,
        };
        let (Some(sv), Some(dv)) = (vals(src), vals(dst)) else {
            return Ok(false);
        };
        let cpt: Vec<Vec<i32>> = match a.work.get(&work_index(a, s)) {
            Some(c) if m == Method::BSpline => {
                c.iter().map(|p| vals(*p).unwrap_or_default()).collect()
            }
            _ => vec![Vec::new(); 4],
        };
        let t16 = if tframe == 0 {
            0
        } else {
            (tframe - rframe).wrapping_mul(0xFFFF) / tframe
        };
        let units = mask.count_ones() as usize;
        let mut out = Vec::with_capacity(units);
        for i in 0..units {
            let v = match m {
                Method::Linear => sv
                    .get(i)
                    .zip(dv.get(i))
                    .map(|(s, d)| lerp(*s, *d, rframe, tframe)),
                Method::Bezier => (|| {
                    let co = bezier_cof(
                        *sv.get(3 * i)?,
                        *sv.get(3 * i + 1)?,
                        *sv.get(3 * i + 2)?,
                        *dv.get(3 * i)?,
                    );
                    Some(horner(co, t16))
                })(),
                _ => (|| {
                    let co = bspline_cof(
                        *cpt[0].get(i)?,
                        *cpt[1].get(i)?,
                        *cpt[2].get(i)?,
                        *cpt[3].get(i)?,
                    );
                    Some(horner(co, t16))
                })(),
            };
            match v {
                Some(v) => out.push(v),
                None => return Ok(false),
            }
        }
        let base = s.update.offset as usize * 4;
        let words = self.target_words(target);
        let mut k = 0;
        for unit in 0..4 {
            if mask & (1 << unit) == 0 {
                continue;
            }
            write_unit(words, base + unit * bytes, bytes, out[k]);
            k += 1;
        }
        if let Some(p) = intr {
            if let Some(KeyFrame::General { values, .. }) = self.anims[anim].params.get_mut(&p) {
                let stride = if m == Method::Bezier { 3 } else { 1 };
                for (i, v) in out.iter().enumerate() {
                    if let Some(d) = values.get_mut(i * stride) {
                        *d = *v;
                    }
                }
            }
        }
        Ok(false)
    }

    /// Where vector `index` of the vector section at `sec` lies: in that section or, past its
    /// end, in the vector sections that follow it back to back in the file. The console loads
    /// the file as one block of memory, so a DIFF block that reaches past its section (the
    /// vertex MIMe key of TUTO/PYRAMID/VTXMIME.HMD) moves the vectors of the next section.
    /// `None` past the last contiguous vector section (the console would write on into
    /// whatever follows; we stop).
    fn vector_home(&mut self, sec: u32, index: usize) -> Option<(u32, usize)> {
        let (mut cur, mut idx) = (sec, index);
        loop {
            let len = self.target_words(cur).len();
            let n = len / 2;
            if idx < n {
                return Some((cur, idx));
            }
            if n == 0 || len % 2 != 0 {
                return None; // an odd trailing word: the next vector would straddle it
            }
            let next = cur.checked_add(u32::try_from(len).ok()?)?;
            match self.hmd.section_at(next) {
                Some(s) if matches!(s.data, SectionData::Vectors { .. }) => {}
                _ => return None,
            }
            idx -= n;
            cur = next;
        }
    }

    /// The words of the section at `at` (loaded from the file the first time).
    fn target_words(&mut self, at: u32) -> &mut Vec<u32> {
        let hmd = self.hmd;
        self.targets
            .entry(at)
            .or_insert_with(|| section_words(hmd, at))
    }

    fn find_mimes(&mut self) {
        let headers = self.hmd.headers();
        for (at, p) in self.hmd.primitives() {
            let Some(h) = headers.get(&p.header) else {
                continue;
            };
            for t in &p.types {
                if t.kind().category() != 4 || t.kind().developer() != 0 {
                    continue;
                }
                let Some((kind, reset)) = MimeKind::from_code(t.type_code) else {
                    continue;
                };
                let w = |i: usize| h.words.get(i).copied();
                let ptr = |i: usize| w(i).and_then(|e| e.pointer());
                let val = |i: usize| match w(i) {
                    Some(super::types::HeaderEntry::Value(v)) => v as usize,
                    _ => 0,
                };
                let diffs = match &t.data {
                    TypeData::Offsets(v) => v.clone(),
                    _ => Vec::new(),
                };
                let blank = Mime {
                    primitive: at,
                    kind,
                    reset,
                    weights_at: None,
                    num: 0,
                    diffs,
                    diff_section: None,
                    orgs_section: None,
                    vertex_section: None,
                    normal_section: None,
                    coord_section: None,
                };
                // Header words after the size word (File Formats p. 2-120/2-121).
                let m = match (kind, reset) {
                    (MimeKind::JointAxes | MimeKind::JointRpy, false) => Mime {
                        coord_section: ptr(0),
                        weights_at: ptr(1),
                        num: val(2).min(32),
                        diff_section: ptr(4),
                        ..blank
                    },
                    (MimeKind::JointAxes | MimeKind::JointRpy, true) => Mime {
                        coord_section: ptr(0),
                        diff_section: ptr(2),
                        ..blank
                    },
                    (MimeKind::Vertex | MimeKind::Normal, false) => Mime {
                        weights_at: ptr(0),
                        num: val(1).min(32),
                        diff_section: ptr(3),
                        orgs_section: ptr(4),
                        vertex_section: ptr(5),
                        normal_section: ptr(6),
                        ..blank
                    },
                    (MimeKind::Vertex | MimeKind::Normal, true) => Mime {
                        diff_section: ptr(1),
                        orgs_section: ptr(2),
                        vertex_section: ptr(3),
                        normal_section: ptr(4),
                        ..blank
                    },
                };
                self.mimes.push(m);
            }
        }
    }

    /// Walks every block's primitive chain (bounded, each primitive once) and records which
    /// MIMe primitives run and which primitives draw, in order.
    fn build_schedule(&mut self) {
        if self.mimes.is_empty() {
            return;
        }
        let hmd = self.hmd;
        let headers = hmd.headers();
        let prims: BTreeMap<u32, &super::types::Primitive> = hmd.primitives().collect();
        let mut seen = std::collections::BTreeSet::new();
        for &first in &hmd.blocks {
            let mut actions = Vec::new();
            let mut at = first;
            while at != 0 && at != super::types::TERMINATE && seen.insert(at) {
                let Some(p) = prims.get(&at) else { break };
                // Polygons, ground and environment maps read their vector sections when they
                // draw; shared polygons (category 1) read them in the pre-calculation type
                // (primitive type 0, in each coordinate's block) — the shared drawing types,
                // often in POST-PROCESS after the resets, read the calculated vertices.
                let draws = p.types.iter().any(|t| match t.kind().category() {
                    0 | 5 | 6 => true,
                    1 => t.type_code & 0xFFFF == 0,
                    _ => false,
                });
                if draws {
                    let sections: Vec<u32> = headers
                        .get(&p.header)
                        .map(|h| {
                            h.words
                                .iter()
                                .filter_map(|e| e.pointer())
                                .filter(|&s| {
                                    hmd.section_at(s).is_some_and(|s| {
                                        matches!(s.data, SectionData::Vectors { .. })
                                    })
                                })
                                .collect()
                        })
                        .unwrap_or_default();
                    if !sections.is_empty() {
                        actions.push(Action::Draw(sections));
                    }
                }
                for (i, m) in self.mimes.iter().enumerate() {
                    if m.primitive == at {
                        actions.push(Action::Mime(i));
                    }
                }
                at = p.next & 0x7FFF_FFFF;
            }
            self.schedule.push(actions);
        }
    }

    /// The run-time areas as the application prepares them after scanning: joint save areas
    /// and `changed` flags as the file gives them, and `GsInitRstVtxMIMe` /
    /// `GsInitRstNrmMIMe` for every vertex/normal reset primitive (ORGSVN ← the vectors).
    fn init_reset_areas(&mut self) {
        for i in 0..self.mimes.len() {
            let m = self.mimes[i].clone();
            let Some(sec) = m.diff_section else { continue };
            for item in self.diff_items(&m) {
                match item {
                    MimeDiffItem::Joint(j) => {
                        let save = match j.reset {
                            JointReset::Rpy {
                                rotation,
                                changed,
                                translation,
                            } => JointSave {
                                changed,
                                rot: rotation,
                                m: [[0; 3]; 3],
                                t: translation,
                            },
                            JointReset::Axes(x) => JointSave {
                                changed: x.pad,
                                rot: [0; 3],
                                m: x.m,
                                t: x.t,
                            },
                        };
                        self.joint_saves.entry((sec, j.index)).or_insert(save);
                    }
                    MimeDiffItem::VertexReset(r) => {
                        for (k, rec) in r.records.iter().enumerate() {
                            let word = r.index + 1 + 3 * k as u32 + 2;
                            self.changed.entry((sec, word)).or_insert(rec.changed);
                            if !m.reset {
                                continue;
                            }
                            let (Some(vn), Some(orgs)) = (m.vn_section(), m.orgs_section) else {
                                continue;
                            };
                            let src = self.target_words(vn).clone();
                            let dst = self.target_words(orgs);
                            for n in 0..rec.vnum as usize {
                                copy_vector(
                                    &src,
                                    rec.vstart as usize + n,
                                    dst,
                                    rec.ostart as usize + n,
                                );
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
    }

    /// Runs the MIMe primitives of every block in chain order, noting what each drawing
    /// primitive shows.
    fn run_schedule(&mut self) {
        if self.schedule.is_empty() {
            return;
        }
        let schedule = std::mem::take(&mut self.schedule);
        let last = schedule.len() - 1;
        let mut drawn = std::collections::BTreeSet::new();
        for (b, actions) in schedule.iter().enumerate() {
            if b == last && b > 0 {
                self.snapshot(&drawn);
            }
            for a in actions {
                match a {
                    Action::Mime(i) => self.run_mime(*i),
                    Action::Draw(sections) => {
                        for &s in sections {
                            if let Some(v) = self.current_vectors(s) {
                                self.shown_vectors.insert(s, v);
                                drawn.insert(s);
                            }
                        }
                    }
                }
            }
        }
        if last == 0 {
            self.snapshot(&drawn);
        }
        self.schedule = schedule;
    }

    /// What the frame shows of everything not drawn in this update: the coordinates, and the
    /// vector sections MIMe or animation touched.
    fn snapshot(&mut self, drawn: &std::collections::BTreeSet<u32>) {
        self.shown_coords = Some(self.coords.clone());
        let touched: Vec<u32> = self.targets.keys().copied().collect();
        for s in touched {
            if drawn.contains(&s) {
                continue;
            }
            if let Some(v) = self.current_vectors(s) {
                self.shown_vectors.insert(s, v);
            }
        }
    }

    /// The vectors of section `at` as the update has left them so far.
    fn current_vectors(&self, at: u32) -> Option<Vec<[i16; 3]>> {
        let sec = self.hmd.section_at(at)?;
        let SectionData::Vectors { vectors, .. } = &sec.data else {
            return None;
        };
        Some(match self.targets.get(&at) {
            Some(w) => (0..vectors.len())
                .map(|i| get_vector(w, i).unwrap_or([0; 3]))
                .collect(),
            None => vectors.iter().map(|v| v.v).collect(),
        })
    }

    /// One MIMe (or MIMe reset) driver call.
    fn run_mime(&mut self, i: usize) {
        let m = self.mimes[i].clone();
        let Some(sec) = m.diff_section else { return };
        let w = if m.reset {
            Vec::new()
        } else {
            self.weights(&m)
        };
        for item in self.diff_items(&m) {
            match (item, m.kind, m.reset) {
                (MimeDiffItem::Joint(j), MimeKind::JointAxes | MimeKind::JointRpy, false) => {
                    self.joint_mime(&m, sec, j, &w)
                }
                (MimeDiffItem::Joint(j), MimeKind::JointAxes | MimeKind::JointRpy, true) => {
                    self.joint_reset(&m, sec, j)
                }
                (MimeDiffItem::Vertex(v), MimeKind::Vertex | MimeKind::Normal, false) => {
                    self.vn_mime(&m, sec, v, &w)
                }
                (MimeDiffItem::VertexReset(r), MimeKind::Vertex | MimeKind::Normal, true) => {
                    self.vn_reset(&m, sec, r)
                }
                _ => {}
            }
        }
    }

    /// `GsU_04010010` / `GsU_04010011`: Σ difference × weight over the keys, then the
    /// coordinate's original state saved and the sum / 4096 applied.
    fn joint_mime(&mut self, m: &Mime, sec: u32, j: &JointDiff, w: &[i32]) {
        if m.coord_section != self.coord_section || j.coord_id as usize >= self.coords.len() {
            return;
        }
        let mut rv = [0i32; 3];
        let mut rt = [0i32; 3];
        let mut changed = 0u16;
        let mut recs = j.differences.iter();
        for key in 0..m.num.min(32) {
            if j.dflags & (1 << key) == 0 {
                continue;
            }
            let Some(d) = recs.next() else { break };
            let pr = w.get(key).copied().unwrap_or(0);
            if pr == 0 {
                continue;
            }
            if d.dtp & 1 != 0 {
                changed |= 1;
                for (a, &x) in rv.iter_mut().zip(&d.rotation) {
                    *a = a.wrapping_add((x as i32).wrapping_mul(pr));
                }
            }
            if d.dtp & 2 != 0 {
                changed |= 2;
                for (a, &x) in rt.iter_mut().zip(&d.translation) {
                    *a = a.wrapping_add(x.wrapping_mul(pr));
                }
            }
        }
        if changed == 0 {
            return;
        }
        let c = &mut self.coords[j.coord_id as usize];
        self.joint_saves.insert(
            (sec, j.index),
            JointSave {
                changed,
                rot: c.rot,
                m: c.matrix.m,
                t: c.matrix.t,
            },
        );
        if changed & 1 != 0 {
            if m.kind == MimeKind::JointRpy {
                for (r, v) in c.rot.iter_mut().zip(rv) {
                    *r = (*r as i32).wrapping_add(v / 4096) as i16;
                }
                gte::rot_matrix(c.rot, &mut c.matrix);
            } else {
                let (angle, axis) = super::cat4_mime::vector_normal(rv);
                if angle != 0 {
                    super::cat4_mime::rotate_about_axis(&mut c.matrix.m, axis, angle);
                }
            }
        }
        if changed & 2 != 0 {
            for (t, v) in c.matrix.t.iter_mut().zip(rt) {
                *t = t.wrapping_add(v / 4096);
            }
        }
        c.flg = 0;
    }

    /// `GsU_04010018` / `GsU_04010019`: when the save area says changed, the coordinate's
    /// saved matrix (axes) or rotation angles (RPY) and translation come back.
    fn joint_reset(&mut self, m: &Mime, sec: u32, j: &JointDiff) {
        if m.coord_section != self.coord_section || j.coord_id as usize >= self.coords.len() {
            return;
        }
        let Some(save) = self.joint_saves.get_mut(&(sec, j.index)) else {
            return;
        };
        if save.changed == 0 {
            return;
        }
        save.changed = 0;
        let c = &mut self.coords[j.coord_id as usize];
        match m.kind {
            MimeKind::JointAxes => c.matrix.m = save.m,
            _ => c.rot = save.rot,
        }
        c.matrix.t = save.t;
        c.flg = 0;
    }

    /// `GsU_0401002x`: each key's deltas × weight added to the vectors in place; the reset
    /// records the block names are marked changed.
    fn vn_mime(&mut self, m: &Mime, sec: u32, v: &VertexDiff, w: &[i32]) {
        let Some(vn) = m.vn_section() else { return };
        if self.hmd.section_at(vn).is_none() {
            return;
        }
        let mut changed = false;
        let mut keys = v.keys.iter();
        for key in 0..m.num.min(32) {
            if v.dflags & (1 << key) == 0 {
                continue;
            }
            let Some(d) = keys.next() else { break };
            let pr = w.get(key).copied().unwrap_or(0);
            if pr == 0 {
                continue;
            }
            changed = true;
            for (n, delta) in d.deltas.iter().enumerate() {
                let Some((home, at)) = self.vector_home(vn, d.vstart as usize + n) else {
                    break;
                };
                let words = self.target_words(home);
                let Some(old) = get_vector(words, at) else {
                    break;
                };
                let new = [0, 1, 2].map(|i| super::cat4_mime::vn_add(old[i], delta.v[i], pr));
                set_vector(words, at, new);
            }
        }
        if changed {
            for &o in &v.reset_offsets {
                self.changed.insert((sec, o), 1);
            }
        }
    }

    /// `GsU_04010028` / `GsU_04010029`: every record marked changed gets its vectors back from
    /// the ORGSVN section and is marked unchanged.
    fn vn_reset(&mut self, m: &Mime, sec: u32, r: &VertexResetDiff) {
        let (Some(vn), Some(orgs)) = (m.vn_section(), m.orgs_section) else {
            return;
        };
        for (k, rec) in r.records.iter().enumerate() {
            let word = r.index + 1 + 3 * k as u32 + 2;
            let flag = self.changed.entry((sec, word)).or_insert(rec.changed);
            if *flag == 0 {
                continue;
            }
            *flag = 0;
            for n in 0..rec.vnum as usize {
                let (Some((from_sec, from)), Some((to_sec, to))) = (
                    self.vector_home(orgs, rec.ostart as usize + n),
                    self.vector_home(vn, rec.vstart as usize + n),
                ) else {
                    break;
                };
                let Some(v) = self.target_words(from_sec).get(2 * from..2 * from + 2) else {
                    break;
                };
                let v = [v[0], v[1]];
                copy_vector(&v, 0, self.target_words(to_sec), to);
            }
        }
    }

    /// The MIMe primitives an application can weight (resets excluded): word offset, kind and
    /// number of keys (weights), in chain order.
    pub fn mime_primitives(&self) -> Vec<(u32, MimeKind, usize)> {
        self.mimes
            .iter()
            .filter(|m| !m.reset)
            .map(|m| (m.primitive, m.kind, m.num))
            .collect()
    }

    /// Supplies the MIMEPR weights of MIMe primitive `primitive` (word offset) as an
    /// application does: written into its MIMEPR section, or, when the header's MIMEPR pointer
    /// is 0 (the area lies outside the file), kept for it. Returns false when no such MIMe
    /// primitive exists.
    pub fn set_mime_weights(&mut self, primitive: u32, weights: &[i32]) -> bool {
        let Some(m) = self
            .mimes
            .iter()
            .find(|m| m.primitive == primitive && !m.reset)
            .cloned()
        else {
            return false;
        };
        match m.weights_at {
            Some(at) => {
                let words = self.target_words(at);
                for (d, &w) in words.iter_mut().zip(weights.iter().take(m.num)) {
                    *d = w as u32;
                }
            }
            None => {
                self.external_weights.insert(primitive, weights.to_vec());
            }
        }
        true
    }

    fn weights(&self, m: &Mime) -> Vec<i32> {
        let Some(at) = m.weights_at else {
            return self
                .external_weights
                .get(&m.primitive)
                .map(|w| w.iter().take(m.num).copied().collect())
                .unwrap_or_default();
        };
        match self.targets.get(&at) {
            Some(w) => w.iter().take(m.num).map(|&w| w as i32).collect(),
            None => section_words(self.hmd, at)
                .iter()
                .take(m.num)
                .map(|&w| w as i32)
                .collect(),
        }
    }

    /// The words of a section an animation writes (TGT = 1 targets, MIMEPR weights) as they
    /// are now; `None` when no such section exists.
    pub fn section_words(&self, at: u32) -> Option<Vec<u32>> {
        self.hmd.section_at(at)?;
        Some(match self.targets.get(&at) {
            Some(w) => w.clone(),
            None => section_words(self.hmd, at),
        })
    }

    /// The pose after the updates so far (MIMe applied to the coordinates it moves).
    pub fn frame(&self) -> Frame {
        let coords = self.shown_coords.as_ref().unwrap_or(&self.coords);
        let mut world: Vec<Option<Mat>> = vec![None; coords.len()];
        for i in 0..coords.len() {
            world_of(coords, i, &mut world);
        }
        Frame {
            frame: self.updates.saturating_sub(1),
            coordinates: coords
                .iter()
                .enumerate()
                .map(|(i, c)| CoordinatePose {
                    index: i,
                    parent: c.parent,
                    rot: c.rot,
                    local: c.matrix,
                    world: world[i].unwrap_or(c.matrix),
                })
                .collect(),
            sequences: self.sequences(),
            mime: self
                .mimes
                .iter()
                .filter(|m| !m.reset)
                .map(|m| MimeState {
                    primitive: m.primitive,
                    kind: m.kind,
                    weights: self.weights(m),
                })
                .collect(),
            devices: Vec::new(),
        }
        .with_devices(self)
    }

    /// The coordinate index a pointer into the coordinate section names.
    fn coordinate_at(&self, ptr: Option<u32>) -> Option<usize> {
        let c = self.coord_section?;
        let d = ptr?.checked_sub(c + 1)?;
        (d % 20 == 0 && ((d / 20) as usize) < self.coords.len()).then_some((d / 20) as usize)
    }

    fn devices(&self, world: &[CoordinatePose]) -> Vec<DeviceState> {
        let headers = self.hmd.headers();
        let mut out = Vec::new();
        for (at, p) in self.hmd.primitives() {
            let Some(h) = headers.get(&p.header) else {
                continue;
            };
            for t in &p.types {
                if t.kind().category() != 7 || t.kind().developer() != 0 {
                    continue;
                }
                let Some(kind) = DeviceKind::from_code(t.type_code) else {
                    continue;
                };
                let ptr = |i: usize| h.words.get(i).and_then(|e| e.pointer());
                let light = match &t.data {
                    TypeData::Light(l) => Some(*l),
                    _ => None,
                };
                let want = light.map(|l| l.parameter_index).unwrap_or(0);
                let parameters = ptr(0)
                    .and_then(|s| self.hmd.section_at(s))
                    .and_then(|s| match &s.data {
                        SectionData::Devices(items) => {
                            items.iter().find(|i| i.index() == Some(want)).cloned()
                        }
                        _ => None,
                    });
                let coordinate = self.coordinate_at(ptr(1));
                let reference_coordinate = self.coordinate_at(ptr(2));
                let (pos, tgt) = match &parameters {
                    Some(DeviceItem::Camera(c)) => (Some(c.position), Some(c.reference)),
                    Some(DeviceItem::Light {
                        position,
                        reference,
                        ..
                    }) => (Some(*position), Some(*reference)),
                    _ => (None, None),
                };
                let place = |c: Option<usize>, v: [i32; 3]| match c.and_then(|c| world.get(c)) {
                    Some(w) => apply(&w.world, v),
                    None => v,
                };
                let (position, target) = match kind {
                    DeviceKind::Projection | DeviceKind::Ambient => (None, None),
                    DeviceKind::WorldCamera | DeviceKind::WorldLight => (pos, tgt),
                    DeviceKind::FixCamera | DeviceKind::FixLight => (
                        pos.map(|v| place(coordinate, v)),
                        tgt.map(|v| place(coordinate, v)),
                    ),
                    DeviceKind::AimCamera | DeviceKind::AimLight => (
                        pos.map(|v| place(coordinate, v)),
                        tgt.map(|v| place(reference_coordinate, v)),
                    ),
                };
                out.push(DeviceState {
                    primitive: at,
                    kind,
                    light_number: light.map(|l| l.number),
                    parameters,
                    coordinate,
                    reference_coordinate,
                    position,
                    target,
                });
            }
        }
        out
    }

    fn diff_items(&self, m: &Mime) -> Vec<&'a MimeDiffItem> {
        let Some(sec) = m.diff_section.and_then(|d| self.hmd.section_at(d)) else {
            return Vec::new();
        };
        let SectionData::MimeDiff(items) = &sec.data else {
            return Vec::new();
        };
        m.diffs
            .iter()
            .filter_map(|off| items.iter().find(|i| i.index() == Some(*off)))
            .collect()
    }

    /// The vertices (or normals) of the vector section at `at` as the current frame shows
    /// them: as the last drawing primitive using the section saw them in the last update (after
    /// the vertex / normal MIMe and before the resets of the POST-PROCESS block), or for a
    /// section no polygon draws, as they were when the POST-PROCESS block began. `normals` is
    /// kept for callers that name the section's role; the section decides. `None` when no such
    /// section exists.
    pub fn vectors(&self, at: u32, normals: bool) -> Option<Vec<[i16; 3]>> {
        let _ = normals;
        if let Some(v) = self.shown_vectors.get(&at) {
            return Some(v.clone());
        }
        self.current_vectors(at)
    }

    /// Vertex MIMe primitives as morph targets: primitive offset, vertex section, number of keys,
    /// and per key the difference of each vertex it moves (vertex index → delta).
    pub fn vertex_mime_deltas(&self) -> Vec<VertexMimeTargets> {
        let mut out = Vec::new();
        for m in &self.mimes {
            let (MimeKind::Vertex, false, Some(section)) = (m.kind, m.reset, m.vertex_section)
            else {
                continue;
            };
            let mut keys = vec![BTreeMap::new(); m.num];
            for item in self.diff_items(m) {
                let MimeDiffItem::Vertex(VertexDiff {
                    dflags, keys: recs, ..
                }) = item
                else {
                    continue;
                };
                let mut recs = recs.iter();
                for (k, key) in keys.iter_mut().enumerate() {
                    if dflags & (1 << k) == 0 {
                        continue;
                    }
                    let Some(d) = recs.next() else { break };
                    for (i, delta) in d.deltas.iter().enumerate() {
                        let e = key.entry(d.vstart as usize + i).or_insert([0i32; 3]);
                        for (x, dv) in e.iter_mut().zip(delta.v) {
                            *x += dv as i32;
                        }
                    }
                }
            }
            out.push(VertexMimeTargets {
                primitive: m.primitive,
                section,
                keys,
            });
        }
        out
    }

    /// Number of vertex/normal reset DIFF blocks in the file (the player runs them where their
    /// primitives sit; see the module docs).
    pub fn reset_blocks(&self) -> usize {
        self.hmd
            .regions
            .iter()
            .filter_map(|r| match &r.body {
                RegionBody::Section(s) => match &s.data {
                    SectionData::MimeDiff(items) => Some(
                        items
                            .iter()
                            .filter(|i| {
                                matches!(i, MimeDiffItem::VertexReset(VertexResetDiff { .. }))
                            })
                            .count(),
                    ),
                    _ => None,
                },
                _ => None,
            })
            .sum()
    }
}

impl Frame {
    fn with_devices(mut self, player: &Player<'_>) -> Frame {
        self.devices = player.devices(&self.coordinates);
        self
    }
}

/// `m · v`: a point in a coordinate system placed in its parent (`t + (m·v) >> 12`).
pub fn apply(m: &Mat, v: [i32; 3]) -> [i32; 3] {
    let mut out = [0i32; 3];
    for (i, o) in out.iter_mut().enumerate() {
        let s: i64 = (0..3).map(|k| m.m[i][k] as i64 * v[k] as i64).sum();
        *o = m.t[i].wrapping_add((s >> 12) as i32);
    }
    out
}

#[derive(Debug, Clone, Copy)]
struct CoordSpec {
    order: u8,
    t: Method,
    r: Method,
    s: Method,
    short_t: bool,
    one_s: bool,
}

fn work_index(a: &AnimState, s: &SequencePointer) -> u16 {
    a.descriptors
        .get(s.start as usize)
        .and_then(|d| d.word())
        .unwrap_or(0) as u16
}

fn world_of(coords: &[Coord], i: usize, world: &mut [Option<Mat>]) -> Mat {
    // Walk up to the first known ancestor (bounded by the coordinate count), then down.
    let mut chain = vec![i];
    let mut at = i;
    while world[at].is_none() {
        match coords[at].parent {
            Some(p) if chain.len() <= coords.len() && !chain.contains(&p) => {
                chain.push(p);
                at = p;
            }
            _ => break,
        }
    }
    let mut acc: Option<Mat> = None;
    for &c in chain.iter().rev() {
        let m = match (world[c], acc) {
            (Some(w), _) => w,
            (None, Some(parent)) => gte::compose(&parent, &coords[c].matrix),
            (None, None) => coords[c].matrix,
        };
        world[c] = Some(m);
        acc = Some(m);
    }
    world[i].unwrap_or(coords[i].matrix)
}

/// `(src·r + dst·(t − r)) / t` in 32-bit arithmetic.
fn lerp(src: i32, dst: i32, r: i32, t: i32) -> i32 {
    if t == 0 {
        return dst;
    }
    src.wrapping_mul(r)
        .wrapping_add(dst.wrapping_mul(t.wrapping_sub(r)))
        .wrapping_div(t)
}

/// `setBezierCof`, stored in `short`s.
fn bezier_cof(p0: i32, p1: i32, p2: i32, p3: i32) -> [i16; 4] {
    [
        (p0.wrapping_neg())
            .wrapping_add(3i32.wrapping_mul(p1.wrapping_sub(p2)))
            .wrapping_add(p3) as i16,
        3i32.wrapping_mul(p0.wrapping_add(p2))
            .wrapping_sub(6i32.wrapping_mul(p1)) as i16,
        3i32.wrapping_mul(p1.wrapping_sub(p0)) as i16,
        p0 as i16,
    ]
}

/// `setBetaCof` (the uniform cubic B-spline), stored in `short`s.
fn bspline_cof(p0: i32, p1: i32, p2: i32, p3: i32) -> [i16; 4] {
    const SIXTH: i32 = 4096 / 6;
    const HALF: i32 = 4096 / 2;
    const TWO_THIRDS: i32 = 4096 * 2 / 3;
    let m = |k: i32, p: i32| k.wrapping_mul(p);
    [
        (m(-SIXTH, p0)
            .wrapping_add(m(HALF, p1))
            .wrapping_sub(m(HALF, p2))
            .wrapping_add(m(SIXTH, p3))
            >> 12) as i16,
        (m(HALF, p0)
            .wrapping_sub(m(4096, p1))
            .wrapping_add(m(HALF, p2))
            >> 12) as i16,
        (m(-HALF, p0).wrapping_add(m(HALF, p2)) >> 12) as i16,
        (m(SIXTH, p0)
            .wrapping_add(m(TWO_THIRDS, p1))
            .wrapping_add(m(SIXTH, p2))
            >> 12) as i16,
    ]
}

/// `((((co0·t >> 16) + co1)·t >> 16) + co2)·t >> 16) + co3` in 32-bit arithmetic.
fn horner(co: [i16; 4], t: i32) -> i32 {
    let mut v = (co[0] as i32).wrapping_mul(t) >> 16;
    v = v.wrapping_add(co[1] as i32).wrapping_mul(t) >> 16;
    v = v.wrapping_add(co[2] as i32).wrapping_mul(t) >> 16;
    v.wrapping_add(co[3] as i32)
}

/// The rotation part of `m` for angles `r` in rotation order `order` (0 XYZ .. 5 ZYX).
pub fn rot_matrix_order(order: u8, r: [i16; 3], m: &mut Mat) {
    if order == 0 || order > 5 {
        gte::rot_matrix(r, m);
        return;
    }
    let axis = |a: usize| -> [[i32; 3]; 3] {
        let (s, c) = gte::sin_cos(r[a]);
        match a {
            0 => [[4096, 0, 0], [0, c, -s], [0, s, c]],
            1 => [[c, 0, s], [0, 4096, 0], [-s, 0, c]],
            _ => [[c, -s, 0], [s, c, 0], [0, 0, 4096]],
        }
    };
    let axes: [usize; 3] = match order {
        1 => [0, 2, 1],
        2 => [1, 0, 2],
        3 => [1, 2, 0],
        4 => [2, 0, 1],
        _ => [2, 1, 0],
    };
    let mul = |a: [[i32; 3]; 3], b: [[i32; 3]; 3]| {
        let mut o = [[0i32; 3]; 3];
        for i in 0..3 {
            for j in 0..3 {
                o[i][j] = (0..3).map(|k| a[i][k] * b[k][j]).sum::<i32>() >> 12;
            }
        }
        o
    };
    let p = mul(mul(axis(axes[0]), axis(axes[1])), axis(axes[2]));
    for (row, prow) in m.m.iter_mut().zip(p) {
        for (e, v) in row.iter_mut().zip(prow) {
            *e = v as i16;
        }
    }
}

fn write_unit(words: &mut [u32], byte: usize, bytes: usize, v: i32) {
    for b in 0..bytes {
        let at = byte + b;
        if let Some(w) = words.get_mut(at / 4) {
            let shift = (at % 4) * 8;
            let byte_v = ((v >> (8 * b)) & 0xFF) as u32;
            *w = (*w & !(0xFF << shift)) | byte_v << shift;
        }
    }
}

/// SVECTOR `i` of a vector section's words.
fn get_vector(words: &[u32], i: usize) -> Option<[i16; 3]> {
    let a = *words.get(2 * i)?;
    let b = *words.get(2 * i + 1)?;
    Some([a as i16, (a >> 16) as i16, b as i16])
}

/// Writes SVECTOR `i` (x, y, z; the pad halfword is kept).
fn set_vector(words: &mut [u32], i: usize, v: [i16; 3]) {
    if 2 * i + 1 < words.len() {
        words[2 * i] = v[0] as u16 as u32 | (v[1] as u16 as u32) << 16;
        words[2 * i + 1] = (words[2 * i + 1] & 0xFFFF_0000) | v[2] as u16 as u32;
    }
}

/// Copies SVECTOR `from` of `src` (both words, as the reset drivers do) to `to` of `dst`.
fn copy_vector(src: &[u32], from: usize, dst: &mut [u32], to: usize) {
    if let (Some(s), Some(d)) = (
        src.get(2 * from..2 * from + 2),
        dst.get_mut(2 * to..2 * to + 2),
    ) {
        d.copy_from_slice(s);
    }
}

/// The words of the section read at `at`, for the section kinds an animation may update.
fn section_words(hmd: &Hmd, at: u32) -> Vec<u32> {
    let Some(sec) = hmd.section_at(at) else {
        return Vec::new();
    };
    match &sec.data {
        SectionData::Weights(w) => w.iter().map(|&v| v as u32).collect(),
        SectionData::Raw(w) => w.clone(),
        SectionData::Vectors { vectors, odd_word } => {
            let mut out: Vec<u32> = vectors
                .iter()
                .flat_map(|v| {
                    [
                        v.v[0] as u16 as u32 | (v.v[1] as u16 as u32) << 16,
                        v.v[2] as u16 as u32 | (v.pad as u16 as u32) << 16,
                    ]
                })
                .collect();
            out.extend(odd_word);
            out
        }
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linear_runs_from_source_to_target() {
        assert_eq!(lerp(100, 200, 64, 64), 100);
        assert_eq!(lerp(100, 200, 32, 64), 150);
        assert_eq!(lerp(100, 200, 16, 64), 175);
        // C division truncates towards zero.
        assert_eq!(lerp(-1, 0, 1, 3), 0);
    }

    #[test]
    fn bezier_endpoints_and_midpoint() {
        // Straight control points 0, 100, 200 → 300.
        let co = bezier_cof(0, 100, 200, 300);
        assert_eq!(horner(co, 0), 0);
        // t = 0x7FFF ≈ ½: cubic Bezier of a line is the line: ~150.
        let mid = horner(co, 0x7FFF);
        assert!((149..=150).contains(&mid), "{mid}");
    }

    #[test]
    fn bspline_at_zero_is_the_weighted_mean() {
        // (p0 + 4 p1 + p2) / 6 with 4096/6 truncated to 682.
        let co = bspline_cof(600, 1200, 1800, 2400);
        assert_eq!(co[3], ((682 * 600 + 2730 * 1200 + 682 * 1800) >> 12) as i16);
        assert_eq!(horner(co, 0), co[3] as i32);
    }

    #[test]
    fn rotation_orders_agree_on_single_axes() {
        for order in 0..6 {
            for axis in 0..3 {
                let mut r = [0i16; 3];
                r[axis] = 1024;
                let mut a = Mat::IDENTITY;
                let mut b = Mat::IDENTITY;
                gte::rot_matrix(r, &mut a);
                rot_matrix_order(order, r, &mut b);
                assert_eq!(a.m, b.m, "order {order} axis {axis}");
            }
        }
    }
}
