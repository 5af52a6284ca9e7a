//! Textures: the images of image primitives (category 2, notes §6; FF p.2-92..2-95) and the
//! TIMs given with `--tim`, placed in VRAM as the TMD export places TIMs (`formats::tmd::scene`): a
//! textured packet's texture page (TSB) and CLUT position (CBA) pick the image, and its UVs
//! are the page-relative texel coordinates turned into the image's 0..1.
//!
//! An image primitive stores no bit depth: as PSXPrev does, a CLUT 16 entries wide means 4-bit
//! indices, 256 wide 8-bit, no CLUT 15-bit direct colour (any other CLUT width: 4-bit when at
//! most 16 wide, else 8-bit). Image data past the end of its section leaves that image out.
//! When several images share a texture page, a packet takes the first that holds all its
//! corners' texels, else the first on the page (`formats::texpage::find`, as the TMD export).
//!
//! Tiled packets carry a texture window (`TUM TVM TUA TVA`, GPU command 0xE2): the GPU
//! replaces the texel coordinate's bits under the mask by the offset's, `u' = (u & !(TUM·8)) |
//! ((TUA & TUM)·8)`, so a window `W = 256 − TUM·8` wide repeats the tile at `(TUA & TUM)·8`.
//! When an image is exactly that tile, the corner's UV is `u / W` (and `v / H`) on a
//! repeating texture, which samples as the GPU does; when the tile is only part of an image,
//! each corner is folded into the tile (`origin + u mod W`), exact for polygons within one tile.
//! Materials follow each packet's [`Look`] (driver BOT, LGT, STP and the GPU code's ABE bit),
//! made as the TMD export makes them (`formats::tmd::scene::material`, rates by `blend_alpha`).

use std::collections::BTreeMap;

use super::super::types::{Hmd, SectionData, TypeData};
use super::super::Packet;
use crate::formats::tim::{Block, Tim};
use crate::formats::tmd::scene::{
    material, texture_source, MaterialKey, PsxOptions, TexSource, TextureKey,
};
use crate::formats::tmd::Tsb;
use crate::scene::{Mesh, MorphTarget, Primitive, Scene};
use crate::Result;

/// Per vertex: TIM, CLUT row, and whether a tiled packet repeats the image.
pub(super) type TexKey = (usize, usize, bool);

/// How a packet's surface looks besides its texture: from its type's driver bits (FF p.2-62;
/// notes §4: LGT 0x04 no lighting, BOT 0x10 double-sided, STP 0x20 semi-transparent) and its
/// GPU code's ABE bit (0x02), the rate from its TSB (textured) or the default 0.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct Look {
    /// Semi-transparent, with its rate (ABR 0..3).
    pub semi: Option<u8>,
    /// Back faces drawn (BOT).
    pub double_sided: bool,
    /// Not lit (LGT, or the type's LMD bit).
    pub unlit: bool,
}

impl Look {
    /// The look of packet `p` of a primitive of type `type_code`.
    pub fn of(type_code: u32, p: &Packet) -> Look {
        let driver = (type_code >> 16) & 0xFF;
        let abe = p.colors.first().is_some_and(|c| c[3] & 0x02 != 0);
        let semi = (driver & 0x20 != 0 || abe).then(|| {
            if p.uvs.is_empty() {
                0
            } else {
                Tsb::from_bits(p.tsb).abr
            }
        });
        Look {
            semi,
            double_sided: driver & 0x10 != 0,
            unlit: driver & 0x04 != 0 || type_code & 0x40 != 0,
        }
    }
}

/// Per vertex: its texture (if any) and look; vertices of equal keys share a material.
pub(super) type Surface = (Option<TexKey>, Look);

/// Where a textured packet's texels are.
pub(super) struct Texels {
    src: TexSource,
    /// Tiled packets: the window's origin and size in texels, and whether the image is
    /// exactly the tile.
    window: Option<([f64; 2], [f64; 2], bool)>,
}

impl Texels {
    /// The vertex key of this packet's corners.
    pub fn key(&self) -> TexKey {
        (
            self.src.tim,
            self.src.clut_row,
            self.window.is_some_and(|w| w.2),
        )
    }
}

/// A texture window word's origin and size in texels, per axis.
fn window_of(word: u32) -> ([f64; 2], [f64; 2]) {
    let field = |shift: u32| ((word >> shift) & 0x1F) * 8;
    let (um, vm, ua, va) = (field(0), field(5), field(10), field(15));
    (
        [(ua & um) as f64, (va & vm) as f64],
        [256.0 - um as f64, 256.0 - vm as f64],
    )
}

