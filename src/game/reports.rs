//! The day's reports as the report commands print them — `bansha tally`, `activity`,
//! `elevator` and `flags` — computed in-process, for the daemon's files at 关门 (the same
//! library calls the commands make, so the files match what the director gets by hand).

use super::{Error, Result};
use crate::config::Config;
use crate::model::Timestamp;
use crate::report::Format;
use crate::rules::RuleSet;
use crate::store::Store;

/// A report written at 关门.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DayReport {
    Tally,
    Activity,
    /// The 电梯楼.
    Elevator,
    /// The moderators' flag list for the day's threads.
    Flags,
}

impl DayReport {
    pub const ALL: [DayReport; 4] = [
        DayReport::Tally,
        DayReport::Activity,
        DayReport::Elevator,
        DayReport::Flags,
    ];

    /// The command that prints it, and the stem of its file (`tally.txt`).
    pub fn command(self) -> &'static str {
        match self {
            DayReport::Tally => "tally",
            DayReport::Activity => "activity",
            DayReport::Elevator => "elevator",
            DayReport::Flags => "flags",
        }
    }
}

/// The formats every report is written in: the format, its `--format` name, its file
/// extension.
pub const FORMATS: [(Format, &str, &str); 3] = [
    (Format::Text, "text", "txt"),
    (Format::Json, "json", "json"),
    (Format::Bbcode, "bbcode", "bbcode"),
];

/// One report of `day` as of `now`, as its command prints it.
pub fn day_report(
    cfg: &Config,
    rules: &RuleSet,
    store: &mut Store,
    report: DayReport,
    day: u32,
    format: Format,
    now: Timestamp,
) -> Result<String> {
    match report {
        DayReport::Tally => {
            super::guard::require_players(cfg)?;
            let tid = super::tally::vote_tid(cfg, day)?;
            let t = super::tally::stored_tally(cfg, rules, store, day, tid, now)?;
            Ok(super::tally::render(cfg, &t, format))
        }
        DayReport::Activity => {
            let r = super::activity::stored_activity(cfg, rules, store, day)?;
            Ok(super::activity::render_activity(cfg, &r, format))
        }
        DayReport::Elevator => {
            let e = super::activity::stored_elevator(cfg, rules, store, day)?;
            Ok(super::activity::render_elevator(cfg, &e, format))
        }
        DayReport::Flags => {
            crate::flagging::rules_of(rules).map_err(Error::Input)?;
            super::flags::list_flags(cfg, rules, store, Some(day), None, now, format)
        }
    }
}
