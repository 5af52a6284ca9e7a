//! One animation of the neutral [`Scene`] (the first by default) → a TOD: authoring for the console, the way back
//! from [`super::scene`].
//!
//! # Objects
//! One TOD object per node. A scene exported from a TOD keeps the console's structure in its
//! `retroanim` extras (`docs/extras.md`, the `structure` submodule): each object's ID, lives
//! (create and kill frames), TMD IDs and attribute words, and the camera and light numbers;
//! the author writes them back. Without them (a scene made from scratch) objects are numbered
//! 1, 2, … in node order, created at frame 0 with their TMD ID
//! (scene mesh *k* is TMD ID *k* + 1: the TMD [`crate::formats::tmd::author::mesh_instances`]
//! writes, or a model given by the caller whose objects follow the mesh order) and its parent
//! (the parent node's object). A node that only *holds* a mesh for its parent — it has a mesh,
//! its parent has none, it has no children, its rest transform is the identity and its
//! animation is at most visibility (scale 0 or 1) — is not an object of its own: its parent
//! shows its mesh while it is visible (the shape the TOD → glTF bridge gives every object's
//! model, so a TOD survives the round trip object for object). Several such holders switch the
//! parent's TMD ID as their visibility does.
//! A node that only carries cameras or lights (no mesh in its subtree) is no object: it
//! becomes camera and light packets (below).
//!
//! # Frames
//! The animation is sampled every `resolution` ticks (1 tick = 1/60 s; the header's
//! resolution field) from time 0 to its last key, each tick at [`crate::scene::sample_time`]
//! (so a key written for that tick counts whether its time was rounded down, as the glTF
//! bridge writes it, or to nearest, as Blender does), STEP, LINEAR and CUBICSPLINE channels
//! evaluated as glTF viewers do. A frame holds packets only for what changed: coordinate packets
//! (absolute, or differential where smaller: below; rotation in the console's RotMatrix order X·Y·Z, 4096 = 1° in the file, which the player
//! reads as 1/4096 of a turn; scale 4096 = 1.0; translation in console units) and attribute
//! packets for the display bit. A node whose scale (or an ancestor's) is 0 is hidden
//! (display bit set) and keeps its last coordinate. The last frame is always written (with a
//! no-op attribute packet when nothing changes) so the TOD lasts as long as the animation.
//!
//! # Differential packets
//! A differential coordinate packet has the same fields, each as wide, as an absolute one
//! (TOD spec, "Coordinate (RST)"), but the player rebuilds the whole matrix from its kept
//! rotation, scale and translation after one ([`super::play`]), so it can leave out what an
//! absolute packet must repeat: a rotation of an object whose scale is not 1.0 (absolute:
//! R and S, 6 words; differential: R, 4), a scale change alone (absolute R and S;
//! differential S, 3 words), or both with a translation. Such a packet (rotation steps × 360,
//! scale as the factor `old · v / 4096 = new`, translation steps) is written when it has fewer
//! words and the player, simulated on the object's parameters, makes exactly the coordinate
//! the absolute packet would: world matrices are unchanged bit for bit. Only after an absolute
//! scale has been written for the object: the PsyQ sample's parameter area starts at scale 0,
//! where a differential packet would give a zero matrix. On by default
//! ([`TodAuthorOptions::differential`]); the spec gives no reason to avoid them.
//!
//! # Cameras and lights
//! The inverse of the TOD bridge's reading ([`super::scene`]). Each camera node (in node order)
//! is camera *k* = 0, 1, …: a type 0 (look-at) camera, the type libgs's `GsRVIEW2` takes, its
//! position the node's, its reference point 4096 units down its view
//! axis (the glTF camera's −Z: the console's +Z), its z angle (4096 = 1°) the roll of its x axis
//! from level. Raw axes turn the view half a turn about X, as the bridge's "lens" node does.
//! glTF keeps no reference distance, so a TOD → glTF → TOD round trip gives the same position,
//! view direction and roll with the reference point at that distance. A TOD camera has no
//! projection: orthographic cameras and fields of view other than the bridge's are noted.
//! Each directional or spot light node (in node order, the first three: the console's light
//! matrix holds three) is light *k*: its direction the node's −Z as a vector of length
//! 4096, its colour (frame 0) the glTF colour × intensity in sRGB bytes, as the bridge reads it
//! back. Point lights, spot cones, ranges, colours clamped at 255 and lights past the third are
//! noted. A camera or light packet is written at frame 0 and whenever its values change,
//! with only the fields that changed.
//!
//! # Precision
//! Coordinates are the node's local transform turned into the console's axes and units, as
//! the TMD bridge's inverse. A rotation and scale that the console's `RotMatrix` and
//! `ScaleMatrix` reproduce within 4/4096 in every element (every rotation a TOD's RST packets
//! made, read back) is written as an RST packet; any other (a shear, or a rotation between
//! the 4096 steps of a turn where the error would exceed that) as a matrix packet (type 4),
//! exact to the fixed point, with a note: the PsyQ sample player ignores matrix packets.

