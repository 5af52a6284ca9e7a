//! Savestates of the PCSX family (PCSX-ReARMed, standalone and as RetroArch's `pcsx_rearmed`
//! core; PCSX-Reloaded; PCSX-df): their RAM and VRAM, scanned as a RAM dump and used as its VRAM
//! dump.
//!
//! The stream, as each emulator's `SaveState` (`libpcsxcore/misc.c`) writes it, little-endian,
//! fields back to back:
//!
//! | field | bytes | notes |
//! |---|---|---|
//! | header text | 32 | `STv4 PCSX…` (`STv4 PCSXra r24…` ReARMed, `STv4 PCSXR v1.9…` PCSX-R, `STv4 PCSX v1.…` PCSX-df); `STv3 PCSX v…` in PCSX 1.x |
//! | SaveVersion | 4 | `STv4` only (`0x8b410001` … `0x8b410008`) |
//! | HLE flag | 1 | `STv4` after `0x8b410001` |
//! | thumbnail | 36,864 | 128 × 96 × 3 (ReARMed: zeros and build notes) |
//! | RAM (`psxM`) | 2 MiB | physical address 0 on |
//! | BIOS (`psxR`) | 512 KiB | |
//! | hardware registers, scratchpad (`psxH`) | 64 KiB | |
//! | CPU registers (`psxRegs`) | 792 or 8,988 | 792: ReARMed (the registers up to `gteBusyCycle`), PCSX 1.x/PCSX-df (the whole struct); 8,988: PCSX-R, whose struct carries a 2 × 4 KiB I-cache |
//! | GPU section (`GPUFreeze_t`) | 1,032 | freeze version (always 1), status, 256 control words |
//! | VRAM | 1 MiB | 1024 × 512 halfwords, in the GPU section |
//! | SPU section size | 4 | then the SPU section (`SPUFreeze_t`), whose own size word sits 12 bytes into it |
//! | SPU, SIO, CD-ROM, … | | not read |
//!
//! Where the GPU section starts depends on the header variant (0, 4 or 5 bytes after the header
//! text) and on the registers' length, which no field states. Every known combination is tried,
//! and one is taken only when its GPU section starts with freeze version 1 *and* the SPU section
//! after the VRAM repeats its size (the word before it and the word 12 bytes into it agree, and
//! hold at least the SPU's 512 KiB of sound RAM): exactly one must agree, else the reader stops
//! with an error naming the offsets it tried and what it found there. Nothing is guessed.
//!
//! How the stream is stored: gzip (the standalone emulators' `gzopen`; a file zlib's `gzopen`
//! reads uncompressed works too), plain (RetroArch's core serialises the same stream into a
//! buffer, padded with zeros to 0x440000 bytes), RetroArch's `RASTATE` file (`RASTATE`, a version
//! byte, then blocks of a 4-byte name, a 4-byte length and the data padded to 8 bytes; the core's
//! stream is the `MEM ` block) and RetroArch's RZIP compression of that file (`#RZIPv1#`, the
//! chunk size and total size, then chunks of a 4-byte length and a zlib stream each). Sources:
//! PCSX-ReARMed `libpcsxcore/misc.c`, `libpcsxcore/r3000a.h`, `frontend/libretro.c`; PCSX-R
//! `libpcsxcore/misc.c`, `libpcsxcore/r3000a.h`, `libpcsxcore/plugins.h`; RetroArch
//! `tasks/task_save.c`, `libretro-common/streams/rzip_stream.c`.
//!
//! Memory stays bounded: at most [`STREAM_CAP`] bytes are unpacked, whatever the file claims or
//! holds (a gzip bomb stops there), and what lies past the VRAM is never read.

use std::io::Read;
use std::sync::Arc;

use super::source::Source;
use crate::bytes::{ByteOrder, Le};
use crate::error::{Error, Result};

/// The RAM a savestate holds (2 MiB, from physical address 0).
pub const RAM_SIZE: usize = 2 << 20;
/// The VRAM a savestate holds (1 MiB: 1024 × 512 halfwords).
pub const VRAM_SIZE: usize = 1 << 20;
/// Most bytes of a stream unpacked: the largest known layout up to the SPU section's size
/// words is 3,782,493 bytes; with RetroArch's header before it, rounded up to 4 MiB.
pub const STREAM_CAP: usize = 4 << 20;

