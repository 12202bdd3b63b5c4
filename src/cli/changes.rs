//! `bansha changes`: what is new since a time, or since the last time it was asked (the
//! game layer's [`crate::game::changes`]); this keeps the "last asked" mark and prints.

use serde_json::json;

use super::*;
use crate::config::Config;
use crate::game::changes::{Change, collect, text};
use crate::game::tally;
use crate::rules::RuleSet;

/// The last call: when, and the changes it showed from that very second (timestamps are
/// whole seconds, so a change seen in the same second as the call is kept by key).
struct Asked {
    at: crate::model::Timestamp,
    shown: Vec<String>,
}

impl Asked {
    fn parse(s: &str) -> Option<Asked> {
        let mut lines = s.lines();
        let at = lines.next()?.trim().parse().ok()?;
        Some(Asked {
            at,
            shown: lines.map(str::to_string).collect(),
        })
    }
    fn to_text(&self) -> String {
        let mut s = format!("{}\n", self.at);
        for k in &self.shown {
            s.push_str(&k.replace('\n', " "));
            s.push('\n');
        }
        s
    }
}

/// Where the time of the last `bansha changes` is kept: beside the database.
fn asked_path(cfg: &Config) -> std::path::PathBuf {
    let mut s = cfg.db_path().into_os_string();
    s.push(".changes-asked");
    s.into()
}

pub fn run(a: &ChangesArgs) -> CliResult {
    if a.format.format == Format::Bbcode {
        return Err(CliError::Input(
            "changes is the director's own list, not a 公示: use --format text or json".into(),
        ));
    }
    let cfg = load_config(&a.config)?;
    let rules = RuleSet::load(&cfg.rules_path()).map_err(CliError::input)?;
    guard::require_players(&cfg)?;
    let store = guard::open_store(&cfg)?;
    // The replay clock (`BANSHA_CLOCK_START`) when one is set.
    let now = command_now(&cfg)?;
    let asked = asked_path(&cfg);
    // Changes the last call showed that were seen in its last second: not shown again.
    let mut shown: Vec<String> = Vec::new();
    let (since, since_why) = match &a.since {
        Some(s) => (
            tally::parse_at(&cfg, s).map_err(|e| match e {
                crate::game::Error::Input(m) => CliError::Input(m.replacen("--at", "--since", 1)),
                e => e.into(),
            })?,
            "--since",
        ),
        None => match std::fs::read_to_string(&asked)
            .ok()
            .and_then(|s| Asked::parse(&s))
        {
            Some(last) => {
                shown = last.shown;
                (last.at, "上次查看")
            }
            None => {
                return Err(CliError::Input(format!(
                    "no --since and no earlier `bansha changes` for {} ({} does not exist); \
                     give --since \"YYYY-MM-DD HH:MM\"",
                    cfg.db_path().display(),
                    asked.display()
                )));
            }
        },
    };
    let all = collect(&cfg, &rules, &store, since, now)?;
    // Everything seen in this very second is accounted for from now on, shown now or
    // by an earlier call.
    let accounted: Vec<String> = all
        .iter()
        .filter(|c| c.seen >= now)
        .map(Change::key)
        .collect();
    let changes: Vec<Change> = all
        .into_iter()
        .filter(|c| !(c.seen == since && shown.contains(&c.key())))
        .collect();
    let out = match a.format.format {
        Format::Json => {
            let v = json!({
                "since": cfg.fmt_time(since),
                "until": cfg.fmt_time(now),
                "changes": changes.iter().map(|c| json!({
                    "posted": cfg.fmt_time(c.posted),
                    "seen": cfg.fmt_time(c.seen),
                    "day": c.day,
                    "what": c.what,
                    "player": c.who,
                    "floor": c.floor,
                    "detail": c.detail,
                    "url": c.url,
                })).collect::<Vec<_>>(),
            });
            let mut s = serde_json::to_string_pretty(&v).map_err(CliError::runtime)?;
            s.push('\n');
            s
        }
        Format::Text | Format::Bbcode => text(&cfg, &changes, since, since_why, now),
    };
    emit(&out)?;
    // Remember when we last told the director (best effort: a read-only folder only
    // means the next call needs --since).
    let record = Asked {
        at: now,
        shown: accounted,
    };
    if let Err(e) = std::fs::write(&asked, record.to_text()) {
        tracing::warn!(
            "{}: cannot record this call ({e}); next time give --since",
            asked.display()
        );
    }
    Ok(())
}
