//! Behaviours that fire when their holder goes out: a shot, the badge, stripping skills.

use serde::{Deserialize, Serialize};

use super::{Behaviour, OwnOut, kind};
use crate::ctx::{Ctx, Flow, Stop};
use crate::phase::Prompt;

/// On going out: choose one other player, who goes out (cause = the skill) after the
/// holder's linked deaths. Not when the death's cause (or, for a link death, the
/// partner's cause) is in `not_causes`.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Shoot {
    #[serde(default)]
    pub not_causes: Vec<String>,
    /// The cause the shot target goes out by (default: the skill's name) (M213 最后一枪
    /// 「结算目标承受[致死伤害]」).
    #[serde(default)]
    pub cause: Option<String>,
}

/// On going out: the badge passes to a living player of the holder's choice; at random
/// when the cause is in `random_on`. `named_only` is the post's sentence when the holder must
/// name the heir (or tear the badge): an answer `choice = "随机"` is then refused with it.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct PassBadge {
    #[serde(default)]
    pub random_on: Vec<String>,
    #[serde(default)]
    pub named_only: Option<String>,
}

/// On going out by one of `causes`: every player holding one of `roles` loses all skills.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct StripOnOut {
    pub causes: Vec<String>,
    pub roles: Vec<String>,
}

impl Behaviour for kind::Shoot {
    fn fires_on_out(&self) -> bool {
        true
    }

    fn on_own_out(&self, cx: &mut Ctx, o: &OwnOut) -> Flow {
        let OwnOut {
            name,
            skill,
            def,
            cause,
            root,
            ..
        } = *o;
        let kind::Shoot { not_causes, .. } = self;

        if not_causes.iter().any(|c| c == cause || c == root) {
            let why = if not_causes.iter().any(|c| c == cause) {
                cause
            } else {
                root
            };
            let note = def.notes.first().cloned().unwrap_or(def.clause.clone());
            cx.note(format!("{name} 因{why}出局，不可发动<{skill}>"), &note);
            return Ok(());
        }
        let candidates: Vec<String> = cx
            .st
            .alive()
            .map(|p| p.name.clone())
            .filter(|n| n != name)
            .collect();
        let Some(ans) = cx.answer(name, skill) else {
            if cx.unanswered() {
                return Err(Stop::Prompt(Box::new(Prompt {
                    player: name.into(),
                    skill: skill.into(),
                    question: format!(
                        "{name} 出局（{cause}），可发动<{skill}>：请选择一名其他角色（或放弃）。在 actions 文件中加入 [[action]] actor = \"{name}\" skill = \"{skill}\" targets = [\"…\"]（放弃：targets = []）"
                    ),
                    candidates,
                    may_pass: !def.forced,
                    clause: def.clause.clone(),
                })));
            }
            cx.note(format!("{name} 的<{skill}>未记录，视为放弃"), &def.clause);
            return Ok(());
        };
        spend(cx, name, skill);
        let Some(t) = ans.targets.first() else {
            cx.note(format!("{name} 放弃<{skill}>"), &def.clause);
            return Ok(());
        };
        if t == name || ans.targets.len() > 1 {
            return Err(cx.bad(&ans, "<最后一枪>须选择一名其他角色"));
        }
        if !candidates.contains(t) {
            return Err(cx.bad(&ans, format!("{t} 此时已出局或不在本局")));
        }
        cx.note(format!("{name} 发动<{skill}>，目标 {t}"), &def.clause);
        let cause = self.cause.as_deref().unwrap_or(skill);
        cx.go_out(t, cause, Some(name), &def.clause)?;

        Ok(())
    }
}

impl Behaviour for kind::PassBadge {
    fn fires_on_out(&self) -> bool {
        true
    }

