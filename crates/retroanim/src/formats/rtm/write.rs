//! Writing RTM files: the exact bytes [`super::read`] reads.

use super::types::{latin1, unencodable};
use super::{Mlod, Name32, Rtm};
use super::{MAGIC, MAGIC_0100, MDAT_MAGIC, NAME_SIZE, TRANSFORM_SIZE};
use crate::bytes::{Le, Writer};
use crate::Result;

/// Writes an RTM in its own form.
pub fn write(rtm: &Rtm) -> Result<Vec<u8>> {
    match rtm {
        Rtm::Mlod(m) => write_mlod(m),
        Rtm::Bmtr(b) => super::bmtr::write(b),
    }
}

fn write_mlod(m: &Mlod) -> Result<Vec<u8>> {
    let nb = m.bones.len();
    if nb > i32::MAX as usize || m.frames.len() > i32::MAX as usize {
        return Err(unencodable("more than 2^31-1 bones or frames".into()));
    }
    if let Some(f) = m.frames.iter().position(|f| f.transforms.len() != nb) {
        return Err(unencodable(format!(
            "frame {f} has {} transforms, the header has {nb} bones (the file holds one per bone)",
            m.frames[f].transforms.len()
        )));
    }
    let size = m.frame_offset(m.frames.len()) as usize;
    let mut w = Writer::<Le>::with_capacity(size);
    if let Some(d) = &m.mdat {
        if d.properties.len() > u32::MAX as usize {
            return Err(unencodable("more than 2^32-1 properties".into()));
        }
        w.bytes(MDAT_MAGIC);
        w.u32(d.reserved);
        w.u32(d.properties.len() as u32);
        for p in &d.properties {
            w.f32(p.phase);
            for (s, what) in [(&p.name, "property name"), (&p.value, "property value")] {
                let b = latin1(s, what)?;
                if b.len() > 255 {
                    return Err(unencodable(format!(
                        "{what} {s:?} is {} bytes, at most 255 fit",
                        b.len()
                    )));
                }
                w.u8(b.len() as u8);
                w.bytes(&b);
            }
        }
    }
    if m.v0100 {
        // The older header holds the step along z alone.
        if m.displacement[..2].iter().any(|&v| v != 0.0) {
            return Err(unencodable(format!(
                "RTM_0100 stores the displacement along z only; x and y are {:?} (write RTM_0101)",
                &m.displacement[..2]
            )));
        }
        w.bytes(MAGIC_0100);
        w.f32(m.displacement[2]);
    } else {
        w.bytes(MAGIC);
        m.displacement.iter().for_each(|&v| w.f32(v));
    }
    w.i32(m.frames.len() as i32);
    w.i32(nb as i32);
    for b in &m.bones {
        name32(&mut w, b)?;
    }
    for f in &m.frames {
        w.f32(f.phase);
        for t in &f.transforms {
            name32(&mut w, &t.bone)?;
            t.matrix.iter().for_each(|&v| w.f32(v));
        }
    }
    debug_assert_eq!(w.len(), size);
    debug_assert_eq!(TRANSFORM_SIZE, NAME_SIZE + 48);
    Ok(w.into_vec())
}

fn name32(w: &mut Writer<Le>, n: &Name32) -> Result<()> {
    let b = latin1(&n.name, "bone name")?;
    if b.contains(&0) {
        return Err(unencodable(format!("bone name {:?} holds a NUL", n.name)));
    }
    if b.len() > NAME_SIZE {
        return Err(unencodable(format!(
            "bone name {:?} is {} bytes, at most {NAME_SIZE} fit",
            n.name,
            b.len()
        )));
    }
    w.bytes(&b);
    if b.len() == NAME_SIZE {
        if !n.tail.is_empty() {
            return Err(unencodable(format!(
                "bone name {:?} fills its 32 bytes: no room for padding bytes",
                n.name
            )));
        }
        return Ok(());
    }
    let pad = NAME_SIZE - 1 - b.len();
    w.u8(0);
    if n.tail.is_empty() {
        w.bytes(&vec![0; pad]);
    } else if n.tail.len() == pad {
        w.bytes(&n.tail);
    } else {
        return Err(unencodable(format!(
            "bone name {:?} has {} padding bytes, its field leaves {pad}",
            n.name,
            n.tail.len()
        )));
    }
    Ok(())
}
