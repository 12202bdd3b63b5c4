//! Rule sets: one TOML file per game in `rules/`, written from the rule posts in
//! `rules/posts/` (kept in the repository). Each section belongs to one part of bansha:
//! `[vote]` to the tally ([`vote`]), `[activity]` to activity and compliance ([`activity`]).
//! Every verdict bansha returns names the clause (quoted from the rule post) it applied.

pub mod activity;
pub mod clauses;
pub mod moderation;
pub mod vote;

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::tomlfile::{FileError, FileErrors, load_toml};

/// Where the rule posts live, relative to the repository root: a rule file's `[meta] source`
/// names a file in this folder. The posts are the specification, kept as data in the tree.
pub const POSTS_DIR: &str = "rules/posts";

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RuleSet {
    pub meta: Meta,
    pub vote: vote::VoteRules,
    pub activity: activity::ActivityRules,
    /// `[engine]`: roles, skills, night order, settlement, win/loss (bansha-engine).
    #[serde(default)]
    pub engine: Option<bansha_engine::EngineRules>,
    /// `[moderation]`: the 违规判定 clauses and cards (absent: flags are unavailable).
    #[serde(default)]
    pub moderation: Option<moderation::ModerationRules>,
    /// `[manor]`: a 暴风雪山庄 game — places, templates, the murderer's plan
    /// (bansha-engine's `manor` module).
    #[serde(default)]
    pub manor: Option<bansha_engine::manor::ManorRules>,
    #[serde(skip)]
    pub path: PathBuf,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Meta {
    /// The game's name as the rule post titles it.
    pub name: String,
    /// The rule post this file was written from (file name in `rules/posts/`, [`POSTS_DIR`]).
    pub source: String,
    /// Places where the rule post is ambiguous and this file takes the literal reading;
    /// shown in reports so directors see the choice.
    #[serde(default)]
    pub readings: Vec<String>,
}

impl RuleSet {
    /// Load and validate; every problem is reported as `file:key: message`.
    pub fn load(path: &Path) -> Result<RuleSet, FileErrors> {
        let mut r: RuleSet = load_toml(path).map_err(|e| FileErrors(vec![e]))?;
        r.path = path.to_path_buf();
        let mut errs = Vec::new();
        r.validate(&mut errs);
        if errs.is_empty() {
            Ok(r)
        } else {
            Err(FileErrors(errs))
        }
    }

    fn validate(&self, errs: &mut Vec<FileError>) {
        if self.meta.name.trim().is_empty() {
            errs.push(FileError::new(&self.path, "meta.name", "empty"));
        }
        self.vote.validate(&self.path, errs);
        self.activity.validate(&self.path, errs);
        if let Some(e) = &self.engine {
            for (key, msg) in e.validate() {
                errs.push(FileError::new(&self.path, key, msg));
            }
        }
        if let Some(m) = &self.moderation {
            m.validate(&self.path, errs);
        }
        if let Some(m) = &self.manor {
            for (key, msg) in m.validate() {
                errs.push(FileError::new(&self.path, key, msg));
            }
        }
    }
}

/// `bansha check-rules FILE...`: all problems of all files.
pub fn check_files(paths: &[PathBuf]) -> Result<Vec<RuleSet>, FileErrors> {
    let mut ok = Vec::new();
    let mut errs = Vec::new();
    for p in paths {
        match RuleSet::load(p) {
            Ok(r) => ok.push(r),
            Err(FileErrors(e)) => errs.extend(e),
        }
    }
    if errs.is_empty() {
        Ok(ok)
    } else {
        Err(FileErrors(errs))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all_rule_files() -> Vec<PathBuf> {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("rules");
        [
            "075-zhifou",
            "huangquan",
            "M213-hollow-knight",
            "M114-blizzard-manor",
            "lingzu",
        ]
        .iter()
        .map(|n| dir.join(format!("{n}.toml")))
        .collect()
    }

    #[test]
    fn all_five_rule_files_check() {
        let sets = check_files(&all_rule_files()).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(sets.len(), 5);
        for s in &sets {
            assert!(
                s.moderation.is_some(),
                "{}: no [moderation]",
                s.path.display()
            );
        }
    }

    #[test]
    fn unknown_key_in_rule_file_is_rejected_with_location() {
        let p = &all_rule_files()[0];
        let text = std::fs::read_to_string(p)
            .unwrap()
            .replacen("[meta]", "[meta]\nbogus = 1", 1);
        let e = crate::tomlfile::parse_toml::<RuleSet>(p, &text)
            .unwrap_err()
            .to_string();
        assert!(e.contains("075-zhifou.toml") && e.contains("bogus"), "{e}");
    }
}
