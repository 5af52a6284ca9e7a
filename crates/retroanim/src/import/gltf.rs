//! glTF 2.0 (`.gltf` with embedded data URIs, `.glb`) → the neutral [`Scene`]: the first step of
//! authoring for the console (glTF from Blender → TMD/TIM/TOD/HMD).
//!
//! The document is parsed with `gltf-json` (the `gltf` project's own types); accessors are read
//! here through [`crate::bytes`], every byte range checked against the buffer actually present
//! before anything is allocated, so a hostile file is an error naming the glTF path, never a
//! panic.
//!
//! Read: nodes (TRS or matrix), hierarchy, meshes (triangles; positions, normals, the first UV
//! set and colour set, joints/weights, indices, morph-target positions and normals), materials (base colour
//! factor and texture, alpha mode, double-sided, `KHR_materials_unlit`), PNG textures, cameras,
//! `KHR_lights_punctual` lights (directional, point, spot: colour, intensity, range, cone
//! angles) on their nodes, skins and animations (translation, rotation, scale and weights; STEP, LINEAR, CUBICSPLINE).
//! Anything else the file holds is named in a note with its count: never dropped silently.
//!
//! Cameras and lights are read in `punctual.rs`, animations in `animation.rs`; both use this
//! module's context (buffers, limits, notes).

use std::collections::BTreeMap;

use base64::Engine as _;
use gltf_json as json;
use json::validation::Checked;

use crate::bytes::{ByteOrder, Le};
use crate::error::{Error, Result};

mod accessor;
mod animation;
mod blender;
mod punctual;
use crate::scene::{
    AlphaMode, Animation, Camera, Channel, Interpolation, Light, LightKind, Material, Mesh,
    MorphTarget, MorphTargetKind, Node, Primitive, PrimitiveMode, Projection, Scene, Skin, Texture,
    TextureFilter, Track, Transform,
};
use crate::{Format, Limits};
use animation::animation;
use punctual::{camera, lights};

/// A glTF file read into a scene, with what could not be carried.
#[derive(Debug, Clone)]
pub struct Imported {
    /// The scene.
    pub scene: Scene,
    /// What the file holds that the scene does not (what and how many).
    pub notes: Vec<String>,
}

/// `N` bytes at `at`, or an error naming the offset.
fn at<const N: usize>(data: &[u8], at: u64) -> Result<[u8; N]> {
    usize::try_from(at)
        .ok()
        .and_then(|a| data.get(a..a.checked_add(N)?))
        .and_then(|b| b.try_into().ok())
        .ok_or_else(|| malformed(at, format!("expected {N} bytes, the data ends first")))
}

fn u32_at(data: &[u8], p: u64) -> Result<u32> {
    at::<4>(data, p).map(Le::u32_from)
}

fn malformed(offset: u64, what: impl Into<String>) -> Error {
    Error::Malformed {
        format: Format::Gltf,
        offset,
        what: what.into(),
    }
}

