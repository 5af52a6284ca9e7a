//! An RSD set from files: the RSD, the PLY / MAT / GRP it names and its TIMs, found through a
//! [`Loader`] (case-insensitive, as rsdlink retries names in upper and lower case).

use super::types::*;
use super::{read_grp, read_mat, read_ply, read_rsd, write_grp, write_mat, write_ply, write_rsd};
use crate::input::Loader;
use crate::{Error, Result};

/// Largest file of a set read, in bytes.
const MAX_FILE: u64 = 64 << 20;

/// The folder part of a `/`-separated path (`""` for a bare name).
fn folder(path: &str) -> &str {
    path.rfind(['/', '\\']).map_or("", |i| &path[..i])
}

/// Finds `name` (relative to `dir`, `/` or `\` separated) component by component,
/// case-insensitively. Returns the path as the loader spells it.
pub(crate) fn resolve(loader: &dyn Loader, dir: &str, name: &str) -> Result<Option<String>> {
    let mut at = dir.to_string();
    let absolute = name.starts_with(['/', '\\']);
    if absolute {
        at = String::new();
    }
    let parts: Vec<&str> = name
        .split(['/', '\\'])
        .filter(|p| !p.is_empty() && *p != ".")
        .collect();
    for (i, part) in parts.iter().enumerate() {
        let join = |a: &str, b: &str| {
            if a.is_empty() {
                if absolute && i == 0 {
                    format!("/{b}")
                } else {
                    b.to_string()
                }
            } else {
                format!("{}/{b}", a.trim_end_matches('/'))
            }
        };
        if *part == ".." {
            at = join(&at, "..");
            continue;
        }
        let listed = loader.list(if at.is_empty() && absolute { "/" } else { &at })?;
        let found = listed
            .iter()
            .find(|e| e.as_str() == *part)
            .or_else(|| listed.iter().find(|e| e.eq_ignore_ascii_case(part)));
        match found {
            Some(e) => at = join(&at, e),
            None => return Ok(None),
        }
    }
    Ok(Some(at))
}

fn load(loader: &dyn Loader, path: &str) -> Result<Vec<u8>> {
    loader.read(path, MAX_FILE)?.ok_or_else(|| {
        Error::Io(std::io::Error::new(
            std::io::ErrorKind::NotFound,
            path.to_string(),
        ))
    })
}

/// Reads the RSD at `path` and the PLY, MAT, GRP and TIM files it names (beside it; TIMs also
/// in `../TIM`). A file that is named but not found is listed in [`RsdSet::missing`] (validate
/// reports it); a file that is found but malformed is an error naming its line and column.
pub fn read_set(path: &str, loader: &dyn Loader) -> Result<RsdSet> {
    let data = load(loader, path)?;
    let rsd = read_rsd(path, &data)?;
    let dir = folder(path);
    let mut set = RsdSet {
        rsd,
        ..Default::default()
    };
    let find = |name: &str, set: &mut RsdSet, key: &Key| -> Result<Option<(String, Vec<u8>)>> {
        match resolve(loader, dir, name)? {
            Some(p) => {
                let d = load(loader, &p)?;
                Ok(Some((p, d)))
            }
            None => {
                set.missing.push(format!("{}={name}", key.spelling()));
                Ok(None)
            }
        }
    };
    let entries = set.rsd.entries.clone();
    for e in &entries {
        match e.key {
            Key::Ply if set.ply.is_none() => {
                if let Some((p, d)) = find(&e.value, &mut set, &e.key)? {
                    set.ply = Some(read_ply(&p, &d)?);
                }
            }
            Key::Mat if set.mat.is_none() => {
                if let Some((p, d)) = find(&e.value, &mut set, &e.key)? {
                    set.mat = Some(read_mat(&p, &d)?);
                }
            }
            Key::Grp if set.grp.is_none() => {
                if let Some((p, d)) = find(&e.value, &mut set, &e.key)? {
                    set.grp = Some(read_grp(&p, &d)?);
                }
            }
            _ => {}
        }
    }
    let names: Vec<Option<String>> = set
        .rsd
        .textures()
        .iter()
        .map(|t| t.map(str::to_string))
        .collect();
    for (n, name) in names.iter().enumerate() {
        let mut tim = None;
        if let Some(name) = name {
            let tim_dir = if dir.is_empty() {
                "../TIM".to_string()
            } else {
                format!("{dir}/../TIM")
            };
            let found = match resolve(loader, dir, name)? {
                Some(p) => Some(p),
                None => resolve(loader, &tim_dir, name)?,
            };
            match found {
                Some(p) => {
                    let d = load(loader, &p)?;
                    tim = Some(crate::formats::tim::read(&d).map_err(|e| Error::Malformed {
                        format: crate::Format::Rsd,
                        offset: 0,
                        what: format!("{p} (TEX[{n}]): {e}"),
                    })?);
                }
                None => set.missing.push(format!("TEX[{n}]={name}")),
            }
        }
        set.tims.push(tim);
    }
    Ok(set)
}

/// One file of a written set: the name the RSD gives it and its bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SetFile {
    /// The name as the RSD's `PLY=` / `MAT=` / `GRP=` gives it (the RSD itself: `""`).
    pub name: String,
    /// The file's bytes.
    pub bytes: Vec<u8>,
}

/// Writes a set: the RSD first (name `""`), then each of PLY, MAT, GRP the set holds, named as
/// the RSD names them (a part the RSD names no file for is an error: it could not be found).
pub fn write_set(set: &RsdSet) -> Result<Vec<SetFile>> {
    let mut out = vec![SetFile {
        name: String::new(),
        bytes: write_rsd(&set.rsd)?,
    }];
    let named = |key: Key| -> Result<String> {
        set.rsd
            .get(&key)
            .map(str::to_string)
            .ok_or_else(|| Error::Unencodable {
                format: crate::Format::Rsd,
                what: format!(
                    "the set holds a {} file the RSD names no file for",
                    key.spelling()
                ),
            })
    };
    if let Some(p) = &set.ply {
        out.push(SetFile {
            name: named(Key::Ply)?,
            bytes: write_ply(p)?,
        });
    }
    if let Some(m) = &set.mat {
        out.push(SetFile {
            name: named(Key::Mat)?,
            bytes: write_mat(m)?,
        });
    }
    if let Some(g) = &set.grp {
        out.push(SetFile {
            name: named(Key::Grp)?,
            bytes: write_grp(g)?,
        });
    }
    Ok(out)
}
