//! `bansha flags` (list, `confirm`, `dismiss`) and `bansha cards` (the ledger, `withdraw`,
//! `add`): the moderators' review on top of [`crate::flagging`].

use std::fmt::Write as _;
use std::path::PathBuf;

use clap::{Args, Subcommand};
use serde_json::{Value, json};

use super::*;
use crate::config::Config;
use crate::flagging;
use crate::model::Timestamp;
use crate::moderation::{Card, Category};
use crate::report::{bbcode_escape, findpost_url, max_width, pad_right};
use crate::rules::RuleSet;
use crate::store::{FlagRow, Store};
use crate::time::{Clock, SystemClock};

#[derive(Debug, Args)]
pub struct FlagsArgs {
    /// The game config (TOML).
    #[arg(long, short = 'c', global = true)]
    pub config: Option<PathBuf>,
    /// Only flags on this day's threads.
    #[arg(long)]
    pub day: Option<u32>,
    /// Only flags with this status: open, confirmed or dismissed.
    #[arg(long)]
    pub status: Option<String>,
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    #[command(subcommand)]
    pub action: Option<FlagAction>,
}

#[derive(Debug, Subcommand)]
pub enum FlagAction {
    /// Confirm a flag: record the card (default: the flag's suggested card).
    Confirm {
        id: i64,
        /// blue, yellow or red (蓝/黄/红), where the rule set has that colour.
        #[arg(long)]
        card: Option<String>,
        /// Who confirms (recorded with the card).
        #[arg(long)]
        by: String,
        /// When (`YYYY-MM-DD HH:MM[:SS]`, game timezone); default: now.
        #[arg(long)]
        at: Option<String>,
    },
    /// Dismiss a flag: the post is not flagged for this again.
    Dismiss {
        id: i64,
        /// Also whitelist the matched phrase for this game.
        #[arg(long)]
        whitelist: bool,
        #[arg(long, default_value = "moderator")]
        by: String,
        #[arg(long)]
        at: Option<String>,
    },
}

#[derive(Debug, Args)]
pub struct CardsArgs {
    #[arg(long, short = 'c', global = true)]
    pub config: Option<PathBuf>,
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    #[command(subcommand)]
    pub action: Option<CardAction>,
}

#[derive(Debug, Subcommand)]
pub enum CardAction {
    /// Withdraw a card (the director overrules); escalations are recomputed.
    Withdraw {
        id: i64,
        #[arg(long)]
        by: String,
        #[arg(long)]
        at: Option<String>,
    },
    /// Record a card not raised from a flag (e.g. 潜水 from the activity report).
    Add {
        #[arg(long)]
        player: String,
        #[arg(long)]
        card: String,
        /// The clause, quoted from the rule post (or the activity report's).
        #[arg(long)]
        clause: String,
        #[arg(long)]
        by: String,
        #[arg(long)]
        at: Option<String>,
    },
    /// Confirm the fixed cards of a day's activity report (潜水 → 黄牌: 发言不足, 未投票):
    /// one card per violation, once (running it again adds nothing).
    FromActivity {
        #[arg(long)]
        day: u32,
        #[arg(long)]
        by: String,
        #[arg(long)]
        at: Option<String>,
    },
}

struct Game {
    cfg: Config,
    rules: RuleSet,
    store: Store,
}

fn open(config: &Option<PathBuf>) -> Result<Game, CliError> {
    let Some(path) = config else {
        return Err(CliError::Input("--config GAME.toml is required".into()));
    };
    let cfg = load_config(&ConfigArg {
        config: path.clone(),
    })?;
    let rules = RuleSet::load(&cfg.rules_path()).map_err(CliError::input)?;
    flagging::rules_of(&rules).map_err(CliError::Input)?;
    let db = cfg.db_path();
    if !db.exists() {
        return Err(CliError::Input(format!(
            "{}: no database yet (run `bansha sync` or `bansha import` first)",
            db.display()
        )));
    }
    let store = Store::open(&db).map_err(CliError::runtime)?;
    Ok(Game { cfg, rules, store })
}

fn when(cfg: &Config, at: &Option<String>) -> Result<Timestamp, CliError> {
    match at {
        Some(s) => super::tally::parse_at(cfg, s),
        None => Ok(SystemClock.now()),
    }
}

