//! Scene cameras and lights → category 7 device primitives (File Formats pp. 2-128..2-130;
//! notes §11), the inverse of the bridge's device nodes.
//!
//! A camera or light is written as a **FIX** device in the coordinate it is drawn in (driver 2:
//! type `0x07020100` camera, `0x07020200` light): when its node is a coordinate, position
//! (0, 0, 0) and the point looked at (0, 0, [`AIM`]) in that coordinate — glTF's view and light
//! direction is the node's −Z, which is +Z in the console's axes; when its node is not (a scene
//! whose extras name the coordinates, see `layout`), the same two points of the node's space
//! in its coordinate ancestor's, or in WORLD (driver 1: `0x07010100`, `0x07010200`) without
//! one. The device follows its coordinate wherever the animation takes it. Each device has its
//! own parameter section (a camera's parameters must start its section; a light's data word
//! names word 0).
//!
//! - **Cameras**: `proj` (the distance to the projection plane) from the vertical field of
//!   view as the bridge reads it back, `yfov = 2·atan(120 / proj)` (120 = half of a 240-line
//!   screen); `rot` (roll) 0, so a roll of the node about its view axis is not kept (a note
//!   counts rolled cameras). Orthographic cameras have no console equivalent: left out, noted.
//! - **Lights**: the console's flat lights as [`flat_lights`] picks them (directional and spot
//!   lights, at most three, colour bytes sRGB(colour × intensity), the same notes as the TOD
//!   author), numbered 0, 1, 2 in node order.

use crate::formats::flat_lights;
use crate::formats::tmd::author::Counts;
use crate::scene::sample::{quat_matrix, rest_trs, Trs};
use crate::scene::{Projection, Scene};

use super::super::cat7_device::{CameraParameters, DeviceItem, LightData};
use super::layout::Place;
use super::ToConsole;

/// Distance (console units) from a device to the point it looks at.
pub(super) const AIM: i32 = 4096;

/// One device primitive to write: its type word, its node, the coordinate it sits in (`None`:
/// WORLD), its light data word (lights) and its parameters.
pub(super) struct Device {
    pub(super) type_code: u32,
    pub(super) node: usize,
    pub(super) coordinate: Option<usize>,
    pub(super) light: Option<LightData>,
    pub(super) parameters: DeviceItem,
}

/// Where node `i`'s device sits: the coordinate (`None`: WORLD), the driver byte of its type
/// word, its position and the point it looks at, in console units of that space.
fn placed(
    conv: &ToConsole,
    places: &[Place],
    i: usize,
) -> (Option<usize>, u32, [i32; 3], [i32; 3]) {
    let Some(p) = places.get(i) else {
        return (Some(i), 2, [0; 3], [0, 0, AIM]);
    };
    let driver = if p.coordinate.is_some() { 2 } else { 1 };
    let Some(m) = p.matrix else {
        return (p.coordinate, driver, [0; 3], [0, 0, AIM]);
    };
    // The node's −Z, AIM console units away (`conv.k` units per metre).
    let at = |v: [f64; 3]| {
        let w = [0, 1, 2].map(|r| m[r] * v[0] + m[4 + r] * v[1] + m[8 + r] * v[2] + m[12 + r]);
        conv.point(w)
            .map(|x| x.round().clamp(i32::MIN as f64, i32::MAX as f64) as i32)
    };
    let aim = [0.0, 0.0, -(AIM as f64) / conv.k];
    (p.coordinate, driver, at([0.0; 3]), at(aim))
}

/// The scene's cameras and lights as device primitives, in node order.
pub(super) fn build(
    scene: &Scene,
    conv: &ToConsole,
    places: &[Place],
    notes: &mut Counts,
) -> Vec<Device> {
    let mut out = Vec::new();
    let (mut ortho, mut rolled) = (0, 0);
    for (i, node) in scene.nodes.iter().enumerate() {
        if let Some(cam) = node.camera.and_then(|c| scene.cameras.get(c)) {
            match cam.projection {
                Projection::Perspective { yfov, .. } => {
                    let half = (yfov as f64 / 2.0).tan();
                    let proj = if half > 0.0 && half.is_finite() {
                        (120.0 / half).round().clamp(1.0, i32::MAX as f64) as i32
                    } else {
                        1
                    };
                    rolled += usize::from(has_roll(&node.transform));
                    let (coordinate, driver, position, reference) = placed(conv, places, i);
                    out.push(Device {
                        type_code: 0x0700_0100 | driver << 16,
                        node: i,
                        coordinate,
                        light: None,
                        parameters: DeviceItem::Camera(CameraParameters {
                            projection: proj,
                            rot: 0,
                            position,
                            reference,
                        }),
                    });
                }
                Projection::Orthographic { .. } => ortho += 1,
            }
        }
    }
    for (number, l) in (0u16..).zip(flat_lights::pick(scene, notes)) {
        let [r, g, b] = l.color;
        let (coordinate, driver, position, reference) = placed(conv, places, l.node);
        out.push(Device {
            type_code: 0x0700_0200 | driver << 16,
            node: l.node,
            coordinate,
            light: Some(LightData {
                number,
                parameter_index: 0,
            }),
            parameters: DeviceItem::Light {
                index: 0,
                color: [r, g, b, 0],
                position,
                reference,
            },
        });
    }
    // Node order, a node's camera before its light.
    out.sort_by_key(|d| d.node);
    notes.add("camera-orthographic", ortho, || {
        "orthographic camera(s) left out (the console projects in perspective only)".into()
    });
    notes.add("camera-roll", rolled, || {
        "camera(s) rolled about their view axis: written with roll 0 (position and aim kept)".into()
    });
    out
}

/// True when a node's rest rotation rolls it about its view axis (relative to its parent).
fn has_roll(t: &crate::scene::Transform) -> bool {
    let Trs { rotation, .. } = rest_trs(t);
    // Column 0 of the rotation is the local x axis in the parent's space: a camera without roll
    // keeps it horizontal (no +Y component).
    quat_matrix(rotation)[1][0].abs() > 1e-3
}
