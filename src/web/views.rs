//! The page's sections. Each is what a CLI command prints, computed by the same library
//! function of the game layer (`game::tally::stored_tally`, `game::activity::stored_activity`,
//! `game::flags::render_cards`, `game::night::state_report`/`phase_reports`, the store's
//! flags) and laid out as HTML. Nothing here tallies, flags or resolves anything itself.

use std::fmt::Write as _;

use std::collections::HashMap;

use super::Role;
use super::decide::{by_zh, category_zh, consequences, status_zh, whitelistable};
use super::html::{copy_block, error_box, esc, pre, scroll_table};
use super::session::Session;
use crate::config::{Config, ThreadKind};
use crate::model::Timestamp;
use crate::moderation::{Card, Category};
use crate::report::{Format, findpost_url};
use crate::rules::RuleSet;
use crate::store::{CardRow, FlagRow, Store};

/// What a section is computed from: the config and rule set as they are now (reloaded for
/// every request, so the director's new `[[event]]`s show), the store, the moment.
pub struct Ctx<'a> {
    pub cfg: &'a Config,
    pub rules: &'a RuleSet,
    pub store: &'a Store,
    pub now: Timestamp,
    pub role: Role,
    pub csrf: &'a str,
    /// The page's query (`day`, `since`).
    pub query: &'a HashMap<String, String>,
    /// The live sessions (the director's list).
    pub sessions: &'a [Session],
    /// The handle of the session asking.
    pub me: &'a str,
}

/// The sections, by the name in `/part/{name}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    Status,
    Changes,
    Elevator,
    Sessions,
    TallyDirector,
    TallyPublic,
    Activity,
    Flags,
    Ledger,
    State,
    StatePublic,
    Nights,
    NightsPublic,
}

impl Part {
    pub fn parse(s: &str) -> Option<Part> {
        Some(match s {
            "status" => Part::Status,
            "changes" => Part::Changes,
            "elevator" => Part::Elevator,
            "sessions" => Part::Sessions,
            "tally-director" => Part::TallyDirector,
            "tally-public" => Part::TallyPublic,
            "activity" => Part::Activity,
            "flags" => Part::Flags,
            "ledger" => Part::Ledger,
            "state" => Part::State,
            "state-public" => Part::StatePublic,
            "nights" => Part::Nights,
            "nights-public" => Part::NightsPublic,
            _ => return None,
        })
    }
    pub fn name(self) -> &'static str {
        match self {
            Part::Status => "status",
            Part::Changes => "changes",
            Part::Elevator => "elevator",
            Part::Sessions => "sessions",
            Part::TallyDirector => "tally-director",
            Part::TallyPublic => "tally-public",
            Part::Activity => "activity",
            Part::Flags => "flags",
            Part::Ledger => "ledger",
            Part::State => "state",
            Part::StatePublic => "state-public",
            Part::Nights => "nights",
            Part::NightsPublic => "nights-public",
        }
    }
    /// Sections that show what the rule post keeps from the players: the director's tally
    /// (secret weights, statuses), roles and camps, night actions and private feedback.
    pub fn director_only(self) -> bool {
        matches!(
            self,
            Part::TallyDirector
                | Part::State
                | Part::Nights
                | Part::Changes
                | Part::Elevator
                | Part::Sessions
        )
    }
    pub fn title(self) -> &'static str {
        match self {
            Part::Status => "数据与时间",
            Part::Changes => "变化（bansha changes）",
            Part::Elevator => "电梯楼（BBCode）",
            Part::Sessions => "登录中的人",
            Part::TallyDirector => "计票（导演视图）",
            Part::TallyPublic => "计票公示（BBCode）",
            Part::Activity => "发言、投票与加速/延时",
            Part::Flags => "违规标记",
            Part::Ledger => "判罚记录",
            Part::State => "局势（导演视图）",
            Part::StatePublic => "局势（公开）",
            Part::Nights => "各夜结算与私信反馈",
            Part::NightsPublic => "公示",
        }
    }
}

/// The day the page opens on: the day whose window holds `now`, else the last day opened
/// by then, else the first configured day.
pub fn current_day(cfg: &Config, now: Timestamp) -> Option<u32> {
    let mut days: Vec<&crate::config::Day> = cfg.days.iter().collect();
    days.sort_by_key(|d| d.number);
    let opens = |d: &crate::config::Day| d.opens.map(|t| cfg.ts(t));
    let ends = |d: &crate::config::Day| day_closes(cfg, d.number);
    days.iter()
        .find(|d| opens(d).is_some_and(|o| o <= now) && ends(d).is_some_and(|c| now < c))
        .or_else(|| {
            days.iter()
                .rev()
                .find(|d| opens(d).is_some_and(|o| o <= now))
        })
        .or(days.first())
        .map(|d| d.number)
}

/// A command's refusal as the page shows it: in Chinese where the cause is known (a game
/// without roles, without players, a day not synced yet), else the command's message.
fn cli_err(e: crate::game::Error) -> String {
    zh_error(e.message())
}

/// The note a section shows in a game whose players have no roles yet (the night engine
/// and the roster need them): not an error, the game is just not set up that far.
pub const NO_ROLES: &str = "本局还没有配置角色（[[player]] 的 role），这里暂时没有内容。";

