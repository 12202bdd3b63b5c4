//! The built-in behaviours, one function per `Effect` kind, shared by every rule set.
//! Nothing here names a role or a rule set: every name comes from the rule file.

mod any_out;
mod conversion;
mod damage;
mod info;
mod recruit;
mod traps;

pub(crate) use any_out::{
    announce_counters, on_any_out, public_counters, settle_follow_out, tell_senses,
};
pub(crate) use conversion::{convert, precheck_convert};
pub(crate) use damage::{blast, settle_damage, settle_exorcise, warded};
pub(crate) use recruit::settle_recruits;
pub(crate) use traps::{burned, holds_effect, order_key, settle_traps};

use crate::action::Action;
use crate::ctx::{Attack, Ctx, Flow, Mark, Stop, Used};
use crate::phase::Prompt;
use crate::rules::{Effect, SkillDef, Step};
use crate::state::{Link, Phase, SkillState};

/// Apply a submitted (validated) action: spend a use, lose what using it loses, run its
/// effects as marks.
pub(crate) fn apply_action(cx: &mut Ctx, def: &SkillDef, a: &Action) -> Flow {
    cx.marks.used.push(Used {
        actor: a.actor.clone(),
        skill: a.skill.clone(),
        targets: a.targets.clone(),
        void: false,
        at: cx.at.checkpoint.clone(),
    });
    // the skill's own feedback may be released at another checkpoint than its step's
    let step_checkpoint = cx.at.checkpoint.clone();
    if def.feedback_at.is_some() {
        cx.at.checkpoint = def.feedback_at.clone();
    }
    let r = apply_effects(cx, def, a);
    cx.at.checkpoint = step_checkpoint;
    r
}

