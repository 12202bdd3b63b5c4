//! The moderators' review on top of [`crate::flagging`]: the flag list (scanned first
//! against the game's timeline), `confirm`/`dismiss`, the card ledger and its 判罚公示,
//! `withdraw`, the fixed cards of a day's activity report. Shared by `bansha flags`/`cards`,
//! the web page and the daemon's reports at 关门.

use std::fmt::Write as _;

use serde_json::{Value, json};

use super::Error;
use crate::config::Config;
use crate::flagging;
use crate::model::Timestamp;
use crate::moderation::{Card, Category};
use crate::report::{Format, bbcode_escape, findpost_url, max_width, pad_right};
use crate::rules::RuleSet;
use crate::store::{FlagRow, Store};

/// Which flags to list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FlagStatus {
    Open,
    Confirmed,
    Dismissed,
}

impl FlagStatus {
    /// `open`/`待审`, `confirmed`/`已确认`, `dismissed`/`已驳回`.
    pub fn parse(s: &str) -> Option<FlagStatus> {
        match s {
            "open" | "待审" => Some(FlagStatus::Open),
            "confirmed" | "已确认" => Some(FlagStatus::Confirmed),
            "dismissed" | "已驳回" => Some(FlagStatus::Dismissed),
            _ => None,
        }
    }
    /// As the store and the JSON write it.
    pub fn as_str(self) -> &'static str {
        match self {
            FlagStatus::Open => "open",
            FlagStatus::Confirmed => "confirmed",
            FlagStatus::Dismissed => "dismissed",
        }
    }
}

/// Scan what is new against the game's timeline, then the flag list (of `day`'s threads,
/// or the whole game's; of one status, or all) as `bansha flags` prints it.
pub fn list_flags(
    cfg: &Config,
    rules: &RuleSet,
    store: &mut Store,
    day: Option<u32>,
    status: Option<FlagStatus>,
    now: Timestamp,
    format: Format,
) -> Result<String, Error> {
    let forum = cfg.forum_key();
    let day_tids: Option<Vec<u64>> = match day {
        None => None,
        Some(n) => {
            let d = cfg.day(n).ok_or_else(|| {
                Error::Input(format!(
                    "{}: day {n} is not in the config ([[day]] number = {n})",
                    cfg.path.display()
                ))
            })?;
            let mut v = d.discussion.clone();
            v.extend(d.vote);
            v.extend(d.process);
            Some(v)
        }
    };
    let roster = super::timeline::roster(cfg, rules, store)?;
    flagging::scan_game(cfg, rules, &roster, store, now).map_err(Error::Runtime)?;
    let flags: Vec<FlagRow> = store
        .flags(&forum)
        .map_err(Error::runtime)?
        .into_iter()
        .filter(|f| day_tids.as_ref().is_none_or(|v| v.contains(&f.flag.tid)))
        .filter(|f| status.is_none_or(|s| f.status == s.as_str()))
        .collect();
    let tids = day_tids.unwrap_or_else(|| flagging::game_tids(cfg));
    let unchecked = unchecked_posts(cfg, store, &tids).map_err(Error::runtime)?;
    let out = render_flags(cfg, &flags, &unchecked, format);
    Ok(format!("{}\n", out.trim_end()))
}

/// `cards from-activity`: the day's activity report (computed in-process, as `bansha
/// activity` reports it) → one card per fixed-card violation, once (running it again adds
/// nothing). 诈尸 is left to its flag. Returns the lines the command prints.
pub fn cards_from_activity(
    cfg: &Config,
    rules: &RuleSet,
    store: &mut Store,
    day: u32,
    by: &str,
    at: Timestamp,
) -> Result<String, Error> {
    let report = super::activity::stored_activity(cfg, rules, store, day)?;
    let forum = cfg.forum_key();
    let existing = store.cards(&forum).map_err(Error::runtime)?;
    let mut out = String::new();
    let violations = report
        .players
        .iter()
        .flat_map(|p| p.violations.iter().map(move |v| (&p.name, v)));
    for (name, v) in violations {
        if v.rule == crate::activity::Rule::ZombiePost {
            continue;
        }
        let Some(card) = Card::parse(v.card.as_str()) else {
            continue;
        };
        let rule = v.rule.as_str();
        let category = format!("activity:{rule}:day{day}");
        if existing
            .iter()
            .any(|c| &c.player == name && c.category == category && c.withdrawn_at.is_none())
        {
            continue;
        }
        let id = store
            .add_card(&forum, name, card.as_str(), &category, &v.clause, by, at)
            .map_err(Error::runtime)?;
        let _ = writeln!(
            out,
            "card {id}: {} for {name} ({rule}, day {day})",
            card.chinese()
        );
    }
    if out.is_empty() {
        let _ = writeln!(out, "day {day}: no new fixed-card violations");
    }
    Ok(out)
}

