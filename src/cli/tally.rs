//! `bansha tally`: the game layer's tally of the day as of now (or `--at`), printed; with
//! `--confirm`, the day's outcome confirmed into the timeline.

use super::*;

use crate::game::tally::{parse_at, render, stored_tally, vote_tid};
use crate::rules::RuleSet;

pub fn run(a: &TallyArgs) -> CliResult {
    let cfg = load_config(&a.config)?;
    let rules = RuleSet::load(&cfg.rules_path()).map_err(CliError::input)?;
    guard::require_players(&cfg)?;
    let as_of = match &a.at {
        Some(s) => parse_at(&cfg, s)?,
        None => crate::time::process_clock(cfg.tz)
            .map_err(CliError::Input)?
            .now(),
    };
    let tid = vote_tid(&cfg, a.day)?;
    if let Some(opens) = cfg.day(a.day).and_then(|d| d.opens)
        && as_of < cfg.ts(opens)
    {
        let when = match &a.at {
            Some(_) => format!("--at {}", cfg.fmt_time(as_of)),
            None => format!("now ({})", cfg.fmt_time(as_of)),
        };
        return Err(CliError::Input(format!(
            "{when}: day {} opens at {}; there is nothing to tally before then",
            a.day,
            cfg.fmt_time(cfg.ts(opens))
        )));
    }
    let store = guard::open_store(&cfg)?;
    let t = stored_tally(&cfg, &rules, &store, a.day, tid, as_of)?;
    if a.confirm {
        return super::night::confirm_day(&cfg, &t, a.answers.as_deref(), a.format.format);
    }
    emit(&render(&cfg, &t, a.format.format))
}
