//! LOD frames: typed access to the per-point positions of each LOD over time, and their
//! replacement, for MLOD (`#Animation#` taggs) and ODOL v7 (LOD frames) alike.
//!
//! Times are the file's values: animation phases (0..1 in every known file). A caller that
//! needs seconds chooses a duration: `seconds = phase × duration`.

use crate::error::{Error, Result};
use crate::Format;

use super::types::*;

/// One frame of a LOD, borrowed from the model.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FrameRef<'a> {
    /// Frame time (phase).
    pub time: f32,
    /// One position per point (MLOD) or vertex (ODOL).
    pub positions: &'a [[f32; 3]],
}

/// One frame to store into a LOD.
#[derive(Debug, Clone, PartialEq)]
pub struct NewFrame {
    /// Frame time (phase).
    pub time: f32,
    /// One position per point (MLOD) or vertex (ODOL).
    pub positions: Vec<[f32; 3]>,
}

impl P3d {
    /// Number of LODs.
    pub fn lod_count(&self) -> usize {
        match self {
            P3d::Mlod(m) => m.lods.len(),
            P3d::Odol(o) => o.lods.len(),
        }
    }

    /// The resolution / type value of LOD `lod` (NaN when out of range).
    pub fn resolution(&self, lod: usize) -> f32 {
        match self {
            P3d::Mlod(m) => m.lods.get(lod).map_or(f32::NAN, |l| l.resolution),
            P3d::Odol(o) => o.resolutions().get(lod).copied().unwrap_or(f32::NAN),
        }
    }

    /// Points per frame the LOD expects: MLOD points, ODOL vertices.
    pub fn frame_width(&self, lod: usize) -> Option<usize> {
        match self {
            P3d::Mlod(m) => m.lods.get(lod).map(|l| l.points.len()),
            P3d::Odol(o) => o.lod_counts(lod).map(|c| c.0),
        }
    }

    /// The index of the LOD with resolution `res` (compared as f32, with a relative tolerance
    /// of 1e-6 because stored values such as 1e13 are rounded).
    pub fn find_lod(&self, res: f64) -> Option<usize> {
        (0..self.lod_count()).find(|&i| {
            let r = self.resolution(i) as f64;
            (r - res).abs() <= 1e-6 * res.abs().max(1.0)
        })
    }

    /// The LOD to convert by default: the first one that has frames, else the first one.
    pub fn default_lod(&self) -> usize {
        (0..self.lod_count())
            .find(|&i| !self.frames(i).is_empty())
            .unwrap_or(0)
    }

    /// The frames of LOD `lod`, in file order (empty when out of range).
    pub fn frames(&self, lod: usize) -> Vec<FrameRef<'_>> {
        match self {
            P3d::Mlod(m) => m.lods.get(lod).map_or_else(Vec::new, |l| l.frames()),
            P3d::Odol(o) => o.lods.get(lod).map_or_else(Vec::new, |l| {
                l.frames
                    .iter()
                    .map(|f| FrameRef {
                        time: f.time,
                        positions: &f.positions,
                    })
                    .collect()
            }),
        }
    }

    /// Replaces the frames of LOD `lod`. Every frame must have exactly
    /// [`frame_width`](P3d::frame_width) positions; nothing changes on error.
    pub fn set_frames(&mut self, lod: usize, frames: Vec<NewFrame>) -> Result<()> {
        let width = self.frame_width(lod).ok_or_else(|| Error::Parameter {
            what: format!("the model has no LOD {lod}"),
        })?;
        if let Some(bad) = frames.iter().find(|f| f.positions.len() != width) {
            return Err(Error::Unencodable {
                format: Format::P3d,
                what: format!(
                    "point count mismatch: the frames have {} points, LOD {lod} of the model has {width}",
                    bad.positions.len()
                ),
            });
        }
        match self {
            P3d::Mlod(m) => m.lods[lod].set_frames(frames),
            P3d::Odol(o) => {
                o.lods[lod].frames = frames
                    .into_iter()
                    .map(|f| OdolFrame {
                        time: f.time,
                        positions: f.positions,
                    })
                    .collect()
            }
        }
        Ok(())
    }
}

impl Lod {
    /// The frames: every `#Animation#` tagg whose size fits the point count, in file order.
    pub fn frames(&self) -> Vec<FrameRef<'_>> {
        self.taggs
            .iter()
            .filter_map(|t| match &t.data {
                TaggData::Animation { time, positions } if t.kind() == TaggKind::Animation => {
                    Some(FrameRef {
                        time: *time,
                        positions,
                    })
                }
                _ => None,
            })
            .collect()
    }

    /// Replaces the frames: the k-th existing `#Animation#` tagg takes the k-th new frame in
    /// place; extra frames follow the last existing one (or go before `#EndOfFile#` when there
    /// were none); surplus old ones are removed. All other taggs keep their order and bytes.
    pub fn set_frames(&mut self, frames: Vec<NewFrame>) {
        let mut new = frames.into_iter();
        let mut taggs = Vec::with_capacity(self.taggs.len() + new.len());
        let mut last_frame = None;
        for t in std::mem::take(&mut self.taggs) {
            let is_frame =
                matches!(t.data, TaggData::Animation { .. }) && t.kind() == TaggKind::Animation;
            if !is_frame {
                taggs.push(t);
                continue;
            }
            if let Some(f) = new.next() {
                taggs.push(Tagg {
                    data: TaggData::Animation {
                        time: f.time,
                        positions: f.positions,
                    },
                    ..t
                });
                last_frame = Some(taggs.len());
            }
        }
        let at = last_frame.unwrap_or_else(|| {
            taggs
                .iter()
                .position(|t| t.kind() == TaggKind::EndOfFile)
                .unwrap_or(taggs.len())
        });
        let active = match self.signature {
            Signature::P3dm => Some(1),
            Signature::Sp3x => None,
        };
        let rest: Vec<Tagg> = new
            .map(|f| Tagg {
                active,
                name: Text::from("#Animation#"),
                name_padding: Bytes::default(),
                data: TaggData::Animation {
                    time: f.time,
                    positions: f.positions,
                },
            })
            .collect();
        taggs.splice(at..at, rest);
        self.taggs = taggs;
    }
}