/// Reads a `.gltf` (JSON, buffers as data URIs) or `.glb` file.
pub fn read(data: &[u8], limits: &Limits) -> Result<Imported> {
    let (json_bytes, bin) = split_glb(data)?;
    let does_not_parse =
        |e: serde_json::Error| malformed(0, format!("the glTF JSON does not parse: {e}"));
    let mut value: serde_json::Value =
        serde_json::from_slice(json_bytes).map_err(does_not_parse)?;
    // A scene's `nodes` is optional in glTF 2.0 (an empty scene omits it: an empty array is
    // invalid) but required by gltf-json's `Scene`.
    if let Some(scenes) = value.get_mut("scenes").and_then(|s| s.as_array_mut()) {
        for s in scenes.iter_mut().filter_map(|s| s.as_object_mut()) {
            s.entry("nodes")
                .or_insert_with(|| serde_json::Value::Array(Vec::new()));
        }
    }
    // The node count is judged before the document is typed: every node costs a scene node,
    // and the console formats a coordinate or object each.
    let node_count = value
        .get("nodes")
        .and_then(|n| n.as_array())
        .map_or(0, |a| a.len() as u64);
    crate::limits::budget(
        "the glTF's nodes",
        "max_scene_nodes",
        node_count,
        limits.max_scene_nodes,
    )?;
    let root: json::Root = serde_json::from_value(value).map_err(does_not_parse)?;
    crate::limits::budget(
        "the glTF's vertex data, a copy for each primitive and node that uses it",
        "max_expanded_bytes",
        expanded_bytes(&root),
        limits.max_expanded_bytes,
    )?;
    let mut notes = Notes::default();
    let buffers = load_buffers(&root, bin, limits)?;
    let ctx = Ctx {
        root: &root,
        buffers,
        limits,
    };
    let mut scene = Scene {
        nodes: nodes(&ctx)?,
        // The scene the file shows (its `scene`, else the first) carries the scene extras.
        extras: root
            .scene
            .map(|s| s.value())
            .or(Some(0))
            .and_then(|s| root.scenes.get(s))
            .map_or(serde_json::Value::Null, |s| extras_value(&s.extras)),
        ..Scene::default()
    };
    for (i, m) in root.meshes.iter().enumerate() {
        scene.meshes.push(mesh(&ctx, i, m, &mut notes)?);
    }
    for m in &root.materials {
        scene.materials.push(material(&ctx, m, &mut notes)?);
    }
    // One scene texture per image: textures that name the same image share its pixels, decoded
    // once; and the pixels all images' headers declare are checked together against the byte
    // limit before any is decoded.
    let mut by_image = std::collections::HashMap::new();
    let mut texture_of = Vec::with_capacity(root.textures.len());
    let mut images = Vec::new();
    for (i, t) in root.textures.iter().enumerate() {
        let k = match by_image.get(&t.source.value()) {
            Some(&k) => k,
            None => {
                images.push(image_bytes(&ctx, i, t, &mut notes)?);
                by_image.insert(t.source.value(), images.len() - 1);
                images.len() - 1
            }
        };
        texture_of.push(k);
    }
    let mut declared = 0u64;
    for (_, bytes) in &images {
        if bytes.starts_with(b"\x89PNG") {
            let (w, h) = crate::formats::tim::png_dimensions(bytes)?;
            crate::formats::tim::image_pixels(limits, w, h)?;
            declared = declared.saturating_add(u64::from(w) * u64::from(h) * 4);
        }
    }
    limits.bytes(None, "the decoded pixels of the glTF's images", declared)?;
    for (name, bytes) in images {
        scene
            .textures
            .push(texture(&ctx, name, &bytes, &mut notes)?);
    }
    for m in &mut scene.materials {
        m.texture = m.texture.and_then(|t| texture_of.get(t).copied());
    }
    for c in &root.cameras {
        scene.cameras.push(camera(c));
    }
    scene.lights = lights(&root, &mut notes);
    for (i, s) in root.skins.iter().enumerate() {
        scene.skins.push(skin(&ctx, i, s)?);
    }
    for (i, a) in root.animations.iter().enumerate() {
        scene.animations.push(animation(&ctx, i, a, &mut notes)?);
    }
    blender::restore_animation_extras(&mut scene);
    blender::restore_rests(&mut scene);
    if !root.extensions_used.is_empty() {
        for e in &root.extensions_used {
            if e != "KHR_materials_unlit" && e != "KHR_lights_punctual" {
                notes.add(&format!("extension {e}"), 1);
            }
        }
    }
    // A file whose parts do not fit together is the input's fault (malformed), not the
    // target's: every problem is named, by its place in the scene read from it.
    let problems = scene.check();
    if !problems.is_empty() {
        let list: Vec<String> = problems.iter().map(|p| p.to_string()).collect();
        return Err(malformed(
            0,
            format!("the glTF scene is inconsistent: {}", list.join("; ")),
        ));
    }
    Ok(Imported {
        scene,
        notes: notes.finish(),
    })
}

