//! The state of a 暴风雪山庄 game between phases: positions, the murderer and the fools, the
//! crime scenes and extra clues lying in places, what each player holds, skill uses.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use super::rules::Attr;

#[derive(Debug, Clone, Serialize)]
pub struct ManorState {
    pub players: Vec<Player>,
    pub murderer: String,
    pub fools: BTreeSet<String>,
    /// <非激情犯罪>'s two <目标>.
    pub targets: Vec<String>,
    /// The murderer's motives (one; all with 刑事侦查②).
    pub motives: Vec<String>,
    /// 预谋's addition: a method or a clue.
    pub premeditated: Option<String>,
    /// The game day of the last phase played (night N precedes day N).
    pub day: u32,
    pub final_day: u32,
    /// Whether the last phase played was a night.
    pub after_night: bool,
    /// <凶手行踪> activated.
    pub trail_active: bool,
    pub murders: u32,
    pub used_clues: BTreeSet<String>,
    pub last_method: Option<String>,
    /// Crime information lying in places.
    pub scenes: Vec<Scene>,
    /// place → extra clues (full names), in the order they were left.
    pub extra: BTreeMap<String, Vec<String>>,
    /// The bedroom is a 密室 today.
    pub locked_room: bool,
    /// <密室>3 has been triggered.
    pub locked_room_clue_done: bool,
    /// `player:skill` limited skills used.
    pub used_limited: BTreeSet<String>,
    /// `player:skill` used today/tonight (普通).
    pub used_now: BTreeSet<String>,
    /// The night each 程序员 last used <加班>.
    pub overtime: BTreeMap<String, u32>,
    pub suspect: Option<String>,
    /// Players whose 敏锐 became 推理 (警戒).
    pub alerted: BTreeSet<String>,
    /// 道具师 → props not used yet.
    pub props: BTreeMap<String, Vec<String>>,
    /// Attributes until nightfall (鞭策①, 旧日梦魇①).
    pub day_attrs: BTreeMap<String, BTreeSet<Attr>>,
    /// 旧日梦魇② places for the coming day.
    pub nightmare: BTreeMap<String, String>,
    /// Players who obtained a complete crime information (may ask for 【发现凶案】).
    pub may_announce: BTreeSet<String>,
    /// 【发现凶案】 announced.
    pub case_announced: bool,
    /// Players who found a body already (刑事侦查①).
    pub found_body: BTreeSet<String>,
    pub winner: Option<Side>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Side {
    /// 凶手阵营
    Murderer,
    /// 受困者阵营
    Guests,
}

impl Side {
    pub fn label(self) -> &'static str {
        match self {
            Side::Murderer => "凶手阵营",
            Side::Guests => "受困者阵营",
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct Player {
    pub name: String,
    pub template: String,
    pub place: String,
    pub alive: bool,
    pub out_cause: Option<String>,
    /// Everything this player has learned, in order (what `state` shows as held).
    pub holds: Vec<String>,
}

/// Crime information lying at a place: the bodies, the cause, the left clues, the trick.
#[derive(Debug, Clone, Serialize)]
pub struct Scene {
    pub place: String,
    pub night: u32,
    pub victims: Vec<String>,
    pub cause: String,
    /// Full clue names, in the order the plan gave them.
    pub clues: Vec<String>,
    pub trick: Option<Trick>,
    /// 特制陷阱: fools get the crime information, everyone else the trick.
    pub swapped: bool,
    /// 旧日梦魇②: does not vanish today.
    pub stays_today: bool,
    /// The murderer's motive (刑事侦查①).
    pub motive: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Trick {
    pub method: String,
    pub clue: String,
}

impl ManorState {
    pub fn player(&self, name: &str) -> Option<&Player> {
        self.players.iter().find(|p| p.name == name)
    }

    pub fn player_mut(&mut self, name: &str) -> &mut Player {
        self.players
            .iter_mut()
            .find(|p| p.name == name)
            .expect("player checked before")
    }

    pub fn place_of(&self, name: &str) -> String {
        self.player(name)
            .map(|p| p.place.clone())
            .unwrap_or_default()
    }

    pub fn alive_at(&self, place: &str) -> Vec<String> {
        self.players
            .iter()
            .filter(|p| p.alive && p.place == place)
            .map(|p| p.name.clone())
            .collect()
    }

    pub fn is_alive(&self, name: &str) -> bool {
        self.player(name).is_some_and(|p| p.alive)
    }

    pub fn is_murderer(&self, name: &str) -> bool {
        self.murderer == name
    }

    pub fn hold(&mut self, name: &str, line: &str) {
        self.player_mut(name).holds.push(line.to_string());
    }

    /// `大厅：甲、乙；卧室：丙` in the order places are given.
    pub fn positions(&self, places: &[&str]) -> String {
        places
            .iter()
            .map(|pl| {
                let here = self.alive_at(pl);
                let who = if here.is_empty() {
                    "无人".to_string()
                } else {
                    here.join("、")
                };
                format!("{pl}：{who}")
            })
            .collect::<Vec<_>>()
            .join("；")
    }
}
