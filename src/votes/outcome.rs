//! Tally phase 5: the outcome by the day's mode — the 警长 elected, the player voted out, or
//! none — with the election tie rule, the elimination tie-breaks in order, 平安日 statuses,
//! the majority threshold, and a status that cancels the day's vote.

use std::collections::HashMap;

use super::tally::{Ballot, Ctx, Outcome, OutcomeKind};
use super::totals::Totals;
use crate::model::Timestamp;
use crate::rules::vote::{ElectionTie, Mode, TieBreak, Weight};

pub(super) fn outcome(cx: &Ctx, out: &[Ballot], counted: &[usize], t: &Totals) -> Outcome {
    let rules = cx.rules;
    let day = cx.day;
    let totals = &t.list;
    let none = |via: String, clause: &str, tied: Vec<String>| Outcome {
        kind: OutcomeKind::None,
        player: None,
        via,
        clause: clause.to_string(),
        tied,
    };
    // A status that cancels the day's vote (骑士<决斗> on a 狼人阵营 target).
    for s in &rules.cancel_statuses {
        if let Some(p) = cx
            .roster
            .players
            .iter()
            .find(|p| cx.statuses(p).contains(&s.as_str()))
        {
            return none(
                format!("{p} 带有【{s}】：当天投票取消，无人因投票出局"),
                rules.clause("vote-cancelled"),
                vec![],
            );
        }
    }
    let top = totals.first().map(|t| t.votes).unwrap_or_default();
    let tops: Vec<String> = if top > Weight::ZERO {
        totals
            .iter()
            .filter(|t| t.votes == top)
            .map(|t| t.target.clone())
            .collect()
    } else {
        Vec::new()
    };
    match cx.mode {
        Mode::Election => {
            let cl = rules.clause("election");
            if tops.is_empty() {
                none("无人投票：无人当选警长".into(), cl, vec![])
            } else if tops.len() == 1 {
                Outcome {
                    kind: OutcomeKind::Elected,
                    player: Some(tops[0].clone()),
                    via: format!("得票最高（{top}票）"),
                    clause: cl.into(),
                    tied: vec![],
                }
            } else {
                match rules.election_tie {
                    ElectionTie::FirstToReach => {
                        let w = first_to_reach(out, &t.received, &tops, top);
                        Outcome {
                            kind: OutcomeKind::Elected,
                            player: Some(w.clone()),
                            via: format!("{} 平票（{top}票）：{w} 先达到该票数", tops.join("、")),
                            clause: cl.into(),
                            tied: tops,
                        }
                    }
                    ElectionTie::None => none(
                        format!("{} 平票（{top}票）：本局无警长", tops.join("、")),
                        cl,
                        tops,
                    ),
                }
            }
        }
        Mode::Elimination => {
            let cl = rules.clause("elimination");
            if tops.is_empty() {
                none("无人投票：无人出局".into(), cl, vec![])
            } else if tops.len() == 1 {
                let p = &tops[0];
                let st = cx.statuses(p);
                if let Some(s) = rules
                    .survive_statuses
                    .iter()
                    .find(|s| st.contains(&s.as_str()))
                {
                    none(
                        format!("{p} 得票最高（{top}票），但带有【{s}】：平安日"),
                        rules.clause("survive"),
                        vec![],
                    )
                } else {
                    Outcome {
                        kind: OutcomeKind::Eliminated,
                        player: Some(p.clone()),
                        via: format!("得票最高（{top}票）"),
                        clause: cl.into(),
                        tied: vec![],
                    }
                }
            } else {
                tie_break(cx, out, counted, &tops, top)
            }
        }
        Mode::Majority => {
            let cl = rules.clause("majority");
            let n = cx.alive_end().len() as i64;
            let mut o = match totals.first() {
                Some(t) if t.votes.0 * 2 > n * 10 => Outcome {
                    kind: OutcomeKind::Eliminated,
                    player: Some(t.target.clone()),
                    via: format!("{} 得 {}票，超过存活 {n} 人的半数", t.target, t.votes),
                    clause: cl.into(),
                    tied: vec![],
                },
                Some(t) => none(
                    format!(
                        "公决失败：最高票（{} {}票）未超过存活 {n} 人的半数",
                        t.target, t.votes
                    ),
                    cl,
                    vec![],
                ),
                None => none(format!("公决失败：存活 {n} 人中无人投票"), cl, vec![]),
            };
            if o.kind == OutcomeKind::None && rules.last_day == Some(day) {
                o.via
                    .push_str(&format!("；第{day}天是最后一天，公决必须成功"));
                o.clause = rules.clause("last-day").into();
            }
            o
        }
    }
}

