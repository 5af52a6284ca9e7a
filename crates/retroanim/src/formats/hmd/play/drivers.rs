//! The interpolation drivers the update driver calls (`030000xx.C`, `0301xxxx.C`).
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

use super::*;

impl Player<'_> {
    /// Calls the interpolation driver of table entry `type_idx`; true when it returned 1.
    pub(super) fn drive(&mut self, anim: usize, pointer: usize, type_idx: u8) -> Result<bool> {
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
    pub(super) fn bspline_history(&mut self, anim: usize, pointer: usize) -> bool {
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

    pub(super) fn frames_of(
        &self,
        anim: usize,
        pointer: usize,
    ) -> (Option<u16>, Option<u16>, Option<u16>) {
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

    pub(super) fn coord_driver(
        &mut self,
        anim: usize,
        pointer: usize,
        spec: CoordSpec,
    ) -> Result<bool> {
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
            gte::rot_matrix_order(spec.order, c.rot, &mut c.matrix);
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

    pub(super) fn general_driver(
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
}

#[derive(Debug, Clone, Copy)]
pub(super) struct CoordSpec {
    order: u8,
    t: Method,
    r: Method,
    s: Method,
    short_t: bool,
    one_s: bool,
}

pub(super) fn work_index(a: &AnimState, s: &SequencePointer) -> u16 {
    a.descriptors
        .get(s.start as usize)
        .and_then(|d| d.word())
        .unwrap_or(0) as u16
}

/// `(src·r + dst·(t − r)) / t` in 32-bit arithmetic.
pub(crate) fn lerp(src: i32, dst: i32, r: i32, t: i32) -> i32 {
    if t == 0 {
        return dst;
    }
    src.wrapping_mul(r)
        .wrapping_add(dst.wrapping_mul(t.wrapping_sub(r)))
        .wrapping_div(t)
}

/// `setBezierCof`, stored in `short`s.
pub(crate) fn bezier_cof(p0: i32, p1: i32, p2: i32, p3: i32) -> [i16; 4] {
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
pub(crate) fn bspline_cof(p0: i32, p1: i32, p2: i32, p3: i32) -> [i16; 4] {
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
pub(crate) fn horner(co: [i16; 4], t: i32) -> i32 {
    let mut v = (co[0] as i32).wrapping_mul(t) >> 16;
    v = v.wrapping_add(co[1] as i32).wrapping_mul(t) >> 16;
    v = v.wrapping_add(co[2] as i32).wrapping_mul(t) >> 16;
    v.wrapping_add(co[3] as i32)
}

pub(super) fn write_unit(words: &mut [u32], byte: usize, bytes: usize, v: i32) {
    for b in 0..bytes {
        let at = byte + b;
        if let Some(w) = words.get_mut(at / 4) {
            let shift = (at % 4) * 8;
            let byte_v = ((v >> (8 * b)) & 0xFF) as u32;
            *w = (*w & !(0xFF << shift)) | byte_v << shift;
        }
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
}
