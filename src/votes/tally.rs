//! The tally: every ballot-shaped post of a day judged by the rule set, weights, totals and
//! the outcome. Pure: no store, no clock.
//!
//! [`tally`] is a pipeline; each phase has its own file:
//! 1. [`super::collect`] — the day's ballot-shaped posts and recorded 代投, in time order;
//! 2. [`super::judge`] — each ballot against the clauses in force at its moment (加速 since
//!    T, out at T, 挂机 since T, statuses on the day), then which still count at the end;
//! 3. [`super::weigh`] — each counted ballot's weight;
//! 4. [`super::totals`] — votes received per player;
//! 5. [`super::outcome`] — elected / eliminated / none, with tie-breaks;
//! 6. [`super::public`] — the secrecy filter: what the public 公示 may show.
//!
//! Facts reach the phases with their times through [`Ctx`].

use std::collections::{HashMap, HashSet};

use serde::Serialize;

use crate::config::Config;
use crate::model::{LockKind, Post, Timestamp};
use crate::roster::{Fact, Roster};
use crate::rules::vote::{Mode, Secrecy, VoteRules, Weight};

/// Everything a tally needs, all of it data.
pub struct TallyInput<'a> {
    pub day: u32,
    pub rules: &'a VoteRules,
    /// The rule file's `[meta] readings` (shown in the report).
    pub readings: &'a [String],
    /// Players, directors, `[[event]]`s (`vote-weight`, `proxy-vote`), timezone, forum.
    pub config: &'a Config,
    pub roster: &'a Roster,
    /// The day's vote-thread posts (any order).
    pub posts: &'a [Post],
    /// 关门: the end of the discussion (a red card at or after it is settled after the vote).
    pub closes: Option<Timestamp>,
    /// When ballots stop (`[[day]] vote_closes`); `None`: at `closes`.
    pub vote_closes: Option<Timestamp>,
    /// Tally as of this moment (`--at`): later posts and events are not seen.
    pub as_of: Option<Timestamp>,
    /// The day runs accelerated (加速) from this moment: a 改票 at or after it is judged
    /// by 「执行加速时，所有人不可改票」, one before it stands.
    pub accelerated_since: Option<Timestamp>,
}

/// One ballot-shaped post (or recorded 代投) and the verdict on it.
#[derive(Debug, Clone, Serialize)]
pub struct Ballot {
    pub voter: String,
    /// The player voted for; `null` for 弃权 (and for a target that names no player).
    pub target: Option<String>,
    /// The target exactly as written.
    pub written_target: Option<String>,
    pub floor: Option<u32>,
    pub pid: Option<u64>,
    pub time: String,
    #[serde(skip)]
    pub ts: Timestamp,
    pub weight: Weight,
    pub valid: bool,
    /// Why the ballot does not count (`null` when it counts).
    pub reason: Option<String>,
    /// The rule sentence the verdict (or the weight) applied.
    pub clause: Option<String>,
    /// `改票对象` rather than `投票对象`.
    pub change: bool,
    /// A 代投 the director recorded (`proxy-vote` event).
    pub proxy: bool,
    /// The 投票理由/改票理由 the player wrote.
    pub message: String,
    /// How the weight was reached, with the clauses.
    pub weight_notes: Vec<String>,
    /// The post was edited after it was first seen, or first seen already edited.
    pub edited: bool,
    /// Posted (or recorded) in the hour before 关门.
    pub last_hour: bool,
    pub url: Option<String>,
    /// Counted at its time (later replaced or not).
    #[serde(skip)]
    pub accepted: bool,
    /// Posted by a director (e.g. the format example on the first floor): listed for the
    /// director, left out of the public 公示.
    pub by_director: bool,
    /// The verdict rests on a status the director does not announce (排球少年 <镇压>): the
    /// public 公示 shows the ballot as cast.
    pub secret: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct Total {
    pub target: String,
    pub votes: Weight,
}

/// What a day's vote decided (`elected` | `eliminated` | `none` in JSON).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum OutcomeKind {
    /// A 警长 was elected.
    Elected,
    /// A player goes out.
    Eliminated,
    None,
}

