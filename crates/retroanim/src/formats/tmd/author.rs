//! The neutral [`Scene`] → a TMD model and the TIMs its textured polygons use: authoring for the
//! console, the way back from [`super::scene`].
//!
//! # Axes and units
//! The inverse of the TMD bridge's: with [`Axes::YUp`] every position and normal is turned 180°
//! about X, `(x, y, z) → (x, −y, −z)`, back into the console's +Y down, +Z into the screen;
//! positions are divided by the scale (metres per console unit, default 1/4096: one metre is
//! 4096 units) and rounded to int16. A vertex that does not fit int16 is an error naming it
//! (a smaller scale fits it). Normals are normalised and written as fixed point (4096 = 1.0).
//!
//! # Polygons
//! Each glTF triangle (counter-clockwise front) becomes the console's clockwise corner order
//! (corners 1 and 2 swapped back). Two consecutive triangles of one primitive that share an
//! edge, every attribute of the two shared corners, and a plane become one quadrilateral whose
//! GPU split (`v0 v1 v2`, `v1 v3 v2`) is exactly the two triangles. The packet follows the
//! material and the corners, as the TMD bridge reads packets:
//!
//! | scene | packet |
//! |---|---|
//! | `unlit` (`KHR_materials_unlit`) | flag LGT (no light calculation), colours per corner |
//! | lit | normals: one (flat) when the corners share it, else one per corner (IIP, Gouraud) |
//! | `double_sided` | flag FCE |
//! | alpha mode blend | mode ABE (semi-transparent, rate 0: 50 % back + 50 % polygon) |
//! | vertex colours × base colour | lit untextured: one colour, or one per corner (GRD); unlit: one colour, or one per corner (IIP); lit textured: none (the texture gives the colour) |
//! | base-colour texture | mode TME, texture coordinates, TSB and CBA of the TIM written for it |
//!
//! Colours go back from linear to sRGB bytes: 255 = 1.0 on untextured polygons, 128 = 1.0 on
//! textured ones (the GPU's brightness modulation, as the bridge reads them).
//!
//! # Textures and VRAM
//! Each texture a material uses becomes one TIM ([`Tim::from_rgba`]), at the smallest colour
//! depth that keeps every colour (at most 16 colours: 4 bpp, 256: 8 bpp, else 16 bpp) and
//! whose texture page is wide enough (256, 128 or 64 texels); a texture wider than its page
//! at 16 bpp is palette-reduced to 8 or 4 bpp (noted). Texture *k* takes one whole texture
//! page: pages 10..15 (VRAM x = 640 + 64·k, y = 0) for k < 6, pages 26..31 (y = 256) for
//! 6 ≤ k < 12, the image at the page's top-left corner, so texture coordinates are texels
//! from its corner. Its CLUT (4 and 8 bpp) lies at VRAM (0, 480 + k), below a 640 × 480
//! display area. A texture larger than 256 × 256, past the twelfth, or not an image leaves
//! its polygons untextured, with a note.

use std::collections::BTreeMap;
use std::collections::HashMap;

use crate::error::{Error, Result};
use crate::formats::tim::{self, Depth, Rgba, Tim};
use crate::formats::tmd::{
    flag, mode, ArrayVec, Object, Polygon, Primitive as Packet, PrimitiveData, Rgbx, SVector, Tmd,
    Uv,
};
use crate::report::Note;
use crate::scene::{AlphaMode, PrimitiveMode, Scene};
use crate::Format;

use super::scene::Axes;

/// How to author the model.
#[derive(Debug, Clone)]
pub struct AuthorOptions {
    /// The scene's axes.
    pub axes: Axes,
    /// Metres per console unit (default 1/4096).
    pub scale: f32,
    /// Keeps vertices (and normals) of different joints apart: a skinned vertex is interned by
    /// its position and its heaviest joint ([`heaviest_joint`]), so that the HMD author can move
    /// each by its own joint (shared polygons). Off: vertices are interned by position alone.
    pub by_joint: bool,
}

impl Default for AuthorOptions {
    fn default() -> Self {
        AuthorOptions {
            axes: Axes::YUp,
            scale: super::scene::DEFAULT_SCALE,
            by_joint: false,
        }
    }
}

