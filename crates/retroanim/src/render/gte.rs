//! The GTE operations a libgs program draws with: perspective transformation (RTPS), the
//! normal clip (NCLIP), the average Z (AVSZ3 / AVSZ4) and the light calculation (NCS / NCCS),
//! in the GTE's own fixed-point arithmetic (psx-spx "GTE" sections; `notes/console_semantics.md`).
//!
//! - RTPS (sf = 1, lm = 0): `MAC = (TR·0x1000 + RT·V) >> 12`; IR1, IR2 saturate to
//!   −0x8000..0x7FFF; `SZ = MAC3` clamped to 0..0xFFFF; `q = UNR(H, SZ)` (the GTE's
//!   Newton-Raphson division, table and steps as the hardware's, result ≤ 0x1FFFF);
//!   `SX = (q·IR1 + OFX) >> 16`, `SY = (q·IR2 + OFY) >> 16`, clamped to −0x400..0x3FF. MAC0 is
//!   computed in 64 bits here: where the console's 32-bit MAC0 overflows (a vertex far
//!   outside the screen) the point lands elsewhere on the console, and such polygons are
//!   rejected by the GPU's size limit either way.
//! - AVSZ3 / AVSZ4: `OTZ = (ZSF·ΣSZ) >> 12` with InitGeom's ZSF3 = 0x155 and ZSF4 = 0x100, i.e.
//!   the average Z divided by 4 (a 14-bit OT index).
//! - NCS / NCCS (sf = 1, lm = 1): `IR = clamp0((LLM·N) >> 12)`, then
//!   `IR = clamp0((BK·0x1000 + LCM·IR) >> 12)`, then each colour byte
//!   `((C·IR) << 4 >> 12) >> 4` clamped to 0..255 (NCCS). libgs lights a textured polygon
//!   with C = 128 (the GPU's ×1 for texture modulation), an untextured one with its colour.

use crate::formats::gte::Mat;

/// A vertex after RTPS: screen position and depth.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Projected {
    /// Screen x (−1024..1023).
    pub sx: i32,
    /// Screen y.
    pub sy: i32,
    /// Depth SZ (0..65535).
    pub sz: i32,
}

/// The GTE's reciprocal table (psx-spx "GTE Division Inaccuracy"): 257 entries.
const UNR: [u8; 257] = {
    let mut t = [0u8; 257];
    let mut i = 0;
    while i < 257 {
        let v = (0x40000 / (i as i32 + 0x100) + 1) / 2 - 0x101;
        t[i] = if v > 0 { v as u8 } else { 0 };
        i += 1;
    }
    t
};

/// `H / SZ` as the GTE computes it: a 1.16 fixed-point quotient, 0x1FFFF on overflow
/// (`H ≥ 2·SZ`).
pub fn divide(h: u32, sz: u32) -> u32 {
    if h >= sz * 2 {
        return 0x1FFFF;
    }
    let z = (sz as u16).leading_zeros();
    let n = u64::from(h) << z;
    let d = u64::from(sz) << z;
    let u = u64::from(UNR[((d - 0x7FC0) >> 7) as usize]) + 0x101;
    let d = (0x2000080 - d * u) >> 8;
    let d = (0x0000080 + d * u) >> 8;
    (((n * d) + 0x8000) >> 16).min(0x1FFFF) as u32
}

/// The screen set-up: projection distance H and the screen offset (OFX, OFY in pixels).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Screen {
    /// Projection plane distance H.
    pub h: u32,
    /// Screen centre x.
    pub ofx: i32,
    /// Screen centre y.
    pub ofy: i32,
}

/// RTPS of `v` through the rotation-translation `m`.
#[inline]
pub fn rtps(m: &Mat, s: &Screen, v: [i16; 3]) -> Projected {
    let mac = |i: usize| -> i64 {
        ((i64::from(m.t[i]) << 12)
            + i64::from(m.m[i][0]) * i64::from(v[0])
            + i64::from(m.m[i][1]) * i64::from(v[1])
            + i64::from(m.m[i][2]) * i64::from(v[2]))
            >> 12
    };
    let ir1 = mac(0).clamp(-0x8000, 0x7FFF);
    let ir2 = mac(1).clamp(-0x8000, 0x7FFF);
    let sz = mac(2).clamp(0, 0xFFFF);
    let q = i64::from(divide(s.h, sz as u32));
    let sx = ((q * ir1 + (i64::from(s.ofx) << 16)) >> 16).clamp(-0x400, 0x3FF);
    let sy = ((q * ir2 + (i64::from(s.ofy) << 16)) >> 16).clamp(-0x400, 0x3FF);
    Projected {
        sx: sx as i32,
        sy: sy as i32,
        sz: sz as i32,
    }
}

