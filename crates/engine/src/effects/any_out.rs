//! Passive skills that watch every player's out, whoever holds them: `out-counter`
//! (灵力 arithmetic), `sense-neighbours` (感魔), `follow-out` (灵散).

use serde::{Deserialize, Serialize};

use super::{Behaviour, kind};
use crate::ctx::{Ctx, Flow};
use crate::phase::Feedback;
use crate::rules::{CounterRule, Effect, Step};
use crate::state::Phase;

/// Passive: the holder owns `counter`, starting at `initial`; each time a player goes
/// out, every rule that matches the outgoing player (camp and role at that moment) adds
/// its amount. `public`: announced each morning (and at `announce-counters` steps) (驭灵).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct OutCounter {
    pub counter: String,
    pub initial: i64,
    #[serde(default)]
    pub public: bool,
    pub rules: Vec<CounterRule>,
}

/// Passive: when a player not of `unless_camp` goes out, the holder learns whether that
/// player's two seat neighbours (dead ones included) include a member of `camp`; told at
/// the end of the phase if the holder is still in the game (感魔).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SenseNeighbours {
    pub camp: String,
    #[serde(default)]
    pub unless_camp: Option<String>,
}

/// Passive: when a player of `role` goes out, the holder goes out too (cause = the
/// skill); at night at the `settle = "follow-out"` step if the night has one still to
/// come, otherwise at once (灵散).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct FollowOut {
    pub role: String,
}

impl Behaviour for kind::OutCounter {
    fn names(&self) -> Vec<(&'static str, &str)> {
        self.rules
            .iter()
            .flat_map(|r| {
                r.unless_camp
                    .as_deref()
                    .map(|c| ("camp", c))
                    .into_iter()
                    .chain(r.role.as_deref().map(|x| ("role", x)))
            })
            .collect()
    }
}

impl Behaviour for kind::SenseNeighbours {
    fn names(&self) -> Vec<(&'static str, &str)> {
        std::iter::once(("camp", self.camp.as_str()))
            .chain(self.unless_camp.as_deref().map(|c| ("camp", c)))
            .collect()
    }
}

impl Behaviour for kind::FollowOut {
    fn names(&self) -> Vec<(&'static str, &str)> {
        vec![("role", &self.role)]
    }
}

/// (holder, skill, effect) for every held, usable skill with an effect matching `pick`,
/// in seat order.
fn holders<'r>(cx: &Ctx<'r>, pick: fn(&Effect) -> bool) -> Vec<(String, String, &'r Effect)> {
    let mut v = Vec::new();
    for p in &cx.st.players {
        for (name, st) in &p.skills {
            if st.lost || st.uses_left == Some(0) {
                continue;
            }
            let Some(def) = cx.rules.skill(name) else {
                continue;
            };
            for e in def.effects.iter().filter(|e| pick(e)) {
                v.push((p.name.clone(), name.clone(), e));
            }
        }
    }
    v
}

/// Run every any-out watcher for `name`, who has just gone out (camp and role as of now).
pub(crate) fn on_any_out(cx: &mut Ctx, name: &str) -> Flow {
    let Some(out) = cx.st.player(name).cloned() else {
        return Ok(());
    };
    // 灵力 and the like
    for (holder, skill, eff) in holders(cx, |e| matches!(e, Effect::OutCounter(_))) {
        let Effect::OutCounter(kind::OutCounter { counter, rules, .. }) = eff else {
            continue;
        };
        for r in rules {
            let camp_ok = r
                .unless_camp
                .as_ref()
                .is_none_or(|c| out.camp.as_ref() != Some(c));
            let role_ok = r.role.as_ref().is_none_or(|x| *x == out.role);
            if !(camp_ok && role_ok) {
                continue;
            }
            let p = cx.st.player_mut(&holder).expect("holder exists");
            let v = p.counter(counter) + r.add;
            p.counters.insert(counter.clone(), v);
            cx.note(
                format!(
                    "{name} 出局，{holder} <{skill}> {counter} {:+} → {v}",
                    r.add
                ),
                &r.clause,
            );
        }
    }
    // 感魔
    for (holder, skill, eff) in holders(cx, |e| matches!(e, Effect::SenseNeighbours(_))) {
        let Effect::SenseNeighbours(kind::SenseNeighbours { camp, unless_camp }) = eff else {
            continue;
        };
        // a holder already out hears nothing more
        if holder == name
            || cx.st.player(&holder).is_none_or(|p| !p.alive())
            || unless_camp
                .as_ref()
                .is_some_and(|c| out.camp.as_ref() == Some(c))
        {
            continue;
        }
        let Some((l, r)) = cx.st.neighbours(name) else {
            continue;
        };
        let any = [l, r].iter().any(|p| p.camp.as_ref() == Some(camp));
        let text = format!(
            "<{skill}>：{name} 出局，其相邻位置（{}、{}）{}{camp}的角色。",
            l.name,
            r.name,
            if any { "有" } else { "没有" }
        );
        let clause = cx.skill_clause(&skill);
        cx.note(format!("{holder} {text}"), &clause);
        cx.report.senses.push(Feedback {
            player: holder,
            text,
            at: None,
        });
    }
    // 灵散: at once, unless the night still has its follow-out step to come
    let follows = holders(cx, |e| matches!(e, Effect::FollowOut(_)))
        .into_iter()
        .any(|(h, _, e)| {
            matches!(e, Effect::FollowOut(kind::FollowOut { role }) if *role == out.role)
                && cx.st.player(&h).is_some_and(|p| p.alive())
        });
    if follows {
        if cx.at.follow_step_ahead {
            cx.note(format!("{name} 出局，其追随者在灵散结算时出局"), "");
        } else {
            follow_out(cx, name)?;
        }
    }
    Ok(())
}

