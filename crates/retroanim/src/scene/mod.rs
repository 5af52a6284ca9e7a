//! The neutral scene model every format converts into, and every exporter writes from.
//!
//! A [`Scene`] is a flat list of [`Node`]s (each naming its parent by index), plus the meshes,
//! materials, textures, cameras and lights the nodes point at, and [`Animation`]s whose channels
//! drive the nodes. It mirrors glTF 2.0 closely, so the glTF exporter is a near one-to-one
//! translation, but it is plain owned data: importers build it with struct literals, and it
//! serialises with serde (`retroanim dump` can show it).
//!
//! # Conventions
//!
//! | what | convention |
//! | --- | --- |
//! | axes | right-handed, **+Y up**, +Z forward (towards the viewer of a front view), +X to the model's left — glTF 2.0's. Each format's importer converts into this (and documents how); exporters write it unchanged. |
//! | units | metres; importers document the scale they apply |
//! | rotation | unit quaternion `[x, y, z, w]` |
//! | matrix | 4×4, **column-major** (`m[12..15]` is the translation) |
//! | winding | counter-clockwise triangles face the viewer |
//! | time | seconds, `f32` |
//! | colours | linear RGBA `f32` 0..1 for factors and vertex colours; textures are sRGB RGBA8 |
//! | UV | `[u, v]` with v = 0 at the *top* of the image (glTF's) |
//!
//! Indices (`parent`, `mesh`, `material`, `texture`, `camera`, `light`, a channel's `node`) are
//! positions in the scene's vectors. [`Scene::check`] reports every dangling index and
//! inconsistent count; the exporters call it first and refuse a scene it rejects.
//!
//! [`PointCache`] (MDD/PC2 frames) lives here too: it is the neutral form of "one position per
//! point per frame", shared by P3D LOD frames and the point-cache formats.

mod animation;
pub mod axes;
mod check;
pub mod extras;
pub(crate) mod hierarchy;
mod mesh;
mod point_cache;
pub(crate) use hierarchy::reaches_cycle;
pub mod sample;
mod summary;
pub(crate) mod world_exact;

pub use animation::{key_time, sample_time, Animation, Channel, Interpolation, Track};
pub use check::SceneError;
pub use mesh::{
    AlphaMode, Material, Mesh, MorphTarget, MorphTargetKind, Primitive, PrimitiveMode, Texture,
    TextureFilter,
};
pub use point_cache::{PointCache, PointFrame};
pub use summary::{AnimationSummary, Summary};

use serde::{Deserialize, Serialize};

/// A whole scene: the nodes and everything they refer to.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Scene {
    /// The scene's name (becomes the glTF scene name).
    pub name: Option<String>,
    /// Every node; a node's `parent` must come before it is needed, but need not come first.
    pub nodes: Vec<Node>,
    /// Meshes, referred to by [`Node::mesh`].
    pub meshes: Vec<Mesh>,
    /// Materials, referred to by [`Primitive::material`].
    pub materials: Vec<Material>,
    /// Textures (RGBA8 images), referred to by [`Material::texture`].
    pub textures: Vec<Texture>,
    /// Cameras, referred to by [`Node::camera`].
    pub cameras: Vec<Camera>,
    /// Lights, referred to by [`Node::light`].
    pub lights: Vec<Light>,
    /// Skins, referred to by [`Node::skin`].
    pub skins: Vec<Skin>,
    /// Animations.
    pub animations: Vec<Animation>,
    /// Free-form data carried to the exported file (glTF `extras` of the scene).
    #[serde(skip_serializing_if = "serde_json::Value::is_null")]
    pub extras: serde_json::Value,
}

/// One node of the hierarchy.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Node {
    /// The node's name.
    pub name: String,
    /// Index of the parent node; `None` for a root. The graph must be a forest (no cycles).
    pub parent: Option<usize>,
    /// The rest (unanimated) transform, local to the parent.
    pub transform: Transform,
    /// Index of the mesh this node shows.
    pub mesh: Option<usize>,
    /// Index of the camera on this node (looking down the node's −Z, +Y up).
    pub camera: Option<usize>,
    /// Index of the light on this node (shining down the node's −Z).
    pub light: Option<usize>,
    /// Index of the skin that deforms this node's mesh (every primitive of the mesh then has
    /// [`Primitive::joints`] and [`Primitive::weights`]). glTF ignores the transforms of a
    /// skinned mesh's node and its parents: put it on a root node with the identity transform.
    pub skin: Option<usize>,
    /// Default morph weights of the node's mesh (empty: all zero). Length = the mesh's targets.
    pub weights: Vec<f32>,
    /// True when the node (and so its subtree) is hidden at rest. glTF has no visibility: a
    /// hidden node is exported with scale 0.
    pub hidden: bool,
    /// Free-form data (glTF node `extras`).
    #[serde(skip_serializing_if = "serde_json::Value::is_null")]
    pub extras: serde_json::Value,
}

