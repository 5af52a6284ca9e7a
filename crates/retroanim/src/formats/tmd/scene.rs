//! TMD models (with TIM textures) → the neutral [`Scene`]: the TMD bridge. The TOD bridge
//! ([`crate::formats::tod::scene`]) shares its options, axes and materials.
//!
//!
//! # Axes and units
//! The PlayStation is right-handed with +X right, **+Y down** and +Z into the screen. With
//! [`Axes::YUp`] (the default) every position, matrix and direction is turned 180° about X,
//! `(x, y, z) → (x, −y, −z)`: +Y up and +Z towards the viewer, glTF's convention. This is a
//! rotation, not a mirror, so nothing is flipped. [`Axes::Raw`] keeps the console's axes.
//! Lengths are multiplied by [`PsxOptions::scale`]; the default, 1/4096, reads 4096 units
//! (the console's fixed-point ONE) as one metre, which makes the PsyQ samples' models a metre
//! or two tall.
//!
//! # Meshes
//! One mesh per TMD object. Triangles keep the packet's corners; the console's front faces are
//! clockwise (every lit corpus packet's normal opposes `(v1 − v0) × (v2 − v0)`), so corners 1
//! and 2 are swapped for glTF's counter-clockwise fronts. Vertex colours are the packets'
//! colours (sRGB bytes → linear; 128 means ×1 on textured polygons, as the GPU's modulation
//! does); lit textured polygons carry white. Materials follow the packet bits: LGT → unlit
//! (`KHR_materials_unlit`), FCE → double-sided, ABE → alpha blend at the alpha nearest the
//! semi-transparency rate (½ for ABR 0..2, ⅛ for ABR 3; the README's "Materials" table):
//! untextured polygons as a whole, textured ones on their STP texels.
//! Textures come from the TIMs given: the first whose pixel block holds the texels the
//! triangle samples (TSB page and colour depth, UVs; else the first in the page), decoded
//! through the CLUT row the CBA names ([`crate::formats::texpage`], the rule
//! [`crate::assemble`] matches TIMs by); a texture with colour-0 texels uses alpha mask. A
//! polygon with no matching TIM is untextured.

use std::collections::BTreeMap;

use crate::error::Result;
use crate::formats::texpage;
use crate::formats::tim::{DecodeOptions, Stp, Tim};
use crate::formats::tmd::{self, Tmd, Tsb};
use crate::limits::Limits;
use crate::scene::{
    AlphaMode, Material, Mesh, Node, Primitive, PrimitiveMode, Scene, Texture, TextureFilter,
};

pub use crate::scene::axes::Axes;
pub(crate) use crate::scene::axes::{decompose, quat, Conv};

/// The default scale: 4096 units = 1 m.
pub const DEFAULT_SCALE: f32 = 1.0 / 4096.0;

/// How to build the scene.
#[derive(Debug, Clone)]
pub struct PsxOptions {
    /// Axis convention.
    pub axes: Axes,
    /// Metres per console unit.
    pub scale: f32,
    /// LINEAR instead of STEP interpolation.
    pub smooth: bool,
    /// TIM textures the model's polygons may use.
    pub tims: Vec<Tim>,
    /// Bounds on the playback length.
    pub limits: Limits,
}

impl Default for PsxOptions {
    fn default() -> Self {
        PsxOptions {
            axes: Axes::YUp,
            scale: DEFAULT_SCALE,
            smooth: false,
            tims: Vec::new(),
            limits: Limits::default(),
        }
    }
}

impl Conv {
    pub(crate) fn new(o: &PsxOptions) -> Conv {
        Conv::with(o.axes, o.scale)
    }
}

