//! Scene animations → one key-frame sequence each (category 3, type 0x03000000 update driver).
//!
//! - **Pointers**: one sequence pointer per node that any animation moves (TRS or visibility
//!   channels), updating that node's GsCOORDUNIT (header word 4 = the coordinate section,
//!   offset 1 + 20·k). Animation 0 is the pointer's START IDX / START SID, animation *k* its
//!   extra sequence *k*; stream IDs go in order, animation *k* has stream ID *k* + 1 (1..=127:
//!   0 means "any" in jumps and END, so it is not used). A node an animation does not move
//!   holds its rest pose in that sequence. With the export's recorded pointer table
//!   (`docs/extras.md`), the pointers follow it (the `table` submodule): a coordinate whose
//!   recorded pointers set different parts (rotation, translation, scale) gets one pointer per
//!   part set, each keying only its parts; each has the sequences its recorded pointer has
//!   (and one for each it lacks where its START sequence's keys would not play that the
//!   same), with its stream IDs, INTR IDX, AFRAME and (1×) SPEED, and loops with its own
//!   recorded loop; a coordinate the table gives no pointer gets none while its rest stays on the
//!   file's world. The sequences are written by the `write` submodule.
//! - **Keys**: a key frame at every frame (time × fps, rounded) where one of the node's channels
//!   has a key, at frame 0, and where the interval to the next would pass TFRAME's 255 frames.
//!   Each key holds the node's local TRS there (sampled as a glTF client does,
//!   [`crate::scene::sample::local_at`]) as translation (int32), rotation angles and, when the
//!   node is scaled anywhere, scale (4096 = 1.0). Key *k* shows at the sum of the TFRAMEs
//!   before it (the player's frame 0 is the first update); after the last key one more key
//!   with the same values and TFRAME 1, then END, so that the last key is reached (END stops
//!   the pointer when the interval to it is over, before that key would show). A node whose
//!   sequence the export found looping (`retroanim.hmd.coordinate_loops` of the animation's
//!   extras, `docs/extras.md`: start frame *j*, period *p*) gets keys up to *j* + *p* only, a
//!   copy of the key at *j* with TFRAME 0 after it, and at the end a jump to that copy instead
//!   of END: the sequence loops as the file did.
//! - **Interpolation**: LINEAR → linear (TI/RI/SI 1). The console interpolates rotation angles,
//!   glTF rotations spherically: a linear interval whose middle frame is off by more than half
//!   a unit of translation or 2/4096 of the matrix is split at that frame, recursively (so a
//!   file sampled every frame gets one key per frame, and a sparse one only the keys it
//!   needs). CUBICSPLINE → Bezier (TI/RI/SI 2): P0 is the key's value, P1 and P2 the control
//!   points of the cubic through the curve's values at one and two thirds of the interval
//!   (exact for a Hermite curve in translation and scale). STEP → the key, then at the next
//!   key's frame a key holding the old value followed by a TFRAME 0 key with the new one (the
//!   driver switches past a TFRAME 0 interval at once, so the new value shows at that frame).
//! - **Solving**: after unwrapping, each key's values are solved against the console's
//!   parent world at its frame (the `solve` submodule, which also says how candidates are
//!   judged; a STEP change's old value keeps its
//!   sampled values), parents before children; then the keys the driver gives back are dropped.
//! - **Rotation order**: per node and animation, the order whose integer angles reproduce the
//!   key rotations best (near-ties go to XYZ); a scale within 4.5/4096 of 1.0 on every key is
//!   read as the rounding of the console's rotation matrices and not keyed, unless the keys
//!   then miss the file's locals (worst judge error over 0.5) and scale keys do 0.1 better;
//!   angles are unwrapped from key to key (the equivalent Euler solution nearest the previous
//!   key), so linear angles take the short way.
//! - **Joint axes MIMe**: a node whose keys still miss the file (over 1/4096) and which turns
//!   about one fixed axis relative to its rest matrix is written as a joint axes MIMe key
//!   instead, when that comes back closer (the `axes` submodule); it then has no coordinate
//!   pointer.
//! - **Morph weights**: one more pointer per weight of each node with a vertex MIMe, on its
//!   MIMEPR section (header words 5..), with TGT = 1 linear keys, then one per joint axes
//!   MIMe node on the joint MIMe's MIMEPR section: the `weights` submodule.
//!
//! Bezier coefficients are 16-bit in the driver: translations whose control polygon spans
//! more than about ±10 000 units can overflow there (not checked).

