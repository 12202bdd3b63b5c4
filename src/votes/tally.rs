//! The tally: every ballot-shaped post of a day judged by the rule set, weights, totals and
//! the outcome. Pure: no store, no clock.

use std::collections::{HashMap, HashSet};

use serde::Serialize;

use super::ballot::parse_ballot;
use crate::config::{Config, Event};
use crate::model::{LockKind, Post, Timestamp};
use crate::report::findpost_url;
use crate::roster::{Fact, Roster};
use crate::rules::vote::{ElectionTie, Mode, Secrecy, TieBreak, VoteRules, Weight, WeightRule};

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
    /// 关门: ballots after it do not count.
    pub closes: Option<Timestamp>,
    /// Tally as of this moment (`--at`): later posts and events are not seen.
    pub as_of: Option<Timestamp>,
    /// The day is accelerated (加速).
    pub accelerated: bool,
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
}

#[derive(Debug, Clone, Serialize)]
pub struct Total {
    pub target: String,
    pub votes: Weight,
}

#[derive(Debug, Clone, Serialize)]
pub struct Outcome {
    /// `elected` | `eliminated` | `none`.
    pub kind: &'static str,
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
    pub accelerated: bool,
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

/// A ballot before judging.
struct Entry {
    voter: String,
    change: bool,
    proxy: bool,
    written: Option<String>,
    message: String,
    floor: Option<u32>,
    pid: Option<u64>,
    ts: Timestamp,
    quote: Option<crate::model::QuoteRef>,
    edited: bool,
    url: Option<String>,
}

#[derive(Default)]
struct VoterState {
    current: Option<usize>,
    /// Ballots of this voter that counted at some point (a 改票 may reply to them).
    accepted: Vec<usize>,
    changes: u32,
    exempt_used: bool,
}

fn quoted(c: &str) -> Option<String> {
    if c.is_empty() {
        None
    } else {
        Some(format!("「{c}」"))
    }
}

/// Why a post's content could not be read, as the forum says it.
fn lock_zh(lock: LockKind) -> &'static str {
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
        "red-card" => "红牌",
        "day" => "白天",
        "skill" => "技能",
        "suicide" => "自杀",
        "quit" => "退出",
        "afk" | "inactive" => "挂机",
        other => other,
    }
}

/// A span of minutes: 「一小时」, 「2小时」, 「30分钟」.
fn minutes_zh(m: u32) -> String {
    match m {
        60 => "一小时".into(),
        m if m % 60 == 0 => format!("{}小时", m / 60),
        m => format!("{m}分钟"),
    }
}

fn where_(floor: Option<u32>) -> String {
    match floor {
        Some(f) => format!("{f} 楼"),
        None => "代投".into(),
    }
}

