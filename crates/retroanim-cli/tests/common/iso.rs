//! ISO 9660 images built from the ECMA-119 record layout, for crafted-input tests.

pub const SECTOR: usize = 2048;

/// An ISO 9660 directory record (ECMA-119 §9.1).
pub fn record(name: &[u8], extent: u32, size: u32, dir: bool) -> Vec<u8> {
    let mut r = vec![0u8; 33];
    r[2..6].copy_from_slice(&extent.to_le_bytes());
    r[6..10].copy_from_slice(&extent.to_be_bytes());
    r[10..14].copy_from_slice(&size.to_le_bytes());
    r[14..18].copy_from_slice(&size.to_be_bytes());
    r[25] = if dir { 2 } else { 0 };
    r[32] = name.len() as u8;
    r.extend_from_slice(name);
    if name.len() % 2 == 0 {
        r.push(0);
    }
    r[0] = r.len() as u8;
    r
}

/// Packs records into directory sectors (a record never crosses a sector).
pub fn dir_sectors(records: &[Vec<u8>]) -> Vec<u8> {
    let mut out = vec![0u8; SECTOR];
    let mut at = 0;
    for r in records {
        if at + r.len() > out.len() {
            at = out.len();
            out.resize(out.len() + SECTOR, 0);
        }
        out[at..at + r.len()].copy_from_slice(r);
        at += r.len();
    }
    out
}

/// An image: PVD at sector 16, terminator at 17, the root directory from 18 holding `root`
/// (extents in `root` count from `data_at`, returned), then `data` from sector `data_at`.
pub fn iso(root: impl Fn(u32) -> Vec<Vec<u8>>, data: &[u8]) -> Vec<u8> {
    // The root's size depends only on the records' lengths, not their extents.
    let root_len = dir_sectors(&root(0)).len();
    let data_at = 18 + (root_len / SECTOR) as u32;
    let root_bytes = dir_sectors(&root(data_at));
    let mut img = vec![0u8; data_at as usize * SECTOR];
    let pvd = 16 * SECTOR;
    img[pvd] = 1;
    img[pvd + 1..pvd + 6].copy_from_slice(b"CD001");
    img[pvd + 128..pvd + 130].copy_from_slice(&2048u16.to_le_bytes());
    let r = record(&[0], 18, root_bytes.len() as u32, true);
    img[pvd + 156..pvd + 156 + r.len()].copy_from_slice(&r);
    img[17 * SECTOR] = 255;
    img[17 * SECTOR + 1..17 * SECTOR + 6].copy_from_slice(b"CD001");
    img[18 * SECTOR..18 * SECTOR + root_bytes.len()].copy_from_slice(&root_bytes);
    img.extend_from_slice(data);
    img.resize(img.len().div_ceil(SECTOR) * SECTOR, 0);
    img
}