const KIND: &str = "pcsx savestate";
const HEADER: usize = 32;
const THUMBNAIL: usize = 128 * 96 * 3;
const BIOS: usize = 512 << 10;
const HARDWARE: usize = 64 << 10;
const GPU_HEADER: usize = 4 + 4 + 256 * 4;
/// Known lengths of the CPU registers, with who writes them.
const REGISTERS: [(usize, &str); 2] = [
    (792, "PCSX-ReARMed, PCSX-df"),
    (8988, "PCSX-R, with its I-cache"),
];
/// The SPU section holds at least its name, version, size, 512 register bytes and 512 KiB of
/// sound RAM; more than 4 MiB is not a size any SPU plugin writes.
const SPU_MIN: u32 = 16 + 0x200 + 0x8_0000;
const SPU_MAX: u32 = 4 << 20;
/// Largest RZIP chunk accepted (RetroArch writes 128 KiB chunks).
const RZIP_MAX_CHUNK: u32 = 4 << 20;
const RZIP_MAGIC: &[u8; 8] = b"#RZIPv\x01#";
const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// The VRAM of a savestate that was scanned.
#[derive(Debug, Clone)]
pub struct SavestateVram {
    /// The input path the savestate was found under.
    pub path: String,
    /// Its name as a container: `STATE:/VRAM`.
    pub container: String,
    /// The 1 MiB of VRAM (1024 × 512 halfwords), as a VRAM dump holds it; empty when the
    /// scan's [`super::ScanOptions::vram_cutter`] already cut its TIMs (and released it).
    pub bytes: Arc<[u8]>,
}

/// A savestate: its RAM scanned as a RAM dump (`NAME:/RAM`), its VRAM kept for the caller.
///
/// The bytes it unpacks count against the scan's read budget (the most a stream may unpack,
/// [`STREAM_CAP`], is taken before unpacking): a small archive of many packed savestates cannot
/// unpack gigabytes.
pub(super) fn walk(src: &dyn Source, name: &str, cx: &super::Ctx<'_>) {
    if !cx.take(STREAM_CAP as u64) {
        return cx
            .sink
            .skip(name.to_string(), src.len(), super::OVER_BUDGET);
    }
    let state = match read(src) {
        Ok(s) => s,
        Err(e) => return cx.sink.error(name, e),
    };
    let mut vram = SavestateVram {
        path: cx.path.to_string(),
        container: format!("{name}:/VRAM"),
        bytes: state.vram.into(),
    };
    let mut finds = super::blob_finds(
        Arc::new(super::MemSource(state.ram.into())),
        &format!("{name}:/RAM"),
        cx,
    );
    if let Some(cut) = &cx.opts.vram_cutter {
        // Its TIMs are cut now, and the 1 MiB of VRAM released: many savestates cannot add up.
        let cut = cut(&vram, &finds);
        finds.extend(cut);
        vram.bytes = Arc::from(Vec::new());
    }
    cx.sink.add(finds);
    if let Ok(mut v) = cx.sink.vram.lock() {
        v.push(vram);
    }
}

/// How a savestate's stream was stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Packing {
    /// gzip, as the standalone emulators write it.
    Gzip,
    /// RetroArch's RZIP chunks of zlib streams.
    Rzip,
    /// Not compressed.
    Plain,
}

/// What a savestate holds for the scanner.
#[derive(Clone)]
pub struct Savestate {
    /// How the file was stored.
    pub packing: Packing,
    /// True when the stream was the `MEM ` block of a RetroArch `RASTATE` file.
    pub retroarch: bool,
    /// The header text, up to its first zero byte (`STv4 PCSXra r24…`).
    pub header: String,
    /// The SaveVersion word (`STv4` headers).
    pub version: Option<u32>,
    /// Bytes of CPU registers before the GPU section.
    pub registers: usize,
    /// Where the RAM starts in the unpacked file.
    pub ram_offset: u64,
    /// Where the VRAM starts in the unpacked file.
    pub vram_offset: u64,
    /// The RAM, [`RAM_SIZE`] bytes from physical address 0.
    pub ram: Vec<u8>,
    /// The VRAM, [`VRAM_SIZE`] bytes, as a VRAM dump holds it.
    pub vram: Vec<u8>,
}

