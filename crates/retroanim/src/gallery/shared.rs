//! Files of the report written once by content: two assets whose files, PNGs, previews or GLBs
//! are byte-identical (one TIM found in several containers, one model drawn the same twice)
//! share one file, named after the first; `index.json` points both cards at it.
//!
//! An animation on its model is written as a `.gltf` ([`gltf`]) whose model part (meshes,
//! materials and textures: the same bytes for every animation of one model) is a `.model.bin`
//! put here like any file, so twenty TODs of one TMD write the model once, not twenty times.
//!
//! Files are told apart by their SHA-1 and their folder and extension, so a texture and a GLB
//! never share a name even were their bytes equal.

use std::collections::HashMap;
use std::sync::Mutex;

use crate::error::Result;

/// The files written so far, by content.
#[derive(Debug, Default)]
pub(super) struct Shared {
    written: Mutex<HashMap<(String, [u8; 20]), String>>,
    /// Bytes not written because an identical file was.
    saved: std::sync::atomic::AtomicU64,
}

impl Shared {
    /// The report path holding `bytes`: `rel` when no identical file of its kind was written
    /// yet (then `write` writes it), else the earlier file's path.
    pub(super) fn put(
        &self,
        rel: String,
        bytes: &[u8],
        write: impl FnOnce(&str, &[u8]) -> Result<()>,
    ) -> Result<String> {
        let kind = match (rel.split_once('/'), rel.rsplit_once('.')) {
            (Some((dir, _)), Some((_, ext))) => format!("{dir}/.{ext}"),
            _ => rel.clone(),
        };
        let key = (kind, sha1_smol::Sha1::from(bytes).digest().bytes());
        {
            let mut written = self.written.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(first) = written.get(&key) {
                self.saved
                    .fetch_add(bytes.len() as u64, std::sync::atomic::Ordering::Relaxed);
                return Ok(first.clone());
            }
            written.insert(key, rel.clone());
        }
        write(&rel, bytes)?;
        Ok(rel)
    }

    /// Bytes left unwritten because an identical file was written.
    pub(super) fn saved(&self) -> u64 {
        self.saved.load(std::sync::atomic::Ordering::Relaxed)
    }
}

/// Writes an animation's glTF `parts` as `glb/ID.gltf` beside its own data `glb/ID.bin` and its
/// model part `glb/ID.model.bin` ([`crate::export::gltf::Parts::files`]), each through `put`
/// (which returns the path holding the bytes: the model part of an earlier animation of the
/// same model when identical). Returns the `.gltf`'s path.
pub(super) fn gltf(
    parts: &crate::export::gltf::Parts,
    id: &str,
    mut put: impl FnMut(String, &[u8]) -> Result<String>,
) -> Result<String> {
    // Paths are made by `names` (`A-Z a-z 0-9 . _ -` only), so they are URIs as they are.
    let (json, _) = parts.files(&format!("glb/{id}"), &mut put)?;
    put(format!("glb/{id}.gltf"), &json)
}
