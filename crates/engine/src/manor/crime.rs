//! Crime information and extra clues: who obtains what, what vanishes, what stays hidden
//! by terrain, the 愚者's trick, and rule ③ (a clue and a same-named extra clue in one place
//! are obtained once).

use super::Ctx;
use super::rules::{SkillKind, TraitKind, clue_kind, clue_shown};

impl Ctx<'_> {
    /// Every player in `who` obtains each crime information lying at `place` (judged one by
    /// one for the trick), then it vanishes unless it stays today. `who` empty: nothing.
    pub fn take_scenes_at(&mut self, who: &[String], place: &str) {
        if who.is_empty() {
            return;
        }
        let idx: Vec<usize> = (0..self.st.scenes.len())
            .filter(|&i| self.st.scenes[i].place == place)
            .collect();
        let mut gone = Vec::new();
        for i in idx {
            let mut keep = self.st.scenes[i].stays_today;
            for w in who {
                self.take_scene(w, i);
                keep |= self.keepers.contains(w);
            }
            if !keep {
                gone.push(i);
            }
        }
        for i in gone.into_iter().rev() {
            let s = self.st.scenes.remove(i);
            self.note(format!(
                "{}的犯罪信息（死者 {}）已被获得，消失",
                s.place,
                s.victims.join("、")
            ));
        }
    }

    /// One player obtains scene `i` (without removing it).
    pub fn take_scene(&mut self, who: &str, i: usize) {
        let s = self.st.scenes[i].clone();
        let fool = self.st.fools.contains(who);
        let trick = fool != s.swapped;
        let victims = s.victims.join("、");
        let (cause, clues) = match (&s.trick, trick) {
            (Some(t), true) => (t.method.clone(), vec![t.clue.clone()]),
            (None, true) => (String::new(), Vec::new()),
            (_, false) => (s.cause.clone(), s.clues.clone()),
        };
        let mut text = format!("【犯罪信息】地点：{}；死者：{victims}", s.place);
        if !cause.is_empty() {
            text.push_str(&format!("；死因：{cause}"));
        }
        if !clues.is_empty() {
            let shown: Vec<&str> = clues.iter().map(|c| clue_shown(c)).collect();
            text.push_str(&format!("；线索：{}", shown.join("、")));
        }
        self.tell(who, text.clone());
        self.st.hold(who, &text);
        if self.has(who, SkillKind::SureSense) {
            let what = if trick {
                "诡计信息"
            } else {
                "犯罪信息"
            };
            self.tell(who, format!("<轻车熟路>②：你得到的是{what}"));
        }
        if self.has(who, SkillKind::Forensics) && self.st.found_body.insert(who.to_string()) {
            self.tell(who, format!("<刑事侦查>①：犯罪动机为[{}]", s.motive));
        }
        self.st.found_body.insert(who.to_string());
        if !trick {
            // rule ③: a same-named extra clue here can no longer be obtained
            for c in &clues {
                if let Some(list) = self.st.extra.get_mut(&s.place) {
                    list.retain(|x| clue_shown(x) != clue_shown(c));
                }
            }
        }
        if !cause.is_empty() && !clues.is_empty() && !self.st.case_announced {
            self.st.may_announce.insert(who.to_string());
            self.tell(
                who,
                "你获得了一条完整的犯罪信息：可以要求导演公告【发现凶案】，或要求导演保持沉默",
            );
        }
    }

    /// Whether an extra clue at `place` is hidden from `who` by terrain (泥土, 零食, 水迹 in
    /// their own place; <主场优势>① sees 遗留物).
    fn hidden(&self, who: &str, place: &str, clue: &str) -> bool {
        let home = self.has(who, SkillKind::HomeField) && clue_kind(clue) == Some("遗留物");
        !home
            && [
                TraitKind::RoughTerrain,
                TraitKind::Kitchen,
                TraitKind::RunningWater,
            ]
            .iter()
            .any(|&k| self.rules.has_trait(place, k) && self.rules.trait_clue(k) == Some(clue))
    }

    /// `who` obtains the visible extra clues of `place` (only `痕迹` ones with `kind`), in a
    /// random order; they vanish if `consume` (and `who` is no keeper). `answer`: say so when
    /// there are none. Returns what was obtained.
    pub fn take_extra(
        &mut self,
        who: &str,
        place: &str,
        kind: Option<&str>,
        consume: bool,
        answer: bool,
    ) -> Vec<String> {
        let all = self.st.extra.get(place).cloned().unwrap_or_default();
        let mut got: Vec<String> = all
            .iter()
            .filter(|c| !self.hidden(who, place, c))
            .filter(|c| kind.is_none() || clue_kind(c) == kind)
            .cloned()
            .collect();
        for i in (1..got.len()).rev() {
            let j = self.rng.below(i + 1);
            got.swap(i, j);
        }
        if got.is_empty() {
            if answer {
                self.tell(who, format!("【额外线索】{place}：无"));
            }
            return got;
        }
        let shown: Vec<&str> = got.iter().map(|c| clue_shown(c)).collect();
        let text = format!("【额外线索】{place}：{}", shown.join("、"));
        self.tell(who, text.clone());
        self.st.hold(who, &text);
        if consume && !self.keepers.contains(who) {
            if let Some(list) = self.st.extra.get_mut(place) {
                for g in &got {
                    if let Some(p) = list.iter().position(|x| x == g) {
                        list.remove(p);
                    }
                }
            }
            for s in self.st.scenes.iter_mut().filter(|s| s.place == place) {
                s.clues
                    .retain(|c| !got.iter().any(|g| clue_shown(g) == clue_shown(c)));
            }
        }
        got
    }

    /// <主场优势> PS①: a 管理员 entering the garden without the four gets the 遗留物 clues of
    /// its crime information (the trick's if a fool); the information keeps no clues after.
    pub fn garden_blocked_leftovers(&mut self, who: &str, place: &str) {
        if !self.has(who, SkillKind::HomeField) {
            return;
        }
        let fool = self.st.fools.contains(who);
        for i in 0..self.st.scenes.len() {
            if self.st.scenes[i].place != place {
                continue;
            }
            let s = &self.st.scenes[i];
            let trick = fool != s.swapped;
            let pool: Vec<String> = if trick {
                s.trick.iter().map(|t| t.clue.clone()).collect()
            } else {
                s.clues.clone()
            };
            let got: Vec<&str> = pool
                .iter()
                .filter(|c| clue_kind(c) == Some("遗留物"))
                .map(|c| clue_shown(c))
                .collect();
            if got.is_empty() {
                continue;
            }
            let text = format!("【线索】{place}：{}", got.join("、"));
            self.tell(who, text.clone());
            self.st.hold(who, &text);
            self.st.scenes[i].clues.clear();
        }
    }

    /// Adds an extra clue at a place.
    pub fn leave_extra(&mut self, place: &str, clue: &str, why: &str) {
        self.note(format!("额外线索 <{clue}> 留在{place}（{why}）"));
        self.st
            .extra
            .entry(place.to_string())
            .or_default()
            .push(clue.to_string());
    }
}