/// One TMD object to write: a scene mesh, and the matrix its vertices are moved by first
/// (column-major 4×4, scene units; `None` keeps the mesh's own space).
#[derive(Debug, Clone, Copy)]
pub struct Instance {
    /// Index of the scene mesh.
    pub mesh: usize,
    /// The transform baked into the vertices.
    pub matrix: Option<[f64; 16]>,
}

/// A model authored from a scene.
#[derive(Debug, Clone)]
pub struct Authored {
    /// The model; object *k* is instance *k*.
    pub tmd: Tmd,
    /// The TIMs its textured polygons sample, placed as the module docs say.
    pub tims: Vec<Tim>,
    /// What was left out or approximated (what and how many).
    pub notes: Vec<Note>,
    /// Per object, per vertex: the heaviest joint (index into the skin's joints) of the scene
    /// vertices it was made from, with [`AuthorOptions::by_joint`]; `None` for unskinned ones.
    pub vertex_joints: Vec<Vec<Option<u16>>>,
    /// Per object, per normal: the joint of the vertices it belongs to, as `vertex_joints`.
    pub normal_joints: Vec<Vec<Option<u16>>>,
}

/// The joint of weight `weights` with the largest weight (the first of equal ones), when it
/// is not zero: the joint a console vertex follows, the console having no blending.
pub fn heaviest_joint(joints: &[u16; 4], weights: &[f32; 4]) -> Option<u16> {
    let mut best: Option<(u16, f32)> = None;
    for (j, w) in joints.iter().zip(weights) {
        if *w > 0.0 && best.map_or(true, |b| *w > b.1) {
            best = Some((*j, *w));
        }
    }
    best.map(|b| b.0)
}

/// One instance per mesh, in mesh order, in the mesh's own space: the model a TOD animates.
pub fn mesh_instances(scene: &Scene) -> Vec<Instance> {
    (0..scene.meshes.len())
        .map(|mesh| Instance { mesh, matrix: None })
        .collect()
}

/// One instance per node showing a mesh, in node order, moved to the node's rest position
/// (its world matrix at rest): a static model of the scene as it stands.
pub fn rest_instances(scene: &Scene) -> Vec<Instance> {
    let local: Vec<[f64; 16]> = scene
        .nodes
        .iter()
        .map(|n| crate::scene::sample::local_matrix(&n.transform))
        .collect();
    let mut world: Vec<Option<[f64; 16]>> = vec![None; scene.nodes.len()];
    // Without recursion (a glTF chain of 100,000 nodes overflowed the stack): walk up to a node
    // already placed or a root, then place the trail downwards. Each node is placed once; a walk
    // is cut after as many steps as there are nodes (a loop), its top treated as a root.
    let mut trail = Vec::new();
    let mut resolve = |i: usize, world: &mut [Option<[f64; 16]>]| -> [f64; 16] {
        trail.clear();
        let mut at = i;
        while world[at].is_none() {
            trail.push(at);
            match scene.nodes[at].parent {
                Some(p) if p < scene.nodes.len() && trail.len() <= scene.nodes.len() => at = p,
                _ => break,
            }
        }
        let mut above = world[at];
        for &k in trail.iter().rev() {
            let w = match above {
                Some(pw) if scene.nodes[k].parent.is_some() => {
                    crate::scene::sample::mat_mul(&pw, &local[k])
                }
                _ => local[k],
            };
            world[k] = Some(w);
            above = Some(w);
        }
        world[i].unwrap_or(local[i])
    };
    let mut out = Vec::new();
    for (i, n) in scene.nodes.iter().enumerate() {
        if let Some(mesh) = n.mesh {
            let m = resolve(i, &mut world);
            out.push(Instance {
                mesh,
                matrix: Some(m),
            });
        }
    }
    out
}

