//! 暴风雪山庄 games (排球少年, M114) on the game's timeline: the stored phases (开局 as night
//! 0, nights, days) replayed through bansha-engine's `manor` module; resolving and storing a
//! night (`bansha night`), a day up to its 公决 (`bansha day`), the 公决 (`tally
//! --confirm`); what the director reads and posts: the notes, the 公告, each player's
//! private feedback, the state.

use bansha_engine::manor::{
    self, DayInput, ManorOutcome, ManorResult, ManorRules, ManorState, NightInput, Question,
    SetupInput,
};
use serde_json::json;

use super::night::Resolved;
use super::{Error, Result};
use crate::config::Config;
use crate::report::Format;
use crate::rules::RuleSet;
use crate::store::{Store, StoredPhase};
use std::path::Path;

/// A 暴风雪山庄 night n comes before day n: night 0 (开局), night 1, day 1, night 2…
pub const NIGHT_BEFORE_DAY: bool = true;

/// One phase's input, as stored (TOML text) and resolved.
#[derive(Debug, Clone)]
pub enum PhaseIn {
    Setup(SetupInput),
    Night(u32, Box<NightInput>),
    Day(u32, DayInput),
}

impl PhaseIn {
    pub fn kind(&self) -> &'static str {
        match self {
            PhaseIn::Day(..) => "day",
            _ => "night",
        }
    }

    pub fn number(&self) -> u32 {
        match self {
            PhaseIn::Setup(_) => 0,
            PhaseIn::Night(n, _) | PhaseIn::Day(n, _) => *n,
        }
    }

    /// A stored phase's input.
    pub fn parse(kind: &str, number: u32, text: &str) -> std::result::Result<PhaseIn, String> {
        let e = |e: toml::de::Error| format!("{}: {}", label(kind, number), e.message());
        Ok(match (kind, number) {
            ("night", 0) => PhaseIn::Setup(toml::from_str(text).map_err(e)?),
            ("night", n) => PhaseIn::Night(n, Box::new(toml::from_str(text).map_err(e)?)),
            (_, n) => PhaseIn::Day(n, toml::from_str(text).map_err(e)?),
        })
    }

    /// The input as stored.
    pub fn to_text(&self) -> String {
        let r = match self {
            PhaseIn::Setup(i) => toml::to_string(i),
            PhaseIn::Night(_, i) => toml::to_string(i),
            PhaseIn::Day(_, i) => toml::to_string(i),
        };
        r.unwrap_or_else(|e| format!("# not serialisable: {e}\n"))
    }

    /// Resolve on the state the earlier phases left (none before 开局).
    pub fn resolve(
        &self,
        rules: &ManorRules,
        state: Option<&ManorState>,
    ) -> std::result::Result<ManorResult, String> {
        let need = || format!("{}: 开局 (night 0) is not resolved yet", self.label());
        let r = match self {
            PhaseIn::Setup(i) => manor::prepare(rules, i),
            PhaseIn::Night(n, i) => manor::night(rules, state.ok_or_else(need)?, *n, i),
            PhaseIn::Day(n, i) => manor::day(rules, state.ok_or_else(need)?, *n, i),
        };
        r.map_err(|e| format!("{}: {e}", self.label()))
    }

    pub fn label(&self) -> String {
        label(self.kind(), self.number())
    }
}

pub fn label(kind: &str, n: u32) -> String {
    match (kind, n) {
        ("night", 0) => "开局".to_string(),
        ("night", n) => format!("第{n}夜"),
        (_, n) => format!("第{n}日"),
    }
}

/// One replayed phase.
#[derive(Debug, Clone)]
pub struct Entry {
    pub kind: String,
    pub number: u32,
    pub label: String,
    pub stale: bool,
    pub outcome: ManorOutcome,
}

/// The stored phases replayed in timeline order.
#[derive(Debug, Clone, Default)]
pub struct Timeline {
    /// The state after the last phase replayed (None before 开局).
    pub state: Option<ManorState>,
    pub entries: Vec<Entry>,
}

