//! `bansha night`, `bansha state`, and `bansha tally --day N --confirm`: the game layer
//! resolves and renders; this prints, and a question for the director is exit status 3.

use super::*;

use bansha_engine::ActionsFile;

use crate::config::Config;
use crate::game::night::{self, Resolved};
use crate::report::Format;

/// Print what a resolution printed; a question is printed, then exit status 3.
fn finish(r: Resolved) -> CliResult {
    match r {
        Resolved::Done(out) => emit(&out),
        Resolved::NeedInput { prompt, message } => {
            emit(&prompt)?;
            Err(CliError::NeedInput(message))
        }
    }
}

pub fn run_night(a: &NightArgs) -> CliResult {
    let cfg = load_config(&a.config)?;
    night::engine_rules(&cfg)?;
    let file: ActionsFile = crate::tomlfile::load_toml(&a.actions).map_err(CliError::input)?;
    finish(night::resolve_night(
        &cfg,
        &file,
        &a.actions,
        a.night,
        a.seed,
        a.dry_run,
        a.format.format,
    )?)
}

pub fn run_state(a: &StateArgs) -> CliResult {
    let cfg = load_config(&a.config)?;
    night::engine_rules(&cfg)?; // a rule set without [engine] is refused before any database opens
    let store = night::open_store(&cfg)?;
    emit(&night::state_report(
        &cfg,
        &store,
        a.at.as_deref(),
        a.format.format,
    )?)
}

/// `tally --day N --confirm`: the day's outcome into the timeline (see
/// [`night::confirm_day`]).
pub fn confirm_day(
    cfg: &Config,
    tally: &crate::votes::Tally,
    answers: Option<&std::path::Path>,
    format: Format,
) -> CliResult {
    finish(night::confirm_day(cfg, tally, answers, format)?)
}
