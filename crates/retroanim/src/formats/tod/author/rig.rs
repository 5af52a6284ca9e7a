//! Cameras and lights: the scene's camera and light nodes → TOD camera (type 7) and light
//! (type 6) packets, the inverse of the TOD bridge's reading (see the module docs of
//! [`super`], "Cameras and lights").

use super::*;
use crate::formats::flat_lights;
use crate::formats::tod::scene::{console_projection, look_at_axes, norm};
use crate::formats::tod::{Camera as TodCamera, Color, Light as TodLight, LookAtCamera};
use crate::scene::Projection;

/// How far along the view axis a look-at camera's reference point is put, in console units:
/// far enough that rounding it to integers turns the view by at most 0.87/4096 rad, near enough
/// that libgs's `GsSetRefView2` can square the differences in 32 bits.
pub(super) const REFERENCE_DISTANCE: f64 = 4096.0;

/// A look-at camera's position and reference point, and its z angle.
type Look = ([i32; 6], i32);

/// The camera and light nodes of a scene and what was last written for each.
pub(super) struct Rig {
    signs: [f64; 3],
    /// Console units per metre.
    k: f64,
    /// Raw axes: the console camera's +Z forward, +Y down is the node's turned half a turn
    /// about X (the bridge's "lens" child).
    lens: bool,
    /// Node, camera number, last position + reference point and z angle.
    cameras: Vec<(usize, u16, Option<Look>)>,
    /// Node, light number, colour word, last direction.
    lights: Vec<(usize, u16, Color, Option<[i32; 3]>)>,
}

impl Rig {
    /// The cameras and lights of `scene` that a TOD can hold, with a note for each thing it
    /// cannot.
    pub(super) fn new(scene: &Scene, opts: &TodAuthorOptions, notes: &mut Counts) -> Result<Rig> {
        let mut cameras = Vec::new();
        let (mut ortho, mut fov) = (0, 0);
        for (i, x) in scene.nodes.iter().enumerate() {
            let Some(c) = x.camera.and_then(|c| scene.cameras.get(c)) else {
                continue;
            };
            match (c.projection, console_projection()) {
                (Projection::Orthographic { .. }, _) => ortho += 1,
                (Projection::Perspective { yfov, .. }, Projection::Perspective { yfov: y, .. })
                    if (yfov - y).abs() > 1e-4 =>
                {
                    fov += 1
                }
                _ => {}
            }
            cameras.push((i, 0, None));
        }
        let numbers = kept_numbers(scene, cameras.iter().map(|c| c.0), "camera");
        for (c, k) in cameras.iter_mut().zip(numbers) {
            c.1 = k;
        }
        if cameras.len() > 0x10000 {
            return Err(Error::Unencodable {
                format: Format::Tod,
                what: format!("{} cameras; a TOD numbers at most 65536", cameras.len()),
            });
        }
        notes.add("camera-orthographic", ortho, || {
            "orthographic cameras written as look-at cameras: a TOD camera has no projection (the program sets it with GsSetProjection)".into()
        });
        notes.add("camera-fov-dropped", fov, || {
            format!(
                "camera fields of view left out: a TOD camera has no projection (the TOD bridge reads {:.1}°, GsSetProjection(256) on a 240-line screen)",
                (2.0 * (120.0f64 / 256.0).atan()).to_degrees()
            )
        });
        let picked = flat_lights::pick(scene, notes);
        let numbers = kept_numbers(scene, picked.iter().map(|l| l.node), "light");
        let lights = picked
            .into_iter()
            .zip(numbers)
            .map(|(l, k)| {
                let [r, g, b] = l.color;
                (l.node, k, Color { r, g, b, pad: 0 }, None)
            })
            .collect();
        Ok(Rig {
            signs: match opts.axes {
                Axes::YUp => [1.0, -1.0, -1.0],
                Axes::Raw => [1.0, 1.0, 1.0],
            },
            k: 1.0 / opts.scale as f64,
            lens: opts.axes == Axes::Raw,
            cameras,
            lights,
        })
    }

