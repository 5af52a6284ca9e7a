//! TMD objects decoded into triangle meshes: what a renderer or exporter needs.

use serde::Serialize;

use super::types::*;

/// One corner of a triangle.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Corner {
    /// Vertex index into the object's vertex list.
    pub vertex: u16,
    /// Position (model units; +Y down, +Z into the screen).
    pub position: [i16; 3],
    /// Normal (4096 = 1.0) for lit polygons.
    pub normal: Option<[i16; 3]>,
    /// Index of that normal in the object's normal list (what an NDF's runs count).
    #[serde(skip)]
    pub normal_index: Option<u16>,
    /// Vertex colour; `None` for lit textured polygons (the texture gives the colour).
    pub color: Option<[u8; 3]>,
    /// Texture coordinates inside the texture page, for textured polygons.
    pub uv: Option<[u8; 2]>,
}

/// One triangle of a mesh.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Triangle {
    /// The corners, in the packet's vertex order.
    pub corners: [Corner; 3],
    /// Texture page attribute (TSB) and CLUT address (CBA) of a textured polygon.
    pub texture: Option<[u16; 2]>,
    /// Mode bit ABE.
    pub semi_transparent: bool,
    /// Flag bit FCE.
    pub double_sided: bool,
    /// Flag bit LGT clear: the console computes lighting.
    pub lit: bool,
}

/// The triangles of one TMD object.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Mesh {
    /// Object index in the TMD's table.
    pub object: usize,
    /// Triangles (quadrilaterals split into two).
    pub triangles: Vec<Triangle>,
    /// Packets that are not polygons (lines, sprites, raw packets), that index past the
    /// object's vertex list or that have neither 3 nor 4 corners: not turned into triangles.
    pub skipped: usize,
}

impl Tmd {
    /// Every object as a triangle mesh. A quadrilateral `v0 v1 v2 v3` becomes the triangles
    /// `v0 v1 v2` and `v1 v3 v2`, the order in which the GPU draws it, which keeps the winding.
    pub fn meshes(&self) -> Vec<Mesh> {
        self.objects
            .iter()
            .enumerate()
            .map(|(i, o)| object_mesh(i, o))
            .collect()
    }

    /// The number of triangles [`Tmd::meshes`] gives, counted without building them: each
    /// polygon of 3 or 4 corners whose vertex indices are all in its object's list gives 1 or 2.
    pub fn triangle_count(&self) -> usize {
        self.objects
            .iter()
            .flat_map(|o| o.primitives.iter().map(move |p| (o, p)))
            .map(|(o, p)| match &p.data {
                PrimitiveData::Polygon(poly)
                    if matches!(poly.vertices.len(), 3 | 4)
                        && poly
                            .vertices
                            .iter()
                            .all(|&v| (v as usize) < o.vertices.len()) =>
                {
                    poly.vertices.len() - 2
                }
                _ => 0,
            })
            .sum()
    }
}

fn object_mesh(index: usize, o: &Object) -> Mesh {
    let mut mesh = Mesh {
        object: index,
        triangles: Vec::new(),
        skipped: 0,
    };
    for p in &o.primitives {
        let PrimitiveData::Polygon(poly) = &p.data else {
            mesh.skipped += 1;
            continue;
        };
        // A polygon is a triangle or a quadrilateral; a model edited by hand (JSON) may hold
        // any number of corners, which `validate` reports as `primitive-layout`.
        let Some(corners) = corners(o, poly).filter(|c| matches!(c.len(), 3 | 4)) else {
            mesh.skipped += 1;
            continue;
        };
        let texture = poly.tsb().zip(poly.cba()).map(|(t, c)| [t, c]);
        let tri = |a: usize, b: usize, c: usize| Triangle {
            corners: [corners[a], corners[b], corners[c]],
            texture,
            semi_transparent: p.mode & mode::ABE != 0,
            double_sided: p.flag & flag::FCE != 0,
            lit: p.flag & flag::LGT == 0,
        };
        mesh.triangles.push(tri(0, 1, 2));
        if corners.len() == 4 {
            mesh.triangles.push(tri(1, 3, 2));
        }
    }
    mesh
}

fn corners(o: &Object, poly: &Polygon) -> Option<Vec<Corner>> {
    let vec3 = |v: &SVector| [v.x, v.y, v.z];
    let mut out = Vec::with_capacity(poly.vertices.len());
    for (k, &vi) in poly.vertices.iter().enumerate() {
        let position = vec3(o.vertices.get(vi as usize)?);
        // A normal index past the list (ROTATE.TMD's lit packets with no normals) gives no
        // normal rather than dropping the polygon.
        let normal_index = match poly.normals.len() {
            0 => None,
            1 => Some(poly.normals[0]),
            _ => poly.normals.get(k).copied(),
        }
        .filter(|&n| (n as usize) < o.normals.len());
        let normal = normal_index
            .and_then(|n| o.normals.get(n as usize))
            .map(vec3);
        let color = match poly.colors.len() {
            0 => None,
            1 => Some(&poly.colors[0]),
            _ => poly.colors.get(k),
        }
        .map(|c| [c.r, c.g, c.b]);
        out.push(Corner {
            vertex: vi,
            position,
            normal,
            normal_index,
            color,
            uv: poly.uvs.get(k).map(|t| [t.u, t.v]),
        });
    }
    Some(out)
}