pub fn zh_error(m: &str) -> String {
    if m.contains("has no role") {
        return NO_ROLES.to_string();
    }
    let known: [(&str, &str); 3] = [
        ("no [[player]]", "本局还没有配置玩家（[[player]]）。"),
        (
            "not synced",
            "这一天的帖子还没有同步（先运行 bansha sync 或 bansha run）。",
        ),
        (
            "no stored pages",
            "这一天的帖子还没有同步（先运行 bansha sync 或 bansha run）。",
        ),
    ];
    match known.iter().find(|(k, _)| m.contains(k)) {
        Some((_, zh)) => format!("{zh}（{m}）"),
        None => m.to_string(),
    }
}

/// One section's HTML (an error box when the command would have failed).
pub fn render(part: Part, c: &Ctx<'_>, day: Option<u32>) -> String {
    let r = match part {
        Part::Status => status(c, day),
        Part::Changes => changes(c),
        Part::Elevator => elevator(c, day),
        Part::Sessions => Ok(sessions(c)),
        Part::TallyDirector => tally(c, day, Format::Text),
        Part::TallyPublic => tally(c, day, Format::Bbcode),
        Part::Activity => activity(c, day),
        Part::Flags => flags(c),
        Part::Ledger => ledger(c),
        Part::State => state(c, Format::Text),
        Part::StatePublic => state(c, Format::Bbcode),
        Part::Nights => nights(c, true),
        Part::NightsPublic => nights(c, false),
    };
    r.unwrap_or_else(|e| {
        if e == NO_ROLES {
            format!("<p class=\"muted\" id=\"no-roles\">{}</p>", esc(&e))
        } else {
            error_box(&e)
        }
    })
}

/// When day `n` closes (关门): its vote's close, else its `closes`.
pub fn day_closes(cfg: &Config, n: u32) -> Option<Timestamp> {
    cfg.vote_closes(n)
        .or_else(|| cfg.day(n).and_then(|d| d.closes).map(|t| cfg.ts(t)))
}

fn the_day(c: &Ctx<'_>, day: Option<u32>) -> Result<u32, String> {
    day.or_else(|| current_day(c.cfg, c.now))
        .ok_or_else(|| format!("{}: no [[day]] entries", c.cfg.path.display()))
}

/// `bansha tally --day N` as text (director) or BBCode (the public 公示), as of now.
fn tally(c: &Ctx<'_>, day: Option<u32>, format: Format) -> Result<String, String> {
    let day = the_day(c, day)?;
    let tid = crate::game::tally::vote_tid(c.cfg, day).map_err(cli_err)?;
    if let Some(opens) = c.cfg.day(day).and_then(|d| d.opens)
        && c.now < c.cfg.ts(opens)
    {
        return Ok(format!(
            "<p class=\"muted\">第{day}天 {} 开门，尚无可计的票。</p>",
            esc(&c.cfg.fmt_time(c.cfg.ts(opens)))
        ));
    }
    let t = crate::game::tally::stored_tally(c.cfg, c.rules, c.store, day, tid, c.now)
        .map_err(cli_err)?;
    let out = crate::game::tally::render(c.cfg, &t, format);
    Ok(match format {
        Format::Bbcode => copy_block(&format!("第{day}天 计票公示"), &out),
        _ => pre(&out),
    })
}

