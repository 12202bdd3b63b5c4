//! The activity report and the 电梯楼 as text, JSON (`docs/interfaces.md`) and BBCode.
//! What players and directors read is Chinese; player names in BBCode are escaped.

use serde_json::{Value, json};

use super::{ActivityReport, Elevator, Evidence, Presence};
use crate::config::Config;
use crate::report::{author_only_url, bbcode_escape, findpost_url, max_width, pad_left, pad_right};

/// Whether the rule post itself names the card for this violation (the quoted clause says
/// 蓝牌/黄牌/红牌). A card it does not name (诈尸, 寡言 in the rule posts so far) is bansha's
/// suggestion: the director's report shows it as one, the public BBCode never prints it.
pub fn card_named_by_rule(v: &super::Violation) -> bool {
    v.clause.contains(v.card.zh())
}

fn evidence_json(cfg: &Config, e: &Evidence) -> Value {
    json!({
        "tid": e.tid,
        "pid": e.pid,
        "floor": e.floor,
        "time": cfg.fmt_time(e.time),
        "thread": e.thread,
        "url": findpost_url(&cfg.forum.base_url, e.tid, e.pid),
    })
}

/// The contract's `activity` JSON, with more keys.
pub fn report_json(cfg: &Config, r: &ActivityReport) -> Value {
    let a = &r.accel;
    json!({
        "day": r.day,
        "accelerated": a.accelerated,
        "delayed": a.delayed,
        "opens": cfg.fmt_time(r.opens),
        "closes": cfg.fmt_time(r.closes),
        "acceleration": {
            "accelerated": a.accelerated,
            "since": a.since.map(|t| cfg.fmt_time(t)),
            "delayed": a.delayed,
            "deadline": a.deadline.map(|t| cfg.fmt_time(t)),
            "living": a.living,
            "accelerate_requests": a.accelerate_count,
            "delay_requests": a.delay_count,
            "overridden_by_director": a.overridden_by_director,
            "clause": a.clause,
            "explanation": a.explanation,
            "requests": a.requests.iter().map(|q| json!({
                "player": q.player,
                "kind": q.kind,
                "tid": q.tid,
                "pid": q.pid,
                "floor": q.floor,
                "time": cfg.fmt_time(q.time),
                "counted": q.counted,
                "reason": q.reason,
                "url": findpost_url(&cfg.forum.base_url, q.tid, q.pid),
            })).collect::<Vec<_>>(),
        },
        "players": r.players.iter().map(|p| {
            let mut v = json!({
            "name": p.name,
            "seat": p.seat,
            "uid": p.uid,
            "posts": p.posts,
            "deleted": p.deleted,
            "voted": p.voted,
            "presence": p.presence,
            "judged": p.judged,
            "note": p.note,
            "violations": p.violations.iter().map(|v| json!({
                "rule": v.rule.as_str(),
                "card": v.card.as_str(),
                "card_named_by_rule": card_named_by_rule(v),
                "detail": v.detail,
                "clause": v.clause,
                "floors": v.evidence.iter().map(|e| evidence_json(cfg, e)).collect::<Vec<_>>(),
            })).collect::<Vec<_>>(),
            });
            // Only where ballots were cast and none counted (the key is absent otherwise).
            if let Some(why) = &p.void_ballot {
                v["void_ballot"] = json!(why);
            }
            v
        }).collect::<Vec<_>>(),
        "notes": r.notes,
        "readings": r.readings,
    })
}

/// What the 公示 says of a violation. A 诈尸 detail for the director names how the player went
/// out (毒药, 指杀…); the public one says only that they were out when they posted — the
/// morning 公示 gives names, never causes (issue 25).
fn public_detail(cfg: &Config, v: &super::Violation) -> String {
    match (v.rule, v.evidence.first()) {
        (super::Rule::ZombiePost, Some(e)) => format!(
            "已出局，{} 在{}{}发言",
            cfg.fmt_time(e.time),
            e.thread.zh(),
            e.floor.map(|f| format!(" {f} 楼")).unwrap_or_default()
        ),
        _ => v.detail.clone(),
    }
}

