//! `bansha activity` and `bansha elevator`: read the stored posts, hand them to the pure
//! core in [`crate::activity`], print text, JSON or BBCode.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::*;
use crate::activity::{self, Game, render};
use crate::config::Config;
use crate::model::Post;
use crate::roster::Roster;
use crate::rules::RuleSet;

struct Loaded {
    cfg: Config,
    rules: RuleSet,
    roster: Roster,
    posts: HashMap<u64, Vec<Post>>,
}

fn load(a: &DayArgs, kinds: &[crate::config::ThreadKind]) -> Result<Loaded, CliError> {
    let cfg = load_config(&a.config)?;
    let rules = RuleSet::load(&cfg.rules_path()).map_err(CliError::input)?;
    // The day must exist and have its times before anything else.
    activity::day_window(&cfg, &rules.activity, a.day).map_err(CliError::input)?;
    guard::require_players(&cfg)?;
    let roster = Roster::from_config(&cfg);
    let store = guard::open_store(&cfg)?;
    guard::require_pages(&cfg, &store, a.day, kinds)?;
    let forum = cfg.forum_key();
    let mut tids: BTreeSet<u64> = BTreeSet::new();
    for d in &cfg.days {
        tids.extend(d.discussion.iter().copied());
        tids.extend(d.vote);
        tids.extend(d.process);
    }
    let mut posts = HashMap::new();
    for tid in tids {
        posts.insert(tid, store.posts(&forum, tid).map_err(CliError::runtime)?);
    }
    Ok(Loaded {
        cfg,
        rules,
        roster,
        posts,
    })
}

/// Players with a ballot that counts on `day` (only that day's 未投票 is judged).
fn voted(l: &Loaded, day: u32) -> BTreeMap<u32, BTreeSet<String>> {
    let mut out = BTreeMap::new();
    for d in l.cfg.days.iter().filter(|d| d.number == day) {
        let Ok(w) = activity::day_window(&l.cfg, &l.rules.activity, d.number) else {
            continue;
        };
        let posts: &[Post] = d
            .vote
            .and_then(|t| l.posts.get(&t))
            .map(Vec::as_slice)
            .unwrap_or(&[]);
        let accelerated = d
            .process
            .and_then(|t| l.posts.get(&t))
            .map(|p| {
                activity::acceleration(&l.cfg, &l.rules.activity, &l.roster, d.number, p)
                    .map(|a| a.accelerated)
                    .unwrap_or(false)
            })
            .unwrap_or(false);
        out.insert(
            d.number,
            ballots_that_count(l, d.number, posts, w.closes, accelerated),
        );
    }
    out
}

/// The players whose ballot counts in the tally (`valid`), judged as of 关门.
fn ballots_that_count(
    l: &Loaded,
    day: u32,
    posts: &[Post],
    closes: crate::model::Timestamp,
    accelerated: bool,
) -> BTreeSet<String> {
    let t = crate::votes::tally(&crate::votes::TallyInput {
        day,
        rules: &l.rules.vote,
        readings: &l.rules.meta.readings,
        config: &l.cfg,
        roster: &l.roster,
        posts,
        closes: Some(closes),
        as_of: None,
        accelerated,
    });
    t.ballots
        .into_iter()
        .filter(|b| b.valid)
        .map(|b| b.voter)
        .collect()
}

pub fn run_activity(a: &DayArgs) -> CliResult {
    use crate::config::ThreadKind::*;
    // Posts, ballots and 加速/延时 requests all count: every thread of the day is needed.
    let l = load(a, &[Discussion, Vote, Process])?;
    let voted = voted(&l, a.day);
    let g = Game {
        cfg: &l.cfg,
        rules: &l.rules.activity,
        roster: &l.roster,
        posts: &l.posts,
        voted: &voted,
    };
    let r = activity::report(&g, a.day).map_err(CliError::input)?;
    let out = match a.format.format {
        Format::Text => render::report_text(&l.cfg, &r),
        Format::Json => serde_json::to_string_pretty(&render::report_json(&l.cfg, &r))
            .map_err(CliError::runtime)?,
        Format::Bbcode => render::report_bbcode(&l.cfg, &r),
    };
    emit(&format!("{}\n", out.trim_end()))
}

pub fn run_elevator(a: &DayArgs) -> CliResult {
    // The 电梯 links to the 讨论帖 and counts its posts.
    let l = load(a, &[crate::config::ThreadKind::Discussion])?;
    let voted = BTreeMap::new();
    let g = Game {
        cfg: &l.cfg,
        rules: &l.rules.activity,
        roster: &l.roster,
        posts: &l.posts,
        voted: &voted,
    };
    let e = activity::elevator(&g, a.day).map_err(CliError::input)?;
    for en in e.entries.iter().filter(|en| en.uid.is_none()) {
        eprintln!(
            "{}: `{}` has no uid in the config and no stored post carries one; the 电梯 has no link for them (add `uid = …` to their [[player]])",
            l.cfg.path.display(),
            en.name
        );
    }
    let out = match a.format.format {
        Format::Text => render::elevator_text(&l.cfg, &e),
        Format::Json => serde_json::to_string_pretty(&render::elevator_json(&l.cfg, &e))
            .map_err(CliError::runtime)?,
        Format::Bbcode => render::elevator_bbcode(&l.cfg, &e),
    };
    emit(&format!("{}\n", out.trim_end()))
}
