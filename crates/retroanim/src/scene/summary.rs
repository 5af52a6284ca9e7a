//! What a scene holds, counted: the summary `retroanim info` shows for a glTF or GLB file (the
//! scene the importer read from it), in the shape of the formats' own summaries.

use std::collections::BTreeMap;

use serde::Serialize;

use super::{Interpolation, PrimitiveMode, Scene, Track};

/// Counts of a [`Scene`]'s contents.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Summary {
    /// Nodes.
    pub nodes: usize,
    /// Nodes without a parent.
    pub roots: usize,
    /// The deepest chain of nodes (a root alone is 1).
    pub depth: usize,
    /// Meshes.
    pub meshes: usize,
    /// Primitives over all meshes.
    pub primitives: usize,
    /// Vertices over all primitives.
    pub vertices: usize,
    /// Triangles over all triangle primitives.
    pub triangles: usize,
    /// Morph targets over all primitives.
    pub morph_targets: usize,
    /// Materials.
    pub materials: usize,
    /// Textures, as `width×height`.
    pub textures: Vec<String>,
    /// Cameras.
    pub cameras: usize,
    /// Lights.
    pub lights: usize,
    /// Skins (joint counts).
    pub skins: Vec<usize>,
    /// Animations.
    pub animations: Vec<AnimationSummary>,
}

/// One animation, counted.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AnimationSummary {
    /// Its name.
    pub name: String,
    /// Channels.
    pub channels: usize,
    /// Keys over all channels.
    pub keys: usize,
    /// The last key's time, in seconds.
    pub duration_seconds: f32,
    /// Channels per interpolation (`step`, `linear`, `cubic_spline`).
    pub interpolations: BTreeMap<&'static str, usize>,
    /// Channels per animated property (`translation`, `rotation`, …).
    pub properties: BTreeMap<&'static str, usize>,
}

impl Scene {
    /// Counts what the scene holds.
    pub fn summary(&self) -> Summary {
        let prims = || self.meshes.iter().flat_map(|m| &m.primitives);
        let depth_of = |mut i: usize| {
            let mut d = 1;
            // A parent chain longer than the node count is a cycle (Scene::check reports it).
            while let Some(p) = self.nodes.get(i).and_then(|n| n.parent) {
                if d > self.nodes.len() {
                    break;
                }
                d += 1;
                i = p;
            }
            d
        };
        Summary {
            nodes: self.nodes.len(),
            roots: self.nodes.iter().filter(|n| n.parent.is_none()).count(),
            depth: (0..self.nodes.len()).map(depth_of).max().unwrap_or(0),
            meshes: self.meshes.len(),
            primitives: prims().count(),
            vertices: prims().map(|p| p.positions.len()).sum(),
            triangles: prims()
                .filter(|p| p.mode == PrimitiveMode::Triangles)
                .map(|p| {
                    if p.indices.is_empty() {
                        p.positions.len() / 3
                    } else {
                        p.indices.len() / 3
                    }
                })
                .sum(),
            morph_targets: prims().map(|p| p.targets.len()).sum(),
            materials: self.materials.len(),
            textures: self
                .textures
                .iter()
                .map(|t| format!("{}×{}", t.width, t.height))
                .collect(),
            cameras: self.cameras.len(),
            lights: self.lights.len(),
            skins: self.skins.iter().map(|s| s.joints.len()).collect(),
            animations: self
                .animations
                .iter()
                .map(|a| {
                    let mut interpolations = BTreeMap::new();
                    let mut properties = BTreeMap::new();
                    for c in &a.channels {
                        *interpolations
                            .entry(match c.interpolation {
                                Interpolation::Step => "step",
                                Interpolation::Linear => "linear",
                                Interpolation::Cubicspline => "cubic_spline",
                            })
                            .or_insert(0) += 1;
                        *properties
                            .entry(match c.track {
                                Track::Translation(_) => "translation",
                                Track::Rotation(_) => "rotation",
                                Track::Scale(_) => "scale",
                                Track::Weights(_) => "weights",
                                Track::Visibility(_) => "visibility",
                            })
                            .or_insert(0) += 1;
                    }
                    AnimationSummary {
                        name: a.name.clone(),
                        channels: a.channels.len(),
                        keys: a.channels.iter().map(|c| c.times.len()).sum(),
                        duration_seconds: a
                            .channels
                            .iter()
                            .filter_map(|c| c.times.last().copied())
                            .fold(0.0, f32::max),
                        interpolations,
                        properties,
                    }
                })
                .collect(),
        }
    }
}
