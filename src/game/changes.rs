//! What changed since a moment (`bansha changes`, the web page's 变化 section): new ballots,
//! 改票, edited and deleted posts, new 加速/延时 requests. "New" means first seen by bansha
//! since then (a post synced late still shows); the list is in the order things happened on
//! the forum (post time), as the threads read.

use std::collections::HashMap;

use super::{Error, Result, tally};
use crate::config::Config;
use crate::model::{Post, Timestamp};
use crate::report::{findpost_url, max_width, pad_right};
use crate::rules::RuleSet;

/// One thing that changed.
#[derive(Debug, Clone)]
pub struct Change {
    /// When bansha saw it.
    pub seen: Timestamp,
    /// When it happened on the forum: the post's time (a ballot, a request), the edit's
    /// time from its notice; for a deletion, when bansha saw it gone.
    pub posted: Timestamp,
    pub day: u32,
    /// 新票 | 改票 | 编辑 | 删除 | 不见 | 加速申请 | 延时申请
    pub what: &'static str,
    pub who: String,
    pub floor: Option<u32>,
    pub detail: String,
    pub url: String,
}

impl Change {
    /// Identifies a change across calls.
    pub fn key(&self) -> String {
        format!("{} {} {} {}", self.seen, self.what, self.url, self.detail)
    }
}

/// What changed between `since` and `now`, as `bansha changes --since` prints it (the
/// web page's 变化 section; it does not move the command's "last asked" mark).
pub fn changes_text(
    cfg: &Config,
    rules: &RuleSet,
    store: &crate::store::Store,
    since: Timestamp,
    now: Timestamp,
) -> Result<String> {
    let all = collect(cfg, rules, store, since, now)?;
    Ok(text(cfg, &all, since, "--since", now))
}

pub fn text(
    cfg: &Config,
    changes: &[Change],
    since: Timestamp,
    why: &str,
    now: Timestamp,
) -> String {
    let mut s = format!(
        "{} — 自 {}（{why}）至 {} 的变动：{} 项\n",
        cfg.game.name,
        cfg.fmt_time(since),
        cfg.fmt_time(now),
        changes.len()
    );
    if changes.is_empty() {
        s.push_str("  （无）\n");
        return s;
    }
    let ww = max_width(changes.iter().map(|c| c.what), 0);
    let pw = max_width(changes.iter().map(|c| c.who.as_str()), 0);
    for c in changes {
        let floor = c
            .floor
            .map(|f| format!("{f}#"))
            .unwrap_or_else(|| "代投".into());
        s.push_str(&format!(
            "  {}  第{}天  {}  {}  {}  {}\n      {}\n",
            cfg.fmt_time(c.posted),
            c.day,
            pad_right(c.what, ww),
            pad_right(&c.who, pw),
            pad_right(&floor, 5),
            c.detail,
            c.url
        ));
    }
    s
}