use crate::error::{Error, Result};
use crate::formats::gte::{self, Mat};
use crate::formats::tmd::author::Counts;
use crate::formats::tmd::scene::Axes;
use crate::formats::tod::{
    Attribute, Coordinate, Frame, Header, IdValue, Matrix, ObjectControl, Packet, PacketData,
    Scale, Tod,
};
use crate::report::Note;
use crate::scene::sample::{self, Mat4, Trs};
use crate::scene::world_exact::Affine;
use crate::scene::{sample_time, Animation, Scene, Track};
use crate::{Format, Limits};

mod diff;
mod rig;
mod solve;
mod structure;
use solve::*;

/// How to author the animation.
#[derive(Debug, Clone)]
pub struct TodAuthorOptions {
    /// The scene's axes.
    pub axes: Axes,
    /// Metres per console unit (default 1/4096).
    pub scale: f32,
    /// Ticks (1/60 s) per TOD frame (default 1), the header's resolution field. 0 is written
    /// as 0 and sampled as 1 tick, as players read it (the PsyQ samples store 0).
    pub resolution: u16,
    /// Bounds on the number of frames × objects sampled.
    pub limits: Limits,
    /// Which of the scene's animations to write (default 0, the first).
    pub animation: usize,
    /// Write a differential coordinate packet where it is smaller than the absolute one and the
    /// player makes exactly the same coordinate of it (default true; see the module docs).
    /// Off, every coordinate packet is absolute: the same poses in a larger file.
    pub differential: bool,
}

impl Default for TodAuthorOptions {
    fn default() -> Self {
        TodAuthorOptions {
            axes: Axes::YUp,
            scale: crate::formats::tmd::scene::DEFAULT_SCALE,
            resolution: 1,
            limits: Limits::default(),
            animation: 0,
            differential: true,
        }
    }
}

/// An animation authored from a scene.
#[derive(Debug, Clone)]
pub struct TodAuthored {
    /// The animation.
    pub tod: Tod,
    /// The node of each object, in object order.
    pub objects: Vec<usize>,
    /// The object ID of each of `objects`: the node's `retroanim.tod.object` extras where it
    /// gives one (unique, 1..=65534), else the smallest free IDs from 1.
    pub ids: Vec<u16>,
    /// What was left out or approximated (what and how many).
    pub notes: Vec<Note>,
}

/// The last coordinate written for an object.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Written {
    Nothing,
    Rst {
        r: [i16; 3],
        s: [i16; 3],
        t: [i32; 3],
    },
    Matrix(Mat),
}

