//! Win and loss conditions: whether one holds for a camp, and who has won.

use crate::rules::{Condition, EngineRules, SimultaneousWin};
use crate::state::GameState;

/// Whether a win/loss condition holds for `camp` in `st`.
#[allow(clippy::only_used_in_recursion)]
pub fn holds(rules: &EngineRules, st: &GameState, camp: &str, c: &Condition) -> bool {
    let with_role = |roles: &[String]| {
        st.players
            .iter()
            .filter(|p| roles.contains(&p.role))
            .collect::<Vec<_>>()
    };
    match c {
        Condition::All { of, .. } => of.iter().all(|x| holds(rules, st, camp, x)),
        Condition::RolesOut { roles, .. } => with_role(roles).iter().all(|p| !p.alive()),
        Condition::RoleAlive { role, .. } => st.alive().any(|p| &p.role == role),
        Condition::NoneAlive {
            role,
            unless_status,
            ..
        } => !st
            .alive()
            .any(|p| &p.role == role && unless_status.as_deref().is_none_or(|s| !p.has_status(s))),
        Condition::MembersOut {
            camp: c2,
            not_roles,
            at_least,
            ..
        } => {
            let c2 = c2.as_deref().unwrap_or(camp);
            let members: Vec<_> = st
                .players
                .iter()
                .filter(|p| p.camp.as_deref() == Some(c2) && !not_roles.contains(&p.role))
                .collect();
            let out = members.iter().filter(|p| !p.alive()).count();
            match at_least {
                Some(n) => out >= *n as usize,
                None => out == members.len(),
            }
        }
        Condition::AliveOnly { roles, .. } => st.alive().all(|p| roles.contains(&p.role)),
        Condition::AfterNight { night, .. } => st.last_night.is_some_and(|n| n >= *night),
        Condition::PoolAllInCamp { role, min, .. } => {
            let pool: Vec<_> = st.alive().filter(|p| &p.role == role).collect();
            pool.len() >= *min as usize && pool.iter().all(|p| p.camp.as_deref() == Some(camp))
        }
        Condition::StatusShare {
            camps,
            not_roles,
            status,
            share,
            ..
        } => {
            let v: Vec<_> = st
                .alive()
                .filter(|p| {
                    p.camp.as_ref().is_some_and(|c| camps.contains(c))
                        && !not_roles.contains(&p.role)
                })
                .collect();
            let with = v.iter().filter(|p| p.has_status(status)).count();
            (with as f64) >= share * v.len() as f64
        }
        Condition::OutOrStatus { roles, status, .. } => with_role(roles)
            .iter()
            .all(|p| !p.alive() || p.has_status(status)),
        Condition::UniqueSmallestBelow { camps, below, .. } => {
            st.unique_smallest(camp, camps) && st.camp_size(camp) < *below as usize
        }
        Condition::CauseCount { cause, count, .. } => {
            let given: usize = st
                .players
                .iter()
                .filter(|p| p.camp.as_deref() == Some(camp))
                .filter_map(|p| p.out.as_ref())
                .map(|o| o.causes.iter().filter(|c| *c == cause).count())
                .sum();
            given >= (*count).max(1) as usize
        }
        Condition::CampsLost {
            camps, at_least, ..
        } => camps.iter().filter(|c| st.camps_lost.contains(c)).count() >= *at_least as usize,
        Condition::AllOut { roles, linker, .. } => {
            let mut members: Vec<&crate::state::PlayerState> = st
                .players
                .iter()
                .filter(|p| p.camp.as_deref() == Some(camp))
                .filter(|p| roles.is_empty() || roles.contains(&p.role))
                .collect();
            if let Some(kind) = linker
                && !roles.is_empty()
            {
                for l in st.links.iter().filter(|l| &l.kind == kind) {
                    let all = l
                        .members
                        .iter()
                        .all(|m| st.player(m).is_some_and(|p| roles.contains(&p.role)));
                    if all
                        && let Some(by) = l.by.as_deref().and_then(|b| st.player(b))
                        && by.camp.as_deref() == Some(camp)
                        && !members.iter().any(|m| m.name == by.name)
                    {
                        members.push(by);
                    }
                }
            }
            members.iter().all(|p| !p.alive())
        }
        Condition::AliveShare { share, .. } => {
            let total = st.alive().count();
            let mine = st
                .alive()
                .filter(|p| p.camp.as_deref() == Some(camp))
                .count();
            total > 0 && (mine as f64) >= share * total as f64
        }
        Condition::CounterAtLeast {
            counter,
            value,
            holder_role,
            ..
        } => match holder_role {
            None => st.counters.get(counter).copied().unwrap_or(0) >= *value,
            Some(r) => st
                .players
                .iter()
                .filter(|p| &p.role == r)
                .any(|p| p.counter(counter) >= *value),
        },
    }
}

/// The winner(s), if the game is over: camps not defeated that meet a win condition, or the
/// only camp not defeated.
pub fn winner(rules: &EngineRules, st: &GameState) -> Option<Vec<String>> {
    let standing: Vec<&crate::rules::CampDef> = rules
        .camps
        .iter()
        .filter(|c| !st.camps_lost.contains(&c.name))
        .filter(|c| formed(rules, st, &c.name))
        .filter(|c| !rules.individual_camps.contains(&c.name))
        .collect();
    // every camp defeated (e.g. the last wolf and the last 大特 out the same night): the game
    // is over and nobody wins
    if standing.is_empty() {
        return Some(Vec::new());
    }
    let mut won: Vec<String> = standing
        .iter()
        .filter(|c| c.win.iter().any(|w| holds(rules, st, &c.name, w)))
        .map(|c| c.name.clone())
        .collect();
    if won.is_empty() && standing.len() == 1 {
        won.push(standing[0].name.clone());
    }
    if won.is_empty() {
        return None;
    }
    if rules.simultaneous_win == SimultaneousWin::Later {
        won = vec![won.pop().expect("non-empty")];
    }
    Some(won)
}

/// Whether `camp` exists in this game: a role is dealt into it, or some player (in or out)
/// belongs to it. A camp only formed by an event (【黑情侣阵营】 from a mixed couple) that never
/// happened is neither standing nor defeated: nothing is judged or announced for it.
pub(crate) fn formed(rules: &EngineRules, st: &GameState, camp: &str) -> bool {
    rules.roles.iter().any(|r| r.camp.as_deref() == Some(camp))
        || st.players.iter().any(|p| p.camp.as_deref() == Some(camp))
}

/// The camps not yet recorded as defeated that meet one of their loss conditions in `st`.
pub(crate) fn losing(rules: &EngineRules, st: &GameState) -> Vec<String> {
    rules
        .camps
        .iter()
        .filter(|c| !st.camps_lost.contains(&c.name))
        .filter(|c| formed(rules, st, &c.name))
        .filter(|c| {
            let every: &[crate::rules::Condition] = if rules.individual_camps.contains(&c.name) {
                &[]
            } else {
                &rules.every_camp_lose
            };
            c.lose
                .iter()
                .chain(every)
                .any(|x| holds(rules, st, &c.name, x))
        })
        .map(|c| c.name.clone())
        .collect()
}
