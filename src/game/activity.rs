//! The day's activity (post counts, 潜水, 加速/延时, 诈尸) and the 电梯楼 from the stored
//! posts: the store read, the timeline's roster and the day's ballots handed to the pure
//! core in [`crate::activity`]; rendered as text, JSON or BBCode.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::{Error, Result, guard};
use crate::activity::{self, Game, render};
use crate::config::{Config, ThreadKind};
use crate::model::Post;
use crate::report::Format;
use crate::roster::Roster;
use crate::rules::RuleSet;
use crate::store::Store;

struct Loaded<'a> {
    cfg: &'a Config,
    rules: &'a RuleSet,
    roster: Roster,
    posts: HashMap<u64, Vec<Post>>,
}

/// The day's window and the players are checked first, then the timeline is built and
/// the day's threads of `kinds` must have stored pages.
fn load<'a>(
    cfg: &'a Config,
    rules: &'a RuleSet,
    store: &Store,
    day: u32,
    kinds: &[ThreadKind],
) -> Result<Loaded<'a>> {
    activity::day_window(cfg, &rules.activity, day).map_err(Error::input)?;
    guard::require_players(cfg)?;
    let roster = super::timeline::roster(cfg, rules, store)?;
    guard::require_pages(cfg, store, day, kinds)?;
    let forum = cfg.forum_key();
    let mut tids: BTreeSet<u64> = BTreeSet::new();
    for d in &cfg.days {
        tids.extend(d.discussion.iter().copied());
        tids.extend(d.vote);
        tids.extend(d.process);
    }
    let mut posts = HashMap::new();
    for tid in tids {
        posts.insert(tid, store.posts(&forum, tid).map_err(Error::runtime)?);
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
    voted_by_tally(l.cfg, l.rules, &l.roster, &l.posts, day)
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
            super::tally::acceleration(cfg, rules, roster, d.number, thread(d.process));
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
const ACTIVITY_THREADS: [ThreadKind; 3] = [
    ThreadKind::Discussion,
    ThreadKind::Vote,
    ThreadKind::Process,
];

fn report_of(l: &Loaded, day: u32) -> Result<activity::ActivityReport> {
    let voted = voted(l, day);
    let g = Game {
        cfg: l.cfg,
        rules: &l.rules.activity,
        roster: &l.roster,
        posts: &l.posts,
        voted: &voted,
    };
    activity::report(&g, day).map_err(Error::input)
}

/// The day's activity report from the store (what `bansha activity` prints, the web page
/// shows and the daemon writes at 关门).
pub fn stored_activity(
    cfg: &Config,
    rules: &RuleSet,
    store: &Store,
    day: u32,
) -> Result<activity::ActivityReport> {
    let l = load(cfg, rules, store, day, &ACTIVITY_THREADS)?;
    report_of(&l, day)
}

/// The day's 电梯楼 from the store: links to the 讨论帖's posts, counted.
pub fn stored_elevator(
    cfg: &Config,
    rules: &RuleSet,
    store: &Store,
    day: u32,
) -> Result<activity::Elevator> {
    let l = load(cfg, rules, store, day, &[ThreadKind::Discussion])?;
    let voted = BTreeMap::new();
    let g = Game {
        cfg: l.cfg,
        rules: &l.rules.activity,
        roster: &l.roster,
        posts: &l.posts,
        voted: &voted,
    };
    activity::elevator(&g, day).map_err(Error::input)
}

/// The activity report as `bansha activity` prints it.
pub fn render_activity(cfg: &Config, r: &activity::ActivityReport, format: Format) -> String {
    let out = match format {
        Format::Text => render::report_text(cfg, r),
        Format::Json => serde_json::to_string_pretty(&render::report_json(cfg, r))
            .expect("an activity report serializes"),
        Format::Bbcode => render::report_bbcode(cfg, r),
    };
    format!("{}\n", out.trim_end())
}

/// The 电梯楼 as `bansha elevator` prints it.
pub fn render_elevator(cfg: &Config, e: &activity::Elevator, format: Format) -> String {
    let out = match format {
        Format::Text => render::elevator_text(cfg, e),
        Format::Json => serde_json::to_string_pretty(&render::elevator_json(cfg, e))
            .expect("an elevator serializes"),
        Format::Bbcode => render::elevator_bbcode(cfg, e),
    };
    format!("{}\n", out.trim_end())
}
