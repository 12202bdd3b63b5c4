//! Ballots and tallies: parse 投票对象/改票 posts, tally by the rule set. Pure logic: data
//! in ([`TallyInput`]), data out ([`Tally`]); rendering for people is in [`render`], and
//! what the public 公示 may show is decided in [`public`].
//!
//! The tally is a pipeline of phases (see [`tally`]): `collect` → `judge` → `weigh` →
//! `totals` → `outcome` → `public`.

mod ballot;
mod collect;
mod judge;
mod names;
mod outcome;
pub mod public;
pub mod render;
mod tally;
mod totals;
mod weigh;

pub use ballot::{BallotText, parse_ballot};
pub(crate) use tally::cause_zh;
pub use tally::{Ballot, EditedPost, Outcome, OutcomeKind, Tally, TallyInput, Total, tally};
