//! Category 7, device primitives: cameras and lights (notes §11; File Formats pp. 2-128..2-130).
//!
//! Type `0x07DD0100` is a camera, `0x07DD0200` a light; the driver byte DD selects the operation.
//! The primitive header points to the parameter section and to the coordinates the device sits
//! in and refers to. A light primitive carries one data word `[light number, parameter index]`.

use crate::bytes::{ByteOrder, Le};
use serde::{Deserialize, Serialize};

/// The device a category 7 type word describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DeviceKind {
    /// Driver 0, camera: projection (distance to the screen).
    Projection,
    /// Driver 1, camera: position and target in WORLD coordinates.
    WorldCamera,
    /// Driver 2, camera: position and target in one coordinate system.
    FixCamera,
    /// Driver 3, camera: position in one coordinate system, target in another.
    AimCamera,
    /// Driver 0, light: ambient colour.
    Ambient,
    /// Driver 1, light: flat light in WORLD coordinates.
    WorldLight,
    /// Driver 2, light: flat light in one coordinate system.
    FixLight,
    /// Driver 3, light: flat light aimed from one coordinate system at another.
    AimLight,
}

impl DeviceKind {
    /// Decodes a type word (category 7 assumed); `None` for other data types or drivers.
    pub fn from_code(code: u32) -> Option<DeviceKind> {
        use DeviceKind::*;
        let driver = (code >> 16) & 0xFF;
        Some(match (code & 0xFFFF, driver) {
            (0x0100, 0) => Projection,
            (0x0100, 1) => WorldCamera,
            (0x0100, 2) => FixCamera,
            (0x0100, 3) => AimCamera,
            (0x0200, 0) => Ambient,
            (0x0200, 1) => WorldLight,
            (0x0200, 2) => FixLight,
            (0x0200, 3) => AimLight,
            _ => return None,
        })
    }

    /// True for the light kinds.
    pub fn is_light(self) -> bool {
        matches!(
            self,
            DeviceKind::Ambient
                | DeviceKind::WorldLight
                | DeviceKind::FixLight
                | DeviceKind::AimLight
        )
    }

    /// Words of the parameter section the device reads: camera `proj, rot, vx, vy, vz, rx,
    /// ry, rz`; light `[r g b 0]`, then position and target unless ambient.
    pub fn parameter_words(self) -> usize {
        match self {
            DeviceKind::Ambient => 1,
            k if k.is_light() => 7,
            _ => 8,
        }
    }
}

/// The data word of a light primitive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct LightData {
    /// Lower halfword: light number 0..2.
    pub number: u16,
    /// Upper halfword: word offset of the light's parameters in the parameter section.
    pub parameter_index: u16,
}

impl LightData {
    /// Decodes the word.
    pub fn from_word(w: u32) -> Self {
        LightData {
            number: w as u16,
            parameter_index: (w >> 16) as u16,
        }
    }

    /// The stored word.
    pub fn word(self) -> u32 {
        self.number as u32 | (self.parameter_index as u32) << 16
    }
}

/// Camera parameters (8 words).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct CameraParameters {
    /// Distance from the viewpoint to the projection plane.
    pub projection: i32,
    /// Camera roll (the manual says 4096 = 1°; PSXPrev reads 4096 = 360°).
    pub rot: i32,
    /// Camera position (WORLD, or in the camera's coordinate system for FIX / AIM).
    pub position: [i32; 3],
    /// The point looked at (WORLD, camera-local for FIX, reference-coordinate-local for AIM).
    pub reference: [i32; 3],
}

/// One item of a device parameter section.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DeviceItem {
    /// Camera parameters at word 0 of the section a camera header points to.
    Camera(CameraParameters),
    /// An ambient colour `[r g b pad]`.
    Ambient {
        /// Word offset in the section (the light data's parameter index).
        index: u16,
        /// r, g, b, pad.
        color: [u8; 4],
    },
    /// A flat light: colour, position and target.
    Light {
        /// Word offset in the section (the light data's parameter index).
        index: u16,
        /// r, g, b, pad.
        color: [u8; 4],
        /// Light position.
        position: [i32; 3],
        /// The point it shines at.
        reference: [i32; 3],
    },
    /// Words no device primitive reads.
    Raw(Vec<u32>),
}

impl DeviceItem {
    /// Words the item takes.
    pub fn words(&self) -> usize {
        match self {
            DeviceItem::Camera(_) => 8,
            DeviceItem::Ambient { .. } => 1,
            DeviceItem::Light { .. } => 7,
            DeviceItem::Raw(w) => w.len(),
        }
    }

    /// The item's word offset in its section, for the positioned kinds.
    pub fn index(&self) -> Option<u16> {
        match self {
            DeviceItem::Camera(_) => Some(0),
            DeviceItem::Ambient { index, .. } | DeviceItem::Light { index, .. } => Some(*index),
            DeviceItem::Raw(_) => None,
        }
    }

    /// Decodes an item of `kind` at the start of `w`.
    pub fn decode(kind: DeviceKind, index: u16, w: &[u32]) -> Option<DeviceItem> {
        let v3 = |s: &[u32]| [s[0] as i32, s[1] as i32, s[2] as i32];
        Some(match kind {
            DeviceKind::Ambient => DeviceItem::Ambient {
                index,
                color: Le::u32_to(*w.first()?),
            },
            k if k.is_light() => {
                let w = w.get(..7)?;
                DeviceItem::Light {
                    index,
                    color: Le::u32_to(w[0]),
                    position: v3(&w[1..4]),
                    reference: v3(&w[4..7]),
                }
            }
            _ => {
                let w = w.get(..8)?;
                DeviceItem::Camera(CameraParameters {
                    projection: w[0] as i32,
                    rot: w[1] as i32,
                    position: v3(&w[2..5]),
                    reference: v3(&w[5..8]),
                })
            }
        })
    }

    /// Appends the encoded words.
    pub fn encode(&self, out: &mut Vec<u32>) {
        let v3 = |out: &mut Vec<u32>, v: &[i32; 3]| out.extend(v.iter().map(|&x| x as u32));
        match self {
            DeviceItem::Camera(c) => {
                out.push(c.projection as u32);
                out.push(c.rot as u32);
                v3(out, &c.position);
                v3(out, &c.reference);
            }
            DeviceItem::Ambient { color, .. } => out.push(Le::u32_from(*color)),
            DeviceItem::Light {
                color,
                position,
                reference,
                ..
            } => {
                out.push(Le::u32_from(*color));
                v3(out, position);
                v3(out, reference);
            }
            DeviceItem::Raw(w) => out.extend_from_slice(w),
        }
    }
}
