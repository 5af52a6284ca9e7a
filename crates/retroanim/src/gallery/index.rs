//! `index.json`: the report's data, one record per asset, for the page and for other tools.
//!
//! Paths are relative to the report's folder (forward slashes), except [`SourceRef::path`],
//! which is the file that was scanned as its caller named it.

use serde::{Deserialize, Serialize};

use crate::scan::Find;

/// Version of the `index.json` layout; raised when a field changes meaning or goes away.
pub const INDEX_VERSION: u32 = 1;

/// Where an asset's bytes are.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceRef {
    /// The input it was found under (a file or a folder's file, as scanned).
    pub path: String,
    /// The file holding it: the input, or `input:/PATH/IN/IMAGE`.
    pub container: String,
    /// Byte offset in the container.
    pub offset: u64,
    /// Size in bytes (absent in references to other assets).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// Byte offset in the disc image file, when it is in one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub image_offset: Option<u64>,
}

impl SourceRef {
    /// The place of `find`, with its size.
    pub fn of(find: &Find) -> SourceRef {
        SourceRef {
            path: find.path.clone(),
            container: find.container.clone(),
            offset: find.offset,
            size: Some(find.size),
            image_offset: find.image_offset,
        }
    }

    /// The place of `find`, as a reference from another asset (no size).
    pub fn reference(find: &Find) -> SourceRef {
        SourceRef {
            size: None,
            image_offset: None,
            ..SourceRef::of(find)
        }
    }
}

/// An asset paired with another (a texture with its model, a model with its animation).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Pairing {
    /// Where the paired asset is.
    pub source: SourceRef,
    /// The paired asset's `id` in this report.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// How sure the pairing is, 0..1 (below 0.5 it is a candidate shown, never used).
    pub confidence: f64,
    /// Why it was chosen, in plain words.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub why: String,
    /// Other assets that could take its place, best first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub alternatives: Vec<Pairing>,
}

/// A file nested inside the asset's bytes (a TIM inside an HMD).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Inside {
    /// Its format name.
    pub format: String,
    /// Its offset in the container.
    pub offset: u64,
    /// Its size.
    pub size: u64,
}

/// One card of the report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Asset {
    /// Unique in the report; also the stem of its files' names.
    pub id: String,
    /// Format name (`tod`, `tmd`, `tim`, `hmd`, `p3d`, `vdf`, …).
    pub format: String,
    /// Where it was found.
    pub source: SourceRef,
    /// `clean` or `warnings` (finds with validation errors are not reported by the scanner).
    pub status: String,
    /// Validation warnings and notes of its conversions, in plain words.
    pub warnings: Vec<String>,
    /// Its picture (PNG, animated PNG when [`Asset::animated`]), or `null` with the reason in
    /// [`Asset::no_preview`].
    pub preview: Option<String>,
    /// Whether the preview is an animation.
    pub animated: bool,
    /// Why there is no preview.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub no_preview: Option<String>,
    /// Textures matched to it, best first.
    pub textures: Vec<Pairing>,
    /// The model it animates (TOD) or the base TMD it changes (VDF, NDF), if one was paired
    /// with confidence 0.5 or more.
    pub model: Option<Pairing>,
    /// Other model candidates (all of them when none is used), best first: shown, not used.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub alternatives: Vec<Pairing>,
    /// MIMe differences: the file of the other kind that goes with it (a VDF's NDF, an NDF's
    /// VDF), in its GLB too.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partner: Option<Pairing>,
    /// The extracted bytes.
    pub file: String,
    /// Its glTF, if it converts to one: a `.glb`, or for an animation on its model a `.gltf`
    /// whose buffers are files beside it (the model's part shared by its animations).
    pub glb: Option<String>,
    /// Its PNG (textures).
    pub png: Option<String>,
    /// Files nested inside it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub contains: Vec<Inside>,
    /// Its summary as `retroanim info --json` gives it.
    pub summary: serde_json::Value,
}

/// A file listed but not scanned, or a container that could not be walked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Unread {
    /// Where.
    pub container: String,
    /// Why (with the byte offset, for errors).
    pub reason: String,
}

/// The whole of `index.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Index {
    /// [`INDEX_VERSION`].
    pub version: u32,
    /// `retroanim` and its version.
    pub generator: String,
    /// The paths scanned.
    pub inputs: Vec<String>,
    /// One per find of the scan, in the scan's order.
    pub assets: Vec<Asset>,
    /// Files listed but not scanned.
    pub skipped: Vec<Unread>,
    /// Containers that could not be walked.
    pub errors: Vec<Unread>,
    /// What the report leaves out, each with its count.
    pub notes: Vec<String>,
}
