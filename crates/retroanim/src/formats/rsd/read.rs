//! Reading the RSD family: a line scanner that keeps every line's text, and one parser per file.

use super::types::*;
use super::RsdError;

/// A data line: its text (terminator included), line number, absolute offset and tokens
/// (column, bytes): most lines hold fewer than 16, kept on the stack.
pub(crate) struct DataLine<'a> {
    text: &'a [u8],
    /// `text` as UTF-8 where it is (checked once per line, not once per number).
    utf8: Option<&'a str>,
    line: usize,
    start: usize,
    toks: smallvec::SmallVec<[(usize, &'a [u8]); 16]>,
}

impl<'a> DataLine<'a> {
    /// Token `k` as text, where it is UTF-8.
    fn tok_str(&self, k: usize) -> Option<&'a str> {
        let (col, t) = self.toks[k];
        match self.utf8 {
            Some(line) => line.get(col - 1..col - 1 + t.len()),
            None => std::str::from_utf8(t).ok(),
        }
    }
}

/// The decimal number of an all-digit token (`None` when empty, another byte or too large).
fn decimal(t: &[u8]) -> Option<u64> {
    if t.is_empty() {
        return None;
    }
    t.iter().try_fold(0u64, |v, &b| {
        if b.is_ascii_digit() {
            v.checked_mul(10)?.checked_add(u64::from(b - b'0'))
        } else {
            None
        }
    })
}

/// Splits a file into lines; comment and blank lines go straight into the kept layout.
pub(crate) struct Scan<'a, R> {
    file: &'a str,
    data: &'a [u8],
    pos: usize,
    line: usize,
    kept: Kept<R>,
}

type R<T> = Result<T, RsdError>;

pub(crate) fn latin1(b: &[u8]) -> String {
    // ASCII (nearly every line) is the same text in UTF-8: one check and one copy, not a
    // character at a time.
    if b.is_ascii() {
        if let Ok(s) = std::str::from_utf8(b) {
            return s.to_owned();
        }
    }
    b.iter().map(|&c| char::from(c)).collect()
}

impl<'a, Rec> Scan<'a, Rec> {
    fn new(file: &'a str, data: &'a [u8]) -> Self {
        let newline = match data.iter().position(|&b| b == b'\n') {
            Some(i) if i > 0 && data[i - 1] == b'\r' => "\r\n",
            _ => "\n",
        };
        let lines = Vec::with_capacity((data.len() / 24).min(1 << 20));
        Scan {
            file,
            data,
            pos: 0,
            line: 0,
            kept: Kept {
                lines,
                newline: newline.into(),
            },
        }
    }

