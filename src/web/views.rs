//! The page's sections. Each is what a CLI command prints, computed by the same library
//! function of the game layer (`game::tally::stored_tally`, `game::activity::stored_activity`,
//! `game::flags::render_cards`, `game::night::state_report`/`phase_reports`, the store's
//! flags) and laid out as HTML. Nothing here tallies, flags or resolves anything itself.

use std::fmt::Write as _;

use super::Role;
use super::html::{copy_block, error_box, esc, pre};
use crate::config::Config;
use crate::model::Timestamp;
use crate::moderation::Card;
use crate::report::{Format, findpost_url};
use crate::rules::RuleSet;
use crate::store::{FlagRow, Store};

/// What a section is computed from: the config and rule set as they are now (reloaded for
/// every request, so the director's new `[[event]]`s show), the store, the moment.
pub struct Ctx<'a> {
    pub cfg: &'a Config,
    pub rules: &'a RuleSet,
    pub store: &'a Store,
    pub now: Timestamp,
    pub role: Role,
    pub csrf: &'a str,
}

/// The sections, by the name in `/part/{name}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
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
        matches!(self, Part::TallyDirector | Part::State | Part::Nights)
    }
    pub fn title(self) -> &'static str {
        match self {
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
    let ends = |d: &crate::config::Day| cfg.vote_closes(d.number).or(d.closes.map(|t| cfg.ts(t)));
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

fn cli_err(e: crate::game::Error) -> String {
    e.message().to_string()
}

/// One section's HTML (an error box when the command would have failed).
pub fn render(part: Part, c: &Ctx<'_>, day: Option<u32>) -> String {
    let r = match part {
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
    r.unwrap_or_else(|e| error_box(&e))
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
            "<table><tr><th>玩家</th><th>申请</th><th>楼层</th><th>时间</th><th>计入</th></tr>",
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
        s.push_str("</table>");
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
    s.push_str("<table id=\"posts\"><tr><th>座位</th><th>玩家</th><th>发言</th><th>投票</th><th>违规</th></tr>");
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
    s.push_str("</table>");
    s.push_str(&copy_block(
        "发言统计公示",
        &crate::activity::render::report_bbcode(cfg, &r),
    ));
    Ok(s)
}

/// The post text with the flag's matched span marked (the revision the flag was raised on,
/// when the store still has it).
fn post_with_mark(c: &Ctx<'_>, f: &FlagRow) -> String {
    let post = c
        .store
        .post(&c.cfg.forum_key(), f.flag.tid, f.flag.pid)
        .ok()
        .flatten();
    let Some(post) = post else {
        return format!("<div class=\"post\">{}</div>", esc(&f.flag.excerpt));
    };
    let rev = post
        .revisions
        .iter()
        .find(|r| r.hash == f.flag.rev_hash)
        .unwrap_or_else(|| post.current());
    let text = &rev.text;
    let m = &f.flag.matched;
    match (!m.is_empty()).then(|| text.find(m.as_str())).flatten() {
        Some(i) => format!(
            "<div class=\"post\">{}<mark>{}</mark>{}</div>",
            esc(&text[..i]),
            esc(m),
            esc(&text[i + m.len()..])
        ),
        None => format!(
            "<div class=\"post\">{}</div><p class=\"muted\">命中：<mark>{}</mark></p>",
            esc(text),
            esc(m)
        ),
    }
}

fn card_zh(s: &str) -> &'static str {
    Card::parse(s).map(Card::chinese).unwrap_or("?")
}

/// The flag queue: open flags with their buttons, then the decided ones.
fn flags(c: &Ctx<'_>) -> Result<String, String> {
    let m = crate::flagging::rules_of(c.rules)?;
    let all = c
        .store
        .flags(&c.cfg.forum_key())
        .map_err(|e| e.to_string())?;
    let mut s = String::new();
    let open: Vec<&FlagRow> = all.iter().filter(|f| f.status == "open").collect();
    let _ = write!(
        s,
        "<p>待处理 <strong id=\"open-count\">{}</strong> 条，共 {} 条。</p>",
        open.len(),
        all.len()
    );
    for f in &open {
        s.push_str(&flag_html(c, f, &m.cards));
    }
    let decided: Vec<&FlagRow> = all.iter().filter(|f| f.status != "open").collect();
    if !decided.is_empty() {
        let _ = write!(s, "<details><summary>已处理（{}）</summary>", decided.len());
        for f in decided {
            s.push_str(&flag_html(c, f, &m.cards));
        }
        s.push_str("</details>");
    }
    Ok(s)
}

fn flag_html(c: &Ctx<'_>, f: &FlagRow, cards: &[Card]) -> String {
    let cfg = c.cfg;
    let floor = f
        .flag
        .floor
        .map(|n| format!("{n}楼"))
        .unwrap_or_else(|| "楼层未知".into());
    let mut s = format!(
        "<article class=\"flag\" id=\"flag-{id}\" data-status=\"{st}\"><div><strong>#{id}</strong> {cat} · {author} · <a href=\"{link}\" target=\"_blank\" rel=\"noopener noreferrer\">tid {tid} {floor}</a> · {time} · <em>{st}</em></div>",
        id = f.id,
        st = esc(&f.status),
        cat = esc(&f.flag.category),
        author = esc(&f.flag.author),
        link = esc(&findpost_url(&cfg.forum.base_url, f.flag.tid, f.flag.pid)),
        tid = f.flag.tid,
        floor = esc(&floor),
        time = esc(&cfg.fmt_time(f.flag.post_time)),
    );
    s.push_str(&post_with_mark(c, f));
    let _ = write!(
        s,
        "<p>条款：{}<br>建议：{} · <span class=\"muted\">{}</span></p>",
        esc(&f.flag.clause),
        card_zh(&f.flag.card),
        esc(&f.flag.reason)
    );
    if !f.flag.styling_checked {
        s.push_str("<p class=\"muted\">来自手机接口：放大字体无法检查。</p>");
    }
    if f.status == "open" {
        let csrf = esc(c.csrf);
        s.push_str("<div class=\"actions\">");
        let suggested = Card::parse(&f.flag.card);
        for card in cards {
            let label = if Some(*card) == suggested {
                format!("确认：{}（建议）", card.chinese())
            } else {
                format!("改判：{}", card.chinese())
            };
            let _ = write!(
                s,
                "<form method=\"post\" action=\"/flags/{}/confirm\"><input type=\"hidden\" name=\"csrf\" value=\"{csrf}\"><input type=\"hidden\" name=\"card\" value=\"{}\"><button type=\"submit\" class=\"confirm\" data-card=\"{}\">{}</button></form>",
                f.id,
                card.as_str(),
                card.as_str(),
                esc(&label)
            );
        }
        let _ = write!(
            s,
            "<form method=\"post\" action=\"/flags/{}/dismiss\"><input type=\"hidden\" name=\"csrf\" value=\"{csrf}\"><label class=\"muted\"><input type=\"checkbox\" name=\"whitelist\" value=\"1\">本局不再标记此词</label> <button type=\"submit\" class=\"dismiss\">驳回</button></form></div>",
            f.id
        );
    } else if let (Some(by), Some(at)) = (&f.decided_by, f.decided_at) {
        let _ = write!(
            s,
            "<p class=\"muted\">{} {} · {} · {}</p>",
            esc(&f.status),
            f.decided_card.as_deref().map(card_zh).unwrap_or(""),
            esc(by),
            esc(&cfg.fmt_time(at))
        );
    }
    s.push_str("</article>");
    s
}

/// `bansha cards`: the ledger with escalations, and the 判罚公示.
fn ledger(c: &Ctx<'_>) -> Result<String, String> {
    let (v, _text, bbcode) = crate::game::flags::render_cards(c.cfg, c.rules, c.store)?;
    let mut s = String::new();
    s.push_str("<table id=\"ledger\"><tr><th>玩家</th><th>蓝牌</th><th>黄牌</th><th>红牌</th><th>升级</th><th></th></tr>");
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
    s.push_str("</table>");
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
        s.push_str("<h3>所有判罚</h3><table><tr><th>#</th><th>玩家</th><th>牌</th><th>条款</th><th>判罚人</th><th>时间</th><th></th></tr>");
        for card in cards {
            let withdrawn = card["withdrawn"].as_bool().unwrap_or(false);
            let action = if withdrawn {
                format!(
                    "撤销（{}）",
                    esc(card["withdrawn_by"].as_str().unwrap_or("?"))
                )
            } else if c.role == Role::Director {
                format!(
                    "<form method=\"post\" action=\"/cards/{}/withdraw\"><input type=\"hidden\" name=\"csrf\" value=\"{}\"><button type=\"submit\">撤销</button></form>",
                    card["id"].as_i64().unwrap_or(0),
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
                esc(card["by"].as_str().unwrap_or("")),
                esc(card["at"].as_str().unwrap_or("")),
            );
        }
        s.push_str("</table>");
    }
    s.push_str(&copy_block("判罚公示", &bbcode));
    Ok(s)
}

/// `bansha state` (director: roles, camps, statuses) or its public BBCode.
fn state(c: &Ctx<'_>, format: Format) -> Result<String, String> {
    let out = crate::game::night::state_report(c.cfg, c.store, None, format).map_err(cli_err)?;
    Ok(match format {
        Format::Bbcode => copy_block("局势公示", &out),
        _ => pre(&out),
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
