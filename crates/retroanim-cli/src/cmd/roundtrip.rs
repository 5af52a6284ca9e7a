//! `retroanim roundtrip FILE... [--json]`: read, write, compare byte for byte.

use anyhow::Result;
use serde_json::json;

use crate::cli::RoundtripArgs;
use crate::Outcome;

pub fn run(args: &RoundtripArgs) -> Result<Outcome> {
    let inputs = super::batch::expand(&args.files)?;
    if args.json {
        return super::batch::run_json(&inputs, "roundtrip", |input| {
            let (original, written, format) = again(&input.path)?;
            let at = first_difference(&original, &written);
            let findings = match at {
                None => Vec::new(),
                Some(at) => vec![super::jsonl::finding(&retroanim::Issue::error(
                    at as u64,
                    "roundtrip-difference",
                    difference(&original, &written, at),
                ))],
            };
            let fields = super::jsonl::fields(json!({
                "identical": at.is_none(),
                "bytes": original.len(),
                "written_bytes": written.len(),
                "first_difference": at,
            }));
            let line = super::jsonl::item(
                &input.path.display().to_string(),
                Some(format),
                fields,
                findings,
            );
            let outcome = if at.is_some() {
                Outcome::Findings
            } else {
                Outcome::Clean
            };
            Ok((outcome, line))
        });
    }
    let (outcome, _) = super::batch::run::<()>(&inputs, |input| {
        let shown = input.path.display();
        let (original, written, _) = again(&input.path)?;
        match first_difference(&original, &written) {
            None => {
                if !super::global().quiet {
                    outln!("{shown}: identical ({} bytes)", original.len());
                }
                Ok((Outcome::Clean, None))
            }
            Some(at) => {
                outln!("{shown}: {}", difference(&original, &written, at));
                Ok((Outcome::Findings, None))
            }
        }
    })?;
    Ok(outcome)
}

/// A file's bytes, the bytes its model writes, and its format.
fn again(path: &std::path::Path) -> Result<(Vec<u8>, Vec<u8>, retroanim::Format)> {
    // An RSD set: every part compared; the first part that differs is the one reported.
    if let Some(set) = super::rsd::set_of(path)? {
        let parts = super::rsd::again(path, &set)?;
        let differing = parts.iter().position(|(_, a, b)| a != b).unwrap_or(0);
        let (name, a, b) = parts.into_iter().nth(differing).unwrap_or_default();
        if a != b {
            errln!(
                "retroanim: {}: {name} is the part that differs",
                path.display()
            );
        }
        return Ok((a, b, retroanim::Format::Rsd));
    }
    let (bytes, model) = super::load(path)?;
    if retroanim::detect(&bytes) == Some(retroanim::Format::Json) {
        anyhow::bail!(
            "{}: a JSON dump is an editing format; round trips check binary files",
            path.display()
        );
    }
    let written = model.write()?;
    Ok((bytes, written, model.format()))
}

/// "differs at byte N …": where and how two byte strings differ.
fn difference(original: &[u8], written: &[u8], at: usize) -> String {
    let byte = |b: &[u8]| {
        b.get(at)
            .map_or("end of file".to_string(), |x| format!("0x{x:02x}"))
    };
    format!(
        "differs at byte {at} (0x{at:x}): original {}, written {} ({} vs {} bytes)",
        byte(original),
        byte(written),
        original.len(),
        written.len()
    )
}

/// The first offset where `a` and `b` differ, including one being a prefix of the other.
pub fn first_difference(a: &[u8], b: &[u8]) -> Option<usize> {
    match a.iter().zip(b).position(|(x, y)| x != y) {
        Some(i) => Some(i),
        None if a.len() != b.len() => Some(a.len().min(b.len())),
        None => None,
    }
}

#[cfg(test)]
mod tests {
    use super::first_difference;

    #[test]
    fn first_difference_finds_changes_and_length_differences() {
        assert_eq!(first_difference(b"abc", b"abc"), None);
        assert_eq!(first_difference(b"abc", b"abd"), Some(2));
        assert_eq!(first_difference(b"abc", b"ab"), Some(2));
        assert_eq!(first_difference(b"", b"x"), Some(0));
    }
}