/// The bytes the meshes' vertex data takes in the scene once read: each accessor a primitive
/// uses counted again for every primitive that reads it (4 bytes per component, an index 4),
/// and each mesh once per node that shows it, since the console formats copy it per instance.
/// Judged from the accessors' counts, before any is read.
fn expanded_bytes(root: &json::Root) -> u64 {
    let elements = |a: usize| -> u64 {
        root.accessors.get(a).map_or(0, |acc| {
            let comps = match acc.type_ {
                Checked::Valid(t) => t.multiplicity() as u64,
                Checked::Invalid => 1,
            };
            acc.count.0.saturating_mul(comps).saturating_mul(4)
        })
    };
    let mut uses = vec![0u64; root.meshes.len()];
    for m in root.nodes.iter().filter_map(|n| n.mesh) {
        if let Some(u) = uses.get_mut(m.value()) {
            *u += 1;
        }
    }
    let mut total = 0u64;
    for (m, mesh) in root.meshes.iter().enumerate() {
        let mut size = 0u64;
        for p in &mesh.primitives {
            let attrs = p.attributes.values().map(|a| elements(a.value()));
            let targets = p
                .targets
                .iter()
                .flatten()
                .flat_map(|t| t.positions.into_iter().chain(t.normals));
            let indices = p.indices.map(|a| elements(a.value()));
            size = attrs
                .chain(targets.map(|a| elements(a.value())))
                .chain(indices)
                .fold(size, u64::saturating_add);
        }
        total = total.saturating_add(size.saturating_mul(uses[m].max(1)));
    }
    total
}

/// A glTF `extras` object as JSON (`Null` when absent or not valid JSON): carried into the
/// scene so that the console authors can read what an export kept (`docs/extras.md`).
pub(crate) fn extras_value(e: &json::Extras) -> serde_json::Value {
    e.as_ref()
        .and_then(|raw| serde_json::from_str(raw.get()).ok())
        .map_or(serde_json::Value::Null, blender::recover)
}

/// What was left out, counted per kind.
#[derive(Default)]
struct Notes(BTreeMap<String, usize>);

impl Notes {
    fn add(&mut self, what: &str, n: usize) {
        *self.0.entry(what.to_string()).or_default() += n;
    }
    fn finish(self) -> Vec<String> {
        self.0
            .into_iter()
            .map(|(what, n)| format!("{n} × {what} left out"))
            .collect()
    }
}

struct Ctx<'a> {
    root: &'a json::Root,
    buffers: Vec<Vec<u8>>,
    limits: &'a Limits,
}

/// The JSON chunk and the BIN chunk of a GLB, or the whole file as JSON.
fn split_glb(data: &[u8]) -> Result<(&[u8], Option<&[u8]>)> {
    if data.get(..4) != Some(b"glTF") {
        return Ok((data, None));
    }
    let version = u32_at(data, 4)?;
    if version != 2 {
        return Err(malformed(
            4,
            format!("GLB version {version}; only 2 is read"),
        ));
    }
    let total = u32_at(data, 8)? as usize;
    if total > data.len() {
        return Err(malformed(
            8,
            format!("GLB length {total} but the file has {} bytes", data.len()),
        ));
    }
    let json_len = u32_at(data, 12)? as usize;
    if u32_at(data, 16)? != 0x4E4F_534A {
        return Err(malformed(16, "expected the JSON chunk first"));
    }
    let json_end = 20usize
        .checked_add(json_len)
        .filter(|&e| e <= total)
        .ok_or_else(|| {
            malformed(
                12,
                format!("JSON chunk of {json_len} bytes runs past the end"),
            )
        })?;
    let mut bin = None;
    if json_end + 8 <= total {
        let len = u32_at(data, json_end as u64)? as usize;
        if u32_at(data, json_end as u64 + 4)? == 0x004E_4942 {
            let start = json_end + 8;
            let end = start
                .checked_add(len)
                .filter(|&e| e <= total)
                .ok_or_else(|| {
                    malformed(
                        json_end as u64,
                        format!("BIN chunk of {len} bytes runs past the end"),
                    )
                })?;
            bin = Some(&data[start..end]);
        }
    }
    Ok((&data[20..json_end], bin))
}

