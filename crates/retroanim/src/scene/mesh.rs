//! Meshes, morph targets, materials and textures.

use serde::{Deserialize, Serialize};

/// A mesh: one or more primitives sharing a set of named morph targets.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Mesh {
    /// The mesh's name.
    pub name: String,
    /// The primitives (one per material, typically).
    pub primitives: Vec<Primitive>,
    /// The names of the morph targets; every primitive has exactly this many
    /// [`Primitive::targets`], in this order. Exported as glTF `mesh.extras.targetNames`
    /// (what Blender and three.js read).
    pub target_names: Vec<String>,
    /// Free-form data (glTF mesh `extras`; `targetNames` is added to it).
    #[serde(skip_serializing_if = "serde_json::Value::is_null")]
    pub extras: serde_json::Value,
}

/// How a primitive's indices are read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PrimitiveMode {
    /// Three indices per triangle, counter-clockwise front.
    #[default]
    Triangles,
    /// Two indices per line segment.
    Lines,
    /// One index per point.
    Points,
}

/// Vertex data drawn with one material.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Primitive {
    /// How `indices` are read.
    pub mode: PrimitiveMode,
    /// Vertex positions in metres.
    pub positions: Vec<[f32; 3]>,
    /// Per-vertex normals (same length as `positions`, or empty). Need not be unit length: the
    /// exporter normalises them (a zero normal becomes +Y).
    pub normals: Vec<[f32; 3]>,
    /// Per-vertex texture coordinates (same length as `positions`, or empty).
    pub uvs: Vec<[f32; 2]>,
    /// Per-vertex linear RGBA colours (same length as `positions`, or empty).
    pub colors: Vec<[f32; 4]>,
    /// Per-vertex skin joints: up to four indices into the node's [`crate::scene::Skin::joints`]
    /// (same length as `positions`, or empty for an unskinned primitive).
    pub joints: Vec<[u16; 4]>,
    /// Per-vertex skin weights for `joints`, each set summing to 1; unused slots have weight 0.
    pub weights: Vec<[f32; 4]>,
    /// Vertex indices; empty means "draw the vertices in order".
    pub indices: Vec<u32>,
    /// Index of the material; `None` uses the viewer's default material.
    pub material: Option<usize>,
    /// Morph targets, one per [`Mesh::target_names`] entry.
    pub targets: Vec<MorphTarget>,
}

/// Whether a morph target's positions replace or add to the base positions.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MorphTargetKind {
    /// Positions are where the vertex is when the target's weight is 1 (a point-cache frame).
    /// The exporter subtracts the base positions (glTF stores displacements).
    #[default]
    Absolute,
    /// Positions are displacements added to the base positions (glTF's own form).
    Delta,
}

/// One morph target of one primitive.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct MorphTarget {
    /// How `positions` are meant.
    pub kind: MorphTargetKind,
    /// One position (or displacement) per vertex of the primitive.
    pub positions: Vec<[f32; 3]>,
    /// One normal displacement per vertex of the primitive (glTF target `NORMAL`, added to the
    /// exported unit normals whatever the `kind`), or empty: the target moves no normal.
    pub normals: Vec<[f32; 3]>,
}

/// How a material's alpha is used.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AlphaMode {
    /// Alpha ignored.
    #[default]
    Opaque,
    /// Alpha below `cutoff` is fully transparent, the rest opaque (PlayStation colour-0
    /// transparency).
    Mask {
        /// The alpha cut-off, 0..1.
        cutoff: f32,
    },
    /// Alpha blended.
    Blend,
}

/// A material: base colour, optionally times a texture.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Material {
    /// The material's name (for P3D, the texture and .rvmat paths).
    pub name: String,
    /// Linear RGBA base colour factor, multiplied with the texture and vertex colours.
    pub base_color: [f32; 4],
    /// Index of the base colour texture.
    pub texture: Option<usize>,
    /// Alpha handling.
    pub alpha_mode: AlphaMode,
    /// Draw back faces too.
    pub double_sided: bool,
    /// Shade without lights (glTF `KHR_materials_unlit`): what the colours were authored for
    /// on consoles that lit by vertex colour only.
    pub unlit: bool,
    /// Free-form data (glTF material `extras`).
    #[serde(skip_serializing_if = "serde_json::Value::is_null")]
    pub extras: serde_json::Value,
}

impl Default for Material {
    fn default() -> Self {
        Material {
            name: String::new(),
            base_color: [1.0; 4],
            texture: None,
            alpha_mode: AlphaMode::Opaque,
            double_sided: false,
            unlit: false,
            extras: serde_json::Value::Null,
        }
    }
}

/// How a texture is sampled when magnified or minified.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TextureFilter {
    /// Nearest texel (what the PlayStation GPU did).
    #[default]
    Nearest,
    /// Bilinear.
    Linear,
}

/// An RGBA8 image, exported as an embedded PNG.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Texture {
    /// The texture's name (file name it came from, TIM index, ...).
    pub name: String,
    /// Width in pixels (> 0).
    pub width: u32,
    /// Height in pixels (> 0).
    pub height: u32,
    /// `width × height × 4` bytes, rows top to bottom, RGBA, sRGB.
    pub pixels: Vec<u8>,
    /// Sampling filter.
    pub filter: TextureFilter,
    /// Repeat (true) or clamp to edge (false) outside 0..1.
    pub repeat: bool,
}
