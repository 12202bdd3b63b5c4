//! Statuses with durations (`grant-status`, `hold-status`) and what the rule file's
//! `[[engine.status]]` declarations make of them: composites, blocked skills, protections
//! against causes of going out (守护 spent shortest first, 坚韧, 不死), untargetable holders.

use serde::{Deserialize, Serialize};

use super::{Behaviour, kind};
use crate::action::Action;
use crate::ctx::{Ctx, Flow};
use crate::rules::{SkillDef, StatusDef};
use crate::state::{Phase, Status};

/// When a granted status ends, as the post says it. Instances end at the end of a resolved
/// phase (`Status.until_day`): see the rule file's readings for how each maps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Until {
    /// 「持续至夜晚结束」 (also 「当晚」).
    NightEnd,
    /// 「持续至下一个[正午]阶段开始」: past the night's dawn, gone before the next night.
    NextNoon,
    /// 「持续至下一个[黄昏]阶段结束」.
    NextDuskEnd,
    /// 「永久」.
    Permanent,
}

impl Until {
    /// The last day number the instance holds for, granted at `day`/`phase`. An instance
    /// ending at a dusk also ends when the night after that dusk starts, if no dusk phase was
    /// resolved (see `expire_at_night`).
    fn until_day(self, day: u32, phase: Phase) -> Option<u32> {
        let next = |d: u32| if phase == Phase::Night { d + 1 } else { d };
        match self {
            Until::NightEnd | Until::NextNoon => Some(day),
            Until::NextDuskEnd => Some(next(day)),
            Until::Permanent => None,
        }
    }
}

/// The player counter marking an instance of `status` that ends at day `d`'s dusk.
fn dusk_key(status: &str) -> String {
    format!("黄昏结束:{status}")
}

/// Night `n` starts: instances that were to end at day `n`'s dusk are gone.
pub(crate) fn expire_at_night(cx: &mut Ctx) {
    let n = cx.input.moment.day;
    if cx.input.moment.phase != Phase::Night || n == 0 {
        return;
    }
    for p in &mut cx.st.players {
        let ending: Vec<String> = p
            .counters
            .iter()
            .filter(|(k, v)| k.starts_with("黄昏结束:") && **v == i64::from(n))
            .map(|(k, _)| k.clone())
            .collect();
        for k in ending {
            let status = k.trim_start_matches("黄昏结束:").to_string();
            p.statuses
                .retain(|s| !(s.name == status && s.until_day == Some(n)));
            p.counters.remove(&k);
        }
    }
}

/// Who gets a granted status.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Whom {
    /// Each final target (after the hand-off, for a <指定> skill).
    #[default]
    Target,
    /// The user of the skill.
    Actor,
    /// Every player still in the game (灵鹿 森林庇护「所有角色仅当晚获得[不死]」).
    All,
}

/// The target (or the actor, or everyone) gets `status` until `until`; `notice` is told to
/// each who gets it (「角色会得知被附加的效果」; none for a status not told, [流血]).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct GrantStatus {
    pub status: String,
    pub until: Until,
    #[serde(default)]
    pub whom: Whom,
    #[serde(default)]
    pub notice: Option<String>,
    /// Published in the morning, once per target (`{target}`) (乌鸦「公示[目标角色被诽谤]」).
    #[serde(default)]
    pub announce: Option<String>,
    /// Only a target whose true camp is this one gets it (子狐 咒缚「若目标角色的[实际身份]为
    /// [狼人阵营]……否则无效果」).
    #[serde(default)]
    pub if_camp: Option<String>,
}

/// On going out: the living players within `reach` seats on each side (the ring skips
/// players out, 「电梯楼相关效果都排除当前已出局成员，并且首尾算作相邻」) get `statuses` until the
/// end of the next night; `announce` is published (大蒜 熏臭).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct NeighboursStatus {
    pub reach: usize,
    pub statuses: Vec<String>,
    #[serde(default)]
    pub announce: Option<String>,
}

impl Behaviour for kind::NeighboursStatus {
    fn fires_on_out(&self) -> bool {
        true
    }

    fn on_own_out(&self, cx: &mut Ctx, o: &super::OwnOut) -> Flow {
        let m = cx.input.moment;
        // the next night: after a night n it is n + 1; by day it is the coming night
        let next_night = if m.phase == Phase::Night || cx.rules.night_before_day {
            m.day + 1
        } else {
            m.day
        };
        let who = living_within(cx, o.name, self.reach);
        for w in &who {
            if let Some(p) = cx.st.player_mut(w) {
                for s in &self.statuses {
                    p.statuses.push(Status {
                        name: s.clone(),
                        until_day: Some(next_night),
                    });
                }
            }
            cx.tell(
                w,
                format!(
                    "你获得【{}】，持续到下一晚结束。",
                    self.statuses.join("】【")
                ),
            );
        }
        cx.note(
            format!(
                "{} <{}>：{} 获得【{}】",
                o.name,
                o.skill,
                who.join("、"),
                self.statuses.join("】【")
            ),
            &o.def.clause,
        );
        if let Some(a) = &self.announce {
            cx.report.announcements.push(a.clone());
        }
        Ok(())
    }
}

