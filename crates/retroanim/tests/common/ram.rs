//! RAM images for the memory-dump tests: corpus TMDs relocated to absolute pointers (FIXP = 1,
//! as libgs's GsMapModelingData leaves them) and corpus HMDs mapped in place as GsMapUnit maps
//! them, at word-aligned offsets in noise; and corpus TMDs with the TIMs that texture them.

use retroanim::convert::{self, Options};
use retroanim::scan::{ram, ScanOptions};
use retroanim::vram::Vram;
use retroanim::{assemble, Format, Model};

use super::disc::noise;

/// The PlayStation's RAM: 2 MiB.
pub const RAM: usize = 2 << 20;

/// The little-endian word at byte `at`.
pub fn le(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}

/// A TMD with its block pointers turned into addresses, as if its object table sat at
/// `table` (FIXP = 1). `None` for a TMD already relocated.
pub fn relocate_tmd(file: &[u8], table: u32) -> Option<Vec<u8>> {
    if le(file, 4) & 1 != 0 {
        return None;
    }
    let mut out = file.to_vec();
    out[4..8].copy_from_slice(&1u32.to_le_bytes());
    let n = le(file, 8) as usize;
    for k in 0..n {
        for field in [0usize, 2, 4] {
            let at = 12 + 28 * k + 4 * field;
            let p = le(file, at).wrapping_add(table);
            out[at..at + 4].copy_from_slice(&p.to_le_bytes());
        }
    }
    Some(out)
}

/// The GLB `retroanim convert` makes of `bytes` read as `format`.
pub fn glb(bytes: &[u8], format: Format) -> Vec<u8> {
    let model = retroanim::read_as(bytes, Some(format), &ScanOptions::default().limits).unwrap();
    convert::convert(&model, Format::Glb, &Options::default())
        .unwrap()
        .bytes
}

/// An asset placed in a RAM image.
pub struct Placed {
    /// The corpus file's name.
    pub name: String,
    /// Its offset in the image.
    pub offset: usize,
    /// TMD or HMD.
    pub format: Format,
    /// The file as it is in the corpus.
    pub file: Vec<u8>,
}

/// The RAM image: noise, with the assets at word-aligned offsets. `base` is the address of its
/// first byte.
pub fn ram_image(base: u32) -> (Vec<u8>, Vec<Placed>) {
    let mut ram = noise(77, RAM);
    let mut placed = Vec::new();
    let mut at = 0x1_0000usize;
    let mut files: Vec<(String, Format, Vec<u8>)> = Vec::new();
    for (n, d) in super::disc::pick("TMD", 40) {
        files.push((n, Format::Tmd, d));
    }
    for (n, d) in super::disc::pick("HMD", 40) {
        files.push((n, Format::Hmd, d));
    }
    for (i, (name, format, file)) in files.into_iter().enumerate() {
        if at + file.len() + 4096 > RAM {
            continue;
        }
        let addr = base + at as u32;
        let bytes = match format {
            Format::Tmd => relocate_tmd(&file, addr + 12),
            _ => ram::map_hmd(&file, addr),
        };
        let Some(bytes) = bytes else { continue };
        ram[at..at + bytes.len()].copy_from_slice(&bytes);
        placed.push(Placed {
            name,
            offset: at,
            format,
            file,
        });
        at += bytes.len() + 64 + (i * 52) % 300;
        at = at.next_multiple_of(4);
    }
    (ram, placed)
}

/// Corpus folders' TMDs that their TIMs texture completely, with those TIMs.
pub fn textured_tmds() -> Vec<(String, Vec<u8>, Vec<Vec<u8>>)> {
    let mut out = Vec::new();
    for (_, path) in super::corpus_files("TMD") {
        let dir = path.parent().unwrap().to_path_buf();
        if out
            .iter()
            .any(|(d, _, _): &(String, _, _)| *d == dir.display().to_string())
        {
            continue;
        }
        let a = assemble::from_paths(std::slice::from_ref(&dir));
        for asset in &a.assets {
            if asset.format != Format::Tmd || asset.textures.is_empty() || asset.untextured > 0 {
                continue;
            }
            let Ok(Model::Tmd(_)) = a.read(&asset.source) else {
                continue;
            };
            let tmd = std::fs::read(&asset.source.container).unwrap_or_default();
            let tims: Vec<Vec<u8>> = asset
                .textures
                .iter()
                .filter_map(|t| std::fs::read(&t.source.container).ok())
                .collect();
            if !tmd.is_empty() && tims.len() == asset.textures.len() && asset.source.offset == 0 {
                out.push((dir.display().to_string(), tmd, tims));
                break;
            }
        }
        if out.len() >= 4 {
            break;
        }
    }
    out
}

