//! Disc images and archives for the scan tests, built from corpus files by real tools
//! (`xorriso`, `bchunk`) and by the library's own sector writer.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use retroanim::Format;

/// What the bytes of one corpus file hold, from the format tables alone: one asset filling the
/// file, except for TIM files, which may hold several TIMs back to back (PAT.TIM) and padding
/// after the last (a TIM's size is 8 + the CLUT block's bnum when CF is set + the pixel block's
/// bnum: Sony File Formats, "TIM").
pub fn expected(format: Format, data: &[u8]) -> Vec<(Format, u64, u64)> {
    let le = |at: usize| u32::from_le_bytes(data[at..at + 4].try_into().unwrap()) as usize;
    if format != Format::Tim {
        return vec![(format, 0, data.len() as u64)];
    }
    let mut out = Vec::new();
    let mut at = 0usize;
    while at + 12 <= data.len() && le(at) == 0x10 {
        let mut size = 8;
        if le(at + 4) & 8 != 0 {
            size += le(at + 8);
        }
        size += le(at + size);
        out.push((Format::Tim, at as u64, size as u64));
        at += size;
    }
    out
}

/// What the bytes of one corpus file hold when packed among other data: as [`expected`], except
/// that an HMD ends where its structure does ([`retroanim::formats::hmd::structural_len`]: an
/// HMD has no length, and `tests/hmd_extent.rs` shows that the corpus files' words past that
/// point are ones nothing uses).
pub fn expected_embedded(format: Format, data: &[u8]) -> Vec<(Format, u64, u64)> {
    use retroanim::formats::hmd;
    match hmd::read(data).ok().and_then(|h| hmd::structural_len(&h)) {
        Some(len) if format == Format::Hmd => vec![(format, 0, len)],
        _ => expected(format, data),
    }
}

/// Up to `n` corpus files of a manifest kind with distinct contents, spread over the list.
pub fn pick(kind: &str, n: usize) -> Vec<(String, Vec<u8>)> {
    let files = super::corpus_files(kind);
    let step = (files.len() / n.max(1)).max(1);
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for (name, path) in files.into_iter().step_by(step) {
        let data = std::fs::read(&path).unwrap();
        if seen.insert(data.clone()) && out.len() < n {
            out.push((name, data));
        }
    }
    out
}

/// A deterministic byte stream (xorshift64*), for filler and "random" data.
pub fn noise(seed: u64, n: usize) -> Vec<u8> {
    let mut x = seed | 1;
    let mut v = Vec::with_capacity(n + 8);
    while v.len() < n {
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        v.extend_from_slice(&x.wrapping_mul(0x2545_F491_4F6C_DD1D).to_le_bytes());
    }
    v.truncate(n);
    v
}

/// Files packed into one blob with filler between them, each at an offset that is not a
/// multiple of 4 (1, 2, 3 bytes past one, in turn). Returns the blob and each file's offset.
pub fn pack(files: &[&[u8]], seed: u64) -> (Vec<u8>, Vec<u64>) {
    let mut blob = Vec::new();
    let mut offsets = Vec::new();
    for (i, f) in files.iter().enumerate() {
        let filler = 100 + (i * 37) % 300;
        blob.extend_from_slice(&noise(seed + i as u64, filler));
        while blob.len() % 4 != 1 + i % 3 {
            blob.push(0xA5);
        }
        offsets.push(blob.len() as u64);
        blob.extend_from_slice(f);
    }
    (blob, offsets)
}

/// True when a tool is on PATH (the scan tests skip loudly without it, and fail when
/// `RETROANIM_REQUIRE_CORPUS=1`, as CI installs it through `scripts/test`).
pub fn have_tool(tool: &str) -> bool {
    let ok =
        Command::new(tool).arg("--version").output().is_ok() || Command::new(tool).output().is_ok();
    if !ok {
        if std::env::var("RETROANIM_REQUIRE_CORPUS").as_deref() == Ok("1") {
            panic!("{tool} is not installed (scripts/test installs it)");
        }
        eprintln!("\n*** SKIPPING: {tool} is not installed (apt-get install {tool}) ***\n");
    }
    ok
}

/// Makes an ISO 9660 image of `dir` with xorriso.
pub fn xorriso(dir: &Path, iso: &Path) {
    let out = Command::new("xorriso")
        .args(["-as", "mkisofs", "-quiet", "-V", "RETROANIM", "-o"])
        .arg(iso)
        .arg(dir)
        .output()
        .expect("xorriso runs");
    assert!(
        out.status.success(),
        "xorriso: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Writes `iso` as raw Mode 2 sectors to `bin` with the library's writer, and a cue sheet.
pub fn raw_image(iso: &Path, bin: &Path) -> PathBuf {
    let mut input = std::fs::File::open(iso).unwrap();
    let mut out = std::io::BufWriter::new(std::fs::File::create(bin).unwrap());
    retroanim::scan::raw::write_mode2_image(&mut input, &mut out).unwrap();
    drop(out);
    let cue = bin.with_extension("cue");
    let name = bin.file_name().unwrap().to_string_lossy();
    std::fs::write(
        &cue,
        format!("FILE \"{name}\" BINARY\n  TRACK 01 MODE2/2352\n    INDEX 01 00:00:00\n"),
    )
    .unwrap();
    cue
}
