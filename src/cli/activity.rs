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
    let store = guard::open_store(&cfg)?;
    load_from(cfg, rules, &store, a.day, kinds)
}

fn load_from(
    cfg: Config,
    rules: RuleSet,
    store: &crate::store::Store,
    day: u32,
    kinds: &[crate::config::ThreadKind],
) -> Result<Loaded, CliError> {
    // The config's facts, the ledger's red cards and the engine's timeline.
    let roster = crate::night::roster_with_timeline(&cfg);
    guard::require_pages(&cfg, store, day, kinds)?;
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

/// Players who voted on `day` (only that day's 未投票 is judged).
fn voted(l: &Loaded, day: u32) -> BTreeMap<u32, BTreeSet<String>> {
    voted_by_tally(&l.cfg, &l.rules, &l.roster, &l.posts, day)
}

/// Who voted on `day`, as `bansha activity` judges it, from the day's tally (its 投票帖 posts,
/// with 加速 from its moment, judged until `vote_closes`): a ballot that counted when it was
/// cast (a voter whose target went out later did vote); a ballot voided by a secret status
/// (<镇压>) counts as cast, or the public activity report would announce the secret. `posts`
/// holds each thread's posts by tid. Public so the activity scenarios run exactly this path.
pub fn voted_by_tally(
    cfg: &Config,
    rules: &RuleSet,
    roster: &Roster,
    posts: &HashMap<u64, Vec<Post>>,
    day: u32,
) -> BTreeMap<u32, BTreeSet<String>> {
    let mut out = BTreeMap::new();
    for d in cfg.days.iter().filter(|d| d.number == day) {
        let Ok(w) = activity::day_window(cfg, &rules.activity, d.number) else {
            continue;
        };
        let thread = |tid: Option<u64>| -> &[Post] {
            tid.and_then(|t| posts.get(&t))
                .map(Vec::as_slice)
                .unwrap_or(&[])
        };
        let (accelerated_since, _) =
            super::tally::acceleration(cfg, rules, d.number, thread(d.process));
        let t = crate::votes::tally(&crate::votes::TallyInput {
            day: d.number,
            rules: &rules.vote,
            readings: &rules.meta.readings,
            config: cfg,
            roster,
            posts: thread(d.vote),
            closes: Some(w.closes),
            vote_closes: cfg.vote_closes(d.number),
            as_of: None,
            accelerated_since,
        });
        out.insert(
            d.number,
            t.ballots
                .into_iter()
                .filter(|b| b.accepted || b.secret)
                .map(|b| b.voter)
                .collect(),
        );
    }
    out
}

/// Posts, ballots and 加速/延时 requests all count: every thread of the day is needed.
const ACTIVITY_THREADS: [crate::config::ThreadKind; 3] = [
    crate::config::ThreadKind::Discussion,
    crate::config::ThreadKind::Vote,
    crate::config::ThreadKind::Process,
];

/// The activity rules' view of a loaded game, with who voted.
fn game<'a>(l: &'a Loaded, voted: &'a BTreeMap<u32, BTreeSet<String>>) -> Game<'a> {
    Game {
        cfg: &l.cfg,
        rules: &l.rules.activity,
        roster: &l.roster,
        posts: &l.posts,
        voted,
    }
}

fn report_of(l: &Loaded, day: u32) -> Result<activity::ActivityReport, CliError> {
    let voted = voted(l, day);
    let g = game(l, &voted);
    activity::report(&g, day).map_err(CliError::input)
}

/// The day's activity report from the store (what `bansha activity` prints, and the web
/// page shows).
pub(crate) fn stored_activity(
    cfg: &Config,
    rules: &RuleSet,
    store: &crate::store::Store,
    day: u32,
) -> Result<activity::ActivityReport, CliError> {
    let l = load_stored(cfg, rules, store, day, &ACTIVITY_THREADS)?;
    report_of(&l, day)
}

/// What a report of `day` reads from an open store: the day checked first.
fn load_stored(
    cfg: &Config,
    rules: &RuleSet,
    store: &crate::store::Store,
    day: u32,
    kinds: &[crate::config::ThreadKind],
) -> Result<Loaded, CliError> {
    activity::day_window(cfg, &rules.activity, day).map_err(CliError::input)?;
    guard::require_players(cfg)?;
    load_from(cfg.clone(), rules.clone(), store, day, kinds)
}

/// The day's 电梯楼 from the store (what `bansha elevator` prints, and the web page shows).
pub(crate) fn stored_elevator(
    cfg: &Config,
    rules: &RuleSet,
    store: &crate::store::Store,
    day: u32,
) -> Result<activity::Elevator, CliError> {
    let l = load_stored(
        cfg,
        rules,
        store,
        day,
        &[crate::config::ThreadKind::Discussion],
    )?;
    elevator_of(&l, day)
}

/// The 电梯楼 of `day` (no ballots needed: the 电梯 counts posts).
fn elevator_of(l: &Loaded, day: u32) -> Result<activity::Elevator, CliError> {
    let voted = BTreeMap::new();
    let g = game(l, &voted);
    activity::elevator(&g, day).map_err(CliError::input)
}

pub fn run_activity(a: &DayArgs) -> CliResult {
    let l = load(a, &ACTIVITY_THREADS)?;
    let r = report_of(&l, a.day)?;
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
    let e = elevator_of(&l, a.day)?;
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
