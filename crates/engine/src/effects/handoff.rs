//! The <指定> hand-off: 选择目标 → each `[[engine.handoff]]` stage in order, once per target,
//! on the target the stage before left → 结算目标. One primitive for every redirect; every
//! hop is noted, and a final target holding an `untargetable` status is dropped.

use serde::{Deserialize, Serialize};

use super::status::untargetable;
use super::{Behaviour, kind};
use crate::action::Action;
use crate::ctx::{Ctx, Flow};
use crate::rules::{HandoffMode, HandoffStage, SkillDef};

/// The actor's two final targets are swapped for every later <指定> skill of the night,
/// before the hand-off stages (魔术师 交换); with any other number of final targets the use
/// has no effect (noted).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Swap {}

impl Behaviour for kind::Swap {
    fn act(&self, cx: &mut Ctx, def: &SkillDef, a: &Action) -> Flow {
        match a.targets.as_slice() {
            [x, y] if x != y => {
                cx.marks.swaps.push((x.clone(), y.clone()));
                cx.note(
                    format!("{} <{}>：{x} 与 {y} 交换", a.actor, a.skill),
                    &def.clause,
                );
            }
            _ => cx.note(
                format!(
                    "{} <{}> 的结算目标不是2个角色（{}），发动无效",
                    a.actor,
                    a.skill,
                    a.targets.join("、")
                ),
                &def.clause,
            ),
        }
        Ok(())
    }
}

/// `t` after tonight's swaps, in the order they were made.
fn swapped(cx: &Ctx, t: &str) -> String {
    let mut t = t.to_string();
    for (x, y) in &cx.marks.swaps {
        if &t == x {
            t = y.clone();
        } else if &t == y {
            t = x.clone();
        }
    }
    t
}

/// The action with its final targets (a target may appear twice: 「有多次结算效果」).
pub(crate) fn settle_targets(cx: &mut Ctx, def: &SkillDef, a: &Action) -> Action {
    let mut out = a.clone();
    out.targets.clear();
    for chosen in &a.targets {
        let mut t = chosen.clone();
        let s = swapped(cx, &t);
        if s != t {
            cx.note(
                format!("{} <{}> 的目标 {t} 经[交换]改为 {s}", a.actor, a.skill),
                &def.clause,
            );
            t = s;
        }
        for stage in cx.rules.handoff.iter() {
            if let Some(next) = hop(cx, stage, a, &t) {
                cx.note(
                    format!(
                        "{} <{}> 的目标 {t} 经[{}]改为 {next}",
                        a.actor, a.skill, stage.name
                    ),
                    &stage.clause,
                );
                t = next;
            }
        }
        if let Some(s) = untargetable(cx, &t) {
            cx.note(
                format!(
                    "{} <{}> 的结算目标 {t} 持有【{s}】，不进行结算",
                    a.actor, a.skill
                ),
                &def.clause,
            );
            continue;
        }
        out.targets.push(t);
    }
    out
}

/// Where `stage` sends a skill of `a` aimed at `t`, if it triggers.
fn hop(cx: &mut Ctx, stage: &HandoffStage, a: &Action, t: &str) -> Option<String> {
    let actor_camp = cx.st.player(&a.actor).and_then(|p| p.camp.clone());
    if stage.except_camp.is_some() && actor_camp == stage.except_camp {
        return None;
    }
    let p = cx.st.player(t)?;
    let by_status = stage.status.as_ref().is_some_and(|s| p.has_status(s));
    let by_skill = stage
        .skill
        .as_ref()
        .is_some_and(|k| p.skills.get(k).is_some_and(|s| !s.lost));
    if !by_status && !by_skill {
        return None;
    }
    let next = match stage.mode {
        HandoffMode::BackToActor => a.actor.clone(),
        HandoffMode::RandomOther => {
            let pool: Vec<String> = cx
                .st
                .alive()
                .filter(|q| {
                    stage
                        .skill
                        .as_ref()
                        .is_none_or(|k| q.skills.get(k).is_none_or(|s| s.lost))
                })
                .map(|q| q.name.clone())
                .collect();
            let pick = cx.rng.pick_n(&pool, 1).pop()?;
            cx.draw(format!("[{}] {t} → {pick}", stage.name));
            pick
        }
    };
    if next == t {
        return None;
    }
    tell_stage(cx, stage, a, t, &next, by_status);
    Some(next)
}

/// Who learns of a hop: the holder of the skill (反射「镜获知当晚所有反射过的操作和对应玩家」)
/// or whoever set the status (时间逆流「会知道所有被反弹的技能名称，然后失去此技能」).
fn tell_stage(
    cx: &mut Ctx,
    stage: &HandoffStage,
    a: &Action,
    t: &str,
    next: &str,
    by_status: bool,
) {
    if !by_status {
        cx.tell(
            t,
            format!("[{}]：<{}> 被反射给 {next}。", stage.name, a.skill),
        );
        return;
    }
    let status = stage.status.clone().unwrap_or_default();
    let sources: Vec<String> = cx
        .marks
        .granted
        .iter()
        .filter(|(w, s, _)| w == t && *s == status)
        .map(|(_, _, by)| by.clone())
        .collect();
    for by in sources {
        cx.tell(&by, format!("[{}]：反弹了<{}>。", stage.name, a.skill));
        if let Some(k) = &stage.source_loses
            && let Some(s) = cx.st.player_mut(&by).and_then(|p| p.skills.get_mut(k))
            && !s.lost
        {
            s.lost = true;
            cx.note(format!("{by} 成功反弹技能，失去<{k}>"), &stage.clause);
        }
    }
}
