//! Format detection by content: magic numbers plus a plausibility check of the structure behind
//! them. File extensions are never consulted.

use serde::{Deserialize, Serialize};

use crate::bytes::{Be, ByteOrder, Le};

/// Every format retroanim knows by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum Format {
    /// PlayStation libgs animation (file ID 0x50).
    Tod,
    /// PlayStation libhmd hierarchical model and animation (version 0x50).
    Hmd,
    /// PlayStation model (ID 0x41).
    Tmd,
    /// PlayStation texture (ID 0x10).
    Tim,
    /// Operation Flashpoint / Arma model (MLOD or ODOL).
    P3d,
    /// MDD point cache (big-endian).
    Mdd,
    /// PC2 point cache (`POINTCACHE2`).
    Pc2,
    /// glTF 2.0 JSON.
    Gltf,
    /// glTF 2.0 binary.
    Glb,
    /// retroanim's JSON dump of a format model.
    Json,
    /// PNG image.
    Png,
    /// PlayStation libgs high-speed model (ID 0x42, or a bare primitive group).
    Pmd,
    /// PlayStation sprite-editor palette (ID 0x12), or a headerless palette named by `--from clt`.
    Clt,
    /// PlayStation sprite-editor pixel data (ID 0x11).
    Pxl,
    /// MIMe vertex difference file (MIMEFILT; no magic: named by `--from vdf` or a `.vdf` name).
    Vdf,
    /// MIMe normal difference file (MIMEFILT; no magic: named by `--from ndf` or a `.ndf` name).
    Ndf,
    /// Operation Flashpoint / Arma skeletal animation (`RTM_0101`, `RTM_0100`, `RTM_MDAT`, `BMTR`).
    Rtm,
    /// labp assembler source of an HMD (text; never detected from content, named by `--from
    /// lab`, a `.lab` input or a `.lab` output).
    Lab,
    /// PlayStation RSD text model set (`@RSD` file naming its PLY / MAT / GRP).
    Rsd,
}

impl Format {
    /// The short lowercase name used on the command line and in JSON.
    pub fn name(self) -> &'static str {
        match self {
            Format::Tod => "tod",
            Format::Hmd => "hmd",
            Format::Tmd => "tmd",
            Format::Tim => "tim",
            Format::P3d => "p3d",
            Format::Mdd => "mdd",
            Format::Pc2 => "pc2",
            Format::Gltf => "gltf",
            Format::Glb => "glb",
            Format::Json => "json",
            Format::Png => "png",
            Format::Lab => "lab",
            Format::Pmd => "pmd",
            Format::Clt => "clt",
            Format::Pxl => "pxl",
            Format::Vdf => "vdf",
            Format::Ndf => "ndf",
            Format::Rsd => "rsd",
            Format::Rtm => "rtm",
        }
    }

    /// All formats, in a stable order.
    pub const ALL: [Format; 19] = [
        Format::Tod,
        Format::Hmd,
        Format::Tmd,
        Format::Tim,
        Format::P3d,
        Format::Mdd,
        Format::Pc2,
        Format::Gltf,
        Format::Glb,
        Format::Json,
        Format::Png,
        Format::Lab,
        Format::Pmd,
        Format::Clt,
        Format::Pxl,
        Format::Vdf,
        Format::Ndf,
        Format::Rsd,
        Format::Rtm,
    ];

    /// Looks a format up by its name or a file extension (case-insensitive). Used for choosing
    /// an *output* format; inputs are always detected by content.
    pub fn from_name(name: &str) -> Option<Format> {
        let n = name.trim_start_matches('.').to_ascii_lowercase();
        Format::ALL.into_iter().find(|f| f.name() == n)
    }
}

