//! Benchmark: activity (run with `cargo bench --bench activity`).

fn main() {}
