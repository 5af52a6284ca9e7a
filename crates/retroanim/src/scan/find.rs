//! Reading a find's bytes again, and finds made from bytes in memory.

use std::sync::Arc;

use super::{compact_summary, link_of, ram, source, Find, MemSource, ScanOptions, Status};
use crate::error::{Error, Result};
use crate::Format;

impl Find {
    /// The find's bytes, read again from its container (an HMD mapped in RAM: the file it
    /// was, see [`ram`]).
    pub fn bytes(&self) -> Result<Vec<u8>> {
        let src = self
            .source
            .as_ref()
            .ok_or_else(|| Error::UnknownFormat("the find has no source".into()))?;
        let bytes = source::read_vec(src.as_ref(), self.offset, self.size as usize)?;
        match self.mapped_address {
            None => Ok(bytes),
            Some(a) => ram::unmap_hmd(&bytes, a).ok_or_else(|| Error::Malformed {
                format: Format::Hmd,
                offset: self.offset,
                what: format!("mapped at 0x{a:08x}: a pointer lies before it"),
            }),
        }
    }

    /// A find that is a whole file of its own given as bytes (`path`, `container`, offset 0):
    /// a TIM cut from a VRAM dump, an asset built in memory. Errors when the bytes do not read
    /// as an asset.
    pub fn from_bytes(path: &str, container: &str, bytes: Vec<u8>) -> Result<Find> {
        let limits = ScanOptions::default().limits;
        let model = crate::read_as(&bytes, None, &limits)?;
        let findings = model.validate();
        let warnings = findings
            .iter()
            .filter(|i| i.severity == crate::Severity::Warning)
            .count();
        Ok(Find {
            path: path.to_string(),
            container: container.to_string(),
            offset: 0,
            image_offset: None,
            format: model.format(),
            size: bytes.len() as u64,
            summary: compact_summary(&model),
            status: if warnings == 0 {
                Status::Clean
            } else {
                Status::Warnings
            },
            warnings,
            ok: !findings
                .iter()
                .any(|i| i.severity == crate::Severity::Error),
            findings,
            size_exact: true,
            mapped_address: None,
            lenient: None,
            tmd_candidates: None,
            contains: Vec::new(),
            source: Some(Arc::new(MemSource(bytes.into()))),
            link: link_of(&model),
        })
    }

    /// [`Find::bytes`] with a damaged length field replaced by what the data shows (see
    /// [`super::lenient`]): what readers and conversions take.
    pub fn readable_bytes(&self) -> Result<Vec<u8>> {
        let mut bytes = self.bytes()?;
        if let Some(fix) = &self.lenient {
            fix.apply(&mut bytes);
        }
        Ok(bytes)
    }
}
