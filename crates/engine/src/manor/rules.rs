//! The `[manor]` section of a rule file: places with capacities and traits, templates with
//! their methods, clues, attributes and skills, the night order and the final day. Behaviours
//! are named by kind (`locked-room`, `move-other`…); the rule file maps the post's names to them.

use serde::Deserialize;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ManorRules {
    /// The place marked * (failed moves and full starting places end there).
    pub default_place: String,
    /// The last game day (最终之日) with fewer than `late_final.from_players` players.
    pub final_day: u32,
    pub late_final: LateFinal,
    /// Template names in the night order; `murderer` names the murderer's own steps.
    pub night_order: Vec<String>,
    pub night_order_clause: String,
    /// The name standing for the murderer's steps in `night_order` (凶手).
    pub murderer: String,
    /// Every method the rules name (a trick may use any of them).
    pub methods: Vec<String>,
    /// [陷阱]: a place kill anywhere.
    pub trap_method: String,
    /// [毒杀]: a place kill leaves no extra clues but <不完美犯罪>'s.
    pub poison_method: String,
    /// [枪杀]: a named victim's body is put at a chosen place.
    pub gun_method: String,
    /// The clauses of the methods and the murderer's own skills, by name.
    #[serde(default)]
    pub clauses: std::collections::BTreeMap<String, String>,
    /// The criminal motives (犯罪动机) by kind.
    pub motives: Vec<Motive>,
    #[serde(rename = "place")]
    pub places: Vec<PlaceDef>,
    #[serde(rename = "template")]
    pub templates: Vec<TemplateDef>,
    #[serde(default)]
    pub readings: Vec<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LateFinal {
    pub from_players: usize,
    pub day: u32,
    pub clause: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Motive {
    pub name: String,
    pub kind: MotiveKind,
    pub clause: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MotiveKind {
    /// 愉悦: after a kill, may move to the crime scene.
    Joy,
    /// 预谋: one more method or clue in the template.
    Premeditated,
    /// 献祭: at daybreak, the extra clues of the murderer's place.
    Sacrifice,
    /// 迷梦: the fool list at the start.
    Dream,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlaceDef {
    pub name: String,
    /// None: no limit.
    #[serde(default)]
    pub capacity: Option<usize>,
    /// The place exists from this many players on.
    #[serde(default)]
    pub min_players: usize,
    #[serde(default)]
    pub traits: Vec<TraitDef>,
    pub clause: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TraitDef {
    pub name: String,
    pub kind: TraitKind,
    pub clause: String,
    /// The extra clue the trait leaves and hides in its own place (泥土, 零食, 水迹).
    #[serde(default)]
    pub clue: Option<String>,
    /// Methods the trait allows (料理: 刀杀/绞杀; 流水: 溺水).
    #[serde(default)]
    pub methods: Vec<String>,
    /// The cause a murder here shows (观景: 坠落).
    #[serde(default)]
    pub cause: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TraitKind {
    /// 密室: a lone body in an empty room locks it for the day; a victim named there costs
    /// one extra clue (once a game).
    LockedRoom,
    /// 复杂地形: no trail, no place kill, 泥土 from an overnight murderer, crime information
    /// only from four people on.
    RoughTerrain,
    /// 料理: 刀杀/绞杀 for an overnight murderer, 零食 at the scene.
    Kitchen,
    /// 封闭空间: nobody here dies of a named-victim murder.
    ClosedSpace,
    /// 流水: 溺水 for a place kill here, 水迹 when someone here is killed.
    RunningWater,
    /// 观景: a murder here is 坠落 with the body in the garden; +2 to the garden's count; a
    /// free move into the bedroom.
    View,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TemplateDef {
    pub name: String,
    #[serde(default)]
    pub methods: Vec<String>,
    /// `痕迹：…` / `遗留物：…`.
    #[serde(default)]
    pub clues: Vec<String>,
    #[serde(default)]
    pub attributes: Vec<Attr>,
    #[serde(default)]
    pub skills: Vec<SkillDef>,
    /// The template is used from this many players on (军人: 8).
    #[serde(default)]
    pub min_players: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Attr {
    /// 敏锐: the extra clues of a place moved into.
    Keen,
    /// 推理: the extra clues of one's place by day.
    Deduce,
    /// 善战: a named-victim murder of this player costs the murderer one extra clue.
    Fighter,
}

impl Attr {
    pub fn label(self) -> &'static str {
        match self {
            Attr::Keen => "敏锐",
            Attr::Deduce => "推理",
            Attr::Fighter => "善战",
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SkillDef {
    pub name: String,
    pub kind: SkillKind,
    pub uses: Uses,
    pub clause: String,
    /// The props of 演出准备.
    #[serde(default)]
    pub props: Vec<PropDef>,
    /// The extra clue the skill leaves (香水: 气味).
    #[serde(default)]
    pub clue: Option<String>,
    /// The cause the skill shows (过劳: 猝死).
    #[serde(default)]
    pub cause: Option<String>,
    /// The status the skill gives for the day's vote (镇压: 投票无效; the tally reads it).
    #[serde(default)]
    pub status: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Uses {
    /// 普通: once a day (or night).
    Normal,
    /// 锁定: always on.
    Locked,
    /// 限定: once a game.
    Limited,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PropDef {
    pub name: String,
    pub kind: PropKind,
    pub clause: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PropKind {
    /// 机关锁: moves from or to a place fail tonight.
    Lock,
    /// 玩具巡逻车: see a place's crime information by day without taking it.
    PatrolCar,
    /// 惊吓盒: everyone in a place of capacity ≤ 2 moves to the default place.
    ScareBox,
    /// 人偶: no clue needed while unused; the trail announced next morning.
    Doll,
}

/// What a skill does; the Rust behaviour behind a post's skill name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SkillKind {
    /// 香水: the murderer marks a place and his own with 气味 when the holder dies.
    Scent,
    /// 心理暗示①: a player moves to a place (night, normal check).
    MoveOther,
    /// 心理暗示②: a named-victim 毒杀 shows another template's method and clue.
    PoisonDisguise,
    /// 思维诊疗: ① whether up to two players are fools, ② toggle a guest's fool status.
    MindCheck,
    /// 刑事侦查①: the motive on first finding a body.
    Forensics,
    /// 刑事侦查②: a murderer chooses every motive.
    AllMotives,
    /// 探险精神: a move in the 确认死者 phase.
    Explore,
    /// 行动邀请: a player moves to a place, then the holder does (night).
    Invite,
    /// 特制陷阱: a named-victim 陷阱 swaps who gets the trick.
    SpecialTrap,
    /// 缜密心思: the extra clues of one's place (day, once a day).
    Careful,
    /// 求生本能: not a named victim; the body moved at daybreak.
    Survival,
    /// 鞭策: ① 敏锐 until nightfall, ② one more move today.
    Spur,
    /// 完美记忆: the 痕迹 extra clues of a place (确认死者, not taken).
    Memory,
    /// 安全检查: who is in a place (night; a murderer's is 普通).
    SafetyCheck,
    /// 保护: a place kill of the holder's place fails (not 毒杀/陷阱).
    Guard,
    /// 镇压: a place cannot move, vote or use non-locked skills until nightfall.
    Suppress,
    /// 刑侦: a 嫌疑人 whose template skills fail (确认死者).
    Suspect,
    /// 警戒: every position announced, no more moves today; 敏锐 becomes 推理.
    Alert,
    /// 通灵: an out player's last words, announced.
    Seance,
    /// 降灵: an out player's template until daybreak.
    Possess,
    /// 道具箱: any method and clue, no trick.
    PropBox,
    /// 演出准备: two props chosen at the start, each used once.
    Props,
    /// 灵巧: moves ignore limits and never fail.
    Nimble,
    /// 主场优势①: a named victim never survives by terrain; 遗留物 never hidden by terrain.
    HomeField,
    /// 主场优势②: tonight's terrain extra clues do not stay.
    HomeClean,
    /// 逃命: survives a place kill of a non-default place and moves to the default place.
    Escape,
    /// 旧日梦魇: a place; ① 敏锐 tomorrow if a 敏锐 player is there, ② an extra move from or
    /// to it tomorrow and its crime information stays.
    Nightmare,
    /// 无用学识: no death by a named-victim murder in a place of capacity ≤ 3.
    UselessKnowledge,
    /// 平凡侦探: what the holder obtains may stay.
    PlainDetective,
    /// 犯罪天才: ① no extra clues from the murder, ② one 痕迹 extra clue anywhere.
    Genius,
    /// 主角光环: not a named victim.
    Halo,
    /// 轻车熟路①: a named-victim murder always succeeds; its extra clues may be cleared.
    SureHand,
    /// 轻车熟路②: told whether what was found is the crime information or a trick.
    SureSense,
    /// 加班: who spends the night at one's place; not two nights running.
    Overtime,
    /// 过劳: a lone death after 加班 shows 猝死.
    Overwork,
    /// 信念坚定: in a place of capacity ≤ 3, moved only by one's own move.
    Steadfast,
}

impl ManorRules {
    pub fn place(&self, name: &str) -> Option<&PlaceDef> {
        self.places.iter().find(|p| p.name == name)
    }

    pub fn template(&self, name: &str) -> Option<&TemplateDef> {
        self.templates.iter().find(|t| t.name == name)
    }

    /// The places in play with this many players.
    pub fn places_for(&self, players: usize) -> Vec<&PlaceDef> {
        self.places
            .iter()
            .filter(|p| players >= p.min_players)
            .collect()
    }

    pub fn final_day_for(&self, players: usize) -> u32 {
        if players >= self.late_final.from_players {
            self.late_final.day
        } else {
            self.final_day
        }
    }

    pub fn has_trait(&self, place: &str, kind: TraitKind) -> bool {
        self.place(place)
            .is_some_and(|p| p.traits.iter().any(|t| t.kind == kind))
    }

    pub fn trait_def(&self, kind: TraitKind) -> Option<&TraitDef> {
        self.places
            .iter()
            .flat_map(|p| &p.traits)
            .find(|t| t.kind == kind)
    }

    pub fn trait_clause(&self, kind: TraitKind) -> &str {
        self.trait_def(kind)
            .map(|t| t.clause.as_str())
            .unwrap_or("")
    }

    /// The extra clue a trait leaves (泥土, 零食, 水迹).
    pub fn trait_clue(&self, kind: TraitKind) -> Option<&str> {
        self.trait_def(kind).and_then(|t| t.clue.as_deref())
    }

    /// The skill of a kind as some template declares it (for its clue, cause, clause).
    pub fn skill_def(&self, kind: SkillKind) -> Option<&SkillDef> {
        self.templates
            .iter()
            .flat_map(|t| &t.skills)
            .find(|s| s.kind == kind)
    }

    /// The place holding a trait, if any is in play.
    pub fn place_with(&self, kind: TraitKind) -> Option<&str> {
        self.places
            .iter()
            .find(|p| p.traits.iter().any(|t| t.kind == kind))
            .map(|p| p.name.as_str())
    }

    /// Every clue any template owns (a trick or 道具箱 may use any of them).
    pub fn all_clues(&self) -> Vec<String> {
        let mut v: Vec<String> = Vec::new();
        for c in self.templates.iter().flat_map(|t| &t.clues) {
            if !v.contains(c) {
                v.push(c.clone());
            }
        }
        v
    }

    /// Every problem as `(key, message)`.
    pub fn validate(&self) -> Vec<(String, String)> {
        let mut errs = Vec::new();
        if self.place(&self.default_place).is_none() {
            errs.push((
                "manor.default_place".into(),
                format!("unknown place `{}`", self.default_place),
            ));
        }
        for (i, n) in self.night_order.iter().enumerate() {
            if *n != self.murderer && self.template(n).is_none() {
                errs.push((
                    format!("manor.night_order[{i}]"),
                    format!("unknown template `{n}`"),
                ));
            }
        }
        let clues = self.all_clues();
        for t in &self.templates {
            for m in &t.methods {
                if !self.methods.contains(m) {
                    errs.push((
                        format!("manor.template.{}.methods", t.name),
                        format!("unknown method `{m}`"),
                    ));
                }
            }
            for c in &t.clues {
                if clue_kind(c).is_none() {
                    errs.push((
                        format!("manor.template.{}.clues", t.name),
                        format!("`{c}` is neither 痕迹：… nor 遗留物：…"),
                    ));
                }
            }
        }
        if clues.is_empty() {
            errs.push(("manor.template".into(), "no clues".into()));
        }
        errs
    }
}

/// `痕迹` or `遗留物` of a full clue name.
pub fn clue_kind(full: &str) -> Option<&str> {
    let (k, _) = full.split_once('：')?;
    matches!(k, "痕迹" | "遗留物").then_some(k)
}

/// A clue as players are told it: without its kind.
pub fn clue_shown(full: &str) -> &str {
    full.split_once('：').map(|(_, n)| n).unwrap_or(full)
}