/// When a phase counts as happening, for the red cards and the roster: night n one second
/// before day n opens (else one second after day n−1 closes), day n at its 关门. 开局: never.
pub fn phase_time(cfg: &Config, kind: &str, n: u32) -> Option<crate::model::Timestamp> {
    match (kind, n) {
        ("night", 0) => None,
        ("night", n) => cfg
            .day(n)
            .and_then(|d| d.opens)
            .map(|c| cfg.ts(c) - 1)
            .or_else(|| cfg.day(n - 1).and_then(|d| d.closes).map(|c| cfg.ts(c) + 1)),
        (_, n) => cfg.day(n).and_then(|d| d.closes).map(|c| cfg.ts(c)),
    }
}

/// Replays every stored phase before `(kind, number)` (all with None), with the ledger's red
/// cards between them (a card counts before the first phase after its time). A stored phase
/// that no longer resolves (an earlier one changed) is an error naming it.
pub fn replay(
    cfg: &Config,
    rules: &ManorRules,
    phases: &[StoredPhase],
    reds: &[crate::night::RedCard],
    before: Option<(&str, u32)>,
) -> std::result::Result<Timeline, String> {
    let stop = before.map(|(k, n)| StoredPhase::ord(k, n, NIGHT_BEFORE_DAY));
    let mut tl = Timeline::default();
    let mut pending: Vec<&crate::night::RedCard> = reds.iter().collect();
    let mut cards = |tl: &mut Timeline, until: Option<crate::model::Timestamp>| {
        let Some(st) = tl.state.clone() else {
            return Ok(());
        };
        let due: Vec<_> = pending
            .iter()
            .filter(|r| until.is_none_or(|t| r.at < t))
            .map(|r| r.player.clone())
            .collect();
        pending.retain(|r| until.is_some_and(|t| r.at >= t));
        let mut st = st;
        for player in due {
            match manor::red_card(rules, &st, &player).map_err(|e| e.to_string())? {
                ManorResult::Done(next, out) => {
                    st = *next;
                    tl.entries.push(Entry {
                        kind: "red-card".into(),
                        number: 0,
                        label: format!("{player} 的红牌"),
                        stale: false,
                        outcome: out,
                    });
                }
                ManorResult::Ask(q) => return Err(q.text),
            }
        }
        tl.state = Some(st);
        Ok(())
    };
    for p in phases {
        let ord = StoredPhase::ord(&p.kind, p.number, NIGHT_BEFORE_DAY);
        if let Some(t) = phase_time(cfg, &p.kind, p.number) {
            cards(&mut tl, Some(t))?;
        }
        if stop.is_some_and(|s| ord >= s) {
            return Ok(tl);
        }
        let input = PhaseIn::parse(&p.kind, p.number, &p.input)?;
        match input.resolve(rules, tl.state.as_ref())? {
            ManorResult::Done(st, out) => {
                tl.state = Some(*st);
                tl.entries.push(Entry {
                    kind: p.kind.clone(),
                    number: p.number,
                    label: input.label(),
                    stale: p.stale,
                    outcome: out,
                });
            }
            ManorResult::Ask(q) => {
                return Err(format!(
                    "{} (stored) now asks {}: {} — resolve it again",
                    input.label(),
                    q.player,
                    q.text
                ));
            }
        }
    }
    match before {
        Some((k, n)) => {
            if let Some(t) = phase_time(cfg, k, n) {
                cards(&mut tl, Some(t))?;
            }
        }
        None => cards(&mut tl, None)?,
    }
    Ok(tl)
}

/// The director's notes, the 公告 and each player's private feedback, as text.
pub fn outcome_text(game: &str, label: &str, out: &ManorOutcome) -> String {
    let mut s = format!("{game} {label}\n");
    if !out.deaths.is_empty() {
        s.push_str("出局：\n");
        for d in &out.deaths {
            s.push_str(&format!("  {}（{}，{}）\n", d.player, d.cause, d.place));
        }
    }
    if !out.log.is_empty() {
        s.push_str("导演记录：\n");
        for l in &out.log {
            s.push_str(&format!("  {l}\n"));
        }
    }
    s.push_str("公告：\n");
    if out.public.is_empty() {
        s.push_str("  （无）\n");
    }
    for l in &out.public {
        s.push_str(&format!("  {l}\n"));
    }
    s.push_str("私人反馈：\n");
    if out.feedback.is_empty() {
        s.push_str("  （无）\n");
    }
    for (p, lines) in feedback_by_player(out) {
        s.push_str(&format!("  {p}：\n"));
        for l in lines {
            s.push_str(&format!("    {l}\n"));
        }
    }
    if let Some(w) = out.winner {
        s.push_str(&format!("游戏结束：{}获胜\n", w.label()));
    }
    s
}