/// The images a file's textured packets may use, and the materials made so far.
pub(super) struct Texturing {
    opts: PsxOptions,
    /// Image entries of the file's image primitives left out (data past their section).
    pub images_left_out: usize,
    /// Textured packets no image covers (drawn untextured), counted as [`Texturing::source`]
    /// looks them up.
    pub untextured: std::cell::Cell<usize>,
    materials: BTreeMap<MaterialKey, usize>,
    textures: BTreeMap<TextureKey, usize>,
    /// How many of the TIMs are the file's own images (they come first).
    file_images: usize,
    /// The TIMs a material has taken its texture from.
    used: std::collections::BTreeSet<usize>,
}

/// The TIMs the image primitives linked into `hmd`'s blocks upload, in block order.
pub fn image_tims(hmd: &Hmd) -> Vec<Tim> {
    placed_images(hmd).0
}

/// [`image_tims`] and the number of image entries left out (image or CLUT data past the end of
/// its section).
fn placed_images(hmd: &Hmd) -> (Vec<Tim>, usize) {
    let headers = hmd.headers();
    let prims: BTreeMap<u32, &super::super::Primitive> = hmd.primitives().collect();
    // The primitives the blocks link (the console uploads images while scanning them).
    let mut linked = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    for &first in &hmd.blocks {
        let mut at = first;
        while first != 0 && at != super::super::TERMINATE && seen.insert(at) {
            let Some(p) = prims.get(&at) else { break };
            linked.push(*p);
            at = p.next;
        }
    }
    let mut out = Vec::new();
    let mut left_out = 0;
    for p in linked {
        let Some(h) = headers.get(&p.header) else {
            continue;
        };
        let vram = |i: usize| match h
            .words
            .get(i)
            .and_then(|e| e.pointer())
            .and_then(|s| hmd.section_at(s))
            .map(|s| &s.data)
        {
            Some(SectionData::Vram(v)) => Some(v.as_slice()),
            _ => None,
        };
        for t in &p.types {
            let TypeData::Images(entries) = &t.data else {
                continue;
            };
            for e in entries {
                let block = |r: &super::super::Rect, data: &[u16]| {
                    let [x, y, w, hh] = r.xywh;
                    let start = (r.index as usize).checked_mul(2)?;
                    let len = w as usize * hh as usize;
                    let data = data.get(start..start.checked_add(len)?)?.to_vec();
                    (len > 0).then_some(Block {
                        x,
                        y,
                        width: w,
                        height: hh,
                        data,
                        extra: Vec::new(),
                    })
                };
                let Some(image) = vram(0).and_then(|d| block(&e.image, d)) else {
                    left_out += 1;
                    continue;
                };
                let clut = match &e.clut {
                    Some(c) => match vram(1).and_then(|d| block(c, d)) {
                        Some(b) => Some(b),
                        None => {
                            left_out += 1;
                            continue;
                        }
                    },
                    None => None,
                };
                let pmode = match &clut {
                    None => 2,
                    Some(c) if c.width <= 16 => 0,
                    Some(_) => 1,
                };
                out.push(Tim {
                    version: 0,
                    id_reserved: 0,
                    pmode,
                    flags_reserved: 0,
                    clut,
                    image,
                    trailing: Vec::new(),
                });
            }
        }
    }
    (out, left_out)
}

impl Texturing {
    /// The file's images, then `extra` (the `--tim` files).
    pub fn new(hmd: &Hmd, extra: &[Tim]) -> Texturing {
        let (mut tims, images_left_out) = placed_images(hmd);
        let file_images = tims.len();
        tims.extend_from_slice(extra);
        Texturing {
            images_left_out,
            file_images,
            used: Default::default(),
            untextured: std::cell::Cell::new(0),
            opts: PsxOptions {
                tims,
                ..PsxOptions::default()
            },
            materials: BTreeMap::new(),
            textures: BTreeMap::new(),
        }
    }

    /// The file's own images no exported polygon is textured from (so no material carries
    /// them into the glTF), each as `W×H at VRAM (X, Y), D-bit`.
    pub fn unused_images(&self) -> Vec<String> {
        self.opts.tims[..self.file_images]
            .iter()
            .enumerate()
            .filter(|(i, _)| !self.used.contains(i))
            .map(|(_, t)| {
                let bits = match t.pmode {
                    0 => 4,
                    1 => 8,
                    _ => 16,
                };
                format!(
                    "{}×{} at VRAM ({}, {}), {bits}-bit",
                    t.pixel_width(),
                    t.image.height,
                    t.image.x,
                    t.image.y
                )
            })
            .collect()
    }