fn floor_label(e: &Evidence) -> String {
    match e.floor {
        Some(f) => format!("{}{f}楼", e.thread.zh()),
        None => format!("{} pid {}", e.thread.zh(), e.pid),
    }
}

fn presence_zh(p: Presence) -> &'static str {
    match p {
        Presence::WholeDay => "全天在场",
        Presence::Partial => "部分在场",
        Presence::Out => "已出局",
    }
}

/// Plain text for the director.
pub fn report_text(cfg: &Config, r: &ActivityReport) -> String {
    let mut s = format!(
        "第{}天 活动报告（{} 至 {}）\n",
        r.day,
        cfg.fmt_time(r.opens),
        cfg.fmt_time(r.closes)
    );
    s.push_str(&format!("加速/延时：{}\n", r.accel.explanation));
    for q in &r.accel.requests {
        s.push_str(&format!(
            "  {} 申请{}（{}{}）{}\n",
            q.player,
            q.kind.zh(),
            q.floor.map(|f| format!("{f}楼 ")).unwrap_or_default(),
            cfg.fmt_time(q.time),
            q.reason
                .as_ref()
                .map(|x| format!(" 不计：{x}"))
                .unwrap_or_default()
        ));
    }
    s.push('\n');
    let nw = max_width(r.players.iter().map(|p| p.name.as_str()), 4);
    s.push_str(&format!(
        "座位  {}  发言  投票  在场\n",
        pad_right("玩家", nw)
    ));
    for p in &r.players {
        s.push_str(&format!(
            "{}  {}  {}{}  {}  {}\n",
            pad_left(
                &p.seat.map(|x| x.to_string()).unwrap_or_else(|| "-".into()),
                4
            ),
            pad_right(&p.name, nw),
            pad_left(&p.posts.to_string(), 4),
            if p.deleted > 0 {
                format!("（另有 {} 帖已删除，未计）", p.deleted)
            } else {
                String::new()
            },
            if p.voted { "已投" } else { "未投" },
            presence_zh(p.presence)
        ));
        if let Some(n) = &p.note {
            s.push_str(&format!("      说明：{n}\n"));
        }
    }
    let any: Vec<_> = r
        .players
        .iter()
        .flat_map(|p| p.violations.iter().map(move |v| (p, v)))
        .collect();
    s.push_str(&format!("\n违规（{}）：\n", any.len()));
    if any.is_empty() {
        s.push_str("  无\n");
    }
    for (p, v) in any {
        let floors: Vec<String> = v
            .evidence
            .iter()
            .map(|e| {
                format!(
                    "{} {}",
                    floor_label(e),
                    findpost_url(&cfg.forum.base_url, e.tid, e.pid)
                )
            })
            .collect();
        let card = if card_named_by_rule(v) {
            v.card.zh().to_string()
        } else {
            format!(
                "建议{}（规则帖未规定牌色，由导演决定；公示 BBCode 不列出）",
                v.card.zh()
            )
        };
        s.push_str(&format!(
            "  {} {} [{}] {}：{}\n      依据：{}\n",
            p.name,
            card,
            v.rule.as_str(),
            v.rule.zh(),
            v.detail,
            v.clause
        ));
        for f in floors {
            s.push_str(&format!("      {f}\n"));
        }
    }
    if !r.notes.is_empty() || !r.readings.is_empty() {
        s.push_str("\n说明：\n");
        for n in r.notes.iter().chain(&r.readings) {
            s.push_str(&format!("  - {n}\n"));
        }
    }
    s
}

