//! HMD → neutral [`Scene`] (and so glTF): the coordinate hierarchy, the polygons of each block,
//! cameras and lights, and every sequence as its own animation, sampled from the [`Player`].
//!
//! # Axes and units
//! The same convention as the TMD and TOD bridges ([`crate::formats::tmd::scene`]): the console's
//! +Y-down, +Z-into-the-screen axes are turned 180° about X, `(x, y, z) → (x, −y, −z)`, which
//! is glTF's +Y up and +Z towards the viewer ([`Axes::YUp`], a rotation, nothing mirrored);
//! [`Axes::Raw`] keeps the console's axes. Lengths are multiplied by
//! [`SceneOptions::scale`], by default 1/4096 (4096 units = 1 m), through the TMD bridge's
//! `Conv`.
//!
//! # Meshes
//! Block k (1..N−2) draws in coordinate k−1: its category 0 polygons become one mesh on that
//! coordinate's node (PRE-/POST-PROCESS polygons on a root node). Triangles and quads are split
//! into triangles (quad corners 0 1 2 and 1 3 2, the GPU's order) with corners 1 and 2 swapped,
//! environment-map polygons (category 6) as the polygons they draw ([`super::TypeCode::drawn_as`];
//! the mapping left out, with a note),
//! because the console's fronts are clockwise; every corner is its own vertex with the packet's
//! colour (sRGB bytes → linear) and normal. Strip meshes become their triangles (see
//! [`strip_triangles`]); ground primitives (category 5) become meshes (see [`ground`]);
//! preset packets export like the polygons they draw (their vertex indices; the screen
//! coordinates are a projection the GPU drew once). Textured packets take their texels from the file's image
//! primitives and the `--tim` TIMs (see [`texture`]), one primitive per texture. A packet's vertex and normal indices may run past
//! the end of its section into the sections of the same kind laid out after it (FF p.2-56; JOINT's
//! pyramid indexes its shared vertices that way). Shared polygons (category 1) become skinned
//! meshes: see [`shared_mesh`]. Vertex MIMe keys become morph
//! targets (displacements × scale, in the converted axes) of the meshes whose polygons see the
//! MIMe (drawn after it runs, before a reset: [`Player::mime_seen`]) and draw a vertex it moves,
//! with the MIMEPR weights / 4096 as the node's weights and, where an
//! animation drives them, a LINEAR weights track sampled every frame. Normal MIMe keys become
//! morph targets too, moving normals only (differences / 4096, since the console's normals are
//! 4096 long and the exported ones 1), weighted the same way. Materials follow the
//! type's driver bits as the TMD export follows its flags: BOT → double-sided, LGT (or LMD) →
//! unlit, STP or the GPU code's ABE bit → alpha blend at the rate's nearest alpha.
//! [`Hmd::to_scene_noted`] says what the scene leaves out, one note per kind with a count.
//!
//! # Animation
//! Every sequence index k (0 = each pointer's START IDX, k = extra sequence k) becomes one
//! animation `sequence k`: the player runs from the start until every pointer has reached END,
//! until the whole play state repeats (a loop, exported once, `extras.loop = true`), or for
//! [`SceneOptions::max_frames`]. Each frame is a LINEAR key on every coordinate that moves.
//! The keys are world-exact: each node's local TRS is computed from the console's world matrix
//! (`GsGetLw`, as [`Player::frame`] reports it) and its parent's world as a client composes it
//! from the values written (`crate::scene::world_exact`), so a client's world matrix equals
//! the console's at every key however deep the hierarchy; the rest pose likewise. Key times are
//! [`key_time`]`(frame, fps)`: the largest f32 not after `frame / fps`.
//!
//! # Structure
//! The `retroanim` extras (`docs/extras.md`) keep what the glTF cannot: each coordinate
//! node's GsCOORDUNIT index, the block of a mesh node that is not its coordinate's own, the
//! file's sequence table (scene), and per animation the loop of each coordinate's sequence
//! pointers (the first frame their state repeats from and the period), which the HMD author
//! writes back as a jump.
//!
//! # Cameras and lights
//! Device primitives at frame 0: a camera looks from its position at its target (perspective,
//! vertical field of view `2·atan(120 / projection)`: a 240-line screen); WORLD/FIX/AIM lights
//! become directional lights shining from the position to the target with their colour. The
//! ambient colour goes to the scene's `extras.ambient`.

