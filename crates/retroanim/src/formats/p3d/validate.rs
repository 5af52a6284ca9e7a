//! P3D validation: every finding with its severity and byte offset.

use crate::report::Issue;

use super::types::*;

/// Checks a P3D model and returns every finding. Offsets are those of the file the model was
/// read from (recomputed exactly as the writer lays it out).
pub fn validate(p3d: &P3d) -> Vec<Issue> {
    match p3d {
        P3d::Mlod(m) => validate_mlod(m),
        P3d::Odol(o) => validate_odol(o),
    }
}

/// The error findings of LOD `lod` alone whose codes are in `codes`, as the first of them
/// an exporter returns: a conversion refuses content with validate's own offset and message.
pub(crate) fn export_check(p3d: &P3d, lod: usize, codes: &[&str]) -> crate::error::Result<()> {
    let mut out = Vec::new();
    match p3d {
        P3d::Mlod(m) => {
            let mut offset = 12u64;
            for (i, l) in m.lods.iter().enumerate().take(lod + 1) {
                let mut scratch = Vec::new();
                let next = validate_lod(&mut scratch, i, l, offset);
                if i == lod {
                    out = scratch;
                }
                offset = next;
            }
        }
        P3d::Odol(o) => {
            if let (Some(l), Some(&at)) = (o.lods.get(lod), o.lod_starts().get(lod)) {
                odol_lod(&mut out, o, lod, l, at);
            }
        }
    }
    match out
        .into_iter()
        .find(|i| i.severity == crate::Severity::Error && codes.contains(&i.code.as_str()))
    {
        Some(i) => Err(crate::error::Error::Malformed {
            format: crate::Format::P3d,
            offset: i.offset,
            what: i.message,
        }),
        None => Ok(()),
    }
}

fn validate_odol(o: &Odol) -> Vec<Issue> {
    let mut out = Vec::new();
    for (i, (lod, offset)) in o.lods.iter().zip(o.lod_starts()).enumerate() {
        odol_lod(&mut out, o, i, lod, offset);
    }
    super::odol::model_info_findings(o, &mut out);
    out
}

fn odol_lod(out: &mut Vec<Issue>, o: &Odol, i: usize, lod: &OdolLod, offset: u64) {
    let width = o.lod_counts(i).map(|c| c.0);
    odol_geometry(out, o, i, offset);
    let mut at = offset + lod.geometry.0.len() as u64 + 4;
    for (k, f) in lod.frames.iter().enumerate() {
        if let Some(w) = width {
            if f.positions.len() != w {
                out.push(Issue::error(
                    at + 4,
                    "frame-size",
                    format!(
                        "LOD {i} frame {k}: {} positions, but the LOD has {w} vertices",
                        f.positions.len()
                    ),
                ));
            }
        }
        if let Some(v) = f
            .positions
            .iter()
            .position(|p| !p.iter().all(|c| c.is_finite()))
        {
            out.push(Issue::error(
                at + 8 + 12 * v as u64,
                "position-not-finite",
                format!("LOD {i} frame {k} position {v} is not a finite number"),
            ));
        }
        at += 8 + 12 * f.positions.len() as u64;
    }
    frame_times(out, i, lod.frames.iter().map(|f| f.time), offset);
}

/// What an exporter reads of an ODOL LOD's geometry: it must decode, and its faces must index
/// its vertices. `start` is the LOD's offset (the geometry's own offsets count from it).
fn odol_geometry(out: &mut Vec<Issue>, o: &Odol, i: usize, start: u64) {
    match o.lod_mesh(i) {
        Err(e) => out.push(Issue::error(
            start + e.offset().unwrap_or(0),
            "geometry",
            format!("LOD {i}: the geometry does not decode: {e}"),
        )),
        Ok(mesh) => {
            let nv = mesh.positions.len();
            for (k, (_, idx)) in mesh.faces.iter().enumerate() {
                if let Some(v) = idx.iter().find(|&&v| v as usize >= nv) {
                    out.push(Issue::error(
                        start,
                        "vertex-index",
                        format!(
                            "LOD {i} face {k}: vertex index {v}, but the LOD has {nv} vertices"
                        ),
                    ));
                    break;
                }
            }
            if let Some(v) = mesh
                .positions
                .iter()
                .position(|p| !p.iter().all(|c| c.is_finite()))
            {
                out.push(Issue::error(
                    start,
                    "position-not-finite",
                    format!("LOD {i} vertex {v}: a position that is not a finite number"),
                ));
            }
        }
    }
}