/// BBCode to paste into the forum.
pub fn report_bbcode(cfg: &Config, r: &ActivityReport) -> String {
    let base = &cfg.forum.base_url;
    let mut s = format!("[b]第{}天 发言与投票统计[/b]\n", r.day);
    s.push_str(&format!("{}\n", bbcode_escape(&r.accel.explanation)));
    s.push_str("[list=1]\n");
    for p in &r.players {
        s.push_str(&format!(
            "[*]{}：{} 帖，{}{}\n",
            bbcode_escape(&p.name),
            p.posts,
            match (p.voted, &p.void_ballot) {
                (true, _) => "已投票",
                (false, Some(_)) => "投票无效",
                (false, None) => "未投票",
            },
            if p.presence == Presence::WholeDay {
                String::new()
            } else {
                format!("（{}）", presence_zh(p.presence))
            }
        ));
    }
    s.push_str("[/list]\n");
    // Only cards the rule post names are rulings; suggestions stay in the director's report.
    let any: Vec<_> = r
        .players
        .iter()
        .flat_map(|p| p.violations.iter().map(move |v| (p, v)))
        .filter(|(_, v)| card_named_by_rule(v))
        .collect();
    if !any.is_empty() {
        s.push_str("[b]判罚[/b]\n[list]\n");
        for (p, v) in any {
            let floors: Vec<String> = v
                .evidence
                .iter()
                .map(|e| {
                    format!(
                        "[url={}]{}[/url]",
                        findpost_url(base, e.tid, e.pid),
                        floor_label(e)
                    )
                })
                .collect();
            s.push_str(&format!(
                "[*]{} {}：{}{}（{}）\n",
                bbcode_escape(&p.name),
                v.card.zh(),
                bbcode_escape(&public_detail(cfg, v)),
                if floors.is_empty() {
                    String::new()
                } else {
                    format!(" {}", floors.join(" "))
                },
                bbcode_escape(&v.clause)
            ));
        }
        s.push_str("[/list]\n");
    }
    s
}

/// The 电梯楼 as BBCode, ready to paste on floor 2.
pub fn elevator_bbcode(cfg: &Config, e: &Elevator) -> String {
    let base = &cfg.forum.base_url;
    let mut s = format!("[b]第{}天 电梯[/b]\n", e.day);
    for en in &e.entries {
        let seat = en.seat.map(|x| format!("{x}. ")).unwrap_or_default();
        let name = bbcode_escape(&en.name);
        let links = match en.uid {
            Some(uid) => e
                .discussion
                .iter()
                .map(|tid| format!("[url={}]{name}[/url]", author_only_url(base, *tid, uid)))
                .collect::<Vec<_>>()
                .join(" "),
            None => format!("{name}（uid 未知，无链接）"),
        };
        s.push_str(&format!("{seat}{links}（{} 帖）\n", en.posts));
    }
    s
}

pub fn elevator_text(cfg: &Config, e: &Elevator) -> String {
    let base = &cfg.forum.base_url;
    let mut s = format!("第{}天 电梯\n", e.day);
    let nw = max_width(e.entries.iter().map(|en| en.name.as_str()), 0);
    for en in &e.entries {
        let links = match en.uid {
            Some(uid) => e
                .discussion
                .iter()
                .map(|tid| author_only_url(base, *tid, uid))
                .collect::<Vec<_>>()
                .join(" "),
            None => "uid 未知：在配置中填写 uid，或等其发帖后再生成".into(),
        };
        s.push_str(&format!(
            "{}  {}  {} 帖  {}\n",
            pad_left(
                &en.seat.map(|x| x.to_string()).unwrap_or_else(|| "-".into()),
                4
            ),
            pad_right(&en.name, nw),
            pad_left(&en.posts.to_string(), 3),
            links
        ));
    }
    s
}

