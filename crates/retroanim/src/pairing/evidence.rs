//! Where an asset is, and how near two assets are: the place evidence every pairing weighs.
//! Nothing here reads a file; [`crate::scan`] uses it too (a TOD find's model candidates).

use serde::Serialize;

/// Where an asset is.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Source {
    /// The input path it was found under (a file, or the folder or image scanned).
    pub path: String,
    /// The file holding it: the input, or `input:/PATH/IN/IMAGE` for a file inside an image
    /// or archive.
    pub container: String,
    /// Byte offset in the container.
    pub offset: u64,
    /// Size in bytes.
    pub size: u64,
}

impl Source {
    /// The folder of the container: everything before its last `/` (image paths use `/` too).
    pub fn folder(&self) -> &str {
        let c = self.container.as_str();
        let c = c.strip_suffix('/').unwrap_or(c);
        match c.rfind(['/', '\\']) {
            Some(i) => &c[..i],
            None => "",
        }
    }

    /// Where the asset was first found: the container and the offset in it. A file that
    /// `retroanim scan --extract` wrote is named `CONTAINER@OFFSET.FMT` (`_N` before the
    /// extension where two names collide); read whole, it is the asset at OFFSET of CONTAINER
    /// (in the file's folder), so it weighs as the same find in the container would: pairings
    /// do not depend on whether the bytes came from the container or from extracted files.
    pub fn origin(&self) -> (&str, u64) {
        match extracted(&self.container).filter(|_| self.offset == 0) {
            Some(o) => o,
            None => (&self.container, self.offset),
        }
    }

    /// The asset's name, as conversions name what they make of it (an RTM's glTF scene and
    /// animation, a point cache's objects): the file name of its [`Source::origin`] without its
    /// last extension, followed by `@OFFSET` when the asset does not start its container
    /// (`anim/drink.rtm` → `drink`; `DATA.BIN` at 4660 → `DATA@4660`). A file `scan --extract`
    /// wrote (`drink.rtm@0.rtm`) names itself as the find it was cut from, so every road
    /// (scan, extract, convert, report) names an asset alike.
    pub fn name(&self) -> String {
        let (container, offset) = self.origin();
        let c = container.strip_suffix(['/', '\\']).unwrap_or(container);
        let file = match c.rfind(['/', '\\', ':']) {
            Some(i) => &c[i + 1..],
            None => c,
        };
        let stem = match file.rfind('.') {
            Some(i) if i > 0 => &file[..i],
            _ => file,
        };
        match offset {
            0 => stem.to_string(),
            at => format!("{stem}@{at}"),
        }
    }

    /// The file name of a file read whole, as [`Source::name`] names it.
    pub fn name_of_file(path: &str) -> String {
        Source {
            path: path.to_string(),
            container: path.to_string(),
            offset: 0,
            size: 0,
        }
        .name()
    }

    /// The container's file name without its extensions, upper-cased (`TE.TMD` → `TE`;
    /// `M001.LBD@0x782c.TOD` → `M001`).
    pub fn stem(&self) -> String {
        let c = self.container.as_str();
        let name = match c.rfind(['/', '\\', ':']) {
            Some(i) => &c[i + 1..],
            None => c,
        };
        let stem = name.split(['.', '@']).next().unwrap_or(name);
        stem.to_ascii_uppercase()
    }
}

/// The container and offset an extracted file's name (`…/NAME@OFFSET.FMT`, OFFSET decimal or
/// `0x` hex, `_N` allowed before the extension) says it was cut from.
fn extracted(c: &str) -> Option<(&str, u64)> {
    let start = c.rfind(['/', '\\', ':']).map_or(0, |i| i + 1);
    let at = c.rfind('@').filter(|&i| i > start)?;
    let (num, ext) = c[at + 1..].split_once('.')?;
    if ext.is_empty() || !ext.bytes().all(|b| b.is_ascii_alphanumeric()) {
        return None;
    }
    let num = match num.split_once('_') {
        Some((n, k)) if !k.is_empty() && k.bytes().all(|b| b.is_ascii_digit()) => n,
        Some(_) => return None,
        None => num,
    };
    let offset = match num.strip_prefix("0x") {
        Some(h) => u64::from_str_radix(h, 16).ok()?,
        None if num.bytes().all(|b| b.is_ascii_digit()) => num.parse().ok()?,
        None => return None,
    };
    Some((&c[..at], offset))
}

