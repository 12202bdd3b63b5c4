//! `bansha tally`.

use super::*;

pub fn run(_a: &TallyArgs) -> CliResult {
    Err(CliError::Runtime("not built yet".into()))
}
