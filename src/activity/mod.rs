//! Activity and compliance at 关门: post counts, 潜水, 加速/延时, 诈尸, 寡言, the 电梯楼.
//!
//! Pure logic: everything here takes the config, the roster, the `[activity]` rules and the
//! stored posts, and returns data. No SQLite, no network, no clock. Rendering (text, JSON,
//! BBCode) is in [`render`].

pub mod render;
pub mod schedule;

use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde::Serialize;

use crate::config::{Config, Event};
use crate::model::{Post, Timestamp};
use crate::roster::{Fact, Roster};
use crate::rules::activity::{ActivityRules, Card, PartialDay};

pub use schedule::{ProposedDay, propose_schedule};

/// What the activity functions need to know about the game, borrowed.
#[derive(Clone, Copy)]
pub struct Game<'a> {
    pub cfg: &'a Config,
    pub rules: &'a ActivityRules,
    pub roster: &'a Roster,
    /// Stored posts by tid: every thread of every day up to the one reported.
    pub posts: &'a HashMap<u64, Vec<Post>>,
    /// Per day: the players with a valid ballot (from the tally).
    pub voted: &'a BTreeMap<u32, BTreeSet<String>>,
    /// Per day: players who cast ballots none of which counted, with the last one's floor and
    /// why, as the 公示 may say it (issue 25: they were reported as 未投票).
    pub void_ballots: &'a BTreeMap<u32, BTreeMap<String, String>>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ActivityError {
    #[error("{file}: day {day} is not in the config")]
    NoSuchDay { file: String, day: u32 },
    #[error(
        "{file}: day {day} has no opens/closes; set them in [[day]] (bansha proposes {proposal})"
    )]
    NoTimes {
        file: String,
        day: u32,
        proposal: String,
    },
}

// ---------------------------------------------------------------------------------------
// Days
// ---------------------------------------------------------------------------------------

/// One day's window and threads.
#[derive(Debug, Clone)]
pub struct DayWindow {
    pub number: u32,
    pub opens: Timestamp,
    pub closes: Timestamp,
    /// Where the day's posts end for 诈尸: the next day's opening (or never).
    pub until: Timestamp,
    pub discussion: Vec<u64>,
    pub vote: Option<u64>,
    pub process: Option<u64>,
}

impl DayWindow {
    /// The day's threads, each once, with their kind.
    pub fn threads(&self) -> Vec<(u64, ThreadKind)> {
        let mut v: Vec<(u64, ThreadKind)> = Vec::new();
        let mut add = |tid: u64, k: ThreadKind| {
            if !v.iter().any(|(t, _)| *t == tid) {
                v.push((tid, k));
            }
        };
        for t in &self.discussion {
            add(*t, ThreadKind::Discussion);
        }
        if let Some(t) = self.vote {
            add(t, ThreadKind::Vote);
        }
        if let Some(t) = self.process {
            add(t, ThreadKind::Process);
        }
        v
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ThreadKind {
    Discussion,
    Vote,
    Process,
}

impl ThreadKind {
    pub fn zh(self) -> &'static str {
        match self {
            ThreadKind::Discussion => "讨论帖",
            ThreadKind::Vote => "投票帖",
            ThreadKind::Process => "进程帖",
        }
    }
}

/// The window of `day` from the config (the config's times are the truth).
pub fn day_window(
    cfg: &Config,
    rules: &ActivityRules,
    day: u32,
) -> Result<DayWindow, ActivityError> {
    let file = cfg.path.display().to_string();
    let d = cfg
        .days
        .iter()
        .find(|d| d.number == day)
        .ok_or_else(|| ActivityError::NoSuchDay {
            file: file.clone(),
            day,
        })?;
    let (Some(o), Some(c)) = (d.opens, d.closes) else {
        let proposal = proposal_for(cfg, rules, day);
        return Err(ActivityError::NoTimes {
            file,
            day,
            proposal,
        });
    };
    let opens = cfg.ts(o);
    let until = cfg
        .days
        .iter()
        .filter(|x| x.number > day)
        .filter_map(|x| x.opens.map(|t| (x.number, cfg.ts(t))))
        .min()
        .map(|(_, t)| t)
        .unwrap_or(Timestamp::MAX);
    Ok(DayWindow {
        number: day,
        opens,
        closes: cfg.ts(c),
        until: until.max(cfg.ts(c)),
        discussion: d.discussion.clone(),
        vote: d.vote,
        process: d.process,
    })
}

/// A schedule suggestion for a day lacking times: from the latest earlier day with times
/// (or day 1 at the rule set's opening hour, if none), by the rule set's day length.
fn proposal_for(cfg: &Config, rules: &ActivityRules, day: u32) -> String {
    let anchor = cfg
        .days
        .iter()
        .filter(|d| d.number < day)
        .filter_map(|d| d.closes.map(|c| (d.number, c.0)))
        .max();
    let Some((n, closes)) = anchor else {
        return format!(
            "opens at {} on the first day, {} natural day(s) per day{}",
            rules.opens_at,
            rules.day_length,
            if rules.weekend_adds_day {
                ", one more over a weekend"
            } else {
                ""
            }
        );
    };
    let first_open = (closes.date() + chrono::Days::new(1)).and_time(rules.opens_time());
    let days = propose_schedule(rules, first_open, day - n);
    match days.last() {
        Some(p) => format!(
            "opens = \"{}\", closes = \"{}\"{}",
            p.opens.format("%Y-%m-%d %H:%M"),
            p.closes.format("%Y-%m-%d %H:%M"),
            p.vote_closes
                .map(|v| format!(", vote_closes = \"{}\"", v.format("%Y-%m-%d %H:%M")))
                .unwrap_or_default()
        ),
        None => "nothing".into(),
    }
}

// ---------------------------------------------------------------------------------------
// 加速 / 延时
// ---------------------------------------------------------------------------------------

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum RequestKind {
    Accelerate,
    Delay,
}

impl RequestKind {
    pub fn zh(self) -> &'static str {
        match self {
            RequestKind::Accelerate => "加速",
            RequestKind::Delay => "延时",
        }
    }
}