impl std::fmt::Debug for Savestate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Savestate")
            .field("packing", &self.packing)
            .field("retroarch", &self.retroarch)
            .field("header", &self.header)
            .field("version", &self.version)
            .field("registers", &self.registers)
            .field("ram_offset", &self.ram_offset)
            .field("vram_offset", &self.vram_offset)
            .finish_non_exhaustive()
    }
}

/// The unpacked bytes of a file (at most `cap`), and why they end early when they do.
#[derive(Clone)]
pub struct Unpacked {
    /// How the file was stored.
    pub packing: Packing,
    /// Its bytes, unpacked.
    pub bytes: Vec<u8>,
    /// What stopped the unpacking before the stream's end (a truncated or corrupt gzip or RZIP
    /// stream), when something did.
    pub stopped: Option<String>,
}

impl std::fmt::Debug for Unpacked {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Unpacked")
            .field("packing", &self.packing)
            .field("bytes", &self.bytes.len())
            .field("stopped", &self.stopped)
            .finish()
    }
}

fn err(offset: u64, what: String) -> Error {
    Error::Container {
        container: KIND,
        offset,
        what,
    }
}

/// True when a file's first bytes say it is a PCSX-family savestate (looking inside gzip and
/// RZIP for the header).
pub fn looks_like(src: &dyn Source) -> bool {
    let mut head = [0u8; 16];
    let n = (src.len().min(16)) as usize;
    if src.read_at(0, &mut head[..n]).is_err() {
        return false;
    }
    let head = &head[..n];
    if !(head.starts_with(&GZIP_MAGIC)
        || head.starts_with(RZIP_MAGIC)
        || head.starts_with(b"RASTATE")
        || head.starts_with(b"STv"))
    {
        return false;
    }
    let reader = SourceReader { src, pos: 0 }.take(64 << 10);
    match unpack(reader, 256) {
        Ok(u) => stream_start(&u.bytes).is_some_and(|(at, _)| is_header(&u.bytes[at..])),
        Err(_) => false,
    }
}

/// [`looks_like`] for bytes in memory.
pub fn sniff(data: &[u8]) -> bool {
    looks_like(&super::source::MemSource(data.into()))
}

fn is_header(b: &[u8]) -> bool {
    b.starts_with(b"STv4 PCSX") || b.starts_with(b"STv3 PCSX")
}

/// Reads a savestate from a source (a file, a part of an image).
pub fn read(src: &dyn Source) -> Result<Savestate> {
    parse(unpack(SourceReader { src, pos: 0 }, STREAM_CAP)?)
}

/// Reads a savestate from bytes in memory.
pub fn read_bytes(data: &[u8]) -> Result<Savestate> {
    parse(unpack(data, STREAM_CAP)?)
}

/// Unpacks a file's first `cap` bytes: gzip and RZIP by their magic, anything else as it is.
/// Errors name the offset in the file (an RZIP header or chunk length out of range); a stream
/// that breaks off is returned as far as it went, with [`Unpacked::stopped`] saying why.
pub fn unpack(mut r: impl Read, cap: usize) -> Result<Unpacked> {
    let mut head = Vec::with_capacity(8);
    (&mut r).take(8).read_to_end(&mut head)?;
    let mut chained = std::io::Cursor::new(head.clone()).chain(r);
    let mut bytes = Vec::new();
    let (packing, stopped) = if head.starts_with(&GZIP_MAGIC) {
        let dec = flate2::read::GzDecoder::new(chained);
        let stopped = dec
            .take(cap as u64)
            .read_to_end(&mut bytes)
            .err()
            .map(|e| format!("the gzip stream breaks off ({e})"));
        (Packing::Gzip, stopped)
    } else if head.starts_with(RZIP_MAGIC) {
        (Packing::Rzip, unrzip(&mut chained, cap, &mut bytes)?)
    } else {
        let stopped = chained
            .take(cap as u64)
            .read_to_end(&mut bytes)
            .err()
            .map(|e| format!("reading stopped ({e})"));
        (Packing::Plain, stopped)
    };
    Ok(Unpacked {
        packing,
        bytes,
        stopped,
    })
}

