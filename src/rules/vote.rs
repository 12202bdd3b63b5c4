//! The `[vote]` section of a rule set: everything about ballots and tallies that differs
//! between games, as data. The tally (`crate::votes`) reads only this.
//!
//! Clause texts quote the rule post; every verdict the tally returns names one of them.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;

use crate::tomlfile::FileError;

/// An exact vote weight in tenths (1.5 = 15): sums never drift.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Weight(pub i64);

impl Weight {
    pub const ZERO: Weight = Weight(0);
    pub const ONE: Weight = Weight(10);

    /// From a decimal number with at most one fractional digit.
    pub fn from_f64(x: f64) -> Option<Weight> {
        if !x.is_finite() {
            return None;
        }
        let t = (x * 10.0).round();
        if (t - x * 10.0).abs() > 1e-6 || t.abs() > 1e12 {
            return None;
        }
        Some(Weight(t as i64))
    }

    pub fn from_int(n: i64) -> Weight {
        Weight(n * 10)
    }

    pub fn as_f64(self) -> f64 {
        self.0 as f64 / 10.0
    }
}

impl std::ops::Add for Weight {
    type Output = Weight;
    fn add(self, o: Weight) -> Weight {
        Weight(self.0 + o.0)
    }
}

impl std::ops::AddAssign for Weight {
    fn add_assign(&mut self, o: Weight) {
        self.0 += o.0
    }
}

impl std::ops::Sub for Weight {
    type Output = Weight;
    fn sub(self, o: Weight) -> Weight {
        Weight(self.0 - o.0)
    }
}

impl std::fmt::Display for Weight {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.0 % 10 == 0 {
            write!(f, "{}", self.0 / 10)
        } else {
            let sign = if self.0 < 0 { "-" } else { "" };
            write!(f, "{sign}{}.{}", (self.0 / 10).abs(), (self.0 % 10).abs())
        }
    }
}

impl serde::Serialize for Weight {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if self.0 % 10 == 0 {
            s.serialize_i64(self.0 / 10)
        } else {
            s.serialize_f64(self.as_f64())
        }
    }
}

/// What a day's vote decides.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, serde::Serialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    /// Elects the 警长.
    Election,
    /// The top is out.
    #[default]
    Elimination,
    /// Succeeds only with more than half of the living players on one target.
    Majority,
}

impl Mode {
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Election => "election",
            Mode::Elimination => "elimination",
            Mode::Majority => "majority",
        }
    }
}

/// How an election tie is settled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum ElectionTie {
    /// The tied player who first reached the highest count wins (最先获得最多投票).
    FirstToReach,
    /// No one is elected (平票则本局无警长).
    #[default]
    None,
}

/// What the public 公示 may show.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Secrecy {
    /// Who voted for whom, and the counts.
    #[default]
    Open,
    /// Counts only: never who voted for whom (匿名投票).
    Anonymous,
    /// Who voted for whom, but no counts: only the top is named (投票计数隐藏).
    TopOnly,
}

/// One step of the elimination tie-break, tried in order until one decides.
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum TieBreak {
    /// A living player with `role` who has not lost the skill (no `lost_status` on the
    /// day) goes out instead (替罪羊<冤死>).
    RoleOut {
        role: String,
        skill: String,
        #[serde(default)]
        lost_status: Option<String>,
        clause: String,
    },
    /// The 警长's target goes out if the 警长 voted validly.
    SheriffTarget { clause: String },
    /// No one goes out.
    Nobody { clause: String },
}

impl TieBreak {
    pub fn clause(&self) -> &str {
        match self {
            TieBreak::RoleOut { clause, .. }
            | TieBreak::SheriffTarget { clause }
            | TieBreak::Nobody { clause } => clause,
        }
    }
}