impl std::fmt::Display for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Recognises the format of `data` from its content.
///
/// Magic numbers decide where a format has one; where two formats share a first word (a TOD with
/// version 0 and resolution 0 starts with the same word as an HMD) the structure behind it decides.
pub fn detect(data: &[u8]) -> Option<Format> {
    if data.starts_with(b"glTF") {
        return Some(Format::Glb);
    }
    if data.starts_with(b"\x89PNG\r\n\x1a\n") {
        return Some(Format::Png);
    }
    if data.starts_with(b"POINTCACHE2\0") {
        return Some(Format::Pc2);
    }
    if data.starts_with(b"MLOD") || data.starts_with(b"ODOL") {
        return Some(Format::P3d);
    }
    if crate::formats::rtm::looks_like(data) {
        return Some(Format::Rtm);
    }
    if let Some(f) = detect_json(data) {
        return Some(f);
    }
    // An RSD file (text: `@RSDnnnnnn` after any comment lines) names the other files of its set.
    if rsd_text_kind(data) == Some("rsd") {
        return Some(Format::Rsd);
    }
    if crate::formats::tod::looks_like(data) {
        return Some(Format::Tod);
    }
    let word = |i: usize| Le::u32_at(data, i * 4);
    match (word(0), word(1)) {
        // HMD: version 0x50, MAP FLAG 0/1, then a primitive header pointer inside the file.
        (Some(0x50), Some(0 | 1))
            if word(2).is_some_and(|p| (p as u64) * 4 < data.len() as u64) =>
        {
            return Some(Format::Hmd)
        }
        // TMD: ID 0x41, flags with only FIXP defined, a sane object count.
        (Some(0x41), Some(0 | 1))
            if word(2).is_some_and(|n| n > 0 && (n as usize) < data.len() / 28) =>
        {
            return Some(Format::Tmd)
        }
        // CLT: ID 0x12, FLAG 2 (PMODE); PXL: ID 0x11, FLAG bit 0 (PMODE).
        (Some(0x12), Some(2)) => return Some(Format::Clt),
        (Some(0x11), Some(0 | 1)) => return Some(Format::Pxl),
        // TIM: ID 0x10, flags: bpp mode 0..4 and the CLUT bit.
        (Some(0x10), Some(f)) if f & !0xF == 0 && f & 7 <= 4 => return Some(Format::Tim),
        _ => {}
    }
    if looks_like_mdd(data) {
        return Some(Format::Mdd);
    }
    if crate::formats::pmd::looks_like(data, data.len() as u64)
        || crate::formats::pmd::looks_like_bare(data)
    {
        return Some(Format::Pmd);
    }
    // Too damaged to walk: let the reader of the likelier format say what is wrong. An HMD's
    // first words (0x50, MAP FLAG 0 or 1) read as a TOD with at most one frame; a damaged HMD is
    // the likelier of the two.
    if let (Some(0x50), Some(0 | 1)) = (word(0), word(1)) {
        return Some(Format::Hmd);
    }
    if data.first() == Some(&crate::formats::tod::FILE_ID) && data.get(1).is_some_and(|v| *v < 0x10)
    {
        return Some(Format::Tod);
    }
    None
}

/// The format a file's name gives it when its bytes begin no format retroanim knows: the
/// formats without a magic number are read as their extension says (`.vdf`, `.ndf`, `.clt`,
/// any case). Callers ask [`detect`] first: a TIM or TMD so named stays what its bytes are.
/// The CLI, [`crate::input::detect_file`] and [`crate::scan`] (loose files in a folder) share
/// this rule, so every road reads such a file as the same format.
pub fn named_without_magic(path: &std::path::Path) -> Option<Format> {
    let ext = path.extension()?.to_str()?.to_ascii_lowercase();
    match ext.as_str() {
        "vdf" => Some(Format::Vdf),
        "ndf" => Some(Format::Ndf),
        "clt" => Some(Format::Clt),
        _ => None,
    }
}

/// The format a file [`detect`] cannot place most likely is a damaged member of: a header that
/// fits the format whose body is short (a TMD whose object table runs past the end, an MDD cut
/// before its last frame). Reading it as that format names what is missing and where, where
/// "unknown format" would not.
pub fn detect_damaged(data: &[u8]) -> Option<Format> {
    let le = |i: usize| Le::u32_at(data, i);
    // TMD: ID 0x41, FLAGS 0 or 1, a non-zero object count.
    if le(0) == Some(0x41) && matches!(le(4), Some(0 | 1)) && le(8).is_some_and(|n| n > 0) {
        return Some(Format::Tmd);
    }
    let be = |i: usize| Be::u32_at(data, i);
    // MDD: modest frame and point counts whose data the file is too short for, and a first
    // frame time that is a plausible number of seconds.
    let (frames, points) = (be(0)? as u64, be(4)? as u64);
    let time_ok = be(8).map_or(true, |t| {
        let t = f32::from_bits(t);
        t.is_finite() && (0.0..1e6).contains(&t)
    });
    if !((1..=1 << 20).contains(&frames) && (1..=1 << 24).contains(&points)) {
        return None;
    }
    let need = 8 + frames * 4 + frames * points * 12;
    (need > data.len() as u64 && time_ok).then_some(Format::Mdd)
}

