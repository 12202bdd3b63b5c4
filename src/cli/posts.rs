//! `bansha posts`.

use super::*;

pub fn run(_a: &PostsArgs) -> CliResult {
    Err(CliError::Runtime("not built yet".into()))
}