    /// The next data line, keeping the comment and blank lines before it.
    fn next(&mut self) -> Option<DataLine<'a>> {
        while self.pos < self.data.len() {
            let start = self.pos;
            let end = self.data[start..]
                .iter()
                .position(|&b| b == b'\n')
                .map_or(self.data.len(), |i| start + i + 1);
            self.pos = end;
            self.line += 1;
            let text = &self.data[start..end];
            let body = text
                .iter()
                .position(|b| !matches!(b, b' ' | b'\t' | b'\r' | b'\n' | 0x1a | 0x0c))
                .map(|i| &text[i..]);
            match body {
                None | Some([b'#', ..]) => self.kept.lines.push(KeptLine::Other(latin1(text))),
                Some(_) => {
                    let mut toks = smallvec::SmallVec::new();
                    let mut i = 0;
                    while i < text.len() {
                        if matches!(text[i], b' ' | b'\t' | b'\r' | b'\n' | 0x1a | 0x0c) {
                            i += 1;
                            continue;
                        }
                        let s = i;
                        while i < text.len()
                            && !matches!(text[i], b' ' | b'\t' | b'\r' | b'\n' | 0x1a | 0x0c)
                        {
                            i += 1;
                        }
                        toks.push((s + 1, &text[s..i]));
                    }
                    return Some(DataLine {
                        text,
                        utf8: std::str::from_utf8(text).ok(),
                        line: self.line,
                        start,
                        toks,
                    });
                }
            }
        }
        None
    }

    fn keep(&mut self, rec: Rec, d: &DataLine<'_>) {
        self.kept.lines.push(KeptLine::Data(rec, latin1(d.text)));
    }

    fn err(&self, d: &DataLine<'_>, column: usize, what: impl Into<String>) -> RsdError {
        RsdError {
            file: self.file.to_string(),
            line: d.line,
            column,
            offset: (d.start + column.saturating_sub(1)) as u64,
            what: what.into(),
        }
    }

    /// An error at token `k` of `d` (or just past the line's last token).
    fn err_tok(&self, d: &DataLine<'_>, k: usize, what: impl Into<String>) -> RsdError {
        let col = d.toks.get(k).map_or_else(
            || d.toks.last().map_or(1, |(c, t)| c + t.len()),
            |(c, _)| *c,
        );
        self.err(d, col, what)
    }

    fn eof(&self, what: &str) -> RsdError {
        RsdError {
            file: self.file.to_string(),
            line: self.line + 1,
            column: 1,
            offset: self.data.len() as u64,
            what: format!("the file ends where {what} should follow"),
        }
    }

    fn need(&mut self, what: &str) -> R<DataLine<'a>> {
        self.next().ok_or_else(|| self.eof(what))
    }

    /// [`Scan::need`] with the description made only when the file ends (a `format!` per line
    /// was a tenth of reading a large PLY).
    fn need_for(&mut self, what: impl FnOnce() -> String) -> R<DataLine<'a>> {
        match self.next() {
            Some(d) => Ok(d),
            None => Err(self.eof(&what())),
        }
    }

    /// Checks that `d` has exactly `n` tokens.
    fn arity(&self, d: &DataLine<'_>, n: usize, what: &str) -> R<()> {
        if d.toks.len() > n {
            return Err(self.err_tok(d, n, format!("unexpected text after the {what}")));
        }
        if d.toks.len() < n {
            return Err(self.err_tok(
                d,
                d.toks.len(),
                format!("the {what} has {} values, {n} expected", d.toks.len()),
            ));
        }
        Ok(())
    }

    fn id(&mut self, tag: &str) -> R<(String, DataLine<'a>)> {
        let d = self.need_for(|| format!("the ID @{tag}"))?;
        let t = d.toks[0].1;
        if t.len() < 4 || t[0] != b'@' || !t[1..4].eq_ignore_ascii_case(&tag.as_bytes()[..3]) {
            return Err(self.err(
                &d,
                d.toks[0].0,
                format!("expected the ID @{tag}nnnnnn, found '{}'", latin1(t)),
            ));
        }
        self.arity(&d, 1, "ID")?;
        Ok((latin1(&t[4..]), d))
    }

    /// Checks that no data line follows.
    fn end(&mut self, what: &str) -> R<Kept<Rec>> {
        if let Some(d) = self.next() {
            return Err(self.err_tok(&d, 0, format!("unexpected data line after the {what}")));
        }
        Ok(std::mem::take(&mut self.kept))
    }

    fn uint(&self, d: &DataLine<'_>, k: usize, what: &str, max: u64) -> R<u64> {
        let t = d.toks[k].1;
        match decimal(t) {
            Some(v) if v <= max => Ok(v),
            Some(v) => Err(self.err_tok(d, k, format!("{what} {v} is larger than {max}"))),
            None => Err(self.err_tok(
                d,
                k,
                format!("{what}: expected a decimal number, found '{}'", latin1(t)),
            )),
        }
    }

    fn byte(&self, d: &DataLine<'_>, k: usize, what: &str) -> R<u8> {
        Ok(self.uint(d, k, what, 255)? as u8)
    }

    fn hex(&self, d: &DataLine<'_>, k: usize, what: &str) -> R<u32> {
        let t = d.toks[k].1;
        std::str::from_utf8(t)
            .ok()
            .filter(|s| s.bytes().all(|b| b.is_ascii_hexdigit()))
            .and_then(|s| u32::from_str_radix(s, 16).ok())
            .ok_or_else(|| {
                self.err_tok(
                    d,
                    k,
                    format!(
                        "{what}: expected a hexadecimal number, found '{}'",
                        latin1(t)
                    ),
                )
            })
    }

    fn float(&self, d: &DataLine<'_>, k: usize, what: &str) -> R<f64> {
        let t = d.toks[k].1;
        d.tok_str(k)
            .filter(|s| {
                s.bytes()
                    .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'-' | b'+' | b'e' | b'E'))
            })
            .and_then(|s| s.parse::<f64>().ok())
            .filter(|v| v.is_finite())
            .ok_or_else(|| {
                self.err_tok(
                    d,
                    k,
                    format!("{what}: expected a number, found '{}'", latin1(t)),
                )
            })
    }

    fn polyset(&self, d: &DataLine<'_>, k: usize, into: &mut PolySet) -> R<()> {
        let t = d.toks[k].1;
        let (col, _) = d.toks[k];
        let mut at = 0;
        for part in t.split(|&b| b == b',') {
            let num = |s: &[u8], off: usize| -> R<u32> {
                decimal(s)
                    .and_then(|v| u32::try_from(v).ok())
                    .ok_or_else(|| {
                        self.err(
                            d,
                            col + off,
                            format!("polygon number: expected a number, found '{}'", latin1(s)),
                        )
                    })
            };
            let range = match part.iter().position(|&b| b == b'-') {
                Some(i) => {
                    let a = num(&part[..i], at)?;
                    let b = num(&part[i + 1..], at + i + 1)?;
                    if b < a {
                        return Err(self.err(d, col + at, format!("range {a}-{b} runs backwards")));
                    }
                    (a, b)
                }
                None => {
                    let a = num(part, at)?;
                    (a, a)
                }
            };
            into.0.push(range);
            at += part.len() + 1;
        }
        Ok(())
    }

    /// Capacity for `n` items announced by a count, bounded by the lines the file can hold.
    fn cap(&self, n: usize) -> usize {
        n.min((self.data.len() - self.pos) / 2 + 1)
    }
}