/// Judge every ballot of the day and count them.
pub fn tally(inp: &TallyInput) -> Tally {
    let rules = inp.rules;
    let cfg = inp.config;
    let roster = inp.roster;
    let day = inp.day;
    let mode = rules.mode_on(day);
    let as_of = inp.as_of.unwrap_or(Timestamp::MAX);
    let closes = inp.closes.unwrap_or(Timestamp::MAX);
    // The moment the tally describes: 关门, or earlier with --at.
    let t_end = as_of.min(closes);
    // The game's state the ballots are judged in: as of the tally moment, but never with
    // what happens at 关门 itself (the day's own 放逐, recorded at 关门, must not void the
    // ballots of the player it sends out, nor those cast for them).
    let t_state = t_end.min(closes.saturating_sub(1));
    let mut notes = Vec::new();
    let base_url = &cfg.forum.base_url;

    // ---- collect ----
    let mut entries: Vec<Entry> = Vec::new();
    let mut edited_posts = Vec::new();
    for p in inp.posts {
        if p.time > as_of {
            continue;
        }
        let url = findpost_url(base_url, p.tid, p.pid);
        if p.edited() {
            edited_posts.push(EditedPost {
                author: p.author.clone(),
                floor: p.floor,
                pid: p.pid,
                first_seen_edited: p.revisions[0].edit.is_some(),
                revisions: p.revisions.iter().map(|r| r.text.clone()).collect(),
                url: url.clone(),
            });
        }
        if let Some(lock) = p.locked {
            notes.push(format!(
                "{} {} 的帖子内容不可见（{}），未作为投票读取 — {url}",
                where_(p.floor),
                p.author,
                lock_zh(lock)
            ));
            continue;
        }
        let Some(b) = parse_ballot(&p.first().text) else {
            continue;
        };
        entries.push(Entry {
            voter: p.author.clone(),
            change: b.change,
            proxy: false,
            written: b.target,
            message: b.reason,
            floor: p.floor,
            pid: Some(p.pid),
            ts: p.time,
            quote: p.quote.clone(),
            edited: p.edited(),
            url: Some(url),
        });
    }
    for e in &cfg.events {
        if let Event::ProxyVote {
            day: d,
            voter,
            target,
            at,
        } = e
            && *d == day
        {
            let ts = cfg.ts(*at);
            if ts > as_of {
                continue;
            }
            entries.push(Entry {
                voter: voter.clone(),
                change: false,
                proxy: true,
                written: if target == "弃权" {
                    None
                } else {
                    Some(target.clone())
                },
                message: String::new(),
                floor: None,
                pid: None,
                ts,
                quote: None,
                edited: false,
                url: None,
            });
        }
    }
    entries.sort_by_key(|e| (e.ts, e.floor.unwrap_or(u32::MAX), e.pid.unwrap_or(u64::MAX)));

    // ---- judge, in time order ----
    let directors: HashSet<&str> = cfg.game.directors.iter().map(String::as_str).collect();
    let mut out: Vec<Ballot> = entries
        .iter_mut()
        .map(|e| Ballot {
            voter: e.voter.clone(),
            target: None,
            written_target: e.written.clone(),
            floor: e.floor,
            pid: e.pid,
            time: fmt_time_fast(cfg, e.ts),
            ts: e.ts,
            weight: Weight::ZERO,
            valid: false,
            reason: None,
            clause: None,
            change: e.change,
            proxy: e.proxy,
            message: std::mem::take(&mut e.message),
            weight_notes: Vec::new(),
            edited: e.edited,
            last_hour: inp.closes.is_some_and(|c| e.ts >= c - 3600 && e.ts <= c),
            url: e.url.take(),
            accepted: false,
            by_director: directors.contains(e.voter.as_str()),
        })
        .collect();
    let mut state: HashMap<&str, VoterState> = HashMap::new();
    let reject = |b: &mut Ballot, reason: String, clause_id: &str| {
        b.valid = false;
        b.reason = Some(reason);
        b.clause = quoted(rules.clause(clause_id));
    };
    let config_roles: HashMap<&str, &str> = cfg
        .players
        .iter()
        .filter_map(|p| p.role.as_deref().map(|r| (p.name.as_str(), r)))
        .collect();
    let role_of = |name: &str, t: Timestamp| -> Option<String> {
        roster
            .role_at(name, t)
            .or_else(|| config_roles.get(name).copied())
            .map(str::to_string)
    };
    let player_set: HashSet<&str> = roster.players.iter().map(String::as_str).collect();
    let mut names = Names::new(&roster.players);
    // `Roster::alive_at` without its linear player lookup.
    // Each player's out/revive facts, in time order (true = out).
    let mut outs: HashMap<&str, Vec<(Timestamp, bool)>> = HashMap::new();
    for (at, f) in &roster.facts {
        match f {
            Fact::Out { player, .. } => outs.entry(player).or_default().push((*at, true)),
            Fact::Revive { player } => outs.entry(player).or_default().push((*at, false)),
            _ => {}
        }
    }
    // `Roster::alive_at`, with lookups by name instead of scans.
    let alive_at = |name: &str, t: Timestamp| {
        player_set.contains(name)
            && !outs.get(name).is_some_and(|v| {
                v.iter()
                    .take_while(|(at, _)| *at <= t)
                    .last()
                    .is_some_and(|(_, out)| *out)
            })
    };
    let out_desc = |name: &str, t: Timestamp| -> String {
        match roster.out_at(name, t) {
            Some((at, cause)) => format!("{}，{}", cfg.fmt_time(at), cause_zh(cause)),
            None => "已出局".into(),
        }
    };

    for (i, e) in entries.iter().enumerate() {
        let t = e.ts;
        let voter = e.voter.as_str();
        let b = &mut out[i];
        // Shown for every ballot that names a player exactly, counted or not.
        if let Some(w) = &e.written
            && player_set.contains(w.as_str())
        {
            b.target = Some(w.clone());
        }
        if t > closes {
            reject(
                b,
                format!(
                    "发帖时间 {} 已过关门时间（{}）",
                    cfg.fmt_time(t),
                    cfg.fmt_time(closes)
                ),
                "after-close",
            );
            continue;
        }
        if directors.contains(voter) {
            reject(b, format!("{voter} 是导演：导演帖不是投票"), "voter");
            continue;
        }
        if !player_set.contains(voter) {
            reject(b, format!("{voter} 不是本局玩家"), "voter");
            continue;
        }
        if !alive_at(voter, t) {
            reject(
                b,
                format!("投票人 {voter} 已出局（{}）", out_desc(voter, t)),
                "voter",
            );
            continue;
        }
        let vstat = roster.statuses_on(voter, day);
        if let Some(s) = rules
            .voter_barred_statuses
            .iter()
            .find(|s| vstat.contains(&s.as_str()))
        {
            reject(
                b,
                format!("投票人 {voter} 第{day}天带有【{s}】，不能投票"),
                "voter-barred",
            );
            continue;
        }
        if e.proxy
            && rules.proxy_cutoff_minutes > 0
            && inp.closes.is_some()
            && t >= closes - rules.proxy_cutoff_minutes as i64 * 60
        {
            reject(
                b,
                format!(
                    "代投时间 {}：关门前{}内（关门 {}）不接受代投",
                    cfg.fmt_time(t),
                    minutes_zh(rules.proxy_cutoff_minutes),
                    cfg.fmt_time(closes)
                ),
                "proxy",
            );
            continue;
        }
        let st = state.entry(voter).or_default();
        let is_change = e.change || (e.proxy && st.current.is_some());
        if !is_change && let Some(c) = st.current {
            let (id, extra) = if rules.change_limit == Some(0) {
                ("no-change", "")
            } else {
                ("one-vote", "；改票须使用改票格式")
            };
            let f = where_(entries[c].floor);
            reject(b, format!("{voter} 已经投过票（{f}）{extra}"), id);
            continue;
        }
        // A target that names a player exactly.
        let target = match &e.written {
            None => Ok(None),
            Some(w) => names.resolve(w),
        };
        let target = match target {
            Ok(t) => t,
            Err(why) => {
                let id = if e.written.as_deref() == Some("") {
                    "format"
                } else {
                    "target"
                };
                reject(b, why, id);
                continue;
            }
        };
        if let Some(tg) = &target
            && !alive_at(tg, t)
        {
            reject(
                b,
                format!("投票对象 {tg} 已出局（{}）", out_desc(tg, t)),
                "target-out",
            );
            continue;
        }
        if !b.message.is_empty()
            && let Some(s) = rules
                .reason_forbidden_statuses
                .iter()
                .find(|s| vstat.contains(&s.as_str()))
        {
            reject(
                b,
                format!("{voter} 第{day}天带有【{s}】，不得写投票理由，但写了"),
                "reason-forbidden",
            );
            continue;
        }
        if is_change {
            let Some(c) = st.current else {
                reject(b, format!("{voter} 改票，但此前没有可改的有效票"), "format");
                continue;
            };
            if rules.change_limit == Some(0) {
                reject(b, format!("{voter} 改票：本局不允许改票"), "no-change");
                continue;
            }
            if rules.change_must_reply && !e.proxy {
                let own = st
                    .accepted
                    .iter()
                    .any(|&a| replies_to(e.quote.as_ref(), &entries[a]));
                if !own {
                    let floors: Vec<String> = st
                        .accepted
                        .iter()
                        .map(|&a| where_(entries[a].floor))
                        .collect();
                    let what = match &e.quote {
                        None => "没有引用任何帖子".to_string(),
                        Some(q) => match (q.pid, &q.author) {
                            (Some(p), _) => format!("回复的是 pid {p}"),
                            (None, Some(a)) => format!("回复的是 {a} 的帖子"),
                            _ => "回复的帖子无法识别".into(),
                        },
                    };
                    reject(
                        b,
                        format!(
                            "改票{what}，不是回复 {voter} 自己的投票（{}）",
                            floors.join("、")
                        ),
                        "change-reply",
                    );
                    continue;
                }
            }
            let prev_target = out[c].target.clone();
            let exempt = rules.change_exempt_if_target_out
                && !st.exempt_used
                && prev_target.as_deref().is_some_and(|pt| {
                    roster
                        .out_at(pt, t)
                        .is_some_and(|(at, _)| at > entries[c].ts)
                });
            let b = &mut out[i];
            if !exempt {
                if rules.no_change_when_accelerated && inp.accelerated {
                    reject(
                        b,
                        format!("{voter} 改票：本日已加速，加速后不允许改票"),
                        "change-accelerated",
                    );
                    continue;
                }
                if rules.change_cutoff_minutes > 0
                    && inp.closes.is_some()
                    && t >= closes - rules.change_cutoff_minutes as i64 * 60
                {
                    reject(
                        b,
                        format!(
                            "改票时间 {}：关门前{}内（关门 {}）不允许改票",
                            cfg.fmt_time(t),
                            minutes_zh(rules.change_cutoff_minutes),
                            cfg.fmt_time(closes)
                        ),
                        "change-last-hour",
                    );
                    continue;
                }
                if let Some(n) = rules.change_limit
                    && st.changes >= n
                {
                    let prev: Vec<String> = st
                        .accepted
                        .iter()
                        .skip(1)
                        .map(|&a| where_(entries[a].floor))
                        .collect();
                    reject(
                        b,
                        format!(
                            "{voter} 已改票 {n} 次（{}），本局最多改票 {n} 次",
                            prev.join("、")
                        ),
                        "change-limit",
                    );
                    continue;
                }
            } else {
                b.clause = quoted(rules.clause("change-exempt"));
                b.weight_notes.push(format!(
                    "允许改票（不受时限）：原投票对象 {} 已在当天出局",
                    prev_target.unwrap_or_default()
                ));
            }
            if exempt {
                st.exempt_used = true;
            } else {
                st.changes += 1;
            }
            let f = where_(e.floor);
            let pb = &mut out[c];
            pb.valid = false;
            pb.reason = Some(format!("已被 {f}改票取代"));
            pb.clause = quoted(rules.clause(if rules.change_limit.is_some() {
                "change-limit"
            } else {
                "one-vote"
            }));
        }
        let b = &mut out[i];
        b.valid = true;
        b.accepted = true;
        b.target = target;
        st.current = Some(i);
        st.accepted.push(i);
    }

    // ---- ballots that stopped counting: voter or target out by the tally moment ----
    let mut counted: Vec<usize> = Vec::new();
    for st in state.values() {
        let Some(c) = st.current else { continue };
        let b = &mut out[c];
        if !alive_at(&b.voter, t_state) {
            let r = format!(
                "投票人 {} 投票后出局（{}），出局玩家的票不计",
                b.voter,
                out_desc(&b.voter, t_state)
            );
            reject(b, r, "voter");
            continue;
        }
        if let Some(tg) = b.target.clone()
            && !alive_at(&tg, t_state)
        {
            let r = format!("投票对象 {tg} 在投票后出局（{}）", out_desc(&tg, t_state));
            reject(b, r, "target-out");
            continue;
        }
        counted.push(c);
    }
    counted.sort_unstable();

    // ---- weights ----
    let alive_end: Vec<&str> = roster
        .players
        .iter()
        .map(String::as_str)
        .filter(|p| alive_at(p, t_state))
        .collect();
    let roles_end: HashMap<&str, Option<String>> = roster
        .players
        .iter()
        .map(|p| (p.as_str(), role_of(p, t_state)))
        .collect();
    let role_end = |name: &str| -> Option<&str> { roles_end.get(name).and_then(|r| r.as_deref()) };
    let alive_with_role = |role: &str| -> usize {
        alive_end
            .iter()
            .filter(|p| role_end(p) == Some(role))
            .count()
    };
    let sheriff = roster.sheriff_at(t_state).map(str::to_string);
    for &c in &counted {
        let voter = out[c].voter.clone();
        let vrole = role_end(&voter).map(str::to_string);
        let vstat = roster.statuses_on(&voter, day);
        let mut w = Weight::ONE;
        let mut wn = Vec::new();
        let mut zero: Option<String> = None;
        for rule in &rules.weights {
            let cl = rule.clause();
            match rule {
                WeightRule::Sheriff { add, .. } => {
                    if sheriff.as_deref() == Some(voter.as_str()) {
                        let a = Weight::from_f64(*add).unwrap_or_default();
                        w += a;
                        wn.push(format!("警长 +{a}票 「{cl}」"));
                    }
                }
                WeightRule::Declared {
                    role, subordinates, ..
                } => {
                    if vrole.as_deref() != Some(role.as_str()) {
                        continue;
                    }
                    let declared = cfg.events.iter().rev().find_map(|e| match e {
                        Event::VoteWeight {
                            day: d,
                            player,
                            weight,
                        } if *d == day && *player == voter => Some(*weight),
                        _ => None,
                    });
                    if let Some(dw) = declared {
                        let max = subordinates
                            .iter()
                            .map(|s| alive_with_role(s))
                            .sum::<usize>()
                            + 1;
                        if dw.fract() == 0.0 && dw >= 1.0 && dw <= max as f64 {
                            let nw = Weight::from_int(dw as i64);
                            w = w - Weight::ONE + nw;
                            wn.push(format!("{role}声明票数 {nw}（可选 1～{max}） 「{cl}」"));
                        } else {
                            notes.push(format!(
                                "{voter} 声明的票数 {dw} 无效，已忽略：须为 1～{max} 的整数（存活手下数 + 1） 「{cl}」"
                            ));
                        }
                    }
                }
                WeightRule::Group {
                    role,
                    min_alive,
                    add,
                    ..
                } => {
                    if vrole.as_deref() == Some(role.as_str()) {
                        let n = alive_with_role(role);
                        if n >= *min_alive {
                            let a = Weight::from_f64(*add).unwrap_or_default();
                            w += a;
                            wn.push(format!("{role}存活 {n} 人 +{a}票 「{cl}」"));
                        }
                    }
                }
                WeightRule::Pair { roles, add, .. } => {
                    if !vrole.as_ref().is_some_and(|r| roles.contains(r)) {
                        continue;
                    }
                    let my_target = &out[c].target;
                    if my_target.is_none() {
                        continue;
                    }
                    let all_same = roles.iter().all(|r| {
                        counted.iter().any(|&o| {
                            role_end(&out[o].voter) == Some(r.as_str())
                                && out[o].target == *my_target
                        })
                    });
                    if all_same {
                        let a = Weight::from_f64(*add).unwrap_or_default();
                        w += a;
                        wn.push(format!("{}投同一对象 +{a}票 「{cl}」", roles.join("/")));
                    }
                }
                WeightRule::PerOut {
                    role, status, add, ..
                } => {
                    if vrole.as_deref() != Some(role.as_str()) {
                        continue;
                    }
                    let marked: Vec<&str> = roster
                        .statuses
                        .iter()
                        .filter(|(_, s, from, _)| s == status && *from <= day)
                        .map(|(p, _, _, _)| p.as_str())
                        .collect();
                    let n = roster
                        .facts
                        .iter()
                        .filter(|(at, f)| {
                            *at <= t_state
                                && matches!(f, Fact::Out { player, .. } if marked.contains(&player.as_str()))
                        })
                        .count() as i64;
                    if n > 0 {
                        let a = Weight(Weight::from_f64(*add).unwrap_or_default().0 * n);
                        w += a;
                        wn.push(format!("【{status}】已出局 {n} 人 +{a}票 「{cl}」"));
                    }
                }
                WeightRule::StatusZero { status, .. } => {
                    if vstat.contains(&status.as_str()) {
                        zero = Some(format!("【{status}】：票数计 0 「{cl}」"));
                    }
                }
                WeightRule::StatusReceived { .. } => {}
            }
        }
        if let Some(z) = zero {
            w = Weight::ZERO;
            wn.push(z);
        }
        out[c].weight = w;
        out[c].weight_notes.extend(wn);
    }

    // ---- totals ----
    let mut totals: HashMap<String, Weight> = HashMap::new();
    let mut received: HashMap<String, Weight> = HashMap::new();
    for rule in &rules.weights {
        if let WeightRule::StatusReceived {
            status,
            add,
            clause,
        } = rule
        {
            let a = Weight::from_f64(*add).unwrap_or_default();
            for &p in &alive_end {
                let k = roster
                    .statuses_on(p, day)
                    .iter()
                    .filter(|s| **s == status.as_str())
                    .count() as i64;
                if k > 0 {
                    *received.entry(p.to_string()).or_default() += Weight(a.0 * k);
                    notes.push(format!(
                        "{p} 额外获得 +{}票（{k}个【{status}】） 「{clause}」",
                        Weight(a.0 * k)
                    ));
                }
            }
        }
    }
    for (p, w) in &received {
        *totals.entry(p.clone()).or_default() += *w;
    }
    for &c in &counted {
        if let Some(t) = &out[c].target {
            *totals.entry(t.clone()).or_default() += out[c].weight;
        }
    }
    let seat: HashMap<&str, usize> = roster
        .players
        .iter()
        .enumerate()
        .map(|(i, p)| (p.as_str(), i))
        .collect();
    let order = |name: &str| seat.get(name).copied();
    let mut totals: Vec<Total> = totals
        .into_iter()
        .map(|(target, votes)| Total { target, votes })
        .collect();
    totals.sort_by(|a, b| {
        b.votes
            .cmp(&a.votes)
            .then(order(&a.target).cmp(&order(&b.target)))
    });

    // ---- outcome ----
    let top = totals.first().map(|t| t.votes).unwrap_or_default();
    let tops: Vec<String> = if top > Weight::ZERO {
        totals
            .iter()
            .filter(|t| t.votes == top)
            .map(|t| t.target.clone())
            .collect()
    } else {
        Vec::new()
    };
    let none = |via: String, clause: &str, tied: Vec<String>| Outcome {
        kind: "none",
        player: None,
        via,
        clause: clause.to_string(),
        tied,
    };
    let outcome = match mode {
        Mode::Election => {
            let cl = rules.clause("election");
            if tops.is_empty() {
                none("无人投票：无人当选警长".into(), cl, vec![])
            } else if tops.len() == 1 {
                Outcome {
                    kind: "elected",
                    player: Some(tops[0].clone()),
                    via: format!("得票最高（{top}票）"),
                    clause: cl.into(),
                    tied: vec![],
                }
            } else {
                match rules.election_tie {
                    ElectionTie::FirstToReach => {
                        let w = first_to_reach(&out, &received, &tops, top);
                        Outcome {
                            kind: "elected",
                            player: Some(w.clone()),
                            via: format!("{} 平票（{top}票）：{w} 先达到该票数", tops.join("、")),
                            clause: cl.into(),
                            tied: tops,
                        }
                    }
                    ElectionTie::None => none(
                        format!("{} 平票（{top}票）：本局无警长", tops.join("、")),
                        cl,
                        tops,
                    ),
                }
            }
        }
        Mode::Elimination => {
            let cl = rules.clause("elimination");
            if tops.is_empty() {
                none("无人投票：无人出局".into(), cl, vec![])
            } else if tops.len() == 1 {
                let p = &tops[0];
                let st = roster.statuses_on(p, day);
                if let Some(s) = rules
                    .survive_statuses
                    .iter()
                    .find(|s| st.contains(&s.as_str()))
                {
                    none(
                        format!("{p} 得票最高（{top}票），但带有【{s}】：平安日"),
                        rules.clause("survive"),
                        vec![],
                    )
                } else {
                    Outcome {
                        kind: "eliminated",
                        player: Some(p.clone()),
                        via: format!("得票最高（{top}票）"),
                        clause: cl.into(),
                        tied: vec![],
                    }
                }
            } else {
                tie_break(
                    rules,
                    roster,
                    day,
                    t_state,
                    &out,
                    &counted,
                    sheriff.as_deref(),
                    &tops,
                    top,
                    &role_of,
                )
            }
        }
        Mode::Majority => {
            let cl = rules.clause("majority");
            let n = alive_end.len() as i64;
            let mut o = match totals.first() {
                Some(t) if t.votes.0 * 2 > n * 10 => Outcome {
                    kind: "eliminated",
                    player: Some(t.target.clone()),
                    via: format!("{} 得 {}票，超过存活 {n} 人的半数", t.target, t.votes),
                    clause: cl.into(),
                    tied: vec![],
                },
                Some(t) => none(
                    format!(
                        "公决失败：最高票（{} {}票）未超过存活 {n} 人的半数",
                        t.target, t.votes
                    ),
                    cl,
                    vec![],
                ),
                None => none(format!("公决失败：存活 {n} 人中无人投票"), cl, vec![]),
            };
            if o.kind == "none" && rules.last_day == Some(day) {
                o.via
                    .push_str(&format!("；第{day}天是最后一天，公决必须成功"));
                o.clause = rules.clause("last-day").into();
            }
            o
        }
    };

    // ---- who has not voted ----
    let voted: Vec<&str> = counted.iter().map(|&c| out[c].voter.as_str()).collect();
    let voted: HashSet<&str> = voted.into_iter().collect();
    let non_voters = alive_end
        .iter()
        .copied()
        .filter(|p| !cfg.is_director(p) && !voted.contains(p))
        .map(str::to_string)
        .collect();

    for e in &cfg.events {
        if let Event::VoteWeight { day: d, player, .. } = e
            && *d == day
        {
            let declared_role = rules.weights.iter().any(|w| matches!(w, WeightRule::Declared { role, .. } if role_of(player, t_state).as_deref() == Some(role.as_str())));
            if !declared_role {
                notes.push(format!(
                    "{player} 的 vote-weight 事件已忽略：本局没有允许该玩家声明票数的规则"
                ));
            }
        }
    }

    let mut readings: Vec<String> = inp.readings.to_vec();
    readings.extend(rules.notes.iter().cloned());
    Tally {
        day,
        mode: mode.as_str(),
        ballots: out,
        totals,
        outcome,
        as_of: if t_end == Timestamp::MAX {
            String::new()
        } else {
            cfg.fmt_time(t_end)
        },
        closes: inp.closes.map(|c| cfg.fmt_time(c)),
        accelerated: inp.accelerated,
        secrecy: match rules.secrecy {
            Secrecy::Open => "open",
            Secrecy::Anonymous => "anonymous",
            Secrecy::TopOnly => "top-only",
        },
        secrecy_clause: rules.clause("secrecy").to_string(),
        non_voters,
        edited_posts,
        notes,
        readings,
    }
}