fn apply_effects(cx: &mut Ctx, def: &SkillDef, a: &Action) -> Flow {
    lock_targets(cx, def, a);
    count_use(cx, a);
    if let Some(p) = cx.st.player_mut(&a.actor) {
        if let Some(s) = p.skills.get_mut(&a.skill)
            && let Some(u) = &mut s.uses_left
        {
            *u = u.saturating_sub(1);
        }
        for l in &def.on_use_lose {
            if let Some(s) = p.skills.get_mut(l) {
                s.lost = true;
            }
        }
    }
    if def.team {
        // the whole team's use of the skill this night
        let camp = cx.st.player(&a.actor).and_then(|p| p.camp.clone());
        cx.note(
            format!(
                "{}（{}）<{}>：{}",
                camp.unwrap_or_default(),
                a.actor,
                a.skill,
                targets_text(&a.targets)
            ),
            &def.clause,
        );
    } else if def.effects.iter().any(|e| !matches!(e, Effect::SeeKills)) {
        cx.note(format!("{a}"), &def.clause);
    }
    if !def.on_use_lose.is_empty() {
        cx.note(
            format!(
                "{} 发动<{}>，失去<{}>",
                a.actor,
                a.skill,
                def.on_use_lose.join("><")
            ),
            &def.clause,
        );
    }
    for eff in &def.effects {
        match eff {
            Effect::Kill { cause } => {
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
            }
            Effect::Protect { .. } => mark(&mut cx.marks.protects, a),
            Effect::Recruit { .. } => recruit::queue(cx, a),
            Effect::BecomeRole { role } => {
                recruit::convert_into(cx, &a.actor, role, true, false);
                let camp = cx.st.player(&a.actor).and_then(|p| p.camp.clone());
                cx.note(format!("{} 变为{role}", a.actor), &def.clause);
                cx.tell(
                    &a.actor,
                    format!("你变为{role}（{}）。", camp.unwrap_or_default()),
                );
            }
            Effect::Shroud => {
                for t in &a.targets {
                    cx.marks.shrouds.push((
                        Mark {
                            target: t.clone(),
                            actor: a.actor.clone(),
                            skill: a.skill.clone(),
                        },
                        a.choice.clone(),
                    ));
                }
            }
            Effect::Burn { .. } | Effect::Retaliate => mark(&mut cx.marks.traps, a),
            Effect::AttacksAsPoison => {
                let camp = cx.st.player(&a.actor).and_then(|p| p.camp.clone());
                if let Some(c) = camp {
                    cx.marks.poison_camps.push((c, a.skill.clone()));
                }
            }
            Effect::Restrict { announce } => info::restrict(cx, a, announce),
            Effect::RevealCamp => info::reveal_camp(cx, a),
            Effect::Observe { role } => {
                if !a.targets.is_empty() {
                    info::observe(cx, a, *role)
                }
            }
            Effect::CountCamps => {
                if a.targets.is_empty() {
                    info::count_camps(cx, a)
                }
            }
            Effect::Pipe {
                status,
                join_role,
                notice,
                announce,
                ..
            } => info::pipe(cx, a, status, join_role, notice, announce),
            Effect::Force {
                notice,
                team_notice_at,
            } => info::force(cx, a, notice, team_notice_at)?,
            Effect::Hunt { camp } => traps::hunt(cx, camp, a),
            Effect::Relay { to_role, max_chars } => info::relay(cx, a, to_role, *max_chars)?,
            Effect::RefreshLimited => info::refresh_limited(cx, a),
            Effect::Save => mark(&mut cx.marks.saves, a),
            Effect::Poison => mark(&mut cx.marks.poisons, a),
            Effect::SeeKills => {
                let mut seen: Vec<String> = Vec::new();
                for atk in &cx.marks.attacks {
                    if !seen.contains(&atk.target) {
                        seen.push(atk.target.clone());
                    }
                }
                let text = if seen.is_empty() {
                    format!("<{}>：今晚没有角色被指杀。", a.skill)
                } else {
                    format!("<{}>：今晚被指杀的角色：{}。", a.skill, seen.join("、"))
                };
                cx.note(format!("{} {}", a.actor, text), &def.clause);
                cx.tell(&a.actor, text);
            }
            Effect::InvestigateCamp { camp, yes, no } => {
                for t in &a.targets {
                    let is = cx.st.player(t).and_then(|p| p.camp.as_deref()) == Some(camp.as_str());
                    let text = format!("<{}>：{} —— {}", a.skill, t, if is { yes } else { no });
                    cx.tell(&a.actor, text);
                }
            }
            Effect::InvestigateRole { apparent } => {
                for t in &a.targets {
                    let p = cx.st.player(t).expect("validated");
                    let role = if *apparent {
                        p.apparent_role.clone().unwrap_or(p.role.clone())
                    } else {
                        p.role.clone()
                    };
                    cx.tell(&a.actor, format!("<{}>：{} 的身份是 {}", a.skill, t, role));
                }
            }
            Effect::Link { .. } => link(cx, eff, a)?,
            Effect::SaveExcept { causes } => {
                mark(&mut cx.marks.saves, a);
                for t in &a.targets {
                    cx.marks.wards.push((t.clone(), causes.clone()));
                }
            }
            Effect::Blast { .. } => blast(cx, eff, a),
            Effect::Exorcise { .. } => mark(&mut cx.marks.exorcisms, a),
            Effect::Convert { .. } => convert(cx, eff, a),
            Effect::FollowCamp => {
                let t = &a.targets[0];
                let camp = cx.st.player(t).and_then(|p| p.camp.clone());
                if let Some(p) = cx.st.player_mut(&a.actor) {
                    p.camp = camp.clone();
                }
                let camp = camp.unwrap_or_else(|| "（未定）".into());
                cx.note(
                    format!("{} <{}> {}，成为{}", a.actor, a.skill, t, camp),
                    &def.clause,
                );
                cx.tell(
                    &a.actor,
                    format!("你<{}>{}，你的阵营为【{}】。", a.skill, t, camp),
                );
            }
            // on-out and passive behaviours are not submitted as night actions
            Effect::Shoot { .. }
            | Effect::PassBadge { .. }
            | Effect::DieWithLink { .. }
            | Effect::FirstAttackImmunity { .. }
            | Effect::StripOnOut { .. }
            | Effect::OutCounter { .. }
            | Effect::SenseNeighbours { .. }
            | Effect::Disguise { .. }
            | Effect::FollowOut { .. }
            | Effect::AttackImmunity
            | Effect::FirstOutImmunity { .. }
            | Effect::Dodge
            | Effect::SenseCamp
            | Effect::Tally
            | Effect::Grievance { .. }
            | Effect::Mutiny { .. } => {}
        }
    }
    refresh_gains(cx);
    Ok(())
}

/// `once_per_target` / `cooldown_by_targets`: the targets chosen are locked for the skill.
fn lock_targets(cx: &mut Ctx, def: &SkillDef, a: &Action) {
    let night = cx.input.moment.day;
    let until = if def.once_per_target {
        None
    } else if def.cooldown_by_targets {
        Some(night + a.targets.len() as u32)
    } else {
        return;
    };
    for t in &a.targets {
        cx.st.target_locks.push(crate::state::TargetLock {
            skill: a.skill.clone(),
            target: t.clone(),
            until_night: until,
        });
    }
}

