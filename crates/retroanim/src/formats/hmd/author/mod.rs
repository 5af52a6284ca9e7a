//! The neutral [`Scene`] → an HMD: authoring for the console, the way back from
//! the HMD → scene bridge ([`super::Hmd::to_scene`]; what `retroanim convert scene.glb out.hmd`
//! writes).
//!
//! # Coordinates
//! Every scene node becomes one GsCOORDUNIT, in node order, its `super` the node's parent (a
//! parent pointer that would form a cycle, or name a node that does not exist, is dropped and
//! counted in a note) — unless the scene's `retroanim` extras name the coordinates (a file
//! exported from an HMD): then only those nodes are coordinates, in the file's order, and the
//! others are drawn in a coordinate (the `layout` submodule). Block *k* + 1 draws in
//! coordinate *k*; block 0 (PRE-PROCESS) holds the image and animation primitives, the last
//! block (POST-PROCESS) the shared polygons. The node's rest
//! TRS is brought into the console's axes as the bridge's inverse (`(x, y, z) → (x, −y, −z)`
//! for [`Axes::YUp`], lengths divided by the scale, default 1/4096 m per unit): the rotation
//! is stored as `rot` angles (4096 = 360°) in the rotation order that reproduces it best; for a
//! node an animation moves, the matrix is the console's `RotMatrix` of those angles (so that a
//! key-frame animation, which rebuilds the matrix from angles, continues from the same matrix),
//! followed by `ScaleMatrix` when the node is scaled; a node no animation moves keeps its
//! rotation × scale rounded element by element (finer than an angle step). A child's translation must fit int16 (`GsGetLw` loads it into
//! 16-bit registers), a root's int32 (the whole range: PP_AIM and PP_WORLD coordinates sit at
//! i32::MAX, which an f32 scene holds as 2^31, written back as i32::MAX): one that does not
//! is an error naming the node.
//!
//! # Polygons and images
//! The meshes are written by the TMD author ([`crate::formats::tmd::author`], one TMD object
//! per node showing a mesh, in the mesh's own space), whose packets map one to one onto HMD
//! polygon packets: TMD TME / IIP / quad ↔ HMD TME / IIP / QUAD, TMD GRD ↔ COL, TMD LGT ↔ LMD,
//! TMD FCE ↔ driver BOT, ABE ↔ driver STP (the packet's GPU code keeps ABE too). That TMD
//! author also chooses the packets per material, fits vertices to int16 (errors name the
//! vertex), merges planar quads and places the textures in VRAM; its TIMs become one image
//! primitive (type 0x02000001 with CLUTs, 0x02000000 without) in PRE-PROCESS, pixels in one
//! image section and CLUTs in one CLUT section, which is what the bridge reads back
//! ([`super::image_tims`]).
//!
//! # Animation
//! One sequence per scene animation (animation *k* = sequence *k*: the pointer's START IDX for
//! *k* = 0, extra sequence *k* after that; stream ID *k* + 1), on one sequence pointer per node
//! any animation moves. Key frames sit at the frames (time × fps, rounded) where the node's
//! channels have keys: LINEAR → linear key frames (an interval is split where the console's
//! angle interpolation misses glTF's spherical one, and sampled keys the driver's own integer
//! interpolation gives back are dropped), CUBICSPLINE → Bezier (P1, P2 through the curve at
//! one and two thirds of the interval), STEP → a hold key and a TFRAME 0 key at the change.
//! The last key is repeated with TFRAME 1 before END, so that it is reached. Equal key frames
//! are stored once; angles are unwrapped from key to key and start again near 0 (through a
//! TFRAME 0 key) past seven turns. The details are in the source of the `anim` submodule.
//!
//! # Measured
//! Every animated corpus HMD exported to GLB and authored back (`tests/hmd_author.rs`,
//! `tests/roundtrip_structure.rs`): all 24 sequences play with world matrices within 1 unit
//! of the original's at every frame, 20 exactly (ROTS, AMMONITE, PP_AIM and PP_WORLD within
//! 1); over 1,000 updates, 296 (coordinate, frame) pairs of the 24 sequences are a unit off,
//! all in those four. The deep chains (SNAKE's 25 levels) are exact: the original's world
//! matrices carry the skew of `CompMatrix`'s rounding (the console composes in 12-bit fixed
//! point, truncating, level by level), which a glTF local TRS cannot hold, so the world the
//! glTF client composes in float drifts from the original with depth (the best candidate's
//! distance to it reaches 12/4096 at SNAKE 64's leaf at frame 0); angles and scales are
//! therefore judged by how the HMD → glTF bridge would write the candidate back (the file's
//! own integers give the file's local back), and translations, whose glTF world is the
//! console's to f32 precision (the bridge writes each local against the client's parent
//! world), by world distance, ties kept from key to key (the `anim::solve` submodule: with
//! the first neighbour of a tie instead, SNAKE 04_2 sequence 0 plays 2 units off at update 156,
//! 1,820 pairs off in 1,000 updates).
//!
//! # Cameras and lights
//! Written as FIX device primitives in the coordinate of their node (PRE-PROCESS, one parameter
//! section each): see the `devices` submodule for the mapping and what becomes a note.
//!
//! # Solving against the console
//! Keys are computed parents first: each key's local values are the integers (of the
//! neighbours of the exact local: angles ±1, scale ±1, translation ±1) whose world, composed
//! with the parent's world as the player builds it at that frame (the ancestors' keys
//! interpolated in the driver's integers, `GsGetLw`), lies nearest the glTF world composed in
//! float (translations whose worlds are the same integers: the one nearest the previous
//! key's). Frames between keys are the driver's interpolation, kept close by the split rule of
//! the `anim` submodule. A node no sequence moves keeps its rounded rest pose. Rest
//! translations of children are chosen likewise (±1 of the rounded one, against the console's
//! truncating composition of the parents' rest worlds): a file exported from an HMD carries
//! that truncation in its float locals, and rounding them again added it twice (skinned
//! meshes, which follow their joints' worlds, showed it as 2 to 12 units at rest).
//!
//! # Morph targets
//! Written as vertex MIMe in the block of their node, their weights in a MIMEPR section that
//! weights animations drive through TGT = 1 key frames: see the `mime` submodule (layout,
//! notes) and the `anim` submodule (keys).
//!
//! # Joint axes MIMe
//! A node that turns about one fixed axis and whose keys miss the file's matrices (made by a
//! joint axes MIMe, as Sony's SWITCH legs) is written as one: a MIMe primitive after the
//! animation in PRE-PROCESS (header: coordinates, MIMEPR, key count, MIMeID 0, DIFF), one
//! DIFF block per node, the reset primitive last in POST-PROCESS. See `anim::axes`.
//!
//! # Skins
//! A skinned mesh becomes shared polygons: its vertices in their joint's space, a
//! pre-calculation primitive in each joint's block, the polygons in POST-PROCESS. The console
//! moves a vertex with one coordinate (no blending): a vertex with two or more joints of
//! non-zero weight follows its heaviest joint, counted in a note. See the `skin` submodule.
//!
//! # Readings taken
//! - **Rotation order**: the HMD stores angles, glTF a quaternion. Of the six orders the type
//!   word can name, the one whose integer angles give back the node's rotation with the least
//!   error is taken (per node for the rest pose, per node and animation for key frames), so a
//!   file exported from an HMD gets its own angles back.
//! - **Empty normal sections**: a header pointer must point to a region of its own, so a block
//!   without lit polygons still gets a one-normal normal section.