fn unrzip(r: &mut impl Read, cap: usize, out: &mut Vec<u8>) -> Result<Option<String>> {
    let mut header = Vec::with_capacity(20);
    r.take(20).read_to_end(&mut header)?;
    let (Some(chunk), Some(total)) = (Le::u32_at(&header, 8), Le::u64_at(&header, 12)) else {
        return Ok(Some(format!(
            "the RZIP header ends at byte {} (it has 20 bytes)",
            header.len()
        )));
    };
    if chunk == 0 || chunk > RZIP_MAX_CHUNK {
        return Err(err(
            8,
            format!("RZIP chunk size {chunk}: expected 1 to {RZIP_MAX_CHUNK} bytes"),
        ));
    }
    let mut at = 20u64;
    while out.len() < cap && (out.len() as u64) < total {
        let mut len = Vec::with_capacity(4);
        r.take(4).read_to_end(&mut len)?;
        let Some(csize) = Le::u32_at(&len, 0) else {
            return Ok(Some(format!(
                "the RZIP file ends at byte {} before its {total} bytes are unpacked",
                at + len.len() as u64
            )));
        };
        let most = chunk.saturating_mul(2).saturating_add(1024);
        if csize == 0 || csize > most {
            return Err(err(
                at,
                format!("RZIP chunk length {csize}: expected 1 to {most} bytes (chunks of {chunk} bytes)"),
            ));
        }
        let mut data = Vec::with_capacity(csize as usize);
        r.take(u64::from(csize)).read_to_end(&mut data)?;
        // A chunk cut short is unpacked as far as it goes.
        let want = (chunk as usize).min(cap - out.len());
        let inflated = flate2::read::ZlibDecoder::new(&data[..])
            .take(want as u64)
            .read_to_end(out);
        if data.len() < csize as usize {
            return Ok(Some(format!(
                "the RZIP chunk at byte {at} has {csize} bytes, the file ends after {}",
                data.len()
            )));
        }
        if let Err(e) = inflated {
            return Ok(Some(format!(
                "the RZIP chunk at byte {at} breaks off ({e})"
            )));
        }
        at += 4 + u64::from(csize);
    }
    Ok(None)
}

/// Where the emulator's stream starts in an unpacked file, and how long it is at most: the
/// whole file, or the `MEM ` block of a RetroArch `RASTATE` file. `None` for a `RASTATE` file
/// without one in reach.
fn stream_start(b: &[u8]) -> Option<(usize, usize)> {
    if !b.starts_with(b"RASTATE") {
        return Some((0, b.len()));
    }
    let mut at = 8usize;
    while at + 8 <= b.len() {
        let name = &b[at..at + 4];
        let len = Le::u32_at(b, at + 4)? as usize;
        if name == b"MEM " {
            return Some((at + 8, len.min(b.len() - at - 8)));
        }
        if name == b"END " {
            return None;
        }
        at = at.checked_add(8)?.checked_add(len.checked_add(7)? & !7)?;
    }
    None
}

