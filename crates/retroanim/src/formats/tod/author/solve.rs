//! The fixed-point solver: the RST or matrix coordinate that makes the TOD player's world
//! matrix closest to the scene's (see the module docs of [`super`], "Precision").

use super::*;

/// The 3×3 part of a scene matrix in the console's axes, row-major.
pub(super) fn console_matrix(m: &Mat4, signs: [f64; 3]) -> [[f64; 3]; 3] {
    [0, 1, 2].map(|i| [0, 1, 2].map(|j| m[4 * j + i] * signs[i] * signs[j]))
}

/// The matrix in fixed point (4096 = 1.0), and whether an element had to be clamped to int16.
pub(super) fn fixed(a: &[[f64; 3]; 3]) -> ([[i16; 3]; 3], bool) {
    let mut clamped = false;
    let m = a.map(|r| {
        r.map(|v| {
            let x = (v * 4096.0).round();
            if !(-32768.0..=32767.0).contains(&x) {
                clamped = true;
            }
            x.clamp(-32768.0, 32767.0) as i16
        })
    });
    (m, clamped)
}

/// A coordinate found for one object at one frame.
pub(super) struct Solved {
    /// What to write.
    pub(super) written: Written,
    /// The matrix the player makes of it.
    pub(super) coord: Mat,
    /// An element had to be clamped to int16.
    pub(super) clamped: bool,
}

/// The coordinate that makes the player's world matrix (`parent` ∘ coordinate, with the
/// console's rounding) closest to the target world `wm`, `wt` (console axes and units; `wm`
/// with 1.0 = 1). Angles and translation are searched one step either way of the exact
/// solution; RST when the rotation comes within [`RST_TOLERANCE`] in every element, else a matrix.
/// `fallback` (the node's own local transform) is used when the parent's matrix is singular.
pub(super) fn solve(
    wm: &[[f64; 3]; 3],
    wt: [f64; 3],
    parent: Option<&Mat>,
    fallback: ([[f64; 3]; 3], [f64; 3]),
    client: &Client,
) -> Solved {
    let (_, clamped) = fixed(wm);
    let inverse = parent.map(|p| inverse3(&p.m.map(|r| r.map(|v| v as f64 / 4096.0))));
    let (lm, lt) = match (parent, inverse) {
        (None, _) => (*wm, wt),
        (Some(p), Some(Some(inv))) => {
            let d = [0, 1, 2].map(|i| wt[i] - p.t[i] as f64);
            (
                [0, 1, 2].map(|i| [0, 1, 2].map(|j| (0..3).map(|k| inv[i][k] * wm[k][j]).sum())),
                [0, 1, 2].map(|i| (0..3).map(|k| inv[i][k] * d[k]).sum()),
            )
        }
        (Some(_), _) => fallback,
    };
    let place = |c: &Mat| match parent {
        Some(p) => gte::compose(p, c),
        None => *c,
    };
    let rot_err = |m: &[[i16; 3]; 3]| -> (f64, f64) {
        let w = place(&Mat { m: *m, t: [0; 3] });
        client.error(&w)
    };
    // Translation: the rounded solution, or a neighbour the console's rounding prefers: the
    // one whose world translation lies nearest the exact target (largest axis), so the world
    // stays within a unit of it, not of its rounding.
    let base_t = lt.map(|v| v.round().clamp(i32::MIN as f64, i32::MAX as f64) as i32);
    let (lm_fixed, more_clamped) = fixed(&lm);
    let mut t = base_t;
    if parent.is_some() {
        let t_err = |t: [i32; 3]| -> f64 {
            let w = place(&Mat { m: lm_fixed, t });
            (0..3)
                .map(|i| (w.t[i] as f64 - wt[i]).abs())
                .fold(0.0, f64::max)
        };
        let mut best = (t_err(base_t), base_t);
        for d in 0..27 {
            let step = [d % 3, d / 3 % 3, d / 9].map(|v: i32| v - 1);
            let c = [0, 1, 2].map(|i| base_t[i].saturating_add(step[i]));
            let e = t_err(c);
            if e < best.0 {
                best = (e, c);
            }
        }
        t = best.1;
    }
    if let Some((r, s, m)) = rst(&lm, &rot_err) {
        return Solved {
            written: Written::Rst { r, s, t },
            coord: Mat { m, t },
            clamped,
        };
    }
    let coord = Mat { m: lm_fixed, t };
    Solved {
        written: Written::Matrix(coord),
        coord,
        clamped: clamped || more_clamped,
    }
}