/// NCLIP: twice the signed screen area of `a b c`; positive when the corners run clockwise
/// on the screen (+Y down), which is a front face.
#[inline]
pub fn nclip(a: Projected, b: Projected, c: Projected) -> i64 {
    let (ax, ay, bx, by, cx, cy) = (
        i64::from(a.sx),
        i64::from(a.sy),
        i64::from(b.sx),
        i64::from(b.sy),
        i64::from(c.sx),
        i64::from(c.sy),
    );
    ax * by + bx * cy + cx * ay - ax * cy - bx * ay - cx * by
}

/// AVSZ3 / AVSZ4 with InitGeom's ZSF3 = 0x155, ZSF4 = 0x100: the OT index of a polygon.
#[inline]
pub fn avsz(corners: &[Projected]) -> i32 {
    let sum: i64 = corners.iter().map(|p| i64::from(p.sz)).sum();
    let zsf = if corners.len() == 4 { 0x100 } else { 0x155 };
    ((zsf * sum) >> 12) as i32
}

/// The GTE's light registers: three flat lights and the ambient (back) colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lights {
    /// Light matrix LLM: row k is light k's direction towards the light, in model space,
    /// 4096 = 1.0 (libgs sets it to the lights' directions times the object's rotation).
    pub llm: [[i16; 3]; 3],
    /// Light colour matrix LCM: column k is light k's colour, 4096 = 1.0.
    pub lcm: [[i16; 3]; 3],
    /// Back (ambient) colour BK, 4096 = 1.0.
    pub bk: [i32; 3],
}

impl Lights {
    /// NCCS: the colour `c` lit from normal `n` (4096 = 1.0).
    #[inline]
    pub fn light(&self, n: [i16; 3], c: [u8; 3]) -> [u8; 3] {
        let dot = |row: [i16; 3], v: [i64; 3]| -> i64 {
            i64::from(row[0]) * v[0] + i64::from(row[1]) * v[1] + i64::from(row[2]) * v[2]
        };
        let n = n.map(i64::from);
        let l = self.llm.map(|row| (dot(row, n) >> 12).clamp(0, 0x7FFF));
        let ir: [i64; 3] =
            std::array::from_fn(|i| ((i64::from(self.bk[i]) << 12) + dot(self.lcm[i], l)) >> 12)
                .map(|v| v.clamp(0, 0x7FFF));
        std::array::from_fn(|i| ((((i64::from(c[i]) * ir[i]) << 4) >> 12) >> 4).clamp(0, 255) as u8)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn division_is_close_to_the_exact_quotient() {
        // The UNR result is within 1/65536-units of a few of the exact quotient.
        for &(h, sz) in &[
            (256u32, 1000u32),
            (256, 300),
            (1024, 4096),
            (100, 65535),
            (300, 151),
        ] {
            let exact = (f64::from(h) * 65536.0 / f64::from(sz)).min(131071.0);
            let q = f64::from(divide(h, sz));
            assert!((q - exact).abs() <= 2.0, "{h}/{sz}: {q} vs {exact}");
        }
        assert_eq!(divide(256, 128), 0x1FFFF);
        assert_eq!(divide(256, 0), 0x1FFFF);
    }

    #[test]
    fn rtps_projects_through_the_centre() {
        let m = Mat {
            m: [[4096, 0, 0], [0, 4096, 0], [0, 0, 4096]],
            t: [0, 0, 1000],
        };
        let s = Screen {
            h: 250,
            ofx: 128,
            ofy: 100,
        };
        let p = rtps(&m, &s, [400, -200, 0]);
        assert_eq!(p.sz, 1000);
        assert_eq!((p.sx, p.sy), (128 + 100, 100 - 50));
        // ZSF4 = 0x100 over a sum of 4, ZSF3 = 0x155 over 3: the average Z / 4.
        assert_eq!(avsz(&[p, p, p, p]), 250);
        assert_eq!(avsz(&[p, p, p]), (0x155 * 3000) >> 12);
    }

    #[test]
    fn light_scales_the_colour() {
        let l = Lights {
            llm: [[0, 0, -4096], [0; 3], [0; 3]],
            lcm: [[2048, 0, 0], [2048, 0, 0], [2048, 0, 0]],
            bk: [1024; 3],
        };
        // Facing the light: 0.5 + 0.25 = 0.75 of 200 = 150.
        assert_eq!(l.light([0, 0, -4096], [200, 200, 200]), [150; 3]);
        // Facing away: ambient only.
        assert_eq!(l.light([0, 0, 4096], [200, 200, 200]), [50; 3]);
    }
}
