//! VDF / NDF: the vertex and normal difference files Sony's MIMEFILT makes from a base TMD and
//! its variants, for libgs TMD MIMe (the TMDVIEW MIME sample).
//!
//! Sources: *Data Conversion* "MIMEFILT" (`reference/Dataconv.txt`: "blocks having the header
//! and difference information for each object are coupled"; its figure is an image); the
//! sample's `NMIME.C` (`set_mdf_vertex`, `set_vertex_mime`) for the fields and their use;
//! libgte `gteMIMefunc` for the arithmetic. Both files have the same layout; little-endian.
//!
//! | offset | size | field | meaning |
//! |---|---|---|---|
//! | 0 | 4 | count | difference blocks; block k is driven by MIMe weight k |
//! | +0 | 4 | object | TMD object number |
//! | +4 | 4 | offset | first vertex (VDF) or normal (NDF) of the object the block changes |
//! | +8 | 4 | total | SVECTORs that follow |
//! | +12 | 8·total | differences | SVECTOR dx, dy, dz, pad |
//!
//! Playback ([`play`]): for each block whose weight `w` is not 0, every vector `v` of the
//! object from `offset` on becomes `v + ((d · w) >> 12)` per component: the GTE's GPF with
//! `sf` = 1 (IR0 = `w` as its low 16 bits, IR1..3 = `d`), each product saturated to int16,
//! the sum stored as a halfword (wrapping). Blocks apply in file order to the base vectors.
//! No magic number: these files are read when named (`--from vdf`, `--from ndf`).

use serde::{Deserialize, Serialize};

use crate::bytes::{Le, Reader, Writer};
use crate::error::Result;
use crate::formats::tmd::{SVector, Tmd};
use crate::report::Issue;
use crate::{Format, Limits};

/// A VDF or NDF file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Diff {
    /// The difference blocks, in file order (block k: MIMe weight k).
    pub blocks: Vec<Block>,
    /// Bytes after the last block, kept verbatim.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub trailing: Vec<u8>,
}

/// One block: differences for a run of one object's vertices (or normals).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Block {
    /// TMD object number.
    pub object: u32,
    /// First vertex (normal) index of the run.
    pub offset: u32,
    /// The differences, one per vertex (normal) of the run.
    pub differences: Vec<SVector>,
}

/// The summary `retroanim info` prints for a VDF or NDF.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Summary {
    /// `"vdf"` or `"ndf"`.
    pub format: &'static str,
    /// Blocks (MIMe keys).
    pub blocks: usize,
    /// Differences over all blocks.
    pub differences: usize,
    /// The objects the blocks change.
    pub objects: Vec<u32>,
}

impl Diff {
    /// The summary `retroanim info` shows (`format`: `"vdf"` or `"ndf"`).
    pub fn summary(&self, format: Format) -> Summary {
        let mut objects: Vec<u32> = self.blocks.iter().map(|b| b.object).collect();
        objects.sort_unstable();
        objects.dedup();
        Summary {
            format: format.name(),
            blocks: self.blocks.len(),
            differences: self.blocks.iter().map(|b| b.differences.len()).sum(),
            objects,
        }
    }
}

/// Reads a VDF or NDF (`format` names which, for errors).
pub fn read_with(data: &[u8], format: Format, limits: &Limits) -> Result<Diff> {
    let mut r = Reader::le(data, format).with_limits(*limits);
    let n = r.u32("block count")?;
    let n = r.count(n as u64, 12, "block count")?;
    let mut blocks = Vec::with_capacity(n);
    for k in 0..n {
        let object = r.u32(&format!("block {k} object"))?;
        let offset = r.u32(&format!("block {k} offset"))?;
        let total = r.u32(&format!("block {k} total"))?;
        let total = r.count(total as u64, 8, &format!("block {k} total"))?;
        let mut differences = Vec::with_capacity(total);
        for _ in 0..total {
            let [x, y, z, pad] = [r.i16("dx")?, r.i16("dy")?, r.i16("dz")?, r.i16("pad")?];
            differences.push(SVector { x, y, z, pad });
        }
        blocks.push(Block {
            object,
            offset,
            differences,
        });
    }
    Ok(Diff {
        blocks,
        trailing: r.rest().to_vec(),
    })
}

/// Writes a VDF or NDF.
pub fn write(d: &Diff) -> Result<Vec<u8>> {
    let size = 4 + d
        .blocks
        .iter()
        .map(|b| 12 + 8 * b.differences.len())
        .sum::<usize>();
    let mut w = Writer::<Le>::with_capacity(size + d.trailing.len());
    w.u32(d.blocks.len() as u32);
    for b in &d.blocks {
        w.u32(b.object);
        w.u32(b.offset);
        w.u32(b.differences.len() as u32);
        for v in &b.differences {
            w.i16(v.x);
            w.i16(v.y);
            w.i16(v.z);
            w.i16(v.pad);
        }
    }
    w.bytes(&d.trailing);
    Ok(w.into_vec())
}

