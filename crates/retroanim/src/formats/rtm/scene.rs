//! RTM → the neutral scene: one node per bone under a root, one animation.
//!
//! - **Hierarchy:** flat (every bone a child of the root) without a skeleton; with a
//!   [`Skeleton`] (a `model.cfg` `CfgSkeletons` list) each bone hangs under its nearest
//!   ancestor that the RTM animates (bones the skeleton does not name stay under the root).
//! - **Transforms:** a bone's world matrix is its RTM matrix (model space), so with a skin whose
//!   inverse bind matrices are the identity the joints move the model's rest vertices exactly as
//!   the engine does; a child's local transform is its parent's world inverse times its own. The
//!   rest transform of every node is its first frame's.
//! - **Axes:** the RTM's are left-handed (+X right, +Y up, +Z the model's front); the scene's
//!   are glTF's, so x is negated (the P3D export's choice): `M' = S·M·S`, `t' = S·t` with
//!   `S = diag(−1, 1, 1)`. Metres both sides.
//! - **Time:** phase × [`SceneOptions::duration`] seconds (1 s by default: an RTM holds no
//!   duration, the config's speed sets it). LINEAR keys: glTF's slerp and lerp between frames
//!   are [`super::play`]'s.
//! - **Extras:** the scene's `extras.rtm` keeps the bone order, the displacement, the duration,
//!   the `RTM_MDAT` properties and, for an `RTM_0100`, `"form": "RTM_0100"`, so glTF → RTM
//!   writes them back.

use serde_json::json;

use super::matrix::{aligned_eigen, mul, polar, shear, transpose, M3};
use super::play::quat64;
use super::skeleton::Skeleton;
use super::Mlod;
use crate::report::Note;
use crate::scene::sample::mat_mul;
use crate::scene::{Animation, Channel, Interpolation, Node, Scene, Track, Transform};
use crate::{Error, Format, Result};

/// How to build the scene.
#[derive(Debug, Clone, Default)]
pub struct SceneOptions<'a> {
    /// Seconds phase 0..1 lasts (default 1).
    pub duration: Option<f32>,
    /// The bone hierarchy; flat without one.
    pub skeleton: Option<&'a Skeleton>,
    /// The root node's and the animation's name (default `"rtm"`).
    pub name: Option<String>,
}

/// Column-major 4×4 in f64.
type M4 = [f64; 16];

/// The scene's world matrix of an RTM matrix (x negated).
pub(crate) fn to_scene_matrix(m: &[f32; 12]) -> M4 {
    let c = [-1.0, 1.0, 1.0];
    let mut out = [0.0; 16];
    for j in 0..3 {
        for i in 0..3 {
            out[4 * j + i] = m[3 * j + i] as f64 * c[i] * c[j];
        }
        out[12 + j] = m[9 + j] as f64 * c[j];
    }
    out[15] = 1.0;
    out
}

/// The RTM matrix of a scene world matrix (the inverse of [`to_scene_matrix`]).
pub(crate) fn from_scene_matrix(m: &M4) -> [f32; 12] {
    let c = [-1.0, 1.0, 1.0];
    let mut out = [0f32; 12];
    for j in 0..3 {
        for i in 0..3 {
            out[3 * j + i] = (m[4 * j + i] * c[i] * c[j]) as f32;
        }
        out[9 + j] = (m[12 + j] * c[j]) as f32;
    }
    out
}

