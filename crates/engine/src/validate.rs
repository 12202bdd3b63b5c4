//! Every action is checked against the state at the start of the phase before anything
//! is resolved; a bad one is rejected with its reason (the CLI exits 2 naming it).
//! A skill not submitted counts as not used.

use crate::action::{Action, Invalid};
use crate::phase::PhaseInput;
use crate::rules::{EngineRules, SkillDef, Step, Timing};
use crate::state::{GameState, Phase, PlayerState};

pub(crate) fn validate(
    rules: &EngineRules,
    st: &GameState,
    input: &PhaseInput,
    steps: &[&Step],
    skip: &dyn Fn(&Action) -> bool,
) -> Vec<Invalid> {
    let mut out = Vec::new();
    for (i, a) in input.actions.iter().enumerate() {
        if skip(a) {
            continue;
        }
        if let Err(reason) = check(rules, st, input, steps, i, a) {
            out.push(Invalid {
                index: i + 1,
                action: a.to_string(),
                reason,
            });
        }
    }
    if input.moment.phase == Phase::Day {
        for (p, _) in &input.outs {
            match st.player(p) {
                None => out.push(Invalid {
                    index: 0,
                    action: format!("{p} 出局"),
                    reason: format!("{p} 不在本局"),
                }),
                Some(pl) if !pl.alive() => out.push(Invalid {
                    index: 0,
                    action: format!("{p} 出局"),
                    reason: format!("{p} 已出局"),
                }),
                _ => {}
            }
        }
        for c in &input.lose {
            if rules.camp_index(c).is_none() {
                out.push(Invalid {
                    index: 0,
                    action: format!("{c} 判负"),
                    reason: format!("规则中没有阵营 {c}"),
                });
            }
        }
        if let Some(s) = &input.sheriff
            && st.player(s).is_none_or(|p| !p.alive())
        {
            out.push(Invalid {
                index: 0,
                action: format!("{s} 当选警长"),
                reason: format!("{s} 不在本局或已出局"),
            });
        }
    }
    out
}

fn check(
    rules: &EngineRules,
    st: &GameState,
    input: &PhaseInput,
    steps: &[&Step],
    i: usize,
    a: &Action,
) -> Result<(), String> {
    let night = input.moment.day;
    let actor = st
        .player(&a.actor)
        .ok_or_else(|| format!("{} 不是本局玩家", a.actor))?;
    let def = rules
        .skill(&a.skill)
        .ok_or_else(|| format!("规则中没有技能<{}>", a.skill))?;
    for t in &a.targets {
        if st.player(t).is_none() {
            return Err(format!("目标 {t} 不是本局玩家"));
        }
    }
    let mut uniq = a.targets.clone();
    uniq.sort();
    uniq.dedup();
    if uniq.len() != a.targets.len() {
        return Err("同一目标出现了两次".into());
    }
    match def.timing {
        Timing::Passive => return Err(format!("<{}>是被动技能，无需提交", a.skill)),
        // an answer given up front; checked when (if) the trigger fires
        Timing::OnOut | Timing::Prompt => {
            if input.actions[..i]
                .iter()
                .any(|b| b.actor == a.actor && b.skill == a.skill)
            {
                return Err("重复提交".into());
            }
            return Ok(());
        }
        Timing::Start if !(input.moment.phase == Phase::Night && night == 0) => {
            return Err(format!("<{}>只在游戏开始时（第0夜）发动", a.skill));
        }
        Timing::StartAndNight if input.moment.phase != Phase::Night => {
            return Err(format!("<{}>在游戏开始时或夜晚发动", a.skill));
        }
        Timing::Night | Timing::Dusk if input.moment.phase != Phase::Night || night == 0 => {
            return Err(format!("<{}>是夜晚技能，本阶段不能发动", a.skill));
        }
        _ => {}
    }
    if !actor.alive() {
        return Err(format!("{} 已出局", a.actor));
    }
    if let Some(s) = rules.idle_statuses.iter().find(|s| actor.has_status(s)) {
        return Err(format!("{} 处于{s}状态，不能行使特权", a.actor));
    }
    match actor.skills.get(&a.skill) {
        None => {
            return Err(format!(
                "{}（{}）没有技能<{}>",
                a.actor, actor.role, a.skill
            ));
        }
        Some(s) if s.lost => return Err(format!("{} 已失去技能<{}>", a.actor, a.skill)),
        Some(s)
            if s.uses_left == Some(0)
                && def.gains.is_empty()
                && !refreshed_earlier(rules, input, steps, a) =>
        {
            return Err(format!("{} 的<{}>已用完", a.actor, a.skill));
        }
        _ => {}
    }
    if let Some(f) = def.from_night
        && night < f
    {
        return Err(format!("<{}>从第{f}夜起才能发动", a.skill));
    }
    let step_ok = steps.iter().any(|s| {
        s.skills.contains(&a.skill)
            && (s.camp_at_run
                || s.camp
                    .as_ref()
                    .is_none_or(|c| actor.camp.as_ref() == Some(c)))
    });
    if !step_ok {
        return Err(format!(
            "{}（{}）的<{}>不在本夜的任何步骤中",
            a.actor,
            actor.camp.as_deref().unwrap_or("阵营未定"),
            a.skill
        ));
    }
    let n = a.targets.len() as u32;
    if n < def.min_targets() || n > def.targets {
        return Err(if def.min_targets() == def.targets {
            format!("<{}>须选择{}个目标（给了{n}个）", a.skill, def.targets)
        } else {
            format!(
                "<{}>须选择{}到{}个目标（给了{n}个）",
                a.skill,
                def.min_targets(),
                def.targets
            )
        });
    }
    target_limits(def, &a.skill, st, actor, &a.targets, night)?;
    let earlier = input.actions[..i]
        .iter()
        .filter(|b| b.actor == a.actor && b.skill == a.skill)
        .count() as u32;
    let per_night = if def.multi {
        u32::MAX
    } else {
        1 + def
            .effects
            .iter()
            .map(|e| e.behaviour().extra_uses(st, &a.actor))
            .sum::<u32>()
    };
    if earlier >= per_night {
        return Err("重复提交".into());
    }
    if def.multi
        && def.gains.is_empty()
        && actor
            .skills
            .get(&a.skill)
            .and_then(|s| s.uses_left)
            .is_some_and(|u| earlier >= u)
    {
        return Err(format!("{} 的<{}>次数不足", a.actor, a.skill));
    }
    for b in &input.actions[..i] {
        if b.actor == a.actor && b.skill == a.skill {
            continue;
        }
        if b.actor == a.actor && (def.exclusive_with.contains(&b.skill)) {
            return Err(format!("<{}>与<{}>不能在同一夜晚发动", a.skill, b.skill));
        }
        if def.team && b.skill == a.skill {
            let bc = st.player(&b.actor).and_then(|p| p.camp.clone());
            if def.team_across_camps {
                return Err(format!(
                    "<{}>每晚只能共同发动一次（已由 {} 提交）",
                    a.skill, b.actor
                ));
            }
            if bc == actor.camp {
                return Err(format!(
                    "{}每晚只能共同<{}>一次（已由 {} 提交）",
                    actor.camp.as_deref().unwrap_or(""),
                    a.skill,
                    b.actor
                ));
            }
        }
    }
    def.effects
        .iter()
        .try_for_each(|e| e.behaviour().precheck(rules, st, a))
}

