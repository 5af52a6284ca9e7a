//! The TOD player: the PsyQ sample player (`TODANIM.C` / `OBJCTL.C`, janken and TODVIEW, libgs
//! 3.6) rebuilt as a pure function of the file, in the console's integer arithmetic
//! ([`crate::formats::gte`]).
//!
//! How it runs, as the sample does:
//! - Time advances one frame per display tick from the first frame's number. At each tick the
//!   next TOD frame is applied if its frame number is not later than the tick
//!   (`TodSetFrame`): at most one TOD frame per tick, so frames sharing a number are applied on
//!   consecutive ticks.
//! - Objects live in a table of slots. *Create* takes the first free slot (else appends one):
//!   the object gets attribute 0 (displayed), an identity coordinate with no parent and no
//!   model. The slot keeps its RST parameters from any earlier occupant (they are not reset).
//!   *Kill* frees the slot; trailing free slots are dropped from the table.
//! - A packet for an ID that is not alive is applied to a throw-away object (no effect).
//! - Attribute: `attribute = (attribute & mask) | value`.
//! - Coordinate (RST): angles are stored as `value / 360` (C division, toward zero) in 16 bits,
//!   i.e. 4096 per turn. Absolute: R rebuilds the rotation (`RotMatrix`, dropping any scale); S
//!   rebuilds it and scales columns (`ScaleMatrix`); T sets the translation. Differential: R and
//!   T add, S multiplies (`scale · s / 4096`), then the whole matrix is rebuilt R·S, T.
//! - TMD ID: the object's model becomes the TMD object whose entry in the ID list equals the ID;
//!   the list rsdlink writes is 1, 2, 3, … so ID *k* is object *k − 1* (`TodSearchTMDByID`).
//!   An unknown ID unlinks the model.
//! - Parent: 0 or 0xFFFF (the whole word) clears it; otherwise the parent is the *slot* of the
//!   live object with that ID, so a child follows whatever object later occupies that slot.
//! - Light: direction (int32) and colour (bytes, differential adds wrap) of light *id*.
//! - World matrices follow the parent chain as `GsGetLw` does ([`gte::compose`]).
//!
//! Readings taken where the sample is silent, wrong or unsafe (each is a deliberate choice):
//! - `TodRemoveObj` searches for a *free* slot instead of the ID, so the sample's kill never
//!   removes anything; we remove the object with that ID, as the manual describes.
//! - The sample's parameter area is zero-initialised, so a differential scale or a differential
//!   packet before any absolute scale would give a zero matrix; new slots start at scale 4096.
//! - The sample ignores matrix (4) and camera (7) packets. Matrix: copied into the object's
//!   coordinate (rotation part and translation), parameters untouched, as the manual says.
//!   Camera: type 0 keeps position, reference point and z angle (GsRVIEW2 fields, raw units);
//!   type 1 keeps rotation and translation, rotation converted like coordinate rotation; the
//!   differential flag adds.
//! - A parent that is not alive makes the sample dereference NULL; we leave the object without a
//!   parent and add a note. A parent chain that loops back makes `GsGetLw` never return; we
//!   stop at the repeated object and add a note.
//! - Light IDs above 2 overrun the sample's three lights; we keep any ID. Lights start at
//!   direction 0 and colour 0 (the application, not the file, sets their first values).
//! - The sample's table holds 50 objects (janken `OBJMAX`); ours grows without bound.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::formats::gte::{self, Mat};
use crate::formats::tmd::Tmd;
use crate::{Limits, Result};

use super::types::*;

/// The state of one slot of the object table.
#[derive(Debug, Clone, PartialEq)]
struct Slot {
    /// The object ID, or `None` for a free slot (TOD_OBJ_UNDEF).
    id: Option<u16>,
    attribute: u32,
    tmd_id: Option<u32>,
    model: Option<usize>,
    /// Parent slot index.
    parent: Option<usize>,
    /// The coordinate and its RST parameters.
    rst: Rst,
}