/// Authors a TOD from `scene`'s animation [`TodAuthorOptions::animation`]; `tmd_ids[k]` is the TMD ID of scene mesh *k*
/// (`None`: the model has no object for it, noted).
pub fn author(
    scene: &Scene,
    tmd_ids: &[Option<u32>],
    opts: &TodAuthorOptions,
) -> Result<TodAuthored> {
    if !(opts.scale.is_finite() && opts.scale > 0.0) {
        return Err(Error::Option {
            option: "scale",
            what: format!("{}: must be a positive number", opts.scale),
        });
    }
    let mut notes = Counts::default();
    let n = scene.nodes.len();
    let anim: Option<&Animation> = scene.animations.get(opts.animation);
    if anim.is_none() && !scene.animations.is_empty() {
        return Err(Error::Option {
            option: "animation",
            what: format!(
                "{}: the scene has {} animation(s)",
                opts.animation,
                scene.animations.len()
            ),
        });
    }
    notes.add(
        "animations-dropped",
        scene.animations.len().saturating_sub(1),
        || {
            format!(
                "animations besides animation {} left out (a TOD holds one; choose with --animation)",
                opts.animation
            )
        },
    );
    let mut rig = rig::Rig::new(scene, opts, &mut notes)?;
    notes.add(
        "skins-dropped",
        scene.nodes.iter().filter(|x| x.skin.is_some()).count(),
        || "skinned meshes moved rigidly with their node (a TOD has no skinning)".into(),
    );
    if let Some(a) = anim {
        let w = a
            .channels
            .iter()
            .filter(|c| matches!(c.track, Track::Weights(_)))
            .count();
        notes.add("weights-dropped", w, || {
            "morph-weight channels left out (TMD objects are rigid)".into()
        });
    }
    let mut children = vec![0usize; n];
    for x in &scene.nodes {
        if let Some(p) = x.parent.filter(|&p| p < n) {
            children[p] += 1;
        }
    }
    let holder: Vec<bool> = (0..n)
        .map(|i| is_holder(scene, anim, i, children[i]))
        .collect();
    let rig_only = rig_only(scene);
    let objects: Vec<usize> = (0..n).filter(|&i| !holder[i] && !rig_only[i]).collect();
    if objects.len() > 0xFFFE {
        return Err(Error::Unencodable {
            format: Format::Tod,
            what: format!("{} objects; a TOD numbers at most 65534", objects.len()),
        });
    }
    let ids = structure::object_ids(scene, &objects);
    let mut object_id = vec![None; n];
    for (k, &i) in objects.iter().enumerate() {
        object_id[i] = Some(k);
    }
    // What the export kept of each object (`docs/extras.md`): lives, TMD IDs, attributes.
    let kept: Vec<structure::Kept> = objects
        .iter()
        .map(|&i| structure::Kept::of(&scene.nodes[i]))
        .collect();
    let holders: Vec<Vec<usize>> = (0..n)
        .map(|p| {
            (0..n)
                .filter(|&c| holder[c] && scene.nodes[c].parent == Some(p))
                .collect()
        })
        .collect();
    let res = opts.resolution.max(1);
    let header_resolution = opts.resolution;
    let key_end = anim.map_or(0.0, sample::duration);
    let duration = key_end as f64;
    let last_frame = (duration * 60.0 / res as f64).ceil().max(0.0);
    if !last_frame.is_finite() || last_frame > u32::MAX as f64 / res as f64 {
        return Err(Error::Unencodable {
            format: Format::Tod,
            what: format!("an animation of {duration} s"),
        });
    }
    // The first frame whose sample time reaches the last key: a key time rounded to the
    // nearest f32 (Blender's exporter) may lie a fraction of an ULP after its frame.
    let mut last_frame = last_frame as u64;
    while last_frame > 0 && sample_time((last_frame - 1) * res as u64, 60.0) >= key_end {
        last_frame -= 1;
    }
    opts.limits.steps(
        None,
        "TOD frames × nodes to sample",
        (last_frame + 1).saturating_mul(n.max(1) as u64),
    )?;
    let signs = match opts.axes {
        Axes::YUp => [1.0, -1.0, -1.0],
        Axes::Raw => [1.0, 1.0, 1.0],
    };
    let k = 1.0 / opts.scale as f64;
    let mut written = vec![Written::Nothing; objects.len()];
    let mut shown = vec![true; objects.len()];
    let mut tmd_of: Vec<Option<u32>> = vec![None; objects.len()];
    let mut attr_of = vec![0u32; objects.len()];
    let mut frames = Vec::new();
    let (mut matrix_packets, mut clamped, mut cut) = (0usize, 0usize, 0usize);
    let mut missing_model = 0usize;
    // Parents before children, so each frame's simulated parent world is known first.
    let parent_obj: Vec<Option<usize>> = objects
        .iter()
        .map(|&i| {
            scene.nodes[i]
                .parent
                .and_then(|p| object_id.get(p).copied().flatten())
        })
        .collect();
    let depth = crate::scene::hierarchy::depths(&parent_obj);
    let mut order: Vec<usize> = (0..objects.len()).collect();
    order.sort_by_key(|&o| depth[o]);
    // The coordinate each object holds on the console, and the world matrix the player makes.
    let mut coord = vec![Mat::IDENTITY; objects.len()];
    // The player's coordinate and RST parameters of each object, and whether an absolute
    // scale has been written for it (differential packets build on both).
    let mut sim = vec![crate::formats::tod::play::Rst::NEW; objects.len()];
    let mut scale_set = vec![false; objects.len()];
    let mut world = vec![Mat::IDENTITY; objects.len()];
    let sampler = sample::Sampler::new(scene, anim);
    for f in 0..=last_frame {
        let time = sample_time(f * res as u64, 60.0);
        let locals: Vec<Trs> = (0..n).map(|i| sampler.local(i, time)).collect();
        let visible = visibility(scene, &locals);
        let worlds = scene_worlds(scene, &locals);
        let mut packets = Vec::new();
        // Kills, then creations (an object may die and be born again in one frame).
        for (o, k) in kept.iter().enumerate() {
            if k.kills_at(f) {
                packets.push(Packet::new(
                    ids[o],
                    PacketData::ObjectControl(ObjectControl::Kill),
                ));
            }
        }
        for (o, k) in kept.iter().enumerate() {
            if k.born_at(f) {
                packets.push(Packet::new(
                    ids[o],
                    PacketData::ObjectControl(ObjectControl::Create),
                ));
                // A new life starts from the console's fresh object: nothing written yet.
                written[o] = Written::Nothing;
                shown[o] = true;
                tmd_of[o] = None;
                attr_of[o] = 0;
                sim[o] = crate::formats::tod::play::Rst::NEW;
                scale_set[o] = false;
                coord[o] = Mat::IDENTITY;
            }
        }
        let mut per: Vec<Vec<Packet>> = vec![Vec::new(); objects.len()];
        // The coordinates of one hierarchy level are solved in parallel (each needs only its
        // parent's world, from the level above); packets are then made in object order.
        for level in order.chunk_by(|&a, &b| depth[a] == depth[b]) {
            let pre: Vec<Option<Result<solve::Solved>>> = {
                use rayon::prelude::*;
                let world = &world;
                level
                    .par_iter()
                    .map(|&o| {
                        if !kept[o].alive(f) {
                            return None;
                        }
                        let node = objects[o];
                        // Coordinates: a zero scale keeps the last one (the object is hidden).
                        if locals[node].scale.iter().any(|s| s.abs() < 1e-9) {
                            return None;
                        }
                        let parent = parent_obj[o].map(|p| world[p]);
                        let w = &worlds[node];
                        let wm = console_matrix(w, signs);
                        let wt = [0, 1, 2].map(|i| w[12 + i] * signs[i] * k);
                        if wt.iter().any(|v| v.is_nan() || v.abs() >= 2.1e9) {
                            return Some(Err(out_of_range(node, &scene.nodes[node].name, f, wt)));
                        }
                        let local = locals[node].matrix();
                        let fallback = (
                            console_matrix(&local, signs),
                            [0, 1, 2].map(|i| local[12 + i] * signs[i] * k),
                        );
                        let glb = Client {
                            parent_inverse: scene.nodes[node]
                                .parent
                                .filter(|_| parent.is_some())
                                .and_then(|p| solve::affine(&worlds[p]).inverse()),
                            local,
                            signs,
                        };
                        Some(Ok(solve(&wm, wt, parent.as_ref(), fallback, &glb)))
                    })
                    .collect()
            };
            for (&o, pre) in level.iter().zip(pre) {
                if !kept[o].alive(f) {
                    continue;
                }
                let born = kept[o].born_at(f);
                let node = objects[o];
                let id = ids[o];
                let x = &scene.nodes[node];
                let out = &mut per[o];
                // The model shown now: the node's own mesh, or a visible holder's.
                let (model, show) = match x.mesh {
                    Some(m) => (Some(m), visible[node]),
                    None if holders[node].is_empty() => (None, visible[node]),
                    None => match holders[node].iter().find(|&&h| visible[h]) {
                        Some(&h) => (scene.nodes[h].mesh, true),
                        None => (None, false),
                    },
                };
                let from_mesh = model.map(|m| tmd_ids.get(m).copied().flatten());
                if from_mesh == Some(None) && f == 0 {
                    missing_model += 1;
                }
                // The model's TMD ID, else the one the export kept for the object at this frame.
                let want = from_mesh.flatten().or_else(|| kept[o].tmd_id_at(f));
                {
                    if let Some(w) = want.filter(|&w| Some(w) != tmd_of[o]) {
                        tmd_of[o] = want;
                        out.push(Packet::new(
                            id,
                            PacketData::TmdId(IdValue {
                                id: w as u16,
                                pad: (w >> 16) as u16,
                            }),
                        ));
                    }
                }
                if born {
                    if let Some(p) = parent_obj[o] {
                        out.push(Packet::new(id, PacketData::Parent(IdValue::new(ids[p]))));
                    }
                }
                match kept[o].attribute_at(f) {
                    // The whole attribute word the export kept, hidden also where the scene hides
                    // the object.
                    Some(a) => {
                        let a = if show { a } else { a | 0x8000_0000 };
                        if a != attr_of[o] {
                            attr_of[o] = a;
                            shown[o] = show;
                            out.push(Packet::new(
                                id,
                                PacketData::Attribute(Attribute { mask: 0, value: a }),
                            ));
                        }
                    }
                    None if show != shown[o] => {
                        shown[o] = show;
                        attr_of[o] =
                            (attr_of[o] & !0x8000_0000) | if show { 0 } else { 0x8000_0000 };
                        out.push(Packet::new(
                            id,
                            PacketData::Attribute(Attribute {
                                mask: !0x8000_0000,
                                value: if show { 0 } else { 0x8000_0000 },
                            }),
                        ));
                    }
                    None => {}
                }
                let parent = parent_obj[o].map(|p| world[p]);
                if let Some(solved) = pre {
                    let solved = solved?;
                    clamped += usize::from(solved.clamped);
                    if parent.is_some() && solved.coord.t.iter().any(|&v| i16::try_from(v).is_err())
                    {
                        cut += 1;
                    }
                    if let Some(mut p) = coordinate_packet(&written[o], &solved.written) {
                        if matches!(solved.written, Written::Matrix(_)) {
                            matrix_packets += 1;
                        }
                        if opts.differential && kept[o].one_life() {
                            p = diff::smaller(
                                &sim[o],
                                p,
                                &solved.written,
                                &solved.coord,
                                scale_set[o],
                            );
                        }
                        scale_set[o] |= matches!(
                            p,
                            PacketData::Coordinate(Coordinate {
                                differential: false,
                                scale: Some(_),
                                ..
                            })
                        );
                        sim[o] = diff::after(&sim[o], &p);
                        out.push(Packet::new(id, p));
                    }
                    written[o] = solved.written;
                    coord[o] = solved.coord;
                }
                world[o] = match &parent {
                    Some(p) => gte::compose(p, &coord[o]),
                    None => coord[o],
                };
            }
        }
        packets.extend(per.into_iter().flatten());
        rig.packets(&worlds, f, &mut packets)?;
        if f == last_frame && packets.is_empty() {
            // Keeps the TOD as long as the animation: a packet that changes nothing, for an
            // object that exists (or a camera or light when there is none).
            let alive = (0..objects.len()).find(|&o| kept[o].alive(f));
            packets.push(match (rig.no_op(), alive) {
                (_, Some(o)) => Packet::new(ids[o], PacketData::Attribute(Attribute::unchanged())),
                (Some(p), None) => p,
                (None, None) => Packet::new(1, PacketData::Attribute(Attribute::unchanged())),
            });
        }
        if !packets.is_empty() {
            frames.push(Frame {
                number: f as u32,
                packets,
                extra_words: Vec::new(),
                size_override: None,
            });
        }
    }
    notes.add("matrix-packets", matrix_packets, || {
        "coordinates written as matrix packets (type 4): RotMatrix cannot reach them within 4/4096; the PsyQ sample player ignores these packets".into()
    });
    notes.add("matrix-clamped", clamped, || {
        "coordinates whose scale exceeds the console's 16-bit matrix range (±8) clamped".into()
    });
    notes.add("translation-cut", cut, || {
        "child translations outside int16: the console cuts them to 16 bits when it composes world matrices".into()
    });
    notes.add("tmd-id-missing", missing_model, || {
        "objects whose mesh the TMD model lacks: they show no model".into()
    });
    Ok(TodAuthored {
        tod: Tod {
            header: Header {
                version: 0,
                resolution: header_resolution,
            },
            frames,
            trailing: Vec::new(),
        },
        objects,
        ids,
        notes: notes.finish(),
    })
}