/// Whether a file that begins with `prefix` (and is at most `max_len` bytes long) could be one
/// of the formats [`crate::read_any`] reads, judged from the first bytes alone: a magic number,
/// a plausible first header word, or (MDD, which has no magic) frame and point counts whose
/// data fit in `max_len`. Lets a caller reading a stream (a device, a pipe) give up after the
/// first bytes instead of reading to its size limit.
pub fn plausible_start(prefix: &[u8], max_len: u64) -> bool {
    const MAGICS: [&[u8]; 9] = [
        b"glTF",
        b"\x89PNG",
        b"POINTCACHE2\0",
        b"MLOD",
        b"ODOL",
        b"RTM_0101",
        b"RTM_0100",
        b"RTM_MDAT",
        b"BMTR",
    ];
    if MAGICS
        .iter()
        .any(|m| prefix.starts_with(m) || m.starts_with(prefix))
    {
        return true;
    }
    // JSON: an object whose first key (or end) follows its brace.
    let mut text = prefix.iter().filter(|b| !b.is_ascii_whitespace());
    if matches!(
        (text.next(), text.next()),
        (None, _) | (Some(b'{'), None | Some(b'"' | b'}'))
    ) {
        return true;
    }
    // Text formats (RSD, PLY, MAT, GRP, LAB): printable ASCII and line ends throughout.
    if prefix
        .iter()
        .all(|&b| b.is_ascii_graphic() || b.is_ascii_whitespace())
    {
        return true;
    }
    // Eight bytes at least: two words.
    let (Some(first), Some(frames), Some(points)) = (
        Le::u32_at(prefix, 0),
        Be::u32_at(prefix, 0),
        Be::u32_at(prefix, 4),
    ) else {
        return true;
    };
    if crate::formats::tod::looks_like(prefix)
        || matches!(first, 0x41 | 0x42 | 0x50 | 0x10 | 0x11 | 0x12)
    {
        return true;
    }
    if crate::formats::pmd::plausible_bare_start(prefix) {
        return true;
    }
    let (frames, points) = (u64::from(frames), u64::from(points));
    frames > 0
        && points > 0
        && frames
            .saturating_mul(points.saturating_add(1))
            .saturating_mul(12)
            <= max_len
}

fn detect_json(data: &[u8]) -> Option<Format> {
    let first = data.iter().find(|b| !b.is_ascii_whitespace())?;
    if *first != b'{' {
        return None;
    }
    let head = &data[..data.len().min(4096)];
    let text = String::from_utf8_lossy(head);
    // glTF's top-level keys; a large glTF (serialised in key order) can hold its "asset" past
    // the first 4096 bytes, but its first key is one of these.
    const GLTF_KEYS: [&str; 9] = [
        "accessors",
        "animations",
        "asset",
        "bufferViews",
        "buffers",
        "extensions",
        "extensionsRequired",
        "extensionsUsed",
        "extras",
    ];
    let first_key = text
        .trim_start()
        .strip_prefix('{')
        .map(str::trim_start)
        .and_then(|t| t.strip_prefix('"'))
        .and_then(|t| t.split('"').next());
    if (text.contains("\"asset\"") || first_key.is_some_and(|k| GLTF_KEYS.contains(&k)))
        && !text.contains("\"format\"")
    {
        Some(Format::Gltf)
    } else {
        Some(Format::Json)
    }
}

/// MDD has no magic: a big-endian frame count and point count whose sizes must add up to the
/// file length exactly (allowing the one uncounted rest frame some exporters write).
fn looks_like_mdd(data: &[u8]) -> bool {
    let (Some(frames), Some(points)) = (Be::u32_at(data, 0), Be::u32_at(data, 4)) else {
        return false;
    };
    let (frames, points) = (u64::from(frames), u64::from(points));
    if frames == 0 || points == 0 {
        return false;
    }
    let len = data.len() as u64;
    // Saturating: both counts are below the length, but their product need not fit in u64.
    let body = |n: u64| {
        n.saturating_mul(points)
            .saturating_mul(12)
            .saturating_add(8 + n * 4)
    };
    frames < len
        && points < len
        && (body(frames) == len || body(frames).saturating_add(points * 12) == len)
}