/// The counter a `gains` rule reads for "uses of skill X" (`X已用`).
pub(crate) fn uses_counter(skill: &str) -> String {
    format!("{skill}已用")
}

fn count_use(cx: &mut Ctx, a: &Action) {
    let counted = cx.rules.skills.values().any(|d| {
        d.gains
            .iter()
            .any(|g| g.uses.as_deref() == Some(a.skill.as_str()))
    });
    if counted && let Some(p) = cx.st.player_mut(&a.actor) {
        let k = uses_counter(&a.skill);
        let v = p.counter(&k) + 1;
        p.counters.insert(k, v);
    }
}

/// Uses gained so far (`gains`): each holder's skill gets the uses its sources have earned
/// since last time (the earned total is kept in the counter `X+`).
pub(crate) fn refresh_gains(cx: &mut Ctx) {
    let piped = |cx: &Ctx, status: &str| {
        cx.st
            .players
            .iter()
            .filter(|p| p.has_status(status))
            .count() as i64
    };
    let mut changes: Vec<(String, String, i64, String)> = Vec::new();
    for p in &cx.st.players {
        for (k, s) in &p.skills {
            let Some(d) = cx.rules.skill(k) else { continue };
            if d.gains.is_empty() || s.lost {
                continue;
            }
            let mut earned = 0i64;
            let mut clause = String::new();
            for g in &d.gains {
                let n = if g.outs {
                    cx.st.outs as i64
                } else if let Some(u) = &g.uses {
                    p.counter(&uses_counter(u))
                } else if let Some(st) = &g.status {
                    piped(cx, st)
                } else {
                    0
                };
                let e = n / g.per.max(1) as i64;
                if e > 0 {
                    clause = g.clause.clone();
                }
                earned += e;
            }
            let key = format!("{k}+");
            let had = p.counter(&key);
            if earned > had {
                changes.push((p.name.clone(), k.clone(), earned - had, clause));
            }
        }
    }
    for (name, k, add, clause) in changes {
        let p = cx.st.player_mut(&name).expect("exists");
        let key = format!("{k}+");
        let had = p.counter(&key);
        p.counters.insert(key, had + add);
        if let Some(s) = p.skills.get_mut(&k) {
            s.uses_left = Some(s.uses_left.unwrap_or(0) + add as u32);
        }
        let alive = p.alive();
        cx.note(format!("{name} 的<{k}>次数+{add}"), &clause);
        if alive {
            cx.tell(&name, format!("你的<{k}>次数+{add}。"));
        }
    }
}

fn mark(list: &mut Vec<Mark>, a: &Action) {
    for t in &a.targets {
        let m = Mark {
            target: t.clone(),
            actor: a.actor.clone(),
            skill: a.skill.clone(),
        };
        list.push(m);
    }
}

fn targets_text(t: &[String]) -> String {
    if t.is_empty() {
        "放弃".into()
    } else {
        t.join("、")
    }
}

