//! Tally phase 6, the secrecy filter: what the public 公示 may show of a [`Tally`]. Only
//! this view reaches the public BBCode, so a secret cannot leak through a renderer.
//!
//! What is kept back is decided by the rule set, never by the day's data (a figure that
//! appears only on days without a secret would itself tell):
//! - `anonymous` (匿名投票): no voter is named;
//! - `top-only` (投票计数隐藏): no count, only the highest;
//! - counts are secret ([`VoteRules::counts_are_secret`]: a secret weight such as 皇权 or
//!   导演暗记, or a status the director does not announce such as <镇压>): no totals, no
//!   ballot weights, no number of valid ballots — a reader who knows the public weights
//!   (警长 +1.5) could subtract and recover the secret one;
//! - a ballot voided by a secret status is shown as cast.
//!
//! [`VoteRules::counts_are_secret`]: crate::rules::vote::VoteRules::counts_are_secret

use super::render::{floor_label, target_label};
use super::tally::Tally;
use crate::rules::vote::Weight;

#[derive(Debug, Clone, PartialEq)]
pub struct PublicBallot {
    pub voter: String,
    /// The target as the 公示 names it (`弃权`, or the written text when it names no one).
    pub target: String,
    pub floor: String,
    pub url: Option<String>,
    /// Printed next to the ballot when not 1 (open games without secret counts).
    pub weight: Option<Weight>,
    /// Why it is void, when the public may know.
    pub void_reason: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Public {
    pub day: u32,
    pub as_of: String,
    /// The secrecy clause, when the vote is not fully open.
    pub secrecy_clause: Option<String>,
    /// Who voted for whom (`None`: anonymous).
    pub ballots: Option<Vec<PublicBallot>>,
    /// How many ballots counted (anonymous games whose counts are public).
    pub valid_count: Option<usize>,
    /// Votes per player (`None`: counts hidden).
    pub totals: Option<Vec<(String, Weight)>>,
    /// The highest, named without a count (`top-only`).
    pub tops: Vec<String>,
    pub mode: &'static str,
    pub outcome_kind: &'static str,
    pub player: Option<String>,
    pub tied: Vec<String>,
}

/// The public view of a tally.
pub fn public(t: &Tally) -> Public {
    let anonymous = t.secrecy == "anonymous";
    let top_only = t.secrecy == "top-only";
    let ballots = (!anonymous).then(|| {
        t.ballots
            .iter()
            .filter(|b| !b.by_director)
            .map(|b| {
                let shown_valid = b.valid || b.secret;
                PublicBallot {
                    voter: b.voter.clone(),
                    target: target_label(&b.target, &b.written_target),
                    floor: floor_label(b.floor, b.proxy),
                    url: b.url.clone(),
                    weight: (t.secrecy == "open"
                        && !t.counts_secret
                        && b.valid
                        && b.weight != Weight::ONE)
                        .then_some(b.weight),
                    void_reason: (!shown_valid).then(|| b.reason.clone().unwrap_or_default()),
                }
            })
            .collect()
    });
    let valid_count =
        (anonymous && !t.counts_secret).then(|| t.ballots.iter().filter(|b| b.valid).count());
    let totals = (!top_only && !t.counts_secret).then(|| {
        t.totals
            .iter()
            .map(|x| (x.target.clone(), x.votes))
            .collect()
    });
    let tops = if top_only { tops(t) } else { Vec::new() };
    Public {
        day: t.day,
        as_of: t.as_of.clone(),
        secrecy_clause: (t.secrecy != "open" && !t.secrecy_clause.is_empty())
            .then(|| t.secrecy_clause.clone()),
        ballots,
        valid_count,
        totals,
        tops,
        mode: t.mode,
        outcome_kind: t.outcome.kind,
        player: t.outcome.player.clone(),
        tied: t.outcome.tied.clone(),
    }
}

/// The players with the highest count (none if nobody has a vote).
pub fn tops(t: &Tally) -> Vec<String> {
    let top = t.totals.first().map(|x| x.votes).unwrap_or_default();
    if top.0 <= 0 {
        return vec![];
    }
    t.totals
        .iter()
        .filter(|x| x.votes == top)
        .map(|x| x.target.clone())
        .collect()
}
