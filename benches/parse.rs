//! Benchmark: parse (run with `cargo bench --bench parse`).

fn main() {}