/// The day's activity: who has not voted, 加速/延时 requests, posts against 潜水.
fn activity(c: &Ctx<'_>, day: Option<u32>) -> Result<String, String> {
    let day = the_day(c, day)?;
    let r =
        crate::game::activity::stored_activity(c.cfg, c.rules, c.store, day).map_err(cli_err)?;
    let cfg = c.cfg;
    let mut s = String::new();
    let interim = day_closes(cfg, day).is_some_and(|t| c.now < t);
    if interim {
        let _ = write!(
            s,
            "<p class=\"interim\" id=\"activity-interim\">暂定：第{day}天 {} 关门，现在的统计不是最终结果（潜水、未投票的牌以关门时为准）。</p>",
            esc(&day_closes(cfg, day)
                .map(|t| cfg.fmt_time(t))
                .unwrap_or_default())
        );
    }
    let not_voted: Vec<&str> = r
        .players
        .iter()
        .filter(|p| p.presence != crate::activity::Presence::Out && !p.voted)
        .map(|p| p.name.as_str())
        .collect();
    let _ = write!(
        s,
        "<h3>未投票（{}人）</h3><p id=\"not-voted\">{}</p>",
        not_voted.len(),
        if not_voted.is_empty() {
            "无".to_string()
        } else {
            not_voted
                .iter()
                .map(|n| esc(n))
                .collect::<Vec<_>>()
                .join("、")
        }
    );
    let a = &r.accel;
    let state = if a.accelerated {
        "<span class=\"bad\">已加速</span>".to_string()
    } else if a.delayed {
        "<span class=\"bad\">已延时</span>".to_string()
    } else {
        "未加速".to_string()
    };
    let _ = write!(
        s,
        "<h3>加速/延时</h3><p>{state}：加速 {} 人、延时 {} 人申请，存活 {} 人{}{}</p><p class=\"muted\">{}</p>",
        a.accelerate_count,
        a.delay_count,
        a.living,
        a.deadline
            .map(|t| format!("，截止 {}", esc(&cfg.fmt_time(t))))
            .unwrap_or_default(),
        if a.overridden_by_director {
            "（导演裁定）"
        } else {
            ""
        },
        esc(&a.explanation)
    );
    if !a.requests.is_empty() {
        s.push_str(
            "<div class=\"scroll\"><table><tr><th>玩家</th><th>申请</th><th>楼层</th><th>时间</th><th>计入</th></tr>",
        );
        for q in &a.requests {
            let floor = q
                .floor
                .map(|f| format!("{f}#"))
                .unwrap_or_else(|| "?#".into());
            let _ = write!(
                s,
                "<tr><td>{}</td><td>{}</td><td><a href=\"{}\" target=\"_blank\" rel=\"noopener noreferrer\">{}</a></td><td>{}</td><td>{}</td></tr>",
                esc(&q.player),
                q.kind.zh(),
                esc(&findpost_url(&cfg.forum.base_url, q.tid, q.pid)),
                esc(&floor),
                esc(&cfg.fmt_time(q.time)),
                match (&q.counted, &q.reason) {
                    (true, _) => "是".to_string(),
                    (false, Some(why)) => format!("否：{}", esc(why)),
                    (false, None) => "否".to_string(),
                }
            );
        }
        s.push_str("</table></div>");
    }
    let threshold = match &c.rules.activity.few_posts {
        Some(f) => format!(
            "门槛：每日至少 {} 帖（{}，{}）",
            f.min_posts,
            esc(&f.clause),
            f.card.zh()
        ),
        None => "本规则无发言数要求".into(),
    };
    let min = c.rules.activity.few_posts.as_ref().map(|f| f.min_posts);
    let _ = write!(
        s,
        "<h3>发言数（潜水）</h3><p class=\"muted\">{threshold}</p>"
    );
    s.push_str("<div class=\"scroll\"><table id=\"posts\"><tr><th>座位</th><th>玩家</th><th>发言</th><th>投票</th><th>违规</th></tr>");
    for p in &r.players {
        let low = min.is_some_and(|m| p.judged && p.posts < m);
        let viol: Vec<String> = p
            .violations
            .iter()
            .map(|v| format!("{}（{}）：{}", v.rule.zh(), v.card.zh(), esc(&v.detail)))
            .collect();
        let _ = write!(
            s,
            "<tr><td>{}</td><td>{}</td><td class=\"{}\">{}</td><td>{}</td><td>{}{}</td></tr>",
            p.seat.map(|x| x.to_string()).unwrap_or_default(),
            esc(&p.name),
            if low { "bad" } else { "" },
            p.posts,
            if p.voted { "✓" } else { "—" },
            viol.join("<br>"),
            p.note
                .as_ref()
                .map(|n| format!(" <span class=\"muted\">{}</span>", esc(n)))
                .unwrap_or_default()
        );
    }
    s.push_str("</table></div>");
    s.push_str(&fixed_cards(c, day, interim));
    let title = if interim {
        "发言统计公示（暂定）"
    } else {
        "发言统计公示"
    };
    s.push_str(&copy_block(
        title,
        &crate::activity::render::report_bbcode(cfg, &r),
    ));
    Ok(s)
}

/// Where in `text` the flag's span is: the occurrence of its matched text whose excerpt
/// (as the scan wrote it) is the flag's, not merely the first occurrence — in
/// 「“傻逼”是他先说的，你才是傻逼」 the second 傻逼 is the one flagged.
pub fn flagged_span(text: &str, matched: &str, excerpt: &str) -> Option<usize> {
    if matched.is_empty() {
        return None;
    }
    let starts: Vec<usize> = text.match_indices(matched).map(|(i, _)| i).collect();
    starts
        .iter()
        .copied()
        .find(|&i| crate::moderation::excerpt(text, i, i + matched.len(), 20) == excerpt)
        .or(starts.first().copied())
}

/// Posts longer than this (characters) are shown around the match, the whole behind a
/// 展开全文.
const LONG_POST: usize = 400;

/// The colour of a red-text flag: the first `color` the revision's HTML sets.
fn font_colour(html: &str) -> Option<String> {
    let i = html.find("color=").or_else(|| html.find("color:"))?;
    let v: String = html[i + 6..]
        .trim_start_matches(['"', '\'', ' '])
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '#')
        .collect();
    (!v.is_empty()).then_some(v)
}

