//! The day's activity (post counts, 潜水, 加速/延时, 诈尸) and the 电梯楼 from the stored
//! posts: the store read, the timeline's roster and the day's ballots handed to the pure
//! core in [`crate::activity`]; rendered as text, JSON or BBCode.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::{Error, Result, guard};
use crate::activity::{self, Game, render};
use crate::config::{Config, ThreadKind};
use crate::model::{Post, Timestamp};
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
    now: Timestamp,
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
    // As of `now` (a replay clock included): posts made after it are not counted yet.
    let mut posts = HashMap::new();
    for tid in tids {
        let mut p = store.posts(&forum, tid).map_err(Error::runtime)?;
        p.retain(|p| p.time <= now);
        posts.insert(tid, super::authors::as_seats(cfg, p));
    }
    Ok(Loaded {
        cfg,
        rules,
        roster,
        posts,
    })
}

/// Players who voted on `day` (only that day's 未投票 is judged).
#[allow(clippy::type_complexity)]
fn voted(
    l: &Loaded,
    day: u32,
) -> (
    BTreeMap<u32, BTreeSet<String>>,
    BTreeMap<u32, BTreeMap<String, String>>,
) {
    day_ballots(l.cfg, l.rules, &l.roster, &l.posts, day)
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
    day_ballots(cfg, rules, roster, posts, day).0
}

/// Who voted on `day` (a counted ballot, or one void by a secret status, shown as cast), and
/// who cast ballots none of which counted, with the last one's floor and its public reason.
#[allow(clippy::type_complexity)]
fn day_ballots(
    cfg: &Config,
    rules: &RuleSet,
    roster: &Roster,
    posts: &HashMap<u64, Vec<Post>>,
    day: u32,
) -> (
    BTreeMap<u32, BTreeSet<String>>,
    BTreeMap<u32, BTreeMap<String, String>>,
) {
    let mut voted = BTreeMap::new();
    let mut void = BTreeMap::new();
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
        let counted: BTreeSet<String> = t
            .ballots
            .iter()
            .filter(|b| b.accepted || b.secret)
            .map(|b| b.voter.clone())
            .collect();
        let mut invalid: BTreeMap<String, String> = BTreeMap::new();
        for b in t.ballots.iter().filter(|b| {
            !b.by_director && !b.proxy && !counted.contains(&b.voter) && b.public_reason.is_some()
        }) {
            let floor = b
                .floor
                .map(|f| format!("投票帖 {f} 楼"))
                .unwrap_or_else(|| "投票帖".into());
            let why = b.public_reason.clone().unwrap_or_default();
            invalid.insert(b.voter.clone(), format!("{floor}：{why}"));
        }
        voted.insert(d.number, counted);
        void.insert(d.number, invalid);
    }
    (voted, void)
}

/// Posts, ballots and 加速/延时 requests all count: every thread of the day is needed.
const ACTIVITY_THREADS: [ThreadKind; 3] = [
    ThreadKind::Discussion,
    ThreadKind::Vote,
    ThreadKind::Process,
];

impl Loaded<'_> {
    /// What the pure core reads, with who voted on which day.
    fn game<'a>(
        &'a self,
        voted: &'a BTreeMap<u32, BTreeSet<String>>,
        void_ballots: &'a BTreeMap<u32, BTreeMap<String, String>>,
    ) -> Game<'a> {
        Game {
            cfg: self.cfg,
            rules: &self.rules.activity,
            roster: &self.roster,
            posts: &self.posts,
            voted,
            void_ballots,
        }
    }
}

fn report_of(l: &Loaded, day: u32) -> Result<activity::ActivityReport> {
    let (voted, void) = voted(l, day);
    activity::report(&l.game(&voted, &void), day).map_err(Error::input)
}

/// The day's activity report from the store (what `bansha activity` prints, the web page
/// shows and the daemon writes at 关门).
pub fn stored_activity(
    cfg: &Config,
    rules: &RuleSet,
    store: &Store,
    day: u32,
) -> Result<activity::ActivityReport> {
    stored_activity_at(cfg, rules, store, day, Timestamp::MAX)
}

/// [`stored_activity`] as of `now`: the posts made by then (a replayed day before 关门).
pub fn stored_activity_at(
    cfg: &Config,
    rules: &RuleSet,
    store: &Store,
    day: u32,
    now: Timestamp,
) -> Result<activity::ActivityReport> {
    let l = load(cfg, rules, store, day, &ACTIVITY_THREADS, now)?;
    report_of(&l, day)
}

/// The day's 电梯楼 from the store: links to the 讨论帖's posts, counted.
pub fn stored_elevator(
    cfg: &Config,
    rules: &RuleSet,
    store: &Store,
    day: u32,
) -> Result<activity::Elevator> {
    stored_elevator_at(cfg, rules, store, day, Timestamp::MAX)
}

/// [`stored_elevator`] as of `now`: the posts made by then.
pub fn stored_elevator_at(
    cfg: &Config,
    rules: &RuleSet,
    store: &Store,
    day: u32,
    now: Timestamp,
) -> Result<activity::Elevator> {
    let l = load(cfg, rules, store, day, &[ThreadKind::Discussion], now)?;
    // The 电梯 counts posts; who voted does not enter it.
    activity::elevator(&l.game(&BTreeMap::new(), &BTreeMap::new()), day).map_err(Error::input)
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