/// The limits on a skill's targets: alive, not oneself when barred, per-target locks
/// (雪隐, 守护之盾), a `restrict`ion's neighbours (暴风雪), no repeat of last night. Shared by
/// submitted actions and uses forced by another skill (妖术).
pub(crate) fn target_limits(
    def: &SkillDef,
    skill: &str,
    st: &GameState,
    actor: &PlayerState,
    targets: &[String],
    night: u32,
) -> Result<(), String> {
    for t in targets {
        let out = st.player(t).is_some_and(|p| !p.alive());
        if out && !def.targets_out {
            return Err(format!("目标 {t} 已出局，不能被选为技能的目标"));
        }
        if !out && def.targets_out {
            return Err(format!("<{skill}>只能选择已出局角色（{t} 未出局）"));
        }
        if def.not_self && t == &actor.name {
            return Err(format!("<{}>不能以自己为目标", skill));
        }
        if let Some(l) = st.target_locks.iter().find(|l| {
            l.skill == skill && &l.target == t && l.until_night.is_none_or(|u| u >= night)
        }) {
            return Err(match l.until_night {
                None => format!("<{}>对每名角色只能发动一次（{t} 已是其目标）", skill),
                Some(u) => format!("<{}>第{u}夜之前不能再次选择 {t}", skill),
            });
        }
        if let Some(r) = st
            .restrictions
            .iter()
            .find(|r| r.night == night && r.spare_camp != actor.camp)
            && t != &actor.name
            && !st.living_neighbours(&actor.name).contains(t)
        {
            return Err(format!(
                "<{}>之后的夜晚，{} 只能对自己和存活的相邻角色（{}）使用技能",
                r.skill,
                actor.name,
                st.living_neighbours(&actor.name).join("、")
            ));
        }
        if def.no_repeat
            && st.last_night == Some(night.saturating_sub(1))
            && actor.last_targets.get(skill).is_some_and(|l| l.contains(t))
        {
            return Err(format!("<{}>不能连续两晚选择同一目标 {t}", skill));
        }
    }
    Ok(())
}

/// A used-up <限定> skill that a `refresh-limited` action earlier in tonight's step order
/// makes usable again (Q5: 激励 before 隼眼).
fn refreshed_earlier(rules: &EngineRules, input: &PhaseInput, steps: &[&Step], a: &Action) -> bool {
    if rules.skill(&a.skill).and_then(|d| d.uses) != Some(1) {
        return false;
    }
    let pos = |skill: &str| {
        steps
            .iter()
            .position(|s| s.skills.iter().any(|k| k == skill))
    };
    let Some(mine) = pos(&a.skill) else {
        return false;
    };
    input.actions.iter().any(|b| {
        b.targets.contains(&a.actor)
            && rules.skill(&b.skill).is_some_and(|d| {
                d.effects
                    .iter()
                    .any(|e| matches!(e, crate::effects::Effect::RefreshLimited(_)))
            })
            && pos(&b.skill).is_some_and(|p| p < mine)
    })
}