/// The inverse of an affine column-major matrix (identity when singular).
pub(crate) fn affine_inverse(m: &M4) -> M4 {
    let a = |i: usize, j: usize| m[4 * j + i];
    let det = a(0, 0) * (a(1, 1) * a(2, 2) - a(1, 2) * a(2, 1))
        - a(0, 1) * (a(1, 0) * a(2, 2) - a(1, 2) * a(2, 0))
        + a(0, 2) * (a(1, 0) * a(2, 1) - a(1, 1) * a(2, 0));
    if det.abs() < 1e-300 {
        return crate::scene::sample::Trs {
            translation: [0.0; 3],
            rotation: [0.0, 0.0, 0.0, 1.0],
            scale: [1.0; 3],
        }
        .matrix();
    }
    let mut inv = [0.0; 16];
    for i in 0..3 {
        for j in 0..3 {
            let (i1, i2) = ((j + 1) % 3, (j + 2) % 3);
            let (j1, j2) = ((i + 1) % 3, (i + 2) % 3);
            // cofactor of a(j, i), transposed: inv(i, j)
            inv[4 * j + i] = (a(i1, j1) * a(i2, j2) - a(i1, j2) * a(i2, j1)) / det;
        }
    }
    for i in 0..3 {
        inv[12 + i] = -(0..3).map(|k| inv[4 * k + i] * m[12 + k]).sum::<f64>();
    }
    inv[15] = 1.0;
    inv
}

/// The scene of an RTM (editable form), and notes on what it could not carry.
pub fn to_scene(m: &Mlod, opts: &SceneOptions) -> Result<(Scene, Vec<Note>)> {
    to_scene_joints(m, opts).map(|(s, n, _)| (s, n))
}