/// A 加速/延时 request found in the 进程帖.
#[derive(Debug, Clone, Serialize)]
pub struct AccelRequest {
    pub player: String,
    pub kind: RequestKind,
    pub tid: u64,
    pub pid: u64,
    pub floor: Option<u32>,
    pub time: Timestamp,
    /// Whether it counts toward the decision.
    pub counted: bool,
    /// Why it does not count, when it does not.
    pub reason: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct AccelDecision {
    pub day: u32,
    /// The day runs accelerated: no 改票, no 潜水 penalties.
    pub accelerated: bool,
    /// The moment 加速 took effect: the request that reached the threshold, or the
    /// director's `accelerate` event's `at` (default: 开门). `None` if not accelerated.
    pub since: Option<Timestamp>,
    /// A 延时 was granted (it cancels acceleration).
    pub delayed: bool,
    /// Every request seen, counted or not.
    pub requests: Vec<AccelRequest>,
    pub accelerate_count: usize,
    pub delay_count: usize,
    /// Players in the game at the deadline (the threshold's base).
    pub living: usize,
    /// Requests count until this moment (None: the rule set has no requests).
    pub deadline: Option<Timestamp>,
    /// The clause applied.
    pub clause: String,
    /// The director's `accelerate`/`delay` event decided, not the requests.
    pub overridden_by_director: bool,
    /// How the decision was reached, in Chinese, for the report.
    pub explanation: String,
}

/// Whether the keyword at `pos..pos+len` of `t` (whitespace removed) stands in a question —
/// 「现在有几个人申请加速了？」 asks, it does not request (issue 25): its clause (between
/// sentence marks) ends with a question mark or holds a question word.
fn asked(t: &str, pos: usize, len: usize) -> bool {
    const ENDS: &[char] = &[
        '。', '！', '!', '？', '?', '；', ';', '，', ',', '\n', '～', '~', '…',
    ];
    let start = t[..pos]
        .rfind(ENDS)
        .map(|i| i + t[i..].chars().next().map_or(1, char::len_utf8))
        .unwrap_or(0);
    let end_rel = t[pos + len..].find(ENDS);
    let end = end_rel.map(|i| pos + len + i).unwrap_or(t.len());
    let clause = &t[start..end];
    let mark = t[end..].chars().next();
    matches!(mark, Some('？' | '?'))
        || [
            "几个",
            "几人",
            "多少",
            "吗",
            "么",
            "是否",
            "有没有",
            "谁",
            "怎么",
            "哪些",
            "够不够",
            "到了没",
        ]
        .iter()
        .any(|w| clause.contains(w))
}

/// Recognise a 加速/延时 request: `申请加速`, `申请延时/延迟` anywhere (not negated), or a post
/// that is only `加速`/`延时` (with 求/同意/支持/申请/要 and punctuation around).
pub fn parse_request(text: &str) -> Option<RequestKind> {
    let t: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    let negated = |pos: usize| {
        let before: String = t[..pos].chars().rev().take(2).collect();
        before.contains('不')
            || before.contains('别')
            || before.contains("对反")
            || before.contains("消取")
            || before.contains("回撤")
            || before.contains('没')
    };
    let mut found: Option<(usize, RequestKind)> = None;
    for (kw, kind) in [
        ("申请加速", RequestKind::Accelerate),
        ("申请延时", RequestKind::Delay),
        ("申请延迟", RequestKind::Delay),
    ] {
        for (pos, _) in t.match_indices(kw) {
            if !negated(pos) && !asked(&t, pos, kw.len()) && found.is_none_or(|(p, _)| pos > p) {
                found = Some((pos, kind));
            }
        }
    }
    if let Some((_, k)) = found {
        return Some(k);
    }
    // A bare request: letters only, after dropping punctuation, symbols and digits.
    let letters: String = t
        .chars()
        .filter(|c| c.is_alphabetic() && !c.is_ascii_alphabetic())
        .collect();
    let core = ["求", "同意", "支持", "申请", "要", "我要", "我申请"]
        .iter()
        .find_map(|p| letters.strip_prefix(p))
        .unwrap_or(&letters);
    match core {
        "加速" => Some(RequestKind::Accelerate),
        "延时" | "延迟" => Some(RequestKind::Delay),
        _ => None,
    }
}

/// Rule on 加速/延时 for `day` from the requests in `process_posts` (the day's 进程帖) and
/// the director's `accelerate`/`delay` events, which override.
pub fn acceleration(
    cfg: &Config,
    rules: &ActivityRules,
    roster: &Roster,
    day: u32,
    process_posts: &[Post],
) -> Result<AccelDecision, ActivityError> {
    let w = day_window(cfg, rules, day)?;
    Ok(decide_acceleration(cfg, rules, roster, &w, process_posts))
}

fn decide_acceleration(
    cfg: &Config,
    rules: &ActivityRules,
    roster: &Roster,
    w: &DayWindow,
    process_posts: &[Post],
) -> AccelDecision {
    let directors: BTreeSet<&str> = cfg.game.directors.iter().map(String::as_str).collect();
    let mut requests = Vec::new();
    let mut accelerate_count = 0;
    let mut delay_count = 0;
    let mut living = 0;
    let mut deadline = None;
    let mut clause = String::new();
    let mut explanation = String::new();
    let mut accelerated = false;
    let mut delayed = false;
    let mut since: Option<Timestamp> = None;
    // The requests reached the 加速 threshold (even if a 延时 cancelled it): since when.
    let mut accelerated_by_requests: Option<Option<Timestamp>> = None;
    if let Some(a) = &rules.acceleration {
        let dl = w.closes - i64::from(a.deadline_hours) * 3600;
        deadline = Some(dl);
        clause = a.clause.clone();
        living = roster
            .alive(dl)
            .into_iter()
            .filter(|p| !directors.contains(p))
            .count();
        let mut posts: Vec<&Post> = process_posts.iter().collect();
        posts.sort_by_key(|p| (p.time, p.floor, p.pid));
        let mut last: BTreeMap<&str, usize> = BTreeMap::new();
        // Replayed in time order: each player's latest request so far, and when 加速 (and
        // not 延时) last came to hold.
        let mut latest: BTreeMap<&str, RequestKind> = BTreeMap::new();
        let mut holding_since: Option<Timestamp> = None;
        let mut accel_alone_since: Option<Timestamp> = None;
        for p in posts {
            let Some(kind) = parse_request(&p.first().text) else {
                continue;
            };
            // The director's own posts are rulings and notices, never requests (issue 25):
            // they are not listed at all.
            if directors.contains(p.author.as_str()) {
                continue;
            }
            let mut reason = None;
            if !roster.is_player(&p.author) {
                reason = Some("非玩家".to_string());
            } else if p.time < w.opens {
                reason = Some("早于当天开门".into());
            } else if p.time > dl {
                reason = Some(format!("晚于截止时间 {}", cfg.fmt_time(dl)));
            } else if !roster.alive_at(&p.author, p.time) {
                reason = Some("申请时已出局".into());
            } else if !roster.alive_at(&p.author, dl) {
                reason = Some("截止时已出局".into());
            } else if kind == RequestKind::Delay && !a.delay {
                reason = Some("本规则没有延时".into());
            }
            let counted = reason.is_none();
            if counted {
                latest.insert(p.author.as_str(), kind);
                let acc = latest
                    .values()
                    .filter(|k| **k == RequestKind::Accelerate)
                    .count();
                let del = latest
                    .values()
                    .filter(|k| **k == RequestKind::Delay)
                    .count();
                let holds = a.threshold.reached(acc, living)
                    && !(a.delay && a.threshold.reached(del, living));
                holding_since = match (holds, holding_since) {
                    (true, None) => Some(p.time),
                    (true, s) => s,
                    (false, _) => None,
                };
                // The same for 加速 alone, whatever the 延时 requests: where the director
                // denies the 延时, the 加速 holds from here.
                accel_alone_since = match (a.threshold.reached(acc, living), accel_alone_since) {
                    (true, None) => Some(p.time),
                    (true, s) => s,
                    (false, _) => None,
                };
                // The player's latest request replaces earlier ones.
                if let Some(prev) = last.insert(p.author.as_str(), requests.len()) {
                    let r: &mut AccelRequest = &mut requests[prev];
                    r.counted = false;
                    r.reason = Some("同一玩家当天的后一次申请为准".into());
                }
            }
            requests.push(AccelRequest {
                player: p.author.clone(),
                kind,
                tid: p.tid,
                pid: p.pid,
                floor: p.floor,
                time: p.time,
                counted,
                reason,
            });
        }
        for r in requests.iter().filter(|r| r.counted) {
            match r.kind {
                RequestKind::Accelerate => accelerate_count += 1,
                RequestKind::Delay => delay_count += 1,
            }
        }
        let acc_ok = a.threshold.reached(accelerate_count, living);
        let delay_ok = a.delay && a.threshold.reached(delay_count, living);
        delayed = delay_ok;
        accelerated = acc_ok && !delay_ok;
        since = if accelerated { holding_since } else { None };
        if acc_ok {
            accelerated_by_requests = Some(accel_alone_since);
        }
        let need = match a.threshold {
            crate::rules::activity::Threshold::Half => "大于等于存活人数的一半",
            crate::rules::activity::Threshold::Majority => "过半数",
        };
        explanation = format!(
            "截至 {}，存活 {} 人；申请加速 {} 人{}（需{}）",
            cfg.fmt_time(dl),
            living,
            accelerate_count,
            if a.delay {
                format!("，申请延时 {delay_count} 人")
            } else {
                String::new()
            },
            need
        );
        explanation.push_str(&match (acc_ok, delay_ok) {
            (true, true) => "：加速与延时均达到人数，延时成功，不再视为执行加速".to_string(),
            (true, false) => match since {
                Some(t) => format!(
                    "：加速成功，自 {} 起执行加速（达到人数的申请）",
                    cfg.fmt_time(t)
                ),
                None => "：加速成功".to_string(),
            },
            (false, true) => "：延时成功".to_string(),
            (false, false) => "：未执行加速".to_string(),
        });
    }
    let mut overridden = false;
    let mut denied: Vec<&str> = Vec::new();
    for e in &cfg.events {
        match e {
            Event::Accelerate {
                day,
                at,
                granted: true,
            } if *day == w.number => {
                overridden = true;
                accelerated = true;
                delayed = false;
                since = Some(at.map(|t| cfg.ts(t)).unwrap_or(w.opens));
            }
            Event::Accelerate {
                day,
                granted: false,
                ..
            } if *day == w.number => {
                overridden = true;
                accelerated = false;
                since = None;
                denied.push("不执行加速");
            }
            Event::Delay {
                day, granted: true, ..
            } if *day == w.number => {
                overridden = true;
                accelerated = false;
                delayed = true;
                since = None;
            }
            Event::Delay {
                day,
                granted: false,
                ..
            } if *day == w.number => {
                overridden = true;
                delayed = false;
                denied.push("不执行延时");
                // The 加速 the requests reached stands again once their 延时 is denied.
                if let Some(s) = accelerated_by_requests {
                    accelerated = true;
                    since = s;
                }
            }
            _ => {}
        }
    }
    // Taking effect after 关门 does not make the day an accelerated one.
    if since.is_some_and(|s| s >= w.closes) {
        accelerated = false;
    }
    if overridden {
        let mut what = match since {
            Some(s) if accelerated => format!("自 {} 起执行加速", cfg.fmt_time(s)),
            Some(s) => format!("加速时间 {} 晚于关门，本日不视为执行加速", cfg.fmt_time(s)),
            None if delayed => "延时".into(),
            None => "未执行加速".into(),
        };
        if !denied.is_empty() {
            what = format!("{}；{what}", denied.join("，"));
        }
        if explanation.is_empty() {
            explanation = format!("导演裁定：{what}");
        } else {
            explanation = format!("导演裁定：{what}（申请统计：{explanation}）");
        }
    } else if explanation.is_empty() {
        explanation = "本规则没有加速/延时申请；未执行加速".into();
    }
    AccelDecision {
        day: w.number,
        accelerated,
        since: if accelerated { since } else { None },
        delayed,
        requests,
        accelerate_count,
        delay_count,
        living,
        deadline,
        clause,
        overridden_by_director: overridden,
        explanation,
    }
}

// ---------------------------------------------------------------------------------------
// The report
// ---------------------------------------------------------------------------------------

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Rule {
    FewPosts,
    ThreeDaysFewPosts,
    NoVote,
    ZombiePost,
    /// 寡言: more posts than allowed.
    TaciturnPosts,
    /// 寡言: a post longer than allowed.
    TaciturnLength,
    /// 寡言: a ballot with a reason.
    TaciturnReason,
}

impl Rule {
    pub fn as_str(self) -> &'static str {
        match self {
            Rule::FewPosts => "few-posts",
            Rule::ThreeDaysFewPosts => "three-days-few-posts",
            Rule::NoVote => "no-vote",
            Rule::ZombiePost => "zombie-post",
            Rule::TaciturnPosts => "taciturn-posts",
            Rule::TaciturnLength => "taciturn-length",
            Rule::TaciturnReason => "taciturn-reason",
        }
    }
    pub fn zh(self) -> &'static str {
        match self {
            Rule::FewPosts => "发言不足",
            Rule::ThreeDaysFewPosts => "连续三日发言不足",
            Rule::NoVote => "未投票",
            Rule::ZombiePost => "诈尸",
            Rule::TaciturnPosts => "寡言·超帖",
            Rule::TaciturnLength => "寡言·超字",
            Rule::TaciturnReason => "寡言·投票理由",
        }
    }
}