#![allow(clippy::needless_range_loop)] // matrices and x, y, z are indexed as the formulas write them

mod anim;
mod devices;
mod geometry;
mod layout;
mod mime;
mod skin;

use crate::error::{Error, Result};
use crate::formats::gte;
use crate::limits::Limits;
use crate::report::Note;
use crate::scene::sample::{quat_matrix, rest_trs, Trs};
use crate::scene::Scene;
use crate::Format;

use super::types::*;
pub use crate::formats::tmd::scene::Axes;

/// How to author the HMD.
#[derive(Debug, Clone)]
pub struct HmdAuthorOptions {
    /// The scene's axes.
    pub axes: Axes,
    /// Metres per console unit (default 1/4096).
    pub scale: f32,
    /// Frames (console updates) per second that animation times are counted in (default 60).
    pub fps: f32,
    /// Bounds on what the animation may make.
    pub limits: Limits,
}

impl Default for HmdAuthorOptions {
    fn default() -> Self {
        HmdAuthorOptions {
            axes: Axes::YUp,
            scale: crate::formats::tmd::scene::DEFAULT_SCALE,
            fps: 60.0,
            limits: Limits::default(),
        }
    }
}

/// An HMD authored from a scene.
#[derive(Debug, Clone)]
pub struct HmdAuthored {
    /// The model (already written and read back, so its offsets are the file's).
    pub hmd: Hmd,
    /// What was left out or approximated (what and how many).
    pub notes: Vec<Note>,
}