/// 丘比特之箭-like links. Parameters (all from the rule file):
/// - `linker_joins`: the actor's camp becomes the linked players' camp;
/// - `elope_camp`: linked players of different camps (and a joining linker) form this camp;
/// - `lone_role_loses`: when exactly one member holds `role`, that member loses `skill`;
/// - `force_elope_if_skill`: a member holding that skill loses it and the link elopes anyway;
/// - `grant_if_no_role`: in that forced case, when no member holds `role`, the member who
///   held the forcing skill gains `skill`.
fn link(cx: &mut Ctx, eff: &Effect, a: &Action) -> Flow {
    let Effect::Link {
        link,
        linker_joins,
        elope_camp,
        lone_role_loses,
        force_elope_if_skill,
        grant_if_no_role,
        elope_clause,
    } = eff
    else {
        return Ok(());
    };
    let clause = cx.skill_clause(&a.skill);
    let members = a.targets.clone();
    cx.st.links.push(Link {
        kind: link.clone(),
        by: Some(a.actor.clone()),
        members: members.clone(),
    });
    cx.note(
        format!("{} 与 {} 成为{}", members[0], members[1..].join("、"), link),
        &clause,
    );
    for m in &members {
        let others: Vec<&String> = members.iter().filter(|x| *x != m).collect();
        cx.tell(
            m,
            format!(
                "你与 {} 成为{}。",
                others
                    .iter()
                    .map(|s| s.as_str())
                    .collect::<Vec<_>>()
                    .join("、"),
                link
            ),
        );
    }
    let mut forced_by: Option<String> = None;
    if let Some(skill) = force_elope_if_skill {
        for m in &members {
            if let Some(p) = cx.st.player_mut(m)
                && let Some(s) = p.skills.get_mut(skill)
                && !s.lost
            {
                s.lost = true;
                forced_by = Some(m.clone());
                cx.note(format!("{m} 成为{link}，失去<{skill}>"), &clause);
            }
        }
    }
    let camps: Vec<Option<String>> = members
        .iter()
        .map(|m| cx.st.player(m).and_then(|p| p.camp.clone()))
        .collect();
    let differ = camps.windows(2).any(|w| w[0] != w[1]) || camps.iter().any(|c| c.is_none());
    let role_count = |cx: &Ctx, role: &str| {
        members
            .iter()
            .filter(|m| cx.st.player(m).is_some_and(|p| p.role == role))
            .count()
    };
    if let Some(rs) = lone_role_loses
        && role_count(cx, &rs.role) == 1
    {
        let m = members
            .iter()
            .find(|m| cx.st.player(m).is_some_and(|p| p.role == rs.role))
            .cloned()
            .expect("one");
        if let Some(s) = cx
            .st
            .player_mut(&m)
            .and_then(|p| p.skills.get_mut(&rs.skill))
        {
            s.lost = true;
        }
        cx.note(
            format!("{m} 是情侣中唯一的{}，失去<{}>", rs.role, rs.skill),
            &rs.clause,
        );
        cx.tell(&m, format!("你失去技能<{}>。", rs.skill));
    }
    let new_camp = match elope_camp {
        Some(e) if differ || forced_by.is_some() => {
            for m in &members {
                if let Some(p) = cx.st.player_mut(m) {
                    p.camp = Some(e.clone());
                }
                cx.tell(m, format!("情侣私奔，形成【{e}】。"));
            }
            let c = elope_clause.clone().unwrap_or(clause.clone());
            cx.note(format!("{} 私奔，形成【{e}】", members.join("、")), &c);
            Some(e.clone())
        }
        _ => camps[0].clone(),
    };
    if *linker_joins {
        let c = new_camp.clone();
        if let Some(p) = cx.st.player_mut(&a.actor) {
            p.camp = c.clone();
        }
        let c = c.unwrap_or_default();
        cx.tell(
            &a.actor,
            format!("{} 成为{}，你的阵营为【{}】。", members.join("与"), link, c),
        );
    }
    if let (Some(by), Some(g)) = (forced_by, grant_if_no_role)
        && role_count(cx, &g.role) == 0
    {
        grant(cx, &by, &g.skill);
        cx.note(format!("{by} 获得<{}>", g.skill), &g.clause);
        cx.tell(&by, format!("你获得技能<{}>。", g.skill));
    }
    Ok(())
}

fn grant(cx: &mut Ctx, name: &str, skill: &str) {
    let uses = cx.rules.skill(skill).and_then(|d| d.uses);
    if let Some(p) = cx.st.player_mut(name) {
        p.skills.insert(
            skill.to_string(),
            SkillState {
                uses_left: uses,
                lost: false,
                granted: true,
            },
        );
    }
}