/// Reads an `@RSD` file; `file` names it in errors.
pub fn read_rsd(file: &str, data: &[u8]) -> Result<Rsd, RsdError> {
    let mut s = Scan::new(file, data);
    let (version, d) = s.id("RSD")?;
    s.keep(RsdLine::Id(version.clone()), &d);
    let mut entries = Vec::new();
    while let Some(d) = s.next() {
        let body = &d.text[d.toks[0].0 - 1..];
        let body = body
            .iter()
            .rposition(|b| !matches!(b, b' ' | b'\t' | b'\r' | b'\n' | 0x1a))
            .map_or(body, |i| &body[..=i]);
        let Some(eq) = body.iter().position(|&b| b == b'=') else {
            return Err(s.err_tok(&d, 0, "expected KEY=value"));
        };
        let key_text = latin1(body[..eq].trim_ascii());
        let value = latin1(body[eq + 1..].trim_ascii());
        let upper = key_text.to_ascii_uppercase();
        let indexed = |p: &str| -> Option<u32> {
            upper
                .strip_prefix(p)?
                .strip_prefix('[')?
                .strip_suffix(']')?
                .parse()
                .ok()
        };
        let key = match upper.as_str() {
            "PLY" => Key::Ply,
            "MAT" => Key::Mat,
            "GRP" => Key::Grp,
            "MSH" => Key::Msh,
            "PVT" => Key::Pvt,
            "COD" => Key::Cod,
            "NMOT" => Key::NMot,
            "NTEX" => Key::NTex,
            _ => match (indexed("MOT"), indexed("TEX")) {
                (Some(n), _) => Key::Mot(n),
                (_, Some(n)) => Key::Tex(n),
                _ => Key::Other(key_text),
            },
        };
        if matches!(key, Key::NMot | Key::NTex) && value.parse::<u32>().is_err() {
            return Err(s.err(
                &d,
                d.toks[0].0 + eq + 1,
                format!("{}: expected a count, found '{value}'", key.spelling()),
            ));
        }
        let e = Entry { key, value };
        s.keep(RsdLine::Entry(e.clone()), &d);
        entries.push(e);
    }
    let mut placements = std::collections::BTreeMap::new();
    for l in &s.kept.lines {
        if let KeptLine::Other(t) = l {
            if let Some((n, tsb, cba)) = placement(t) {
                placements.insert(n, (tsb, cba));
            }
        }
    }
    Ok(Rsd {
        version,
        entries,
        placements,
        kept: std::mem::take(&mut s.kept),
    })
}

/// A `# retroanim TEX[n] TSB=0x.... CBA=0x....` comment.
fn placement(line: &str) -> Option<(u32, u16, u16)> {
    let rest = line
        .trim()
        .strip_prefix('#')?
        .trim()
        .strip_prefix("retroanim TEX[")?;
    let (n, rest) = rest.split_once(']')?;
    let mut it = rest.split_whitespace();
    let tsb = it.next()?.strip_prefix("TSB=0x")?;
    let cba = it.next()?.strip_prefix("CBA=0x")?;
    Some((
        n.parse().ok()?,
        u16::from_str_radix(tsb, 16).ok()?,
        u16::from_str_radix(cba, 16).ok()?,
    ))
}

