//! Attacks, protections, saves and poisons: the marks the kill and poison steps settle.

use serde::{Deserialize, Serialize};

use super::{Behaviour, kind, mark};
use crate::action::Action;
use crate::ctx::{Attack, Ctx, Flow};
use crate::rules::{Effect, SkillDef, Step};

/// 指杀: an attack settled by the night's `settle = "kills"` step; `cause` names the
/// death it causes (default 指杀).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Kill {
    #[serde(default)]
    pub cause: Option<String>,
}

/// A protection that makes attacks on the target invalid (救治, 守护). With
/// `wasted_counter`, a target that was attacked by nobody gets +1 on that counter and
/// goes out (cause `wasted_cause`) when it reaches `wasted_limit` (075 医生 空救).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Protect {
    #[serde(default)]
    pub wasted_counter: Option<String>,
    #[serde(default)]
    pub wasted_limit: Option<i64>,
    #[serde(default)]
    pub wasted_cause: Option<String>,
}

/// The target does not go out from attacks this night (救药).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Save {}

/// The target goes out at the `settle-poison` step (毒药).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Poison {}

impl Behaviour for kind::Kill {
    fn act(&self, cx: &mut Ctx, _def: &SkillDef, a: &Action) -> Flow {
        let kind::Kill { cause } = self;

        for t in &a.targets {
            let cause = cause.clone().unwrap_or_else(|| "指杀".into());
            cx.marks.attacks.push(Attack {
                target: t.clone(),
                actor: a.actor.clone(),
                skill: a.skill.clone(),
                step: cx.at.step.clone(),
                cause,
            });
        }

        Ok(())
    }
}

impl Behaviour for kind::Protect {
    fn act(&self, cx: &mut Ctx, _def: &SkillDef, a: &Action) -> Flow {
        mark(&mut cx.marks.protects, a);

        Ok(())
    }
}

impl Behaviour for kind::Save {
    fn act(&self, cx: &mut Ctx, _def: &SkillDef, a: &Action) -> Flow {
        mark(&mut cx.marks.saves, a);

        Ok(())
    }
}

impl Behaviour for kind::Poison {
    fn act(&self, cx: &mut Ctx, _def: &SkillDef, a: &Action) -> Flow {
        mark(&mut cx.marks.poisons, a);

        Ok(())
    }
}

/// Protections on players nobody attacked this night: +1 on the counter; out at the limit.
///
/// Where the step's clause is a reading (075: whose 空救 it is), the note of each count
/// carries it too, so the director sees the reading taken whenever it applies.
pub(crate) fn wasted_protects(cx: &mut Ctx, step: &Step) -> Flow {
    let reading = Some(step.clause.clone()).filter(|c| crate::rules::is_reading(c));
    for m in cx.marks.protects.clone() {
        let Some(def) = cx.rules.skill(&m.skill) else {
            continue;
        };
        for eff in &def.effects {
            let Effect::Protect(kind::Protect {
                wasted_counter: Some(counter),
                wasted_limit,
                wasted_cause,
            }) = eff
            else {
                continue;
            };
            if cx.marks.attacks.iter().any(|a| a.target == m.target) {
                continue;
            }
            let Some(p) = cx.st.player_mut(&m.target) else {
                continue;
            };
            if !p.alive() {
                continue;
            }
            let n = p.counter(counter) + 1;
            p.counters.insert(counter.clone(), n);
            let clause = def.clause.clone();
            cx.note(
                format!(
                    "{} 没有成为指杀目标，{} 累计{}（{}）",
                    m.target, m.target, counter, n
                ),
                &clause,
            );
            if let Some(r) = &reading {
                cx.note(format!("{} 的{}按本规则文件的读法计", m.target, counter), r);
            }
            if wasted_limit.is_some_and(|l| n >= l) {
                let cause = wasted_cause.clone().unwrap_or_else(|| counter.clone());
                cx.go_out(&m.target, &cause, Some(&m.actor), &clause)?;
                cx.check_losses();
            }
        }
    }
    Ok(())
}