/// The post text with the flag's span marked (the revision the flag was raised on, when
/// the store still has it), and marks for a post edited or deleted since.
fn post_with_mark(c: &Ctx<'_>, f: &FlagRow) -> String {
    let post = c
        .store
        .post(&c.cfg.forum_key(), f.flag.tid, f.flag.pid)
        .ok()
        .flatten();
    let Some(post) = post else {
        return format!(
            "<div class=\"post\">{}</div><p class=\"muted\">帖子不在数据库里，只有摘录。</p>",
            esc(&f.flag.excerpt)
        );
    };
    let rev = post
        .revisions
        .iter()
        .find(|r| r.hash == f.flag.rev_hash)
        .unwrap_or_else(|| post.current());
    let mut s = String::new();
    let mut marks = Vec::new();
    if post.current().hash != rev.hash {
        marks.push(
            "<span class=\"tag warn\">标记后已编辑（下面是被标记时的内容）</span>".to_string(),
        );
    }
    if let Some(t) = post.missing_since {
        marks.push(format!(
            "<span class=\"tag warn\">已删除（{} 起不见）</span>",
            esc(&c.cfg.fmt_time(t))
        ));
    }
    let colour = (Category::parse(&f.flag.category) == Some(Category::RedFont))
        .then(|| font_colour(&rev.html))
        .flatten();
    if let Some(col) = &colour {
        marks.push(format!(
            "<span class=\"tag\">字色 <span class=\"swatch\" data-colour=\"{0}\"></span> {0}</span>",
            esc(col)
        ));
    }
    if !marks.is_empty() {
        let _ = write!(s, "<p class=\"marks\">{}</p>", marks.join(" "));
    }
    let text = &rev.text;
    let m = &f.flag.matched;
    let colour_attr = colour
        .as_ref()
        .map(|c| format!(" data-colour=\"{}\"", esc(c)))
        .unwrap_or_default();
    let Some(i) = flagged_span(text, m, &f.flag.excerpt) else {
        let _ = write!(
            s,
            "<div class=\"post\">{}</div><p class=\"muted\">命中：<mark{colour_attr}>{}</mark></p>",
            esc(text),
            esc(m)
        );
        return s;
    };
    let (before, hit, after) = (&text[..i], m.as_str(), &text[i + m.len()..]);
    let marked = |b: &str, a: &str| {
        format!(
            "{}<mark id=\"hit-{}\"{colour_attr}>{}</mark>{}",
            esc(b),
            f.id,
            esc(hit),
            esc(a)
        )
    };
    if text.chars().count() <= LONG_POST {
        let _ = write!(s, "<div class=\"post\">{}</div>", marked(before, after));
        return s;
    }
    // A long post: the lines around the match, then the whole post folded.
    let b: String = {
        let v: Vec<char> = before.chars().rev().take(120).collect();
        v.into_iter().rev().collect()
    };
    let a: String = after.chars().take(120).collect();
    let _ = write!(
        s,
        "<div class=\"post\">…{}<mark{colour_attr}>{}</mark>{}…</div><details class=\"full\"><summary>展开全文（{} 字，跳到命中处）</summary><div class=\"post\">{}</div></details>",
        esc(&b),
        esc(hit),
        esc(&a),
        text.chars().count(),
        marked(before, after)
    );
    s
}

pub fn card_zh(s: &str) -> &'static str {
    Card::parse(s).map(Card::chinese).unwrap_or("?")
}

/// Which thread of which day `tid` is: `第1天 讨论帖`.
fn thread_label(cfg: &Config, tid: u64) -> String {
    match cfg.threads().into_iter().find(|t| t.2 == tid) {
        Some((d, k, _)) => format!(
            "第{d}天 {}",
            match k {
                ThreadKind::Discussion => "讨论帖",
                ThreadKind::Vote => "投票帖",
                ThreadKind::Process => "进程帖",
            }
        ),
        None => format!("帖子 {tid}"),
    }
}

/// A flag can be decided: open, or confirmed with every card of it withdrawn.
fn decidable(f: &FlagRow, cards: &[&CardRow]) -> bool {
    f.status == "open"
        || (f.status == "confirmed"
            && !cards.is_empty()
            && cards.iter().all(|c| c.withdrawn_at.is_some()))
}

/// The flag queue: flags to decide with their buttons (first), then the decided ones.
fn flags(c: &Ctx<'_>) -> Result<String, String> {
    let m = crate::flagging::rules_of(c.rules)?;
    let forum = c.cfg.forum_key();
    let all = c.store.flags(&forum).map_err(|e| e.to_string())?;
    let cards = c.store.cards(&forum).map_err(|e| e.to_string())?;
    let cards_of =
        |id: i64| -> Vec<&CardRow> { cards.iter().filter(|k| k.flag_id == Some(id)).collect() };
    let mut s = String::new();
    let (todo, done): (Vec<&FlagRow>, Vec<&FlagRow>) =
        all.iter().partition(|f| decidable(f, &cards_of(f.id)));
    let _ = write!(
        s,
        "<p>待处理 <strong id=\"open-count\">{}</strong> 条，共 {} 条。<span class=\"muted keys\">键盘：j/k 上一条/下一条，c 按建议确认，x 驳回</span></p>",
        todo.len(),
        all.len()
    );
    for f in &todo {
        s.push_str(&flag_html(c, f, &cards_of(f.id), &m.cards));
    }
    if !done.is_empty() {
        let _ = write!(
            s,
            "<details id=\"decided\"><summary>已处理（{}）</summary>",
            done.len()
        );
        for f in done {
            s.push_str(&flag_html(c, f, &cards_of(f.id), &m.cards));
        }
        s.push_str("</details>");
    }
    Ok(s)
}

