//! Which scene nodes become GsCOORDUNITs, and where the others are drawn (`docs/extras.md`).
//!
//! A scene exported from an HMD tags the node of each GsCOORDUNIT with its index
//! (`retroanim.hmd.coordinate`) and adds nodes that are not coordinates: a second mesh of a
//! coordinate or a PRE-/POST-PROCESS mesh (`block B` nodes), ground and shared-polygon meshes,
//! cameras, lights, and the common root of skin joints (`HMD root`). When the tagged nodes
//! number 0..N−1 once each, every skin joint is one of them, and the nodes between a
//! coordinate and its nearest tagged ancestor are untransformed, only the tagged nodes become
//! coordinates, in their index order (a coordinate's parent is its nearest tagged ancestor);
//! the other nodes are drawn in a coordinate:
//!
//! - a **mesh** in the block of its nearest coordinate ancestor (another primitive chained
//!   after what that block already draws), its vertices moved into that coordinate's space when
//!   the nodes between are transformed; a mesh tagged with block 0 (PRE-PROCESS) or with
//!   the last block (POST-PROCESS) stays there, and a mesh without a coordinate ancestor goes
//!   to POST-PROCESS, in world space (as the bridge reads those blocks);
//! - a **camera or light** as a FIX device in its nearest coordinate ancestor (position and
//!   point looked at in that coordinate's space), or as a WORLD device without one;
//! - a node's **own motion** is left out (noted): only coordinates have sequences.
//!
//! Otherwise (a scene made from scratch, or one whose tags no longer fit) every node is one
//! coordinate, in node order.

use std::borrow::Cow;

use crate::scene::extras;
use crate::scene::sample::{local_matrix, mat_mul, Mat4};
use crate::scene::Scene;

use super::super::cat3_anim::{
    InterpolationType, KeyFrame, ParameterItem, SequenceDescriptor, CONTROL_END,
};
use super::super::cat4_mime::JointDiff;
use super::super::types::SequencePointer;

/// A sequence pointer the export recorded, and the parts of its coordinate its key frames set
/// (bits: 1 translation, 2 rotation, 4 scale), from the type of the first key frame its
/// sequence reaches; `None` when that is not found or not a coordinate type.
#[derive(Debug, Clone)]
pub(super) struct Recorded {
    /// The pointer as recorded.
    pub pointer: SequencePointer,
    /// Translation 1, rotation 2, scale 4.
    pub parts: Option<u8>,
    /// The pointer's index among all the file's sequence pointers (every animation primitive's,
    /// in file order), as the animations' `pointer_loops` name it.
    pub index: usize,
    /// The descriptors and interpolation types of the pointer's animation primitive, as
    /// recorded: its control flow, which the author writes back where it can.
    pub flow: std::sync::Arc<Flow>,
}

/// An animation primitive's sequence descriptors and interpolation types, as recorded.
#[derive(Debug, Default)]
pub(super) struct Flow {
    /// The descriptors (`retroanim.hmd.animations[].descriptors`).
    pub descriptors: Vec<SequenceDescriptor>,
    /// The type words (`interpolation_types`).
    pub types: Vec<u32>,
    /// The key frames of the parameter section by PARAMETER IDX (`parameters`), with the type
    /// word each was decoded with: the values of key frames no exported sequence plays.
    pub params: std::collections::BTreeMap<u16, (u32, KeyFrame)>,
}

/// The sequence table the export recorded (the scene's `retroanim.hmd.animations`).
#[derive(Debug, Clone, Default)]
pub(super) struct Table {
    /// Whether the scene records one (a scene exported from an HMD).
    pub present: bool,
    /// Its sequence pointers that update a coordinate, in the file's order.
    pub pointers: Vec<Recorded>,
    /// The animation primitives it records sequence pointers for (the author writes one).
    pub primitives: usize,
    /// Its pointers that update something else than a coordinate or the recorded joint MIMe's
    /// weights (vertex MIMe weights) and whose sequences reach stream-ID jumps or control
    /// descriptors other than END: the author writes those sequences as its own.
    pub others_switching: usize,
    /// The joint axes MIMe it records (`joint_mimes`), when there is exactly one.
    pub joint: Option<RecordedJoint>,
    /// How many joint MIMe primitives it records.
    pub joints_recorded: usize,
    /// Its pointers that update the recorded joint MIMe's weights, in the file's order.
    pub weight_pointers: Vec<Recorded>,
}