    /// Where a textured packet's texels are.
    pub fn source(&self, p: &Packet) -> Option<Texels> {
        if p.uvs.is_empty() {
            return None;
        }
        let tims = &self.opts.tims;
        let window = p.window.map(window_of);
        // The texels the packet reads: its corners, or for a tiled packet the tile's corners.
        let texels: Vec<[f64; 2]> = match window {
            Some((o, w)) => vec![o, [o[0] + w[0] - 1.0, o[1] + w[1] - 1.0]],
            None => p.uvs.iter().map(|uv| uv.uv.map(f64::from)).collect(),
        };
        let corners: Vec<[u8; 2]> = texels
            .iter()
            .map(|t| t.map(|c| c.clamp(0.0, 255.0) as u8))
            .collect();
        let found = texture_source(tims, p.tsb, p.cba, &corners);
        let Some(src) = found else {
            self.untextured.set(self.untextured.get() + 1);
            return None;
        };
        let window = window.map(|(o, w)| {
            let tim = &tims[src.tim];
            let exact = o[0] + src.offset.0 == 0.0
                && o[1] + src.offset.1 == 0.0
                && tim.pixel_width() as f64 == w[0]
                && tim.image.height as f64 == w[1];
            (o, w, exact)
        });
        Some(Texels { src, window })
    }

    /// A corner's texture coordinates in the image.
    pub fn uv(&self, t: &Texels, uv: [u8; 2]) -> [f32; 2] {
        let s = &t.src;
        let tim = &self.opts.tims[s.tim];
        let size = [
            tim.pixel_width().max(1) as f64,
            tim.image.height.max(1) as f64,
        ];
        let offset = [s.offset.0, s.offset.1];
        let uv = uv.map(f64::from);
        match t.window {
            Some((_, w, true)) => [0, 1].map(|i| (uv[i] / w[i]) as f32),
            Some((o, w, false)) => {
                [0, 1].map(|i| ((o[i] + uv[i].rem_euclid(w[i]) + offset[i]) / size[i]) as f32)
            }
            None => [0, 1].map(|i| ((uv[i] + offset[i]) / size[i]) as f32),
        }
    }

    /// Splits a mesh's single primitive into one per surface (`keys`: per vertex, the TIM and
    /// CLUT row, `None` for untextured corners, which lose their UVs, and the look; plain lit
    /// untextured corners keep material 0), adding materials and textures to `scene`.
    pub fn split(&mut self, scene: &mut Scene, mesh: &mut Mesh, keys: &[Surface]) -> Result<()> {
        let Some(whole) = mesh.primitives.first() else {
            return Ok(());
        };
        if keys.iter().all(|k| *k == Surface::default()) {
            mesh.primitives[0].uvs.clear();
            return Ok(());
        }
        let mut groups: BTreeMap<Surface, Vec<usize>> = BTreeMap::new();
        for (v, k) in keys.iter().enumerate() {
            groups.entry(*k).or_default().push(v);
        }
        let mut out = Vec::new();
        for (key, verts) in groups {
            let pick = |a: &[[f32; 3]]| verts.iter().filter_map(|&v| a.get(v).copied()).collect();
            let mut p = Primitive {
                mode: whole.mode,
                positions: pick(&whole.positions),
                normals: pick(&whole.normals),
                colors: verts
                    .iter()
                    .filter_map(|&v| whole.colors.get(v).copied())
                    .collect(),
                uvs: verts
                    .iter()
                    .filter_map(|&v| whole.uvs.get(v).copied())
                    .collect(),
                joints: verts
                    .iter()
                    .filter_map(|&v| whole.joints.get(v).copied())
                    .collect(),
                weights: verts
                    .iter()
                    .filter_map(|&v| whole.weights.get(v).copied())
                    .collect(),
                targets: whole
                    .targets
                    .iter()
                    .map(|t| MorphTarget {
                        kind: t.kind,
                        positions: pick(&t.positions),
                        normals: pick(&t.normals),
                    })
                    .collect(),
                material: Some(0),
                ..Primitive::default()
            };
            let (tex, look) = key;
            match tex {
                Some((tim, _, _)) => {
                    self.used.insert(tim);
                }
                None => p.uvs.clear(),
            }
            if key != Surface::default() {
                let mk = MaterialKey {
                    texture: tex.map(|(tim, clut, _)| (tim, clut)),
                    missing: false,
                    semi: look.semi.is_some(),
                    rate: look.semi.unwrap_or(0),
                    double_sided: look.double_sided,
                    unlit: look.unlit,
                };
                let m = match self.materials.get(&mk) {
                    Some(&m) => m,
                    None => {
                        let mat =
                            material(mk, &self.opts, &mut self.textures, &mut scene.textures)?;
                        scene.materials.push(mat);
                        self.materials.insert(mk, scene.materials.len() - 1);
                        scene.materials.len() - 1
                    }
                };
                p.material = Some(m);
                if tex.is_some_and(|t| t.2) {
                    if let Some(t) = scene.materials[m].texture {
                        scene.textures[t].repeat = true;
                    }
                }
            }
            out.push(p);
        }
        mesh.primitives = out;
        Ok(())
    }
}
