//! Validation: what an RTM's fields say that the engine would mind.

use std::collections::HashMap;

use super::{Mlod, Rtm, NAME_SIZE};
use crate::Issue;

/// Every finding about an RTM: frame phases within 0..1 and increasing, every frame holding
/// every bone, finite matrices with an orthonormal rotation part, bone names unique (ignoring
/// case, as the engine compares them), non-empty and NUL-terminated.
pub fn validate(rtm: &Rtm) -> Vec<Issue> {
    match rtm {
        Rtm::Mlod(m) => validate_mlod(m),
        Rtm::Bmtr(b) => vec![Issue::info(
            b.body_offset(),
            "bmtr-undecoded",
            format!(
                "BMTR v{}: only the header and {} bone names are decoded; the frames are not checked",
                b.version,
                b.bones.len()
            ),
        )],
    }
}

fn validate_mlod(m: &Mlod) -> Vec<Issue> {
    let mut out = Vec::new();
    let base = m.mdat_size();
    if let Some(d) = &m.mdat {
        for (i, p) in d.properties.iter().enumerate() {
            if !(0.0..=1.0).contains(&p.phase) {
                out.push(Issue::warning(
                    16,
                    "property-phase",
                    format!(
                        "property {i} ({:?}) has phase {}, outside 0..1",
                        p.name, p.phase
                    ),
                ));
            }
        }
    }
    if m.displacement.iter().any(|v| !v.is_finite()) {
        out.push(Issue::error(
            base + 8,
            "displacement-not-finite",
            format!("the displacement {:?} is not finite", m.displacement),
        ));
    }
    if m.bones.is_empty() {
        out.push(Issue::error(
            base + 24,
            "no-bones",
            "the animation has no bones",
        ));
    }
    if m.frames.is_empty() {
        out.push(Issue::error(
            base + 20,
            "no-frames",
            "the animation has no frames",
        ));
    }
    let mut seen: HashMap<String, usize> = HashMap::new();
    for (i, b) in m.bones.iter().enumerate() {
        let at = m.bone_offset(i);
        if b.name.is_empty() {
            out.push(Issue::error(
                at,
                "bone-name-empty",
                format!("bone {i} has an empty name"),
            ));
        }
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
        if let Some(first) = seen.insert(b.name.to_ascii_lowercase(), i) {
            out.push(Issue::error(
                at,
                "bone-name-duplicate",
                format!(
                    "bone {i} {:?} repeats bone {first} (names are compared ignoring case)",
                    b.name
                ),
            ));
        }
    }
    let mut previous: Option<f32> = None;
    let mut noise = (0usize, 0f64, None::<usize>);
    for (f, frame) in m.frames.iter().enumerate() {
        let at = m.frame_offset(f);
        let p = frame.phase;
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
    if let (Some(a), Some(b)) = (m.frames.first(), m.frames.last()) {
        if a.phase != 0.0 || b.phase != 1.0 {
            out.push(Issue::info(
                m.frame_offset(0),
                "phase-span",
                format!(
                    "the frames span phases {} to {} (the engine's cycle is 0 to 1)",
                    a.phase, b.phase
                ),
            ));
        }
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