/// How near two assets are, by place alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Nearness {
    /// Folder steps from one asset's folder up to the folders' common ancestor and down to
    /// the other's (0: same folder; 2: sibling folders); 0 for the same container.
    pub steps: u32,
    /// Byte distance when both are in the same container, else `u64::MAX`.
    pub bytes: u64,
}

/// A [`Source`] with what [`nearness`] and the name-stem evidence need of it worked out once:
/// ranking every TOD of a disc against every TMD compares thousands of pairs. Its container,
/// folder and stem are numbered by a [`Names`] shared by the places compared, so that most
/// comparisons are of numbers.
#[derive(Debug, Clone)]
pub struct Place<'a> {
    /// The source.
    pub source: &'a Source,
    /// Its folder's parts, as [`nearness`] splits them.
    folder: Vec<&'a str>,
    container_id: usize,
    /// The offset in that container ([`Source::origin`]).
    offset: u64,
    folder_id: usize,
    /// The number of [`Source::stem`].
    pub stem_id: usize,
}

/// Numbers for the containers, folders and stems of places compared with each other.
#[derive(Debug, Default)]
pub struct Names {
    ids: std::collections::HashMap<String, usize>,
}

impl Names {
    fn id(&mut self, kind: u8, name: &str) -> usize {
        let key = format!("{}{name}", kind as char);
        let next = self.ids.len();
        *self.ids.entry(key).or_insert(next)
    }
}

