//! 暴风雪山庄 (排球少年, M114) on the engine: places with capacities and traits, a move a
//! day, the murderer's plan, crime scenes, clues and a deadline. A game of its own beside the
//! werewolf loop: `[manor]` in the rule file, its own state and inputs, the same purity (no
//! SQLite, clock or network; draws from a recorded seed).
//!
//! `prepare(rules, setup)` → the state after 游戏准备阶段; `night(rules, state, n, input)` and
//! `day(rules, state, n, input)` → `Done(state, outcome)` or `Ask(question)` when the plan
//! cannot be carried out or the murderer must still choose something.

mod crime;
mod day;
pub mod input;
mod moves;
mod murder;
mod night;
pub mod rules;
pub mod scenario;
mod setup;
pub mod state;

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use crate::rng::Rng;
pub use day::day;
pub use input::{DayInput, ManorAction, NightInput, Plan, SetupInput};
pub use night::night;
pub use rules::ManorRules;
use rules::{Attr, SkillDef, SkillKind, Uses};
pub use setup::prepare;
pub use state::{ManorState, Side};

/// What a phase produced: private feedback, the public 公告, deaths, the director's notes.
#[derive(Debug, Clone, Default, Serialize)]
pub struct ManorOutcome {
    pub feedback: Vec<Line>,
    pub public: Vec<String>,
    pub deaths: Vec<ManorDeath>,
    pub log: Vec<String>,
    pub winner: Option<Side>,
    pub game_over: bool,
    /// By day: players whose vote does not count (镇压), with the status the tally reads.
    pub vote_barred: Vec<Line>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Line {
    pub player: String,
    pub text: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct ManorDeath {
    pub player: String,
    pub cause: String,
    /// Where the body lies at daybreak.
    pub place: String,
}

/// The director must go back to a player: the plan cannot be carried out (the post:
/// 「由导演告知，并令其重新提交犯罪计划」) or the murderer must still choose.
#[derive(Debug, Clone, Serialize)]
pub struct Question {
    pub player: String,
    pub text: String,
    pub clause: String,
}

#[derive(Debug, Clone, Serialize)]
pub enum ManorResult {
    Done(Box<ManorState>, ManorOutcome),
    Ask(Question),
}

/// Input that names an unknown player, place or skill, or breaks a limit: the message names it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ManorError(pub String);

/// The working context of one phase.
pub(crate) struct Ctx<'a> {
    pub rules: &'a ManorRules,
    pub st: ManorState,
    pub out: ManorOutcome,
    pub rng: Rng,
    /// 降灵: player → template tonight.
    pub possessed: BTreeMap<String, String>,
    /// 机关锁 places tonight.
    pub locked_places: BTreeSet<String>,
    /// 镇压 places today.
    pub suppressed: BTreeSet<String>,
    /// By day: the garden's count has reached four once.
    pub garden_reached: bool,
    pub is_day: bool,
    /// 警戒 used: no more moves today.
    pub moves_closed: bool,
    /// <平凡侦探> keepers today.
    pub keepers: BTreeSet<String>,
}

impl<'a> Ctx<'a> {
    pub fn new(rules: &'a ManorRules, st: ManorState, seed: u64, is_day: bool) -> Ctx<'a> {
        Ctx {
            rules,
            st,
            out: ManorOutcome::default(),
            rng: Rng::new(seed),
            possessed: BTreeMap::new(),
            locked_places: BTreeSet::new(),
            suppressed: BTreeSet::new(),
            garden_reached: false,
            is_day,
            moves_closed: false,
            keepers: BTreeSet::new(),
        }
    }

    pub fn tell(&mut self, player: &str, text: impl Into<String>) {
        let text = text.into();
        self.out.feedback.push(Line {
            player: player.to_string(),
            text,
        });
    }

    pub fn announce(&mut self, text: impl Into<String>) {
        self.out.public.push(text.into());
    }

    pub fn note(&mut self, text: impl Into<String>) {
        self.out.log.push(text.into());
    }

    pub fn template_of(&self, player: &str) -> &'a str {
        let rules = self.rules;
        let name = self
            .possessed
            .get(player)
            .cloned()
            .or_else(|| self.st.player(player).map(|p| p.template.clone()))
            .unwrap_or_default();
        rules.template(&name).map(|t| t.name.as_str()).unwrap_or("")
    }

    /// The player's skill of this kind, if it works now (not a 嫌疑人's, not 镇压'd unless
    /// locked).
    pub fn skill(&self, player: &str, kind: SkillKind) -> Option<&'a SkillDef> {
        let rules = self.rules;
        let t = rules.template(self.template_of(player))?;
        let s = t.skills.iter().find(|s| s.kind == kind)?;
        if self.st.suspect.as_deref() == Some(player) {
            return None;
        }
        if self.is_day && s.uses != Uses::Locked && self.is_suppressed(player) {
            return None;
        }
        Some(s)
    }

    pub fn has(&self, player: &str, kind: SkillKind) -> bool {
        self.skill(player, kind).is_some()
    }

    pub fn is_suppressed(&self, player: &str) -> bool {
        self.is_day && self.suppressed.contains(&self.st.place_of(player))
    }

    pub fn attrs(&self, player: &str) -> BTreeSet<Attr> {
        let mut a: BTreeSet<Attr> = self
            .rules
            .template(self.template_of(player))
            .map(|t| t.attributes.iter().copied().collect())
            .unwrap_or_default();
        if let Some(d) = self.st.day_attrs.get(player) {
            a.extend(d.iter().copied());
        }
        if self.st.alerted.contains(player) && a.remove(&Attr::Keen) {
            a.insert(Attr::Deduce);
        }
        a
    }

