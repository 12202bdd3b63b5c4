//! Tally phase 2: each ballot, in time order, against the clauses in force at its moment
//! (关门 or `vote_closes`, out at T, 挂机 since T, 加速 since T, statuses on the day, the
//! 改票 limits); then, at the tally's moment, which accepted ballots still count.

use std::collections::HashMap;

use super::collect::Entry;
use super::names::Names;
use super::tally::{Ballot, Ctx, fmt_time_fast, minutes_zh, quoted, where_};
use crate::model::{QuoteRef, Timestamp};
use crate::rules::vote::Weight;

#[derive(Default)]
struct VoterState {
    current: Option<usize>,
    /// Ballots of this voter that counted at some point (a 改票 may reply to them).
    accepted: Vec<usize>,
    changes: u32,
    exempt_used: bool,
}

fn reject(cx: &Ctx, b: &mut Ballot, reason: String, clause_id: &str) {
    reject_as(cx, b, reason.clone(), reason, clause_id);
}

/// A verdict whose reason for the director says more than the 公示 may (how a player went
/// out): `public` is what the public view shows.
fn reject_as(cx: &Ctx, b: &mut Ballot, reason: String, public: String, clause_id: &str) {
    b.valid = false;
    b.reason = Some(reason);
    b.public_reason = Some(public);
    b.clause = quoted(cx.rules.clause(clause_id));
}

