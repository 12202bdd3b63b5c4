//! The day's votes from the store, judged by the game's rule set (`bansha tally`, the web
//! page's tally, the daemon's re-tally and its report at 关门).

use super::{Error, guard};

use crate::config::{Config, Event};
use crate::model::{Post, Timestamp};
use crate::report::Format;
use crate::roster::Roster;
use crate::rules::RuleSet;
use crate::votes::{self, Tally, TallyInput};

/// The day's tally from the store as of `as_of` (what `bansha tally` prints, and the web
/// page shows): the 投票帖's posts, 加速 from the 进程帖, judged by the rule set.
pub fn stored_tally(
    cfg: &Config,
    rules: &RuleSet,
    store: &crate::store::Store,
    day: u32,
    tid: u64,
    as_of: Timestamp,
) -> Result<Tally, Error> {
    guard::require_pages(cfg, store, day, &[crate::config::ThreadKind::Vote])?;
    let posts = store.posts(&cfg.forum_key(), tid).map_err(Error::runtime)?;
    let process = match cfg.day(day).and_then(|d| d.process) {
        Some(p) => store.posts(&cfg.forum_key(), p).map_err(Error::runtime)?,
        None => Vec::new(),
    };
    let roster = super::timeline::roster(cfg, rules, store)?;
    let (accel, note) = acceleration(cfg, rules, &roster, day, &process);
    let mut t = tally_day(cfg, rules, &roster, day, &posts, as_of, accel)?;
    t.notes.extend(note);
    Ok(t)
}

/// `--at TIME` in the game's timezone.
pub fn parse_at(cfg: &Config, s: &str) -> Result<Timestamp, Error> {
    crate::time::parse_naive(s)
        .map(|t| cfg.ts(crate::config::LocalTime(t)))
        .ok_or_else(|| {
            Error::Input(format!(
                "--at: `{s}` is not a time (want YYYY-MM-DD HH:MM[:SS])"
            ))
        })
}

/// The day's 投票帖.
pub fn vote_tid(cfg: &Config, day: u32) -> Result<u64, Error> {
    let d = cfg.day(day).ok_or_else(|| {
        Error::Input(format!(
            "{}: no [[day]] with number = {day}",
            cfg.path.display()
        ))
    })?;
    d.vote.ok_or_else(|| {
        Error::Input(format!(
            "{}: day {day} has no `vote` thread",
            cfg.path.display()
        ))
    })
}

/// Since when the day is accelerated (加速), if it is: the activity module's ruling from the
/// 进程帖 requests (the request that reached the threshold) and the director's
/// `accelerate`/`delay` events (`at`, default 开门). If it cannot rule (the day's times are
/// missing), the director's events alone decide, and a note says so.
pub fn acceleration(
    cfg: &Config,
    rules: &RuleSet,
    roster: &Roster,
    day: u32,
    process_posts: &[Post],
) -> (Option<Timestamp>, Option<String>) {
    match crate::activity::acceleration(cfg, &rules.activity, roster, day, process_posts) {
        Ok(d) => (d.since, None),
        Err(e) => (
            director_accelerated(cfg, day),
            Some(format!(
                "加速状态仅依据导演的 accelerate/delay 事件判定：{e}"
            )),
        ),
    }
}

/// The director's last `accelerate`/`delay` event for the day: since when it is
/// accelerated (a 延时 ends the 加速 state: 「延迟成功时，不再视为“执行加速”状态」).
pub fn director_accelerated(cfg: &Config, day: u32) -> Option<Timestamp> {
    let opens = cfg
        .day(day)
        .and_then(|d| d.opens)
        .map(|t| cfg.ts(t))
        .unwrap_or(Timestamp::MIN);
    cfg.events
        .iter()
        .filter_map(|e| match e {
            Event::Accelerate { day: d, at } if *d == day => {
                Some(Some(at.map(|t| cfg.ts(t)).unwrap_or(opens)))
            }
            Event::Delay { day: d, .. } if *d == day => Some(None),
            _ => None,
        })
        .next_back()
        .flatten()
}

/// The tally of `day` as of `as_of`, from the given vote-thread posts and the timeline's
/// roster.
pub fn tally_day(
    cfg: &Config,
    rules: &RuleSet,
    roster: &Roster,
    day: u32,
    posts: &[Post],
    as_of: Timestamp,
    accelerated_since: Option<Timestamp>,
) -> Result<Tally, Error> {
    let d = cfg.day(day).ok_or_else(|| {
        Error::Input(format!(
            "{}: no [[day]] with number = {day}",
            cfg.path.display()
        ))
    })?;
    Ok(votes::tally(&TallyInput {
        day,
        rules: &rules.vote,
        readings: &rules.meta.readings,
        config: cfg,
        roster,
        posts,
        closes: d.closes.map(|c| cfg.ts(c)),
        vote_closes: d.vote_closes.map(|c| cfg.ts(c)),
        as_of: Some(as_of),
        accelerated_since,
    }))
}

pub fn render(cfg: &Config, t: &Tally, format: Format) -> String {
    match format {
        Format::Text => votes::render::text(t, &cfg.game.name),
        Format::Bbcode => votes::render::bbcode(t, &cfg.game.name),
        Format::Json => {
            // `interim`: tallied before 关门; the outcome is who leads, not a result.
            let mut v = serde_json::to_value(t).expect("a tally serializes");
            if let Some(o) = v.as_object_mut() {
                o.insert(
                    "interim".into(),
                    serde_json::Value::Bool(votes::render::is_interim(t)),
                );
            }
            let mut s = serde_json::to_string_pretty(&v).expect("a tally serializes");
            s.push('\n');
            s
        }
    }
}