/// Feedback grouped by player, in the order each player was first told something.
pub fn feedback_by_player(out: &ManorOutcome) -> Vec<(String, Vec<String>)> {
    let mut v: Vec<(String, Vec<String>)> = Vec::new();
    for l in &out.feedback {
        match v.iter_mut().find(|(p, _)| *p == l.player) {
            Some((_, ls)) => ls.push(l.text.clone()),
            None => v.push((l.player.clone(), vec![l.text.clone()])),
        }
    }
    v
}

/// The 公告 only, as BBCode (what may be posted).
pub fn outcome_bbcode(game: &str, label: &str, out: &ManorOutcome) -> String {
    let mut s = format!("[b]{} {}[/b]\n", crate::report::bbcode_escape(game), label);
    for l in &out.public {
        s.push_str(&crate::report::bbcode_escape(l));
        s.push('\n');
    }
    s
}

pub fn outcome_json(kind: &str, number: u32, out: &ManorOutcome) -> serde_json::Value {
    json!({
        "kind": kind,
        "number": number,
        "deaths": out.deaths,
        "feedback": out.feedback,
        "announcements": out.public,
        "notes": out.log,
        "winner": out.winner.map(|w| w.label()),
        "game_over": out.game_over,
    })
}

pub fn question_text(label: &str, q: &Question) -> String {
    format!(
        "{label} 需要导演的回答：\n  问 {}：{}\n  规则：{}\n",
        q.player, q.text, q.clause
    )
}

pub fn question_json(kind: &str, number: u32, q: &Question) -> serde_json::Value {
    json!({ "kind": kind, "number": number, "need_input": { "player": q.player, "question": q.text, "clause": q.clause } })
}

/// Places in play, in the rule file's order.
fn places<'a>(rules: &'a ManorRules, st: &ManorState) -> Vec<&'a str> {
    rules
        .places_for(st.players.len())
        .into_iter()
        .map(|p| p.name.as_str())
        .collect()
}

/// `bansha state` for a 暴风雪山庄 game: positions, the clues and crime information lying in
/// each place, what each player holds; the murderer, fools and <目标> (director only).
pub fn state_text(rules: &ManorRules, tl: &Timeline) -> String {
    let Some(st) = &tl.state else {
        return "开局尚未结算（bansha night --night 0 --actions SETUP）\n".to_string();
    };
    let last = tl.entries.last().map(|e| e.label.as_str()).unwrap_or("");
    let mut s = format!("截至{last}（最终之日：第{}日）\n", st.final_day);
    s.push_str(&format!(
        "凶手：{}；犯罪动机：{}；愚者：{}；<目标>：{}\n",
        st.murderer,
        st.motives.join("、"),
        st.fools.iter().cloned().collect::<Vec<_>>().join("、"),
        st.targets.join("、")
    ));
    s.push_str(&format!(
        "<凶手行踪>：{}；【发现凶案】：{}\n",
        if st.trail_active {
            "已激活"
        } else {
            "未激活"
        },
        if st.case_announced {
            "已公告"
        } else {
            "未公告"
        }
    ));
    if let Some(w) = st.winner {
        s.push_str(&format!("游戏结束：{}获胜\n", w.label()));
    }
    s.push_str("地点：\n");
    for pl in places(rules, st) {
        let here = st.alive_at(pl);
        s.push_str(&format!(
            "  {pl}：{}\n",
            if here.is_empty() {
                "无人".into()
            } else {
                here.join("、")
            }
        ));
        for sc in st.scenes.iter().filter(|x| x.place == pl) {
            let clues: Vec<&str> = sc
                .clues
                .iter()
                .map(|c| bansha_engine::manor::rules::clue_shown(c))
                .collect();
            s.push_str(&format!(
                "    犯罪信息：死者 {}，死因 {}，线索 {}\n",
                sc.victims.join("、"),
                sc.cause,
                if clues.is_empty() {
                    "无".into()
                } else {
                    clues.join("、")
                }
            ));
        }
        if let Some(ex) = st.extra.get(pl).filter(|v| !v.is_empty()) {
            s.push_str(&format!("    额外线索：{}\n", ex.join("、")));
        }
    }
    s.push_str("玩家：\n");
    for p in &st.players {
        let status = if p.alive {
            format!("存活，{}", p.place)
        } else {
            format!("出局（{}）", p.out_cause.clone().unwrap_or_default())
        };
        s.push_str(&format!("  {}［{}］{status}\n", p.name, p.template));
        if let Some(props) = st.props.get(&p.name) {
            s.push_str(&format!("    道具：{}\n", props.join("、")));
        }
        for h in &p.holds {
            s.push_str(&format!("    持有：{h}\n"));
        }
    }
    s
}

