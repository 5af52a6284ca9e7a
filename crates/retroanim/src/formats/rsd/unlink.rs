//! TMD → RSD: the inverse of [`super::to_tmd`], one RSD set per TMD object. A TMD that
//! `to_tmd` could have written comes back byte for byte; whatever an RSD cannot say (sprites,
//! raw packets, TGE, a colour word's spare byte, a block layout other than rsdlink's) is noted.

use std::collections::BTreeMap;

use super::link::tim_page;
use super::read::placement_comment;
use super::types::*;
use crate::formats::tim::Tim;
use crate::formats::tmd::author::{polygon_olen, Counts};
use crate::formats::tmd::{flag, mode, Object, PrimitiveData, Tmd};
use crate::report::Note;
use crate::Result;

/// RSD sets made from a TMD, with what they could not carry.
#[derive(Debug, Clone, PartialEq)]
pub struct Unlinked {
    /// One set per TMD object.
    pub sets: Vec<RsdSet>,
    /// What was left out.
    pub notes: Vec<Note>,
}

/// The file names a set made from object `k` of `n` uses: `stem.ply` etc. (`stem_k` when the
/// TMD has several objects).
pub fn set_stem(stem: &str, k: usize, _n: usize) -> String {
    if k == 0 {
        stem.to_string()
    } else {
        format!("{stem}_{k}")
    }
}

/// Splits `tmd` into RSD sets named after `stem` (see [`set_stem`]). A texture (TSB, CBA) that
/// one of `tims` (name, TIM) lies at is named after that TIM, its UVs made relative to the
/// image; any other is named `stem_texN.tim` with its TSB and CBA recorded in a
/// `# retroanim TEX[n]` comment.
pub fn from_tmd(tmd: &Tmd, stem: &str, tims: &[(String, Tim)]) -> Result<Unlinked> {
    let mut notes = Counts::default();
    if tmd.flags != 0 {
        notes.add("tmd-flags", 1, || {
            "TMD FLAGS (FIXP) not kept: RSD → TMD writes 0".into()
        });
    }
    if !tmd.gaps.is_empty() {
        notes.add("tmd-gaps", tmd.gaps.len(), || {
            "bytes between TMD blocks dropped".into()
        });
    }
    let mut packed = tmd.clone();
    packed.pack();
    if packed.objects != tmd.objects {
        notes.add("tmd-layout", 1, || {
            "TMD block layout not rsdlink's (primitives, vertices, normals in object order): written in that order".into()
        });
    }
    let n = tmd.objects.len();
    let sets = tmd
        .objects
        .iter()
        .enumerate()
        .map(|(k, o)| object(o, &set_stem(stem, k, n), tims, &mut notes))
        .collect();
    Ok(Unlinked {
        sets,
        notes: notes.finish(),
    })
}

fn rgb(c: &crate::formats::tmd::Rgbx) -> Rgb {
    [c.r, c.g, c.b]
}

