//! Assembly: a collection of assets (the files of a folder, or what [`crate::scan`] finds in a
//! disc image or archive) put together as the console would have them: models with the TIMs
//! that texture them, animations with the model they drive.
//!
//! [`from_finds`] and [`from_paths`] build an [`Assembly`]: one [`Asset`] per find, in the
//! finds' order, each with its `textures` and (animations) its `model`, every pairing with a
//! confidence 0..1 and the alternatives, and [`Assembly::notes`] for what stays unmatched
//! (with counts). The result is deterministic: the same finds give the same assembly.
//!
//! # Rules
//!
//! - **Textures by VRAM** ([`textures`]): every TIM sits in the console's 1024 × 512-halfword
//!   VRAM at its own image and CLUT positions. A textured TMD triangle or HMD packet names the
//!   texels it samples by its TSB (page, colour depth), CBA (CLUT row) and UVs
//!   ([`crate::formats::texpage`]); the TIMs covering them at that depth, with a CLUT row at
//!   the CBA, are its textures. Several TIMs covering the same texels (loaded at the same
//!   place at different times) are ranked: same container first, then nearest folder, then
//!   nearest offset, then name; the best is the texture, the rest are alternatives. An HMD's
//!   own images come first: only its packets they do not cover are matched.
//! - **Models for animations** ([`models`]): a TOD's TMD candidates must hold every TMD object
//!   its TMD-ID packets name; they are ranked by evidence (object count, place, name stem).
//!   Below 0.5 a candidate is shown, never used ([`ModelMatch::used`]); so is a texture
//!   ([`TextureMatch::used`]): its polygons stay untextured, and the pairing notes say so.
//! - **Bases for MIMe differences** ([`bases`]): a VDF's (NDF's) candidates are the TMDs
//!   every block of it fits (object and vertex or normal run, as `mime::validate` checks),
//!   ranked by the same place and name evidence; the asset's `model` is its base, used from
//!   0.5, and its `partner` the NDF (VDF) of the same base beside it. Its conversion is the
//!   base TMD with morph targets (`convert::mime`).
//! - Polygons no TIM covers, TODs with no confident model and TIMs no model samples are
//!   [`Assembly::notes`], each with its count.
//!
//! [`Assembly::tims_for`] gives an asset's chosen TIMs in the order the glTF bridges take
//! them, so a conversion textures each polygon with the TIM the assembly chose.

pub use crate::pairing::{bases, evidence, models, tmd_ids};
mod differences;
pub mod textures;
pub mod vram_source;

use std::collections::BTreeMap;
use std::path::PathBuf;

use rayon::prelude::*;
use serde::Serialize;

pub use evidence::Source;
pub use vram_source::VramDump;

use crate::error::{Error, Result};
use crate::formats::texpage::Cover;
use crate::formats::{hmd, tim::Tim, tmd::Tmd};
use crate::report::Note;
use crate::scan::Find;
use crate::{Format, Model};

/// The confidence from which a pairing is used without asking.
pub const USE_FROM: f64 = 0.5;

/// Another candidate for a pairing.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Candidate {
    /// Where it is.
    pub source: Source,
    /// Confidence, 0..1.
    pub confidence: f64,
}

/// A TIM that textures an asset.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TextureMatch {
    /// The TIM.
    pub source: Source,
    /// Confidence, 0..1: the lowest over the polygon groups it was chosen for.
    pub confidence: f64,
    /// How many textured polygons (TMD triangles, HMD packets) it textures.
    pub polygons: usize,
    /// Whether it holds every texel they sample (`covers`) or only lies in their page
    /// (`overlaps`).
    pub cover: Cover,
    /// Other TIMs that hold the same texels, best first.
    pub alternatives: Vec<Candidate>,
    /// Whether it is used (confidence ≥ [`USE_FROM`]); else it is only shown.
    pub used: bool,
}

/// The model an animation drives.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ModelMatch {
    /// The best candidate.
    pub source: Source,
    /// Its confidence, 0..1.
    pub confidence: f64,
    /// Whether it is used (confidence ≥ [`USE_FROM`]); else it is only shown.
    pub used: bool,
    /// Every candidate ranked, the best first (at most [`models::MAX_CANDIDATES`]).
    pub candidates: Vec<Candidate>,
}

