//! The `[vote]` section of a rule set.

use std::path::Path;

use serde::Deserialize;

use crate::tomlfile::FileError;

#[derive(Debug, Clone, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct VoteRules {}

impl VoteRules {
    pub fn validate(&self, _file: &Path, _errs: &mut Vec<FileError>) {}
}