pub fn elevator_json(cfg: &Config, e: &Elevator) -> Value {
    let base = &cfg.forum.base_url;
    json!({
        "day": e.day,
        "discussion": e.discussion,
        "players": e.entries.iter().map(|en| json!({
            "seat": en.seat,
            "name": en.name,
            "uid": en.uid,
            "uid_source": en.uid_source,
            "posts": en.posts,
            "links": en.uid.map(|u| e.discussion.iter().map(|t| author_only_url(base, *t, u)).collect::<Vec<_>>()).unwrap_or_default(),
        })).collect::<Vec<_>>(),
        "bbcode": elevator_bbcode(cfg, e),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::activity::AccelDecision;

    fn report(notes: &[&str], readings: &[&str]) -> ActivityReport {
        ActivityReport {
            day: 2,
            opens: 0,
            closes: 3600,
            accel: AccelDecision {
                day: 2,
                accelerated: false,
                since: None,
                delayed: false,
                requests: vec![],
                accelerate_count: 0,
                delay_count: 0,
                living: 0,
                deadline: None,
                clause: String::new(),
                overridden_by_director: false,
                explanation: "未加速".into(),
            },
            players: vec![],
            notes: notes.iter().map(|x| x.to_string()).collect(),
            readings: readings.iter().map(|x| x.to_string()).collect(),
        }
    }

    /// The 说明 block is printed when the report has notes or readings (either alone), lists
    /// both in that order, and is left out when it has neither.
    #[test]
    fn the_notes_block_shows_notes_or_readings_alone_and_is_absent_without_either() {
        let cfg = Config::from_str(
            std::path::Path::new("g.toml"),
            "[forum]\nbase_url = \"http://127.0.0.1:1/\"\n[game]\nname = \"g\"\nrules = \"r.toml\"\n",
        )
        .unwrap();
        let tail = |notes: &[&str], readings: &[&str]| {
            let s = report_text(&cfg, &report(notes, readings));
            s.find("\n说明：\n").map(|i| s[i..].to_string())
        };
        assert_eq!(
            tail(&["只计主题帖"], &[]).as_deref(),
            Some("\n说明：\n  - 只计主题帖\n")
        );
        assert_eq!(
            tail(&[], &["「十帖」按楼层计"]).as_deref(),
            Some("\n说明：\n  - 「十帖」按楼层计\n")
        );
        assert_eq!(
            tail(&["只计主题帖"], &["「十帖」按楼层计"]).as_deref(),
            Some("\n说明：\n  - 只计主题帖\n  - 「十帖」按楼层计\n")
        );
        assert_eq!(tail(&[], &[]), None);
        assert!(!report_text(&cfg, &report(&[], &[])).contains("说明"));
    }

    /// Issue 25: a 诈尸 whose card the rule names reaches the public BBCode; it said how the
    /// player went out (毒药/指杀), which the morning 公示 never told. Two reports that differ
    /// only in that cause give the same public text.
    #[test]
    fn the_public_zombie_line_names_no_cause_of_the_out() {
        use crate::activity::{Card, PlayerActivity, Rule, ThreadKind, Violation};
        let cfg = Config::from_str(
            std::path::Path::new("g.toml"),
            "[forum]\nbase_url = \"http://127.0.0.1:1/\"\n[game]\nname = \"g\"\nrules = \"r.toml\"\n",
        )
        .unwrap();
        let with_cause = |cause: &str| {
            let mut r = report(&[], &[]);
            r.players.push(PlayerActivity {
                name: "丙".into(),
                seat: Some(3),
                uid: None,
                posts: 1,
                deleted: 0,
                voted: false,
                void_ballot: None,
                presence: Presence::Out,
                judged: false,
                note: None,
                violations: vec![Violation {
                    rule: Rule::ZombiePost,
                    card: Card::Yellow,
                    detail: format!("已于 2026-03-05 01:00:00 出局（{cause}），2026-03-05 10:00:00 在投票帖 4 楼发言"),
                    clause: "诈尸者黄牌".into(),
                    evidence: vec![Evidence {
                        tid: 9,
                        pid: 203,
                        floor: Some(4),
                        time: 1_772_676_000,
                        thread: ThreadKind::Vote,
                    }],
                }],
            });
            (report_bbcode(&cfg, &r), report_text(&cfg, &r))
        };
        let (poison, poison_text) = with_cause("毒药");
        let (knife, _) = with_cause("指杀");
        assert!(poison.contains("丙 黄牌：已出局，"), "{poison}");
        assert!(poison.contains("4 楼发言"), "{poison}");
        assert_eq!(poison, knife);
        // The director's own report still says how.
        assert!(poison_text.contains("毒药"), "{poison_text}");
    }
}