fn flag_html(c: &Ctx<'_>, f: &FlagRow, cards: &[&CardRow], rule_cards: &[Card]) -> String {
    let cfg = c.cfg;
    let floor = f
        .flag
        .floor
        .map(|n| format!("{n}楼"))
        .unwrap_or_else(|| "楼层未知".into());
    let open = decidable(f, cards);
    let status = if f.status == "confirmed" && open {
        "牌已撤销，待重新处理".to_string()
    } else {
        status_zh(&f.status).to_string()
    };
    let mut s = format!(
        "<article class=\"flag\" id=\"flag-{id}\" data-status=\"{st}\" data-open=\"{open}\" tabindex=\"-1\"><div class=\"fhead\"><strong>#{id}</strong> <span class=\"cat\">{cat}</span> · <span class=\"author\">{author}</span> · <a href=\"{link}\" target=\"_blank\" rel=\"noopener noreferrer\">{thread} {floor}</a> · {time} · <em class=\"status\">{status}</em></div>",
        id = f.id,
        st = esc(&f.status),
        cat = category_zh(&f.flag.category),
        author = esc(&f.flag.author),
        link = esc(&findpost_url(&cfg.forum.base_url, f.flag.tid, f.flag.pid)),
        thread = esc(&thread_label(cfg, f.flag.tid)),
        floor = esc(&floor),
        time = esc(&cfg.fmt_time(f.flag.post_time)),
        status = esc(&status),
    );
    s.push_str(&post_with_mark(c, f));
    let _ = write!(
        s,
        "<p class=\"clause\">条款：{}<br>建议：{} · <span class=\"muted\">{}</span></p>",
        esc(&f.flag.clause),
        card_zh(&f.flag.card),
        esc(&f.flag.reason)
    );
    if !f.flag.styling_checked {
        s.push_str("<p class=\"muted\">来自手机接口：放大字体无法检查。</p>");
    }
    for k in cards {
        let _ = write!(
            s,
            "<p class=\"muted decided\">{} {} · {} · {}",
            card_zh(&k.card),
            esc(&k.player),
            esc(&by_zh(&k.given_by)),
            esc(&cfg.fmt_time(k.given_at))
        );
        if let (Some(by), Some(at)) = (&k.withdrawn_by, k.withdrawn_at) {
            let _ = write!(
                s,
                " · <strong>已被 {} 撤销（{}）</strong>",
                esc(&by_zh(by)),
                esc(&cfg.fmt_time(at))
            );
        } else if Card::parse(&k.card) == Some(Card::Red) {
            let more = consequences(cfg, c.rules, c.store, &k.player);
            if !more.is_empty() {
                let _ = write!(s, " · <strong class=\"bad\">{}</strong>", esc(&more));
            }
        }
        s.push_str("</p>");
    }
    if open {
        s.push_str(&flag_actions(c, f, rule_cards));
    } else if f.status == "dismissed"
        && let (Some(by), Some(at)) = (&f.decided_by, f.decided_at)
    {
        let _ = write!(
            s,
            "<p class=\"muted decided\">已驳回 · {} · {}</p>",
            esc(&by_zh(by)),
            esc(&cfg.fmt_time(at))
        );
    }
    s.push_str("<p class=\"answer\" role=\"status\"></p></article>");
    s
}

/// The buttons of a flag to decide: the suggested card, the others the rule set has (a
/// red card asks to be confirmed), dismiss (with the whitelist box where it means
/// something, naming the phrase).
fn flag_actions(c: &Ctx<'_>, f: &FlagRow, rule_cards: &[Card]) -> String {
    let csrf = esc(c.csrf);
    let mut s = String::from("<div class=\"actions\">");
    let suggested = Card::parse(&f.flag.card);
    let mut ordered: Vec<Card> = rule_cards.to_vec();
    ordered.sort_by_key(|k| Some(*k) != suggested);
    for card in ordered {
        let label = if Some(card) == suggested {
            format!("确认：{}（建议）", card.chinese())
        } else {
            format!("改判：{}", card.chinese())
        };
        let (class, confirm) = if card == Card::Red {
            (
                "confirm danger",
                format!(
                    " data-confirm=\"红牌会把 {} 罚下（出局）。确定判红牌？\"",
                    esc(&f.flag.author)
                ),
            )
        } else {
            ("confirm", String::new())
        };
        let _ = write!(
            s,
            "<form method=\"post\" action=\"/flags/{}/confirm\" class=\"decide\"{confirm}><input type=\"hidden\" name=\"csrf\" value=\"{csrf}\"><input type=\"hidden\" name=\"card\" value=\"{}\"><button type=\"submit\" class=\"{class}\" data-card=\"{}\"{}>{}</button></form>",
            f.id,
            card.as_str(),
            card.as_str(),
            if Some(card) == suggested {
                " data-suggested=\"1\""
            } else {
                ""
            },
            esc(&label)
        );
    }
    let wl = if whitelistable(f) {
        format!(
            "<label class=\"wl\"><input type=\"checkbox\" name=\"whitelist\" value=\"1\">本局不再标记「{}」</label>",
            esc(&f.flag.matched)
        )
    } else {
        String::new()
    };
    let _ = write!(
        s,
        "<form method=\"post\" action=\"/flags/{}/dismiss\" class=\"decide dismiss-form\"><input type=\"hidden\" name=\"csrf\" value=\"{csrf}\">{wl}<button type=\"submit\" class=\"dismiss\">驳回</button></form></div>",
        f.id
    );
    s
}

