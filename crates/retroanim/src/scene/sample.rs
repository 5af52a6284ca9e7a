//! Evaluating a scene at a time, as a glTF viewer does: channel sampling (STEP, LINEAR with
//! spherical interpolation of rotations, CUBICSPLINE Hermite curves), local TRS and 4×4
//! column-major matrices. The authoring writers (TOD, HMD) sample the scene with these.

use super::{Animation, Channel, Interpolation, Scene, Track, Transform};

/// A column-major 4×4 matrix in f64.
pub type Mat4 = [f64; 16];

/// A local transform as translation, unit quaternion `[x, y, z, w]` and scale.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Trs {
    /// Translation.
    pub translation: [f64; 3],
    /// Rotation.
    pub rotation: [f64; 4],
    /// Scale.
    pub scale: [f64; 3],
}

impl Trs {
    /// The matrix T·R·S.
    pub fn matrix(&self) -> Mat4 {
        let r = quat_matrix(self.rotation);
        let mut m = [0.0; 16];
        for j in 0..3 {
            for i in 0..3 {
                m[4 * j + i] = r[i][j] * self.scale[j];
            }
            m[12 + j] = self.translation[j];
        }
        m[15] = 1.0;
        m
    }
}

/// The rotation matrix (rows) of a unit quaternion `[x, y, z, w]`, as glTF clients build it.
pub fn quat_matrix([x, y, z, w]: [f64; 4]) -> [[f64; 3]; 3] {
    [
        [
            1.0 - 2.0 * (y * y + z * z),
            2.0 * (x * y - z * w),
            2.0 * (x * z + y * w),
        ],
        [
            2.0 * (x * y + z * w),
            1.0 - 2.0 * (x * x + z * z),
            2.0 * (y * z - x * w),
        ],
        [
            2.0 * (x * z - y * w),
            2.0 * (y * z + x * w),
            1.0 - 2.0 * (x * x + y * y),
        ],
    ]
}

/// A node's rest transform as TRS (a matrix is decomposed; a shear is dropped).
pub fn rest_trs(t: &Transform) -> Trs {
    match *t {
        Transform::Trs {
            translation,
            rotation,
            scale,
        } => Trs {
            translation: translation.map(f64::from),
            rotation: normalize(rotation.map(f64::from)),
            scale: scale.map(f64::from),
        },
        Transform::Matrix(m) => {
            let a = [0, 1, 2].map(|i| [0, 1, 2].map(|j| m[4 * j + i] as f64));
            let (r, s) = crate::scene::axes::decompose(a);
            Trs {
                translation: [m[12], m[13], m[14]].map(f64::from),
                rotation: crate::scene::axes::quat(r).map(f64::from),
                scale: s,
            }
        }
    }
}

/// A transform's matrix.
pub fn local_matrix(t: &Transform) -> Mat4 {
    match *t {
        Transform::Matrix(m) => m.map(f64::from),
        _ => rest_trs(t).matrix(),
    }
}

/// `a · b`.
pub fn mat_mul(a: &Mat4, b: &Mat4) -> Mat4 {
    let mut o = [0.0; 16];
    for j in 0..4 {
        for i in 0..4 {
            o[4 * j + i] = (0..4).map(|k| a[4 * k + i] * b[4 * j + k]).sum();
        }
    }
    o
}

fn normalize(q: [f64; 4]) -> [f64; 4] {
    let n = q.iter().map(|v| v * v).sum::<f64>().sqrt();
    if n > 1e-12 && n.is_finite() {
        q.map(|v| v / n)
    } else {
        [0.0, 0.0, 0.0, 1.0]
    }
}

/// Where a time falls among a channel's keys.
pub(crate) enum Span {
    /// On key k, or held from it (before the first key, after the last).
    Key(usize),
    /// Between keys `i` and `i + 1`, `s` (0..1) of the way across their `dt` seconds.
    Between { i: usize, s: f64, dt: f64 },
}

/// Where `time` falls among key `times` (`None` without keys).
pub(crate) fn span(times: &[f32], time: f32) -> Option<Span> {
    let last = times.len().checked_sub(1)?;
    // The last key at or before `time` (key times are strictly increasing: a binary search,
    // so sampling every frame of a long animation stays linear in its keys).
    let i = match times.partition_point(|&t| t <= time).checked_sub(1) {
        None => return Some(Span::Key(0)),
        Some(i) if i >= last => return Some(Span::Key(last)),
        Some(i) => i,
    };
    let (t0, t1) = (times[i] as f64, times[i + 1] as f64);
    let dt = t1 - t0;
    let s = if dt > 0.0 {
        ((time as f64 - t0) / dt).clamp(0.0, 1.0)
    } else {
        0.0
    };
    Some(Span::Between { i, s, dt })
}

