//! `recruit`: leaders name candidates; each still of the pool role fills the next empty slot
//! (a subordinate role), in the rule set's combined `recruit_order`; the skill passes down
//! the slot order when its holder goes out.

use serde::{Deserialize, Serialize};

use super::{Behaviour, OwnOut, kind};
use crate::action::Action;
use crate::ctx::{Ctx, Flow};
use crate::rules::{Effect, SkillDef};
use crate::state::SkillState;

/// Start/night: the actor names candidates in order; each still of `from_role` (and, at
/// night, of the actor's camp — any camp when the actor's camp is the unique smallest of
/// `smallest_of`, not counting lost camps; never a player whose camp's `immune_status`
/// holds) fills the next empty slot of `into`, in `recruit_order` across every recruiter
/// of the step. At night only a slot whose holder is out is empty. The recruit gets the
/// slot role's skills when the actor's role is in `full_roles` (else none: a blank), with
/// the previous holder's uses when `inherit_uses`, fresh ones otherwise. When the holder
/// of this skill goes out, it passes to the first living holder of `into` (征召).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Recruit {
    pub from_role: String,
    pub into: Vec<String>,
    #[serde(default)]
    pub full_roles: Vec<String>,
    #[serde(default)]
    pub inherit_uses: bool,
    #[serde(default)]
    pub smallest_of: Vec<String>,
    #[serde(default)]
    pub immune_status: Option<String>,
}

/// The actor becomes `role` (its skills and camp) (起义).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct BecomeRole {
    pub role: String,
}

impl Behaviour for kind::Recruit {
    fn names(&self) -> Vec<(&'static str, &str)> {
        std::iter::once(("role", self.from_role.as_str()))
            .chain(
                self.into
                    .iter()
                    .chain(&self.full_roles)
                    .map(|r| ("role", r.as_str())),
            )
            .chain(self.smallest_of.iter().map(|c| ("camp", c.as_str())))
            .collect()
    }

    fn act(&self, cx: &mut Ctx, _def: &SkillDef, a: &Action) -> Flow {
        queue(cx, a);

        Ok(())
    }

    fn fires_on_out(&self) -> bool {
        true
    }

    fn on_own_out(&self, cx: &mut Ctx, o: &OwnOut) -> Flow {
        let OwnOut { name, skill, .. } = *o;

        pass_on(cx, name, skill)?;

        Ok(())
    }
}

impl Behaviour for kind::BecomeRole {
    fn names(&self) -> Vec<(&'static str, &str)> {
        vec![("role", &self.role)]
    }

    fn act(&self, cx: &mut Ctx, def: &SkillDef, a: &Action) -> Flow {
        let kind::BecomeRole { role } = self;

        convert_into(cx, &a.actor, role, true, false);
        let camp = cx.st.player(&a.actor).and_then(|p| p.camp.clone());
        cx.note(format!("{} 变为{role}", a.actor), &def.clause);
        cx.tell(
            &a.actor,
            format!("你变为{role}（{}）。", camp.unwrap_or_default()),
        );

        Ok(())
    }
}

/// The `recruit` effect of a skill, if it has one.
fn recruit_of<'r>(cx: &Ctx<'r>, skill: &str) -> Option<&'r Effect> {
    cx.rules
        .skill(skill)?
        .effects
        .iter()
        .find(|e| matches!(e, Effect::Recruit(_)))
}