/// A joint axes MIMe the export recorded (`retroanim.hmd.joint_mimes`): its number of keys
/// (weights), the animation header word its weight pointers update, and its DIFF blocks.
#[derive(Debug, Clone)]
pub(super) struct RecordedJoint {
    /// The MIMe's number of keys (MIMEPR words).
    pub keys: usize,
    /// The update index section of its weight pointers (`None`: no animation writes them).
    pub section: Option<u64>,
    /// The DIFF blocks, in the primitive's order.
    pub diffs: Vec<JointDiff>,
}

/// How many joint MIMe primitives `scene` records, and the one joint axes MIMe when it
/// records exactly one (and no other joint MIMe) with at most 32 keys.
fn recorded_joints(scene: &Scene) -> (usize, Option<RecordedJoint>) {
    let list = extras::get(&scene.extras, "hmd")
        .and_then(|h| h.get("joint_mimes")?.as_array())
        .map_or(&[][..], |l| &l[..]);
    (list.len(), recorded_joint(list))
}

/// [`recorded_joints`]'s one joint axes MIMe of the recorded `list`.
fn recorded_joint(list: &[serde_json::Value]) -> Option<RecordedJoint> {
    let [j] = list else {
        return None;
    };
    (j.get("kind")?.as_str()? == "axes").then_some(())?;
    let keys = usize::try_from(j.get("keys")?.as_u64()?).ok()?;
    (keys <= 32).then_some(())?;
    Some(RecordedJoint {
        keys,
        section: j.get("weights_section").and_then(|s| s.as_u64()),
        diffs: serde_json::from_value(j.get("diffs")?.clone()).ok()?,
    })
}

impl Flow {
    /// The descriptors the driver can reach from `starts` under any stream ID, as a flag per
    /// descriptor and one more for "past the table" (which plays as END). The driver walks a
    /// start that is not a key frame from the descriptor after it.
    pub fn reachable(&self, starts: &[usize]) -> Vec<bool> {
        let d = &self.descriptors[..];
        let n = d.len();
        let mut seen = vec![false; n + 1];
        // A start that is not a key frame is kept too (its index is the sequence's start).
        let mut stack: Vec<usize> = starts.iter().flat_map(|&s| [s, s + 1]).collect();
        while let Some(i) = stack.pop() {
            let i = i.min(n);
            if std::mem::replace(&mut seen[i], true) {
                continue;
            }
            match d.get(i) {
                None => {}
                Some(&SequenceDescriptor::Jump {
                    sid_cnd, seq_idx, ..
                }) => {
                    stack.push(seq_idx as usize);
                    if sid_cnd != 0 {
                        stack.push(i + 1);
                    }
                }
                Some(&SequenceDescriptor::Control { code, p1, .. })
                    if code == CONTROL_END && p1 == 0 => {}
                Some(_) => stack.push(i + 1),
            }
        }
        seen
    }

    /// Whether the sequences of `p` can reach a stream-ID jump (a condition or a destination)
    /// or a control descriptor other than END: control flow the author's own sequences do not
    /// have.
    pub fn switches(&self, p: &SequencePointer) -> bool {
        let starts: Vec<usize> = std::iter::once(p.start as usize)
            .chain(p.extra.iter().map(|e| e.start.max(0) as usize))
            .collect();
        let seen = self.reachable(&starts);
        self.descriptors.iter().zip(&seen).any(|(x, &s)| {
            s && match *x {
                SequenceDescriptor::Jump {
                    sid_dst, sid_cnd, ..
                } => sid_dst != 0 || sid_cnd != 0,
                SequenceDescriptor::Control { code, .. } => code != CONTROL_END,
                SequenceDescriptor::KeyFrame { .. } => false,
            }
        })
    }
}

/// Most descriptors looked at for a pointer's first key frame.
const FIRST_KEY_STEPS: usize = 256;

/// The parts of a coordinate the key frames of `p` set ([`Recorded::parts`]).
fn parts_of(p: &SequencePointer, descriptors: &[SequenceDescriptor], types: &[u32]) -> Option<u8> {
    let mut at = p.start as usize;
    for _ in 0..FIRST_KEY_STEPS {
        match *descriptors.get(at)? {
            SequenceDescriptor::KeyFrame { type_idx, .. } => {
                return match InterpolationType::from_code(*types.get(type_idx as usize)?) {
                    InterpolationType::Coordinate {
                        scale,
                        rotation,
                        translation,
                        ..
                    } => Some(
                        u8::from(translation != 0)
                            | u8::from(rotation != 0) << 1
                            | u8::from(scale != 0) << 2,
                    ),
                    _ => None,
                }
            }
            SequenceDescriptor::Jump {
                sid_cnd, seq_idx, ..
            } if sid_cnd == 0 || sid_cnd == p.start_sid => at = seq_idx as usize,
            _ => at += 1,
        }
    }
    None
}

