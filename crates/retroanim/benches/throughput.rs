//! Throughput benchmarks (placeholder until the benchmark issue fills it in).

fn main() {}
