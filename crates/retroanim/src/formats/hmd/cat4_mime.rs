//! Category 4, MIMe (notes §8; File Formats pp. 2-118..2-124; hmd.def).
//!
//! Type `0x0401xxxx`: bit 3 RST (reset primitive), bits 5..4 CODE0 (1 joint, 2 vertex/normal),
//! bit 0 CODE1 (joint: 0 axes, 1 RPY; vertex/normal: 0 vertex, 1 normal). The data are word
//! offsets of DIFF blocks in the MIMe DIFF section. Joint DIFF blocks are typed here:
//! `[coord_id diffs_num] dflags`, `diffs_num` records `[dvx dvy] [dvz dtp] dtx dty dtz`, then a
//! reset save area (axes: a MATRIX; RPY: `[rx ry] [rz changed] tx ty tz`). Vertex/normal DIFF
//! blocks (PUYO.LAB): `[onum diffs_num] dflags`, `diffs_num` offsets of the data blocks
//! (relative to the DIFF block), `onum` offsets of the reset records' `changed` words (relative
//! to the DIFF section), then per key `vstart`, `[res vnum]` and `vnum` SVECTOR deltas; their
//! reset blocks: `[pad diffs_num]`, then `vstart`, `ostart`, `[changed vnum]` per record.
//! Vertex/normal blocks are typed only when their data blocks follow in order (as labp lays them
//! out), so the writer recomputes the data offsets.

use serde::{Deserialize, Serialize};

use super::types::Matrix;

/// What a MIMe type word selects.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MimeKind {
    /// Joint MIMe interpolating rotation axes (code 0x10, reset 0x18).
    JointAxes,
    /// Joint MIMe interpolating roll-pitch-yaw (0x11, reset 0x19).
    JointRpy,
    /// Vertex MIMe (0x20, reset 0x28).
    Vertex,
    /// Normal MIMe (0x21, reset 0x29).
    Normal,
}

impl MimeKind {
    /// Decodes the primitive type bits; also says whether it is the reset form.
    pub fn from_code(code: u32) -> Option<(MimeKind, bool)> {
        let pt = code & 0xFFFF;
        let kind = match (pt >> 4 & 3, pt & 1) {
            (1, 0) => MimeKind::JointAxes,
            (1, 1) => MimeKind::JointRpy,
            (2, 0) => MimeKind::Vertex,
            (2, 1) => MimeKind::Normal,
            _ => return None,
        };
        if pt & !0x39 != 0 {
            return None;
        }
        Some((kind, pt & 8 != 0))
    }
}

/// One difference record of a joint DIFF block.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct JointDifference {
    /// Rotation difference (axis vector or roll-pitch-yaw).
    pub rotation: [i16; 3],
    /// dtp: bit 0 rotation part non-zero, bit 1 translation part non-zero.
    pub dtp: u16,
    /// Translation difference.
    pub translation: [i32; 3],
}

/// The run-time reset save area after a joint DIFF block's records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JointReset {
    /// Axes MIMe: a MATRIX (its pad halfword is the `changed` flag).
    Axes(Matrix),
    /// RPY MIMe: rotation, `changed`, translation.
    Rpy {
        /// rx, ry, rz.
        rotation: [i16; 3],
        /// The `changed` flag.
        changed: u16,
        /// tx, ty, tz.
        translation: [i32; 3],
    },
}

/// A joint DIFF block.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JointDiff {
    /// Word offset in the DIFF section (the MIMe primitives' data).
    pub index: u32,
    /// The coordinate the block moves.
    pub coord_id: u16,
    /// Bit k set: key k has a difference (records follow in increasing key order).
    pub dflags: u32,
    /// The differences (`diffs_num` is their number).
    pub differences: Vec<JointDifference>,
    /// The reset save area.
    pub reset: JointReset,
}

impl JointDiff {
    /// Words the block takes.
    pub fn words(&self) -> usize {
        2 + 5 * self.differences.len()
            + match self.reset {
                JointReset::Axes(_) => 8,
                JointReset::Rpy { .. } => 5,
            }
    }

