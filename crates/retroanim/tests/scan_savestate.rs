//! PCSX-family savestates built here from the layout `scan/savestate.rs` documents (header,
//! version, HLE flag, thumbnail, RAM, BIOS, hardware registers, CPU registers, GPU section with
//! VRAM, SPU section), gzip-compressed as the standalone emulators store them and wrapped as
//! RetroArch stores its core's: the RAM of a RAM image of corpus TMDs and mapped HMDs is
//! scanned (every asset found, converted to the same GLB as its file), the VRAM loaded from the
//! corpus TIMs textures the TMDs; broken files are errors that name the byte and what was
//! expected, and no file unpacks to more than the layout needs.

mod common;

use std::io::Write;
use std::path::{Path, PathBuf};

use common::disc::noise;
use common::ram::{
    check_placed, check_texels, ram_image, textured_images, textured_tmds, RAM, TEXTURED_AT,
};
use flate2::write::{GzEncoder, ZlibEncoder};
use flate2::Compression;
use retroanim::assemble;
use retroanim::scan::savestate::{self, Packing, STREAM_CAP};
use retroanim::scan::{self, ScanOptions};

const VRAM: usize = 1 << 20;

/// What tells the emulators' streams apart.
struct Layout {
    name: &'static str,
    header: &'static str,
    version: Option<u32>,
    hle: bool,
    registers: usize,
}

const REARMED: Layout = Layout {
    name: "PCSX-ReARMed",
    header: "STv4 PCSXra r24-123-gabcdef",
    version: Some(0x8b41_0006),
    hle: true,
    registers: 792,
};
const PCSXR: Layout = Layout {
    name: "PCSX-R",
    header: "STv4 PCSXR v1.9.94",
    version: Some(0x8b41_0008),
    hle: true,
    registers: 8988,
};
const PCSXDF: Layout = Layout {
    name: "PCSX-df",
    header: "STv4 PCSX v1.9",
    version: Some(0x8b41_0001),
    hle: false,
    registers: 792,
};
const PCSX1: Layout = Layout {
    name: "PCSX 1.x",
    header: "STv3 PCSX v1.5",
    version: None,
    hle: false,
    registers: 792,
};

/// SPU section size: its header, 512 register bytes, 512 KiB of sound RAM and its channels.
const SPU: u32 = 16 + 0x200 + 0x8_0000 + 0x2400;

/// The stream as `SaveState` writes it, field by field.
fn stream(l: &Layout, ram: &[u8], vram: &[u8]) -> Vec<u8> {
    let mut s = l.header.as_bytes().to_vec();
    s.resize(32, 0);
    if let Some(v) = l.version {
        s.extend(v.to_le_bytes());
    }
    if l.hle {
        s.push(0);
    }
    s.resize(s.len() + 128 * 96 * 3, 0x40); // thumbnail
    assert_eq!(ram.len(), RAM);
    s.extend_from_slice(ram);
    s.extend(noise(11, 512 << 10)); // BIOS
    s.extend(noise(12, 64 << 10)); // hardware registers, scratchpad
                                   // CPU registers: small words, many of them 1, as a running CPU's are.
    s.extend((0..l.registers as u32 / 4).flat_map(|i| (i % 3).to_le_bytes()));
    s.extend(1u32.to_le_bytes()); // GPU freeze version
    s.extend(0x1480_2000u32.to_le_bytes()); // GPU status
    s.resize(s.len() + 256 * 4, 0); // control words
    assert_eq!(vram.len(), VRAM);
    s.extend_from_slice(vram);
    s.extend(SPU.to_le_bytes());
    s.extend(b"PBOSP2\0\0");
    s.extend(5u32.to_le_bytes());
    s.extend(SPU.to_le_bytes());
    s.resize(s.len() + SPU as usize - 16, 0);
    s.extend(b"SIO, CD-ROM, hardware, counters, MDEC: not read");
    s
}

fn gzip(b: &[u8]) -> Vec<u8> {
    let mut e = GzEncoder::new(Vec::new(), Compression::fast());
    e.write_all(b).unwrap();
    e.finish().unwrap()
}

