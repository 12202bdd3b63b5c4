//! `bansha import`.

use super::*;

pub fn run(_a: &ImportArgs) -> CliResult {
    Err(CliError::Runtime("not built yet".into()))
}
