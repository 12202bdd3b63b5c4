//! `bansha demo`.

use super::*;

pub fn run(_a: &DemoArgs) -> CliResult {
    Err(CliError::Runtime("not built yet".into()))
}
