//! The console's axes and units into the scene's: the axis flip, the scale, and a console
//! matrix as translation, rotation and scale. Shared by every PlayStation bridge (TMD, TOD,
//! HMD) and by the scene's own exact-world and sampling code, so it lives below them all.

/// Which axes the scene uses.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Axes {
    /// glTF's: +Y up, +Z towards the viewer (the console's axes turned 180° about X).
    #[default]
    YUp,
    /// The console's: +Y down, +Z into the screen.
    Raw,
}

/// Converts console coordinates into the scene's (shared by the TOD/TMD and HMD exports).
pub(crate) struct Conv {
    c: [f64; 3],
    k: f64,
}

impl Conv {
    /// A conversion to `axes` at `scale` metres per console unit.
    pub(crate) fn with(axes: Axes, scale: f32) -> Conv {
        Conv {
            c: match axes {
                Axes::YUp => [1.0, -1.0, -1.0],
                Axes::Raw => [1.0, 1.0, 1.0],
            },
            k: scale as f64,
        }
    }

    pub(crate) fn point(&self, p: [f64; 3]) -> [f32; 3] {
        [0, 1, 2].map(|i| (p[i] * self.c[i] * self.k) as f32)
    }

    /// The axis signs (±1 per axis).
    pub(crate) fn axes(&self) -> [f64; 3] {
        self.c
    }

    /// A point in the scene's axes and units, in f64.
    pub(crate) fn point_f64(&self, p: [f64; 3]) -> [f64; 3] {
        [0, 1, 2].map(|i| p[i] * self.c[i] * self.k)
    }

    pub(crate) fn dir(&self, p: [f64; 3]) -> [f64; 3] {
        [0, 1, 2].map(|i| p[i] * self.c[i])
    }

    /// A console matrix (rotation/scale part as floats, translation in units) as TRS.
    pub(crate) fn trs(&self, m: [[f64; 3]; 3], t: [f64; 3]) -> ([f32; 3], [f32; 4], [f32; 3]) {
        let mut a = m;
        for (i, row) in a.iter_mut().enumerate() {
            for (j, e) in row.iter_mut().enumerate() {
                *e *= self.c[i] * self.c[j];
            }
        }
        let (r, s) = decompose(a);
        (self.point(t), quat(r), s.map(|v| v as f32))
    }
}

/// `a = R · diag(s)` (the console scales columns).
pub(crate) fn decompose(a: [[f64; 3]; 3]) -> ([[f64; 3]; 3], [f64; 3]) {
    let col = |j: usize| [a[0][j], a[1][j], a[2][j]];
    let len = |v: [f64; 3]| (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    let mut s = [len(col(0)), len(col(1)), len(col(2))];
    if s.iter().any(|&v| v < 1e-9) {
        return ([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]], s);
    }
    let det = a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1])
        - a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0])
        + a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]);
    if det < 0.0 {
        s[0] = -s[0];
    }
    let mut r = a;
    for row in &mut r {
        for (j, e) in row.iter_mut().enumerate() {
            *e /= s[j];
        }
    }
    (r, s)
}

/// Rotation matrix → unit quaternion `[x, y, z, w]`.
pub(crate) fn quat(r: [[f64; 3]; 3]) -> [f32; 4] {
    let tr = r[0][0] + r[1][1] + r[2][2];
    let q = if tr > 0.0 {
        let s = (tr + 1.0).sqrt() * 2.0;
        [
            (r[2][1] - r[1][2]) / s,
            (r[0][2] - r[2][0]) / s,
            (r[1][0] - r[0][1]) / s,
            0.25 * s,
        ]
    } else if r[0][0] > r[1][1] && r[0][0] > r[2][2] {
        let s = (1.0 + r[0][0] - r[1][1] - r[2][2]).max(1e-12).sqrt() * 2.0;
        [
            0.25 * s,
            (r[0][1] + r[1][0]) / s,
            (r[0][2] + r[2][0]) / s,
            (r[2][1] - r[1][2]) / s,
        ]
    } else if r[1][1] > r[2][2] {
        let s = (1.0 + r[1][1] - r[0][0] - r[2][2]).max(1e-12).sqrt() * 2.0;
        [
            (r[0][1] + r[1][0]) / s,
            0.25 * s,
            (r[1][2] + r[2][1]) / s,
            (r[0][2] - r[2][0]) / s,
        ]
    } else {
        let s = (1.0 + r[2][2] - r[0][0] - r[1][1]).max(1e-12).sqrt() * 2.0;
        [
            (r[0][2] + r[2][0]) / s,
            (r[1][2] + r[2][1]) / s,
            0.25 * s,
            (r[1][0] - r[0][1]) / s,
        ]
    };
    let n = q.iter().map(|v| v * v).sum::<f64>().sqrt().max(1e-12);
    let q = q.map(|v| (v / n) as f32);
    // One sign for equal rotations keeps STEP/LINEAR keys from flipping hemispheres.
    if q[3] < 0.0 {
        q.map(|v| -v)
    } else {
        q
    }
}