/// Frame times must be numbers and increase (an animation's keys, in glTF and in the engine's
/// phase lookup); times outside 0..1 are unusual.
fn frame_times(out: &mut Vec<Issue>, lod: usize, times: impl Iterator<Item = f32>, at: u64) {
    let mut prev: Option<f32> = None;
    for (k, t) in times.enumerate() {
        if !t.is_finite() {
            out.push(Issue::error(
                at,
                "frame-time",
                format!("LOD {lod} frame {k}: time {t} is not a number"),
            ));
        } else if !(0.0..=1.0).contains(&t) {
            out.push(Issue::info(
                at,
                "frame-time",
                format!("LOD {lod} frame {k}: time {t} is outside the usual phase range 0..1"),
            ));
        }
        if let Some(p) = prev {
            if t.partial_cmp(&p) != Some(std::cmp::Ordering::Greater)
                && t.is_finite()
                && p.is_finite()
            {
                out.push(Issue::error(
                    at,
                    "frame-order",
                    format!(
                        "LOD {lod}: frame times must increase for an animation, found {p} then {t}"
                    ),
                ));
            }
        }
        prev = Some(t);
    }
}

fn validate_mlod(m: &Mlod) -> Vec<Issue> {
    let mut out = Vec::new();
    if m.version != 0x101 {
        out.push(Issue::warning(
            4,
            "version",
            format!("MLOD version 0x{:x}; every known file has 0x101", m.version),
        ));
    }
    let mut offset = 12u64;
    for (i, lod) in m.lods.iter().enumerate() {
        offset = validate_lod(&mut out, i, lod, offset);
    }
    if !m.trailing.is_empty() {
        out.push(Issue::warning(
            offset,
            "trailing-bytes",
            format!(
                "{} bytes after the last LOD (an OFP default path is 32)",
                m.trailing.0.len()
            ),
        ));
    }
    out
}

fn face_size(f: &Face, sig: Signature) -> u64 {
    match sig {
        Signature::Sp3x => 104,
        Signature::P3dm => {
            74 + f.texture.len() as u64 + f.material.as_ref().map_or(0, |m| m.len() as u64)
        }
    }
}

