//! Animations: channels of translation, rotation, scale and morph weights.

use super::*;

pub(super) fn animation(
    ctx: &Ctx,
    i: usize,
    a: &json::Animation,
    notes: &mut Notes,
) -> Result<Animation> {
    let mut out = Animation {
        name: a.name.clone().unwrap_or_else(|| format!("animation {i}")),
        extras: extras_value(&a.extras),
        ..Animation::default()
    };
    for (k, c) in a.channels.iter().enumerate() {
        let path = format!("animations[{i}].channels[{k}]");
        let s = a.samplers.get(c.sampler.value()).ok_or_else(|| {
            malformed(
                0,
                format!("{path}: sampler {} does not exist", c.sampler.value()),
            )
        })?;
        let node = c.target.node.value();
        if node >= ctx.root.nodes.len() {
            return Err(malformed(0, format!("{path}: node {node} does not exist")));
        }
        let interpolation = match s.interpolation {
            Checked::Valid(json::animation::Interpolation::Step) => Interpolation::Step,
            Checked::Valid(json::animation::Interpolation::CubicSpline) => {
                Interpolation::Cubicspline
            }
            _ => Interpolation::Linear,
        };
        let times: Vec<f32> = ctx
            .floats(s.input.value(), 1, &path)?
            .into_iter()
            .map(|r| r[0])
            .collect();
        if times.windows(2).any(|w| w[1] < w[0]) {
            return Err(malformed(0, format!("{path}: key times go backwards")));
        }
        use json::animation::Property as P;
        let track = match c.target.path {
            Checked::Valid(P::Translation) => {
                Track::Translation(arr(ctx.floats(s.output.value(), 3, &path)?))
            }
            Checked::Valid(P::Rotation) => {
                Track::Rotation(arr(ctx.floats(s.output.value(), 4, &path)?))
            }
            Checked::Valid(P::Scale) => {
                Track::Scale(arr(ctx.floats(s.output.value(), 3, &path)?))
            }
            Checked::Valid(P::MorphTargetWeights) => {
                let flat: Vec<f32> = ctx
                    .floats(s.output.value(), 1, &path)?
                    .into_iter()
                    .map(|r| r[0])
                    .collect();
                // One weight per morph target of the node's mesh, per value.
                let per = ctx
                    .root
                    .nodes
                    .get(node)
                    .and_then(|n| n.mesh)
                    .and_then(|m| ctx.root.meshes.get(m.value()))
                    .and_then(|m| m.primitives.first())
                    .map_or(0, |p| p.targets.as_ref().map_or(0, Vec::len));
                if per == 0 || flat.len() % per != 0 {
                    return Err(malformed(
                        0,
                        format!(
                            "{path}: {} weights for a node whose mesh has {per} morph targets",
                            flat.len()
                        ),
                    ));
                }
                Track::Weights(flat.chunks(per).map(<[f32]>::to_vec).collect())
            }
            _ => {
                notes.add("animation channels of an unknown path", 1);
                continue;
            }
        };
        let keys = if interpolation == Interpolation::Cubicspline {
            3
        } else {
            1
        };
        if track.len() != times.len() * keys {
            return Err(malformed(
                0,
                format!(
                    "{path}: {} values for {} key times",
                    track.len(),
                    times.len()
                ),
            ));
        }
        out.channels.push(Channel {
            node,
            interpolation,
            times,
            track,
        });
    }
    Ok(out)
}