pub(super) fn unencodable(what: impl Into<String>) -> Error {
    Error::Unencodable {
        format: Format::Hmd,
        what: what.into(),
    }
}

/// Scene axes and units ↔ console.
#[derive(Debug, Clone, Copy)]
pub(super) struct ToConsole {
    signs: [f64; 3],
    /// Console units per scene unit.
    k: f64,
}

impl ToConsole {
    fn new(opts: &HmdAuthorOptions) -> Result<ToConsole> {
        if !(opts.scale.is_finite() && opts.scale > 0.0) {
            return Err(Error::Option {
                option: "scale",
                what: format!("{}: must be a positive number", opts.scale),
            });
        }
        Ok(ToConsole {
            signs: match opts.axes {
                Axes::YUp => [1.0, -1.0, -1.0],
                Axes::Raw => [1.0; 3],
            },
            k: 1.0 / opts.scale as f64,
        })
    }

    /// A translation in console units (not rounded).
    pub(super) fn point(&self, p: [f64; 3]) -> [f64; 3] {
        [0, 1, 2].map(|i| p[i] * self.signs[i] * self.k)
    }

    /// A rotation matrix (rows) in console axes: `F·R·F`.
    pub(super) fn rotation(&self, q: [f64; 4]) -> [[f64; 3]; 3] {
        let r = quat_matrix(q);
        std::array::from_fn(|i| std::array::from_fn(|j| r[i][j] * self.signs[i] * self.signs[j]))
    }
}

/// A local transform in the console's terms: angles in an order, translation, scale.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct ConsolePose {
    pub order: u8,
    pub rot: [i16; 3],
    pub t: [f64; 3],
    /// 4096 = 1.0.
    pub s: [f64; 3],
}

impl ConsolePose {
    pub(super) fn scaled(&self) -> bool {
        self.s.iter().any(|&v| (v - 4096.0).abs() >= 0.5)
    }

    /// The local matrix the console builds from the pose.
    pub(super) fn matrix(&self) -> gte::Mat {
        let mut m = gte::Mat::IDENTITY;
        gte::rot_matrix_order(self.order, self.rot, &mut m);
        if self.scaled() {
            gte::scale_matrix(&mut m, self.s.map(|v| v.round() as i32));
        }
        m.t = self.t.map(|v| v.round() as i32);
        m
    }
}

/// The axes (0 x, 1 y, 2 z) of HMD rotation order `order`, outermost first: M = R_i·R_j·R_k.
pub(super) fn axes_of(order: u8) -> (usize, usize, usize) {
    match order {
        1 => (0, 2, 1),
        2 => (1, 0, 2),
        3 => (1, 2, 0),
        4 => (2, 0, 1),
        5 => (2, 1, 0),
        _ => (0, 1, 2),
    }
}

