//! Validation: what an RTM's fields say that the engine would mind.

use std::collections::HashMap;

use super::bmtr::{Layout, NAMES_AT, TRANSFORM_BYTES};
use super::{Bmtr, Mlod, Rtm, NAME_SIZE};
use crate::Issue;

/// Every finding about an RTM: frame phases within 0..1 and increasing, every frame holding
/// every bone, finite matrices with an orthonormal rotation part, bone names unique (ignoring
/// case, as the engine compares them), non-empty and NUL-terminated; for a BMTR, quaternions
/// of unit length and finite translations.
pub fn validate(rtm: &Rtm) -> Vec<Issue> {
    match rtm {
        Rtm::Mlod(m) => validate_mlod(m),
        Rtm::Bmtr(b) => validate_bmtr(b),
    }
}

/// Findings both forms share, each given its offsets.
struct Common<'a> {
    displacement: ([f32; 3], u64),
    bone_count_at: u64,
    frame_count_at: u64,
    /// Property phase, name and offset.
    properties: Vec<(f32, &'a str, u64)>,
    /// Bone name and offset.
    bones: Vec<(&'a str, u64)>,
    /// Frame phase and offset.
    phases: Vec<(f32, u64)>,
}

fn check_common(c: &Common, out: &mut Vec<Issue>) {
    for (i, &(phase, name, at)) in c.properties.iter().enumerate() {
        if !(0.0..=1.0).contains(&phase) {
            out.push(Issue::warning(
                at,
                "property-phase",
                format!("property {i} ({name:?}) has phase {phase}, outside 0..1"),
            ));
        }
    }
    let (d, at) = c.displacement;
    if d.iter().any(|v| !v.is_finite()) {
        out.push(Issue::error(
            at,
            "displacement-not-finite",
            format!("the displacement {d:?} is not finite"),
        ));
    }
    if c.bones.is_empty() {
        out.push(Issue::error(
            c.bone_count_at,
            "no-bones",
            "the animation has no bones",
        ));
    }
    if c.phases.is_empty() {
        out.push(Issue::error(
            c.frame_count_at,
            "no-frames",
            "the animation has no frames",
        ));
    }
    let mut seen: HashMap<String, usize> = HashMap::new();
    for (i, &(name, at)) in c.bones.iter().enumerate() {
        if name.is_empty() {
            out.push(Issue::error(
                at,
                "bone-name-empty",
                format!("bone {i} has an empty name"),
            ));
        }
        if let Some(first) = seen.insert(name.to_ascii_lowercase(), i) {
            out.push(Issue::error(
                at,
                "bone-name-duplicate",
                format!(
                    "bone {i} {name:?} repeats bone {first} (names are compared ignoring case)"
                ),
            ));
        }
    }
    let mut previous: Option<f32> = None;
    for (f, &(p, at)) in c.phases.iter().enumerate() {
        if !(0.0..=1.0).contains(&p) {
            out.push(Issue::error(
                at,
                "phase-range",
                format!("frame {f} has phase {p}, outside 0..1"),
            ));
        }
        if let Some(q) = previous {
            if p < q {
                out.push(Issue::error(
                    at,
                    "phase-order",
                    format!("frame {f} has phase {p}, before frame {}'s {q}", f - 1),
                ));
            } else if p == q {
                out.push(Issue::warning(
                    at,
                    "phase-repeated",
                    format!("frame {f} repeats frame {}'s phase {p}", f - 1),
                ));
            }
        }
        previous = Some(p);
    }
    if let (Some(&(a, at)), Some(&(b, _))) = (c.phases.first(), c.phases.last()) {
        if a != 0.0 || b != 1.0 {
            out.push(Issue::info(
                at,
                "phase-span",
                format!("the frames span phases {a} to {b} (the engine's cycle is 0 to 1)"),
            ));
        }
    }
}

fn validate_mlod(m: &Mlod) -> Vec<Issue> {
    let mut out = Vec::new();
    let base = m.mdat_size();
    check_common(
        &Common {
            displacement: (m.displacement, base + 8),
            bone_count_at: base + 24,
            frame_count_at: base + 20,
            properties: m
                .mdat
                .iter()
                .flat_map(|d| &d.properties)
                .map(|p| (p.phase, p.name.as_str(), 16))
                .collect(),
            bones: (m.bones.iter().enumerate())
                .map(|(i, b)| (b.name.as_str(), m.bone_offset(i)))
                .collect(),
            phases: (m.frames.iter().enumerate())
                .map(|(f, fr)| (fr.phase, m.frame_offset(f)))
                .collect(),
        },
        &mut out,
    );
    for (i, b) in m.bones.iter().enumerate() {
        let at = m.bone_offset(i);
        if b.name.chars().count() >= NAME_SIZE {
            out.push(Issue::error(
                at,
                "bone-name-unterminated",
                format!("bone {i} {:?} fills its 32 bytes with no NUL", b.name),
            ));
        }
        if !b.tail.is_empty() {
            out.push(Issue::info(
                at,
                "bone-name-padding",
                format!(
                    "bone {i} {:?}: bytes other than NUL after the name (kept)",
                    b.name
                ),
            ));
        }
    }
    let mut noise = (0usize, 0f64, None::<usize>);
    for f in 0..m.frames.len() {
        let (n, e) = check_frame(m, f, &mut out);
        if n > 0 {
            noise = (noise.0 + n, noise.1.max(e), noise.2.or(Some(f)));
        }
    }
    if let Some(first) = noise.2 {
        out.push(Issue::info(
            m.frame_offset(first),
            "matrix-noise",
            format!(
                "{} matrices (the first in frame {first}) are off a rotation by up to {:.4}: exporter noise, played as stored",
                noise.0, noise.1
            ),
        ));
    }
    out
}

/// Quantisation leaves a stored quaternion's length within about 1e-4 of 1; beyond this the
/// rotation the engine makes of it is a guess.
const QUATERNION_SLACK: f64 = 0.01;

fn validate_bmtr(b: &Bmtr) -> Vec<Issue> {
    let mut out = Vec::new();
    let at = Layout::of(b);
    check_common(
        &Common {
            displacement: (b.displacement, 9),
            bone_count_at: 29,
            frame_count_at: 21,
            properties: (b.properties.iter().flat_map(|p| &p.properties))
                .zip(&at.properties)
                .map(|(p, &o)| (p.phase, p.name.as_str(), o))
                .collect(),
            bones: (b.bones.iter().zip(&at.bones))
                .map(|(n, &o)| (n.as_str(), o))
                .collect(),
            phases: (b.phases.iter().enumerate())
                .map(|(f, &p)| (p, at.phases.item(f, 4)))
                .collect(),
        },
        &mut out,
    );
    if b.phases.len() != b.frames.len() {
        out.push(Issue::error(
            at.phases.count,
            "phase-count",
            format!(
                "{} phases for {} frames (the file holds one each)",
                b.phases.len(),
                b.frames.len()
            ),
        ));
    }
    let mut off = (0usize, 0f64, None::<(usize, usize)>);
    for (f, frame) in b.frames.iter().enumerate() {
        if frame.transforms.len() != b.bones.len() {
            out.push(Issue::error(
                at.frames[f].count,
                "frame-bone-missing",
                format!(
                    "frame {f} has {} transforms for {} bones (the file holds one per bone)",
                    frame.transforms.len(),
                    b.bones.len()
                ),
            ));
        }
        for (k, t) in frame.transforms.iter().enumerate() {
            let o = at.frames[f].item(k, TRANSFORM_BYTES);
            let bone = b.bones.get(k).map_or("?", String::as_str);
            if t.translation().iter().any(|v| !v.is_finite()) {
                out.push(Issue::error(
                    o,
                    "translation-not-finite",
                    format!("frame {f} bone {bone:?}: the translation holds a half-float infinity or NaN"),
                ));
            }
            let len = t
                .quaternion()
                .iter()
                .map(|&v| v as f64 * v as f64)
                .sum::<f64>()
                .sqrt();
            if len == 0.0 {
                out.push(Issue::error(
                    o,
                    "quaternion-zero",
                    format!("frame {f} bone {bone:?}: the quaternion is all zero (no rotation)"),
                ));
            } else if (len - 1.0).abs() > QUATERNION_SLACK {
                off = (
                    off.0 + 1,
                    off.1.max((len - 1.0).abs()),
                    off.2.or(Some((f, k))),
                );
            }
        }
    }
    if let Some((f, k)) = off.2 {
        out.push(Issue::warning(
            at.frames[f].item(k, TRANSFORM_BYTES),
            "quaternion-length",
            format!(
                "{} quaternions (the first in frame {f}) are off unit length by up to {:.4}: played normalised",
                off.0, off.1
            ),
        ));
    }
    if b.bones.len() > 1 {
        out.push(Issue::info(
            at.bones.first().copied().unwrap_or(NAMES_AT),
            "bmtr-parent-relative",
            "the transforms are relative to each bone's parent: play and convert place the bones as the engine does only with the model's skeleton (--skeleton model.cfg)",
        ));
    }
    out
}

/// Checks frame `f`'s transforms; returns how many matrices are off a rotation by exporter
/// noise, and the largest such deviation.
fn check_frame(m: &Mlod, f: usize, out: &mut Vec<Issue>) -> (usize, f64) {
    let frame = &m.frames[f];
    let mut reordered = false;
    for b in 0..m.bones.len() {
        match m.find(frame, b) {
            None => out.push(Issue::error(
                m.frame_offset(f),
                "frame-bone-missing",
                format!(
                    "frame {f} has no transform for bone {b} {:?}",
                    m.bones[b].name
                ),
            )),
            Some(i) if i != b => reordered = true,
            Some(_) => {}
        }
    }
    if reordered {
        out.push(Issue::warning(
            m.frame_offset(f),
            "frame-bone-order",
            format!("frame {f} lists its bones in another order than the header (played by name)"),
        ));
    }
    let mut off = (0usize, 0f64);
    for (b, t) in frame.transforms.iter().enumerate() {
        let at = m.transform_offset(f, b) + NAME_SIZE as u64;
        if t.matrix.iter().any(|v| !v.is_finite()) {
            out.push(Issue::error(
                at,
                "matrix-not-finite",
                format!(
                    "frame {f} bone {:?}: the matrix holds a NaN or infinity",
                    t.bone.name
                ),
            ));
            continue;
        }
        let e = orthonormal_error(&t.matrix);
        if e > 1e-3 && e <= NOISE {
            off = (off.0 + 1, off.1.max(e));
        } else if e > NOISE {
            out.push(Issue::warning(
                at,
                "matrix-not-rotation",
                format!(
                    "frame {f} bone {:?}: the 3×3 part is off a rotation by {e:.4} (scaled, sheared or mirrored)",
                    t.bone.name
                ),
            ));
        }
    }
    off
}

/// Deviations from a rotation up to this much are exporter noise (the corpus's files reach
/// 0.8 %), reported once per frame as info; beyond it, each matrix is a warning.
const NOISE: f64 = 0.05;

/// The largest deviation of `Mᵀ·M` from the identity, and of the determinant from 1.
fn orthonormal_error(m: &[f32; 12]) -> f64 {
    let col = |j: usize| [m[3 * j] as f64, m[3 * j + 1] as f64, m[3 * j + 2] as f64];
    let dot = |a: [f64; 3], b: [f64; 3]| a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    let mut e: f64 = 0.0;
    for i in 0..3 {
        for j in 0..3 {
            let want = if i == j { 1.0 } else { 0.0 };
            e = e.max((dot(col(i), col(j)) - want).abs());
        }
    }
    let (a, b, c) = (col(0), col(1), col(2));
    let cross = [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ];
    e.max((dot(cross, c) - 1.0).abs())
}