/// [`to_scene`], and the node of each bone's joint (the inner node of a sheared bone) in bone
/// order; the root is node 0.
pub(crate) fn to_scene_joints(
    m: &Mlod,
    opts: &SceneOptions,
) -> Result<(Scene, Vec<Note>, Vec<usize>)> {
    let unencodable = |what: String| Error::Unencodable {
        format: Format::Gltf,
        what,
    };
    if m.frames.is_empty() || m.bones.is_empty() {
        return Err(unencodable(format!(
            "an RTM of {} frames and {} bones holds no animation",
            m.frames.len(),
            m.bones.len()
        )));
    }
    let duration = opts.duration.unwrap_or(1.0);
    let mut times = Vec::with_capacity(m.frames.len());
    for (f, fr) in m.frames.iter().enumerate() {
        let t = fr.phase * duration;
        if !(t.is_finite() && t >= 0.0) || times.last().is_some_and(|&p| t <= p) {
            return Err(unencodable(format!(
                "frame {f}'s phase {} does not follow the one before (glTF key times increase strictly from 0)",
                fr.phase
            )));
        }
        times.push(t);
    }
    let name = opts.name.clone().unwrap_or_else(|| "rtm".into());
    let mut notes = Vec::new();
    let parents = parents(m, opts.skeleton, &mut notes);
    let nb = m.bones.len();
    // Every bone's local matrix (scene axes) at every frame.
    let mut locals: Vec<Vec<M4>> = vec![Vec::with_capacity(m.frames.len()); nb];
    for (f, frame) in m.frames.iter().enumerate() {
        let mut worlds = Vec::with_capacity(nb);
        for b in 0..nb {
            let i = m.find(frame, b).ok_or_else(|| {
                unencodable(format!(
                    "frame {f} has no transform for bone {:?}",
                    m.bones[b].name
                ))
            })?;
            let mx = &frame.transforms[i].matrix;
            if mx.iter().any(|v| !v.is_finite()) {
                return Err(unencodable(format!(
                    "frame {f} bone {:?}: the matrix holds a NaN or infinity",
                    m.bones[b].name
                )));
            }
            worlds.push(to_scene_matrix(mx));
        }
        for b in 0..nb {
            locals[b].push(match parents[b] {
                Some(p) => mat_mul(&affine_inverse(&worlds[p]), &worlds[b]),
                None => worlds[b],
            });
        }
    }
    // A bone whose matrices shear (beyond float noise) gets a second node: the outer one
    // rotates and scales along the stretch's axes, the inner one (the joint) turns back.
    let stretched: Vec<bool> = locals
        .iter()
        .map(|ls| {
            ls.iter().any(|l| shear(&rows3(l)) > 1e-6)
                && ls.iter().all(|l| polar(&rows3(l)).is_some())
        })
        .collect();
    let mut joint = vec![0; nb];
    let mut next = 1;
    for b in 0..nb {
        next += usize::from(stretched[b]);
        joint[b] = next;
        next += 1;
    }
    let mut nodes = Vec::with_capacity(next);
    nodes.push(Node::new(name.clone()));
    let mut channels = Vec::with_capacity(4 * nb);
    let mut mirrored = 0;
    for b in 0..nb {
        let parent = Some(parents[b].map_or(0, |p| joint[p]));
        let bone = m.bones[b].name.clone();
        let mut keys = Keys::default();
        if stretched[b] {
            let mut inner = Vec::with_capacity(times.len());
            let mut previous: Option<M3> = None;
            for l in &locals[b] {
                let (r, p) = polar(&rows3(l)).unwrap_or((IDENTITY3, IDENTITY3));
                let (v, lambda) = aligned_eigen(&p, previous.as_ref());
                previous = Some(v);
                keys.push([l[12], l[13], l[14]], quat64(mul(&r, &v)), lambda);
                inner.push(quat64(transpose(&v)));
            }
            nodes.push(keys.node(
                format!("{bone} stretch"),
                parent,
                json!({ "rtm_stretch": true }),
            ));
            keys.channels(joint[b] - 1, &times, true, &mut channels);
            let mut q = Keys::default();
            inner
                .into_iter()
                .for_each(|r| q.push([0.0; 3], r, [1.0; 3]));
            nodes.push(q.node(bone, Some(joint[b] - 1), serde_json::Value::Null));
            q.rotations_only(joint[b], &times, &mut channels);
        } else {
            for l in &locals[b] {
                let (r, s, t) = scene_parts(l);
                if crate::formats::rtm::matrix::det(&rows3(l)) < 0.0 {
                    mirrored += 1;
                }
                keys.push(t, quat64(r), s);
            }
            let scaled = keys
                .scale
                .iter()
                .any(|s| s.iter().any(|v| (v - 1.0).abs() > 1e-6));
            nodes.push(keys.node(bone, parent, serde_json::Value::Null));
            keys.channels(joint[b], &times, scaled, &mut channels);
        }
    }
    if mirrored > 0 {
        notes.push(Note {
            code: "mirrored-matrices",
            message: format!("{mirrored} bone matrices mirror (negative determinant): written as a negative scale"),
        });
    }
    let mdat = m.mdat.as_ref().map(|d| {
        json!({
            "reserved": d.reserved,
            "properties": d.properties.iter().map(|p| json!({"phase": p.phase, "name": p.name, "value": p.value})).collect::<Vec<_>>(),
        })
    });
    let scene = Scene {
        name: Some(name.clone()),
        nodes,
        animations: vec![Animation {
            name,
            channels,
            extras: serde_json::Value::Null,
        }],
        extras: {
            let mut rtm = json!({
                "bones": m.bones.iter().map(|b| b.name.clone()).collect::<Vec<_>>(),
                "displacement": m.displacement,
                "duration": duration,
                "mdat": mdat,
            });
            // The older header, so glTF → RTM writes the form the file had.
            if m.v0100 {
                rtm["form"] = json!("RTM_0100");
            }
            json!({ "rtm": rtm })
        },
        ..Scene::default()
    };
    Ok((scene, notes, joint))
}

const IDENTITY3: M3 = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];

/// The 3×3 part of a column-major 4×4, rows.
fn rows3(m: &M4) -> M3 {
    let mut a = [[0.0; 3]; 3];
    for (i, row) in a.iter_mut().enumerate() {
        for (j, e) in row.iter_mut().enumerate() {
            *e = m[4 * j + i];
        }
    }
    a
}

/// One node's keys, quaternions kept on one side of the sphere from key to key.
#[derive(Default)]
struct Keys {
    translation: Vec<[f32; 3]>,
    rotation: Vec<[f64; 4]>,
    scale: Vec<[f64; 3]>,
}