/// Where [`textured_images`] puts the TMD in RAM.
pub const TEXTURED_AT: usize = 0x4_0000;

/// A RAM image holding `tmd` relocated at [`TEXTURED_AT`] (KSEG0, in noise), and the VRAM its
/// `tims` make when loaded where their headers say, as a VRAM and as the bytes of its dump.
pub fn textured_images(tmd: &[u8], tims: &[Vec<u8>]) -> (Vec<u8>, Vram, Vec<u8>) {
    let mut ram = noise(9, RAM);
    let at = TEXTURED_AT;
    let relocated = relocate_tmd(tmd, 0x8000_0000 + at as u32 + 12).unwrap();
    ram[at..at + relocated.len()].copy_from_slice(&relocated);
    let mut vram = Vram::new();
    for t in tims {
        vram.place_tim(&retroanim::formats::tim::read(t).unwrap());
    }
    let dump = vram
        .halfwords()
        .iter()
        .flat_map(|h| h.to_le_bytes())
        .collect();
    (ram, vram, dump)
}

/// Checks that every textured corner of `asset` (a TMD) samples, through the TIMs the
/// assembly matched to it, the texel `vram` gives it; the number of corners.
pub fn check_texels(
    a: &assemble::Assembly,
    asset: &assemble::Asset,
    vram: &Vram,
    what: &str,
) -> usize {
    assert!(!asset.textures.is_empty(), "{what}: not textured");
    assert_eq!(asset.untextured, 0, "{what}: polygons left untextured");
    let cut = a.tims_for(asset).unwrap();
    let mut from_cut = Vram::new();
    for t in &cut {
        from_cut.place_tim(t);
    }
    let Model::Tmd(t) = a.read(&asset.source).unwrap() else {
        panic!("{what}: not a TMD")
    };
    let mut corners = 0;
    for tri in t.meshes().iter().flat_map(|m| &m.triangles) {
        let Some([tsb, cba]) = tri.texture else {
            continue;
        };
        for c in &tri.corners {
            let [u, v] = c.uv.unwrap_or([0, 0]);
            assert_eq!(
                from_cut.texel_at(tsb, cba, u, v),
                vram.texel_at(tsb, cba, u, v),
                "{what}"
            );
            corners += 1;
        }
    }
    corners
}

/// Checks every placed asset against the finds of a scan of its RAM image (whose first byte is
/// at `base`; only finds in `container`, when given): found at its offset as its format, an HMD
/// at its mapped address and unmapped to its file, and converted to the same GLB as its file.
/// The TMDs and HMDs found, and what went wrong.
pub fn check_placed(
    finds: &[retroanim::scan::Find],
    placed: &[Placed],
    base: u32,
    container: Option<&str>,
) -> (usize, usize, Vec<String>) {
    let mut bad = Vec::new();
    let (mut tmds, mut hmds) = (0, 0);
    for p in placed {
        let Some(f) = finds.iter().find(|f| {
            f.offset == p.offset as u64
                && f.format == p.format
                && container.map_or(true, |c| f.container == c)
        }) else {
            bad.push(format!(
                "{}: not found at {container:?}@{}",
                p.name, p.offset
            ));
            continue;
        };
        let bytes = f.bytes().unwrap();
        if p.format == Format::Hmd {
            hmds += 1;
            assert_eq!(f.mapped_address, Some(base + p.offset as u32), "{}", p.name);
            // The file it was (up to where its structure ends).
            if !p.file.starts_with(&bytes) {
                bad.push(format!("{}: not unmapped to the file", p.name));
                continue;
            }
        } else {
            tmds += 1;
        }
        if glb(&bytes, p.format) != glb(&p.file, p.format) {
            bad.push(format!("{}: another GLB", p.name));
        }
    }
    (tmds, hmds, bad)
}