pub fn state_json(tl: &Timeline) -> serde_json::Value {
    json!({
        "manor": true,
        "timeline": tl.entries.iter().map(|e| json!({"phase": e.label, "kind": e.kind, "number": e.number, "stale": e.stale})).collect::<Vec<_>>(),
        "state": tl.state,
    })
}

/// The public view: who is in, who is out, and the positions last announced.
pub fn state_bbcode(game: &str, tl: &Timeline) -> String {
    let mut s = format!("[b]{}[/b]\n", crate::report::bbcode_escape(game));
    let Some(st) = &tl.state else {
        return s;
    };
    let alive: Vec<&str> = st
        .players
        .iter()
        .filter(|p| p.alive)
        .map(|p| p.name.as_str())
        .collect();
    let out: Vec<&str> = st
        .players
        .iter()
        .filter(|p| !p.alive)
        .map(|p| p.name.as_str())
        .collect();
    s.push_str(&format!(
        "存活：{}\n",
        crate::report::bbcode_escape(&alive.join("、"))
    ));
    if !out.is_empty() {
        s.push_str(&format!(
            "出局：{}\n",
            crate::report::bbcode_escape(&out.join("、"))
        ));
    }
    let last_dawn = tl
        .entries
        .iter()
        .flat_map(|e| e.outcome.public.iter())
        .rfind(|l| l.starts_with("【天亮了】"));
    if let Some(l) = last_dawn {
        s.push_str(&crate::report::bbcode_escape(l));
        s.push('\n');
    }
    s
}

/// What the stored phases add to the roster (for the tally and activity): outs — a night's
/// deaths count from one second before its day opens (else one second after the day before
/// closes), a day's 公决 from its 关门 — and each day's vote statuses (镇压: 投票无效) as
/// `(player, status, day)`.
pub type RosterFacts = (
    Vec<(crate::model::Timestamp, String, String)>,
    Vec<(String, String, u32)>,
);

pub fn roster_facts(
    cfg: &Config,
    rules: &ManorRules,
    phases: &[StoredPhase],
    reds: &[crate::night::RedCard],
) -> RosterFacts {
    let Ok(tl) = replay(cfg, rules, phases, reds, None) else {
        tracing::warn!("the 暴风雪山庄 timeline does not replay; reports read the config only");
        return (Vec::new(), Vec::new());
    };
    let mut v = Vec::new();
    let mut statuses = Vec::new();
    for e in tl.entries.iter().filter(|e| e.kind != "red-card") {
        for l in &e.outcome.vote_barred {
            statuses.push((l.player.clone(), l.text.clone(), e.number));
        }
        let Some(at) = phase_time(cfg, &e.kind, e.number) else {
            continue;
        };
        for d in &e.outcome.deaths {
            v.push((at, d.player.clone(), d.cause.clone()));
        }
    }
    (v, statuses)
}

/// The game's `[manor]` rules when its rule set is a 暴风雪山庄 game.
pub fn rules_of(cfg: &Config) -> Result<Option<ManorRules>> {
    let rules = RuleSet::load(&cfg.rules_path()).map_err(Error::input)?;
    Ok(rules.manor)
}

fn open_store(cfg: &Config) -> Result<Store> {
    Store::open(&cfg.db_path()).map_err(Error::runtime)
}