/// Angles (4096 = 360°, unrounded) of rotation `m` in HMD order `order` (0 XYZ, 1 XZY, 2 YXZ,
/// 3 YZX, 4 ZXY, 5 ZYX: M = R_i·R_j·R_k with libgte's axis matrices).
pub(super) fn euler(m: &[[f64; 3]; 3], order: u8) -> [f64; 3] {
    let (i, j, k) = axes_of(order);
    // +1 when (i, j, k) is a cyclic order of (x, y, z).
    let sign = if (j + 3 - i) % 3 == 1 { 1.0 } else { -1.0 };
    let b = (sign * m[i][k]).clamp(-1.0, 1.0).asin();
    let (a, c) = if b.cos().abs() > 1e-9 {
        (
            (-sign * m[j][k]).atan2(m[k][k]),
            (-sign * m[i][j]).atan2(m[i][i]),
        )
    } else {
        // Gimbal lock: put everything into the first angle.
        ((sign * m[k][j]).atan2(m[j][j]), 0.0)
    };
    let unit = 4096.0 / std::f64::consts::TAU;
    let mut out = [0.0; 3];
    out[i] = a * unit;
    out[j] = b * unit;
    out[k] = c * unit;
    out
}

/// Largest difference between the console's matrix of `rot` in `order` and `m` (×4096).
fn order_error(m: &[[f64; 3]; 3], order: u8, rot: [i16; 3]) -> f64 {
    let mut g = gte::Mat::IDENTITY;
    gte::rot_matrix_order(order, rot, &mut g);
    let mut worst = 0.0f64;
    for i in 0..3 {
        for j in 0..3 {
            worst = worst.max((g.m[i][j] as f64 - m[i][j] * 4096.0).abs());
        }
    }
    worst
}

/// Rounds angles to int16 after wrapping into −2048..2048.
pub(super) fn round_angles(a: [f64; 3]) -> [i16; 3] {
    a.map(|v| {
        let w = v.rem_euclid(4096.0);
        let w = if w >= 2048.0 { w - 4096.0 } else { w };
        w.round() as i16
    })
}

/// Orders whose total error is within this fraction of the best tie; ties go to XYZ (the
/// HMD default, `RotMatrix`). Near-identity rotations fit every order about equally well, and
/// the order then only moves the console's rounding of the cross terms (SNAKE's joints,
/// XYZ in the file, came back in ZXY before and drifted up the chain).
const ORDER_TIE: f64 = 0.1;

/// XYZ also wins when its matrices are on average within this many 4096ths of the rotations:
/// that is the console's own rounding, which an exported XYZ file's polar-decomposed
/// rotations carry (SNAKE 64, all XYZ, came back with XZY and ZXY joints at a 10 % tie).
const XYZ_ROUNDING: f64 = 1.0;

/// A sampled scale within this many 4096ths of 1.0 on every axis and key is the rounding of
/// the console's own rotation matrices (a `RotMatrix` column is up to a few units off 4096
/// long, and the exporter's polar decomposition reads that as scale), so the node is keyed
/// without scale. A child 1000 units along such an axis moves at most 1.1 units.
pub(super) const SCALE_ROUNDING: f64 = 4.5;

/// The best rotation order for rotations `ms` (total error over all of them; near-ties go to
/// XYZ, see [`ORDER_TIE`]).
pub(super) fn best_order(ms: &[[[f64; 3]; 3]]) -> u8 {
    let errs: Vec<f64> = (0u8..6)
        .map(|o| {
            ms.iter()
                .map(|m| order_error(m, o, round_angles(euler(m, o))))
                .sum()
        })
        .collect();
    let best = (0u8..6).fold(0u8, |b, o| {
        if errs[o as usize] < errs[b as usize] - 1e-9 {
            o
        } else {
            b
        }
    });
    if errs[0] <= errs[best as usize] * (1.0 + ORDER_TIE) + 1e-9
        || errs[0] <= XYZ_ROUNDING * ms.len() as f64
    {
        0
    } else {
        best
    }
}

/// A TRS as a console pose in `order`.
pub(super) fn pose(conv: &ToConsole, trs: &Trs, order: u8) -> ConsolePose {
    let r = conv.rotation(trs.rotation);
    ConsolePose {
        order,
        rot: round_angles(euler(&r, order)),
        t: conv.point(trs.translation),
        s: trs.scale.map(|v| v * 4096.0),
    }
}