fn object(o: &Object, stem: &str, tims: &[(String, Tim)], notes: &mut Counts) -> RsdSet {
    let pages: Vec<(u16, u16, u8, u8)> = tims.iter().map(|(_, t)| tim_page(t)).collect();
    if o.scale != 0 {
        notes.add("tmd-scale", 1, || {
            "object scale exponents dropped (RSD → TMD writes 0)".into()
        });
    }
    let vertices = o
        .vertices
        .iter()
        .map(|v| [f64::from(v.x), f64::from(v.y), f64::from(v.z)])
        .collect();
    let normals = o
        .normals
        .iter()
        .map(|v| {
            [
                f64::from(v.x) / 4096.0,
                f64::from(v.y) / 4096.0,
                f64::from(v.z) / 4096.0,
            ]
        })
        .collect();
    if o.vertices.iter().chain(&o.normals).any(|v| v.pad != 0) {
        notes.add("svector-pad", 1, || {
            "non-zero SVECTOR pad halfwords dropped".into()
        });
    }
    let mut textures: BTreeMap<(u16, u16), u32> = BTreeMap::new();
    let mut polygons = Vec::with_capacity(o.primitives.len());
    let mut mats: Vec<Material> = Vec::with_capacity(o.primitives.len());
    for p in &o.primitives {
        let semi = p.mode & mode::ABE != 0;
        let unlit = p.flag & flag::LGT != 0;
        let mut mflag = 0u32;
        if unlit {
            mflag |= mat_flag::UNLIT;
        }
        if p.flag & flag::FCE != 0 {
            mflag |= mat_flag::DOUBLE;
        }
        if semi {
            mflag |= mat_flag::SEMI;
        }
        match &p.data {
            PrimitiveData::Polygon(q) => {
                let n = q.vertices.len();
                let textured = p.mode & mode::TME != 0;
                let iip = p.mode & mode::IIP != 0;
                let grd = p.flag & flag::GRD != 0;
                if p.mode & mode::TGE != 0 {
                    notes.add("tge-dropped", 1, || {
                        "TGE (texture without brightness) bits dropped".into()
                    });
                }
                if q.pad != 0 {
                    notes.add("index-pad", 1, || {
                        "non-zero index pad halfwords dropped".into()
                    });
                }
                if p.olen != polygon_olen(textured, n == 4, iip || (grd && !unlit && !textured)) {
                    notes.add("olen", 1, || {
                        "packet olen values rsdlink would not write replaced".into()
                    });
                }
                let code_ok = q
                    .colors
                    .iter()
                    .enumerate()
                    .all(|(j, c)| c.x == if j == 0 && !textured { p.mode } else { 0 });
                if !code_ok {
                    notes.add("color-spare-byte", 1, || {
                        "colour words' spare bytes dropped".into()
                    });
                }
                let mut ply = PlyPolygon {
                    flag: u32::from(n == 4),
                    ..Default::default()
                };
                for (j, &v) in q.vertices.iter().enumerate() {
                    ply.vertices[j] = u32::from(v);
                }
                if !unlit {
                    for j in 0..n {
                        let nn = q.normals.get(j).or(q.normals.first()).copied().unwrap_or(0);
                        ply.normals[j] = u32::from(nn);
                    }
                }
                polygons.push(ply);
                let mut rgb4 = [[0u8; 3]; 4];
                for (j, c) in q.colors.iter().enumerate() {
                    rgb4[j] = rgb(c);
                }
                let one = q.colors.first().map(rgb).unwrap_or([128; 3]);
                let many = q.colors.len() > 1;
                let shading = if iip { Shading::Gouraud } else { Shading::Flat };
                let info = if textured {
                    let tsb = q.tsb().unwrap_or(0);
                    let cba = q.cba().unwrap_or(0);
                    mflag |= u32::from((tsb >> 5) & 3) << mat_flag::RATE_SHIFT;
                    let next = textures.len() as u32;
                    let tex = *textures.entry((tsb & !0x60, cba)).or_insert(next);
                    let (du, dv) = pages
                        .iter()
                        .find(|p| (p.0, p.1) == (tsb & !0x60, cba))
                        .map_or((0, 0), |p| (p.2, p.3));
                    let mut uv = [[0u8; 2]; 4];
                    for (j, c) in q.uvs.iter().enumerate() {
                        uv[j] = [c.u.wrapping_sub(du), c.v.wrapping_sub(dv)];
                    }
                    match (unlit, many) {
                        (false, _) => MatInfo::T { tex, uv },
                        (true, true) => MatInfo::H { tex, uv, rgb: rgb4 },
                        (true, false) if one == [128; 3] => MatInfo::T { tex, uv },
                        (true, false) => MatInfo::D { tex, uv, rgb: one },
                    }
                } else if many {
                    MatInfo::G(rgb4)
                } else {
                    MatInfo::C(one)
                };
                mats.push(Material {
                    polygons: PolySet::default(),
                    flag: mflag,
                    shading,
                    info,
                });
            }
            PrimitiveData::Line(l) => {
                polygons.push(PlyPolygon {
                    flag: 2,
                    vertices: [u32::from(l.vertices[0]), u32::from(l.vertices[1]), 0, 0],
                    normals: [0; 4],
                });
                let info = match l.colors.as_slice() {
                    [a, b] => MatInfo::G([rgb(a), rgb(b), [0; 3], [0; 3]]),
                    [a, ..] => MatInfo::C(rgb(a)),
                    [] => MatInfo::C([128; 3]),
                };
                let gouraud = l.colors.len() > 1;
                if l.colors.first().is_some_and(|c| c.x != p.mode)
                    || l.colors.get(1).is_some_and(|c| c.x != 0)
                    || p.olen != if gouraud { 4 } else { 3 }
                {
                    notes.add("line-bytes", 1, || {
                        "line packets' spare bytes or olen rsdlink would not write replaced".into()
                    });
                }
                mats.push(Material {
                    polygons: PolySet::default(),
                    flag: mflag,
                    shading: if gouraud {
                        Shading::Gouraud
                    } else {
                        Shading::Flat
                    },
                    info,
                });
            }
            PrimitiveData::Sprite(_) | PrimitiveData::Raw { .. } => {
                notes.add("primitive-dropped", 1, || {
                    "sprites and raw packets left out (the RSD side of sprites is not converted)".into()
                });
            }
        }
    }
    // Neighbouring polygons with the same material share one descriptor `a-b`.
    let mut materials: Vec<Material> = Vec::new();
    for (i, mut m) in mats.into_iter().enumerate() {
        let i = i as u32;
        if let Some(last) = materials.last_mut() {
            if last.flag == m.flag && last.shading == m.shading && last.info == m.info {
                if let Some(r) = last.polygons.0.last_mut() {
                    if r.1 + 1 == i {
                        r.1 = i;
                        continue;
                    }
                }
            }
        }
        m.polygons = PolySet(vec![(i, i)]);
        materials.push(m);
    }
    let mut tex: Vec<((u16, u16), u32)> = textures.into_iter().collect();
    tex.sort_by_key(|t| t.1);
    let mut entries = vec![
        Entry {
            key: Key::Ply,
            value: format!("{stem}.ply"),
        },
        Entry {
            key: Key::Mat,
            value: format!("{stem}.mat"),
        },
        Entry {
            key: Key::NTex,
            value: tex.len().to_string(),
        },
    ];
    let mut kept = Kept::default();
    kept.lines.push(KeptLine::Other(format!(
        "# {stem}.rsd: made by retroanim from a TMD object\n"
    )));
    let mut placements = BTreeMap::new();
    let mut set_tims = Vec::with_capacity(tex.len());
    for ((tsb, cba), n) in &tex {
        set_tims.push(
            pages
                .iter()
                .position(|p| (p.0, p.1) == (*tsb, *cba))
                .map(|k| tims[k].1.clone()),
        );
        match pages.iter().position(|p| (p.0, p.1) == (*tsb, *cba)) {
            Some(k) => entries.push(Entry {
                key: Key::Tex(*n),
                value: tims[k].0.clone(),
            }),
            None => {
                entries.push(Entry {
                    key: Key::Tex(*n),
                    value: format!("{stem}_tex{n}.tim"),
                });
                kept.lines.push(KeptLine::Other(format!(
                    "{}\n",
                    placement_comment(*n, *tsb, *cba)
                )));
                placements.insert(*n, (*tsb, *cba));
            }
        }
    }
    RsdSet {
        rsd: Rsd {
            version: "970401".into(),
            entries,
            placements,
            kept,
        },
        ply: Some(Ply {
            version: "970401".into(),
            vertices,
            normals,
            polygons,
            kept: Kept::default(),
        }),
        mat: Some(Mat {
            version: "970401".into(),
            materials,
            kept: Kept::default(),
        }),
        grp: None,
        missing: Vec::new(),
        tims: set_tims,
    }
}
