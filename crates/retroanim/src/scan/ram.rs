//! Memory dumps: HMDs as libhmd's `GsMapUnit` leaves them in RAM, turned back into files.
//!
//! Before an HMD is drawn, the program maps it in place (Sony *File Formats*, "HMD": "Pointer
//! values in HMD data are converted at run time into real addresses in memory. This process is
//! known as mapping and is performed by GsMapUnit()"; the seed `003_1e15be7fce037163.txt` and
//! `notes/hmd_layouts.md` §2–§3). What mapping rewrites, and what [`unmap_hmd`] puts back:
//!
//! | word | in the file | mapped | put back as |
//! |---|---|---|---|
//! | 1, MAP FLAG | 0 | changed by GsMapUnit (1 per p. 2-51) | 0 (every file stores 0) |
//! | 2, primitive header section | word offset | address (MSB set: KSEG0/KSEG1) | word offset |
//! | 4.., block pointers | word offset, 0 = empty | address, 0 = empty | word offset |
//! | primitive control word 0, next | word offset, `0xFFFFFFFF` = end | address | word offset |
//! | primitive control word 1, header | word offset | address | word offset |
//! | primitive control word 2, type count | MSB 1 = unmapped | MSB 0 | MSB 1 |
//! | primitive header words with MSB 1 | `0x80000000` \| word offset | address | `0x80000000` \| word offset |
//! | GsCOORDUNIT `super` (word 19) | word offset, 0 = none | address (`GsMapCoordUnit`) | word offset |
//!
//! Words with the MSB clear in a primitive header are driver parameters and stay as they are;
//! a `super` with the MSB clear is taken as not mapped (programs that do not call
//! `GsMapCoordUnit`). What `GsScanUnit` does afterwards (type words replaced by driver
//! addresses, count/size MSBs cleared) is not undone: such a unit no longer says its types.
//!
//! Addresses: a PS1 program runs in KSEG0 (`0x80000000` + physical address; KSEG1
//! `0xA0000000` and KUSEG `0` map the same 2 MiB of RAM, mirrored up to 8 MiB). A dump is the
//! RAM from physical address 0, so the address of a byte at dump offset `o` is taken as
//! `segment | o`, where `segment` is the top three bits of the primitive header section
//! pointer — unless the pointers say otherwise: every HMD writer puts the primitive header
//! section right after the header and the coordinate section, so the primitive header pointer
//! minus that section's word offset is where the HMD was mapped. When that address differs
//! from `segment | o` and every pointer turns back into an offset inside the HMD with it, the
//! dump started elsewhere and the HMD is read at that address. A dump whose HMDs do not follow
//! that layout and that does not start at physical 0 gives its first byte's address as
//! `--base` ([`super::ScanOptions::base`]).

use crate::bytes::{ByteOrder, Le, Writer};

/// True when the HMD header at the start of `b` holds mapped pointers: word 2 and every
/// non-zero block pointer (those in `b`) with the MSB set. In a file they are word offsets
/// (labp writes no flag in them), so a file whose word 2 carries the flag is not taken for a
/// mapped HMD.
pub fn looks_mapped(b: &[u8]) -> bool {
    let mapped = |p: u32| p & 0x8000_0000 != 0;
    if word(b, 0) != Some(0x50) || !word(b, 2).is_some_and(mapped) {
        return false;
    }
    let blocks = word(b, 3).unwrap_or(0) as usize;
    let mut any = false;
    for i in 4..4usize.saturating_add(blocks.min(4096)) {
        match word(b, i) {
            Some(0) => {}
            Some(p) if mapped(p) => any = true,
            Some(_) => return false,
            None => break,
        }
    }
    any
}

/// The address of the first byte of an HMD at `offset` of its container: `base + offset` when
/// the dump's base address is given, else inferred from its pointers (module docs, "Addresses").
/// `None` when `b` does not look mapped.
pub fn hmd_address(b: &[u8], offset: u64, base: Option<u64>) -> Option<u32> {
    if !looks_mapped(b) {
        return None;
    }
    match base {
        Some(base) => u32::try_from(base.checked_add(offset)?).ok(),
        None => {
            let segment = word(b, 2)? & 0xE000_0000;
            // Physical RAM is 2 MiB, mirrored up to 8 MiB.
            let phys = u32::try_from(offset).ok().filter(|&o| o < 8 << 20);
            let from_zero = phys.map(|p| segment | p);
            match address_from_layout(b) {
                // The pointers say the HMD sits elsewhere (the dump starts past physical 0):
                // taken when every pointer turns back into an offset with it.
                Some(l) if Some(l) != from_zero => unmap_hmd(b, l).map(|_| l).or(from_zero),
                // The layout agrees with a dump from physical 0, or says nothing.
                _ => from_zero,
            }
        }
    }
}

/// The address an HMD was mapped at, from where its primitive header section lies in the
/// layout every HMD writer uses: the header, its block pointers, the coordinate section (a
/// count word, never mapped, and 20 words per GsCOORDUNIT), then the primitive header section
/// (so word 2 = address + 4 · (4 + blocks + 1 + 20 · coordinates)), when that address is word
/// aligned in KSEG0/KSEG1 RAM (below 8 MiB); `None` otherwise. The caller checks that the
/// pointers turn back into offsets with it only when it differs from a dump from physical 0.
fn address_from_layout(b: &[u8]) -> Option<u32> {
    let blocks = usize::try_from(word(b, 3)?).ok()?;
    let header_end = 4usize.checked_add(blocks)?;
    let coordinates = word(b, header_end)?;
    if coordinates & 0x8000_0000 != 0 {
        return None;
    }
    let phs = u32::try_from(
        header_end
            .checked_add(1)?
            .checked_add(usize::try_from(coordinates).ok()?.checked_mul(20)?)?,
    )
    .ok()?;
    let address = word(b, 2)?.checked_sub(phs.checked_mul(4)?)?;
    let segment = address & 0xE000_0000;
    let plausible = address % 4 == 0
        && matches!(segment, 0x8000_0000 | 0xA000_0000)
        && address & 0x1FFF_FFFF < 8 << 20;
    plausible.then_some(address)
}

