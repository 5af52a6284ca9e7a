//! PMD writer: [`Pmd`] → bytes. Groups follow the object table in model order and POINTERs
//! are computed from it, so an unchanged model writes the bytes it was read from.

use crate::bytes::{Le, Writer};
use crate::error::{Error, Result};
use crate::Format;

use super::types::*;

fn unencodable(what: String) -> Error {
    Error::Unencodable {
        format: Format::Pmd,
        what,
    }
}

/// Bytes of the header and object table.
fn table_bytes(pmd: &Pmd) -> usize {
    16 + pmd
        .objects
        .iter()
        .map(|o| 4 + 4 * o.groups.len())
        .sum::<usize>()
}

/// Bytes of a group: its first word and its packets.
fn group_bytes(g: &PrimitiveGroup) -> usize {
    4 + g.packets.len() * g.kind.packet_bytes()
}

/// Writes a PMD.
pub fn write(pmd: &Pmd) -> Result<Vec<u8>> {
    let groups: usize = pmd.groups.iter().map(group_bytes).sum();
    let head = match &pmd.header {
        Some(h) => table_bytes(pmd) + h.gap.len() + h.vertex_gap.len(),
        None => {
            if pmd.groups.len() != 1 || !pmd.objects.is_empty() || !pmd.vertices.is_empty() {
                return Err(unencodable(format!(
                    "a bare primitive group (no header) holds exactly one group and no objects or vertices; this model has {} groups, {} objects, {} vertices",
                    pmd.groups.len(),
                    pmd.objects.len(),
                    pmd.vertices.len()
                )));
            }
            0
        }
    };
    let size = head + groups + 8 * pmd.vertices.len() + pmd.trailing.len();
    let mut w = Writer::with_capacity(size);
    if let Some(h) = &pmd.header {
        if !h.shared && (!pmd.vertices.is_empty() || !h.vertex_gap.is_empty()) {
            return Err(unencodable(
                "VERT POINT is 0 (not shared) but the model has a VERTEX group".into(),
            ));
        }
        let prim_point = table_bytes(pmd) + h.gap.len();
        let vert_point = prim_point + groups + h.vertex_gap.len();
        w.u32(h.id);
        w.u32(word(prim_point, "PRIM POINT")?);
        w.u32(if h.shared {
            word(vert_point, "VERT POINT")?
        } else {
            0
        });
        w.u32(word(pmd.objects.len(), "NOBJ")?);
        let mut starts = Vec::with_capacity(pmd.groups.len());
        let mut at = prim_point;
        for g in &pmd.groups {
            starts.push(at);
            at += group_bytes(g);
        }
        for (i, o) in pmd.objects.iter().enumerate() {
            w.u32(word(o.groups.len(), "NPTR")?);
            for &g in &o.groups {
                let Some(&p) = starts.get(g) else {
                    return Err(unencodable(format!(
                        "object {i} names group {g}; the model has {}",
                        pmd.groups.len()
                    )));
                };
                w.u32(word(p, "POINTER")?);
            }
        }
        w.bytes(&h.gap);
    }
    for (i, g) in pmd.groups.iter().enumerate() {
        write_group(&mut w, i, g)?;
    }
    if let Some(h) = &pmd.header {
        w.bytes(&h.vertex_gap);
    }
    for v in &pmd.vertices {
        svector(&mut w, v);
    }
    w.bytes(&pmd.trailing);
    Ok(w.into_vec())
}

fn word(v: usize, what: &str) -> Result<u32> {
    u32::try_from(v).map_err(|_| unencodable(format!("{what} {v} does not fit 32 bits")))
}

fn svector(w: &mut Writer<Le>, v: &SVector) {
    w.i16(v.x);
    w.i16(v.y);
    w.i16(v.z);
    w.i16(v.pad);
}

fn write_group(w: &mut Writer<Le>, i: usize, g: &PrimitiveGroup) -> Result<()> {
    let n = u16::try_from(g.packets.len()).map_err(|_| {
        unencodable(format!(
            "group {i}: {} packets; NPACKET holds at most 65535",
            g.packets.len()
        ))
    })?;
    w.u32(u32::from(g.type_bits) << 16 | u32::from(n));
    let words = g.kind.primitive_words();
    for (k, p) in g.packets.iter().enumerate() {
        for prim in &p.primitives {
            if prim.len() != words {
                return Err(unencodable(format!(
                    "group {i} packet {k}: a {} takes {words} words, the packet holds {}",
                    g.kind.primitive_name(),
                    prim.len()
                )));
            }
            w.u32_words(prim);
        }
        let corners = g.kind.corners();
        match &p.vertices {
            Vertices::Shared(vp) if g.kind.shared && vp.len() == corners => w.u32_words(vp),
            Vertices::Independent(v) if !g.kind.shared && v.len() == corners => {
                v.iter().for_each(|v| svector(w, v))
            }
            _ => {
                return Err(unencodable(format!(
                    "group {i} packet {k}: a {} group's packet takes {corners} {} vertices",
                    g.kind.primitive_name(),
                    if g.kind.shared {
                        "shared"
                    } else {
                        "independent"
                    }
                )))
            }
        }
    }
    Ok(())
}

impl Pmd {
    /// Where each group starts in the file the model writes (absolute offsets).
    pub fn group_offsets(&self) -> Vec<usize> {
        let mut at = match &self.header {
            Some(h) => table_bytes(self) + h.gap.len(),
            None => 0,
        };
        self.groups
            .iter()
            .map(|g| {
                let s = at;
                at += group_bytes(g);
                s
            })
            .collect()
    }

    /// Offset of the VERTEX group in the file the model writes.
    pub fn vertex_offset(&self) -> usize {
        let head = self
            .header
            .as_ref()
            .map_or(0, |h| table_bytes(self) + h.gap.len() + h.vertex_gap.len());
        head + self.groups.iter().map(group_bytes).sum::<usize>()
    }
}