/// Where one node of the prepared scene is drawn.
#[derive(Debug, Clone)]
pub(super) struct Place {
    /// The coordinate (index) the node is drawn in: itself for a coordinate node, else its
    /// nearest coordinate ancestor (`None`: world space).
    pub coordinate: Option<usize>,
    /// The node's space in that coordinate's (column-major, scene units); `None`: identity.
    pub matrix: Option<Mat4>,
    /// The block its mesh is drawn in.
    pub block: usize,
}

/// The scene to author and its coordinates.
pub(super) struct Layout<'a> {
    /// The scene: its first `coordinates` nodes are the coordinates, in coordinate order,
    /// each a child of a coordinate or a root; the other nodes follow.
    pub scene: Cow<'a, Scene>,
    /// The number of coordinates.
    pub coordinates: usize,
    /// Per node of `scene`.
    pub places: Vec<Place>,
    /// The sequence table of the exported file (the scene's `retroanim.hmd.animations`; none
    /// without coordinate tags).
    pub table: Table,
}

/// The recorded sequence table of `scene`, with the pointers that update one of `count`
/// coordinates.
fn recorded_table(scene: &Scene, count: usize) -> Table {
    let Some(list) = extras::get(&scene.extras, "hmd")
        .and_then(|h| h.get("animations"))
        .and_then(|a| a.as_array())
    else {
        return Table::default();
    };
    let mut out = Vec::new();
    let mut weight_pointers = Vec::new();
    let (joints_recorded, joint) = recorded_joints(scene);
    let weights_section = joint.as_ref().and_then(|j| j.section);
    let (mut index, mut primitives, mut others_switching) = (0usize, 0usize, 0usize);
    for a in list {
        let Some(pointers) = a.get("pointers").and_then(|p| p.as_array()) else {
            continue;
        };
        primitives += usize::from(!pointers.is_empty());
        let flow = std::sync::Arc::new(Flow {
            descriptors: a
                .get("descriptors")
                .and_then(|d| serde_json::from_value(d.clone()).ok())
                .unwrap_or_default(),
            types: a
                .get("interpolation_types")
                .and_then(|t| serde_json::from_value(t.clone()).ok())
                .unwrap_or_default(),
            params: a
                .get("parameters")
                .and_then(|p| serde_json::from_value::<Vec<ParameterItem>>(p.clone()).ok())
                .unwrap_or_default()
                .into_iter()
                .filter_map(|item| match item {
                    ParameterItem::KeyFrame {
                        index,
                        type_code,
                        frame,
                    } => Some((index, (type_code, frame))),
                    _ => None,
                })
                .collect(),
        });
        // The header word that points at the coordinate section (4 where not recorded).
        let section = a.get("coordinate_section").map_or(Some(4), |s| s.as_u64());
        for p in pointers {
            index += 1;
            let Ok(pointer) = serde_json::from_value::<SequencePointer>(p.clone()) else {
                continue;
            };
            if Some(u64::from(pointer.update.section)) == section
                && pointer.update.coordinate().is_some_and(|c| c < count)
            {
                let parts = parts_of(&pointer, &flow.descriptors, &flow.types);
                out.push(Recorded {
                    pointer,
                    parts,
                    index: index - 1,
                    flow: flow.clone(),
                });
            } else if primitives == 1 && Some(u64::from(pointer.update.section)) == weights_section
            {
                weight_pointers.push(Recorded {
                    pointer,
                    parts: None,
                    index: index - 1,
                    flow: flow.clone(),
                });
            } else {
                others_switching += usize::from(flow.switches(&pointer));
            }
        }
    }
    Table {
        present: true,
        pointers: out,
        primitives,
        others_switching,
        joints_recorded,
        joint,
        weight_pointers,
    }
}

/// The layout of `scene` (module docs).
pub(super) fn plan(scene: &Scene) -> Layout<'_> {
    if let Some(l) = tagged(scene) {
        return l;
    }
    let n = scene.nodes.len();
    Layout {
        scene: Cow::Borrowed(scene),
        coordinates: n,
        places: (0..n)
            .map(|i| Place {
                coordinate: Some(i),
                matrix: None,
                block: i + 1,
            })
            .collect(),
        table: Table::default(),
    }
}

fn is_identity(m: &Mat4) -> bool {
    (0..16).all(|k| {
        let want = if k % 5 == 0 { 1.0 } else { 0.0 };
        (m[k] - want).abs() <= 1e-9
    })
}

