//! BMTR transforms → the model-space matrices of the editable form, so a BMTR plays and
//! exports exactly as an `RTM_0101` does.
//!
//! Readings taken (see the module docs of [`super`] for the sources):
//! - The quaternion is the four stored numbers / 16384 (x, y, z, w); it is normalised before
//!   use (quantisation leaves its length within about 1e-4 of 1). An all-zero one is taken
//!   as no rotation, with a note.
//! - The translation is three IEEE half-precision numbers (metres).
//! - In the RTM's matrix layout (columns aside, up, direction; then the position) the stored
//!   transform is the rotation of the quaternion `(x, −y, z, w)` and the position
//!   `(−tx, ty, −tz)`: both readers consulted turn a BMTR into the RTM's numbers this way (one
//!   checks it against the RTM the BMTR was binarised from).
//! - Each transform is relative to the bone's parent in the model's skeleton: a bone's
//!   model-space matrix is its parent's times its own (`W = W_parent · L`). A bone whose
//!   parent the BMTR does not animate, or that the skeleton does not name, is a root: its
//!   transform is its model-space matrix (an unanimated bone does not move). Without a
//!   skeleton every bone is a root, with a note.

use super::skeleton::Skeleton;
use super::{Bmtr, BmtrTransform, BoneTransform, Frame, Mdat, Mlod, Name32, Property};
use crate::report::Note;
use crate::scene::sample::quat_matrix;

/// A rotation (rows) and a position, in f64.
type Affine = ([[f64; 3]; 3], [f64; 3]);

/// An IEEE half-precision bit pattern as `f32` (exact: every half is an `f32`).
pub fn half_to_f32(bits: u16) -> f32 {
    let sign = if bits & 0x8000 != 0 { -1.0f32 } else { 1.0 };
    let exponent = (bits >> 10) & 0x1F;
    let fraction = (bits & 0x3FF) as f32;
    match exponent {
        // Subnormal: fraction × 2^-24.
        0 => sign * fraction * (2.0f32).powi(-24),
        31 if fraction == 0.0 => sign * f32::INFINITY,
        31 => f32::NAN,
        e => sign * (1.0 + fraction / 1024.0) * (2.0f32).powi(e as i32 - 15),
    }
}

impl BmtrTransform {
    /// The quaternion as stored (x, y, z, w), not normalised.
    pub fn quaternion(&self) -> [f32; 4] {
        self.rotation.map(|v| v as f32 / 16384.0)
    }

    /// The translation as stored (x, y, z), metres.
    pub fn translation(&self) -> [f32; 3] {
        self.position.map(half_to_f32)
    }

    /// The transform relative to the parent bone, in the RTM's matrix layout (rotation
    /// columns aside, up, direction; then the position).
    pub fn matrix(&self) -> [f32; 12] {
        to_matrix(&self.affine().0)
    }

    /// The transform in the RTM's axes, and whether the quaternion was all zero.
    fn affine(&self) -> (Affine, bool) {
        let q = self.quaternion().map(f64::from);
        let n = q.iter().map(|v| v * v).sum::<f64>().sqrt();
        let zero = n == 0.0;
        let r = if zero {
            [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
        } else {
            quat_matrix([q[0] / n, -q[1] / n, q[2] / n, q[3] / n])
        };
        let t = self.translation().map(f64::from);
        ((r, [-t[0], t[1], -t[2]]), zero)
    }
}

fn to_matrix((r, t): &Affine) -> [f32; 12] {
    let mut m = [0f32; 12];
    for j in 0..3 {
        for i in 0..3 {
            m[3 * j + i] = r[i][j] as f32;
        }
        m[9 + j] = t[j] as f32;
    }
    m
}

/// `a ∘ b`: first `b`, then `a`.
fn then((ra, ta): &Affine, (rb, tb): &Affine) -> Affine {
    let mut r = [[0.0; 3]; 3];
    let mut t = *ta;
    for i in 0..3 {
        for j in 0..3 {
            r[i][j] = (0..3).map(|k| ra[i][k] * rb[k][j]).sum();
        }
        t[i] += (0..3).map(|k| ra[i][k] * tb[k]).sum::<f64>();
    }
    (r, t)
}

impl Bmtr {
    /// The editable form of the animation: the same bones, phases and properties, and each
    /// bone's model-space matrix, its transform composed with its ancestors' through
    /// `skeleton` (the module docs say how). The notes say what was assumed.
    pub fn to_mlod(&self, skeleton: Option<&Skeleton>) -> (Mlod, Vec<Note>) {
        let mut notes = Vec::new();
        let parents = self.parents(skeleton, &mut notes);
        let order = depth_order(&parents);
        let (mut zero, mut missing) = (0usize, 0usize);
        let frames = self
            .phases
            .iter()
            .zip(&self.frames)
            .map(|(&phase, f)| {
                let mut world: Vec<Affine> = vec![Default::default(); self.bones.len()];
                for &b in &order {
                    // The reader gives every frame a transform per bone; an edited model may
                    // not: a missing one is no movement (counted in a note).
                    let t = f.transforms.get(b).copied().unwrap_or_else(|| {
                        missing += 1;
                        BmtrTransform {
                            rotation: [0, 0, 0, 16384],
                            position: [0; 3],
                        }
                    });
                    let (local, z) = t.affine();
                    zero += usize::from(z);
                    world[b] = match parents[b] {
                        Some(p) => then(&world[p], &local),
                        None => local,
                    };
                }
                Frame {
                    phase,
                    transforms: world
                        .iter()
                        .zip(&self.bones)
                        .map(|(w, name)| BoneTransform {
                            bone: Name32::new(name.clone()),
                            matrix: to_matrix(w),
                        })
                        .collect(),
                }
            })
            .collect();
        if missing > 0 {
            notes.push(Note {
                code: "bmtr-missing-transforms",
                message: format!(
                    "{missing} bone transforms are missing from the frames: taken as no movement"
                ),
            });
        }
        if self.phases.len() != self.frames.len() {
            notes.push(Note {
                code: "bmtr-phase-count",
                message: format!(
                    "{} phases for {} frames: only {} frames are kept",
                    self.phases.len(),
                    self.frames.len(),
                    self.phases.len().min(self.frames.len())
                ),
            });
        }
        if zero > 0 {
            notes.push(Note {
                code: "bmtr-zero-quaternion",
                message: format!(
                    "{zero} BMTR transforms have an all-zero quaternion: taken as no rotation"
                ),
            });
        }
        let properties: Vec<Property> = self
            .properties
            .iter()
            .flat_map(|p| &p.properties)
            .map(|p| Property {
                phase: p.phase,
                name: p.name.clone(),
                value: p.value.clone(),
            })
            .collect();
        let mlod = Mlod {
            mdat: (!properties.is_empty()).then_some(Mdat {
                reserved: 0,
                properties,
            }),
            displacement: self.displacement,
            v0100: false,
            bones: self.bones.iter().map(|b| Name32::new(b.clone())).collect(),
            frames,
        };
        (mlod, notes)
    }

