//! Traps and night-wide modifiers: `burn` (a lasting status on specials of a camp who used a
//! skill on the target), `retaliate` (an attack on whoever not of the actor's camp used a
//! skill on the target), `attacks-as-poison`, `hunt`, and the kill/poison checks they feed.

use serde::{Deserialize, Serialize};

use super::{Behaviour, kind, mark};
use crate::action::Action;
use crate::ctx::{Attack, Ctx, Flow, Mark};
use crate::rules::{Effect, SkillDef, Step};
use crate::state::Status;

/// A trap on the target: every special (role not `not_role`) of `camp` that used a
/// skill on the target this night gets `status` (lasting); the status holders and every
/// member of the actor's camp are told (劫火).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Burn {
    pub camp: String,
    pub status: String,
    #[serde(default)]
    pub not_role: Option<String>,
}

/// A trap on the target: every player not of the actor's camp who used a skill on the
/// target this night is attacked by the actor, after the night's other attacks (业炎).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Retaliate {}

/// Tonight every attack by the actor's camp settles as a poison, first in the poison
/// order; 通灵-like feedback still sees it (摧坚).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct AttacksAsPoison {}

/// The target of `camp`: the actor loses this skill and is told; any other target takes
/// a poison, settled in the poison order under this skill (狩猎).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Hunt {
    pub camp: String,
}

impl Behaviour for kind::Burn {
    fn names(&self) -> Vec<(&'static str, &str)> {
        std::iter::once(("camp", self.camp.as_str()))
            .chain(self.not_role.as_deref().map(|r| ("role", r)))
            .collect()
    }

    fn act(&self, cx: &mut Ctx, _def: &SkillDef, a: &Action) -> Flow {
        mark(&mut cx.marks.traps, a);

        Ok(())
    }
}

impl Behaviour for kind::Retaliate {
    fn act(&self, cx: &mut Ctx, _def: &SkillDef, a: &Action) -> Flow {
        mark(&mut cx.marks.traps, a);

        Ok(())
    }
}

impl Behaviour for kind::AttacksAsPoison {
    fn act(&self, cx: &mut Ctx, _def: &SkillDef, a: &Action) -> Flow {
        let camp = cx.st.player(&a.actor).and_then(|p| p.camp.clone());
        if let Some(c) = camp {
            cx.marks.poison_camps.push((c, a.skill.clone()));
        }

        Ok(())
    }
}

impl Behaviour for kind::Hunt {
    fn names(&self) -> Vec<(&'static str, &str)> {
        vec![("camp", &self.camp)]
    }

    fn act(&self, cx: &mut Ctx, _def: &SkillDef, a: &Action) -> Flow {
        let kind::Hunt { camp } = self;

        hunt(cx, camp, a);

        Ok(())
    }
}

/// The skill uses of this night that chose `target` (void ones excluded), in order: (actor,
/// checkpoint of the use).
fn used_on(cx: &Ctx, target: &str) -> Vec<(String, Option<String>)> {
    cx.marks
        .used
        .iter()
        .filter(|u| !u.void && u.targets.iter().any(|t| t == target))
        .map(|u| (u.actor.clone(), u.at.clone()))
        .collect()
}

