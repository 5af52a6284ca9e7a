//! Scene → glTF 2.0, as `.gltf` (JSON, the binary data embedded as a base64 data URI) or
//! `.glb` (binary container), written through the `gltf-json` crate.
//!
//! ```
//! use retroanim::scene::{Node, Scene};
//! let mut scene = Scene::default();
//! scene.nodes.push(Node::new("root"));
//! let glb = retroanim::export::gltf::write_glb(&scene)?;
//! assert_eq!(&glb[..4], b"glTF");
//! # Ok::<(), retroanim::Error>(())
//! ```
//!
//! What the exporter does so the Khronos glTF Validator reports no error and no warning:
//! - refuses scenes [`Scene::check`] rejects ([`Error::Unencodable`] listing every problem);
//! - writes only what is used: meshes, materials, textures, cameras and lights no node (or
//!   used material) refers to are left out, and indices are renumbered;
//! - gives every `POSITION` accessor (base and morph targets) and every animation input its
//!   min/max; normalises normals (a zero normal becomes +Y) and rotation keys; clamps vertex
//!   colours to 0..1;
//! - stores morph targets as displacements (absolute targets minus the base positions), names
//!   them in `mesh.extras.targetNames`, and keeps one weights channel per node;
//! - writes node matrices as their TRS decomposition (glTF requires decomposable matrices and
//!   forbids animating matrix nodes); shear, which TRS cannot hold, is dropped;
//! - turns visibility into scale: a node hidden at rest gets scale 0; a visibility channel
//!   becomes scale keys (0 while hidden), multiplied into the node's scale channel if it has one.
//!   With a STEP (or no) scale channel the result is STEP; with a LINEAR or CUBICSPLINE scale
//!   channel the result is LINEAR, sampled at the union of the keys, with an extra key 1 ms
//!   before each visibility change so the jump stays (nearly) a jump: glTF cannot key two values
//!   at one time, and Blender's importer merges keys closer than 1/100 frame, so one f32 step
//!   would not do. Cubic scale curves are reduced to their values at those keys;
//! - skins become glTF skins (joints are the scene's node indices, inverse bind matrices as a
//!   MAT4 accessor) with `JOINTS_0` (unsigned short) and `WEIGHTS_0` (float) attributes;
//! - lights become `KHR_lights_punctual`, unlit materials `KHR_materials_unlit` (both listed in
//!   `extensionsUsed`, neither required).

mod builder;
mod mesh;
mod transform;
mod visibility;

use base64::Engine;
use gltf_json as json;
use json::validation::{Checked, USize64};
use json::Index;

use crate::bytes::{Le, Writer};
use crate::scene::{Interpolation, LightKind, Projection, Scene, Track};
use crate::{Error, Format, Result};
use builder::Builder;

/// Writes `scene` as a `.gltf`: one JSON document with the binary data embedded as a base64
/// `data:` URI.
pub fn write_gltf(scene: &Scene) -> Result<Vec<u8>> {
    let (mut root, bin, _) = build(scene, false)?;
    if let Some(buf) = root.buffers.first_mut() {
        buf.uri = Some(format!(
            "data:application/octet-stream;base64,{}",
            base64::engine::general_purpose::STANDARD.encode(&bin)
        ));
    }
    let mut out = serde_json::to_vec_pretty(&root).map_err(|e| unencodable(e.to_string()))?;
    out.push(b'\n');
    Ok(out)
}

/// Writes `scene` as a `.glb` (binary glTF: a JSON chunk and a BIN chunk).
pub fn write_glb(scene: &Scene) -> Result<Vec<u8>> {
    let (root, mut bin, _) = build(scene, false)?;
    let mut json = serde_json::to_vec(&root).map_err(|e| unencodable(e.to_string()))?;
    while json.len() % 4 != 0 {
        json.push(b' ');
    }
    while bin.len() % 4 != 0 {
        bin.push(0);
    }
    let total = 12 + 8 + json.len() + if bin.is_empty() { 0 } else { 8 + bin.len() };
    let total = u32::try_from(total).map_err(|_| unencodable("larger than 4 GiB".into()))?;
    let mut out = Writer::<Le>::with_capacity(total as usize);
    out.bytes(b"glTF");
    out.u32(2);
    out.u32(total);
    out.u32(json.len() as u32);
    out.bytes(b"JSON");
    out.bytes(&json);
    if !bin.is_empty() {
        out.u32(bin.len() as u32);
        out.bytes(b"BIN\0");
        out.bytes(&bin);
    }
    Ok(out.into_vec())
}

