//! PlayStation TMD models, TIM textures and TOD animations → [`Scene`].
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
//! (`KHR_materials_unlit`), FCE → double-sided, ABE → alpha blend with STP texels at alpha ½.
//! Textures come from the TIMs given: the TIM whose pixel block lies in the polygon's texture
//! page (TSB) with the page's colour depth, decoded through the CLUT row the CBA names; a
//! texture with colour-0 texels uses alpha mask. A polygon with no matching TIM is untextured.
//!
//! # Animation
//! The TOD is played by [`Player`] tick by tick (the console's integer arithmetic); every tick
//! becomes a key at `tick × resolution / 60` s (resolution 0 read as 1). Each TOD object is a
//! node named `object N` with TRS keys (STEP by default, as the console showed them; LINEAR
//! with [`PsxOptions::smooth`]). The keys are world-exact: each node's local transform is
//! computed from the console's world matrix and its parent's world as a client composes it
//! (`world_exact`), so clients show the console's world matrices however deep the hierarchy. The hierarchy is the TOD's parent links when an
//! object keeps one parent for its whole life; an object whose parent changes (or loops, or
//! dies first) is a root keyed with its world matrix, which shows the same motion.
//! On the console an object is drawn on its own (hiding a parent does not hide its children),
//! so the model sits on a child node `object N model K` whose visibility (exported as scale 0
//! keys) is: alive (between create and kill), display bit clear, and linked to TMD object K.
//! Cameras become camera nodes (type 0: looking from the viewpoint at the reference point, the
//! z angle read as 4096 = 1° of roll; type 1: rotation and translation as an object's; the
//! projection is not in the file: 2·atan(120/256) vertical field of view, a 240-line screen at
//! `GsSetProjection(256)`). Lights become directional lights shining along their direction,
//! with their first colour (glTF cannot animate a light's colour).

use std::collections::{BTreeMap, BTreeSet};

use crate::error::{Error, Result};
use crate::formats::gte::Mat;
use crate::formats::tim::{DecodeOptions, Depth, Stp, Tim};
use crate::formats::tmd::{self, cba_position, Tmd, Tsb};
use crate::formats::tod::{CameraState, Player, Pose, Tod};
use crate::import::world_exact::{exact_locals, Affine};
use crate::limits::Limits;
use crate::scene::{
    key_time, AlphaMode, Animation, Camera, Channel, Interpolation, Light, LightKind, Material,
    Mesh, Node, Primitive, PrimitiveMode, Projection, Scene, Texture, TextureFilter, Track,
    Transform,
};

/// Which axes the scene uses.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Axes {
    /// glTF's: +Y up, +Z towards the viewer (the console's axes turned 180° about X).
    #[default]
    YUp,
    /// The console's: +Y down, +Z into the screen.
    Raw,
}

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

/// Converts console coordinates into the scene's (shared by the TOD/TMD and HMD exports).
pub(crate) struct Conv {
    c: [f64; 3],
    k: f64,
}

impl Conv {
    fn new(o: &PsxOptions) -> Conv {
        Conv::with(o.axes, o.scale)
    }

    /// A conversion to `axes` at `scale` metres per console unit.
    pub(crate) fn with(axes: Axes, scale: f32) -> Conv {
        Conv {
            c: match axes {
                Axes::YUp => [1.0, -1.0, -1.0],
                Axes::Raw => [1.0, 1.0, 1.0],
            },
            k: scale as f64,
        }
    }

    pub(crate) fn point(&self, p: [f64; 3]) -> [f32; 3] {
        [0, 1, 2].map(|i| (p[i] * self.c[i] * self.k) as f32)
    }

    /// The axis signs (±1 per axis).
    pub(crate) fn axes(&self) -> [f64; 3] {
        self.c
    }

    /// A point in the scene's axes and units, in f64.
    pub(crate) fn point_f64(&self, p: [f64; 3]) -> [f64; 3] {
        [0, 1, 2].map(|i| p[i] * self.c[i] * self.k)
    }

    pub(crate) fn dir(&self, p: [f64; 3]) -> [f64; 3] {
        [0, 1, 2].map(|i| p[i] * self.c[i])
    }

