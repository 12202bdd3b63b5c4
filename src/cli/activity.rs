//! `bansha activity` and `bansha elevator`: the game layer's report for the day, printed
//! as text, JSON or BBCode.

use super::*;
use crate::game::activity::{render_activity, render_elevator, stored_activity, stored_elevator};

/// The config, its rule set and its store; the day and the players are checked before the
/// database is opened.
fn open(a: &DayArgs) -> Result<crate::game::Game, CliError> {
    let cfg = load_config(&a.config)?;
    let rules = crate::rules::RuleSet::load(&cfg.rules_path()).map_err(CliError::input)?;
    crate::activity::day_window(&cfg, &rules.activity, a.day).map_err(CliError::input)?;
    guard::require_players(&cfg)?;
    let store = guard::open_store(&cfg)?;
    Ok(crate::game::Game::from_parts(cfg, rules, store))
}

pub fn run_activity(a: &DayArgs) -> CliResult {
    let g = open(a)?;
    let r = stored_activity(&g.cfg, &g.rules, &g.store, a.day)?;
    emit(&render_activity(&g.cfg, &r, a.format.format))
}

pub fn run_elevator(a: &DayArgs) -> CliResult {
    let g = open(a)?;
    let e = stored_elevator(&g.cfg, &g.rules, &g.store, a.day)?;
    for en in e.entries.iter().filter(|en| en.uid.is_none()) {
        eprintln!(
            "{}: `{}` has no uid in the config and no stored post carries one; the 电梯 has no link for them (add `uid = …` to their [[player]])",
            g.cfg.path.display(),
            en.name
        );
    }
    emit(&render_elevator(&g.cfg, &e, a.format.format))
}
