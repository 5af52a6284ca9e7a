//! Meshes, materials and textures: only those in use, renumbered.

use gltf_json as json;
use json::buffer::Target;
use json::mesh::Semantic;
use json::validation::Checked;
use json::Index;

use super::{builder::Builder, extras, name, unencodable};
use crate::scene::{AlphaMode, MorphTargetKind, PrimitiveMode, Scene, TextureFilter};
use crate::Result;

/// Which objects of the scene some node reaches.
pub(super) struct Used {
    pub meshes: Vec<bool>,
    pub materials: Vec<bool>,
    pub textures: Vec<bool>,
    pub cameras: Vec<bool>,
    pub lights: Vec<bool>,
    pub skins: Vec<bool>,
}

impl Used {
    /// What the nodes use; with `every_mesh`, every mesh (and its materials and textures)
    /// whether a node shows it or not.
    pub fn of(scene: &Scene, every_mesh: bool) -> Used {
        let mut u = Used {
            meshes: vec![every_mesh; scene.meshes.len()],
            materials: vec![false; scene.materials.len()],
            textures: vec![false; scene.textures.len()],
            cameras: vec![false; scene.cameras.len()],
            lights: vec![false; scene.lights.len()],
            skins: vec![false; scene.skins.len()],
        };
        for n in &scene.nodes {
            if let Some(m) = n.mesh {
                u.meshes[m] = true;
            }
            if let Some(c) = n.camera {
                u.cameras[c] = true;
            }
            if let Some(l) = n.light {
                u.lights[l] = true;
            }
            if let Some(s) = n.skin {
                u.skins[s] = true;
            }
        }
        for (i, m) in scene.meshes.iter().enumerate() {
            if !u.meshes[i] {
                continue;
            }
            for p in &m.primitives {
                if let Some(mat) = p.material {
                    u.materials[mat] = true;
                }
            }
        }
        for (i, m) in scene.materials.iter().enumerate() {
            if let (true, Some(t)) = (u.materials[i], m.texture) {
                u.textures[t] = true;
            }
        }
        u
    }
}

/// Encodes the used textures as PNG images with their samplers.
pub(super) fn textures(
    b: &mut Builder,
    scene: &Scene,
    used: &Used,
) -> Result<Vec<Option<Index<json::Texture>>>> {
    let mut out = vec![None; scene.textures.len()];
    for (i, t) in scene.textures.iter().enumerate() {
        if !used.textures[i] {
            continue;
        }
        let png = encode_png(t.width, t.height, &t.pixels)?;
        let view = b.view(&png, None);
        let image = b.root.push(json::Image {
            buffer_view: Some(view),
            mime_type: Some(json::image::MimeType("image/png".into())),
            name: name(&t.name),
            uri: None,
            extensions: None,
            extras: None,
        });
        let (mag, min) = match t.filter {
            TextureFilter::Nearest => (
                json::texture::MagFilter::Nearest,
                json::texture::MinFilter::Nearest,
            ),
            TextureFilter::Linear => (
                json::texture::MagFilter::Linear,
                json::texture::MinFilter::Linear,
            ),
        };
        let wrap = if t.repeat {
            json::texture::WrappingMode::Repeat
        } else {
            json::texture::WrappingMode::ClampToEdge
        };
        let sampler = b.root.push(json::texture::Sampler {
            mag_filter: Some(Checked::Valid(mag)),
            min_filter: Some(Checked::Valid(min)),
            name: None,
            wrap_s: Checked::Valid(wrap),
            wrap_t: Checked::Valid(wrap),
            extensions: None,
            extras: None,
        });
        out[i] = Some(b.root.push(json::Texture {
            name: name(&t.name),
            sampler: Some(sampler),
            source: image,
            extensions: None,
            extras: None,
        }));
    }
    Ok(out)
}

/// RGBA8 → PNG bytes.
pub fn encode_png(width: u32, height: u32, pixels: &[u8]) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    let mut enc = png::Encoder::new(&mut out, width, height);
    enc.set_color(png::ColorType::Rgba);
    enc.set_depth(png::BitDepth::Eight);
    let mut w = enc
        .write_header()
        .map_err(|e| unencodable(format!("PNG: {e}")))?;
    w.write_image_data(pixels)
        .map_err(|e| unencodable(format!("PNG: {e}")))?;
    w.finish().map_err(|e| unencodable(format!("PNG: {e}")))?;
    Ok(out)
}

pub(super) fn materials(
    b: &mut Builder,
    scene: &Scene,
    used: &Used,
    textures: &[Option<Index<json::Texture>>],
) -> Vec<Option<Index<json::Material>>> {
    let mut out = vec![None; scene.materials.len()];
    for (i, m) in scene.materials.iter().enumerate() {
        if !used.materials[i] {
            continue;
        }
        let (alpha_mode, alpha_cutoff) = match m.alpha_mode {
            AlphaMode::Opaque => (json::material::AlphaMode::Opaque, None),
            AlphaMode::Mask { cutoff } => (
                json::material::AlphaMode::Mask,
                Some(json::material::AlphaCutoff(cutoff)),
            ),
            AlphaMode::Blend => (json::material::AlphaMode::Blend, None),
        };
        let base = m.base_color.map(|c| c.clamp(0.0, 1.0));
        out[i] = Some(b.root.push(json::Material {
            alpha_cutoff,
            alpha_mode: Checked::Valid(alpha_mode),
            double_sided: m.double_sided,
            name: name(&m.name),
            pbr_metallic_roughness: json::material::PbrMetallicRoughness {
                base_color_factor: json::material::PbrBaseColorFactor(base),
                base_color_texture: m.texture.and_then(|t| textures[t]).map(|index| {
                    json::texture::Info {
                        index,
                        tex_coord: 0,
                        extensions: None,
                        extras: None,
                    }
                }),
                // Old games had no metals: a rough dielectric shows the colours as authored.
                metallic_factor: json::material::StrengthFactor(0.0),
                roughness_factor: json::material::StrengthFactor(1.0),
                metallic_roughness_texture: None,
                extensions: None,
                extras: None,
            },
            extensions: m.unlit.then(|| json::extensions::material::Material {
                unlit: Some(json::extensions::material::Unlit {}),
                ..Default::default()
            }),
            extras: extras(&m.extras),
            ..Default::default()
        }));
    }
    out
}

