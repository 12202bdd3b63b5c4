//! Information and influence: `reveal-camp`, `observe`, `count-camps` (with what a `shroud`
//! changes), `pipe`, `force`, `restrict`, `relay`, `refresh-limited`.

use serde::{Deserialize, Serialize};

use super::{Behaviour, kind};
use crate::action::Action;
use crate::ctx::{Ctx, Flow, Mark};
use crate::rules::{Effect, SkillDef, Step};
use crate::state::{GameState, Restriction, Status};

/// The target is immune to attacks and poison this night, before burns count; investigations
/// of the target this night answer what the actor's `choice` says (a camp name for camp
/// feedback, any other text for skill feedback; parts split by `；`) (雪隐).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Shroud {}

/// Next night, players not of the actor's camp may target only themselves and their two
/// nearest living seat neighbours (ring); `announce` is published in the morning (暴风雪).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Restrict {
    #[serde(default)]
    pub announce: Option<String>,
}

/// Private feedback: the target's camp as shown (雪隐 may change it) (验人).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RevealCamp {}

/// Private feedback: what the target did tonight and what was used on it (no results);
/// with `role`, also its role and camp (天眼 mode 1, 隼眼).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Observe {
    #[serde(default)]
    pub role: bool,
}

/// Private feedback: the living members of each camp (天眼 mode 2, no target).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct CountCamps {}

/// The target gets `status` (told `notice`); a target of `join_role` joins the actor's
/// camp secretly; any other target is announced with `announce` (`{target}`). With
/// `extra_if_smallest`, the skill may be used once more a night while the actor's camp is
/// the unique smallest of those camps (普度).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Pipe {
    pub status: String,
    pub join_role: String,
    #[serde(default)]
    pub notice: Option<String>,
    #[serde(default)]
    pub announce: Option<String>,
    #[serde(default)]
    pub extra_if_smallest: Vec<String>,
}

/// `targets[0]` uses its `choice`-th skill (1-based, in its role's order) on `targets[1]`
/// (or without a target) once more, spending a use; told `你被…迷惑`. Choosing oneself first
/// loses the skill (妖术). The forced use obeys the target limits of the forced skill
/// (cooldowns, once-per-target, `restrict`ions, not-self). The notice is released at
/// `team_notice_at` when the forced skill is a team skill (Q2「在45分告知被成功魔音的团队角色」).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Force {
    pub notice: String,
    #[serde(default)]
    pub team_notice_at: Option<String>,
}

/// The actor's `choice` (at most `max_chars` characters) is passed to the holders of
/// `to_role` (报信).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Relay {
    pub to_role: String,
    pub max_chars: usize,
}

/// The target's used-up <限定> skills (one use) are usable again (激励).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RefreshLimited {}

/// Passive: at the end of each night the holder is told if their camp changed (感知).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SenseCamp {}

impl Behaviour for kind::Shroud {
    fn act(&self, cx: &mut Ctx, _def: &SkillDef, a: &Action) -> Flow {
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

        Ok(())
    }
}

impl Behaviour for kind::Restrict {
    fn act(&self, cx: &mut Ctx, _def: &SkillDef, a: &Action) -> Flow {
        let kind::Restrict { announce } = self;

        restrict(cx, a, announce);

        Ok(())
    }
}

impl Behaviour for kind::RevealCamp {
    fn act(&self, cx: &mut Ctx, _def: &SkillDef, a: &Action) -> Flow {
        reveal_camp(cx, a);

        Ok(())
    }
}

impl Behaviour for kind::Observe {
    fn act(&self, cx: &mut Ctx, _def: &SkillDef, a: &Action) -> Flow {
        let kind::Observe { role } = self;

        if !a.targets.is_empty() {
            observe(cx, a, *role)
        }

        Ok(())
    }
}

impl Behaviour for kind::CountCamps {
    fn act(&self, cx: &mut Ctx, _def: &SkillDef, a: &Action) -> Flow {
        if a.targets.is_empty() {
            count_camps(cx, a)
        }

        Ok(())
    }
}

impl Behaviour for kind::Pipe {
    fn names(&self) -> Vec<(&'static str, &str)> {
        std::iter::once(("role", self.join_role.as_str()))
            .chain(self.extra_if_smallest.iter().map(|c| ("camp", c.as_str())))
            .collect()
    }

    /// `extra_if_smallest`: once more a night while the actor's camp is the unique smallest.
    fn extra_uses(&self, st: &GameState, actor: &str) -> u32 {
        let camp = st.player(actor).and_then(|p| p.camp.clone());
        let extra = !self.extra_if_smallest.is_empty()
            && camp
                .as_deref()
                .is_some_and(|c| st.unique_smallest(c, &self.extra_if_smallest));
        u32::from(extra)
    }

    fn act(&self, cx: &mut Ctx, _def: &SkillDef, a: &Action) -> Flow {
        let kind::Pipe {
            status,
            join_role,
            notice,
            announce,
            ..
        } = self;

        pipe(cx, a, status, join_role, notice, announce);

        Ok(())
    }
}

impl Behaviour for kind::Force {
    fn act(&self, cx: &mut Ctx, _def: &SkillDef, a: &Action) -> Flow {
        let kind::Force {
            notice,
            team_notice_at,
        } = self;

        force(cx, a, notice, team_notice_at)?;

        Ok(())
    }
}

impl Behaviour for kind::Relay {
    fn names(&self) -> Vec<(&'static str, &str)> {
        vec![("role", &self.to_role)]
    }

    fn act(&self, cx: &mut Ctx, _def: &SkillDef, a: &Action) -> Flow {
        let kind::Relay { to_role, max_chars } = self;

        relay(cx, a, to_role, *max_chars)?;

        Ok(())
    }
}

impl Behaviour for kind::RefreshLimited {
    fn act(&self, cx: &mut Ctx, _def: &SkillDef, a: &Action) -> Flow {
        refresh_limited(cx, a);

        Ok(())
    }
}

impl Behaviour for kind::SenseCamp {}

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

/// `sense-camp`: holders whose camp changed during the night are told (at its end).
/// `settle = "tell-team"`: each living member of the step's `camp` holding one of its
/// `skills` is told who the others are.
pub(crate) fn tell_team(cx: &mut Ctx, step: &Step) {
    let team: Vec<String> = cx
        .st
        .alive()
        .filter(|p| step.camp.is_none() || p.camp == step.camp)
        .filter(|p| step.skills.iter().any(|s| p.can_use(s)))
        .map(|p| p.name.clone())
        .collect();
    for name in &team {
        let others: Vec<&str> = team
            .iter()
            .filter(|o| *o != name)
            .map(String::as_str)
            .collect();
        let text = if others.is_empty() {
            "互知共群：你没有共群的队友。".to_string()
        } else {
            format!("互知共群：你的队友是 {}。", others.join("、"))
        };
        cx.tell(name, text);
    }
    let clause = step.clause.clone();
    cx.note(format!("互知共群：{}", team.join("、")), &clause);
}

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
                    .is_some_and(|d| d.effects.iter().any(|e| matches!(e, Effect::SenseCamp(_))))
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
