//! A kill whose cost depends on the target's true camp (猎魔人 猎杀): it strikes only some
//! camps, other camps cost extra uses, and a hunter who overdraws takes 致死伤害.

use serde::{Deserialize, Serialize};

use super::{Behaviour, kind};
use crate::action::Action;
use crate::ctx::{Attack, Ctx, Flow};
use crate::rules::SkillDef;

/// Extra uses a target of one of `camps` costs.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ExtraCost {
    pub camps: Vec<String>,
    pub add: u32,
}

/// A final target whose true camp is in `strikes` is attacked (`cause`); a target of an
/// `extra` camp costs that many more uses. When the uses would go below zero the actor is
/// attacked with `overdraw_cause` (「若发动[猎杀]后次数为负数，猎魔人受到[致死伤害]」), with or
/// without a final target; both settle at the kills step under this skill.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct CostlyKill {
    pub strikes: Vec<String>,
    pub cause: String,
    #[serde(default)]
    pub extra: Vec<ExtraCost>,
    pub overdraw_cause: String,
}

impl Behaviour for kind::CostlyKill {
    fn names(&self) -> Vec<(&'static str, &str)> {
        self.strikes
            .iter()
            .chain(self.extra.iter().flat_map(|e| &e.camps))
            .map(|c| ("camp", c.as_str()))
            .collect()
    }

    fn act(&self, cx: &mut Ctx, def: &SkillDef, a: &Action) -> Flow {
        let mut extra = 0u32;
        for t in &a.targets {
            let camp = cx.st.player(t).and_then(|p| p.camp.clone());
            if camp.as_ref().is_some_and(|c| self.strikes.contains(c)) {
                attack(cx, a, t, &self.cause);
            }
            extra += self
                .extra
                .iter()
                .filter(|e| camp.as_ref().is_some_and(|c| e.camps.contains(c)))
                .map(|e| e.add)
                .sum::<u32>();
        }
        if extra == 0 {
            return Ok(());
        }
        let left = cx
            .st
            .player(&a.actor)
            .and_then(|p| p.skills.get(&a.skill))
            .and_then(|s| s.uses_left)
            .unwrap_or(0);
        if let Some(s) = cx
            .st
            .player_mut(&a.actor)
            .and_then(|p| p.skills.get_mut(&a.skill))
        {
            s.uses_left = Some(left.saturating_sub(extra));
        }
        cx.note(
            format!(
                "{} 的<{}>额外消耗{extra}次（剩余{}）",
                a.actor,
                a.skill,
                left.saturating_sub(extra)
            ),
            &def.clause,
        );
        if extra > left {
            let actor = a.actor.clone();
            cx.note(format!("{actor} 的<{}>次数为负数", a.skill), &def.clause);
            attack(cx, a, &actor, &self.overdraw_cause);
        }
        Ok(())
    }
}

fn attack(cx: &mut Ctx, a: &Action, target: &str, cause: &str) {
    cx.marks.attacks.push(Attack {
        target: target.to_string(),
        actor: a.actor.clone(),
        skill: a.skill.clone(),
        step: cx.at.step.clone(),
        cause: cause.to_string(),
    });
}