    /// A console matrix (rotation/scale part as floats, translation in units) as TRS.
    fn trs(&self, m: [[f64; 3]; 3], t: [f64; 3]) -> ([f32; 3], [f32; 4], [f32; 3]) {
        let mut a = m;
        for (i, row) in a.iter_mut().enumerate() {
            for (j, e) in row.iter_mut().enumerate() {
                *e *= self.c[i] * self.c[j];
            }
        }
        let (r, s) = decompose(a);
        (self.point(t), quat(r), s.map(|v| v as f32))
    }
}

/// `a = R · diag(s)` (the console scales columns).
pub(crate) fn decompose(a: [[f64; 3]; 3]) -> ([[f64; 3]; 3], [f64; 3]) {
    let col = |j: usize| [a[0][j], a[1][j], a[2][j]];
    let len = |v: [f64; 3]| (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    let mut s = [len(col(0)), len(col(1)), len(col(2))];
    if s.iter().any(|&v| v < 1e-9) {
        return ([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]], s);
    }
    let det = a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1])
        - a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0])
        + a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]);
    if det < 0.0 {
        s[0] = -s[0];
    }
    let mut r = a;
    for row in &mut r {
        for (j, e) in row.iter_mut().enumerate() {
            *e /= s[j];
        }
    }
    (r, s)
}

