//! The `[activity]` section of a rule set: day length, the 潜水 clauses, 加速/延时, 诈尸, 寡言.
//!
//! A clause table that is absent means the rule set has no such clause (排球少年 has no
//! `no_vote`). Every clause quotes the rule post; verdicts name it.

use std::path::Path;

use chrono::NaiveTime;
use serde::{Deserialize, Serialize};

use crate::tomlfile::FileError;

/// A card a rule set gives for a violation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Card {
    Blue,
    Yellow,
    Red,
}

impl Card {
    pub fn as_str(self) -> &'static str {
        match self {
            Card::Blue => "blue",
            Card::Yellow => "yellow",
            Card::Red => "red",
        }
    }
    /// The card's name as the rule posts write it.
    pub fn zh(self) -> &'static str {
        match self {
            Card::Blue => "蓝牌",
            Card::Yellow => "黄牌",
            Card::Red => "红牌",
        }
    }
}

/// How players who were not in the game for the whole discussion day are judged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum PartialDay {
    /// The clauses speak of a 讨论日; a player in the game for only part of it did not have
    /// one, so 发言不足/未投票 are not judged (their posts are still counted and shown).
    #[default]
    Exempt,
    /// Judge them like everyone else.
    Judge,
}

/// How many 加速/延时 requests grant it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Threshold {
    /// 大于等于存活人数的一半.
    #[default]
    Half,
    /// 过半数: more than half.
    Majority,
}

impl Threshold {
    /// Whether `requests` out of `living` reach the threshold.
    pub fn reached(self, requests: usize, living: usize) -> bool {
        if living == 0 {
            return false;
        }
        match self {
            Threshold::Half => requests * 2 >= living,
            Threshold::Majority => requests * 2 > living,
        }
    }
}

#[derive(Debug, Clone, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct ActivityRules {
    /// Natural days a discussion day lasts (一般讨论日持续两天 → 2).
    #[serde(default = "one")]
    pub day_length: u32,
    /// 每逢周末时讨论日延长一天.
    #[serde(default)]
    pub weekend_adds_day: bool,
    /// When a day usually opens / closes (`HH:MM`), for the proposed schedule.
    #[serde(default = "default_opens")]
    pub opens_at: String,
    #[serde(default = "default_closes")]
    pub closes_at: String,
    /// When ballots stop (`HH:MM`), where voting outlasts the discussion (排球少年: 「20：30关门
    /// 投票 21：00投票结束」): the proposed schedule's `vote_closes`.
    #[serde(default)]
    pub vote_closes_at: Option<String>,
    /// 「讨论结束时，未回复投票帖者将被判罚黄牌」 (空洞骑士): 未投票 means no reply in the 投票帖
    /// by the end of voting, not "no ballot that counts".
    #[serde(default)]
    pub no_vote_means_no_reply: bool,
    /// Players in this status are not judged for 潜水/未投票 (灵族杀 挂机: 「不能继续参与讨论、
    /// 投票」); a red-carded player enters it (`red_card_status`).
    #[serde(default)]
    pub exempt_statuses: Vec<String>,
    /// A red card puts the player in this status rather than out (灵族杀: 「被红牌罚下的角色
    /// 自动进入挂机状态」).
    #[serde(default)]
    pub red_card_status: Option<String>,
    /// The sentence that exempts those players (cited in the report).
    #[serde(default)]
    pub exempt_clause: String,
    /// The rule post's words on day length.
    #[serde(default)]
    pub day_clause: String,
    /// Whether posts in the 投票帖 count toward a player's posts (default no).
    #[serde(default)]
    pub count_vote_thread: bool,
    #[serde(default)]
    pub partial_day: PartialDay,
    /// Readings this section takes where the rule post is silent or ambiguous; shown in
    /// the report.
    #[serde(default)]
    pub readings: Vec<String>,
    pub few_posts: Option<PostsClause>,
    pub three_days_few_posts: Option<StreakClause>,
    pub no_vote: Option<Clause>,
    pub zombie_post: Option<Clause>,
    pub acceleration: Option<Acceleration>,
    /// 寡言 (空洞骑士).
    pub taciturn: Option<Taciturn>,
}

fn one() -> u32 {
    1
}
fn default_opens() -> String {
    "09:00".into()
}
fn default_closes() -> String {
    "21:00".into()
}

/// A clause with a fixed card.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Clause {
    pub card: Card,
    /// The rule post's words.
    pub clause: String,
}

/// 发言不足 N 帖.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PostsClause {
    pub min_posts: u32,
    pub card: Card,
    pub clause: String,
}

/// 连续 N 个讨论日发言均不足 M 帖.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StreakClause {
    pub min_posts: u32,
    pub days: u32,
    pub card: Card,
    pub clause: String,
}

/// 加速/延时 requests in the 进程帖.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Acceleration {
    /// Requests count until this many hours before 关门.
    #[serde(default = "three")]
    pub deadline_hours: u32,
    #[serde(default)]
    pub threshold: Threshold,
    /// Whether the rule set has 延时 at all.
    #[serde(default)]
    pub delay: bool,
    pub clause: String,
    /// 延迟成功时，不再视为“执行加速”状态.
    #[serde(default)]
    pub delay_clause: String,
    /// 执行加速时…发言不足或未投票者将不被判罚.
    #[serde(default)]
    pub exempt_clause: String,
}

fn three() -> u32 {
    3
}