/// `bansha cards`: the ledger with escalations, and the 判罚公示.
fn ledger(c: &Ctx<'_>) -> Result<String, String> {
    let (v, _text, bbcode) = crate::game::flags::render_cards(c.cfg, c.rules, c.store)?;
    let mut s = String::new();
    s.push_str("<div class=\"scroll\"><table id=\"ledger\"><tr><th>玩家</th><th>蓝牌</th><th>黄牌</th><th>红牌</th><th>升级</th><th></th></tr>");
    let mut any = false;
    for p in v["players"].as_array().into_iter().flatten() {
        let n = |k: &str| p[k].as_u64().unwrap_or(0);
        if n("blue") + n("yellow") + n("red") == 0 && !p["out"].as_bool().unwrap_or(false) {
            continue;
        }
        any = true;
        let merges: Vec<String> = p["merges"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|m| {
                format!(
                    "{} {}→{}",
                    esc(m["at"].as_str().unwrap_or("")),
                    card_zh(m["from"].as_str().unwrap_or("")),
                    card_zh(m["to"].as_str().unwrap_or(""))
                )
            })
            .collect();
        let _ = write!(
            s,
            "<tr data-player=\"{name}\"><td>{name}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            n("blue"),
            n("yellow"),
            n("red"),
            merges.join("<br>"),
            if p["out"].as_bool().unwrap_or(false) {
                "<strong class=\"bad\">红牌罚下</strong>"
            } else {
                ""
            },
            name = esc(p["name"].as_str().unwrap_or("")),
        );
    }
    s.push_str("</table></div>");
    if !any {
        s.push_str("<p class=\"muted\">尚无判罚。</p>");
    }
    for camp in v["camps_lost"].as_array().into_iter().flatten() {
        let _ = write!(
            s,
            "<p class=\"bad\">{} 判负</p>",
            esc(camp.as_str().unwrap_or(""))
        );
    }
    let cards: Vec<&serde_json::Value> = v["cards"].as_array().into_iter().flatten().collect();
    if !cards.is_empty() {
        let _ = write!(
            s,
            "<details class=\"allcards\" id=\"allcards\"><summary>所有判罚（{}）</summary>",
            cards.len()
        );
        s.push_str("<div class=\"scroll\"><table><tr><th>#</th><th>玩家</th><th>牌</th><th>条款</th><th>判罚人</th><th>时间</th><th></th></tr>");
        for card in cards {
            let withdrawn = card["withdrawn"].as_bool().unwrap_or(false);
            let action = if withdrawn {
                format!(
                    "已撤销（{}）",
                    esc(&by_zh(card["withdrawn_by"].as_str().unwrap_or("?")))
                )
            } else if c.role == Role::Director {
                format!(
                    "<form method=\"post\" action=\"/cards/{0}/withdraw\" class=\"decide\" data-confirm=\"撤销第 {0} 张牌（{1} {2}）？\"><input type=\"hidden\" name=\"csrf\" value=\"{3}\"><button type=\"submit\" class=\"withdraw\">撤销</button></form>",
                    card["id"].as_i64().unwrap_or(0),
                    esc(card["player"].as_str().unwrap_or("")),
                    card_zh(card["card"].as_str().unwrap_or("")),
                    esc(c.csrf)
                )
            } else {
                String::new()
            };
            let _ = write!(
                s,
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{action}</td></tr>",
                card["id"].as_i64().unwrap_or(0),
                esc(card["player"].as_str().unwrap_or("")),
                card_zh(card["card"].as_str().unwrap_or("")),
                esc(card["clause"].as_str().unwrap_or("")),
                esc(&by_zh(card["by"].as_str().unwrap_or(""))),
                esc(card["at"].as_str().unwrap_or("")),
            );
        }
        s.push_str("</table></div></details>");
    }
    s.push_str(&copy_block("判罚公示", &bbcode));
    Ok(s)
}

/// `bansha state` (director: roles, camps, statuses) or its public BBCode.
fn state(c: &Ctx<'_>, format: Format) -> Result<String, String> {
    let out = crate::game::night::state_report(c.cfg, c.store, None, format).map_err(cli_err)?;
    Ok(match format {
        Format::Bbcode => copy_block("局势公示", &out),
        _ => aligned(&out),
    })
}

/// Every resolved phase: the public 公示 (copyable); for the director also the notes and
/// one private block per player.
fn nights(c: &Ctx<'_>, private: bool) -> Result<String, String> {
    let phases = crate::game::night::phase_reports(c.cfg, c.store).map_err(cli_err)?;
    if phases.is_empty() {
        return Ok("<p class=\"muted\">时间线中尚无结算（bansha night）。</p>".into());
    }
    let mut s = String::new();
    for p in phases.iter().rev() {
        let _ = write!(
            s,
            "<h3>{}{}</h3>",
            esc(&p.label),
            if p.stale {
                " <span class=\"bad\">（已过期：前面的结算改过，请重新结算）</span>"
            } else {
                ""
            }
        );
        s.push_str(&copy_block(&format!("{} 公示", p.label), &p.public_bbcode));
        if private {
            for (player, block) in &p.feedback {
                s.push_str(&copy_block(&format!("私信：{player}"), block));
            }
            let _ = write!(
                s,
                "<details><summary>导演笔记</summary>{}</details>",
                pre(&p.notes)
            );
        }
    }
    Ok(s)
}

