//! The browsable report of a scan (`retroanim scan PATH... --report DIR`).
//!
//! [`write_report`] turns a [`scan::Report`](crate::scan::Report) into a folder a browser opens
//! from `file://`, offline:
//!
//! | file | what |
//! |---|---|
//! | `index.html` | one card per asset, filters by kind, a search box; its data inside it ([`html`]) |
//! | `index.json` | the same data for other tools ([`index::Index`]) |
//! | `files/ID.FMT` | each asset's bytes as found |
//! | `glb/ID.glb` | models, and animations without a model, as glTF binary ([`crate::convert`]) |
//! | `glb/ID.gltf`, `glb/ID.bin` | an animation on its model: glTF whose model part (meshes, materials, textures) is a shared `glb/MODEL.model.bin`, written once for every animation of that model (`shared::gltf`) |
//! | `png/ID.png` | textures as PNG (the TIM's first CLUT row; 0x0000 transparent) |
//! | `preview/ID.png` | models and animations drawn as the console draws them, with their matched TIMs and (TODs) their model; animated PNGs for animations ([`preview`]) |
//!
//! `ID` is the asset's [`index::Asset::id`]: the last part of its container and its offset,
//! made safe and unique ([`names`]). Paths in `index.json` are relative to the folder, except
//! each asset's `source.path`, which is the file scanned.
//!
//! Assets are read again and converted in parallel (rayon), one at a time per worker, so memory
//! stays that of a few assets whatever the disc holds. A conversion that fails is a warning on
//! its card and a counted note, never a silent gap. Files are written atomically (a temporary
//! file in the same folder, then a rename), and a file that is one of the scanned inputs is
//! never replaced.
//!
//! Pairings come from [`crate::assemble`]: a model's or HMD's `textures` (the TIMs covering the
//! texels its polygons sample, with confidence and alternatives), an animation's `model` (used
//! from confidence 0.5, else its candidates are only listed in `alternatives`). GLBs are made
//! with them: a TMD or HMD with its matched TIMs, a TOD with its model and that model's TIMs.
//!
//! MIMe differences (VDF, NDF) are shown on the base TMD the assembly pairs them with: the
//! picture steps through the keys, the GLB is that TMD with one morph target per key (and the
//! NDF of a VDF, the VDF of an NDF, that goes with it: [`index::Asset::partner`]).
//!
//! A card without a picture says why (`no_preview`): a TOD or difference file without a model
//! paired with confidence 0.5 or more (which gets no GLB either: it would hold no mesh), a
//! file that cannot be read again or drawn.

pub mod html;
pub mod index;
pub mod names;
pub mod pairs;
pub mod preview;
mod shared;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::scan::{Find, Report};
use crate::{Format, Limits, Model};
use index::{Asset, Index, Inside, SourceRef, Unread, INDEX_VERSION};

/// How a card's warning starts when its animation (difference file) has no model to make a
/// GLB with: this, then [`crate::assemble::without_model`].
const NO_MODEL: &str = "no GLB: ";

/// Most warnings listed on one card (the rest are counted).
pub const MAX_WARNINGS: usize = 20;

/// How the report is made.
#[derive(Debug, Clone)]
pub struct Options {
    /// Write a GLB per model and animation (default on).
    pub glb: bool,
    /// Limits for reading the assets again and converting them.
    pub limits: Limits,
    /// Replace files already in the report's folder (`--force`). Without it the folder must be
    /// new or empty: a report never replaces a file it did not write in this run.
    pub force: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            glb: true,
            limits: crate::scan::ScanOptions::default().limits,
            force: false,
        }
    }
}

/// What [`write_report`] wrote.
#[derive(Debug, Clone)]
pub struct Written {
    /// `index.json`'s content.
    pub index: Index,
    /// Number of files written (pages included).
    pub files: usize,
}

