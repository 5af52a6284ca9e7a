//! Assembly: textures by VRAM and models for animations, on hand-built sets (files built from
//! the spec tables here, not by our writers) and on the corpus folders where Sony's samples
//! keep TMDs with their TIMs. The texel a matched TIM gives each textured corner is checked
//! against an independent model of VRAM: every TIM of the folder loaded at its own place, the
//! address worked out from the TSB/CBA/UV bits as the GPU does.

mod common;

use std::path::{Path, PathBuf};

use retroanim::assemble::{self, Assembly};
use retroanim::formats::texpage::{self, Cover, Sampled};
use retroanim::formats::tim::{DecodeOptions, Stp, Tim};
use retroanim::Format;

// ---- files built from the spec tables (notes tmd_tim.md) ----

/// A TIM (FF p.3-3): `pmode` 0/1/2, image block at `(x, y)` `w` halfwords × `h`, CLUT block.
fn tim(
    pmode: u32,
    (x, y, w, h): (u16, u16, u16, u16),
    clut: Option<(u16, u16, u16, u16)>,
) -> Vec<u8> {
    let mut b = Vec::new();
    let word = |b: &mut Vec<u8>, v: u32| b.extend_from_slice(&v.to_le_bytes());
    let half = |b: &mut Vec<u8>, v: u16| b.extend_from_slice(&v.to_le_bytes());
    word(&mut b, 0x10);
    word(&mut b, pmode | if clut.is_some() { 8 } else { 0 });
    let block = |b: &mut Vec<u8>, (x, y, w, h): (u16, u16, u16, u16), seed: u16| {
        word(b, 12 + 2 * w as u32 * h as u32);
        for v in [x, y, w, h] {
            half(b, v);
        }
        for i in 0..(w as u32 * h as u32) {
            half(b, (i as u16).wrapping_mul(2654).wrapping_add(seed) | 1);
        }
    };
    if let Some(c) = clut {
        block(&mut b, c, x ^ y);
    }
    block(&mut b, (x, y, w, h), y ^ 77);
    b
}

/// A TMD of one object whose polygons are lit FT3 packets (mode 0x24, flag 0, ilen 5, olen 7:
/// `[u0 v0 cba] [u1 v1 tsb] [u2 v2 -] [n0 v0] [v1 v2]`), each `(tsb, cba, [uv; 3])`.
fn tmd(polys: &[(u16, u16, [[u8; 2]; 3])]) -> Vec<u8> {
    let mut b = Vec::new();
    let word = |b: &mut Vec<u8>, v: u32| b.extend_from_slice(&v.to_le_bytes());
    word(&mut b, 0x41);
    word(&mut b, 0);
    word(&mut b, 1);
    let prim_top = 28u32;
    let vert_top = prim_top + 24 * polys.len() as u32;
    let norm_top = vert_top + 3 * 8;
    for v in [vert_top, 3, norm_top, 1, prim_top, polys.len() as u32, 0] {
        word(&mut b, v);
    }
    for (tsb, cba, uv) in polys {
        // [olen ilen flag mode] = [7 5 0 0x24]
        word(&mut b, 0x07 | (0x05 << 8) | (0x24 << 24));
        let uvw =
            |uv: [u8; 2], extra: u16| uv[0] as u32 | (uv[1] as u32) << 8 | (extra as u32) << 16;
        word(&mut b, uvw(uv[0], *cba));
        word(&mut b, uvw(uv[1], *tsb));
        word(&mut b, uvw(uv[2], 0));
        word(&mut b, 0); // n0 = 0, v0 = 0
        word(&mut b, 1 | (2 << 16)); // v1 = 1, v2 = 2
    }
    for v in [[0i16, 0, 0], [100, 0, 0], [0, 100, 0]] {
        for c in v {
            b.extend_from_slice(&c.to_le_bytes());
        }
        b.extend_from_slice(&0i16.to_le_bytes());
    }
    b.extend_from_slice(&[0, 0, 0, 0, 0x00, 0xF0, 0, 0]); // normal (0, 0, -4096)
    b
}