pub(crate) fn srgb_to_linear(c: f32) -> f32 {
    let c = c.clamp(0.0, 1.0);
    if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

/// Builds meshes, materials and textures for every TMD object; `meshes[i]` is object i's mesh
/// index in the scene (`None` when it has no triangles).
pub(crate) struct Models {
    pub(crate) meshes: Vec<Option<usize>>,
    /// Per object, per primitive of its mesh, per exported vertex: the TMD vertex index and
    /// normal index the vertex came from (what MIMe's difference runs count).
    pub(crate) sources: Vec<Vec<Vec<CornerSource>>>,
    /// Textured polygons no TIM covered (exported untextured), and their texture pages.
    pub(crate) missing: (usize, std::collections::BTreeSet<u8>),
}

impl Models {
    /// The `textures-missing` note, when textured polygons went out untextured.
    pub(crate) fn missing_note(&self, given: usize) -> Option<(&'static str, String)> {
        let (n, pages) = &self.missing;
        if *n == 0 {
            return None;
        }
        let pages: Vec<String> = pages.iter().map(|p| p.to_string()).collect();
        Some((
            "textures-missing",
            format!(
                "{n} textured polygons (texture page{} {}) have no TIM {}: exported untextured, in materials named \"{MISSING}\"; pass their TIMs with --tim",
                if pages.len() == 1 { "" } else { "s" },
                pages.join(", "),
                match given {
                    0 => "(none was given)".to_string(),
                    n => format!("among the {n} given that holds their texels"),
                }
            ),
        ))
    }
}

/// Where an exported vertex came from: its TMD vertex index and normal index.
pub(crate) type CornerSource = (u16, Option<u16>);

/// The name of the material of textured polygons whose texture was not found.
pub const MISSING: &str = "texture missing";

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct MaterialKey {
    /// TIM index and CLUT row.
    pub texture: Option<(usize, usize)>,
    /// A textured polygon whose texture no TIM holds.
    pub missing: bool,
    pub semi: bool,
    /// The semi-transparency rate (ABR 0..3: TSB bits 6..5 on textured polygons, else the
    /// object's default, 0).
    pub rate: u8,
    pub double_sided: bool,
    pub unlit: bool,
}

/// The glTF alpha standing for semi-transparency rate `abr` (the GPU's `B` background, `F`
/// polygon): 0 is `B/2 + F/2`, exactly alpha ½; 1 (`B + F`) and 3 (`B + F/4`) have no glTF
/// equation, and the alpha whose blend is nearest them in the least-squares sense over all
/// colours is ½ and ⅛; 2 (`B − F`) would be nearest at alpha 0, which hides the polygon, so it
/// keeps ½. The material's `extras.psx_blend` keeps the rate and its equation.
pub(crate) fn blend_alpha(abr: u8) -> f32 {
    match abr & 3 {
        3 => 0.125,
        _ => 0.5,
    }
}

/// The GPU's blend equation for semi-transparency rate `abr`.
fn blend_equation(abr: u8) -> &'static str {
    match abr & 3 {
        0 => "B/2 + F/2",
        1 => "B + F",
        2 => "B - F",
        _ => "B + F/4",
    }
}

/// A decoded texture: TIM index, CLUT row, semi-transparent, rate.
pub(crate) type TextureKey = (usize, usize, bool, u8);

/// Where a textured polygon's texels are: TIM index, CLUT row, and the texel offset of the
/// texture page inside the TIM.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TexSource {
    pub tim: usize,
    pub clut_row: usize,
    pub offset: (f64, f64),
}

/// The texture of a polygon with these TSB and CBA halfwords and corner texels: the first of
/// `tims` that covers its texels, else the first on its page ([`texpage::find`], the rule
/// [`crate::assemble`] ranks TIMs by).
pub(crate) fn texture_source(
    tims: &[Tim],
    tsb: u16,
    cba: u16,
    uvs: &[[u8; 2]],
) -> Option<TexSource> {
    let s = texpage::Sampled::new(tsb, cba, uvs);
    let (tim, _, clut_row) = texpage::find(tims, &s)?;
    Some(TexSource {
        tim,
        clut_row,
        offset: s.texel_offset(&tims[tim]),
    })
}

