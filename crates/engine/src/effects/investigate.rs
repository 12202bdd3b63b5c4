//! Investigations told to the actor at once: the night's attack targets, a camp, a role.

use serde::{Deserialize, Serialize};

use super::{Behaviour, kind};
use crate::action::Action;
use crate::ctx::{Ctx, Flow};
use crate::rules::{Effect, SkillDef};

/// Private feedback: the night's attack targets so far, once each, in attack order (通灵).
/// `chosen_by_seat`: the 选择目标 of every attack used so far (before any hand-off), in seat
/// order (M213 女巫 灵通「反馈所有[指杀]技能的[选择目标]…按照电梯楼顺序排列名单」).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SeeKills {
    #[serde(default)]
    pub chosen_by_seat: bool,
}

/// Private feedback: whether the target's true camp is `camp` (`yes`/`no` texts);
/// `apparent`: the camp shown instead ([表面阵营]).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct InvestigateCamp {
    pub camp: String,
    pub yes: String,
    pub no: String,
    #[serde(default)]
    pub apparent: bool,
}

/// Private feedback: the target's role (`apparent`: the role shown, e.g. 灵魁's old role).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct InvestigateRole {
    #[serde(default)]
    pub apparent: bool,
}

/// Private feedback: the target's camp by name, `format` with `{target}` and `{camp}`;
/// `apparent`: the camp shown (灵能 感知「获知[结算目标]的[实际阵营]，反馈格式为[选择目标是XX阵营]」).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct CampName {
    #[serde(default)]
    pub apparent: bool,
    pub format: String,
}

impl Behaviour for kind::CampName {
    fn act(&self, cx: &mut Ctx, _def: &SkillDef, a: &Action) -> Flow {
        for t in &a.targets {
            let Some(p) = cx.st.player(t) else { continue };
            let camp = match (self.apparent, &p.apparent_camp) {
                (true, Some(c)) => c.clone(),
                _ => p.camp.clone().unwrap_or_else(|| "无".into()),
            };
            let text = self.format.replace("{target}", t).replace("{camp}", &camp);
            cx.tell(&a.actor, format!("<{}>：{text}", a.skill));
        }
        Ok(())
    }
}

impl Behaviour for kind::SeeKills {
    fn logs_use(&self) -> bool {
        false
    }

    fn act(&self, cx: &mut Ctx, def: &SkillDef, a: &Action) -> Flow {
        let mut seen: Vec<String> = Vec::new();
        if self.chosen_by_seat {
            let kills = |k: &str| {
                cx.rules
                    .skill(k)
                    .is_some_and(|d| d.effects.iter().any(|e| matches!(e, Effect::Kill(_))))
            };
            for u in cx.marks.used.iter().filter(|u| kills(&u.skill)) {
                seen.extend(
                    u.targets
                        .iter()
                        .filter(|t| !seen.contains(t))
                        .cloned()
                        .collect::<Vec<_>>(),
                );
            }
            seen.sort_by_key(|n| cx.st.player(n).map(|p| p.seat));
        } else {
            for atk in &cx.marks.attacks {
                if !seen.contains(&atk.target) {
                    seen.push(atk.target.clone());
                }
            }
        }
        let text = if seen.is_empty() {
            format!("<{}>：今晚没有角色被指杀。", a.skill)
        } else {
            format!("<{}>：今晚被指杀的角色：{}。", a.skill, seen.join("、"))
        };
        cx.note(format!("{} {}", a.actor, text), &def.clause);
        cx.tell(&a.actor, text);

        Ok(())
    }
}

impl Behaviour for kind::InvestigateCamp {
    fn act(&self, cx: &mut Ctx, _def: &SkillDef, a: &Action) -> Flow {
        let kind::InvestigateCamp {
            camp,
            yes,
            no,
            apparent,
        } = self;

        for t in &a.targets {
            let shown = cx
                .st
                .player(t)
                .and_then(|p| match (apparent, &p.apparent_camp) {
                    (true, Some(c)) => Some(c.as_str()),
                    _ => p.camp.as_deref(),
                });
            let is = shown == Some(camp.as_str());
            let text = format!("<{}>：{} —— {}", a.skill, t, if is { yes } else { no });
            cx.tell(&a.actor, text);
        }

        Ok(())
    }
}

impl Behaviour for kind::InvestigateRole {
    fn act(&self, cx: &mut Ctx, _def: &SkillDef, a: &Action) -> Flow {
        let kind::InvestigateRole { apparent } = self;

        for t in &a.targets {
            let p = cx.st.player(t).expect("validated");
            let role = if *apparent {
                p.apparent_role.clone().unwrap_or(p.role.clone())
            } else {
                p.role.clone()
            };
            cx.tell(&a.actor, format!("<{}>：{} 的身份是 {}", a.skill, t, role));
        }

        Ok(())
    }
}
