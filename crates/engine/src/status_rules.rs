//! The rule file's declarations of statuses (`[[engine.status]]`) and of the <指定> hand-off
//! (`[[engine.handoff]]`): data only, read by `effects/status.rs` and `effects/handoff.rs`.

use serde::{Deserialize, Serialize};

/// One status the post defines: what it blocks, what it protects from, what it contains.
/// Durations belong to each instance (`Status.until_day`); several instances of one name
/// are counted apart (「即使状态名字相同，也会分别得知并分别计算结束时间」).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct StatusDef {
    pub name: String,
    /// Composite statuses: holding this one means holding these too ([冰冻/恐惧] =
    /// [沉默]+[缴械]).
    #[serde(default)]
    pub includes: Vec<String>,
    /// The holder cannot use skills that are not <强制> ([沉默]).
    #[serde(default)]
    pub blocks_unforced: bool,
    /// The holder cannot use these skills ([缴械]: 杀人).
    #[serde(default)]
    pub blocks_skills: Vec<String>,
    /// A team skill it blocks is blocked for the whole team (「若是[群内]，也会影响整个群内」).
    #[serde(default)]
    pub blocks_team: bool,
    /// The holder goes out by none but these causes ([不死]: 红牌; [坚韧]: 致死伤害, 投票, 红牌).
    #[serde(default)]
    pub only_out_by: Option<Vec<String>>,
    /// `only_out_by` protects only against outs caused by a player of this true camp (猎魔人
    /// 宿命「仅针对[实际阵营]为[村民阵营]的[坚韧]」).
    #[serde(default)]
    pub from_camp: Option<String>,
    /// The holder does not go out by these causes ([霸道]: 投票).
    #[serde(default)]
    pub not_out_by: Vec<String>,
    /// One instance absorbs one out by one of these causes and is spent ([守护：X] against
    /// 指杀); the instance that ends first is spent first.
    #[serde(default)]
    pub guards: Vec<String>,
    /// Never spent by what it absorbs ([守护：∞]).
    #[serde(default)]
    pub unlimited: bool,
    /// A <指定> skill's effect on a final target holding it is not settled ([隐身]).
    #[serde(default)]
    pub untargetable: bool,
    pub clause: String,
}

/// How a hand-off stage moves a target.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum HandoffMode {
    /// The target becomes the user of the skill (时间逆流: 「结算目标全部改为发动者自己」).
    BackToActor,
    /// The target becomes a player drawn at random among the living who do not hold the
    /// stage's `skill` (反射: 「随机选择一个不持有[反射]技能的角色代替其成为结算目标」).
    RandomOther,
}

/// One stage of 选择目标 → … → 结算目标, in the order the rule file lists them; each stage is
/// checked once per target, on the target the previous stage left.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct HandoffStage {
    /// The stage's name as the post writes it (时间逆流, 反射).
    pub name: String,
    pub mode: HandoffMode,
    /// The target triggers the stage while it holds this status (set tonight by a skill)…
    #[serde(default)]
    pub status: Option<String>,
    /// …or this skill (not lost).
    #[serde(default)]
    pub skill: Option<String>,
    /// Skills used by players whose true camp is this one pass unchanged (「除了实际阵营为
    /// [狼人阵营]以外」).
    #[serde(default)]
    pub except_camp: Option<String>,
    /// After a night in which the stage moved a skill, whoever set the status loses this
    /// skill (时间逆流「然后失去此技能」).
    #[serde(default)]
    pub source_loses: Option<String>,
    pub clause: String,
}

/// A role the post names but never defines (阴谋家, 白狼王…): a seat given it is refused.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct UndefinedRole {
    pub name: String,
    /// Where the post names it (quoted).
    pub clause: String,
}
