//! Tally phase 4: votes received per player: counted ballots' weights plus extra votes a
//! status gives its holder (诽谤), highest first, seat order between equals.

use std::collections::HashMap;

use super::tally::{Ballot, Ctx, Total};
use crate::rules::vote::{Weight, WeightRule};

pub(super) struct Totals {
    /// Highest first.
    pub list: Vec<Total>,
    /// Votes received from statuses, not ballots (诽谤).
    pub received: HashMap<String, Weight>,
}

pub(super) fn totals(
    cx: &Ctx,
    out: &[Ballot],
    counted: &[usize],
    notes: &mut Vec<String>,
) -> Totals {
    let mut totals: HashMap<String, Weight> = HashMap::new();
    let mut received: HashMap<String, Weight> = HashMap::new();
    let alive_end = cx.alive_end();
    for rule in &cx.rules.weights {
        if let WeightRule::StatusReceived {
            status,
            add,
            clause,
        } = rule
        {
            let a = Weight::from_f64(*add).unwrap_or_default();
            for &p in &alive_end {
                let k = cx
                    .statuses(p)
                    .iter()
                    .filter(|s| **s == status.as_str())
                    .count() as i64;
                if k > 0 {
                    *received.entry(p.to_string()).or_default() += Weight(a.0 * k);
                    notes.push(format!(
                        "{p} 额外获得 +{}票（{k}个【{status}】） 「{clause}」",
                        Weight(a.0 * k)
                    ));
                }
            }
        }
    }
    for (p, w) in &received {
        *totals.entry(p.clone()).or_default() += *w;
    }
    for &c in counted {
        if let Some(t) = &out[c].target {
            *totals.entry(t.clone()).or_default() += out[c].weight;
        }
    }
    let seat: HashMap<&str, usize> = cx
        .roster
        .players
        .iter()
        .enumerate()
        .map(|(i, p)| (p.as_str(), i))
        .collect();
    let order = |name: &str| seat.get(name).copied();
    let mut list: Vec<Total> = totals
        .into_iter()
        .map(|(target, votes)| Total { target, votes })
        .collect();
    list.sort_by(|a, b| {
        b.votes
            .cmp(&a.votes)
            .then(order(&a.target).cmp(&order(&b.target)))
    });
    Totals { list, received }
}