fn load_buffers(root: &json::Root, bin: Option<&[u8]>, limits: &Limits) -> Result<Vec<Vec<u8>>> {
    let mut out = Vec::with_capacity(root.buffers.len().min(1024));
    for (i, b) in root.buffers.iter().enumerate() {
        let want = b.byte_length.0;
        limits.bytes(None, &format!("buffers[{i}].byteLength"), want)?;
        let data = match b.uri.as_deref() {
            None if i == 0 => bin
                .ok_or_else(|| malformed(0, format!("buffers[{i}] has no uri and there is no GLB BIN chunk")))?
                .to_vec(),
            None => return Err(malformed(0, format!("buffers[{i}] has no uri"))),
            Some(uri) => match uri.strip_prefix("data:") {
                Some(rest) => {
                    let (_, b64) = rest
                        .split_once(";base64,")
                        .ok_or_else(|| malformed(0, format!("buffers[{i}]: a data URI that is not base64")))?;
                    base64::engine::general_purpose::STANDARD
                        .decode(b64)
                        .map_err(|e| malformed(0, format!("buffers[{i}]: {e}")))?
                }
                None => {
                    return Err(Error::Unsupported {
                        format: Format::Gltf,
                        offset: 0,
                        feature: format!(
                            "buffers[{i}] is the external file {uri:?}: use a .glb or a .gltf with embedded data"
                        ),
                    })
                }
            },
        };
        if (data.len() as u64) < want {
            return Err(malformed(
                0,
                format!(
                    "buffers[{i}] declares {want} bytes but holds {}",
                    data.len()
                ),
            ));
        }
        out.push(data);
    }
    Ok(out)
}

fn arr<const N: usize>(rows: Vec<Vec<f32>>) -> Vec<[f32; N]> {
    rows.into_iter()
        .map(|r| std::array::from_fn(|k| r[k]))
        .collect()
}

fn nodes(ctx: &Ctx) -> Result<Vec<Node>> {
    let root = ctx.root;
    let light_count = root
        .extensions
        .as_ref()
        .and_then(|e| e.khr_lights_punctual.as_ref())
        .map_or(0, |l| l.lights.len());
    let n = root.nodes.len();
    let mut parent = vec![None; n];
    for (i, node) in root.nodes.iter().enumerate() {
        for c in node.children.iter().flatten() {
            let c = c.value();
            if c >= n {
                return Err(malformed(
                    0,
                    format!("nodes[{i}].children: node {c} does not exist"),
                ));
            }
            if parent[c].is_some() || c == i {
                return Err(malformed(
                    0,
                    format!("nodes[{i}].children: node {c} has two parents or is its own"),
                ));
            }
            parent[c] = Some(i);
        }
    }
    // A cycle leaves every node of it with a parent (each node walked once: linear).
    if let Some(start) = crate::scene::reaches_cycle(&parent).iter().position(|&c| c) {
        return Err(malformed(0, format!("nodes[{start}]: the hierarchy loops")));
    }
    let mut out = Vec::with_capacity(n);
    for (i, node) in root.nodes.iter().enumerate() {
        let transform = match node.matrix {
            Some(m)
                if node.translation.is_none()
                    && node.rotation.is_none()
                    && node.scale.is_none() =>
            {
                Transform::Matrix(m)
            }
            _ => Transform::Trs {
                translation: node.translation.unwrap_or([0.0; 3]),
                rotation: node.rotation.map_or([0.0, 0.0, 0.0, 1.0], |q| q.0),
                scale: node.scale.unwrap_or([1.0; 3]),
            },
        };
        let check = |what: &str, v: Option<usize>, len: usize| -> Result<Option<usize>> {
            match v {
                Some(k) if k >= len => Err(malformed(
                    0,
                    format!("nodes[{i}].{what}: {k} does not exist"),
                )),
                v => Ok(v),
            }
        };
        out.push(Node {
            name: node.name.clone().unwrap_or_else(|| format!("node {i}")),
            parent: parent[i],
            transform,
            mesh: check("mesh", node.mesh.map(|m| m.value()), root.meshes.len())?,
            camera: check("camera", node.camera.map(|c| c.value()), root.cameras.len())?,
            light: punctual::node_light(node, i, light_count)?,
            skin: check("skin", node.skin.map(|s| s.value()), root.skins.len())?,
            weights: node.weights.clone().unwrap_or_default(),
            extras: extras_value(&node.extras),
            ..Node::default()
        });
    }
    Ok(out)
}

