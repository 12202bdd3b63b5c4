//! The night engine's side in bansha: the game's timeline (config, the director's events,
//! the stored nights and confirmed days) replayed through `bansha-engine`, and what the
//! director reads (`render`). The engine itself is pure and lives in `crates/engine`.

pub mod render;

use bansha_engine::action::Action;
use bansha_engine::resolve::OnPrompt;
use bansha_engine::rng::seed_from;
use bansha_engine::state::Status;
use bansha_engine::{EngineRules, GameState, Outcome, PhaseInput, Rejected, Resolution};
use serde::Serialize;

use crate::config::{Config, Event};
use crate::model::Timestamp;
use crate::store::StoredPhase;

/// The state at the start of the game, from the config's players (seat order) and roles.
pub fn initial_state(cfg: &Config, rules: &EngineRules) -> Result<GameState, String> {
    let mut players: Vec<(usize, &crate::config::Player)> =
        cfg.players.iter().enumerate().collect();
    players.sort_by_key(|(i, p)| (p.seat.unwrap_or(u32::MAX), *i));
    let mut seats = Vec::new();
    for (_, p) in players {
        let role = p.role.clone().ok_or_else(|| {
            format!(
                "{}: player `{}` has no role (the night engine needs every player's role)",
                cfg.path.display(),
                p.name
            )
        })?;
        seats.push((p.name.clone(), role));
    }
    GameState::new(rules, &seats).map_err(|e| format!("{}: {e}", cfg.path.display()))
}

/// Where a replay stops.
#[derive(Debug, Clone, Copy)]
pub enum Until {
    /// Everything before this timeline position (exclusive).
    Before(Key),
    /// Everything that had happened by this moment.
    At(Timestamp),
    All,
}

/// A timeline position: `(ord, sub)`, ord = 2·day for a day, 2·night ± 1 for a night
/// (`StoredPhase::ord`). Within one ord: red cards given during the day before its vote
/// (sub 0), the stored phase (sub 1), the director's events of the day (sub 2), red cards
/// given at or after the day's 关门 (sub 3: 「白天结束时红牌罚下的出局结算在投票结算之后执行」).
pub type Key = (i64, u8);

const SUB_BEFORE_VOTE: u8 = 0;
const SUB_PHASE: u8 = 1;
const SUB_EVENT: u8 = 2;
const SUB_AFTER_VOTE: u8 = 3;

pub fn night_key(rules: &EngineRules, n: u32) -> Key {
    (
        StoredPhase::ord("night", n, rules.night_before_day),
        SUB_PHASE,
    )
}
pub fn day_key(n: u32) -> Key {
    (StoredPhase::ord("day", n, false), SUB_PHASE)
}

/// A red card of the card ledger (given as red, or merged from three yellows), as a fact of
/// the game: the player goes out by the rule set's red-card cause at the card's time (or, where
/// the rule set says so, enters a status instead), so lovers, hunters and the badge follow.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RedCard {
    pub player: String,
    pub at: Timestamp,
    /// The ledger card that gave it.
    pub card: i64,
    pub merged: bool,
}

/// Every red card of the game's ledger, in time order. Empty where the rule set keeps no
/// cards (no `[moderation]`) or the store holds none.
pub fn red_cards(
    cfg: &Config,
    rules: &crate::rules::RuleSet,
    store: &crate::store::Store,
) -> Result<Vec<RedCard>, String> {
    if rules.moderation.is_none() {
        return Ok(Vec::new());
    }
    let (l, _) = crate::flagging::ledger(cfg, rules, store)?;
    let mut v: Vec<RedCard> = l
        .players
        .iter()
        .flat_map(|p| {
            p.reds.iter().map(|r| RedCard {
                player: p.name.clone(),
                at: r.at,
                card: r.card,
                merged: r.merged,
            })
        })
        .collect();
    v.sort_by_key(|r| (r.at, r.card));
    Ok(v)
}

