//! `retroanim roundtrip FILE...`: read, write, compare byte for byte.

use anyhow::Result;

use crate::cli::RoundtripArgs;
use crate::Outcome;

pub fn run(args: &RoundtripArgs) -> Result<Outcome> {
    let inputs = super::batch::expand(&args.files)?;
    let (outcome, _) = super::batch::run::<()>(&inputs, |input| {
        let path = &input.path;
        let shown = path.display();
        let result = super::load(path).and_then(|(bytes, model)| {
            if retroanim::detect(&bytes) == Some(retroanim::Format::Json) {
                anyhow::bail!(
                    "{shown}: a JSON dump is an editing format; round trips check binary files"
                );
            }
            let written = model.write()?;
            Ok((bytes, written))
        });
        let (original, written) = result?;
        match first_difference(&original, &written) {
            None => {
                if !super::global().quiet {
                    outln!("{shown}: identical ({} bytes)", original.len());
                }
                Ok((Outcome::Clean, None))
            }
            Some(at) => {
                let byte = |b: &[u8]| {
                    b.get(at)
                        .map_or("end of file".to_string(), |x| format!("0x{x:02x}"))
                };
                outln!(
                        "{shown}: differs at byte {at} (0x{at:x}): original {}, written {} ({} vs {} bytes)",
                        byte(&original),
                        byte(&written),
                    original.len(),
                    written.len()
                );
                Ok((Outcome::Findings, None))
            }
        }
    })?;
    Ok(outcome)
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