/// Counted notes, one per kind (shared with the TOD author).
#[derive(Default)]
pub(crate) struct Counts(BTreeMap<&'static str, (usize, String)>);

impl Counts {
    /// Counts `n` more of `code`; `what` describes one kind the first time.
    pub(crate) fn add(&mut self, code: &'static str, n: usize, what: impl FnOnce() -> String) {
        if n == 0 {
            return;
        }
        let e = self.0.entry(code).or_insert_with(|| (0, what()));
        e.0 += n;
    }

    /// One note per kind: `N × what`.
    pub(crate) fn finish(self) -> Vec<Note> {
        self.0
            .into_iter()
            .map(|(code, (n, what))| Note {
                code,
                message: format!("{n} × {what}"),
            })
            .collect()
    }
}

/// Where texture *k* went in VRAM.
#[derive(Debug, Clone, Copy)]
struct Placed {
    tsb: u16,
    cba: u16,
    width: f64,
    height: f64,
}

/// One corner of a polygon in console terms.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Corner {
    vertex: u16,
    normal: u16,
    color: [u8; 3],
    uv: [u8; 2],
    position: [f64; 3],
}

/// The corners' identity for quad merging (position by vertex index).
fn same(a: &Corner, b: &Corner) -> bool {
    a.vertex == b.vertex && a.normal == b.normal && a.color == b.color && a.uv == b.uv
}

/// Polygon-wide packet features.
#[derive(Debug, Clone, Copy)]
struct Look {
    lit: bool,
    double_sided: bool,
    semi: bool,
    texture: Option<Placed>,
}

