//! Benchmark: daemon (run with `cargo bench --bench daemon`).

fn main() {}