fn mesh(ctx: &Ctx, i: usize, m: &json::Mesh, notes: &mut Notes) -> Result<Mesh> {
    use json::mesh::Semantic as S;
    let mut out = Mesh {
        name: m.name.clone().unwrap_or_else(|| format!("mesh {i}")),
        extras: extras_value(&m.extras),
        ..Mesh::default()
    };
    for (k, p) in m.primitives.iter().enumerate() {
        let path = format!("meshes[{i}].primitives[{k}]");
        let mode = match p.mode {
            Checked::Valid(json::mesh::Mode::Triangles) => PrimitiveMode::Triangles,
            Checked::Valid(json::mesh::Mode::Lines) => PrimitiveMode::Lines,
            _ => {
                notes.add("primitives of a mode other than triangles or lines", 1);
                continue;
            }
        };
        let mut prim = Primitive {
            mode,
            material: p.material.map(|m| m.value()),
            ..Primitive::default()
        };
        for (sem, acc) in &p.attributes {
            let a = acc.value();
            match sem {
                Checked::Valid(S::Positions) => prim.positions = arr(ctx.floats(a, 3, &path)?),
                Checked::Valid(S::Normals) => prim.normals = arr(ctx.floats(a, 3, &path)?),
                Checked::Valid(S::TexCoords(0)) => prim.uvs = arr(ctx.floats(a, 2, &path)?),
                Checked::Valid(S::Colors(0)) => {
                    prim.colors = match ctx.floats(a, 4, &path) {
                        Ok(v) => arr(v),
                        Err(_) => ctx
                            .floats(a, 3, &path)?
                            .into_iter()
                            .map(|c| [c[0], c[1], c[2], 1.0])
                            .collect(),
                    }
                }
                Checked::Valid(S::Joints(0)) => {
                    prim.joints = ctx
                        .floats(a, 4, &path)?
                        .into_iter()
                        .map(|j| std::array::from_fn(|k| j[k] as u16))
                        .collect()
                }
                Checked::Valid(S::Weights(0)) => prim.weights = arr(ctx.floats(a, 4, &path)?),
                _ => notes.add(
                    "vertex attributes other than the first UV, colour, joint and weight sets",
                    1,
                ),
            }
        }
        let n = prim.positions.len();
        prim.indices = match p.indices {
            Some(a) => ctx.indices(a.value(), &path)?,
            None => (0..n as u32).collect(),
        };
        if let Some(bad) = prim.indices.iter().find(|&&x| x as usize >= n) {
            return Err(malformed(
                0,
                format!("{path}: index {bad} but only {n} vertices"),
            ));
        }
        for t in p.targets.iter().flatten() {
            // A target without positions moves nothing; it keeps its place in the list so the
            // weights still line up.
            let positions = match t.positions {
                Some(pos) => arr(ctx.floats(pos.value(), 3, &path)?),
                None => vec![[0.0; 3]; n],
            };
            if positions.len() != n {
                return Err(malformed(
                    0,
                    format!(
                        "{path}: a morph target has {} positions for {n} vertices",
                        positions.len()
                    ),
                ));
            }
            let normals = match t.normals {
                Some(a) => arr(ctx.floats(a.value(), 3, &path)?),
                None => Vec::new(),
            };
            if !normals.is_empty() && normals.len() != n {
                return Err(malformed(
                    0,
                    format!(
                        "{path}: a morph target has {} normals for {n} vertices",
                        normals.len()
                    ),
                ));
            }
            prim.targets.push(MorphTarget {
                kind: MorphTargetKind::Delta,
                positions,
                normals,
            });
            if t.tangents.is_some() {
                notes.add("morph-target tangents", 1);
            }
        }
        out.primitives.push(prim);
    }
    let targets = out.primitives.first().map_or(0, |p| p.targets.len());
    if out.primitives.iter().any(|p| p.targets.len() != targets) {
        return Err(malformed(
            0,
            format!("meshes[{i}]: its primitives have different numbers of morph targets"),
        ));
    }
    // Blender and three.js name the targets in `extras.targetNames`.
    let named: Vec<String> = m
        .extras
        .as_ref()
        .and_then(|e| serde_json::from_str::<serde_json::Value>(e.get()).ok())
        .and_then(|v| v.get("targetNames").cloned())
        .and_then(|v| serde_json::from_value(v).ok())
        .unwrap_or_default();
    out.target_names = if named.len() == targets {
        named
    } else {
        (0..targets).map(|k| format!("target {k}")).collect()
    };
    Ok(out)
}