    fn on_own_out(&self, cx: &mut Ctx, o: &OwnOut) -> Flow {
        let OwnOut {
            name,
            skill,
            def,
            cause,
            ..
        } = *o;
        let kind::PassBadge {
            random_on,
            named_only,
        } = self;

        if cx.st.sheriff.as_deref() != Some(name) {
            return Ok(());
        }
        let candidates: Vec<String> = cx.st.alive().map(|p| p.name.clone()).collect();
        let target = if random_on.iter().any(|c| c == cause) {
            let t = cx.rng.pick_n(&candidates, 1).pop();
            cx.draw(format!(
                "{name} 因{cause}出局，<{skill}>对象随机：{}",
                t.clone().unwrap_or_else(|| "无".into())
            ));
            t
        } else {
            match cx.answer(name, skill) {
                Some(a) if a.wants_random() && named_only.is_some() => {
                    let why = named_only.as_deref().unwrap_or_default();
                    return Err(cx.bad(
                        &a,
                        format!("<{skill}>不能随机决定：「{why}」请指定一名存活角色（targets = [\"…\"]），或撕去警徽（targets = []）"),
                    ));
                }
                Some(a) if a.wants_random() => {
                    let t = cx.rng.pick_n(&candidates, 1).pop();
                    cx.draw(format!(
                        "{name} <{skill}> 随机决定：{}",
                        t.clone().unwrap_or_default()
                    ));
                    t
                }
                Some(a) => {
                    if let Some(t) = a.targets.first() {
                        if !candidates.contains(t) || a.targets.len() > 1 {
                            return Err(
                                cx.bad(&a, format!("须选择一名未出局角色移交警长（{t} 不可选）"))
                            );
                        }
                    } else if def.forced {
                        return Err(
                            cx.bad(&a, format!("<{skill}>是<强制>技能，须选择一名未出局角色"))
                        );
                    }
                    a.targets.first().cloned()
                }
                None if cx.unanswered() && !candidates.is_empty() => {
                    let or = if named_only.is_some() {
                        "（或撕去警徽：targets = []）"
                    } else {
                        "（或 choice = \"随机\"）"
                    };
                    return Err(Stop::Prompt(Box::new(Prompt {
                        player: name.into(),
                        skill: skill.into(),
                        question: format!(
                            "警长 {name} 出局（{cause}），须<{skill}>：请选择一名未出局角色移交警长{or}。在 actions 文件中加入 [[action]] actor = \"{name}\" skill = \"{skill}\" targets = [\"…\"]"
                        ),
                        candidates,
                        may_pass: !def.forced,
                        clause: def.clause.clone(),
                    })));
                }
                None => None,
            }
        };
        cx.st.sheriff = target.clone();
        match target {
            Some(t) => {
                cx.note(format!("{name} <{skill}>，警长移交给 {t}"), &def.clause);
                cx.tell(&t, "你成为警长。");
            }
            None => cx.note(format!("{name} 出局，警徽无人继承"), &def.clause),
        }

        Ok(())
    }
}

impl Behaviour for kind::StripOnOut {
    fn fires_on_out(&self) -> bool {
        true
    }

    fn on_own_out(&self, cx: &mut Ctx, o: &OwnOut) -> Flow {
        let OwnOut {
            name, def, cause, ..
        } = *o;
        let kind::StripOnOut { causes, roles } = self;

        if causes.iter().any(|c| c == cause) {
            let mut who = Vec::new();
            for p in &mut cx.st.players {
                if roles.contains(&p.role) {
                    for s in p.skills.values_mut() {
                        s.lost = true;
                    }
                    who.push(p.name.clone());
                }
            }
            cx.note(
                format!(
                    "{name} 因{cause}出局，{} 失去技能",
                    if who.is_empty() {
                        "无人".into()
                    } else {
                        who.join("、")
                    }
                ),
                &def.clause,
            );
            for w in who {
                if cx.st.player(&w).is_some_and(|p| p.alive()) {
                    cx.tell(&w, "你失去了全部技能。");
                }
            }
        }

        Ok(())
    }
}

fn spend(cx: &mut Ctx, name: &str, skill: &str) {
    if let Some(s) = cx.st.player_mut(name).and_then(|p| p.skills.get_mut(skill))
        && let Some(u) = &mut s.uses_left
    {
        *u = u.saturating_sub(1);
    }
}