impl OutcomeKind {
    pub fn as_str(self) -> &'static str {
        match self {
            OutcomeKind::Elected => "elected",
            OutcomeKind::Eliminated => "eliminated",
            OutcomeKind::None => "none",
        }
    }
    /// The JSON name back (`elected`, `eliminated`, `none`).
    pub fn parse(s: &str) -> Option<OutcomeKind> {
        [
            OutcomeKind::Elected,
            OutcomeKind::Eliminated,
            OutcomeKind::None,
        ]
        .into_iter()
        .find(|k| k.as_str() == s)
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct Outcome {
    pub kind: OutcomeKind,
    pub player: Option<String>,
    /// How the result came about.
    pub via: String,
    /// The rule sentence that decided it.
    pub clause: String,
    /// The players tied at the top, if there was a tie.
    pub tied: Vec<String>,
}

/// A vote-thread post that changed after it was first seen (or was first seen edited).
#[derive(Debug, Clone, Serialize)]
pub struct EditedPost {
    pub author: String,
    pub floor: Option<u32>,
    pub pid: u64,
    /// It already carried an edit notice when bansha first saw it.
    pub first_seen_edited: bool,
    /// Every revision's text, first seen first.
    pub revisions: Vec<String>,
    pub url: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct Tally {
    pub day: u32,
    pub mode: &'static str,
    pub ballots: Vec<Ballot>,
    pub totals: Vec<Total>,
    pub outcome: Outcome,
    pub as_of: String,
    pub closes: Option<String>,
    /// When ballots stopped, where that is after 关门 (`vote_closes`).
    pub vote_closes: Option<String>,
    /// The day was accelerated by the tally's moment.
    pub accelerated: bool,
    /// Since when (`null` if not accelerated).
    pub accelerated_since: Option<String>,
    /// The rule set keeps vote counts from the public (secret weights or statuses).
    #[serde(skip)]
    pub counts_secret: bool,
    /// `open` | `anonymous` | `top-only`: what the public 公示 shows.
    pub secrecy: &'static str,
    /// The secrecy clause (for the report).
    pub secrecy_clause: String,
    /// Living players without a ballot that counts.
    pub non_voters: Vec<String>,
    pub edited_posts: Vec<EditedPost>,
    /// Facts the director should know (ignored declarations, unreadable posts, 诽谤…).
    pub notes: Vec<String>,
    /// The rule file's readings of ambiguous clauses.
    pub readings: Vec<String>,
}

/// A clause as a verdict cites it: a quotation in 「」, a labelled reading as it is.
pub(super) fn quoted(c: &str) -> Option<String> {
    if c.is_empty() {
        None
    } else if crate::rules::clauses::is_reading(c) {
        Some(c.to_string())
    } else {
        Some(format!("「{c}」"))
    }
}

/// Why a post's content could not be read, as the forum says it.
pub(super) fn lock_zh(lock: LockKind) -> &'static str {
    match lock {
        LockKind::BannedAuthor => "作者被禁止发言",
        LockKind::ModeratorBlocked => "该帖被管理员屏蔽",
        LockKind::AuthorOnly => "仅作者可见",
        LockKind::Password => "需要密码",
        LockKind::Hidden => "隐藏内容",
        LockKind::Pending => "待审核",
        LockKind::Other => "无法查看",
    }
}

/// An `out` event's cause (`vote`, `night`, …) in the words of the forum.
pub(crate) fn cause_zh(cause: &str) -> &str {
    match cause {
        "vote" => "放逐",
        "night" => "夜晚",
        crate::roster::RED_CARD_CAUSE => "红牌",
        "day" => "白天",
        "skill" => "技能",
        "suicide" => "自杀",
        "quit" => "退出",
        "afk" | "inactive" => "挂机",
        other => other,
    }
}

/// A span of minutes: 「一小时」, 「2小时」, 「30分钟」.
pub(super) fn minutes_zh(m: u32) -> String {
    match m {
        60 => "一小时".into(),
        m if m % 60 == 0 => format!("{}小时", m / 60),
        m => format!("{m}分钟"),
    }
}

pub(super) fn where_(floor: Option<u32>) -> String {
    match floor {
        Some(f) => format!("{f} 楼"),
        None => "代投".into(),
    }
}

/// The day's facts with their times, as the tally's phases ask for them: who is out at T
/// (after this rule set's readings of red cards and unannounced deaths), who is in 挂机
/// since T, the 警长 at T, roles at T, statuses on the day, 加速 since T.
pub(super) struct Ctx<'a> {
    pub rules: &'a VoteRules,
    pub cfg: &'a Config,
    pub roster: &'a Roster,
    pub day: u32,
    pub mode: Mode,
    /// `--at` (or never).
    pub as_of: Timestamp,
    /// When ballots stop: `vote_closes`, else `closes` (or never).
    pub deadline: Timestamp,
    pub has_deadline: bool,
    /// Ballots are taken after 关门 (`vote_closes` later than `closes`).
    pub vote_window: bool,
    /// The moment the tally describes: the deadline, or earlier with `--at`.
    pub t_end: Timestamp,
    /// The game's state the ballots are counted in: as of `t_end`, but never with what
    /// happens at the deadline itself (the day's own 放逐, recorded at 关门, must not void
    /// the ballot of the player it sends out, nor those cast for them).
    pub t_state: Timestamp,
    pub accelerated_since: Option<Timestamp>,
    pub directors: HashSet<&'a str>,
    pub players: HashSet<&'a str>,
    /// Per player, out (`Some(cause)`) and back (`None`) facts in time order, as this
    /// tally reads them.
    outs: HashMap<&'a str, Vec<(Timestamp, Option<&'a str>)>>,
    /// Red-carded players who entered `red_card_status` instead of going out, and when.
    carded: HashMap<&'a str, Timestamp>,
    config_roles: HashMap<&'a str, &'a str>,
    /// What the readings above changed, for the director.
    pub fact_notes: Vec<String>,
}