/// `flags confirm`: record the card (default: the flag's suggested card) on an open flag.
/// Returns the line the command prints. Shared with the web page.
pub fn confirm_flag(
    cfg: &Config,
    rules: &RuleSet,
    store: &mut Store,
    id: i64,
    card: Option<&str>,
    by: &str,
    t: Timestamp,
) -> Result<String, Error> {
    let f = decidable(cfg, store, id)?;
    let m = flagging::rules_of(rules).map_err(Error::Input)?;
    let card = match card {
        None => Card::parse(&f.flag.card).unwrap_or(Card::Blue),
        Some(c) => Card::parse(c).ok_or_else(|| {
            Error::Input(format!("--card: `{c}` is not a card (blue, yellow, red)"))
        })?,
    };
    if !m.cards.contains(&card) {
        return Err(Error::Input(format!(
            "{}: this rule set has no {} ({}); flag {id} is unchanged",
            rules.path.display(),
            card.chinese(),
            m.cards
                .iter()
                .map(|c| c.chinese())
                .collect::<Vec<_>>()
                .join("、")
        )));
    }
    let cid = store
        .decide_flag(
            &cfg.forum_key(),
            id,
            "confirmed",
            Some(card.as_str()),
            by,
            t,
            None,
        )
        .map_err(Error::input)?;
    Ok(format!(
        "flag {id}: confirmed, {} for {} (card {}) by {by} at {}",
        card.chinese(),
        f.flag.author,
        cid.unwrap_or_default(),
        cfg.fmt_time(t)
    ))
}

/// `flags dismiss`: the post is not flagged for this again (optionally the phrase is
/// whitelisted for the game). Returns the line the command prints. Shared with the web page.
pub fn dismiss_flag(
    cfg: &Config,
    store: &mut Store,
    id: i64,
    whitelist: bool,
    by: &str,
    t: Timestamp,
) -> Result<String, Error> {
    let f = decidable(cfg, store, id)?;
    let phrase = whitelist.then_some(f.flag.matched.as_str());
    store
        .decide_flag(&cfg.forum_key(), id, "dismissed", None, by, t, phrase)
        .map_err(Error::input)?;
    Ok(match phrase {
        Some(p) => format!("flag {id}: dismissed by {by}; 「{p}」 whitelisted for this game"),
        None => format!("flag {id}: dismissed by {by}"),
    })
}

/// `cards withdraw`: the director overrules a card; escalations are recomputed. Returns the
/// line the command prints. Shared with the web page.
pub fn withdraw_card(
    cfg: &Config,
    store: &mut Store,
    id: i64,
    by: &str,
    t: Timestamp,
) -> Result<String, Error> {
    store
        .withdraw_card(&cfg.forum_key(), id, by, t)
        .map_err(Error::input)?;
    Ok(format!(
        "card {id}: withdrawn by {by} at {}",
        cfg.fmt_time(t)
    ))
}

/// A player post whose enlarged text could not be checked: read only through the mobile
/// API (or its saved JSON), which strips `[size]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UncheckedPost {
    pub tid: u64,
    pub pid: u64,
    pub floor: Option<u32>,
    pub author: String,
}