    /// The camera and light packets that take the console from the last frame's values to the
    /// ones `worlds` (every node's world matrix now) give; all of them the first time.
    pub(super) fn packets(
        &mut self,
        worlds: &[Mat4],
        frame: u64,
        out: &mut Vec<Packet>,
    ) -> Result<()> {
        for (node, id, last) in self.cameras.iter_mut() {
            let id = *id;
            let w = &worlds[*node];
            let eye = [0, 1, 2].map(|i| w[12 + i] * self.signs[i] * self.k);
            if !eye
                .iter()
                .all(|v| v.is_finite() && v.abs() < 2.1e9 - REFERENCE_DISTANCE)
            {
                return Err(Error::Unencodable {
                    format: Format::Tod,
                    what: format!(
                        "camera node {node} at frame {frame}: it lies {:.0} console units out, past int32",
                        eye.iter().fold(0.0f64, |a, v| a.max(v.abs()))
                    ),
                });
            }
            // A camera scaled to nothing (hidden) has no view axis: it keeps its last values.
            let Some((position, z_angle)) = look_at(w, self.signs, self.k, self.lens) else {
                continue;
            };
            let (p0, z0) = match *last {
                Some((p, z)) => (Some(p), Some(z)),
                None => (None, None),
            };
            let moved = p0 != Some(position);
            let turned = z0 != Some(z_angle);
            if moved || turned {
                out.push(Packet::new(
                    id,
                    PacketData::Camera(TodCamera::LookAt(LookAtCamera {
                        differential: false,
                        position: moved.then_some(position),
                        z_angle: turned.then_some(z_angle),
                    })),
                ));
            }
            *last = Some((position, z_angle));
        }
        for (node, id, color, last) in self.lights.iter_mut() {
            let id = *id;
            let w = &worlds[*node];
            // A light shines down its node's −Z.
            // A light scaled to nothing (hidden) has no direction: it keeps its last one.
            let Some(d) = norm([0, 1, 2].map(|i| -w[8 + i] * self.signs[i])) else {
                continue;
            };
            let direction = d.map(|v| (v * 4096.0).round() as i32);
            if *last != Some(direction) {
                out.push(Packet::new(
                    id,
                    PacketData::Light(TodLight {
                        differential: false,
                        direction: Some(direction),
                        color: last.is_none().then_some(*color),
                    }),
                ));
            }
            *last = Some(direction);
        }
        Ok(())
    }
}

impl Rig {
    /// A packet that changes nothing, for the first camera or light (`None` without either).
    pub(super) fn no_op(&self) -> Option<Packet> {
        if let Some(c) = self.cameras.first() {
            return Some(Packet::new(
                c.1,
                PacketData::Camera(TodCamera::LookAt(LookAtCamera::default())),
            ));
        }
        self.lights
            .first()
            .map(|l| Packet::new(l.1, PacketData::Light(TodLight::default())))
    }
}

/// The camera or light numbers (`what`: `"camera"`, `"light"`) of `nodes`: the number a node's
/// extras keep (`docs/extras.md`) when no earlier node took it, else the smallest free one. A
/// node without the number takes its parent's when the parent shows no camera or light of its
/// own: the camera sits in a child node (the bridge's raw-axes "lens", or a node Blender's
/// importer split off).
fn kept_numbers(scene: &Scene, nodes: impl Iterator<Item = usize>, what: &str) -> Vec<u16> {
    let nodes: Vec<usize> = nodes.collect();
    let mut taken = std::collections::BTreeSet::new();
    let number = |i: usize| crate::scene::extras::get_u64(&scene.nodes[i].extras, "tod", what);
    let kept: Vec<Option<u16>> = nodes
        .iter()
        .map(|&i| {
            number(i)
                .or_else(|| {
                    let p = scene.nodes[i].parent?;
                    let parent = scene.nodes.get(p)?;
                    (parent.camera.is_none() && parent.light.is_none())
                        .then(|| number(p))
                        .flatten()
                })
                .and_then(|v| u16::try_from(v).ok())
                .filter(|&v| taken.insert(v))
        })
        .collect();
    let mut next = 0u16;
    kept.into_iter()
        .map(|k| {
            k.unwrap_or_else(|| {
                while taken.contains(&next) {
                    next = next.saturating_add(1);
                }
                taken.insert(next);
                next
            })
        })
        .collect()
}

/// A type 0 camera for a camera node's world matrix `w` (scene axes): position and reference
/// point (console units), z angle (4096 = 1°). `None` when its matrix has no view axis or it
/// lies past int32.
pub(super) fn look_at(w: &Mat4, signs: [f64; 3], k: f64, lens: bool) -> Option<Look> {
    let mut m = console_matrix(w, signs);
    if lens {
        // The node's matrix is the lens's turned back: columns y and z change sign.
        for row in &mut m {
            row[1] = -row[1];
            row[2] = -row[2];
        }
    }
    let col = |j: usize| [m[0][j], m[1][j], m[2][j]];
    let z = norm(col(2))?;
    let x = norm(col(0))?;
    let fits = |v: f64| v.is_finite() && v.abs() < 2.1e9;
    let eye = [0, 1, 2].map(|i| (w[12 + i] * signs[i] * k).round());
    let ahead = z.map(|v| (v * REFERENCE_DISTANCE).round());
    if !eye
        .iter()
        .all(|&v| fits(v + REFERENCE_DISTANCE) && fits(v - REFERENCE_DISTANCE))
    {
        return None;
    }
    // The roll is measured from the level axes of the view the player rebuilds from the
    // rounded reference point, not of the exact one (which differ by up to 0.87/4096 rad).
    let (x0, y0) = look_at_axes(norm(ahead)?);
    let dot = |a: [f64; 3], b: [f64; 3]| a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    // The bridge turns x0 towards y0 by the z angle.
    let roll = dot(x, y0).atan2(dot(x, x0));
    let e = eye.map(|v| v as i32);
    let t = [0, 1, 2].map(|i| (eye[i] + ahead[i]) as i32);
    Some((
        [e[0], e[1], e[2], t[0], t[1], t[2]],
        (roll.to_degrees() * 4096.0).round() as i32,
    ))
}