/// A weight rule. Applied in file order; `status-zero` wins over everything.
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum WeightRule {
    /// The 警长's ballot counts `add` more.
    Sheriff { add: f64, clause: String },
    /// A player with `role` declares a secret weight 1..X to the director (`vote-weight`
    /// event); X = living players whose role is in `subordinates` + 1.
    Declared {
        role: String,
        #[serde(default)]
        subordinates: Vec<String>,
        clause: String,
    },
    /// Each player with `role` counts `add` more while `min_alive` or more of them live.
    Group {
        role: String,
        min_alive: usize,
        add: f64,
        clause: String,
    },
    /// Players with these roles each count `add` more when they all vote the same target.
    /// A voter holding one of `off_statuses` on the day has lost the skill (遗忘, 业炎).
    Pair {
        roles: Vec<String>,
        add: f64,
        #[serde(default)]
        off_statuses: Vec<String>,
        /// The sentence that switches the skill off (cited when it does).
        #[serde(default)]
        off_clause: String,
        clause: String,
    },
    /// A voter counts `add` more per `status` held on the day (stackable: one `status`
    /// event each). `secret`: the post keeps it secret (导演暗记), so no public output may
    /// print a figure it changes.
    StatusAdd {
        status: String,
        add: f64,
        #[serde(default)]
        secret: bool,
        clause: String,
    },
    /// A player with `role` counts `add` more per time a player holding `status` went out.
    PerOut {
        role: String,
        status: String,
        add: f64,
        clause: String,
    },
    /// A voter holding `status` on the day counts 0 (still a ballot).
    StatusZero { status: String, clause: String },
    /// A target holding `status` on the day receives `add` more per event (诽谤).
    StatusReceived {
        status: String,
        add: f64,
        clause: String,
    },
}

impl WeightRule {
    pub fn clause(&self) -> &str {
        match self {
            WeightRule::Sheriff { clause, .. }
            | WeightRule::Declared { clause, .. }
            | WeightRule::Group { clause, .. }
            | WeightRule::Pair { clause, .. }
            | WeightRule::PerOut { clause, .. }
            | WeightRule::StatusZero { clause, .. }
            | WeightRule::StatusAdd { clause, .. }
            | WeightRule::StatusReceived { clause, .. } => clause,
        }
    }
    fn add(&self) -> Option<f64> {
        match self {
            WeightRule::Sheriff { add, .. }
            | WeightRule::Group { add, .. }
            | WeightRule::Pair { add, .. }
            | WeightRule::PerOut { add, .. }
            | WeightRule::StatusAdd { add, .. }
            | WeightRule::StatusReceived { add, .. } => Some(*add),
            _ => None,
        }
    }
    /// A weight the rule post keeps from the public (皇权 declared to the director, 导演暗记).
    pub fn is_secret(&self) -> bool {
        matches!(
            self,
            WeightRule::Declared { .. } | WeightRule::StatusAdd { secret: true, .. }
        )
    }
}

/// Clause ids the tally may cite; each rule file quotes its own sentence for each.
pub const CLAUSE_IDS: &[&str] = &[
    "format",
    "one-vote",
    "voter",
    "target",
    "target-out",
    "after-close",
    "change-reply",
    "change-limit",
    "change-last-hour",
    "change-accelerated",
    "change-exempt",
    "no-change",
    "proxy",
    "reason-forbidden",
    "voter-barred",
    "election",
    "elimination",
    "majority",
    "survive",
    "secrecy",
    "last-day",
    "red-card-after-vote",
    "unannounced-deaths",
    "undefined-status",
    "vote-cancelled",
    "secret-status",
    "punctuation",
];