/// A floor that is evidence for a violation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Evidence {
    pub tid: u64,
    pub pid: u64,
    pub floor: Option<u32>,
    pub time: Timestamp,
    pub thread: ThreadKind,
}

#[derive(Debug, Clone, Serialize)]
pub struct Violation {
    pub rule: Rule,
    pub card: Card,
    /// What happened, in Chinese.
    pub detail: String,
    /// The rule post's clause applied.
    pub clause: String,
    pub evidence: Vec<Evidence>,
}

/// How a player was in the game during the day.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Presence {
    /// In the game from 开门 to 关门.
    WholeDay,
    /// In the game for part of the day (out or back in mid-day).
    Partial,
    /// Out for the whole day (listed only for 诈尸).
    Out,
}

#[derive(Debug, Clone, Serialize)]
pub struct PlayerActivity {
    pub name: String,
    pub seat: Option<u32>,
    pub uid: Option<u64>,
    /// Posts counted for the day.
    pub posts: u32,
    /// Posts made in the day's window that are no longer on the forum (not counted).
    pub deleted: u32,
    pub voted: bool,
    /// Ballots were cast but none counted: the last one's floor and why (`投票帖 3 楼：…`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub void_ballot: Option<String>,
    pub presence: Presence,
    /// Whether the 潜水 clauses were applied to this player today.
    pub judged: bool,
    /// How the player was judged, when not like everyone else (Chinese).
    pub note: Option<String>,
    pub violations: Vec<Violation>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ActivityReport {
    pub day: u32,
    pub opens: Timestamp,
    pub closes: Timestamp,
    pub accel: AccelDecision,
    /// The players in the game during the day (and any out player who posted), seat order.
    pub players: Vec<PlayerActivity>,
    /// What counts as a post, and other notes for the reader (Chinese).
    pub notes: Vec<String>,
    /// The rule file's readings.
    pub readings: Vec<String>,
}

/// Per-day counting, shared by the report and the streak look-back.
struct DayCount<'a> {
    posts: HashMap<&'a str, u32>,
    deleted: HashMap<&'a str, u32>,
}

