//! Ballots and tallies: parse 投票对象/改票 posts, tally by the rule set. Pure logic: data
//! in ([`TallyInput`]), data out ([`Tally`]); rendering for people is in [`render`].

mod ballot;
pub mod render;
mod tally;

pub use ballot::{BallotText, parse_ballot};
pub(crate) use tally::cause_zh;
pub use tally::{Ballot, EditedPost, Outcome, Tally, TallyInput, Total, tally};