pub fn run_flags(a: &FlagsArgs) -> CliResult {
    let mut g = open(&a.config)?;
    let forum = g.cfg.forum_key();
    match &a.action {
        None => {}
        Some(FlagAction::Confirm { id, card, by, at }) => {
            let t = when(&g.cfg, at)?;
            let msg = confirm_flag(&g.cfg, &g.rules, &mut g.store, *id, card.as_deref(), by, t)?;
            println!("{msg}");
            return Ok(());
        }
        Some(FlagAction::Dismiss {
            id,
            whitelist,
            by,
            at,
        }) => {
            let t = when(&g.cfg, at)?;
            let msg = dismiss_flag(&g.cfg, &mut g.store, *id, *whitelist, by, t)?;
            println!("{msg}");
            return Ok(());
        }
    }
    let status: Option<&str> = match a.status.as_deref() {
        None => None,
        Some("open" | "待审") => Some("open"),
        Some("confirmed" | "已确认") => Some("confirmed"),
        Some("dismissed" | "已驳回") => Some("dismissed"),
        Some(s) => {
            return Err(CliError::Input(format!(
                "--status: `{s}` is not a status (open, confirmed, dismissed)"
            )));
        }
    };
    let day_tids: Option<Vec<u64>> = match a.day {
        None => None,
        Some(n) => {
            let d = g.cfg.day(n).ok_or_else(|| {
                CliError::Input(format!(
                    "{}: day {n} is not in the config ([[day]] number = {n})",
                    g.cfg.path.display()
                ))
            })?;
            let mut v = d.discussion.clone();
            v.extend(d.vote);
            v.extend(d.process);
            Some(v)
        }
    };
    let now = SystemClock.now();
    flagging::scan_game(&g.cfg, &g.rules, &mut g.store, now).map_err(CliError::Runtime)?;
    let flags: Vec<FlagRow> = g
        .store
        .flags(&forum)
        .map_err(CliError::runtime)?
        .into_iter()
        .filter(|f| day_tids.as_ref().is_none_or(|v| v.contains(&f.flag.tid)))
        .filter(|f| status.is_none_or(|s| f.status == s))
        .collect();
    let tids = day_tids.unwrap_or_else(|| flagging::game_tids(&g.cfg));
    let unchecked = unchecked_posts(&g.cfg, &g.store, &tids).map_err(CliError::runtime)?;
    let out = render_flags(&g.cfg, &flags, &unchecked, a.format);
    println!("{}", out.trim_end());
    Ok(())
}