impl Node {
    /// A visible root node with an identity transform and nothing attached.
    pub fn new(name: impl Into<String>) -> Node {
        Node {
            name: name.into(),
            ..Node::default()
        }
    }
}

/// A node's local transform.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Transform {
    /// Translation, rotation, scale (applied as T·R·S).
    Trs {
        /// Translation in metres.
        translation: [f32; 3],
        /// Unit quaternion `[x, y, z, w]`.
        rotation: [f32; 4],
        /// Scale factors.
        scale: [f32; 3],
    },
    /// A column-major 4×4 matrix (`m[12..15]` is the translation); the bottom row must be
    /// `0 0 0 1`. Exporters write its TRS decomposition (glTF forbids animating matrix nodes and
    /// non-decomposable matrices): a shear is dropped. Animation channels replace the
    /// decomposed parts they target.
    Matrix([f32; 16]),
}

impl Transform {
    /// The identity, as TRS.
    pub const IDENTITY: Transform = Transform::Trs {
        translation: [0.0; 3],
        rotation: [0.0, 0.0, 0.0, 1.0],
        scale: [1.0; 3],
    };

    /// A pure translation.
    pub fn translation(t: [f32; 3]) -> Transform {
        Transform::Trs {
            translation: t,
            rotation: [0.0, 0.0, 0.0, 1.0],
            scale: [1.0; 3],
        }
    }
}

impl Default for Transform {
    fn default() -> Self {
        Transform::IDENTITY
    }
}

/// A skin: the joint nodes that move a mesh's vertices. A skinned vertex lands at
/// `Σ weight_k · world(joint_k) · inverse_bind_k · position` (glTF's linear blend skinning).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Skin {
    /// The skin's name.
    pub name: String,
    /// The joint nodes; [`Primitive::joints`] index this list. They must share one root node
    /// (which need not be a joint).
    pub joints: Vec<usize>,
    /// One column-major 4×4 matrix per joint that takes a bind-pose position into the joint's
    /// space (usually the inverse of the joint's world matrix at rest); empty means identity.
    pub inverse_bind_matrices: Vec<[f32; 16]>,
}

/// A camera. It looks down its node's −Z with +Y up.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Camera {
    /// The camera's name.
    pub name: String,
    /// The projection.
    pub projection: Projection,
}

/// A camera projection (glTF's).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Projection {
    /// Perspective projection.
    Perspective {
        /// Vertical field of view in radians (> 0, < π).
        yfov: f32,
        /// Near plane distance (> 0).
        znear: f32,
        /// Far plane distance (> znear); `None` for an infinite projection.
        zfar: Option<f32>,
        /// Width / height; `None` lets the viewer use its viewport's.
        aspect_ratio: Option<f32>,
    },
    /// Orthographic projection.
    Orthographic {
        /// Half the horizontal extent (≠ 0).
        xmag: f32,
        /// Half the vertical extent (≠ 0).
        ymag: f32,
        /// Near plane distance (≥ 0).
        znear: f32,
        /// Far plane distance (> znear).
        zfar: f32,
    },
}

/// A punctual light (glTF `KHR_lights_punctual`). Directional and spot lights shine down their
/// node's −Z.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Light {
    /// The light's name.
    pub name: String,
    /// What kind of light.
    pub kind: LightKind,
    /// Linear RGB colour, 0..1.
    pub color: [f32; 3],
    /// Intensity: lux for directional lights, candela for point and spot lights.
    pub intensity: f32,
    /// Range in metres beyond which the light has no effect (point and spot); `None`: infinite.
    pub range: Option<f32>,
}

/// The kind of a [`Light`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LightKind {
    /// Parallel rays (the sun; PlayStation GPU lights).
    Directional,
    /// Shines in every direction from the node's origin.
    Point,
    /// A cone down −Z.
    Spot {
        /// Angle in radians from the axis where falloff begins (≥ 0, < outer).
        inner_cone_angle: f32,
        /// Angle in radians from the axis where the light ends (≤ π/2).
        outer_cone_angle: f32,
    },
}
