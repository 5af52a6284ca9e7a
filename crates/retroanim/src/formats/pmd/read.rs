//! PMD reader: `&[u8]` → [`Pmd`], every count checked against the bytes left first.

use std::collections::BTreeMap;

use crate::bytes::{Le, Reader};
use crate::error::Result;
use crate::limits::Limits;
use crate::Format;

use super::types::*;
use super::FILE_ID;

/// Reads a PMD file (with its header, or a bare primitive group) with the default [`Limits`].
pub fn read(data: &[u8]) -> Result<Pmd> {
    read_with(data, &Limits::default())
}

/// Reads a PMD with the given limits: a file whose first word is the ID 0x42, else a bare
/// primitive group ([`Pmd::header`] `None`).
pub fn read_with(data: &[u8], limits: &Limits) -> Result<Pmd> {
    let mut r = Reader::le(data, Format::Pmd).with_limits(*limits);
    if r.peek_u32() == Some(FILE_ID) {
        read_file(&mut r)
    } else {
        read_bare(&mut r)
    }
}

fn read_file(r: &mut Reader<'_, Le>) -> Result<Pmd> {
    let id = r.u32("ID")?;
    let prim_point = r.u32("PRIM POINT")? as usize;
    let vert_point = r.u32("VERT POINT")? as usize;
    let nobj = r.u32("NOBJ")?;
    let nobj = r.count(nobj as u64, 4, "number of objects (NOBJ)")?;
    let mut pointers: Vec<Vec<(u64, usize)>> = Vec::with_capacity(nobj);
    for i in 0..nobj {
        let n = r.u32(&format!("object {i} NPTR"))?;
        let n = r.count(n as u64, 4, &format!("object {i} NPTR"))?;
        let mut ps = Vec::with_capacity(n);
        for _ in 0..n {
            let at = r.offset();
            ps.push((at, r.u32("POINTER")? as usize));
        }
        pointers.push(ps);
    }
    let table_end = r.position();
    if prim_point < table_end || prim_point > r.len() {
        return Err(r.malformed_at(
            4,
            format!(
                "PRIM POINT 0x{prim_point:x} lies {} (the object table ends at 0x{table_end:x}, the file at 0x{:x})",
                if prim_point < table_end { "inside the object table" } else { "past the end of the file" },
                r.len()
            ),
        ));
    }
    let gap = r
        .bytes(prim_point - table_end, "bytes before PRIM POINT")?
        .to_vec();
    // Walk the groups from PRIM POINT to the end of the furthest one a pointer names.
    let last = pointers.iter().flatten().map(|&(_, p)| p).max();
    let mut groups = Vec::new();
    let mut starts: BTreeMap<usize, usize> = BTreeMap::new();
    if let Some(last) = last {
        while r.position() <= last {
            starts.insert(r.position(), groups.len());
            let at = r.position();
            let word = r.u32("TYPE/NPACKET")?;
            let type_bits = (word >> 16) as u16;
            let g = read_group(r, at, type_bits, Kind::from_type(type_bits), word as u16)?;
            groups.push(g);
        }
    }
    let mut objects = Vec::with_capacity(nobj);
    for (i, ps) in pointers.iter().enumerate() {
        let mut o = Object::default();
        for &(at, p) in ps {
            let Some(&g) = starts.get(&p) else {
                return Err(r.malformed_at(
                    at,
                    format!("object {i}: POINTER 0x{p:x} is not the start of a primitive group (groups start at PRIM POINT 0x{prim_point:x} and follow each other)"),
                ));
            };
            o.groups.push(g);
        }
        objects.push(o);
    }
    let groups_end = r.position();
    let (vertex_gap, vertices) = if vert_point == 0 {
        (Vec::new(), Vec::new())
    } else {
        if vert_point < groups_end || vert_point > r.len() {
            return Err(r.malformed_at(
                8,
                format!(
                    "VERT POINT 0x{vert_point:x} lies {} (the primitive groups end at 0x{groups_end:x}, the file at 0x{:x})",
                    if vert_point < groups_end { "inside the primitive groups" } else { "past the end of the file" },
                    r.len()
                ),
            ));
        }
        let gap = r
            .bytes(vert_point - groups_end, "bytes before VERT POINT")?
            .to_vec();
        let n = r.remaining() / 8;
        (gap, read_svectors(r, n, "VERTEX group")?)
    };
    let trailing = r.rest().to_vec();
    Ok(Pmd {
        header: Some(Header {
            id,
            shared: vert_point != 0,
            gap,
            vertex_gap,
        }),
        objects,
        groups,
        vertices,
        trailing,
    })
}

/// A bare group: its kind is read from the first packet's GPU code, shared or independent from
/// the size the packets take (TYPE's bits follow another numbering in Sony's WALK files).
fn read_bare(r: &mut Reader<'_, Le>) -> Result<Pmd> {
    let word = r.u32("TYPE/NPACKET")?;
    let npacket = word as u16;
    let code = r.ahead().get(7).copied().unwrap_or(0);
    let Some(kind) = bare_kind(code, npacket as usize, r.remaining()) else {
        return Err(r.malformed_at(
            0,
            format!(
                "not a PMD: no ID 0x42, and as a bare primitive group the first packet's GPU code 0x{code:02x} and {npacket} packets do not fill the {} bytes that follow",
                r.remaining()
            ),
        ));
    };
    let g = read_group(r, 0, (word >> 16) as u16, kind, npacket)?;
    let trailing = r.rest().to_vec();
    Ok(Pmd {
        header: None,
        objects: Vec::new(),
        groups: vec![g],
        vertices: Vec::new(),
        trailing,
    })
}

/// The kind of a bare group whose first packet carries GPU `code` and whose `npacket` packets
/// take `left` bytes (up to 7 trailing): independent vertices when both would fit.
pub(super) fn bare_kind(code: u8, npacket: usize, left: usize) -> Option<Kind> {
    if npacket == 0 {
        return None;
    }
    [false, true].into_iter().find_map(|shared| {
        let k = Kind::from_gpu_code(code, shared)?;
        let need = npacket.checked_mul(k.packet_bytes())?;
        (need <= left && left - need < 8).then_some(k)
    })
}

fn read_group(
    r: &mut Reader<'_, Le>,
    at: usize,
    type_bits: u16,
    kind: Kind,
    npacket: u16,
) -> Result<PrimitiveGroup> {
    let n = r.count(
        npacket as u64,
        kind.packet_bytes(),
        &format!("NPACKET of the group at 0x{at:x}"),
    )?;
    let words = kind.primitive_words();
    let mut packets = Vec::with_capacity(n);
    for _ in 0..n {
        let a = r.u32_words(words, "pkt[0]")?.into_owned();
        let b = r.u32_words(words, "pkt[1]")?.into_owned();
        let vertices = if kind.shared {
            Vertices::Shared(r.u32_words(kind.corners(), "vp1..vp4")?.into_owned())
        } else {
            Vertices::Independent(read_svectors(r, kind.corners(), "v1..v4")?)
        };
        packets.push(Packet {
            primitives: [a, b],
            vertices,
        });
    }
    Ok(PrimitiveGroup {
        type_bits,
        kind,
        packets,
    })
}

fn read_svectors(r: &mut Reader<'_, Le>, n: usize, what: &str) -> Result<Vec<SVector>> {
    let n = r.count(n as u64, 8, what)?;
    let mut v = Vec::with_capacity(n);
    for _ in 0..n {
        let [x, y, z, pad] = [r.i16(what)?, r.i16(what)?, r.i16(what)?, r.i16(what)?];
        v.push(SVector { x, y, z, pad });
    }
    Ok(v)
}
