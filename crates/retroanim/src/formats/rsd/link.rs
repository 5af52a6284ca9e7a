//! RSD → TMD as `rsdlink` does (Data Conversion Utilities pp. 2-39..2-41): one object per set,
//! one packet per PLY polygon in PLY order, primitives then vertices then normals.
//!
//! Per polygon, from its material:
//! - flag: LGT = MAT bit 0 (fixed colour), FCE = bit 1 (double-faced), GRD for a lit
//!   untextured polygon with a colour per vertex (type G);
//! - mode: CODE 1, IIP when shading is `G` (lit) or the type has a colour per vertex (unlit
//!   G, H, N: "F for MAT shading will produce Gouraud output for material types G, H, N"),
//!   QUAD, TME for textured types, ABE = MAT bit 2; TSB's ABR = MAT bits 4..3;
//! - colours: C/G as given; unlit T/W get (128, 128, 128) (RSDTOOL's notes); lit textured
//!   polygons none (a lit D/H/S/N drops its colours, noted);
//! - normals: flat shading uses the first vertex's normal, Gouraud one per vertex;
//! - texture: TSB and CBA from the TIM `TEX[n]` (its page, depth, CLUT position); UVs are the
//!   MAT's plus the image's offset inside its texture page. W/S/N repeat values have no TMD
//!   field (noted).
//!
//! Vertices are rounded to the nearest integer and normals × 4096 likewise; a value past
//! int16 is an error, not a wrap.

use super::types::*;
use crate::formats::tmd::author::{polygon_olen, Counts};
use crate::formats::tmd::{
    flag, mode, ArrayVec, Line, Object, Polygon, Primitive, PrimitiveData, Rgbx, SVector, Tmd, Uv,
};
use crate::report::Note;
use crate::{Error, Format, Result};

/// A TMD made from an RSD set, with what it could not carry.
#[derive(Debug, Clone, PartialEq)]
pub struct Linked {
    /// The TMD (one object).
    pub tmd: Tmd,
    /// What was left out or approximated.
    pub notes: Vec<Note>,
    /// For each packet (objects in order), the PLY polygon it was made from.
    pub polygons: Vec<usize>,
}

fn fixed(v: f64, scale: f64, what: &str, i: usize) -> Result<i16> {
    let r = (v * scale).round();
    if !(-32768.0..=32767.0).contains(&r) {
        return Err(Error::Unencodable {
            format: Format::Tmd,
            what: format!("{what} {i}: {v} does not fit a 16-bit TMD coordinate"),
        });
    }
    Ok(r as i16)
}

/// The TSB / CBA and UV offset of texture `n`.
#[derive(Clone, Copy)]
struct Page {
    tsb: u16,
    cba: u16,
    du: u8,
    dv: u8,
}

/// A TIM's texture page: (TSB without ABR, CBA, u offset, v offset of its image in the page).
pub(crate) fn tim_page(tim: &crate::formats::tim::Tim) -> (u16, u16, u8, u8) {
    let tpf: u16 = match tim.pmode {
        0 => 0,
        1 => 1,
        _ => 2,
    };
    let (x, y) = (u32::from(tim.image.x), u32::from(tim.image.y));
    let page = ((x / 64) & 0xF) as u16 | if y >= 256 { 0x10 } else { 0 };
    let per = match tpf {
        0 => 4,
        1 => 2,
        _ => 1,
    };
    let cba = tim
        .clut
        .as_ref()
        .map_or(0, |c| ((c.y & 0x1FF) << 6) | ((c.x >> 4) & 0x3F));
    (
        page | (tpf << 7),
        cba,
        ((x % 64) * per) as u8,
        (y % 256) as u8,
    )
}

fn page_of(set: &RsdSet, n: u32) -> Option<Page> {
    if let Some(Some(tim)) = set.tims.get(n as usize) {
        let (tsb, cba, du, dv) = tim_page(tim);
        return Some(Page { tsb, cba, du, dv });
    }
    set.rsd.placements.get(&n).map(|&(tsb, cba)| Page {
        tsb,
        cba,
        du: 0,
        dv: 0,
    })
}

