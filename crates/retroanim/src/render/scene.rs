//! A neutral [`Scene`] drawn by the console's rules: what HMD, P3D and glTF pictures are made
//! from.
//!
//! # From the scene to the GTE
//! - **Pose**: each node's world matrix at the time drawn (its animation's translation,
//!   rotation, scale and visibility channels, as [`crate::scene::sample`] evaluates them),
//!   morph targets by the node's weights (its weights channel where the animation has one;
//!   absolute targets as `base + w·(target − base)`), skins by linear blend skinning (the
//!   skinned node's own transform ignored, as in glTF). Only triangle primitives are drawn;
//!   line and point primitives are counted in a note.
//! - **Axes**: the scene's +Y up, +Z towards the viewer become the console's +Y down, +Z into
//!   the screen, `(x, y, z) → (x, −y, −z)` (a turn about X, the inverse of the TMD and HMD
//!   bridges), and each triangle's corners 1 and 2 swap, so the scene's counter-clockwise
//!   fronts become the console's clockwise ones (a node whose world matrix mirrors swaps them
//!   back, as glTF asks).
//! - **Vertices as the console holds them**: every pose is centred on the bounds of all poses
//!   drawn and scaled so that the farthest vertex lies 16,000 units from the centre, then
//!   rounded to 16-bit integers (SVECTOR). From there the picture is drawn as a TMD is: RTPS
//!   through the framing [`Camera`], the near-plane rule, NCLIP culling, AVSZ3 into the
//!   ordering table ([`super::ordering_table`]), the rasterizer of [`super::raster`].
//!
//! # Shading
//! The polygon colour is the material's base colour times the vertex colour (linear), turned
//! into 8-bit sRGB; textured polygons scale it so that white is the GPU's ×1 (128) and
//! modulate their texels with it. Lit polygons (every material but `unlit` ones) are lit by
//! the GTE's NCCS with the fixed light of [`Camera::lights`]:
//! - [`Shading::Flat`] (P3D, glTF): one normal per triangle, from its corners (the file's
//!   normals are not used), one colour per polygon.
//! - [`Shading::Normals`] (HMD): the corners' own normals, as the packets carry them (a
//!   polygon whose corners differ is Gouraud-shaded), the triangle's normal where the scene
//!   has none.
//!
//! Back faces are culled unless the material is double-sided (the packet's FCE).
//!
//! # Textures
//! Scene textures (RGBA8) become 15-bit images ([`Image15`]) sampled by the affine
//! rasterizer at `uv × size` (v = 0 at the top, repeat or clamp as the texture says): an
//! opaque material keeps every texel (black as 0x8000, which the GPU draws); a mask material
//! makes texels under its cut-off 0x0000 (not drawn); a blend material makes alpha-0 texels
//! 0x0000 and every other texel semi-transparent (STP) in mode 0, `(B + F) / 2`, and blends
//! its untextured polygons the same way. A blend material made from a console packet (the
//! TMD and HMD bridges record its rate as `extras.psx_blend.abr`) blends in that mode instead
//! (0 `B/2 + F/2`, 1 `B + F`, 2 `B − F`, 3 `B + F/4`), and only its STP texels (those the
//! bridge gave an alpha under 255) blend; the others are drawn opaque, as the GPU draws them.
//! Nearest texel always (the GPU has no filtering).

use std::collections::HashMap;

use crate::formats::gte::Mat;
use crate::formats::tmd::author::Counts;
use crate::scene::sample::{self, mat_mul, Mat4, Span};
use crate::scene::{AlphaMode, Animation, Interpolation, MorphTargetKind, PrimitiveMode, Scene};
use crate::scene::{Texture as SceneTexture, Track};
use crate::vram::Vram;

use super::gte::{self, Lights, Projected};
use super::raster::{self, rgb15, Corner, Framebuffer, Image15, Poly, Texels, Texture};
use super::{ordering_table, poly_area, with_yaw, Camera, View};

/// How lit polygons take their light.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shading {
    /// One normal per triangle, computed from its corners.
    Flat,
    /// The vertices' normals (the triangle's where the scene has none).
    Normals,
}

/// Farthest vertex from the centre, in console units, after quantisation.
const REACH: f64 = 16_000.0;