/// One asset and its pairings.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Asset {
    /// Where it is.
    pub source: Source,
    /// Its format.
    pub format: Format,
    /// TIMs texturing it, in the order the glTF bridges take them.
    pub textures: Vec<TextureMatch>,
    /// Animations: the model, if any TMD fits; MIMe differences (VDF, NDF): the base TMD
    /// their blocks change ([`bases`]).
    pub model: Option<ModelMatch>,
    /// MIMe differences: the file of the other kind that goes with this one (a VDF's NDF, an
    /// NDF's VDF: same base, same folder, blocks on the same objects; [`bases::partners`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub partner: Option<Source>,
    /// Textured polygons that need a TIM (TMD triangles; HMD packets its own images miss).
    pub textured: usize,
    /// Those no TIM covers or overlaps.
    pub untextured: usize,
}

/// Assets put together.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Assembly {
    /// One per find, in the finds' order.
    pub assets: Vec<Asset>,
    /// What stays unmatched, with counts.
    pub notes: Vec<Note>,
    /// The finds, to read the assets again.
    #[serde(skip)]
    finds: Vec<Find>,
}

/// What an asset gives the matching, read once.
enum Parsed {
    Tim(Tim, u64),
    Tmd {
        objects: usize,
        groups: Vec<textures::Group>,
        /// Vertices and normals per object (what MIMe differences must fit).
        vertices: Vec<usize>,
        normals: Vec<usize>,
    },
    Tod(Vec<u32>),
    /// A VDF (`false`) or NDF (`true`).
    Diff(crate::formats::mime::Diff, bool),
    Hmd(Vec<textures::Group>),
    Other,
    Unreadable,
}

/// The source of a find.
pub fn source_of(f: &Find) -> Source {
    Source {
        path: f.path.clone(),
        container: f.container.clone(),
        offset: f.offset,
        size: f.size,
    }
}

/// Scans `paths` (files, folders, disc images, archives; as `retroanim scan` with its default
/// options) and assembles what it finds.
pub fn from_paths(paths: &[PathBuf]) -> Assembly {
    let opts = crate::scan::ScanOptions {
        vram_cutter: Some(savestate_vram_cutter()),
        ..Default::default()
    };
    let report = crate::scan::scan_paths(paths, &opts);
    from_finds(&report.finds)
}

/// The [`crate::scan::ScanOptions::vram_cutter`] that does what [`add_savestate_vram`] does,
/// one savestate at a time while the scan runs: its VRAM is released as soon as its TIMs are
/// cut, so a scan of many savestates never holds more than a few VRAMs.
pub fn savestate_vram_cutter() -> crate::scan::VramCutter {
    std::sync::Arc::new(|v: &crate::scan::SavestateVram, own: &[Find]| {
        match VramDump::new(v.container.clone(), &v.bytes) {
            Ok(dump) => vram_finds_as(own, &dump, &v.path),
            Err(_) => Vec::new(),
        }
    })
}

/// Adds to `report`'s finds the TIMs cut from the VRAM of each savestate it scanned
/// ([`crate::scan::Report::vram`]) for the pages and CLUTs the models found in that savestate
/// sample, as [`vram_finds`] cuts a VRAM dump (container `STATE:/VRAM:/PAGE_…TIM`, the input
/// path the savestate's). What `retroanim scan` does before it prints, extracts or reports.
pub fn add_savestate_vram(report: &mut crate::scan::Report) {
    let mut cut = Vec::new();
    for v in &report.vram {
        let Ok(dump) = VramDump::new(v.container.clone(), &v.bytes) else {
            continue;
        };
        // The finds of the same savestate's RAM (`STATE:/RAM`).
        let ram = format!(
            "{}RAM",
            v.container.strip_suffix("VRAM").unwrap_or_default()
        );
        let own: Vec<Find> = report
            .finds
            .iter()
            .filter(|f| f.path == v.path && f.container == ram)
            .cloned()
            .collect();
        cut.extend(vram_finds_as(&own, &dump, &v.path));
    }
    report.finds.extend(cut);
}