    /// The murderer's methods tonight: template, 预谋, 道具箱 (any).
    pub fn methods_of(&self, player: &str) -> Vec<String> {
        if self.has(player, SkillKind::PropBox) {
            return self.rules.methods.clone();
        }
        let mut m = self
            .rules
            .template(self.template_of(player))
            .map(|t| t.methods.clone())
            .unwrap_or_default();
        if self.st.is_murderer(player)
            && let Some(p) = &self.st.premeditated
            && self.rules.methods.contains(p)
        {
            m.push(p.clone());
        }
        m
    }

    pub fn clues_of(&self, player: &str) -> Vec<String> {
        if self.has(player, SkillKind::PropBox) {
            return self.rules.all_clues();
        }
        let mut c = self
            .rules
            .template(self.template_of(player))
            .map(|t| t.clues.clone())
            .unwrap_or_default();
        if self.st.is_murderer(player)
            && let Some(p) = &self.st.premeditated
            && rules::clue_kind(p).is_some()
        {
            c.push(p.clone());
        }
        c
    }

    /// A clue the player owns, by its full or shown name.
    pub fn own_clue(&self, player: &str, given: &str) -> Option<String> {
        self.clues_of(player)
            .into_iter()
            .find(|c| c == given || rules::clue_shown(c) == given)
    }

    pub fn any_clue(&self, given: &str) -> Option<String> {
        self.rules
            .all_clues()
            .into_iter()
            .chain(
                self.rules
                    .places
                    .iter()
                    .flat_map(|p| &p.traits)
                    .filter_map(|t| t.clue.clone()),
            )
            .find(|c| c == given || rules::clue_shown(c) == given)
    }

    pub fn places(&self) -> Vec<&'a str> {
        self.rules
            .places_for(self.st.players.len())
            .into_iter()
            .map(|p| p.name.as_str())
            .collect()
    }

    pub fn check_place(&self, key: &str, place: &str) -> Result<(), ManorError> {
        if self.places().contains(&place) {
            Ok(())
        } else {
            Err(ManorError(format!(
                "{key}: unknown place `{place}` (in play: {})",
                self.places().join("、")
            )))
        }
    }

    pub fn check_player(&self, key: &str, name: &str) -> Result<(), ManorError> {
        match self.st.player(name) {
            Some(_) => Ok(()),
            None => Err(ManorError(format!("{key}: unknown player `{name}`"))),
        }
    }

    pub fn capacity(&self, place: &str) -> Option<usize> {
        self.rules.place(place).and_then(|p| p.capacity)
    }

    /// Marks a limited or normal skill used, refusing a second use.
    pub fn use_skill(&mut self, key: &str, player: &str, s: &SkillDef) -> Result<(), ManorError> {
        let id = format!("{player}:{}", s.name);
        match s.uses {
            Uses::Limited if !self.limited_is_normal(player, s) => {
                if !self.st.used_limited.insert(id) {
                    return Err(ManorError(format!(
                        "{key}: {player} has used <{}> already (限定)",
                        s.name
                    )));
                }
            }
            Uses::Locked => {}
            _ => {
                if !self.st.used_now.insert(id) {
                    return Err(ManorError(format!(
                        "{key}: {player} has used <{}> already today (普通)",
                        s.name
                    )));
                }
            }
        }
        Ok(())
    }

    /// 安全检查「当你是凶手时，此技能为普通技能」.
    fn limited_is_normal(&self, player: &str, s: &SkillDef) -> bool {
        s.kind == SkillKind::SafetyCheck && self.st.is_murderer(player)
    }

    pub fn finish(self) -> ManorResult {
        ManorResult::Done(Box::new(self.st), self.out)
    }
}

/// The seed of a phase: given, or derived from the phase.
pub fn phase_seed(given: Option<u64>, what: &str) -> u64 {
    given.unwrap_or_else(|| crate::rng::seed_from(what))
}

/// The `[manor]` section of a whole rule file, validated.
pub fn rules_from_toml(text: &str) -> Result<ManorRules, String> {
    let v: toml::Table = toml::from_str(text).map_err(|e| e.to_string())?;
    let Some(m) = v.get("manor") else {
        return Err("no [manor] section".into());
    };
    let r: ManorRules = m
        .clone()
        .try_into()
        .map_err(|e: toml::de::Error| format!("manor: {e}"))?;
    let errs = r.validate();
    if errs.is_empty() {
        Ok(r)
    } else {
        Err(errs
            .iter()
            .map(|(k, m)| format!("{k}: {m}"))
            .collect::<Vec<_>>()
            .join("\n"))
    }
}

/// A 红牌 between phases (出局 by 红牌罚下): the player is out; the murderer's red card is
/// 「凶手出局」, a win for 受困者阵营. A camp's 判负 for a red card is the director's ruling.
pub fn red_card(
    rules: &ManorRules,
    state: &ManorState,
    player: &str,
) -> Result<ManorResult, ManorError> {
    let mut cx = Ctx::new(rules, state.clone(), 0, true);
    cx.check_player("red card", player)?;
    if !cx.st.is_alive(player) || cx.st.winner.is_some() {
        cx.note(format!("{player} 的红牌：已出局或游戏已结束，只记录判罚"));
        return Ok(cx.finish());
    }
    let place = cx.st.place_of(player);
    let p = cx.st.player_mut(player);
    p.alive = false;
    p.out_cause = Some("红牌".into());
    cx.out.deaths.push(ManorDeath {
        player: player.into(),
        cause: "红牌".into(),
        place,
    });
    cx.announce(format!("{player} 被红牌罚下"));
    if cx.st.is_murderer(player) {
        cx.st.winner = Some(Side::Guests);
        cx.out.winner = Some(Side::Guests);
        cx.out.game_over = true;
        cx.announce(format!("{}获胜", Side::Guests.label()));
    }
    Ok(cx.finish())
}