impl<'a> Game<'a> {
    fn directors(&self) -> BTreeSet<&'a str> {
        self.cfg.game.directors.iter().map(String::as_str).collect()
    }

    fn players(&self) -> Vec<&'a str> {
        let d = self.directors();
        self.roster
            .players
            .iter()
            .map(String::as_str)
            .filter(|p| !d.contains(p))
            .collect()
    }

    fn thread_posts(&self, tid: u64) -> &'a [Post] {
        self.posts.get(&tid).map(Vec::as_slice).unwrap_or(&[])
    }

    fn counted_tids(&self, w: &DayWindow) -> Vec<u64> {
        let mut v = w.discussion.clone();
        if self.rules.count_vote_thread
            && let Some(t) = w.vote
            && !v.contains(&t)
        {
            v.push(t);
        }
        v
    }

    fn count(&self, w: &DayWindow) -> DayCount<'a> {
        let mut posts: HashMap<&'a str, u32> = HashMap::new();
        let mut deleted: HashMap<&'a str, u32> = HashMap::new();
        let dirs = self.directors();
        for tid in self.counted_tids(w) {
            for p in self.thread_posts(tid) {
                if p.time < w.opens || p.time >= w.closes || dirs.contains(p.author.as_str()) {
                    continue;
                }
                if !self.roster.alive_at(&p.author, p.time) {
                    continue;
                }
                let m = if p.missing() {
                    &mut deleted
                } else {
                    &mut posts
                };
                *m.entry(p.author.as_str()).or_default() += 1;
            }
        }
        DayCount { posts, deleted }
    }

    fn presence(&self, name: &str, w: &DayWindow) -> Presence {
        let at_open = self.roster.alive_at(name, w.opens);
        let changes = self.roster.facts.iter().any(|(t, f)| {
            *t > w.opens
                && *t < w.closes
                && matches!(f, Fact::Out { player, .. } | Fact::Revive { player } if player == name)
        });
        match (at_open, changes) {
            (true, false) => Presence::WholeDay,
            (false, false) => Presence::Out,
            _ => Presence::Partial,
        }
    }

    fn accel_for(&self, w: &DayWindow) -> AccelDecision {
        let posts: &[Post] = w.process.map(|t| self.thread_posts(t)).unwrap_or(&[]);
        decide_acceleration(self.cfg, self.rules, self.roster, w, posts)
    }

    fn judged(&self, presence: Presence) -> bool {
        match presence {
            Presence::WholeDay => true,
            Presence::Partial => self.rules.partial_day == PartialDay::Judge,
            Presence::Out => false,
        }
    }
}

