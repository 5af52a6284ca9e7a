//! Interchange formats read into the neutral [`crate::scene::Scene`], mirroring [`crate::export`].
//!
//! Each console format's own bridge into the scene sits in its folder
//! (`formats/tmd/scene.rs`, `formats/tod/scene.rs`, `formats/hmd/scene.rs`,
//! `formats/p3d/scene.rs`); this module holds what comes from outside: [`gltf`] (glTF 2.0 and
//! GLB, the authoring path from Blender to the console formats).

pub mod gltf;
