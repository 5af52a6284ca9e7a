//! Scene cameras and lights → category 7 device primitives (File Formats pp. 2-128..2-130;
//! notes §11), the inverse of the bridge's device nodes.
//!
//! Every scene node is a coordinate of its own, so a camera or light is written as a **FIX**
//! device in its node's coordinate (driver 2: type `0x07020100` camera, `0x07020200` light):
//! position (0, 0, 0) and the point looked at (0, 0, [`AIM`]) in that coordinate — glTF's view
//! and light direction is the node's −Z, which is +Z in the console's axes. The device follows
//! its node wherever the animation takes it. Each device has its own parameter section (a
//! camera's parameters must start its section; a light's data word names word 0).
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

/// Distance (console units) from a device to the point it looks at.
pub(super) const AIM: i32 = 4096;

/// One device primitive to write: its type word, the node (coordinate) it sits in, its light
/// data word (lights) and its parameters.
pub(super) struct Device {
    pub(super) type_code: u32,
    pub(super) node: usize,
    pub(super) light: Option<LightData>,
    pub(super) parameters: DeviceItem,
}

/// The scene's cameras and lights as device primitives, in node order.
pub(super) fn build(scene: &Scene, notes: &mut Counts) -> Vec<Device> {
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
                    out.push(Device {
                        type_code: 0x0702_0100,
                        node: i,
                        light: None,
                        parameters: DeviceItem::Camera(CameraParameters {
                            projection: proj,
                            rot: 0,
                            position: [0; 3],
                            reference: [0, 0, AIM],
                        }),
                    });
                }
                Projection::Orthographic { .. } => ortho += 1,
            }
        }
    }
    for (number, l) in (0u16..).zip(flat_lights::pick(scene, notes)) {
        let [r, g, b] = l.color;
        out.push(Device {
            type_code: 0x0702_0200,
            node: l.node,
            light: Some(LightData {
                number,
                parameter_index: 0,
            }),
            parameters: DeviceItem::Light {
                index: 0,
                color: [r, g, b, 0],
                position: [0; 3],
                reference: [0, 0, AIM],
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