/// Number of characters a 寡言 post is judged on: the text without whitespace, plus one per
/// smiley image (包括标点表情在内).
pub fn taciturn_chars(text: &str, html: &str) -> usize {
    text.chars().filter(|c| !c.is_whitespace()).count() + html.matches("smilieid=").count()
}

/// A ballot that carries a reason (`投票理由：…`, `改票理由：…`, `理由:…`).
pub fn has_ballot_reason(text: &str) -> bool {
    for line in text.lines() {
        if let Some(i) = line.find("理由") {
            let rest = line[i + "理由".len()..].trim_start();
            let rest = rest
                .strip_prefix('：')
                .or_else(|| rest.strip_prefix(':'))
                .unwrap_or(rest);
            if !rest.trim().is_empty() {
                return true;
            }
        }
    }
    false
}

/// The activity report for `day`.
pub fn report(g: &Game, day: u32) -> Result<ActivityReport, ActivityError> {
    // 灵族杀: a red card puts the player in 挂机, not out (「一名角色是否处于挂机状态与其是否存活
    // 没有关系」): read the roster without those outs, and remember when each card came.
    let carded_roster;
    let mut carded: HashMap<String, Timestamp> = HashMap::new();
    let g = &match &g.rules.red_card_status {
        Some(_) => {
            let mut r = g.roster.clone();
            r.facts.retain(|(at, f)| match f {
                Fact::Out { player, cause } if cause == crate::roster::RED_CARD_CAUSE => {
                    carded.entry(player.clone()).or_insert(*at);
                    false
                }
                _ => true,
            });
            carded_roster = r;
            Game {
                roster: &carded_roster,
                ..*g
            }
        }
        None => *g,
    };
    let w = day_window(g.cfg, g.rules, day)?;
    let accel = g.accel_for(&w);
    let counts = g.count(&w);
    let no_votes = BTreeSet::new();
    let mut replied = g.voted.get(&day).cloned().unwrap_or_default();
    let voted = if g.rules.no_vote_means_no_reply {
        // 「讨论结束时，未回复投票帖者将被判罚黄牌」: a ballot, or any reply in the 投票帖 by the
        // end of voting.
        let until = g.cfg.vote_closes(day).unwrap_or(w.closes);
        if let Some(tid) = w.vote {
            for p in g.thread_posts(tid) {
                if p.time >= w.opens && p.time <= until {
                    replied.insert(p.author.clone());
                }
            }
        }
        &replied
    } else {
        g.voted.get(&day).unwrap_or(&no_votes)
    };
    // Where any reply counts (排球少年), a void ballot is still a reply: nothing to say.
    let no_void = BTreeMap::new();
    let void = if g.rules.no_vote_means_no_reply {
        &no_void
    } else {
        g.void_ballots.get(&day).unwrap_or(&no_void)
    };
    let dirs = g.directors();
    let seat_of: HashMap<&str, (Option<u32>, Option<u64>)> = g
        .cfg
        .players
        .iter()
        .map(|p| (p.name.as_str(), (p.seat, p.uid)))
        .collect();

    // 诈尸: posts by out players in the day's threads, from 开门 to the next day's 开门.
    let mut zombies: BTreeMap<&str, Vec<(Evidence, Timestamp, String)>> = BTreeMap::new();
    let threads = w.threads();
    for (tid, kind) in &threads {
        for p in g.thread_posts(*tid) {
            if p.time < w.opens || p.time >= w.until || dirs.contains(p.author.as_str()) {
                continue;
            }
            if !g.roster.is_player(&p.author) {
                continue;
            }
            if let Some((out_t, cause)) = g.roster.out_at(&p.author, p.time) {
                let name = g
                    .roster
                    .players
                    .iter()
                    .find(|n| **n == p.author)
                    .map(String::as_str)
                    .unwrap_or_default();
                zombies.entry(name).or_default().push((
                    Evidence {
                        tid: *tid,
                        pid: p.pid,
                        floor: p.floor,
                        time: p.time,
                        thread: *kind,
                    },
                    out_t,
                    cause.to_string(),
                ));
            }
        }
    }

    // Previous days for the streak clause, most recent first, while consecutive.
    let mut history: Vec<(DayWindow, bool, DayCount)> = Vec::new();
    if let Some(s) = &g.rules.three_days_few_posts {
        let mut n = day;
        while n > 1 && history.len() < (s.days as usize) * 4 {
            n -= 1;
            let Ok(pw) = day_window(g.cfg, g.rules, n) else {
                break;
            };
            let acc = g.accel_for(&pw).accelerated;
            let c = g.count(&pw);
            history.push((pw, acc, c));
        }
    }

    let mut players = Vec::new();
    let mut any_afk = false;
    for name in g.players() {
        let presence = g.presence(name, &w);
        let zombie = zombies.remove(name).unwrap_or_default();
        if presence == Presence::Out && zombie.is_empty() {
            continue;
        }
        let (seat, uid) = seat_of.get(name).copied().unwrap_or((None, None));
        let posts = counts.posts.get(name).copied().unwrap_or(0);
        let deleted = counts.deleted.get(name).copied().unwrap_or(0);
        let mut judged = g.judged(presence);
        let mut note = None;
        if presence == Presence::Partial {
            let how = if judged {
                "按规则原文照常判定潜水"
            } else {
                "潜水条款针对整个讨论日，本日不在场全程，不判发言不足/未投票（发言照常计数）"
            };
            note = Some(format!("{}；{how}", partial_story(g, name, &w)));
        }
        // 挂机: 「不能继续参与讨论、投票」, so neither 潜水 nor 未投票 is judged.
        let statuses = g.roster.statuses_on(name, day);
        let afk = g
            .rules
            .exempt_statuses
            .iter()
            .find(|s| statuses.contains(&s.as_str()))
            .map(|s| format!("第{day}天处于【{s}】状态"))
            .or_else(|| {
                let st = g.rules.red_card_status.as_ref()?;
                let at = carded.get(name).filter(|at| **at < w.closes)?;
                Some(format!(
                    "{} 被红牌罚下，自动进入【{st}】状态",
                    g.cfg.fmt_time(*at)
                ))
            });
        if let Some(why) = afk {
            judged = false;
            any_afk = true;
            note = Some(format!(
                "{why}：不能继续参与讨论、投票，不判发言不足/未投票（发言照常计数）"
            ));
        }
        let taciturn_today = g
            .rules
            .taciturn
            .as_ref()
            .is_some_and(|t| statuses.contains(&t.status.as_str()));
        let mut violations = Vec::new();
        if judged && !accel.accelerated {
            if let Some(c) = &g.rules.few_posts
                && posts < c.min_posts
            {
                violations.push(Violation {
                    rule: Rule::FewPosts,
                    card: c.card,
                    detail: format!("第{day}天讨论帖发言 {posts} 帖，不足 {} 帖", c.min_posts),
                    clause: c.clause.clone(),
                    evidence: vec![],
                });
            }
            // A 寡言 day (at most 5 posts) cannot be one of 「连续三个…讨论日发言均不足十帖」.
            if let Some(s) = &g.rules.three_days_few_posts
                && posts < s.min_posts
                && !taciturn_today
            {
                // Length of the run of qualifying days ending today.
                let mut run = 1u32;
                let mut expect = day;
                let mut seq = vec![(day, posts)];
                for (pw, acc, c) in &history {
                    if pw.number + 1 != expect || *acc {
                        break;
                    }
                    let pp = c.posts.get(name).copied().unwrap_or(0);
                    let taciturn_then = g.rules.taciturn.as_ref().is_some_and(|t| {
                        g.roster
                            .statuses_on(name, pw.number)
                            .contains(&t.status.as_str())
                    });
                    if !g.judged(g.presence(name, pw)) || pp >= s.min_posts || taciturn_then {
                        break;
                    }
                    run += 1;
                    expect = pw.number;
                    seq.push((pw.number, pp));
                }
                if run >= s.days && run.is_multiple_of(s.days) {
                    let days: Vec<String> = seq
                        .iter()
                        .take(s.days as usize)
                        .rev()
                        .map(|(d, n)| format!("第{d}天 {n} 帖"))
                        .collect();
                    violations.push(Violation {
                        rule: Rule::ThreeDaysFewPosts,
                        card: s.card,
                        detail: format!(
                            "连续 {} 个未执行加速的讨论日发言均不足 {} 帖：{}",
                            s.days,
                            s.min_posts,
                            days.join("，")
                        ),
                        clause: s.clause.clone(),
                        evidence: vec![],
                    });
                }
            }
            if let Some(c) = &g.rules.no_vote
                && !voted.contains(name)
            {
                violations.push(Violation {
                    rule: Rule::NoVote,
                    card: c.card,
                    detail: match void.get(name) {
                        // A ballot that did not count is no vote, said as what it was.
                        Some(why) => format!("第{day}天投票无效（{why}），不计为投票"),
                        None if g.rules.no_vote_means_no_reply => {
                            format!("第{day}天讨论结束时未回复投票帖")
                        }
                        None => format!("第{day}天未在投票帖投票"),
                    },
                    clause: c.clause.clone(),
                    evidence: vec![],
                });
            }
        }
        if let Some(c) = &g.rules.zombie_post {
            for (ev, out_t, cause) in zombie {
                violations.push(Violation {
                    rule: Rule::ZombiePost,
                    card: c.card,
                    detail: format!(
                        "已于 {} 出局（{}），{} 在{}{}发言",
                        g.cfg.fmt_time(out_t),
                        crate::votes::cause_zh(&cause),
                        g.cfg.fmt_time(ev.time),
                        ev.thread.zh(),
                        ev.floor.map(|f| format!(" {f} 楼")).unwrap_or_default()
                    ),
                    clause: c.clause.clone(),
                    evidence: vec![ev],
                });
            }
        }
        if let Some(t) = &g.rules.taciturn
            && presence != Presence::Out
            && g.roster.statuses_on(name, day).contains(&t.status.as_str())
        {
            taciturn(g, &w, name, t, &mut violations);
        }
        players.push(PlayerActivity {
            name: name.to_string(),
            seat,
            uid,
            posts,
            deleted,
            voted: voted.contains(name),
            void_ballot: void.get(name).cloned(),
            presence,
            judged,
            note,
            violations,
        });
    }
    players.sort_by_key(|p| p.seat.unwrap_or(u32::MAX));

    let mut notes = vec![format!(
        "发言数：第{day}天{}内、开门至关门之间、在场期间的帖子{}",
        if g.rules.count_vote_thread {
            "讨论帖与投票帖"
        } else {
            "讨论帖"
        },
        if g.rules.count_vote_thread {
            ""
        } else {
            "（投票帖不计）"
        }
    )];
    if any_afk {
        notes.push(format!(
            "挂机的玩家不判发言不足/未投票：「{}」",
            g.rules.exempt_clause
        ));
    }
    if let Some(v) = g.cfg.vote_closes(day).filter(|v| *v > w.closes) {
        notes.push(format!(
            "发言统计到关门 {}，投票统计到投票截止 {}：「{}」",
            g.cfg.fmt_time(w.closes),
            g.cfg.fmt_time(v),
            g.rules.day_clause
        ));
    }
    if accel.accelerated {
        notes.push(format!(
            "本日{}执行加速，发言不足与未投票不判罚：{}",
            accel
                .since
                .map(|t| format!("自 {} 起", g.cfg.fmt_time(t)))
                .unwrap_or_default(),
            g.rules
                .acceleration
                .as_ref()
                .map(|a| a.exempt_clause.as_str())
                .unwrap_or("")
        ));
    }
    if !dirs.is_empty() {
        notes.push(format!(
            "导演账号不计为玩家：{}",
            dirs.iter().copied().collect::<Vec<_>>().join("、")
        ));
    }
    Ok(ActivityReport {
        day,
        opens: w.opens,
        closes: w.closes,
        accel,
        players,
        notes,
        readings: g.rules.readings.clone(),
    })
}

