//! Benchmark: votes (run with `cargo bench --bench votes`).

fn main() {}
