//! RSD sets in the conversion table: RSD → TMD (`rsdlink`), → glTF (through the TMD and its
//! TIMs), → JSON, → RSD (rewritten under the output's name); TMD and glTF → RSD.
//!
//! An RSD set is several files, so its conversions take the set ([`crate::formats::rsd::read_set`]
//! reads one through a loader) and give the output's other files as [`Extra`]s: `out.rsd` comes
//! with `out.ply`, `out.mat` (and `out.grp`); a TMD of several objects gives `out.rsd`,
//! `out_1.rsd`, … each with its own PLY and MAT.

use super::{coded, done_notes, no_such, psx_options, Conversion, Extra, OptionName, Options};
use crate::formats::rsd::{self, Key, RsdSet};
use crate::formats::tmd::Tmd;
use crate::formats::{tim, tmd};
use crate::report::Note;
use crate::{Error, Format, Result};

/// The stem the RSD names its files after: `--name`, else `model`.
fn stem(opts: &Options) -> String {
    opts.name.clone().unwrap_or_else(|| "model".into())
}

/// Converts an RSD set to `target` (TMD, glTF, GLB, JSON or RSD).
pub fn convert_set(set: &RsdSet, target: Format, opts: &Options) -> Result<Conversion> {
    use OptionName as O;
    match target {
        Format::Tmd => {
            opts.check(Format::Rsd, target, &[])?;
            let linked = rsd::to_tmd(set)?;
            Ok(done_notes(tmd::write(&linked.tmd)?, target, linked.notes))
        }
        Format::Gltf | Format::Glb => {
            opts.check(Format::Rsd, target, &[O::Axes, O::Scale, O::Tim])?;
            let linked = rsd::to_tmd(set)?;
            let mut p = psx_options(opts);
            p.tims.extend(set.tims.iter().flatten().cloned());
            let (scene, noted) = crate::formats::tmd::scene::tmd_scene_noted(&linked.tmd, &p)?;
            let mut notes = linked.notes;
            notes.extend(coded(noted));
            if let Some(g) = &set.grp {
                if !g.groups.is_empty() {
                    notes.push(Note {
                        code: "groups-dropped",
                        message: format!(
                            "{} GRP group name(s) left out of the glTF (the mesh is one primitive per material)",
                            g.groups.len()
                        ),
                    });
                }
            }
            Ok(done_notes(
                crate::export::gltf::write(&scene, target)?,
                target,
                notes,
            ))
        }
        Format::Json => {
            opts.check(Format::Rsd, target, &[])?;
            let mut s = serde_json::to_string_pretty(set).map_err(|e| Error::Unencodable {
                format: Format::Json,
                what: e.to_string(),
            })?;
            s.push('\n');
            Ok(done_notes(s.into_bytes(), target, Vec::new()))
        }
        Format::Rsd => {
            opts.check(Format::Rsd, target, &[])?;
            let mut set = set.clone();
            if opts.name.is_some() {
                rename(&mut set, &stem(opts));
            }
            set_files(&set, "", Vec::new())
        }
        _ => Err(no_such(Format::Rsd, target)),
    }
}

/// Points the RSD's PLY / MAT / GRP entries at `stem.ply` etc. (the other files keep their
/// names).
fn rename(set: &mut RsdSet, stem: &str) {
    for e in &mut set.rsd.entries {
        let ext = match e.key {
            Key::Ply => "ply",
            Key::Mat => "mat",
            Key::Grp => "grp",
            _ => continue,
        };
        e.value = format!("{stem}.{ext}");
    }
}

/// One set as a conversion: the RSD's bytes (or, for `suffix` non-empty, an extra
/// `suffix.rsd`) and its parts as extras `suffix.ply` … named as the RSD names them.
fn set_files(set: &RsdSet, suffix: &str, notes: Vec<Note>) -> Result<Conversion> {
    let files = rsd::write_set(set)?;
    let mut out = Conversion {
        bytes: Vec::new(),
        format: Format::Rsd,
        notes,
        extra: Vec::new(),
    };
    for f in files {
        if f.name.is_empty() {
            if suffix.is_empty() {
                out.bytes = f.bytes;
            } else {
                out.extra.push(Extra {
                    suffix: format!("{suffix}.rsd"),
                    format: Format::Rsd,
                    bytes: f.bytes,
                });
            }
        } else {
            // The part goes where the RSD says: beside it, under its own name's extension.
            let ext = f
                .name
                .rsplit_once('.')
                .map_or(String::new(), |(_, e)| format!(".{e}"));
            out.extra.push(Extra {
                suffix: format!("{suffix}{ext}"),
                format: Format::Rsd,
                bytes: f.bytes,
            });
        }
    }
    Ok(out)
}

/// TMD → RSD: one set per object (see [`crate::formats::rsd::from_tmd`]); `tims` are the
/// textures' files (name, TIM), when known.
pub fn tmd_to_rsd(t: &Tmd, opts: &Options, tims: &[(String, tim::Tim)]) -> Result<Conversion> {
    opts.check(Format::Tmd, Format::Rsd, &[])?;
    let stem = stem(opts);
    let unlinked = rsd::from_tmd(t, &stem, tims)?;
    let mut out: Option<Conversion> = None;
    for (k, set) in unlinked.sets.iter().enumerate() {
        let suffix = if k == 0 {
            String::new()
        } else {
            format!("_{k}")
        };
        let c = set_files(set, &suffix, Vec::new())?;
        match &mut out {
            None => out = Some(c),
            Some(o) => {
                o.extra.extend(c.extra);
            }
        }
    }
    let mut out = out.unwrap_or(Conversion {
        bytes: Vec::new(),
        format: Format::Rsd,
        notes: Vec::new(),
        extra: Vec::new(),
    });
    if out.bytes.is_empty() {
        return Err(Error::Conversion {
            from: Format::Tmd,
            to: Format::Rsd,
            why: "the TMD has no object".into(),
        });
    }
    out.notes = unlinked.notes;
    Ok(out)
}

/// glTF → RSD: authored as a TMD with its TIMs (see [`super::author`]), then split.
pub(super) fn gltf_to_rsd(data: &[u8], from: Format, opts: &Options) -> Result<Conversion> {
    let authored = super::author::gltf_to_psx(data, from, Format::Tmd, opts)?;
    let t = tmd::read(&authored.bytes)?;
    let stem = stem(opts);
    let mut tims = Vec::new();
    for e in &authored.extra {
        if e.format == Format::Tim {
            tims.push((format!("{stem}{}", e.suffix), tim::read(&e.bytes)?));
        }
    }
    let mut out = tmd_to_rsd(
        &t,
        &Options {
            name: Some(stem),
            ..Options::default()
        },
        &tims,
    )?;
    let mut notes = authored.notes;
    notes.extend(out.notes);
    out.notes = notes;
    out.extra.extend(
        authored
            .extra
            .into_iter()
            .filter(|e| e.format == Format::Tim),
    );
    Ok(out)
}
