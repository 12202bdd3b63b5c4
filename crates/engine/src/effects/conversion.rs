//! `convert`: a player becomes another role (and its camp), paying a counter; the new
//! role's `disguise` says whether the old skills stay and whom the convert learns.

use serde::{Deserialize, Serialize};

use super::{Behaviour, kind};
use crate::action::Action;
use crate::ctx::{Ctx, Flow};
use crate::rules::{Effect, EngineRules, SkillDef};
use crate::state::{GameState, SkillState};

/// The target becomes `role` (and that role's camp), gaining its skills; what the old
/// skills become is the new role's `disguise`. With `cost_counter`, the actor must hold
/// at least `cost` of it and spends it. `tell_actor_old_role`: the actor learns the
/// target's old role (驱灵).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Convert {
    pub role: String,
    #[serde(default)]
    pub cost_counter: Option<String>,
    #[serde(default)]
    pub cost: i64,
    #[serde(default)]
    pub tell_actor_old_role: bool,
}

/// Passive, read when its holder is converted into the role holding it: `keep_skills`
/// keeps every old skill and shows the old role to investigations (apparent role);
/// `reveal_role`: the holder learns who holds that role (伪装).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Disguise {
    #[serde(default)]
    pub keep_skills: bool,
    #[serde(default)]
    pub reveal_role: Option<String>,
}

impl Behaviour for kind::Convert {
    /// The actor must hold the cost; a target already of the role or its camp is refused.
    fn precheck(&self, rules: &EngineRules, st: &GameState, a: &Action) -> Result<(), String> {
        let kind::Convert {
            role,
            cost_counter,
            cost,
            ..
        } = self;
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
        Ok(())
    }

    fn names(&self) -> Vec<(&'static str, &str)> {
        vec![("role", &self.role)]
    }

    fn act(&self, cx: &mut Ctx, _def: &SkillDef, a: &Action) -> Flow {
        convert(cx, self, a);

        Ok(())
    }
}

impl Behaviour for kind::Disguise {
    fn names(&self) -> Vec<(&'static str, &str)> {
        self.reveal_role
            .iter()
            .map(|r| ("role", r.as_str()))
            .collect()
    }
}

/// Apply a conversion (validated by its `precheck`).
pub(crate) fn convert(cx: &mut Ctx, eff: &kind::Convert, a: &Action) {
    let kind::Convert {
        role,
        cost_counter,
        cost,
        tell_actor_old_role,
    } = eff;
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
                if let Effect::Disguise(kind::Disguise {
                    keep_skills,
                    reveal_role,
                }) = e
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