/// The comment line [`placement`] reads.
pub(crate) fn placement_comment(n: u32, tsb: u16, cba: u16) -> String {
    format!("# retroanim TEX[{n}] TSB=0x{tsb:04x} CBA=0x{cba:04x}")
}

/// Reads a `@PLY` file.
pub fn read_ply(file: &str, data: &[u8]) -> Result<Ply, RsdError> {
    let mut s = Scan::new(file, data);
    let (version, d) = s.id("PLY")?;
    s.keep(PlyLine::Id(version.clone()), &d);
    let d = s.need("the data length record (vertex, normal and polygon counts)")?;
    s.arity(&d, 3, "data length record")?;
    let max = u64::from(u32::MAX);
    let counts = [
        s.uint(&d, 0, "vertex count", max)? as usize,
        s.uint(&d, 1, "normal count", max)? as usize,
        s.uint(&d, 2, "polygon count", max)? as usize,
    ];
    s.keep(PlyLine::Counts(counts), &d);
    let triples = |s: &mut Scan<'_, PlyLine>, n: usize, what: &str, normal: bool| {
        let mut out = Vec::with_capacity(s.cap(n));
        for i in 0..n {
            let d = s.need_for(|| format!("{what} {i} (of {n})"))?;
            s.arity(&d, 3, what)?;
            let v = [
                s.float(&d, 0, what)?,
                s.float(&d, 1, what)?,
                s.float(&d, 2, what)?,
            ];
            s.keep(
                if normal {
                    PlyLine::Normal(v)
                } else {
                    PlyLine::Vertex(v)
                },
                &d,
            );
            out.push(v);
        }
        Ok::<_, RsdError>(out)
    };
    let vertices = triples(&mut s, counts[0], "vertex", false)?;
    let normals = triples(&mut s, counts[1], "normal", true)?;
    let mut polygons = Vec::with_capacity(s.cap(counts[2]));
    for i in 0..counts[2] {
        let d = s.need_for(|| format!("polygon {i} (of {})", counts[2]))?;
        s.arity(&d, 9, "polygon")?;
        let mut p = PlyPolygon {
            flag: s.hex(&d, 0, "polygon flag")?,
            ..Default::default()
        };
        for k in 0..4 {
            p.vertices[k] = s.uint(&d, 1 + k, "vertex number", max)? as u32;
            p.normals[k] = s.uint(&d, 5 + k, "normal number", max)? as u32;
        }
        s.keep(PlyLine::Polygon(p), &d);
        polygons.push(p);
    }
    Ok(Ply {
        version,
        vertices,
        normals,
        polygons,
        kept: s.end("last polygon")?,
    })
}

/// Reads a `@MAT` file.
pub fn read_mat(file: &str, data: &[u8]) -> Result<Mat, RsdError> {
    let mut s = Scan::new(file, data);
    let (version, d) = s.id("MAT")?;
    s.keep(MatLine::Id(version.clone()), &d);
    let d = s.need("the MATERIAL descriptor count")?;
    s.arity(&d, 1, "MATERIAL descriptor count")?;
    let n = s.uint(&d, 0, "MATERIAL descriptor count", u64::from(u32::MAX))? as usize;
    s.keep(MatLine::Count(n), &d);
    let mut materials = Vec::with_capacity(s.cap(n));
    for i in 0..n {
        let d = s.need_for(|| format!("MATERIAL descriptor {i} (of {n})"))?;
        let m = material(&s, &d)?;
        s.keep(MatLine::Material(m.clone()), &d);
        materials.push(m);
    }
    Ok(Mat {
        version,
        materials,
        kept: s.end("last MATERIAL descriptor")?,
    })
}