/// Rotation matrix → unit quaternion `[x, y, z, w]`.
pub(crate) fn quat(r: [[f64; 3]; 3]) -> [f32; 4] {
    let tr = r[0][0] + r[1][1] + r[2][2];
    let q = if tr > 0.0 {
        let s = (tr + 1.0).sqrt() * 2.0;
        [
            (r[2][1] - r[1][2]) / s,
            (r[0][2] - r[2][0]) / s,
            (r[1][0] - r[0][1]) / s,
            0.25 * s,
        ]
    } else if r[0][0] > r[1][1] && r[0][0] > r[2][2] {
        let s = (1.0 + r[0][0] - r[1][1] - r[2][2]).max(1e-12).sqrt() * 2.0;
        [
            0.25 * s,
            (r[0][1] + r[1][0]) / s,
            (r[0][2] + r[2][0]) / s,
            (r[2][1] - r[1][2]) / s,
        ]
    } else if r[1][1] > r[2][2] {
        let s = (1.0 + r[1][1] - r[0][0] - r[2][2]).max(1e-12).sqrt() * 2.0;
        [
            (r[0][1] + r[1][0]) / s,
            0.25 * s,
            (r[1][2] + r[2][1]) / s,
            (r[0][2] - r[2][0]) / s,
        ]
    } else {
        let s = (1.0 + r[2][2] - r[0][0] - r[1][1]).max(1e-12).sqrt() * 2.0;
        [
            (r[0][2] + r[2][0]) / s,
            (r[1][2] + r[2][1]) / s,
            0.25 * s,
            (r[1][0] - r[0][1]) / s,
        ]
    };
    let n = q.iter().map(|v| v * v).sum::<f64>().sqrt().max(1e-12);
    let q = q.map(|v| (v / n) as f32);
    // One sign for equal rotations keeps STEP/LINEAR keys from flipping hemispheres.
    if q[3] < 0.0 {
        q.map(|v| -v)
    } else {
        q
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
struct Models {
    meshes: Vec<Option<usize>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct MaterialKey {
    /// TIM index and CLUT row.
    pub texture: Option<(usize, usize)>,
    pub semi: bool,
    pub double_sided: bool,
    pub unlit: bool,
}

/// Where a textured polygon's texels are: TIM index, CLUT row, and the texel offset of the
/// texture page inside the TIM.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TexSource {
    pub tim: usize,
    pub clut_row: usize,
    pub offset: (f64, f64),
}

pub(crate) fn texture_source(tims: &[Tim], tsb: u16, cba: u16) -> Option<TexSource> {
    let t = Tsb::from_bits(tsb);
    let (px, py) = t.vram_origin();
    let (depth, per_unit) = match t.tpf {
        0 => (Depth::Clut4, 4),
        1 => (Depth::Clut8, 2),
        _ => (Depth::Direct15, 1),
    };
    let page_units = 256 / per_unit;
    tims.iter().enumerate().find_map(|(i, tim)| {
        let img = &tim.image;
        let (x0, y0) = (img.x as u32, img.y as u32);
        let (x1, y1) = (x0 + img.width as u32, y0 + img.height as u32);
        let overlaps = x0 < px + page_units && px < x1 && y0 < py + 256 && py < y1;
        if !overlaps || tim.depth() != Some(depth) {
            return None;
        }
        let clut_row = if depth == Depth::Direct15 {
            0
        } else {
            let (cx, cy) = cba_position(cba);
            let c = tim.clut.as_ref()?;
            if c.x as u32 != cx || cy < c.y as u32 || cy >= c.y as u32 + c.height as u32 {
                return None;
            }
            (cy - c.y as u32) as usize
        };
        Some(TexSource {
            tim: i,
            clut_row,
            offset: (
                (px as f64 - x0 as f64) * per_unit as f64,
                py as f64 - y0 as f64,
            ),
        })
    })
}

fn build_models(tmd: &Tmd, conv: &Conv, opts: &PsxOptions, scene: &mut Scene) -> Result<Models> {
    let mut materials: BTreeMap<MaterialKey, usize> = BTreeMap::new();
    let mut textures: BTreeMap<(usize, usize, bool), usize> = BTreeMap::new();
    let mut meshes = Vec::new();
    for mesh in tmd.meshes() {
        let mut prims: BTreeMap<MaterialKey, Primitive> = BTreeMap::new();
        for tri in &mesh.triangles {
            let src = tri
                .texture
                .and_then(|[tsb, cba]| texture_source(&opts.tims, tsb, cba));
            let key = MaterialKey {
                texture: src.map(|s| (s.tim, s.clut_row)),
                semi: tri.semi_transparent,
                double_sided: tri.double_sided,
                unlit: !tri.lit,
            };
            let p = prims.entry(key).or_insert_with(|| Primitive {
                mode: PrimitiveMode::Triangles,
                ..Primitive::default()
            });
            let corners = [&tri.corners[0], &tri.corners[2], &tri.corners[1]];
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
        if prims.is_empty() {
            meshes.push(None);
            continue;
        }
        let mut out = Mesh {
            name: format!("tmd object {}", mesh.object),
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
    Ok(Models { meshes })
}

/// A material for `key`, adding its texture to the scene the first time one needs it.
pub(crate) fn material(
    key: MaterialKey,
    opts: &PsxOptions,
    textures: &mut BTreeMap<(usize, usize, bool), usize>,
    scene_textures: &mut Vec<Texture>,
) -> Result<Material> {
    let mut m = Material {
        name: format!(
            "{}{}{}{}",
            key.texture
                .map_or("untextured".to_string(), |(t, c)| format!(
                    "tim {t} clut {c}"
                )),
            if key.semi { " semi-transparent" } else { "" },
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
    if key.semi {
        m.alpha_mode = AlphaMode::Blend;
    }
    if let Some((t, c)) = key.texture {
        let stp = if key.semi {
            Stp::SemiTransparent
        } else {
            Stp::Opaque
        };
        let img = opts.tims[t].to_rgba(&DecodeOptions { clut_row: c, stp })?;
        if !key.semi && img.pixels.chunks_exact(4).any(|p| p[3] == 0) {
            m.alpha_mode = AlphaMode::Mask { cutoff: 0.5 };
        }
        let index = match textures.get(&(t, c, key.semi)) {
            Some(&i) => i,
            None => {
                scene_textures.push(Texture {
                    name: format!("tim {t} clut {c}{}", if key.semi { " stp" } else { "" }),
                    width: img.width as u32,
                    height: img.height as u32,
                    pixels: img.pixels,
                    filter: TextureFilter::Nearest,
                    repeat: false,
                });
                textures.insert((t, c, key.semi), scene_textures.len() - 1);
                scene_textures.len() - 1
            }
        };
        m.texture = Some(index);
    }
    Ok(m)
}

/// A static scene of a TMD: one node per object.
pub fn tmd_scene(tmd: &Tmd, opts: &PsxOptions) -> Result<Scene> {
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
    Ok(scene)
}

/// Per-tick keys of one node.
#[derive(Default)]
struct Keys {
    times: Vec<f32>,
    t: Vec<[f32; 3]>,
    r: Vec<[f32; 4]>,
    s: Vec<[f32; 3]>,
}

impl Keys {
    fn push(&mut self, time: f32, (t, r, s): ([f32; 3], [f32; 4], [f32; 3])) {
        self.times.push(time);
        self.t.push(t);
        self.r.push(r);
        self.s.push(s);
    }

    fn channels(&self, node: usize, interpolation: Interpolation, out: &mut Vec<Channel>) {
        let mut add = |track: fn(&Keys, &[usize]) -> Track,
                       values_eq: &dyn Fn(usize, usize) -> bool| {
            if (0..self.times.len()).all(|i| values_eq(i, 0)) {
                // Constant: the rest transform holds it.
                return;
            }
            let keep = thin(self.times.len(), values_eq);
            out.push(Channel {
                node,
                interpolation,
                times: keep.iter().map(|&i| self.times[i]).collect(),
                track: track(self, &keep),
            });
        };
        add(
            |k, keep| Track::Translation(keep.iter().map(|&i| k.t[i]).collect()),
            &|a, b| self.t[a] == self.t[b],
        );
        add(
            |k, keep| Track::Rotation(keep.iter().map(|&i| k.r[i]).collect()),
            &|a, b| self.r[a] == self.r[b],
        );
        add(
            |k, keep| Track::Scale(keep.iter().map(|&i| k.s[i]).collect()),
            &|a, b| self.s[a] == self.s[b],
        );
    }

    fn rest(&self) -> Transform {
        Transform::Trs {
            translation: self.t[0],
            rotation: self.r[0],
            scale: self.s[0],
        }
    }
}

/// Indices of the keys to keep: the first and last of every run of equal values (lossless for
/// STEP and LINEAR).
fn thin(n: usize, eq: &dyn Fn(usize, usize) -> bool) -> Vec<usize> {
    (0..n)
        .filter(|&i| i == 0 || i + 1 == n || !eq(i, i - 1) || !eq(i, i + 1))
        .collect()
}

fn visibility_channel(node: usize, times: &[f32], vis: &[bool], out: &mut Vec<Channel>) {
    // Constant visibility is the node's `hidden` flag.
    if vis.iter().all(|&v| v == vis[0]) {
        return;
    }
    let keep = thin(vis.len(), &|a, b| vis[a] == vis[b]);
    out.push(Channel {
        node,
        interpolation: Interpolation::Step,
        times: keep.iter().map(|&i| times[i]).collect(),
        track: Track::Visibility(keep.iter().map(|&i| vis[i]).collect()),
    });
}

/// An animated scene of a TOD, with the TMD's models when given.
pub fn tod_scene(tod: &Tod, tmd: Option<&Tmd>, opts: &PsxOptions) -> Result<Scene> {
    tod_scene_after(&[], tod, tmd, opts)
}

/// [`tod_scene`] for a TOD played after `prelude` on the same object table (as the janken
/// sample plays `APPEAR.TOD` first: the later files create no objects of their own). Only
/// `tod`'s frames become keys; the prelude sets the objects up.
pub fn tod_scene_after(
    prelude: &[&Tod],
    tod: &Tod,
    tmd: Option<&Tmd>,
    opts: &PsxOptions,
) -> Result<Scene> {
    tod_scene_noted(prelude, tod, tmd, opts).map(|(scene, _)| scene)
}

/// [`tod_scene_after`] with the notes a caller must show: what the playback dropped or could
/// not honour (TMD IDs the model lacks, packets for objects not alive, dead parents, parent
/// loops), one note per kind with the number of times it happened and its first occurrence.
pub fn tod_scene_noted(
    prelude: &[&Tod],
    tod: &Tod,
    tmd: Option<&Tmd>,
    opts: &PsxOptions,
) -> Result<(Scene, Vec<String>)> {
    let mut notes = Vec::new();
    let scene = tod_scene_inner(prelude, tod, tmd, opts, &mut notes)?;
    Ok((scene, summarize_notes(&notes)))
}

/// Groups notes that differ only in their numbers: `first (N times)`.
fn summarize_notes(notes: &[String]) -> Vec<String> {
    let mut kinds: Vec<(String, String, usize)> = Vec::new();
    for n in notes {
        let shape: String = n.chars().filter(|c| !c.is_ascii_digit()).collect();
        match kinds.iter_mut().find(|k| k.0 == shape) {
            Some(k) => k.2 += 1,
            None => kinds.push((shape, n.clone(), 1)),
        }
    }
    kinds
        .into_iter()
        .map(|(_, first, count)| match count {
            1 => first,
            n => format!("{first} ({n} times in all)"),
        })
        .collect()
}

fn tod_scene_inner(
    prelude: &[&Tod],
    tod: &Tod,
    tmd: Option<&Tmd>,
    opts: &PsxOptions,
    notes: &mut Vec<String>,
) -> Result<Scene> {
    let conv = Conv::new(opts);
    let mut scene = Scene {
        name: Some("tod".into()),
        ..Scene::default()
    };
    let models = match tmd {
        Some(t) => Some(build_models(t, &conv, opts, &mut scene)?),
        None => None,
    };
    let mut before: Option<Player> = None;
    for anim in prelude {
        let mut p = match before.take() {
            None => Player::new(anim, tmd),
            Some(p) => p.then(anim),
        };
        opts.limits.steps("TOD playback ticks", p.tick_bound())?;
        while p.advance() {}
        before = Some(p);
    }
    let mut player = match before {
        None => Player::new(tod, tmd),
        Some(p) => p.then(tod),
    };
    opts.limits
        .steps("TOD playback ticks", player.tick_bound())?;
    let poses: Vec<Pose> = player.by_ref().collect();
    notes.extend(player.notes().iter().cloned());
    if poses.is_empty() {
        return Ok(scene);
    }
    let ticks = tod.ticks_per_frame() as u64;
    let first = poses[0].frame;
    // Times from 0: the first frame is the start of the clip; never after the exact time.
    let times: Vec<f32> = poses
        .iter()
        .map(|p| key_time(p.frame.saturating_sub(first) as u64 * ticks, 60.0))
        .collect();
    let interpolation = if opts.smooth {
        Interpolation::Linear
    } else {
        Interpolation::Step
    };
    let mut channels = Vec::new();

    // Objects, in order of first appearance.
    let mut ids: Vec<u16> = Vec::new();
    let mut position: BTreeMap<u16, usize> = BTreeMap::new();
    for p in &poses {
        for o in &p.objects {
            position.entry(o.id).or_insert_with(|| {
                ids.push(o.id);
                ids.len() - 1
            });
        }
    }
    // Each pose's objects by ID (the first slot with an ID wins, as the player's search does);
    // ticks are distinct, so they key the poses.
    let table: BTreeMap<u32, BTreeMap<u16, usize>> = poses
        .iter()
        .map(|p| {
            let by_id = p
                .objects
                .iter()
                .enumerate()
                .rev()
                .map(|(i, o)| (o.id, i))
                .collect();
            (p.frame, by_id)
        })
        .collect();
    let at = |p: &Pose, id: u16| {
        table
            .get(&p.frame)
            .and_then(|m| m.get(&id))
            .map(|&i| p.objects[i].clone())
    };
    // A static parent: one parent ID for the whole life, and no dead parent slot.
    let mut parent_of: BTreeMap<u16, Option<u16>> = BTreeMap::new();
    for &id in &ids {
        let mut parents = BTreeSet::new();
        let mut consistent = true;
        for p in &poses {
            if let Some(o) = at(p, id) {
                parents.insert(o.parent);
                if o.parent.is_none() && o.world != o.local {
                    consistent = false;
                }
            }
        }
        let parent = match (consistent, parents.len()) {
            (true, 1) => parents.into_iter().next().flatten(),
            _ => None,
        };
        let known = parent.map_or(true, |p| position.contains_key(&p));
        let flat = !(consistent && known);
        parent_of.insert(id, if flat { None } else { parent });
    }
    // Cut loops in the chosen hierarchy.
    for &id in &ids {
        let mut seen = BTreeSet::from([id]);
        let mut cur = parent_of[&id];
        while let Some(p) = cur {
            if seen.contains(&p) {
                parent_of.insert(id, None);
                break;
            }
            seen.insert(p);
            cur = parent_of.get(&p).copied().flatten();
        }
    }

    let node_base = scene.nodes.len();
    let index_of = |id: u16| node_base + position.get(&id).copied().unwrap_or(0);
    // World-exact keys: every object's console world matrix per frame (held while it is dead),
    // turned into locals under its parent as a client composes it.
    let parents: Vec<Option<usize>> = ids
        .iter()
        .map(|id| parent_of[id].and_then(|p| position.get(&p).copied()))
        .collect();
    let mut worlds: Vec<Vec<Affine>> = vec![Vec::with_capacity(ids.len()); poses.len()];
    for &id in &ids {
        let first_alive = poses.iter().find_map(|p| at(p, id)).map(|o| o.world);
        let mut last: Option<Mat> = None;
        for (p, frame) in poses.iter().zip(worlds.iter_mut()) {
            let m = at(p, id)
                .map(|o| o.world)
                .or(last)
                .or(first_alive)
                .unwrap_or(Mat::IDENTITY);
            last = Some(m);
            frame.push(conv.affine(&m));
        }
    }
    let locals = exact_locals(&parents, &worlds);
    for (k, &id) in ids.iter().enumerate() {
        let mut keys = Keys::default();
        for (frame, &time) in locals.iter().zip(&times) {
            keys.push(time, frame[k]);
        }
        let node = scene.nodes.len();
        scene.nodes.push(Node {
            parent: parent_of[&id].map(index_of),
            transform: keys.rest(),
            extras: serde_json::json!({ "tod_object": id }),
            ..Node::new(format!("object {id}"))
        });
        keys.channels(node, interpolation, &mut channels);
    }
    // Model nodes: one child per TMD object an object shows, visible while it shows it.
    if let Some(models) = &models {
        for &id in &ids {
            let used: BTreeSet<usize> = poses
                .iter()
                .filter_map(|p| at(p, id).and_then(|o| o.model))
                .collect();
            for k in used {
                let Some(mesh) = models.meshes.get(k).copied().flatten() else {
                    continue;
                };
                let vis: Vec<bool> = poses
                    .iter()
                    .map(|p| at(p, id).is_some_and(|o| o.visible && o.model == Some(k)))
                    .collect();
                let node = scene.nodes.len();
                scene.nodes.push(Node {
                    parent: Some(index_of(id)),
                    mesh: Some(mesh),
                    hidden: !vis[0],
                    ..Node::new(format!("object {id} model {k}"))
                });
                visibility_channel(node, &times, &vis, &mut channels);
            }
        }
    }
    cameras(
        &poses,
        &times,
        &conv,
        opts,
        interpolation,
        &mut scene,
        &mut channels,
    );
    lights(
        &poses,
        &times,
        &conv,
        interpolation,
        &mut scene,
        &mut channels,
    );
    if !channels.is_empty() {
        scene.animations.push(Animation {
            name: "tod".into(),
            channels,
            ..Animation::default()
        });
    }
    let problems = scene.check();
    if !problems.is_empty() {
        return Err(Error::Unencodable {
            format: crate::Format::Gltf,
            what: format!("the TOD's scene is inconsistent: {problems:?}"),
        });
    }
    Ok(scene)
}

/// A camera's pose as a console matrix: +Z forward, +Y down, in console units.
fn camera_pose(c: &CameraState) -> ([[f64; 3]; 3], [f64; 3]) {
    match *c {
        CameraState::RotTrans { matrix, .. } => (
            matrix.m.map(|r| r.map(|v| v as f64 / 4096.0)),
            matrix.t.map(|v| v as f64),
        ),
        CameraState::LookAt {
            position,
            reference,
            z_angle,
            ..
        } => {
            let eye = position.map(|v| v as f64);
            let target = reference.map(|v| v as f64);
            let norm = |v: [f64; 3]| {
                let l = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
                if l < 1e-12 {
                    None
                } else {
                    Some(v.map(|x| x / l))
                }
            };
            let cross = |a: [f64; 3], b: [f64; 3]| {
                [
                    a[1] * b[2] - a[2] * b[1],
                    a[2] * b[0] - a[0] * b[2],
                    a[0] * b[1] - a[1] * b[0],
                ]
            };
            let z = norm([0, 1, 2].map(|i| target[i] - eye[i])).unwrap_or([0.0, 0.0, 1.0]);
            let x = norm(cross([0.0, 1.0, 0.0], z)).unwrap_or([1.0, 0.0, 0.0]);
            let y = cross(z, x);
            // Roll about the view axis: 4096 = 1°.
            let a = (z_angle as f64 / 4096.0).to_radians();
            let (s, c) = a.sin_cos();
            let xr = [0, 1, 2].map(|i| c * x[i] + s * y[i]);
            let yr = [0, 1, 2].map(|i| -s * x[i] + c * y[i]);
            (
                [
                    [xr[0], yr[0], z[0]],
                    [xr[1], yr[1], z[1]],
                    [xr[2], yr[2], z[2]],
                ],
                eye,
            )
        }
    }
}

fn cameras(
    poses: &[Pose],
    times: &[f32],
    conv: &Conv,
    opts: &PsxOptions,
    interpolation: Interpolation,
    scene: &mut Scene,
    channels: &mut Vec<Channel>,
) {
    let cam_id = |c: &CameraState| match *c {
        CameraState::LookAt { id, .. } | CameraState::RotTrans { id, .. } => id,
    };
    let ids: BTreeSet<u16> = poses
        .iter()
        .flat_map(|p| p.cameras.iter().map(cam_id))
        .collect();
    for id in ids {
        let mut keys = Keys::default();
        let mut last = None;
        let first = poses
            .iter()
            .find_map(|p| p.cameras.iter().find(|c| cam_id(c) == id).copied());
        for (p, &time) in poses.iter().zip(times) {
            let c = p
                .cameras
                .iter()
                .find(|c| cam_id(c) == id)
                .copied()
                .or(last)
                .or(first);
            last = c;
            let Some(c) = c else { continue };
            let (m, t) = camera_pose(&c);
            keys.push(time, conv.trs(m, t));
        }
        let index = scene.cameras.len();
        scene.cameras.push(Camera {
            name: format!("camera {id}"),
            projection: Projection::Perspective {
                yfov: 2.0 * (120.0f32 / 256.0).atan(),
                znear: 0.01,
                zfar: None,
                aspect_ratio: None,
            },
        });
        let node = scene.nodes.len();
        let raw = opts.axes == Axes::Raw;
        scene.nodes.push(Node {
            transform: keys.rest(),
            camera: (!raw).then_some(index),
            ..Node::new(format!("camera {id}"))
        });
        if raw {
            // The console's camera looks down +Z with +Y down; glTF's down −Z with +Y up.
            scene.nodes.push(Node {
                parent: Some(node),
                camera: Some(index),
                transform: Transform::Trs {
                    translation: [0.0; 3],
                    rotation: [1.0, 0.0, 0.0, 0.0],
                    scale: [1.0; 3],
                },
                ..Node::new(format!("camera {id} lens"))
            });
        }
        keys.channels(node, interpolation, channels);
    }
}

fn lights(
    poses: &[Pose],
    times: &[f32],
    conv: &Conv,
    interpolation: Interpolation,
    scene: &mut Scene,
    channels: &mut Vec<Channel>,
) {
    let ids: BTreeSet<u16> = poses
        .iter()
        .flat_map(|p| p.lights.iter().map(|l| l.id))
        .collect();
    for id in ids {
        let first = poses
            .iter()
            .find_map(|p| p.lights.iter().find(|l| l.id == id).copied());
        let Some(first) = first else { continue };
        let mut keys = Keys::default();
        let mut dir = first.direction;
        for (p, &time) in poses.iter().zip(times) {
            if let Some(l) = p.lights.iter().find(|l| l.id == id) {
                dir = l.direction;
            }
            // glTF lights shine down the node's −Z: rotate −Z onto the direction.
            let d = conv.dir(dir.map(|v| v as f64));
            keys.push(time, ([0.0; 3], rotation_to(d), [1.0; 3]));
        }
        let index = scene.lights.len();
        scene.lights.push(Light {
            name: format!("light {id}"),
            kind: LightKind::Directional,
            color: first.color.map(|v| srgb_to_linear(v as f32 / 255.0)),
            intensity: 1.0,
            range: None,
        });
        let node = scene.nodes.len();
        scene.nodes.push(Node {
            transform: keys.rest(),
            light: Some(index),
            ..Node::new(format!("light {id}"))
        });
        keys.channels(node, interpolation, channels);
    }
}

/// The shortest rotation taking −Z to `d` (identity for a zero direction).
fn rotation_to(d: [f64; 3]) -> [f32; 4] {
    let l = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
    if l < 1e-12 {
        return [0.0, 0.0, 0.0, 1.0];
    }
    let d = d.map(|v| v / l);
    let from = [0.0, 0.0, -1.0];
    let dot = from[2] * d[2];
    if dot < -0.999_999 {
        return [1.0, 0.0, 0.0, 0.0];
    }
    let axis = [
        from[1] * d[2] - from[2] * d[1],
        from[2] * d[0] - from[0] * d[2],
        from[0] * d[1] - from[1] * d[0],
    ];
    let q = [axis[0], axis[1], axis[2], 1.0 + dot];
    let n = q.iter().map(|v| v * v).sum::<f64>().sqrt();
    q.map(|v| (v / n) as f32)
}

/// The TMD objects' triangle counts, for callers that want to report what was converted.
pub fn triangle_count(tmd: &Tmd) -> usize {
    tmd.meshes()
        .iter()
        .map(|m: &tmd::Mesh| m.triangles.len())
        .sum()
}
