//! Cue sheets: which tracks of which `.bin` files hold data.
//!
//! Commands read (CDRWIN cue sheet syntax, one command per line, case-insensitive keywords):
//! `FILE "name" BINARY` opens a file (relative to the cue sheet's folder); `TRACK nn MODE`
//! starts a track of type `MODE1/2352`, `MODE2/2352`, `MODE1/2048`, `MODE2/2336` or `AUDIO`;
//! `INDEX 01 mm:ss:ff` gives the byte position of the track's data in its file as
//! ((mm × 60 + ss) × 75 + ff) sectors. Every other command is ignored. A track ends where the next
//! track in the same file starts (its `INDEX 00` if it has one) or at the end of the file.
//!
//! Readings taken: "the same file" is the same file on disk, however the sheet spells it
//! ([`resolve_with`] takes the caller's canonical name), so two spellings of one `.bin` cannot
//! make every track run to the end of it; a track that starts where an earlier track of the same
//! file starts is the same data, and [`Track::same_as`] names that track so it is read once. A
//! cue sheet is text: one larger than [`MAX_CUE_BYTES`] is refused ([`read_sheet`]).

use std::collections::hash_map::{Entry, HashMap};
use std::io::Read;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// A track's sector type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TrackMode {
    /// Raw 2352-byte data sectors (Mode 1 or Mode 2; detected per sector).
    Raw2352,
    /// "Cooked" 2048-byte sectors (an ISO image as a track).
    Cooked2048,
    /// 2336-byte Mode 2 sectors without sync and header (listed, not scanned).
    Mode2_2336,
    /// Audio (listed, not scanned).
    Audio,
}

/// One track of a cue sheet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Track {
    /// Track number.
    pub number: u32,
    /// The file holding it.
    pub file: PathBuf,
    /// Sector type.
    pub mode: TrackMode,
    /// Byte offset of INDEX 01 in the file.
    pub start: u64,
    /// Byte offset where the track ends (filled in by [`resolve`]).
    pub end: u64,
    /// Byte offset of the INDEX 01 line in the cue sheet (for errors).
    pub cue_offset: u64,
    /// Byte offset in the file of the track's first index (INDEX 00 or 01).
    first_index: u64,
    /// The number of an earlier track holding the same bytes (same file, same start), which is
    /// read in its place (filled in by [`resolve_with`]).
    pub same_as: Option<u32>,
}

/// Largest cue sheet read, in bytes: a cue sheet is a few lines of text per track.
pub const MAX_CUE_BYTES: u64 = 1 << 20;

/// Reads a cue sheet's text, refusing one larger than [`MAX_CUE_BYTES`] before reading it all.
pub fn read_sheet(path: &Path) -> Result<String> {
    let file = std::fs::File::open(path)?;
    let size = file.metadata()?.len();
    let mut text = Vec::new();
    file.take(MAX_CUE_BYTES + 1).read_to_end(&mut text)?;
    if size.max(text.len() as u64) > MAX_CUE_BYTES {
        return Err(Error::LimitExceeded {
            offset: None,
            what: "a cue sheet (text) of that many bytes".into(),
            requested: size.max(text.len() as u64),
            limit: MAX_CUE_BYTES,
        });
    }
    String::from_utf8(text)
        .map_err(|e| cue_error(e.utf8_error().valid_up_to() as u64, "not UTF-8 text".into()))
}

impl TrackMode {
    fn sector_size(self) -> u64 {
        match self {
            TrackMode::Raw2352 | TrackMode::Audio => 2352,
            TrackMode::Cooked2048 => 2048,
            TrackMode::Mode2_2336 => 2336,
        }
    }
}

fn cue_error(offset: u64, what: String) -> Error {
    Error::Container {
        container: "cue sheet",
        offset,
        what,
    }
}

fn msf(s: &str) -> Option<u64> {
    let mut it = s.split(':').map(|p| p.parse::<u64>().ok());
    let (m, sec, f) = (it.next()??, it.next()??, it.next()??);
    (it.next().is_none() && sec < 60 && f < 75).then_some((m * 60 + sec) * 75 + f)
}

