//! The CLI front of 暴风雪山庄 games (排球少年): `bansha night` (开局 as night 0, nights),
//! `bansha day` (a day up to its 公决), `bansha tally --confirm` (the 公决 ends the day) and
//! `bansha state`. The game layer (`crate::game::manor`) resolves, stores and renders.

use super::*;

use bansha_engine::manor::ManorRules;

use crate::config::Config;
use crate::game::manor::{self, Run};
use crate::report::Format;

/// The config and its `[manor]` rules when the game is a 暴风雪山庄 game.
pub fn rules_of(arg: &ConfigArg) -> Result<Option<(Config, ManorRules)>, CliError> {
    let cfg = load_config(arg)?;
    Ok(manor::rules_of(&cfg)?.map(|m| (cfg, m)))
}

pub fn run_night(a: &NightArgs, cfg: Config, rules: ManorRules) -> CliResult {
    let run = Run {
        cfg: &cfg,
        rules: &rules,
        src: &a.actions,
        dry_run: a.dry_run,
        format: a.format.format,
    };
    night::finish(manor::resolve_night(&run, a.night, a.seed)?, None)
}

pub fn run_day(a: &ManorDayArgs) -> CliResult {
    let Some((cfg, rules)) = rules_of(&a.config)? else {
        return Err(CliError::Input(
            "bansha day is for 暴风雪山庄 games (a rule set with [manor]); other games confirm a day with bansha tally --day N --confirm".into(),
        ));
    };
    let run = Run {
        cfg: &cfg,
        rules: &rules,
        src: &a.input,
        dry_run: a.dry_run,
        format: a.format.format,
    };
    night::finish(manor::resolve_day(&run, a.day)?, None)
}

pub fn confirm_day(
    cfg: &Config,
    rules: &ManorRules,
    tally: &crate::votes::Tally,
    answers: Option<&std::path::Path>,
    format: Format,
) -> CliResult {
    let none = std::path::PathBuf::from("--answers FILE");
    let run = Run {
        cfg,
        rules,
        src: answers.unwrap_or(&none),
        dry_run: false,
        format,
    };
    night::finish(manor::confirm_day(&run, tally, answers.is_some())?, None)
}

pub fn run_state(a: &StateArgs, cfg: Config, rules: ManorRules) -> CliResult {
    emit(&manor::state_report(
        &cfg,
        &rules,
        a.at.as_deref(),
        a.format.format,
    )?)
}
