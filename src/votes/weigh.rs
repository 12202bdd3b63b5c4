//! Tally phase 3: the weight of each counted ballot, rule by rule in file order (警长, 皇权,
//! 集群, 齐心, 异端处决, 赌徒/狼学者 status bonuses, 迷魂 zero), with the clause of each step.
//! Statuses whose effect the post never defines are named for the director, not guessed.

use std::collections::HashMap;

use super::tally::{Ballot, Ctx};
use crate::config::Event;
use crate::roster::Fact;
use crate::rules::vote::{Weight, WeightRule};

pub(super) fn weigh(cx: &Ctx, out: &mut [Ballot], counted: &[usize], notes: &mut Vec<String>) {
    let rules = cx.rules;
    let day = cx.day;
    let t_end = cx.t_state;
    let alive_end = cx.alive_end();
    let roles_end: HashMap<&str, Option<String>> = cx
        .roster
        .players
        .iter()
        .map(|p| (p.as_str(), cx.role_of(p, t_end)))
        .collect();
    let role_end = |name: &str| -> Option<&str> { roles_end.get(name).and_then(|r| r.as_deref()) };
    let alive_with_role = |role: &str| -> usize {
        alive_end
            .iter()
            .filter(|p| role_end(p) == Some(role))
            .count()
    };
    let sheriff = cx.sheriff_at(t_end);
    for &c in counted {
        let voter = out[c].voter.clone();
        let vrole = role_end(&voter).map(str::to_string);
        let vstat = cx.statuses(&voter);
        let mut w = Weight::ONE;
        let mut wn = Vec::new();
        let mut zero: Option<String> = None;
        for rule in &rules.weights {
            let cl = rule.clause();
            match rule {
                WeightRule::Sheriff { add, .. } => {
                    if sheriff == Some(voter.as_str()) {
                        let a = Weight::from_f64(*add).unwrap_or_default();
                        w += a;
                        wn.push(format!("警长 +{a}票 「{cl}」"));
                    }
                }
                WeightRule::Declared {
                    role, subordinates, ..
                } => {
                    if vrole.as_deref() != Some(role.as_str()) {
                        continue;
                    }
                    let declared = cx.cfg.events.iter().rev().find_map(|e| match e {
                        Event::VoteWeight {
                            day: d,
                            player,
                            weight,
                        } if *d == day && *player == voter => Some(*weight),
                        _ => None,
                    });
                    if let Some(dw) = declared {
                        let max = subordinates
                            .iter()
                            .map(|s| alive_with_role(s))
                            .sum::<usize>()
                            + 1;
                        if dw.fract() == 0.0 && dw >= 1.0 && dw <= max as f64 {
                            let nw = Weight::from_int(dw as i64);
                            w = w - Weight::ONE + nw;
                            wn.push(format!(
                                "{role}声明票数 {nw}（可选 1～{max}；暗记，不公示） 「{cl}」"
                            ));
                        } else {
                            notes.push(format!(
                                "{voter} 声明的票数 {dw} 无效，已忽略：须为 1～{max} 的整数（存活手下数 + 1） 「{cl}」"
                            ));
                        }
                    }
                }
                WeightRule::Group {
                    role,
                    min_alive,
                    add,
                    ..
                } => {
                    if vrole.as_deref() == Some(role.as_str()) {
                        let n = alive_with_role(role);
                        if n >= *min_alive {
                            let a = Weight::from_f64(*add).unwrap_or_default();
                            w += a;
                            wn.push(format!("{role}存活 {n} 人 +{a}票 「{cl}」"));
                        }
                    }
                }
                WeightRule::Pair {
                    roles,
                    add,
                    off_statuses,
                    off_clause,
                    ..
                } => {
                    if !vrole.as_ref().is_some_and(|r| roles.contains(r)) {
                        continue;
                    }
                    let my_target = &out[c].target;
                    if my_target.is_none() {
                        continue;
                    }
                    let all_same = roles.iter().all(|r| {
                        counted.iter().any(|&o| {
                            role_end(&out[o].voter) == Some(r.as_str())
                                && out[o].target == *my_target
                        })
                    });
                    if !all_same {
                        continue;
                    }
                    if let Some(s) = off_statuses.iter().find(|s| vstat.contains(&s.as_str())) {
                        let why = if off_clause.is_empty() {
                            cl
                        } else {
                            off_clause
                        };
                        wn.push(format!(
                            "【{s}】：失去[强制]技能，{}投同一对象的加票不生效 「{why}」",
                            roles.join("/")
                        ));
                        continue;
                    }
                    let a = Weight::from_f64(*add).unwrap_or_default();
                    w += a;
                    wn.push(format!("{}投同一对象 +{a}票 「{cl}」", roles.join("/")));
                }
                WeightRule::PerOut {
                    role, status, add, ..
                } => {
                    if vrole.as_deref() != Some(role.as_str()) {
                        continue;
                    }
                    let marked: Vec<&str> = cx
                        .roster
                        .statuses
                        .iter()
                        .filter(|(_, s, from, _)| s == status && *from <= day)
                        .map(|(p, _, _, _)| p.as_str())
                        .collect();
                    let n = cx
                        .roster
                        .facts
                        .iter()
                        .filter(|(at, f)| {
                            *at <= t_end
                                && matches!(f, Fact::Out { player, .. } if marked.contains(&player.as_str()))
                        })
                        .count() as i64;
                    if n > 0 {
                        let a = Weight(Weight::from_f64(*add).unwrap_or_default().0 * n);
                        w += a;
                        wn.push(format!("【{status}】已出局 {n} 人 +{a}票 「{cl}」"));
                    }
                }
                WeightRule::StatusAdd {
                    status,
                    add,
                    secret,
                    ..
                } => {
                    let k = vstat.iter().filter(|s| **s == status.as_str()).count() as i64;
                    if k > 0 {
                        let a = Weight(Weight::from_f64(*add).unwrap_or_default().0 * k);
                        w += a;
                        wn.push(format!(
                            "【{status}】×{k} +{a}票{} 「{cl}」",
                            if *secret {
                                "（导演暗记，不公示）"
                            } else {
                                ""
                            }
                        ));
                    }
                }
                WeightRule::StatusZero { status, .. } => {
                    if vstat.contains(&status.as_str()) {
                        zero = Some(format!("【{status}】：票数计 0 「{cl}」"));
                    }
                }
                WeightRule::StatusReceived { .. } => {}
            }
        }
        if let Some(z) = zero {
            w = Weight::ZERO;
            wn.push(z);
        }
        for s in rules
            .undefined_statuses
            .iter()
            .filter(|s| vstat.contains(&s.as_str()))
        {
            let cl = rules.clause("undefined-status");
            let msg = format!(
                "【{s}】：规则帖说「视为拥有对应警长的效果」，但没有定义这些效果，bansha 无法计算；本票暂按 {w} 票计入，请导演裁定 「{cl}」"
            );
            notes.push(format!(
                "{} {voter}{msg}",
                super::tally::where_(out[c].floor)
            ));
            wn.push(msg);
        }
        out[c].weight = w;
        out[c].weight_notes.extend(wn);
    }
}

/// `vote-weight` events of the day that no rule lets the player declare.
pub(super) fn ignored_declarations(cx: &Ctx, notes: &mut Vec<String>) {
    for e in &cx.cfg.events {
        if let Event::VoteWeight { day: d, player, .. } = e
            && *d == cx.day
        {
            let role = cx.role_of(player, cx.t_state);
            let declared_role = cx.rules.weights.iter().any(|w| {
                matches!(w, WeightRule::Declared { role: r, .. } if role.as_deref() == Some(r.as_str()))
            });
            if !declared_role {
                notes.push(format!(
                    "{player} 的 vote-weight 事件已忽略：本局没有允许该玩家声明票数的规则"
                ));
            }
        }
    }
}
