//! Throughput benchmarks.
fn main() {}
