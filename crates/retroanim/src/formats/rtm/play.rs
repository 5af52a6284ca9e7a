//! Playing an RTM: the pose of every bone at any phase.
//!
//! Readings taken (the engine's source is not public; these are stated, not verified):
//! - Between the two frames around a phase, each bone's transform is interpolated part by
//!   part: the 3×3 part is split into a rotation and a symmetric stretch (`M = R·P`, the polar
//!   decomposition; `P` is the identity for a pure rotation), `R` interpolated by spherical
//!   linear interpolation of unit quaternions (the shorter way), `P` and the position
//!   linearly. (A mirroring matrix falls back to rotation and signed scale per column.) At a frame's own phase the stored matrix is returned
//!   unchanged. Before the first frame the first holds, after the last the last.
//! - Transforms are paired with bones by name (ignoring ASCII case), as the engine does.
//! - The displacement is what the unit travels over one cycle; the engine plays the matrices
//!   as stored and moves the unit itself. [`PlayOptions::with_step`] adds `phase ×
//!   displacement` to every bone's position, so a pose shows where the bone is after the unit
//!   has travelled that part of its step.

use super::matrix::{mul, polar, M3};
use super::Mlod;
use crate::scene::axes::{decompose, quat};
use crate::scene::sample::quat_matrix;
use crate::{Error, Format, Result};

/// How to play.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PlayOptions {
    /// Add `phase × displacement` to every bone's position.
    pub with_step: bool,
}

/// The pose at `phase` (0..1): one matrix per header bone, in the file's layout (rotation
/// columns then position, model space, the file's axes).
pub fn pose(m: &Mlod, phase: f32, opts: PlayOptions) -> Result<Vec<[f32; 12]>> {
    if m.frames.is_empty() {
        return Err(malformed(m.frame_offset(0), "no frames to play".into()));
    }
    let i = m.frames.partition_point(|f| f.phase <= phase);
    let (a, b, w) = if i == 0 {
        (0, 0, 0.0)
    } else if i == m.frames.len() {
        (i - 1, i - 1, 0.0)
    } else {
        let (p0, p1) = (m.frames[i - 1].phase as f64, m.frames[i].phase as f64);
        let w = if p1 > p0 {
            (phase as f64 - p0) / (p1 - p0)
        } else {
            0.0
        };
        (i - 1, i, w)
    };
    let mut out = Vec::with_capacity(m.bones.len());
    for bone in 0..m.bones.len() {
        let ma = transform(m, a, bone)?;
        let mut r = if w == 0.0 {
            ma
        } else {
            interpolate(&ma, &transform(m, b, bone)?, w)
        };
        if opts.with_step {
            for k in 0..3 {
                r[9 + k] += phase * m.displacement[k];
            }
        }
        out.push(r);
    }
    Ok(out)
}

fn malformed(offset: u64, what: String) -> Error {
    Error::Malformed {
        format: Format::Rtm,
        offset,
        what,
    }
}

fn transform(m: &Mlod, f: usize, bone: usize) -> Result<[f32; 12]> {
    let frame = &m.frames[f];
    match m.find(frame, bone) {
        Some(i) => Ok(frame.transforms[i].matrix),
        None => Err(malformed(
            m.frame_offset(f),
            format!(
                "frame {f} has no transform for bone {:?}",
                m.bones[bone].name
            ),
        )),
    }
}

/// A matrix's rotation (rows), scale per column and position, in f64.
fn parts(m: &[f32; 12]) -> (M3, [f64; 3], [f64; 3]) {
    let (r, s) = decompose(rows(m));
    (r, s, position(m))
}

/// The matrix of rotation `q`, scale `s` and position `t`.
fn compose(q: [f64; 4], s: [f64; 3], t: [f64; 3]) -> [f32; 12] {
    let r = quat_matrix(q);
    let mut m = [0f32; 12];
    for j in 0..3 {
        for i in 0..3 {
            m[3 * j + i] = (r[i][j] * s[j]) as f32;
        }
        m[9 + j] = t[j] as f32;
    }
    m
}

pub(crate) fn quat64(r: [[f64; 3]; 3]) -> [f64; 4] {
    quat(r).map(|v| v as f64)
}

fn interpolate(a: &[f32; 12], b: &[f32; 12], w: f64) -> [f32; 12] {
    let lerp = |x: [f64; 3], y: [f64; 3]| [0, 1, 2].map(|k| x[k] + (y[k] - x[k]) * w);
    let (ma, mb) = (rows(a), rows(b));
    let (ta, tb) = (position(a), position(b));
    match (polar(&ma), polar(&mb)) {
        (Some((ra, pa)), Some((rb, pb))) => {
            let r = quat_matrix(slerp(quat64(ra), quat64(rb), w));
            let mut p = [[0.0; 3]; 3];
            for i in 0..3 {
                p[i] = lerp(pa[i], pb[i]);
            }
            let m = mul(&r, &p);
            let mut out = [0f32; 12];
            for j in 0..3 {
                for i in 0..3 {
                    out[3 * j + i] = m[i][j] as f32;
                }
            }
            let t = lerp(ta, tb);
            out[9..12].copy_from_slice(&t.map(|v| v as f32));
            out
        }
        // A mirroring or singular matrix: rotation and signed scale per column.
        _ => {
            let (ra, sa, _) = parts(a);
            let (rb, sb, _) = parts(b);
            compose(slerp(quat64(ra), quat64(rb), w), lerp(sa, sb), lerp(ta, tb))
        }
    }
}

/// The 3×3 part of a file matrix, rows.
pub(crate) fn rows(m: &[f32; 12]) -> M3 {
    let mut a = [[0.0; 3]; 3];
    for (i, row) in a.iter_mut().enumerate() {
        for (j, e) in row.iter_mut().enumerate() {
            *e = m[3 * j + i] as f64;
        }
    }
    a
}

fn position(m: &[f32; 12]) -> [f64; 3] {
    [m[9] as f64, m[10] as f64, m[11] as f64]
}

/// Spherical linear interpolation of unit quaternions, the shorter way.
pub(crate) fn slerp(a: [f64; 4], b: [f64; 4], w: f64) -> [f64; 4] {
    let mut d: f64 = (0..4).map(|k| a[k] * b[k]).sum();
    let b = if d < 0.0 {
        d = -d;
        b.map(|v| -v)
    } else {
        b
    };
    let (ka, kb) = if d > 0.9995 {
        (1.0 - w, w)
    } else {
        let th = d.clamp(-1.0, 1.0).acos();
        let s = th.sin();
        (((1.0 - w) * th).sin() / s, (w * th).sin() / s)
    };
    let q = [0, 1, 2, 3].map(|k| ka * a[k] + kb * b[k]);
    let n = q.iter().map(|v| v * v).sum::<f64>().sqrt();
    q.map(|v| v / n)
}