/// The living players within `reach` seats of `name` on each side, nearest first, up then
/// down (each once, never `name`).
fn living_within(cx: &Ctx, name: &str, reach: usize) -> Vec<String> {
    let players = &cx.st.players;
    let n = players.len();
    let Some(i) = players.iter().position(|p| p.name == name) else {
        return Vec::new();
    };
    let mut out: Vec<String> = Vec::new();
    for step in [n - 1, 1] {
        let mut j = i;
        let mut found = 0;
        for _ in 0..n {
            j = (j + step) % n;
            if j == i || found == reach {
                break;
            }
            if players[j].alive() {
                found += 1;
                if !out.contains(&players[j].name) {
                    out.push(players[j].name.clone());
                }
            }
        }
    }
    out
}

/// When a held status applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum When {
    /// Every game night (「游戏日夜晚，士兵获得[守护：1]状态」), until the night ends.
    Night,
    /// Every day phase (太阳「游戏日白天获得[不死]状态」).
    Day,
    /// For good, while the skill is held (九尾狐「[常驻]：九尾狐获得[不死]」): given again at
    /// each phase's start for that phase.
    Always,
    /// Once, the first phase the holder has the skill (灵鹿「永久获得[守护：1]」): a spent
    /// instance does not come back.
    Once,
}

/// Passive: while the holder is in the game and the skill not lost, `status` is given at the
/// start of each phase `when` says (a spent instance comes back the next such phase; an
/// `always` one only if none is held).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct HoldStatus {
    pub status: String,
    pub when: When,
}

impl Behaviour for kind::GrantStatus {
    fn act(&self, cx: &mut Ctx, def: &SkillDef, a: &Action) -> Flow {
        let m = cx.input.moment;
        let until_day = self.until.until_day(m.day, m.phase);
        let who: Vec<String> = match self.whom {
            Whom::Target => a.targets.clone(),
            Whom::Actor => vec![a.actor.clone()],
            Whom::All => cx.st.alive().map(|p| p.name.clone()).collect(),
        };
        for w in who {
            let Some(p) = cx.st.player_mut(&w) else {
                continue;
            };
            if self.if_camp.is_some() && p.camp != self.if_camp {
                cx.note(
                    format!(
                        "{} <{}>：{w} 不属于{}，无效果",
                        a.actor,
                        a.skill,
                        self.if_camp.as_deref().unwrap_or("")
                    ),
                    &def.clause,
                );
                continue;
            }
            p.statuses.push(Status {
                name: self.status.clone(),
                until_day,
            });
            if self.until == Until::NextDuskEnd
                && let Some(d) = until_day
            {
                p.counters.insert(dusk_key(&self.status), i64::from(d));
            }
            cx.marks
                .granted
                .push((w.clone(), self.status.clone(), a.actor.clone()));
            cx.note(
                format!("{} <{}>：{w} 获得【{}】", a.actor, a.skill, self.status),
                &def.clause,
            );
            if let Some(n) = &self.notice {
                cx.tell(&w, n.clone());
            }
            if let Some(text) = &self.announce {
                let text = text.replace("{target}", &w);
                if !cx.report.announcements.contains(&text) {
                    cx.report.announcements.push(text);
                }
            }
        }
        Ok(())
    }
}

impl Behaviour for kind::HoldStatus {
    fn on_phase_start(&self, cx: &mut Ctx, holder: &str, skill: &str) {
        let m = cx.input.moment;
        let given = format!("{}已获得:{skill}", self.status);
        let until_day = match (self.when, m.phase) {
            (When::Once, _) => {
                let Some(p) = cx.st.player_mut(holder) else {
                    return;
                };
                if p.counter(&given) > 0 {
                    return;
                }
                p.counters.insert(given, 1);
                p.statuses.push(Status {
                    name: self.status.clone(),
                    until_day: None,
                });
                return;
            }
            (When::Always, _) => Some(m.day),
            (When::Night, Phase::Night) if m.day > 0 => Some(m.day),
            (When::Day, Phase::Day) => Some(m.day),
            _ => return,
        };
        let Some(p) = cx.st.player_mut(holder) else {
            return;
        };
        let held = p
            .statuses
            .iter()
            .any(|s| s.name == self.status && s.until_day == until_day);
        if !held {
            p.statuses.push(Status {
                name: self.status.clone(),
                until_day,
            });
        }
    }
}