#[derive(Debug, Clone, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct VoteRules {
    /// Days whose vote elects the 警长.
    #[serde(default)]
    pub election_days: Vec<u32>,
    /// What every other day's vote decides.
    #[serde(default = "default_mode")]
    pub mode: Mode,
    /// Election ties.
    #[serde(default = "default_election_tie")]
    pub election_tie: ElectionTie,
    /// How many 改票 a voter has per day; absent = unlimited (the last valid one counts);
    /// 0 = no 改票.
    #[serde(default)]
    pub change_limit: Option<u32>,
    /// A 改票 must reply to (quote) the voter's own vote floor.
    #[serde(default)]
    pub change_must_reply: bool,
    /// No 改票 in this many minutes before 关门 (0 = allowed until 关门).
    #[serde(default)]
    pub change_cutoff_minutes: u32,
    /// No 改票 while the day is accelerated (加速).
    #[serde(default)]
    pub no_change_when_accelerated: bool,
    /// A 改票 made because the voter's target went out during the day is exempt from the
    /// windows and the limit (空洞骑士: 投票的角色在正午就已出局).
    #[serde(default)]
    pub change_exempt_if_target_out: bool,
    /// No 代投 in this many minutes before 关门.
    #[serde(default)]
    pub proxy_cutoff_minutes: u32,
    /// Voters holding one of these statuses may not write a 投票理由 (寡言).
    #[serde(default)]
    pub reason_forbidden_statuses: Vec<String>,
    /// Voters holding one of these statuses cannot vote (挂机, 投票无效).
    #[serde(default)]
    pub voter_barred_statuses: Vec<String>,
    /// A top holding one of these statuses is not voted out (霸道, 不死 → 平安日).
    #[serde(default)]
    pub survive_statuses: Vec<String>,
    /// A red card recorded at 关门 is settled after the vote: the carded player's ballot and
    /// the votes for them still count (「白天结束时红牌罚下的出局结算在投票结算之后执行」).
    #[serde(default)]
    pub red_card_after_vote: bool,
    /// A red-carded player is not out but enters this status (灵族杀: 「被红牌罚下的角色自动进入
    /// 挂机状态」): from the card on, they cannot vote and can still be voted for.
    #[serde(default)]
    pub red_card_status: Option<String>,
    /// Days whose vote comes before the previous night's deaths are announced (灵族杀 day 1:
    /// 「不公示死讯，进行警长竞选与讨论」): `night` outs do not bar voting or being voted for.
    #[serde(default)]
    pub unannounced_night_deaths_days: Vec<u32>,
    /// Statuses whose vote effect the post names but never defines (空洞骑士 [自由][独裁][秩序]):
    /// the tally counts the ballot as plain and tells the director it could not apply them.
    #[serde(default)]
    pub undefined_statuses: Vec<String>,
    /// A status on any player that cancels the day's vote (骑士<决斗> on a 狼人阵营 target).
    #[serde(default)]
    pub cancel_statuses: Vec<String>,
    /// Statuses whose effect the director does not announce (排球少年 <镇压>): no public output
    /// may show them, nor print a figure they change.
    #[serde(default)]
    pub secret_statuses: Vec<String>,
    /// The game's last day, whose vote must succeed (majority games).
    #[serde(default)]
    pub last_day: Option<u32>,
    /// What the public 公示 may show.
    #[serde(default = "default_secrecy")]
    pub secrecy: Secrecy,
    #[serde(default, rename = "weight")]
    pub weights: Vec<WeightRule>,
    #[serde(default, rename = "tie_break")]
    pub tie_breaks: Vec<TieBreak>,
    /// Clause texts quoted from the rule post, by id (see [`CLAUSE_IDS`]).
    #[serde(default)]
    pub clauses: BTreeMap<String, String>,
    /// Readings this section takes where the rule post is ambiguous.
    #[serde(default)]
    pub notes: Vec<String>,
}

fn default_mode() -> Mode {
    Mode::Elimination
}
fn default_election_tie() -> ElectionTie {
    ElectionTie::None
}
fn default_secrecy() -> Secrecy {
    Secrecy::Open
}

impl VoteRules {
    pub fn mode_on(&self, day: u32) -> Mode {
        if self.election_days.contains(&day) {
            Mode::Election
        } else {
            self.mode
        }
    }

    /// The quoted sentence for a clause id ("" if the file has none; validation makes
    /// sure the ones a file's settings need are there).
    pub fn clause(&self, id: &str) -> &str {
        self.clauses.get(id).map(String::as_str).unwrap_or("")
    }

