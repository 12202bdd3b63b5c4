//! Information and influence: `reveal-camp`, `observe`, `count-camps` (with what a `shroud`
//! changes), `pipe`, `force`, `restrict`, `relay`, `refresh-limited`.

use crate::action::Action;
use crate::ctx::{Ctx, Flow};
use crate::state::{Restriction, Status};

/// What a `shroud` on `target` tonight says instead: (camp shown, skill feedback text).
fn mask(cx: &Ctx, target: &str) -> (Option<String>, Option<String>) {
    let mut camp = None;
    let mut text = None;
    for (m, choice) in &cx.marks.shrouds {
        if m.target != target {
            continue;
        }
        for part in choice.as_deref().unwrap_or("").split(['；', ';']) {
            let part = part.trim();
            if part.is_empty() {
                continue;
            }
            if cx.rules.camp_index(part).is_some() {
                camp = Some(part.to_string());
            } else {
                text = Some(part.to_string());
            }
        }
    }
    (camp, text)
}

pub(crate) fn reveal_camp(cx: &mut Ctx, a: &Action) {
    for t in &a.targets {
        let p = cx.st.player(t).expect("validated");
        let shown = mask(cx, t)
            .0
            .or_else(|| p.apparent_camp.clone())
            .or_else(|| p.camp.clone())
            .unwrap_or_else(|| "无阵营".into());
        cx.tell(&a.actor, format!("<{}>：{t} 的阵营是 {shown}", a.skill));
    }
}

/// What `t` did tonight and which skills were used on it (no results), so far.
pub(crate) fn observe(cx: &mut Ctx, a: &Action, role: bool) {
    for t in &a.targets {
        let (camp_mask, text_mask) = mask(cx, t);
        let mut lines = Vec::new();
        if role {
            let p = cx.st.player(t).expect("validated");
            let camp = camp_mask
                .clone()
                .or_else(|| p.camp.clone())
                .unwrap_or_else(|| "无阵营".into());
            lines.push(format!("身份 {}，阵营 {camp}", p.role));
        }
        match text_mask {
            Some(text) => lines.push(text),
            None => {
                let did: Vec<String> = cx
                    .marks
                    .used
                    .iter()
                    .filter(|u| &u.actor == t)
                    .map(|u| {
                        if u.targets.is_empty() {
                            format!("<{}>", u.skill)
                        } else {
                            format!("对{}使用了<{}>", u.targets.join("、"), u.skill)
                        }
                    })
                    .collect();
                let got: Vec<String> = cx
                    .marks
                    .used
                    .iter()
                    .filter(|u| u.targets.contains(t))
                    .map(|u| format!("<{}>", u.skill))
                    .collect();
                lines.push(format!(
                    "当晚{}；被使用了{}",
                    if did.is_empty() {
                        "未使用技能".into()
                    } else {
                        did.join("，")
                    },
                    if got.is_empty() {
                        "无技能".into()
                    } else {
                        got.join("")
                    }
                ));
            }
        }
        cx.tell(
            &a.actor,
            format!("<{}>：{t}：{}", a.skill, lines.join("；")),
        );
    }
}

pub(crate) fn count_camps(cx: &mut Ctx, a: &Action) {
    let parts: Vec<String> = cx
        .rules
        .camps
        .iter()
        .map(|c| format!("{} {}", c.name, cx.st.camp_size(&c.name)))
        .collect();
    cx.tell(
        &a.actor,
        format!("<{}>：存活的阵营成员数量：{}", a.skill, parts.join("，")),
    );
}

#[allow(clippy::too_many_arguments)]
pub(crate) fn pipe(
    cx: &mut Ctx,
    a: &Action,
    status: &str,
    join_role: &str,
    notice: &Option<String>,
    announce: &Option<String>,
) {
    let clause = cx.skill_clause(&a.skill);
    let camp = cx.st.player(&a.actor).and_then(|p| p.camp.clone());
    for t in &a.targets {
        let p = cx.st.player_mut(t).expect("validated");
        if !p.has_status(status) {
            p.statuses.push(Status {
                name: status.to_string(),
                until_day: None,
            });
        }
        let role = p.role.clone();
        if let Some(n) = notice {
            cx.tell(t, n.clone());
        }
        if role == join_role {
            let p = cx.st.player_mut(t).expect("validated");
            p.camp = camp.clone();
            cx.note(
                format!(
                    "{t} 进入{status}状态，支持{}",
                    camp.clone().unwrap_or_default()
                ),
                &clause,
            );
        } else {
            cx.note(format!("{t} 进入{status}状态"), &clause);
            if let Some(ann) = announce {
                cx.report.announcements.push(ann.replace("{target}", t));
            }
        }
    }
}

