//! TOD animations played by the PsyQ TOD player → the neutral [`Scene`]: the TOD bridge.
//! Axes, units, meshes and materials are the TMD bridge's ([`crate::formats::tmd::scene`]).
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
//! What the glTF cannot hold of the console's structure goes to the `retroanim` extras
//! (`docs/extras.md`): the header's resolution (scene), each object's ID, lives, TMD IDs and
//! attribute words (object node), the TMD object a model node shows, camera and light numbers.
//! Cameras become camera nodes (type 0: looking from the viewpoint at the reference point, the
//! z angle read as 4096 = 1° of roll; type 1: rotation and translation as an object's; the
//! projection is not in the file: 2·atan(120/256) vertical field of view, a 240-line screen at
//! `GsSetProjection(256)`). Lights become directional lights shining along their direction,
//! with their first colour (glTF cannot animate a light's colour).

use std::collections::{BTreeMap, BTreeSet};

use crate::error::{Error, Result};
use crate::formats::gte::Mat;
use crate::formats::tmd::Tmd;
use crate::formats::tod::{CameraState, ObjectPose, Player, Pose, Tod};
use crate::scene::extras;
use crate::scene::world_exact::{exact_locals, Affine};
use crate::scene::{
    key_time, Animation, Camera, Channel, Interpolation, Light, LightKind, Node, Projection, Scene,
    Track, Transform,
};

