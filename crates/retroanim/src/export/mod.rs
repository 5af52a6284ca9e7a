//! Exporters from the neutral [`crate::scene::Scene`] (and point caches) to interchange formats.
//!
//! - [`gltf`]: glTF 2.0, `.gltf` (JSON with the binary data embedded as a base64 data URI) and
//!   `.glb`.
//! - [`point_cache_scene`]: a point cache as a scene (points + one morph target per frame), so
//!   MDD and PC2 export to glTF.
//!
//! Point caches are written by their own format modules: [`crate::formats::mdd`] and
//! [`crate::formats::pc2`] (`Mdd::from_point_cache`, `Pc2::from_point_cache`, and the streaming
//! writers).

pub mod gltf;
mod point_cache;

pub use point_cache::point_cache_scene;