/// Authors a TMD from `scene`: one object per instance.
pub fn author(scene: &Scene, instances: &[Instance], opts: &AuthorOptions) -> Result<Authored> {
    if !(opts.scale.is_finite() && opts.scale > 0.0) {
        return Err(Error::Option {
            option: "scale",
            what: format!("{}: must be a positive number", opts.scale),
        });
    }
    let mut notes = Counts::default();
    let signs = match opts.axes {
        Axes::YUp => [1.0, -1.0, -1.0],
        Axes::Raw => [1.0, 1.0, 1.0],
    };
    let k = 1.0 / opts.scale as f64;
    // Textures, placed on first use by a material.
    let mut tims = Vec::new();
    let mut placed: BTreeMap<usize, Option<Placed>> = BTreeMap::new();
    let mut objects = Vec::with_capacity(instances.len());
    let (mut all_vertex_joints, mut all_normal_joints) = (Vec::new(), Vec::new());
    for (obj, inst) in instances.iter().enumerate() {
        let mesh = scene
            .meshes
            .get(inst.mesh)
            .ok_or_else(|| Error::Unencodable {
                format: Format::Tmd,
                what: format!("object {obj}: mesh {} does not exist", inst.mesh),
            })?;
        let normal_matrix = inst.matrix.map(|m| normal_matrix(&m));
        let mut vertices: Vec<SVector> = Vec::new();
        let mut vertex_at: HashMap<([i16; 3], Option<u16>), u16> = HashMap::new();
        let mut vertex_joints: Vec<Option<u16>> = Vec::new();
        let mut normal_joints: Vec<Option<u16>> = Vec::new();
        let mut normals: Vec<SVector> = Vec::new();
        let mut normal_at: HashMap<([i16; 3], Option<u16>), u16> = HashMap::new();
        let mut packets = Vec::new();
        if !mesh.target_names.is_empty() {
            notes.add("morph-targets-dropped", mesh.target_names.len(), || {
                "morph targets left out (a TMD object is rigid; its base shape is written)".into()
            });
        }
        for (pi, prim) in mesh.primitives.iter().enumerate() {
            let path = format!("meshes[{}].primitives[{pi}]", inst.mesh);
            if prim.mode != PrimitiveMode::Triangles {
                let n = prim.indices.len().max(prim.positions.len());
                notes.add("lines-points-dropped", n, || {
                    "line or point indices left out (only triangles are written)".into()
                });
                continue;
            }
            // With `by_joint` the caller writes the skin (and notes what it cannot).
            if !prim.joints.is_empty() && !opts.by_joint {
                notes.add("skin-dropped", 1, || {
                    "skinned primitives written in their bind pose (TMD objects are rigid)".into()
                });
            }
            let material = prim
                .material
                .and_then(|m| scene.materials.get(m))
                .cloned()
                .unwrap_or_default();
            let texture = match material.texture {
                Some(t) if !prim.uvs.is_empty() => {
                    if let std::collections::btree_map::Entry::Vacant(e) = placed.entry(t) {
                        e.insert(place(scene, t, &mut tims, &mut notes)?);
                    }
                    placed[&t]
                }
                Some(_) => {
                    notes.add("no-uvs", 1, || {
                        "textured primitives without texture coordinates drawn untextured".into()
                    });
                    None
                }
                None => None,
            };
            let look = Look {
                lit: !material.unlit,
                double_sided: material.double_sided,
                semi: material.alpha_mode == AlphaMode::Blend,
                texture,
            };
            let n = prim.positions.len();
            let index: Vec<u32> = if prim.indices.is_empty() {
                (0..n as u32).collect()
            } else {
                prim.indices.clone()
            };
            if index.len() % 3 != 0 {
                notes.add("partial-triangle", 1, || {
                    "primitives whose index count is not a multiple of 3: the last indices left out"
                        .into()
                });
            }
            let mut tris: Vec<[Corner; 3]> = Vec::with_capacity(index.len() / 3);
            let mut clamped_uv = 0usize;
            for (ti, t) in index.chunks_exact(3).enumerate() {
                // glTF's counter-clockwise a b c is the console's clockwise a c b.
                let order = [t[0], t[2], t[1]];
                let mut pos = [[0.0f64; 3]; 3];
                for (c, &vi) in order.iter().enumerate() {
                    let p = prim
                        .positions
                        .get(vi as usize)
                        .ok_or_else(|| Error::Unencodable {
                            format: Format::Tmd,
                            what: format!("{path}: triangle {ti} uses vertex {vi} of {n}"),
                        })?;
                    let p = p.map(f64::from);
                    let p = match &inst.matrix {
                        Some(m) => transform_point(m, p),
                        None => p,
                    };
                    pos[c] = [0, 1, 2].map(|i| p[i] * signs[i] * k);
                }
                let face = unit(cross(sub(pos[1], pos[0]), sub(pos[2], pos[0])))
                    .map_or([0.0, -1.0, 0.0], |f| f.map(|v| -v));
                let mut corners = [Corner {
                    vertex: 0,
                    normal: 0,
                    color: [0; 3],
                    uv: [0; 2],
                    position: [0.0; 3],
                }; 3];
                for (c, &vi) in order.iter().enumerate() {
                    let vi = vi as usize;
                    let q = pos[c].map(f64::round);
                    if q.iter().any(|&v| !(-32768.0..=32767.0).contains(&v)) {
                        return Err(Error::Unencodable {
                            format: Format::Tmd,
                            what: format!(
                                "{path} vertex {vi}: ({:.0}, {:.0}, {:.0}) console units do not fit int16 (−32768..32767); choose a larger --scale (metres per unit)",
                                q[0], q[1], q[2]
                            ),
                        });
                    }
                    let key = q.map(|v| v as i16);
                    let joint = if opts.by_joint {
                        prim.joints
                            .get(vi)
                            .zip(prim.weights.get(vi))
                            .and_then(|(j, w)| heaviest_joint(j, w))
                    } else {
                        None
                    };
                    let vertex = intern(
                        (&mut vertices, &mut vertex_joints),
                        &mut vertex_at,
                        (key, joint),
                        || format!("meshes[{}]: more than 65536 distinct vertices", inst.mesh),
                    )?;
                    // Unlit packets carry no normals.
                    let normal = if look.lit {
                        let dir = prim
                            .normals
                            .get(vi)
                            .map(|n| {
                                let n = n.map(f64::from);
                                let n = match &normal_matrix {
                                    Some(m) => mul3(m, n),
                                    None => n,
                                };
                                [0, 1, 2].map(|i| n[i] * signs[i])
                            })
                            .and_then(unit)
                            .unwrap_or(face);
                        let nkey =
                            dir.map(|v| (v * 4096.0).round().clamp(-32768.0, 32767.0) as i16);
                        intern(
                            (&mut normals, &mut normal_joints),
                            &mut normal_at,
                            (nkey, joint),
                            || format!("meshes[{}]: more than 65536 distinct normals", inst.mesh),
                        )?
                    } else {
                        0
                    };
                    let vc = prim.colors.get(vi).copied().unwrap_or([1.0; 4]);
                    let rgb: [f32; 3] = [0, 1, 2].map(|i| vc[i] * material.base_color[i]);
                    let full = if look.texture.is_some() { 128.0 } else { 255.0 };
                    let color =
                        rgb.map(|c| (linear_to_srgb(c) * full).round().clamp(0.0, 255.0) as u8);
                    let uv = match (&look.texture, prim.uvs.get(vi)) {
                        (Some(p), Some(uv)) => {
                            let u = uv[0] as f64 * p.width;
                            let v = uv[1] as f64 * p.height;
                            let (cu, cv) =
                                (u.round().clamp(0.0, 255.0), v.round().clamp(0.0, 255.0));
                            if u < -0.5 || v < -0.5 || u > p.width + 0.5 || v > p.height + 0.5 {
                                clamped_uv += 1;
                            }
                            [cu as u8, cv as u8]
                        }
                        _ => [0, 0],
                    };
                    corners[c] = Corner {
                        vertex,
                        normal,
                        color,
                        uv,
                        position: q,
                    };
                }
                tris.push(corners);
            }
            notes.add("uv-clamped", clamped_uv, || {
                "texture coordinates outside their texture clamped to it (the console does not repeat textures)"
                    .into()
            });
            // Pairs of triangles that are one quadrilateral's GPU split.
            let mut i = 0;
            while i < tris.len() {
                if let Some(q) = tris.get(i + 1).and_then(|b| quad(&tris[i], b)) {
                    packets.push(packet(&q, &look));
                    i += 2;
                } else {
                    packets.push(packet(&tris[i], &look));
                    i += 1;
                }
            }
        }
        objects.push(Object {
            vert_top: 0,
            normal_top: 0,
            primitive_top: 0,
            scale: 0,
            vertices,
            normals,
            primitives: packets,
        });
        all_vertex_joints.push(vertex_joints);
        all_normal_joints.push(normal_joints);
    }
    let mut tmd = Tmd {
        flags: 0,
        address_base: 0,
        objects,
        gaps: Vec::new(),
    };
    tmd.pack();
    Ok(Authored {
        tmd,
        tims,
        notes: notes.finish(),
        vertex_joints: all_vertex_joints,
        normal_joints: all_normal_joints,
    })
}