/// Links `set` into a TMD (see the module docs). Polygons without a material, sprites and
/// reserved polygon types are left out, with a note each.
pub fn to_tmd(set: &RsdSet) -> Result<Linked> {
    let ply = set.ply.as_ref().ok_or_else(|| Error::Conversion {
        from: Format::Rsd,
        to: Format::Tmd,
        why: "the set has no PLY file".into(),
    })?;
    let mut notes = Counts::default();
    let vertices = ply
        .vertices
        .iter()
        .enumerate()
        .map(|(i, v)| {
            Ok(SVector {
                x: fixed(v[0], 1.0, "vertex", i)?,
                y: fixed(v[1], 1.0, "vertex", i)?,
                z: fixed(v[2], 1.0, "vertex", i)?,
                pad: 0,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let normals = ply
        .normals
        .iter()
        .enumerate()
        .map(|(i, v)| {
            Ok(SVector {
                x: fixed(v[0], 4096.0, "normal", i)?,
                y: fixed(v[1], 4096.0, "normal", i)?,
                z: fixed(v[2], 4096.0, "normal", i)?,
                pad: 0,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    // Each polygon's material: the last descriptor naming it (as the material editor applies
    // them in order).
    let np = ply.polygons.len();
    let materials: &[Material] = set.mat.as_ref().map_or(&[], |m| &m.materials);
    // The last descriptor naming a polygon is the first one counting from the end.
    let claims = materials
        .iter()
        .enumerate()
        .rev()
        .flat_map(|(k, x)| x.polygons.0.iter().map(move |&r| (r, k)));
    let of: Vec<Option<&Material>> = super::first_claims(np, claims)
        .into_iter()
        .map(|k| k.map(|k| &materials[k]))
        .collect();
    let mut primitives = Vec::with_capacity(np);
    let mut polygon_of = Vec::with_capacity(np);
    for (i, q) in ply.polygons.iter().enumerate() {
        let before = primitives.len();
        let Some(m) = of[i] else {
            notes.add("polygon-without-material", 1, || {
                "polygons without a material left out".into()
            });
            continue;
        };
        let k = q.corners();
        let idx = |v: u32, what: &str| -> Result<u16> {
            u16::try_from(v).map_err(|_| Error::Unencodable {
                format: Format::Tmd,
                what: format!("polygon {i}: {what} {v} past TMD's 16-bit indices"),
            })
        };
        match q.kind() {
            PolygonType::Triangle | PolygonType::Quad => {
                primitives.push(polygon(set, q, m, k, &idx, &mut notes)?);
            }
            PolygonType::Line => {
                let colors = m.info.colors().unwrap_or([[128; 3]; 4]);
                let grad = m.info.per_corner();
                let md = 0x40 | if grad { mode::IIP } else { 0 } | semi(m);
                let mut c = ArrayVec::new();
                for (j, rgb) in colors.iter().take(if grad { 2 } else { 1 }).enumerate() {
                    c.push(Rgbx {
                        r: rgb[0],
                        g: rgb[1],
                        b: rgb[2],
                        x: if j == 0 { md } else { 0 },
                    });
                }
                primitives.push(Primitive {
                    olen: if grad { 4 } else { 3 },
                    flag: flag::LGT,
                    mode: md,
                    data: PrimitiveData::Line(Line {
                        colors: c,
                        vertices: [idx(q.vertices[0], "vertex")?, idx(q.vertices[1], "vertex")?],
                    }),
                });
            }
            PolygonType::Sprite | PolygonType::Reserved => notes.add("sprite-dropped", 1, || {
                "sprites and reserved polygon types left out (not converted)".into()
            }),
        }
        if primitives.len() > before {
            polygon_of.push(i);
        }
    }
    let mut tmd = Tmd {
        flags: 0,
        address_base: 0,
        objects: vec![Object {
            vert_top: 0,
            normal_top: 0,
            primitive_top: 0,
            scale: 0,
            vertices,
            normals,
            primitives,
        }],
        gaps: Vec::new(),
    };
    tmd.pack();
    Ok(Linked {
        tmd,
        notes: notes.finish(),
        polygons: polygon_of,
    })
}

/// Links several sets into one TMD, one object per set in order (as `rsdlink a.rsd b.rsd`).
pub fn to_tmd_all(sets: &[RsdSet]) -> Result<Linked> {
    let mut tmd = Tmd {
        flags: 0,
        address_base: 0,
        objects: Vec::with_capacity(sets.len()),
        gaps: Vec::new(),
    };
    let mut notes = Vec::new();
    let mut polygons = Vec::new();
    for s in sets {
        let l = to_tmd(s)?;
        tmd.objects.extend(l.tmd.objects);
        polygons.extend(l.polygons);
        for n in l.notes {
            if !notes.contains(&n) {
                notes.push(n);
            }
        }
    }
    tmd.pack();
    Ok(Linked {
        tmd,
        notes,
        polygons,
    })
}

fn semi(m: &Material) -> u8 {
    if m.flag & mat_flag::SEMI != 0 {
        mode::ABE
    } else {
        0
    }
}

fn polygon(
    set: &RsdSet,
    q: &PlyPolygon,
    m: &Material,
    n: usize,
    idx: &dyn Fn(u32, &str) -> Result<u16>,
    notes: &mut Counts,
) -> Result<Primitive> {
    let lit = m.flag & mat_flag::UNLIT == 0;
    let textured = m.info.texture().is_some();
    let per_corner = m.info.per_corner();
    let gouraud_shading = m.shading == Shading::Gouraud;
    let (iip, ncolors, nnormals, grd) = if lit {
        let colors = match (textured, per_corner) {
            (true, _) => 0,
            (false, true) => n,
            (false, false) => 1,
        };
        (
            gouraud_shading,
            colors,
            if gouraud_shading { n } else { 1 },
            !textured && per_corner,
        )
    } else {
        (per_corner, if per_corner { n } else { 1 }, 0, false)
    };
    if lit && textured && m.info.colors().is_some() {
        notes.add("lit-texture-colors-dropped", 1, || {
            "lit textured polygons of type D, H, S or N: their colours dropped (the TMD packet of a lit textured polygon has none)".into()
        });
    }
    if matches!(
        m.info,
        MatInfo::W { .. } | MatInfo::S { .. } | MatInfo::N { .. }
    ) {
        notes.add("texture-repeat-dropped", 1, || {
            "repeating-texture values (TUM TVM TUA TVA) dropped: a TMD packet has no texture window".into()
        });
    }
    let mut md = 0x20 | semi(m);
    if iip {
        md |= mode::IIP;
    }
    if n == 4 {
        md |= mode::QUAD;
    }
    if textured {
        md |= mode::TME;
    }
    let mut fl = 0;
    if !lit {
        fl |= flag::LGT;
    }
    if m.flag & mat_flag::DOUBLE != 0 {
        fl |= flag::FCE;
    }
    if grd {
        fl |= flag::GRD;
    }
    let mut p = Polygon::default();
    let colors = m.info.colors().unwrap_or([[128; 3]; 4]);
    for (j, c) in colors.iter().take(ncolors).enumerate() {
        p.colors.push(Rgbx {
            r: c[0],
            g: c[1],
            b: c[2],
            x: if j == 0 && !textured { md } else { 0 },
        });
    }
    if let (Some(t), Some(uv)) = (m.info.texture(), m.info.uvs()) {
        let page = page_of(set, t);
        if page.is_none() {
            notes.add("texture-not-found", 1, || {
                "textured polygons whose TIM was not found: TSB and CBA written as 0".into()
            });
        }
        let pg = page.unwrap_or(Page {
            tsb: 0,
            cba: 0,
            du: 0,
            dv: 0,
        });
        let abr = ((m.flag >> mat_flag::RATE_SHIFT) & 3) as u16;
        for (j, c) in uv.iter().take(n).enumerate() {
            p.uvs.push(Uv {
                u: c[0].wrapping_add(pg.du),
                v: c[1].wrapping_add(pg.dv),
                extra: match j {
                    0 => pg.cba,
                    1 => pg.tsb | (abr << 5),
                    _ => 0,
                },
            });
        }
    }
    for &x in q.normals.iter().take(nnormals) {
        p.normals.push(idx(x, "normal")?);
    }
    for &x in q.vertices.iter().take(n) {
        p.vertices.push(idx(x, "vertex")?);
    }
    Ok(Primitive {
        olen: polygon_olen(textured, n == 4, iip || grd),
        flag: fl,
        mode: md,
        data: PrimitiveData::Polygon(p),
    })
}
