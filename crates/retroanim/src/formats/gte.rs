//! The PlayStation's fixed-point matrix arithmetic (libgte / GTE), as the console computes it:
//! 4096 = 1.0, angles in 4096ths of a full turn, 16-bit matrix elements, 32-bit translations.
//! Every routine here was checked against the library's own code executed on thousands of
//! inputs (`../shared/notes/console_semantics.md` §1, §3).
//!
//! - [`rot_matrix`] follows libgte `RotMatrix` (M = Rx·Ry·Rz) step by step: the same products,
//!   the same arithmetic right shifts by 12 in the same places, the same truncation to 16 bits.
//!   Its sine/cosine table (`rcossin_tbl`, 4096 entries) is rebuilt as
//!   `round(4096 · sin(2πi/4096))` (cosine likewise), which equals the console's table in all
//!   4,096 entries.
//! - [`rot_matrix_order`] computes the other five orders with the formulas of libgte's
//!   `RotMatrixYXZ` / `ZYX` / `ZXY` / `XZY` / `YZX`: each routine multiplies out the pair of
//!   axis matrices that involves Y first, every term `(a·b) >> 12` shifted on its own (an
//!   arithmetic shift, i.e. floor) and the shifted terms added; where the library negates a
//!   product before shifting (`(−a·b) >> 12`), so do we. This is not `(A·B)·C` with one shift
//!   per element, which differs from the console by up to 3 units on most angle triples.
//! - [`scale_matrix`] scales column j by `s[j]` (libgte `ScaleMatrix`), `(m · s) >> 12`.
//! - [`compose`] is `CompMatrix`, the product `GsGetLw` builds world matrices with: each matrix
//!   element is the sum of three 16×16 products shifted right by 12 once and saturated to 16
//!   bits (MVMVA, sf = 1, lm = 0); the translation is `a.t + (a.m · int16(b.t)) >> 12`: the
//!   child translation is cut to its low 16 bits first, as the library loads it into the GTE's
//!   16-bit vector registers, and the sum is not clamped.

use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

/// A libgte MATRIX: 3×3 int16 (4096 = 1.0) and an int32 translation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mat {
    /// Rotation/scale part, row-major.
    pub m: [[i16; 3]; 3],
    /// Translation.
    pub t: [i32; 3],
}

impl Mat {
    /// The identity (GsInitCoordinate2).
    pub const IDENTITY: Mat = Mat {
        m: [[4096, 0, 0], [0, 4096, 0], [0, 0, 4096]],
        t: [0, 0, 0],
    };
}

/// `(sin, cos)` for table index 0..4095, 4096 = 1.0.
fn table() -> &'static [(i32, i32); 4096] {
    static TABLE: OnceLock<Box<[(i32, i32); 4096]>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut t = Box::new([(0, 0); 4096]);
        for (i, e) in t.iter_mut().enumerate() {
            let a = i as f64 * std::f64::consts::TAU / 4096.0;
            *e = (
                (a.sin() * 4096.0).round() as i32,
                (a.cos() * 4096.0).round() as i32,
            );
        }
        t
    })
}

/// libgte `rsin`/`rcos` as RotMatrix looks them up: a negative angle uses the table at `-a` with
/// the sine negated.
pub fn sin_cos(a: i16) -> (i32, i32) {
    let a = a as i32;
    if a >= 0 {
        table()[(a & 0xFFF) as usize]
    } else {
        let (s, c) = table()[((-a) & 0xFFF) as usize];
        (-s, c)
    }
}

/// libgte `RotMatrix`: writes the rotation part of `m` for angles `r` (4096 = 360°); the
/// translation is left alone.
pub fn rot_matrix(r: [i16; 3], m: &mut Mat) {
    let (sx, cx) = sin_cos(r[0]);
    let (sy, cy) = sin_cos(r[1]);
    let (sz, cz) = sin_cos(r[2]);
    let f = |a: i32, b: i32| a.wrapping_mul(b) >> 12;
    let mut o = [[0i32; 3]; 3];
    o[0][2] = sy;
    o[1][2] = (cy.wrapping_mul(sx)).wrapping_neg() >> 12;
    o[2][2] = f(cy, cx);
    o[0][0] = f(cz, cy);
    o[0][1] = (sz.wrapping_mul(cy)).wrapping_neg() >> 12;
    let czsy = f(cz, -sy);
    o[1][0] = f(sz, cx) - f(czsy, sx);
    o[2][0] = f(sz, sx) + f(czsy, cx);
    let szsy = f(sz, -sy);
    o[1][1] = f(cz, cx) + f(szsy, sx);
    o[2][1] = f(cz, sx) - f(szsy, cx);
    for (row, orow) in m.m.iter_mut().zip(o) {
        for (e, v) in row.iter_mut().zip(orow) {
            *e = v as i16;
        }
    }
}

