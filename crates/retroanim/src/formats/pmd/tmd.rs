//! PMD ↔ TMD. A PMD is what Sony's TMD2PMD makes of a TMD (Dataconv "TMD2PMD"): polygons
//! grouped by kind, their GPU primitives ready-made. [`to_tmd`] turns each PMD object into a TMD
//! object of unlit polygons with the packets' colours, UVs, CLUT and texture page (a PMD holds
//! no normals); [`from_tmd`] does what TMD2PMD does (options `-s`, `-l`, `-b`).

use std::collections::BTreeMap;

use crate::error::{Error, Result};
use crate::formats::tmd::{self, ArrayVec, Polygon, PrimitiveData, Rgbx, Tmd, Uv};
use crate::Format;

use super::types::*;

/// A note: a stable code and what was left out or changed.
pub type Noted = Vec<(&'static str, String)>;

/// PMD → TMD: one TMD object per PMD object (a bare group: one object), its polygons unlit
/// (flag LGT) with the packet's colours; FCE set where TYPE turns back clipping off. Each
/// object holds the vertices it uses: a shared object's in VERTEX-group order, an independent
/// one's packet by packet.
pub fn to_tmd(pmd: &Pmd) -> Result<(Tmd, Noted)> {
    let mut notes = Noted::new();
    let lists: Vec<Vec<usize>> = match &pmd.header {
        Some(_) => pmd.objects.iter().map(|o| o.groups.clone()).collect(),
        None => vec![(0..pmd.groups.len()).collect()],
    };
    if pmd.header.is_none() && pmd.groups.iter().any(|g| g.kind.shared) {
        return Err(Error::Unsupported {
            format: Format::Pmd,
            offset: 0,
            feature: "a bare primitive group with shared vertices: its vertices are in another file (WALK's SV files), so it has no geometry of its own".into(),
        });
    }
    let (mut lit, mut differing) = (0usize, 0usize);
    let mut objects = Vec::with_capacity(lists.len());
    for groups in &lists {
        let mut o = tmd::Object {
            vert_top: 0,
            normal_top: 0,
            primitive_top: 0,
            scale: 0,
            vertices: Vec::new(),
            normals: Vec::new(),
            primitives: Vec::new(),
        };
        // Shared vertices this object uses, in VERTEX-group order.
        let mut remap: BTreeMap<u32, u16> = BTreeMap::new();
        for g in groups.iter().filter_map(|&g| pmd.groups.get(g)) {
            for p in &g.packets {
                if let Vertices::Shared(vp) = &p.vertices {
                    remap.extend(vp.iter().map(|&v| (v / 8, 0)));
                }
            }
        }
        for (k, (v, slot)) in remap.iter_mut().enumerate() {
            *slot = index(k)?;
            o.vertices
                .push(
                    pmd.vertices
                        .get(*v as usize)
                        .copied()
                        .ok_or_else(|| Error::Malformed {
                            format: Format::Pmd,
                            offset: 8,
                            what: format!(
                                "a packet names vertex {v}; the VERTEX group holds {}",
                                pmd.vertices.len()
                            ),
                        })?,
                );
        }
        for g in groups.iter().filter_map(|&g| pmd.groups.get(g)) {
            if pmd.header.is_some() && g.type_bits & TYPE_LIGHT != 0 {
                lit += g.packets.len();
            }
            let double = pmd.header.is_some() && g.type_bits & TYPE_NO_BACK_CLIP != 0;
            for p in &g.packets {
                if p.primitives[0] != p.primitives[1] {
                    differing += 1;
                }
                let vertices = match &p.vertices {
                    Vertices::Shared(vp) => vp.iter().map(|v| remap[&(v / 8)]).collect(),
                    Vertices::Independent(vs) => {
                        let mut ix = ArrayVec::new();
                        for v in vs {
                            ix.push(index(o.vertices.len())?);
                            o.vertices.push(*v);
                        }
                        ix
                    }
                };
                o.primitives.push(primitive(g.kind, p, vertices, double));
            }
        }
        objects.push(o);
    }
    if lit > 0 {
        notes.push((
            "lighting-dropped",
            format!("{lit} polygons have light-source calculation on (TYPE bit 20); a PMD holds no normals, so they become unlit TMD polygons with their packets' colours"),
        ));
    }
    if differing > 0 {
        notes.push((
            "second-buffer-dropped",
            format!("{differing} packets' second primitive (pkt[1]) differs from the first; the TMD takes pkt[0]"),
        ));
    }
    let mut t = Tmd {
        flags: 0,
        address_base: 0,
        objects,
        gaps: Vec::new(),
    };
    t.pack();
    Ok((t, notes))
}

fn index(k: usize) -> Result<u16> {
    u16::try_from(k).map_err(|_| Error::Unencodable {
        format: Format::Tmd,
        what: format!("an object of more than 65536 vertices ({k})"),
    })
}

/// The unlit TMD packet of a PMD packet.
fn primitive(kind: Kind, p: &Packet, vertices: ArrayVec<u16, 4>, double: bool) -> tmd::Primitive {
    let code = p.code(0).unwrap_or(kind.gpu_code());
    let mode = 0x20 | (code & 0x1F);
    let n = kind.corners();
    let mut poly = Polygon {
        vertices,
        ..Polygon::default()
    };
    let colors = if kind.gouraud { n } else { 1 };
    for i in 0..colors {
        let [r, g, b] = p.color(kind, i);
        poly.colors.push(Rgbx {
            r,
            g,
            b,
            x: if i == 0 && !kind.textured { mode } else { 0 },
        });
    }
    if kind.textured {
        for i in 0..n {
            let ([u, v], extra) = p.uv(kind, i).unwrap_or_default();
            poly.uvs.push(Uv { u, v, extra });
        }
    }
    tmd::Primitive {
        olen: (kind.primitive_words() - 1) as u8,
        flag: tmd::flag::LGT | if double { tmd::flag::FCE } else { 0 },
        mode,
        data: PrimitiveData::Polygon(poly),
    }
}

/// TMD2PMD's options.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FromTmdOptions {
    /// `-s`: shared vertices (one VERTEX group); default independent (`+s`).
    pub shared: bool,
    /// `-l`: light-source calculation on in every group; default off (`+l`).
    pub light: bool,
    /// `-b`: back clipping on (default); `+b` turns it off (TYPE bit 21).
    pub back_clip: bool,
}

