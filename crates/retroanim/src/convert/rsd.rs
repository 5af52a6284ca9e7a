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
            let (tmd, names) = grouped(set, &linked);
            let mut p = psx_options(opts);
            p.tims.extend(set.tims.iter().flatten().cloned());
            let (mut scene, noted) = crate::formats::tmd::scene::tmd_scene_noted(&tmd, &p)?;
            // Groups as nodes: object k is group k; its mesh and node take the group's name.
            for (m, mesh) in scene.meshes.iter_mut().enumerate() {
                let k = crate::scene::extras::get_u64(&mesh.extras, "tmd", "object");
                if let Some(name) = k.and_then(|k| names.get(k as usize)) {
                    mesh.name = name.clone();
                    for n in scene.nodes.iter_mut().filter(|n| n.mesh == Some(m)) {
                        n.name = name.clone();
                    }
                }
            }
            let mut notes = linked.notes;
            notes.extend(coded(noted));
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

/// The linked TMD split by GRP group: object k holds the packets of the polygons of group k
/// (the first group naming a polygon has it; polygons in no group go to a last object
/// `ungrouped`), each object with the whole vertex and normal lists. Without groups, the TMD
/// as linked, its one object named after the RSD's PLY.
fn grouped(set: &RsdSet, linked: &rsd::Linked) -> (Tmd, Vec<String>) {
    let plain = || {
        let name = set.rsd.get(&Key::Ply).unwrap_or("rsd").to_string();
        (linked.tmd.clone(), vec![name])
    };
    let (Some(g), Some(o)) = (&set.grp, linked.tmd.objects.first()) else {
        return plain();
    };
    if g.groups.is_empty() {
        return plain();
    }
    let np = set.ply.as_ref().map_or(0, |p| p.polygons.len());
    let claims = g.groups.iter().enumerate().flat_map(|(k, grp)| {
        grp.lines
            .iter()
            .flat_map(move |l| l.0.iter().map(move |&r| (r, k)))
    });
    let owner: Vec<usize> = rsd::first_claims(np, claims)
        .into_iter()
        .map(|k| k.unwrap_or(g.groups.len()))
        .collect();
    let mut names: Vec<String> = g.groups.iter().map(|x| x.name.clone()).collect();
    names.push("ungrouped".into());
    let mut objects: Vec<tmd::Object> = names
        .iter()
        .map(|_| tmd::Object {
            primitives: Vec::new(),
            ..o.clone()
        })
        .collect();
    for (p, &poly) in o.primitives.iter().zip(&linked.polygons) {
        objects[owner[poly]].primitives.push(p.clone());
    }
    let keep: Vec<bool> = objects.iter().map(|o| !o.primitives.is_empty()).collect();
    let names = names
        .into_iter()
        .zip(&keep)
        .filter_map(|(n, k)| k.then_some(n))
        .collect();
    objects.retain(|o| !o.primitives.is_empty());
    let mut t = Tmd {
        objects,
        ..linked.tmd.clone()
    };
    t.pack();
    (t, names)
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