/// Authors `scene` as an HMD (module docs).
pub fn author(scene: &Scene, opts: &HmdAuthorOptions) -> Result<HmdAuthored> {
    let conv = ToConsole::new(opts)?;
    let mut notes = crate::formats::tmd::author::Counts::default();
    if scene.nodes.is_empty() {
        return Err(Error::Unencodable {
            format: Format::Hmd,
            what: "the scene has no nodes: an HMD needs at least one coordinate".into(),
        });
    }
    let layout = layout::plan(scene);
    let scene: &Scene = &layout.scene;
    let n = scene.nodes.len();
    // The first `count` nodes are the coordinates (`layout`).
    let count = layout.coordinates;
    // Parents: drop those that do not exist or form a cycle.
    let mut parents: Vec<Option<usize>> = scene.nodes.iter().map(|x| x.parent).collect();
    for i in 0..n {
        let mut seen = 0;
        let mut at = parents[i];
        let mut bad = false;
        while let Some(p) = at {
            if p >= n || p == i || seen > n {
                bad = true;
                break;
            }
            seen += 1;
            at = parents[p];
        }
        if bad {
            parents[i] = None;
            notes.add("parent-dropped", 1, || {
                "node parent(s) missing or in a cycle: written as roots".into()
            });
        }
    }
    // Nodes a TRS channel moves: their matrix must be the driver's RotMatrix of their angles.
    let moved: std::collections::BTreeSet<usize> = scene
        .animations
        .iter()
        .flat_map(|a| &a.channels)
        .filter(|c| !matches!(c.track, crate::scene::Track::Weights(_)))
        .map(|c| c.node)
        .collect();
    notes.add(
        "animation-not-coordinate",
        moved.iter().filter(|&&i| (count..n).contains(&i)).count(),
        || "node(s) that are not coordinates (meshes, cameras, lights drawn in their coordinate ancestor's space): their own motion left out".into(),
    );
    let parents: Vec<Option<usize>> = parents[..count].to_vec();
    let mut coords = Vec::with_capacity(count);
    for (i, node) in scene.nodes[..count].iter().enumerate() {
        let trs = rest_trs(&node.transform);
        let r = conv.rotation(trs.rotation);
        let p = pose(&conv, &trs, best_order(&[r]));
        check_translation(&p, parents[i].is_none(), || {
            format!("node {i} ({:?})", node.name)
        })?;
        let mut m = p.matrix();
        if !moved.contains(&i) {
            m.m = still_matrix(&r, trs.scale);
        }
        coords.push((m, p.rot, parents[i]));
    }
    settle_translations(scene, &conv, &mut coords);
    let geo = geometry::build(scene, opts, &conv, &layout.places, &mut notes)?;
    let morphs = geo.morphs();
    mime::unwritten(scene, &geo.written(), &mut notes);
    let rest: Vec<gte::Mat> = coords.iter().map(|c| c.0).collect();
    let anim = anim::build(
        scene,
        &conv,
        opts,
        (&parents, &rest),
        &morphs,
        &layout.table,
        &mut notes,
    )?;
    let devices = devices::build(scene, &conv, &layout.places, &mut notes);
    let hmd = geometry::assemble(&coords, geo, anim, devices, &layout.places)?;
    // Write and read back, so the model's offsets are the file's and the reader agrees.
    let bytes = super::write(&hmd)?;
    let hmd = super::read(&bytes)?;
    let mut out = notes.finish();
    out.sort_by(|a, b| a.code.cmp(b.code));
    Ok(HmdAuthored { hmd, notes: out })
}

/// The matrix of a node no animation moves: rotation × scale rounded element by element
/// (4.12 fixed point), nearer the scene than `RotMatrix` of rounded angles (an angle step is
/// 2π/4096, a matrix step 1/4096; skinned vertices far from their joint show the difference).
fn still_matrix(r: &[[f64; 3]; 3], s: [f64; 3]) -> [[i16; 3]; 3] {
    std::array::from_fn(|i| {
        std::array::from_fn(|j| (r[i][j] * s[j] * 4096.0).round().clamp(-32768.0, 32767.0) as i16)
    })
}

