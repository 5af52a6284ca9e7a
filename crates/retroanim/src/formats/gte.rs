//! The PlayStation's fixed-point matrix arithmetic (libgte / GTE), as the console computes it:
//! 4096 = 1.0, angles in 4096ths of a full turn, 16-bit matrix elements, 32-bit translations.
//!
//! - [`rot_matrix`] follows libgte `RotMatrix` (M = Rx·Ry·Rz) step by step: the same products,
//!   the same arithmetic right shifts by 12 in the same places, the same truncation to 16 bits.
//!   Its sine/cosine table (`rcossin_tbl`, 4096 entries) is rebuilt as
//!   `round(4096 · sin(2πi/4096))` (cosine likewise); the 112 entries we compared with a
//!   published copy of the console's quarter-wave table (rows at 0, 336, 512, 720, 928, 992,
//!   1008) agree, but the whole table was not checked: this is the one approximation.
//! - [`scale_matrix`] scales column j by `s[j]` (libgte `ScaleMatrix`), `(m · s) >> 12`.
//! - [`compose`] is the GTE product used by `GsGetLw` / `CompMatrix`: each matrix element is the
//!   sum of three 16×16 products shifted right by 12 and saturated to 16 bits (MVMVA, sf = 1,
//!   lm = 0); the translation is `a.t + (a.m · b.t) >> 12`. libgte splits 32-bit vectors into
//!   halves for the GTE (`ApplyMatrixLV`); we use the exact 64-bit product, which can differ from
//!   the console by 1 in the last place for translations beyond ±32767.

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

/// libgte `ScaleMatrix`: column j times `s[j]`, 4096 = 1.0.
pub fn scale_matrix(m: &mut Mat, s: [i32; 3]) {
    for row in &mut m.m {
        for (e, &k) in row.iter_mut().zip(&s) {
            *e = ((*e as i64 * k as i64) >> 12) as i16;
        }
    }
}

/// `a ∘ b`: the world matrix of a child with local matrix `b` under a parent with world matrix
/// `a` (GsGetLw, one level).
pub fn compose(a: &Mat, b: &Mat) -> Mat {
    let mut out = Mat::IDENTITY;
    for i in 0..3 {
        for j in 0..3 {
            let s: i64 = (0..3).map(|k| a.m[i][k] as i64 * b.m[k][j] as i64).sum();
            out.m[i][j] = (s >> 12).clamp(-0x8000, 0x7FFF) as i16;
        }
        let s: i64 = (0..3).map(|k| a.m[i][k] as i64 * b.t[k] as i64).sum();
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