/// One triangle posed in world space, console axes, corners in the console's order.
#[derive(Debug, Clone, Copy)]
struct Tri {
    p: [[f64; 3]; 3],
    n: Option<[[f64; 3]; 3]>,
    uv: Option<[[f32; 2]; 3]>,
    color: [[f32; 4]; 3],
    material: Option<usize>,
}

/// A scene set up for drawing: its textures as 15-bit images and the camera framing every
/// pose that will be drawn.
pub struct SceneDrawing<'a> {
    scene: &'a Scene,
    animation: Option<&'a Animation>,
    shading: Shading,
    images: Vec<Image15>,
    /// (scene texture, alpha kind) → image index.
    image_of: HashMap<(usize, u8), u32>,
    centre: [f64; 3],
    scale: f64,
    camera: Camera,
    view: View,
}

impl<'a> SceneDrawing<'a> {
    /// Frames the poses of `scene` under `animation` at `times` (the first also chooses the
    /// default yaw, as [`super::with_yaw`] does).
    pub fn new(
        scene: &'a Scene,
        animation: Option<&'a Animation>,
        shading: Shading,
        times: &[f32],
        view: &View,
    ) -> SceneDrawing<'a> {
        let mut images = Vec::new();
        let mut image_of = HashMap::new();
        for m in &scene.materials {
            let Some(t) = m.texture.and_then(|t| Some((t, scene.textures.get(t)?))) else {
                continue;
            };
            let kind = alpha_kind(m);
            image_of.entry((t.0, kind)).or_insert_with(|| {
                images.push(image15(t.1, m.alpha_mode, console_rate(m)));
                (images.len() - 1) as u32
            });
        }
        let mut tris = Vec::new();
        let mut b: Option<[[f64; 3]; 2]> = None;
        for &t in times {
            tris.clear();
            pose(scene, animation, t, &mut tris, &mut 0);
            for p in tris.iter().flat_map(|t| t.p) {
                let e = b.get_or_insert([p, p]);
                for i in 0..3 {
                    e[0][i] = e[0][i].min(p[i]);
                    e[1][i] = e[1][i].max(p[i]);
                }
            }
        }
        let b = b.unwrap_or([[0.0; 3]; 2]);
        let centre: [f64; 3] = std::array::from_fn(|i| (b[0][i] + b[1][i]) / 2.0);
        let half = (0..3)
            .map(|i| (b[1][i] - b[0][i]) / 2.0)
            .fold(0.0f64, f64::max);
        let reach = half * 3f64.sqrt();
        let scale = if reach > 0.0 && reach.is_finite() {
            REACH / reach
        } else {
            1.0
        };
        let qb = [0, 1].map(|k| std::array::from_fn(|i| (b[k][i] - centre[i]) * scale));
        let mut d = SceneDrawing {
            scene,
            animation,
            shading,
            images,
            image_of,
            centre,
            scale,
            camera: Camera::frame(qb, view),
            view: *view,
        };
        let first = times.first().copied().unwrap_or(0.0);
        let chosen = with_yaw(view, |v| {
            let camera = Camera::frame(qb, v);
            let mut polys = Vec::new();
            d.polys_with(&camera, first, &mut polys, &mut Counts::default());
            polys.iter().map(poly_area).sum()
        });
        d.camera = Camera::frame(qb, &chosen);
        d.view = chosen;
        d
    }

    /// The view the pictures are drawn with (its yaw chosen).
    pub fn view(&self) -> &View {
        &self.view
    }

    /// The picture at `time`; what it leaves out is counted into `notes`. An error, nothing
    /// drawn, when its work takes `budget` past its limit.
    pub(crate) fn draw(
        &self,
        time: f32,
        notes: &mut Counts,
        budget: &mut super::Budget,
    ) -> crate::Result<Framebuffer> {
        let mut polys = Vec::new();
        self.polys_with(&self.camera, time, &mut polys, notes);
        ordering_table(&mut polys);
        budget.spend(&polys, &self.view)?;
        let mut fb = Framebuffer::new(
            self.view.width as usize,
            self.view.height as usize,
            self.view.background,
        );
        let vram = Vram::new();
        raster::draw(
            &mut fb,
            &polys,
            &Texels {
                vram: &vram,
                images: &self.images,
            },
        );
        Ok(fb)
    }

    fn polys_with(&self, camera: &Camera, time: f32, out: &mut Vec<Poly>, notes: &mut Counts) {
        let mut tris = Vec::new();
        let mut skipped = 0;
        pose(self.scene, self.animation, time, &mut tris, &mut skipped);
        notes.add("lines-points-not-drawn", skipped, || {
            "line or point primitives not drawn (only triangles are)".into()
        });
        let lights = camera.lights(&Mat::IDENTITY.m);
        let q = |p: [f64; 3]| -> [i16; 3] {
            std::array::from_fn(|i| {
                ((p[i] - self.centre[i]) * self.scale)
                    .round()
                    .clamp(-32768.0, 32767.0) as i16
            })
        };
        let mut near = 0;
        for t in &tris {
            let c: [Projected; 3] = t.p.map(|p| gte::rtps(&camera.matrix, &camera.screen, q(p)));
            if c.iter().any(|c| 2 * c.sz as u32 <= camera.screen.h) {
                near += 1;
                continue;
            }
            let material = t.material.and_then(|m| self.scene.materials.get(m));
            let double = material.is_some_and(|m| m.double_sided);
            if !double && gte::nclip(c[0], c[1], c[2]) <= 0 {
                continue;
            }
            out.push(self.poly(t, material, &c, &lights));
        }
        notes.add("near-clipped", near, || {
            "triangles not drawn: a corner is closer than half the projection distance".into()
        });
    }

    fn poly(
        &self,
        t: &Tri,
        material: Option<&crate::scene::Material>,
        c: &[Projected; 3],
        lights: &Lights,
    ) -> Poly {
        let alpha = material.map_or(AlphaMode::Opaque, |m| m.alpha_mode);
        let rate = material.and_then(console_rate);
        let texture = match (material.and_then(|m| m.texture), t.uv) {
            (Some(tex), Some(_)) => self
                .image_of
                .get(&(tex, material.map_or(0, alpha_kind)))
                .map_or(Texture::None, |&i| Texture::Image(i)),
            _ => Texture::None,
        };
        let textured = matches!(texture, Texture::Image(_));
        let lit = !material.is_some_and(|m| m.unlit);
        let face = face_normal(&t.p);
        let mut colors = [[0u8; 3]; 3];
        for (k, out) in colors.iter_mut().enumerate() {
            let rgb: [u8; 3] = std::array::from_fn(|i| {
                let s = linear_to_srgb(t.color[k][i]);
                if textured {
                    (s * 128.0).round() as u8
                } else {
                    (s * 255.0).round() as u8
                }
            });
            *out = if lit {
                let n = match (self.shading, t.n) {
                    (Shading::Normals, Some(n)) => unit(n[k]).unwrap_or(face),
                    _ => face,
                };
                lights.light(n.map(|v| (v * 4096.0).round() as i16), rgb)
            } else {
                rgb
            };
        }
        let mut corners = [Corner::default(); 4];
        for k in 0..3 {
            let uv = match (texture, t.uv) {
                (Texture::Image(i), Some(uv)) => {
                    let img = &self.images[i as usize];
                    let s = |v: f32, n: u32| {
                        (f64::from(v) * f64::from(n) * 16.0)
                            .round()
                            .clamp(-16_777_216.0, 16_777_216.0) as i32
                    };
                    [s(uv[k][0], img.width), s(uv[k][1], img.height)]
                }
                _ => [0, 0],
            };
            corners[k] = Corner {
                x: c[k].sx,
                y: c[k].sy,
                color: colors[k],
                uv,
            };
        }
        Poly {
            corners,
            count: 3,
            texture,
            gouraud: colors[0] != colors[1] || colors[0] != colors[2],
            raw_texture: false,
            blend: matches!(alpha, AlphaMode::Blend).then_some(rate.unwrap_or(0)),
            otz: gte::avsz(c),
        }
    }
}

