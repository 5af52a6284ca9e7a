//! What an HMD's scene leaves out, one note per kind with a count: the caller shows them so
//! that no export is silently less than the file.
//!
//! The kinds (codes): `images-unused` (images no exported polygon is textured from, so not in
//! the glTF), `images-left-out` (image entries whose texels or CLUT lie past their
//! section), `textures-missing` (textured polygons no image primitive or `--tim` covers: drawn
//! untextured), `polygons-not-exported` (polygon primitives whose packets retroanim keeps as raw
//! words: preset strips, layouts the manual does not list), `envmap-not-exported`
//! (category 6 types LIBHMD.H does not name, kept raw),
//! `envmap-left-out` (environment-map primitives exported as their plain polygons, the mapping
//! left out), `normal-mime-not-exported` (normal MIMe primitives moving no normal an exported block mesh
//! draws; the others are morph targets) and `types-not-exported`
//! (user-defined or unknown primitive types).

use std::collections::{BTreeMap, BTreeSet};

use super::super::types::{Hmd, TypeData};
use super::super::{PolygonItem, TERMINATE};
use super::polygon_item;

/// Counts of what the blocks' primitives hold that the scene does not export.
#[derive(Debug, Default)]
struct Unexported {
    raw_polygons: BTreeMap<u32, usize>,
    envmap: BTreeMap<u32, usize>,
    /// Environment-map primitives exported as the polygons they draw, mapping left out.
    envmap_drawn: BTreeMap<u32, usize>,
    unknown: BTreeMap<u32, usize>,
}

/// The notes for `hmd`'s scene; `images_left_out`, `unused_images` and `untextured` are what
/// texturing counted,
/// `normal_mime_left_out` the normal MIMe primitives that became no morph target.
pub(super) fn notes(
    hmd: &Hmd,
    (images_left_out, unused_images): (usize, &[String]),
    untextured: usize,
    normal_mime_left_out: usize,
) -> Vec<(&'static str, String)> {
    let u = scan(hmd);
    let mut out = Vec::new();
    if !unused_images.is_empty() {
        out.push((
            "images-unused",
            format!(
                "{} image(s) of the file's image primitives not in the glTF, which carries only the images a material uses: no exported polygon is textured from them (in the environment-map samples they are the maps): {}",
                unused_images.len(),
                unused_images.join("; ")
            ),
        ));
    }
    if images_left_out > 0 {
        out.push((
            "images-left-out",
            format!(
                "{images_left_out} image(s) of the file's image primitives left out: their texels or CLUT lie past the end of their section"
            ),
        ));
    }
    if untextured > 0 {
        out.push((
            "textures-missing",
            format!(
                "{untextured} textured polygon(s) drawn untextured: no image primitive or --tim TIM covers their texture page and CLUT"
            ),
        ));
    }
    if !u.raw_polygons.is_empty() {
        out.push((
            "polygons-not-exported",
            format!(
                "{} polygon primitive(s) not exported (types {}): their packets are of a layout retroanim keeps as raw words (preset strips, types the manual does not list)",
                u.raw_polygons.values().sum::<usize>(),
                codes(&u.raw_polygons)
            ),
        ));
    }
    if !u.envmap.is_empty() {
        out.push((
            "envmap-not-exported",
            format!(
                "{} environment-map primitive(s) (category 6, types {}) not exported: LIBHMD.H names no such type, so their packets are kept as raw words",
                u.envmap.values().sum::<usize>(),
                codes(&u.envmap)
            ),
        ));
    }
    if !u.envmap_drawn.is_empty() {
        out.push((
            "envmap-left-out",
            format!(
                "{} environment-map primitive(s) (category 6, types {}) exported as the plain Gouraud polygons they are laid out as: the environment mapping itself (a texture looked up from each normal, set by primitive header words 3..12) is left out",
                u.envmap_drawn.values().sum::<usize>(),
                codes(&u.envmap_drawn)
            ),
        ));
    }
    if normal_mime_left_out > 0 {
        out.push((
            "normal-mime-not-exported",
            format!(
                "{normal_mime_left_out} normal MIMe primitive(s) not exported: they move no normal of an exported block mesh (the console applies them to lighting only)"
            ),
        ));
    }
    if !u.unknown.is_empty() {
        out.push((
            "types-not-exported",
            format!(
                "{} primitive type(s) retroanim does not know not exported ({})",
                u.unknown.values().sum::<usize>(),
                codes(&u.unknown)
            ),
        ));
    }
    out
}

/// `0x…` codes with counts: `0x0680100c ×2, …`.
fn codes(m: &BTreeMap<u32, usize>) -> String {
    m.iter()
        .map(|(c, n)| match n {
            1 => format!("0x{c:08x}"),
            n => format!("0x{c:08x} ×{n}"),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Walks every block's primitive chain as the console does.
fn scan(hmd: &Hmd) -> Unexported {
    let headers = hmd.headers();
    let prims: BTreeMap<u32, &super::super::Primitive> = hmd.primitives().collect();
    let mut u = Unexported::default();
    let mut seen = BTreeSet::new();
    for &first in &hmd.blocks {
        let mut at = first;
        while first != 0 && at != TERMINATE && seen.insert(at) {
            let Some(p) = prims.get(&at) else { break };
            at = p.next;
            for t in &p.types {
                let k = t.kind().drawn_as();
                if k.developer() != 0 {
                    *u.unknown.entry(t.type_code).or_default() += 1;
                    continue;
                }
                if k != t.kind() {
                    *u.envmap_drawn.entry(t.type_code).or_default() += 1;
                }
                match k.category() {
                    0 => {
                        let TypeData::PolygonIndex { index, .. } = t.data else {
                            continue;
                        };
                        let item = headers
                            .get(&p.header)
                            .and_then(|h| h.words.first())
                            .and_then(|e| e.pointer())
                            .and_then(|s| polygon_item(hmd, s, index));
                        let raw = matches!(item, Some(PolygonItem::Raw(_)) | None);
                        if raw {
                            *u.raw_polygons.entry(t.type_code).or_default() += 1;
                        }
                    }
                    6 => *u.envmap.entry(t.type_code).or_default() += 1,
                    1..=5 | 7 => {}
                    _ => *u.unknown.entry(t.type_code).or_default() += 1,
                }
            }
        }
    }
    u
}