/// TSB of page `(x/64, y/256)` at colour mode `tpf`.
fn tsb(x: u16, y: u16, tpf: u16) -> u16 {
    (x / 64) | ((y / 256) << 4) | (tpf << 7)
}

/// CBA of a CLUT at `(x, y)`.
fn cba(x: u16, y: u16) -> u16 {
    (x / 16) | (y << 6)
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(&p, bytes).unwrap();
    p
}

fn asset<'a>(a: &'a Assembly, name: &str) -> &'a assemble::Asset {
    a.assets
        .iter()
        .find(|x| x.source.container.ends_with(name))
        .unwrap_or_else(|| panic!("no asset {name}"))
}

fn names(a: &assemble::Asset) -> Vec<String> {
    a.textures
        .iter()
        .map(|t| t.source.container.rsplit('/').next().unwrap().to_string())
        .collect()
}

// ---- an independent model of VRAM ----

struct Vram(Vec<u16>);

impl Vram {
    fn new() -> Vram {
        Vram(vec![0; 1024 * 512])
    }

    fn load(&mut self, t: &Tim) {
        for b in t.clut.iter().chain([&t.image]) {
            for row in 0..b.height as usize {
                for col in 0..b.width as usize {
                    let (x, y) = (b.x as usize + col, b.y as usize + row);
                    if x < 1024 && y < 512 {
                        self.0[y * 1024 + x] = b.data[row * b.width as usize + col];
                    }
                }
            }
        }
    }

    /// The 15-bit colour the GPU reads for texel `(u, v)` of a polygon's TSB and CBA.
    fn texel(&self, tsb: u16, cba: u16, u: u8, v: u8) -> u16 {
        let px = (tsb & 0xF) as usize * 64;
        let py = ((tsb >> 4) & 1) as usize * 256;
        let (cx, cy) = ((cba & 0x3F) as usize * 16, ((cba >> 6) & 0x1FF) as usize);
        let (u, v) = (u as usize, v as usize);
        let at = |x: usize, y: usize| self.0[y * 1024 + x];
        match (tsb >> 7) & 3 {
            0 => {
                let i = (at(px + u / 4, py + v) >> ((u % 4) * 4)) & 0xF;
                at(cx + i as usize, cy)
            }
            1 => {
                let i = (at(px + u / 2, py + v) >> ((u % 2) * 8)) & 0xFF;
                at(cx + i as usize, cy)
            }
            _ => at(px + u, py + v),
        }
    }
}

fn rgb(c: u16) -> [u8; 3] {
    // As TIM → PNG widens 5 bits: (x << 3) | (x >> 2).
    [0, 5, 10].map(|s| {
        let x = ((c >> s) & 0x1F) as u8;
        (x << 3) | (x >> 2)
    })
}

/// For every textured corner of every TMD triangle in `a` (a TMD asset): the texel the
/// library's matched TIM gives (decoded through the bridge's CLUT row and texel offset) is
/// the texel the console samples with the matched TIM loaded. Returns (corners checked,
/// triangles matched, triangles).
fn check_texels(asm: &Assembly, a: &assemble::Asset, all_tims: &[Tim]) -> (usize, usize, usize) {
    let tmd = match asm.read(&a.source).unwrap() {
        retroanim::Model::Tmd(t) => t,
        m => panic!("{:?}", m.format()),
    };
    let tims = asm.tims_for(a).unwrap();
    let (mut checked, mut matched, mut total) = (0, 0, 0);
    for tri in tmd.meshes().iter().flat_map(|m| &m.triangles) {
        let Some([t, c]) = tri.texture else { continue };
        total += 1;
        let uvs = tri.corners.map(|k| k.uv.unwrap());
        let s = Sampled::new(t, c, &uvs);
        let Some((i, Cover::Covers, row)) = texpage::find(&tims, &s) else {
            continue;
        };
        matched += 1;
        let mut vram = Vram::new();
        for other in all_tims {
            vram.load(other);
        }
        vram.load(&tims[i]);
        let img = tims[i]
            .to_rgba(&DecodeOptions {
                clut_row: row,
                stp: Stp::Opaque,
            })
            .unwrap();
        let (dx, dy) = s.texel_offset(&tims[i]);
        for [u, v] in uvs {
            let (x, y) = ((u as f64 + dx) as usize, (v as f64 + dy) as usize);
            let p = &img.pixels[(y * img.width + x) * 4..][..3];
            let want = rgb(vram.texel(t, c, u, v));
            assert_eq!(
                p, want,
                "{}: texel ({u}, {v}) of TSB {t:#x} CBA {c:#x}",
                a.source.container
            );
            checked += 1;
        }
    }
    (checked, matched, total)
}

