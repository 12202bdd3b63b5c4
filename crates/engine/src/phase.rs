//! What one phase takes and gives: the input (a night's actions, a day's outs), the outcome
//! (deaths, feedback, announcements, notes, the new state), a prompt and its continuation.

use serde::{Deserialize, Serialize};

use crate::action::{Action, Invalid};
use crate::state::{GameState, Moment, Phase};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Death {
    pub player: String,
    pub cause: String,
    /// Whose death (or action) led to this one (殉情 → the lover; 最后一枪 → the hunter).
    pub via: Option<String>,
    /// The step id it happened in.
    pub step: String,
    /// The clause applied.
    pub clause: String,
    /// Other causes that hit the player after they were already out.
    pub also: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Feedback {
    pub player: String,
    pub text: String,
    /// The checkpoint at which it is released (关门后15分…), when the rule set has them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<String>,
}

/// One line of the director's notes: what happened at which step, by which clause.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogEntry {
    pub step: String,
    pub text: String,
    pub clause: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Outcome {
    pub moment: Moment,
    pub deaths: Vec<Death>,
    pub feedback: Vec<Feedback>,
    pub announcements: Vec<String>,
    pub log: Vec<LogEntry>,
    /// Camps defeated during this phase.
    pub camps_lost: Vec<String>,
    pub winner: Option<Vec<String>>,
    pub seed: u64,
    /// Every random draw, for the record.
    pub draws: Vec<String>,
    /// Answers given up front that the night never asked for.
    pub unused: Vec<String>,
    /// Players of an individual camp (独立阵营) who lost this phase, each alone: out while
    /// in it, or still in it when the game ended (the clause is in the notes).
    #[serde(default)]
    pub losers: Vec<String>,
    pub state: GameState,
}

/// What the loop needs from the director before it can go on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Prompt {
    pub player: String,
    pub skill: String,
    pub question: String,
    /// Who may be chosen.
    pub candidates: Vec<String>,
    /// True when an empty target list (放弃) is an allowed answer.
    pub may_pass: bool,
    pub clause: String,
}

impl Prompt {
    /// The action that answers this prompt.
    pub fn answer(&self, targets: &[&str]) -> Action {
        Action::new(&self.player, &self.skill, targets)
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Continuation {
    pub input: PhaseInput,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[allow(clippy::large_enum_variant)]
pub enum Resolution {
    Done(Outcome),
    NeedInput {
        prompt: Prompt,
        continuation: Continuation,
    },
}

/// Bad input: nothing was resolved.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize)]
pub enum Rejected {
    #[error("{}", .0.iter().map(|i| i.to_string()).collect::<Vec<_>>().join("\n"))]
    Invalid(Vec<Invalid>),
    #[error("the game is already over ({0})")]
    GameOver(String),
    #[error("{0}")]
    Other(String),
}

/// What one phase gets: a night's actions (prompt answers included), or a day's outcome.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PhaseInput {
    pub moment: Moment,
    /// For a night: the actions file. For a day: the answers (最后一枪, 殉职).
    pub actions: Vec<Action>,
    /// For a day: who goes out, in order, with the cause (投票, 红牌…).
    #[serde(default)]
    pub outs: Vec<(String, String)>,
    /// For day 1 (or any election): who became 警长.
    #[serde(default)]
    pub sheriff: Option<String>,
    /// For a day: camps the director rules defeated (投降; 红牌 判负), applied first.
    #[serde(default)]
    pub lose: Vec<String>,
    /// For a day: causes given to players already out (a 红牌 for an out player: 「已出局角色
    /// 仍可被判罚」) — recorded on the player's out, counted by `cause-count` conditions.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub records: Vec<(String, String)>,
    /// For a day: the clause that decided an out of `outs`, by player, where it is not the
    /// cause's own (the vote's tie-break: 「若警长投票有效，则警长投票对象出局」).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub out_clauses: Vec<(String, String)>,
    pub seed: u64,
    /// How to treat a prompt nobody answered: stop (the CLI) or note it and pass (replaying
    /// facts the director recorded by hand).
    #[serde(default)]
    pub on_prompt: OnPrompt,
    /// A day's `outs` are facts the director recorded (an `out` event), not results still to
    /// be settled: `day_checks` (免疫第一次出局, 避险) do not apply to them.
    #[serde(default)]
    pub recorded_outs: bool,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum OnPrompt {
    #[default]
    Ask,
    Pass,
}

impl PhaseInput {
    pub fn night(n: u32, actions: Vec<Action>, seed: u64) -> PhaseInput {
        PhaseInput {
            moment: Moment {
                day: n,
                phase: Phase::Night,
            },
            actions,
            outs: Vec::new(),
            sheriff: None,
            lose: Vec::new(),
            records: Vec::new(),
            out_clauses: Vec::new(),
            seed,
            on_prompt: OnPrompt::Ask,
            recorded_outs: false,
        }
    }
    pub fn day(
        n: u32,
        outs: Vec<(String, String)>,
        sheriff: Option<String>,
        answers: Vec<Action>,
        seed: u64,
    ) -> PhaseInput {
        PhaseInput {
            moment: Moment {
                day: n,
                phase: Phase::Day,
            },
            actions: answers,
            outs,
            sheriff,
            lose: Vec::new(),
            records: Vec::new(),
            out_clauses: Vec::new(),
            seed,
            on_prompt: OnPrompt::Ask,
            recorded_outs: false,
        }
    }
}
