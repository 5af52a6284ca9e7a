//! PMD validation: every finding with its severity and byte offset.

use crate::report::Issue;

use super::types::*;
use super::FILE_ID;

/// Checks a PMD model and returns every finding; offsets are those of the file it writes.
pub fn validate(pmd: &Pmd) -> Vec<Issue> {
    let mut out = Vec::new();
    let starts = pmd.group_offsets();
    match &pmd.header {
        Some(h) => {
            if h.id != FILE_ID {
                out.push(Issue::warning(
                    0,
                    "version",
                    format!("ID 0x{:08x}: the current PMD version is 0x42", h.id),
                ));
            }
            if !h.gap.is_empty() || !h.vertex_gap.is_empty() {
                out.push(Issue::info(
                    4,
                    "gap",
                    format!(
                        "{} bytes before PRIM POINT and {} before VERT POINT belong to no structure",
                        h.gap.len(),
                        h.vertex_gap.len()
                    ),
                ));
            }
            let mut used = vec![false; pmd.groups.len()];
            for (i, o) in pmd.objects.iter().enumerate() {
                for &g in &o.groups {
                    if let Some(u) = used.get_mut(g) {
                        *u = true;
                    } else {
                        out.push(Issue::error(
                            16,
                            "object-group",
                            format!("object {i} names group {g}; there are {}", pmd.groups.len()),
                        ));
                    }
                }
            }
            for (g, _) in used.iter().enumerate().filter(|(_, u)| !**u) {
                out.push(Issue::warning(
                    starts[g] as u64,
                    "unused-group",
                    format!("primitive group {g} is drawn by no object"),
                ));
            }
            if !h.shared && pmd.groups.iter().any(|g| g.kind.shared) {
                out.push(Issue::error(
                    8,
                    "no-vertex-group",
                    "a group uses shared vertices but VERT POINT is 0 (no VERTEX group)",
                ));
            }
        }
        None => out.push(Issue::info(
            0,
            "bare-group",
            "a bare primitive group (no ID or object table), as libgte's RotPMD_* functions take it; its shared vertices, if any, come from elsewhere",
        )),
    }
    for (gi, g) in pmd.groups.iter().enumerate() {
        let at = starts[gi] as u64;
        if pmd.header.is_some() {
            if g.type_bits & 0xF != g.kind.type_nibble() {
                out.push(Issue::error(
                    at,
                    "type",
                    format!(
                        "group {gi}: TYPE 0x{:04x} names another packet layout than the group's {}",
                        g.type_bits,
                        g.kind.primitive_name()
                    ),
                ));
            }
            if g.type_bits >> 6 != 0 {
                out.push(Issue::warning(
                    at + 2,
                    "reserved-value",
                    format!(
                        "group {gi}: TYPE 0x{:04x} sets bits 22..31 (reserved for the system)",
                        g.type_bits
                    ),
                ));
            }
        }
        if g.packets.is_empty() {
            out.push(Issue::warning(
                at,
                "empty-group",
                format!("group {gi} has no packets"),
            ));
        }
        let size = g.kind.packet_bytes() as u64;
        for (k, p) in g.packets.iter().enumerate() {
            let pat = at + 4 + k as u64 * size;
            for b in 0..2 {
                let code = p.code(b).unwrap_or(0);
                if code & 0xFC != g.kind.gpu_code() {
                    out.push(Issue::error(
                        pat + (b * 4 * g.kind.primitive_words()) as u64 + 7,
                        "gpu-code",
                        format!(
                            "group {gi} packet {k} pkt[{b}]: GPU code 0x{code:02x} is no {} (0x{:02x})",
                            g.kind.primitive_name(),
                            g.kind.gpu_code()
                        ),
                    ));
                }
            }
            if let (Vertices::Shared(vp), Some(_)) = (&p.vertices, &pmd.header) {
                let vat = pat + 8 * g.kind.primitive_words() as u64;
                for (c, &o) in vp.iter().enumerate() {
                    if o % 8 != 0 || o as usize / 8 >= pmd.vertices.len() {
                        out.push(Issue::error(
                            vat + 4 * c as u64,
                            "vertex-offset",
                            format!(
                                "group {gi} packet {k}: vp{} 0x{o:x} is not a vertex of the {}-vertex VERTEX group (a multiple of 8 below 0x{:x})",
                                c + 1,
                                pmd.vertices.len(),
                                pmd.vertices.len() * 8
                            ),
                        ));
                    }
                }
            }
        }
    }
    out
}