fn material<Rec>(s: &Scan<'_, Rec>, d: &DataLine<'_>) -> R<Material> {
    if d.toks.len() < 4 {
        return Err(s.err_tok(
            d,
            d.toks.len(),
            "a MATERIAL descriptor needs polygon numbers, flag, shading and type",
        ));
    }
    let mut polygons = PolySet::default();
    s.polyset(d, 0, &mut polygons)?;
    let flag = s.hex(d, 1, "material flag")?;
    let shading = match d.toks[2].1 {
        b"F" | b"f" => Shading::Flat,
        b"G" | b"g" => Shading::Gouraud,
        t => {
            return Err(s.err_tok(
                d,
                2,
                format!("shading: expected F or G, found '{}'", latin1(t)),
            ))
        }
    };
    let letter = d.toks[3].1.to_ascii_uppercase();
    let n = match letter.as_slice() {
        b"C" => 3,
        b"G" => 12,
        b"T" => 9,
        b"D" => 12,
        b"H" => 21,
        b"W" => 13,
        b"S" => 16,
        b"N" => 25,
        t => {
            return Err(s.err_tok(
                d,
                3,
                format!(
                    "material type: expected C, G, T, D, H, W, S or N, found '{}'",
                    latin1(t)
                ),
            ))
        }
    };
    s.arity(
        d,
        4 + n,
        &format!("material type {}", char::from(letter[0])),
    )?;
    let b = |k: usize, what: &str| s.byte(d, 4 + k, what);
    let rgb = |k: usize| -> R<Rgb> { Ok([b(k, "red")?, b(k + 1, "green")?, b(k + 2, "blue")?]) };
    let rgb4 = |k: usize| -> R<[Rgb; 4]> { Ok([rgb(k)?, rgb(k + 3)?, rgb(k + 6)?, rgb(k + 9)?]) };
    let uv = |k: usize| -> R<Uvs> {
        let mut out = [[0u8; 2]; 4];
        for (i, c) in out.iter_mut().enumerate() {
            *c = [b(k + 2 * i, "u")?, b(k + 2 * i + 1, "v")?];
        }
        Ok(out)
    };
    let tex = || -> R<u32> { Ok(s.uint(d, 4, "texture number", u64::from(u32::MAX))? as u32) };
    let repeat = || -> R<[u8; 4]> { Ok([b(1, "TUM")?, b(2, "TVM")?, b(3, "TUA")?, b(4, "TVA")?]) };
    let info = match letter[0] {
        b'C' => MatInfo::C(rgb(0)?),
        b'G' => MatInfo::G(rgb4(0)?),
        b'T' => MatInfo::T {
            tex: tex()?,
            uv: uv(1)?,
        },
        b'D' => MatInfo::D {
            tex: tex()?,
            uv: uv(1)?,
            rgb: rgb(9)?,
        },
        b'H' => MatInfo::H {
            tex: tex()?,
            uv: uv(1)?,
            rgb: rgb4(9)?,
        },
        b'W' => MatInfo::W {
            tex: tex()?,
            repeat: repeat()?,
            uv: uv(5)?,
        },
        b'S' => MatInfo::S {
            tex: tex()?,
            repeat: repeat()?,
            uv: uv(5)?,
            rgb: rgb(13)?,
        },
        _ => MatInfo::N {
            tex: tex()?,
            repeat: repeat()?,
            uv: uv(5)?,
            rgb: rgb4(13)?,
        },
    };
    Ok(Material {
        polygons,
        flag,
        shading,
        info,
    })
}

/// Reads a `@GRP` file.
pub fn read_grp(file: &str, data: &[u8]) -> Result<Grp, RsdError> {
    let mut s = Scan::new(file, data);
    let (version, d) = s.id("GRP")?;
    s.keep(GrpLine::Id(version.clone()), &d);
    let d = s.need("the GROUP descriptor count")?;
    s.arity(&d, 1, "GROUP descriptor count")?;
    let max = u64::from(u32::MAX);
    let n = s.uint(&d, 0, "GROUP descriptor count", max)? as usize;
    s.keep(GrpLine::Count(n), &d);
    let mut groups = Vec::with_capacity(s.cap(n));
    for i in 0..n {
        let d = s.need_for(|| format!("GROUP descriptor {i} (of {n})"))?;
        s.arity(&d, 3, "GROUP descriptor's first line")?;
        let name = latin1(d.toks[0].1);
        let nlines = s.uint(&d, 1, "polygon number line count", max)? as usize;
        let declared = s.uint(&d, 2, "number of polygons", max)?;
        s.keep(GrpLine::Head(name.clone(), nlines, declared), &d);
        let mut lines = Vec::with_capacity(s.cap(nlines));
        for k in 0..nlines {
            let d = s.need_for(|| format!("polygon number line {k} of group {name}"))?;
            let mut set = PolySet::default();
            for t in 0..d.toks.len() {
                s.polyset(&d, t, &mut set)?;
            }
            s.keep(GrpLine::Numbers(set.clone()), &d);
            lines.push(set);
        }
        groups.push(Group {
            name,
            lines,
            declared,
        });
    }
    Ok(Grp {
        version,
        groups,
        kept: s.end("last GROUP descriptor")?,
    })
}