/// 0 opaque, 1 mask, 2 blend, 3 the console's semi-transparency: the kinds of 15-bit image
/// one texture becomes.
fn alpha_kind(m: &crate::scene::Material) -> u8 {
    match m.alpha_mode {
        AlphaMode::Opaque => 0,
        AlphaMode::Mask { .. } => 1,
        AlphaMode::Blend if console_rate(m).is_some() => 3,
        AlphaMode::Blend => 2,
    }
}

/// The semi-transparency rate (ABR 0..3) of a blend material made from a console packet: the
/// `psx_blend.abr` the TMD and HMD bridges record in the material's extras.
fn console_rate(m: &crate::scene::Material) -> Option<u8> {
    if !matches!(m.alpha_mode, AlphaMode::Blend) {
        return None;
    }
    let abr = m.extras.get("psx_blend")?.get("abr")?.as_u64()?;
    u8::try_from(abr).ok().filter(|&r| r < 4)
}

/// A scene texture as 15-bit texels for a material of `alpha` (module docs, "Textures"); with
/// a console `rate`, only the texels the bridge marked STP (alpha under 255) blend.
fn image15(t: &SceneTexture, alpha: AlphaMode, rate: Option<u8>) -> Image15 {
    let cutoff = match alpha {
        AlphaMode::Mask { cutoff } => (cutoff.clamp(0.0, 1.0) * 255.0).round() as u8,
        AlphaMode::Blend => 1,
        AlphaMode::Opaque => 0,
    };
    let texels = t
        .pixels
        .chunks_exact(4)
        .take(t.width as usize * t.height as usize)
        .map(|px| {
            let c = rgb15([px[0], px[1], px[2]]);
            if px[3] < cutoff {
                0
            } else if rate.is_some() && px[3] == 255 {
                // Not STP: drawn opaque (black keeps its STP bit, or the GPU would skip it).
                if c == 0 {
                    0x8000
                } else {
                    c
                }
            } else if matches!(alpha, AlphaMode::Blend) || c == 0 {
                c | 0x8000
            } else {
                c
            }
        })
        .collect::<Vec<u16>>();
    let complete = texels.len() == t.width as usize * t.height as usize;
    Image15 {
        width: if complete { t.width } else { 0 },
        height: if complete { t.height } else { 0 },
        texels,
        repeat: t.repeat,
    }
}

