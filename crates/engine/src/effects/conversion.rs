//! `convert`: a player becomes another role (and its camp), paying a counter; the new
//! role's `disguise` says whether the old skills stay and whom the convert learns.

use crate::action::Action;
use crate::ctx::Ctx;
use crate::rules::{Effect, EngineRules, SkillDef};
use crate::state::{GameState, SkillState};

/// Checks made before anything resolves: the actor can pay, the target is not already of
/// the new role's camp.
pub(crate) fn precheck_convert(
    rules: &EngineRules,
    st: &GameState,
    def: &SkillDef,
    a: &Action,
) -> Result<(), String> {
    for eff in &def.effects {
        let Effect::Convert {
            role,
            cost_counter,
            cost,
            ..
        } = eff
        else {
            continue;
        };
        if let (Some(c), Some(p)) = (cost_counter, st.player(&a.actor))
            && p.counter(c) < *cost
        {
            return Err(format!(
                "{}只有{}点{c}，<{}>需要{cost}点{c}",
                a.actor,
                p.counter(c),
                a.skill
            ));
        }
        let camp = rules.role(role).and_then(|r| r.camp.clone());
        for t in &a.targets {
            let Some(p) = st.player(t) else { continue };
            if p.role == *role || (camp.is_some() && p.camp == camp) {
                return Err(format!(
                    "{t} 已属于{}，不能再成为{role}",
                    camp.clone().unwrap_or_else(|| role.clone())
                ));
            }
        }
    }
    Ok(())
}

/// Apply a conversion (validated by `precheck_convert`).
pub(crate) fn convert(cx: &mut Ctx, eff: &Effect, a: &Action) {
    let Effect::Convert {
        role,
        cost_counter,
        cost,
        tell_actor_old_role,
    } = eff
    else {
        return;
    };
    let Some(new_role) = cx.rules.role(role).cloned() else {
        return;
    };
    if let Some(c) = cost_counter
        && let Some(p) = cx.st.player_mut(&a.actor)
    {
        let v = p.counter(c) - cost;
        p.counters.insert(c.clone(), v);
        let clause = cx.skill_clause(&a.skill);
        cx.note(format!("{} 花费{cost}点{c}（剩余{v}）", a.actor,), &clause);
    }
    // what the new role's passive `disguise` says
    let mut keep = false;
    let mut reveal: Option<(String, String)> = None;
    for s in &new_role.skills {
        if let Some(d) = cx.rules.skill(s) {
            for e in &d.effects {
                if let Effect::Disguise {
                    keep_skills,
                    reveal_role,
                } = e
                {
                    keep |= *keep_skills;
                    if let Some(r) = reveal_role {
                        reveal = Some((s.clone(), r.clone()));
                    }
                }
            }
        }
    }
    for t in &a.targets {
        let Some(p) = cx.st.player_mut(t) else {
            continue;
        };
        let old = p.role.clone();
        if keep {
            p.apparent_role.get_or_insert(old.clone());
        } else {
            p.skills.clear();
            p.apparent_role = None;
        }
        p.role = new_role.name.clone();
        p.camp = new_role.camp.clone();
        for s in &new_role.skills {
            let uses = cx.rules.skill(s).and_then(|d| d.uses);
            p.skills.entry(s.clone()).or_insert(SkillState {
                uses_left: uses,
                lost: false,
                granted: true,
            });
        }
        let clause = cx.skill_clause(&a.skill);
        cx.note(
            format!(
                "{} <{}>：{t}（原身份 {old}）成为{}",
                a.actor, a.skill, new_role.name
            ),
            &clause,
        );
        if *tell_actor_old_role {
            cx.tell(
                &a.actor,
                format!(
                    "<{}>：{t} 成为{}，其原有身份为 {old}。",
                    a.skill, new_role.name
                ),
            );
        }
        let mut text = format!("你成为{}。", new_role.name);
        if let Some((skill, r)) = &reveal {
            let who: Vec<String> = cx
                .st
                .players
                .iter()
                .filter(|p| p.role == *r)
                .map(|p| p.name.clone())
                .collect();
            text.push_str(&format!("<{skill}>：{r}是 {}。", who.join("、")));
        }
        if keep {
            text.push_str("你保留原身份的全部技能。");
        }
        cx.tell(t, text);
    }
}