mod ground;
mod notes;
mod shared_mesh;
mod structure;
mod texture;

use std::collections::BTreeMap;

use super::play::{Frame, PlayOptions, Player};
use super::shared::{contiguous_vectors, file_vectors};
use super::types::{Hmd, SectionData, TypeData};
use super::{DeviceItem, DeviceKind, Packet, PolygonItem};
use crate::formats::tim::Tim;
use crate::limits::Limits;
use crate::scene::key_time;
use crate::scene::{
    Animation, Camera, Channel, Interpolation, Light, LightKind, Material, Mesh, MorphTarget,
    MorphTargetKind, Node, Primitive, Projection, Scene, Track, Transform,
};
pub use texture::image_tims;
use texture::{Look, Surface, Texturing};

pub use crate::formats::tmd::scene::Axes;
use crate::formats::tmd::scene::{quat, srgb_to_linear, Conv};
use crate::scene::world_exact::{exact_locals, Affine};

/// How to build the scene.
#[derive(Debug, Clone)]
pub struct SceneOptions {
    /// Axis convention.
    pub axes: Axes,
    /// Metres per console unit (default 1/4096).
    pub scale: f32,
    /// Frames per second of the animation keys (default 60: one update per NTSC field).
    pub fps: f32,
    /// Only this sequence index (default: every index any pointer has).
    pub sequence: Option<usize>,
    /// Stream ID to start with instead of the sequences' START SID.
    pub stream_id: Option<u8>,
    /// SPEED (sign + 3.4 fixed point, 0x10 = 1×) instead of the file's, as
    /// [`PlayOptions::speed`]; by default the file's, 0x10 where the file stores 0.
    pub speed: Option<i8>,
    /// INTR IDX to play with instead of 0xFFFF, as [`PlayOptions::intr_idx`].
    pub intr_idx: Option<u16>,
    /// Longest animation exported, in frames.
    pub max_frames: u32,
    /// Bounds for the player.
    pub limits: Limits,
    /// TIM images textured packets may use besides the file's own image primitives (`--tim`).
    pub tims: Vec<Tim>,
}

impl Default for SceneOptions {
    fn default() -> Self {
        SceneOptions {
            axes: Axes::YUp,
            scale: 1.0 / 4096.0,
            fps: 60.0,
            sequence: None,
            stream_id: None,
            speed: None,
            intr_idx: None,
            max_frames: 3600,
            limits: Limits::default(),
            tims: Vec::new(),
        }
    }
}

/// The rotation that turns −Z towards `dir` with +Y as close to `up` as possible.
fn look_rotation(dir: [f64; 3], up: [f64; 3]) -> [f32; 4] {
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
    let Some(f) = norm(dir) else {
        return [0.0, 0.0, 0.0, 1.0];
    };
    let z = f.map(|v| -v);
    let x = norm(cross(up, z)).unwrap_or([1.0, 0.0, 0.0]);
    let y = cross(z, x);
    quat([[x[0], y[0], z[0]], [x[1], y[1], z[1]], [x[2], y[2], z[2]]])
}