/// The inverse of a 3×3 matrix, if it has one.
pub(super) fn inverse3(a: &[[f64; 3]; 3]) -> Option<[[f64; 3]; 3]> {
    let det = a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1])
        - a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0])
        + a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]);
    if det.is_nan() || det.abs() <= 1e-12 {
        return None;
    }
    let c =
        |r0: usize, r1: usize, c0: usize, c1: usize| a[r0][c0] * a[r1][c1] - a[r0][c1] * a[r1][c0];
    // The adjugate (transposed cofactors) over the determinant.
    Some(
        [
            [c(1, 2, 1, 2), -c(0, 2, 1, 2), c(0, 1, 1, 2)],
            [-c(1, 2, 0, 2), c(0, 2, 0, 2), -c(0, 1, 0, 2)],
            [c(1, 2, 0, 1), -c(0, 2, 0, 1), c(0, 1, 0, 1)],
        ]
        .map(|r| r.map(|v| v / det)),
    )
}

/// A 3×3 fixed-point matrix, row-major.
pub(super) type Rows = [[i16; 3]; 3];

/// Angles, scale and the matrix they make.
pub(super) type RstFound = ([i16; 3], [i16; 3], Rows);

/// Angles (1/4096 turn) and scale (4096 = 1.0) for the rotation and scale `a`, with the matrix
/// `RotMatrix` · `ScaleMatrix` make of them: the exact solution's angles or a neighbour's, and
/// its scale or 1.0 where it is within 0.3 % of it (a console rotation's rows are not exactly
/// unit length, so a scale read back from one is a little off), whichever `err` (the world
/// error they cause: largest element and sum of squares) likes best, if the largest is at most
/// [`RST_TOLERANCE`]. Near gimbal lock the whole line of x/z splits is tried, and from the best
/// the scale is moved by descent with the angles searched again (comments below).
pub(super) fn rst(a: &[[f64; 3]; 3], err: &dyn Fn(&Rows) -> (f64, f64)) -> Option<RstFound> {
    let (r, s) = crate::formats::tmd::scene::decompose(*a);
    let mut scales: Vec<[i16; 3]> = Vec::new();
    let per_axis: Vec<Vec<i16>> = s
        .iter()
        .map(|&v| {
            let mut c = Vec::new();
            for unit in [4096.0, -4096.0] {
                if (v * 4096.0 - unit).abs() < 0.003 * 4096.0 {
                    c.push(unit as i16);
                }
            }
            let x = (v * 4096.0).round();
            if (-32768.0..=32767.0).contains(&x) && x != 0.0 && !c.contains(&(x as i16)) {
                c.push(x as i16);
            }
            c
        })
        .collect();
    for &x in &per_axis[0] {
        for &y in &per_axis[1] {
            for &z in &per_axis[2] {
                scales.push([x, y, z]);
            }
        }
    }
    // RotMatrix is Rx·Ry·Rz: m02 = sin y, m12 = −cos y sin x, m22 = cos y cos x,
    // m01 = −cos y sin z, m00 = cos y cos z.
    let y = r[0][2].clamp(-1.0, 1.0).asin();
    let (x, z) = if y.cos() > 1e-6 {
        ((-r[1][2]).atan2(r[2][2]), (-r[0][1]).atan2(r[0][0]))
    } else {
        (r[2][1].atan2(r[1][1]), 0.0)
    };
    let unit = |v: f64| -> i16 {
        let a = (v * 4096.0 / std::f64::consts::TAU).round() as i64;
        (a.rem_euclid(4096) as i16 + 2048) % 4096 - 2048
    };
    // Both angle triples that make the rotation: (x, y, z) and (x + π, π − y, z + π); the
    // console's rounding tells them apart, and a TOD may hold either.
    let pi = std::f64::consts::PI;
    // Near y = ±90° the x and z read from the float matrix move by about 1/cos y steps for
    // one step of error: search as far.
    let reach = (1.5 / y.cos().abs().max(0.05)).ceil().clamp(1.0, 16.0) as usize;
    let side = 2 * reach + 1;
    let bases = [
        [unit(x), unit(y), unit(z)],
        [unit(x + pi), unit(pi - y), unit(z + pi)],
    ];
    let matrix = |ang: [i16; 3], s16: [i16; 3]| {
        let mut m = Mat::IDENTITY;
        gte::rot_matrix(ang, &mut m);
        gte::scale_matrix(&mut m, s16.map(i32::from));
        m.m
    };
    let mut best: Option<((f64, f64), RstFound)> = None;
    for (&s16, base) in scales
        .iter()
        .flat_map(|s| bases.iter().map(move |b| (s, *b)))
    {
        for d in 0..3 * side * side {
            // Zero steps first, then ±1, ±2, … (x and z), ±1 (y).
            let step = [d % side, d / side % side, d / (side * side)].map(|v| {
                let v = v as i16;
                if v % 2 == 1 {
                    (v + 1) / 2
                } else {
                    -v / 2
                }
            });
            let step = [step[0], step[2].clamp(-1, 1), step[1]];
            let ang = [0, 1, 2].map(|i| base[i].wrapping_add(step[i]));
            let m = matrix(ang, s16);
            let (max, sq) = err(&m);
            if best.as_ref().map_or(true, |b| (sq, max) < b.0) {
                best = Some(((sq, max), (ang, s16, m)));
            }
            if max < 1e-3 {
                break;
            }
        }
    }
    // At gimbal lock (y within a unit of a quarter turn: the console's cos y is 0 or 6/4096)
    // barely more than x ± z shows in the float matrix, but the console's integer products
    // differ with the split (LSD holds y = −1023 with z = −614, x = 0, which the float matrix
    // reads as x = 614, z = 0): every split along the line is tried, those whose matrix is not
    // within 3/4096 of the float one skipped before judging.
    let want = a.map(|row| row.map(|v| v * 4096.0));
    // With sin y = ±1, m10 and m11 are the sine and cosine of z ∓ x.
    let phi = unit(r[1][0].atan2(r[1][1]));
    // Only a split that gives the file back (within half a unit, as a console file's own
    // integers do) replaces what the search above found: for a float scene the line offers
    // splits that differ from frame to frame for a sliver of error (and break up the steps
    // differential packets are made of).
    let near_lock = bases.iter().any(|b| (b[1].abs() - 1024).abs() <= 1)
        && best.as_ref().is_some_and(|b| b.0 .1 >= 0.5);
    let mut line: Option<((f64, f64), RstFound)> = None;
    for &s16 in scales.iter().filter(|_| near_lock) {
        for dy in -1..=1i16 {
            let yy = bases[0][1].wrapping_add(dy);
            // z − x = φ at y = −1024, z + x = φ at y = +1024.
            let sign: i16 = if bases[0][1] < 0 { 1 } else { -1 };
            for xx in -2048..2048i16 {
                let z0 = phi.wrapping_add(sign.wrapping_mul(xx));
                for dz in -2..=2i16 {
                    let ang = [xx, yy, z0.wrapping_add(dz)];
                    let m = matrix(ang, s16);
                    let near =
                        (0..3).all(|i| (0..3).all(|j| (m[i][j] as f64 - want[i][j]).abs() <= 3.0));
                    if !near {
                        continue;
                    }
                    let (max, sq) = err(&m);
                    if max < 0.5 && line.as_ref().map_or(true, |b| (sq, max) < b.0) {
                        line = Some(((sq, max), (ang, s16, m)));
                    }
                }
            }
        }
    }
    if let Some(l) = line.filter(|l| best.as_ref().map_or(true, |b| l.0 < b.0)) {
        best = Some(l);
    }
    // The scale read back from the glTF lies along the polar rotation's axes, a unit or two
    // from the packet's: from the best found, the scale by descent (a unit per axis at a
    // time) with the angles searched again (±1) at it, while that helps.
    // Only where the best misses by half a unit or more, and kept only where it gives the
    // file back (within half a unit, as a console file's own integers do): a float scene
    // keeps its scales rather than trade them for rotation rounding (and its steps stay the
    // exact ratios differential packets are made of).
    let found = best?;
    let mut best = found;
    for _ in 0..4 {
        if best.0 .1 < 0.5 {
            break;
        }
        let start = best.0;
        for _ in 0..16 {
            let mut moved = false;
            for j in 0..3 {
                for step in [-1i16, 1] {
                    let (ang, s16, _) = best.1;
                    let mut c = s16;
                    c[j] = c[j].saturating_add(step);
                    if c[j] == 0 {
                        continue;
                    }
                    let m = matrix(ang, c);
                    let (max, sq) = err(&m);
                    if (sq, max) < best.0 {
                        best = ((sq, max), (ang, c, m));
                        moved = true;
                    }
                }
            }
            if !moved {
                break;
            }
        }
        let (base, s16, _) = best.1;
        for d in 0..27 {
            let step = [d % 3, d / 3 % 3, d / 9].map(|v: i16| v - 1);
            let ang = [0, 1, 2].map(|i| base[i].wrapping_add(step[i]));
            let m = matrix(ang, s16);
            let (max, sq) = err(&m);
            if (sq, max) < best.0 {
                best = ((sq, max), (ang, s16, m));
            }
        }
        if best.0 >= start {
            break;
        }
    }
    let keep = best.0 .1 < 0.5;
    let ((_, max), found) = if keep { best } else { found };
    (max <= RST_TOLERANCE).then_some(found)
}