/// Whether `data` looks like an RSD-family text file (`@RSD`, `@PLY`, `@MAT`, `@GRP` as the
/// first non-comment line): which one, by its tag.
pub fn rsd_text_kind(data: &[u8]) -> Option<&'static str> {
    let mut rest = data;
    loop {
        let start = rest.iter().position(|b| !b.is_ascii_whitespace())?;
        rest = &rest[start..];
        if rest.first() == Some(&b'#') {
            let end = rest.iter().position(|&b| b == b'\n')?;
            rest = &rest[end + 1..];
            continue;
        }
        let tag = rest.get(..4)?.to_ascii_uppercase();
        let digits = rest[4..].iter().take_while(|b| b.is_ascii_digit()).count();
        if digits == 0 {
            return None;
        }
        return match tag.as_slice() {
            b"@RSD" => Some("rsd"),
            b"@PLY" => Some("ply"),
            b"@MAT" => Some("mat"),
            b"@GRP" => Some("grp"),
            _ => None,
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Random bytes (what `/dev/urandom` gives) start a format rarely enough that a stream of
    /// them is given up after its first [`crate::input::PROBE`] bytes nearly every time; the
    /// formats without a magic number (a bare PMD group, MDD) do not match one start in eight.
    #[test]
    fn random_starts_are_rarely_plausible() {
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let probe = crate::input::PROBE as usize;
        let mut buf = vec![0u8; probe];
        let trials = 600;
        let mut plausible = 0;
        for _ in 0..trials {
            for chunk in buf.chunks_mut(8) {
                chunk.copy_from_slice(&next().to_le_bytes()[..chunk.len()]);
            }
            plausible += usize::from(plausible_start(&buf, 1 << 28));
        }
        assert!(
            plausible * 100 <= trials,
            "{plausible} of {trials} plausible"
        );
        // Each kind's own start still is.
        assert!(plausible_start(b"{\n  \"asset\": {}}", 1 << 28));
        assert!(plausible_start(b"@RSD940102\nPLY=a.ply\n", 1 << 28));
    }

    #[test]
    fn names_round_trip() {
        for f in Format::ALL {
            assert_eq!(Format::from_name(f.name()), Some(f));
        }
        assert_eq!(Format::from_name(".GLB"), Some(Format::Glb));
        assert_eq!(Format::from_name("exe"), None);
    }

    #[test]
    fn damaged_members_are_placed_without_overflow() {
        assert_eq!(detect_damaged(b"not an animation"), None);
        assert_eq!(detect_damaged(&[0xFF; 16]), None);
        let mut mdd = vec![0, 0, 0, 2, 0, 0, 0, 3];
        mdd.extend(0f32.to_be_bytes());
        assert_eq!(detect_damaged(&mdd), Some(Format::Mdd));
        let tmd = [0x41, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0];
        assert_eq!(detect_damaged(&tmd), Some(Format::Tmd));
    }

    #[test]
    fn damaged_files_go_to_the_likelier_reader() {
        // An HMD cut inside its block table: 0x50, MAP FLAG 0, a pointer past the end.
        let hmd = [0x50, 0, 0, 0, 0, 0, 0, 0, 0x40, 0, 0, 0, 1, 0, 0, 0];
        assert_eq!(detect(&hmd), Some(Format::Hmd));
        // A TOD with resolution 2 whose first frame is cut: still a TOD.
        let tod = [0x50, 0, 2, 0, 3, 0, 0, 0, 9, 0, 1, 0];
        assert_eq!(detect(&tod), Some(Format::Tod));
    }

    #[test]
    fn magic_formats() {
        assert_eq!(detect(b"POINTCACHE2\0...."), Some(Format::Pc2));
        assert_eq!(detect(b"MLOD\x01\0\0\0"), Some(Format::P3d));
        assert_eq!(detect(b"  {\"format\":\"tod\"}"), Some(Format::Json));
        assert_eq!(detect(b"hello"), None);
        assert_eq!(detect(b""), None);
        // MDD: 1 frame, 1 point: 8 + 4 + 12 bytes.
        let mut mdd = vec![0, 0, 0, 1, 0, 0, 0, 1];
        mdd.extend_from_slice(&[0; 16]);
        assert_eq!(detect(&mdd), Some(Format::Mdd));
        mdd.push(0);
        assert_eq!(detect(&mdd), None);
        // With the uncounted rest frame (12 more bytes) it is still an MDD.
        mdd.extend_from_slice(&[0; 11]);
        assert_eq!(detect(&mdd), Some(Format::Mdd));
    }
}
