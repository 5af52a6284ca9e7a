//! Visibility → scale: glTF has no visibility, so a visibility channel becomes scale keys
//! (0 while hidden), merged with the node's scale channel (see the module docs of
//! [`super`] for the rules).

use crate::scene::{Animation, Channel, Interpolation, Scene, Track};

/// The scene's animations with every visibility channel merged into a scale channel.
pub fn merge(scene: &Scene) -> Vec<Animation> {
    scene
        .animations
        .iter()
        .map(|a| {
            let mut channels: Vec<Channel> = Vec::with_capacity(a.channels.len());
            for c in &a.channels {
                let Track::Visibility(vis) = &c.track else {
                    // A scale channel of a node that also has visibility is emitted with it.
                    let merged_later = matches!(c.track, Track::Scale(_))
                        && a.channels
                            .iter()
                            .any(|v| v.node == c.node && matches!(v.track, Track::Visibility(_)));
                    if !merged_later {
                        channels.push(c.clone());
                    }
                    continue;
                };
                let scale = a
                    .channels
                    .iter()
                    .find(|s| s.node == c.node && matches!(s.track, Track::Scale(_)));
                let rest = super::transform::trs(&scene.nodes[c.node].transform).2;
                channels.push(merge_one(c.node, &c.times, vis, scale, rest));
            }
            Animation {
                name: a.name.clone(),
                channels,
                extras: a.extras.clone(),
            }
        })
        .collect()
}

fn merge_one(
    node: usize,
    vis_times: &[f32],
    vis: &[bool],
    scale: Option<&Channel>,
    rest: [f32; 3],
) -> Channel {
    let stepped = scale.map_or(true, |s| s.interpolation == Interpolation::Step);
    let mut times: Vec<f32> = vis_times.to_vec();
    if let Some(s) = scale {
        times.extend_from_slice(&s.times);
    }
    if !stepped {
        // Keep each change of visibility a jump under linear interpolation.
        for k in 1..vis.len() {
            if vis[k] != vis[k - 1] && vis_times[k] > 0.0 {
                times.push(f32::from_bits(vis_times[k].to_bits() - 1));
            }
        }
    }
    times.sort_by(f32::total_cmp);
    times.dedup_by(|a, b| a.to_bits() == b.to_bits());
    let values: Vec<[f32; 3]> = times
        .iter()
        .map(|&t| {
            let s = scale.map_or(rest, |s| scale_at(s, t));
            if visible_at(vis_times, vis, t) {
                s
            } else {
                [0.0; 3]
            }
        })
        .collect();
    Channel {
        node,
        interpolation: if stepped {
            Interpolation::Step
        } else {
            Interpolation::Linear
        },
        times,
        track: Track::Scale(values),
    }
}

/// The stepped visibility at `t` (the first key's before it).
fn visible_at(times: &[f32], vis: &[bool], t: f32) -> bool {
    let k = times.partition_point(|x| *x <= t);
    vis[k.saturating_sub(1)]
}

/// The scale channel's value at `t`, clamped to its first and last keys.
fn scale_at(c: &Channel, t: f32) -> [f32; 3] {
    let Track::Scale(v) = &c.track else {
        return [1.0; 3];
    };
    let cubic = c.interpolation == Interpolation::Cubicspline;
    let value = |k: usize| if cubic { v[3 * k + 1] } else { v[k] };
    let n = c.times.len();
    let k = c.times.partition_point(|x| *x <= t);
    if k == 0 {
        return value(0);
    }
    if k >= n {
        return value(n - 1);
    }
    let (i, j) = (k - 1, k);
    let (t0, t1) = (c.times[i] as f64, c.times[j] as f64);
    let s = (t as f64 - t0) / (t1 - t0);
    let mut out = [0.0f32; 3];
    for (a, o) in out.iter_mut().enumerate() {
        let (p0, p1) = (value(i)[a] as f64, value(j)[a] as f64);
        *o = match c.interpolation {
            Interpolation::Step => p0 as f32,
            Interpolation::Linear => (p0 + (p1 - p0) * s) as f32,
            Interpolation::Cubicspline => {
                let td = t1 - t0;
                let b0 = v[3 * i + 2][a] as f64;
                let a1 = v[3 * j][a] as f64;
                let (s2, s3) = (s * s, s * s * s);
                ((2.0 * s3 - 3.0 * s2 + 1.0) * p0
                    + (s3 - 2.0 * s2 + s) * td * b0
                    + (-2.0 * s3 + 3.0 * s2) * p1
                    + (s3 - s2) * td * a1) as f32
            }
        };
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn visibility_alone_becomes_stepped_scale() {
        let c = merge_one(0, &[0.0, 1.0, 2.0], &[true, false, true], None, [2.0; 3]);
        assert_eq!(c.interpolation, Interpolation::Step);
        assert_eq!(c.times, [0.0, 1.0, 2.0]);
        assert_eq!(c.track, Track::Scale(vec![[2.0; 3], [0.0; 3], [2.0; 3]]));
    }

    #[test]
    fn linear_scale_keeps_jumps() {
        let scale = Channel {
            node: 0,
            interpolation: Interpolation::Linear,
            times: vec![0.0, 2.0],
            track: Track::Scale(vec![[1.0; 3], [3.0; 3]]),
        };
        let c = merge_one(0, &[0.0, 1.0], &[true, false], Some(&scale), [1.0; 3]);
        assert_eq!(c.interpolation, Interpolation::Linear);
        let before = f32::from_bits(1.0f32.to_bits() - 1);
        assert_eq!(c.times, [0.0, before, 1.0, 2.0]);
        let Track::Scale(v) = &c.track else { panic!() };
        assert!((v[1][0] - 2.0).abs() < 1e-6);
        assert_eq!(v[2], [0.0; 3]);
        assert_eq!(v[3], [0.0; 3]);
    }
}