/// The index of `key` in `list`, added when new.
fn intern(
    (list, joints): (&mut Vec<SVector>, &mut Vec<Option<u16>>),
    at: &mut HashMap<([i16; 3], Option<u16>), u16>,
    (key, joint): ([i16; 3], Option<u16>),
    full: impl FnOnce() -> String,
) -> Result<u16> {
    if let Some(&i) = at.get(&(key, joint)) {
        return Ok(i);
    }
    let i = u16::try_from(list.len()).map_err(|_| Error::Unencodable {
        format: Format::Tmd,
        what: full(),
    })?;
    list.push(SVector {
        x: key[0],
        y: key[1],
        z: key[2],
        pad: 0,
    });
    joints.push(joint);
    at.insert((key, joint), i);
    Ok(i)
}

/// `a b c` and `b d c` (the GPU's split of the quad `a b c d`), up to rotating each triangle's
/// corners, as one quadrilateral when the two are coplanar.
fn quad(t1: &[Corner; 3], t2: &[Corner; 3]) -> Option<Vec<Corner>> {
    for r1 in 0..3 {
        let a = [t1[r1], t1[(r1 + 1) % 3], t1[(r1 + 2) % 3]];
        for r2 in 0..3 {
            let b = [t2[r2], t2[(r2 + 1) % 3], t2[(r2 + 2) % 3]];
            if same(&a[1], &b[0]) && same(&a[2], &b[2]) && !same(&b[1], &a[0]) {
                let n1 = unit(cross(
                    sub(a[1].position, a[0].position),
                    sub(a[2].position, a[0].position),
                ))?;
                let n2 = unit(cross(
                    sub(b[1].position, b[0].position),
                    sub(b[2].position, b[0].position),
                ))?;
                let cos = n1.iter().zip(&n2).map(|(x, y)| x * y).sum::<f64>();
                if cos > 0.9999 {
                    return Some(vec![a[0], a[1], a[2], b[1]]);
                }
            }
        }
    }
    None
}