/// A `.gltf` whose binary data lies in files beside it, in two parts: the scene's meshes,
/// materials and images, all of them whether a node shows them or not (so every animation of
/// one model writes the same bytes, whichever of its objects it shows, and they can share one
/// file), and the rest (skins, animations: the scene's own).
#[derive(Debug, Clone)]
pub struct Parts {
    root: json::Root,
    /// Meshes, materials and images (empty when the scene has none).
    pub shared: Vec<u8>,
    /// Everything else (empty when nothing else).
    pub own: Vec<u8>,
}

impl Parts {
    /// The `.gltf` JSON with its buffers at `shared_uri` and `own_uri` (relative URIs, already
    /// escaped); a part that is empty has no buffer.
    pub fn gltf(&self, shared_uri: &str, own_uri: &str) -> Result<Vec<u8>> {
        let mut root = self.root.clone();
        let uris = [shared_uri, own_uri];
        for (buffer, uri) in root.buffers.iter_mut().zip(
            [&self.shared, &self.own]
                .iter()
                .zip(uris)
                .filter(|(b, _)| !b.is_empty())
                .map(|(_, u)| u),
        ) {
            buffer.uri = Some(uri.to_string());
        }
        let mut out = serde_json::to_vec_pretty(&root).map_err(|e| unencodable(e.to_string()))?;
        out.push(b'\n');
        Ok(out)
    }

    /// The parts as files beside a `.gltf` at `name` (a `/`-separated path of URI-safe
    /// characters, without the extension): the model part as `NAME.model.bin`, the rest as
    /// `NAME.bin`, each given to `put`, which writes the bytes and returns the path that holds
    /// them (an earlier identical file's, so that every animation of one model shares one model
    /// part). Returns the `.gltf` JSON, its buffers at URIs relative to `name`'s folder, and the
    /// paths it points at. The report (`scan --report`) and the extraction
    /// (`scan --extract --convert gltf`) both write through this; `put`'s error type is the
    /// caller's.
    pub fn files<E: From<Error>>(
        &self,
        name: &str,
        mut put: impl FnMut(String, &[u8]) -> std::result::Result<String, E>,
    ) -> std::result::Result<(Vec<u8>, Vec<String>), E> {
        let mut beside = Vec::new();
        let mut uri = |path: String, bytes: &[u8]| -> std::result::Result<String, E> {
            if bytes.is_empty() {
                return Ok(String::new());
            }
            let held = put(path, bytes)?;
            let uri = relative_uri(name, &held);
            beside.push(held);
            Ok(uri)
        };
        let shared = uri(format!("{name}.model.bin"), &self.shared)?;
        let own = uri(format!("{name}.bin"), &self.own)?;
        Ok((self.gltf(&shared, &own)?, beside))
    }
}

/// The URI of file `to` seen from file `from` (both `/`-separated paths below one folder, of
/// URI-safe characters).
pub fn relative_uri(from: &str, to: &str) -> String {
    let from: Vec<&str> = from.split('/').collect();
    let to: Vec<&str> = to.split('/').collect();
    let from_dir = &from[..from.len() - 1];
    let common = from_dir
        .iter()
        .zip(&to)
        .take_while(|(a, b)| a == b)
        .count()
        .min(to.len() - 1);
    let mut parts: Vec<&str> = vec![".."; from_dir.len() - common];
    parts.extend(&to[common..]);
    parts.join("/")
}