/// The players' posts in `tids` with a revision whose styling could not be checked,
/// flagged or not, by tid then floor.
pub fn unchecked_posts(
    cfg: &Config,
    store: &Store,
    tids: &[u64],
) -> Result<Vec<UncheckedPost>, crate::store::StoreError> {
    let forum = cfg.forum_key();
    let mut out = Vec::new();
    for &tid in tids {
        let unstyled = store.unstyled_revisions(&forum, tid)?;
        if unstyled.is_empty() {
            continue;
        }
        for p in store.posts(&forum, tid)? {
            if cfg.player(&p.author).is_some()
                && !cfg.is_director(&p.author)
                && p.revisions.iter().any(|r| unstyled.contains(&r.hash))
            {
                out.push(UncheckedPost {
                    tid,
                    pid: p.pid,
                    floor: p.floor,
                    author: p.author,
                });
            }
        }
    }
    Ok(out)
}

/// Floors (or pids) per line of the unchecked list before it wraps.
const UNCHECKED_PER_LINE: usize = 12;

/// The unchecked posts grouped for reading: per thread and author (in the order of their
/// first post), a heading with the count, then the floors in order with runs of three or
/// more joined (`5–7楼`) and the posts without a floor as `pid N`.
fn unchecked_groups(u: &[UncheckedPost]) -> Vec<(String, Vec<String>)> {
    let mut groups: Vec<((u64, &str), Vec<&UncheckedPost>)> = Vec::new();
    for p in u {
        let key = (p.tid, p.author.as_str());
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, v)) => v.push(p),
            None => groups.push((key, vec![p])),
        }
    }
    groups.sort_by_key(|((tid, _), _)| *tid);
    let mut out = Vec::new();
    for ((tid, author), posts) in groups {
        let mut floors: Vec<u32> = posts.iter().filter_map(|p| p.floor).collect();
        floors.sort_unstable();
        floors.dedup();
        let mut items: Vec<String> = Vec::new();
        let mut i = 0;
        while i < floors.len() {
            let mut j = i;
            while j + 1 < floors.len() && floors[j + 1] == floors[j] + 1 {
                j += 1;
            }
            if j >= i + 2 {
                items.push(format!("{}–{}楼", floors[i], floors[j]));
                i = j + 1;
            } else {
                items.push(format!("{}楼", floors[i]));
                i += 1;
            }
        }
        items.extend(
            posts
                .iter()
                .filter(|p| p.floor.is_none())
                .map(|p| format!("pid {}", p.pid)),
        );
        out.push((format!("帖子 {tid}，{author}（{} 帖）", posts.len()), items));
    }
    out
}

/// [`unchecked_groups`] as text lines: one per thread and author, wrapped after
/// [`UNCHECKED_PER_LINE`] floors (the continuation indented under its heading).
fn unchecked_lines(u: &[UncheckedPost]) -> Vec<String> {
    let mut out = Vec::new();
    for (head, items) in unchecked_groups(u) {
        for (k, chunk) in items.chunks(UNCHECKED_PER_LINE).enumerate() {
            out.push(if k == 0 {
                format!("{head}：{}", chunk.join("、"))
            } else {
                format!("    {}", chunk.join("、"))
            });
        }
    }
    out
}

/// The flag, if it exists and is still open; otherwise the refusal (exit 2).
fn decidable(cfg: &Config, store: &Store, id: i64) -> Result<FlagRow, Error> {
    let f = store
        .flag(&cfg.forum_key(), id)
        .map_err(Error::runtime)?
        .ok_or_else(|| Error::Input(format!("flag {id}: no such flag")))?;
    if f.status != "open" {
        return Err(Error::Input(format!(
            "flag {id}: already {} by {} at {}; a decided flag is not decided again (withdraw its card with `bansha cards withdraw`)",
            f.status,
            f.decided_by.as_deref().unwrap_or("?"),
            f.decided_at.map(|t| cfg.fmt_time(t)).unwrap_or_default()
        )));
    }
    Ok(f)
}

/// `s` on one line: line breaks become " / ".
fn one_line(s: &str) -> String {
    s.trim().lines().collect::<Vec<_>>().join(" / ")
}

/// A flag's status as moderators read it (`open`/`confirmed`/`dismissed` in JSON).
fn status_cn(s: &str) -> &str {
    match s {
        "open" => "待审",
        "confirmed" => "已确认",
        "dismissed" => "已驳回",
        other => other,
    }
}

fn card_cn(s: &str) -> &'static str {
    Card::parse(s).map(Card::chinese).unwrap_or("?")
}

