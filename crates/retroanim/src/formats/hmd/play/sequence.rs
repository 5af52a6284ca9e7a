//! The standard update driver (`GsU_03000000`, type 0x03000000), per sequence pointer.
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

use super::*;

impl<'a> Player<'a> {
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
    pub(super) fn capture(&mut self, anim: usize, pointer: usize) -> Result<()> {
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

    pub(super) fn spend(&self, steps: &mut u64) -> Result<()> {
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
    pub(super) fn next_key(
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
                    if *code == super::super::CONTROL_END && (*p1 == 0 || *p1 == sid) {
                        return Ok((None, sid));
                    }
                }
            }
            idx = (idx as i32 + dir) as u16;
        }
    }

    pub(super) fn is_key(&self, anim: usize, idx: u16) -> bool {
        matches!(
            self.anims[anim].descriptors.get(idx as usize),
            Some(SequenceDescriptor::KeyFrame { .. })
        )
    }

    pub(super) fn tframe_of(&self, anim: usize, idx: u16) -> u8 {
        match self.anims[anim].descriptors.get(idx as usize) {
            Some(SequenceDescriptor::KeyFrame { tframe, .. }) => *tframe,
            _ => 0,
        }
    }

    /// `GsU_03000000` for one sequence pointer.
    pub(super) fn update_pointer(&mut self, anim: usize, pointer: usize) -> Result<()> {
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
    pub(super) fn walk(
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
}