/// RetroArch's state file: the core's buffer (the stream padded to 0x440000 bytes, as
/// pcsx_rearmed's `retro_serialize` fills it) as the `MEM ` block of a `RASTATE` file.
fn rastate(core: &[u8]) -> Vec<u8> {
    let mut mem = core.to_vec();
    mem.resize(0x44_0000, 0);
    let mut f = b"RASTATE\x01".to_vec();
    f.extend(b"MEM ");
    f.extend((mem.len() as u32).to_le_bytes());
    f.extend(&mem);
    f.resize(f.len().next_multiple_of(8), 0);
    f.extend(b"END ");
    f.extend(0u32.to_le_bytes());
    f
}

/// RetroArch's RZIP compression: a 20-byte header, then 128 KiB chunks as zlib streams.
fn rzip(b: &[u8]) -> Vec<u8> {
    let chunk = 128 << 10;
    let mut f = b"#RZIPv\x01#".to_vec();
    f.extend((chunk as u32).to_le_bytes());
    f.extend((b.len() as u64).to_le_bytes());
    for c in b.chunks(chunk) {
        let mut e = ZlibEncoder::new(Vec::new(), Compression::fast());
        e.write_all(c).unwrap();
        let z = e.finish().unwrap();
        f.extend((z.len() as u32).to_le_bytes());
        f.extend(z);
    }
    f
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

/// Scans a savestate as `retroanim scan` does: its RAM, then the TIMs its VRAM gives.
fn scan_state(path: &Path) -> scan::Report {
    let mut report = scan::scan_paths(&[path.to_path_buf()], &ScanOptions::default());
    assemble::add_savestate_vram(&mut report);
    report
}

#[test]
fn every_layout_and_wrapping_gives_back_the_ram_and_vram() {
    let ram = noise(5, RAM);
    let vram = noise(6, VRAM);
    for l in [&REARMED, &PCSXR, &PCSXDF, &PCSX1] {
        let plain = stream(l, &ram, &vram);
        for (how, file, packing) in [
            ("gzip", gzip(&plain), Packing::Gzip),
            ("plain", plain.clone(), Packing::Plain),
            ("RetroArch", rastate(&plain), Packing::Plain),
            ("RetroArch RZIP", rzip(&rastate(&plain)), Packing::Rzip),
        ] {
            let what = format!("{} ({how})", l.name);
            assert!(savestate::sniff(&file), "{what}: not recognised");
            let s = savestate::read_bytes(&file).unwrap_or_else(|e| panic!("{what}: {e}"));
            assert!(s.ram == ram, "{what}: another RAM");
            assert!(s.vram == vram, "{what}: another VRAM");
            assert_eq!(s.packing, packing, "{what}");
            assert_eq!(s.registers, l.registers, "{what}");
            assert_eq!(s.version, l.version, "{what}");
            assert_eq!(s.retroarch, how.starts_with("RetroArch"), "{what}");
            assert_eq!(s.header, l.header, "{what}");
        }
    }
}

#[test]
fn every_asset_in_a_savestates_ram_is_found_and_converts_as_its_file() {
    let (ram, placed) = ram_image(0x8000_0000);
    if placed.is_empty() {
        return;
    }
    let t = tempfile::tempdir().unwrap();
    for (l, name) in [(&REARMED, "game.ss0"), (&PCSXR, "game.000")] {
        let path = write(t.path(), name, &gzip(&stream(l, &ram, &noise(6, VRAM))));
        let report = scan_state(&path);
        assert!(report.errors.is_empty(), "{:?}", report.errors);
        let container = format!("{}:/RAM", path.display());
        let (tmds, hmds, bad) = check_placed(&report.finds, &placed, 0x8000_0000, Some(&container));
        assert!(report
            .finds
            .iter()
            .all(|f| f.path == path.display().to_string()));
        println!(
            "{} savestate: {tmds} TMDs, {hmds} HMDs of {} placed, {} finds",
            l.name,
            placed.len(),
            report.finds.len()
        );
        assert!(bad.is_empty(), "{}: {bad:#?}", l.name);
        assert!(tmds > 0 && hmds > 0);
    }
}

#[test]
fn a_savestates_vram_textures_the_tmds_of_its_ram() {
    let sets = textured_tmds();
    if sets.is_empty() {
        return;
    }
    let t = tempfile::tempdir().unwrap();
    for (i, (dir, tmd, tims)) in sets.into_iter().enumerate() {
        let (ram, vram, dump) = textured_images(&tmd, &tims);
        // RetroArch's RZIP for one, gzip for the others.
        let state = stream(&REARMED, &ram, &dump);
        let file = if i == 0 {
            rzip(&rastate(&state))
        } else {
            gzip(&state)
        };
        let path = write(t.path(), &format!("state{i}"), &file);
        let report = scan_state(&path);
        let name = path.display().to_string();
        let a = assemble::from_finds(&report.finds);
        let asset = a
            .asset_at(&format!("{name}:/RAM"), TEXTURED_AT as u64)
            .unwrap_or_else(|| panic!("{dir}: the TMD is not found"));
        for t in &asset.textures {
            assert_eq!(t.source.path, name, "{dir}");
            assert!(
                t.source
                    .container
                    .starts_with(&format!("{name}:/VRAM:/PAGE_")),
                "{dir}: {}",
                t.source.container
            );
        }
        let corners = check_texels(&a, asset, &vram, &dir);
        println!("{dir}: {corners} textured corners sample the savestate's VRAM");
        // Cut while scanning (the VRAM released at once), the same TIMs come out.
        let opts = ScanOptions {
            vram_cutter: Some(assemble::savestate_vram_cutter()),
            ..ScanOptions::default()
        };
        let during = scan::scan_paths(std::slice::from_ref(&path), &opts);
        let cut = |r: &scan::Report| -> Vec<(String, u64)> {
            let mut v: Vec<_> = r
                .finds
                .iter()
                .filter(|f| f.container.contains(":/VRAM:/"))
                .map(|f| (f.container.clone(), f.size))
                .collect();
            v.sort();
            v
        };
        assert!(!cut(&report).is_empty(), "{dir}");
        assert_eq!(cut(&during), cut(&report), "{dir}");
        assert!(
            during.vram.iter().all(|v| v.bytes.is_empty()),
            "{dir}: released"
        );
    }
}

/// The error a broken file gives: names the format, a byte, and what was expected.
fn broken(what: &str, file: &[u8]) -> String {
    let e = savestate::read_bytes(file).expect_err(what);
    let text = e.to_string();
    assert!(e.offset().is_some(), "{what}: {text}");
    assert!(
        text.starts_with("pcsx savestate: malformed at byte "),
        "{what}: {text}"
    );
    assert!(
        text.contains("expected") || text.contains("holds at least"),
        "{what}: {text}"
    );
    text
}

#[test]
fn truncated_and_corrupt_savestates_are_errors_naming_the_byte_and_the_expectation() {
    let plain = stream(&REARMED, &noise(5, RAM), &noise(6, VRAM));
    for cut in [
        10,
        32,
        36_901,
        2_000_000,
        2_723_877 + 792 + 500,
        plain.len() / 2 + 1_500_000,
        // The shortest layout (PCSX-df's, 4 bytes of version and flag) ends 20 bytes into
        // the SPU section at 3,774,296.
        3_774_296 - 1,
    ] {
        let text = broken(&format!("cut at {cut}"), &plain[..cut]);
        assert!(
            text.contains(&format!("ends at byte {cut}")),
            "cut at {cut}: {text}"
        );
    }
    // A gzip stream that breaks off says so.
    let gz = gzip(&plain);
    let text = broken("gzip cut", &gz[..gz.len() / 3]);
    assert!(text.contains("gzip stream breaks off"), "{text}");
    // The GPU section where no layout has it.
    let mut bad = plain.clone();
    let gpu = 32 + 5 + 36_864 + (2 << 20) + (512 << 10) + (64 << 10) + 792;
    bad[gpu..gpu + 4].copy_from_slice(&7u32.to_le_bytes());
    let text = broken("freeze version 7", &bad);
    assert!(text.contains(&format!("at byte {gpu} ")), "{text}");
    assert!(text.contains("792 register bytes, PCSX-ReARMed"), "{text}");
    assert!(text.contains("freeze version 7"), "{text}");
    assert!(text.contains("8988 register bytes"), "{text}");
    // SPU sizes that disagree.
    let mut bad = plain.clone();
    let spu = gpu + 1032 + VRAM;
    bad[spu..spu + 4].copy_from_slice(&(SPU + 4).to_le_bytes());
    let text = broken("SPU sizes", &bad);
    assert!(
        text.contains(&format!("SPU section sizes {} and {SPU}", SPU + 4)),
        "{text}"
    );
    // RetroArch's file without the core's block, and RZIP sizes out of range.
    let mut ra = b"RASTATE\x01ACHV".to_vec();
    ra.extend(4u32.to_le_bytes());
    ra.extend([0; 8]);
    ra.extend(b"END \0\0\0\0");
    broken("no MEM block", &ra);
    let mut rz = rzip(&plain);
    rz[8..12].copy_from_slice(&u32::MAX.to_le_bytes());
    let text = broken("RZIP chunk size", &rz);
    assert!(text.contains("at byte 8 "), "{text}");
    let mut rz = rzip(&plain);
    rz[20..24].copy_from_slice(&u32::MAX.to_le_bytes());
    let text = broken("RZIP chunk length", &rz);
    assert!(text.contains("at byte 20 "), "{text}");
    // Every cut of the first bytes, and bytes flipped all over: an error or a savestate.
    for cut in (0..200).chain((36_850..36_950).step_by(7)) {
        let _ = savestate::read_bytes(&plain[..cut]);
        let _ = savestate::read_bytes(&gz[..cut.min(gz.len())]);
    }
    let mut flipped = gz.clone();
    for i in (0..flipped.len()).step_by(997) {
        flipped[i] ^= 0x5a;
        let _ = savestate::read_bytes(&flipped);
    }
}

#[test]
fn a_broken_savestate_is_a_scan_error_and_other_gzip_files_are_scanned_as_blobs() {
    let t = tempfile::tempdir().unwrap();
    let plain = stream(&REARMED, &noise(5, RAM), &noise(6, VRAM));
    let path = write(t.path(), "cut.ss0", &gzip(&plain[..3_000_000]));
    let report = scan_state(&path);
    assert!(report.finds.is_empty());
    assert_eq!(report.errors.len(), 1);
    assert_eq!(report.errors[0].container, path.display().to_string());
    let text = report.errors[0].error.to_string();
    assert!(
        text.contains("pcsx savestate") && text.contains("ends at byte 3000000"),
        "{text}"
    );
    // A gzip file that is not a savestate is no error: scanned as the bytes it is.
    let path = write(t.path(), "other.gz", &gzip(b"not a savestate at all"));
    let report = scan_state(&path);
    assert!(report.errors.is_empty() && report.vram.is_empty());
}

#[test]
fn a_gzip_bomb_is_unpacked_only_up_to_the_cap() {
    // A valid start, then 64 MiB of zeros: a small file that would unpack to far more than
    // any savestate.
    let plain = stream(&REARMED, &noise(5, RAM), &noise(6, VRAM));
    let mut e = GzEncoder::new(Vec::new(), Compression::fast());
    e.write_all(&plain[..40_000]).unwrap();
    let zeros = vec![0u8; 1 << 20];
    for _ in 0..64 {
        e.write_all(&zeros).unwrap();
    }
    let bomb = e.finish().unwrap();
    assert!(bomb.len() < 1 << 20, "{} bytes", bomb.len());
    let u = savestate::unpack(&bomb[..], STREAM_CAP).unwrap();
    assert_eq!(u.bytes.len(), STREAM_CAP);
    let text = broken("bomb", &bomb);
    assert!(text.contains("freeze version 0"), "{text}");
    // RetroArch's RZIP claiming 2^64 bytes is read up to the cap too.
    let mut rz = rzip(&vec![0u8; 5 << 20]);
    rz[12..20].copy_from_slice(&u64::MAX.to_le_bytes());
    let u = savestate::unpack(&rz[..], STREAM_CAP).unwrap();
    assert_eq!(u.bytes.len(), STREAM_CAP);
    // A RASTATE block claiming 4 GiB holds what the file has.
    let mut ra = b"RASTATE\x01MEM ".to_vec();
    ra.extend(u32::MAX.to_le_bytes());
    ra.extend(&plain);
    let s = savestate::read_bytes(&ra).unwrap();
    assert_eq!(s.ram_offset, 16 + 32 + 5 + 36_864);
}

/// Set in the child process [`rerun_capped`] starts.
const CAPPED_CHILD: &str = "RETROANIM_CAPPED_CHILD";

/// Runs the test `name` of this binary again in a child process under an address-space limit
/// of `mb` MiB (`ulimit -v`), where it does its work; the child must pass.
fn rerun_capped(name: &str, mb: u64) {
    let exe = std::env::current_exe().unwrap();
    let status = std::process::Command::new("/bin/sh")
        .args([
            "-c",
            &format!("ulimit -v {}; exec \"$0\" \"$@\"", mb * 1024),
        ])
        .arg(exe)
        .args([name, "--exact", "--nocapture", "--test-threads=1"])
        .env(CAPPED_CHILD, "1")
        .status()
        .unwrap();
    assert!(
        status.success(),
        "{name} under a {mb} MiB address-space limit"
    );
}

/// This process's peak resident memory (VmHWM), in kB.
fn peak_kb() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(0)
}

