//! File names for a report's files: safe on any file system and unique in the report.
//!
//! A crafted disc may name its files anything: `/`, `..`, control characters, 300-byte names,
//! names differing only in case. A report file is named from the last part of its container
//! (`DATA/CHARA.BIN` → `CHARA.BIN`) and its offset: every byte outside `A-Z a-z 0-9 . _ -`
//! becomes `_`, a leading `.` becomes `_` (no hidden files, no `..`), the part is cut to
//! [`MAX_STEM`] bytes, and a name already taken (compared without case) gets `-2`, `-3`, …

use std::collections::HashSet;

/// Longest part of a name taken from the container.
pub const MAX_STEM: usize = 48;

/// Names handed out so far.
#[derive(Debug, Default)]
pub struct Names {
    taken: HashSet<String>,
}

impl Names {
    /// A new unique stem for the asset at `offset` in `container` (no extension; callers add
    /// `.tim`, `.glb`, `.png` to it, each in its own folder).
    pub fn stem(&mut self, container: &str, offset: u64) -> String {
        let last = container
            .rsplit(['/', '\\', ':'])
            .find(|p| !p.is_empty())
            .unwrap_or("");
        let base = format!("{}-{offset:x}", safe(last));
        let mut name = base.clone();
        let mut n = 1u64;
        while !self.taken.insert(name.to_ascii_lowercase()) {
            n += 1;
            name = format!("{base}-{n}");
        }
        name
    }
}

/// `part` with every byte outside `A-Z a-z 0-9 . _ -` replaced by `_`, a leading `.` by `_`,
/// cut to [`MAX_STEM`] bytes; `asset` when empty.
pub fn safe(part: &str) -> String {
    let mut s: String = part
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .take(MAX_STEM)
        .collect();
    if s.starts_with('.') {
        s.replace_range(0..1, "_");
    }
    if s.is_empty() {
        s.push_str("asset");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hostile_names_become_safe_and_unique() {
        let mut n = Names::default();
        let long = "A".repeat(300);
        let cases = [
            "disc.iso:/DATA/../../etc/passwd",
            "disc.iso:/DATA/..",
            "x:/a\u{0}b\u{1b}[31m\n.tim",
            "x:/ÄÖ<script>",
            &long,
            "",
            "x:/CHARA.BIN",
            "y:/chara.bin",
            "x:/CHARA.BIN",
        ];
        let got: Vec<String> = cases.iter().map(|c| n.stem(c, 0x10)).collect();
        for g in &got {
            assert!(g.len() <= MAX_STEM + 12, "{g}");
            assert!(!g.starts_with('.'), "{g}");
            assert!(
                g.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b)),
                "{g}"
            );
        }
        assert_eq!(got[0], "passwd-10");
        assert_eq!(got[1], "_.-10");
        let lower: HashSet<String> = got.iter().map(|g| g.to_ascii_lowercase()).collect();
        assert_eq!(lower.len(), got.len(), "{got:?}");
        assert_eq!(got[6], "CHARA.BIN-10");
        assert_eq!(got[7], "chara.bin-10-2");
        assert_eq!(got[8], "CHARA.BIN-10-3");
    }
}