    /// Decodes a block of `kind` at the start of `w`.
    pub fn decode(kind: MimeKind, index: u32, w: &[u32]) -> Option<JointDiff> {
        let head = w.get(..2)?;
        let n = (head[0] >> 16) as usize;
        let hw = |x: u32| [x as i16, (x >> 16) as i16];
        let recs = w.get(2..2 + 5 * n)?;
        let differences = recs
            .chunks_exact(5)
            .map(|r| {
                let [x, y] = hw(r[0]);
                let [z, dtp] = hw(r[1]);
                JointDifference {
                    rotation: [x, y, z],
                    dtp: dtp as u16,
                    translation: [r[2] as i32, r[3] as i32, r[4] as i32],
                }
            })
            .collect();
        let at = 2 + 5 * n;
        let reset = match kind {
            MimeKind::JointAxes => {
                let m = w.get(at..at + 8)?;
                let h = |i: usize| (m[i / 2] >> (16 * (i % 2))) as u16;
                let mut r = [[0i16; 3]; 3];
                for (i, v) in r.iter_mut().flatten().enumerate() {
                    *v = h(i) as i16;
                }
                JointReset::Axes(Matrix {
                    m: r,
                    pad: h(9),
                    t: [m[5] as i32, m[6] as i32, m[7] as i32],
                })
            }
            MimeKind::JointRpy => {
                let m = w.get(at..at + 5)?;
                let [x, y] = hw(m[0]);
                let [z, changed] = hw(m[1]);
                JointReset::Rpy {
                    rotation: [x, y, z],
                    changed: changed as u16,
                    translation: [m[2] as i32, m[3] as i32, m[4] as i32],
                }
            }
            _ => return None,
        };
        Some(JointDiff {
            index,
            coord_id: head[0] as u16,
            dflags: head[1],
            differences,
            reset,
        })
    }

    /// Appends the encoded words; `None` with more than 65535 differences.
    pub fn encode(&self, out: &mut Vec<u32>) -> Option<()> {
        let pair = |a: i16, b: i16| a as u16 as u32 | (b as u16 as u32) << 16;
        let n = u16::try_from(self.differences.len()).ok()?;
        out.push(self.coord_id as u32 | (n as u32) << 16);
        out.push(self.dflags);
        for d in &self.differences {
            out.push(pair(d.rotation[0], d.rotation[1]));
            out.push(pair(d.rotation[2], d.dtp as i16));
            out.extend(d.translation.iter().map(|&t| t as u32));
        }
        match &self.reset {
            JointReset::Axes(m) => {
                let h: Vec<i16> =
                    m.m.iter()
                        .flatten()
                        .copied()
                        .chain([m.pad as i16])
                        .collect();
                out.extend(h.chunks_exact(2).map(|c| pair(c[0], c[1])));
                out.extend(m.t.iter().map(|&t| t as u32));
            }
            JointReset::Rpy {
                rotation,
                changed,
                translation,
            } => {
                out.push(pair(rotation[0], rotation[1]));
                out.push(pair(rotation[2], *changed as i16));
                out.extend(translation.iter().map(|&t| t as u32));
            }
        }
        Some(())
    }
}

/// The differences of one MIMe key in a vertex/normal DIFF block.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VertexDifferences {
    /// First vertex (or normal) the deltas apply to.
    pub vstart: u32,
    /// The reserved halfword before `vnum`.
    #[serde(default, skip_serializing_if = "crate::formats::is_default")]
    pub reserved: u16,
    /// The deltas (`vnum` is their number).
    pub deltas: Vec<super::types::SVector>,
}

/// A vertex/normal DIFF block.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VertexDiff {
    /// Word offset in the DIFF section.
    pub index: u32,
    /// Bit k set: key k has differences.
    pub dflags: u32,
    /// Word offsets (in the DIFF section) of the reset records' `changed` words (`onum`).
    pub reset_offsets: Vec<u32>,
    /// The differences per key, in dflags order; their offsets are computed.
    pub keys: Vec<VertexDifferences>,
}

impl VertexDiff {
    /// Words the block takes.
    pub fn words(&self) -> usize {
        2 + self.keys.len()
            + self.reset_offsets.len()
            + self
                .keys
                .iter()
                .map(|k| 2 + 2 * k.deltas.len())
                .sum::<usize>()
    }

