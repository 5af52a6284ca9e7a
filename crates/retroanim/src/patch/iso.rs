//! Edits to an ISO 9660 volume (layout in `scan/iso.rs`), kept as whole 2048-byte sectors of the
//! user-data view until the image is written.
//!
//! | what is updated | where | source |
//! |---|---|---|
//! | a file's extent | its directory record +2 (LE) and +6 (BE), in every tree (primary, Joliet…) that points at it | ECMA-119 §9.1.3 |
//! | a file's size | record +10 (LE) and +14 (BE) | §9.1.4 |
//! | the volume space size | every primary and supplementary descriptor +80 (LE) and +84 (BE) | §8.4.8 |
//!
//! Readings taken: a grown file keeps its extent when its sectors still hold it; otherwise it
//! moves to the first sector after everything the volume lists (descriptors, path tables,
//! directories, files, the El Torito catalog), inside the data track when it has room there,
//! else appended when the track may grow. Gaps between listed extents are not used: Rock Ridge
//! continuation areas and other structures that ISO 9660 does not list may lie there. The old
//! extent is left as it was.

use std::collections::BTreeMap;

use crate::bytes::{Be, ByteOrder, Le};
use crate::error::{Error, Result};
use crate::scan::iso::{self, IsoFile, Tree, SECTOR};
use crate::scan::source::Source;

/// One edited sector of the 2048-byte view.
#[derive(Debug, Clone)]
pub struct Edited {
    /// Its new user data.
    pub data: Box<[u8; SECTOR as usize]>,
    /// `Some`: a sector written anew (raw images: new header and this Mode 2 subheader, or
    /// Mode 1 on a Mode 1 track); `None`: the sector's own header and subheader are kept.
    pub fresh: Option<[u8; 4]>,
}

/// Edited sectors by index in the view.
#[derive(Debug, Default)]
pub struct Sectors {
    /// The sectors.
    pub map: BTreeMap<u64, Edited>,
}

impl Sectors {
    /// Writes `bytes` at byte `at` of the view (sectors past its end start as zeros).
    pub fn write(&mut self, view: &dyn Source, at: u64, bytes: &[u8]) -> Result<()> {
        let mut done = 0usize;
        while done < bytes.len() {
            let pos = at + done as u64;
            let (lba, within) = (pos / SECTOR, (pos % SECTOR) as usize);
            let e = match self.map.entry(lba) {
                std::collections::btree_map::Entry::Occupied(o) => o.into_mut(),
                std::collections::btree_map::Entry::Vacant(v) => {
                    let mut data = Box::new([0u8; SECTOR as usize]);
                    if (lba + 1) * SECTOR <= view.len() {
                        view.read_at(lba * SECTOR, &mut data[..])?;
                    }
                    v.insert(Edited { data, fresh: None })
                }
            };
            let n = (SECTOR as usize - within).min(bytes.len() - done);
            e.data[within..within + n].copy_from_slice(&bytes[done..done + n]);
            done += n;
        }
        Ok(())
    }

    /// Marks sectors `from..to` as written anew with the subheaders `sub(i)` gives.
    fn fresh(&mut self, from: u64, to: u64, sub: &dyn Fn(u64) -> [u8; 4]) {
        for (k, lba) in (from..to).enumerate() {
            let e = self.map.entry(lba).or_insert_with(|| Edited {
                data: Box::new([0; SECTOR as usize]),
                fresh: None,
            });
            e.fresh = Some(sub(k as u64));
        }
    }
}

/// What the volume lists.
#[derive(Debug)]
pub struct Volume {
    /// Primary and supplementary descriptors' byte offsets.
    pub descriptors: Vec<u64>,
    /// Their directory trees.
    pub trees: Vec<Tree>,
    /// Volume space size (sectors) of the primary descriptor.
    pub space: u64,
    /// The first sector after everything listed.
    pub used_end: u64,
}

