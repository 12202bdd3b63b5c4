//! `bansha activity`.

use super::*;

pub fn run_activity(_a: &DayArgs) -> CliResult {
    Err(CliError::Runtime("not built yet".into()))
}

pub fn run_elevator(_a: &DayArgs) -> CliResult {
    Err(CliError::Runtime("not built yet".into()))
}
