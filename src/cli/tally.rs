//! `bansha tally`: the day's votes from the store, judged by the game's rule set.

use super::*;

use crate::config::{Config, Event};
use crate::model::{Post, Timestamp};
use crate::report::Format;
use crate::rules::RuleSet;
use crate::time::{Clock, SystemClock};
use crate::votes::{self, Tally, TallyInput};

pub fn run(a: &TallyArgs) -> CliResult {
    let cfg = load_config(&a.config)?;
    let rules = RuleSet::load(&cfg.rules_path()).map_err(CliError::input)?;
    let as_of = match &a.at {
        Some(s) => parse_at(&cfg, s)?,
        None => SystemClock.now(),
    };
    let tid = vote_tid(&cfg, a.day)?;
    let store = crate::store::Store::open(&cfg.db_path()).map_err(CliError::runtime)?;
    let posts = store
        .posts(&cfg.forum_key(), tid)
        .map_err(CliError::runtime)?;
    let process = match cfg.day(a.day).and_then(|d| d.process) {
        Some(p) => store
            .posts(&cfg.forum_key(), p)
            .map_err(CliError::runtime)?,
        None => Vec::new(),
    };
    let (accel, note) = acceleration(&cfg, &rules, a.day, &process);
    let mut t = tally_day(&cfg, &rules, a.day, &posts, as_of, accel)?;
    t.notes.extend(note);
    if a.confirm {
        return super::night::confirm_day(&cfg, &t, a.answers.as_deref(), a.format.format);
    }
    print!("{}", render(&cfg, &t, a.format.format));
    Ok(())
}

/// `--at TIME` in the game's timezone.
pub fn parse_at(cfg: &Config, s: &str) -> Result<Timestamp, CliError> {
    crate::time::parse_naive(s)
        .map(|t| cfg.ts(crate::config::LocalTime(t)))
        .ok_or_else(|| {
            CliError::Input(format!(
                "--at: `{s}` is not a time (want YYYY-MM-DD HH:MM[:SS])"
            ))
        })
}

/// The day's 投票帖.
pub fn vote_tid(cfg: &Config, day: u32) -> Result<u64, CliError> {
    let d = cfg.day(day).ok_or_else(|| {
        CliError::Input(format!(
            "{}: no [[day]] with number = {day}",
            cfg.path.display()
        ))
    })?;
    d.vote.ok_or_else(|| {
        CliError::Input(format!(
            "{}: day {day} has no `vote` thread",
            cfg.path.display()
        ))
    })
}

/// Whether the day is accelerated (加速): the activity module's ruling from the 进程帖
/// requests and the director's `accelerate`/`delay` events. If it cannot rule (the day's
/// times are missing), the director's events alone decide, and a note says so.
pub fn acceleration(
    cfg: &Config,
    rules: &RuleSet,
    day: u32,
    process_posts: &[Post],
) -> (bool, Option<String>) {
    let roster = crate::night::roster_with_timeline(cfg);
    match crate::activity::acceleration(cfg, &rules.activity, &roster, day, process_posts) {
        Ok(d) => (d.accelerated, None),
        Err(e) => (
            director_accelerated(cfg, day),
            Some(format!(
                "加速状态仅依据导演的 accelerate/delay 事件判定：{e}"
            )),
        ),
    }
}

/// The director's last `accelerate`/`delay` event for the day (a 延时 ends the 加速
/// state: 「延迟成功时，不再视为“执行加速”状态」).
pub fn director_accelerated(cfg: &Config, day: u32) -> bool {
    cfg.events
        .iter()
        .filter_map(|e| match e {
            Event::Accelerate { day: d } if *d == day => Some(true),
            Event::Delay { day: d } if *d == day => Some(false),
            _ => None,
        })
        .next_back()
        .unwrap_or(false)
}

/// The tally of `day` as of `as_of`, from the given vote-thread posts.
pub fn tally_day(
    cfg: &Config,
    rules: &RuleSet,
    day: u32,
    posts: &[Post],
    as_of: Timestamp,
    accelerated: bool,
) -> Result<Tally, CliError> {
    let d = cfg.day(day).ok_or_else(|| {
        CliError::Input(format!(
            "{}: no [[day]] with number = {day}",
            cfg.path.display()
        ))
    })?;
    let roster = crate::night::roster_with_timeline(cfg);
    Ok(votes::tally(&TallyInput {
        day,
        rules: &rules.vote,
        readings: &rules.meta.readings,
        config: cfg,
        roster: &roster,
        posts,
        closes: d.closes.map(|c| cfg.ts(c)),
        as_of: Some(as_of),
        accelerated,
    }))
}

pub fn render(cfg: &Config, t: &Tally, format: Format) -> String {
    match format {
        Format::Text => votes::render::text(t, &cfg.game.name),
        Format::Bbcode => votes::render::bbcode(t, &cfg.game.name),
        Format::Json => {
            let mut s = serde_json::to_string_pretty(t).expect("a tally serializes");
            s.push('\n');
            s
        }
    }
}