/// An object's coordinate (GsCOORDINATE2 `coord`) and the RST parameters its coordinate
/// packets build it from (the sample's per-object parameter area), as [`Rst::apply`] keeps
/// them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Rst {
    /// The coordinate.
    pub(crate) coord: Mat,
    /// Rotation, 4096 = one turn.
    pub(crate) rotate: [i16; 3],
    /// Scale, 4096 = 1.0.
    pub(crate) scale: [i32; 3],
    /// Translation.
    pub(crate) trans: [i32; 3],
}

impl Rst {
    /// A new slot's: identity, no rotation, scale 1.0, no translation.
    pub(crate) const NEW: Rst = Rst {
        coord: Mat::IDENTITY,
        rotate: [0; 3],
        scale: [4096; 3],
        trans: [0; 3],
    };

    /// Applies a coordinate packet as the player does (see the module docs).
    pub(crate) fn apply(&mut self, c: &Coordinate) {
        let s = self;
        let angle = |v: i32| v / 360;
        if c.differential {
            if let Some(r) = c.rotation {
                for (cur, v) in s.rotate.iter_mut().zip(r) {
                    *cur = (*cur as i32).wrapping_add(angle(v)) as i16;
                }
            }
            if let Some(sc) = c.scale {
                for (cur, v) in s.scale.iter_mut().zip([sc.x, sc.y, sc.z]) {
                    *cur = cur.wrapping_mul(v as i32) / 4096;
                }
            }
            if let Some(t) = c.translation {
                for (cur, v) in s.trans.iter_mut().zip(t) {
                    *cur = cur.wrapping_add(v);
                }
            }
            gte::rot_matrix(s.rotate, &mut s.coord);
            gte::scale_matrix(&mut s.coord, s.scale);
            s.coord.t = s.trans;
        } else {
            if let Some(r) = c.rotation {
                s.rotate = r.map(|v| angle(v) as i16);
                gte::rot_matrix(s.rotate, &mut s.coord);
            }
            if let Some(sc) = c.scale {
                s.scale = [sc.x as i32, sc.y as i32, sc.z as i32];
                if c.rotation.is_none() {
                    gte::rot_matrix(s.rotate, &mut s.coord);
                }
                gte::scale_matrix(&mut s.coord, s.scale);
            }
            if let Some(t) = c.translation {
                s.trans = t;
                s.coord.t = t;
            }
        }
    }
}

impl Slot {
    fn new() -> Slot {
        Slot {
            id: None,
            attribute: 0x8000_0000,
            tmd_id: None,
            model: None,
            parent: None,
            rst: Rst::NEW,
        }
    }
}

/// A light's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct LightState {
    /// Light number.
    pub id: u16,
    /// Direction (x, y, z).
    pub direction: [i32; 3],
    /// Colour (r, g, b).
    pub color: [u8; 3],
}

/// A camera's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum CameraState {
    /// Type 0: viewpoint, reference point and z (roll) angle, raw file units.
    LookAt {
        /// Camera number.
        id: u16,
        /// Viewpoint.
        position: [i32; 3],
        /// Reference (look-at) point.
        reference: [i32; 3],
        /// Z angle (roll), raw.
        z_angle: i32,
    },
    /// Type 1: rotation (file units, 4096 = 1°) and translation, and the matrix they give.
    RotTrans {
        /// Camera number.
        id: u16,
        /// Rotation as in the file.
        rotation: [i32; 3],
        /// Translation.
        translation: [i32; 3],
        /// `RotMatrix(rotation / 360)` with the translation.
        matrix: Mat,
    },
}

/// One live object at one frame.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ObjectPose {
    /// Object ID.
    pub id: u16,
    /// Slot in the object table.
    pub slot: usize,
    /// The last TMD ID packet's value.
    pub tmd_id: Option<u32>,
    /// The TMD object the ID links to (only when a TMD was given).
    pub model: Option<usize>,
    /// The parent's object ID (the ID now in the parent slot).
    pub parent: Option<u16>,
    /// The GsDOBJ2 attribute word.
    pub attribute: u32,
    /// Attribute bit 31 clear: displayed.
    pub visible: bool,
    /// The object's coordinate (GsCOORDINATE2 `coord`).
    pub local: Mat,
    /// Local-to-world matrix through the parent chain (GsGetLw).
    pub world: Mat,
}

