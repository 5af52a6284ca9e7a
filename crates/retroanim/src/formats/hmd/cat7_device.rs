//! Category 7, device primitives: cameras and lights (notes §11; File Formats pp. 2-128..2-130).
//!
//! Type `0x07DD0100` is a camera, `0x07DD0200` a light; the driver byte DD selects the operation.
//! The primitive header points to the parameter section and to the coordinates the device sits
//! in and refers to. A light primitive carries one data word `[light number, parameter index]`.

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