    /// Decodes a block at the start of `w` when its data blocks follow in order.
    pub fn decode(index: u32, w: &[u32]) -> Option<VertexDiff> {
        let head = w.get(..2)?;
        let (onum, n) = ((head[0] & 0xFFFF) as usize, (head[0] >> 16) as usize);
        let offsets = w.get(2..2 + n)?;
        let reset_offsets = w.get(2 + n..2 + n + onum)?.to_vec();
        let mut pos = 2 + n + onum;
        let mut keys = Vec::with_capacity(n);
        for &o in offsets {
            if o as usize != pos {
                return None;
            }
            let vstart = *w.get(pos)?;
            let vh = *w.get(pos + 1)?;
            let vnum = (vh >> 16) as usize;
            let d = w.get(pos + 2..pos + 2 + 2 * vnum)?;
            keys.push(VertexDifferences {
                vstart,
                reserved: vh as u16,
                deltas: d
                    .chunks_exact(2)
                    .map(|c| super::types::SVector {
                        v: [c[0] as i16, (c[0] >> 16) as i16, c[1] as i16],
                        pad: (c[1] >> 16) as i16,
                    })
                    .collect(),
            });
            pos += 2 + 2 * vnum;
        }
        Some(VertexDiff {
            index,
            dflags: head[1],
            reset_offsets,
            keys,
        })
    }

    /// Appends the encoded words; `None` when a count does not fit 16 bits.
    pub fn encode(&self, out: &mut Vec<u32>) -> Option<()> {
        let onum = u16::try_from(self.reset_offsets.len()).ok()?;
        let n = u16::try_from(self.keys.len()).ok()?;
        out.push(onum as u32 | (n as u32) << 16);
        out.push(self.dflags);
        let mut pos = 2 + self.keys.len() + self.reset_offsets.len();
        for k in &self.keys {
            out.push(u32::try_from(pos).ok()?);
            pos += 2 + 2 * k.deltas.len();
        }
        out.extend_from_slice(&self.reset_offsets);
        for k in &self.keys {
            out.push(k.vstart);
            out.push(k.reserved as u32 | (u16::try_from(k.deltas.len()).ok()? as u32) << 16);
            for d in &k.deltas {
                out.push(d.v[0] as u16 as u32 | (d.v[1] as u16 as u32) << 16);
                out.push(d.v[2] as u16 as u32 | (d.pad as u16 as u32) << 16);
            }
        }
        Some(())
    }
}

/// One record of a vertex/normal reset DIFF block.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct VertexReset {
    /// First vertex (or normal).
    pub vstart: u32,
    /// First entry of the ORGSVN save area.
    pub ostart: u32,
    /// Run-time `changed` flag.
    pub changed: u16,
    /// Number of vertices.
    pub vnum: u16,
}

/// A vertex/normal reset DIFF block.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VertexResetDiff {
    /// Word offset in the DIFF section.
    pub index: u32,
    /// The halfword before `diffs_num`.
    #[serde(default, skip_serializing_if = "crate::formats::is_default")]
    pub pad: u16,
    /// The records.
    pub records: Vec<VertexReset>,
}

impl VertexResetDiff {
    /// Decodes a block at the start of `w`.
    pub fn decode(index: u32, w: &[u32]) -> Option<VertexResetDiff> {
        let head = *w.first()?;
        let n = (head >> 16) as usize;
        let recs = w.get(1..1 + 3 * n)?;
        Some(VertexResetDiff {
            index,
            pad: head as u16,
            records: recs
                .chunks_exact(3)
                .map(|r| VertexReset {
                    vstart: r[0],
                    ostart: r[1],
                    changed: r[2] as u16,
                    vnum: (r[2] >> 16) as u16,
                })
                .collect(),
        })
    }

    /// Words the block takes.
    pub fn words(&self) -> usize {
        1 + 3 * self.records.len()
    }

    /// Appends the encoded words; `None` with more than 65535 records.
    pub fn encode(&self, out: &mut Vec<u32>) -> Option<()> {
        out.push(self.pad as u32 | (u16::try_from(self.records.len()).ok()? as u32) << 16);
        for r in &self.records {
            out.extend([r.vstart, r.ostart, r.changed as u32 | (r.vnum as u32) << 16]);
        }
        Some(())
    }
}

/// One item of a MIMe DIFF section.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MimeDiffItem {
    /// A joint DIFF block.
    Joint(JointDiff),
    /// A vertex or normal DIFF block.
    Vertex(VertexDiff),
    /// A vertex or normal reset DIFF block.
    VertexReset(VertexResetDiff),
    /// Anything no MIMe primitive describes.
    Raw(Vec<u32>),
}

impl MimeDiffItem {
    /// Words the item takes.
    pub fn words(&self) -> usize {
        match self {
            MimeDiffItem::Joint(j) => j.words(),
            MimeDiffItem::Vertex(v) => v.words(),
            MimeDiffItem::VertexReset(v) => v.words(),
            MimeDiffItem::Raw(w) => w.len(),
        }
    }
}

