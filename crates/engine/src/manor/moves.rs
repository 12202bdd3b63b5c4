//! Moving between places: capacities, the default place on a full one, 机关锁, <灵巧>,
//! <信念坚定>, and (by day) what a player finds on arrival.

use super::Ctx;
use super::rules::{Attr, SkillKind, TraitKind};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Moved {
    /// Arrived where they meant to.
    Yes,
    /// The place was full: sent to the default place (not told).
    ToDefault,
    /// Did not move (机关锁, 门打不开, <信念坚定>, dead).
    Stayed,
}

impl Ctx<'_> {
    pub fn count_at(&self, place: &str, except: &str) -> usize {
        self.st
            .alive_at(place)
            .iter()
            .filter(|n| *n != except)
            .count()
    }

    /// One move by the normal check. `forced`: the move is another player's skill.
    pub fn move_player(&mut self, who: &str, dest: &str, forced: bool) -> Moved {
        if !self.st.is_alive(who) {
            return Moved::Stayed;
        }
        let from = self.st.place_of(who);
        let nimble = self.has(who, SkillKind::Nimble);
        if forced
            && self.has(who, SkillKind::Steadfast)
            && self.capacity(&from).is_some_and(|c| c <= 3)
        {
            self.note(format!("{who} 的<信念坚定>：位置不被改变（仍在{from}）"));
            return Moved::Stayed;
        }
        if !self.is_day
            && !nimble
            && (self.locked_places.contains(&from) || self.locked_places.contains(dest))
        {
            self.note(format!(
                "<机关锁>：{who} 从{from}到{dest}的移动失败，回到{from}"
            ));
            return Moved::Stayed;
        }
        if from == dest {
            return Moved::Yes;
        }
        let full = self
            .capacity(dest)
            .is_some_and(|c| self.count_at(dest, who) >= c);
        if full && !nimble {
            let default = self.rules.default_place.clone();
            self.note(format!("{who} 移动到{dest}失败（满额），被传送至{default}"));
            self.st.player_mut(who).place = default;
            return Moved::ToDefault;
        }
        self.note(format!("{who}：{from} → {dest}"));
        self.st.player_mut(who).place = dest.to_string();
        Moved::Yes
    }

    /// The garden's count for <复杂地形>4: its players, +2 for each on the 阳台.
    pub fn garden_count(&self) -> usize {
        let garden = self.rules.place_with(TraitKind::RoughTerrain).unwrap_or("");
        let view = self.rules.place_with(TraitKind::View).unwrap_or("");
        self.st.alive_at(garden).len() + 2 * self.st.alive_at(view).len()
    }

    /// By day, after a successful move: crime information there (the garden's four-person
    /// rule), the garden reached from the 阳台, and 敏锐's extra clues.
    pub fn arrive(&mut self, who: &str, dest: &str) {
        let garden = self
            .rules
            .place_with(TraitKind::RoughTerrain)
            .map(String::from);
        let view = self.rules.place_with(TraitKind::View).map(String::from);
        let reached_now = !self.garden_reached && self.garden_count() >= 4;
        if Some(dest) == garden.as_deref() {
            if reached_now {
                self.garden_reached = true;
                self.take_scenes_at(&[who.to_string()], dest);
            } else {
                self.garden_blocked_leftovers(who, dest);
            }
        } else if Some(dest) == view.as_deref() && reached_now {
            self.garden_reached = true;
            let g = garden.unwrap_or_default();
            let here = self.st.alive_at(&g);
            self.take_scenes_at(&here, &g);
        } else {
            self.take_scenes_at(&[who.to_string()], dest);
        }
        if self.attrs(who).contains(&Attr::Keen) {
            self.take_extra(who, dest, None, true, false);
        }
    }
}
