//! Key reduction: intervals split where the console's linear angles would miss the scene,
//! keys the driver's own interpolation gives back dropped, angles past int16 wrapped.

use super::*;

/// Drops linear keys the console's own interpolation of their neighbours gives back exactly
/// (integer for integer, with the driver's arithmetic), so a sampled animation keeps only the
/// keys it needs (and a file's parameter section its 16-bit PARAMETER IDX). The key at frame
/// `keep` (a loop's start, which a jump returns to) is kept.
///
/// A run of droppable keys is checked again whole at each key it grows by (quadratic in its
/// length, at most 255 frames), so the keys' integers are rounded once beforehand.
pub(super) fn simplify(keys: &[Key], scaled: bool, keep: Option<u32>) -> Vec<Key> {
    let used = if scaled { 9 } else { 6 };
    let ints: Vec<[i32; 9]> = keys
        .iter()
        .map(|k| k.pose.map(|v| v.round() as i32))
        .collect();
    let exact = |a: usize, b: usize, m: usize| {
        let t = ((keys[b].frame - keys[a].frame) * 16) as i32;
        let r = ((keys[b].frame - keys[m].frame) * 16) as i32;
        (0..used).all(|q| console_lerp(ints[a][q], ints[b][q], r, t) == ints[m][q])
    };
    let mut out = Vec::with_capacity(keys.len());
    let Some(first) = keys.first() else {
        return out;
    };
    out.push(*first);
    let mut i = 0;
    while i + 1 < keys.len() {
        let mut e = i + 1;
        while e + 1 < keys.len()
            && !keys[e].instant
            && !keys[e + 1].instant
            && Some(keys[e].frame) != keep
            && keys[e + 1].frame - keys[i].frame <= 255
            && (i + 1..=e).all(|m| exact(i, e + 1, m))
        {
            e += 1;
        }
        out.push(keys[e]);
        i = e;
    }
    out
}

/// Angles that unwrapping took past ±28 672 (7 turns) start again near 0: the key is repeated
/// at the same frame with TFRAME 0 and its angles wrapped (the same matrix), and the keys
/// after it follow on from there, so every angle fits int16.
pub(super) fn rewrap(keys: Vec<Key>) -> Vec<Key> {
    const FAR: f64 = 28_672.0;
    let mut out: Vec<Key> = Vec::with_capacity(keys.len());
    let mut shift = [0.0f64; 3];
    for mut k in keys {
        for q in 0..3 {
            k.pose[3 + q] -= shift[q];
        }
        out.push(k);
        if k.pose[3..6].iter().any(|v| v.abs() > FAR) {
            let mut again = k;
            again.instant = true;
            for q in 0..3 {
                let turns = (k.pose[3 + q] / 4096.0).round() * 4096.0;
                again.pose[3 + q] -= turns;
                shift[q] += turns;
            }
            out.push(again);
        }
    }
    out
}

/// Inserts keys between `a` and `b` (exclusive) where linear angles miss the scene's pose.
#[allow(clippy::too_many_arguments)]
pub(super) fn split(
    a: &Key,
    b: &Key,
    raw: &dyn Fn(f64) -> [f64; 9],
    order: u8,
    scaled: bool,
    out: &mut Vec<Key>,
    budget: &mut u64,
    depth: u32,
) {
    if b.frame <= a.frame + 1 || *budget == 0 || depth > 32 {
        return;
    }
    let m = a.frame + (b.frame - a.frame) / 2;
    let mut want = raw(m as f64);
    let mut bb = b.pose;
    unwrap(&mut bb, &a.pose, order);
    unwrap(&mut want, &a.pose, order);
    let s = (m - a.frame) as f64 / (b.frame - a.frame) as f64;
    if close(&lerp(&a.pose, &bb, s), &want, order, scaled) {
        return;
    }
    *budget -= 1;
    let mid = Key {
        frame: m,
        instant: false,
        pose: want,
    };
    split(a, &mid, raw, order, scaled, out, budget, depth + 1);
    out.push(mid);
    split(&mid, b, raw, order, scaled, out, budget, depth + 1);
}