impl<'a> Ctx<'a> {
    fn new(inp: &'a TallyInput<'a>) -> Ctx<'a> {
        let rules = inp.rules;
        let cfg = inp.config;
        let roster = inp.roster;
        let day = inp.day;
        let as_of = inp.as_of.unwrap_or(Timestamp::MAX);
        let deadline_opt = inp.vote_closes.or(inp.closes);
        let deadline = deadline_opt.unwrap_or(Timestamp::MAX);
        let mut outs: HashMap<&str, Vec<(Timestamp, Option<&str>)>> = HashMap::new();
        let mut carded: HashMap<&str, Timestamp> = HashMap::new();
        let mut fact_notes = Vec::new();
        let unannounced = rules.unannounced_night_deaths_days.contains(&day);
        for (at, f) in &roster.facts {
            match f {
                Fact::Out { player, cause } => {
                    let cause = cause.as_str();
                    if cause == crate::roster::RED_CARD_CAUSE
                        && let Some(st) = &rules.red_card_status
                    {
                        carded.entry(player).or_insert(*at);
                        if *at <= as_of {
                            fact_notes.push(format!(
                                "{player} 于 {} 被红牌罚下，进入【{st}】（不出局：仍可被投票，不能投票） 「{}」",
                                cfg.fmt_time(*at),
                                rules.clause("voter-barred")
                            ));
                        }
                        continue;
                    }
                    if cause == crate::roster::RED_CARD_CAUSE
                        && rules.red_card_after_vote
                        && inp.closes.is_some_and(|c| *at >= c)
                    {
                        if *at <= as_of.max(deadline) {
                            fact_notes.push(format!(
                                "{player} 于 {} 关门时被红牌罚下：出局结算在投票结算之后执行，其投票与所得票照常计入 「{}」",
                                cfg.fmt_time(*at),
                                rules.clause("red-card-after-vote")
                            ));
                        }
                        continue;
                    }
                    if unannounced && cause == "night" {
                        fact_notes.push(format!(
                            "{player} 于 {} 夜晚出局，但第{day}天不公示死讯：仍可投票、可被投票 「{}」",
                            cfg.fmt_time(*at),
                            rules.clause("unannounced-deaths")
                        ));
                        continue;
                    }
                    outs.entry(player).or_default().push((*at, Some(cause)));
                }
                Fact::Revive { player } => outs.entry(player).or_default().push((*at, None)),
                _ => {}
            }
        }
        Ctx {
            rules,
            cfg,
            roster,
            day,
            mode: rules.mode_on(day),
            as_of,
            deadline,
            has_deadline: deadline_opt.is_some(),
            vote_window: inp.vote_closes.is_some_and(|v| inp.closes != Some(v)),
            t_end: as_of.min(deadline),
            t_state: as_of.min(deadline.saturating_sub(1)),
            accelerated_since: inp.accelerated_since,
            directors: cfg.game.directors.iter().map(String::as_str).collect(),
            players: roster.players.iter().map(String::as_str).collect(),
            outs,
            carded,
            config_roles: cfg
                .players
                .iter()
                .filter_map(|p| p.role.as_deref().map(|r| (p.name.as_str(), r)))
                .collect(),
            fact_notes,
        }
    }

    /// When and why the player last went out at or before `t`, if they are out at `t`.
    pub fn out_at(&self, name: &str, t: Timestamp) -> Option<(Timestamp, &'a str)> {
        let mut out = None;
        for (at, cause) in self.outs.get(name).map(Vec::as_slice).unwrap_or(&[]) {
            if *at > t {
                break;
            }
            out = cause.map(|c| (*at, c));
        }
        out
    }

    /// In the game at `t` (a fact at exactly `t` has taken effect).
    pub fn alive_at(&self, name: &str, t: Timestamp) -> bool {
        self.players.contains(name) && self.out_at(name, t).is_none()
    }

    pub fn out_desc(&self, name: &str, t: Timestamp) -> String {
        match self.out_at(name, t) {
            Some((at, cause)) => format!("{}，{}", self.cfg.fmt_time(at), cause_zh(cause)),
            None => "已出局".into(),
        }
    }

    /// Since when the player is in `red_card_status` (挂机), if they are at `t`.
    pub fn carded_at(&self, name: &str, t: Timestamp) -> Option<Timestamp> {
        self.carded.get(name).copied().filter(|at| *at <= t)
    }

    /// The 警长 at `t`: the latest `sheriff` fact, if that player is in the game at `t`.
    pub fn sheriff_at(&self, t: Timestamp) -> Option<&'a str> {
        let mut s = None;
        for (at, f) in &self.roster.facts {
            if *at > t {
                break;
            }
            if let Fact::Sheriff { player } = f {
                s = Some(player.as_str());
            }
        }
        s.filter(|p| self.alive_at(p, t))
    }

    pub fn role_of(&self, name: &str, t: Timestamp) -> Option<String> {
        self.roster
            .role_at(name, t)
            .or_else(|| self.config_roles.get(name).copied())
            .map(str::to_string)
    }

    /// Statuses the player holds on the day (with multiplicity).
    pub fn statuses(&self, name: &str) -> Vec<&'a str> {
        self.roster.statuses_on(name, self.day)
    }

    /// Whether 加速 is in force at `t`.
    pub fn accelerated_at(&self, t: Timestamp) -> bool {
        self.accelerated_since.is_some_and(|s| t >= s)
    }

    /// Players in the game in the tally's state (`t_state`), in config order.
    pub fn alive_end(&self) -> Vec<&'a str> {
        self.roster
            .players
            .iter()
            .map(String::as_str)
            .filter(|p| self.alive_at(p, self.t_state))
            .collect()
    }
}