fn timeline(
    cfg: &Config,
    rules: &ManorRules,
    store: &Store,
    before: Option<(&str, u32)>,
) -> Result<Timeline> {
    let ruleset = RuleSet::load(&cfg.rules_path()).map_err(Error::input)?;
    let reds = crate::night::red_cards(cfg, &ruleset, store).map_err(Error::Input)?;
    let phases = store.phases().map_err(Error::runtime)?;
    replay(cfg, rules, &phases, &reds, before).map_err(Error::Input)
}

/// The seed of a phase when its input gives none: derived from the game and the phase.
fn seed(cfg: &Config, kind: &str, n: u32) -> u64 {
    bansha_engine::rng::seed_from(&format!("{}:manor:{kind}:{n}", cfg.game.name))
}

fn read(src: &Path) -> Result<String> {
    std::fs::read_to_string(src)
        .map_err(|e| Error::Input(format!("{}: cannot read: {e}", src.display())))
}

/// Every player a setup names must be a player of the config.
fn check_players(cfg: &Config, input: &PhaseIn, src: &Path) -> Result<()> {
    if let PhaseIn::Setup(s) = input {
        for (i, p) in s.players.iter().enumerate() {
            if !cfg.players.iter().any(|c| c.name == p.name) {
                return Err(Error::Input(format!(
                    "{}: player[{i}].name: `{}` is not a [[player]] of the game config",
                    src.display(),
                    p.name
                )));
            }
        }
    }
    Ok(())
}

/// How a phase is resolved and shown.
pub struct Run<'a> {
    pub cfg: &'a Config,
    pub rules: &'a ManorRules,
    /// The input file (named in errors and questions).
    pub src: &'a Path,
    pub dry_run: bool,
    pub format: Format,
}

/// `bansha night` on a 暴风雪山庄 game: night 0 is 开局 (the setup file), night N a night
/// (the plan and the night skills); stored in the timeline.
pub fn resolve_night(run: &Run, night: u32, seed_arg: Option<u64>) -> Result<Resolved> {
    let mut input = PhaseIn::parse("night", night, &read(run.src)?)
        .map_err(|e| Error::Input(format!("{}: {e}", run.src.display())))?;
    check_players(run.cfg, &input, run.src)?;
    let s = seed_arg.unwrap_or_else(|| seed(run.cfg, "night", night));
    match &mut input {
        PhaseIn::Setup(i) => i.seed = Some(seed_arg.or(i.seed).unwrap_or(s)),
        PhaseIn::Night(_, i) => i.seed = Some(seed_arg.or(i.seed).unwrap_or(s)),
        PhaseIn::Day(..) => {}
    }
    let mut store = open_store(run.cfg)?;
    if night > 1 {
        let phases = store.phases().map_err(Error::runtime)?;
        require_confirmed_day(&phases, night - 1)?;
    }
    let tl = timeline(run.cfg, run.rules, &store, Some(("night", night)))?;
    resolve_and_store(run, &mut store, &tl, input)
}

/// Night n follows day n−1's confirmed 公决.
fn require_confirmed_day(phases: &[StoredPhase], day: u32) -> Result<()> {
    let Some(p) = phases.iter().find(|p| p.kind == "day" && p.number == day) else {
        return Err(Error::Input(format!(
            "第{day}日 has no result yet: bansha day --day {day} --input FILE, then bansha tally --day {day} --confirm"
        )));
    };
    if let Ok(PhaseIn::Day(_, d)) = PhaseIn::parse("day", day, &p.input)
        && d.pending_vote
    {
        return Err(Error::Input(format!(
            "第{day}日's 公决 is not confirmed yet: bansha tally --day {day} --confirm"
        )));
    }
    Ok(())
}

