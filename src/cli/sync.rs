//! `bansha sync`.

use super::*;

pub fn run(_a: &RunArgs, _once: bool) -> CliResult {
    Err(CliError::Runtime("not built yet".into()))
}
