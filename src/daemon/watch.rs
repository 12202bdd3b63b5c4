//! Re-tally after changes: when a day's 投票帖 changed in a pass, the daemon tallies the
//! day in-process (the game layer's tally, read by its JSON contract keys) and logs what
//! changed since the last tally: new ballots, 改票, a new leader. The diff is pure.

use serde_json::Value;

/// The parts of a tally the daemon reports on.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Snapshot {
    /// (voter, target or None for 弃权, floor, valid) per ballot, in the tally's order.
    pub ballots: Vec<(String, Option<String>, Option<u64>, bool)>,
    /// The targets with the most votes and that count.
    pub leaders: Vec<String>,
    pub top_votes: f64,
}

/// What changed between two tallies.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    NewBallot {
        voter: String,
        target: Option<String>,
        floor: Option<u64>,
        valid: bool,
    },
    /// 改票: the voter's counting ballot now names another target.
    Changed {
        voter: String,
        from: Option<String>,
        to: Option<String>,
    },
    NewLeader {
        leaders: Vec<String>,
        votes: f64,
    },
}

/// Read a `bansha tally --format json` document (keys per docs/interfaces.md).
pub fn snapshot(json: &Value) -> Option<Snapshot> {
    let ballots = json
        .get("ballots")?
        .as_array()?
        .iter()
        .map(|b| {
            (
                b.get("voter")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string(),
                b.get("target").and_then(Value::as_str).map(str::to_string),
                b.get("floor").and_then(Value::as_u64),
                b.get("valid").and_then(Value::as_bool).unwrap_or(false),
            )
        })
        .collect();
    let totals: Vec<(String, f64)> = json
        .get("totals")?
        .as_array()?
        .iter()
        .filter_map(|t| {
            Some((
                t.get("target")?.as_str()?.to_string(),
                t.get("votes")?.as_f64()?,
            ))
        })
        .collect();
    let top = totals.iter().map(|t| t.1).fold(0.0, f64::max);
    let mut leaders: Vec<String> = if top > 0.0 {
        totals
            .iter()
            .filter(|t| t.1 == top)
            .map(|t| t.0.clone())
            .collect()
    } else {
        Vec::new()
    };
    leaders.sort();
    Some(Snapshot {
        ballots,
        leaders,
        top_votes: top,
    })
}

/// The events between `prev` (None: the first tally seen) and `cur`.
pub fn diff(prev: Option<&Snapshot>, cur: &Snapshot) -> Vec<Event> {
    let empty = Snapshot::default();
    let prev = prev.unwrap_or(&empty);
    let mut out = Vec::new();
    for b in &cur.ballots {
        if !prev.ballots.contains(b)
            && !prev
                .ballots
                .iter()
                .any(|p| p.0 == b.0 && p.2 == b.2 && p.2.is_some())
        {
            out.push(Event::NewBallot {
                voter: b.0.clone(),
                target: b.1.clone(),
                floor: b.2,
                valid: b.3,
            });
        }
    }
    let counting = |s: &Snapshot, voter: &str| {
        s.ballots
            .iter()
            .find(|b| b.3 && b.0 == voter)
            .map(|b| b.1.clone())
    };
    for b in cur.ballots.iter().filter(|b| b.3) {
        if let (Some(from), Some(to)) = (counting(prev, &b.0), counting(cur, &b.0))
            && from != to
            && !out
                .iter()
                .any(|e| matches!(e, Event::Changed { voter, .. } if *voter == b.0))
        {
            out.push(Event::Changed {
                voter: b.0.clone(),
                from,
                to,
            });
        }
    }
    if cur.leaders != prev.leaders && !cur.leaders.is_empty() {
        out.push(Event::NewLeader {
            leaders: cur.leaders.clone(),
            votes: cur.top_votes,
        });
    }
    out
}

/// The snapshot of a tally computed in-process (its JSON contract keys, as
/// `bansha tally --format json` prints them).
pub fn of_tally(t: &crate::votes::Tally) -> Result<Snapshot, String> {
    let v = serde_json::to_value(t).map_err(|e| format!("the tally does not serialize: {e}"))?;
    snapshot(&v).ok_or_else(|| "the tally JSON has no ballots/totals".to_string())
}

/// Log the events through `tracing`.
pub fn log(day: u32, events: &[Event]) {
    let who = |t: &Option<String>| t.clone().unwrap_or_else(|| "弃权".into());
    for e in events {
        match e {
            Event::NewBallot {
                voter,
                target,
                floor,
                valid,
            } => {
                tracing::info!(day, voter = %voter, floor = %crate::daemon::floor_text::floor(*floor), valid, "new ballot: {} → {}", voter, who(target))
            }
            Event::Changed { voter, from, to } => {
                tracing::info!(day, voter = %voter, "改票: {} → {} (was {})", voter, who(to), who(from))
            }
            Event::NewLeader { leaders, votes } => {
                tracing::info!(day, votes, "new leader: {}", leaders.join(" / "))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tally(ballots: Value, totals: Value) -> Snapshot {
        snapshot(
            &json!({"day": 1, "mode": "elimination", "ballots": ballots, "totals": totals,
            "outcome": {"kind": "none", "player": null, "via": ""}}),
        )
        .unwrap()
    }

    #[test]
    fn new_ballots_changes_and_leader() {
        let a = tally(
            json!([{"voter": "傻树", "target": "甲", "floor": 2, "pid": 1, "time": "", "weight": 1, "valid": true, "reason": null}]),
            json!([{"target": "甲", "votes": 1}]),
        );
        let ev = diff(None, &a);
        assert_eq!(ev.len(), 2, "{ev:?}");
        assert!(matches!(&ev[0], Event::NewBallot { voter, .. } if voter == "傻树"));
        assert!(
            matches!(&ev[1], Event::NewLeader { leaders, .. } if leaders == &["甲".to_string()])
        );
        assert!(diff(Some(&a), &a).is_empty());

        // 傻树 changes to 乙 at floor 5 (the floor-2 ballot is now replaced); 白色防御者 votes 乙.
        let b = tally(
            json!([
                {"voter": "傻树", "target": "甲", "floor": 2, "valid": false, "reason": "replaced by floor 5"},
                {"voter": "傻树", "target": "乙", "floor": 5, "valid": true, "reason": null},
                {"voter": "白色防御者", "target": "乙", "floor": 6, "valid": true, "reason": null}
            ]),
            json!([{"target": "乙", "votes": 2.5}]),
        );
        let ev = diff(Some(&a), &b);
        assert!(
            ev.contains(&Event::Changed {
                voter: "傻树".into(),
                from: Some("甲".into()),
                to: Some("乙".into())
            }),
            "{ev:?}"
        );
        assert!(ev.contains(&Event::NewLeader {
            leaders: vec!["乙".into()],
            votes: 2.5
        }));
        let new: Vec<_> = ev
            .iter()
            .filter(|e| matches!(e, Event::NewBallot { .. }))
            .collect();
        assert_eq!(new.len(), 2, "floor 5 and floor 6: {ev:?}");
    }

    #[test]
    fn a_tie_is_a_leader_change() {
        let a = tally(
            json!([]),
            json!([{"target": "甲", "votes": 2}, {"target": "乙", "votes": 1}]),
        );
        let b = tally(
            json!([]),
            json!([{"target": "甲", "votes": 2}, {"target": "乙", "votes": 2}]),
        );
        assert_eq!(
            diff(Some(&a), &b),
            vec![Event::NewLeader {
                leaders: vec!["乙".into(), "甲".into()],
                votes: 2.0
            }]
        );
        assert!(snapshot(&json!({"day": 1})).is_none());
    }
}