pub(crate) fn build_models(
    tmd: &Tmd,
    conv: &Conv,
    opts: &PsxOptions,
    scene: &mut Scene,
) -> Result<Models> {
    let mut materials: BTreeMap<MaterialKey, usize> = BTreeMap::new();
    let mut textures: BTreeMap<TextureKey, usize> = BTreeMap::new();
    let mut meshes = Vec::new();
    let mut sources = Vec::new();
    let mut missing = (0usize, std::collections::BTreeSet::new());
    for mesh in tmd.meshes() {
        let mut prims: BTreeMap<MaterialKey, Primitive> = BTreeMap::new();
        let mut srcs: BTreeMap<MaterialKey, Vec<CornerSource>> = BTreeMap::new();
        for tri in &mesh.triangles {
            let uvs = tri.corners.map(|c| c.uv.unwrap_or([0, 0]));
            let src = tri
                .texture
                .and_then(|[tsb, cba]| texture_source(&opts.tims, tsb, cba, &uvs));
            if let (Some([tsb, _]), None) = (tri.texture, src) {
                missing.0 += 1;
                missing.1.insert(Tsb::from_bits(tsb).page);
            }
            let key = MaterialKey {
                texture: src.map(|s| (s.tim, s.clut_row)),
                missing: tri.texture.is_some() && src.is_none(),
                semi: tri.semi_transparent,
                rate: match tri.texture {
                    Some([tsb, _]) if tri.semi_transparent => Tsb::from_bits(tsb).abr,
                    _ => 0,
                },
                double_sided: tri.double_sided,
                unlit: !tri.lit,
            };
            let p = prims.entry(key).or_insert_with(|| Primitive {
                mode: PrimitiveMode::Triangles,
                ..Primitive::default()
            });
            let corners = [&tri.corners[0], &tri.corners[2], &tri.corners[1]];
            srcs.entry(key)
                .or_default()
                .extend(corners.iter().map(|c| (c.vertex, c.normal_index)));
            let pos: Vec<[f64; 3]> = corners
                .iter()
                .map(|c| c.position.map(|v| v as f64))
                .collect();
            // A corner without a normal gets the face normal (console: front = clockwise).
            let e1 = [0, 1, 2].map(|i| pos[1][i] - pos[0][i]);
            let e2 = [0, 1, 2].map(|i| pos[2][i] - pos[0][i]);
            let face = [
                e1[1] * e2[2] - e1[2] * e2[1],
                e1[2] * e2[0] - e1[0] * e2[2],
                e1[0] * e2[1] - e1[1] * e2[0],
            ];
            for (c, p3) in corners.iter().zip(&pos) {
                p.positions.push(conv.point(*p3));
                let n = c.normal.map_or(face, |n| n.map(|v| v as f64));
                p.normals.push(conv.dir(n).map(|v| v as f32));
                let rgb = match c.color {
                    Some(rgb) if tri.texture.is_some() => rgb.map(|v| (v as f32 / 128.0).min(1.0)),
                    Some(rgb) => rgb.map(|v| v as f32 / 255.0),
                    None => [1.0; 3],
                };
                let rgb = rgb.map(srgb_to_linear);
                p.colors.push([rgb[0], rgb[1], rgb[2], 1.0]);
                if let Some(s) = src {
                    let tim = &opts.tims[s.tim];
                    let [u, v] = c.uv.unwrap_or([0, 0]);
                    p.uvs.push([
                        ((u as f64 + s.offset.0) / tim.pixel_width().max(1) as f64) as f32,
                        ((v as f64 + s.offset.1) / (tim.image.height.max(1)) as f64) as f32,
                    ]);
                }
            }
        }
        sources.push(srcs.into_values().collect());
        if prims.is_empty() {
            meshes.push(None);
            continue;
        }
        let mut out = Mesh {
            name: format!("tmd object {}", mesh.object),
            // The TMD object number, so an author can put the mesh back where it was.
            extras: crate::scene::extras::tagged(
                "tmd",
                serde_json::json!({ "object": mesh.object }),
            ),
            ..Mesh::default()
        };
        for (key, mut p) in prims {
            let next = materials.len();
            let m = *materials.entry(key).or_insert(next);
            if m == next {
                let mat = material(key, opts, &mut textures, &mut scene.textures)?;
                scene.materials.push(mat);
            }
            if key.texture.is_none() {
                p.uvs.clear();
            }
            p.material = Some(m);
            out.primitives.push(p);
        }
        meshes.push(Some(scene.meshes.len()));
        scene.meshes.push(out);
    }
    Ok(Models {
        meshes,
        sources,
        missing,
    })
}

