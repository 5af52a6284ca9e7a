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
