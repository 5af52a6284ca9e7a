//! Memory dumps: a 2 MiB RAM image built here, holding corpus TMDs relocated to absolute
//! pointers (FIXP = 1, as libgs's GsMapModelingData leaves them) and corpus HMDs mapped in
//! place as GsMapUnit and GsMapCoordUnit map them, at a chosen base address: every one is found,
//! read back as the file it was and converted to the same GLB as the file; and a VRAM dump
//! built from the corpus TIMs that texture those TMDs textures them with the same texels.

mod common;

use std::sync::Arc;

use common::ram::{
    check_placed, check_texels, ram_image, textured_images, textured_tmds, TEXTURED_AT,
};
use retroanim::assemble;
use retroanim::assemble::VramDump;
use retroanim::scan::{self, ram, MemSource, ScanOptions, Source};

fn check_ram(base: u32, opts: &ScanOptions) {
    let (ram, placed) = ram_image(base);
    if placed.is_empty() {
        return;
    }
    let src: Arc<dyn Source> = Arc::new(MemSource(ram.into()));
    let report = scan::scan_source(src, "RAM.BIN", opts);
    let (tmds, hmds, bad) = check_placed(&report.finds, &placed, base, None);
    println!(
        "base 0x{base:08x}: {tmds} TMDs, {hmds} HMDs of {} placed",
        placed.len()
    );
    assert!(bad.is_empty(), "{bad:#?}");
    assert!(hmds > 0 && tmds > 0);
}

#[test]
fn tmds_and_mapped_hmds_in_a_ram_image_are_found_and_convert_as_their_files() {
    // A dump from physical address 0 in KSEG0: the base is inferred.
    check_ram(0x8000_0000, &ScanOptions::default());
}

#[test]
fn a_ram_image_that_starts_elsewhere_is_read_with_its_base() {
    let opts = ScanOptions {
        base: Some(0x8003_0000),
        ..ScanOptions::default()
    };
    check_ram(0x8003_0000, &opts);
}

#[test]
fn a_ram_image_that_starts_elsewhere_is_read_without_its_base() {
    // A dump of RAM from 0x80030000 on, no --base: each HMD's address comes from where its
    // pointers say its primitive header section is.
    check_ram(0x8003_0000, &ScanOptions::default());
    // KSEG1, not at a 64 KiB boundary.
    check_ram(0xA001_2340, &ScanOptions::default());
}

#[test]
fn mapping_then_unmapping_gives_the_file_back() {
    for (name, file) in common::disc::pick("HMD", 80) {
        let mapped = ram::map_hmd(&file, 0x8012_3450).unwrap();
        assert!(ram::looks_mapped(&mapped), "{name}");
        assert!(!ram::looks_mapped(&file), "{name}");
        assert_eq!(
            ram::unmap_hmd(&mapped, 0x8012_3450).as_deref(),
            Some(&file[..]),
            "{name}"
        );
    }
}

#[test]
fn a_vram_dump_built_from_corpus_tims_textures_the_tmds_of_a_ram_image() {
    let sets = textured_tmds();
    if sets.is_empty() {
        return;
    }
    for (dir, tmd, tims) in sets {
        // The RAM: the TMD relocated; the VRAM: its TIMs loaded where their headers say.
        let (ram, vram, dump) = textured_images(&tmd, &tims);
        let dump = VramDump::new("VRAM.BIN", &dump).unwrap();
        let src: Arc<dyn Source> = Arc::new(MemSource(ram.into()));
        let report = scan::scan_source(src, "RAM.BIN", &ScanOptions::default());
        let a = assemble::from_finds_with_vram(&report.finds, Some(&dump));
        let asset = a
            .asset_at("RAM.BIN", TEXTURED_AT as u64)
            .unwrap_or_else(|| panic!("{dir}: the TMD is not found"));
        assert!(asset.textures.iter().all(|t| t.source.path == "VRAM.BIN"));
        // Every textured corner samples the texel the original TIMs give it.
        let corners = check_texels(&a, asset, &vram, &dir);
        println!("{dir}: {corners} textured corners sample the dump's texels");
    }
}