/// Where a red card sits in the timeline: during day d (from its opening, or from the
/// previous day's 关门 where it has no opening time) and before its 关门 → before the
/// day's vote; from a day's 关门 until the next day opens → after that day's vote (and
/// before the night that follows it, where night n follows day n).
fn red_key(cfg: &Config, at: Timestamp) -> Key {
    let mut days: Vec<&crate::config::Day> = cfg.days.iter().collect();
    days.sort_by_key(|d| d.number);
    let closes = |d: &crate::config::Day| d.closes.map(|c| cfg.ts(c));
    let opens = |d: &crate::config::Day| d.opens.map(|c| cfg.ts(c));
    let ord = |n: u32| StoredPhase::ord("day", n, false);
    for (i, d) in days.iter().enumerate() {
        let Some(c) = closes(d) else { continue };
        if at < c {
            return (ord(d.number), SUB_BEFORE_VOTE);
        }
        let next_opens = days.get(i + 1).and_then(|n| opens(n).or(closes(n)));
        if next_opens.is_none_or(|o| at < o) {
            return (ord(d.number), SUB_AFTER_VOTE);
        }
    }
    (days.last().map_or(0, |d| ord(d.number)), SUB_AFTER_VOTE)
}

/// One entry of the replayed timeline.
#[derive(Debug, Clone, Serialize)]
pub struct Entry {
    /// `第1夜`, `第2天`, `事件`.
    pub label: String,
    pub kind: String,
    pub number: u32,
    pub stale: bool,
    #[serde(skip)]
    pub outcome: Option<Outcome>,
    /// For a director's event or a red card: when it happened.
    #[serde(skip)]
    pub at: Option<Timestamp>,
}

#[derive(Debug, Clone)]
pub struct Timeline {
    pub state: GameState,
    pub entries: Vec<Entry>,
    /// Stored phases that no longer resolve on the new history (after a re-resolve).
    pub problems: Vec<String>,
}