/// A linear channel 0..1 as sRGB 0..1.
fn linear_to_srgb(c: f32) -> f64 {
    let c = f64::from(c.clamp(0.0, 1.0));
    if c <= 0.003_130_8 {
        c * 12.92
    } else {
        1.055 * c.powf(1.0 / 2.4) - 0.055
    }
}

fn unit(v: [f64; 3]) -> Option<[f64; 3]> {
    let l = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    (l > 1e-12 && l.is_finite()).then(|| v.map(|x| x / l))
}

/// The outward normal of a triangle in console order (clockwise fronts, +Y down).
fn face_normal(p: &[[f64; 3]; 3]) -> [f64; 3] {
    let a: [f64; 3] = std::array::from_fn(|i| p[1][i] - p[0][i]);
    let b: [f64; 3] = std::array::from_fn(|i| p[2][i] - p[0][i]);
    let n = [
        a[2] * b[1] - a[1] * b[2],
        a[0] * b[2] - a[2] * b[0],
        a[1] * b[0] - a[0] * b[1],
    ];
    unit(n).unwrap_or([0.0, 0.0, -1.0])
}

/// Every node's world matrix at `time`.
fn worlds(scene: &Scene, animation: Option<&Animation>, time: f32) -> Vec<Mat4> {
    let n = scene.nodes.len();
    let locals: Vec<Mat4> = (0..n)
        .map(|i| sample::local_at(scene, animation, i, time).matrix())
        .collect();
    let mut w: Vec<Option<Mat4>> = vec![None; n];
    for i in 0..n {
        let mut chain = vec![i];
        let mut cur = i;
        while let Some(p) = scene.nodes[cur].parent {
            if p >= n || chain.len() > n || w[p].is_some() {
                break;
            }
            chain.push(p);
            cur = p;
        }
        for &c in chain.iter().rev() {
            if w[c].is_some() {
                continue;
            }
            let base = scene.nodes[c]
                .parent
                .and_then(|p| w.get(p).copied().flatten());
            w[c] = Some(match base {
                Some(b) => mat_mul(&b, &locals[c]),
                None => locals[c],
            });
        }
    }
    w.into_iter().map(|m| m.unwrap_or(IDENTITY)).collect()
}

const IDENTITY: Mat4 = [
    1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0,
];