/// The layout the coordinate tags give, or `None` when they do not give one.
fn tagged(scene: &Scene) -> Option<Layout<'static>> {
    let n = scene.nodes.len();
    let mut node_of: Vec<Option<usize>> = Vec::new();
    for (i, node) in scene.nodes.iter().enumerate() {
        let Some(k) = extras::get_u64(&node.extras, "hmd", "coordinate") else {
            continue;
        };
        let k = usize::try_from(k).ok().filter(|&k| k < n)?;
        if node_of.len() <= k {
            node_of.resize(k + 1, None);
        }
        if node_of[k].replace(i).is_some() {
            return None;
        }
    }
    let order: Vec<usize> = node_of.into_iter().collect::<Option<Vec<_>>>()?;
    let count = order.len();
    if count == 0 {
        return None;
    }
    let mut is_coord = vec![false; n];
    for &i in &order {
        is_coord[i] = true;
    }
    let parent = |i: usize| scene.nodes[i].parent.filter(|&p| p < n);
    // Every chain ends (no cycles: the author's fallback notes those).
    for i in 0..n {
        let (mut at, mut steps) = (i, 0);
        while let Some(p) = parent(at) {
            steps += 1;
            if steps > n {
                return None;
            }
            at = p;
        }
    }
    // Skin joints are coordinates.
    if scene
        .skins
        .iter()
        .flat_map(|s| &s.joints)
        .any(|&j| j < n && !is_coord[j])
    {
        return None;
    }
    // The nearest coordinate ancestor of each node, and the nodes between untransformed for a
    // coordinate.
    let up = |i: usize| -> (Option<usize>, Mat4) {
        let mut m = local_matrix(&scene.nodes[i].transform);
        let mut at = parent(i);
        while let Some(p) = at.filter(|&p| !is_coord[p]) {
            m = mat_mul(&local_matrix(&scene.nodes[p].transform), &m);
            at = parent(p);
        }
        (at, m)
    };
    for &i in &order {
        let mut at = parent(i);
        while let Some(p) = at.filter(|&p| !is_coord[p]) {
            if !is_identity(&local_matrix(&scene.nodes[p].transform)) {
                return None;
            }
            at = parent(p);
        }
    }
    // The permutation: coordinates in index order, then the other nodes in node order.
    let mut new_of = vec![0usize; n];
    let others: Vec<usize> = (0..n).filter(|&i| !is_coord[i]).collect();
    for (new, &old) in order.iter().chain(&others).enumerate() {
        new_of[old] = new;
    }
    let mut out = scene.clone();
    out.nodes = order
        .iter()
        .chain(&others)
        .map(|&old| scene.nodes[old].clone())
        .collect();
    for (new, &old) in order.iter().chain(&others).enumerate() {
        out.nodes[new].parent = if is_coord[old] {
            up(old).0.map(|p| new_of[p])
        } else {
            parent(old).map(|p| new_of[p])
        };
    }
    for a in &mut out.animations {
        for c in &mut a.channels {
            if c.node < n {
                c.node = new_of[c.node];
            }
        }
    }
    for s in &mut out.skins {
        for j in &mut s.joints {
            if *j < n {
                *j = new_of[*j];
            }
        }
    }
    let post = count + 1;
    let places = order
        .iter()
        .chain(&others)
        .map(|&old| {
            if is_coord[old] {
                let k = new_of[old];
                return Place {
                    coordinate: Some(k),
                    matrix: None,
                    block: k + 1,
                };
            }
            let (coord, m) = up(old);
            let coordinate = coord.map(|p| new_of[p]);
            let tagged = extras::get_u64(&scene.nodes[old].extras, "hmd", "block");
            let block = match (tagged, coordinate) {
                (Some(0), _) => 0,
                (Some(b), _) if b == post as u64 => post,
                (_, Some(c)) => c + 1,
                (_, None) => post,
            };
            Place {
                // PRE-/POST-PROCESS polygons are drawn in world space.
                coordinate: coordinate.filter(|_| block != 0 && block != post),
                matrix: None,
                block,
            }
            .with_matrix(if block == 0 || block == post {
                world(scene, old)
            } else {
                m
            })
        })
        .collect();
    Some(Layout {
        table: recorded_table(&out, count),
        scene: Cow::Owned(out),
        coordinates: count,
        places,
    })
}

impl Place {
    fn with_matrix(mut self, m: Mat4) -> Place {
        self.matrix = (!is_identity(&m)).then_some(m);
        self
    }
}

/// The rest world matrix of node `i` (the chains end: [`tagged`] checked).
fn world(scene: &Scene, i: usize) -> Mat4 {
    let n = scene.nodes.len();
    let mut m = local_matrix(&scene.nodes[i].transform);
    let mut at = scene.nodes[i].parent.filter(|&p| p < n);
    while let Some(p) = at {
        m = mat_mul(&local_matrix(&scene.nodes[p].transform), &m);
        at = scene.nodes[p].parent.filter(|&p| p < n);
    }
    m
}