/// "出局于 T（cause）" / "复活于 T" for the day, in order.
fn partial_story(g: &Game, name: &str, w: &DayWindow) -> String {
    let mut parts = Vec::new();
    for (t, f) in &g.roster.facts {
        if *t <= w.opens || *t >= w.closes {
            continue;
        }
        match f {
            Fact::Out { player, cause } if player == name => parts.push(format!(
                "{} 出局（{}）",
                g.cfg.fmt_time(*t),
                crate::votes::cause_zh(cause)
            )),
            Fact::Revive { player } if player == name => {
                parts.push(format!("{} 回到游戏", g.cfg.fmt_time(*t)))
            }
            _ => {}
        }
    }
    if parts.is_empty() {
        "本日部分时间在场".into()
    } else {
        parts.join("，")
    }
}

fn taciturn(
    g: &Game,
    w: &DayWindow,
    name: &str,
    t: &crate::rules::activity::Taciturn,
    out: &mut Vec<Violation>,
) {
    let mut own: Vec<(&Post, ThreadKind)> = Vec::new();
    for (tid, kind) in w.threads() {
        for p in g.thread_posts(tid) {
            if p.author == name
                && p.time >= w.opens
                && p.time < w.closes
                && g.roster.alive_at(name, p.time)
            {
                own.push((p, kind));
            }
        }
    }
    own.sort_by_key(|(p, _)| (p.time, p.pid));
    let ev = |p: &Post, kind: ThreadKind| Evidence {
        tid: p.tid,
        pid: p.pid,
        floor: p.floor,
        time: p.time,
        thread: kind,
    };
    // Posts other than ballots: the 投票帖 has its own clause (no reason).
    let speech: Vec<&(&Post, ThreadKind)> =
        own.iter().filter(|(_, k)| *k != ThreadKind::Vote).collect();
    if speech.len() > t.max_posts as usize {
        out.push(Violation {
            rule: Rule::TaciturnPosts,
            card: t.card,
            detail: format!(
                "[{}] 本日发言 {} 帖，超过 {} 帖",
                t.status,
                speech.len(),
                t.max_posts
            ),
            clause: t.clause.clone(),
            evidence: speech[t.max_posts as usize..]
                .iter()
                .map(|(p, k)| ev(p, *k))
                .collect(),
        });
    }
    for (p, k) in &speech {
        let r = p.first();
        let n = taciturn_chars(&r.text, &r.html);
        if n > t.max_chars as usize {
            out.push(Violation {
                rule: Rule::TaciturnLength,
                card: t.card,
                detail: format!(
                    "[{}] {}{}一帖 {} 字，超过 {} 字",
                    t.status,
                    k.zh(),
                    p.floor.map(|f| format!(" {f} 楼")).unwrap_or_default(),
                    n,
                    t.max_chars
                ),
                clause: t.clause.clone(),
                evidence: vec![ev(p, *k)],
            });
        }
    }
    for (p, k) in own.iter().filter(|(_, k)| *k == ThreadKind::Vote) {
        if has_ballot_reason(&p.first().text) {
            out.push(Violation {
                rule: Rule::TaciturnReason,
                card: t.card,
                detail: format!(
                    "[{}] 投票帖{}写了投票理由（寡言违规，由导演判定；投票对象明确，该票照常计入）",
                    t.status,
                    p.floor.map(|f| format!(" {f} 楼")).unwrap_or_default()
                ),
                clause: t.clause.clone(),
                evidence: vec![ev(p, *k)],
            });
        }
    }
}