#![allow(clippy::needless_range_loop)] // poses are indexed as x, y, z of each part

use crate::error::{Error, Result};
use crate::formats::gte;
use crate::formats::tmd::author::Counts;
use crate::scene::sample::{local_at, Sampler, Trs};
use crate::scene::{Animation, Interpolation, Scene, Track};

use super::super::cat3_anim::{ParameterItem, SequenceDescriptor, UpdateIndex};
use super::super::play::console_lerp;
use super::geometry::AnimParts;
use super::{
    best_order, check_translation, euler, pose, unencodable, ConsolePose, HmdAuthorOptions,
    ToConsole,
};
use reduce::{rewrap, simplify, split};

mod axes;
mod joint;
mod kept;
mod reduce;
mod solve;
mod table;
mod weights;
mod write;
use solve::Ctx;
use write::{end_sequence, sequences_of, Out};

/// Channel method codes of the type word.
const LINEAR: u32 = 1;
const BEZIER: u32 = 2;

/// One key: its frame, whether it is reached at once (TFRAME 0), and the pose.
#[derive(Debug, Clone, Copy)]
struct Key {
    frame: u32,
    instant: bool,
    pose: [f64; 9],
}

/// Translation, angles (unrounded, in `order`), scale ×4096 of a TRS.
fn values(conv: &ToConsole, trs: &Trs, order: u8) -> [f64; 9] {
    let p = pose(conv, trs, order);
    let e = euler(&conv.rotation(trs.rotation), order);
    [
        p.t[0], p.t[1], p.t[2], e[0], e[1], e[2], p.s[0], p.s[1], p.s[2],
    ]
}

/// Moves the angles of `v` to the Euler solution nearest `prev` (both solutions, unwrapped).
fn unwrap(v: &mut [f64; 9], prev: &[f64; 9], order: u8) {
    let (i, j, k) = super::axes_of(order);
    let near = |x: f64, p: f64| x + ((p - x) / 4096.0).round() * 4096.0;
    let a = [v[3], v[4], v[5]];
    let mut b = a;
    b[i] += 2048.0;
    b[j] = 2048.0 - b[j];
    b[k] += 2048.0;
    let fit = |s: [f64; 3]| -> ([f64; 3], f64) {
        let s = [0, 1, 2].map(|q| near(s[q], prev[3 + q]));
        let d = (0..3).map(|q| (s[q] - prev[3 + q]).abs()).sum();
        (s, d)
    };
    let (sa, da) = fit(a);
    let (sb, db) = fit(b);
    let s = if db + 1e-6 < da { sb } else { sa };
    v[3..6].copy_from_slice(&s);
}

/// Console-linear interpolation of two keys' rounded values at fraction `s` (as floats).
fn lerp(a: &[f64; 9], b: &[f64; 9], s: f64) -> [f64; 9] {
    std::array::from_fn(|q| a[q].round() + (b[q].round() - a[q].round()) * s)
}

/// Whether `got` and `want` give the same console pose within the tolerances.
fn close(got: &[f64; 9], want: &[f64; 9], order: u8, scaled: bool) -> bool {
    let p = |v: &[f64; 9]| ConsolePose {
        order,
        rot: [v[3], v[4], v[5]].map(|x| x.round().clamp(-32768.0, 32767.0) as i16),
        t: [v[0], v[1], v[2]],
        s: if scaled {
            [v[6], v[7], v[8]]
        } else {
            [4096.0; 3]
        },
    };
    let (g, w) = (p(got).matrix(), p(want).matrix());
    (0..3).all(|i| (got[i] - want[i]).abs() <= 0.5)
        && (0..3).all(|i| (0..3).all(|j| (g.m[i][j] as i32 - w.m[i][j] as i32).abs() <= 2))
}

pub(super) struct NodeTrack {
    scaled: bool,
    code: u32,
    keys: Vec<Key>,
    /// Bezier control points P1, P2 of the interval leaving each key.
    controls: Vec<([f64; 9], [f64; 9])>,
    /// The worst judge error of the keys (4096ths).
    worst: f64,
    /// The rotation written as a joint axes MIMe instead (no keys then).
    axes: Option<axes::AxesMime>,
    /// The frame a looping sequence jumps back to after its last key.
    loop_from: Option<u32>,
}