/// The polygon item at word `index` of the polygon section at word offset `at`. An index may
/// run past the section into the polygon sections laid out right after it (FF p.2-56: the
/// index counts from the header's section pointer; a file's packets of different types sit in
/// sections one after another, and BALLOON's primitives index across them).
pub(super) fn polygon_item(hmd: &Hmd, at: u32, index: u32) -> Option<&PolygonItem> {
    let start = hmd.regions.iter().position(|r| r.offset == at)?;
    let mut base = at;
    for r in &hmd.regions[start..] {
        let super::RegionBody::Section(s) = &r.body else {
            return None;
        };
        let SectionData::Polygons(items) = &s.data else {
            return None;
        };
        if r.offset != base {
            return None;
        }
        let mut word = r.offset - at;
        for i in items {
            if word == index {
                return Some(i);
            }
            word = word.saturating_add(i.words().len() as u32);
        }
        if word > index {
            return None;
        }
        base = at.saturating_add(word);
    }
    None
}

/// Where a corner's vertex and normal come from: (section, index) of each (no normal: none).
type CornerSource = ((u32, usize), Option<(u32, usize)>);

/// A block's mesh, with per vertex its [`CornerSource`] and texture (TIM, CLUT row).
type BlockMesh = (Mesh, Vec<CornerSource>, Vec<Surface>);

fn mesh_of_block(
    hmd: &Hmd,
    first: u32,
    conv: &Conv,
    name: String,
    tex: &Texturing,
) -> Option<BlockMesh> {
    let headers = hmd.headers();
    let prims: BTreeMap<u32, &super::Primitive> = hmd.primitives().collect();
    let mut prim = Primitive {
        material: Some(0),
        ..Primitive::default()
    };
    let mut sources = Vec::new();
    let mut keys = Vec::new();
    let mut at = first;
    let mut seen = std::collections::BTreeSet::new();
    while at != super::TERMINATE && seen.insert(at) {
        let Some(p) = prims.get(&at) else { break };
        at = p.next;
        let Some(h) = headers.get(&p.header) else {
            continue;
        };
        for t in &p.types {
            // Environment maps draw as the plain polygons they are laid out as.
            let kind = t.kind().drawn_as();
            let (0, 0) = (kind.developer(), kind.category()) else {
                continue;
            };
            let TypeData::PolygonIndex { index, .. } = t.data else {
                continue;
            };
            let ptr = |i: usize| h.words.get(i).and_then(|e| e.pointer());
            let section = |i: usize| ptr(i).and_then(|s| hmd.section_at(s)).map(|s| &s.data);
            let (Some(SectionData::Polygons(_)), Some(SectionData::Vectors { .. })) =
                (section(0), section(1))
            else {
                continue;
            };
            // Indices may run on into the sections laid out after (FF p.2-56).
            let run_on = |i: usize| -> Vec<super::SVector> {
                ptr(i).map_or(Vec::new(), |s| {
                    contiguous_vectors(hmd, s, &|at| file_vectors(hmd, at))
                        .into_iter()
                        .map(|v| super::SVector { v, pad: 0 })
                        .collect()
                })
            };
            let (vectors, normals) = (&run_on(1), &run_on(2));
            let packets = match ptr(0).and_then(|s| polygon_item(hmd, s, index)) {
                Some(PolygonItem::Packets(run)) => run.packets().collect(),
                Some(PolygonItem::Strips(run)) => strip_triangles(run),
                _ => continue,
            };
            let (vsec, nsec) = (ptr(1).unwrap_or(0), ptr(2).unwrap_or(0));
            for packet in &packets {
                add_packet(
                    &mut prim,
                    packet,
                    (vectors, normals),
                    conv,
                    (tex, &mut keys, Look::of(kind.0, packet)),
                    &mut |i, n| sources.push(((vsec, i), n.map(|n| (nsec, n)))),
                );
            }
        }
    }
    if prim.positions.is_empty() {
        return None;
    }
    Some((
        Mesh {
            name,
            primitives: vec![prim],
            ..Mesh::default()
        },
        sources,
        keys,
    ))
}