/// `force`: `targets[0]` uses its `choice`-th skill on `targets[1..]` once more.
pub(crate) fn force(
    cx: &mut Ctx,
    a: &Action,
    notice: &str,
    team_notice_at: &Option<String>,
) -> Flow {
    let clause = cx.skill_clause(&a.skill);
    let Some(x) = a.targets.first().cloned() else {
        return Ok(());
    };
    if x == a.actor
        && let Some(s) = cx
            .st
            .player_mut(&a.actor)
            .and_then(|p| p.skills.get_mut(&a.skill))
    {
        s.lost = true;
        cx.note(
            format!("{} 的<{}>第一目标选择自己，失去该技能", a.actor, a.skill),
            &clause,
        );
    }
    let n: usize = a
        .choice
        .as_deref()
        .and_then(|c| {
            c.trim_start_matches('第')
                .trim_end_matches("个技能")
                .parse()
                .ok()
        })
        .unwrap_or(0);
    let Some(p) = cx.st.player(&x).cloned() else {
        return Ok(());
    };
    let skill = cx
        .rules
        .role(&p.role)
        .and_then(|r| r.skills.get(n.wrapping_sub(1)).cloned());
    let rest: Vec<String> = a.targets[1..].to_vec();
    let ok = skill.as_ref().and_then(|s| {
        let d = cx.rules.skill(s)?;
        let fits = d.timing == crate::rules::Timing::Night
            && p.alive()
            && p.can_use(s)
            && (rest.len() as u32) >= d.min_targets()
            && (rest.len() as u32) <= d.targets
            && rest
                .iter()
                .all(|t| cx.st.player(t).is_some_and(|q| q.alive()));
        fits.then(|| d.clone())
    });
    let (Some(skill), Some(def)) = (skill, ok) else {
        cx.note(
            format!(
                "{} <{}>：{x} 不能按要求使用第{n}个技能，妖术未成功",
                a.actor, a.skill
            ),
            &clause,
        );
        return Ok(());
    };
    // the forced use obeys the forced skill's own target limits (cooldowns, once per target,
    // a blizzard's neighbours): 「若该角色可以根据此要求成功使用技能」
    if let Err(why) =
        crate::validate::target_limits(&def, &skill, &cx.st, &p, &rest, cx.input.moment.day)
    {
        cx.note(
            format!(
                "{} <{}>：{x} 不能按要求使用<{skill}>（{why}），妖术未成功",
                a.actor, a.skill
            ),
            &clause,
        );
        return Ok(());
    }
    let forced = Action {
        actor: x.clone(),
        skill: skill.clone(),
        targets: rest.clone(),
        choice: None,
    };
    let before = cx.report.feedback.len();
    cx.note(
        format!("{} <{}>：{x} 额外使用<{skill}>", a.actor, a.skill),
        &clause,
    );
    crate::effects::apply_action(cx, &def, &forced)?;
    let seen: Vec<(String, Option<String>)> = cx.report.feedback[before..]
        .iter()
        .filter(|f| f.player == x)
        .map(|f| (f.text.clone(), f.at.clone()))
        .collect();
    let on = if rest.is_empty() {
        "（无目标）".to_string()
    } else {
        rest.join("、")
    };
    let text = notice.replace("{target}", &on).replace("{skill}", &skill);
    match team_notice_at {
        Some(at) if def.team => cx.tell_at(&x, text, Some(at.clone())),
        _ => cx.tell(&x, text),
    }
    // the piper learns the feedback when its user does
    for (s, at) in seen {
        cx.tell_at(&a.actor, format!("<{}>反馈：{s}", a.skill), at);
    }
    Ok(())
}

pub(crate) fn restrict(cx: &mut Ctx, a: &Action, announce: &Option<String>) {
    let camp = cx.st.player(&a.actor).and_then(|p| p.camp.clone());
    cx.st.restrictions.push(Restriction {
        night: cx.input.moment.day + 1,
        spare_camp: camp,
        skill: a.skill.clone(),
    });
    if let Some(t) = announce {
        cx.report.announcements.push(t.clone());
    }
}

pub(crate) fn relay(cx: &mut Ctx, a: &Action, to_role: &str, max_chars: usize) -> Flow {
    let text = a.choice.clone().unwrap_or_default();
    if text.chars().count() > max_chars {
        return Err(cx.bad(a, format!("<{}>限{max_chars}字以内", a.skill)));
    }
    let to: Vec<String> = cx
        .st
        .alive()
        .filter(|p| p.role == to_role)
        .map(|p| p.name.clone())
        .collect();
    for t in to {
        cx.tell(&t, format!("<{}>（{}）：{text}", a.skill, a.actor));
    }
    Ok(())
}

/// `refresh-limited`: the target's used-up <限定> skills (uses = 1) are usable again.
pub(crate) fn refresh_limited(cx: &mut Ctx, a: &Action) {
    let clause = cx.skill_clause(&a.skill);
    for t in &a.targets {
        let mut back = Vec::new();
        let limited: Vec<String> = cx
            .rules
            .skills
            .iter()
            .filter(|(_, d)| d.uses == Some(1))
            .map(|(k, _)| k.clone())
            .collect();
        if let Some(p) = cx.st.player_mut(t) {
            for (k, s) in p.skills.iter_mut() {
                if limited.contains(k) && s.uses_left == Some(0) && !s.lost {
                    s.uses_left = Some(1);
                    back.push(k.clone());
                }
            }
        }
        if !back.is_empty() {
            cx.note(format!("{t} 的<{}>恢复可用", back.join("><")), &clause);
            cx.tell(t, format!("你的<{}>恢复成可用状态。", back.join("><")));
        }
    }
}