/// Fill the slots from every recruit action of this step, in `recruit_order`.
pub(crate) fn settle_recruits(cx: &mut Ctx) {
    let pending = std::mem::take(&mut cx.marks.recruits);
    if pending.is_empty() {
        return;
    }
    let night = cx.input.moment.day > 0;
    // slot roles in the combined order, then any not listed, per recruiter
    let mut slots: Vec<(String, usize)> = Vec::new();
    let mut all_roles: Vec<String> = cx.rules.recruit_order.clone();
    for a in &pending {
        if let Some(Effect::Recruit(kind::Recruit { into, .. })) = recruit_of(cx, &a.skill) {
            for r in into {
                if !all_roles.contains(r) {
                    all_roles.push(r.clone());
                }
            }
        }
    }
    for role in &all_roles {
        if let Some(i) = pending.iter().position(|a| {
            matches!(recruit_of(cx, &a.skill), Some(Effect::Recruit(kind::Recruit { into, .. })) if into.contains(role))
                && cx.st.player(&a.actor).and_then(|p| p.camp.clone())
                    == cx.rules.role(role).and_then(|r| r.camp.clone())
        }) {
            slots.push((role.clone(), i));
        }
    }
    let mut next: Vec<usize> = vec![0; pending.len()];
    let mut filled_by: Vec<Vec<String>> = vec![Vec::new(); pending.len()];
    for (role, i) in slots {
        let a = &pending[i];
        let Some(Effect::Recruit(kind::Recruit {
            from_role,
            full_roles,
            inherit_uses,
            smallest_of,
            immune_status,
            ..
        })) = recruit_of(cx, &a.skill).cloned()
        else {
            continue;
        };
        let occupied = cx.st.alive().any(|p| p.role == role);
        if occupied {
            continue;
        }
        if night && !filled_by[i].is_empty() {
            continue; // one recruit a night
        }
        let actor = cx.st.player(&a.actor).cloned().expect("validated");
        let clause = cx.skill_clause(&a.skill);
        let any_camp = actor
            .camp
            .as_deref()
            .is_some_and(|c| cx.st.unique_smallest(c, &smallest_of));
        while next[i] < a.targets.len() {
            let t = a.targets[next[i]].clone();
            next[i] += 1;
            if night {
                next[i] = a.targets.len(); // 「选择一名角色」: one try a night
            }
            let Some(p) = cx.st.player(&t).cloned() else {
                continue;
            };
            if !p.alive() || p.role != from_role {
                cx.note(
                    format!("{} <{}> {t}：不是{from_role}，征召不成功", a.actor, a.skill),
                    &clause,
                );
                continue;
            }
            if night && p.camp != actor.camp {
                let immune = immune_status.as_deref().is_some_and(|s| p.has_status(s));
                if !any_camp || immune {
                    cx.note(
                        format!(
                            "{} <{}> {t}：{}，征召不成功",
                            a.actor,
                            a.skill,
                            if immune {
                                "该乱世流民免疫其他阵营的征召"
                            } else {
                                "不是本阵营的乱世流民"
                            }
                        ),
                        &clause,
                    );
                    continue;
                }
            }
            convert_into(
                cx,
                &t,
                &role,
                full_roles.contains(&actor.role),
                inherit_uses,
            );
            filled_by[i].push(t.clone());
            cx.note(
                format!("{} <{}>：{t} 成为{role}", a.actor, a.skill),
                &clause,
            );
            cx.tell(&t, format!("你被征召，成为{role}。"));
            break;
        }
    }
    for (i, a) in pending.iter().enumerate() {
        let who = &filled_by[i];
        if who.is_empty() {
            cx.tell(&a.actor, format!("<{}>：没有角色被征召。", a.skill));
        } else {
            cx.tell(
                &a.actor,
                format!("<{}>：你的新手下：{}。", a.skill, who.join("、")),
            );
        }
    }
}

/// `name` becomes `role` (and its camp): the role's skills when `skills`, with the previous
/// holder's uses when `inherit`, fresh otherwise; none at all when not `skills` (a blank).
pub(crate) fn convert_into(cx: &mut Ctx, name: &str, role: &str, skills: bool, inherit: bool) {
    let Some(def) = cx.rules.role(role).cloned() else {
        return;
    };
    let previous = cx
        .st
        .players
        .iter()
        .filter(|p| p.role == role && !p.alive())
        .max_by_key(|p| p.out.as_ref().map_or(0, |o| o.order))
        .cloned();
    let mut map = std::collections::BTreeMap::new();
    if skills {
        for s in &def.skills {
            let fresh = cx.rules.skill(s).and_then(|d| d.uses);
            let st = match (&previous, inherit) {
                (Some(prev), true) => prev.skills.get(s).cloned().unwrap_or(SkillState {
                    uses_left: fresh,
                    lost: false,
                    granted: false,
                }),
                _ => SkillState {
                    uses_left: fresh,
                    lost: false,
                    granted: false,
                },
            };
            map.insert(s.clone(), st);
        }
    }
    let p = cx.st.player_mut(name).expect("exists");
    p.role = def.name.clone();
    p.camp = def.camp.clone();
    p.skills = map;
}

/// Queue a recruit action (filled at the end of its step, all recruiters together).
pub(crate) fn queue(cx: &mut Ctx, a: &Action) {
    cx.marks.recruits.push(a.clone());
}

/// On going out, the recruit skill passes to the first living slot holder of the holder's camp.
pub(crate) fn pass_on(cx: &mut Ctx, name: &str, skill: &str) -> Flow {
    let Some(Effect::Recruit(kind::Recruit { into, .. })) = recruit_of(cx, skill).cloned() else {
        return Ok(());
    };
    let camp = cx.st.player(name).and_then(|p| p.camp.clone());
    let heir = into.iter().find_map(|r| {
        cx.st
            .alive()
            .find(|p| &p.role == r && p.camp == camp && !p.skills.contains_key(skill))
            .map(|p| p.name.clone())
    });
    let clause = cx.skill_clause(skill);
    match heir {
        Some(h) => {
            let uses = cx.rules.skill(skill).and_then(|d| d.uses);
            cx.st.player_mut(&h).expect("exists").skills.insert(
                skill.to_string(),
                SkillState {
                    uses_left: uses,
                    lost: false,
                    granted: true,
                },
            );
            cx.note(format!("{name} 出局，{h} 获得<{skill}>"), &clause);
            cx.tell(&h, format!("你获得技能<{skill}>。"));
        }
        None => cx.note(format!("{name} 出局，没有手下可继承<{skill}>"), &clause),
    }
    Ok(())
}
