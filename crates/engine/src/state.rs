//! The game as it stands: plain data (Clone, Serialize), so a snapshot is a clone.
//! Players are kept in seat (电梯) order; seat neighbours wrap around and keep dead seats.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::rules::{EngineRules, Timing};

/// When something happened, in game time (the store maps it to wall-clock times).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Moment {
    /// Day number; a night belongs to the day that precedes it (night N after day N,
    /// night 0 = 开局 before day 1).
    pub day: u32,
    pub phase: Phase,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Phase {
    Day,
    Dusk,
    Night,
}

impl std::fmt::Display for Moment {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.phase {
            Phase::Night if self.day == 0 => write!(f, "开局"),
            Phase::Night => write!(f, "第{}夜", self.day),
            Phase::Dusk => write!(f, "第{}天黄昏", self.day),
            Phase::Day => write!(f, "第{}天", self.day),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Out {
    pub at: Moment,
    /// The first cause; `causes` keeps every cause that hit the player (they die once).
    pub cause: String,
    pub causes: Vec<String>,
    /// 1-based order of going out in the whole game (for 遗言 rights).
    #[serde(default)]
    pub order: u32,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SkillState {
    /// Uses left; none = unlimited.
    pub uses_left: Option<u32>,
    /// Lost (by a rule: 救药 ends 通灵, 村长 out, …).
    pub lost: bool,
    /// Gained during the game rather than dealt with the role.
    pub granted: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Status {
    pub name: String,
    /// Last day it holds (inclusive); none = until removed.
    pub until_day: Option<u32>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlayerState {
    pub name: String,
    /// 1-based seat.
    pub seat: u32,
    pub role: String,
    /// The role others see (灵魁 keeps showing the old one); none = `role`.
    pub apparent_role: Option<String>,
    /// True camp; none until decided (丘比特, 混血儿 before 开局).
    pub camp: Option<String>,
    /// The camp others see; none = `camp`.
    pub apparent_camp: Option<String>,
    pub out: Option<Out>,
    pub skills: BTreeMap<String, SkillState>,
    pub statuses: Vec<Status>,
    pub counters: BTreeMap<String, i64>,
    /// Last night's targets per skill (for no-repeat limits).
    pub last_targets: BTreeMap<String, Vec<String>>,
}

impl PlayerState {
    pub fn alive(&self) -> bool {
        self.out.is_none()
    }
    pub fn counter(&self, name: &str) -> i64 {
        self.counters.get(name).copied().unwrap_or(0)
    }
    /// Holds the skill and may still use it.
    pub fn can_use(&self, skill: &str) -> bool {
        self.skills
            .get(skill)
            .is_some_and(|s| !s.lost && s.uses_left != Some(0))
    }
    pub fn has_status(&self, name: &str) -> bool {
        self.statuses.iter().any(|s| s.name == name)
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Link {
    /// The link's kind (情侣, 招募…).
    pub kind: String,
    /// Who made it (丘比特), if anyone.
    pub by: Option<String>,
    pub members: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameState {
    pub players: Vec<PlayerState>,
    pub sheriff: Option<String>,
    pub links: Vec<Link>,
    /// Game-wide counters (灵力 and the like may also live on their holder).
    pub counters: BTreeMap<String, i64>,
    /// Camps defeated (判负), in the order it happened.
    pub camps_lost: Vec<String>,
    pub winner: Option<Vec<String>>,
    /// The last night resolved (0 = 开局), if any.
    pub last_night: Option<u32>,
    /// How many players have gone out so far.
    #[serde(default)]
    pub outs: u32,
    /// Targets a skill may not choose (雪隐 once per target; 守护之盾 cooldowns).
    #[serde(default)]
    pub target_locks: Vec<TargetLock>,
    /// Target restrictions for a coming night (暴风雪).
    #[serde(default)]
    pub restrictions: Vec<Restriction>,
}

/// `skill` may not target `target` until after night `until_night` (none: for the game).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TargetLock {
    pub skill: String,
    pub target: String,
    pub until_night: Option<u32>,
}

/// On night `night`, players not of `spare_camp` may target only themselves and their two
/// nearest living seat neighbours.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Restriction {
    pub night: u32,
    pub spare_camp: Option<String>,
    pub skill: String,
}

/// A problem building the initial state from the roster.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SetupError {
    #[error("player `{0}` has no role (the engine needs every role)")]
    NoRole(String),
    #[error("player `{player}`: unknown role `{role}`")]
    UnknownRole { player: String, role: String },
    #[error("player `{player}`: 规则帖没有定义身份「{role}」（{clause}）")]
    Undefined {
        player: String,
        role: String,
        clause: String,
    },
    #[error("player `{0}` is listed twice")]
    Duplicate(String),
}

impl GameState {
    /// The state at the start of the game: `players` as (name, role) in seat order.
    pub fn new(rules: &EngineRules, players: &[(String, String)]) -> Result<GameState, SetupError> {
        let mut out = Vec::with_capacity(players.len());
        for (i, (name, role)) in players.iter().enumerate() {
            if out.iter().any(|p: &PlayerState| &p.name == name) {
                return Err(SetupError::Duplicate(name.clone()));
            }
            if let Some(u) = rules.undefined_roles.iter().find(|u| &u.name == role) {
                return Err(SetupError::Undefined {
                    player: name.clone(),
                    role: role.clone(),
                    clause: u.clause.clone(),
                });
            }
            let def = rules.role(role).ok_or_else(|| SetupError::UnknownRole {
                player: name.clone(),
                role: role.clone(),
            })?;
            let mut skills = BTreeMap::new();
            for s in &def.skills {
                let uses = rules.skill(s).and_then(|d| d.uses);
                skills.insert(
                    s.clone(),
                    SkillState {
                        uses_left: uses,
                        lost: false,
                        granted: false,
                    },
                );
            }
            out.push(PlayerState {
                name: name.clone(),
                seat: i as u32 + 1,
                role: def.name.clone(),
                apparent_role: None,
                camp: def.camp.clone(),
                apparent_camp: None,
                out: None,
                skills,
                statuses: Vec::new(),
                counters: initial_counters(rules, &def.skills),
                last_targets: BTreeMap::new(),
            });
        }
        Ok(GameState {
            players: out,
            sheriff: None,
            links: Vec::new(),
            counters: BTreeMap::new(),
            camps_lost: Vec::new(),
            winner: None,
            last_night: None,
            outs: 0,
            target_locks: Vec::new(),
            restrictions: Vec::new(),
        })
    }

    pub fn index(&self, name: &str) -> Option<usize> {
        self.players.iter().position(|p| p.name == name)
    }
    pub fn player(&self, name: &str) -> Option<&PlayerState> {
        self.players.iter().find(|p| p.name == name)
    }
    pub fn player_mut(&mut self, name: &str) -> Option<&mut PlayerState> {
        self.players.iter_mut().find(|p| p.name == name)
    }
    pub fn alive(&self) -> impl Iterator<Item = &PlayerState> {
        self.players.iter().filter(|p| p.alive())
    }

    /// Seat neighbours on the ring (dead seats kept): (left, right).
    pub fn neighbours(&self, name: &str) -> Option<(&PlayerState, &PlayerState)> {
        let i = self.index(name)?;
        let n = self.players.len();
        Some((&self.players[(i + n - 1) % n], &self.players[(i + 1) % n]))
    }

    /// The nearest living seat neighbours on the ring with the dead removed: (left, right);
    /// none when `name` is the only one alive.
    pub fn living_neighbours(&self, name: &str) -> Vec<String> {
        let Some(i) = self.index(name) else {
            return Vec::new();
        };
        let n = self.players.len();
        let mut v = Vec::new();
        for step in [n - 1, 1] {
            let mut j = (i + step) % n;
            while j != i {
                if self.players[j].alive() {
                    if !v.contains(&self.players[j].name) {
                        v.push(self.players[j].name.clone());
                    }
                    break;
                }
                j = (j + step) % n;
            }
        }
        v
    }

    /// Living members of `camp`.
    pub fn camp_size(&self, camp: &str) -> usize {
        self.alive()
            .filter(|p| p.camp.as_deref() == Some(camp))
            .count()
    }

    /// Whether `camp` is the unique smallest of `camps` by living members, not counting
    /// camps in `camps_lost`.
    pub fn unique_smallest(&self, camp: &str, camps: &[String]) -> bool {
        if self.camps_lost.iter().any(|c| c == camp) {
            return false;
        }
        let mine = self.camp_size(camp);
        camps
            .iter()
            .filter(|c| *c != camp && !self.camps_lost.contains(c))
            .all(|c| self.camp_size(c) > mine)
    }

    /// The other members of `name`'s links of this kind.
    pub fn linked(&self, name: &str, kind: &str) -> Vec<String> {
        self.links
            .iter()
            .filter(|l| l.kind == kind && l.members.iter().any(|m| m == name))
            .flat_map(|l| l.members.iter().filter(|m| *m != name).cloned())
            .collect()
    }

    /// Every skill the player holds now: dealt or granted, plus those of their links and the badge.
    pub fn held_skills(&self, rules: &EngineRules, name: &str) -> Vec<String> {
        let Some(p) = self.player(name) else {
            return Vec::new();
        };
        let mut v: Vec<String> = p
            .skills
            .iter()
            .filter(|(_, s)| !s.lost)
            .map(|(k, _)| k.clone())
            .collect();
        for l in &self.links {
            if l.members.iter().any(|m| m == name)
                && let Some(extra) = rules.link_skills.get(&l.kind)
            {
                v.extend(extra.iter().cloned());
            }
        }
        if self.sheriff.as_deref() == Some(name) {
            v.extend(rules.sheriff_skills.iter().cloned());
        }
        v.sort();
        v.dedup();
        v
    }

    /// The on-out skills that fire for this player, in the rule set's trigger order.
    pub fn on_out_skills(&self, rules: &EngineRules, name: &str) -> Vec<String> {
        let mut v: Vec<String> = self
            .held_skills(rules, name)
            .into_iter()
            .filter(|s| {
                rules.skill(s).is_some_and(|d| {
                    d.timing == Timing::OnOut || d.effects.iter().any(|e| e.on_out())
                }) && self.player(name).is_none_or(|p| {
                    // dealt/granted skills must still have uses; link/badge skills always fire
                    p.skills
                        .get(s)
                        .is_none_or(|st| !st.lost && st.uses_left != Some(0))
                })
            })
            .collect();
        let pos = |s: &String| {
            rules
                .on_out_order
                .iter()
                .position(|o| o == s)
                .unwrap_or(usize::MAX)
        };
        v.sort_by_key(|s| (pos(s), s.clone()));
        v
    }
}

/// Counters a role starts with (灵主's 灵力), from its skills' `out-counter` effects.
fn initial_counters(rules: &EngineRules, skills: &[String]) -> BTreeMap<String, i64> {
    let mut m = BTreeMap::new();
    for s in skills {
        for e in rules
            .skill(s)
            .map(|d| d.effects.as_slice())
            .unwrap_or_default()
        {
            if let crate::effects::Effect::OutCounter(crate::effects::kind::OutCounter {
                counter,
                initial,
                ..
            }) = e
            {
                m.insert(counter.clone(), *initial);
            }
        }
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules() -> EngineRules {
        toml::from_str(
            r#"
[[camp]]
name = "甲"
[[role]]
name = "民"
camp = "甲"
clause = "x"
[skill]
[[night]]
id = "n"
clause = "x"
"#,
        )
        .unwrap()
    }

    #[test]
    fn seat_neighbours_wrap_around_and_keep_dead_seats() {
        let r = rules();
        let seats: Vec<(String, String)> = ["a", "b", "c", "d"]
            .iter()
            .map(|n| (n.to_string(), "民".to_string()))
            .collect();
        let mut st = GameState::new(&r, &seats).unwrap();
        st.player_mut("b").unwrap().out = Some(Out {
            at: Moment {
                day: 1,
                phase: Phase::Night,
            },
            cause: "x".into(),
            causes: vec!["x".into()],
            order: 1,
        });
        let (l, rr) = st.neighbours("a").unwrap();
        assert_eq!((l.name.as_str(), rr.name.as_str()), ("d", "b"));
        let (l, rr) = st.neighbours("c").unwrap();
        assert_eq!(
            (l.name.as_str(), rr.name.as_str()),
            ("b", "d"),
            "a dead seat stays a neighbour"
        );
    }

    #[test]
    fn unknown_role_and_duplicate_player_are_setup_errors() {
        let r = rules();
        let e = GameState::new(&r, &[("a".into(), "狼".into())]).unwrap_err();
        assert_eq!(e.to_string(), "player `a`: unknown role `狼`");
        let e = GameState::new(&r, &[("a".into(), "民".into()), ("a".into(), "民".into())])
            .unwrap_err();
        assert_eq!(e.to_string(), "player `a` is listed twice");
    }
}