/// The last time the store heard from the forum for `day`'s threads (any day's, when the
/// day has none): the newest fetch-log entry that succeeded.
fn last_sync(c: &Ctx<'_>, day: Option<u32>) -> Option<Timestamp> {
    let forum = c.cfg.forum_key();
    let threads = c.cfg.threads();
    let tids: Vec<u64> = threads
        .iter()
        .filter(|t| day.is_none_or(|d| t.0 == d))
        .map(|t| t.2)
        .collect();
    let tids = if tids.is_empty() {
        threads.iter().map(|t| t.2).collect()
    } else {
        tids
    };
    tids.iter()
        .filter_map(|&tid| {
            c.store.fetch_log(&forum, tid).ok().and_then(|log| {
                log.iter()
                    .rev()
                    .find(|e| e.outcome == "ok")
                    .map(|e| e.fetched_at)
            })
        })
        .max()
}

/// `3小时5分` / `12分` / `40秒`.
pub fn duration_zh(secs: i64) -> String {
    let secs = secs.max(0);
    let (h, m) = (secs / 3600, secs % 3600 / 60);
    if h > 0 {
        format!("{h}小时{m}分")
    } else if m > 0 {
        format!("{m}分")
    } else {
        format!("{secs}秒")
    }
}

/// How fresh the data is (the last sync, whether the daemon seems to run), the game's
/// timezone and the time left to 关门.
fn status(c: &Ctx<'_>, day: Option<u32>) -> Result<String, String> {
    let cfg = c.cfg;
    let day = the_day(c, day).ok();
    let mut s = String::from("<dl class=\"status\">");
    let _ = write!(
        s,
        "<dt>现在</dt><dd id=\"now\">{}（{}）</dd>",
        esc(&cfg.fmt_time(c.now)),
        esc(cfg.tz.name())
    );
    // The daemon polls every poll_interval_secs; three missed polls (at least two
    // minutes) mean it is not running, or cannot reach the forum.
    let stale_after = (3 * cfg.daemon.poll_interval_secs as i64).max(120);
    match last_sync(c, day) {
        Some(t) => {
            let ago = c.now - t;
            let (class, daemon) = if ago > stale_after {
                (
                    "bad",
                    format!(
                        "守护进程可能没在运行：{}没有同步（bansha run）",
                        duration_zh(ago)
                    ),
                )
            } else {
                ("ok", "守护进程在同步".to_string())
            };
            let _ = write!(
                s,
                "<dt>最后同步</dt><dd id=\"last-sync\" data-age=\"{ago}\">{}（{}前）</dd><dt>守护进程</dt><dd id=\"daemon\" class=\"{class}\">{}</dd>",
                esc(&cfg.fmt_time(t)),
                duration_zh(ago),
                esc(&daemon)
            );
        }
        None => s.push_str(
            "<dt>最后同步</dt><dd id=\"last-sync\" class=\"bad\">从未同步（先运行 bansha sync 或 bansha run）</dd>",
        ),
    }
    if let Some(d) = day
        && let Some(close) = day_closes(cfg, d)
    {
        if c.now < close {
            let _ = write!(
                s,
                "<dt>第{d}天关门</dt><dd>{}，还有 <strong id=\"countdown\" data-left=\"{}\">{}</strong><span class=\"interim\">（关门前的计票与统计均为暂定）</span></dd>",
                esc(&cfg.fmt_time(close)),
                close - c.now,
                duration_zh(close - c.now)
            );
        } else {
            let _ = write!(
                s,
                "<dt>第{d}天关门</dt><dd id=\"closed\">已于 {} 关门</dd>",
                esc(&cfg.fmt_time(close))
            );
        }
    }
    s.push_str("</dl>");
    Ok(s)
}

/// `bansha changes --since T`: what is new since a moment the director picks (default:
/// an hour ago).
fn changes(c: &Ctx<'_>) -> Result<String, String> {
    let cfg = c.cfg;
    let since = match c.query.get("since").filter(|v| !v.trim().is_empty()) {
        Some(v) => crate::game::tally::parse_at(cfg, &v.replace('T', " "))
            .map_err(|_| format!("「{v}」不是时间：请写成 YYYY-MM-DD HH:MM"))?,
        None => c.now - 3600,
    };
    let text = crate::game::changes::changes_text(cfg, c.rules, c.store, since, c.now)
        .map_err(|e| zh_error(e.message()))?;
    let day = c
        .query
        .get("day")
        .map(|d| format!("<input type=\"hidden\" name=\"day\" value=\"{}\">", esc(d)))
        .unwrap_or_default();
    // The first line says how many; the list itself is folded (it can be long).
    let (head, rest) = text.split_once('\n').unwrap_or((text.as_str(), ""));
    Ok(format!(
        "<form method=\"get\" action=\"/day\" class=\"since\">{day}<label>自 <input type=\"text\" name=\"since\" value=\"{}\" size=\"16\" inputmode=\"numeric\"></label> <button type=\"submit\">查看变化</button></form><details id=\"changes-list\"><summary>{}</summary>{}</details>",
        esc(&cfg.fmt_time(since)),
        esc(head),
        pre(rest)
    ))
}