/// The `u32` at `at` of the volume descriptor `d` read from byte `from` of the image.
fn field<E: ByteOrder>(d: &[u8], at: usize, from: u64) -> Result<u64> {
    E::u32_at(d, at)
        .map(u64::from)
        .ok_or_else(|| Error::Container {
            container: "ISO 9660",
            offset: from + at as u64,
            what: format!("the volume descriptor ends at byte {}", d.len()),
        })
}

/// `v` as an ISO 9660 both-byte-order field: little-endian, then big-endian.
fn both_orders(v: u32) -> [u8; 8] {
    let mut b = [0u8; 8];
    Le::put_u32(&mut b, 0, v);
    Be::put_u32(&mut b, 4, v);
    b
}

/// Reads what the volume in `view` lists.
pub fn volume(view: &dyn Source) -> Result<Volume> {
    let mut v = Volume {
        descriptors: Vec::new(),
        trees: Vec::new(),
        space: 0,
        used_end: 17,
    };
    let mut d = vec![0u8; SECTOR as usize];
    let mut end = |at: u64, bytes: u64| v.used_end = v.used_end.max(at + bytes.div_ceil(SECTOR));
    for (at, kind) in iso::descriptors(view)? {
        end(at / SECTOR, SECTOR);
        view.read_at(at, &mut d)?;
        match kind {
            0 if &d[7..30] == b"EL TORITO SPECIFICATION" => end(field::<Le>(&d, 71, at)?, SECTOR),
            1 | 2 => {
                if kind == 1 && v.space == 0 {
                    v.space = field::<Le>(&d, 80, at)?;
                }
                let table = field::<Le>(&d, 132, at)?;
                let paths = [
                    field::<Le>(&d, 140, at)?,
                    field::<Le>(&d, 144, at)?,
                    field::<Be>(&d, 148, at)?,
                    field::<Be>(&d, 152, at)?,
                ];
                for loc in paths {
                    if loc != 0 {
                        end(loc, table);
                    }
                }
                let tree = iso::tree(view, at)?;
                for &(o, n) in &tree.dirs {
                    end(o / SECTOR, n);
                }
                for f in &tree.files {
                    if f.size > 0 {
                        end(f.offset / SECTOR, f.size);
                    }
                }
                v.descriptors.push(at);
                v.trees.push(tree);
            }
            _ => {}
        }
    }
    Ok(v)
}

/// Sets the extent and size of every file record that points at `file`'s extent.
fn set_record(
    vol: &Volume,
    view: &dyn Source,
    s: &mut Sectors,
    file: &IsoFile,
    extent: u64,
    size: u64,
) -> Result<()> {
    let fields = [both_orders(extent as u32), both_orders(size as u32)].concat();
    for t in &vol.trees {
        for f in t
            .files
            .iter()
            .filter(|f| f.offset == file.offset && f.size > 0)
        {
            s.write(view, f.record + 2, &fields)?;
        }
    }
    Ok(())
}

/// How a whole file was put back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Placed {
    /// In its own sectors.
    InPlace,
    /// Moved to this sector; `appended` sectors were added after the track's end.
    Moved {
        /// The new extent.
        extent: u64,
        /// Sectors added past the end of the track.
        appended: u64,
    },
}

