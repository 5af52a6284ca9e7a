//! Hand-built HMD animation files for the playback tests: one animation primitive over a few
//! identity coordinates, assembled word by word from the File Formats tables.

use super::hmd_asm::{assemble, cs, h, It, It::*};
use retroanim::formats::hmd::{self, Hmd};

pub const TERMINATE: u32 = 0xFFFF_FFFF;

pub fn key(type_idx: u32, tframe: u32, param: u32) -> u32 {
    type_idx << 24 | tframe << 16 | param
}
pub fn jump(dst: u32, cnd: u32, idx: u32) -> u32 {
    0x8000_0000 | dst << 23 | cnd << 16 | idx
}
pub fn ctrl(code: u32, p1: u32, p2: u32) -> u32 {
    0xC000_0000 | code << 23 | p1 << 16 | p2
}
pub const END: u32 = 0xC000_0000 | 1 << 23;

/// One sequence pointer: update index, speed, start, start SID, extra sequences.
pub struct Ptr {
    pub update: u32,
    pub speed: i8,
    pub start: u16,
    pub sid: u8,
    pub extra: Vec<(u16, u8)>,
}

pub fn ptr(update: u32, start: u16) -> Ptr {
    Ptr {
        update,
        speed: 16,
        start,
        sid: 0,
        extra: Vec::new(),
    }
}

/// An HMD with `coords` identity coordinates (coordinate k > 0 a child of coordinate 0), one
/// animation primitive with `ptrs`, the interpolation table `types`, descriptors `ctrl`,
/// parameter words `params`, and a 4-word target section (header section 5) for TGT = 1.
pub fn anim_file(
    coords: usize,
    types: &[u32],
    ptrs: &[Ptr],
    ctrl_words: &[u32],
    params: &[u32],
) -> Vec<u8> {
    let mut v = vec![
        W(0x50),
        W(0),
        It::Ptr("phs"),
        W(coords as u32 + 2),
        It::Ptr("pre"),
    ];
    v.extend((0..coords + 1).map(|_| W(0)));
    v.extend([Label("coords"), W(coords as u32)]);
    for k in 0..coords {
        v.push(W(0));
        v.extend([W(h(4096, 0)), W(0), W(h(4096, 0)), W(0), W(h(4096, 0))]);
        v.extend([W(0), W(0), W(0)]);
        v.extend((0..8).map(|_| W(0)));
        v.extend([W(0), W(0)]);
        v.push(if k == 0 { W(0) } else { It::Ptr("coords") });
    }
    // The parent pointer must name coordinate 0 itself: one word past the count.
    v.extend([
        Label("phs"),
        W(1),
        Label("h_anim"),
        W(6),
        W(6),
        M("interp"),
        M("ctrl"),
        M("params"),
        M("coords"),
        M("target"),
    ]);
    let words: usize = ptrs.iter().map(|p| 7 + p.extra.len()).sum();
    v.extend([
        Label("pre"),
        W(TERMINATE),
        It::Ptr("h_anim"),
        W(0x8000_0001),
        W(0x0380_0000),
        cs(1 + words as u16, ptrs.len() as u16),
    ]);
    for p in ptrs {
        v.extend([
            W(p.update),
            W(h(7 + p.extra.len() as u16, 1 + p.extra.len() as u16)),
            W(h(0xFFFF, 0)),
            W(p.sid as u32 | (p.speed as u8 as u32) << 8 | 0xFFFF << 16),
            W(0),
            W(0),
            W(p.start as u32 | (p.sid as u32) << 16),
        ]);
        v.extend(
            p.extra
                .iter()
                .map(|&(s, sid)| W(s as u32 | (sid as u32) << 16)),
        );
    }
    v.extend([Label("interp"), W(0x8000_0000 | types.len() as u32)]);
    v.extend(types.iter().map(|&t| W(t)));
    v.push(Label("ctrl"));
    v.extend(ctrl_words.iter().map(|&w| W(w)));
    v.push(Label("params"));
    v.extend(params.iter().map(|&w| W(w)));
    v.extend([Label("target"), W(0), W(0), W(0), W(0)]);
    let mut bytes = assemble(&v);
    // Fix the children's parent pointers (word offset of coordinate 0 = coords + 1).
    let coords_at = 5 + coords + 1;
    for k in 1..coords {
        let at = (coords_at + 1 + 20 * k + 19) * 4;
        let w = (coords_at + 1) as u32;
        bytes[at..at + 4].copy_from_slice(&w.to_le_bytes());
    }
    bytes
}

pub fn read_built(bytes: &[u8]) -> Hmd {
    hmd::read(bytes).expect("hand-built HMD reads")
}