fn flag_json(cfg: &Config, f: &FlagRow) -> Value {
    json!({
        "id": f.id,
        "tid": f.flag.tid,
        "pid": f.flag.pid,
        "floor": f.flag.floor,
        "author": f.flag.author,
        "time": cfg.fmt_time(f.flag.post_time),
        "category": f.flag.category,
        "clause": f.flag.clause,
        "card": f.flag.card,
        "excerpt": f.flag.excerpt,
        "matched": f.flag.matched,
        "reason": f.flag.reason,
        "status": f.status,
        "link": findpost_url(&cfg.forum.base_url, f.flag.tid, f.flag.pid),
        "styling_checked": f.flag.styling_checked,
        "decided_by": f.decided_by,
        "decided_at": f.decided_at.map(|t| cfg.fmt_time(t)),
        "decided_card": f.decided_card,
    })
}

/// The flag list in one of the report formats (also written by the daemon at 关门), with
/// the posts whose styling could not be checked (`unchecked`, flagged or not) named in the
/// text and BBCode lists; JSON marks each flag's `styling_checked`.
pub fn render_flags(
    cfg: &Config,
    flags: &[FlagRow],
    unchecked: &[UncheckedPost],
    format: Format,
) -> String {
    let mut s = String::new();
    let unstyled = unchecked
        .iter()
        .filter(|u| flags.iter().any(|f| f.flag.pid == u.pid))
        .count();
    match format {
        Format::Json => {
            let v: Vec<Value> = flags.iter().map(|f| flag_json(cfg, f)).collect();
            s = serde_json::to_string_pretty(&v).unwrap_or_default();
        }
        Format::Text => {
            if flags.is_empty() {
                s.push_str("无违规标记\n");
            }
            for f in flags {
                let floor = f
                    .flag
                    .floor
                    .map(|n| format!("{n}楼"))
                    .unwrap_or_else(|| "楼层未知".into());
                let cat = Category::parse(&f.flag.category)
                    .map(Category::chinese)
                    .unwrap_or(f.flag.category.as_str());
                let _ = writeln!(
                    s,
                    "#{} [{}] {cat} 建议{} — {}（帖子 {}，{floor}，pid {}，{}）",
                    f.id,
                    status_cn(&f.status),
                    card_cn(&f.flag.card),
                    f.flag.author,
                    f.flag.tid,
                    f.flag.pid,
                    cfg.fmt_time(f.flag.post_time)
                );
                // One line per field: a multi-line excerpt (诈尸, 刷屏) is joined with " / ".
                let _ = writeln!(s, "  摘录：{}", one_line(&f.flag.excerpt));
                let _ = writeln!(s, "  条款：{}", f.flag.clause);
                let _ = writeln!(s, "  原因：{}", f.flag.reason);
                let _ = writeln!(
                    s,
                    "  链接：{}",
                    findpost_url(&cfg.forum.base_url, f.flag.tid, f.flag.pid)
                );
                if !f.flag.styling_checked {
                    let _ = writeln!(s, "  注意：经手机接口读取，放大字体无法检查");
                }
                if let (Some(by), Some(at)) = (&f.decided_by, f.decided_at) {
                    let card = f
                        .decided_card
                        .as_deref()
                        .map(|c| format!(" {}", card_cn(c)))
                        .unwrap_or_default();
                    let _ = writeln!(
                        s,
                        "  处理：{}{card}（{by}，{}）",
                        status_cn(&f.status),
                        cfg.fmt_time(at)
                    );
                }
            }
            if !unchecked.is_empty() {
                let _ = writeln!(
                    s,
                    "样式未检查：{} 帖经手机接口读取（其中 {unstyled} 帖有标记），接口去掉了 [size]，放大字体无法检查：",
                    unchecked.len(),
                );
                for line in unchecked_lines(unchecked) {
                    let _ = writeln!(s, "  {line}");
                }
            }
        }
        Format::Bbcode => {
            let _ = writeln!(s, "[b]违规标记[/b]（{} 条）", flags.len());
            s.push_str("[list]\n");
            for f in flags {
                let floor = f
                    .flag
                    .floor
                    .map(|n| format!("{n}楼"))
                    .unwrap_or_else(|| "楼层未知".into());
                let _ = writeln!(
                    s,
                    "[*]#{} {} [url={}]{floor}[/url]：{}（{}，建议{}）",
                    f.id,
                    bbcode_escape(&f.flag.author),
                    findpost_url(&cfg.forum.base_url, f.flag.tid, f.flag.pid),
                    bbcode_escape(&one_line(&f.flag.excerpt)),
                    bbcode_escape(&f.flag.clause),
                    card_cn(&f.flag.card)
                );
            }
            s.push_str("[/list]\n");
            if !unchecked.is_empty() {
                let _ = writeln!(
                    s,
                    "注：{} 帖经手机接口读取（接口去掉了 [size]），放大字体无法检查：",
                    unchecked.len(),
                );
                s.push_str("[list]\n");
                for (head, items) in unchecked_groups(unchecked) {
                    let _ = writeln!(
                        s,
                        "[*]{}",
                        bbcode_escape(&format!("{head}：{}", items.join("、")))
                    );
                }
                s.push_str("[/list]\n");
            }
        }
    }
    s
}