/// The rotation part of `m` for angles `r` in the HMD rotation order `order` (File Formats
/// p. 2-101: 0 XYZ, 1 XZY, 2 YXZ, 3 YZX, 4 ZXY, 5 ZYX; other values read as XYZ), with the
/// formulas of the matching libgte routine (`RotMatrix`, `RotMatrixXZY`, …); the translation is
/// left alone.
pub fn rot_matrix_order(order: u8, r: [i16; 3], m: &mut Mat) {
    let (sx, cx) = sin_cos(r[0]);
    let (sy, cy) = sin_cos(r[1]);
    let (sz, cz) = sin_cos(r[2]);
    // One product shifted on its own; `n` negates the product before the shift.
    let f = |a: i32, b: i32| a.wrapping_mul(b) >> 12;
    let n = |a: i32, b: i32| a.wrapping_mul(b).wrapping_neg() >> 12;
    let o: [[i32; 3]; 3] = match order {
        1 => {
            // RotMatrixXZY = Rx·(Rz·Ry).
            let (a, b) = (f(sz, sy), f(sz, cy));
            [
                [f(cz, cy), -sz, f(cz, sy)],
                [f(sx, sy) + f(b, cx), f(cx, cz), f(a, cx) - f(sx, cy)],
                [f(b, sx) - f(cx, sy), f(sx, cz), f(cx, cy) + f(a, sx)],
            ]
        }
        2 => {
            // RotMatrixYXZ = (Ry·Rx)·Rz.
            let (a, b) = (f(sy, sx), f(cy, sx));
            [
                [f(cy, cz) + f(a, sz), f(a, cz) - f(cy, sz), f(sy, cx)],
                [f(sz, cx), f(cz, cx), -sx],
                [f(b, sz) - f(sy, cz), f(sy, sz) + f(b, cz), f(cy, cx)],
            ]
        }
        3 => {
            // RotMatrixYZX = Ry·(Rz·Rx).
            let (a, b) = (f(sz, sx), f(sz, cx));
            [
                [f(cz, cy), f(sx, sy) - f(b, cy), f(a, cy) + f(sy, cx)],
                [sz, f(cx, cz), n(sx, cz)],
                [n(cz, sy), f(b, sy) + f(cy, sx), f(cx, cy) - f(a, sy)],
            ]
        }
        4 => {
            // RotMatrixZXY = Rz·(Rx·Ry).
            let (a, b) = (f(sx, sy), f(sx, cy));
            [
                [f(cz, cy) - f(a, sz), n(sz, cx), f(cz, sy) + f(b, sz)],
                [f(sz, cy) + f(a, cz), f(cz, cx), f(sz, sy) - f(b, cz)],
                [n(cx, sy), sx, f(cx, cy)],
            ]
        }
        5 => {
            // RotMatrixZYX = Rz·(Ry·Rx).
            let (a, b) = (f(sx, sy), f(sy, cx));
            [
                [f(cy, cz), f(a, cz) - f(sz, cx), f(b, cz) + f(sx, sz)],
                [f(sz, cy), f(a, sz) + f(cx, cz), f(b, sz) - f(sx, cz)],
                [-sy, f(sx, cy), f(cx, cy)],
            ]
        }
        _ => return rot_matrix(r, m),
    };
    for (row, orow) in m.m.iter_mut().zip(o) {
        for (e, v) in row.iter_mut().zip(orow) {
            *e = v as i16;
        }
    }
}

/// libgte `ScaleMatrix`: column j times `s[j]`, 4096 = 1.0.
pub fn scale_matrix(m: &mut Mat, s: [i32; 3]) {
    for row in &mut m.m {
        for (e, &k) in row.iter_mut().zip(&s) {
            *e = ((*e as i64 * k as i64) >> 12) as i16;
        }
    }
}