fn validate_lod(out: &mut Vec<Issue>, i: usize, lod: &Lod, start: u64) -> u64 {
    let np = lod.points.len();
    let nn = lod.normals.len();
    let nf = lod.faces.len();
    let expected_version = match lod.signature {
        Signature::P3dm => &[0x100][..],
        Signature::Sp3x => &[0x99, 1][..],
    };
    if !expected_version.contains(&lod.version) {
        out.push(Issue::warning(
            start + 8,
            "lod-version",
            format!(
                "LOD {i}: {} version 0x{:x} is not one seen in real files",
                lod.signature.name(),
                lod.version
            ),
        ));
    }
    if lod.header_size != 28 {
        out.push(Issue::warning(
            start + 4,
            "header-size",
            format!(
                "LOD {i}: header size {}, strict readers require 28",
                lod.header_size
            ),
        ));
    }
    let mut at = start + lod.header_size as u64;
    // Defined point flag bits (CWR-CE Data3D.h): land, light, decal, fog, user value, special.
    const POINT_FLAGS: u32 = 0x0FFF_33FF;
    if let Some((k, p)) = lod
        .points
        .iter()
        .enumerate()
        .find(|(_, p)| p.flags & !POINT_FLAGS != 0)
    {
        let n = lod
            .points
            .iter()
            .filter(|p| p.flags & !POINT_FLAGS != 0)
            .count();
        out.push(Issue::warning(
            at + 16 * k as u64 + 12,
            "point-flags",
            format!(
                "LOD {i}: {n} points (first: point {k}, flags 0x{:08x}) have flag bits outside 0x{POINT_FLAGS:08x}; the engine clears such points' flags",
                p.flags
            ),
        ));
    }
    for (k, p) in lod.points.iter().enumerate() {
        if p.pos.iter().any(|c| !c.is_finite()) {
            out.push(Issue::error(
                at + 16 * k as u64,
                "position-not-finite",
                format!("LOD {i} point {k} is not finite"),
            ));
        }
    }
    let normals_at = at + 16 * np as u64;
    if let Some(k) = lod
        .normals
        .iter()
        .position(|n| n.iter().any(|c| !c.is_finite()))
    {
        out.push(Issue::error(
            normals_at + 12 * k as u64,
            "normal-not-finite",
            format!("LOD {i} normal {k} is not finite"),
        ));
    }
    at += 16 * np as u64 + 12 * nn as u64;
    // Index problems are reported once per LOD: (count, first face, its offset).
    let mut bad_points: Option<(usize, usize, u64)> = None;
    let mut bad_normals: Option<(usize, usize, u64)> = None;
    let note = |slot: &mut Option<(usize, usize, u64)>, k: usize, at: u64| match slot {
        Some(s) => s.0 += 1,
        None => *slot = Some((1, k, at)),
    };
    for (k, f) in lod.faces.iter().enumerate() {
        if f.n < 3 {
            out.push(Issue::error(
                at,
                "face-vertices",
                format!("LOD {i} face {k}: {} vertices; a face has 3 or 4", f.n),
            ));
        }
        if f.vertices.iter().any(|v| v.point as usize >= np) {
            note(&mut bad_points, k, at);
        }
        if let Some(j) = f
            .vertices
            .iter()
            .position(|v| v.uv.iter().any(|c| !c.is_finite()))
        {
            // SP3X puts a 32-byte texture name first; then n, and 16-byte slots whose last 8
            // bytes are u and v.
            let name = if lod.signature == Signature::Sp3x {
                32
            } else {
                0
            };
            // A warning: real models carry them (the engine draws the face with some texel);
            // exports write them as 0 and say so.
            out.push(Issue::warning(
                at + name + 4 + 16 * j as u64 + 8,
                "uv-not-finite",
                format!("LOD {i} face {k} vertex {j}: texture coordinates that are not finite"),
            ));
        }
        if f.vertices.iter().any(|v| v.normal as usize >= nn) {
            note(&mut bad_normals, k, at);
        }
        at += face_size(f, lod.signature);
    }
    if let Some((n, k, off)) = bad_points {
        out.push(Issue::error(
            off,
            "face-point",
            format!(
                "LOD {i}: {n} faces (first: face {k}) use a point index beyond the {np} points"
            ),
        ));
    }
    if let Some((n, k, off)) = bad_normals {
        out.push(Issue::warning(
            off,
            "face-normal",
            format!(
                "LOD {i}: {n} faces (first: face {k}) use a normal index beyond the {nn} normals (the engine recomputes normals)"
            ),
        ));
    }
    at += 4;
    let mut frames = Vec::new();
    let mut eof_seen = false;
    for (k, t) in lod.taggs.iter().enumerate() {
        let head = match lod.signature {
            Signature::P3dm => 1 + t.name.len() as u64 + 1,
            Signature::Sp3x => 64,
        };
        let size = tagg_size(t);
        let what = format!("LOD {i} tagg {k} {:?}", t.name.lossy());
        if eof_seen {
            out.push(Issue::error(
                at,
                "tagg-after-end",
                format!("{what} follows #EndOfFile#"),
            ));
        }
        if t.active == Some(0) {
            out.push(Issue::info(
                at,
                "tagg-inactive",
                format!("{what} is inactive"),
            ));
        }
        let expected: Option<(u64, &str)> = match t.kind() {
            TaggKind::Animation => Some((4 + 12 * np as u64, "4 + 12 × points")),
            TaggKind::NamedSelection
            | TaggKind::Proxy
            | TaggKind::Selected
            | TaggKind::Lock
            | TaggKind::Hidden => Some(((np + nf) as u64, "points + faces")),
            TaggKind::Property => Some((128, "128")),
            TaggKind::Mass => Some((4 * np as u64, "4 × points")),
            TaggKind::EndOfFile => Some((0, "0")),
            TaggKind::UvSet => Some((
                4 + 8 * lod
                    .faces
                    .iter()
                    .map(|f| f.vertices.len() as u64)
                    .sum::<u64>(),
                "4 + 8 × face vertices",
            )),
            TaggKind::SharpEdges if size % 8 != 0 => Some((size - size % 8, "a multiple of 8")),
            _ => None,
        };
        if let Some((want, rule)) = expected {
            if size != want {
                let hint = if t.kind() == TaggKind::Animation && size == 8 + 12 * np as u64 {
                    " (the 2010 wiki's SP3X layout with an extra nBones word; the engine rejects it)"
                } else {
                    ""
                };
                out.push(Issue::error(
                    at + head,
                    "tagg-size",
                    format!("{what}: {size} data bytes, expected {want} ({rule}){hint}"),
                ));
            }
        }
        match &t.data {
            TaggData::Animation { time, positions } => {
                frames.push((*time, at));
                if let Some(v) = positions
                    .iter()
                    .position(|p| !p.iter().all(|c| c.is_finite()))
                {
                    out.push(Issue::error(
                        at + head + 4 + 4 + 12 * v as u64,
                        "frame-not-finite",
                        format!("{what}: position {v} is not a finite number (NaN or infinite)"),
                    ));
                }
            }
            TaggData::SharpEdges { edges } => {
                if let Some(e) = edges
                    .iter()
                    .find(|e| e[0] as usize >= np || e[1] as usize >= np)
                {
                    out.push(Issue::error(
                        at + head + 4,
                        "sharp-edge",
                        format!("{what}: edge {:?} names a point beyond the {np} points", e),
                    ));
                }
            }
            TaggData::Mass { masses } if masses.iter().any(|m| !m.is_finite() || *m < 0.0) => {
                out.push(Issue::warning(
                    at + head + 4,
                    "mass",
                    format!("{what}: a negative or non-finite mass"),
                ));
            }
            _ => {}
        }
        if t.kind() == TaggKind::EndOfFile {
            eof_seen = true;
        }
        at += head + 4 + size;
    }
    if !eof_seen {
        out.push(Issue::error(
            at,
            "tagg-end",
            format!("LOD {i}: no #EndOfFile# tagg"),
        ));
    }
    frame_times(out, i, frames.iter().map(|f| f.0), start);
    at + 4
}

pub(super) fn tagg_size(t: &Tagg) -> u64 {
    match &t.data {
        TaggData::Animation { positions, .. } => 4 + 12 * positions.len() as u64,
        TaggData::Selection { points, faces } => (points.0.len() + faces.0.len()) as u64,
        TaggData::Property { .. } => 128,
        TaggData::Mass { masses } => 4 * masses.len() as u64,
        TaggData::UvSet { uvs, .. } => 4 + 8 * uvs.len() as u64,
        TaggData::SharpEdges { edges } => 8 * edges.len() as u64,
        TaggData::EndOfFile => 0,
        TaggData::Raw { data } => data.0.len() as u64,
    }
}