/// Judge every ballot of the day and count them: the phases, in order.
pub fn tally(inp: &TallyInput) -> Tally {
    let cx = Ctx::new(inp);
    // 1. collect
    let super::collect::Collected {
        mut entries,
        edited_posts,
        mut notes,
    } = super::collect::collect(&cx, inp.posts);
    notes.extend(cx.fact_notes.iter().cloned());
    // 2. judge, each at its moment; then which still count at the end
    let mut ballots = super::judge::judge(&cx, &mut entries, &mut notes);
    let counted = super::judge::still_counting(&cx, &mut ballots);
    // 3. weights
    super::weigh::weigh(&cx, &mut ballots, &counted, &mut notes);
    // 4. totals
    let totals = super::totals::totals(&cx, &ballots, &counted, &mut notes);
    // 5. outcome
    let outcome = super::outcome::outcome(&cx, &ballots, &counted, &totals);
    super::weigh::ignored_declarations(&cx, &mut notes);

    let voted: HashSet<&str> = counted.iter().map(|&c| ballots[c].voter.as_str()).collect();
    let non_voters = cx
        .alive_end()
        .into_iter()
        .filter(|p| {
            !cx.cfg.is_director(p) && !voted.contains(p) && cx.carded_at(p, cx.t_state).is_none()
        })
        .map(str::to_string)
        .collect();
    let mut readings: Vec<String> = inp.readings.to_vec();
    readings.extend(cx.rules.notes.iter().cloned());
    let fmt = |t: Timestamp| cx.cfg.fmt_time(t);
    let accelerated = cx.accelerated_since.is_some_and(|s| s <= cx.t_end);
    Tally {
        day: cx.day,
        mode: cx.mode.as_str(),
        ballots,
        totals: totals.list,
        outcome,
        as_of: if cx.t_end == Timestamp::MAX {
            String::new()
        } else {
            fmt(cx.t_end)
        },
        closes: inp.closes.map(fmt),
        vote_closes: inp
            .vote_closes
            .filter(|v| inp.closes.is_none_or(|c| *v != c))
            .map(fmt),
        accelerated,
        accelerated_since: cx.accelerated_since.filter(|_| accelerated).map(|s| {
            if s == Timestamp::MIN {
                "开门".into()
            } else {
                fmt(s)
            }
        }),
        counts_secret: cx.rules.counts_are_secret(),
        secrecy: match cx.rules.secrecy {
            Secrecy::Open => "open",
            Secrecy::Anonymous => "anonymous",
            Secrecy::TopOnly => "top-only",
        },
        secrecy_clause: cx.rules.clause("secrecy").to_string(),
        non_voters,
        edited_posts,
        notes,
        readings,
    }
}