    /// The public 公示 may print no vote count: a secret weight or a secret status would
    /// change it, and a reader who knows the rest could subtract (decided by the rule set,
    /// never by the day's data, so the absence of a figure reveals nothing either).
    pub fn counts_are_secret(&self) -> bool {
        self.weights.iter().any(WeightRule::is_secret) || !self.secret_statuses.is_empty()
    }

    /// Clause ids this section's settings make the tally cite.
    fn needed_clauses(&self) -> Vec<&'static str> {
        let mut v = vec![
            "format",
            "one-vote",
            "voter",
            "target",
            "target-out",
            "after-close",
            "proxy",
        ];
        if !self.election_days.is_empty() {
            v.push("election");
        }
        v.push(match self.mode {
            Mode::Majority => "majority",
            _ => "elimination",
        });
        match self.change_limit {
            Some(0) => v.push("no-change"),
            Some(_) => v.push("change-limit"),
            None => {}
        }
        if self.change_limit != Some(0) {
            if self.change_must_reply {
                v.push("change-reply");
            }
            if self.change_cutoff_minutes > 0 {
                v.push("change-last-hour");
            }
            if self.no_change_when_accelerated {
                v.push("change-accelerated");
            }
            if self.change_exempt_if_target_out {
                v.push("change-exempt");
            }
        }
        if !self.reason_forbidden_statuses.is_empty() {
            v.push("reason-forbidden");
        }
        if !self.voter_barred_statuses.is_empty() {
            v.push("voter-barred");
        }
        if !self.survive_statuses.is_empty() {
            v.push("survive");
        }
        if self.secrecy != Secrecy::Open {
            v.push("secrecy");
        }
        if self.last_day.is_some() {
            v.push("last-day");
        }
        if self.red_card_after_vote {
            v.push("red-card-after-vote");
        }
        if !self.unannounced_night_deaths_days.is_empty() {
            v.push("unannounced-deaths");
        }
        if !self.undefined_statuses.is_empty() {
            v.push("undefined-status");
        }
        if !self.cancel_statuses.is_empty() {
            v.push("vote-cancelled");
        }
        if !self.secret_statuses.is_empty() {
            v.push("secret-status");
        }
        if self.red_card_status.is_some() {
            v.push("voter-barred");
        }
        v
    }

    pub fn validate(&self, file: &Path, errs: &mut Vec<FileError>) {
        let mut err = |key: String, msg: String| errs.push(FileError::new(file, key, msg));
        for k in self.clauses.keys() {
            if !CLAUSE_IDS.contains(&k.as_str()) {
                err(
                    format!("vote.clauses.{k}"),
                    format!("unknown clause id (known: {})", CLAUSE_IDS.join(", ")),
                );
            }
        }
        for id in self.needed_clauses() {
            match self.clauses.get(id) {
                None => err(
                    format!("vote.clauses.{id}"),
                    "missing: the settings of this [vote] section cite this clause; quote the rule post's sentence".into(),
                ),
                Some(t) if t.trim().is_empty() => {
                    err(format!("vote.clauses.{id}"), "empty clause text".into())
                }
                _ => {}
            }
        }
        if self.mode == Mode::Election {
            err(
                "vote.mode".into(),
                "`election` is set per day with `election_days`; mode is what the other days decide".into(),
            );
        }
        if self.election_days.contains(&0) {
            err("vote.election_days".into(), "days are 1-based".into());
        }
        if self.change_cutoff_minutes > 24 * 60 {
            err(
                "vote.change_cutoff_minutes".into(),
                "more than a day".into(),
            );
        }
        if self.proxy_cutoff_minutes > 24 * 60 {
            err("vote.proxy_cutoff_minutes".into(), "more than a day".into());
        }
        if self.mode == Mode::Majority && !self.tie_breaks.is_empty() {
            err(
                "vote.tie_break".into(),
                "a majority vote has no tie-break".into(),
            );
        }
        for (i, w) in self.weights.iter().enumerate() {
            if w.clause().trim().is_empty() {
                err(
                    format!("vote.weight[{i}].clause"),
                    "empty clause text".into(),
                );
            }
            if let Some(a) = w.add()
                && Weight::from_f64(a).is_none()
            {
                err(
                    format!("vote.weight[{i}].add"),
                    format!("{a} is not a number with at most one decimal (e.g. 1.5)"),
                );
            }
            if let WeightRule::Pair { roles, .. } = w
                && roles.len() < 2
            {
                err(
                    format!("vote.weight[{i}].roles"),
                    "a pair needs at least two roles".into(),
                );
            }
            if let WeightRule::Group { min_alive, .. } = w
                && *min_alive == 0
            {
                err(
                    format!("vote.weight[{i}].min_alive"),
                    "must be at least 1".into(),
                );
            }
        }
        let n = self.tie_breaks.len();
        for (i, t) in self.tie_breaks.iter().enumerate() {
            if t.clause().trim().is_empty() {
                err(
                    format!("vote.tie_break[{i}].clause"),
                    "empty clause text".into(),
                );
            }
            if matches!(t, TieBreak::Nobody { .. }) && i + 1 != n {
                err(
                    format!("vote.tie_break[{i}]"),
                    "`nobody` decides every tie: later steps can never apply".into(),
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weights_are_exact() {
        let w = Weight::from_f64(1.5).unwrap()
            + Weight::from_f64(1.5).unwrap()
            + Weight::from_f64(2.5).unwrap();
        assert_eq!(w, Weight(55));
        assert_eq!(w.to_string(), "5.5");
        assert_eq!(serde_json::to_string(&w).unwrap(), "5.5");
        assert_eq!(serde_json::to_string(&Weight(20)).unwrap(), "2");
        assert_eq!(Weight::from_f64(0.25), None);
        assert_eq!(Weight(-5).to_string(), "-0.5");
    }

    fn check(text: &str) -> Vec<String> {
        #[derive(Deserialize)]
        struct W {
            vote: VoteRules,
        }
        let p = Path::new("rules/x.toml");
        let w: W = crate::tomlfile::parse_toml(p, text).unwrap();
        let mut errs = Vec::new();
        w.vote.validate(p, &mut errs);
        errs.iter().map(|e| e.to_string()).collect()
    }

    #[test]
    fn missing_clause_is_named_with_file_and_key() {
        let e = check("[vote]\nchange_limit = 1\n[vote.clauses]\nformat = \"x\"\n");
        assert!(
            e.iter()
                .any(|e| e.starts_with("rules/x.toml:vote.clauses.change-limit: missing")),
            "{e:?}"
        );
    }

    #[test]
    fn bad_weight_and_tie_break_order_are_rejected() {
        let base = "[vote]\n[vote.clauses]\nformat=\"a\"\none-vote=\"a\"\nvoter=\"a\"\ntarget=\"a\"\ntarget-out=\"a\"\nafter-close=\"a\"\nproxy=\"a\"\nelimination=\"a\"\n";
        assert!(check(base).is_empty(), "{:?}", check(base));
        let e = check(&format!(
            "{base}[[vote.weight]]\nkind=\"sheriff\"\nadd=0.25\nclause=\"c\"\n[[vote.tie_break]]\nkind=\"nobody\"\nclause=\"n\"\n[[vote.tie_break]]\nkind=\"sheriff-target\"\nclause=\"s\"\n"
        ));
        assert!(e.iter().any(|e| e.contains("vote.weight[0].add")), "{e:?}");
        assert!(e.iter().any(|e| e.contains("vote.tie_break[0]")), "{e:?}");
        let e = check(&format!("{base}bogus = \"x\"\n"));
        assert!(
            e.iter()
                .any(|e| e.contains("vote.clauses.bogus: unknown clause id")),
            "{e:?}"
        );
    }
}