fn word(b: &[u8], i: usize) -> Option<u32> {
    Le::u32_at(b, i.checked_mul(4)?)
}

/// Most primitives followed through block chains (a loop in mapped pointers ends the walk).
const MAX_PRIMITIVES: usize = 1 << 16;

/// The file an HMD mapped at `address` was, from `data` (the dump's bytes from the HMD's first
/// byte on, as many as are at hand). Pointers that lie past `data` are put back as the word
/// offsets they name (the reader then asks for a larger window). `None` when a pointer lies
/// before the HMD or is not word-aligned: it was not mapped at `address`.
pub fn unmap_hmd(data: &[u8], address: u32) -> Option<Vec<u8>> {
    let n = data.len() / 4;
    let mut w: Vec<u32> = (0..n).map(|i| word(data, i).unwrap_or(0)).collect();
    let off = |p: u32| -> Option<u32> {
        let d = p.checked_sub(address)?;
        (d % 4 == 0).then_some(d / 4)
    };
    if n < 4 || w[0] != 0x50 {
        return None;
    }
    w[1] = 0;
    let phs = off(w[2])?;
    w[2] = phs;
    let blocks = w[3] as usize;
    let header_end = 4usize.checked_add(blocks)?;
    for x in w.iter_mut().take(header_end).skip(4) {
        if *x != 0 {
            *x = off(*x)?;
        }
    }
    // Coordinate parents (GsMapCoordUnit), when mapped.
    if header_end < n && header_end as u32 != phs {
        let count = w[header_end] as usize;
        for k in 0..count.min(n / 20) {
            let at = header_end + 1 + 20 * k + 19;
            match w.get(at).copied() {
                Some(s) if s & 0x8000_0000 != 0 => w[at] = off(s)?,
                Some(_) => {}
                None => break,
            }
        }
    }
    // Primitive headers: section pointers back to flagged word offsets.
    let phs = phs as usize;
    if phs < n {
        let count = w[phs] as usize;
        let mut q = phs + 1;
        for _ in 0..count.min(n) {
            let Some(&size) = w.get(q) else { break };
            let end = q.saturating_add(1).saturating_add(size as usize).min(n);
            for x in &mut w[q + 1..end] {
                if *x & 0x8000_0000 != 0 {
                    *x = off(*x)? | 0x8000_0000;
                }
            }
            q = end;
        }
    }
    // Block chains: next and header pointers, the type count's unmapped flag.
    let mut seen = std::collections::BTreeSet::new();
    let starts: Vec<u32> = w[4..header_end.min(n)].to_vec();
    for start in starts.into_iter().filter(|&s| s != 0) {
        let mut at = start as usize;
        while at + 2 < n && seen.len() < MAX_PRIMITIVES && seen.insert(at) {
            let next = w[at];
            if next != u32::MAX {
                w[at] = off(next)?;
            }
            w[at + 1] = off(w[at + 1])?;
            w[at + 2] |= 0x8000_0000;
            if next == u32::MAX {
                break;
            }
            at = w[at] as usize;
        }
    }
    let mut out = Writer::<Le>::with_capacity(data.len());
    out.u32_words(&w);
    out.bytes(&data[n * 4..]);
    Some(out.into_vec())
}

/// Maps an HMD file at `address` as `GsMapUnit` and `GsMapCoordUnit` do (the table in the
/// module docs, MAP FLAG set to 1): what a program leaves in RAM. For tests and for building
/// RAM images; `None` when the file does not read as an HMD.
pub fn map_hmd(file: &[u8], address: u32) -> Option<Vec<u8>> {
    let h = crate::formats::hmd::read(file).ok()?;
    let n = file.len() / 4;
    let mut w: Vec<u32> = (0..n).map(|i| word(file, i).unwrap_or(0)).collect();
    let addr = |o: u32| address.wrapping_add(o.wrapping_mul(4));
    w[1] = 1;
    w[2] = addr(w[2] & 0x7FFF_FFFF);
    let header_end = 4 + h.blocks.len();
    for x in &mut w[4..header_end] {
        if *x != 0 {
            *x = addr(*x);
        }
    }
    for r in &h.regions {
        let at = r.offset as usize;
        match &r.body {
            crate::formats::hmd::RegionBody::Coordinates(c) => {
                for k in 0..c.len() {
                    let s = at + 1 + 20 * k + 19;
                    if w[s] != 0 {
                        w[s] = addr(w[s]);
                    }
                }
            }
            crate::formats::hmd::RegionBody::PrimitiveHeaders(hs) => {
                let mut q = at + 1;
                for hd in hs {
                    for x in &mut w[q + 1..q + 1 + hd.words.len()] {
                        if *x & 0x8000_0000 != 0 {
                            *x = addr(*x & 0x7FFF_FFFF);
                        }
                    }
                    q += 1 + hd.words.len();
                }
            }
            crate::formats::hmd::RegionBody::Primitive(_) => {
                if w[at] != u32::MAX {
                    w[at] = addr(w[at]);
                }
                w[at + 1] = addr(w[at + 1]);
                w[at + 2] &= 0x7FFF_FFFF;
            }
            _ => {}
        }
    }
    let mut out = Writer::<Le>::with_capacity(file.len());
    out.u32_words(&w);
    out.bytes(&file[n * 4..]);
    Some(out.into_vec())
}