/// The scene at one tick.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Pose {
    /// The tick (frame number time).
    pub frame: u32,
    /// Seconds: frame × resolution (0 read as 1) / 60.
    pub time: f64,
    /// Index of the TOD frame applied at this tick, if any.
    pub applied: Option<usize>,
    /// Live objects, in slot order.
    pub objects: Vec<ObjectPose>,
    /// Lights touched so far, by ID.
    pub lights: Vec<LightState>,
    /// Cameras touched so far, by ID.
    pub cameras: Vec<CameraState>,
}

/// Plays a TOD tick by tick.
#[derive(Debug, Clone)]
pub struct Player<'a> {
    tod: &'a Tod,
    tmd_objects: Option<usize>,
    next: usize,
    tick: u32,
    started: bool,
    applied: Option<usize>,
    slots: Vec<Slot>,
    lights: BTreeMap<u16, LightState>,
    cameras: BTreeMap<u16, CameraState>,
    notes: Vec<String>,
    /// The kind of each of `notes`, a stable code.
    note_codes: Vec<&'static str>,
    ignored: std::collections::BTreeSet<u16>,
}

impl<'a> Player<'a> {
    /// A player at the tick of the first frame, before it is applied. With `tmd`, TMD ID
    /// packets link objects to its objects (ID *k* → object *k − 1*).
    pub fn new(tod: &'a Tod, tmd: Option<&Tmd>) -> Player<'a> {
        Player {
            tod,
            tmd_objects: tmd.map(|t| t.objects.len()),
            next: 0,
            tick: tod.frames.first().map_or(0, |f| f.number),
            started: false,
            applied: None,
            slots: Vec::new(),
            lights: BTreeMap::new(),
            cameras: BTreeMap::new(),
            notes: Vec::new(),
            note_codes: Vec::new(),
            ignored: Default::default(),
        }
    }

    /// Goes on with another animation on the same object table, lights and cameras, as the
    /// janken sample plays `APPEAR.TOD`, then `JAANKEN.TOD`, then a pose (the later files create
    /// no objects of their own). Time restarts at `next`'s first frame.
    pub fn then<'b>(self, next: &'b Tod) -> Player<'b> {
        Player {
            tod: next,
            next: 0,
            tick: next.frames.first().map_or(0, |f| f.number),
            started: false,
            applied: None,
            tmd_objects: self.tmd_objects,
            slots: self.slots,
            lights: self.lights,
            cameras: self.cameras,
            notes: self.notes,
            note_codes: self.note_codes,
            ignored: self.ignored,
        }
    }

    /// A player of `tod` that goes on from where the animations of `prelude` leave the object
    /// table, lights and cameras, each played to its end in order and chained by
    /// [`Player::then`] (the janken sample's `APPEAR.TOD` before `JAANKEN.TOD`). With no
    /// prelude, [`Player::new`].
    pub fn after<'p>(
        prelude: impl IntoIterator<Item = &'p Tod>,
        tod: &'a Tod,
        tmd: Option<&Tmd>,
    ) -> Player<'a> {
        let mut before: Option<Player<'p>> = None;
        for t in prelude {
            let mut p = match before.take() {
                None => Player::new(t, tmd),
                Some(p) => p.then(t),
            };
            p.seek(u32::MAX);
            before = Some(p);
        }
        match before {
            None => Player::new(tod, tmd),
            Some(p) => p.then(tod),
        }
    }

    /// How many ticks a walk from tick `from` to tick `to` (inclusive; `None`: the last
    /// frame's) visits, at most up to [`Player::tick_bound`] past the first frame: the poses a
    /// tick-by-tick listing prints. One word of a small file can claim millions of ticks, so
    /// callers that walk tick by tick check this with [`Player::check_walk`] first.
    pub fn walk_ticks(&self, from: u32, to: Option<u32>) -> u64 {
        let first = self.tod.frames.first().map_or(0, |f| f.number) as u64;
        let end = first.saturating_add(self.tick_bound());
        to.map_or(end, |t| (t as u64).min(end))
            .saturating_sub(from as u64)
            + 1
    }

    /// [`Player::walk_ticks`], refused with [`crate::Error::LimitExceeded`] beyond
    /// `limits.max_steps`.
    pub fn check_walk(&self, from: u32, to: Option<u32>, limits: &Limits) -> Result<u64> {
        let n = self.walk_ticks(from, to);
        limits.steps(None, "playback ticks", n)?;
        Ok(n)
    }

    /// True once every frame has been applied.
    pub fn finished(&self) -> bool {
        self.next >= self.tod.frames.len()
    }

    /// The current tick.
    pub fn frame(&self) -> u32 {
        self.tick
    }

    /// The tick at which the last frame will be applied if nothing waits longer: an upper bound
    /// for the number of ticks is `last - first + frames`.
    pub fn tick_bound(&self) -> u64 {
        let first = self.tod.frames.first().map_or(0, |f| f.number) as u64;
        let last = self.tod.frames.iter().map(|f| f.number).max().unwrap_or(0) as u64;
        last.saturating_sub(first) + self.tod.frames.len() as u64
    }

    /// Things the sample player would have done differently or crashed on, as they happened.
    pub fn notes(&self) -> &[String] {
        &self.notes
    }

    /// [`Player::notes`] with the kind of each, a stable code: `kill-not-alive`,
    /// `packets-not-alive`, `tmd-id-missing`, `parent-not-alive`, `parent-loop`.
    pub fn coded_notes(&self) -> impl Iterator<Item = (&'static str, &str)> {
        self.note_codes
            .iter()
            .copied()
            .zip(self.notes.iter().map(String::as_str))
    }

    fn note(&mut self, code: &'static str, text: String) {
        self.note_codes.push(code);
        self.notes.push(text);
    }

    /// Advances to the next tick (the first call stays at the first frame's tick) and applies
    /// at most one frame. Returns false when there was nothing left to play.
    pub fn advance(&mut self) -> bool {
        if self.finished() {
            return false;
        }
        if self.started {
            self.tick = self.tick.saturating_add(1);
        }
        self.started = true;
        self.applied = None;
        let frame = &self.tod.frames[self.next];
        if frame.number <= self.tick {
            for p in &frame.packets {
                self.apply(p);
            }
            self.applied = Some(self.next);
            self.next += 1;
        }
        true
    }

    /// Advances until the tick reaches `frame` or playback ends. Ticks at which no frame applies
    /// are jumped over, so the cost follows the number of frames, not their numbers.
    pub fn seek(&mut self, frame: u32) {
        while !self.started || self.tick < frame {
            let due = self.next_due().unwrap_or(u32::MAX);
            self.skip_idle(frame.min(due).saturating_sub(1));
            if !self.advance() {
                break;
            }
        }
    }

    /// The tick at which the next frame applies (`None` once finished): the current tick + 1
    /// for a frame numbered at or before it.
    pub fn next_due(&self) -> Option<u32> {
        let f = self.tod.frames.get(self.next)?;
        let after = if self.started {
            self.tick.saturating_add(1)
        } else {
            self.tick
        };
        Some(f.number.max(after))
    }

    /// Moves the clock forward to `tick` without applying anything, as long as no frame is due
    /// at or before it (and not before the first frame or after the last); returns how many ticks passed. Every pose in between equals the current
    /// one (nothing changes between frames), so callers that key changes need not visit them.
    pub fn skip_idle(&mut self, tick: u32) -> u32 {
        let Some(due) = self.next_due().filter(|_| self.started) else {
            return 0;
        };
        let to = tick.min(due.saturating_sub(1)).max(self.tick);
        let skipped = to - self.tick;
        if skipped > 0 {
            self.tick = to;
            self.applied = None;
        }
        skipped
    }

    fn slot_of(&self, id: u16) -> Option<usize> {
        self.slots.iter().position(|s| s.id == Some(id))
    }

    fn apply(&mut self, p: &Packet) {
        let id = p.object_id;
        let at = self.tick;
        match &p.data {
            PacketData::ObjectControl(ObjectControl::Create) => {
                let i = match self.slots.iter().position(|s| s.id.is_none()) {
                    Some(i) => i,
                    None => {
                        self.slots.push(Slot::new());
                        self.slots.len() - 1
                    }
                };
                let s = &mut self.slots[i];
                s.id = Some(id);
                s.attribute = 0;
                s.rst.coord = Mat::IDENTITY;
                s.parent = None;
                s.tmd_id = None;
                s.model = None;
            }
            PacketData::ObjectControl(ObjectControl::Kill) => match self.slot_of(id) {
                Some(i) => {
                    self.slots[i].id = None;
                    while self.slots.last().is_some_and(|s| s.id.is_none()) {
                        self.slots.pop();
                    }
                }
                None => self.note(
                    "kill-not-alive",
                    format!("frame {at}: kill of object {id}, which is not alive"),
                ),
            },
            PacketData::Light(l) => {
                let s = self.lights.entry(id).or_insert(LightState {
                    id,
                    ..LightState::default()
                });
                if let Some(d) = l.direction {
                    for (cur, v) in s.direction.iter_mut().zip(d) {
                        *cur = if l.differential {
                            cur.wrapping_add(v)
                        } else {
                            v
                        };
                    }
                }
                if let Some(c) = l.color {
                    for (cur, v) in s.color.iter_mut().zip([c.r, c.g, c.b]) {
                        *cur = if l.differential {
                            cur.wrapping_add(v)
                        } else {
                            v
                        };
                    }
                }
            }
            PacketData::Camera(c) => self.camera(id, c),
            _ => {
                let Some(i) = self.slot_of(id) else {
                    if self.ignored.insert(id) {
                        self.note("packets-not-alive", format!(
                            "frame {at}: packets for object {id}, which is not alive, are ignored (the sample applies them to a dummy object)"
                        ));
                    }
                    return;
                };
                self.object_packet(i, p);
            }
        }
    }

    fn camera(&mut self, id: u16, c: &Camera) {
        let add = |a: [i32; 3], b: [i32; 3]| {
            [
                a[0].wrapping_add(b[0]),
                a[1].wrapping_add(b[1]),
                a[2].wrapping_add(b[2]),
            ]
        };
        let state = self.cameras.get(&id).copied();
        let new = match c {
            Camera::LookAt(c) => {
                let (mut position, mut reference, mut z_angle) = match state {
                    Some(CameraState::LookAt {
                        position,
                        reference,
                        z_angle,
                        ..
                    }) => (position, reference, z_angle),
                    _ => ([0; 3], [0; 3], 0),
                };
                if let Some(p) = c.position {
                    let (a, b) = ([p[0], p[1], p[2]], [p[3], p[4], p[5]]);
                    if c.differential {
                        position = add(position, a);
                        reference = add(reference, b);
                    } else {
                        (position, reference) = (a, b);
                    }
                }
                if let Some(z) = c.z_angle {
                    z_angle = if c.differential {
                        z_angle.wrapping_add(z)
                    } else {
                        z
                    };
                }
                CameraState::LookAt {
                    id,
                    position,
                    reference,
                    z_angle,
                }
            }
            Camera::RotTrans(c) => {
                let (mut rotation, mut translation) = match state {
                    Some(CameraState::RotTrans {
                        rotation,
                        translation,
                        ..
                    }) => (rotation, translation),
                    _ => ([0; 3], [0; 3]),
                };
                if let Some(r) = c.rotation {
                    rotation = if c.differential { add(rotation, r) } else { r };
                }
                if let Some(t) = c.translation {
                    translation = if c.differential {
                        add(translation, t)
                    } else {
                        t
                    };
                }
                let mut matrix = Mat::IDENTITY;
                gte::rot_matrix(rotation.map(|a| (a / 360) as i16), &mut matrix);
                matrix.t = translation;
                CameraState::RotTrans {
                    id,
                    rotation,
                    translation,
                    matrix,
                }
            }
        };
        self.cameras.insert(id, new);
    }

    fn object_packet(&mut self, i: usize, p: &Packet) {
        let at = self.tick;
        match &p.data {
            PacketData::Attribute(a) => {
                let s = &mut self.slots[i];
                s.attribute = (s.attribute & a.mask) | a.value;
            }
            PacketData::Coordinate(c) => self.slots[i].rst.apply(c),
            PacketData::Matrix(m) => {
                self.slots[i].rst.coord = Mat { m: m.m, t: m.t };
            }
            PacketData::TmdId(v) => {
                let word = v.id as u32 | (v.pad as u32) << 16;
                let Some(n) = self.tmd_objects else {
                    self.slots[i].tmd_id = Some(word);
                    return;
                };
                let s = &mut self.slots[i];
                s.tmd_id = Some(word);
                s.model = (word as usize).checked_sub(1).filter(|&k| k < n);
                if s.model.is_none() {
                    let id = p.object_id;
                    self.note("tmd-id-missing", format!(
                        "frame {at}: object {id} asks for TMD ID {word}, which the TMD's {n} objects do not have"
                    ));
                }
            }
            PacketData::Parent(v) => {
                let word = v.id as u32 | (v.pad as u32) << 16;
                if word == 0 || word == 0xFFFF {
                    self.slots[i].parent = None;
                    return;
                }
                let parent = u16::try_from(word).ok().and_then(|id| self.slot_of(id));
                if parent.is_none() {
                    let id = p.object_id;
                    self.note("parent-not-alive", format!(
                        "frame {at}: object {id} gets parent {word}, which is not alive (the sample dereferences NULL); taken as no parent"
                    ));
                }
                self.slots[i].parent = parent;
            }
            _ => {}
        }
    }

    /// The scene now.
    pub fn pose(&mut self) -> Pose {
        let mut objects = Vec::new();
        for (k, s) in self.slots.iter().enumerate() {
            let Some(id) = s.id else { continue };
            let (world, looped) = self.world(k);
            let what = format!("the parent chain of object {id} loops");
            if looped && !self.notes.iter().any(|n| n.contains(&what)) {
                let text = format!(
                    "frame {}: {what} (GsGetLw would never return); cut at the repeated object",
                    self.tick
                );
                self.note_codes.push("parent-loop");
                self.notes.push(text);
            }
            objects.push(ObjectPose {
                id,
                slot: k,
                tmd_id: s.tmd_id,
                model: s.model,
                parent: s.parent.and_then(|p| self.slots.get(p)).and_then(|p| p.id),
                attribute: s.attribute,
                visible: s.attribute & 0x8000_0000 == 0,
                local: s.rst.coord,
                world,
            });
        }
        Pose {
            frame: self.tick,
            time: self.tick as f64 * self.tod.ticks_per_frame() as f64 / 60.0,
            applied: self.applied,
            objects,
            lights: self.lights.values().copied().collect(),
            cameras: self.cameras.values().copied().collect(),
        }
    }

    /// GsGetLw: the parent chain's matrices composed root first. A loop is cut at the first
    /// repeated slot.
    fn world(&self, slot: usize) -> (Mat, bool) {
        let n = self.slots.len();
        let mut chain = vec![slot];
        let mut at = slot;
        let mut looped = false;
        // A chain longer than the table must loop; only then is it walked again with a set
        // (so the common case stays linear in the chain's depth).
        while let Some(p) = self.slots[at].parent.filter(|&p| p < n) {
            if chain.len() > n {
                looped = true;
                break;
            }
            chain.push(p);
            at = p;
        }
        if looped {
            let mut seen = std::collections::BTreeSet::new();
            chain.clear();
            at = slot;
            loop {
                seen.insert(at);
                chain.push(at);
                match self.slots[at].parent {
                    Some(p) if p < n && !seen.contains(&p) => at = p,
                    _ => break,
                }
            }
        }
        let mut m = self.slots[*chain.last().unwrap_or(&slot)].rst.coord;
        for &k in chain.iter().rev().skip(1) {
            m = gte::compose(&m, &self.slots[k].rst.coord);
        }
        (m, looped)
    }
}

impl Iterator for Player<'_> {
    type Item = Pose;

    /// One pose per tick, from the first frame's tick to the tick that applies the last frame.
    fn next(&mut self) -> Option<Pose> {
        if self.advance() {
            Some(self.pose())
        } else {
            None
        }
    }
}
