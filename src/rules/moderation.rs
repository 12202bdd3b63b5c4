//! `[moderation]`: the 违规判定 of a rule set — for each flag category the clause it breaks
//! (quoted from the rule post) and the card bansha suggests, the card colours the rule set
//! has, and its escalations (3 蓝 → 黄, 3 黄 → 红, 红 → 红牌罚下, camps lost to reds).

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;

use crate::moderation::ledger::Escalation;
pub use crate::moderation::{Card, Category};
use crate::tomlfile::FileError;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModerationRules {
    /// The card colours the rule set has (a card outside this list is refused).
    pub cards: Vec<Card>,
    pub blue_to_yellow: u32,
    pub blue_to_yellow_clause: String,
    pub yellow_to_red: u32,
    pub yellow_to_red_clause: String,
    /// The clause that puts a player with a red card out.
    pub red_out_clause: String,
    /// Reds in one camp that lose the camp; absent where the director decides.
    #[serde(default)]
    pub camp_loss_reds: Option<u32>,
    #[serde(default)]
    pub camp_loss_clause: Option<String>,
    /// Meaningless posts in a row by one author that make a flood (水帖).
    #[serde(default = "default_flood_run")]
    pub flood_run: u32,
    /// Readings bansha took where the post leaves a gap.
    #[serde(default)]
    pub readings: Vec<String>,
    /// Category → clause and suggested card. A category the rule set has no clause for is
    /// never flagged under it.
    pub category: BTreeMap<Category, CategoryRule>,
}

fn default_flood_run() -> u32 {
    3
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CategoryRule {
    pub clause: String,
    pub card: Card,
}

impl ModerationRules {
    pub fn validate(&self, file: &Path, errs: &mut Vec<FileError>) {
        let mut err = |key: &str, msg: String| {
            errs.push(FileError::new(file, format!("moderation.{key}"), msg))
        };
        if self.cards.is_empty() {
            err("cards", "empty: list the colours the rule set has".into());
        }
        for (k, c) in [
            ("blue_to_yellow_clause", &self.blue_to_yellow_clause),
            ("yellow_to_red_clause", &self.yellow_to_red_clause),
            ("red_out_clause", &self.red_out_clause),
        ] {
            if c.trim().is_empty() {
                err(k, "empty: quote the rule post".into());
            }
        }
        if self.camp_loss_reds.is_some() != self.camp_loss_clause.is_some() {
            err(
                "camp_loss_reds",
                "camp_loss_reds and camp_loss_clause go together".into(),
            );
        }
        if self.flood_run == 0 {
            err("flood_run", "must be at least 1".into());
        }
        for (cat, r) in &self.category {
            if r.clause.trim().is_empty() {
                err(
                    &format!("category.{cat}.clause"),
                    "empty: quote the rule post".into(),
                );
            }
            if !self.cards.contains(&r.card) {
                err(
                    &format!("category.{cat}.card"),
                    format!("`{}` is not one of this rule set's cards", r.card.as_str()),
                );
            }
        }
    }

    pub fn escalation(&self) -> Escalation {
        Escalation {
            blue_to_yellow: self.blue_to_yellow,
            yellow_to_red: self.yellow_to_red,
            camp_loss_reds: self.camp_loss_reds,
        }
    }
}