/// `Config::fmt_time` (`YYYY-MM-DD HH:MM:SS` in the game's timezone) without chrono's
/// format-string machinery: one per ballot adds up.
fn fmt_time_fast(cfg: &Config, ts: Timestamp) -> String {
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

/// Target names: exact lookup, and for names that match no player, the reason with the
/// closest player names (memoised: the same misspelling is common).
struct Names<'a> {
    players: &'a [String],
    set: HashSet<&'a str>,
    chars: Vec<Vec<char>>,
    memo: HashMap<String, Result<Option<String>, String>>,
}

impl<'a> Names<'a> {
    fn new(players: &'a [String]) -> Self {
        Names {
            players,
            set: players.iter().map(String::as_str).collect(),
            chars: Vec::new(),
            memo: HashMap::new(),
        }
    }

    /// A written target names a player exactly; otherwise say why not and suggest names.
    fn resolve(&mut self, written: &str) -> Result<Option<String>, String> {
        if self.set.contains(written) {
            return Ok(Some(written.to_string()));
        }
        if let Some(r) = self.memo.get(written) {
            return r.clone();
        }
        let r = Err(self.why_not(written));
        self.memo.insert(written.to_string(), r.clone());
        r
    }

    fn why_not(&mut self, written: &str) -> String {
        if written.is_empty() {
            return "“投票对象”后没有写投票对象".into();
        }
        let players = self.players;
        let containing: Vec<&str> = players
            .iter()
            .filter(|p| p.contains(written))
            .map(String::as_str)
            .collect();
        if containing.len() > 1 {
            return format!(
                "投票对象『{written}』不明确：可能是 {}；投票对象须准确写出一名玩家的名字",
                containing.join("、")
            );
        }
        if self.chars.is_empty() {
            self.chars = players.iter().map(|p| p.chars().collect()).collect();
        }
        let w: Vec<char> = written.chars().collect();
        let mut row = Vec::new();
        // Score = 1 - distance / longer length, +1 if one name contains the other. Keep the
        // best three; a distance that cannot beat the third best is not computed to the end.
        let mut scored: Vec<(f64, &String)> = Vec::with_capacity(4);
        for (p, pc) in players.iter().zip(&self.chars) {
            let contains = (p.len() >= written.len() && p.contains(written))
                || (written.len() > p.len() && written.contains(p.as_str()));
            let bonus = if contains { 1.0 } else { 0.0 };
            let len = w.len().max(pc.len()).max(1);
            let third = if scored.len() == 3 { scored[2].0 } else { 0.0 };
            // Largest distance that still scores above `third`.
            let room = (1.0 + bonus - third) * len as f64;
            if room <= 0.0 {
                continue;
            }
            let max_d = (room.ceil() as usize).saturating_sub(1).min(len);
            let Some(d) = levenshtein(&w, pc, &mut row, max_d) else {
                continue;
            };
            let sc = 1.0 - d as f64 / len as f64 + bonus;
            if sc <= third && scored.len() == 3 {
                continue;
            }
            if sc > 0.0 {
                let at = scored.partition_point(|(x, _)| *x >= sc);
                scored.insert(at, (sc, p));
                scored.truncate(3);
            }
        }
        scored.sort_by(|a, b| b.0.total_cmp(&a.0));
        let names: Vec<&str> = scored.iter().take(3).map(|(_, p)| p.as_str()).collect();
        if names.is_empty() {
            format!("投票对象『{written}』不是本局玩家")
        } else {
            format!(
                "投票对象『{written}』不是本局玩家；最接近的玩家：{}",
                names.join("、")
            )
        }
    }
}

