//! Benchmark: store (run with `cargo bench --bench store`).

fn main() {}