/// Assembles `finds` with a VRAM dump as one more texture source: [`vram_finds`] join the
/// finds (as assets of their own, after the others).
pub fn from_finds_with_vram(finds: &[Find], vram: Option<&VramDump>) -> Assembly {
    match vram {
        Some(dump) => {
            let mut all = finds.to_vec();
            all.extend(vram_finds(finds, dump));
            from_finds(&all)
        }
        None => from_finds(finds),
    }
}

/// The TIMs cut from a VRAM dump for the pages and CLUTs the models among `finds` sample
/// ([`vram_source`]), as finds of the dump (container `DUMP:/PAGE_…TIM`, offset 0).
pub fn vram_finds(finds: &[Find], dump: &VramDump) -> Vec<Find> {
    vram_finds_as(finds, dump, &dump.name)
}

/// [`vram_finds`], the finds listed under the input path `path`.
fn vram_finds_as(finds: &[Find], dump: &VramDump, path: &str) -> Vec<Find> {
    let groups: Vec<textures::Group> = finds
        .par_iter()
        .filter(|f| matches!(f.format, Format::Tmd | Format::Hmd))
        .map(parse)
        .flat_map_iter(|p| match p {
            Parsed::Tmd { groups, .. } | Parsed::Hmd(groups) => groups,
            _ => Vec::new(),
        })
        .collect();
    dump.cut(&groups)
        .into_iter()
        .filter_map(|(name, bytes)| Find::from_bytes(path, &name, bytes).ok())
        .collect()
}