/// Writes `scene` as a `.gltf` whose binary data is in two [`Parts`].
pub fn write_parts(scene: &Scene) -> Result<Parts> {
    let (mut root, mut bin, split) = build(scene, true)?;
    let own = bin.split_off(split.min(bin.len()));
    let shared = bin;
    let own_index = u32::from(!shared.is_empty());
    root.buffers.clear();
    for part in [&shared, &own] {
        if !part.is_empty() {
            root.buffers.push(json::Buffer {
                byte_length: USize64::from(part.len()),
                name: None,
                uri: None,
                extensions: None,
                extras: None,
            });
        }
    }
    for view in &mut root.buffer_views {
        let offset = view.byte_offset.map_or(0, |o| o.0);
        if offset >= split as u64 && !own.is_empty() {
            view.buffer = Index::new(own_index);
            view.byte_offset = Some(USize64(offset - split as u64));
        }
    }
    Ok(Parts { root, shared, own })
}

/// Writes `.gltf` or `.glb` by `format`.
pub fn write(scene: &Scene, format: Format) -> Result<Vec<u8>> {
    match format {
        Format::Gltf => write_gltf(scene),
        Format::Glb => write_glb(scene),
        other => Err(Error::Unencodable {
            format: other,
            what: "the glTF exporter writes only gltf and glb".into(),
        }),
    }
}

fn unencodable(what: String) -> Error {
    Error::Unencodable {
        format: Format::Gltf,
        what,
    }
}

fn extras(v: &serde_json::Value) -> json::Extras {
    if v.is_null() {
        return None;
    }
    serde_json::value::to_raw_value(v).ok()
}

fn name(s: &str) -> Option<String> {
    (!s.is_empty()).then(|| s.to_string())
}