#[cfg(target_os = "linux")]
#[test]
fn an_archive_of_many_packed_savestates_stays_within_the_read_budget() {
    // Issue 38 item 6: a small PBO of many gzip'd savestates unpacked every one of them (4 MiB
    // each, 1 MiB of VRAM kept per savestate): gigabytes from megabytes. What a savestate
    // unpacks now counts against the archive's read budget, so memory stays bounded.
    if std::env::var_os(CAPPED_CHILD).is_none() {
        return rerun_capped(
            "an_archive_of_many_packed_savestates_stays_within_the_read_budget",
            1024,
        );
    }
    const N: usize = 400;
    let mut plain = stream(&REARMED, &vec![0; RAM], &vec![0; VRAM]);
    // BIOS and hardware registers as zeros too: each savestate packs to a few kB.
    let bios_at = 32 + 4 + 1 + 128 * 96 * 3 + RAM;
    plain[bios_at..bios_at + (512 << 10) + (64 << 10)].fill(0);
    let gz = gzip(&plain);
    let names: Vec<String> = (0..N).map(|i| format!("s{i}.ss0")).collect();
    let files: Vec<(&str, &[u8])> = names.iter().map(|n| (n.as_str(), &gz[..])).collect();
    let archive = scan::pbo::write(&[("prefix", "x")], &files, None);
    assert!(archive.len() < 8 << 20, "{} bytes", archive.len());
    let t = tempfile::tempdir().unwrap();
    let path = write(t.path(), "states.pbo", &archive);
    let report = scan::scan_paths(&[path], &ScanOptions::default());
    let budget = (4 * archive.len() as u64).max(scan::READ_FLOOR);
    let read = report.vram.len();
    assert!(read >= 1, "the first savestates are read");
    assert!(
        (read * STREAM_CAP) as u64 <= budget,
        "{read} savestates unpacked, over a budget of {budget} bytes"
    );
    let over = report
        .skipped
        .iter()
        .filter(|s| s.reason.contains("read budget is spent"))
        .count() as u64
        + report.skipped_unlisted.count;
    assert!(
        read as u64 + over >= N as u64,
        "{read} read, {over} skipped"
    );
    assert!(report.errors.is_empty(), "{:?}", report.errors);
    let peak = peak_kb();
    assert!(peak < 300 * 1024, "peak {peak} kB");
}