/// The value of a channel's keys at `time`: held before the first and after the last key.
/// `values` holds one value per key, or three (in-tangent, value, out-tangent) for
/// CUBICSPLINE. `rotation` interpolates LINEAR keys spherically and normalises the result.
pub fn sample<const N: usize>(
    times: &[f32],
    values: &[[f32; N]],
    interpolation: Interpolation,
    time: f32,
    rotation: bool,
) -> Option<[f64; N]> {
    let cubic = interpolation == Interpolation::Cubicspline;
    let per = if cubic { 3 } else { 1 };
    let value = |k: usize| -> Option<[f64; N]> {
        values
            .get(k * per + usize::from(cubic))
            .map(|v| v.map(f64::from))
    };
    if values.len() < times.len() * per {
        return None;
    }
    let (i, s, dt) = match span(times, time)? {
        Span::Key(k) => return value(k),
        Span::Between { i, s, dt } => (i, s, dt),
    };
    let (a, b) = (value(i)?, value(i + 1)?);
    let out = match interpolation {
        Interpolation::Step => a,
        Interpolation::Linear if rotation && N == 4 => {
            let mut q = [0.0; N];
            let (qa, qb) = ([a[0], a[1], a[2], a[3]], [b[0], b[1], b[2], b[3]]);
            let r = slerp(qa, qb, s);
            q.copy_from_slice(&r[..N]);
            q
        }
        Interpolation::Linear => std::array::from_fn(|k| a[k] + (b[k] - a[k]) * s),
        Interpolation::Cubicspline => {
            let out_a = values.get(i * 3 + 2)?.map(f64::from);
            let in_b = values.get((i + 1) * 3)?.map(f64::from);
            let (s2, s3) = (s * s, s * s * s);
            std::array::from_fn(|k| {
                (2.0 * s3 - 3.0 * s2 + 1.0) * a[k]
                    + (s3 - 2.0 * s2 + s) * dt * out_a[k]
                    + (-2.0 * s3 + 3.0 * s2) * b[k]
                    + (s3 - s2) * dt * in_b[k]
            })
        }
    };
    if rotation && N == 4 {
        let n = out.iter().map(|v| v * v).sum::<f64>().sqrt();
        if n > 1e-12 {
            return Some(out.map(|v| v / n));
        }
    }
    Some(out)
}

fn slerp(a: [f64; 4], b: [f64; 4], s: f64) -> [f64; 4] {
    let mut d: f64 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
    let b = if d < 0.0 {
        d = -d;
        b.map(|v| -v)
    } else {
        b
    };
    if d > 0.9995 {
        return normalize(std::array::from_fn(|k| a[k] + (b[k] - a[k]) * s));
    }
    let th = d.clamp(-1.0, 1.0).acos();
    let (wa, wb) = (((1.0 - s) * th).sin() / th.sin(), (s * th).sin() / th.sin());
    std::array::from_fn(|k| a[k] * wa + b[k] * wb)
}

/// Node `node`'s local TRS at `time` under `animation` (its rest transform where no channel
/// drives a part). Visibility channels give scale 0 while hidden. This looks through all of
/// the animation's channels; to sample many nodes, use a [`Sampler`].
pub fn local_at(scene: &Scene, animation: Option<&Animation>, node: usize, time: f32) -> Trs {
    let channels = animation.map(|a| &a.channels[..]).unwrap_or(&[]);
    local_of(
        scene,
        channels.iter().filter(|c| c.node == node),
        node,
        time,
    )
}

/// Samples one animation's nodes with the channels grouped by node once, so a frame of a
/// scene of n nodes and c channels costs O(n + c) instead of O(n · c).
#[derive(Debug)]
pub struct Sampler<'a> {
    scene: &'a Scene,
    animation: Option<&'a Animation>,
    by_node: Vec<Vec<usize>>,
}

impl<'a> Sampler<'a> {
    /// A sampler of `animation` (or of the rest pose, without one) over `scene`'s nodes.
    pub fn new(scene: &'a Scene, animation: Option<&'a Animation>) -> Self {
        let mut by_node = vec![Vec::new(); scene.nodes.len()];
        for (k, c) in animation
            .map(|a| &a.channels[..])
            .unwrap_or(&[])
            .iter()
            .enumerate()
        {
            if let Some(list) = by_node.get_mut(c.node) {
                list.push(k);
            }
        }
        Sampler {
            scene,
            animation,
            by_node,
        }
    }