/// Edit distance over chars (one reused row; names are short), or `None` once it is sure
/// to exceed `max`.
fn levenshtein(a: &[char], b: &[char], row: &mut Vec<usize>, max: usize) -> Option<usize> {
    if a.len().abs_diff(b.len()) > max {
        return None;
    }
    row.clear();
    row.extend(0..=b.len());
    for (i, ca) in a.iter().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        let mut row_min = row[0];
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = if ca == cb {
                prev
            } else {
                1 + prev.min(cur).min(row[j])
            };
            row_min = row_min.min(row[j + 1]);
            prev = cur;
        }
        if row_min > max {
            return None;
        }
    }
    let d = row[b.len()];
    (d <= max).then_some(d)
}

/// Whether a 改票's quote points at this earlier ballot: the findpost pid, or for quotes
/// without a link, the author and time (the quote header shows minutes).
fn replies_to(q: Option<&crate::model::QuoteRef>, e: &Entry) -> bool {
    let Some(q) = q else { return false };
    if let Some(p) = q.pid {
        return Some(p) == e.pid;
    }
    if let (Some(a), Some(t)) = (&q.author, q.time) {
        return *a == e.voter && (e.ts - t).abs() < 60;
    }
    if let (Some(a), Some(f)) = (&q.author, q.floor) {
        return *a == e.voter && Some(f) == e.floor;
    }
    false
}