/// `a ∘ b`: the world matrix of a child with local matrix `b` under a parent with world matrix
/// `a` (`CompMatrix`, one level of `GsGetLw`); `b.t` is cut to int16 as the console does.
pub fn compose(a: &Mat, b: &Mat) -> Mat {
    let mut out = Mat::IDENTITY;
    for i in 0..3 {
        for j in 0..3 {
            let s: i64 = (0..3).map(|k| a.m[i][k] as i64 * b.m[k][j] as i64).sum();
            out.m[i][j] = (s >> 12).clamp(-0x8000, 0x7FFF) as i16;
        }
        let s: i64 = (0..3)
            .map(|k| a.m[i][k] as i64 * b.t[k] as i16 as i64)
            .sum();
        out.t[i] = a.t[i].wrapping_add((s >> 12) as i32);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_matches_published_entries() {
        // First entries of the console's rsin table as published in decompilations.
        let first = [0, 6, 13, 19, 25, 31, 38, 44, 50, 57, 63, 69, 75, 82, 88, 94];
        for (i, &v) in first.iter().enumerate() {
            assert_eq!(sin_cos(i as i16).0, v, "index {i}");
        }
        let row928 = [
            4052, 4053, 4053, 4054, 4055, 4056, 4057, 4058, 4059, 4060, 4060, 4061,
        ];
        for (i, &v) in row928.iter().enumerate() {
            assert_eq!(sin_cos(928 + i as i16).0, v, "index {}", 928 + i);
        }
        assert_eq!(sin_cos(1014).0, 4096);
        assert_eq!(sin_cos(1013).0, 4095);
        assert_eq!(sin_cos(1024), (4096, 0));
        assert_eq!(sin_cos(-1024), (-4096, 0));
        assert_eq!(sin_cos(2048).1, -4096);
    }

    #[test]
    fn rotations_by_quarter_turns_are_exact() {
        let mut m = Mat::IDENTITY;
        rot_matrix([0, 0, 1024], &mut m);
        // Rz(90°) = [[0,-1,0],[1,0,0],[0,0,1]].
        assert_eq!(m.m, [[0, -4096, 0], [4096, 0, 0], [0, 0, 4096]]);
        rot_matrix([1024, 0, 0], &mut m);
        assert_eq!(m.m, [[4096, 0, 0], [0, 0, -4096], [0, 4096, 0]]);
        rot_matrix([0, 1024, 0], &mut m);
        assert_eq!(m.m, [[0, 0, 4096], [0, 4096, 0], [-4096, 0, 0]]);
    }

    /// The check values of console_semantics.md §3, computed with libgte's own code.
    #[test]
    fn every_rotation_order_matches_libgte_check_values() {
        type Rows = [[i16; 3]; 3];
        let cases: [(u8, [i16; 3], Rows); 12] = [
            (
                0,
                [365, -3, -5],
                [[4096, 31, -19], [-37, 3470, -2175], [-1, 2176, 3471]],
            ),
            (
                0,
                [1000, -2000, 3000],
                [[449, -4061, -301], [-117, -317, 4082], [-4071, -439, -151]],
            ),
            (
                2,
                [365, -3, -5],
                [[4096, 20, -17], [-27, 3471, -2175], [2, 2175, 3471]],
            ),
            (
                2,
                [1000, -2000, 3000],
                [[748, -4027, -12], [-151, -17, -4093], [4025, 748, -151]],
            ),
            (
                5,
                [365, -3, -5],
                [[4096, 16, -34], [-31, 3471, -2175], [19, 2175, 3471]],
            ),
            (
                5,
                [1000, -2000, 3000],
                [[449, 184, -4068], [4060, 282, 462], [301, -4083, -151]],
            ),
            (
                4,
                [365, -3, -5],
                [[4096, 26, -36], [-42, 3471, -2175], [16, 2175, 3471]],
            ),
            (
                4,
                [1000, -2000, 3000],
                [[150, 150, 4091], [4093, -17, -150], [11, 4093, -151]],
            ),
            (
                1,
                [365, -3, -5],
                [[4096, 31, -19], [-38, 3471, -2175], [0, 2175, 3471]],
            ),
            (
                1,
                [1000, -2000, 3000],
                [[449, 4071, 33], [-152, -17, 4094], [4069, -451, 147]],
            ),
            (
                3,
                [365, -3, -5],
                [[4096, 16, -34], [-31, 3471, -2175], [19, 2175, 3471]],
            ),
            (
                3,
                [1000, -2000, 3000],
                [[449, -451, 4046], [-4071, -17, 450], [-34, -4072, -450]],
            ),
        ];
        for (order, r, want) in cases {
            let mut m = Mat::IDENTITY;
            m.t = [7, 8, 9];
            rot_matrix_order(order, r, &mut m);
            assert_eq!(m.m, want, "order {order} angles {r:?}");
            assert_eq!(m.t, [7, 8, 9], "the translation is left alone");
        }
    }

    /// Every order is a rotation: single-axis angles give the axis matrix whatever the order,
    /// and large mixed angles stay orthonormal within the fixed-point error.
    #[test]
    fn rotation_orders_agree_on_single_axes() {
        for order in 0..6 {
            for axis in 0..3 {
                for angle in [1024i16, -700, 333] {
                    let mut r = [0i16; 3];
                    r[axis] = angle;
                    let mut a = Mat::IDENTITY;
                    let mut b = Mat::IDENTITY;
                    rot_matrix(r, &mut a);
                    rot_matrix_order(order, r, &mut b);
                    assert_eq!(a.m, b.m, "order {order} axis {axis} angle {angle}");
                }
            }
        }
    }

    #[test]
    fn compose_cuts_the_child_translation_to_16_bits() {
        let parent = Mat {
            t: [1, 2, 3],
            ..Mat::IDENTITY
        };
        let child = Mat {
            t: [0x1_0005, -0x8001, 40000],
            ..Mat::IDENTITY
        };
        let w = compose(&parent, &child);
        // int16(0x10005) = 5, int16(-32769) = 32767, int16(40000) = -25536.
        assert_eq!(w.t, [6, 32769, 3 - 25536]);
    }

    #[test]
    fn compose_applies_parent_rotation_to_child_translation() {
        let mut parent = Mat::IDENTITY;
        rot_matrix([0, 0, 1024], &mut parent);
        parent.t = [100, 0, 0];
        let child = Mat {
            t: [10, 0, 0],
            ..Mat::IDENTITY
        };
        let w = compose(&parent, &child);
        assert_eq!(w.t, [100, 10, 0]);
        assert_eq!(w.m, parent.m);
    }
}
