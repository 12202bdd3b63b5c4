//! The night actions file (contract: `docs/interfaces.md`), and the answers to prompts,
//! which are actions too (`最后一枪`, `殉职` with their targets).

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ActionsFile {
    /// The random seed for draws the post allows (a skipped <强制> skill, a red-carded
    /// 警长's badge). Optional: bansha derives one and records it with the result.
    #[serde(default)]
    pub seed: Option<u64>,
    #[serde(default, rename = "action")]
    pub actions: Vec<Action>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Action {
    pub actor: String,
    /// The skill's name in the rule post.
    pub skill: String,
    #[serde(default)]
    pub targets: Vec<String>,
    /// For skills that choose something besides targets; `随机`/`random` on a prompt
    /// answer asks for a seeded draw.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub choice: Option<String>,
}

impl std::fmt::Display for Action {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} <{}>", self.actor, self.skill)?;
        if !self.targets.is_empty() {
            write!(f, " → {}", self.targets.join("、"))?;
        }
        if let Some(c) = &self.choice {
            write!(f, " ({c})")?;
        }
        Ok(())
    }
}

impl Action {
    pub fn new(actor: &str, skill: &str, targets: &[&str]) -> Action {
        Action {
            actor: actor.into(),
            skill: skill.into(),
            targets: targets.iter().map(|s| s.to_string()).collect(),
            choice: None,
        }
    }
    pub fn wants_random(&self) -> bool {
        matches!(self.choice.as_deref(), Some("随机" | "random"))
    }
}

/// An action rejected before anything was resolved.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Invalid {
    /// 1-based position in the actions file.
    pub index: usize,
    pub action: String,
    pub reason: String,
}

impl std::fmt::Display for Invalid {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "action[{}] ({}): {}",
            self.index, self.action, self.reason
        )
    }
}