fn material(ctx: &Ctx, m: &json::Material, notes: &mut Notes) -> Result<Material> {
    let pbr = &m.pbr_metallic_roughness;
    let texture = pbr.base_color_texture.as_ref().map(|t| t.index.value());
    if let Some(t) = texture {
        if t >= ctx.root.textures.len() {
            return Err(malformed(
                0,
                format!("a material uses texture {t}, which does not exist"),
            ));
        }
    }
    if m.normal_texture.is_some() || m.occlusion_texture.is_some() || m.emissive_texture.is_some() {
        notes.add("normal, occlusion and emissive textures", 1);
    }
    Ok(Material {
        name: m.name.clone().unwrap_or_default(),
        base_color: pbr.base_color_factor.0,
        texture,
        alpha_mode: match m.alpha_mode {
            Checked::Valid(json::material::AlphaMode::Blend) => AlphaMode::Blend,
            Checked::Valid(json::material::AlphaMode::Mask) => AlphaMode::Mask {
                cutoff: m.alpha_cutoff.map_or(0.5, |c| c.0),
            },
            _ => AlphaMode::Opaque,
        },
        double_sided: m.double_sided,
        unlit: m.extensions.as_ref().is_some_and(|e| e.unlit.is_some()),
        ..Material::default()
    })
}

/// A texture's image: its name and its bytes (empty for an external file, with a note).
fn image_bytes(
    ctx: &Ctx,
    i: usize,
    t: &json::Texture,
    notes: &mut Notes,
) -> Result<(String, Vec<u8>)> {
    let path = format!("textures[{i}]");
    let img = ctx.root.images.get(t.source.value()).ok_or_else(|| {
        malformed(
            0,
            format!("{path}: image {} does not exist", t.source.value()),
        )
    })?;
    let bytes: Vec<u8> = match (&img.buffer_view, &img.uri) {
        (Some(v), _) => ctx.view(v.value(), &path)?.0.to_vec(),
        (None, Some(uri)) if uri.starts_with("data:") => {
            let b64 = uri.split_once(";base64,").map(|(_, b)| b).unwrap_or("");
            base64::engine::general_purpose::STANDARD
                .decode(b64)
                .map_err(|e| malformed(0, format!("{path}: {e}")))?
        }
        _ => {
            notes.add("textures in external files", 1);
            Vec::new()
        }
    };
    Ok((img.name.clone().unwrap_or(path), bytes))
}

fn texture(ctx: &Ctx, name: String, bytes: &[u8], notes: &mut Notes) -> Result<Texture> {
    let rgba = if bytes.is_empty() {
        None
    } else if bytes.starts_with(b"\x89PNG") {
        Some(crate::formats::tim::decode_png(bytes, ctx.limits)?)
    } else {
        notes.add("textures that are not PNG", 1);
        None
    };
    let (width, height, pixels) = match rgba {
        Some(r) => (r.width as u32, r.height as u32, r.pixels),
        // A 1 × 1 white stand-in keeps the material's texture index valid; the note says so.
        None => (1, 1, vec![255; 4]),
    };
    Ok(Texture {
        name,
        width,
        height,
        pixels,
        filter: TextureFilter::Nearest,
        repeat: true,
    })
}

fn skin(ctx: &Ctx, i: usize, s: &json::Skin) -> Result<Skin> {
    let path = format!("skins[{i}]");
    let joints: Vec<usize> = s.joints.iter().map(|j| j.value()).collect();
    if let Some(bad) = joints.iter().find(|&&j| j >= ctx.root.nodes.len()) {
        return Err(malformed(
            0,
            format!("{path}: joint node {bad} does not exist"),
        ));
    }
    let inverse_bind_matrices = match s.inverse_bind_matrices {
        Some(a) => arr(ctx.floats(a.value(), 16, &path)?),
        None => {
            vec![
                [1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0];
                joints.len()
            ]
        }
    };
    Ok(Skin {
        name: s.name.clone().unwrap_or_default(),
        joints,
        inverse_bind_matrices,
    })
}