/// Puts `new` in place of the whole file `file`: in its own sectors when they hold it, else at
/// the end of what the volume lists (`track` sectors are the room the track has; `grow`: the
/// image may get more). `sub(k)` is the subheader of the k-th sector of the moved file.
#[allow(clippy::too_many_arguments)]
pub fn put_file(
    vol: &mut Volume,
    view: &dyn Source,
    s: &mut Sectors,
    file: &IsoFile,
    new: &[u8],
    track: u64,
    grow: bool,
    sub: &dyn Fn(u64, u64) -> [u8; 4],
) -> Result<Placed> {
    let size = u32::try_from(new.len()).map_err(|_| Error::Parameter {
        what: format!(
            "{}: {} bytes do not fit an ISO 9660 file (at most 4 GiB − 1)",
            file.path,
            new.len()
        ),
    })? as u64;
    if file.flags & 0x80 != 0 {
        return Err(Error::Parameter {
            what: format!(
                "{}: a multi-extent file cannot grow; give a replacement of at most {} bytes",
                file.path, file.size
            ),
        });
    }
    let (old_sec, new_sec) = (file.size.div_ceil(SECTOR), size.div_ceil(SECTOR));
    let extent = file.offset / SECTOR;
    if new_sec <= old_sec {
        let mut padded = new.to_vec();
        padded.resize(size.max(file.size) as usize, 0);
        s.write(view, file.offset, &padded)?;
        if size != file.size {
            set_record(vol, view, s, file, extent, size)?;
        }
        return Ok(Placed::InPlace);
    }
    let at = vol.used_end;
    let end = at + new_sec;
    if end > u32::MAX as u64 {
        return Err(Error::Parameter {
            what: format!(
                "{}: the volume's last used sector {at} leaves no room for {new_sec} more sectors",
                file.path
            ),
        });
    }
    if end > track && !grow {
        let missing = (end - track) * SECTOR;
        return Err(Error::Parameter {
            what: format!(
                "{}: {} bytes do not fit: the file must move past the volume's last used sector {at}, and the data track ends at sector {track} with another track after it; {missing} bytes are missing",
                file.path, size
            ),
        });
    }
    let mut data = new.to_vec();
    data.resize((new_sec * SECTOR) as usize, 0);
    s.write(view, at * SECTOR, &data)?;
    s.fresh(at, end, &|k| sub(k, new_sec));
    set_record(vol, view, s, file, at, size)?;
    vol.used_end = end;
    if end > vol.space {
        let fields = both_orders(end as u32);
        for &d in &vol.descriptors {
            s.write(view, d + 80, &fields)?;
        }
        vol.space = end;
    }
    Ok(Placed::Moved {
        extent: at,
        appended: end.saturating_sub(track),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scan::iso::tests::{image, record};
    use crate::scan::MemSource;

    #[test]
    fn a_file_grows_in_place_then_moves() {
        let mut img = image(&[record(b"A.TIM;1", 20, 100, false, None)]);
        img[16 * 2048 + 80..16 * 2048 + 84].copy_from_slice(&24u32.to_le_bytes());
        let view = MemSource(img.into());
        let mut vol = volume(&view).unwrap();
        assert_eq!((vol.space, vol.used_end), (24, 21));
        let file = vol.trees[0].files[0].clone();
        let mut s = Sectors::default();
        let sub = |_: u64, _: u64| [0, 0, 8, 0];
        let p = put_file(&mut vol, &view, &mut s, &file, &[7; 2000], 24, false, &sub).unwrap();
        assert_eq!(p, Placed::InPlace);
        let p = put_file(&mut vol, &view, &mut s, &file, &[7; 5000], 24, false, &sub).unwrap();
        assert_eq!(
            p,
            Placed::Moved {
                extent: 21,
                appended: 0
            }
        );
        let e = put_file(&mut vol, &view, &mut s, &file, &[7; 9000], 24, false, &sub).unwrap_err();
        assert!(e.to_string().contains("bytes are missing"), "{e}");
        let p = put_file(&mut vol, &view, &mut s, &file, &[7; 9000], 24, true, &sub).unwrap();
        assert_eq!(
            p,
            Placed::Moved {
                extent: 24,
                appended: 5
            }
        );
        assert_eq!(vol.space, 29);
        let rec = &s.map[&18].data[..];
        assert_eq!(Le::u32_at(rec, 2), Some(24));
        assert_eq!(Be::u32_at(rec, 6), Some(24));
        assert_eq!(Le::u32_at(rec, 10), Some(9000));
        assert!(s.map[&25].fresh.is_some());
    }
}