/// Every entry's verdict at its own moment. A ballot accepted here may still stop counting
/// ([`still_counting`]).
pub(super) fn judge(cx: &Ctx, entries: &mut [Entry], notes: &mut Vec<String>) -> Vec<Ballot> {
    let rules = cx.rules;
    let cfg = cx.cfg;
    let day = cx.day;
    let closes = cx.deadline;
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
            public_reason: None,
            clause: None,
            change: e.change,
            proxy: e.proxy,
            message: std::mem::take(&mut e.message),
            weight_notes: Vec::new(),
            edited: e.edited,
            last_hour: cx.has_deadline && e.ts >= closes - 3600 && e.ts <= closes,
            url: e.url.take(),
            accepted: false,
            by_director: cx.directors.contains(e.voter.as_str()),
            secret: false,
        })
        .collect();
    let mut state: HashMap<&str, VoterState> = HashMap::new();
    let mut names = Names::new(&cx.roster.players);

    for (i, e) in entries.iter().enumerate() {
        let t = e.ts;
        let voter = e.voter.as_str();
        let b = &mut out[i];
        // Shown for every ballot that names a player exactly, counted or not.
        if let Some(w) = &e.written
            && cx.players.contains(w.as_str())
        {
            b.target = Some(w.clone());
        }
        if t > closes {
            reject(
                cx,
                b,
                format!(
                    "发帖时间 {} 已过{}（{}）",
                    cfg.fmt_time(t),
                    if cx.vote_window {
                        "投票截止时间"
                    } else {
                        "关门时间"
                    },
                    cfg.fmt_time(closes)
                ),
                "after-close",
            );
            continue;
        }
        if cx.directors.contains(voter) {
            reject(cx, b, format!("{voter} 是导演：导演帖不是投票"), "voter");
            continue;
        }
        if !cx.players.contains(voter) {
            reject(cx, b, format!("{voter} 不是本局玩家"), "voter");
            continue;
        }
        if let Some(label) = &e.misspelled {
            let r = format!(
                "标签写作「{label}：」，不是投票格式（「投票对象：」/「改票对象：」），不计票"
            );
            reject(cx, b, r, "format");
            continue;
        }
        if !cx.alive_at(voter, t) {
            let r = format!("投票人 {voter} 已出局（{}）", cx.out_desc(voter, t));
            let p = format!("投票人 {voter} 已出局（{}）", cx.out_desc_public(voter, t));
            reject_as(cx, b, r, p, "voter");
            continue;
        }
        if let (Some(at), Some(st)) = (cx.carded_at(voter, t), &rules.red_card_status) {
            let r = format!(
                "投票人 {voter} 于 {} 被红牌罚下，处于【{st}】状态，不能投票",
                cfg.fmt_time(at)
            );
            reject(cx, b, r, "voter-barred");
            continue;
        }
        let vstat = cx.statuses(voter);
        if let Some(s) = rules
            .voter_barred_statuses
            .iter()
            .find(|s| vstat.contains(&s.as_str()))
        {
            reject(
                cx,
                b,
                format!("投票人 {voter} 第{day}天带有【{s}】，不能投票"),
                "voter-barred",
            );
            if rules.secret_statuses.contains(s) {
                b.secret = true;
                notes.push(format!(
                    "{} {voter} 的投票因【{s}】无效；公示照常列出该票，不标无效、不印票数 「{}」",
                    where_(e.floor),
                    rules.clause("secret-status")
                ));
            }
            continue;
        }
        if e.proxy
            && rules.proxy_cutoff_minutes > 0
            && cx.has_deadline
            && t >= closes - rules.proxy_cutoff_minutes as i64 * 60
        {
            reject(
                cx,
                b,
                format!(
                    "代投时间 {}：{}前{}内（{} {}）不接受代投",
                    cfg.fmt_time(t),
                    if cx.vote_window {
                        "投票截止"
                    } else {
                        "关门"
                    },
                    minutes_zh(rules.proxy_cutoff_minutes),
                    if cx.vote_window { "截止" } else { "关门" },
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
            reject(cx, b, format!("{voter} 已经投过票（{f}）{extra}"), id);
            continue;
        }
        // A target that names a player.
        let target = match &e.written {
            None => Ok(None),
            Some(w) => names.resolve(w),
        };
        let target = match target {
            Ok(Some(t)) if e.written.as_deref() != Some(t.as_str()) => {
                // Read up to the width of punctuation, or without the mark that ends a
                // one-line target: the verdict names the sentence that allows it.
                let cl = rules.clause("punctuation");
                let why = if cl.is_empty() {
                    "bansha 采用：标点符号不区分全半角，投票对象后的标点不属于名字".to_string()
                } else {
                    format!("「{cl}」")
                };
                b.weight_notes.push(format!(
                    "投票对象『{}』读作 {t} {why}",
                    e.written.as_deref().unwrap_or_default()
                ));
                Some(t)
            }
            Ok(t) => t,
            Err(why) => {
                let id = if e.written.as_deref() == Some("") {
                    "format"
                } else {
                    "target"
                };
                reject(cx, b, why, id);
                continue;
            }
        };
        if let Some(tg) = &target
            && !cx.alive_at(tg, t)
        {
            let r = format!("投票对象 {tg} 已出局（{}）", cx.out_desc(tg, t));
            let p = format!("投票对象 {tg} 已出局（{}）", cx.out_desc_public(tg, t));
            reject_as(cx, b, r, p, "target-out");
            continue;
        }
        // 寡言: a reason is a breach for the director to judge; the target is clear, so the
        // ballot counts.
        if !b.message.is_empty()
            && let Some(s) = rules
                .reason_forbidden_statuses
                .iter()
                .find(|s| vstat.contains(&s.as_str()))
        {
            let cl = rules.clause("reason-forbidden");
            b.weight_notes.push(format!(
                "【{s}】却写了投票理由：{s}违规，由导演判定；投票对象明确，本票照常计入 「{cl}」"
            ));
            notes.push(format!(
                "{} {voter} 第{day}天带有【{s}】却写了投票理由（{s}违规，由导演判定）；投票对象明确，本票照常计入，除非导演另有裁定 「{cl}」",
                where_(e.floor)
            ));
        }
        if is_change {
            let Some(c) = st.current else {
                reject(
                    cx,
                    b,
                    format!("{voter} 改票，但此前没有可改的有效票"),
                    "format",
                );
                continue;
            };
            if rules.change_limit == Some(0) {
                reject(cx, b, format!("{voter} 改票：本局不允许改票"), "no-change");
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
                        cx,
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
                && prev_target
                    .as_deref()
                    .is_some_and(|pt| cx.out_at(pt, t).is_some_and(|(at, _)| at > entries[c].ts));
            let b = &mut out[i];
            if !exempt {
                if rules.no_change_when_accelerated && cx.accelerated_at(t) {
                    let since = match cx.accelerated_since {
                        Some(s) if s != Timestamp::MIN => format!("自 {} 起", cfg.fmt_time(s)),
                        _ => "自开门起".into(),
                    };
                    reject(
                        cx,
                        b,
                        format!("{voter} 改票：本日已加速（{since}执行加速），加速后不允许改票"),
                        "change-accelerated",
                    );
                    continue;
                }
                if rules.change_cutoff_minutes > 0
                    && cx.has_deadline
                    && t >= closes - rules.change_cutoff_minutes as i64 * 60
                {
                    reject(
                        cx,
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
                        cx,
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
            pb.public_reason = pb.reason.clone();
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
    out
}

/// The current ballot of each voter that still counts at the tally's moment: voter and
/// target still in the game. Sorted by position.
pub(super) fn still_counting(cx: &Ctx, out: &mut [Ballot]) -> Vec<usize> {
    let mut current: HashMap<&str, usize> = HashMap::new();
    for (i, b) in out.iter().enumerate() {
        if b.valid {
            current.insert(b.voter.as_str(), i);
        }
    }
    let mut idx: Vec<usize> = current.into_values().collect();
    idx.sort_unstable();
    let t_end = cx.t_state;
    let mut counted = Vec::new();
    for c in idx {
        let b = &mut out[c];
        if !cx.alive_at(&b.voter, t_end) {
            let r = format!(
                "投票人 {} 投票后出局（{}），出局玩家的票不计",
                b.voter,
                cx.out_desc(&b.voter, t_end)
            );
            let p = format!(
                "投票人 {} 投票后出局（{}），出局玩家的票不计",
                b.voter,
                cx.out_desc_public(&b.voter, t_end)
            );
            reject_as(cx, b, r, p, "voter");
            continue;
        }
        if let Some(tg) = b.target.clone()
            && !cx.alive_at(&tg, t_end)
        {
            let r = format!("投票对象 {tg} 在投票后出局（{}）", cx.out_desc(&tg, t_end));
            let p = format!(
                "投票对象 {tg} 在投票后出局（{}）",
                cx.out_desc_public(&tg, t_end)
            );
            reject_as(cx, b, r, p, "target-out");
            continue;
        }
        counted.push(c);
    }
    counted
}

/// Whether a 改票's quote points at this earlier ballot: the findpost pid, or for quotes
/// without a link, the author and time (the quote header shows minutes).
fn replies_to(q: Option<&QuoteRef>, e: &Entry) -> bool {
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