/// Writes the report of `report` (a scan of `inputs`) into `dir`, creating it if needed.
pub fn write_report(
    report: &Report,
    inputs: &[PathBuf],
    dir: &Path,
    opts: &Options,
) -> Result<Written> {
    let out = Out::new(dir, report, opts.force)?;
    for sub in ["", "files", "glb", "png", "preview"] {
        std::fs::create_dir_all(dir.join(sub))?;
    }
    let mut names = names::Names::default();
    let stems: Vec<String> = report
        .finds
        .iter()
        .map(|f| names.stem(&f.container, f.offset))
        .collect();
    let assembly = crate::assemble::from_finds(&report.finds);
    let shared = shared::Shared::default();
    let ids: pairs::Ids = report
        .finds
        .iter()
        .zip(&stems)
        .map(|(f, id)| ((f.container.clone(), f.offset), id.clone()))
        .collect();
    let results: Vec<Result<Asset>> = report
        .finds
        .par_iter()
        .zip(stems.into_par_iter())
        .zip(assembly.assets.par_iter())
        .map(|((f, id), a)| {
            let paired = Paired {
                assembly: &assembly,
                asset: a,
                ids: &ids,
                shared: &shared,
            };
            card(f, id, &paired, &out, opts)
        })
        .collect();
    let assets = results.into_iter().collect::<Result<Vec<Asset>>>()?;
    let index = Index {
        version: INDEX_VERSION,
        generator: format!("retroanim {}", env!("CARGO_PKG_VERSION")),
        inputs: inputs.iter().map(|p| p.display().to_string()).collect(),
        notes: assembly
            .notes
            .iter()
            .map(|n| n.message.clone())
            .chain(notes(&assets))
            .chain((shared.saved() > 0).then(|| {
                format!(
                    "{} bytes of identical files written once and shared by their cards",
                    shared.saved()
                )
            }))
            .collect(),
        assets,
        skipped: report
            .skipped
            .iter()
            .map(|s| Unread {
                container: s.container.clone(),
                reason: format!("{} ({} bytes)", s.reason, s.size),
            })
            .collect(),
        errors: report
            .errors
            .iter()
            .map(|e| Unread {
                container: e.container.clone(),
                reason: e.error.to_string(),
            })
            .collect(),
    };
    let json = serde_json::to_vec_pretty(&index).map_err(|e| Error::Parameter {
        what: format!("cannot write index.json: {e}"),
    })?;
    out.write("index.json", &json)?;
    out.write("index.html", html::page(&index)?.as_bytes())?;
    Ok(Written {
        index,
        files: out.count.load(Ordering::Relaxed) as usize,
    })
}

/// Counts of what the cards lack, as notes.
fn notes(assets: &[Asset]) -> Vec<String> {
    let mut no_preview: BTreeMap<&str, usize> = BTreeMap::new();
    let mut failed: BTreeMap<&str, usize> = BTreeMap::new();
    let mut no_model: BTreeMap<&str, usize> = BTreeMap::new();
    for a in assets {
        if a.preview.is_none() {
            *no_preview.entry(&a.format).or_default() += 1;
        }
        let without = Format::from_name(&a.format).map(crate::assemble::without_model);
        if without.is_some_and(|x| {
            a.warnings
                .iter()
                .any(|w| w.strip_prefix(NO_MODEL).is_some_and(|w| w.starts_with(x)))
        }) {
            *no_model.entry(&a.format).or_default() += 1;
        } else if a
            .warnings
            .iter()
            .any(|w| w.starts_with("no GLB") || w.starts_with("no PNG"))
        {
            *failed.entry(&a.format).or_default() += 1;
        }
    }
    let mut out = Vec::new();
    for (f, n) in no_preview {
        out.push(format!("{n} {f} assets have no preview"));
    }
    for (f, n) in no_model {
        let what = match Format::from_name(f) {
            Some(Format::Vdf | Format::Ndf) => "MIMe differences without their base model",
            _ => "animations without a model",
        };
        out.push(format!(
            "{n} {f} assets: {what}, so without a GLB (see their cards)"
        ));
    }
    for (f, n) in failed {
        out.push(format!(
            "{n} {f} assets failed to convert (see their cards)"
        ));
    }
    out
}

/// The report's folder and the run's output plan (the scanned files are its inputs).
struct Out {
    dir: PathBuf,
    plan: crate::output::Outputs,
    count: AtomicU64,
}

impl Out {
    /// Without `force`, refuses a folder that holds anything (before anything is written).
    fn new(dir: &Path, report: &Report, force: bool) -> Result<Out> {
        if !force {
            if let Some(first) = std::fs::read_dir(dir)
                .ok()
                .and_then(|mut entries| entries.next())
            {
                let first = first?.path();
                return Err(Error::Refused {
                    path: crate::text::escape(&dir.display().to_string()),
                    why: format!(
                        "the report's folder is not empty (it holds {}); pass --force to replace the report's files in it, or name a new folder",
                        crate::text::escape(&first.display().to_string())
                    ),
                });
            }
        }
        let plan = crate::output::Outputs::new(force);
        let mut paths: Vec<&str> = report.finds.iter().map(|f| f.path.as_str()).collect();
        paths.dedup();
        plan.inputs(paths.into_iter().map(Path::new));
        Ok(Out {
            dir: dir.to_path_buf(),
            plan,
            count: AtomicU64::new(0),
        })
    }