impl Default for FromTmdOptions {
    fn default() -> Self {
        FromTmdOptions {
            shared: false,
            light: false,
            back_clip: true,
        }
    }
}

/// TMD → PMD as TMD2PMD makes it: each object's polygons grouped by kind (in the order kinds
/// first appear), lit textured polygons (which carry no colour) given brightness 0x80, ABE and
/// TGE copied. Lines and sprites have no PMD packet and are left out with a note; normals are
/// dropped (a PMD has none).
pub fn from_tmd(t: &Tmd, opts: &FromTmdOptions) -> Result<(Pmd, Noted)> {
    let mut notes = Noted::new();
    let (mut other, mut lit, mut raw) = (0usize, 0usize, 0usize);
    let mut groups: Vec<PrimitiveGroup> = Vec::new();
    let mut objects = Vec::with_capacity(t.objects.len());
    let mut vertices = Vec::new();
    let type_extra = if opts.light { TYPE_LIGHT } else { 0 }
        | if opts.back_clip { 0 } else { TYPE_NO_BACK_CLIP };
    for o in &t.objects {
        let base = vertices.len();
        if opts.shared {
            vertices.extend_from_slice(&o.vertices);
        }
        let mut mine: BTreeMap<Kind, usize> = BTreeMap::new();
        let mut order = Vec::new();
        for prim in &o.primitives {
            let PrimitiveData::Polygon(poly) = &prim.data else {
                if matches!(prim.data, PrimitiveData::Raw { .. }) {
                    raw += 1;
                } else {
                    other += 1;
                }
                continue;
            };
            if prim.flag & tmd::flag::LGT == 0 {
                lit += 1;
            }
            let kind = Kind {
                quad: prim.mode & tmd::mode::QUAD != 0,
                gouraud: prim.mode & tmd::mode::IIP != 0,
                textured: prim.mode & tmd::mode::TME != 0,
                shared: opts.shared,
            };
            let gi = *mine.entry(kind).or_insert_with(|| {
                groups.push(PrimitiveGroup {
                    type_bits: kind.type_nibble() | type_extra,
                    kind,
                    packets: Vec::new(),
                });
                order.push(groups.len() - 1);
                groups.len() - 1
            });
            let pv = match opts.shared {
                true => Vertices::Shared(
                    poly.vertices
                        .iter()
                        .map(|&v| ((base + v as usize) * 8) as u32)
                        .collect(),
                ),
                false => Vertices::Independent(
                    poly.vertices
                        .iter()
                        .map(|&v| o.vertices.get(v as usize).copied().unwrap_or_default())
                        .collect(),
                ),
            };
            let prim_words = gpu_primitive(kind, prim.mode, poly);
            groups[gi].packets.push(Packet {
                primitives: [prim_words.clone(), prim_words],
                vertices: pv,
            });
        }
        objects.push(Object { groups: order });
    }
    if other > 0 {
        notes.push((
            "lines-sprites-dropped",
            format!(
                "{other} lines and sprites left out: a PMD holds triangles and quadrilaterals only"
            ),
        ));
    }
    if raw > 0 {
        notes.push((
            "raw-packets-dropped",
            format!("{raw} TMD packets of no known layout left out"),
        ));
    }
    if lit > 0 && !opts.light {
        notes.push(("normals-dropped", format!("{lit} lit polygons' normals left out (a PMD has none); their groups have light-source calculation off")));
    } else if lit > 0 {
        notes.push(("normals-dropped", format!("{lit} lit polygons' normals left out (a PMD has none; libgs lights its polygons without them)")));
    }
    Ok((
        Pmd {
            header: Some(Header {
                id: super::FILE_ID,
                shared: opts.shared,
                gap: Vec::new(),
                vertex_gap: Vec::new(),
            }),
            objects,
            groups,
            vertices,
            trailing: Vec::new(),
        },
        notes,
    ))
}

/// The POLY_* words of a TMD polygon: tag (length byte set, as TMD2PMD writes it), colours
/// (0x80 grey where the TMD packet has none), XY 0, UVs with CLUT and TPAGE.
fn gpu_primitive(kind: Kind, mode: u8, poly: &Polygon) -> Vec<u32> {
    let words = kind.primitive_words();
    let mut w = vec![0u32; words];
    w[0] = ((words - 1) as u32) << 24;
    let code = u32::from(kind.gpu_code() | (mode & (tmd::mode::ABE | tmd::mode::TGE)));
    for i in 0..kind.corners() {
        let (c, _, uv) = kind.vertex_words(i);
        if let Some(c) = c {
            let col = poly
                .colors
                .get(i)
                .or(poly.colors.first())
                .map_or([0x80; 3], |c| [c.r, c.g, c.b]);
            w[c] = u32::from(col[0]) | u32::from(col[1]) << 8 | u32::from(col[2]) << 16;
            if i == 0 {
                w[c] |= code << 24;
            }
        }
        if let (Some(u), Some(t)) = (uv, poly.uvs.get(i)) {
            w[u] = u32::from(t.u) | u32::from(t.v) << 8 | u32::from(t.extra) << 16;
        }
    }
    w
}