/// The largest world-matrix element error (4096 = 1.0) an RST packet may leave before a matrix
/// packet is written instead: a glTF rotation read back from a console one is off by up to
/// about 3 (its quaternion is orthonormal, the console's fixed-point matrix is not quite).
pub(super) const RST_TOLERANCE: f64 = 4.0;

/// How a glTF client sees a console world matrix: the inverse of the scene's parent world
/// (`None` for a root, or a singular parent) and the node's local matrix as the file holds
/// them, in the scene's axes.
pub(super) struct Client {
    pub(super) parent_inverse: Option<Affine>,
    pub(super) local: Mat4,
    pub(super) signs: [f64; 3],
}

impl Client {
    /// How far (largest element, sum of squares; 4096 = 1.0) the local transform the glTF
    /// bridge would write for the console world matrix `w` lies from the one the file holds.
    /// The bridge turns `parent⁻¹ · w` into TRS (`world_exact`), which is not exact for a
    /// console matrix; repeating that step lets the console matrix the file came from match
    /// to the last bit of the file's floats, where a plain distance to the file's rotation
    /// would be off by up to 3/4096 and could prefer a neighbouring angle.
    pub(super) fn error(&self, w: &Mat) -> (f64, f64) {
        let c = self.signs;
        let world = Affine {
            m: [0, 1, 2].map(|i| [0, 1, 2].map(|j| w.m[i][j] as f64 / 4096.0 * c[i] * c[j])),
            t: [0.0; 3],
        };
        let local = match &self.parent_inverse {
            Some(inv) => inv.mul(&world),
            None => world,
        };
        let back = Affine::from_trs(&local.to_trs());
        let want = affine(&self.local);
        let (mut max, mut sq) = (0.0f64, 0.0);
        for i in 0..3 {
            for j in 0..3 {
                let d = (back.m[i][j] - want.m[i][j]) * 4096.0;
                max = max.max(d.abs());
                sq += d * d;
            }
        }
        (max, sq)
    }
}

/// A column-major matrix as an [`Affine`] (rotation part and translation).
pub(super) fn affine(m: &Mat4) -> Affine {
    Affine {
        m: [0, 1, 2].map(|i| [0, 1, 2].map(|j| m[4 * j + i])),
        t: [m[12], m[13], m[14]],
    }
}