// ---- hand-built sets ----

#[test]
fn textures_by_vram_handbuilt() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path().join("game");
    // 4-bit at page 10 (640, 0), CLUT at (0, 480).
    write(
        &dir,
        "FOUR.TIM",
        &tim(0, (640, 0, 16, 64), Some((0, 480, 16, 1))),
    );
    // 8-bit at page 11 (704, 0), two CLUT rows at (0, 490): the polygons use row 1.
    write(
        &dir,
        "EIGHT.TIM",
        &tim(1, (704, 0, 32, 64), Some((0, 490, 256, 2))),
    );
    // 16-bit at page 12 (768, 0).
    write(&dir, "DIRECT.TIM", &tim(2, (768, 0, 64, 64), None));
    // Page 13 (832, 0) shared by two 4-bit TIMs side by side, each with its CLUT.
    write(
        &dir,
        "LEFT.TIM",
        &tim(0, (832, 0, 16, 64), Some((16, 480, 16, 1))),
    );
    write(
        &dir,
        "RIGHT.TIM",
        &tim(0, (848, 0, 16, 64), Some((32, 480, 16, 1))),
    );
    // Page 14 (896, 0): the image is there, but the polygon's CLUT row (500) is not.
    write(
        &dir,
        "NOCLUT.TIM",
        &tim(0, (896, 0, 16, 64), Some((48, 480, 16, 1))),
    );
    // Same place as FOUR.TIM, in another tree: an alternative, not the choice.
    // (one texel differs: a byte-identical copy would be the same texture, not a rival).
    let mut far = tim(0, (640, 0, 16, 64), Some((0, 480, 16, 1)));
    let n = far.len();
    far[n - 1] ^= 0x01;
    write(d.path(), "other/tree/deep/FOUR.TIM", &far);
    let tri = |a: [u8; 2], b: [u8; 2], c: [u8; 2]| [a, b, c];
    write(
        &dir,
        "MODEL.TMD",
        &tmd(&[
            (tsb(640, 0, 0), cba(0, 480), tri([0, 0], [63, 0], [0, 63])),
            (tsb(704, 0, 1), cba(0, 491), tri([1, 2], [60, 2], [1, 60])),
            (tsb(768, 0, 2), cba(0, 0), tri([0, 0], [63, 10], [5, 63])),
            (tsb(832, 0, 0), cba(16, 480), tri([0, 0], [60, 0], [0, 60])),
            (
                tsb(832, 0, 0),
                cba(32, 480),
                tri([70, 0], [120, 0], [70, 60]),
            ),
            (tsb(896, 0, 0), cba(48, 500), tri([0, 0], [60, 0], [0, 60])),
        ]),
    );
    let a = assemble::from_paths(&[d.path().to_path_buf()]);
    let m = asset(&a, "MODEL.TMD");
    assert_eq!(m.textured, 6);
    assert_eq!(m.untextured, 1, "the polygon whose CLUT row is missing");
    let mut got = names(m);
    got.sort();
    assert_eq!(
        got,
        [
            "DIRECT.TIM",
            "EIGHT.TIM",
            "FOUR.TIM",
            "LEFT.TIM",
            "RIGHT.TIM"
        ]
    );
    let four = m
        .textures
        .iter()
        .find(|t| t.source.container.ends_with("game/FOUR.TIM"))
        .unwrap();
    assert!(four.confidence >= 0.9, "{four:?}");
    assert_eq!(four.alternatives.len(), 1);
    assert!(four.alternatives[0].source.container.contains("other/tree"));
    assert!(four.alternatives[0].confidence < 0.5);
    assert!(a
        .notes
        .iter()
        .any(|n| n.code == "untextured-polygons" && n.message.starts_with("1 ")));
    // The texels match the console's, through the bridge's own choice.
    let all: Vec<Tim> = ["FOUR", "EIGHT", "DIRECT", "LEFT", "RIGHT", "NOCLUT"]
        .iter()
        .map(|n| {
            retroanim::formats::tim::read(&std::fs::read(dir.join(format!("{n}.TIM"))).unwrap())
                .unwrap()
        })
        .collect();
    let (checked, matched, total) = check_texels(&a, m, &all);
    assert_eq!((checked, matched, total), (15, 5, 6));
    // The glTF bridge textures the five polygons with the assembly's TIMs.
    let mut opts = retroanim::convert::Options::default();
    opts.textures.tims = a.tims_for(m).unwrap();
    let tmd_model = a.read(&m.source).unwrap();
    let glb = retroanim::convert::convert(&tmd_model, Format::Glb, &opts).unwrap();
    assert!(!glb.bytes.is_empty());
}

