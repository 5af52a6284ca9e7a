//! A VRAM dump as a texture source: the 1 MiB of 1024 × 512 halfwords an emulator saves
//! (`crate::vram::Vram::from_dump`), with no TIM headers in it.
//!
//! The models' textured polygons say where their texels are: a page (TSB: position and
//! colour depth) and, for 4- and 8-bit pages, a CLUT row (CBA). For every distinct page and
//! CLUT the models name, the dump is cut into one TIM: the whole page at its depth (64, 128 or
//! 256 halfwords wide, 256 rows, clipped at VRAM's right edge) at its own VRAM position, with
//! the 16- or 256-entry CLUT at the CBA. Each is matched like any TIM found on a disc: it
//! holds every texel of its page, so the polygons that sample it are textured with the
//! dump's texels, exactly as the console would draw them from that VRAM.

use std::collections::BTreeSet;

use super::textures::Group;
use crate::formats::tim::{self, Block, Depth, Tim};
use crate::vram::{Vram, WIDTH};

/// A VRAM dump and the name it is listed under.
#[derive(Debug, Clone)]
pub struct VramDump {
    /// Its file name (the cut TIMs' container is `NAME:/PAGE...`).
    pub name: String,
    /// Its contents.
    pub vram: Vram,
}

/// A page a model samples: colour depth (0: 4-bit, 1: 8-bit, 2: 16-bit), page position, and
/// its CLUT position where it has one.
type PageKey = (u8, (u32, u32), Option<(u32, u32)>);

impl VramDump {
    /// Reads a dump file's bytes (exactly 1 MiB).
    pub fn new(name: impl Into<String>, bytes: &[u8]) -> crate::error::Result<VramDump> {
        Ok(VramDump {
            name: name.into(),
            vram: Vram::from_dump(bytes)?,
        })
    }

    /// The TIMs cut from the dump for the pages and CLUTs `groups` sample: (container name,
    /// TIM bytes), one per distinct page and CLUT, in page order.
    pub fn cut(&self, groups: &[Group]) -> Vec<(String, Vec<u8>)> {
        let keys: BTreeSet<PageKey> = groups
            .iter()
            .map(|g| {
                let d = match g.sampled.depth {
                    Depth::Clut4 => 0,
                    Depth::Clut8 => 1,
                    _ => 2,
                };
                (d, g.sampled.page, g.sampled.clut.filter(|_| d < 2))
            })
            .collect();
        keys.into_iter()
            .filter_map(|(d, page, clut)| {
                let tim = self.page_tim(d, page, clut)?;
                let bits = [4, 8, 16][d as usize];
                let name = match clut {
                    Some((cx, cy)) => format!(
                        "{}:/PAGE_X{}_Y{}_{bits}BIT_CLUT_X{cx}_Y{cy}.TIM",
                        self.name, page.0, page.1
                    ),
                    None => format!("{}:/PAGE_X{}_Y{}_{bits}BIT.TIM", self.name, page.0, page.1),
                };
                Some((name, tim::write(&tim).ok()?))
            })
            .collect()
    }

    fn block(&self, x: u32, y: u32, w: u32, h: u32) -> Block {
        let w = w.min(WIDTH as u32 - x.min(WIDTH as u32));
        let mut data = Vec::with_capacity((w * h) as usize);
        for row in 0..h {
            for col in 0..w {
                data.push(self.vram.get((x + col) as usize, (y + row) as usize));
            }
        }
        Block {
            x: x as u16,
            y: y as u16,
            width: w as u16,
            height: h as u16,
            data,
            extra: Vec::new(),
        }
    }

    fn page_tim(&self, depth: u8, page: (u32, u32), clut: Option<(u32, u32)>) -> Option<Tim> {
        let width = [64, 128, 256][depth as usize];
        let image = self.block(page.0, page.1, width, 256);
        let clut = match (depth, clut) {
            (2, _) => None,
            (_, Some((cx, cy))) => Some(self.block(cx, cy, [16, 256][depth as usize], 1)),
            (_, None) => return None,
        };
        Some(Tim {
            version: 0,
            id_reserved: 0,
            pmode: depth,
            flags_reserved: 0,
            clut,
            image,
            trailing: Vec::new(),
        })
    }
}