/// A strip mesh's triangles as packets: the first triangle, then per further vertex the
/// triangle of the two vertices before it and itself, with that group's colour, normals and
/// UVs; every second triangle has its first two corners swapped so that all keep the first
/// one's facing (the usual strip order; notes §4 flag the strip layout as partly uncertain).
pub(super) fn strip_triangles(run: &super::StripRun) -> Vec<Packet> {
    let mut out = Vec::new();
    for s in run.strips() {
        out.push(s.first.clone());
        let (Some(&a), Some(&b)) = (s.first.vertices.get(1), s.first.vertices.get(2)) else {
            continue;
        };
        let mut prev = [a, b];
        for (k, e) in s.extra.iter().enumerate() {
            let Some(&v) = e.vertices.first() else {
                break;
            };
            let mut p = Packet {
                vertices: [prev[0], prev[1], v].into_iter().collect(),
                cba: if e.uvs.is_empty() { s.first.cba } else { e.cba },
                tsb: if e.uvs.is_empty() { s.first.tsb } else { e.tsb },
                window: e.window.or(s.first.window),
                ..e.clone()
            };
            if k % 2 == 0 {
                p.vertices.swap(0, 1);
                if p.normals.len() >= 2 {
                    p.normals.swap(0, 1);
                }
                if p.uvs.len() >= 2 {
                    p.uvs.swap(0, 1);
                }
            }
            out.push(p);
            prev = [prev[1], v];
        }
    }
    out
}

fn add_packet(
    prim: &mut Primitive,
    p: &Packet,
    (vertices, normals): (&[super::SVector], &[super::SVector]),
    conv: &Conv,
    (tex, keys, look): (&Texturing, &mut Vec<Surface>, Look),
    source: &mut dyn FnMut(usize, Option<usize>),
) {
    let texels = tex.source(p);
    let corners: &[[usize; 3]] = match p.vertices.len() {
        3 => &[[0, 2, 1]],
        4 => &[[0, 2, 1], [1, 2, 3]],
        _ => return,
    };
    for tri in corners {
        let Some(vs) = tri
            .iter()
            .map(|&c| vertices.get(*p.vertices.get(c)? as usize))
            .collect::<Option<Vec<_>>>()
        else {
            continue;
        };
        for (k, &c) in tri.iter().enumerate() {
            let v = vs[k].v;
            let ni = p.normals.get(c).or_else(|| p.normals.first());
            source(p.vertices[c] as usize, ni.map(|&i| i as usize));
            prim.positions
                .push(conv.point([v[0] as f64, v[1] as f64, v[2] as f64]));
            let n = ni
                .and_then(|&i| normals.get(i as usize))
                .map(|n| conv.dir(n.v.map(f64::from)).map(|x| x as f32))
                .unwrap_or([0.0, 1.0, 0.0]);
            prim.normals.push(n);
            push_corner_surface(prim, (keys, look), (p, c), tex, texels.as_ref());
        }
    }
}

/// Corner `c` of packet `p`: its colour (its own, else the packet's first; white under a
/// texture) and texture coordinate, pushed onto `prim`, with the texture key onto `keys`.
fn push_corner_surface(
    prim: &mut Primitive,
    (keys, look): (&mut Vec<Surface>, Look),
    (p, c): (&Packet, usize),
    tex: &Texturing,
    texels: Option<&texture::Texels>,
) {
    let rgba = match p.colors.get(c).or_else(|| p.colors.first()) {
        Some(cw) if p.uvs.is_empty() => [
            srgb_to_linear(cw[0] as f32 / 255.0),
            srgb_to_linear(cw[1] as f32 / 255.0),
            srgb_to_linear(cw[2] as f32 / 255.0),
            1.0,
        ],
        _ => [1.0; 4],
    };
    prim.colors.push(rgba);
    match (texels, p.uvs.get(c)) {
        (Some(s), Some(uv)) => {
            prim.uvs.push(tex.uv(s, uv.uv));
            keys.push((Some(s.key()), look));
        }
        _ => {
            prim.uvs.push([0.0; 2]);
            keys.push((None, look));
        }
    }
}