/// Builds the glTF document and its binary buffer, and where in the buffer (4-aligned) the
/// meshes, materials and images end. With `every_mesh`, the meshes no node shows are written
/// too (the validator's `UNUSED_OBJECT`, a hint, not a warning).
fn build(scene: &Scene, every_mesh: bool) -> Result<(json::Root, Vec<u8>, usize)> {
    let problems = scene.check();
    if !problems.is_empty() {
        return Err(Error::InconsistentScene {
            format: Format::Gltf,
            problems,
        });
    }
    let mut b = Builder::new();
    let used = mesh::Used::of(scene, every_mesh);

    // Textures, materials, meshes: only what the nodes use, renumbered.
    let textures = mesh::textures(&mut b, scene, &used)?;
    let materials = mesh::materials(&mut b, scene, &used, &textures);
    let meshes = mesh::meshes(&mut b, scene, &used, &materials);
    while b.bin.len() % 4 != 0 {
        b.bin.push(0);
    }
    let split = b.bin.len();

    let skins = skins(&mut b, scene, &used);
    let mut cameras = vec![None; scene.cameras.len()];
    for (i, c) in scene.cameras.iter().enumerate() {
        if !used.cameras[i] {
            continue;
        }
        cameras[i] = Some(b.root.push(camera(c)));
    }
    let mut lights = vec![None; scene.lights.len()];
    let mut light_list = Vec::new();
    for (i, l) in scene.lights.iter().enumerate() {
        if used.lights[i] {
            lights[i] = Some(Index::new(light_list.len() as u32));
            light_list.push(light(l));
        }
    }

    // Animated visibility and scale merge into one scale channel per node.
    let anims = visibility::merge(scene);

    let mut children: Vec<Vec<Index<json::Node>>> = vec![Vec::new(); scene.nodes.len()];
    let mut roots = Vec::new();
    for (i, n) in scene.nodes.iter().enumerate() {
        match n.parent {
            Some(p) => children[p].push(Index::new(i as u32)),
            None => roots.push(Index::new(i as u32)),
        }
    }
    // Nodes an animation moves record their rest in their `retroanim` extras (Blender writes
    // an animated object's current pose as its transform).
    let mut animated = vec![false; scene.nodes.len()];
    for c in anims.iter().flat_map(|a| &a.channels) {
        if !matches!(c.track, Track::Weights(_)) {
            if let Some(x) = animated.get_mut(c.node) {
                *x = true;
            }
        }
    }
    for (i, n) in scene.nodes.iter().enumerate() {
        let (t, r, s) = transform::trs(&n.transform);
        let s = if n.hidden { [0.0; 3] } else { s };
        let node_extras = if animated[i] {
            crate::scene::extras::with_rest(&n.extras, t, r, s)
        } else {
            n.extras.clone()
        };
        let ext = n
            .light
            .and_then(|l| lights[l])
            .map(|light| json::extensions::scene::Node {
                khr_lights_punctual: Some(
                    json::extensions::scene::khr_lights_punctual::KhrLightsPunctual { light },
                ),
                others: Default::default(),
            });
        let node = json::Node {
            camera: n.camera.and_then(|c| cameras[c]),
            children: (!children[i].is_empty()).then(|| children[i].clone()),
            extensions: ext,
            extras: extras(&node_extras),
            matrix: None,
            mesh: n.mesh.and_then(|m| meshes[m]),
            name: name(&n.name),
            rotation: (r != [0.0, 0.0, 0.0, 1.0]).then_some(json::scene::UnitQuaternion(r)),
            scale: (s != [1.0; 3]).then_some(s),
            translation: (t != [0.0; 3]).then_some(t),
            skin: n.skin.and_then(|s| skins[s]),
            weights: (!n.weights.is_empty()).then(|| n.weights.clone()),
        };
        b.root.push(node);
    }
    // The animations' own `retroanim` extras also in the scene's: Blender keeps those.
    let written = anims.iter().filter(|a| {
        a.channels
            .iter()
            .any(|c| !matches!(c.track, Track::Visibility(_)))
    });
    let scene_index = b.root.push(json::Scene {
        extensions: None,
        extras: extras(&crate::scene::extras::with_animation_records(
            &scene.extras,
            written,
        )),
        name: scene.name.clone(),
        nodes: roots,
    });
    b.root.scene = Some(scene_index);

    for a in &anims {
        if a.channels.is_empty() {
            continue;
        }
        let mut samplers = Vec::new();
        let mut channels = Vec::new();
        for c in &a.channels {
            let input = b.times(&c.times);
            let (output, path) = match &c.track {
                Track::Translation(v) => (
                    b.floats(v, None, false),
                    json::animation::Property::Translation,
                ),
                Track::Scale(v) => (b.floats(v, None, false), json::animation::Property::Scale),
                Track::Rotation(v) => {
                    let v = transform::normalized_rotations(v, c.interpolation);
                    (
                        b.floats(&v, None, false),
                        json::animation::Property::Rotation,
                    )
                }
                Track::Weights(w) => {
                    let flat: Vec<f32> = w.iter().flatten().copied().collect();
                    (
                        b.scalars(&flat),
                        json::animation::Property::MorphTargetWeights,
                    )
                }
                // visibility::merge turned every visibility track into scale.
                Track::Visibility(_) => continue,
            };
            let sampler = Index::new(samplers.len() as u32);
            samplers.push(json::animation::Sampler {
                extensions: None,
                extras: None,
                input,
                interpolation: Checked::Valid(match c.interpolation {
                    Interpolation::Step => json::animation::Interpolation::Step,
                    Interpolation::Linear => json::animation::Interpolation::Linear,
                    Interpolation::Cubicspline => json::animation::Interpolation::CubicSpline,
                }),
                output,
            });
            channels.push(json::animation::Channel {
                sampler,
                target: json::animation::Target {
                    extensions: None,
                    extras: None,
                    node: Index::new(c.node as u32),
                    path: Checked::Valid(path),
                },
                extensions: None,
                extras: None,
            });
        }
        if channels.is_empty() {
            continue;
        }
        b.root.push(json::Animation {
            extensions: None,
            extras: extras(&a.extras),
            channels,
            name: name(&a.name),
            samplers,
        });
    }

    if !light_list.is_empty() {
        b.root.extensions = Some(json::extensions::root::Root {
            khr_lights_punctual: Some(json::extensions::root::KhrLightsPunctual {
                lights: light_list,
            }),
            ..Default::default()
        });
        b.root.extensions_used.push("KHR_lights_punctual".into());
    }
    if b.root
        .materials
        .iter()
        .any(|m| m.extensions.as_ref().is_some_and(|e| e.unlit.is_some()))
    {
        b.root.extensions_used.push("KHR_materials_unlit".into());
    }
    if !b.bin.is_empty() {
        while b.bin.len() % 4 != 0 {
            b.bin.push(0);
        }
        let len = b.bin.len();
        b.root.buffers.push(json::Buffer {
            byte_length: USize64::from(len),
            name: None,
            uri: None,
            extensions: None,
            extras: None,
        });
    }
    Ok((b.root, b.bin, split))
}