/// Finds the RAM and VRAM in an unpacked file (module docs).
pub fn parse(u: Unpacked) -> Result<Savestate> {
    let b = &u.bytes;
    let ended = |at: usize| match &u.stopped {
        Some(why) => format!("the stream ends at byte {at}: {why}"),
        None => format!("the file ends at byte {at}"),
    };
    let retroarch = b.starts_with(b"RASTATE");
    let Some((base, len)) = stream_start(b) else {
        return Err(err(
            8,
            format!(
                "RetroArch state: expected a \"MEM \" block (the core's state) in its first {} bytes",
                b.len()
            ),
        ));
    };
    let s = &b[base..base + len];
    let at = |o: usize| (base + o) as u64;
    if s.len() < HEADER {
        return Err(err(
            at(0),
            format!(
                "expected a 32-byte header \"STv4 PCSX…\"; {}",
                ended(base + s.len())
            ),
        ));
    }
    if !is_header(s) {
        return Err(err(
            at(0),
            format!(
                "expected the header \"STv4 PCSX…\" (or \"STv3 PCSX…\"), found {:?}",
                String::from_utf8_lossy(&s[..16])
            ),
        ));
    }
    let header =
        String::from_utf8_lossy(s[..HEADER].split(|&c| c == 0).next().unwrap_or(&[])).into_owned();
    let v4 = s.starts_with(b"STv4");
    let version = if v4 { Le::u32_at(s, HEADER) } else { None };
    let skips: &[usize] = if v4 { &[5, 4] } else { &[0] };
    let mut tried = Vec::new();
    let mut agree = Vec::new();
    let mut shortest = usize::MAX;
    for &skip in skips {
        for &(regs, who) in &REGISTERS {
            let gpu = HEADER + skip + THUMBNAIL + RAM_SIZE + BIOS + HARDWARE + regs;
            let spu = gpu + GPU_HEADER + VRAM_SIZE;
            shortest = shortest.min(spu + 20);
            let freeze = Le::u32_at(s, gpu);
            let sizes = (Le::u32_at(s, spu), Le::u32_at(s, spu + 16));
            let ok = freeze == Some(1)
                && matches!(sizes, (Some(a), Some(b)) if a == b && (SPU_MIN..=SPU_MAX).contains(&a));
            if ok {
                agree.push((skip, regs, gpu));
            }
            tried.push(format!(
                "byte {} ({regs} register bytes, {who}{}): {}",
                at(gpu),
                if v4 {
                    format!(", {skip} bytes of version and flag")
                } else {
                    String::new()
                },
                match (freeze, sizes) {
                    (None, _) => "past the end".to_string(),
                    (Some(f), _) if f != 1 => format!("freeze version {f}"),
                    (_, (Some(a), Some(b))) => format!("SPU section sizes {a} and {b}"),
                    _ => "the SPU section's size words lie past the end".to_string(),
                }
            ));
        }
    }
    if s.len() < shortest {
        return Err(err(
            at(s.len()),
            format!(
                "a savestate holds at least {shortest} bytes up to its SPU section (header, \
                 thumbnail, RAM, BIOS, hardware and CPU registers, GPU section and VRAM); {}",
                ended(base + s.len())
            ),
        ));
    }
    let (skip, registers, gpu) = match agree.as_slice() {
        [one] => *one,
        [] => {
            return Err(err(
                at(HEADER + skips[0] + THUMBNAIL + RAM_SIZE + BIOS + HARDWARE + REGISTERS[0].0),
                format!(
                    "expected the GPU section (freeze version 1, 1032 bytes, 1 MiB of VRAM, then \
                     the SPU section's size twice, {SPU_MIN} to {SPU_MAX}) after the CPU \
                     registers; tried {}",
                    tried.join("; ")
                ),
            ))
        }
        many => {
            return Err(err(
                at(many[0].2),
                format!(
                    "the GPU section fits more than one layout ({}): which one the file has is \
                     not known",
                    many.iter()
                        .map(|(_, r, g)| format!("{r} register bytes, byte {}", at(*g)))
                        .collect::<Vec<_>>()
                        .join("; ")
                ),
            ))
        }
    };
    let ram_at = HEADER + skip + THUMBNAIL;
    let vram_at = gpu + GPU_HEADER;
    Ok(Savestate {
        packing: u.packing,
        retroarch,
        header,
        version,
        registers,
        ram_offset: at(ram_at),
        vram_offset: at(vram_at),
        ram: s[ram_at..ram_at + RAM_SIZE].to_vec(),
        vram: s[vram_at..vram_at + VRAM_SIZE].to_vec(),
    })
}

/// A [`Source`] read from the start, for the decompressors.
struct SourceReader<'a> {
    src: &'a dyn Source,
    pos: u64,
}

impl Read for SourceReader<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let left = self.src.len().saturating_sub(self.pos);
        let n = (buf.len() as u64).min(left) as usize;
        if n == 0 {
            return Ok(0);
        }
        self.src
            .read_at(self.pos, &mut buf[..n])
            .map_err(|e| std::io::Error::other(e.to_string()))?;
        self.pos += n as u64;
        Ok(n)
    }
}
