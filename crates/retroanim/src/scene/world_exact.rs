//! World-exact node transforms for the PlayStation exports.
//!
//! The console builds each world matrix from its parent's in 12-bit fixed point (`GsGetLw`,
//! `CompMatrix`), rounding at every level; a glTF client composes the local TRS of the node
//! chain in floating point. Writing the console's local matrices makes the two drift apart
//! down a deep chain (21.6 units at the end of a 25-level SNAKE sample). Instead each node's
//! local transform is computed from the console's world matrix and the parent's world *as the
//! client composes it* from the TRS values actually written (f32):
//! `local = client_parent_world⁻¹ · console_world`, top down. The client's world of every node
//! then equals the console's up to one level's f32 rounding and TRS decomposition (the shear a
//! console matrix's rounding leaves, ~1/4096), which does not accumulate with depth.

use crate::formats::gte::Mat;

use crate::scene::axes::{quat, Conv};

/// A node's local transform as written: translation, unit quaternion `[x, y, z, w]`, scale.
pub(crate) type Trs = ([f32; 3], [f32; 4], [f32; 3]);

/// An affine transform in the scene's axes and units, in f64.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Affine {
    /// Rotation/scale part, row-major.
    pub m: [[f64; 3]; 3],
    /// Translation.
    pub t: [f64; 3],
}