/// Parses a cue sheet; file names are resolved against `dir`. Track ends are not known yet.
pub fn parse(text: &str, dir: &Path) -> Result<Vec<Track>> {
    let mut tracks: Vec<Track> = Vec::new();
    let mut file: Option<PathBuf> = None;
    let mut pending: Option<(u32, TrackMode, PathBuf)> = None;
    let mut first_index: Option<u64> = None;
    let mut offset = 0u64;
    for line in text.split_inclusive('\n') {
        let at = offset;
        offset += line.len() as u64;
        let l = line.trim();
        let (cmd, rest) = l.split_once(char::is_whitespace).unwrap_or((l, ""));
        let rest = rest.trim();
        match cmd.to_ascii_uppercase().as_str() {
            "FILE" => {
                let name = if let Some(r) = rest.strip_prefix('"') {
                    r.split('"').next().unwrap_or("")
                } else {
                    rest.split_whitespace().next().unwrap_or("")
                };
                if name.is_empty() {
                    return Err(cue_error(at, "FILE without a file name".into()));
                }
                file = Some(dir.join(name));
            }
            "TRACK" => {
                let mut p = rest.split_whitespace();
                let number = p.next().and_then(|n| n.parse().ok());
                let mode = match p.next().map(str::to_ascii_uppercase).as_deref() {
                    Some("MODE1/2352" | "MODE2/2352") => Some(TrackMode::Raw2352),
                    Some("MODE1/2048" | "MODE2/2048") => Some(TrackMode::Cooked2048),
                    Some("MODE2/2336") => Some(TrackMode::Mode2_2336),
                    Some("AUDIO") => Some(TrackMode::Audio),
                    _ => None,
                };
                let (Some(number), Some(mode)) = (number, mode) else {
                    return Err(cue_error(at, format!("unreadable TRACK line {l:?}")));
                };
                let Some(f) = file.clone() else {
                    return Err(cue_error(at, "TRACK before any FILE".into()));
                };
                pending = Some((number, mode, f));
                first_index = None;
            }
            "INDEX" => {
                let mut p = rest.split_whitespace();
                let idx = p.next().and_then(|n| n.parse::<u32>().ok());
                let Some(sectors) = p.next().and_then(msf) else {
                    return Err(cue_error(at, format!("unreadable INDEX line {l:?}")));
                };
                let Some((number, mode, f)) = pending.as_ref() else {
                    return Err(cue_error(at, "INDEX outside a TRACK".into()));
                };
                let pos = sectors * mode.sector_size();
                if first_index.is_none() {
                    first_index = Some(pos);
                }
                if idx == Some(1) && tracks.last().map(|t| t.number) != Some(*number) {
                    tracks.push(Track {
                        number: *number,
                        file: f.clone(),
                        mode: *mode,
                        start: pos,
                        end: 0,
                        cue_offset: at,
                        first_index: first_index.unwrap_or(pos).min(pos),
                        same_as: None,
                    });
                }
            }
            _ => {}
        }
    }
    if tracks.is_empty() {
        return Err(cue_error(0, "no TRACK with an INDEX 01".into()));
    }
    Ok(tracks)
}

/// Fills in each track's end from the next track or the file's length (`len(file)`), and checks
/// every track lies inside its file. Files are compared as the sheet spells them; see
/// [`resolve_with`].
pub fn resolve(tracks: &mut [Track], len: &dyn Fn(&Path) -> Result<u64>) -> Result<()> {
    resolve_with(tracks, len, &|p| p.to_path_buf())
}

