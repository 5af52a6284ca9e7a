//! Animations: keyframed channels that drive node properties.

use serde::{Deserialize, Serialize};

/// A named animation (one clip).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Animation {
    /// The animation's name.
    pub name: String,
    /// The channels; at most one per (node, property).
    pub channels: Vec<Channel>,
    /// Free-form data (glTF animation `extras`).
    #[serde(skip_serializing_if = "serde_json::Value::is_null")]
    pub extras: serde_json::Value,
}

/// How values between keys are found (glTF's three modes).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Interpolation {
    /// Hold each key's value until the next key.
    #[default]
    Step,
    /// Linear (spherical linear for rotations).
    Linear,
    /// Cubic Hermite spline: each key has an in-tangent, a value and an out-tangent.
    Cubicspline,
}

/// One animated property of one node.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Channel {
    /// Index of the animated node.
    pub node: usize,
    /// Interpolation between keys. Visibility is always stepped.
    pub interpolation: Interpolation,
    /// Key times in seconds, strictly increasing, ≥ 0.
    pub times: Vec<f32>,
    /// The animated property and its values: one value per key, or for
    /// [`Interpolation::Cubicspline`] three (in-tangent, value, out-tangent) per key.
    pub track: Track,
}

impl Channel {
    /// The channel moves nothing: every key is `rest`'s value of its property (a rotation
    /// also as the negated quaternion, the same rotation; keys compared normalised), within
    /// float32 noise (a millionth, relative to values past 1), and for
    /// [`Interpolation::Cubicspline`] every tangent is zero. Weights and visibility channels
    /// are never still. Blender's glTF exporter keys every bone of an animated armature, also
    /// the bones a clip leaves at rest: such channels are still.
    pub fn is_still(&self, rest: &super::sample::Trs) -> bool {
        let cubic = self.interpolation == Interpolation::Cubicspline;
        match &self.track {
            Track::Translation(v) => still(v, rest.translation, cubic, false),
            Track::Scale(v) => still(v, rest.scale, cubic, false),
            Track::Rotation(v) => still(v, rest.rotation, cubic, true),
            Track::Weights(_) | Track::Visibility(_) => false,
        }
    }

    /// A weights channel that plays morph targets one after the other, one target per key:
    /// at `times[i]` target i has weight 1 and all others 0 — how a point cache (one target
    /// per frame) becomes a glTF animation. With [`Interpolation::Linear`] neighbouring frames
    /// cross-fade, which interpolates the positions linearly; [`Interpolation::Step`] holds each
    /// frame.
    pub fn frame_weights(node: usize, times: Vec<f32>, interpolation: Interpolation) -> Channel {
        let n = times.len();
        let weights = (0..n)
            .map(|i| (0..n).map(|k| if k == i { 1.0 } else { 0.0 }).collect())
            .collect();
        Channel {
            node,
            interpolation: match interpolation {
                Interpolation::Cubicspline => Interpolation::Linear,
                other => other,
            },
            times,
            track: Track::Weights(weights),
        }
    }
}

/// The property a [`Channel`] animates, with its values.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Track {
    /// Local translation in metres.
    Translation(Vec<[f32; 3]>),
    /// Local rotation, unit quaternions `[x, y, z, w]`.
    Rotation(Vec<[f32; 4]>),
    /// Local scale.
    Scale(Vec<[f32; 3]>),
    /// Morph target weights: each entry has one weight per target of the node's mesh.
    Weights(Vec<Vec<f32>>),
    /// Shown (true) or hidden (false), stepped. glTF has no visibility: the exporter turns it
    /// into scale keys (0 while hidden), merged with the node's scale channel if it has one.
    Visibility(Vec<bool>),
}

impl Track {
    /// Number of values (not keys: a cubic spline has three values per key).
    pub fn len(&self) -> usize {
        match self {
            Track::Translation(v) | Track::Scale(v) => v.len(),
            Track::Rotation(v) => v.len(),
            Track::Weights(v) => v.len(),
            Track::Visibility(v) => v.len(),
        }
    }

    /// True when there are no values.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The glTF name of the animated property (`visibility` for visibility).
    pub fn path(&self) -> &'static str {
        match self {
            Track::Translation(_) => "translation",
            Track::Rotation(_) => "rotation",
            Track::Scale(_) => "scale",
            Track::Weights(_) => "weights",
            Track::Visibility(_) => "visibility",
        }
    }
}