/// The error for node `node` lying past int32 at frame `f` (`wt`: its console translation).
fn out_of_range(node: usize, name: &str, f: u64, wt: [f64; 3]) -> Error {
    let far = wt.iter().fold(0.0f64, |a, v| a.max(v.abs()));
    Error::Unencodable {
        format: Format::Tod,
        what: format!(
            "node {node} ({name}) at frame {f}: it lies {far:.0} console units out, past int32"
        ),
    }
}

/// Whether node `i` only holds a mesh for its parent (see the module docs).
fn is_holder(scene: &Scene, anim: Option<&Animation>, i: usize, children: usize) -> bool {
    let x = &scene.nodes[i];
    let Some(p) = x.parent else { return false };
    if x.mesh.is_none()
        || children > 0
        || x.skin.is_some()
        || x.camera.is_some()
        || x.light.is_some()
        || scene.nodes.get(p).map_or(true, |p| p.mesh.is_some())
    {
        return false;
    }
    let rest = sample::local_matrix(&x.transform);
    let identity = [
        1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0,
    ];
    if rest
        .iter()
        .zip(&identity)
        .any(|(a, b)| (a - b).abs() > 1e-6)
    {
        return false;
    }
    let on_off = |v: &[f32; 3]| v.iter().all(|&s| s == 0.0) || v.iter().all(|&s| s == 1.0);
    let rest_trs = sample::rest_trs(&x.transform);
    anim.map_or(true, |a| {
        a.channels
            .iter()
            .filter(|c| c.node == i)
            .all(|c| match &c.track {
                // Weights are left out (noted) whatever the node becomes.
                Track::Visibility(_) | Track::Weights(_) => true,
                Track::Scale(v) => v.iter().all(on_off),
                // A channel that holds the rest moves nothing (Blender's exporter writes some).
                _ => c.is_still(&rest_trs),
            })
    })
}

