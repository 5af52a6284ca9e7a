//! Cameras and `KHR_lights_punctual` lights.

use super::*;

pub(super) fn camera(c: &json::Camera) -> Camera {
    let projection = match (&c.perspective, &c.orthographic) {
        (Some(p), _) => Projection::Perspective {
            yfov: p.yfov,
            znear: p.znear,
            zfar: p.zfar,
            aspect_ratio: p.aspect_ratio,
        },
        (None, Some(o)) => Projection::Orthographic {
            xmag: o.xmag,
            ymag: o.ymag,
            znear: o.znear,
            zfar: o.zfar,
        },
        (None, None) => Projection::Perspective {
            yfov: 1.0,
            znear: 0.01,
            zfar: None,
            aspect_ratio: None,
        },
    };
    Camera {
        name: c.name.clone().unwrap_or_default(),
        projection,
    }
}

/// The file's `KHR_lights_punctual` lights, in order. A light of a type this reader does not
/// know becomes a directional light, noted; a spot light without its `spot` object has glTF's
/// default cone (0 to π/4). Everything a light holds (colour, intensity, range, cone angles) has a
/// place in the scene; a light's own `extensions` do not, and are noted.
pub(super) fn lights(root: &json::Root, notes: &mut Notes) -> Vec<Light> {
    use json::extensions::scene::khr_lights_punctual as k;
    let Some(list) = root
        .extensions
        .as_ref()
        .and_then(|e| e.khr_lights_punctual.as_ref())
    else {
        return Vec::new();
    };
    list.lights
        .iter()
        .enumerate()
        .map(|(i, l)| {
            if l.extensions.is_some() {
                notes.add("extensions on KHR_lights_punctual lights", 1);
            }
            let kind = match l.type_ {
                Checked::Valid(k::Type::Directional) => LightKind::Directional,
                Checked::Valid(k::Type::Point) => LightKind::Point,
                Checked::Valid(k::Type::Spot) => {
                    let spot = l.spot.clone().unwrap_or(k::Spot {
                        inner_cone_angle: 0.0,
                        outer_cone_angle: std::f32::consts::FRAC_PI_4,
                    });
                    LightKind::Spot {
                        inner_cone_angle: spot.inner_cone_angle,
                        outer_cone_angle: spot.outer_cone_angle,
                    }
                }
                Checked::Invalid => {
                    notes.add("lights of an unknown type (read as directional lights)", 1);
                    LightKind::Directional
                }
            };
            Light {
                name: l.name.clone().unwrap_or_else(|| format!("light {i}")),
                kind,
                color: l.color,
                intensity: l.intensity,
                // A directional light shines everywhere: glTF gives it no range.
                range: l.range.filter(|_| kind != LightKind::Directional),
            }
        })
        .collect()
}

/// The light on glTF node `i` (`nodes[i].extensions.KHR_lights_punctual.light`), checked
/// against the `count` lights the file holds.
pub(super) fn node_light(node: &json::Node, i: usize, count: usize) -> Result<Option<usize>> {
    let Some(l) = node
        .extensions
        .as_ref()
        .and_then(|e| e.khr_lights_punctual.as_ref())
    else {
        return Ok(None);
    };
    let l = l.light.value();
    if l >= count {
        return Err(malformed(
            0,
            format!("nodes[{i}].extensions.KHR_lights_punctual.light: {l} does not exist ({count} lights)"),
        ));
    }
    Ok(Some(l))
}