/// `Config::fmt_time` (`YYYY-MM-DD HH:MM:SS` in the game's timezone) without chrono's
/// format-string machinery: one per ballot adds up.
pub(super) fn fmt_time_fast(cfg: &Config, ts: Timestamp) -> String {
    use chrono::{Datelike, Timelike};
    use std::fmt::Write;
    let t = crate::time::to_local(ts, cfg.tz);
    if !(0..=9999).contains(&t.year()) {
        return cfg.fmt_time(ts);
    }
    let mut s = String::with_capacity(19);
    let _ = write!(
        s,
        "{:04}-{:02}-{:02} {:02}:{:02}:{:02}",
        t.year(),
        t.month(),
        t.day(),
        t.hour(),
        t.minute(),
        t.second()
    );
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minutes_zh_names_whole_hours_in_hours() {
        assert_eq!(minutes_zh(60), "一小时");
        assert_eq!(minutes_zh(120), "2小时");
        assert_eq!(minutes_zh(180), "3小时");
        assert_eq!(minutes_zh(30), "30分钟");
        assert_eq!(minutes_zh(90), "90分钟");
    }

    #[test]
    fn fast_time_format_matches_config_format() {
        let mut cfg = Config::from_str(
            std::path::Path::new("t.toml"),
            "[forum]\nbase_url = \"http://127.0.0.1:1/\"\n[game]\nname = \"t\"\nrules = \"r.toml\"\n",
        )
        .expect("config");
        // Shanghai, and a zone with daylight saving (both sides of a switch).
        for tz in [chrono_tz::Asia::Shanghai, chrono_tz::America::New_York] {
            cfg.tz = tz;
            for ts in [
                0,
                1_772_680_000,
                1_772_680_000 + 86_399,
                1_773_554_400 - 1,
                1_773_554_400,
                1_773_554_400 + 3_601,
                // Year 10000: outside what the fast path writes (`{:04}`).
                253_402_300_800,
            ] {
                assert_eq!(fmt_time_fast(&cfg, ts), cfg.fmt_time(ts), "{tz} {ts}");
            }
        }
        cfg.tz = chrono_tz::Asia::Shanghai;
        assert_eq!(fmt_time_fast(&cfg, 0), "1970-01-01 08:00:00");
    }
}