/// Election tie: the tied player whose counting ballots first made up the highest count
/// (ballots later replaced by a 改票 do not count towards reaching it).
fn first_to_reach(
    out: &[Ballot],
    received: &HashMap<String, Weight>,
    tops: &[String],
    top: Weight,
) -> String {
    let mut best: Option<((Timestamp, u32), &String)> = None;
    for t in tops {
        let mut run = received.get(t).copied().unwrap_or_default();
        let mut reached = if run >= top {
            Some((Timestamp::MIN, 0))
        } else {
            None
        };
        for b in out
            .iter()
            .filter(|b| b.valid && b.target.as_ref() == Some(t))
        {
            if reached.is_some() {
                break;
            }
            run += b.weight;
            if run >= top {
                reached = Some((b.ts, b.floor.unwrap_or(u32::MAX)));
            }
        }
        if let Some(r) = reached
            && best.is_none_or(|(br, _)| r < br)
        {
            best = Some((r, t));
        }
    }
    best.map(|(_, t)| t.clone())
        .unwrap_or_else(|| tops[0].clone())
}

fn tie_break(cx: &Ctx, out: &[Ballot], counted: &[usize], tops: &[String], top: Weight) -> Outcome {
    let rules = cx.rules;
    let t_end = cx.t_state;
    let sheriff = cx.sheriff_at(t_end);
    let tie = format!("{} 平票（{top}票）", tops.join("、"));
    for tb in &rules.tie_breaks {
        match tb {
            TieBreak::RoleOut {
                role,
                skill,
                lost_status,
                clause,
            } => {
                let who = cx.alive_end().into_iter().find(|p| {
                    cx.role_of(p, t_end).as_deref() == Some(role.as_str())
                        && !lost_status
                            .as_ref()
                            .is_some_and(|s| cx.statuses(p).contains(&s.as_str()))
                });
                if let Some(p) = who {
                    return Outcome {
                        kind: OutcomeKind::Eliminated,
                        player: Some(p.to_string()),
                        via: format!("{tie}：{role}<{skill}>，改由 {p} 出局"),
                        clause: clause.clone(),
                        tied: tops.to_vec(),
                    };
                }
            }
            TieBreak::SheriffTarget { clause } => {
                let Some(s) = sheriff else { continue };
                let sb = counted.iter().map(|&c| &out[c]).find(|b| b.voter == s);
                if let Some(Ballot {
                    target: Some(t), ..
                }) = sb
                {
                    return Outcome {
                        kind: OutcomeKind::Eliminated,
                        player: Some(t.clone()),
                        via: format!("{tie}：警长 {s} 的有效票投给了 {t}"),
                        clause: clause.clone(),
                        tied: tops.to_vec(),
                    };
                }
            }
            TieBreak::Nobody { clause } => {
                return Outcome {
                    kind: OutcomeKind::None,
                    player: None,
                    via: format!("{tie}：无人出局"),
                    clause: clause.clone(),
                    tied: tops.to_vec(),
                };
            }
        }
    }
    Outcome {
        kind: OutcomeKind::None,
        player: None,
        via: format!("{tie}：没有适用的平票规则，无人出局"),
        clause: rules.clause("elimination").to_string(),
        tied: tops.to_vec(),
    }
}