/// The statuses `name` holds, with what composites include (each name once).
pub(crate) fn held(cx: &Ctx, name: &str) -> Vec<String> {
    let Some(p) = cx.st.player(name) else {
        return Vec::new();
    };
    expand(cx, p.statuses.iter().map(|s| s.name.clone()).collect())
}

/// The statuses with what composites include (each name once).
fn expand(cx: &Ctx, mut todo: Vec<String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    while let Some(s) = todo.pop() {
        if out.contains(&s) {
            continue;
        }
        if let Some(d) = def(cx, &s) {
            todo.extend(d.includes.iter().cloned());
        }
        out.push(s);
    }
    out
}

fn def<'r>(cx: &Ctx<'r>, status: &str) -> Option<&'r StatusDef> {
    cx.rules.statuses.iter().find(|d| d.name == status)
}

/// The status that stops `actor` using `skill` now, if any (沉默, 缴械; a team skill blocked
/// for one holder is blocked for the team when the status says so).
pub(crate) fn blocked(cx: &Ctx, actor: &str, skill: &str, sd: &SkillDef) -> Option<String> {
    // the status held is named (冰冻), not the part of it that blocks (沉默)
    let stops = |who: &str, team: bool| {
        let own: Vec<String> = cx
            .st
            .player(who)
            .map(|p| p.statuses.iter().map(|s| s.name.clone()).collect())
            .unwrap_or_default();
        own.into_iter().find(|s| {
            expand(cx, vec![s.clone()]).iter().any(|part| {
                def(cx, part).is_some_and(|d| {
                    (!team || d.blocks_team)
                        && ((d.blocks_unforced && !sd.forced)
                            || d.blocks_skills.iter().any(|k| k == skill))
                })
            })
        })
    };
    if let Some(s) = stops(actor, false) {
        return Some(format!("{actor} 处于【{s}】"));
    }
    if !sd.team {
        return None;
    }
    let camp = cx.st.player(actor).and_then(|p| p.camp.clone());
    let mates: Vec<String> = cx
        .st
        .alive()
        .filter(|p| p.name != actor && p.camp == camp && p.skills.contains_key(skill))
        .map(|p| p.name.clone())
        .collect();
    mates
        .iter()
        .find_map(|m| stops(m, true).map(|s| format!("{m} 处于【{s}】（群内）")))
}

/// Whether a status keeps `name` in the game against `cause` (noted): `only_out_by`
/// statuses first (they spend nothing), then one guarding instance, the one ending first.
pub(crate) fn stops_out(cx: &mut Ctx, name: &str, cause: &str) -> bool {
    let statuses = held(cx, name);
    let source_camp = cx
        .at
        .source
        .as_ref()
        .and_then(|s| cx.st.player(s))
        .and_then(|p| p.camp.clone());
    for s in &statuses {
        let Some(d) = def(cx, s) else { continue };
        if d.from_camp.is_some() && d.from_camp != source_camp {
            continue;
        }
        if d.only_out_by
            .as_ref()
            .is_some_and(|only| !only.iter().any(|c| c == cause))
            || d.not_out_by.iter().any(|c| c == cause)
        {
            let clause = d.clause.clone();
            cx.note(format!("{name} 持有【{s}】，不因{cause}出局"), &clause);
            return true;
        }
    }
    let guard = {
        let Some(p) = cx.st.player(name) else {
            return false;
        };
        let mut v: Vec<(usize, Option<u32>, &StatusDef)> = p
            .statuses
            .iter()
            .enumerate()
            .filter_map(|(i, st)| {
                def(cx, &st.name)
                    .filter(|d| d.guards.iter().any(|c| c == cause))
                    .map(|d| (i, st.until_day, d))
            })
            .collect();
        // the instance that ends first is spent first (none = never ends: last)
        v.sort_by_key(|(i, u, _)| (u.is_none(), *u, *i));
        v.first().map(|(i, _, d)| (*i, (*d).clone()))
    };
    let Some((i, d)) = guard else {
        return false;
    };
    if !d.unlimited
        && let Some(p) = cx.st.player_mut(name)
    {
        p.statuses.remove(i);
    }
    let spent = if d.unlimited { "" } else { "，消耗一层" };
    cx.note(
        format!("{name} 的【{}】抵消{cause}{spent}", d.name),
        &d.clause,
    );
    true
}

/// Whether `name` holds a status that drops it as a <指定> skill's final target (隐身).
pub(crate) fn untargetable(cx: &Ctx, name: &str) -> Option<String> {
    held(cx, name)
        .into_iter()
        .find(|s| def(cx, s).is_some_and(|d| d.untargetable))
}