#[test]
fn two_tims_at_one_place_in_one_folder_are_alternatives() {
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "A.TIM", &tim(2, (768, 0, 64, 64), None));
    let mut b = tim(2, (768, 0, 64, 64), None);
    let n = b.len();
    b[n - 2] ^= 0x10; // another texture at the same place
    write(d.path(), "B.TIM", &b);
    write(
        d.path(),
        "M.TMD",
        &tmd(&[(tsb(768, 0, 2), 0, [[0, 0], [10, 0], [0, 10]])]),
    );
    let a = assemble::from_paths(&[d.path().to_path_buf()]);
    let m = asset(&a, "M.TMD");
    assert_eq!(names(m), ["A.TIM"], "by name when place ties");
    assert!(m.textures[0].confidence < 0.5, "{:?}", m.textures[0]);
    assert_eq!(m.textures[0].alternatives.len(), 1);
    // Below 0.5 a texture is shown, not used: conversions leave its polygons untextured and
    // say which candidate was set aside.
    assert!(!m.textures[0].used);
    assert!(a.tims_for(m).unwrap().is_empty());
    let mut opts = retroanim::convert::Options::default();
    let notes = a.pair_asset(m, &mut opts).unwrap();
    assert!(opts.textures.tims.is_empty());
    assert!(
        notes
            .iter()
            .any(|n| n.code == "texture-unsure" && n.message.contains("A.TIM")),
        "{notes:?}"
    );
}

// ---- corpus ----

/// The corpus folders holding both TMDs and TIMs.
fn sample_folders() -> Vec<PathBuf> {
    let mut kinds: std::collections::BTreeMap<PathBuf, (usize, usize)> = Default::default();
    for (kind, slot) in [("TMD", 0), ("TIM", 1)] {
        for (_, p) in common::corpus_files(kind) {
            let e = kinds.entry(p.parent().unwrap().to_path_buf()).or_default();
            if slot == 0 {
                e.0 += 1
            } else {
                e.1 += 1
            }
        }
    }
    kinds
        .into_iter()
        .filter(|(_, (m, t))| *m > 0 && *t > 0)
        .map(|(p, _)| p)
        .collect()
}