/// Election tie: the tied player whose counting ballots first made up the highest count
/// (ballots later replaced by a 改票 do not count towards reaching it).
fn first_to_reach(
    out: &[Ballot],
    received: &HashMap<String, Weight>,
    tops: &[String],
    top: Weight,
) -> String {
    let mut best: Option<((Timestamp, u32), &String)> = None;
    for t in tops {
        let mut run = received.get(t).copied().unwrap_or_default();
        let mut reached = if run >= top {
            Some((Timestamp::MIN, 0))
        } else {
            None
        };
        for b in out
            .iter()
            .filter(|b| b.valid && b.target.as_ref() == Some(t))
        {
            if reached.is_some() {
                break;
            }
            run += b.weight;
            if run >= top {
                reached = Some((b.ts, b.floor.unwrap_or(u32::MAX)));
            }
        }
        if let Some(r) = reached
            && best.is_none_or(|(br, _)| r < br)
        {
            best = Some((r, t));
        }
    }
    best.map(|(_, t)| t.clone())
        .unwrap_or_else(|| tops[0].clone())
}

#[allow(clippy::too_many_arguments)]
fn tie_break(
    rules: &VoteRules,
    roster: &Roster,
    day: u32,
    t_end: Timestamp,
    out: &[Ballot],
    counted: &[usize],
    sheriff: Option<&str>,
    tops: &[String],
    top: Weight,
    role_of: &dyn Fn(&str, Timestamp) -> Option<String>,
) -> Outcome {
    let tie = format!("{} 平票（{top}票）", tops.join("、"));
    for tb in &rules.tie_breaks {
        match tb {
            TieBreak::RoleOut {
                role,
                skill,
                lost_status,
                clause,
            } => {
                let who = roster.alive(t_end).into_iter().find(|p| {
                    role_of(p, t_end).as_deref() == Some(role.as_str())
                        && !lost_status
                            .as_ref()
                            .is_some_and(|s| roster.statuses_on(p, day).contains(&s.as_str()))
                });
                if let Some(p) = who {
                    return Outcome {
                        kind: "eliminated",
                        player: Some(p.to_string()),
                        via: format!("{tie}：{role}<{skill}>，改由 {p} 出局"),
                        clause: clause.clone(),
                        tied: tops.to_vec(),
                    };
                }
            }
            TieBreak::SheriffTarget { clause } => {
                let Some(s) = sheriff else { continue };
                let sb = counted.iter().map(|&c| &out[c]).find(|b| b.voter == s);
                if let Some(Ballot {
                    target: Some(t), ..
                }) = sb
                {
                    return Outcome {
                        kind: "eliminated",
                        player: Some(t.clone()),
                        via: format!("{tie}：警长 {s} 的有效票投给了 {t}"),
                        clause: clause.clone(),
                        tied: tops.to_vec(),
                    };
                }
            }
            TieBreak::Nobody { clause } => {
                return Outcome {
                    kind: "none",
                    player: None,
                    via: format!("{tie}：无人出局"),
                    clause: clause.clone(),
                    tied: tops.to_vec(),
                };
            }
        }
    }
    Outcome {
        kind: "none",
        player: None,
        via: format!("{tie}：没有适用的平票规则，无人出局"),
        clause: rules.clause("elimination").to_string(),
        tied: tops.to_vec(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lev(a: &str, b: &str, max: usize) -> Option<usize> {
        let a: Vec<char> = a.chars().collect();
        let b: Vec<char> = b.chars().collect();
        levenshtein(&a, &b, &mut Vec::new(), max)
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
            ] {
                assert_eq!(fmt_time_fast(&cfg, ts), cfg.fmt_time(ts), "{tz} {ts}");
            }
        }
        cfg.tz = chrono_tz::Asia::Shanghai;
        assert_eq!(fmt_time_fast(&cfg, 0), "1970-01-01 08:00:00");
    }

    #[test]
    fn bounded_edit_distance() {
        assert_eq!(lev("大黄峰", "大黄蜂", 5), Some(1));
        assert_eq!(lev("kitten", "sitting", 3), Some(3));
        assert_eq!(lev("kitten", "sitting", 2), None);
        assert_eq!(lev("", "abc", 3), Some(3));
        assert_eq!(lev("abc", "abc", 0), Some(0));
    }

    #[test]
    fn suggestions_rank_closest_first() {
        let players: Vec<String> = ["傻树", "不见", "白色防御者", "白色小猫", "大黄蜂", "吉祥猪"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let mut n = Names::new(&players);
        assert_eq!(n.resolve("大黄蜂"), Ok(Some("大黄蜂".into())));
        let e = n.resolve("白色防御").unwrap_err();
        assert!(e.ends_with("最接近的玩家：白色防御者、白色小猫"), "{e}");
        let e = n.resolve("白色").unwrap_err();
        assert!(e.starts_with("投票对象『白色』不明确"), "{e}");
        let e = n.resolve("傻树树").unwrap_err();
        assert!(e.contains("最接近的玩家：傻树"), "{e}");
        let e = n.resolve("zzzzzz").unwrap_err();
        assert_eq!(e, "投票对象『zzzzzz』不是本局玩家");
    }
}