impl Keys {
    fn push(&mut self, t: [f64; 3], q: [f64; 4], s: [f64; 3]) {
        let q = match self.rotation.last() {
            Some(p) if (0..4).map(|k| p[k] * q[k]).sum::<f64>() < 0.0 => q.map(|v| -v),
            _ => q,
        };
        self.translation.push(t.map(|v| v as f32));
        self.rotation.push(q);
        self.scale.push(s);
    }

    /// The node, at rest in its first key's transform.
    fn node(&self, name: String, parent: Option<usize>, extras: serde_json::Value) -> Node {
        Node {
            name,
            parent,
            transform: Transform::Trs {
                translation: self.translation[0],
                rotation: self.rotation[0].map(|v| v as f32),
                scale: self.scale[0].map(|v| v as f32),
            },
            extras,
            ..Node::default()
        }
    }

    fn channels(&self, node: usize, times: &[f32], scaled: bool, out: &mut Vec<Channel>) {
        let channel = |track| Channel {
            node,
            interpolation: Interpolation::Linear,
            times: times.to_vec(),
            track,
        };
        out.push(channel(Track::Translation(self.translation.clone())));
        self.rotations_only(node, times, out);
        if scaled {
            out.push(channel(Track::Scale(
                self.scale.iter().map(|s| s.map(|v| v as f32)).collect(),
            )));
        }
    }

    fn rotations_only(&self, node: usize, times: &[f32], out: &mut Vec<Channel>) {
        out.push(Channel {
            node,
            interpolation: Interpolation::Linear,
            times: times.to_vec(),
            track: Track::Rotation(self.rotation.iter().map(|q| q.map(|v| v as f32)).collect()),
        });
    }
}

/// Rotation (rows), signed scale and translation of a column-major scene matrix.
fn scene_parts(m: &M4) -> ([[f64; 3]; 3], [f64; 3], [f64; 3]) {
    let mut a = [[0.0; 3]; 3];
    for (i, row) in a.iter_mut().enumerate() {
        for (j, e) in row.iter_mut().enumerate() {
            *e = m[4 * j + i];
        }
    }
    let (r, s) = crate::scene::axes::decompose(a);
    (r, s, [m[12], m[13], m[14]])
}

/// Each bone's parent bone (index), from the skeleton; `None` hangs it under the root.
fn parents(m: &Mlod, skeleton: Option<&Skeleton>, notes: &mut Vec<Note>) -> Vec<Option<usize>> {
    let nb = m.bones.len();
    let Some(sk) = skeleton else {
        return vec![None; nb];
    };
    let index = |name: &str| m.bones.iter().position(|b| b.same_bone(name));
    let mut unnamed = 0;
    let out: Vec<Option<usize>> = (0..nb)
        .map(|b| {
            let Some(mut p) = sk.parent_of(&m.bones[b].name).map(str::to_string) else {
                unnamed += 1;
                return None;
            };
            // Up the chain to the nearest animated ancestor; bounded by the skeleton's size.
            for _ in 0..=sk.bones.len() {
                if p.is_empty() {
                    return None;
                }
                if let Some(i) = index(&p).filter(|&i| i != b) {
                    return Some(i);
                }
                match sk.parent_of(&p) {
                    Some(q) => p = q.to_string(),
                    None => return None,
                }
            }
            None
        })
        .collect();
    // A cycle among the RTM's bones (a skeleton naming a bone its own ancestor) is broken at
    // the root.
    let cyclic = crate::scene::reaches_cycle(&out);
    let out: Vec<Option<usize>> = out
        .iter()
        .zip(&cyclic)
        .map(|(p, c)| if *c { None } else { *p })
        .collect();
    if unnamed > 0 {
        notes.push(Note {
            code: "bones-not-in-skeleton",
            message: format!(
                "{unnamed} of {nb} bones are not in skeleton {:?}: they hang under the root",
                sk.name
            ),
        });
    }
    if cyclic.iter().any(|&c| c) {
        notes.push(Note {
            code: "skeleton-cycle",
            message: format!(
                "skeleton {:?} makes {} bones their own ancestors: they hang under the root",
                sk.name,
                cyclic.iter().filter(|&&c| c).count()
            ),
        });
    }
    out
}