/// [`resolve`] with files compared by `canon(file)` (the file system's canonical path), so
/// two spellings of one file are one file: each track ends where the next track of that file
/// starts (its first index), whichever `FILE` line named it; a track starting where an earlier
/// one of the same file starts gets [`Track::same_as`].
pub fn resolve_with(
    tracks: &mut [Track],
    len: &dyn Fn(&Path) -> Result<u64>,
    canon: &dyn Fn(&Path) -> PathBuf,
) -> Result<()> {
    let keys: Vec<PathBuf> = tracks.iter().map(|t| canon(&t.file)).collect();
    // Per file: its tracks' starts in order, with the smallest first index from each on, to
    // find where the next track of the file begins (a binary search, not a scan per track).
    let mut by_file: HashMap<&Path, Vec<(u64, u64)>> = HashMap::new();
    for (t, k) in tracks.iter().zip(&keys) {
        by_file
            .entry(k.as_path())
            .or_default()
            .push((t.start, t.first_index));
    }
    for v in by_file.values_mut() {
        v.sort_unstable();
        for i in (0..v.len().saturating_sub(1)).rev() {
            v[i].1 = v[i].1.min(v[i + 1].1);
        }
    }
    let mut first_at: HashMap<(&Path, u64), u32> = HashMap::new();
    for (t, k) in tracks.iter_mut().zip(&keys) {
        let file_len = len(&t.file)?;
        let v = &by_file[k.as_path()];
        let next = v
            .get(v.partition_point(|&(start, _)| start <= t.start))
            .map(|&(_, first)| first.max(t.start));
        let end = next.unwrap_or(file_len);
        if t.start > file_len || end > file_len || end < t.start {
            return Err(cue_error(
                t.cue_offset,
                format!(
                    "track {} spans bytes {}..{} of {}, which holds {file_len} bytes",
                    t.number,
                    t.start,
                    end,
                    t.file.display()
                ),
            ));
        }
        t.end = end;
        match first_at.entry((k.as_path(), t.start)) {
            Entry::Occupied(e) => t.same_as = Some(*e.get()),
            Entry::Vacant(e) => {
                e.insert(t.number);
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_files_and_an_audio_track() {
        let cue = "FILE \"game.bin\" BINARY\n  TRACK 01 MODE2/2352\n    INDEX 01 00:00:00\n  TRACK 02 AUDIO\n    INDEX 00 00:02:00\n    INDEX 01 00:04:00\nFILE \"t3.bin\" BINARY\n  TRACK 03 AUDIO\n    INDEX 01 00:00:00\n";
        let mut t = parse(cue, Path::new("/d")).unwrap();
        assert_eq!(t.len(), 3);
        assert_eq!(t[0].mode, TrackMode::Raw2352);
        assert_eq!(t[1].start, 300 * 2352);
        resolve(&mut t, &|_| Ok(1000 * 2352)).unwrap();
        // Track 1 ends at track 2's INDEX 00 (2 seconds = 150 sectors).
        assert_eq!(t[0].end, 150 * 2352);
        assert_eq!(t[1].end, 1000 * 2352);
        assert_eq!(t[2].file, Path::new("/d/t3.bin"));
    }

    #[test]
    fn a_track_past_the_end_names_its_line() {
        let cue = "FILE a.bin BINARY\nTRACK 01 MODE1/2352\nINDEX 01 10:00:00\n";
        let mut t = parse(cue, Path::new(".")).unwrap();
        let e = resolve(&mut t, &|_| Ok(2352 * 10)).unwrap_err();
        assert_eq!(e.offset(), Some(38));
        assert!(e.to_string().contains("track 1"), "{e}");
    }

    #[test]
    fn two_spellings_of_one_file_are_one_file() {
        let cue = "FILE a.bin BINARY\nTRACK 01 MODE1/2048\nINDEX 01 00:00:00\n\
                   FILE x/../a.bin BINARY\nTRACK 02 MODE1/2048\nINDEX 01 00:00:10\n\
                   FILE a.bin BINARY\nTRACK 03 MODE1/2048\nINDEX 01 00:00:20\n\
                   FILE x/../a.bin BINARY\nTRACK 04 MODE1/2048\nINDEX 01 00:00:20\n";
        let mut t = parse(cue, Path::new("d")).unwrap();
        let canon = |p: &Path| PathBuf::from(p.to_string_lossy().replace("/x/../", "/"));
        resolve_with(&mut t, &|_| Ok(2048 * 30), &canon).unwrap();
        let spans: Vec<(u64, u64)> = t.iter().map(|t| (t.start / 2048, t.end / 2048)).collect();
        assert_eq!(spans, [(0, 10), (10, 20), (20, 30), (20, 30)]);
        assert_eq!(t[3].same_as, Some(3));
        // Compared as spelled, track 1 would run over track 2's bytes.
        let mut t = parse(cue, Path::new("d")).unwrap();
        resolve(&mut t, &|_| Ok(2048 * 30)).unwrap();
        assert_eq!(t[0].end, 2048 * 20);
    }

    #[test]
    fn garbage_is_an_error() {
        assert!(parse("TRACK 01 MODE1/2352\n", Path::new(".")).is_err());
        assert!(parse("FILE a BINARY\nTRACK x\n", Path::new(".")).is_err());
        assert!(parse("", Path::new(".")).is_err());
        assert!(parse(
            "FILE a BINARY\nTRACK 01 AUDIO\nINDEX 01 00:99:00\n",
            Path::new(".")
        )
        .is_err());
    }
}
