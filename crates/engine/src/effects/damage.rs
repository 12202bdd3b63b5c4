//! Deaths that are not attacks: `blast` (致死伤害 on the actor and seat neighbours),
//! `exorcise` (out if of a camp), and the `save-except` ward that stops every cause of going
//! out but the listed ones.

use serde::{Deserialize, Serialize};

use super::{Behaviour, kind, mark};
use crate::action::Action;
use crate::ctx::{Attack, Ctx, Flow};
use crate::rules::{Effect, SkillDef, Step};
use crate::state::Phase;

/// The target goes out this night by no cause except `causes` (灵族杀 救药: 「当晚不会因
/// <驱魔>、<灵散>之外的技能出局」): attacks, damage, poison and night shots all fail on it.
/// It also counts as a save for the kill checks.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SaveExcept {
    pub causes: Vec<String>,
}

/// 致死伤害 on the actor and on their two seat neighbours (ring, dead seats kept, never
/// skipped), except neighbours of `spare_camp`; settled by a `settle = "damage"` step,
/// the actor first, then the neighbours by seat. Not an attack: protections do not stop
/// it. `announce` is published (`{actor}` replaced) (自爆).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Blast {
    #[serde(default)]
    pub spare_camp: Option<String>,
    #[serde(default)]
    pub announce: Option<String>,
}

/// At the `settle = "exorcise"` step the target goes out if its true camp is `camp`; on
/// such a hit, with `refresh`, the actor's skill is back to its initial uses (驱魔).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Exorcise {
    pub camp: String,
    #[serde(default)]
    pub refresh: bool,
}

impl Behaviour for kind::SaveExcept {
    fn act(&self, cx: &mut Ctx, _def: &SkillDef, a: &Action) -> Flow {
        let kind::SaveExcept { causes } = self;

        mark(&mut cx.marks.saves, a);
        for t in &a.targets {
            cx.marks.wards.push((t.clone(), causes.clone()));
        }

        Ok(())
    }
}

impl Behaviour for kind::Blast {
    fn names(&self) -> Vec<(&'static str, &str)> {
        self.spare_camp
            .iter()
            .map(|c| ("camp", c.as_str()))
            .collect()
    }

    fn act(&self, cx: &mut Ctx, _def: &SkillDef, a: &Action) -> Flow {
        blast(cx, self, a);

        Ok(())
    }
}

impl Behaviour for kind::Exorcise {
    fn names(&self) -> Vec<(&'static str, &str)> {
        vec![("camp", &self.camp)]
    }

    fn act(&self, cx: &mut Ctx, _def: &SkillDef, a: &Action) -> Flow {
        mark(&mut cx.marks.exorcisms, a);

        Ok(())
    }
}

/// A `save-except` ward on `name` stops this out (night only): noted, and the caller does
/// not put the player out.
pub(crate) fn warded(cx: &mut Ctx, name: &str, cause: &str) -> bool {
    if cx.input.moment.phase != Phase::Night {
        return false;
    }
    let Some((_, allowed)) = cx.marks.wards.iter().find(|(t, _)| t == name) else {
        return false;
    };
    if allowed.iter().any(|c| c == cause) {
        return false;
    }
    let skill = cx
        .marks
        .saves
        .iter()
        .find(|m| m.target == name)
        .map(|m| m.skill.clone())
        .unwrap_or_default();
    let clause = cx.skill_clause(&skill);
    cx.note(
        format!("{name} 是<{skill}>的目标，当晚不会因{cause}出局"),
        &clause,
    );
    true
}

/// Mark a blast: the actor, then each seat neighbour (dead seats are not skipped, dead
/// players take nothing) not of `spare_camp`, by seat; publish `announce`.
pub(crate) fn blast(cx: &mut Ctx, eff: &kind::Blast, a: &Action) {
    let kind::Blast {
        spare_camp,
        announce,
    } = eff;
    let mut victims = vec![a.actor.clone()];
    if let Some((l, r)) = cx.st.neighbours(&a.actor) {
        let mut side: Vec<(u32, String)> = [l, r]
            .into_iter()
            .filter(|p| p.name != a.actor && p.alive())
            .filter(|p| spare_camp.is_none() || p.camp.as_ref() != spare_camp.as_ref())
            .map(|p| (p.seat, p.name.clone()))
            .collect();
        side.sort();
        side.dedup();
        victims.extend(side.into_iter().map(|(_, n)| n));
    }
    let clause = cx.skill_clause(&a.skill);
    cx.note(
        format!(
            "{} <{}>：{} 受到致死伤害",
            a.actor,
            a.skill,
            victims.join("、")
        ),
        &clause,
    );
    for v in victims {
        cx.marks.damages.push(Attack {
            target: v,
            actor: a.actor.clone(),
            skill: a.skill.clone(),
            step: cx.at.step.clone(),
            cause: a.skill.clone(),
        });
    }
    if let Some(t) = announce {
        cx.report.announcements.push(t.replace("{actor}", &a.actor));
    }
}

/// `settle = "damage"`: every marked 致死伤害 in order through the death path.
pub(crate) fn settle_damage(cx: &mut Ctx, step: &Step) -> Flow {
    for d in cx.marks.damages.clone() {
        let clause = cx
            .rules
            .causes
            .get(&d.cause)
            .cloned()
            .unwrap_or_else(|| step.clause.clone());
        cx.go_out(
            &d.target,
            &d.cause,
            Some(&d.actor)
                .filter(|a| **a != d.target)
                .map(|s| s.as_str()),
            &clause,
        )?;
        cx.check_losses();
    }
    Ok(())
}

/// `settle = "exorcise"`: each target of the effect's camp goes out; a hit refreshes the
/// actor's skill when the effect says so (even if the target was already out).
pub(crate) fn settle_exorcise(cx: &mut Ctx, step: &Step) -> Flow {
    for m in cx.marks.exorcisms.clone() {
        let Some(def) = cx.rules.skill(&m.skill) else {
            continue;
        };
        for eff in &def.effects {
            let Effect::Exorcise(kind::Exorcise { camp, refresh }) = eff else {
                continue;
            };
            let hit = cx.st.player(&m.target).and_then(|p| p.camp.as_deref()) == Some(camp);
            if !hit {
                cx.note(
                    format!("{} <{}> {}：不属于{camp}，无效", m.actor, m.skill, m.target),
                    &step.clause,
                );
                continue;
            }
            cx.go_out(&m.target, &m.skill, None, &step.clause)?;
            cx.check_losses();
            if *refresh
                && let Some(s) = cx
                    .st
                    .player_mut(&m.actor)
                    .and_then(|p| p.skills.get_mut(&m.skill))
            {
                s.uses_left = def.uses;
                s.lost = false;
                cx.note(
                    format!("{} 的<{}>刷新至初始状态", m.actor, m.skill),
                    &def.clause,
                );
                cx.tell(&m.actor, format!("<{}>已刷新至初始状态。", m.skill));
            }
        }
    }
    Ok(())
}