/// Chooses each child's rest translation among the neighbours (±1 per axis) of the rounded
/// one so that the rest world the console composes (`GsGetLw`: `CompMatrix`, truncating) lies
/// nearest the scene's float world. A file exported from an HMD carries the console's
/// truncation in its float locals; rounding them again would add it a second time. (Key
/// frames are solved likewise, frame by frame, in the `anim` submodule.)
fn settle_translations(
    scene: &Scene,
    conv: &ToConsole,
    coords: &mut [(gte::Mat, [i16; 3], Option<usize>)],
) {
    let n = coords.len();
    // Parents first (the parents are acyclic: `author` dropped cycles).
    let depth = |mut i: usize| {
        let mut d = 0;
        while let Some(p) = coords[i].2.filter(|_| d <= n) {
            i = p;
            d += 1;
        }
        d
    };
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|&i| depth(i));
    let mut float: Vec<Option<crate::scene::sample::Mat4>> = vec![None; n];
    let mut console: Vec<gte::Mat> = vec![gte::Mat::IDENTITY; n];
    for i in order {
        let local = crate::scene::sample::local_matrix(&scene.nodes[i].transform);
        let parent = coords[i].2;
        let wf = match parent.and_then(|p| float[p]) {
            Some(pw) => crate::scene::sample::mat_mul(&pw, &local),
            None => local,
        };
        float[i] = Some(wf);
        let Some(p) = parent else {
            console[i] = coords[i].0;
            continue;
        };
        {
            let target = conv.point([wf[12], wf[13], wf[14]]);
            let base = coords[i].0;
            let err = |l: &gte::Mat| {
                let w = gte::compose(&console[p], l);
                (0..3)
                    .map(|k| (w.t[k] as f64 - target[k]).abs())
                    .fold(0.0, f64::max)
            };
            let mut best = (err(&base), base);
            for d in 0..27i32 {
                let step = [d % 3, d / 3 % 3, d / 9].map(|x: i32| x - 1);
                let mut l = base;
                l.t = std::array::from_fn(|k| l.t[k] + step[k]);
                if l.t.iter().any(|v| !(-32768..=32767).contains(v)) {
                    continue;
                }
                let e = err(&l);
                if e < best.0 - 1e-9 {
                    best = (e, l);
                }
            }
            coords[i].0 = best.1;
        }
        console[i] = gte::compose(&console[p], &coords[i].0);
    }
}

/// Refuses a translation the coordinate cannot hold: a root's is int32, a child's int16
/// (`GsGetLw` loads it into 16-bit registers); and a scale outside the 4.12 fixed point.
/// A root's bound admits the whole int32 range: a scene holds translations in f32, where
/// i32::MAX (PP_AIM's and PP_WORLD's "far away" coordinates) is 2^31 (the nearest f32), so
/// 2^31 is admitted and written as i32::MAX (`as i32` saturates).
pub(super) fn check_translation(
    p: &ConsolePose,
    root: bool,
    what: impl FnOnce() -> String,
) -> Result<()> {
    let (lo, hi, kind) = if root {
        (
            i32::MIN as f64,
            2_147_483_648.0,
            "int32 (a root coordinate)",
        )
    } else {
        (-32768.0, 32767.0, "int16 (−32768..32767)")
    };
    if p.t.iter().any(|&v| !(lo..=hi).contains(&v.round())) {
        return Err(unencodable(format!(
            "{}: translation ({:.0}, {:.0}, {:.0}) console units does not fit {kind}; choose a larger --scale (metres per unit)",
            what(),
            p.t[0],
            p.t[1],
            p.t[2]
        )));
    }
    if p.s
        .iter()
        .any(|&v| !(-32768.0..=32767.0).contains(&v.round()))
    {
        return Err(unencodable(format!(
            "{}: scale ({:.3}, {:.3}, {:.3}) does not fit the console's 4.12 fixed point (−8..8)",
            what(),
            p.s[0] / 4096.0,
            p.s[1] / 4096.0,
            p.s[2] / 4096.0
        )));
    }
    Ok(())
}