/// The used skins: joints (node indices are kept as they are) and inverse bind matrices.
fn skins(b: &mut Builder, scene: &Scene, used: &mesh::Used) -> Vec<Option<Index<json::Skin>>> {
    let mut out = vec![None; scene.skins.len()];
    for (i, s) in scene.skins.iter().enumerate() {
        if !used.skins[i] {
            continue;
        }
        let ibm = (!s.inverse_bind_matrices.is_empty())
            .then(|| b.floats(&s.inverse_bind_matrices, None, false));
        out[i] = Some(b.root.push(json::Skin {
            extensions: None,
            extras: None,
            inverse_bind_matrices: ibm,
            joints: s.joints.iter().map(|&j| Index::new(j as u32)).collect(),
            name: name(&s.name),
            skeleton: None,
        }));
    }
    out
}

fn camera(c: &crate::scene::Camera) -> json::Camera {
    let (type_, perspective, orthographic) = match c.projection {
        Projection::Perspective {
            yfov,
            znear,
            zfar,
            aspect_ratio,
        } => (
            json::camera::Type::Perspective,
            Some(json::camera::Perspective {
                aspect_ratio,
                yfov,
                zfar,
                znear,
                extensions: None,
                extras: None,
            }),
            None,
        ),
        Projection::Orthographic {
            xmag,
            ymag,
            znear,
            zfar,
        } => (
            json::camera::Type::Orthographic,
            None,
            Some(json::camera::Orthographic {
                xmag,
                ymag,
                zfar,
                znear,
                extensions: None,
                extras: None,
            }),
        ),
    };
    json::Camera {
        name: name(&c.name),
        orthographic,
        perspective,
        type_: Checked::Valid(type_),
        extensions: None,
        extras: None,
    }
}

fn light(l: &crate::scene::Light) -> json::extensions::scene::khr_lights_punctual::Light {
    use json::extensions::scene::khr_lights_punctual as k;
    let (type_, spot) = match l.kind {
        LightKind::Directional => (k::Type::Directional, None),
        LightKind::Point => (k::Type::Point, None),
        LightKind::Spot {
            inner_cone_angle,
            outer_cone_angle,
        } => (
            k::Type::Spot,
            Some(k::Spot {
                inner_cone_angle,
                outer_cone_angle,
            }),
        ),
    };
    k::Light {
        color: l.color,
        extensions: None,
        extras: None,
        intensity: l.intensity,
        name: name(&l.name),
        range: match l.kind {
            LightKind::Directional => None,
            _ => l.range,
        },
        spot,
        type_: Checked::Valid(type_),
    }
}

#[cfg(test)]
mod tests {
    use super::relative_uri;

    #[test]
    fn uris_between_files_of_one_folder_tree() {
        assert_eq!(relative_uri("a/x.tod", "a/y.bin"), "y.bin");
        assert_eq!(relative_uri("a/b/x.tod", "a/y.bin"), "../y.bin");
        assert_eq!(relative_uri("x.tod", "a/b/y.bin"), "a/b/y.bin");
        assert_eq!(relative_uri("c/x.tod", "a/b/y.bin"), "../a/b/y.bin");
        assert_eq!(relative_uri("glb/7", "glb/3.model.bin"), "3.model.bin");
    }
}
