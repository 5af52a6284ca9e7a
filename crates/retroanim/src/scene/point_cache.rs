//! Point caches: one position per point per frame (MDD, PC2, P3D LOD frames).

use serde::{Deserialize, Serialize};

/// A point cache held whole in memory. For caches too big for that, the MDD and PC2 modules
/// have streaming readers and writers that hold one frame at a time
/// ([`crate::formats::mdd::StreamWriter`], [`crate::formats::pc2::StreamWriter`], ...); this
/// type is the small-and-simple form, and what conversions between formats go through.
///
/// Positions are kept in the axes of whoever produced them: point-cache files have no axis
/// field (see the MDD and PC2 module docs), so converting axes is the converter's choice, not
/// this type's.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct PointCache {
    /// Number of points in every frame.
    pub points: u32,
    /// The frames, in time order.
    pub frames: Vec<PointFrame>,
    /// PC2's first frame number (frames, not seconds), when the cache came from or is meant for
    /// a PC2; `None` derives it from the first frame's time and the frame rate.
    pub start_frame: Option<f32>,
    /// PC2's frames between samples, likewise; `None` derives it from the frame times.
    pub sample_rate: Option<f32>,
    /// An extra, uncounted frame before frame 0 (the rest pose old Blender MDD exporters wrote
    /// without counting it), kept so such files round-trip. Not part of the animation.
    pub rest_frame: Option<Vec<[f32; 3]>>,
}

/// One frame of a [`PointCache`].
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct PointFrame {
    /// Time in seconds.
    pub time: f32,
    /// One position per point.
    pub positions: Vec<[f32; 3]>,
}

impl PointCache {
    /// Number of (counted) frames.
    pub fn frame_count(&self) -> usize {
        self.frames.len()
    }

    /// The frame rate the frame times were written at, when the first two frames are a whole
    /// number of frames per second apart (within 0.1 %): `1 / (t1 − t0)` rounded.
    pub fn guess_fps(&self) -> Option<f32> {
        let [a, b] = [self.frames.first()?.time, self.frames.get(1)?.time];
        let fps = 1.0 / (b as f64 - a as f64);
        let r = fps.round();
        (fps.is_finite() && r >= 1.0 && ((fps - r) / r).abs() < 1e-3).then_some(r as f32)
    }

    /// True when every frame (and the rest frame) has exactly `points` positions.
    pub fn is_consistent(&self) -> bool {
        let n = self.points as usize;
        self.frames.iter().all(|f| f.positions.len() == n)
            && self.rest_frame.as_ref().map_or(true, |r| r.len() == n)
    }
}