/// The packet for a polygon of 3 or 4 corners.
fn packet(c: &[Corner], look: &Look) -> Packet {
    let n = c.len();
    let textured = look.texture.is_some();
    let normals_vary = c.iter().any(|x| x.normal != c[0].normal);
    let colors_vary = c.iter().any(|x| x.color != c[0].color);
    let (gouraud, gradation, ncolors, nnormals) = if look.lit {
        let colors = match (textured, colors_vary) {
            (true, _) => 0,
            (false, true) => n,
            (false, false) => 1,
        };
        (
            normals_vary,
            colors == n && n > 1,
            colors,
            if normals_vary { n } else { 1 },
        )
    } else {
        (colors_vary, false, if colors_vary { n } else { 1 }, 0)
    };
    let mut m = 0x20u8;
    if gouraud {
        m |= mode::IIP;
    }
    if n == 4 {
        m |= mode::QUAD;
    }
    if textured {
        m |= mode::TME;
    }
    if look.semi {
        m |= mode::ABE;
    }
    let mut f = 0u8;
    if !look.lit {
        f |= flag::LGT;
    }
    if look.double_sided {
        f |= flag::FCE;
    }
    if gradation {
        f |= flag::GRD;
    }
    let mut p = Polygon::default();
    for (i, x) in c.iter().take(ncolors).enumerate() {
        p.colors.push(Rgbx {
            r: x.color[0],
            g: x.color[1],
            b: x.color[2],
            // The first colour word of an untextured packet carries the mode (GPU code).
            x: if i == 0 && !textured { m } else { 0 },
        });
    }
    if let Some(t) = look.texture {
        for (i, x) in c.iter().enumerate() {
            p.uvs.push(Uv {
                u: x.uv[0],
                v: x.uv[1],
                extra: match i {
                    0 => t.cba,
                    1 => t.tsb,
                    _ => 0,
                },
            });
        }
    }
    for x in c.iter().take(nnormals) {
        p.normals.push(x.normal);
    }
    let mut vertices = ArrayVec::new();
    for x in c {
        vertices.push(x.vertex);
    }
    p.vertices = vertices;
    // The GPU packet's words (FF p.2-28..2-34; notes tmd_tim.md).
    let olen = polygon_olen(textured, n == 4, gouraud || gradation);
    Packet {
        olen,
        flag: f,
        mode: m,
        data: PrimitiveData::Polygon(p),
    }
}

/// The GPU packet's words of a polygon (FF p.2-28..2-34; notes tmd_tim.md): `shaded` is
/// Gouraud or gradation.
pub(crate) fn polygon_olen(textured: bool, quad: bool, shaded: bool) -> u8 {
    match (textured, quad, shaded) {
        (false, false, false) => 4,
        (false, false, true) => 6,
        (false, true, false) => 5,
        (false, true, true) => 8,
        (true, false, false) => 7,
        (true, false, true) => 9,
        (true, true, false) => 9,
        (true, true, true) => 12,
    }
}