/// `settle = "traps"`: every `burn` trap, then every `retaliate` trap, in marking order.
pub(crate) fn settle_traps(cx: &mut Ctx, _step: &Step) -> Flow {
    let traps = cx.marks.traps.clone();
    for kind_burn in [true, false] {
        for m in &traps {
            let Some(def) = cx.rules.skill(&m.skill) else {
                continue;
            };
            let clause = def.clause.clone();
            let actor_camp = cx.st.player(&m.actor).and_then(|p| p.camp.clone());
            for eff in &def.effects {
                match eff {
                    Effect::Burn(kind::Burn {
                        camp,
                        status,
                        not_role,
                    }) if kind_burn => {
                        // each burned player with the checkpoint of the use that burned
                        // them: the notice is released then (Q2「在30分告知…被烧伤的守卫」)
                        let mut hit: Vec<(String, Option<String>)> = Vec::new();
                        for (u, at) in used_on(cx, &m.target) {
                            let Some(p) = cx.st.player(&u) else { continue };
                            if p.camp.as_deref() != Some(camp.as_str())
                                || not_role.as_deref() == Some(p.role.as_str())
                                || hit.iter().any(|(h, _)| *h == u)
                            {
                                continue;
                            }
                            hit.push((u, at));
                        }
                        for (u, at) in hit {
                            let p = cx.st.player_mut(&u).expect("exists");
                            if !p.has_status(status) {
                                p.statuses.push(Status {
                                    name: status.clone(),
                                    until_day: None,
                                });
                            }
                            cx.note(
                                format!(
                                    "{u} 对<{}>的目标 {} 使用了技能，被{status}",
                                    m.skill, m.target
                                ),
                                &clause,
                            );
                            let told: Vec<String> = cx
                                .st
                                .alive()
                                // 「所有手下人与那个特权」/E3「该特权和所有狼」: the
                                // actor's camp's specials, not its pool (not_role)
                                .filter(|p| p.camp == actor_camp && p.name != u)
                                .filter(|p| not_role.as_deref() != Some(p.role.as_str()))
                                .map(|p| p.name.clone())
                                .chain(std::iter::once(u.clone()))
                                .collect();
                            for w in told {
                                cx.tell_at(&w, format!("[{u}被{status}了]"), at.clone());
                            }
                        }
                    }
                    Effect::Retaliate(_) if !kind_burn => {
                        let mut hit: Vec<String> = Vec::new();
                        for (u, _) in used_on(cx, &m.target) {
                            let p = cx.st.player(&u).expect("exists");
                            if p.camp == actor_camp || u == m.actor || hit.contains(&u) {
                                continue;
                            }
                            hit.push(u);
                        }
                        for u in hit {
                            cx.note(
                                format!(
                                    "{u} 对<{}>的目标 {} 使用了技能，{} 对其指杀",
                                    m.skill, m.target, m.actor
                                ),
                                &clause,
                            );
                            cx.marks.attacks.push(Attack {
                                target: u,
                                actor: m.actor.clone(),
                                skill: m.skill.clone(),
                                step: cx.at.step.clone(),
                                cause: "指杀".into(),
                            });
                        }
                    }
                    _ => {}
                }
            }
        }
    }
    Ok(())
}

/// `hunt`: a target of `camp` costs the actor this skill (told); any other takes a poison.
pub(crate) fn hunt(cx: &mut Ctx, camp: &str, a: &Action) {
    let Some(t) = a.targets.first() else { return };
    let clause = cx.skill_clause(&a.skill);
    let is = cx.st.player(t).and_then(|p| p.camp.as_deref()) == Some(camp);
    if is {
        if let Some(s) = cx
            .st
            .player_mut(&a.actor)
            .and_then(|p| p.skills.get_mut(&a.skill))
        {
            s.lost = true;
        }
        if let Some(u) = cx.marks.used.last_mut() {
            u.void = true;
        }
        cx.note(
            format!("{t} 属于{camp}，{} 失去<{}>", a.actor, a.skill),
            &clause,
        );
        cx.tell(
            &a.actor,
            format!("<{}>：{t} 属于{camp}，你失去<{}>。", a.skill, a.skill),
        );
    } else {
        cx.marks.poisons.push(Mark {
            target: t.clone(),
            actor: a.actor.clone(),
            skill: a.skill.clone(),
        });
    }
}

/// Whether `name` holds a usable skill with an effect matching `f`: (skill).
pub(crate) fn holds_effect(cx: &Ctx, name: &str, f: impl Fn(&Effect) -> bool) -> Option<String> {
    let p = cx.st.player(name)?;
    p.skills
        .iter()
        .filter(|(_, s)| !s.lost)
        .find(|(k, _)| cx.rules.skill(k).is_some_and(|d| d.effects.iter().any(&f)))
        .map(|(k, _)| k.clone())
}

/// The burn statuses the rule set declares.
pub(crate) fn burned(cx: &Ctx, name: &str) -> Option<String> {
    let p = cx.st.player(name)?;
    cx.rules.skills.values().find_map(|d| {
        d.effects.iter().find_map(|e| match e {
            Effect::Burn(kind::Burn { status, .. }) if p.has_status(status) => Some(status.clone()),
            _ => None,
        })
    })
}

/// The sort key of a source (`skill` / `skill@camp`) in a step's `order`.
pub(crate) fn order_key(cx: &Ctx, step: &Step, skill: &str, actor: &str) -> usize {
    let camp = cx
        .st
        .player(actor)
        .and_then(|p| p.camp.clone())
        .unwrap_or_default();
    step.order
        .iter()
        .position(|o| match o.split_once('@') {
            Some((s, c)) => s == skill && c == camp,
            None => o == skill,
        })
        .unwrap_or(step.order.len())
}