/// Every living holder of a `follow-out` skill for `leader`'s role goes out, by seat.
fn follow_out(cx: &mut Ctx, leader: &str) -> Flow {
    let Some(role) = cx.st.player(leader).map(|p| p.role.clone()) else {
        return Ok(());
    };
    let who: Vec<(String, String)> = holders(cx, |e| matches!(e, Effect::FollowOut(_)))
        .into_iter()
        .filter(
            |(_, _, e)| matches!(e, Effect::FollowOut(kind::FollowOut { role: r }) if *r == role),
        )
        .map(|(h, s, _)| (h, s))
        .filter(|(h, _)| cx.st.player(h).is_some_and(|p| p.alive()))
        .collect();
    for (h, skill) in who {
        let clause = cx.skill_clause(&skill);
        cx.go_out(&h, &skill, Some(leader), &clause)?;
        cx.check_losses();
    }
    Ok(())
}

/// `settle = "follow-out"`: for each player out whose role has followers, the followers go out.
pub(crate) fn settle_follow_out(cx: &mut Ctx, _step: &Step) -> Flow {
    let leaders: Vec<String> = cx
        .st
        .players
        .iter()
        .filter(|p| !p.alive())
        .map(|p| p.name.clone())
        .collect();
    for l in leaders {
        follow_out(cx, &l)?;
    }
    Ok(())
}

/// Tell the `sense-neighbours` feedback to holders still in the game (and not idle).
pub(crate) fn tell_senses(cx: &mut Ctx) {
    for f in std::mem::take(&mut cx.report.senses) {
        let alive = cx.st.player(&f.player).is_some_and(|p| p.alive());
        if alive && !cx.idle(&f.player) {
            cx.report.feedback.push(f);
        } else {
            cx.note(
                format!("{} 已出局或挂机，不再反馈：{}", f.player, f.text),
                "",
            );
        }
    }
}

/// The public counters as announcement lines: `{label}{holder's role}{counter}：{value}`,
/// for holders still in the game.
pub(crate) fn public_counters(cx: &Ctx, label: &str) -> Vec<String> {
    let mut v = Vec::new();
    for (holder, _, eff) in holders(cx, |e| {
        matches!(e, Effect::OutCounter(kind::OutCounter { public: true, .. }))
    }) {
        let Effect::OutCounter(kind::OutCounter { counter, .. }) = eff else {
            continue;
        };
        let Some(p) = cx.st.player(&holder) else {
            continue;
        };
        if p.alive() && cx.input.moment.phase != Phase::Day {
            v.push(format!(
                "{label}{}{counter}：{}",
                p.role,
                p.counter(counter)
            ));
        }
    }
    v
}

/// `settle = "announce-counters"`: publish the public counters now (黄昏后灵力).
pub(crate) fn announce_counters(cx: &mut Ctx, step: &Step) {
    let lines = public_counters(cx, step.label.as_deref().unwrap_or(""));
    for l in lines {
        cx.note(format!("公示：{l}"), &step.clause);
        cx.report.announcements.push(l);
    }
}
