//! Exporters from the neutral [`crate::scene::Scene`] (and point caches) to interchange formats.
//!
//! - [`gltf`]: glTF 2.0, `.gltf` (JSON with the binary data embedded as a base64 data URI) and
//!   `.glb`.
//!
//! Point caches are written by their own format modules: [`crate::formats::mdd`] and
//! [`crate::formats::pc2`] (`Mdd::from_point_cache`, `Pc2::from_point_cache`, and the streaming
//! writers).

pub mod gltf;