impl MimeDiffItem {
    /// The item's word offset in its section, for the positioned kinds.
    pub fn index(&self) -> Option<u32> {
        match self {
            MimeDiffItem::Joint(j) => Some(j.index),
            MimeDiffItem::Vertex(v) => Some(v.index),
            MimeDiffItem::VertexReset(v) => Some(v.index),
            MimeDiffItem::Raw(_) => None,
        }
    }

    /// Appends the encoded words; `None` when a count does not fit its field.
    pub fn encode(&self, out: &mut Vec<u32>) -> Option<()> {
        match self {
            MimeDiffItem::Joint(j) => j.encode(out),
            MimeDiffItem::Vertex(v) => v.encode(out),
            MimeDiffItem::VertexReset(v) => v.encode(out),
            MimeDiffItem::Raw(w) => {
                out.extend_from_slice(w);
                Some(())
            }
        }
    }
}

// ----------------------------------------------------------------- driver arithmetic
//
// The MIMe drivers' fixed-point steps (libhmd `GsU_0401001x`, `GsU_0401002x`), used by the
// player. Every step is the console's: 32-bit wrapping sums, C division (truncating) where the
// driver divides, arithmetic shifts where the GTE shifts, 16-bit saturation where a GTE IR
// register takes the result, 16-bit truncation where a `short` stores it.

/// The GTE's leading-sign-bit count (LZCS → LZCR): how many leading bits equal bit 31 (32 for
/// 0 and −1).
pub fn leading_sign_bits(x: i32) -> u32 {
    if x < 0 {
        (!x).leading_zeros()
    } else {
        x.leading_zeros()
    }
}

/// libgte `InvSquareRoot(a)`: `(mantissa, exponent)` with `1/√a ≈ mantissa / 4096 · 2^−exponent`;
/// `None` for `a` = 0 or −1 (the console leaves the outputs untouched).
///
/// The console normalises `a` to an 8-bit value `x` in 64..256 with an even shift and looks
/// `x` up in a 192-entry table; the table is rebuilt here as `round(32768 / √x)` (the same
/// formula the mantissa must satisfy), not copied, and may differ from the console's by one.
pub fn inv_square_root(a: i32) -> Option<(i32, i32)> {
    let lz = leading_sign_bits(a);
    if lz == 0 || lz == 32 {
        return None;
    }
    let u = lz & !1;
    let x = if u < 24 {
        a >> (24 - u)
    } else {
        a.wrapping_shl(u - 24)
    };
    let x = x.clamp(64, 255);
    let mantissa = (32768.0 / (x as f64).sqrt()).round() as i32;
    Some((mantissa, (31 - u as i32) >> 1))
}

/// The axes-MIMe driver's `myVectorNormal`: the rotation vector `v` (Σ difference × weight, so
/// 4096 × the angle in 4096ths of a turn) split into a unit axis (4096 = 1) and the angle
/// `|v| / 4096`. A vector shorter than the driver's threshold gives angle 0 and axis +X.
pub fn vector_normal(v: [i32; 3]) -> (i32, [i32; 3]) {
    const NONE: (i32, [i32; 3]) = (0, [4096, 0, 0]);
    let lz = v.iter().map(|&x| leading_sign_bits(x)).min().unwrap_or(32) as i32;
    let shift = (18 - lz).max(0);
    let v = v.map(|x| x >> shift);
    // gte_sqr12 on the 16-bit IR registers.
    let b: i32 = v
        .iter()
        .map(|&x| ((x as i16 as i32) * (x as i16 as i32)) >> 12)
        .fold(0i32, |s, x| s.wrapping_add(x));
    if b < 10 {
        return NONE;
    }
    let Some((c, d)) = inv_square_root(b) else {
        return NONE;
    };
    if c == 0 {
        return NONE;
    }
    let axis = v.map(|x| (x / 64).wrapping_mul(c) >> (d & 31));
    let r = 1i32.wrapping_shl((shift + d + 6) as u32).wrapping_div(c);
    (r, axis)
}

