//! `retroanim roundtrip FILE...`: read, write, compare byte for byte.

use anyhow::Result;

use crate::cli::RoundtripArgs;
use crate::Outcome;

pub fn run(args: &RoundtripArgs) -> Result<Outcome> {
    let mut outcome = Outcome::Clean;
    for path in &args.files {
        let shown = path.display();
        let result = super::load(path).and_then(|(bytes, model)| {
            let written = model.write()?;
            Ok((bytes, written))
        });
        match result {
            Err(e) => {
                eprintln!("retroanim: error: {e:#}");
                outcome = outcome.worst(Outcome::Failed);
            }
            Ok((original, written)) => match first_difference(&original, &written) {
                None => println!("{shown}: identical ({} bytes)", original.len()),
                Some(at) => {
                    outcome = outcome.worst(Outcome::Findings);
                    let byte = |b: &[u8]| {
                        b.get(at)
                            .map_or("end of file".to_string(), |x| format!("0x{x:02x}"))
                    };
                    println!(
                        "{shown}: differs at byte {at} (0x{at:x}): original {}, written {} ({} vs {} bytes)",
                        byte(&original),
                        byte(&written),
                        original.len(),
                        written.len()
                    );
                }
            },
        }
    }
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