/// 寡言: at most `max_posts` posts a day of at most `max_chars` characters, no 投票理由.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Taciturn {
    /// The status name as the rule post writes it (`寡言`).
    pub status: String,
    pub max_posts: u32,
    pub max_chars: u32,
    pub card: Card,
    pub clause: String,
}

/// `HH:MM`.
pub fn parse_hm(s: &str) -> Option<NaiveTime> {
    NaiveTime::parse_from_str(s.trim(), "%H:%M").ok()
}

impl ActivityRules {
    pub fn validate(&self, file: &Path, errs: &mut Vec<FileError>) {
        let mut err = |key: &str, msg: String| {
            errs.push(FileError::new(file, format!("activity.{key}"), msg))
        };
        if self.day_length == 0 || self.day_length > 7 {
            err(
                "day_length",
                format!(
                    "{} natural days is not a day length (1..=7)",
                    self.day_length
                ),
            );
        }
        if parse_hm(&self.opens_at).is_none() {
            err("opens_at", format!("`{}` is not HH:MM", self.opens_at));
        }
        if let Some(v) = &self.vote_closes_at
            && parse_hm(v).is_none_or(|t| parse_hm(&self.closes_at).is_some_and(|c| t < c))
        {
            err(
                "vote_closes_at",
                format!("`{v}` is not HH:MM at or after closes_at"),
            );
        }
        if parse_hm(&self.closes_at).is_none() {
            err("closes_at", format!("`{}` is not HH:MM", self.closes_at));
        }
        let mut clause = |key: &str, c: &str| {
            if c.trim().is_empty() {
                err(
                    &format!("{key}.clause"),
                    "empty: quote the rule post".into(),
                );
            }
        };
        if let Some(c) = &self.few_posts {
            clause("few_posts", &c.clause);
        }
        if let Some(c) = &self.three_days_few_posts {
            clause("three_days_few_posts", &c.clause);
        }
        if let Some(c) = &self.no_vote {
            clause("no_vote", &c.clause);
        }
        if let Some(c) = &self.zombie_post {
            clause("zombie_post", &c.clause);
        }
        if let Some(c) = &self.acceleration {
            clause("acceleration", &c.clause);
        }
        if let Some(c) = &self.taciturn {
            clause("taciturn", &c.clause);
        }
        let mut err = |key: &str, msg: String| {
            errs.push(FileError::new(file, format!("activity.{key}"), msg))
        };
        if let Some(c) = &self.few_posts
            && c.min_posts == 0
        {
            err("few_posts.min_posts", "must be at least 1".into());
        }
        if let Some(c) = &self.three_days_few_posts {
            if c.min_posts == 0 {
                err(
                    "three_days_few_posts.min_posts",
                    "must be at least 1".into(),
                );
            }
            if c.days < 2 {
                err("three_days_few_posts.days", "must be at least 2".into());
            }
        }
        if let Some(a) = &self.acceleration
            && a.deadline_hours > 72
        {
            err(
                "acceleration.deadline_hours",
                format!("{} hours before 关门 is not a deadline", a.deadline_hours),
            );
        }
        if let Some(t) = &self.taciturn {
            if t.status.trim().is_empty() {
                err("taciturn.status", "empty status name".into());
            }
            if t.max_posts == 0 || t.max_chars == 0 {
                err(
                    "taciturn",
                    "max_posts and max_chars must be at least 1".into(),
                );
            }
        }
    }

    pub fn opens_time(&self) -> NaiveTime {
        parse_hm(&self.opens_at).unwrap_or(NaiveTime::from_hms_opt(9, 0, 0).unwrap())
    }
    pub fn closes_time(&self) -> NaiveTime {
        parse_hm(&self.closes_at).unwrap_or(NaiveTime::from_hms_opt(21, 0, 0).unwrap())
    }
    pub fn vote_closes_time(&self) -> Option<NaiveTime> {
        self.vote_closes_at.as_deref().and_then(parse_hm)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<ActivityRules, String> {
        let r: ActivityRules =
            crate::tomlfile::parse_toml(Path::new("r.toml"), text).map_err(|e| e.to_string())?;
        let mut errs = Vec::new();
        r.validate(Path::new("r.toml"), &mut errs);
        if errs.is_empty() {
            Ok(r)
        } else {
            Err(errs
                .iter()
                .map(|e| e.to_string())
                .collect::<Vec<_>>()
                .join("\n"))
        }
    }

    #[test]
    fn bad_values_are_reported_with_keys() {
        let e = parse(
            "day_length = 0\nopens_at = \"9点\"\n[few_posts]\nmin_posts = 0\ncard = \"yellow\"\nclause = \" \"\n",
        )
        .unwrap_err();
        assert!(e.contains("r.toml:activity.day_length"), "{e}");
        assert!(e.contains("r.toml:activity.opens_at: `9点`"), "{e}");
        assert!(e.contains("activity.few_posts.clause: empty"), "{e}");
        assert!(e.contains("activity.few_posts.min_posts"), "{e}");
    }

    #[test]
    fn unknown_card_is_rejected() {
        let e = parse("[no_vote]\ncard = \"green\"\nclause = \"x\"\n").unwrap_err();
        assert!(e.contains("green"), "{e}");
    }

    #[test]
    fn thresholds() {
        assert!(Threshold::Half.reached(3, 6));
        assert!(!Threshold::Half.reached(2, 5));
        assert!(Threshold::Half.reached(3, 5));
        assert!(!Threshold::Majority.reached(3, 6));
        assert!(Threshold::Majority.reached(4, 6));
        assert!(!Threshold::Half.reached(0, 0));
    }
}