/// `flags confirm`: record the card (default: the flag's suggested card) on an open flag.
/// Returns the line the command prints. Shared with the web page.
pub(crate) fn confirm_flag(
    cfg: &Config,
    rules: &RuleSet,
    store: &mut Store,
    id: i64,
    card: Option<&str>,
    by: &str,
    t: Timestamp,
) -> Result<String, CliError> {
    let f = decidable(cfg, store, id)?;
    let m = flagging::rules_of(rules).map_err(CliError::Input)?;
    let card = match card {
        None => Card::parse(&f.flag.card).unwrap_or(Card::Blue),
        Some(c) => Card::parse(c).ok_or_else(|| {
            CliError::Input(format!("--card: `{c}` is not a card (blue, yellow, red)"))
        })?,
    };
    if !m.cards.contains(&card) {
        return Err(CliError::Input(format!(
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
        .map_err(CliError::input)?;
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
pub(crate) fn dismiss_flag(
    cfg: &Config,
    store: &mut Store,
    id: i64,
    whitelist: bool,
    by: &str,
    t: Timestamp,
) -> Result<String, CliError> {
    let f = decidable(cfg, store, id)?;
    let phrase = whitelist.then_some(f.flag.matched.as_str());
    store
        .decide_flag(&cfg.forum_key(), id, "dismissed", None, by, t, phrase)
        .map_err(CliError::input)?;
    Ok(match phrase {
        Some(p) => format!("flag {id}: dismissed by {by}; 「{p}」 whitelisted for this game"),
        None => format!("flag {id}: dismissed by {by}"),
    })
}

/// `cards withdraw`: the director overrules a card; escalations are recomputed. Returns the
/// line the command prints. Shared with the web page.
pub(crate) fn withdraw_card(
    cfg: &Config,
    store: &mut Store,
    id: i64,
    by: &str,
    t: Timestamp,
) -> Result<String, CliError> {
    store
        .withdraw_card(&cfg.forum_key(), id, by, t)
        .map_err(CliError::input)?;
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
fn decidable(cfg: &Config, store: &Store, id: i64) -> Result<FlagRow, CliError> {
    let f = store
        .flag(&cfg.forum_key(), id)
        .map_err(CliError::runtime)?
        .ok_or_else(|| CliError::Input(format!("flag {id}: no such flag")))?;
    if f.status != "open" {
        return Err(CliError::Input(format!(
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

pub fn run_cards(a: &CardsArgs) -> CliResult {
    let mut g = open(&a.config)?;
    let forum = g.cfg.forum_key();
    match &a.action {
        None => {}
        Some(CardAction::Withdraw { id, by, at }) => {
            let t = when(&g.cfg, at)?;
            println!("{}", withdraw_card(&g.cfg, &mut g.store, *id, by, t)?);
            return Ok(());
        }
        Some(CardAction::Add {
            player,
            card,
            clause,
            by,
            at,
        }) => {
            if g.cfg.player(player).is_none() {
                return Err(CliError::Input(format!(
                    "{}: `{player}` is not a player of this game",
                    g.cfg.path.display()
                )));
            }
            let m = flagging::rules_of(&g.rules).map_err(CliError::Input)?;
            let c = Card::parse(card)
                .filter(|c| m.cards.contains(c))
                .ok_or_else(|| {
                    CliError::Input(format!(
                        "{}: this rule set has no card `{card}`",
                        g.rules.path.display()
                    ))
                })?;
            let t = when(&g.cfg, at)?;
            let id = g
                .store
                .add_card(&forum, player, c.as_str(), "manual", clause, by, t)
                .map_err(CliError::runtime)?;
            println!("card {id}: {} for {player} by {by}", c.chinese());
            return Ok(());
        }
        Some(CardAction::FromActivity { day, by, at }) => {
            let t = when(&g.cfg, at)?;
            return cards_from_activity(&mut g, a.config.as_ref(), *day, by, t);
        }
    }
    let out = render_cards(&g.cfg, &g.rules, &g.store).map_err(CliError::Runtime)?;
    let out = match a.format {
        Format::Json => serde_json::to_string_pretty(&out.0).map_err(CliError::runtime)?,
        Format::Text => out.1,
        Format::Bbcode => out.2,
    };
    println!("{}", out.trim_end());
    Ok(())
}

/// `cards from-activity`: the day's activity report (as `bansha activity --format json`
/// prints it) → one card per fixed-card violation. 诈尸 is left to its flag.
fn cards_from_activity(
    g: &mut Game,
    config: Option<&PathBuf>,
    day: u32,
    by: &str,
    at: Timestamp,
) -> CliResult {
    let exe = std::env::current_exe().map_err(CliError::runtime)?;
    let out = std::process::Command::new(exe)
        .arg("activity")
        .arg("--config")
        .arg(config.cloned().unwrap_or_default())
        .args(["--day", &day.to_string(), "--format", "json"])
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(CliError::runtime)?;
    if !out.status.success() {
        return Err(CliError::Input(
            String::from_utf8_lossy(&out.stderr).trim().to_string(),
        ));
    }
    let v: Value = serde_json::from_slice(&out.stdout).map_err(CliError::runtime)?;
    let mut cards = Vec::new();
    for p in v["players"].as_array().into_iter().flatten() {
        for viol in p["violations"].as_array().into_iter().flatten() {
            let Some(card) = viol["card"].as_str().and_then(Card::parse) else {
                continue;
            };
            cards.push(ActivityCard {
                player: p["name"].as_str().unwrap_or_default().to_string(),
                rule: viol["rule"].as_str().unwrap_or_default().to_string(),
                card,
                clause: viol["clause"].as_str().unwrap_or_default().to_string(),
            });
        }
    }
    let lines = give_activity_cards(&g.cfg, &mut g.store, &cards, day, by, at)?;
    for l in &lines {
        println!("{l}");
    }
    if lines.is_empty() {
        println!("day {day}: no new fixed-card violations");
    }
    Ok(())
}

/// A fixed card a day's activity report names.
pub(crate) struct ActivityCard {
    pub player: String,
    /// The violation's rule, as the JSON names it (`few-posts`…).
    pub rule: String,
    pub card: Card,
    pub clause: String,
}

fn activity_category(rule: &str, day: u32) -> String {
    format!("activity:{rule}:day{day}")
}

/// The day's fixed activity cards not given yet: 诈尸 is left to its flag; a card already
/// given and not withdrawn is not given twice. Shared with the web page.
pub(crate) fn pending_activity_cards<'a>(
    cfg: &Config,
    store: &Store,
    cards: &'a [ActivityCard],
    day: u32,
) -> Result<Vec<&'a ActivityCard>, CliError> {
    let existing = store.cards(&cfg.forum_key()).map_err(CliError::runtime)?;
    Ok(cards
        .iter()
        .filter(|c| c.rule != "zombie-post")
        .filter(|c| {
            let category = activity_category(&c.rule, day);
            !existing
                .iter()
                .any(|e| e.player == c.player && e.category == category && e.withdrawn_at.is_none())
        })
        .collect())
}

/// Give the day's fixed activity cards not given yet. Returns one line per card given.
/// Shared with the web page.
pub(crate) fn give_activity_cards(
    cfg: &Config,
    store: &mut Store,
    cards: &[ActivityCard],
    day: u32,
    by: &str,
    at: Timestamp,
) -> Result<Vec<String>, CliError> {
    let forum = cfg.forum_key();
    let mut lines = Vec::new();
    for c in pending_activity_cards(cfg, store, cards, day)? {
        let category = activity_category(&c.rule, day);
        let id = store
            .add_card(
                &forum,
                &c.player,
                c.card.as_str(),
                &category,
                &c.clause,
                by,
                at,
            )
            .map_err(CliError::runtime)?;
        lines.push(format!(
            "card {id}: {} for {} ({}, day {day})",
            c.card.chinese(),
            c.player,
            c.rule
        ));
    }
    Ok(lines)
}

/// The ledger as JSON, text and BBCode (the 判罚公示). Shared with the web page.
pub(crate) fn render_cards(
    cfg: &Config,
    rules: &RuleSet,
    store: &Store,
) -> Result<(Value, String, String), String> {
    let m = flagging::rules_of(rules)?;
    let (l, _) = flagging::ledger(cfg, rules, store)?;
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
    let v = json!({ "players": players, "camps_lost": l.camps_lost, "cards": cards });

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