// ---------------------------------------------------------------------------------------
// 电梯楼
// ---------------------------------------------------------------------------------------

#[derive(Debug, Clone, Serialize)]
pub struct ElevatorEntry {
    pub seat: Option<u32>,
    pub name: String,
    pub uid: Option<u64>,
    /// Where the uid came from: `config`, `posts`, or none.
    pub uid_source: Option<&'static str>,
    /// Posts counted so far in the day's 讨论帖.
    pub posts: u32,
}

#[derive(Debug, Clone, Serialize)]
pub struct Elevator {
    pub day: u32,
    /// The day's 讨论帖 the links point into.
    pub discussion: Vec<u64>,
    pub entries: Vec<ElevatorEntry>,
}

/// The 电梯楼 of `day`: every player in the game at 开门, in seat order (unseated players
/// after, in config order), with their post count so far. A uid missing from the config is
/// taken from the player's stored posts in any thread.
pub fn elevator(g: &Game, day: u32) -> Result<Elevator, ActivityError> {
    let w = day_window(g.cfg, g.rules, day)?;
    let counts = g.count(&w);
    let mut known_uid: HashMap<&str, u64> = HashMap::new();
    for posts in g.posts.values() {
        for p in posts {
            if let Some(u) = p.uid {
                known_uid.entry(p.author.as_str()).or_insert(u);
            }
        }
    }
    let mut entries: Vec<ElevatorEntry> = Vec::new();
    for pl in &g.cfg.players {
        if g.directors().contains(pl.name.as_str()) || !g.roster.alive_at(&pl.name, w.opens) {
            continue;
        }
        let (uid, uid_source) = match (pl.uid, known_uid.get(pl.name.as_str())) {
            (Some(u), _) => (Some(u), Some("config")),
            (None, Some(u)) => (Some(*u), Some("posts")),
            (None, None) => (None, None),
        };
        entries.push(ElevatorEntry {
            seat: pl.seat,
            name: pl.name.clone(),
            uid,
            uid_source,
            posts: counts.posts.get(pl.name.as_str()).copied().unwrap_or(0),
        });
    }
    entries.sort_by_key(|e| e.seat.unwrap_or(u32::MAX));
    Ok(Elevator {
        day,
        discussion: w.discussion.clone(),
        entries,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_are_recognised() {
        use RequestKind::*;
        assert_eq!(parse_request("申请加速"), Some(Accelerate));
        assert_eq!(parse_request("  申请延时。"), Some(Delay));
        assert_eq!(parse_request("申请延迟，还没聊完"), Some(Delay));
        assert_eq!(parse_request("加速！！"), Some(Accelerate));
        assert_eq!(parse_request("同意加速"), Some(Accelerate));
        assert_eq!(parse_request("延时+1"), Some(Delay));
        assert_eq!(parse_request("先申请加速，算了申请延时"), Some(Delay));
        assert_eq!(parse_request("我不申请加速"), None);
        assert_eq!(parse_request("反对申请加速"), None);
        assert_eq!(parse_request("今天要不要加速呢，大家怎么看"), None);
        assert_eq!(parse_request("不加速"), None);
        // Issue 25: a question about the requests is not one.
        assert_eq!(parse_request("现在有几个人申请加速了？"), None);
        assert_eq!(parse_request("申请加速的人够了吗"), None);
        assert_eq!(parse_request("谁申请延时了？我看看"), None);
        assert_eq!(
            parse_request("有人申请加速吗？我申请加速"),
            Some(Accelerate)
        );
        assert_eq!(parse_request("申请加速！大家呢？"), Some(Accelerate));
        assert_eq!(parse_request(""), None);
    }

    /// Each negation word on its own cancels a request (cargo-mutants: one `||` of the
    /// negation chain read as `&&`).
    #[test]
    fn every_negation_word_on_its_own_cancels_a_request() {
        for t in [
            "不申请加速",
            "别申请加速",
            "反对申请加速",
            "取消申请加速",
            "撤回申请延时",
            "没申请延时",
        ] {
            assert_eq!(parse_request(t), None, "{t}");
        }
        assert_eq!(
            parse_request("取消申请加速，申请延时"),
            Some(RequestKind::Delay)
        );
    }

    #[test]
    fn ballot_reasons() {
        assert!(has_ballot_reason("投票对象：乙\n投票理由：狼"));
        assert!(has_ballot_reason("改票对象:乙 改票理由: 狼"));
        assert!(!has_ballot_reason("投票对象：乙\n投票理由："));
        assert!(!has_ballot_reason("投票对象：乙"));
    }

    #[test]
    fn a_day_without_times_is_an_error_with_a_proposal() {
        let cfg = Config::from_str(
            std::path::Path::new("g.toml"),
            "[forum]\nbase_url = \"http://127.0.0.1:1/\"\n[game]\nname = \"g\"\nrules = \"r.toml\"\n\
             [[day]]\nnumber = 1\nopens = \"2026-03-04 09:00\"\ncloses = \"2026-03-05 21:00\"\n\
             [[day]]\nnumber = 2\n",
        )
        .unwrap();
        let rules = ActivityRules {
            day_length: 2,
            weekend_adds_day: true,
            opens_at: "09:00".into(),
            closes_at: "21:00".into(),
            ..Default::default()
        };
        assert!(day_window(&cfg, &rules, 1).is_ok());
        let e = day_window(&cfg, &rules, 2).unwrap_err().to_string();
        // Day 2 would open Friday and run over Saturday, so it closes on Sunday.
        assert!(
            e.contains("g.toml: day 2 has no opens/closes")
                && e.contains("opens = \"2026-03-06 09:00\", closes = \"2026-03-08 21:00\""),
            "{e}"
        );
        let e = day_window(&cfg, &rules, 3).unwrap_err().to_string();
        assert_eq!(e, "g.toml: day 3 is not in the config");
    }

    /// A day with `closes` but no `opens` is proposed from the days before it, never from
    /// its own half-set times (cargo-mutants: `d.number < day` read as `<=`).
    #[test]
    fn a_day_with_only_closes_is_proposed_from_the_day_before() {
        let cfg = Config::from_str(
            std::path::Path::new("g.toml"),
            "[forum]\nbase_url = \"http://127.0.0.1:1/\"\n[game]\nname = \"g\"\nrules = \"r.toml\"\n\
             [[day]]\nnumber = 1\nopens = \"2026-03-04 09:00\"\ncloses = \"2026-03-05 21:00\"\n\
             [[day]]\nnumber = 2\ncloses = \"2026-03-20 21:00\"\n",
        )
        .unwrap();
        let rules = ActivityRules {
            day_length: 2,
            weekend_adds_day: true,
            opens_at: "09:00".into(),
            closes_at: "21:00".into(),
            ..Default::default()
        };
        let e = day_window(&cfg, &rules, 2).unwrap_err().to_string();
        assert!(
            e.contains("opens = \"2026-03-06 09:00\", closes = \"2026-03-08 21:00\""),
            "{e}"
        );
    }

    #[test]
    fn taciturn_counts_punctuation_and_smilies() {
        assert_eq!(taciturn_chars("好。", "好。"), 2);
        assert_eq!(taciturn_chars("哈 哈", "哈 哈<img smilieid=\"1\">"), 3);
    }
}