    /// Writes `rel` (a path with `/`, made by [`names`]) under the output rule
    /// ([`crate::output`]): atomically, never over a scanned file.
    fn write(&self, rel: &str, bytes: &[u8]) -> Result<()> {
        let path = self.dir.join(rel);
        self.plan
            .write(&path, crate::output::Role::Derived, bytes)?;
        self.count.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }
}

/// An asset's place in the assembly.
struct Paired<'a> {
    assembly: &'a crate::assemble::Assembly,
    asset: &'a crate::assemble::Asset,
    ids: &'a pairs::Ids,
    shared: &'a shared::Shared,
}

impl Paired<'_> {
    /// Writes `bytes` as `rel`, or not when an identical file of its kind was written: the
    /// path that holds them ([`shared`]).
    fn put(&self, out: &Out, rel: String, bytes: &[u8]) -> Result<String> {
        self.shared
            .put(rel, bytes, |rel, bytes| out.write(rel, bytes))
    }
}

/// One asset: read again, written, converted.
fn card(f: &Find, id: String, paired: &Paired<'_>, out: &Out, opts: &Options) -> Result<Asset> {
    let bytes = f.bytes()?;
    let file = paired.put(out, format!("files/{id}.{}", f.format.name()), &bytes)?;
    let mut asset = Asset {
        id,
        format: f.format.name().to_string(),
        source: SourceRef::of(f),
        status: match f.status {
            crate::scan::Status::Clean => "clean",
            crate::scan::Status::Warnings => "warnings",
        }
        .to_string(),
        warnings: Vec::new(),
        preview: None,
        animated: false,
        no_preview: None,
        textures: pairs::textures(paired.asset, paired.ids),
        model: None,
        alternatives: Vec::new(),
        partner: None,
        file,
        glb: None,
        png: None,
        contains: f
            .contains
            .iter()
            .map(|n| Inside {
                format: n.format.name().to_string(),
                offset: n.offset,
                size: n.size,
            })
            .collect(),
        summary: serde_json::from_str(f.summary.get()).unwrap_or(serde_json::Value::Null),
    };
    (asset.model, asset.alternatives) = pairs::model(paired.asset, paired.ids);
    asset.partner = pairs::partner(paired.asset, paired.ids);
    let readable = match &f.lenient {
        Some(_) => f.readable_bytes()?,
        None => bytes,
    };
    // An RSD names the PLY/MAT/GRP files of its set: the set is read from beside it and
    // linked into the TMD it stands for (as rsdlink does), which is drawn and exported.
    let read = if f.format == Format::Rsd {
        crate::formats::rsd::read_set(&f.path, &crate::input::FsLoader)
            .and_then(|set| crate::formats::rsd::to_tmd(&set))
            .map(|linked| Model::Tmd(linked.tmd))
    } else {
        crate::read_as(&readable, Some(f.format), &opts.limits)
    };
    let model = match read {
        Ok(m) => m,
        Err(e) => {
            asset.warnings.push(format!("cannot read it again: {e}"));
            asset.no_preview = Some("it cannot be read again".into());
            return Ok(asset);
        }
    };
    drop(readable);
    let issues = model.validate();
    for i in issues.iter().take(MAX_WARNINGS) {
        asset.warnings.push(i.to_string());
    }
    if issues.len() > MAX_WARNINGS {
        asset
            .warnings
            .push(format!("and {} more", issues.len() - MAX_WARNINGS));
    }
    convert_card(&model, &mut asset, paired, out, opts)?;
    Ok(asset)
}