fn resolve_and_store(
    run: &Run,
    store: &mut Store,
    tl: &Timeline,
    input: PhaseIn,
) -> Result<Resolved> {
    let label = input.label();
    let (kind, number) = (input.kind(), input.number());
    match input
        .resolve(run.rules, tl.state.as_ref())
        .map_err(Error::Input)?
    {
        ManorResult::Ask(q) => Ok(Resolved::NeedInput {
            prompt: match run.format {
                Format::Json => format!("{}\n", question_json(kind, number, &q)),
                _ => question_text(&label, &q),
            },
            message: format!(
                "{label}: the director must ask {} ({}); add the answer to {} and run again; nothing was stored",
                q.player,
                q.text,
                run.src.display()
            ),
        }),
        ManorResult::Done(_, out) => {
            let mut stale = Vec::new();
            if !run.dry_run {
                let result = outcome_json(kind, number, &out).to_string();
                stale = store
                    .put_phase(kind, number, NIGHT_BEFORE_DAY, &input.to_text(), &result)
                    .map_err(Error::runtime)?;
            }
            let mut s = match run.format {
                Format::Json => format!("{}\n", outcome_json(kind, number, &out)),
                Format::Bbcode => outcome_bbcode(&run.cfg.game.name, &label, &out),
                Format::Text => outcome_text(&run.cfg.game.name, &label, &out),
            };
            if run.format == Format::Text && !stale.is_empty() {
                let later: Vec<String> = stale.iter().map(|(k, n)| self::label(k, *n)).collect();
                s.push_str(&format!(
                    "注意：之后的阶段（{}）需要重新结算\n",
                    later.join("、")
                ));
            }
            // The BBCode is the 公告 alone; the private feedback is in the text and JSON.
            Ok(Resolved::Done(super::night::PhaseOutput {
                printed: s,
                private: None,
            }))
        }
    }
}

/// `bansha day`: a game day up to its 公决 (确认死者 skills, moves and day skills in order,
/// 【发现凶案】 requests); stored with the 公决 pending unless the file settles it.
pub fn resolve_day(run: &Run, day: u32) -> Result<Resolved> {
    let mut d: DayInput =
        crate::tomlfile::parse_toml(run.src, &read(run.src)?).map_err(Error::input)?;
    d.pending_vote = d.voted_out.is_none() && !d.surrender;
    d.seed = Some(d.seed.unwrap_or_else(|| seed(run.cfg, "day", day)));
    let mut store = open_store(run.cfg)?;
    let tl = timeline(run.cfg, run.rules, &store, Some(("day", day)))?;
    resolve_and_store(run, &mut store, &tl, PhaseIn::Day(day, d))
}

/// `bansha tally --day N --confirm` on a 暴风雪山庄 game: the tally's 公决 ends the day
/// stored by `bansha day` (or the day file given with `--answers`).
pub fn confirm_day(run: &Run, tally: &crate::votes::Tally, answers: bool) -> Result<Resolved> {
    let day = tally.day;
    let mut store = open_store(run.cfg)?;
    let phases = store.phases().map_err(Error::runtime)?;
    let stored = phases.iter().find(|p| p.kind == "day" && p.number == day);
    let mut d: DayInput = match (answers, stored) {
        (true, _) => crate::tomlfile::parse_toml(run.src, &read(run.src)?).map_err(Error::input)?,
        (false, Some(p)) => match PhaseIn::parse("day", day, &p.input).map_err(Error::Input)? {
            PhaseIn::Day(_, d) => d,
            _ => DayInput::default(),
        },
        (false, None) => DayInput::default(),
    };
    d.voted_out = match (tally.outcome.kind, &tally.outcome.player) {
        (crate::votes::OutcomeKind::Eliminated, Some(p)) => Some(p.clone()),
        _ => None,
    };
    d.pending_vote = false;
    d.seed = Some(d.seed.unwrap_or_else(|| seed(run.cfg, "day", day)));
    let tl = timeline(run.cfg, run.rules, &store, Some(("day", day)))?;
    resolve_and_store(run, &mut store, &tl, PhaseIn::Day(day, d))
}

/// `bansha state` on a 暴风雪山庄 game.
pub fn state_report(
    cfg: &Config,
    rules: &ManorRules,
    at: Option<&str>,
    format: Format,
) -> Result<String> {
    if at.is_some() {
        return Err(Error::Input(
            "--at: a 暴风雪山庄 game's state is kept phase by phase, not by time; run bansha state without --at".into(),
        ));
    }
    let store = open_store(cfg)?;
    let tl = timeline(cfg, rules, &store, None)?;
    Ok(match format {
        Format::Json => format!("{}\n", state_json(&tl)),
        Format::Bbcode => state_bbcode(&cfg.game.name, &tl),
        Format::Text => state_text(rules, &tl),
    })
}
