//! Camp-wide counts of outs that make holders rise or change sides (卫国, 谋反).

use serde::{Deserialize, Serialize};

use super::{Behaviour, kind};
use crate::ctx::{Attack, Ctx, Flow, Stop};
use crate::phase::Prompt;
use crate::rules::Effect;
use crate::state::Phase;

/// Passive on a pool role: counts, per camp, holders put out at night by an attack or
/// poison of a player of another camp. At the end of a night where a camp's count has
/// reached `at` (once per camp), `announce` (`{camp}`) is published and every living
/// holder of that camp gets `status`; after that, the first player of another camp who
/// puts one of them out is announced with `reveal` (`{killer}`, `{role}`, `{camp}`); when
/// that player puts another of them out, the victim attacks the killer (settled at the
/// `settle = "late-kills"` step) (卫国).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Grievance {
    pub at: i64,
    pub status: String,
    pub announce: String,
    pub reveal: String,
}

/// Prompt-timed, on a pool role: counts, per camp, holders put out at night by an attack
/// or poison of a player of their own camp; each time a camp's count reaches another
/// multiple of `at`, at the end of the night every living holder of that camp is asked
/// (answer `choice = "是"` / `"否"`; the bare action, without a choice, is a use: its presence
/// says the skill was used) whether to move to `to_camp` (谋反).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Mutiny {
    pub at: i64,
    pub to_camp: String,
}

impl Behaviour for kind::Grievance {}

impl Behaviour for kind::Mutiny {}

/// The `grievance` effect `name` holds, with its skill.
fn grievance_of(cx: &Ctx, name: &str) -> Option<(String, Effect)> {
    let p = cx.st.player(name)?;
    p.skills.iter().filter(|(_, s)| !s.lost).find_map(|(k, _)| {
        cx.rules
            .skill(k)?
            .effects
            .iter()
            .find_map(|e| matches!(e, Effect::Grievance(_)).then(|| (k.clone(), e.clone())))
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
    let Some((skill, Effect::Grievance(kind::Grievance { status, reveal, .. }))) =
        grievance_of(cx, name)
    else {
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
            let Effect::Grievance(kind::Grievance {
                at,
                status,
                announce,
                ..
            }) = e
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
            Effect::Mutiny(kind::Mutiny { at, to_camp }) => Some((k.clone(), *at, to_camp.clone())),
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
            Some(a) if matches!(a.choice.as_deref(), None | Some("是" | "发动" | "yes")) => {
                cx.st.player_mut(&name).expect("exists").camp = Some(to.clone());
                cx.note(format!("{name} 发动<{skill}>，变为{to}"), &clause);
                cx.tell(&name, format!("你发动<{skill}>，变为【{to}】。"));
            }
            Some(a) if matches!(a.choice.as_deref(), Some("否" | "不发动" | "no")) => {
                cx.note(format!("{name} 不发动<{skill}>"), &clause);
            }
            Some(a) => {
                return Err(cx.bad(
                    &a,
                    format!("<{skill}>的 choice 须为「是」或「否」（不写 choice 即为发动）"),
                ));
            }
            None if cx.unanswered() => {
                return Err(Stop::Prompt(Box::new(Prompt {
                    player: name.clone(),
                    skill: skill.clone(),
                    question: format!(
                        "{camp}的乱世流民被本阵营攻击出局已达条件，{name} 可发动<{skill}>变为{to}：在 actions 文件中加入 [[action]] actor = \"{name}\" skill = \"{skill}\"（发动；不发动：choice = \"否\"）"
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
            .filter(|(_, d)| d.effects.iter().any(|e| matches!(e, Effect::Mutiny(_))))
            .map(|(k, _)| k.clone())
            .collect::<Vec<_>>()
        {
            cx.st.counters.insert(format!("{k}已询问:{camp}"), due);
        }
    }
    Ok(())
}