pub fn collect(
    cfg: &Config,
    rules: &RuleSet,
    store: &crate::store::Store,
    since: Timestamp,
    now: Timestamp,
) -> Result<Vec<Change>> {
    let forum = cfg.forum_key();
    let base = &cfg.forum.base_url;
    // The config's facts, the ledger's red cards and the engine's timeline.
    let roster = crate::game::timeline::roster(cfg, rules, store)?;
    let mut out = Vec::new();
    let mut loaded: HashMap<u64, Vec<Post>> = HashMap::new();
    let mut posts_of = |tid: u64| -> Result<Vec<Post>> {
        if let Some(p) = loaded.get(&tid) {
            return Ok(p.clone());
        }
        let p = store.posts(&forum, tid).map_err(Error::runtime)?;
        loaded.insert(tid, p.clone());
        Ok(p)
    };
    for d in &cfg.days {
        // Ballots and 改票 in the 投票帖, judged as the tally judges them now.
        if let Some(vt) = d.vote {
            let posts = posts_of(vt)?;
            let first_seen: HashMap<u64, Timestamp> =
                posts.iter().map(|p| (p.pid, p.first().seen_at)).collect();
            let process = match d.process {
                Some(pt) => posts_of(pt)?,
                None => Vec::new(),
            };
            let (accel, _) = tally::acceleration(cfg, rules, &roster, d.number, &process);
            let t = tally::tally_day(cfg, rules, &roster, d.number, &posts, now, accel)?;
            for b in t.ballots.iter().filter(|b| !b.by_director) {
                let seen = match b.pid {
                    Some(pid) => first_seen.get(&pid).copied().unwrap_or(b.ts),
                    None => b.ts,
                };
                if seen < since {
                    continue;
                }
                let target = b
                    .target
                    .clone()
                    .or_else(|| b.written_target.as_ref().map(|w| format!("「{w}」")))
                    .unwrap_or_else(|| "弃权".into());
                let verdict = if b.valid {
                    "有效".to_string()
                } else {
                    format!("无效：{}", b.reason.as_deref().unwrap_or(""))
                };
                out.push(Change {
                    seen,
                    posted: b.ts,
                    day: d.number,
                    what: if b.change { "改票" } else { "新票" },
                    who: b.voter.clone(),
                    floor: b.floor,
                    detail: format!("→ {target}（{verdict}）"),
                    url: b.url.clone().unwrap_or_default(),
                });
            }
            // 加速/延时 requests in the 进程帖.
            if d.process.is_some()
                && let Ok(dec) =
                    crate::activity::acceleration(cfg, &rules.activity, &roster, d.number, &process)
            {
                let seen_at: HashMap<u64, Timestamp> =
                    process.iter().map(|p| (p.pid, p.first().seen_at)).collect();
                for q in dec.requests.iter().filter(|q| !cfg.is_director(&q.player)) {
                    let seen = seen_at.get(&q.pid).copied().unwrap_or(q.time);
                    if seen < since {
                        continue;
                    }
                    out.push(Change {
                        seen,
                        posted: q.time,
                        day: d.number,
                        what: match q.kind {
                            crate::activity::RequestKind::Accelerate => "加速申请",
                            crate::activity::RequestKind::Delay => "延时申请",
                        },
                        who: q.player.clone(),
                        floor: q.floor,
                        detail: match &q.reason {
                            None => "计入".into(),
                            Some(r) => format!("不计：{r}"),
                        },
                        url: findpost_url(base, q.tid, q.pid),
                    });
                }
            }
        }
        // Edits and deletions in every thread of the day.
        for tid in crate::daemon::plan::day_threads(cfg, d.number) {
            let posts = posts_of(tid)?;
            for p in &posts {
                for (i, r) in p.revisions.iter().enumerate().skip(1) {
                    if r.seen_at >= since {
                        out.push(Change {
                            seen: r.seen_at,
                            posted: r.edit.as_ref().and_then(|e| e.time).unwrap_or(r.seen_at),
                            day: d.number,
                            what: "编辑",
                            who: p.author.clone(),
                            floor: p.floor,
                            detail: format!("第{}版：{}", i + 1, excerpt(&r.text)),
                            url: findpost_url(base, p.tid, p.pid),
                        });
                    }
                }
            }
            for e in store.presence_log(&forum, tid).map_err(Error::runtime)? {
                if e.at < since || !(e.event == "deleted" || e.event == "missing") {
                    continue;
                }
                let p = posts.iter().find(|p| p.pid == e.pid);
                out.push(Change {
                    seen: e.at,
                    posted: e.at,
                    day: d.number,
                    what: if e.event == "deleted" {
                        "删除"
                    } else {
                        "不见"
                    },
                    who: p.map(|p| p.author.clone()).unwrap_or_default(),
                    floor: p.and_then(|p| p.floor),
                    detail: p
                        .map(|p| format!("原文：{}", excerpt(&p.current().text)))
                        .unwrap_or_default(),
                    url: findpost_url(base, tid, e.pid),
                });
            }
        }
    }
    out.sort_by_key(|c| (c.posted, c.day, c.floor, c.seen));
    Ok(out)
}

fn excerpt(s: &str) -> String {
    let one: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut e: String = one.chars().take(40).collect();
    if one.chars().count() > 40 {
        e.push('…');
    }
    e
}