/// The keys of node `node` in animation `a` (`rest` when `a` does not move the node), the
/// animation number `k` of `world`, which moves the node's ancestors. `looping`: the node's
/// sequence repeats from frame `j` with period `p` (the export's `coordinate_loops`): keys up
/// to frame `j + p` only, one at `j`, the value at `j + p` the one at `j`.
fn node_track(
    ctx: &Ctx,
    (a, k, world): (&Animation, usize, &Animation),
    node: usize,
    max_keys: u64,
    looping: Option<(u32, u32)>,
) -> Result<NodeTrack> {
    let (conv, fps) = (ctx.conv, ctx.fps);
    let chans: Vec<_> = ctx
        .channels(a, node)
        .filter(|c| !matches!(c.track, Track::Weights(_)))
        .collect();
    let method = |pick: &dyn Fn(&Track) -> bool| {
        chans
            .iter()
            .filter(|c| pick(&c.track))
            .map(|c| c.interpolation)
            .fold(None, |m, i| match (m, i) {
                (_, Interpolation::Cubicspline) | (Some(Interpolation::Cubicspline), _) => {
                    Some(Interpolation::Cubicspline)
                }
                (Some(Interpolation::Linear), _) | (_, Interpolation::Linear) => {
                    Some(Interpolation::Linear)
                }
                _ => Some(Interpolation::Step),
            })
    };
    let code_of = |m: Option<Interpolation>| {
        if m == Some(Interpolation::Cubicspline) {
            BEZIER
        } else {
            LINEAR
        }
    };
    let tm = method(&|t| matches!(t, Track::Translation(_)));
    let rm = method(&|t| matches!(t, Track::Rotation(_)));
    let sm = method(&|t| matches!(t, Track::Scale(_) | Track::Visibility(_)));
    let has_step = chans
        .iter()
        .any(|c| c.interpolation == Interpolation::Step || matches!(c.track, Track::Visibility(_)));
    let bezier = [tm, rm, sm].contains(&Some(Interpolation::Cubicspline));
    // Key frames.
    let mut frames: Vec<u32> = vec![0];
    for c in &chans {
        for &t in &c.times {
            let f = (t as f64 * fps).round();
            if !(0.0..=u32::MAX as f64 / 2.0).contains(&f) {
                return Err(unencodable(format!(
                    "animation {:?}, node {node}: key time {t} s is outside 0..2^31 frames",
                    a.name
                )));
            }
            frames.push(f as u32);
        }
    }
    // The last frame a channel keys: a loop closing after it samples its start instead.
    let keyed = frames.iter().copied().max().unwrap_or(0);
    if let Some((j, p)) = looping {
        frames.retain(|&f| f <= j + p);
        frames.extend([j, j + p]);
    }
    frames.sort_unstable();
    frames.dedup();
    let last = *frames.last().unwrap_or(&0);
    if u64::from(last) > max_keys {
        return Err(Error::LimitExceeded {
            offset: None,
            what: format!("animation {:?} frames", a.name),
            requested: u64::from(last),
            limit: max_keys,
        });
    }
    // Long intervals: TFRAME holds at most 255 frames.
    let mut all = Vec::with_capacity(frames.len());
    for w in frames.windows(2) {
        let mut f = w[0];
        all.push(f);
        while w[1] - f > 255 {
            f += 255;
            all.push(f);
        }
    }
    all.push(last);
    all.dedup();
    let sample = |f: f64| {
        let f = match looping {
            Some((j, p)) if f > keyed as f64 && f >= (j + p) as f64 => f - p as f64,
            _ => f,
        };
        ctx.local(a, node, (f / fps) as f32)
    };
    let rots: Vec<[[f64; 3]; 3]> = all
        .iter()
        .map(|&f| conv.rotation(sample(f as f64).rotation))
        .collect();
    let order = best_order(&rots);
    let raw = |f: f64| values(conv, &sample(f), order);
    let mut keys: Vec<Key> = Vec::with_capacity(all.len() * 2);
    for &f in &all {
        let right = raw(f as f64);
        if has_step && f > 0 {
            // The value just before the frame: a STEP channel's old value.
            let left = raw(f as f64 - 1e-3);
            let differs = (0..9).any(|q| (left[q] - right[q]).abs() > 0.25);
            if differs {
                keys.push(Key {
                    frame: f,
                    instant: false,
                    pose: left,
                });
                keys.push(Key {
                    frame: f,
                    instant: true,
                    pose: right,
                });
                continue;
            }
        }
        keys.push(Key {
            frame: f,
            instant: false,
            pose: right,
        });
    }
    let sampled = keys;
    let mut scaled = sampled.iter().any(|k| {
        k.pose[6..]
            .iter()
            .any(|&v| (v - 4096.0).abs() >= super::SCALE_ROUNDING)
    });
    // Split, unwrap and solve the keys with or without scale; the worst judge error.
    let run = |scaled: bool| -> (Vec<Key>, f64) {
        let mut keys = sampled.clone();
        // Split linear intervals the console's angle interpolation would miss.
        if !bezier {
            let mut out: Vec<Key> = Vec::with_capacity(keys.len());
            let mut budget = max_keys;
            for k in keys {
                if let Some(prev) = out.last().copied() {
                    if !k.instant {
                        split(&prev, &k, &raw, order, scaled, &mut out, &mut budget, 0);
                    }
                }
                out.push(k);
            }
            keys = out;
        }
        // Unwrap angles from key to key.
        for i in 1..keys.len() {
            let prev = keys[i - 1].pose;
            unwrap(&mut keys[i].pose, &prev, order);
        }
        // Each key against the console's parent world (a STEP change's old value, shown only
        // on the way to its frame, keeps its sampled values).
        let (mut worst, mut prev) = (0.0f64, None);
        for i in 0..keys.len() {
            let left = keys
                .get(i + 1)
                .is_some_and(|n| n.instant && n.frame == keys[i].frame);
            if !left {
                let f = keys[i].frame;
                let e = ctx.solve(world, k, node, order, scaled, f, &mut keys[i].pose, prev);
                worst = worst.max(e);
                prev = Some([0, 1, 2].map(|q| keys[i].pose[q]));
            }
        }
        (keys, worst)
    };
    let (mut keys, mut worst) = run(scaled);
    // Scales within `SCALE_ROUNDING` of 1 are not keyed, unless the keys then miss the
    // file: a console file whose keys scale by a unit or two (PP_AIM's 4095) needs them to
    // come back exactly.
    if !scaled
        && worst > RESCALE
        && sampled
            .iter()
            .any(|k| k.pose[6..].iter().any(|&v| (v - 4096.0).abs() >= 0.5))
    {
        let (with_scale, worst_scaled) = run(true);
        if worst_scaled < worst - RESCALE_GAIN {
            keys = with_scale;
            scaled = true;
            worst = worst_scaled;
        }
    }
    if !bezier {
        keys = simplify(&keys, scaled, looping.map(|l| l.0));
    }
    keys = rewrap(keys);
    let mut controls = Vec::with_capacity(keys.len());
    for i in 0..keys.len() {
        let k = keys[i];
        let p0 = k.pose;
        let Some(next) = keys
            .get(i + 1)
            .filter(|n| bezier && !n.instant && n.frame > k.frame)
        else {
            controls.push((p0, p0));
            continue;
        };
        let p3 = next.pose;
        let span = (next.frame - k.frame) as f64;
        let mut s1 = raw(k.frame as f64 + span / 3.0);
        let mut s2 = raw(k.frame as f64 + 2.0 * span / 3.0);
        unwrap(&mut s1, &p0, order);
        unwrap(&mut s2, &s1, order);
        let mut p1 = [0.0; 9];
        let mut p2 = [0.0; 9];
        for q in 0..9 {
            let a = 27.0 * s1[q] - 8.0 * p0[q] - p3[q];
            let b = 27.0 * s2[q] - p0[q] - 8.0 * p3[q];
            p1[q] = (2.0 * a - b) / 18.0;
            p2[q] = (2.0 * b - a) / 18.0;
        }
        controls.push((p1, p2));
    }
    let t = code_of(tm);
    let r = code_of(rm);
    let s = if scaled { code_of(sm) } else { 0 };
    let code = 0x0300_0000 | (order as u32) << 12 | s << 8 | r << 4 | t;
    for k in &keys {
        let p = ConsolePose {
            order,
            rot: [0; 3],
            t: [k.pose[0], k.pose[1], k.pose[2]],
            s: [k.pose[6], k.pose[7], k.pose[8]],
        };
        check_translation(&p, ctx.parents[node].is_none(), || {
            format!("animation {:?}, node {node}, frame {}", a.name, k.frame)
        })?;
        if k.pose[3..6]
            .iter()
            .any(|v| !(-32768.0..=32767.0).contains(&v.round()))
        {
            return Err(unencodable(format!(
                "animation {:?}, node {node}, frame {}: the rotation has turned more than 8 times; its angles do not fit int16",
                a.name, k.frame
            )));
        }
    }
    Ok(NodeTrack {
        scaled,
        code,
        keys,
        controls,
        worst,
        axes: None,
        loop_from: looping.map(|l| l.0),
    })
}

