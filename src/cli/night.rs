//! `bansha night`, `bansha state`, and `bansha tally --day N --confirm`: the game layer
//! resolves and renders; this prints, and a question for the director is exit status 3.

use super::*;

use bansha_engine::ActionsFile;

use crate::config::Config;
use crate::game::night::{self, Resolved};
use crate::report::Format;

/// Print what a resolution printed; a question is printed, then exit status 3. The private
/// messages go to `private_out` (never to the standard output with the 公示); without it the
/// director is told where they are.
pub(super) fn finish(r: Resolved, private_out: Option<&std::path::Path>) -> CliResult {
    match r {
        Resolved::Done(out) => {
            match (&out.private, private_out) {
                (Some(p), Some(path)) => {
                    std::fs::write(path, p).map_err(|e| {
                        CliError::Runtime(format!("{}: 私信反馈写入失败：{e}", path.display()))
                    })?;
                    eprintln!(
                        "私信反馈已写入 {}（分别私信，不要与公示一起贴出）",
                        path.display()
                    );
                }
                (Some(_), None) => eprintln!(
                    "私信反馈未输出：公示之外的私信请用 --private-out 文件 写入单独的文件（或 --format text/json 查看）"
                ),
                (None, _) => {}
            }
            emit(&out.printed)
        }
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
    finish(
        night::resolve_night(
            &cfg,
            &file,
            &a.actions,
            a.night,
            a.seed,
            a.dry_run,
            a.format.format,
        )?,
        a.private_out.as_deref(),
    )
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
    private_out: Option<&std::path::Path>,
    format: Format,
) -> CliResult {
    finish(
        night::confirm_day(cfg, tally, answers, format)?,
        private_out,
    )
}
