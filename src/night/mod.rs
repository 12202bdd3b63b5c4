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

/// A timeline position: `(ord, sub)`, ord = 2·day for a day, 2·night + 1 for a night;
/// the director's events of a day come after its outcome (sub 1).
pub type Key = (i64, u8);

pub fn night_key(rules: &EngineRules, n: u32) -> Key {
    (StoredPhase::ord("night", n, rules.night_before_day), 0)
}
pub fn day_key(n: u32) -> Key {
    (StoredPhase::ord("day", n, false), 0)
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
    (StoredPhase::ord("day", d, false), 1)
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
pub fn replay(
    cfg: &Config,
    rules: &EngineRules,
    phases: &[StoredPhase],
    until: Until,
) -> Result<Timeline, String> {
    let mut st = initial_state(cfg, rules)?;
    let mut items: Vec<(Key, usize, Item)> = Vec::new();
    for (i, p) in phases.iter().enumerate() {
        let ord = StoredPhase::ord(&p.kind, p.number, rules.night_before_day);
        items.push(((ord, 0), i, Item::Phase(p)));
    }
    for (i, e) in cfg.events.iter().enumerate() {
        if let Some(at) = event_at(e) {
            items.push((event_key(cfg, cfg.ts(at)), i, Item::Event(e)));
        }
    }
    items.sort_by_key(|(k, i, it)| (*k, matches!(it, Item::Event(_)), *i));
    let mut entries = Vec::new();
    let mut problems = Vec::new();
    for (key, _, item) in items {
        let keep = match (until, &item) {
            (Until::All, _) => true,
            (Until::Before(b), _) => key < b,
            (Until::At(t), Item::Phase(p)) => phase_by(cfg, rules, p, t),
            (Until::At(t), Item::Event(e)) => event_at(e).is_some_and(|a| cfg.ts(a) <= t),
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
                apply_event(cfg, rules, &mut st, e, key)
                    .map_err(|m| format!("{}: [[event]] {m}", cfg.path.display()))?;
                entries.push(Entry {
                    label,
                    kind: "event".into(),
                    number: (key.0 / 2) as u32,
                    stale: false,
                    outcome: None,
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
fn apply_event(
    cfg: &Config,
    rules: &EngineRules,
    st: &mut GameState,
    e: &Event,
    key: Key,
) -> Result<(), String> {
    let day = (key.0 / 2) as u32;
    let run = |outs: Vec<(String, String)>,
               lose: Vec<String>,
               st: &mut GameState|
     -> Result<(), String> {
        let mut input = PhaseInput::day(
            day,
            outs,
            None,
            Vec::new(),
            seed_from(&format!("{}:event:{day}", cfg.game.name)),
        );
        input.lose = lose;
        input.on_prompt = OnPrompt::Pass;
        // the director recorded these outs as facts: no immunity re-decides them
        input.recorded_outs = true;
        match bansha_engine::resolve(rules, st, &input) {
            Ok(Resolution::Done(o)) => {
                *st = o.state;
                Ok(())
            }
            Ok(Resolution::NeedInput { prompt, .. }) => Err(prompt.question),
            Err(Rejected::GameOver(_)) => Ok(()),
            Err(e) => Err(e.to_string()),
        }
    };
    match e {
        Event::Out { player, cause, .. } if st.player(player).is_some_and(|p| p.alive()) => {
            run(
                vec![(player.clone(), rules.cause(cause).to_string())],
                Vec::new(),
                st,
            )?;
        }
        Event::Lose { camp, .. } => {
            if rules.camp_index(camp).is_none() {
                return Err(format!(
                    "kind = \"lose\": the rule set has no camp `{camp}`"
                ));
            }
            run(Vec::new(), vec![camp.clone()], st)?;
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
    Ok(())
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

/// The config's roster plus what the engine's timeline recorded (outs of stored nights and
/// confirmed days, badge changes), so a tally after a resolved night knows who is out and
/// who wears the badge. A night's facts take effect at its day's 关门 (plus one second), a
/// day's at its 关门. Without a store, an `[engine]` section, or roles, the config alone.
pub fn roster_with_timeline(cfg: &Config) -> crate::roster::Roster {
    use crate::roster::{Fact, Roster};
    let mut roster = Roster::from_config(cfg);
    let db = cfg.db_path();
    if !db.exists() {
        return roster;
    }
    let Some(rules) = crate::rules::RuleSet::load(&cfg.rules_path())
        .ok()
        .and_then(|r| r.engine)
    else {
        return roster;
    };
    let Ok(store) = crate::store::Store::open(&db) else {
        return roster;
    };
    let Ok(phases) = store.phases() else {
        return roster;
    };
    if phases.is_empty() {
        return roster;
    }
    let Ok(tl) = replay(cfg, &rules, &phases, Until::All) else {
        return roster;
    };
    let mut sheriff: Option<String> = None;
    for e in &tl.entries {
        let Some(out) = &e.outcome else { continue };
        let Some(closes) = cfg.day(e.number).and_then(|d| d.closes).map(|c| cfg.ts(c)) else {
            continue;
        };
        let at = closes + i64::from(e.kind == "night");
        for d in &out.deaths {
            roster.push(
                at,
                Fact::Out {
                    player: d.player.clone(),
                    cause: d.cause.clone(),
                },
            );
        }
        if out.state.sheriff != sheriff {
            if let Some(s) = &out.state.sheriff {
                roster.push(at, Fact::Sheriff { player: s.clone() });
            }
            sheriff = out.state.sheriff.clone();
        }
    }
    roster
}
