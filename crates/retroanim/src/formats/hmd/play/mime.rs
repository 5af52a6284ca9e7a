//! MIMe playback.
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

use super::*;

impl<'a> Player<'a> {
    /// Where vector `index` of the vector section at `sec` lies: in that section or, past its
    /// end, in the vector sections that follow it back to back in the file. The console loads
    /// the file as one block of memory, so a DIFF block that reaches past its section (the
    /// vertex MIMe key of TUTO/PYRAMID/VTXMIME.HMD) moves the vectors of the next section.
    /// `None` past the last contiguous vector section (the console would write on into
    /// whatever follows; we stop).
    pub(super) fn vector_home(&mut self, sec: u32, index: usize) -> Option<(u32, usize)> {
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
    pub(super) fn target_words(&mut self, at: u32) -> &mut Vec<u32> {
        let hmd = self.hmd;
        self.targets
            .entry(at)
            .or_insert_with(|| section_words(hmd, at))
    }

    pub(super) fn find_mimes(&mut self) {
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
                    Some(super::super::types::HeaderEntry::Value(v)) => v as usize,
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
    pub(super) fn build_schedule(&mut self) {
        if self.mimes.is_empty() {
            return;
        }
        let hmd = self.hmd;
        let headers = hmd.headers();
        let prims: BTreeMap<u32, &super::super::types::Primitive> = hmd.primitives().collect();
        let mut seen = std::collections::BTreeSet::new();
        for &first in &hmd.blocks {
            let mut actions = Vec::new();
            let mut at = first;
            while at != 0 && at != super::super::types::TERMINATE && seen.insert(at) {
                let Some(p) = prims.get(&at) else { break };
                // Polygons, ground and environment maps read their vector sections when they
                // draw; shared polygons (category 1) read them in the pre-calculation type
                // (primitive type 0, in each coordinate's block) — the shared drawing types,
                // often in POST-PROCESS after the resets, read the calculated vertices.
                let draws =
                    p.types
                        .iter()
                        .map(|t| t.kind().drawn_as())
                        .any(|k| match k.category() {
                            0 | 5 | 6 => true,
                            1 => k.primitive_type() == 0,
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
    pub(super) fn init_reset_areas(&mut self) {
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
    pub(super) fn run_schedule(&mut self) {
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
    pub(super) fn snapshot(&mut self, drawn: &std::collections::BTreeSet<u32>) {
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
    pub(super) fn current_vectors(&self, at: u32) -> Option<Vec<[i16; 3]>> {
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
    pub(super) fn run_mime(&mut self, i: usize) {
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
    pub(super) fn joint_mime(&mut self, m: &Mime, sec: u32, j: &JointDiff, w: &[i32]) {
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
                let (angle, axis) = super::super::cat4_mime::vector_normal(rv);
                if angle != 0 {
                    super::super::cat4_mime::rotate_about_axis(&mut c.matrix.m, axis, angle);
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
    pub(super) fn joint_reset(&mut self, m: &Mime, sec: u32, j: &JointDiff) {
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
    pub(super) fn vn_mime(&mut self, m: &Mime, sec: u32, v: &VertexDiff, w: &[i32]) {
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
                let new =
                    [0, 1, 2].map(|i| super::super::cat4_mime::vn_add(old[i], delta.v[i], pr));
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
    pub(super) fn vn_reset(&mut self, m: &Mime, sec: u32, r: &VertexResetDiff) {
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

    /// The joint MIMe primitives (resets excluded), in chain order, as the export records them
    /// (`docs/extras.md`, `joint_mimes`): their kind, the MIMEPR section their weights are read
    /// from (word offset; `None` for an area outside the file), the number of keys and the DIFF
    /// blocks of their data, in order.
    pub fn joint_mimes(&self) -> Vec<JointMimeRecord> {
        self.mimes
            .iter()
            .filter(|m| !m.reset && matches!(m.kind, MimeKind::JointAxes | MimeKind::JointRpy))
            .map(|m| JointMimeRecord {
                kind: m.kind,
                weights_at: m.weights_at,
                keys: m.num,
                diffs: self
                    .diff_items(m)
                    .into_iter()
                    .filter_map(|i| match i {
                        MimeDiffItem::Joint(j) => Some(j.clone()),
                        _ => None,
                    })
                    .collect(),
            })
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

    pub(super) fn weights(&self, m: &Mime) -> Vec<i32> {
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

    pub(super) fn diff_items(&self, m: &Mime) -> Vec<&'a MimeDiffItem> {
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
        self.mime_deltas(MimeKind::Vertex)
    }

    /// Normal MIMe primitives as morph targets: primitive offset, normal section, number of
    /// keys, and per key the difference of each normal it moves (normal index → delta), as
    /// [`Player::vertex_mime_deltas`].
    pub fn normal_mime_deltas(&self) -> Vec<VertexMimeTargets> {
        self.mime_deltas(MimeKind::Normal)
    }

    fn mime_deltas(&self, kind: MimeKind) -> Vec<VertexMimeTargets> {
        let mut out = Vec::new();
        for m in &self.mimes {
            let section = match kind {
                MimeKind::Normal => m.normal_section,
                _ => m.vertex_section,
            };
            let (true, false, Some(section)) = (m.kind == kind, m.reset, section) else {
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

/// SVECTOR `i` of a vector section's words.
pub(super) fn get_vector(words: &[u32], i: usize) -> Option<[i16; 3]> {
    let a = *words.get(2 * i)?;
    let b = *words.get(2 * i + 1)?;
    Some([a as i16, (a >> 16) as i16, b as i16])
}

/// Writes SVECTOR `i` (x, y, z; the pad halfword is kept).
pub(super) fn set_vector(words: &mut [u32], i: usize, v: [i16; 3]) {
    if 2 * i + 1 < words.len() {
        words[2 * i] = v[0] as u16 as u32 | (v[1] as u16 as u32) << 16;
        words[2 * i + 1] = (words[2 * i + 1] & 0xFFFF_0000) | v[2] as u16 as u32;
    }
}

/// Copies SVECTOR `from` of `src` (both words, as the reset drivers do) to `to` of `dst`.
pub(super) fn copy_vector(src: &[u32], from: usize, dst: &mut [u32], to: usize) {
    if let (Some(s), Some(d)) = (
        src.get(2 * from..2 * from + 2),
        dst.get_mut(2 * to..2 * to + 2),
    ) {
        d.copy_from_slice(s);
    }
}

/// The words of the section read at `at`, for the section kinds an animation may update.
pub(super) fn section_words(hmd: &Hmd, at: u32) -> Vec<u32> {
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
