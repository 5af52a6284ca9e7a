//! Writing the RSD family: each unedited line as it was read, every other line in the canonical
//! form (see the module docs).

use std::fmt::Write as _;

use super::types::*;
use crate::{Error, Format, Result};

/// Writes lines: where the kept layout holds the same record at the same place, its text;
/// otherwise the canonical text. Comment lines are kept where they stood.
fn merge<Rec: PartialEq>(
    kept: &Kept<Rec>,
    records: Vec<Rec>,
    canonical: impl Fn(&Rec, &mut String),
) -> Result<Vec<u8>> {
    let newline = if kept.newline.is_empty() {
        "\n"
    } else {
        kept.newline.as_str()
    };
    let mut out = String::with_capacity(records.len() * 32);
    let mut recs = records.into_iter();
    for line in &kept.lines {
        match line {
            KeptLine::Other(t) => out.push_str(t),
            KeptLine::Data(r, t) => match recs.next() {
                Some(m) if &m == r => out.push_str(t),
                Some(m) => {
                    canonical(&m, &mut out);
                    // Keep the original terminator (or none, on a last line without one).
                    out.push_str(if t.ends_with("\r\n") {
                        "\r\n"
                    } else if t.ends_with('\n') {
                        "\n"
                    } else {
                        ""
                    });
                }
                None => {}
            },
        }
    }
    for m in recs {
        if !out.is_empty() && !out.ends_with('\n') {
            out.push_str(newline);
        }
        canonical(&m, &mut out);
        out.push_str(newline);
    }
    if out.is_ascii() {
        return Ok(out.into_bytes());
    }
    latin1_bytes(&out)
}

fn latin1_bytes(s: &str) -> Result<Vec<u8>> {
    if s.is_ascii() {
        return Ok(s.as_bytes().to_vec());
    }
    s.chars()
        .map(|c| {
            u8::try_from(u32::from(c)).map_err(|_| Error::Unencodable {
                format: Format::Rsd,
                what: format!("character {c:?} is not Latin-1 (the RSD tools read 8-bit text)"),
            })
        })
        .collect()
}

/// Writes an `@RSD` file.
pub fn write_rsd(rsd: &Rsd) -> Result<Vec<u8>> {
    let mut recs = vec![RsdLine::Id(rsd.version.clone())];
    recs.extend(rsd.entries.iter().cloned().map(RsdLine::Entry));
    merge(&rsd.kept, recs, |r, o| match r {
        RsdLine::Id(v) => {
            let _ = write!(o, "@RSD{v}");
        }
        RsdLine::Entry(e) => {
            let _ = write!(o, "{}={}", e.key.spelling(), e.value);
        }
    })
}

fn num(o: &mut String, v: f64) {
    // Shortest text that reads back as the same number; integers without a fraction.
    if v == v.trunc() && v.abs() < 1e15 {
        let _ = write!(o, "{}", v as i64);
        if v == 0.0 && v.is_sign_negative() {
            o.insert(o.len() - 1, '-');
        }
    } else {
        let _ = write!(o, "{v}");
    }
}

fn triple(o: &mut String, v: &[f64; 3]) {
    num(o, v[0]);
    o.push(' ');
    num(o, v[1]);
    o.push(' ');
    num(o, v[2]);
}

/// Writes a `@PLY` file.
pub fn write_ply(ply: &Ply) -> Result<Vec<u8>> {
    let mut recs =
        Vec::with_capacity(2 + ply.vertices.len() + ply.normals.len() + ply.polygons.len());
    recs.push(PlyLine::Id(ply.version.clone()));
    recs.push(PlyLine::Counts([
        ply.vertices.len(),
        ply.normals.len(),
        ply.polygons.len(),
    ]));
    recs.extend(ply.vertices.iter().map(|v| PlyLine::Vertex(*v)));
    recs.extend(ply.normals.iter().map(|v| PlyLine::Normal(*v)));
    recs.extend(ply.polygons.iter().map(|p| PlyLine::Polygon(*p)));
    merge(&ply.kept, recs, |r, o| match r {
        PlyLine::Id(v) => {
            let _ = write!(o, "@PLY{v}");
        }
        PlyLine::Counts(c) => {
            let _ = write!(o, "{} {} {}", c[0], c[1], c[2]);
        }
        PlyLine::Vertex(v) | PlyLine::Normal(v) => triple(o, v),
        PlyLine::Polygon(p) => {
            let _ = write!(o, "{:x}", p.flag);
            for x in p.vertices.iter().chain(&p.normals) {
                let _ = write!(o, " {x}");
            }
        }
    })
}