impl<'a> Place<'a> {
    /// The place of `source`, named in `names`.
    pub fn new(source: &'a Source, names: &mut Names) -> Place<'a> {
        Place {
            source,
            folder: folder_parts(source.folder()),
            container_id: names.id(b'c', source.origin().0),
            offset: source.origin().1,
            folder_id: names.id(b'f', source.folder()),
            stem_id: names.id(b's', &source.stem()),
        }
    }

    /// [`nearness`] of the two sources (both places named in the same [`Names`]).
    pub fn nearness(&self, other: &Place<'_>) -> Nearness {
        if self.container_id == other.container_id {
            return Nearness {
                steps: 0,
                bytes: self.offset.abs_diff(other.offset),
            };
        }
        if self.folder_id == other.folder_id {
            return Nearness {
                steps: 0,
                bytes: u64::MAX,
            };
        }
        folder_steps(&self.folder, &other.folder)
    }
}

fn folder_parts(folder: &str) -> Vec<&str> {
    folder
        .split(['/', '\\', ':'])
        .filter(|p| !p.is_empty() && *p != ".")
        .collect()
}

fn folder_steps(fa: &[&str], fb: &[&str]) -> Nearness {
    let common = fa.iter().zip(fb).take_while(|(x, y)| x == y).count();
    Nearness {
        steps: (fa.len() - common + fb.len() - common) as u32,
        bytes: u64::MAX,
    }
}

/// Folder steps past which two files are of different trees.
pub const OTHER_TREE: u32 = 4;

/// How near `a` and `b` are.
pub fn nearness(a: &Source, b: &Source) -> Nearness {
    let ((ca, oa), (cb, ob)) = (a.origin(), b.origin());
    if ca == cb {
        return Nearness {
            steps: 0,
            bytes: oa.abs_diff(ob),
        };
    }
    folder_steps(&folder_parts(a.folder()), &folder_parts(b.folder()))
}

/// The weight of place evidence, 0..1: 1 in the same container, 0.9 in the same folder, 0.7
/// one step apart (a folder and its subfolder), 0.6 two (sibling folders), 0.3 three, 0.05
/// for another tree.
pub fn place_weight(n: Nearness) -> f64 {
    if n.bytes != u64::MAX {
        return 1.0;
    }
    match n.steps {
        0 => 0.9,
        1 => 0.7,
        2 => 0.6,
        3 => 0.3,
        _ => 0.05,
    }
}

/// Turns evidence scores (0..1, best first) into confidences: a candidate's score times how
/// clearly it beats the best of the others, `½ + ½·tanh(margin / 0.05)`. Two equal candidates
/// get half their score each, so neither reaches 0.5 alone; a lead of 0.1 keeps 98 %.
pub fn confidences(scores: &[f64]) -> Vec<f64> {
    confidences_among(scores, |_, _| false)
}

/// [`confidences`], where candidates `i` and `j` for which `same(i, j)` holds (byte-identical
/// copies) are not each other's rivals.
pub fn confidences_among(scores: &[f64], same: impl Fn(usize, usize) -> bool) -> Vec<f64> {
    scores
        .iter()
        .enumerate()
        .map(|(i, &s)| {
            let rival = scores
                .iter()
                .enumerate()
                .filter(|&(j, _)| j != i && !same(i, j))
                .map(|(_, &o)| o)
                .fold(f64::NEG_INFINITY, f64::max);
            let share = if rival.is_finite() {
                0.5 + 0.5 * ((s - rival) / 0.05).tanh()
            } else {
                1.0
            };
            // Rounded so that JSON and tests see stable values.
            ((s * share).clamp(0.0, 1.0) * 1000.0).round() / 1000.0
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn src(c: &str, offset: u64) -> Source {
        Source {
            path: c.into(),
            container: c.into(),
            offset,
            size: 1,
        }
    }

    #[test]
    fn folders_and_trees() {
        let tod = src("a/JANKEN/TOD/N_C.TOD", 0);
        let tmd = src("a/JANKEN/TMD/TE.TMD", 0);
        assert_eq!(nearness(&tod, &tmd).steps, 2);
        assert_eq!(nearness(&tod, &src("a/JANKEN/TOD/X.TMD", 0)).steps, 0);
        assert_eq!(nearness(&tod, &src("b/c/d/TE.TMD", 0)).steps, 6);
        assert_eq!(nearness(&tod, &src("a/JANKEN/TOD/N_C.TOD", 64)).bytes, 64);
        assert_eq!(tod.stem(), "N_C");
        assert_eq!(src("x/M001.LBD@0x782c.TOD", 0).stem(), "M001");
        assert_eq!(src("disc.bin:/DATA/TE.TMD", 0).folder(), "disc.bin:/DATA");
    }

    #[test]
    fn an_extracted_file_weighs_as_its_find() {
        let tod = src("out/M001.LBD@2064.tod", 0);
        let tmd = src("out/M001.LBD@30000_2.tmd", 0);
        assert_eq!(tod.origin(), ("out/M001.LBD", 2064));
        assert_eq!(tmd.origin(), ("out/M001.LBD", 30000));
        let n = nearness(&tod, &tmd);
        assert_eq!((n.steps, n.bytes), (0, 27936));
        assert_eq!(
            n,
            nearness(&src("d/M001.LBD", 2064), &src("d/M001.LBD", 30000))
        );
        assert_eq!(src("out/X@0x810.tim", 0).origin(), ("out/X", 0x810));
        // Not extracted names: as they are.
        for c in ["a@b/X.TIM", "mail@home.tim", "X@12.", "X@1_a.tim"] {
            assert_eq!(src(c, 0).origin(), (c, 0), "{c}");
        }
        assert_eq!(src("out/X@12.tim", 8).origin(), ("out/X@12.tim", 8));
    }

    #[test]
    fn ties_halve_confidence() {
        assert_eq!(confidences(&[0.8, 0.8]), vec![0.4, 0.4]);
        let c = confidences(&[0.8, 0.4]);
        assert!(c[0] > 0.79 && c[1] < 0.01, "{c:?}");
        assert_eq!(confidences(&[0.7]), vec![0.7]);
    }
}