/// Checks a difference file on its own and, given its base TMD, that every block's object and
/// run lie inside it (`normals`: an NDF, runs over the object's normals).
pub fn validate(d: &Diff, base: Option<&Tmd>, normals: bool) -> Vec<Issue> {
    let counts = base.map(|t| base_counts(t, normals));
    validate_counts(d, counts.as_deref(), normals)
}

/// Per object of `t`, the vectors a VDF (`normals` false) or an NDF changes: its vertex or
/// normal count. What [`validate_counts`] checks a difference file against.
pub fn base_counts(t: &Tmd, normals: bool) -> Vec<usize> {
    t.objects
        .iter()
        .map(|o| vectors_of(o, normals).len())
        .collect()
}

/// An object's vertices, or with `normals` its normals: what a VDF (NDF) changes.
fn vectors_of(o: &crate::formats::tmd::Object, normals: bool) -> &[SVector] {
    if normals {
        &o.normals
    } else {
        &o.vertices
    }
}

/// [`validate`] against a base given by its per-object counts ([`base_counts`]); `None`
/// checks the file on its own. Errors `object-range` and `vertex-range` say a block does not
/// fit the base: the pairing of a difference file with its TMD ([`crate::pairing`]) takes
/// only bases without them.
pub fn validate_counts(d: &Diff, base: Option<&[usize]>, normals: bool) -> Vec<Issue> {
    let mut out = Vec::new();
    if d.blocks.len() > 32 {
        out.push(Issue::warning(
            0,
            "too-many-keys",
            format!(
                "{} blocks: libgs MIMe takes up to 32 differences per primitive",
                d.blocks.len()
            ),
        ));
    }
    let mut at = 4u64;
    for (k, b) in d.blocks.iter().enumerate() {
        if let Some(counts) = base {
            match counts.get(b.object as usize) {
                None => out.push(Issue::error(
                    at,
                    "object-range",
                    format!(
                        "block {k}: object {} does not exist (the TMD has {})",
                        b.object,
                        counts.len()
                    ),
                )),
                Some(&n) => {
                    let end = b.offset as u64 + b.differences.len() as u64;
                    if end > n as u64 {
                        out.push(Issue::error(
                            at + 4,
                            "vertex-range",
                            format!(
                                "block {k}: {} {} .. {end} of object {}, which has {n}",
                                if normals { "normals" } else { "vertices" },
                                b.offset,
                                b.object
                            ),
                        ));
                    }
                }
            }
        }
        at += 12 + 8 * b.differences.len() as u64;
    }
    if !d.trailing.is_empty() {
        out.push(Issue::info(
            at,
            "trailing-bytes",
            format!("{} bytes after the last block", d.trailing.len()),
        ));
    }
    out
}

/// `d` (a `format` file, VDF or NDF) against its base `tmd`: its first validation error as a
/// [`crate::Error::Malformed`] at the block's byte offset, "… (against the TMD given)".
pub fn check_against(d: &Diff, tmd: &Tmd, format: Format) -> Result<()> {
    match validate(d, Some(tmd), format == Format::Ndf)
        .into_iter()
        .find(|i| i.severity == crate::Severity::Error)
    {
        Some(i) => Err(crate::Error::Malformed {
            format,
            offset: i.offset,
            what: format!("{} (against the TMD given)", i.message),
        }),
        None => Ok(()),
    }
}

/// [`play`] onto the objects of `tmd`: their vertices, or with `normals` (an NDF) their
/// normals.
pub fn play_on(d: &Diff, tmd: &Tmd, normals: bool, weights: &[i32]) -> Vec<Vec<SVector>> {
    let base: Vec<Vec<SVector>> = tmd
        .objects
        .iter()
        .map(|o| vectors_of(o, normals).to_vec())
        .collect();
    play(d, &base, weights)
}

/// One component of `gteMIMefunc`: `v + sat16((d · w16) >> 12)`, stored as a halfword.
fn mime_component(v: i16, d: i16, w: i16) -> i16 {
    let p = (i64::from(d) * i64::from(w)) >> 12;
    v.wrapping_add(p.clamp(-0x8000, 0x7FFF) as i16)
}

/// Plays the differences onto `base` (per object, its vertices or normals) with one weight per
/// block (4096 = 1.0), as the sample's `set_mime_vertex` calls `gteMIMefunc`: blocks with
/// weight 0 are skipped, the others add in file order. Runs past an object's end are cut there
/// (validate reports them).
pub fn play(d: &Diff, base: &[Vec<SVector>], weights: &[i32]) -> Vec<Vec<SVector>> {
    let mut out = base.to_vec();
    for (b, &w) in d.blocks.iter().zip(weights) {
        if w == 0 {
            continue;
        }
        // IR0 keeps the weight's low 16 bits.
        let w16 = w as i16;
        let Some(vs) = out.get_mut(b.object as usize) else {
            continue;
        };
        for (v, dv) in vs.iter_mut().skip(b.offset as usize).zip(&b.differences) {
            v.x = mime_component(v.x, dv.x, w16);
            v.y = mime_component(v.y, dv.y, w16);
            v.z = mime_component(v.z, dv.z, w16);
        }
    }
    out
}