/// The ledger as JSON, text and BBCode (the 判罚公示). Shared with the web page.
pub fn render_cards(
    cfg: &Config,
    rules: &RuleSet,
    store: &Store,
) -> Result<(Value, String, String), String> {
    let m = flagging::rules_of(rules)?;
    let tl =
        super::timeline::ledger_at(cfg, rules, store, Timestamp::MAX).map_err(|e| e.to_string())?;
    let l = tl.ledger;
    let rows = store.cards(&cfg.forum_key()).map_err(|e| e.to_string())?;
    let flags = store.flags(&cfg.forum_key()).map_err(|e| e.to_string())?;
    let floor_of = |fid: Option<i64>| {
        fid.and_then(|id| flags.iter().find(|f| f.id == id))
            .map(|f| (f.flag.tid, f.flag.pid, f.flag.floor))
    };
    let players: Vec<Value> = l
        .players
        .iter()
        .map(|p| {
            json!({
                "name": p.name,
                "blue": p.blue,
                "yellow": p.yellow,
                "red": p.red,
                "out": p.out,
                "out_at": p.out_at.map(|t| cfg.fmt_time(t)),
                "camp": p.camp,
                "merges": p.merges.iter().map(|x| json!({
                    "at": cfg.fmt_time(x.at), "from": x.from.as_str(), "to": x.to.as_str()
                })).collect::<Vec<_>>(),
            })
        })
        .collect();
    let cards: Vec<Value> = rows
        .iter()
        .map(|c| {
            json!({
                "id": c.id, "player": c.player, "card": c.card, "flag": c.flag_id,
                "category": c.category, "clause": c.clause, "by": c.given_by,
                "at": cfg.fmt_time(c.given_at),
                "withdrawn": c.withdrawn_at.is_some(),
                "withdrawn_by": c.withdrawn_by,
            })
        })
        .collect();
    // The camps lost as the timeline (and `bansha state`) has them; the text and the 判罚公示
    // name the ones the cards lost, with the clause.
    let v = json!({ "players": players, "camps_lost": tl.camps_lost, "cards": cards });

    let mut t = String::new();
    let pw = max_width(rows.iter().map(|c| c.player.as_str()), 0);
    for c in &rows {
        let w = if c.withdrawn_at.is_some() {
            format!("（已撤销，{}）", c.withdrawn_by.as_deref().unwrap_or("?"))
        } else {
            String::new()
        };
        let _ = writeln!(
            t,
            "牌 {}：{} {}（{}，{}）{w} — {}",
            c.id,
            pad_right(&c.player, pw),
            card_cn(&c.card),
            cfg.fmt_time(c.given_at),
            c.given_by,
            c.clause
        );
    }
    if rows.is_empty() {
        t.push_str("无牌\n");
    }
    t.push('\n');
    let carded: Vec<_> = l.players.iter().filter(|p| !p.cards.is_empty()).collect();
    let nw = max_width(carded.iter().map(|p| p.name.as_str()), 0);
    for p in carded {
        let out = if p.out { " — 红牌罚下" } else { "" };
        let _ = writeln!(
            t,
            "{}蓝牌 {} / 黄牌 {} / 红牌 {}{out}",
            pad_right(&format!("{}：", p.name), nw + 2),
            p.blue,
            p.yellow,
            p.red
        );
        for x in &p.merges {
            let clause = if x.to == Card::Yellow {
                &m.blue_to_yellow_clause
            } else {
                &m.yellow_to_red_clause
            };
            let _ = writeln!(
                t,
                "  {} {}→{}：{clause}",
                cfg.fmt_time(x.at),
                x.from.chinese(),
                x.to.chinese()
            );
        }
    }
    for c in &l.camps_lost {
        let _ = writeln!(
            t,
            "{c} 判负：{}",
            m.camp_loss_clause.as_deref().unwrap_or("")
        );
    }

    let mut b = String::from("[b]判罚公示[/b]\n[list]\n");
    for c in rows.iter().filter(|c| c.withdrawn_at.is_none()) {
        let at = match floor_of(c.flag_id) {
            Some((tid, pid, floor)) => format!(
                "[url={}]{}[/url]",
                findpost_url(&cfg.forum.base_url, tid, pid),
                floor
                    .map(|f| format!("{f}楼"))
                    .unwrap_or_else(|| "原帖".into())
            ),
            None => String::new(),
        };
        let _ = writeln!(
            b,
            "[*]{}：{}{at}（{}）",
            bbcode_escape(&c.player),
            card_cn(&c.card),
            bbcode_escape(&c.clause)
        );
    }
    b.push_str("[/list]\n");
    for p in l.players.iter().filter(|p| !p.cards.is_empty()) {
        let mut line = format!(
            "{}：蓝牌 {} 黄牌 {} 红牌 {}",
            bbcode_escape(&p.name),
            p.blue,
            p.yellow,
            p.red
        );
        if !p.merges.is_empty() {
            let ms: Vec<String> = p
                .merges
                .iter()
                .map(|x| format!("{}合并为{}", x.from.chinese(), x.to.chinese()))
                .collect();
            let _ = write!(line, "（{}）", ms.join("，"));
        }
        if p.out {
            line.push_str(" —— [b]红牌罚下[/b]");
        }
        let _ = writeln!(b, "{line}");
    }
    for c in &l.camps_lost {
        let _ = writeln!(
            b,
            "[b]{}判负[/b]（{}）",
            bbcode_escape(c),
            bbcode_escape(m.camp_loss_clause.as_deref().unwrap_or(""))
        );
    }
    Ok((v, t, b))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn post(tid: u64, pid: u64, floor: Option<u32>, author: &str) -> UncheckedPost {
        UncheckedPost {
            tid,
            pid,
            floor,
            author: author.to_string(),
        }
    }

    #[test]
    fn the_unchecked_list_is_grouped_by_thread_and_author_and_wrapped() {
        let mut u = Vec::new();
        // One talkative player: 30 posts on every other floor, and a run of three.
        for i in 0..30 {
            u.push(post(702, 1000 + i, Some(10 + 2 * i as u32), "傻树"));
        }
        for f in [5, 6, 7] {
            u.push(post(702, 900 + f as u64, Some(f), "草莓"));
        }
        u.push(post(702, 990, Some(9), "草莓"));
        u.push(post(702, 991, Some(3), "草莓"));
        u.push(post(702, 992, Some(1), "取酒"));
        u.push(post(702, 993, Some(2), "取酒"));
        u.push(post(701, 5001, None, "草莓"));
        let lines = unchecked_lines(&u);
        assert_eq!(lines[0], "帖子 701，草莓（1 帖）：pid 5001", "{lines:#?}");
        assert!(lines[1].starts_with("帖子 702，傻树（30 帖）：10楼、12楼、"));
        // 30 floors: two full lines of 12 and one of 6, the continuation indented.
        assert!(lines[2].starts_with("    34楼、36楼") && lines[3].starts_with("    58楼"));
        assert_eq!(lines[3].matches('楼').count(), 6, "{}", lines[3]);
        assert_eq!(lines[4], "帖子 702，草莓（5 帖）：3楼、5–7楼、9楼");
        // Two floors in a row are not a run.
        assert_eq!(lines[5], "帖子 702，取酒（2 帖）：1楼、2楼");
        assert_eq!(lines.len(), 6);
        assert!(lines.iter().all(|l| l.chars().count() <= 80), "{lines:#?}");
    }
}