    /// Each bone's parent among the BMTR's bones (by the skeleton, ignoring ASCII case);
    /// a cycle in the skeleton is cut where it is found.
    fn parents(&self, skeleton: Option<&Skeleton>, notes: &mut Vec<Note>) -> Vec<Option<usize>> {
        let n = self.bones.len();
        let Some(s) = skeleton else {
            if n > 1 {
                notes.push(Note {
                    code: "bmtr-no-skeleton",
                    message: "BMTR transforms are relative to each bone's parent; without a skeleton (--skeleton model.cfg) every bone is taken as a root, so children do not follow their parents".into(),
                });
            }
            return vec![None; n];
        };
        let find = |name: &str| self.bones.iter().position(|b| b.eq_ignore_ascii_case(name));
        let mut unnamed = 0usize;
        let mut parents: Vec<Option<usize>> = self
            .bones
            .iter()
            .enumerate()
            .map(|(i, b)| match s.parent_of(b) {
                None => {
                    unnamed += 1;
                    None
                }
                Some(p) => find(p).filter(|&p| p != i),
            })
            .collect();
        if unnamed > 0 {
            notes.push(Note {
                code: "bmtr-bones-not-in-skeleton",
                message: format!(
                    "{unnamed} of the BMTR's {n} bones are not in skeleton {}: taken as roots",
                    s.name
                ),
            });
        }
        for b in cut_cycles(&mut parents) {
            notes.push(Note {
                code: "bmtr-skeleton-cycle",
                message: format!(
                    "skeleton {} makes bone {:?} its own ancestor: taken as a root",
                    s.name, self.bones[b]
                ),
            });
        }
        parents
    }
}

/// Makes `parents` a forest: a bone whose parent link closes a cycle becomes a root. Returns
/// those bones.
fn cut_cycles(parents: &mut [Option<usize>]) -> Vec<usize> {
    // 0 not seen, 1 on the chain being walked, 2 done.
    let mut state = vec![0u8; parents.len()];
    let mut cut = Vec::new();
    for b in 0..parents.len() {
        let mut chain = Vec::new();
        let mut at = Some(b);
        while let Some(x) = at {
            match state[x] {
                0 => {
                    state[x] = 1;
                    chain.push(x);
                    at = parents[x];
                }
                1 => {
                    // `x` is on this chain: the chain's last link closes the cycle.
                    if let Some(&last) = chain.last() {
                        parents[last] = None;
                        cut.push(last);
                    }
                    break;
                }
                _ => break,
            }
        }
        chain.iter().for_each(|&x| state[x] = 2);
    }
    cut
}

/// The bones ordered so that every parent comes before its children (`parents` a forest).
fn depth_order(parents: &[Option<usize>]) -> Vec<usize> {
    let mut depth = vec![usize::MAX; parents.len()];
    for b in 0..parents.len() {
        let mut chain = Vec::new();
        let mut at = Some(b);
        while let Some(x) = at {
            if depth[x] != usize::MAX || chain.len() > parents.len() {
                break;
            }
            chain.push(x);
            at = parents[x];
        }
        let base = at.map_or(0, |x| depth[x].saturating_add(1));
        for (d, &x) in (base..).zip(chain.iter().rev()) {
            depth[x] = d;
        }
    }
    let mut order: Vec<usize> = (0..parents.len()).collect();
    order.sort_by_key(|&b| depth[b]);
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn halves_decode_as_ieee_binary16() {
        assert_eq!(half_to_f32(0x3C00), 1.0);
        assert_eq!(half_to_f32(0xC000), -2.0);
        assert_eq!(half_to_f32(0x3555), 0.333_251_95);
        assert_eq!(half_to_f32(0x0001), 2f32.powi(-24));
        assert_eq!(half_to_f32(0x7BFF), 65504.0);
        assert_eq!(half_to_f32(0x8000), 0.0);
        assert_eq!(half_to_f32(0xFC00), f32::NEG_INFINITY);
        assert!(half_to_f32(0x7E00).is_nan());
    }
}