#[test]
fn corpus_sample_folders_texture_every_polygon_their_tims_reach() {
    let folders = sample_folders();
    if folders.is_empty() {
        return;
    }
    let (mut checked, mut matched, mut total, mut unreached) = (0, 0, 0, 0);
    let mut unsure = 0;
    for dir in &folders {
        let a = assemble::from_paths(std::slice::from_ref(dir));
        let tims: Vec<Tim> = a
            .assets
            .iter()
            .filter(|x| x.format == Format::Tim)
            .filter_map(|x| match a.read(&x.source) {
                Ok(retroanim::Model::Tim(t)) => Some(t),
                _ => None,
            })
            .collect();
        for m in a
            .assets
            .iter()
            .filter(|x| x.format == Format::Tmd && x.textured > 0)
        {
            let (c, k, n) = check_texels(&a, m, &tims);
            checked += c;
            if k < n && m.textures.iter().any(|t| !t.used) {
                // Several TIMs of the folder hold these texels (TMDVIEW loads one of its PAT
                // textures at run time): none is sure enough to use, and the notes say so.
                unsure += n - k;
            } else if k < n {
                // A model is left partly untextured only where the folder holds no image for
                // some of its polygons (their TIMs are not in the corpus): when every textured
                // polygon's texels lie in a TIM image of the right depth, all are matched.
                let tmd = match a.read(&m.source).unwrap() {
                    retroanim::Model::Tmd(t) => t,
                    _ => unreachable!(),
                };
                let all_held = tmd.meshes().iter().flat_map(|x| &x.triangles).all(|tri| {
                    let Some([t, c]) = tri.texture else {
                        return true;
                    };
                    let s = Sampled::new(t, c, &tri.corners.map(|k| k.uv.unwrap()));
                    tims.iter().any(|tim| {
                        tim.depth() == Some(s.depth)
                            && texpage::image_rect(tim).contains(&s.halfwords())
                    })
                });
                assert!(
                    !all_held,
                    "{}: {k} of {n} matched though every image is there",
                    m.source.container
                );
                unreached += n - k;
            }
            matched += k;
            total += n;
        }
    }
    eprintln!(
        "corpus sample folders: {} folders, {matched} of {total} textured triangles matched ({unreached} in models some of whose images the folder lacks, {unsure} whose TIM is below confidence 0.5), {checked} corner texels equal the console's",
        folders.len()
    );
    assert!(matched > 0 && checked >= 3 * matched);
    assert_eq!(matched + unreached + unsure, total);
    assert!(unsure < matched, "{unsure} unsure of {total}");
}

#[test]
fn corpus_janken_tods_pick_their_tmd_and_lone_tods_get_none() {
    let tods = common::corpus_files("TOD");
    if tods.is_empty() {
        return;
    }
    let janken: Vec<&PathBuf> = tods
        .iter()
        .map(|t| &t.1)
        .filter(|p| p.to_string_lossy().contains("/TOD/JANKEN/TOD/"))
        .collect();
    assert!(!janken.is_empty());
    // Each sample tree (JANKEN/ with TOD/ and TMD/) on its own.
    let mut trees: Vec<PathBuf> = janken
        .iter()
        .map(|p| p.parent().unwrap().parent().unwrap().to_path_buf())
        .collect();
    trees.dedup();
    let mut paired = 0;
    for tree in &trees {
        let a = assemble::from_paths(std::slice::from_ref(tree));
        for t in a.assets.iter().filter(|x| x.format == Format::Tod) {
            let m = t
                .model
                .as_ref()
                .unwrap_or_else(|| panic!("{}: no model", t.source.container));
            assert!(m.source.container.ends_with("TMD/TE.TMD"), "{m:?}");
            assert!(
                m.used && m.confidence >= 0.5,
                "{}: {m:?}",
                t.source.container
            );
            paired += 1;
        }
    }
    // The same TODs among every TMD of the corpus's PlayStation part still pick their own tree's TE.TMD.
    let ps1 = common::corpus_dir().join("ps1");
    let a = assemble::from_paths(&[ps1]);
    let mut lone = 0;
    for t in a.assets.iter().filter(|x| x.format == Format::Tod) {
        let c = &t.source.container;
        if c.contains("/TOD/JANKEN/TOD/") {
            let m = t.model.as_ref().unwrap();
            let tree = c.split("/TOD/JANKEN/TOD/").next().unwrap();
            assert!(m.used && m.source.container.starts_with(tree), "{c}: {m:?}");
        }
        // LSD's TODs are carved alone into their own tree: no confident model.
        if c.contains("LSDRevamped") {
            assert!(
                t.model.as_ref().map_or(true, |m| !m.used),
                "{c}: {:?}",
                t.model
            );
            lone += 1;
        }
    }
    eprintln!("janken TODs paired: {paired}; lone TODs with no confident model: {lone}");
    assert!(lone > 0);
}
