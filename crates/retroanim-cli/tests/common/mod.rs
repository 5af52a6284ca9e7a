//! Helpers the CLI test files share.

use std::path::{Path, PathBuf};

/// A corpus file by the end of its manifest path (`None`, loudly, without the corpus).
pub fn corpus(suffix: &str) -> Option<PathBuf> {
    let dir = match std::env::var_os("RETROANIM_CORPUS") {
        Some(p) => PathBuf::from(p),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus"),
    };
    let Ok(text) = std::fs::read_to_string(dir.join("MANIFEST.tsv")) else {
        assert!(
            std::env::var("RETROANIM_REQUIRE_CORPUS").as_deref() != Ok("1"),
            "RETROANIM_REQUIRE_CORPUS=1 but {} has no MANIFEST.tsv",
            dir.display()
        );
        eprintln!("\n*** SKIPPING: no corpus at {} ***\n", dir.display());
        return None;
    };
    let name = text
        .lines()
        .filter_map(|l| l.split('\t').next())
        .find(|n| n.ends_with(suffix))
        .unwrap_or_else(|| panic!("{suffix} is not in the corpus manifest"));
    Some(dir.join(name))
}