/// Node `node`'s morph weights at `time`.
fn weights_at(scene: &Scene, animation: Option<&Animation>, node: usize, time: f32) -> Vec<f32> {
    let mut w = scene.nodes[node].weights.clone();
    let Some(a) = animation else { return w };
    for c in a.channels.iter().filter(|c| c.node == node) {
        let Track::Weights(v) = &c.track else {
            continue;
        };
        let cubic = c.interpolation == Interpolation::Cubicspline;
        let key = |k: usize| v.get(if cubic { 3 * k + 1 } else { k });
        let got = match sample::span(&c.times, time) {
            Some(Span::Key(k)) => key(k).cloned(),
            Some(Span::Between { i, s, .. }) => match (key(i), key(i + 1)) {
                (Some(a), Some(_)) if c.interpolation == Interpolation::Step => Some(a.clone()),
                (Some(a), Some(b)) => Some(
                    a.iter()
                        .zip(b)
                        .map(|(x, y)| x + (y - x) * s as f32)
                        .collect(),
                ),
                _ => None,
            },
            None => None,
        };
        if let Some(g) = got {
            w = g;
        }
    }
    w
}

fn apply(m: &Mat4, p: [f64; 3], point: bool) -> [f64; 3] {
    let t = if point { 1.0 } else { 0.0 };
    std::array::from_fn(|i| m[i] * p[0] + m[4 + i] * p[1] + m[8 + i] * p[2] + m[12 + i] * t)
}

fn det3(m: &Mat4) -> f64 {
    m[0] * (m[5] * m[10] - m[9] * m[6]) - m[4] * (m[1] * m[10] - m[9] * m[2])
        + m[8] * (m[1] * m[6] - m[5] * m[2])
}

