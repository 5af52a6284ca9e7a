//! A tiny labp-like assembler for hand-built HMD files: words, labels, word pointers to
//! labels and mapped (`M()`) pointers.

use std::collections::BTreeMap;

/// One item of the assembler.
pub enum It {
    W(u32),
    Label(&'static str),
    /// Word offset of a label (`Label / 4`).
    Ptr(&'static str),
    /// `M(Label / 4)`.
    M(&'static str),
}
use It::*;

pub fn assemble(items: &[It]) -> Vec<u8> {
    let mut labels = BTreeMap::new();
    let mut at = 0u32;
    for it in items {
        match it {
            Label(l) => {
                labels.insert(*l, at);
            }
            _ => at += 1,
        }
    }
    let get = |l: &str| *labels.get(l).unwrap_or_else(|| panic!("label {l}"));
    let mut out = Vec::new();
    for it in items {
        let w = match it {
            W(w) => *w,
            Label(_) => continue,
            Ptr(l) => get(l),
            M(l) => get(l) | 0x8000_0000,
        };
        out.extend_from_slice(&w.to_le_bytes());
    }
    out
}

pub fn h(lo: u16, hi: u16) -> u32 {
    lo as u32 | (hi as u32) << 16
}

/// `H(size); M(H(count))`.
pub fn cs(size: u16, count: u16) -> It {
    W(size as u32 | (count as u32) << 16 | 0x8000_0000)
}
