//! 3×3 arithmetic the player and the glTF bridge share: the polar decomposition `M = R·P`
//! (rotation times symmetric stretch) and the stretch's eigenvectors, so a matrix with a
//! little shear (the corpus's exporters leave up to 1 % of it) is carried exactly as
//! `(R·V) · Λ · Vᵀ`: two glTF nodes of rotation and scale.

/// A 3×3 matrix, rows.
pub(crate) type M3 = [[f64; 3]; 3];

pub(crate) fn mul(a: &M3, b: &M3) -> M3 {
    let mut o = [[0.0; 3]; 3];
    for (i, row) in o.iter_mut().enumerate() {
        for (j, e) in row.iter_mut().enumerate() {
            *e = (0..3).map(|k| a[i][k] * b[k][j]).sum();
        }
    }
    o
}

pub(crate) fn transpose(a: &M3) -> M3 {
    let mut o = [[0.0; 3]; 3];
    for (i, row) in o.iter_mut().enumerate() {
        for (j, e) in row.iter_mut().enumerate() {
            *e = a[j][i];
        }
    }
    o
}

pub(crate) fn det(a: &M3) -> f64 {
    a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1])
        - a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0])
        + a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0])
}

fn inverse_transpose(a: &M3) -> Option<M3> {
    let d = det(a);
    if d.abs() < 1e-12 {
        return None;
    }
    let mut o = [[0.0; 3]; 3];
    for (i, row) in o.iter_mut().enumerate() {
        for (j, e) in row.iter_mut().enumerate() {
            let (i1, i2) = ((i + 1) % 3, (i + 2) % 3);
            let (j1, j2) = ((j + 1) % 3, (j + 2) % 3);
            *e = (a[i1][j1] * a[i2][j2] - a[i1][j2] * a[i2][j1]) / d;
        }
    }
    Some(o)
}

/// `M = R·P` with `R` a rotation and `P` symmetric, for `det M > 0` (Higham's iteration
/// `R ← (R + R⁻ᵀ)/2`, at most 50 steps); `None` for a singular or mirroring matrix.
pub(crate) fn polar(m: &M3) -> Option<(M3, M3)> {
    if det(m) <= 1e-12 {
        return None;
    }
    let mut r = *m;
    for _ in 0..50 {
        let it = inverse_transpose(&r)?;
        let mut next = r;
        let mut change: f64 = 0.0;
        for i in 0..3 {
            for j in 0..3 {
                next[i][j] = 0.5 * (r[i][j] + it[i][j]);
                change = change.max((next[i][j] - r[i][j]).abs());
            }
        }
        r = next;
        if change < 1e-15 {
            break;
        }
    }
    let mut p = mul(&transpose(&r), m);
    // Symmetric by construction up to rounding: make it exactly so.
    for (i, j) in [(0, 1), (0, 2), (1, 2)] {
        let v = 0.5 * (p[i][j] + p[j][i]);
        p[i][j] = v;
        p[j][i] = v;
    }
    Some((r, p))
}

/// Eigenvectors (columns of a rotation `V`) and eigenvalues of a symmetric matrix, by cyclic
/// Jacobi rotations: `S = V·diag(λ)·Vᵀ`.
pub(crate) fn symmetric_eigen(s: &M3) -> (M3, [f64; 3]) {
    let mut a = *s;
    let mut v = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
    // Converged when what is left off the diagonal is below f64's resolution of the matrix
    // (quadratic convergence: a few sweeps; 32 bounds a matrix of NaNs).
    let size = (0..3)
        .flat_map(|i| (0..3).map(move |j| (i, j)))
        .map(|(i, j)| s[i][j].abs())
        .fold(0.0, f64::max);
    let tiny = (size * 1e-17).max(1e-300);
    for _ in 0..32 {
        let off = a[0][1].abs() + a[0][2].abs() + a[1][2].abs();
        if off.is_nan() || off < tiny {
            break;
        }
        for (p, q) in [(0, 1), (0, 2), (1, 2)] {
            if a[p][q].abs() < tiny {
                continue;
            }
            let theta = (a[q][q] - a[p][p]) / (2.0 * a[p][q]);
            let t = theta.signum() / (theta.abs() + (theta * theta + 1.0).sqrt());
            let t = if theta == 0.0 { 1.0 } else { t };
            let c = 1.0 / (t * t + 1.0).sqrt();
            let sn = t * c;
            let mut j = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
            j[p][p] = c;
            j[q][q] = c;
            j[p][q] = sn;
            j[q][p] = -sn;
            a = mul(&transpose(&j), &mul(&a, &j));
            v = mul(&v, &j);
        }
    }
    if det(&v) < 0.0 {
        for row in &mut v {
            row[2] = -row[2];
        }
    }
    (v, [a[0][0], a[1][1], a[2][2]])
}

/// The largest deviation of a matrix's columns from orthogonality, relative to their lengths.
pub(crate) fn shear(m: &M3) -> f64 {
    let col = |j: usize| [m[0][j], m[1][j], m[2][j]];
    let dot = |a: [f64; 3], b: [f64; 3]| a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    let mut e: f64 = 0.0;
    for (i, j) in [(0, 1), (0, 2), (1, 2)] {
        let (a, b) = (col(i), col(j));
        let n = (dot(a, a) * dot(b, b)).sqrt();
        if n > 0.0 {
            e = e.max(dot(a, b).abs() / n);
        }
    }
    e
}

/// `V` and `λ` of [`symmetric_eigen`] with the columns permuted and their signs flipped (keeping
/// `det V = 1`) to lie nearest `previous`, so the eigenvectors of a stretch that changes little
/// from frame to frame change little too.
pub(crate) fn aligned_eigen(s: &M3, previous: Option<&M3>) -> (M3, [f64; 3]) {
    let (v, l) = symmetric_eigen(s);
    let want = previous
        .copied()
        .unwrap_or([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]);
    let perms = [
        [0, 1, 2],
        [0, 2, 1],
        [1, 0, 2],
        [1, 2, 0],
        [2, 0, 1],
        [2, 1, 0],
    ];
    let mut best = (f64::MIN, v, l);
    for p in perms {
        for signs in 0..8u8 {
            let sg = [0, 1, 2].map(|k| if signs >> k & 1 == 1 { -1.0 } else { 1.0 });
            let mut c = [[0.0; 3]; 3];
            for (i, row) in c.iter_mut().enumerate() {
                for (k, e) in row.iter_mut().enumerate() {
                    *e = v[i][p[k]] * sg[k];
                }
            }
            if det(&c) < 0.0 {
                continue;
            }
            let score: f64 = (0..3)
                .flat_map(|i| (0..3).map(move |k| (i, k)))
                .map(|(i, k)| c[i][k] * want[i][k])
                .sum();
            if score > best.0 {
                best = (score, c, p.map(|k| l[k]));
            }
        }
    }
    (best.1, best.2)
}