/// Assembles `finds` (as [`crate::scan`] gives them).
pub fn from_finds(finds: &[Find]) -> Assembly {
    let parsed: Vec<Parsed> = finds.par_iter().map(parse).collect();
    let sources: Vec<Source> = finds.iter().map(source_of).collect();
    let tims: Vec<textures::TimKey<'_>> = parsed
        .iter()
        .zip(&sources)
        .filter_map(|(p, s)| match p {
            Parsed::Tim(t, h) => Some(textures::TimKey {
                source: s,
                tim: t,
                content: *h,
            }),
            _ => None,
        })
        .collect();
    let tmds: Vec<(usize, models::TmdKey<'_>)> = parsed
        .iter()
        .zip(&sources)
        .enumerate()
        .filter_map(|(i, (p, s))| match p {
            Parsed::Tmd { objects, .. } => Some((
                i,
                models::TmdKey {
                    source: s,
                    objects: *objects,
                },
            )),
            _ => None,
        })
        .collect();
    let tmd_keys: Vec<models::TmdKey<'_>> = tmds.iter().map(|t| t.1.clone()).collect();
    let tod_index: Vec<usize> = (0..finds.len())
        .filter(|&i| matches!(parsed[i], Parsed::Tod(_)))
        .collect();
    let tod_keys: Vec<models::TodKey<'_>> = tod_index
        .iter()
        .map(|&i| models::TodKey {
            source: &sources[i],
            ids: match &parsed[i] {
                Parsed::Tod(ids) => ids,
                _ => &[],
            },
        })
        .collect();
    let ranked_tods: BTreeMap<usize, Vec<models::Ranked>> = tod_index
        .iter()
        .copied()
        .zip(models::rank_all(&tod_keys, &tmd_keys))
        .collect();
    let mime = differences::pair(&parsed, &sources);
    let assets: Vec<Asset> = (0..finds.len())
        .into_par_iter()
        .map(|i| {
            let source = &sources[i];
            let mut a = Asset {
                source: source.clone(),
                format: finds[i].format,
                textures: Vec::new(),
                model: None,
                partner: None,
                textured: 0,
                untextured: 0,
            };
            match &parsed[i] {
                Parsed::Tmd { groups, .. } | Parsed::Hmd(groups) => {
                    texture(&mut a, groups, &tims);
                }
                Parsed::Tod(_) => {
                    let ranked = ranked_tods.get(&i).map(Vec::as_slice).unwrap_or(&[]);
                    a.model = differences::model_match(ranked, |t| sources[tmds[t].0].clone());
                }
                Parsed::Diff(..) => {
                    if let Some(p) = mime.get(&i) {
                        a.model = p.model.clone();
                        a.partner = p.partner.clone();
                    }
                }
                _ => {}
            }
            a
        })
        .collect();
    let notes = notes(&assets, &parsed);
    Assembly {
        assets,
        notes,
        finds: finds.to_vec(),
    }
}

/// Matches an asset's polygon groups against the TIMs.
fn texture(a: &mut Asset, groups: &[textures::Group], tims: &[textures::TimKey<'_>]) {
    let mut chosen: BTreeMap<usize, TextureMatch> = BTreeMap::new();
    for g in groups {
        a.textured += g.polygons;
        let m = textures::match_group(&a.source, g, tims);
        let (Some(&(best, conf)), Some(cover)) = (m.ranked.first(), m.cover) else {
            a.untextured += g.polygons;
            continue;
        };
        let t = chosen.entry(best).or_insert_with(|| TextureMatch {
            source: tims[best].source.clone(),
            confidence: conf,
            polygons: 0,
            cover,
            alternatives: Vec::new(),
            used: false,
        });
        t.polygons += g.polygons;
        t.confidence = t.confidence.min(conf);
        if cover == Cover::Overlaps {
            t.cover = Cover::Overlaps;
        }
        for &(j, c) in &m.ranked[1..] {
            let s: &Source = tims[j].source;
            match t.alternatives.iter_mut().find(|x| &x.source == s) {
                Some(x) => x.confidence = x.confidence.max(c),
                None => t.alternatives.push(Candidate {
                    source: s.clone(),
                    confidence: c,
                }),
            }
        }
    }
    let mut list: Vec<(usize, TextureMatch)> = chosen.into_iter().collect();
    list.sort_by(|x, y| {
        textures::place_key(&a.source, tims[x.0].source)
            .cmp(&textures::place_key(&a.source, tims[y.0].source))
    });
    a.textures = list
        .into_iter()
        .map(|(_, mut t)| {
            t.alternatives.sort_by(|x, y| {
                y.confidence
                    .total_cmp(&x.confidence)
                    .then(x.source.cmp(&y.source))
            });
            t.alternatives.truncate(textures::MAX_ALTERNATIVES);
            t.used = t.confidence >= USE_FROM;
            t
        })
        .collect();
}

/// Reads what matching needs of a find.
fn parse(f: &Find) -> Parsed {
    if !matches!(
        f.format,
        Format::Tim | Format::Tmd | Format::Tod | Format::Hmd | Format::Vdf | Format::Ndf
    ) {
        return Parsed::Other;
    }
    let Ok(bytes) = f.readable_bytes() else {
        return Parsed::Unreadable;
    };
    let limits = crate::scan::ScanOptions::default().limits;
    match crate::read_as(&bytes, Some(f.format), &limits) {
        Ok(Model::Tim(mut t)) => {
            // Only its place and depth are matched: the pixels are read again when used.
            t.image.data = Vec::new();
            if let Some(c) = &mut t.clut {
                c.data = Vec::new();
            }
            Parsed::Tim(t, content_hash(&bytes))
        }
        Ok(Model::Tmd(t)) => Parsed::Tmd {
            objects: t.objects.len(),
            groups: tmd_groups(&t),
            vertices: crate::formats::mime::base_counts(&t, false),
            normals: crate::formats::mime::base_counts(&t, true),
        },
        Ok(Model::Vdf(d)) => Parsed::Diff(d, false),
        Ok(Model::Ndf(d)) => Parsed::Diff(d, true),
        Ok(Model::Tod(t)) => Parsed::Tod(tmd_ids(&t)),
        Ok(Model::Hmd(h)) => Parsed::Hmd(hmd_groups(&h)),
        _ => Parsed::Unreadable,
    }
}

/// A hash of an asset's bytes (SipHash with fixed keys: the same in every run).
fn content_hash(bytes: &[u8]) -> u64 {
    use std::hash::{Hash, Hasher};
    #[allow(deprecated)]
    let mut h = std::hash::SipHasher::new();
    bytes.hash(&mut h);
    h.finish()
}

/// A TMD's textured triangles (as the bridge draws them: quads split in two), grouped.
pub fn tmd_groups(t: &Tmd) -> Vec<textures::Group> {
    let tris: Vec<(u16, u16, [[u8; 2]; 3])> = t
        .meshes()
        .iter()
        .flat_map(|m| &m.triangles)
        .filter_map(|tri| {
            let [tsb, cba] = tri.texture?;
            Some((tsb, cba, tri.corners.map(|c| c.uv.unwrap_or([0, 0]))))
        })
        .collect();
    textures::groups(tris.iter().map(|(t, c, uv)| (*t, *c, &uv[..])))
}

/// An HMD's textured packets that its own images do not cover, grouped.
pub fn hmd_groups(h: &hmd::Hmd) -> Vec<textures::Group> {
    let own = hmd::image_tims(h);
    let mut polys: Vec<(u16, u16, Vec<[u8; 2]>)> = Vec::new();
    for r in &h.regions {
        let hmd::RegionBody::Section(s) = &r.body else {
            continue;
        };
        let hmd::SectionData::Polygons(items) = &s.data else {
            continue;
        };
        for it in items {
            let hmd::PolygonItem::Packets(run) = it else {
                continue;
            };
            for p in run.packets().filter(|p| !p.uvs.is_empty()) {
                let uvs: Vec<[u8; 2]> = p.uvs.iter().map(|u| u.uv).collect();
                let s = crate::formats::texpage::Sampled::new(p.tsb, p.cba, &uvs);
                if !matches!(
                    crate::formats::texpage::find(&own, &s),
                    Some((_, Cover::Covers, _))
                ) {
                    polys.push((p.tsb, p.cba, uvs));
                }
            }
        }
    }
    textures::groups(polys.iter().map(|(t, c, uv)| (*t, *c, &uv[..])))
}

/// The notes of what stays unmatched.
fn notes(assets: &[Asset], parsed: &[Parsed]) -> Vec<Note> {
    let mut notes = Vec::new();
    let mut add = |n: usize, code: &'static str, message: String| {
        if n > 0 {
            notes.push(Note { code, message });
        }
    };
    let (models, polys): (usize, usize) = assets
        .iter()
        .filter(|a| a.untextured > 0)
        .fold((0, 0), |(m, p), a| (m + 1, p + a.untextured));
    add(
        polys,
        "untextured-polygons",
        format!("{polys} textured polygon(s) of {models} model(s): no TIM holds their texels"),
    );
    let tods = assets.iter().filter(|a| a.format == Format::Tod);
    let none = tods.clone().filter(|a| a.model.is_none()).count();
    add(
        none,
        "no-model",
        format!("{none} animation(s): no TMD has every object their TMD IDs name"),
    );
    let weak = tods
        .filter(|a| a.model.as_ref().is_some_and(|m| !m.used))
        .count();
    add(
        weak,
        "model-unsure",
        format!("{weak} animation(s): no model with confidence {USE_FROM} or more (candidates shown, not used)"),
    );
    let diffs = assets
        .iter()
        .filter(|a| matches!(a.format, Format::Vdf | Format::Ndf));
    let none = diffs.clone().filter(|a| a.model.is_none()).count();
    add(
        none,
        "no-base",
        format!("{none} MIMe difference file(s): no TMD has every object and vertex (normal) their blocks change"),
    );
    let weak = diffs
        .filter(|a| a.model.as_ref().is_some_and(|m| !m.used))
        .count();
    add(
        weak,
        "base-unsure",
        format!("{weak} MIMe difference file(s): no base TMD with confidence {USE_FROM} or more (candidates shown, not used)"),
    );
    let used: std::collections::BTreeSet<&Source> = assets
        .iter()
        .flat_map(|a| a.textures.iter().map(|t| &t.source))
        .collect();
    let idle = assets
        .iter()
        .filter(|a| a.format == Format::Tim && !used.contains(&a.source))
        .count();
    add(
        idle,
        "tim-unused",
        format!("{idle} TIM(s) texture no model found with them"),
    );
    let unreadable = parsed
        .iter()
        .filter(|p| matches!(p, Parsed::Unreadable))
        .count();
    add(
        unreadable,
        "unreadable",
        format!("{unreadable} asset(s) could not be read again and are left unmatched"),
    );
    notes
}

impl Assembly {
    /// The asset at `container` and `offset`.
    pub fn asset_at(&self, container: &str, offset: u64) -> Option<&Asset> {
        self.assets
            .iter()
            .find(|a| a.source.container == container && a.source.offset == offset)
    }

    /// Reads the asset at `source` again.
    pub fn read(&self, source: &Source) -> Result<Model> {
        let f = self
            .finds
            .iter()
            .find(|f| f.container == source.container && f.offset == source.offset)
            .ok_or_else(|| {
                Error::UnknownFormat(format!(
                    "{}@{}: not an asset of this assembly",
                    source.container, source.offset
                ))
            })?;
        crate::read_as(
            &f.readable_bytes()?,
            Some(f.format),
            &crate::scan::ScanOptions::default().limits,
        )
    }

    /// The TIMs chosen for `asset` and used (confidence ≥ [`USE_FROM`]), read, in the order
    /// the glTF bridges take them (give them as [`crate::convert::Textures::tims`]).
    pub fn tims_for(&self, asset: &Asset) -> Result<Vec<Tim>> {
        asset
            .textures
            .iter()
            .filter(|t| t.used)
            .map(|t| match self.read(&t.source)? {
                Model::Tim(tim) => Ok(tim),
                m => Err(Error::UnknownFormat(format!(
                    "{}@{}: a {}, not a TIM",
                    t.source.container,
                    t.source.offset,
                    m.format()
                ))),
            })
            .collect()
    }

    /// The model `asset` (an animation) drives, or the base MIMe differences change, when its
    /// confidence is at least [`USE_FROM`].
    pub fn model_for<'a>(&self, asset: &'a Asset) -> Result<Option<(Tmd, &'a ModelMatch)>> {
        let Some(m) = asset.model.as_ref().filter(|m| m.used) else {
            return Ok(None);
        };
        match self.read(&m.source)? {
            Model::Tmd(t) => Ok(Some((t, m))),
            other => Err(Error::UnknownFormat(format!(
                "{}@{}: a {}, not a TMD",
                m.source.container,
                m.source.offset,
                other.format()
            ))),
        }
    }

    /// Puts the pairing of the asset at the start of `container` (a file converted whole) into
    /// `opts`, as [`Assembly::pair_asset`] does.
    pub fn pair_into(
        &self,
        container: &str,
        opts: &mut crate::convert::Options,
    ) -> Result<Vec<Note>> {
        match self.asset_at(container, 0) {
            Some(a) => self.pair_asset(a, opts),
            None => Ok(Vec::new()),
        }
    }

    /// Puts `a`'s pairing into `opts`: its chosen TIMs (models) and its model with that model's
    /// TIMs (animations), unless the caller set them already. Returns notes saying which
    /// pairing was used, or shown and not used (below [`USE_FROM`]). Every road that converts
    /// a find (`convert`, `scan --extract --convert`, `scan --report`) pairs through this.
    pub fn pair_asset(&self, a: &Asset, opts: &mut crate::convert::Options) -> Result<Vec<Note>> {
        let mut notes = Vec::new();
        if needs_model(a.format) && opts.tod.tmd.is_none() {
            match self.model_for(a)? {
                Some((tmd, m)) => {
                    opts.tod.tmd = Some(tmd);
                    notes.push(Note {
                        code: "paired-model",
                        message: format!(
                            "{} {} (confidence {:.2})",
                            if a.format == Format::Tod {
                                "model"
                            } else {
                                "base model"
                            },
                            shown(&m.source),
                            m.confidence
                        ),
                    });
                    notes.extend(self.take_partner(a, opts)?);
                    // The model's own textures, as assembled for it.
                    if opts.textures.tims.is_empty() {
                        if let Some(ma) = self.asset_at(&m.source.container, m.source.offset) {
                            notes.extend(self.take_tims(ma, opts)?);
                        }
                    }
                }
                None => {
                    if let Some(m) = &a.model {
                        notes.push(Note {
                            code: "model-unsure",
                            message: format!(
                                "best model candidate {} has confidence {:.2} (below {USE_FROM}): not used",
                                shown(&m.source),
                                m.confidence
                            ),
                        });
                    }
                }
            }
        } else if !needs_model(a.format) && opts.textures.tims.is_empty() {
            notes.extend(self.take_tims(a, opts)?);
        }
        Ok(notes)
    }

    /// A difference file's partner ([`Asset::partner`]) into `opts` (a VDF's NDF as
    /// `mime.ndf`, an NDF's VDF as `mime.vdf`) unless the caller gave one, with a note.
    fn take_partner(&self, a: &Asset, opts: &mut crate::convert::Options) -> Result<Vec<Note>> {
        let Some(p) = &a.partner else {
            return Ok(Vec::new());
        };
        let slot = match a.format {
            Format::Vdf => &mut opts.mime.ndf,
            Format::Ndf => &mut opts.mime.vdf,
            _ => return Ok(Vec::new()),
        };
        if slot.is_some() {
            return Ok(Vec::new());
        }
        match self.read(p)? {
            Model::Vdf(d) | Model::Ndf(d) => *slot = Some(d),
            other => {
                return Err(Error::UnknownFormat(format!(
                    "{}@{}: a {}, not MIMe differences",
                    p.container,
                    p.offset,
                    other.format()
                )))
            }
        }
        Ok(vec![Note {
            code: "paired-differences",
            message: format!(
                "with the {} {}",
                if a.format == Format::Vdf {
                    "NDF"
                } else {
                    "VDF"
                },
                shown(p)
            ),
        }])
    }

    /// Why `a` (an animation, or MIMe differences) has no model to convert with when `opts`
    /// gives none: no TMD fits, or the best is below [`USE_FROM`]. `None` for other assets, or
    /// when `opts` has a model. The roads that pair by themselves do not write such an asset's
    /// glTF (it would hold no mesh): they warn with this, after [`without_model`].
    pub fn missing_model(&self, a: &Asset, opts: &crate::convert::Options) -> Option<String> {
        if !needs_model(a.format) || opts.tod.tmd.is_some() {
            return None;
        }
        Some(match &a.model {
            None if a.format == Format::Tod => "no TMD has every object its TMD IDs name".into(),
            None => format!(
                "no TMD has every object and {} its blocks change",
                if a.format == Format::Ndf {
                    "normal"
                } else {
                    "vertex"
                }
            ),
            Some(m) => format!(
                "its best model candidate {} has confidence {:.2}, below {USE_FROM}",
                shown(&m.source),
                m.confidence
            ),
        })
    }

    /// `a`'s used TIMs into `opts`, with notes naming them and the ones not used.
    fn take_tims(&self, a: &Asset, opts: &mut crate::convert::Options) -> Result<Vec<Note>> {
        let mut notes = Vec::new();
        opts.textures.tims = self.tims_for(a)?;
        let list = |used: bool| -> Vec<String> {
            a.textures
                .iter()
                .filter(|t| t.used == used)
                .map(|t| format!("{} ({:.2})", shown(&t.source), t.confidence))
                .collect()
        };
        let (used, unsure) = (list(true), list(false));
        if !used.is_empty() {
            notes.push(Note {
                code: "paired-textures",
                message: format!("textured from {}", used.join(", ")),
            });
        }
        if !unsure.is_empty() {
            notes.push(Note {
                code: "texture-unsure",
                message: format!(
                    "texture candidate(s) {} below confidence {USE_FROM}: not used (their polygons stay untextured)",
                    unsure.join(", ")
                ),
            });
        }
        Ok(notes)
    }
}

/// Whether assets of `format` are converted on a model they do not hold: a TOD (the TMD it
/// drives) and MIMe differences (their base TMD).
pub fn needs_model(format: Format) -> bool {
    matches!(format, Format::Tod | Format::Vdf | Format::Ndf)
}

/// What an asset of `format` is when [`Assembly::missing_model`] says it has no model: "an
/// animation without a model", "MIMe differences without their base model".
pub fn without_model(format: Format) -> &'static str {
    match format {
        Format::Vdf | Format::Ndf => "MIMe differences without their base model",
        _ => "an animation without a model",
    }
}

/// A source as scan prints it: `CONTAINER@OFFSET`, or the container alone at offset 0.
fn shown(s: &Source) -> String {
    match s.offset {
        0 => s.container.clone(),
        o => format!("{}@{o}", s.container),
    }
}
