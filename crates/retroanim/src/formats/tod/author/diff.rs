//! Differential coordinate packets where they are smaller (see the module docs of [`super`],
//! "Differential packets").

use super::*;
use crate::formats::tod::play::Rst;

/// The packet that takes an object from `now` (its coordinate and RST parameters in the
/// player) to the coordinate `coord` the absolute packet `abs` (written for `target`) gives:
/// a differential packet when it has fewer words and the player makes exactly `coord` of it,
/// else `abs`. `scale_set`: an absolute scale has been written for the object (the PsyQ
/// sample's parameter area starts at scale 0, so a differential packet before one would give
/// it a zero matrix).
pub(super) fn smaller(
    now: &Rst,
    abs: PacketData,
    target: &Written,
    coord: &Mat,
    scale_set: bool,
) -> PacketData {
    let Written::Rst { r, s, t } = *target else {
        return abs;
    };
    if !scale_set {
        return abs;
    }
    let dr = [0, 1, 2].map(|i| r[i].wrapping_sub(now.rotate[i]));
    let dt = [0, 1, 2].map(|i| t[i].wrapping_sub(now.trans[i]));
    let scale = if (0..3).all(|i| i32::from(s[i]) == now.scale[i]) {
        None
    } else {
        let f = [0, 1, 2].map(|i| factor(now.scale[i], i32::from(s[i])));
        let [Some(x), Some(y), Some(z)] = f else {
            return abs;
        };
        Some(Scale { x, y, z, pad: 0 })
    };
    let diff = Coordinate {
        differential: true,
        // The file's angles are 360 × the player's (4096 = 1°).
        rotation: (dr != [0; 3]).then(|| dr.map(|a| i32::from(a) * 360)),
        scale,
        translation: (dt != [0; 3]).then_some(dt),
    };
    let packet = PacketData::Coordinate(diff);
    if packet.words() >= abs.words() {
        return abs;
    }
    let mut next = *now;
    next.apply(&diff);
    if next.coord == *coord {
        packet
    } else {
        abs
    }
}

/// The differential scale `v` with `from · v / 4096 = to` in the player's arithmetic, if an
/// int16 one exists.
fn factor(from: i32, to: i32) -> Option<i16> {
    if from == to {
        return Some(4096);
    }
    if from == 0 {
        return None;
    }
    let v = (to as f64 * 4096.0 / from as f64).round();
    [v, v - 1.0, v + 1.0]
        .into_iter()
        .filter(|v| (-32768.0..=32767.0).contains(v))
        .map(|v| v as i16)
        .find(|&v| from.wrapping_mul(i32::from(v)) / 4096 == to)
}

/// The player's state after `packet`.
pub(super) fn after(now: &Rst, packet: &PacketData) -> Rst {
    let mut next = *now;
    match packet {
        PacketData::Coordinate(c) => next.apply(c),
        PacketData::Matrix(m) => next.coord = Mat { m: m.m, t: m.t },
        _ => {}
    }
    next
}