/// The day's 电梯楼, ready to paste on floor 2.
fn elevator(c: &Ctx<'_>, day: Option<u32>) -> Result<String, String> {
    let day = the_day(c, day)?;
    let e =
        crate::game::activity::stored_elevator(c.cfg, c.rules, c.store, day).map_err(cli_err)?;
    Ok(format!(
        "<details id=\"elevator-block\"><summary>第{day}天 电梯楼：{} 人（展开复制）</summary>{}</details>",
        e.entries.len(),
        copy_block(
            &format!("第{day}天 电梯楼"),
            &crate::activity::render::elevator_bbcode(c.cfg, &e),
        )
    ))
}

/// Who is signed in, with a button to end each sign-in (the director's).
fn sessions(c: &Ctx<'_>) -> String {
    let cfg = c.cfg;
    let mut s = String::from(
        "<table id=\"session-list\"><tr><th>身份</th><th>名字</th><th>登录</th><th>最近</th><th>到期</th><th></th></tr>",
    );
    for x in c.sessions {
        let me = x.handle == c.me;
        let _ = write!(
            s,
            "<tr data-session=\"{h}\"><td>{}</td><td class=\"name\">{}{}</td><td>{}</td><td>{}</td><td>{}</td><td><form method=\"post\" action=\"/sessions/{h}/end\" class=\"decide\" data-confirm=\"结束这个登录？对方要重新输入令牌。\"><input type=\"hidden\" name=\"csrf\" value=\"{}\"><button type=\"submit\" class=\"end\">结束</button></form></td></tr>",
            x.role.zh(),
            esc(x.name.as_deref().unwrap_or("（未填）")),
            if me { "（你）" } else { "" },
            esc(&cfg.fmt_time(x.since)),
            esc(&cfg.fmt_time(x.last_seen)),
            esc(&cfg.fmt_time(x.expires)),
            esc(c.csrf),
            h = esc(&x.handle),
        );
    }
    s.push_str("</table><p class=\"muted\">令牌泄露时：换掉 [serve] 里的令牌并重启 bansha serve，所有登录都会失效。</p>");
    scroll_table(&s)
}

/// A text report whose columns are padded with spaces, as tables: runs of two or more
/// spaces separate cells, so the columns line up whatever the font does with CJK widths.
/// Lines without columns stay paragraphs.
pub fn aligned(text: &str) -> String {
    let cells = |l: &str| -> Vec<String> {
        l.split("  ")
            .map(str::trim)
            .filter(|c| !c.is_empty())
            .map(str::to_string)
            .collect()
    };
    let mut s = String::from("<div class=\"aligned\">");
    let mut in_table = false;
    for line in text.lines() {
        let c = cells(line);
        if c.len() >= 2 {
            if !in_table {
                s.push_str("<div class=\"scroll\"><table class=\"report\">");
                in_table = true;
            }
            s.push_str("<tr>");
            for cell in c {
                let _ = write!(s, "<td>{}</td>", esc(&cell));
            }
            s.push_str("</tr>");
        } else {
            if in_table {
                s.push_str("</table></div>");
                in_table = false;
            }
            if !line.trim().is_empty() {
                let _ = write!(s, "<p>{}</p>", esc(line.trim()));
            }
        }
    }
    if in_table {
        s.push_str("</table></div>");
    }
    s.push_str("</div>");
    s
}

/// The day's fixed activity cards in the ledger (given by `cards from-activity` or this
/// page), not withdrawn.
pub fn activity_cards_given(cfg: &Config, store: &Store, day: u32) -> Vec<CardRow> {
    let suffix = format!(":day{day}");
    store
        .cards(&cfg.forum_key())
        .unwrap_or_default()
        .into_iter()
        .filter(|k| {
            k.category.starts_with("activity:")
                && k.category.ends_with(&suffix)
                && k.withdrawn_at.is_none()
        })
        .collect()
}

/// The day's fixed cards (潜水 → 黄牌…): those in the ledger, and after 关门 the button
/// that gives the rest (what `bansha cards from-activity --day N` does; pressing it again
/// adds nothing). Before 关门 the report is not final.
fn fixed_cards(c: &Ctx<'_>, day: u32, interim: bool) -> String {
    let given = activity_cards_given(c.cfg, c.store, day);
    let mut s = String::from("<h3>固定判罚</h3>");
    if given.is_empty() {
        s.push_str("<p class=\"muted\" id=\"fixed-cards\">还没有确认。</p>");
    } else {
        let list: Vec<String> = given
            .iter()
            .map(|k| format!("{} {}", esc(&k.player), card_zh(&k.card)))
            .collect();
        let _ = write!(
            s,
            "<p id=\"fixed-cards\">已确认 {} 张：{}</p>",
            given.len(),
            list.join("、")
        );
    }
    if interim {
        s.push_str("<p class=\"interim\">关门后才能确认（现在的统计是暂定的）。</p>");
    } else {
        let _ = write!(
            s,
            "<form method=\"post\" action=\"/activity/{day}/cards\" class=\"decide\" data-confirm=\"按第{day}天的发言统计给出固定判罚（已给的不会重复）？\"><input type=\"hidden\" name=\"csrf\" value=\"{}\"><button type=\"submit\" class=\"confirm give-cards\">确认第{day}天的固定判罚</button></form><p class=\"answer\" role=\"status\"></p>",
            esc(c.csrf),
        );
    }
    s
}
