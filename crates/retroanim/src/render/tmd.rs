//! TMD packets → the draw list, as libgs's `GsSortObject4` turns them into GPU packets: every
//! vertex through RTPS, the front-face test by NCLIP on the first three corners (skipped for
//! FCE packets), lighting by NCCS unless the packet is unlit (LGT), the OT index by AVSZ.

use crate::formats::gte::Mat;
use crate::formats::tmd::author::Counts;
use crate::formats::tmd::{flag, mode, Object, Polygon, PrimitiveData, Tmd};
use crate::vram::{clut_position, TexturePage, Vram};

use super::gte::{self, Lights, Projected, Screen};
use super::raster::{Corner, Poly, Texture};

/// libgs lights textured polygons from this colour: the GPU's ×1 for modulation.
const TEXTURED_BASE: [u8; 3] = [128; 3];

/// One TMD object placed for a frame: its index and its model-to-screen matrix (the view times
/// the object's world matrix), with the lights turned into its model space.
pub(crate) struct Placed {
    pub object: usize,
    pub matrix: Mat,
    pub lights: Lights,
}

/// Appends the polygons of the placed objects to `out`.
pub(crate) fn polys(
    tmd: &Tmd,
    placed: &[Placed],
    screen: &Screen,
    vram: &Vram,
    out: &mut Vec<Poly>,
    notes: &mut Counts,
) {
    let mut projected = Vec::new();
    for p in placed {
        let Some(o) = tmd.objects.get(p.object) else {
            continue;
        };
        projected.clear();
        projected.extend(
            o.vertices
                .iter()
                .map(|v| gte::rtps(&p.matrix, screen, [v.x, v.y, v.z])),
        );
        let (mut other, mut bad, mut near, mut unloaded, mut no_normal) = (0, 0, 0, 0, 0);
        for prim in &o.primitives {
            match &prim.data {
                PrimitiveData::Polygon(poly) => {
                    let mut bad_normal = false;
                    let drawn = polygon(
                        o,
                        poly,
                        prim.mode,
                        prim.flag,
                        &projected,
                        p,
                        screen,
                        &mut bad_normal,
                    );
                    no_normal += usize::from(bad_normal);
                    match drawn {
                        Outcome::Drawn(mut q) => {
                            if let Texture::Vram { page, .. } = q.texture {
                                let [u, v] = q.corners[0].uv;
                                if !vram.texel_loaded(page, u as u8, v as u8) {
                                    q.texture = Texture::None;
                                    q.blend = q.blend.filter(|_| false);
                                    unloaded += 1;
                                }
                            }
                            out.push(q)
                        }
                        Outcome::Culled => {}
                        Outcome::BadIndex => bad += 1,
                        Outcome::Near => near += 1,
                    }
                }
                _ => other += 1,
            }
        }
        notes.add("lines-sprites-not-drawn", other, || {
            "line, sprite or unknown packets not drawn (only polygons are)".into()
        });
        notes.add("bad-index", bad, || {
            "polygons not drawn: a vertex or normal index past the object's lists".into()
        });
        notes.add("texture-not-loaded", unloaded, || {
            "textured polygons drawn untextured (in their shading colour): nothing was loaded into VRAM where their texture page points (give the TIMs)".into()
        });
        notes.add("bad-normal", no_normal, || {
            "lit polygons drawn unlit: a normal index past the object's normal list".into()
        });
        notes.add("near-clipped", near, || {
            "polygons not drawn: a corner is closer than half the projection distance (the GTE's division overflows there)".into()
        });
    }
}

enum Outcome {
    Drawn(Poly),
    Culled,
    BadIndex,
    Near,
}

fn polygon(
    o: &Object,
    poly: &Polygon,
    mode_bits: u8,
    flag_bits: u8,
    projected: &[Projected],
    placed: &Placed,
    screen: &Screen,
    unlit_bad_normal: &mut bool,
) -> Outcome {
    let n = poly.vertices.len();
    if !(3..=4).contains(&n) {
        return Outcome::BadIndex;
    }
    let mut corners = [Projected::default(); 4];
    for (k, &vi) in poly.vertices.iter().enumerate() {
        match projected.get(usize::from(vi)) {
            Some(&p) => corners[k] = p,
            None => return Outcome::BadIndex,
        }
    }
    let corners = &corners[..n];
    if corners.iter().any(|c| 2 * c.sz as u32 <= screen.h) {
        return Outcome::Near;
    }
    if flag_bits & flag::FCE == 0 && gte::nclip(corners[0], corners[1], corners[2]) <= 0 {
        return Outcome::Culled;
    }
    let textured = mode_bits & mode::TME != 0 && poly.uvs.len() == n;
    let lit = flag_bits & flag::LGT == 0;
    let gouraud = mode_bits & mode::IIP != 0;
    // Colour per corner, before lighting.
    let base = |k: usize| -> [u8; 3] {
        match poly.colors.get(k).or(poly.colors.first()) {
            Some(c) => [c.r, c.g, c.b],
            None => TEXTURED_BASE,
        }
    };
    let mut colors = [[0u8; 3]; 4];
    for (k, c) in colors.iter_mut().enumerate().take(n) {
        *c = base(k);
        if lit {
            let ni = poly.normals.get(k).or(poly.normals.first());
            match ni.and_then(|&i| o.normals.get(usize::from(i))) {
                Some(normal) => *c = placed.lights.light([normal.x, normal.y, normal.z], *c),
                None => *unlit_bad_normal = true,
            }
        }
    }
    // Per-corner colours make the GPU packet Gouraud: IIP, gradation colours, or one lit
    // normal per corner.
    let shaded = gouraud || poly.colors.len() > 1;
    let texture = match (textured, poly.tsb(), poly.cba()) {
        (true, Some(tsb), Some(cba)) => Texture::Vram {
            page: TexturePage::from_tsb(tsb),
            clut: clut_position(cba),
        },
        _ => Texture::None,
    };
    let abr = match texture {
        Texture::Vram { page, .. } => page.abr,
        // An untextured packet's ABR comes from the current draw mode's page: libgs keeps 0.
        _ => 0,
    };
    let mut out = [Corner::default(); 4];
    for k in 0..n {
        out[k] = Corner {
            x: corners[k].sx,
            y: corners[k].sy,
            color: colors[k],
            uv: poly
                .uvs
                .get(k)
                .map_or([0, 0], |u| [i32::from(u.u), i32::from(u.v)]),
        };
    }
    Outcome::Drawn(Poly {
        corners: out,
        count: n as u8,
        texture,
        gouraud: shaded,
        raw_texture: textured && mode_bits & mode::TGE != 0,
        blend: (mode_bits & mode::ABE != 0).then_some(abr),
        otz: gte::avsz(corners),
    })
}