/// Nodes that only carry cameras or lights: no mesh in their subtree, a camera or light in it.
/// They become camera and light packets, not objects.
fn rig_only(scene: &Scene) -> Vec<bool> {
    let n = scene.nodes.len();
    let (mut mesh, mut rig) = (vec![false; n], vec![false; n]);
    for (i, x) in scene.nodes.iter().enumerate() {
        let (has_mesh, has_rig) = (x.mesh.is_some(), x.camera.is_some() || x.light.is_some());
        // Mark the node and its ancestors (a bounded walk: the scene is checked to be a forest).
        let mut at = Some(i);
        let mut steps = 0;
        while let Some(k) = at.filter(|&k| k < n && steps <= n) {
            mesh[k] |= has_mesh;
            rig[k] |= has_rig;
            at = scene.nodes[k].parent;
            steps += 1;
        }
    }
    (0..n).map(|i| rig[i] && !mesh[i]).collect()
}

/// Every node's world matrix from its local transforms.
fn scene_worlds(scene: &Scene, locals: &[Trs]) -> Vec<Mat4> {
    let n = scene.nodes.len();
    let mut out: Vec<Option<Mat4>> = vec![None; n];
    for i in 0..n {
        // Walk up to a known world (or a root), then back down.
        let mut chain = vec![i];
        let mut at = scene.nodes[i].parent;
        while let Some(p) = at.filter(|&p| p < n && out[p].is_none() && chain.len() <= n) {
            chain.push(p);
            at = scene.nodes[p].parent;
        }
        let mut w = at
            .and_then(|p| out.get(p).copied().flatten())
            .unwrap_or(IDENTITY);
        for &k in chain.iter().rev() {
            if out[k].is_none() {
                w = sample::mat_mul(&w, &locals[k].matrix());
                out[k] = Some(w);
            } else if let Some(known) = out[k] {
                w = known;
            }
        }
    }
    out.into_iter().map(|w| w.unwrap_or(IDENTITY)).collect()
}