/// The axes-MIMe driver's `check_z`: the rotation by `angle` (4096ths of a turn, as the
/// driver indexes `rcossin_tbl`) about the unit `axis`, multiplied onto `m` from the right
/// (`m = m · R`, each column through the GTE: `(m · r_j) >> 12` saturated to 16 bits).
pub fn rotate_about_axis(m: &mut [[i16; 3]; 3], axis: [i32; 3], angle: i32) {
    // The driver reads rcossin_tbl[angle] unmasked; past the table the console reads other
    // data. The angle is taken modulo a turn here.
    let (s, c) = crate::formats::gte::sin_cos((angle & 0xFFF) as i16);
    let ir = axis.map(|x| x as i16 as i32);
    // gte_gpf12: MAC = (IR0 · IR) >> 12.
    let gpf = |k: i32, x: i32| ((k as i16 as i64 * x as i64) >> 12) as i32;
    let [as_, bs, ds] = ir.map(|x| gpf(s, x));
    let c1 = 4096 - c;
    let mac = ir.map(|x| gpf(c1, x));
    let mul = |x: i32, y: i32| x.wrapping_mul(y) / 4096;
    let c1ab = mul(mac[0], ir[1]);
    let c1ad = mul(mac[2], ir[0]);
    let c1bd = mul(mac[1], ir[2]);
    // gte_sqr12 then gte_gpf12 with IR0 = c1.
    let sq = ir.map(|x| ((x * x) >> 12).clamp(-0x8000, 0x7FFF));
    let diag = sq.map(|x| gpf(c1, x) + c);
    let r: [[i32; 3]; 3] = [
        [diag[0], c1ab + ds, c1ad - bs],
        [c1ab - ds, diag[1], c1bd + as_],
        [c1ad + bs, c1bd - as_, diag[2]],
    ]
    .map(|row| row.map(|x| x as i16 as i32));
    let org = *m;
    for j in 0..3 {
        for (i, row) in org.iter().enumerate() {
            let sum: i64 = (0..3).map(|k| row[k] as i64 * r[k][j] as i64).sum();
            m[i][j] = (sum >> 12).clamp(-0x8000, 0x7FFF) as i16;
        }
    }
}

/// One component of vertex/normal MIMe (`GsVNMIMeFunc` / `gteMIMefunc`): the weight goes
/// through the GTE's 16-bit IR0, the product `(w · d) >> 12` saturates to 16 bits (IR), and
/// the sum is stored in a `short`.
pub fn vn_add(v: i16, d: i16, weight: i32) -> i16 {
    let p = ((weight as i16 as i64 * d as i64) >> 12).clamp(-0x8000, 0x7FFF);
    (v as i64 + p) as i16
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inverse_square_root_mantissa_and_exponent() {
        for a in [10, 97, 25_000, 1 << 20, 123_456_789] {
            let (m, e) = inv_square_root(a).unwrap();
            let got = m as f64 / 4096.0 / (1u64 << e) as f64;
            let want = 1.0 / (a as f64).sqrt();
            assert!((got / want - 1.0).abs() < 0.01, "{a}: {got} vs {want}");
        }
        assert_eq!(inv_square_root(0), None);
    }

    #[test]
    fn vector_normal_gives_length_and_unit_axis() {
        let (angle, axis) = vector_normal([204_800, 0, 614_400]);
        // |(50, 0, 150)| = 158.1 (in 4096ths of a turn).
        assert!((angle - 158).abs() <= 2, "{angle}");
        let len = axis.iter().map(|&x| (x as f64).powi(2)).sum::<f64>().sqrt();
        assert!((len - 4096.0).abs() < 20.0, "{axis:?}");
        assert_eq!(vector_normal([0, 3, 0]), (0, [4096, 0, 0]));
    }

    #[test]
    fn rotation_about_z_turns_the_xy_columns() {
        let mut m = [[4096, 0, 0], [0, 4096, 0], [0, 0, 4096]];
        rotate_about_axis(&mut m, [0, 0, 4096], 1024);
        // 90° about Z with the driver's sign convention (m[0][1] = +s·az).
        assert_eq!(m, [[0, 4096, 0], [-4096, 0, 0], [0, 0, 4096]]);
    }

    #[test]
    fn vn_add_saturates_the_product_and_wraps_the_sum() {
        assert_eq!(vn_add(10, 100, 2048), 60);
        assert_eq!(vn_add(10, -100, 2048), -40);
        assert_eq!(vn_add(32767, 4096, 4096), 32767i16.wrapping_add(4096));
        // The weight is a 16-bit IR0 value.
        assert_eq!(vn_add(0, 4096, 65536 + 4096), 4096);
    }
}