/// The unspent first-attack immunity the player holds: (skill, counter).
pub(crate) fn immunity_of(cx: &Ctx, name: &str) -> Option<(String, String)> {
    let p = cx.st.player(name)?;
    p.skills.iter().filter(|(_, s)| !s.lost).find_map(|(k, _)| {
        cx.rules.skill(k)?.effects.iter().find_map(|e| match e {
            Effect::FirstAttackImmunity { counter } => Some((k.clone(), counter.clone())),
            _ => None,
        })
    })
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
            let Effect::Protect {
                wasted_counter: Some(counter),
                wasted_limit,
                wasted_cause,
            } = eff
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

/// One on-out effect of `skill`, held by `name` who just went out by `cause` (`root`: the
/// cause that started the link chain).
pub(crate) fn on_out(
    cx: &mut Ctx,
    name: &str,
    skill: &str,
    def: &SkillDef,
    eff: &Effect,
    cause: &str,
    root: &str,
) -> Flow {
    match eff {
        Effect::StripOnOut { causes, roles } => {
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
        }
        Effect::Recruit { .. } => recruit::pass_on(cx, name, skill)?,
        Effect::DieWithLink { link } => {
            for other in cx.st.linked(name, link) {
                if cx.st.player(&other).is_some_and(|p| p.alive()) {
                    cx.go_out(&other, skill, Some(name), &def.clause)?;
                }
            }
        }
        Effect::Shoot { not_causes } => {
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
            cx.go_out(t, skill, Some(name), &def.clause)?;
        }
        Effect::PassBadge { random_on } => {
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
                                return Err(cx.bad(
                                    &a,
                                    format!("须选择一名未出局角色移交警长（{t} 不可选）"),
                                ));
                            }
                        } else if def.forced {
                            return Err(
                                cx.bad(&a, format!("<{skill}>是<强制>技能，须选择一名未出局角色"))
                            );
                        }
                        a.targets.first().cloned()
                    }
                    None if cx.unanswered() && !candidates.is_empty() => {
                        return Err(Stop::Prompt(Box::new(Prompt {
                            player: name.into(),
                            skill: skill.into(),
                            question: format!(
                                "警长 {name} 出局（{cause}），须<{skill}>：请选择一名未出局角色移交警长（或 choice = \"随机\"）。在 actions 文件中加入 [[action]] actor = \"{name}\" skill = \"{skill}\" targets = [\"…\"]"
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
        }
        Effect::Kill { .. }
        | Effect::Protect { .. }
        | Effect::Save
        | Effect::Poison
        | Effect::SeeKills
        | Effect::InvestigateCamp { .. }
        | Effect::InvestigateRole { .. }
        | Effect::Link { .. }
        | Effect::FollowCamp
        | Effect::FirstAttackImmunity { .. }
        | Effect::SaveExcept { .. }
        | Effect::Blast { .. }
        | Effect::Exorcise { .. }
        | Effect::OutCounter { .. }
        | Effect::SenseNeighbours { .. }
        | Effect::Convert { .. }
        | Effect::Disguise { .. }
        | Effect::FollowOut { .. }
        | Effect::Shroud
        | Effect::AttackImmunity
        | Effect::FirstOutImmunity { .. }
        | Effect::Dodge
        | Effect::Burn { .. }
        | Effect::Retaliate
        | Effect::AttacksAsPoison
        | Effect::Restrict { .. }
        | Effect::RevealCamp
        | Effect::Observe { .. }
        | Effect::CountCamps
        | Effect::Pipe { .. }
        | Effect::Force { .. }
        | Effect::Hunt { .. }
        | Effect::Relay { .. }
        | Effect::RefreshLimited
        | Effect::SenseCamp
        | Effect::Tally
        | Effect::BecomeRole { .. }
        | Effect::Grievance { .. }
        | Effect::Mutiny { .. } => {}
    }
    Ok(())
}

fn spend(cx: &mut Ctx, name: &str, skill: &str) {
    if let Some(s) = cx.st.player_mut(name).and_then(|p| p.skills.get_mut(skill))
        && let Some(u) = &mut s.uses_left
    {
        *u = u.saturating_sub(1);
    }
}

/// The camp-lost rules for `camp` (狼人阵营 loses 杀人; 寡妇刀 grants it to 黑情侣).
pub(crate) fn camp_lost(cx: &mut Ctx, camp: &str) {
    let rules: Vec<_> = cx
        .rules
        .on_camp_lost
        .iter()
        .filter(|r| r.camp == camp)
        .cloned()
        .collect();
    for r in rules {
        if let Some(cause) = &r.members_out {
            let who: Vec<String> = cx
                .st
                .alive()
                .filter(|p| p.camp.as_deref() == Some(camp))
                .filter(|p| r.pool_role.as_ref() != Some(&p.role))
                .map(|p| p.name.clone())
                .collect();
            for w in who {
                if let Err(stop) = cx.go_out(&w, cause, None, &r.clause) {
                    cx.at.deferred.get_or_insert(stop);
                }
            }
        }
        if let (Some(role), Some(to)) = (&r.pool_role, &r.pool_to_camp) {
            let who: Vec<String> = cx
                .st
                .alive()
                .filter(|p| p.camp.as_deref() == Some(camp) && &p.role == role)
                .map(|p| p.name.clone())
                .collect();
            for w in who {
                cx.st.player_mut(&w).expect("exists").camp = Some(to.clone());
                cx.note(format!("{camp} 判负，{w} 变为{to}"), &r.clause);
            }
        }
        if let Some(a) = &r.announce {
            cx.report.announcements.push(a.clone());
        }
        if let Some(status) = &r.clear_status {
            for p in &mut cx.st.players {
                p.statuses.retain(|s| &s.name != status);
            }
            cx.note(
                format!("{camp} 判负，所有角色的{status}状态解除"),
                &r.clause,
            );
        }
        if let Some(skill) = &r.remove_skill {
            let who: Vec<String> = cx
                .st
                .players
                .iter()
                .filter(|p| p.camp.as_deref() == Some(camp) && p.skills.contains_key(skill))
                .map(|p| p.name.clone())
                .collect();
            for w in &who {
                if let Some(s) = cx.st.player_mut(w).and_then(|p| p.skills.get_mut(skill)) {
                    s.lost = true;
                }
                if let Some(n) = &r.notice {
                    cx.tell(w, n.clone());
                }
            }
            cx.note(format!("{camp} 判负，失去<{skill}>"), &r.clause);
        }
        if let (Some(skill), Some(link)) = (&r.grant_skill, &r.to_link) {
            let members: Vec<String> = cx
                .st
                .links
                .iter()
                .filter(|l| &l.kind == link)
                .flat_map(|l| l.members.clone())
                .filter(|m| {
                    r.if_camp
                        .as_ref()
                        .is_none_or(|c| cx.st.player(m).and_then(|p| p.camp.as_ref()) == Some(c))
                })
                .collect();
            for m in &members {
                grant(cx, m, skill);
                if let Some(n) = &r.notice
                    && cx.st.player(m).is_some_and(|p| p.alive())
                {
                    cx.tell(m, n.clone());
                }
            }
            if !members.is_empty() {
                cx.note(
                    format!("{camp} 判负，{} 获得<{skill}>", members.join("、")),
                    &r.clause,
                );
            }
        }
    }
}

/// The public announcements of the phase: for a night, the outs in order and the 警长; for a
/// day, every out with its public cause and the badge.
pub(crate) fn announce(cx: &Ctx) -> Vec<String> {
    let mut v = Vec::new();
    match cx.input.moment.phase {
        Phase::Day => {
            for d in &cx.report.deaths {
                v.push(format!("{} 出局（{}）", d.player, d.cause));
            }
        }
        _ if cx.input.moment.day == 0 => {}
        _ => {
            if cx.report.deaths.is_empty() {
                v.push("昨夜无人出局".to_string());
            } else {
                let names: Vec<&str> = cx.report.deaths.iter().map(|d| d.player.as_str()).collect();
                v.push(format!("昨夜出局：{}", names.join("、")));
            }
            v.extend(public_counters(cx, ""));
        }
    }
    if let Some(lw) = &cx.rules.last_words {
        let with: Vec<&str> = cx
            .report
            .deaths
            .iter()
            .filter(|d| {
                let order = cx
                    .st
                    .player(&d.player)
                    .and_then(|p| p.out.as_ref())
                    .map_or(0, |o| o.order);
                order <= lw.count && !lw.not_causes.contains(&d.cause)
            })
            .map(|d| d.player.as_str())
            .collect();
        if !with.is_empty() {
            v.push(format!("有遗言：{}", with.join("、")));
        }
    }
    if cx.input.moment.phase == Phase::Day {
        for l in &cx.report.log {
            if l.text.contains("警长移交给") {
                v.push(l.text.clone());
            }
        }
    }
    if cx.input.moment.day > 0 || cx.input.moment.phase == Phase::Day {
        match &cx.st.sheriff {
            Some(s) if cx.st.player(s).is_some_and(|p| p.alive()) => {
                v.push(format!("当日警长：{s}"))
            }
            _ => {}
        }
    }
    match &cx.st.winner {
        Some(w) if w.is_empty() => v.push("所有阵营均已判负，游戏结束（无人胜利）".to_string()),
        Some(w) => v.push(format!("{} 胜利，游戏结束", w.join("、"))),
        None => {}
    }
    v
}

/// Extra actions a night a skill allows (`pipe.extra_if_smallest`: once more while the
/// actor's camp is the unique smallest).
pub(crate) fn extra_uses(
    _rules: &crate::rules::EngineRules,
    st: &crate::state::GameState,
    def: &SkillDef,
    actor: &str,
) -> u32 {
    let camp = st.player(actor).and_then(|p| p.camp.clone());
    def.effects
        .iter()
        .filter(|e| match e {
            Effect::Pipe {
                extra_if_smallest, ..
            } => {
                !extra_if_smallest.is_empty()
                    && camp
                        .as_deref()
                        .is_some_and(|c| st.unique_smallest(c, extra_if_smallest))
            }
            _ => false,
        })
        .count() as u32
}

/// `sense-camp`: holders whose camp changed during the night are told (at its end).
pub(crate) fn sense_camps(cx: &mut Ctx) {
    let mut told = Vec::new();
    for (name, before) in &cx.at.start_camps {
        let Some(p) = cx.st.player(name) else {
            continue;
        };
        if !p.alive() || &p.camp == before {
            continue;
        }
        let holds = p.skills.iter().any(|(k, s)| {
            !s.lost
                && cx
                    .rules
                    .skill(k)
                    .is_some_and(|d| d.effects.iter().any(|e| matches!(e, Effect::SenseCamp)))
        });
        if holds {
            told.push((
                name.clone(),
                p.camp.clone().unwrap_or_else(|| "无阵营".into()),
            ));
        }
    }
    for (n, c) in told {
        cx.tell(&n, format!("你的阵营变为【{c}】。"));
    }
}

/// The `grievance` effect `name` holds, with its skill.
fn grievance_of(cx: &Ctx, name: &str) -> Option<(String, Effect)> {
    let p = cx.st.player(name)?;
    p.skills.iter().filter(|(_, s)| !s.lost).find_map(|(k, _)| {
        cx.rules
            .skill(k)?
            .effects
            .iter()
            .find_map(|e| matches!(e, Effect::Grievance { .. }).then(|| (k.clone(), e.clone())))
    })
}

/// `grievance` on an out: a night kill by another camp counts for the victim's camp; once
/// the camp has risen, the first such killer is announced.
pub(crate) fn grievance_on_out(cx: &mut Ctx, name: &str) {
    if cx.input.moment.phase != Phase::Night {
        return;
    }
    let Some(killer) = cx.at.source.clone() else {
        return;
    };
    mutiny_count(cx, name, &killer);
    let Some((skill, Effect::Grievance { status, reveal, .. })) = grievance_of(cx, name) else {
        return;
    };
    let Some(camp) = cx.st.player(name).and_then(|p| p.camp.clone()) else {
        return;
    };
    let Some(k) = cx.st.player(&killer).cloned() else {
        return;
    };
    if k.camp.as_deref() == Some(camp.as_str()) {
        return;
    }
    let key = format!("{skill}:{camp}");
    let n = cx.st.counters.get(&key).copied().unwrap_or(0) + 1;
    cx.st.counters.insert(key, n);
    let risen = cx.st.player(name).is_some_and(|p| p.has_status(&status));
    let shown = format!("{skill}公示:{camp}");
    if risen && k.has_status(&shown) {
        let clause = cx.skill_clause(&skill);
        cx.note(
            format!("{killer} 再次击杀{camp}的乱世流民，承受一次来自 {name} 的指杀"),
            &clause,
        );
        cx.marks.late_attacks.push(Attack {
            target: killer.clone(),
            actor: name.to_string(),
            skill: skill.clone(),
            step: cx.at.step.clone(),
            cause: "指杀".into(),
        });
    } else if risen && !cx.st.counters.contains_key(&shown) {
        cx.st.counters.insert(shown.clone(), 1);
        cx.st
            .player_mut(&killer)
            .expect("exists")
            .statuses
            .push(crate::state::Status {
                name: shown,
                until_day: None,
            });
        let text = reveal
            .replace("{killer}", &killer)
            .replace("{role}", &k.role)
            .replace("{camp}", k.camp.as_deref().unwrap_or("无阵营"));
        let clause = cx.skill_clause(&skill);
        cx.note(text.clone(), &clause);
        cx.report.announcements.push(text);
    }
}

/// `grievance` at the end of a night: camps whose count reached `at` rise (once).
pub(crate) fn grievance_morning(cx: &mut Ctx) {
    let mut rising: Vec<(String, String, String, String)> = Vec::new();
    for (k, d) in &cx.rules.skills {
        for e in &d.effects {
            let Effect::Grievance {
                at,
                status,
                announce,
                ..
            } = e
            else {
                continue;
            };
            for c in &cx.rules.camps {
                let n = cx
                    .st
                    .counters
                    .get(&format!("{k}:{}", c.name))
                    .copied()
                    .unwrap_or(0);
                let done = format!("{k}已触发:{}", c.name);
                if n >= *at && !cx.st.counters.contains_key(&done) {
                    rising.push((k.clone(), c.name.clone(), status.clone(), announce.clone()));
                }
            }
        }
    }
    for (skill, camp, status, announce) in rising {
        cx.st.counters.insert(format!("{skill}已触发:{camp}"), 1);
        let who: Vec<String> = cx
            .st
            .alive()
            .filter(|p| p.camp.as_deref() == Some(camp.as_str()) && p.skills.contains_key(&skill))
            .map(|p| p.name.clone())
            .collect();
        for w in &who {
            cx.st
                .player_mut(w)
                .expect("exists")
                .statuses
                .push(crate::state::Status {
                    name: status.clone(),
                    until_day: None,
                });
        }
        let text = announce.replace("{camp}", &camp);
        let clause = cx.skill_clause(&skill);
        cx.note(format!("{text}（{}）", who.join("、")), &clause);
        cx.report.announcements.push(text);
    }
}

/// The `mutiny` effect `name` holds, with its skill.
fn mutiny_of(cx: &Ctx, name: &str) -> Option<(String, i64, String)> {
    let p = cx.st.player(name)?;
    p.skills.iter().filter(|(_, s)| !s.lost).find_map(|(k, _)| {
        cx.rules.skill(k)?.effects.iter().find_map(|e| match e {
            Effect::Mutiny { at, to_camp } => Some((k.clone(), *at, to_camp.clone())),
            _ => None,
        })
    })
}

fn mutiny_count(cx: &mut Ctx, name: &str, killer: &str) {
    let Some((skill, _, _)) = mutiny_of(cx, name) else {
        return;
    };
    let camp = cx.st.player(name).and_then(|p| p.camp.clone());
    if camp.is_none() || cx.st.player(killer).and_then(|p| p.camp.clone()) != camp {
        return;
    }
    let key = format!("{skill}:{}", camp.unwrap_or_default());
    let n = cx.st.counters.get(&key).copied().unwrap_or(0) + 1;
    cx.st.counters.insert(key, n);
}

/// `mutiny` at the end of a night: each camp whose own-kill count reached a new multiple of
/// `at` asks every living holder of that camp; `是` moves them to `to_camp`.
pub(crate) fn mutiny(cx: &mut Ctx) -> Flow {
    let mut asks: Vec<(String, String, String, i64)> = Vec::new();
    for p in cx.st.alive() {
        let Some((skill, at, to)) = mutiny_of(cx, &p.name) else {
            continue;
        };
        let Some(camp) = p.camp.clone() else { continue };
        let n = cx
            .st
            .counters
            .get(&format!("{skill}:{camp}"))
            .copied()
            .unwrap_or(0);
        let asked = cx
            .st
            .counters
            .get(&format!("{skill}已询问:{camp}"))
            .copied()
            .unwrap_or(0);
        let due = n / at.max(1);
        if due > asked {
            asks.push((p.name.clone(), skill, to, due));
        }
    }
    let mut done: Vec<(String, i64)> = Vec::new();
    for (name, skill, to, due) in asks {
        let camp = cx
            .st
            .player(&name)
            .and_then(|p| p.camp.clone())
            .unwrap_or_default();
        let clause = cx.skill_clause(&skill);
        match cx.answer(&name, &skill) {
            Some(a) if matches!(a.choice.as_deref(), Some("是" | "发动" | "yes")) => {
                cx.st.player_mut(&name).expect("exists").camp = Some(to.clone());
                cx.note(format!("{name} 发动<{skill}>，变为{to}"), &clause);
                cx.tell(&name, format!("你发动<{skill}>，变为【{to}】。"));
            }
            Some(a) if matches!(a.choice.as_deref(), Some("否" | "不发动" | "no")) => {
                cx.note(format!("{name} 不发动<{skill}>"), &clause);
            }
            Some(a) => return Err(cx.bad(&a, format!("<{skill}>的 choice 须为「是」或「否」"))),
            None if cx.unanswered() => {
                return Err(Stop::Prompt(Box::new(Prompt {
                    player: name.clone(),
                    skill: skill.clone(),
                    question: format!(
                        "{camp}的乱世流民被本阵营攻击出局已达条件，{name} 可发动<{skill}>变为{to}：在 actions 文件中加入 [[action]] actor = \"{name}\" skill = \"{skill}\" choice = \"是\"（或 \"否\"）"
                    ),
                    candidates: Vec::new(),
                    may_pass: true,
                    clause,
                })));
            }
            None => cx.note(format!("{name} 的<{skill}>未记录，视为不发动"), &clause),
        }
        if !done.iter().any(|(c, _)| *c == camp) {
            done.push((camp.clone(), due));
        }
    }
    for (camp, due) in done {
        for k in cx
            .rules
            .skills
            .iter()
            .filter(|(_, d)| d.effects.iter().any(|e| matches!(e, Effect::Mutiny { .. })))
            .map(|(k, _)| k.clone())
            .collect::<Vec<_>>()
        {
            cx.st.counters.insert(format!("{k}已询问:{camp}"), due);
        }
    }
    Ok(())
}