/// The judge's error (largest element, 4096ths) above which a track whose scales were all
/// within [`super::SCALE_ROUNDING`] of 1 is solved again with scale keys.
const RESCALE: f64 = 0.5;

/// How much lower (4096ths) the worst error with scale keys must be for them to be written:
/// a file without scale keys comes back the same either way (TRI: 10⁻⁹ apart), PP_AIM's
/// scaled gun 0.2–0.3 better.
const RESCALE_GAIN: f64 = 0.1;

/// The animation primitive for `scene`'s animations, or `None` when none moves a node.
/// `parents` are the coordinates' parents as written, `rest` their matrices.
pub(super) fn build(
    scene: &Scene,
    conv: &ToConsole,
    opts: &HmdAuthorOptions,
    (parents, rest): (&[Option<usize>], &[gte::Mat]),
    morphs: &[(usize, usize, Vec<i32>)],
    table: &super::layout::Table,
    notes: &mut Counts,
) -> Result<Option<AnimParts>> {
    let recorded = &table.pointers[..];
    let n = scene.nodes.len();
    // Only coordinates (the first `parents.len()` nodes) have sequences.
    // A channel that holds its node's rest (Blender keys every bone of an animated armature)
    // moves nothing: no pointer for it.
    let rests: Vec<_> = scene
        .nodes
        .iter()
        .map(|x| crate::scene::sample::rest_trs(&x.transform))
        .collect();
    let moving = |a: &Animation, c: &crate::scene::Channel| {
        c.node < parents.len().min(n)
            && !matches!(c.track, Track::Weights(_))
            && !a.channels.is_empty()
            && !rests.get(c.node).is_some_and(|r| c.is_still(r))
    };
    let morphed = |c: &crate::scene::Channel| {
        matches!(c.track, Track::Weights(_)) && morphs.iter().any(|m| m.0 == c.node)
    };
    let anims: Vec<&Animation> = scene
        .animations
        .iter()
        .filter(|a| a.channels.iter().any(|c| moving(a, c) || morphed(c)))
        .collect();
    let weights: usize = scene
        .animations
        .iter()
        .map(|a| {
            a.channels
                .iter()
                .filter(|c| matches!(c.track, Track::Weights(_)) && !morphed(c))
                .count()
        })
        .sum();
    notes.add("weights-animation-dropped", weights, || {
        "morph-weight channel(s) of a node without a written vertex MIMe left out".into()
    });
    if anims.is_empty() {
        return Ok(None);
    }
    weights::note_rewritten(notes, table.others_switching);
    notes.add(
        "animation-primitives-merged",
        if table.primitives > 1 { table.primitives } else { 0 },
        || "recorded animation primitives written as one: every sequence pointer in one primitive, in the recorded order (each plays as it did; a program that finds a primitive by its place sees one)".into(),
    );
    if anims.len() > 127 {
        return Err(unencodable(format!(
            "{} animations: stream IDs 1..=127 number at most 127 sequences",
            anims.len()
        )));
    }
    let fps = if opts.fps.is_finite() && opts.fps > 0.0 {
        opts.fps as f64
    } else {
        60.0
    };
    let max_keys = opts.limits.max_items;
    let moved = anims
        .iter()
        .flat_map(|a| a.channels.iter().filter(|c| moving(a, c)).map(|c| c.node));
    let (nodes, pointer_nodes) = table::pointer_nodes(recorded, moved, parents.len().min(n));
    let sequence_of = table::sequence_indices(&anims);
    let mut types: Vec<u32> = Vec::new();
    let mut descriptors: Vec<SequenceDescriptor> = Vec::new();
    let mut params: Vec<ParameterItem> = Vec::new();
    let mut param_words = 0usize;
    let mut stored: std::collections::HashMap<(u32, Vec<u32>), u16> =
        std::collections::HashMap::new();
    let mut pointers = Vec::with_capacity(nodes.len());
    let rest_anim = Animation::default();
    // Tracks, parents before children: each key is solved against its parent's console world.
    let mut ctx = Ctx {
        scene,
        conv,
        fps,
        parents,
        rest,
        tracks: (0..n).map(|_| Vec::new()).collect(),
        samplers: anims.iter().map(|a| Sampler::new(scene, Some(a))).collect(),
        memo: Default::default(),
    };
    let depth = crate::scene::hierarchy::depths(parents);
    let mut by_depth = nodes.clone();
    by_depth.sort_by_key(|&i| depth.get(i).copied().unwrap_or(n));
    // Each animation's loops (`docs/extras.md`): coordinate → (start frame, period), by node.
    let loops: Vec<std::collections::BTreeMap<usize, (u32, u32)>> =
        anims.iter().map(|a| table::kept_loops(scene, a)).collect();
    // Each animation's loops of the recorded pointers, by pointer index.
    let pointer_loops: Vec<_> = anims.iter().map(|a| table::kept_pointer_loops(a)).collect();
    // The recorded joint axes MIMe, written back where the scene still turns its nodes so
    // (`joint`); when one of its nodes then misses the file, everything is solved again
    // without it.
    let mut joint = table
        .joint
        .as_ref()
        .and_then(|j| joint::Joint::usable(j, parents.len().min(n), recorded));
    loop {
        let mut missed = false;
        let mut taken = 0usize;
        for &node in &by_depth {
            // Per animation: what moves the node (its rest when the animation does not), and
            // the animation, which moves its ancestors.
            let sources: Vec<(&Animation, &Animation)> = anims
                .iter()
                .map(|a| {
                    let moves = ctx.channels(a, node).any(|c| moving(a, c));
                    (if moves { *a } else { &rest_anim }, *a)
                })
                .collect();
            let mut tracks = Vec::with_capacity(anims.len());
            for (k, &(own, a)) in sources.iter().enumerate() {
                let looping = loops[k].get(&node).copied();
                tracks.push(node_track(&ctx, (own, k, a), node, max_keys, looping)?);
            }
            if let Some(j) = joint.as_mut() {
                match j.tracks(&ctx, &sources, node, &tracks) {
                    Some(Ok(turned)) => tracks = turned,
                    Some(Err(())) => {
                        missed = true;
                        break;
                    }
                    None => {}
                }
            } else if taken < super::mime::MAX_KEYS {
                // Keys that miss the file: a rotation about one axis may be a joint axes
                // MIMe's.
                if let Some(fits) = axes::choose(&ctx, &sources, node, &tracks) {
                    tracks = fits;
                    taken += 1;
                }
            }
            ctx.tracks[node] = tracks.into_iter().map(Some).collect();
        }
        if !missed {
            break;
        }
        joint = None;
        ctx.tracks = (0..n).map(|_| Vec::new()).collect();
        ctx.memo = Default::default();
    }
    // Without the recorded joint MIMe, its weight pointers are the author's own.
    if joint.is_none() {
        let lost = table.weight_pointers.iter();
        weights::note_rewritten(notes, lost.filter(|r| r.flow.switches(&r.pointer)).count());
    }
    notes.add(
        "joint-mime-rewritten",
        table.joints_recorded - usize::from(joint.is_some()),
        || "recorded joint MIMe primitive(s) not written back as the file had them (more than one, a roll-pitch-yaw one, a DIFF block with several keys or a translation, or a scene whose rotations the recorded keys no longer give): their coordinates are keyed, or turned by the author's own joint axes MIMe".into(),
    );
    // Nodes turned by a joint axes MIMe (the recorded one's or the author's own).
    let axes_nodes: Vec<axes::AxesNode> = nodes
        .iter()
        .filter_map(|&node| axes::node_of(node, &ctx.tracks[node]))
        .collect();
    let own_axes = if joint.is_some() {
        &[][..]
    } else {
        &axes_nodes[..]
    };
    // The pointers to write: those standing for recorded pointers in the recorded order, then
    // the others in `pointer_nodes` order. With a recorded table, a coordinate it gives no
    // pointer gets none either when its rest matrix under its parent's console world stays
    // on the file's world (the export's locals differ from the rest by the console's rounding
    // of the parent's world only: the file did not move it).
    let mut jobs: Vec<(usize, Option<usize>, u32)> = Vec::new();
    for &node in &pointer_nodes {
        if axes_nodes.iter().any(|x| x.node == node) {
            continue;
        }
        let unrecorded = !recorded
            .iter()
            .any(|r| r.pointer.update.coordinate() == Some(node));
        if table.present
            && unrecorded
            && ctx.tracks[node].iter().enumerate().all(|(k, t)| {
                t.as_ref().map_or(true, |t| {
                    let last = t.keys.last().map_or(0, |x| x.frame);
                    ctx.rest_fits(anims[k], k, node, last)
                })
            })
        {
            continue;
        }
        let used = ctx.tracks[node]
            .iter()
            .flatten()
            .fold(0, |u, t| u | table::parts_of_code(t.code));
        for (rec, keep) in table::pointers_of(recorded, node, used) {
            jobs.push((node, rec, keep));
        }
    }
    jobs.sort_by_key(|&(_, rec, _)| rec.unwrap_or(usize::MAX));
    let mut out = Out {
        types: &mut types,
        descriptors: &mut descriptors,
        params: &mut params,
        param_words: &mut param_words,
        stored: &mut stored,
    };
    for (node, rec, keep) in jobs {
        // The recorded pointer this one stands for, if any.
        let r = rec.and_then(|i| recorded.get(i));
        // The pointer's track in each animation: its coordinate's, or made again with the
        // pointer's own loop where that is not its coordinate's (another pointer on it repeats
        // with another period).
        let index = r.map(|r| r.index);
        let mut own: Vec<(usize, NodeTrack)> = Vec::new();
        for k in 0..anims.len() {
            let Some(loops_k) = index.and(pointer_loops[k].as_ref()) else {
                continue;
            };
            let looping = index.and_then(|i| loops_k.get(&i)).copied();
            if looping != loops[k].get(&node).copied() {
                let a = anims[k];
                let moves = ctx.channels(a, node).any(|c| moving(a, c));
                let src = if moves { a } else { &rest_anim };
                own.push((k, node_track(&ctx, (src, k, a), node, max_keys, looping)?));
            }
        }
        let track_of = |k: usize| match own.iter().find(|o| o.0 == k) {
            Some((_, t)) => Some(t),
            None => ctx.tracks[node].get(k)?.as_ref(),
        };
        // The recorded control flow, where the scene's keys still fit it.
        let kept = match r {
            Some(r) => {
                let per_sequence: Vec<Option<&NodeTrack>> = (0..=r.pointer.extra.len())
                    .map(|j| {
                        let k = (0..anims.len()).find(|&k| sequence_of[k] == j)?;
                        track_of(k)
                    })
                    .collect();
                // Where the flow's values differ from the author's own: whether they show the
                // scene as well (`Ctx::shows`) at that update of sequence `j`.
                let judge = |j: usize, u: u32, got: &[i32; 9], driven: u32| -> bool {
                    let Some(k) = (0..anims.len()).find(|&k| sequence_of[k] == j) else {
                        return false;
                    };
                    let Some(track) = track_of(k) else {
                        return false;
                    };
                    let f = kept::cycle(track, u);
                    let mine = track.matrix_with(f, (got, driven), keep, &ctx.rest[node]);
                    let own = track.matrix_at(f);
                    ctx.shows((anims[k], k), node, f, (&mine, &own))
                };
                kept::write(r, &per_sequence, (keep, &ctx.rest[node]), &judge, &mut out)?
            }
            None => None,
        };
        if let (Some(r), None) = (r, &kept) {
            let switches = r.flow.switches(&r.pointer);
            notes.add(
                "sequence-control-flow-rewritten",
                usize::from(switches),
                || "recorded sequence pointer(s) with stream-ID jumps or control descriptors other than END written as the author's own sequences (keys of two types in one interval, more than four edited B-spline keys, or keys that show the scene neither on the file's line nor as the file's own: a motion resampled between the file's keys, or more than four edited keys at gimbal locks): each sequence plays from its start as exported, but a program that switches stream IDs mid-play does not switch as it did".into(),
            );
            notes.add(
                "sequence-keys-rewritten",
                usize::from(!switches),
                || "recorded sequence pointer(s) written with the author's own key frames instead of the file's (keys of two types in one interval, more than four edited B-spline keys, or keys that show the scene neither on the file's line nor as the file's own: a motion resampled between the file's keys, or more than four edited keys at gimbal locks): they play as exported at the file's rate, but at another SPEED their interpolation differs".into(),
            );
            notes.add(
                "sequence-speed-rewritten",
                usize::from(!matches!(r.pointer.speed, 0 | 0x10)),
                || "recorded sequence pointer(s) with a SPEED other than 1× written at SPEED 0x10 with the rate in their key frames: they play as exported, but a program that changes SPEED sees other rates".into(),
            );
        }
        // The sequences the recorded pointer has (all without one). One it lacks plays its
        // START sequence: left out only where that gives the console the same values (the
        // pointer's parts move the same, and its ancestors' motion did not make the solved
        // keys differ).
        let mut wanted = table::sequences_for(recorded, rec, &sequence_of);
        let start = wanted.iter().copied().find(|&k| sequence_of[k] == 0);
        for k in 0..anims.len() {
            let same = start.is_some_and(|s| match (track_of(k), track_of(s)) {
                (Some(a), Some(b)) => table::same_values(a, b, keep),
                _ => false,
            });
            if !wanted.contains(&k) && !same {
                wanted.push(k);
            }
        }
        wanted.sort_unstable();
        // With the recorded flow kept, its sequences stand for the animations exported from
        // them; the others follow.
        let has = kept.as_ref().map_or(0, Vec::len);
        let which: Vec<(usize, &NodeTrack)> = wanted
            .into_iter()
            .filter(|&k| kept.is_none() || sequence_of[k] >= has)
            .filter_map(|k| Some((k, track_of(k)?)))
            .collect();
        let more = sequences_of(&which, &anims, (node, keep), &mut out)?
            .into_iter()
            .map(|(k, start)| (start, table::stream_id(recorded, &sequence_of, rec, k)));
        let starts: Vec<(u16, u8)> = kept.iter().flatten().copied().chain(more).collect();
        let offset = u32::try_from(1 + node * 20)
            .ok()
            .filter(|&o| o < 1 << 24)
            .ok_or_else(|| {
                unencodable(format!("node {node}: coordinate offset past 2^24 words"))
            })?;
        pointers.push(table::pointer(
            UpdateIndex { section: 4, offset },
            &starts,
            r.map(|r| (&r.pointer, kept.is_some())),
        ));
    }
    // A key's error at a frame: the worst of its nodes turned by the weight.
    let error = |w: usize, k: usize, f: u32, weight: i32| {
        let j = joint.as_ref()?;
        j.key_of
            .iter()
            .filter(|(_, &(key, _))| key == w)
            .map(|(&node, &(_, dv))| axes::error_at(&ctx, (k, anims[k]), node, (dv, weight), f))
            .try_fold(0.0f64, |m, e| Some(m.max(e?)))
    };
    let joint_weights = joint.as_ref().map(|j| weights::JointWeights {
        keys: j.rec.keys,
        weights: &j.weights,
        solved_on: &j.solved_on,
        recorded: &table.weight_pointers,
        sequence_of: &sequence_of,
        error: &error,
    });
    pointers.extend(weights::pointers(
        &anims,
        weights::Sources {
            morphs,
            axes: own_axes,
            joint: joint_weights,
            loops: &loops,
        },
        (fps, usize::try_from(max_keys).unwrap_or(usize::MAX)),
        weights::Out {
            types: &mut types,
            descriptors: &mut descriptors,
            params: &mut params,
            param_words: &mut param_words,
            notes,
        },
    )?);
    Ok(Some(AnimParts {
        types,
        descriptors,
        params,
        pointers,
        joint: match &joint {
            Some(j) => Some(j.parts()),
            None if own_axes.is_empty() => None,
            None => Some((
                own_axes.len(),
                super::mime::joint_axes(
                    &own_axes.iter().map(|x| (x.node, x.dv)).collect::<Vec<_>>(),
                )?,
            )),
        },
    }))
}
