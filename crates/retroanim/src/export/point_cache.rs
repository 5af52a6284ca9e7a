//! A point cache as a scene: its points as a `POINTS` mesh whose morph targets are the frames,
//! played by a weights channel (one target per frame). Lets any glTF viewer or Blender show an
//! MDD or PC2 without the mesh it was made for.

use crate::scene::{
    Animation, Channel, Interpolation, Mesh, MorphTarget, MorphTargetKind, Node, PointCache,
    Primitive, PrimitiveMode, Scene,
};

/// The scene: one node `name` with the first frame as its base positions and every frame as an
/// absolute morph target named `frame N`, animated at the frames' times with `interpolation`.
/// A cache with one frame or none has no animation. Positions are taken as they are (the cache
/// has no axis convention of its own; convert them first if needed).
pub fn point_cache_scene(cache: &PointCache, name: &str, interpolation: Interpolation) -> Scene {
    let base = cache
        .frames
        .first()
        .map(|f| f.positions.clone())
        .or_else(|| cache.rest_frame.clone())
        .unwrap_or_default();
    let animated = cache.frames.len() > 1;
    let targets: Vec<MorphTarget> = if animated {
        cache
            .frames
            .iter()
            .map(|f| MorphTarget {
                kind: MorphTargetKind::Absolute,
                positions: f.positions.clone(),
            })
            .collect()
    } else {
        Vec::new()
    };
    let mut scene = Scene {
        name: Some(name.to_string()),
        ..Scene::default()
    };
    if base.is_empty() {
        scene.nodes.push(Node::new(name));
        return scene;
    }
    scene.meshes.push(Mesh {
        name: name.to_string(),
        target_names: (0..targets.len()).map(|i| format!("frame {i}")).collect(),
        primitives: vec![Primitive {
            mode: PrimitiveMode::Points,
            positions: base,
            targets,
            ..Primitive::default()
        }],
        extras: serde_json::Value::Null,
    });
    scene.nodes.push(Node {
        mesh: Some(0),
        ..Node::new(name)
    });
    if animated {
        let times: Vec<f32> = cache.frames.iter().map(|f| f.time).collect();
        scene.animations.push(Animation {
            name: name.to_string(),
            channels: vec![Channel::frame_weights(0, times, interpolation)],
            extras: serde_json::Value::Null,
        });
    }
    scene
}