use crate::formats::tmd::scene::{build_models, srgb_to_linear, Conv};
pub use crate::formats::tmd::scene::{Axes, PsxOptions};

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
/// loops), one note per kind: its code ([`Player::coded_notes`]) and its first occurrence with
/// the number of times it happened.
pub fn tod_scene_noted(
    prelude: &[&Tod],
    tod: &Tod,
    tmd: Option<&Tmd>,
    opts: &PsxOptions,
) -> Result<(Scene, Vec<(&'static str, String)>)> {
    let mut notes = Vec::new();
    let scene = tod_scene_inner(prelude, tod, tmd, opts, &mut notes)?;
    Ok((scene, summarize_notes(&notes)))
}

/// One note per code: `first (N times in all)`.
fn summarize_notes(notes: &[(&'static str, String)]) -> Vec<(&'static str, String)> {
    let mut kinds: Vec<(&'static str, &str, usize)> = Vec::new();
    for (code, n) in notes {
        match kinds.iter_mut().find(|k| k.0 == *code) {
            Some(k) => k.2 += 1,
            None => kinds.push((code, n, 1)),
        }
    }
    kinds
        .into_iter()
        .map(|(code, first, count)| match count {
            1 => (code, first.to_string()),
            n => (code, format!("{first} ({n} times in all)")),
        })
        .collect()
}

fn tod_scene_inner(
    prelude: &[&Tod],
    tod: &Tod,
    tmd: Option<&Tmd>,
    opts: &PsxOptions,
    notes: &mut Vec<(&'static str, String)>,
) -> Result<Scene> {
    let conv = Conv::new(opts);
    let mut scene = Scene {
        name: Some("tod".into()),
        extras: extras::tagged(
            "tod",
            serde_json::json!({
                "resolution": tod.header.resolution,
                "header_version": tod.header.version,
            }),
        ),
        ..Scene::default()
    };
    let models = match tmd {
        Some(t) => Some(build_models(t, &conv, opts, &mut scene)?),
        None => None,
    };
    if let Some(n) = models
        .as_ref()
        .and_then(|m| m.missing_note(opts.tims.len()))
    {
        notes.push(n);
    }
    let mut player = Player::after(prelude.iter().copied(), tod, tmd);
    // One pose where each frame applies and one at the last tick before the next is due: the
    // ticks between hold the same pose, and `thin` keeps exactly these ends of each run, so the
    // keys equal a tick-by-tick walk while sparse frame numbers cost nothing.
    let mut poses: Vec<Pose> = Vec::new();
    while player.advance() {
        poses.push(player.pose());
        if let Some(due) = player.next_due() {
            if player.skip_idle(due.saturating_sub(1)) > 0 {
                poses.push(player.pose());
            }
        }
    }
    notes.extend(player.coded_notes().map(|(c, n)| (c, n.to_string())));
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
    // glTF keeps times as 32-bit floats: far from the start, one tick (1/60 s) is below their
    // resolution and distinct ticks would share a time.
    if let Some(i) = (1..times.len()).find(|&i| times[i] <= times[i - 1]) {
        return Err(Error::Unencodable {
            format: crate::Format::Gltf,
            what: format!(
                "TOD tick {} lies {:.0} s into the animation, where glTF's 32-bit float key \
                 times cannot tell it from tick {} (the frame numbers jump too far)",
                poses[i].frame,
                times[i],
                poses[i - 1].frame
            ),
        });
    }
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
        let mut extras = serde_json::json!({ "tod_object": id });
        extras::put(&mut extras, "tod", object_extras(&poses, first, id, &at));
        scene.nodes.push(Node {
            parent: parent_of[&id].map(index_of),
            transform: keys.rest(),
            extras,
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
                    extras: extras::tagged(
                        "tod",
                        serde_json::json!({ "model_of": id, "tmd_object": k }),
                    ),
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
        return Err(Error::InconsistentScene {
            format: crate::Format::Tod,
            problems,
        });
    }
    Ok(scene)
}

/// What the console knows of object `id` besides its coordinates (`docs/extras.md`): its
/// lives (`[create, kill]` frames, `null` for never killed), its TMD ID and attribute word at
/// each frame they change. Frames count from the clip's first frame, as the keys' times do.
fn object_extras(
    poses: &[Pose],
    first: u32,
    id: u16,
    at: &dyn Fn(&Pose, u16) -> Option<ObjectPose>,
) -> serde_json::Value {
    let mut lives: Vec<[Option<u32>; 2]> = Vec::new();
    let (mut tmd_ids, mut attributes) = (Vec::new(), Vec::new());
    let (mut alive, mut tmd, mut attr) = (false, None, None);
    for p in poses {
        let f = p.frame.saturating_sub(first);
        match at(p, id) {
            Some(o) => {
                if !alive {
                    lives.push([Some(f), None]);
                    (tmd, attr) = (None, None);
                }
                alive = true;
                if o.tmd_id.is_some() && o.tmd_id != tmd {
                    tmd_ids.push([f, o.tmd_id.unwrap_or(0)]);
                }
                tmd = o.tmd_id;
                if attr != Some(o.attribute) {
                    attributes.push([f, o.attribute]);
                }
                attr = Some(o.attribute);
            }
            None if alive => {
                alive = false;
                if let Some(l) = lives.last_mut() {
                    l[1] = Some(f);
                }
            }
            None => {}
        }
    }
    serde_json::json!({
        "object": id,
        "lives": lives,
        "tmd_ids": tmd_ids,
        "attributes": attributes,
    })
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
            let z = norm([0, 1, 2].map(|i| target[i] - eye[i])).unwrap_or([0.0, 0.0, 1.0]);
            let (x, y) = look_at_axes(z);
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

/// `v` scaled to unit length (`None` for a zero vector).
pub(crate) fn norm(v: [f64; 3]) -> Option<[f64; 3]> {
    let l = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    (l >= 1e-12 && l.is_finite()).then(|| v.map(|x| x / l))
}

/// `a × b`.
pub(crate) fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

/// The x and y axes of a type 0 (look-at) camera looking along the unit vector `z` before its
/// z angle turns them: x level (perpendicular to the console's Y), y = z × x (down-ish). A
/// camera looking straight along ±Y takes x = +X.
pub(crate) fn look_at_axes(z: [f64; 3]) -> ([f64; 3], [f64; 3]) {
    let x = norm(cross([0.0, 1.0, 0.0], z)).unwrap_or([1.0, 0.0, 0.0]);
    (x, cross(z, x))
}

/// The projection a TOD camera becomes: the file has none, so the one `GsSetProjection(256)`
/// gives on a 240-line screen (2·atan(120/256) vertical field of view).
pub(crate) fn console_projection() -> Projection {
    Projection::Perspective {
        yfov: 2.0 * (120.0f32 / 256.0).atan(),
        znear: 0.01,
        zfar: None,
        aspect_ratio: None,
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
            projection: console_projection(),
        });
        let node = scene.nodes.len();
        let raw = opts.axes == Axes::Raw;
        scene.nodes.push(Node {
            transform: keys.rest(),
            camera: (!raw).then_some(index),
            extras: extras::tagged("tod", serde_json::json!({ "camera": id })),
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
            extras: extras::tagged("tod", serde_json::json!({ "light": id })),
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
