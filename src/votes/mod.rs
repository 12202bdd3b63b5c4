//! Ballots and tallies: parse 投票对象/改票 posts, tally by the rule set. Pure logic.