/// A material for `key`, adding its texture to the scene the first time one needs it.
pub(crate) fn material(
    key: MaterialKey,
    opts: &PsxOptions,
    textures: &mut BTreeMap<TextureKey, usize>,
    scene_textures: &mut Vec<Texture>,
) -> Result<Material> {
    let mut m = Material {
        name: format!(
            "{}{}{}{}",
            key.texture.map_or(
                if key.missing { MISSING } else { "untextured" }.to_string(),
                |(t, c)| format!("tim {t} clut {c}")
            ),
            if key.semi {
                format!(" semi-transparent {}", key.rate)
            } else {
                String::new()
            },
            if key.double_sided {
                " double-sided"
            } else {
                ""
            },
            if key.unlit { " unlit" } else { "" }
        ),
        double_sided: key.double_sided,
        unlit: key.unlit,
        ..Material::default()
    };
    let alpha = blend_alpha(key.rate);
    if key.semi {
        m.alpha_mode = AlphaMode::Blend;
        m.extras = serde_json::json!({ "psx_blend": {
            "abr": key.rate,
            "equation": blend_equation(key.rate),
            "alpha": alpha,
        }});
        if key.texture.is_none() {
            // The whole polygon blends.
            m.base_color[3] = alpha;
        }
    }
    if let Some((t, c)) = key.texture {
        let stp = if key.semi {
            Stp::SemiTransparent
        } else {
            Stp::Opaque
        };
        let mut img = opts.tims[t].to_rgba(&DecodeOptions { clut_row: c, stp })?;
        if key.semi {
            // STP texels blend (the decoder gives them alpha 128); the others stay opaque.
            let a = (alpha * 255.0).round() as u8;
            for p in img.pixels.chunks_exact_mut(4).filter(|p| p[3] == 128) {
                p[3] = a;
            }
        }
        if !key.semi && img.pixels.chunks_exact(4).any(|p| p[3] == 0) {
            m.alpha_mode = AlphaMode::Mask { cutoff: 0.5 };
        }
        let index = match textures.get(&(t, c, key.semi, key.rate)) {
            Some(&i) => i,
            None => {
                scene_textures.push(Texture {
                    name: format!(
                        "tim {t} clut {c}{}",
                        if key.semi {
                            format!(" stp {}", key.rate)
                        } else {
                            String::new()
                        }
                    ),
                    width: img.width as u32,
                    height: img.height as u32,
                    pixels: img.pixels,
                    filter: TextureFilter::Nearest,
                    repeat: false,
                });
                textures.insert((t, c, key.semi, key.rate), scene_textures.len() - 1);
                scene_textures.len() - 1
            }
        };
        m.texture = Some(index);
    }
    Ok(m)
}

/// A static scene of a TMD: one node per object.
pub fn tmd_scene(tmd: &Tmd, opts: &PsxOptions) -> Result<Scene> {
    tmd_scene_noted(tmd, opts).map(|(scene, _)| scene)
}

/// [`tmd_scene`] with notes of what the scene leaves out (`textures-missing`: textured
/// polygons no TIM given covers, exported untextured).
pub fn tmd_scene_noted(
    tmd: &Tmd,
    opts: &PsxOptions,
) -> Result<(Scene, Vec<(&'static str, String)>)> {
    let (scene, notes, _) = tmd_scene_sourced(tmd, opts)?;
    Ok((scene, notes))
}

/// A scene, its notes, and the [`Models`] it was built from.
pub(crate) type Sourced = (Scene, Vec<(&'static str, String)>, Models);

/// [`tmd_scene_noted`] with the [`Models`] it was built from (node i shows object i), so that
/// MIMe differences can be laid onto the exported vertices.
pub(crate) fn tmd_scene_sourced(tmd: &Tmd, opts: &PsxOptions) -> Result<Sourced> {
    let conv = Conv::new(opts);
    let mut scene = Scene {
        name: Some("tmd".into()),
        ..Scene::default()
    };
    let models = build_models(tmd, &conv, opts, &mut scene)?;
    for (i, m) in models.meshes.iter().enumerate() {
        scene.nodes.push(Node {
            mesh: *m,
            ..Node::new(format!("tmd object {i}"))
        });
    }
    let notes = models.missing_note(opts.tims.len()).into_iter().collect();
    Ok((scene, notes, models))
}

/// The TMD objects' triangle counts, for callers that want to report what was converted.
pub fn triangle_count(tmd: &Tmd) -> usize {
    tmd.meshes()
        .iter()
        .map(|m: &tmd::Mesh| m.triangles.len())
        .sum()
}