/// The asset's GLB or PNG, and its preview.
fn convert_card(
    model: &Model,
    asset: &mut Asset,
    paired: &Paired<'_>,
    out: &Out,
    opts: &Options,
) -> Result<()> {
    let copts = crate::convert::Options {
        limits: opts.limits,
        name: Some(paired.asset.source.name()),
        ..Default::default()
    };
    match model.format() {
        Format::Tim => match crate::convert::convert(model, Format::Png, &copts) {
            Ok(c) => {
                let png = paired.put(out, format!("png/{}.png", asset.id), &c.bytes)?;
                asset.warnings.extend(c.notes.iter().map(|n| n.to_string()));
                asset.preview = Some(png.clone());
                asset.png = Some(png);
            }
            Err(e) => {
                asset.warnings.push(format!("no PNG: {e}"));
                asset.no_preview = Some(format!("it does not convert to PNG ({e})"));
            }
        },
        Format::Tmd
        | Format::Pmd
        | Format::Hmd
        | Format::Tod
        | Format::P3d
        | Format::Vdf
        | Format::Ndf => {
            // A PMD is drawn as the TMD its packets make.
            let pmd_tmd = match model {
                Model::Pmd(p) => match crate::formats::pmd::to_tmd(p) {
                    Ok((tmd, _)) => Some(Ok(tmd)),
                    Err(e) => Some(Err(e)),
                },
                _ => None,
            };
            let still = match (model, &pmd_tmd) {
                (Model::Tmd(tmd), _) | (_, Some(Ok(tmd))) => Some(Ok(tmd)),
                (_, Some(Err(e))) => Some(Err(e)),
                _ => None,
            };
            if let Some(Err(e)) = still {
                asset.no_preview = Some(format!("it could not be drawn ({e})"));
            } else if let Some(Ok(tmd)) = still {
                match preview::tmd_png(tmd, paired.assembly, paired.asset) {
                    Ok((png, notes)) => {
                        let path = paired.put(out, format!("preview/{}.png", asset.id), &png)?;
                        asset.preview = Some(path);
                        asset.warnings.extend(notes);
                    }
                    Err(e) => asset.no_preview = Some(format!("it could not be drawn ({e})")),
                }
            } else {
                match preview::animated_png(model, paired.assembly, paired.asset) {
                    Ok(Ok((png, pictures, notes))) => {
                        let path = paired.put(out, format!("preview/{}.png", asset.id), &png)?;
                        asset.preview = Some(path);
                        asset.animated = pictures > 1;
                        asset.warnings.extend(notes);
                    }
                    Ok(Err(reason)) => asset.no_preview = Some(reason),
                    Err(e) => asset.no_preview = Some(format!("it could not be drawn ({e})")),
                }
            }
            if opts.glb {
                glb_card(model, asset, paired, out, copts)?;
            }
        }
        Format::Rtm => {
            asset.no_preview =
                Some("an animation of bones alone, with no model to draw: see its GLB".into());
            if opts.glb {
                glb_card(model, asset, paired, out, copts)?;
            }
        }
        _ => asset.no_preview = Some("no picture for this kind".into()),
    }
    Ok(())
}

/// The asset's GLB (`glb/ID.glb`, or for a TOD on its model `glb/ID.gltf` with its model part
/// shared), converted with the options its pairing gives; a failure is a warning on the card.
fn glb_card(
    model: &Model,
    asset: &mut Asset,
    paired: &Paired<'_>,
    out: &Out,
    copts: crate::convert::Options,
) -> Result<()> {
    let copts = pairs::convert_options(paired.assembly, paired.asset, copts, &mut asset.warnings);
    let missing = paired.assembly.missing_model(paired.asset, &copts);
    let written = match (missing, model) {
        (Some(why), _) => Err(format!(
            "{} ({why})",
            crate::assemble::without_model(model.format())
        )),
        (None, Model::Tod(anim)) if copts.tod.tmd.is_some() => {
            crate::convert::tod_gltf_parts(anim, &copts)
                .map_err(|e| e.to_string())
                .map(|(parts, notes)| {
                    shared::gltf(&parts, &asset.id, |rel, bytes| paired.put(out, rel, bytes))
                        .map(|path| (path, notes))
                })
        }
        (None, _) => crate::convert::convert(model, Format::Glb, &copts)
            .map_err(|e| e.to_string())
            .map(|c| {
                paired
                    .put(out, format!("glb/{}.glb", asset.id), &c.bytes)
                    .map(|path| (path, c.notes))
            }),
    };
    match written {
        Ok(written) => {
            let (glb, notes) = written?;
            asset
                .warnings
                .extend(notes.iter().map(|n| format!("GLB: {n}")));
            asset.glb = Some(glb);
        }
        Err(e) => asset.warnings.push(format!("no GLB: {e}")),
    }
    Ok(())
}