pub(super) fn meshes(
    b: &mut Builder,
    scene: &Scene,
    used: &Used,
    materials: &[Option<Index<json::Material>>],
) -> Vec<Option<Index<json::Mesh>>> {
    let mut out = vec![None; scene.meshes.len()];
    for (mi, m) in scene.meshes.iter().enumerate() {
        if !used.meshes[mi] {
            continue;
        }
        let mut prims = Vec::new();
        for p in &m.primitives {
            let mut attributes = std::collections::BTreeMap::new();
            let pos = b.floats(&p.positions, Some(Target::ArrayBuffer), true);
            attributes.insert(Checked::Valid(Semantic::Positions), pos);
            if !p.normals.is_empty() {
                let n: Vec<[f32; 3]> = p.normals.iter().map(|n| unit(*n)).collect();
                let a = b.floats(&n, Some(Target::ArrayBuffer), false);
                attributes.insert(Checked::Valid(Semantic::Normals), a);
            }
            if !p.uvs.is_empty() {
                let a = b.floats(&p.uvs, Some(Target::ArrayBuffer), false);
                attributes.insert(Checked::Valid(Semantic::TexCoords(0)), a);
            }
            if !p.colors.is_empty() {
                let c: Vec<[f32; 4]> = p
                    .colors
                    .iter()
                    .map(|c| c.map(|x| x.clamp(0.0, 1.0)))
                    .collect();
                let a = b.floats(&c, Some(Target::ArrayBuffer), false);
                attributes.insert(Checked::Valid(Semantic::Colors(0)), a);
            }
            if !p.joints.is_empty() {
                let a = b.joints(&p.joints);
                attributes.insert(Checked::Valid(Semantic::Joints(0)), a);
                let a = b.floats(&p.weights, Some(Target::ArrayBuffer), false);
                attributes.insert(Checked::Valid(Semantic::Weights(0)), a);
            }
            let indices = (!p.indices.is_empty()).then(|| b.indices(&p.indices));
            // Normals on every target when any has them (zero where one moves none).
            let target_normals = p.targets.iter().any(|t| !t.normals.is_empty());
            let targets = (!p.targets.is_empty()).then(|| {
                p.targets
                    .iter()
                    .map(|t| {
                        let d: Vec<[f32; 3]> = match t.kind {
                            MorphTargetKind::Delta => t.positions.clone(),
                            MorphTargetKind::Absolute => t
                                .positions
                                .iter()
                                .zip(&p.positions)
                                .map(|(a, base)| [a[0] - base[0], a[1] - base[1], a[2] - base[2]])
                                .collect(),
                        };
                        let normals = target_normals.then(|| {
                            let n: Vec<[f32; 3]> = (0..p.positions.len())
                                .map(|i| t.normals.get(i).copied().unwrap_or([0.0; 3]))
                                .collect();
                            b.floats(&n, Some(Target::ArrayBuffer), false)
                        });
                        json::mesh::MorphTarget {
                            positions: Some(b.floats(&d, Some(Target::ArrayBuffer), true)),
                            normals,
                            tangents: None,
                        }
                    })
                    .collect()
            });
            prims.push(json::mesh::Primitive {
                attributes,
                extensions: None,
                extras: None,
                indices,
                material: p.material.and_then(|x| materials[x]),
                mode: Checked::Valid(match p.mode {
                    PrimitiveMode::Triangles => json::mesh::Mode::Triangles,
                    PrimitiveMode::Lines => json::mesh::Mode::Lines,
                    PrimitiveMode::Points => json::mesh::Mode::Points,
                }),
                targets,
            });
        }
        let mut ex = m.extras.clone();
        if !m.target_names.is_empty() {
            if !ex.is_object() {
                ex = serde_json::json!({});
            }
            ex["targetNames"] = serde_json::json!(m.target_names);
        }
        out[mi] = Some(b.root.push(json::Mesh {
            extensions: None,
            extras: extras(&ex),
            name: name(&m.name),
            primitives: prims,
            weights: None,
        }));
    }
    out
}

/// A unit vector along `n`; +Y for a zero or non-finite normal.
fn unit(n: [f32; 3]) -> [f32; 3] {
    let l = (n[0] as f64).hypot(n[1] as f64).hypot(n[2] as f64);
    if !(l.is_finite() && l > 1e-12) {
        return [0.0, 1.0, 0.0];
    }
    n.map(|c| (c as f64 / l) as f32)
}