/// The scene's triangles at `time`, in world space and console axes; `skipped` counts the
/// primitives that are not triangles.
fn pose(
    scene: &Scene,
    animation: Option<&Animation>,
    time: f32,
    out: &mut Vec<Tri>,
    skipped: &mut usize,
) {
    let world = worlds(scene, animation, time);
    let console = |p: [f64; 3]| [p[0], -p[1], -p[2]];
    for (ni, node) in scene.nodes.iter().enumerate() {
        let Some(mesh) = node.mesh.and_then(|m| scene.meshes.get(m)) else {
            continue;
        };
        let weights = weights_at(scene, animation, ni, time);
        let skin = node.skin.and_then(|s| scene.skins.get(s));
        let joints: Vec<Mat4> = skin.map_or(Vec::new(), |s| {
            s.joints
                .iter()
                .enumerate()
                .map(|(k, &j)| {
                    let ibm = s
                        .inverse_bind_matrices
                        .get(k)
                        .map_or(IDENTITY, |m| m.map(f64::from));
                    mat_mul(world.get(j).unwrap_or(&IDENTITY), &ibm)
                })
                .collect()
        });
        for prim in &mesh.primitives {
            if prim.mode != PrimitiveMode::Triangles {
                *skipped += 1;
                continue;
            }
            let np = prim.positions.len();
            let skinned = skin.is_some() && prim.joints.len() == np && prim.weights.len() == np;
            let place = |v: usize| -> Option<([f64; 3], Option<[f64; 3]>, bool)> {
                let mut p = prim.positions.get(v)?.map(f64::from);
                let mut n = prim.normals.get(v).map(|n| n.map(f64::from));
                for (t, &w) in prim.targets.iter().zip(&weights) {
                    if w == 0.0 {
                        continue;
                    }
                    let w = f64::from(w);
                    if let Some(tp) = t.positions.get(v) {
                        let base = prim.positions[v];
                        for i in 0..3 {
                            p[i] += w * match t.kind {
                                MorphTargetKind::Absolute => f64::from(tp[i]) - f64::from(base[i]),
                                MorphTargetKind::Delta => f64::from(tp[i]),
                            };
                        }
                    }
                    if let (Some(n), Some(tn)) = (n.as_mut(), t.normals.get(v)) {
                        for i in 0..3 {
                            n[i] += w * f64::from(tn[i]);
                        }
                    }
                }
                let (m, mirrored) = if skinned {
                    let mut m = [0.0; 16];
                    for (&j, &w) in prim.joints[v].iter().zip(&prim.weights[v]) {
                        if let (Some(jm), true) = (joints.get(usize::from(j)), w != 0.0) {
                            for (o, e) in m.iter_mut().zip(jm) {
                                *o += f64::from(w) * e;
                            }
                        }
                    }
                    (m, det3(&m) < 0.0)
                } else {
                    (world[ni], det3(&world[ni]) < 0.0)
                };
                Some((
                    console(apply(&m, p, true)),
                    n.map(|n| console(apply(&m, n, false))),
                    mirrored,
                ))
            };
            let count = if prim.indices.is_empty() {
                np
            } else {
                prim.indices.len()
            };
            let index = |k: usize| -> usize {
                if prim.indices.is_empty() {
                    k
                } else {
                    prim.indices[k] as usize
                }
            };
            let material = prim.material;
            let base = material
                .and_then(|m| scene.materials.get(m))
                .map_or([1.0; 4], |m| m.base_color);
            for t in 0..count / 3 {
                let vs = [index(3 * t), index(3 * t + 1), index(3 * t + 2)];
                let Some(c) = vs.iter().map(|&v| place(v)).collect::<Option<Vec<_>>>() else {
                    continue;
                };
                // The scene's counter-clockwise fronts → the console's clockwise order, unless
                // the matrix mirrors.
                let order = if c[0].2 { [0, 1, 2] } else { [0, 2, 1] };
                let color = |v: usize| -> [f32; 4] {
                    let vc = prim.colors.get(v).copied().unwrap_or([1.0; 4]);
                    std::array::from_fn(|i| vc[i] * base[i])
                };
                out.push(Tri {
                    p: order.map(|k| c[k].0),
                    n: c.iter()
                        .all(|c| c.1.is_some())
                        .then(|| order.map(|k| c[k].1.unwrap_or_default())),
                    uv: vs
                        .iter()
                        .all(|&v| v < prim.uvs.len())
                        .then(|| order.map(|k| prim.uvs[vs[k]])),
                    color: order.map(|k| color(vs[k])),
                    material,
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::{Material, Mesh, Node, Primitive};

    /// A big unlit double-sided triangle over the centre, with `material`.
    fn one_triangle(material: Material) -> Scene {
        Scene {
            nodes: vec![Node {
                mesh: Some(0),
                ..Node::default()
            }],
            meshes: vec![Mesh {
                primitives: vec![Primitive {
                    positions: vec![[-1.0, -1.0, 0.0], [1.0, -1.0, 0.0], [0.0, 1.0, 0.0]],
                    indices: vec![0, 1, 2],
                    material: Some(0),
                    ..Primitive::default()
                }],
                ..Mesh::default()
            }],
            materials: vec![material],
            ..Scene::default()
        }
    }

    fn centre(scene: &Scene, background: [u8; 3]) -> u16 {
        let view = View {
            width: 32,
            height: 32,
            background,
            yaw: Some(0.0),
            pitch: 0.0,
            ..View::default()
        };
        let d = SceneDrawing::new(scene, None, Shading::Flat, &[0.0], &view);
        let mut budget = super::super::Budget::of(&super::super::RenderOptions::default(), 1);
        let fb = d.draw(0.0, &mut Counts::default(), &mut budget).unwrap();
        fb.pixels[16 * 32 + 16]
    }

    #[test]
    fn a_console_blend_material_blends_in_its_own_mode() {
        let base = Material {
            base_color: [0.3, 0.3, 0.3, 1.0],
            double_sided: true,
            unlit: true,
            ..Material::default()
        };
        let bg = [160, 96, 40];
        let f = centre(&one_triangle(base.clone()), bg) & 0x7FFF;
        let b = rgb15(bg);
        let channels = |c: u16| [c & 31, (c >> 5) & 31, (c >> 10) & 31];
        let (fc, bc) = (channels(f), channels(b));
        assert_ne!(f, b, "the triangle covers the centre");
        for abr in 0..4u8 {
            let mut m = base.clone();
            m.alpha_mode = AlphaMode::Blend;
            m.extras = serde_json::json!({ "psx_blend": { "abr": abr } });
            let got = channels(centre(&one_triangle(m), bg) & 0x7FFF);
            let want: Vec<u16> = (0..3)
                .map(|i| {
                    let (b, f) = (i32::from(bc[i]), i32::from(fc[i]));
                    (match abr {
                        0 => (b + f) / 2,
                        1 => b + f,
                        2 => b - f,
                        _ => b + f / 4,
                    })
                    .clamp(0, 31) as u16
                })
                .collect();
            assert_eq!(got.to_vec(), want, "mode {abr}: B {bc:?} F {fc:?}");
        }
    }
}
