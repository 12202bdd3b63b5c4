//! Vote weights `bansha tally` reads from the rule file; no night behaviour.

use serde::{Deserialize, Serialize};

use super::{Behaviour, kind};

/// No night behaviour: a vote weight `bansha tally` applies from the rule file's
/// `[vote]` section (皇权, 集群, 带队).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Tally {}

impl Behaviour for kind::Tally {}