/// A sequence played out: one frame per update.
struct Take {
    frames: Vec<Frame>,
    /// The frame whose play state repeated an earlier one (a loop), not among `frames`.
    after: Option<Frame>,
    looped: bool,
    /// Stopped at [`SceneOptions::max_frames`], neither ended nor looped.
    cut: bool,
}

/// The player options a scene's sequence `sequence` plays with.
fn play_options(options: &SceneOptions, sequence: Option<usize>) -> PlayOptions {
    PlayOptions {
        sequence,
        stream_id: options.stream_id,
        speed: options.speed,
        intr_idx: options.intr_idx,
        aframe: None,
        limits: options.limits,
    }
}

fn take(hmd: &Hmd, options: &SceneOptions, sequence: usize) -> crate::Result<Take> {
    let mut player = Player::new(hmd, &play_options(options, Some(sequence)));
    let mut seen = std::collections::HashSet::new();
    let mut frames = Vec::new();
    let mut looped = false;
    let mut ended = false;
    let mut after = None;
    for _ in 0..options.max_frames.max(1) {
        player.step()?;
        let f = player.frame();
        let state: Vec<_> = f
            .sequences
            .iter()
            .map(|s| (s.sid, s.ctr_idx, s.tctr_idx, s.rframe, s.tframe, s.aframe))
            .collect();
        // With INTR IDX set, updates write poses back into key frames: the same sequence
        // state no longer means the same frame, so the pose is part of the play state.
        let pose: Vec<_> = match options.intr_idx {
            Some(_) => f
                .coordinates
                .iter()
                .map(|c| (c.local.m, c.local.t))
                .collect(),
            None => Vec::new(),
        };
        if !seen.insert((state, pose)) {
            looped = true;
            after = Some(f);
            break;
        }
        frames.push(f);
        if player.finished() {
            ended = true;
            break;
        }
    }
    Ok(Take {
        frames,
        after,
        looped,
        cut: !(looped || ended),
    })
}

/// The weights of `mimes` (primitive, number of keys) at `frame`, 4096 = 1.0; keys without a
/// weight are 0.
fn mime_weights(frame: &Frame, mimes: &[(u32, usize)]) -> Vec<f32> {
    let mut out = Vec::new();
    for (prim, n) in mimes {
        let w = frame.mime.iter().find(|m| m.primitive == *prim);
        for k in 0..*n {
            let v = w.and_then(|m| m.weights.get(k)).copied().unwrap_or(0);
            out.push(v as f32 / 4096.0);
        }
    }
    out
}

impl Hmd {
    /// The scene: coordinates, meshes, cameras, lights and one animation per sequence index.
    ///
    /// A sequence index or stream ID the file does not have is an [`crate::Error::Parameter`]
    /// listing what exists.
    pub fn to_scene(&self, options: &SceneOptions) -> crate::Result<Scene> {
        self.to_scene_noted(options).map(|(scene, _)| scene)
    }