    /// Whether this samples `animation` (the same value, not an equal one).
    pub fn is_of(&self, animation: &Animation) -> bool {
        self.animation.is_some_and(|a| std::ptr::eq(a, animation))
    }

    /// The channels that drive `node`, in the animation's order.
    pub fn channels(&self, node: usize) -> impl Iterator<Item = &'a Channel> + '_ {
        let channels = self.animation.map(|a| &a.channels[..]).unwrap_or(&[]);
        let of = self.by_node.get(node).map(|l| &l[..]).unwrap_or(&[]);
        of.iter().filter_map(move |&k| channels.get(k))
    }

    /// As [`local_at`].
    pub fn local(&self, node: usize, time: f32) -> Trs {
        let channels = self.animation.map(|a| &a.channels[..]).unwrap_or(&[]);
        let of = self.by_node.get(node).map(|l| &l[..]).unwrap_or(&[]);
        local_of(
            self.scene,
            of.iter().filter_map(|&k| channels.get(k)),
            node,
            time,
        )
    }
}

fn local_of<'c>(
    scene: &Scene,
    channels: impl Iterator<Item = &'c Channel>,
    node: usize,
    time: f32,
) -> Trs {
    let Some(n) = scene.nodes.get(node) else {
        return rest_trs(&Transform::IDENTITY);
    };
    let mut trs = rest_trs(&n.transform);
    if n.hidden {
        trs.scale = [0.0; 3];
    }
    for c in channels {
        match &c.track {
            Track::Translation(v) => {
                if let Some(x) = sample(&c.times, v, c.interpolation, time, false) {
                    trs.translation = x;
                }
            }
            Track::Rotation(v) => {
                if let Some(x) = sample(&c.times, v, c.interpolation, time, true) {
                    trs.rotation = x;
                }
            }
            Track::Scale(v) => {
                if let Some(x) = sample(&c.times, v, c.interpolation, time, false) {
                    trs.scale = x;
                }
            }
            Track::Visibility(v) => {
                let shown = c
                    .times
                    .partition_point(|&t| t <= time)
                    .checked_sub(1)
                    .and_then(|i| v.get(i))
                    .or(v.first())
                    .copied()
                    .unwrap_or(true);
                if !shown {
                    trs.scale = [0.0; 3];
                }
            }
            Track::Weights(_) => {}
        }
    }
    trs
}

/// The time of an animation's last key (0 without keys).
pub fn duration(animation: &Animation) -> f32 {
    animation
        .channels
        .iter()
        .filter_map(|c| c.times.last().copied())
        .fold(0.0, f32::max)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cubic_spline_passes_through_its_keys_and_linear_halves() {
        let times = [0.0, 1.0];
        let v = [[0.0f32], [1.0], [0.0], [0.0], [3.0], [0.0]];
        assert_eq!(
            sample(&times, &v, Interpolation::Cubicspline, 0.0, false),
            Some([1.0])
        );
        assert_eq!(
            sample(&times, &v, Interpolation::Cubicspline, 1.0, false),
            Some([3.0])
        );
        let mid = sample(&times, &v, Interpolation::Cubicspline, 0.5, false).unwrap();
        assert!((mid[0] - 2.0).abs() < 1e-9);
        let l = [[0.0f32], [4.0]];
        assert_eq!(
            sample(&times, &l, Interpolation::Linear, 0.25, false),
            Some([1.0])
        );
        assert_eq!(
            sample(&times, &l, Interpolation::Step, 0.99, false),
            Some([0.0])
        );
        assert_eq!(
            sample(&times, &l, Interpolation::Step, 7.0, false),
            Some([4.0])
        );
    }

    #[test]
    fn slerp_takes_the_short_way() {
        let h = std::f32::consts::FRAC_1_SQRT_2;
        let q = [[0.0, 0.0, 0.0, 1.0f32], [0.0, 0.0, -h, -h]];
        let m = sample(&[0.0, 1.0], &q, Interpolation::Linear, 0.5, true).unwrap();
        // Half of a 90° turn about Z: 45°.
        let want = (std::f64::consts::PI / 8.0).sin();
        assert!((m[2].abs() - want).abs() < 1e-6, "{m:?}");
    }
}
