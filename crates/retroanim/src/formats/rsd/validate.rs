//! Cross-references of an RSD set: polygon, vertex and normal numbers in range, every polygon
//! with one material, texture numbers below `NTEX`, counts that agree, files that exist.

use super::types::*;
use crate::report::Issue;

/// Every problem of `set` (an empty list: clean). Offsets are 0: the message names the file
/// and the descriptor.
pub fn validate(set: &RsdSet) -> Vec<Issue> {
    let mut out = Vec::new();
    let rsd = &set.rsd;
    for m in &set.missing {
        let tex = m.starts_with("TEX[");
        let core = m.starts_with("PLY=") || m.starts_with("MAT=");
        let msg = format!("the RSD names {m}, which is not beside it");
        out.push(if core {
            Issue::error(0, "missing-file", msg)
        } else if tex {
            Issue::error(0, "missing-texture", msg)
        } else {
            Issue::warning(0, "missing-file", msg)
        });
    }
    for (key, what) in [(Key::Ply, "PLY"), (Key::Mat, "MAT")] {
        if rsd.get(&key).is_none() {
            out.push(Issue::error(
                0,
                "missing-entry",
                format!("the RSD names no {what} file"),
            ));
        }
    }
    let tex_names = rsd.textures();
    let ntex = rsd.ntex();
    let named = tex_names.iter().filter(|t| t.is_some()).count();
    match ntex {
        Some(n) if n as usize != named || tex_names.len() != named => out.push(Issue::error(
            0,
            "texture-count",
            format!(
                "NTEX={n} but the RSD names {named} textures TEX[0..{}]",
                tex_names.len()
            ),
        )),
        None if named > 0 => out.push(Issue::warning(
            0,
            "texture-count",
            format!("the RSD names {named} textures but no NTEX"),
        )),
        _ => {}
    }
    let mots = rsd
        .entries
        .iter()
        .filter(|e| matches!(e.key, Key::Mot(_)))
        .count();
    if let Some(n) = rsd.get(&Key::NMot).and_then(|v| v.parse::<usize>().ok()) {
        if n != mots {
            out.push(Issue::error(
                0,
                "motion-count",
                format!("NMOT={n} but the RSD names {mots} MOT files"),
            ));
        }
    }
    for e in &rsd.entries {
        if let Key::Other(k) = &e.key {
            out.push(Issue::info(
                0,
                "unknown-key",
                format!("unknown RSD key {k}"),
            ));
        }
    }
    let ply_name = rsd.get(&Key::Ply).unwrap_or("PLY");
    let mut npoly = None;
    if let Some(p) = &set.ply {
        npoly = Some(p.polygons.len());
        let (nv, nn) = (p.vertices.len(), p.normals.len());
        let mut bad = 0usize;
        let mut first = String::new();
        for (i, q) in p.polygons.iter().enumerate() {
            let k = q.corners();
            if q.kind() == PolygonType::Reserved {
                out.push(Issue::error(
                    0,
                    "polygon-type",
                    format!(
                        "{ply_name}: polygon {i} has the reserved type flag {:x}",
                        q.flag
                    ),
                ));
                continue;
            }
            let vbad = q.vertices[..k].iter().any(|&v| v as usize >= nv);
            let uses_normals = matches!(q.kind(), PolygonType::Triangle | PolygonType::Quad);
            let nbad = uses_normals && nn > 0 && q.normals[..k].iter().any(|&n| n as usize >= nn);
            if vbad || nbad {
                bad += 1;
                if first.is_empty() {
                    first = format!(
                        "polygon {i} names vertices {:?} / normals {:?} ({nv} vertices, {nn} normals)",
                        &q.vertices[..k],
                        &q.normals[..k]
                    );
                }
            }
        }
        if bad > 0 {
            out.push(Issue::error(
                0,
                "index-range",
                format!("{ply_name}: {bad} polygons name a vertex or normal past the lists; first: {first}"),
            ));
        }
        for (what, list) in [("vertex", &p.vertices), ("normal", &p.normals)] {
            let scale = if what == "normal" { 4096.0 } else { 1.0 };
            let far = list
                .iter()
                .filter(|v| v.iter().any(|c| (c * scale).round().abs() > 32767.0))
                .count();
            if far > 0 {
                out.push(Issue::warning(
                    0,
                    "coordinate-range",
                    format!("{ply_name}: {far} {what}s do not fit TMD's 16-bit coordinates"),
                ));
            }
        }
    }
    let mat_name = rsd.get(&Key::Mat).unwrap_or("MAT");
    if let (Some(m), Some(np)) = (&set.mat, npoly) {
        // Coverage by difference array: +1 where a range starts, −1 after it ends.
        let mut diff = vec![0i64; np + 1];
        let mut past = 0u64;
        for (i, x) in m.materials.iter().enumerate() {
            for &(a, b) in &x.polygons.0 {
                if (a as usize) < np {
                    diff[a as usize] += 1;
                    diff[(b as usize).min(np - 1) + 1] -= 1;
                }
                past += u64::from(b) + 1 - u64::from(a).max(np as u64).min(u64::from(b) + 1);
            }
            if let Some(t) = x.info.texture() {
                let limit = ntex.map_or(tex_names.len(), |n| n as usize);
                if t as usize >= limit {
                    out.push(Issue::error(
                        0,
                        "texture-index",
                        format!("{mat_name}: material {i} uses texture {t}, the RSD has {limit}"),
                    ));
                }
            }
            let unlit = x.flag & mat_flag::UNLIT != 0;
            if !unlit
                && matches!(
                    x.info,
                    MatInfo::D { .. } | MatInfo::H { .. } | MatInfo::S { .. } | MatInfo::N { .. }
                )
            {
                out.push(Issue::warning(
                    0,
                    "lit-colored-texture",
                    format!("{mat_name}: material {i} is type {} with light-source calculation on (valid only with fixed colour)", x.info.letter()),
                ));
            }
            if x.flag & 0x40 != 0 || (x.flag >> mat_flag::RATE_SHIFT) & 4 != 0 || x.flag > 0xFF {
                out.push(Issue::warning(
                    0,
                    "material-flag",
                    format!(
                        "{mat_name}: material {i} sets reserved flag bits ({:x})",
                        x.flag
                    ),
                ));
            }
        }
        let mut run = 0i64;
        let seen: Vec<i64> = diff[..np]
            .iter()
            .map(|d| {
                run += d;
                run
            })
            .collect();
        if past > 0 {
            out.push(Issue::error(
                0,
                "material-range",
                format!("{mat_name}: materials name {past} polygons past the PLY's {np}"),
            ));
        }
        let none = seen.iter().filter(|&&s| s == 0).count();
        let twice = seen.iter().filter(|&&s| s > 1).count();
        if none > 0 {
            let first = seen.iter().position(|&s| s == 0).unwrap_or(0);
            out.push(Issue::error(
                0,
                "material-coverage",
                format!("{mat_name}: {none} polygons have no material (first: polygon {first})"),
            ));
        }
        if twice > 0 {
            let first = seen.iter().position(|&s| s > 1).unwrap_or(0);
            out.push(Issue::warning(
                0,
                "material-coverage",
                format!("{mat_name}: {twice} polygons have more than one material (first: polygon {first}; the last one counts)"),
            ));
        }
        if let Some(p) = &set.ply {
            if p.normals.is_empty() && m.materials.iter().any(|x| x.flag & mat_flag::UNLIT == 0) {
                out.push(Issue::warning(
                    0,
                    "no-normals",
                    format!(
                        "{ply_name}: no normals, yet materials ask for light-source calculation"
                    ),
                ));
            }
        }
    }
    let grp_name = rsd.get(&Key::Grp).unwrap_or("GRP");
    if let (Some(g), Some(np)) = (&set.grp, npoly) {
        for x in &g.groups {
            let count: u64 = x.lines.iter().map(PolySet::count).sum();
            if count != x.declared {
                out.push(Issue::warning(
                    0,
                    "group-count",
                    format!(
                        "{grp_name}: group {} states {} polygons, its lines name {count}",
                        x.name, x.declared
                    ),
                ));
            }
            let past = x
                .lines
                .iter()
                .flat_map(|l| &l.0)
                .filter(|&&(_, b)| b as usize >= np)
                .count();
            if past > 0 {
                out.push(Issue::error(
                    0,
                    "group-range",
                    format!(
                        "{grp_name}: group {} names polygons past the PLY's {np}",
                        x.name
                    ),
                ));
            }
        }
    }
    out
}
