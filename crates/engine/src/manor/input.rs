//! What the director writes from the players' private messages: the preparation, a night's
//! plan and actions, a day's 确认死者 skills, moves and skills in the order received, the
//! 公决's result. All TOML; documented in docs/interfaces.md.

use serde::{Deserialize, Serialize};

use super::state::Trick;

/// The preparation (游戏准备阶段).
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SetupInput {
    /// In the action order (电梯): name, template, chosen starting place.
    #[serde(rename = "player")]
    pub players: Vec<SetupPlayer>,
    /// Given by the director; drawn with the seed when absent.
    #[serde(default)]
    pub murderer: Option<String>,
    #[serde(default)]
    pub fool: Option<String>,
    /// <非激情犯罪>'s two <目标>; drawn when absent.
    #[serde(default)]
    pub targets: Option<Vec<String>>,
    /// The murderer's 犯罪动机 (several with 刑事侦查②).
    #[serde(default)]
    pub motives: Vec<String>,
    /// 预谋: the method or clue added to the murderer's template.
    #[serde(default)]
    pub premeditated: Option<String>,
    /// 演出准备: the two props of the 道具师.
    #[serde(default)]
    pub props: Vec<String>,
    #[serde(default)]
    pub seed: Option<u64>,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SetupPlayer {
    pub name: String,
    pub template: String,
    pub place: String,
}

/// One night: the murderer's plan and everybody's night skills.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct NightInput {
    #[serde(default)]
    pub plan: Option<Plan>,
    #[serde(default, rename = "action")]
    pub actions: Vec<ManorAction>,
    #[serde(default)]
    pub seed: Option<u64>,
}

/// <嗜血如命>'s 犯罪计划, and the murderer's answers to what the night asks of him.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Plan {
    pub method: String,
    /// 指定死者.
    #[serde(default)]
    pub victim: Option<String>,
    /// 指定地点.
    #[serde(default)]
    pub place: Option<String>,
    /// 遗留线索 (with or without the kind: `手表` or `遗留物：手表`).
    #[serde(default)]
    pub clues: Vec<String>,
    /// 诡计设置.
    #[serde(default)]
    pub trick: Option<Trick>,
    /// <疾行>① before the murder.
    #[serde(default)]
    pub dash_before: Option<String>,
    /// <疾行>① before daybreak (after the murder).
    #[serde(default)]
    pub dash_after: Option<String>,
    /// The extra clues <密室>3 and then <善战> ask for, in that order.
    #[serde(default)]
    pub extra_clues: Vec<String>,
    /// The place <香水> asks for.
    #[serde(default)]
    pub scent_place: Option<String>,
    /// The place <流水>2 asks for.
    #[serde(default)]
    pub water_place: Option<String>,
    /// The place <枪杀> puts the body.
    #[serde(default)]
    pub body_place: Option<String>,
    /// [愉悦]: move to the scene after a kill.
    #[serde(default)]
    pub joy_move: bool,
    /// [献祭].
    #[serde(default)]
    pub sacrifice: bool,
    /// <心理暗示>②: the template whose method and clue the poisoning shows.
    #[serde(default)]
    pub disguise: Option<Trick>,
    /// <犯罪天才>②: a 痕迹 extra clue left at a place (`place`, `clue`).
    #[serde(default)]
    pub genius: Option<PlacedClue>,
    /// <轻车熟路>①: clear the extra clues the murder made.
    #[serde(default)]
    pub clear_extra: bool,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct PlacedClue {
    pub place: String,
    pub clue: String,
}

/// A skill use (night or day) or, by day, a move (`place` without `skill`).
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ManorAction {
    pub actor: String,
    #[serde(default)]
    pub skill: Option<String>,
    #[serde(default)]
    pub targets: Vec<String>,
    #[serde(default)]
    pub place: Option<String>,
    /// ①/② for two-effect skills, a prop's name, last words.
    #[serde(default)]
    pub choice: Option<String>,
}

/// One game day.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct DayInput {
    /// 确认死者阶段 skills (探险精神, 完美记忆, 玩具巡逻车, 刑侦), in order.
    #[serde(default)]
    pub confirm: Vec<ManorAction>,
    /// 自由移动阶段: moves and day skills in the order the director received them.
    #[serde(default, rename = "step")]
    pub steps: Vec<ManorAction>,
    /// Players who ask for 【发现凶案】 (they must hold a complete crime information).
    #[serde(default)]
    pub announce_case: Vec<String>,
    /// <平凡侦探>: the 侦探 keeps what he obtains today.
    #[serde(default)]
    pub keep: Vec<String>,
    /// The 公决: the player put out, or none (公决失败).
    #[serde(default)]
    pub voted_out: Option<String>,
    /// The murderer surrendered (投降).
    #[serde(default)]
    pub surrender: bool,
    /// The 公决 is not confirmed yet: the day runs up to 全体公决阶段 (feedback for the
    /// moves) and nothing is judged; `tally --confirm` resolves it again with the vote.
    #[serde(default)]
    pub pending_vote: bool,
    #[serde(default)]
    pub seed: Option<u64>,
}