/// Polygon numbers as text: `a-b` for ranges, joined by commas.
pub fn polyset_text(set: &PolySet) -> String {
    let mut o = String::new();
    for (i, &(a, b)) in set.0.iter().enumerate() {
        if i > 0 {
            o.push(',');
        }
        if a == b {
            let _ = write!(o, "{a}");
        } else {
            let _ = write!(o, "{a}-{b}");
        }
    }
    o
}

fn bytes(o: &mut String, v: &[u8]) {
    for x in v {
        let _ = write!(o, " {x}");
    }
}

fn material_text(m: &Material, o: &mut String) {
    let _ = write!(
        o,
        "{} {:x} {} {}",
        polyset_text(&m.polygons),
        m.flag,
        match m.shading {
            Shading::Flat => 'F',
            Shading::Gouraud => 'G',
        },
        m.info.letter()
    );
    let flat = |uv: &Uvs| uv.concat();
    match &m.info {
        MatInfo::C(c) => bytes(o, c),
        MatInfo::G(c) => bytes(o, &c.concat()),
        MatInfo::T { tex, uv } => {
            let _ = write!(o, " {tex}");
            bytes(o, &flat(uv));
        }
        MatInfo::D { tex, uv, rgb } => {
            let _ = write!(o, " {tex}");
            bytes(o, &flat(uv));
            bytes(o, rgb);
        }
        MatInfo::H { tex, uv, rgb } => {
            let _ = write!(o, " {tex}");
            bytes(o, &flat(uv));
            bytes(o, &rgb.concat());
        }
        MatInfo::W { tex, repeat, uv } => {
            let _ = write!(o, " {tex}");
            bytes(o, repeat);
            bytes(o, &flat(uv));
        }
        MatInfo::S {
            tex,
            repeat,
            uv,
            rgb,
        } => {
            let _ = write!(o, " {tex}");
            bytes(o, repeat);
            bytes(o, &flat(uv));
            bytes(o, rgb);
        }
        MatInfo::N {
            tex,
            repeat,
            uv,
            rgb,
        } => {
            let _ = write!(o, " {tex}");
            bytes(o, repeat);
            bytes(o, &flat(uv));
            bytes(o, &rgb.concat());
        }
    }
}

/// Writes a `@MAT` file.
pub fn write_mat(mat: &Mat) -> Result<Vec<u8>> {
    let mut recs = Vec::with_capacity(2 + mat.materials.len());
    recs.push(MatLine::Id(mat.version.clone()));
    recs.push(MatLine::Count(mat.materials.len()));
    recs.extend(mat.materials.iter().cloned().map(MatLine::Material));
    merge(&mat.kept, recs, |r, o| match r {
        MatLine::Id(v) => {
            let _ = write!(o, "@MAT{v}");
        }
        MatLine::Count(n) => {
            let _ = write!(o, "{n}");
        }
        MatLine::Material(m) => material_text(m, o),
    })
}

/// Writes a `@GRP` file.
pub fn write_grp(grp: &Grp) -> Result<Vec<u8>> {
    let mut recs = vec![
        GrpLine::Id(grp.version.clone()),
        GrpLine::Count(grp.groups.len()),
    ];
    for g in &grp.groups {
        if g.name.is_empty() || g.name.contains(|c: char| c.is_ascii_whitespace()) {
            return Err(Error::Unencodable {
                format: Format::Rsd,
                what: format!("group name {:?} is empty or holds white space", g.name),
            });
        }
        recs.push(GrpLine::Head(g.name.clone(), g.lines.len(), g.declared));
        recs.extend(g.lines.iter().cloned().map(GrpLine::Numbers));
    }
    merge(&grp.kept, recs, |r, o| match r {
        GrpLine::Id(v) => {
            let _ = write!(o, "@GRP{v}");
        }
        GrpLine::Count(n) => {
            let _ = write!(o, "{n}");
        }
        GrpLine::Head(name, n, p) => {
            let _ = write!(o, "{name} {n} {p}");
        }
        GrpLine::Numbers(s) => o.push_str(&polyset_text(s)),
    })
}
