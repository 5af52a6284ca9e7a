//! Helpers for the scripts that make the files under `samples/`.

use std::path::Path;

/// Sine in 1/4096 units for a phase in 1/`period` turns, by Bhaskara I's integer approximation
/// (exact integer arithmetic, so a sample is the same on every machine).
pub fn sine_4096(phase: i64, period: i64) -> i64 {
    let p = phase.rem_euclid(period);
    let half = period / 2;
    let (x, sign) = if p < half { (p, 1) } else { (p - half, -1) };
    // sin(pi*x/half) ~ 16 x (half - x) / (5 half^2 - 4 x (half - x))
    let num = 16 * x * (half - x);
    let den = 5 * half * half - 4 * x * (half - x);
    sign * num * 4096 / den
}

/// Checks that the committed `samples/<name>` is exactly `bytes`, what its script makes
/// (`UPDATE_SAMPLES=1` rewrites it first).
pub fn check_sample(name: &str, bytes: &[u8]) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../samples")
        .join(name);
    if std::env::var("UPDATE_SAMPLES").as_deref() == Ok("1") {
        std::fs::write(&path, bytes).unwrap();
    }
    let committed = std::fs::read(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (UPDATE_SAMPLES=1 writes it)", path.display()));
    assert!(
        committed == bytes,
        "{} is not what its script makes",
        path.display()
    );
}
