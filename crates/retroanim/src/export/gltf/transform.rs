//! Node transforms as glTF TRS, and rotation keys as unit quaternions.

use crate::scene::{Interpolation, Transform};

/// Translation, rotation (unit quaternion) and scale of a transform. A matrix is decomposed:
/// translation from the last column, scale from the basis vectors' lengths (negative x scale
/// when the basis is left-handed), rotation from the Gram–Schmidt orthonormalised basis (so a
/// shear is dropped).
pub fn trs(t: &Transform) -> ([f32; 3], [f32; 4], [f32; 3]) {
    match *t {
        Transform::Trs {
            translation,
            rotation,
            scale,
        } => (translation, unit_quat(rotation), scale),
        Transform::Matrix(m) => decompose(&m),
    }
}

fn decompose(m: &[f32; 16]) -> ([f32; 3], [f32; 4], [f32; 3]) {
    let col = |c: usize| [m[c * 4] as f64, m[c * 4 + 1] as f64, m[c * 4 + 2] as f64];
    let dot = |a: [f64; 3], b: [f64; 3]| a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    let len = |a: [f64; 3]| dot(a, a).sqrt();
    let cross = |a: [f64; 3], b: [f64; 3]| {
        [
            a[1] * b[2] - a[2] * b[1],
            a[2] * b[0] - a[0] * b[2],
            a[0] * b[1] - a[1] * b[0],
        ]
    };
    let (x, y, z) = (col(0), col(1), col(2));
    let t = [m[12], m[13], m[14]];
    let mut s = [len(x), len(y), len(z)];
    if s.iter().any(|v| !(v.is_finite() && *v > 1e-12)) {
        // A degenerate basis has no rotation to speak of: keep the scale, no rotation.
        return (
            t,
            [0.0, 0.0, 0.0, 1.0],
            s.map(|v| if v.is_finite() { v as f32 } else { 0.0 }),
        );
    }
    if dot(cross(x, y), z) < 0.0 {
        s[0] = -s[0];
    }
    let norm = |a: [f64; 3]| {
        let l = len(a);
        if l > 1e-12 {
            a.map(|c| c / l)
        } else {
            a
        }
    };
    let sub =
        |a: [f64; 3], b: [f64; 3], k: f64| [a[0] - b[0] * k, a[1] - b[1] * k, a[2] - b[2] * k];
    let r0 = norm(x.map(|c| c / s[0].signum()));
    let r1 = norm(sub(y, r0, dot(y, r0)));
    let r2 = cross(r0, r1);
    (t, quat_from_basis(r0, r1, r2), s.map(|v| v as f32))
}

/// Quaternion `[x, y, z, w]` of the rotation whose matrix has columns `c0, c1, c2`.
fn quat_from_basis(c0: [f64; 3], c1: [f64; 3], c2: [f64; 3]) -> [f32; 4] {
    let (m00, m10, m20) = (c0[0], c0[1], c0[2]);
    let (m01, m11, m21) = (c1[0], c1[1], c1[2]);
    let (m02, m12, m22) = (c2[0], c2[1], c2[2]);
    let tr = m00 + m11 + m22;
    let q = if tr > 0.0 {
        let s = (tr + 1.0).sqrt() * 2.0;
        [(m21 - m12) / s, (m02 - m20) / s, (m10 - m01) / s, 0.25 * s]
    } else if m00 > m11 && m00 > m22 {
        let s = (1.0 + m00 - m11 - m22).sqrt() * 2.0;
        [0.25 * s, (m01 + m10) / s, (m02 + m20) / s, (m21 - m12) / s]
    } else if m11 > m22 {
        let s = (1.0 + m11 - m00 - m22).sqrt() * 2.0;
        [(m01 + m10) / s, 0.25 * s, (m12 + m21) / s, (m02 - m20) / s]
    } else {
        let s = (1.0 + m22 - m00 - m11).sqrt() * 2.0;
        [(m02 + m20) / s, (m12 + m21) / s, 0.25 * s, (m10 - m01) / s]
    };
    unit_quat(q.map(|c| c as f32))
}

/// The quaternion scaled to unit length (identity for a zero or non-finite one).
pub fn unit_quat(q: [f32; 4]) -> [f32; 4] {
    let l = q
        .iter()
        .map(|c| (*c as f64) * (*c as f64))
        .sum::<f64>()
        .sqrt();
    if !(l.is_finite() && l > 1e-12) {
        return [0.0, 0.0, 0.0, 1.0];
    }
    q.map(|c| (c as f64 / l) as f32)
}

/// Rotation keys with every value (not the cubic-spline tangents) made unit length.
pub fn normalized_rotations(v: &[[f32; 4]], interpolation: Interpolation) -> Vec<[f32; 4]> {
    v.iter()
        .enumerate()
        .map(|(i, q)| match interpolation {
            Interpolation::Cubicspline if i % 3 != 1 => *q,
            _ => unit_quat(*q),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matrix_decomposes_to_trs() {
        // 90° about Y, scale (2, 3, 4), translation (1, 2, 3); column-major.
        let m = [
            0.0, 0.0, -2.0, 0.0, //
            0.0, 3.0, 0.0, 0.0, //
            4.0, 0.0, 0.0, 0.0, //
            1.0, 2.0, 3.0, 1.0,
        ];
        let (t, r, s) = trs(&Transform::Matrix(m));
        assert_eq!(t, [1.0, 2.0, 3.0]);
        assert_eq!(s, [2.0, 3.0, 4.0]);
        let h = std::f32::consts::FRAC_1_SQRT_2;
        for (a, b) in r.iter().zip([0.0, h, 0.0, h]) {
            assert!((a - b).abs() < 1e-6, "{r:?}");
        }
        // A mirror becomes a negative x scale.
        let mut mirror = [0.0; 16];
        (mirror[0], mirror[5], mirror[10], mirror[15]) = (-1.0, 1.0, 1.0, 1.0);
        let (_, r, s) = trs(&Transform::Matrix(mirror));
        assert_eq!(s, [-1.0, 1.0, 1.0]);
        assert_eq!(r, [0.0, 0.0, 0.0, 1.0]);
    }
}