/// The time of a key `numerator / denominator` seconds in, as the largest `f32` not after it:
/// a client that samples at exactly that time (e.g. `frame / fps` computed in f64, or three.js
/// `AnimationMixer.setTime(frame / 60)`) finds the key at or before it, so a STEP key shows its
/// own frame and a LINEAR key its exact value, never the previous frame's. Round-to-nearest
/// would put about half the keys a fraction of an ULP after their frame.
///
/// The check `t · denominator ≤ numerator` is exact in f64 for denominators that fit an f32
/// (24-bit mantissa) and numerators below 2^29, which covers every frame count and rate
/// retroanim writes; larger ones fall back to the f64 quotient.
pub fn key_time(numerator: u64, denominator: f64) -> f32 {
    if !(denominator.is_finite() && denominator > 0.0) {
        return 0.0;
    }
    let exact = numerator as f64 / denominator;
    let mut t = exact as f32;
    let after = |t: f32| {
        if numerator < 1 << 29 {
            t as f64 * denominator > numerator as f64
        } else {
            t as f64 > exact
        }
    };
    while t > 0.0 && after(t) {
        // The next f32 towards zero (t > 0; `f32::next_down` is newer than the MSRV).
        t = f32::from_bits(t.to_bits() - 1);
    }
    t
}

/// The time at which an author samples a glTF animation for the frame `numerator / denominator`
/// seconds in: one `f32` step after the `f32` nearest to it, so that a key written for that
/// frame is found whether its writer rounded the time down ([`key_time`], as retroanim does) or
/// to nearest (as Blender's exporter does, putting about half its keys a fraction of an ULP
/// after their frame): a STEP key is never taken for the frame before, and a LINEAR value moves
/// by about 10⁻⁷ of the time, far below any console unit.
pub fn sample_time(numerator: u64, denominator: f64) -> f32 {
    if !(denominator.is_finite() && denominator > 0.0) {
        return 0.0;
    }
    let t = (numerator as f64 / denominator) as f32;
    if t.is_finite() {
        // The next f32 up (t ≥ 0; `f32::next_up` is newer than the MSRV).
        f32::from_bits(t.to_bits() + 1)
    } else {
        t
    }
}

/// Equal within float32 noise (a millionth, relative to values past 1).
fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-6 * a.abs().max(b.abs()).max(1.0)
}

/// Every key of `values` is `rest` (a rotation, normalised, also as −`rest`) and, for a
/// CUBICSPLINE channel, every tangent is zero.
fn still<const N: usize>(values: &[[f32; N]], rest: [f64; N], cubic: bool, rotation: bool) -> bool {
    let is = |v: &[f64; N], r: [f64; N]| (0..N).all(|k| close(v[k], r[k]));
    values.iter().enumerate().all(|(i, v)| {
        let v = v.map(f64::from);
        if cubic && i % 3 != 1 {
            return is(&v, [0.0; N]);
        }
        if !rotation {
            return is(&v, rest);
        }
        let len = v.iter().map(|x| x * x).sum::<f64>().sqrt().max(1e-12);
        let unit = v.map(|x| x / len);
        is(&unit, rest) || is(&unit, rest.map(|x| -x))
    })
}

#[cfg(test)]
mod tests {
    use super::{key_time, sample_time};

    #[test]
    fn sample_times_find_keys_rounded_either_way() {
        for f in 0..100_000u64 {
            for den in [60.0, 30.0, 25.0, 24.0] {
                let nearest = (f as f64 / den) as f32;
                let t = sample_time(f, den);
                assert!(nearest <= t && key_time(f, den) <= t, "{f}/{den}");
                // …and before the next frame's keys, however they were rounded.
                assert!(t < key_time(f + 1, den), "{f}/{den}");
            }
        }
    }

    #[test]
    fn key_times_never_come_after_their_frame() {
        let mut rounded_after = 0;
        for f in 0..100_000u64 {
            for (num, den) in [
                (f, 60.0),
                (f * 3, 60.0),
                (f, 30.0),
                (f, 25.0),
                (f * 7, 60.0),
            ] {
                let t = key_time(num, den);
                assert!(t as f64 * den <= num as f64, "{num}/{den}: {t}");
                // And it is the nearest such f32: the next one up is after.
                let up = f32::from_bits(t.to_bits() + 1);
                assert!(up as f64 * den > num as f64, "{num}/{den}: {t}");
                if (num as f64 / den) as f32 != t {
                    rounded_after += 1;
                }
            }
        }
        assert!(
            rounded_after > 1000,
            "round-to-nearest would have been late"
        );
        assert_eq!(key_time(0, 60.0), 0.0);
        assert_eq!(key_time(60, 60.0), 1.0);
    }
}