const IDENTITY: Mat4 = [
    1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0,
];

/// Each node shown now: its scale and every ancestor's non-zero.
fn visibility(scene: &Scene, locals: &[Trs]) -> Vec<bool> {
    let n = scene.nodes.len();
    let own = |k: usize| !locals[k].scale.iter().any(|s| s.abs() < 1e-9);
    let mut out: Vec<Option<bool>> = vec![None; n];
    let mut chain = Vec::new();
    for i in 0..n {
        // Walk up to a node already judged (or a root), then back down: each node once.
        chain.clear();
        let mut at = Some(i);
        let mut seen = true;
        while let Some(k) = at.filter(|&k| k < n) {
            if let Some(v) = out[k] {
                seen = v;
                break;
            }
            if chain.len() > n {
                break;
            }
            chain.push(k);
            at = scene.nodes[k].parent;
        }
        for &k in chain.iter().rev() {
            seen = seen && own(k);
            out[k] = Some(seen);
        }
    }
    out.into_iter().map(|v| v.unwrap_or(true)).collect()
}

/// The absolute coordinate packet that takes an object from `was` to `now`, if anything
/// changed.
fn coordinate_packet(was: &Written, now: &Written) -> Option<PacketData> {
    match (was, now) {
        (_, Written::Nothing) => None,
        (Written::Matrix(a), Written::Matrix(b)) if a == b => None,
        (_, Written::Matrix(b)) => Some(PacketData::Matrix(Matrix {
            m: b.m,
            pad: 0,
            t: b.t,
        })),
        (was, Written::Rst { r, s, t }) => {
            let (rot, trans) = match was {
                Written::Rst {
                    r: r0,
                    s: s0,
                    t: t0,
                } => (r0 != r || s0 != s, t0 != t),
                _ => (true, true),
            };
            if !rot && !trans {
                return None;
            }
            // An absolute rotation rebuilds the matrix without scale: a scale goes with it.
            let unit_scale = s.iter().all(|&v| v == 4096);
            Some(PacketData::Coordinate(Coordinate {
                differential: false,
                rotation: rot.then(|| r.map(|a| a as i32 * 360)),
                scale: (rot && !unit_scale).then_some(Scale {
                    x: s[0],
                    y: s[1],
                    z: s[2],
                    pad: 0,
                }),
                translation: trans.then_some(*t),
            }))
        }
    }
}