enum Item<'a> {
    Phase(&'a StoredPhase),
    Event(&'a Event),
    Red(&'a RedCard),
}

/// The day an event belongs to: the first day whose 关门 is at or after it (an `out` stamped
/// at a day's 关门 takes effect before that day's night); else the last configured day.
fn event_key(cfg: &Config, at: Timestamp) -> Key {
    let mut days: Vec<&crate::config::Day> = cfg.days.iter().collect();
    days.sort_by_key(|d| d.number);
    let d = days
        .iter()
        .find(|d| d.closes.is_some_and(|c| cfg.ts(c) >= at))
        .or(days.last())
        .map_or(0, |d| d.number);
    (StoredPhase::ord("day", d, false), SUB_EVENT)
}

fn event_at(e: &Event) -> Option<crate::config::LocalTime> {
    match e {
        Event::Out { at, .. }
        | Event::Revive { at, .. }
        | Event::Sheriff { at, .. }
        | Event::Role { at, .. }
        | Event::Lose { at, .. } => Some(*at),
        _ => None,
    }
}

/// Whether a stored phase had happened by `t` (a day once it closed; a night once the next
/// day opened, or its own day closed when the next day's times are not configured).
/// Where night n precedes day n (`night_before_day`), the night had happened once day n
/// opened.
fn phase_by(cfg: &Config, rules: &EngineRules, p: &StoredPhase, t: Timestamp) -> bool {
    let closes = |n: u32| cfg.day(n).and_then(|d| d.closes).map(|c| cfg.ts(c));
    let opens = |n: u32| cfg.day(n).and_then(|d| d.opens).map(|c| cfg.ts(c));
    match p.kind.as_str() {
        "day" => closes(p.number).is_none_or(|c| c <= t),
        _ if rules.night_before_day => opens(p.number).is_none_or(|o| o <= t),
        _ => match opens(p.number + 1) {
            Some(o) => o <= t,
            None => closes(p.number).is_none_or(|c| c <= t),
        },
    }
}

/// Replay the game: the initial state, then stored phases and the director's events in
/// timeline order, each resolved again from its stored input (pure and fast).
/// The ledger's red cards (`reds`, from [`red_cards`]) are facts of the timeline too.
pub fn replay(
    cfg: &Config,
    rules: &EngineRules,
    phases: &[StoredPhase],
    reds: &[RedCard],
    until: Until,
) -> Result<Timeline, String> {
    let mut st = initial_state(cfg, rules)?;
    // An answer for a red card the ledger does not hold (never given, or withdrawn) is bad
    // input, never silently ignored.
    for e in &cfg.events {
        if let Event::Answer { card, .. } = e
            && !reds.iter().any(|r| r.card == *card)
        {
            return Err(format!(
                "{}: [[event]] kind = \"answer\": card {card} is not a red card of the ledger (never given, or withdrawn); see `bansha cards`",
                cfg.path.display()
            ));
        }
    }
    let mut items: Vec<(Key, usize, Item)> = Vec::new();
    for (i, p) in phases.iter().enumerate() {
        let ord = StoredPhase::ord(&p.kind, p.number, rules.night_before_day);
        items.push(((ord, SUB_PHASE), i, Item::Phase(p)));
    }
    for (i, e) in cfg.events.iter().enumerate() {
        if let Some(at) = event_at(e) {
            items.push((event_key(cfg, cfg.ts(at)), i, Item::Event(e)));
        }
    }
    for (i, r) in reds.iter().enumerate() {
        items.push((red_key(cfg, r.at), i, Item::Red(r)));
    }
    // Within one position: events and red cards in time order (events listed out of time
    // order in the config are applied as they happened; file order breaks ties).
    items.sort_by_key(|(k, i, it)| match it {
        Item::Red(r) => (*k, r.at, *i),
        Item::Event(e) => (*k, event_at(e).map_or(0, |a| cfg.ts(a)), *i),
        Item::Phase(_) => (*k, 0, *i),
    });
    let mut entries = Vec::new();
    let mut problems = Vec::new();
    for (key, _, item) in items {
        let keep = match (until, &item) {
            (Until::All, _) => true,
            (Until::Before(b), _) => key < b,
            (Until::At(t), Item::Phase(p)) => phase_by(cfg, rules, p, t),
            (Until::At(t), Item::Event(e)) => event_at(e).is_some_and(|a| cfg.ts(a) <= t),
            (Until::At(t), Item::Red(r)) => r.at <= t,
        };
        if !keep {
            continue;
        }
        match item {
            Item::Phase(p) => {
                let label = phase_label(&p.kind, p.number);
                let input: PhaseInput = serde_json::from_str(&p.input).map_err(|e| {
                    format!(
                        "{}: stored {label} is unreadable: {e}",
                        cfg.db_path().display()
                    )
                })?;
                match bansha_engine::resolve(rules, &st, &input) {
                    Ok(Resolution::Done(out)) => {
                        st = out.state.clone();
                        entries.push(Entry {
                            label,
                            kind: p.kind.clone(),
                            number: p.number,
                            stale: p.stale,
                            outcome: Some(out),
                            at: None,
                        });
                    }
                    Ok(Resolution::NeedInput { prompt, .. }) => {
                        problems.push(format!(
                            "{label} 需要重新结算（之前的结算已改变）：{}",
                            prompt.question
                        ));
                        break;
                    }
                    Err(Rejected::GameOver(w)) => {
                        problems.push(format!("{label} 在游戏结束之后（{w}），未结算"));
                        break;
                    }
                    Err(e) => {
                        problems.push(format!("{label} 需要重新结算（之前的结算已改变）：{e}"));
                        break;
                    }
                }
            }
            Item::Event(e) => {
                let label = "导演事件".to_string();
                let outcome = apply_event(cfg, rules, &mut st, e, key)
                    .map_err(|m| format!("{}: [[event]] {m}", cfg.path.display()))?;
                entries.push(Entry {
                    label,
                    kind: "event".into(),
                    number: (key.0 / 2) as u32,
                    stale: false,
                    outcome,
                    at: event_at(e).map(|a| cfg.ts(a)),
                });
            }
            Item::Red(r) => {
                let outcome = apply_red_card(cfg, rules, &mut st, r, key)
                    .map_err(|m| format!("red card {} ({}): {m}", r.card, r.player))?;
                entries.push(Entry {
                    label: format!("红牌罚下（{}）", r.player),
                    kind: crate::roster::RED_CARD_CAUSE.into(),
                    number: (key.0 / 2) as u32,
                    stale: false,
                    outcome,
                    at: Some(r.at),
                });
            }
        }
    }
    Ok(Timeline {
        state: st,
        entries,
        problems,
    })
}

pub fn phase_label(kind: &str, n: u32) -> String {
    match kind {
        "night" if n == 0 => "开局（第0夜）".into(),
        "night" => format!("第{n}夜"),
        _ => format!("第{n}天"),
    }
}

/// A director's `[[event]]` applied to the state. `out` goes through the engine's death
/// path (殉情, 村长's skill loss and the like follow; a shot or badge nobody recorded is
/// noted as not used), `lose` through the camp-lost rules; the others set what they say.
/// Facts applied as a day input (outs, camps lost), on-prompt = pass: the outcome, or None
/// once the game is over.
fn run_day_facts(
    rules: &EngineRules,
    st: &mut GameState,
    day: u32,
    outs: Vec<(String, String)>,
    lose: Vec<String>,
    seed: u64,
) -> Result<Option<Outcome>, String> {
    let mut input = PhaseInput::day(day, outs, None, Vec::new(), seed);
    input.lose = lose;
    // the director recorded these outs as facts: no immunity re-decides them
    input.recorded_outs = true;
    run_input(rules, st, input)
}

fn run_input(
    rules: &EngineRules,
    st: &mut GameState,
    mut input: PhaseInput,
) -> Result<Option<Outcome>, String> {
    input.on_prompt = OnPrompt::Pass;
    match bansha_engine::resolve(rules, st, &input) {
        Ok(Resolution::Done(o)) => {
            *st = o.state.clone();
            Ok(Some(o))
        }
        Ok(Resolution::NeedInput { prompt, .. }) => Err(prompt.question),
        Err(Rejected::GameOver(_)) => Ok(None),
        Err(e) => Err(e.to_string()),
    }
}

/// A red card through the engine: a day out with the rule set's red-card cause (`red-card`
/// → 红牌), also for a player already out (it is recorded on them and counts towards a
/// camp's loss). The seed of any draw it makes (a red-carded 警长's badge) is derived from
/// the game and the card, so every replay draws the same.
fn apply_red_card(
    cfg: &Config,
    rules: &EngineRules,
    st: &mut GameState,
    r: &RedCard,
    key: Key,
) -> Result<Option<Outcome>, String> {
    let Some(p) = st.player(&r.player) else {
        return Ok(None);
    };
    let fact = vec![(
        r.player.clone(),
        rules.cause(crate::roster::RED_CARD_CAUSE).to_string(),
    )];
    let (outs, records) = if p.alive() {
        (fact, Vec::new())
    } else {
        (Vec::new(), fact)
    };
    let mut input = PhaseInput::day(
        (key.0 / 2) as u32,
        outs,
        None,
        Vec::new(),
        red_card_seed(cfg, r.card),
    );
    input.records = records;
    // The director's answers keyed to this card (`[[event]] kind = "answer"`).
    input.actions = cfg
        .events
        .iter()
        .filter_map(|e| match e {
            Event::Answer {
                card,
                actor,
                skill,
                targets,
                choice,
            } if *card == r.card => Some(Action {
                actor: actor.clone(),
                skill: skill.clone(),
                targets: targets.clone(),
                choice: choice.clone(),
            }),
            _ => None,
        })
        .collect();
    let mut defaulted: Vec<String> = Vec::new();
    loop {
        input.on_prompt = OnPrompt::Ask;
        match bansha_engine::resolve(rules, st, &input) {
            Ok(Resolution::Done(mut o)) => {
                let reading = rules.red_card_unanswered.as_ref();
                for who in &defaulted {
                    o.log.push(bansha_engine::resolve::LogEntry {
                        step: "红牌".into(),
                        text: format!(
                            "{who} 的<殉职>未记录（[[event]] kind = \"answer\" card = {}），随机决定",
                            r.card
                        ),
                        clause: reading.map(|x| x.clause.clone()).unwrap_or_default(),
                    });
                }
                *st = o.state.clone();
                return Ok(Some(o));
            }
            // A badge hand-off nobody answered: the rule file's reading draws it (seeded).
            Ok(Resolution::NeedInput { prompt, .. })
                if rules.red_card_unanswered.is_some()
                    && rules.sheriff_skills.contains(&prompt.skill)
                    && !defaulted.contains(&prompt.player) =>
            {
                defaulted.push(prompt.player.clone());
                input.actions.push(Action {
                    actor: prompt.player.clone(),
                    skill: prompt.skill.clone(),
                    targets: Vec::new(),
                    choice: Some("随机".into()),
                });
            }
            Ok(Resolution::NeedInput { .. }) => return run_input(rules, st, input),
            Err(Rejected::GameOver(_)) => return Ok(None),
            Err(e) => return Err(e.to_string()),
        }
    }
}

/// The seed recorded for a red card's draws.
pub fn red_card_seed(cfg: &Config, card: i64) -> u64 {
    seed_from(&format!("{}:red-card:{card}", cfg.game.name))
}

fn apply_event(
    cfg: &Config,
    rules: &EngineRules,
    st: &mut GameState,
    e: &Event,
    key: Key,
) -> Result<Option<Outcome>, String> {
    let day = (key.0 / 2) as u32;
    let seed = seed_from(&format!("{}:event:{day}", cfg.game.name));
    match e {
        Event::Out { player, cause, .. } if st.player(player).is_some_and(|p| p.alive()) => {
            return run_day_facts(
                rules,
                st,
                day,
                vec![(player.clone(), rules.cause(cause).to_string())],
                Vec::new(),
                seed,
            );
        }
        Event::Lose { camp, .. } => {
            if rules.camp_index(camp).is_none() {
                return Err(format!(
                    "kind = \"lose\": the rule set has no camp `{camp}`"
                ));
            }
            return run_day_facts(rules, st, day, Vec::new(), vec![camp.clone()], seed);
        }
        Event::Revive { player, .. } => {
            if let Some(p) = st.player_mut(player) {
                p.out = None;
            }
        }
        Event::Sheriff { player, .. } => st.sheriff = Some(player.clone()),
        Event::Role { player, role, .. } => {
            let def = rules.role(role).cloned();
            let is_camp = rules.camp_index(role).is_some();
            if let Some(p) = st.player_mut(player) {
                if let Some(d) = def {
                    p.role = d.name.clone();
                    if d.camp.is_some() {
                        p.camp = d.camp.clone();
                    }
                    for s in &d.skills {
                        p.skills
                            .entry(s.clone())
                            .or_insert(bansha_engine::state::SkillState {
                                uses_left: rules.skill(s).and_then(|x| x.uses),
                                lost: false,
                                granted: true,
                            });
                    }
                } else if is_camp {
                    p.camp = Some(role.clone());
                } else {
                    return Err(format!(
                        "kind = \"role\": `{role}` is neither a role nor a camp of the rule set"
                    ));
                }
            }
        }
        Event::Status {
            player,
            status,
            to_day,
            ..
        } => {
            if let Some(p) = st.player_mut(player) {
                p.statuses.push(Status {
                    name: status.clone(),
                    until_day: Some(*to_day),
                });
            }
        }
        _ => {}
    }
    Ok(None)
}

/// The seed of a phase: the actions file's, else one derived from the game and the phase
/// (the same night always draws the same way), recorded with the result.
pub fn default_seed(cfg: &Config, kind: &str, n: u32) -> u64 {
    seed_from(&format!("{}:{kind}:{n}", cfg.game.name))
}

/// Actions as the engine takes them (the file's order is kept; the engine orders by step).
pub fn actions_of(file: &bansha_engine::ActionsFile) -> Vec<Action> {
    file.actions.clone()
}
