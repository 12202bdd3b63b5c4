//! The one timeline every report reads: the config's players and the director's events in
//! time order, the card ledger's red cards, and the outs and badge changes the engine
//! recorded (stored nights, confirmed days, and what followed an event or a red card).
//! A timeline that cannot be built is an error: no report answers from the config alone.

use super::{Error, Result};
use crate::config::Config;
use crate::night::{self, Until};
use crate::roster::{Fact, RED_CARD_CAUSE, Roster};
use crate::rules::RuleSet;
use crate::store::Store;

/// The game's roster as the tally, the activity report and the flag scanner read it: the
/// config's facts, the card ledger's 红牌 (an `out` fact with cause [`RED_CARD_CAUSE`] at the
/// card's time, for a player still in the game then; the tally reads it by the rule set —
/// after the vote at 关门, 挂机 in 灵族杀), and what the engine's timeline recorded: outs of
/// stored nights and confirmed days, outs that followed a director's event or a red card
/// (殉情…), badge changes. A night's facts take effect at its day's 关门 (plus one second), a
/// day's at its 关门, an event's or a red card's at its time. Without the engine in use
/// ([`engine_in_use`]): the config and the red cards.
pub fn roster(cfg: &Config, rules: &RuleSet, store: &Store) -> Result<Roster> {
    let mut roster = Roster::from_config(cfg);
    let reds = night::red_cards(cfg, rules, store).map_err(Error::Input)?;
    for r in &reds {
        if roster.alive_at(&r.player, r.at) {
            roster.push(
                r.at,
                Fact::Out {
                    player: r.player.clone(),
                    cause: RED_CARD_CAUSE.into(),
                },
            );
        }
    }
    let phases = store.phases().map_err(Error::runtime)?;
    let Some(engine) = engine_in_use(cfg, rules, &phases) else {
        return Ok(roster);
    };
    if phases.is_empty() && reds.is_empty() {
        return Ok(roster);
    }
    let tl = night::replay(cfg, engine, &phases, &reds, Until::All).map_err(does_not_replay)?;
    let red_cause = engine.cause(RED_CARD_CAUSE);
    let mut sheriff: Option<String> = None;
    for e in &tl.entries {
        let Some(out) = &e.outcome else { continue };
        let at = match e.at {
            Some(t) => t,
            None => {
                let Some(closes) = cfg.day(e.number).and_then(|d| d.closes).map(|c| cfg.ts(c))
                else {
                    continue;
                };
                closes + i64::from(e.kind == "night")
            }
        };
        for d in &out.deaths {
            // An event's or a red card's own out is in the roster already (as written).
            if e.at.is_some() && (!roster.alive_at(&d.player, at) || d.cause == red_cause) {
                continue;
            }
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
    Ok(roster)
}

/// The card ledger as it stood at `t`, read against the timeline.
#[derive(Debug, Clone)]
pub struct TimelineLedger {
    pub ledger: crate::moderation::ledger::Ledger,
    pub records: Vec<crate::moderation::ledger::CardRecord>,
    /// The camps lost by then as the timeline has it (red cards and everything else the
    /// engine settles); without the engine, the ledger's.
    pub camps_lost: Vec<String>,
}

/// The card ledger as it stood at `t` (`Timestamp::MAX`: now), with each player's camp as
/// the timeline has it (a camp joined by a skill — 混血儿's 认亲 — counts), and the camps
/// lost as `state` reports them, so `cards` and `state` agree. Without the engine in use
/// ([`engine_in_use`]), the camps the config names.
pub fn ledger_at(
    cfg: &Config,
    rules: &RuleSet,
    store: &Store,
    t: crate::model::Timestamp,
) -> Result<TimelineLedger> {
    let phases = store.phases().map_err(Error::runtime)?;
    let Some(engine) = engine_in_use(cfg, rules, &phases) else {
        let (ledger, records) =
            crate::flagging::ledger_at(cfg, rules, store, t).map_err(Error::Input)?;
        let camps_lost = ledger.camps_lost.clone();
        return Ok(TimelineLedger {
            ledger,
            records,
            camps_lost,
        });
    };
    let reds = night::red_cards(cfg, rules, store).map_err(Error::Input)?;
    let until = if t == crate::model::Timestamp::MAX {
        Until::All
    } else {
        Until::At(t)
    };
    let tl = night::replay(cfg, engine, &phases, &reds, until).map_err(does_not_replay)?;
    let camp = |p: &str| {
        tl.state
            .players
            .iter()
            .find(|s| s.name == p)
            .and_then(|s| s.camp.clone())
    };
    let (ledger, records) =
        crate::flagging::ledger_with_camps(cfg, rules, store, t, &camp).map_err(Error::Input)?;
    Ok(TimelineLedger {
        ledger,
        records,
        camps_lost: tl.state.camps_lost.clone(),
    })
}

/// The rule set's engine, when this game uses it: some phase is stored (the director runs
/// `night` or `tally --confirm`), or every player has a role (the engine can settle red
/// cards: 殉情, the badge). A game without roles and without stored phases is one the
/// engine never saw (moderation only): its timeline is the config and the ledger's reds.
/// (bansha's reading: the config's players without roles say the engine is not in use; a
/// game that uses it and does not replay is an error.)
pub fn engine_in_use<'a>(
    cfg: &Config,
    rules: &'a RuleSet,
    phases: &[crate::store::StoredPhase],
) -> Option<&'a bansha_engine::EngineRules> {
    let engine = rules.engine.as_ref()?;
    let roles = !cfg.players.is_empty() && cfg.players.iter().all(|p| p.role.is_some());
    (roles || !phases.is_empty()).then_some(engine)
}

fn does_not_replay(e: String) -> Error {
    Error::Input(format!(
        "the game's timeline does not replay, so nothing can be reported from it: {e}"
    ))
}