/// Writes texture `t` as a TIM in the next free texture page; `None` (with a note) when it
/// cannot be.
fn place(
    scene: &Scene,
    t: usize,
    tims: &mut Vec<Tim>,
    notes: &mut Counts,
) -> Result<Option<Placed>> {
    let Some(tex) = scene.textures.get(t) else {
        return Ok(None);
    };
    let k = tims.len();
    if k >= 12 {
        notes.add("textures-past-vram", 1, || {
            "textures past the twelfth (the texture pages retroanim fills) left out: their polygons are untextured".into()
        });
        return Ok(None);
    }
    let (w, h) = (tex.width as usize, tex.height as usize);
    if w == 0 || h == 0 || w > 256 || h > 256 || tex.pixels.len() != w * h * 4 {
        notes.add("texture-too-large", 1, || {
            "textures larger than a 256 × 256 texture page left out: their polygons are untextured"
                .into()
        });
        return Ok(None);
    }
    let img = Rgba {
        width: w,
        height: h,
        pixels: tex.pixels.clone(),
    };
    let colours: std::collections::BTreeSet<u16> = tex
        .pixels
        .chunks_exact(4)
        .map(|p| tim::color16([p[0], p[1], p[2], p[3]]))
        .collect();
    let by_colours = match colours.len() {
        0..=16 => Depth::Clut4,
        17..=256 => Depth::Clut8,
        _ => Depth::Direct15,
    };
    // The page holds 256 texels across at 4 bpp, 128 at 8, 64 at 16.
    let depth = match by_colours {
        Depth::Direct15 if w <= 64 => Depth::Direct15,
        Depth::Direct15 | Depth::Clut8 if w <= 128 => Depth::Clut8,
        Depth::Clut4 => Depth::Clut4,
        _ => Depth::Clut4,
    };
    let (x, y) = (640 + 64 * (k as u16 % 6), 256 * (k as u16 / 6));
    let (tim, report) = Tim::from_rgba(
        &img,
        &tim::EncodeOptions {
            depth,
            vram: (x, y),
            clut: (0, 480 + k as u16),
        },
    )?;
    if report.pixels_changed > 0 {
        notes.add("palette-reduced", 1, || {
            "textures reduced to a palette to fit a texture page (some texels changed colour)"
                .into()
        });
    }
    let tpf: u16 = match depth {
        Depth::Clut4 => 0,
        Depth::Clut8 => 1,
        _ => 2,
    };
    let page = (x / 64) | ((y / 256) << 4);
    let tsb = page | (tpf << 7);
    let cba = (480 + k as u16) << 6;
    tims.push(tim);
    Ok(Some(Placed {
        tsb,
        cba: if depth == Depth::Direct15 { 0 } else { cba },
        width: w as f64,
        height: h as f64,
    }))
}

fn sub(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

pub(crate) fn unit(v: [f64; 3]) -> Option<[f64; 3]> {
    let l = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    (l > 1e-12 && l.is_finite()).then(|| v.map(|x| x / l))
}

pub(crate) fn transform_point(m: &[f64; 16], p: [f64; 3]) -> [f64; 3] {
    [0, 1, 2].map(|i| m[i] * p[0] + m[4 + i] * p[1] + m[8 + i] * p[2] + m[12 + i])
}

pub(crate) fn mul3(m: &[[f64; 3]; 3], v: [f64; 3]) -> [f64; 3] {
    [0, 1, 2].map(|i| m[i][0] * v[0] + m[i][1] * v[1] + m[i][2] * v[2])
}

/// The inverse transpose of a column-major matrix's 3×3 part (row-major result): how normals
/// move. A singular matrix keeps its own 3×3 part.
pub(crate) fn normal_matrix(m: &[f64; 16]) -> [[f64; 3]; 3] {
    let a = [[m[0], m[4], m[8]], [m[1], m[5], m[9]], [m[2], m[6], m[10]]];
    let det = a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1])
        - a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0])
        + a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]);
    if det.abs() < 1e-12 {
        return a;
    }
    // The cofactor matrix is det · inverse transpose.
    let c =
        |r0: usize, r1: usize, c0: usize, c1: usize| a[r0][c0] * a[r1][c1] - a[r0][c1] * a[r1][c0];
    [
        [c(1, 2, 1, 2), -c(1, 2, 0, 2), c(1, 2, 0, 1)],
        [-c(0, 2, 1, 2), c(0, 2, 0, 2), -c(0, 2, 0, 1)],
        [c(0, 1, 1, 2), -c(0, 1, 0, 2), c(0, 1, 0, 1)],
    ]
    .map(|r| r.map(|v| v / det))
}

/// Linear → sRGB, 0..1.
pub(crate) fn linear_to_srgb(c: f32) -> f32 {
    let c = c.clamp(0.0, 1.0);
    if c <= 0.003_130_8 {
        c * 12.92
    } else {
        1.055 * c.powf(1.0 / 2.4) - 0.055
    }
}