impl Affine {
    pub(crate) const IDENTITY: Affine = Affine {
        m: [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
        t: [0.0; 3],
    };

    /// `self · b`.
    pub(crate) fn mul(&self, b: &Affine) -> Affine {
        let mut out = Affine::IDENTITY;
        for i in 0..3 {
            for j in 0..3 {
                out.m[i][j] = (0..3).map(|k| self.m[i][k] * b.m[k][j]).sum();
            }
            out.t[i] = self.t[i] + (0..3).map(|k| self.m[i][k] * b.t[k]).sum::<f64>();
        }
        out
    }

    /// The inverse; `None` for a singular matrix (a scale of 0).
    pub(crate) fn inverse(&self) -> Option<Affine> {
        let a = &self.m;
        let cof = |r0: usize, r1: usize, c0: usize, c1: usize| {
            a[r0][c0] * a[r1][c1] - a[r0][c1] * a[r1][c0]
        };
        let det = a[0][0] * cof(1, 2, 1, 2) - a[0][1] * cof(1, 2, 0, 2) + a[0][2] * cof(1, 2, 0, 1);
        if det.abs() < 1e-12 {
            return None;
        }
        let inv = [
            [cof(1, 2, 1, 2), -cof(0, 2, 1, 2), cof(0, 1, 1, 2)],
            [-cof(1, 2, 0, 2), cof(0, 2, 0, 2), -cof(0, 1, 0, 2)],
            [cof(1, 2, 0, 1), -cof(0, 2, 0, 1), cof(0, 1, 0, 1)],
        ]
        .map(|r| r.map(|v| v / det));
        let t = [0, 1, 2].map(|i| -(0..3).map(|k| inv[i][k] * self.t[k]).sum::<f64>());
        Some(Affine { m: inv, t })
    }

    /// `T · R · S` as a client builds it from the written f32 values.
    pub(crate) fn from_trs((t, q, s): &Trs) -> Affine {
        let r = super::sample::quat_matrix(q.map(f64::from));
        let s = s.map(f64::from);
        Affine {
            m: r.map(|row| [row[0] * s[0], row[1] * s[1], row[2] * s[2]]),
            t: t.map(f64::from),
        }
    }

    /// As TRS: the nearest rotation (polar decomposition, so the skew a console matrix's
    /// rounding leaves is split evenly between the axes rather than all put on one) and the
    /// scales along it; the remaining shear cannot be written as TRS and is dropped.
    pub(crate) fn to_trs(self) -> Trs {
        let (r0, s0) = crate::scene::axes::decompose(self.m);
        if s0.iter().any(|v| v.abs() < 1e-9) {
            return (self.t.map(|v| v as f32), quat(r0), s0.map(|v| v as f32));
        }
        let r = polar(self.m, s0[0] < 0.0);
        // Scale along the rotation's axes: diag(Rᵀ·M).
        let s = [0, 1, 2].map(|j| (0..3).map(|i| r[i][j] * self.m[i][j]).sum::<f64>());
        (self.t.map(|v| v as f32), quat(r), s.map(|v| v as f32))
    }
}

/// The orthonormal factor of `m` (Newton iteration `R ← (R + R⁻ᵀ)/2`, at most 12 steps, ended
/// once a step moves no element by more than 1e-15: the iteration converges quadratically, so
/// the steps left would move it by less than a rounding of the f32 values written from it);
/// `flip` negates the first column first so the result is a rotation when the determinant is
/// negative (the scale along that axis then comes out negative).
fn polar(m: [[f64; 3]; 3], flip: bool) -> [[f64; 3]; 3] {
    let mut r = m;
    if flip {
        for row in &mut r {
            row[0] = -row[0];
        }
    }
    for _ in 0..12 {
        let Some(inv) = (Affine { m: r, t: [0.0; 3] }).inverse() else {
            break;
        };
        let mut next = r;
        for i in 0..3 {
            for j in 0..3 {
                next[i][j] = 0.5 * (r[i][j] + inv.m[j][i]);
            }
        }
        let moved = (0..9).fold(0.0f64, |d, k| {
            d.max((next[k / 3][k % 3] - r[k / 3][k % 3]).abs())
        });
        r = next;
        if moved <= 1e-15 {
            break;
        }
    }
    r
}

impl Conv {
    /// A console matrix in the scene's axes and units.
    pub(crate) fn affine(&self, m: &Mat) -> Affine {
        let c = self.axes();
        let mut out = Affine::IDENTITY;
        for i in 0..3 {
            for j in 0..3 {
                out.m[i][j] = m.m[i][j] as f64 / 4096.0 * c[i] * c[j];
            }
        }
        out.t = self.point_f64(m.t.map(f64::from));
        out
    }
}

/// The local TRS of every node at every frame such that composing them down the hierarchy
/// gives `worlds[frame][node]`. `parent[node]` names the parent node (same indexing); a chain
/// that loops is cut (the node is treated as a root).
pub(crate) fn exact_locals(parent: &[Option<usize>], worlds: &[Vec<Affine>]) -> Vec<Vec<Trs>> {
    let n = parent.len();
    let order = top_down(parent);
    worlds
        .iter()
        .map(|frame| {
            let mut client: Vec<Option<Affine>> = vec![None; n];
            let mut out: Vec<Trs> = vec![([0.0; 3], [0.0, 0.0, 0.0, 1.0], [1.0; 3]); n];
            for &(i, p) in &order {
                let world = frame.get(i).copied().unwrap_or(Affine::IDENTITY);
                let pw = p.and_then(|p| client[p]).unwrap_or(Affine::IDENTITY);
                let local = match pw.inverse() {
                    Some(inv) => inv.mul(&world),
                    None => world,
                };
                let trs = local.to_trs();
                client[i] = Some(pw.mul(&Affine::from_trs(&trs)));
                out[i] = trs;
            }
            out
        })
        .collect()
}

/// Nodes with their effective parent, every parent before its children.
fn top_down(parent: &[Option<usize>]) -> Vec<(usize, Option<usize>)> {
    let n = parent.len();
    // Effective parent: none when the chain loops or leaves the list.
    let eff: Vec<Option<usize>> = (0..n)
        .map(|i| {
            let mut at = i;
            for _ in 0..=n {
                match parent[at] {
                    None => return parent[i].filter(|&p| p < n),
                    Some(p) if p >= n || p == i => return None,
                    Some(p) => at = p,
                }
            }
            None
        })
        .collect();
    let depth = |i: usize| {
        let (mut d, mut at) = (0usize, i);
        while let Some(p) = eff[at] {
            d += 1;
            at = p;
        }
        d
    };
    let mut order: Vec<(usize, usize)> = (0..n).map(|i| (depth(i), i)).collect();
    order.sort();
    order.into_iter().map(|(_, i)| (i, eff[i])).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_looping_parent_chain_is_cut() {
        let order = top_down(&[Some(1), Some(0), Some(0), None, Some(3)]);
        for root in [(0, None), (1, None), (2, None), (3, None)] {
            assert!(order.contains(&root), "{order:?}");
        }
        let child = order.iter().position(|&o| o == (4, Some(3))).unwrap();
        let parent = order.iter().position(|&o| o == (3, None)).unwrap();
        assert!(parent < child, "parents come first");
    }

    #[test]
    fn trs_round_trips_through_affine() {
        let trs: Trs = (
            [1.0, 2.0, 3.0],
            [0.0, 0.0, 0.38268343, 0.9238795],
            [1.0, 2.0, 0.5],
        );
        let a = Affine::from_trs(&trs);
        let back = a.to_trs();
        for i in 0..3 {
            assert!((back.0[i] - trs.0[i]).abs() < 1e-6);
            assert!((back.2[i] - trs.2[i]).abs() < 1e-6);
        }
        assert!(a.inverse().unwrap().mul(&a).m[1][1] - 1.0 < 1e-12);
    }
}