    /// [`Hmd::to_scene`] with the notes a caller must show: what the scene leaves out of the
    /// file, one note per kind (a stable code and a message with the count; see
    /// `formats::hmd::scene::notes` for the kinds).
    pub fn to_scene_noted(
        &self,
        options: &SceneOptions,
    ) -> crate::Result<(Scene, Vec<(&'static str, String)>)> {
        play_options(options, options.sequence).check(self)?;
        let conv = Conv::with(options.axes, options.scale);
        let mut scene = Scene {
            name: Some("HMD".into()),
            materials: vec![Material {
                name: "vertex colour".into(),
                ..Material::default()
            }],
            ..Scene::default()
        };
        let rest_player = Player::new(self, &PlayOptions::default());
        let rest = rest_player.frame();
        let mime_targets = rest_player.vertex_mime_deltas();
        let normal_targets = rest_player.normal_mime_deltas();
        // The MIMe primitives each block's polygons see (`play::mime_seen`).
        let seen = rest_player.mime_seen();
        let sees = |b: usize, t: &super::VertexMimeTargets| {
            seen.get(b)
                .and_then(|m| m.get(&t.section))
                .is_some_and(|p| p.contains(&t.primitive))
        };
        let mut morphed: Vec<(usize, Vec<(u32, usize)>)> = Vec::new();
        // World-exact locals (module docs, "Animation").
        let parents: Vec<Option<usize>> = rest.coordinates.iter().map(|c| c.parent).collect();
        let worlds = |f: &Frame| -> Vec<Affine> {
            f.coordinates
                .iter()
                .map(|c| conv.affine(&c.world))
                .collect()
        };
        let rest_trs = exact_locals(&parents, &[worlds(&rest)]).remove(0);
        for (c, &(t, r, s)) in rest.coordinates.iter().zip(&rest_trs) {
            scene.nodes.push(Node {
                name: format!("coord {}", c.index),
                parent: c.parent,
                transform: Transform::Trs {
                    translation: t,
                    rotation: r,
                    scale: s,
                },
                extras: structure::coordinate(c.index),
                ..Node::default()
            });
        }
        let mut tex = Texturing::new(self, &options.tims);
        let n = self.blocks.len();
        for (b, &first) in self.blocks.iter().enumerate() {
            if first == 0 {
                continue;
            }
            let Some((mut mesh, sources, keys)) =
                mesh_of_block(self, first, &conv, format!("block {b}"), &tex)
            else {
                continue;
            };
            // Vertex MIMe keys as morph targets (displacements per corner).
            let mut mimes = Vec::new();
            for t in &mime_targets {
                // Only a MIMe these polygons see, moving a vertex they draw.
                let moves = |((sec, i), _): &CornerSource| {
                    *sec == t.section
                        && t.keys
                            .iter()
                            .any(|k| k.get(i).is_some_and(|d| *d != [0; 3]))
                };
                if !sees(b, t) || !sources.iter().any(moves) {
                    continue;
                }
                for (k, key) in t.keys.iter().enumerate() {
                    let positions = sources
                        .iter()
                        .map(|((sec, i), _)| match key.get(i) {
                            Some(d) if *sec == t.section => {
                                conv.point([d[0] as f64, d[1] as f64, d[2] as f64])
                            }
                            _ => [0.0; 3],
                        })
                        .collect();
                    mesh.primitives[0].targets.push(MorphTarget {
                        kind: MorphTargetKind::Delta,
                        positions,
                        normals: Vec::new(),
                    });
                    mesh.target_names
                        .push(format!("mime {} key {k}", t.primitive));
                }
                mimes.push((t.primitive, t.keys.len()));
            }
            // Normal MIMe keys as morph targets moving normals only (differences / 4096: the
            // console's normals are 4096 long, the exported ones 1).
            for t in &normal_targets {
                let moves = |n: &Option<(u32, usize)>| n.is_some_and(|(sec, _)| sec == t.section);
                let moved = |n: &Option<(u32, usize)>| {
                    moves(n)
                        && n.is_some_and(|(_, j)| {
                            t.keys
                                .iter()
                                .any(|k| k.get(&j).is_some_and(|d| *d != [0; 3]))
                        })
                };
                if !sees(b, t) || !sources.iter().any(|(_, n)| moved(n)) {
                    continue;
                }
                for (k, key) in t.keys.iter().enumerate() {
                    let normals = sources
                        .iter()
                        .map(|(_, n)| {
                            n.filter(|_| moves(n))
                                .and_then(|(_, j)| key.get(&j))
                                .map(|d| conv.dir(d.map(|x| x as f64 / 4096.0)).map(|x| x as f32))
                                .unwrap_or([0.0; 3])
                        })
                        .collect();
                    mesh.primitives[0].targets.push(MorphTarget {
                        kind: MorphTargetKind::Delta,
                        positions: vec![[0.0; 3]; sources.len()],
                        normals,
                    });
                    mesh.target_names
                        .push(format!("normal mime {} key {k}", t.primitive));
                }
                mimes.push((t.primitive, t.keys.len()));
            }
            tex.split(&mut scene, &mut mesh, &keys)?;
            scene.meshes.push(mesh);
            let m = scene.meshes.len() - 1;
            let coord = b
                .checked_sub(1)
                .filter(|&c| b + 1 < n && c < rest.coordinates.len());
            match coord {
                Some(c) if scene.nodes[c].mesh.is_none() => scene.nodes[c].mesh = Some(m),
                _ => {
                    let mut node = Node::new(format!("block {b}"));
                    node.extras = structure::block(b);
                    node.mesh = Some(m);
                    node.parent = coord;
                    scene.nodes.push(node);
                }
            }
            if !mimes.is_empty() {
                let node = scene
                    .nodes
                    .iter()
                    .position(|n| n.mesh == Some(m))
                    .unwrap_or(0);
                scene.nodes[node].weights = mime_weights(&rest, &mimes);
                morphed.push((node, mimes));
            }
        }
        shared_mesh::add(self, &mut scene, &conv, rest.coordinates.len(), &mut tex)?;
        ground::add(self, &mut scene, &conv, rest.coordinates.len(), &mut tex)?;
        self.add_devices(&mut scene, &rest, &conv);
        structure::put(
            &mut scene.extras,
            structure::scene_member(self, rest.coordinates.len(), &rest_player.joint_mimes()),
        );
        let owners = structure::pointer_coordinates(self);
        // Animations.
        let most = super::play::sequence_count(self);
        let fps = if options.fps > 0.0 { options.fps } else { 60.0 };
        let mut cut = Vec::new();
        for k in 0..most {
            if options.sequence.is_some_and(|s| s != k) {
                continue;
            }
            let take = take(self, options, k)?;
            if take.frames.is_empty() {
                continue;
            }
            if take.cut {
                cut.push(k);
            }
            let times: Vec<f32> = (0..take.frames.len() as u64)
                .map(|f| key_time(f, fps as f64))
                .collect();
            let mut channels = Vec::new();
            let all: Vec<Vec<Affine>> = take.frames.iter().map(worlds).collect();
            let locals = exact_locals(&parents, &all);
            for c in 0..rest.coordinates.len() {
                let trs: Vec<_> = locals.iter().map(|f| f[c]).collect();
                if trs.iter().all(|x| *x == rest_trs[c]) {
                    continue;
                }
                let mut rot: Vec<[f32; 4]> = trs.iter().map(|x| x.1).collect();
                // Neighbouring keys in one hemisphere, so LINEAR takes the short way.
                for i in 1..rot.len() {
                    let d: f32 = (0..4).map(|j| rot[i][j] * rot[i - 1][j]).sum();
                    if d < 0.0 {
                        rot[i] = rot[i].map(|v| -v);
                    }
                }
                channels.push(Channel {
                    node: c,
                    interpolation: Interpolation::Linear,
                    times: times.clone(),
                    track: Track::Translation(trs.iter().map(|x| x.0).collect()),
                });
                channels.push(Channel {
                    node: c,
                    interpolation: Interpolation::Linear,
                    times: times.clone(),
                    track: Track::Rotation(rot),
                });
                channels.push(Channel {
                    node: c,
                    interpolation: Interpolation::Linear,
                    times: times.clone(),
                    track: Track::Scale(trs.iter().map(|x| x.2).collect()),
                });
            }
            for (node, mimes) in &morphed {
                let w: Vec<Vec<f32>> = take.frames.iter().map(|f| mime_weights(f, mimes)).collect();
                if w.iter().all(|x| *x == scene.nodes[*node].weights) {
                    continue;
                }
                channels.push(Channel {
                    node: *node,
                    interpolation: Interpolation::Linear,
                    times: times.clone(),
                    track: Track::Weights(w),
                });
            }
            if channels.is_empty() {
                continue;
            }
            let sid = take.frames[0].sequences.first().map(|s| s.sid).unwrap_or(0);
            let (coordinate_loops, pointer_loops) = structure::loops(
                (&take.frames, take.after.as_ref(), take.looped || take.cut),
                &owners,
                rest.coordinates.len(),
            );
            let mut extras = serde_json::json!({
                "sequence": k,
                "stream_id": sid,
                "loop": take.looped,
                "frames": take.frames.len(),
                "fps": fps,
            });
            structure::put(
                &mut extras,
                serde_json::json!({
                    "sequence": k,
                    "stream_id": sid,
                    "loop": take.looped,
                    "frames": take.frames.len(),
                    "fps": fps,
                    "coordinate_loops": coordinate_loops,
                    "pointer_loops": pointer_loops,
                }),
            );
            scene.animations.push(Animation {
                name: format!("sequence {k} sid {sid}"),
                channels,
                extras,
            });
        }
        let normal_left_out = normal_targets
            .iter()
            .filter(|t| {
                !morphed
                    .iter()
                    .any(|(_, m)| m.iter().any(|(p, _)| *p == t.primitive))
            })
            .count();
        let mut notes = notes::notes(
            self,
            (tex.images_left_out, &tex.unused_images()),
            tex.untextured.get(),
            normal_left_out,
        );
        if !cut.is_empty() {
            notes.push((
                "animation-cut",
                format!(
                    "{} sequence(s) ({}) neither end nor repeat their play state: exported for their first {} frames only",
                    cut.len(),
                    cut.iter().map(|k| k.to_string()).collect::<Vec<_>>().join(", "),
                    options.max_frames.max(1)
                ),
            ));
        }
        Ok((scene, notes))
    }

    fn add_devices(&self, scene: &mut Scene, rest: &Frame, conv: &Conv) {
        // The console's up is −Y; in the converted axes that is +Y.
        let up = conv.dir([0.0, -1.0, 0.0]);
        for d in &rest.devices {
            let (Some(pos), Some(tgt)) = (d.position, d.target) else {
                if let (DeviceKind::Ambient, Some(DeviceItem::Ambient { color, .. })) =
                    (d.kind, &d.parameters)
                {
                    scene.extras["ambient"] = serde_json::json!([color[0], color[1], color[2]]);
                }
                continue;
            };
            let p = conv.point(pos.map(f64::from));
            let q = conv.point(tgt.map(f64::from));
            let dir = [0, 1, 2].map(|i| (q[i] - p[i]) as f64);
            let mut node = Node::new(format!("{:?} {}", d.kind, d.primitive));
            node.transform = Transform::Trs {
                translation: p,
                rotation: look_rotation(dir, up),
                scale: [1.0; 3],
            };
            match &d.parameters {
                Some(DeviceItem::Camera(c)) => {
                    let proj = (c.projection.max(1)) as f32;
                    scene.cameras.push(Camera {
                        name: node.name.clone(),
                        projection: Projection::Perspective {
                            yfov: 2.0 * (120.0 / proj).atan(),
                            znear: 0.01,
                            zfar: None,
                            aspect_ratio: None,
                        },
                    });
                    node.camera = Some(scene.cameras.len() - 1);
                    node.extras = serde_json::json!({ "projection": c.projection, "rot": c.rot });
                }
                Some(DeviceItem::Light { color, .. }) => {
                    scene.lights.push(Light {
                        name: node.name.clone(),
                        kind: LightKind::Directional,
                        // Display values, as vertex colours (see `flat_lights`).
                        color: [color[0], color[1], color[2]]
                            .map(|v| srgb_to_linear(v as f32 / 255.0)),
                        intensity: 1.0,
                        range: None,
                    });
                    node.light = Some(scene.lights.len() - 1);
                    node.extras = serde_json::json!({ "light_number": d.light_number });
                }
                _ => continue,
            }
            scene.nodes.push(node);
        }
    }
}
