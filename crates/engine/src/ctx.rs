//! The working state of one phase's resolution, in parts: the marks of tonight's actions
//! (`Marks`), what the phase reports (`Report`), and where the loop is (`Progress`). The
//! helpers every behaviour uses (notes, feedback, prompt answers) live here too.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use crate::action::{Action, Invalid};
use crate::phase::{Death, Feedback, LogEntry, OnPrompt, PhaseInput, Prompt};
use crate::rng::Rng;
use crate::rules::{EngineRules, Step};
use crate::state::GameState;

/// One attack (指杀) marked during the night.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Attack {
    pub target: String,
    pub actor: String,
    pub skill: String,
    pub step: String,
    pub cause: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mark {
    pub target: String,
    pub actor: String,
    pub skill: String,
}

/// A skill used tonight (for traps and observations); `void` when it had no effect on the
/// target (狩猎 on a 王道 target).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Used {
    pub actor: String,
    pub skill: String,
    pub targets: Vec<String>,
    pub void: bool,
    /// The checkpoint of the step it was used in (a trap it springs is told then).
    pub at: Option<String>,
}

/// Why the loop stopped early.
pub(crate) enum Stop {
    Prompt(Box<Prompt>),
    Bad(Box<Invalid>),
    Many(Vec<Invalid>),
}

pub(crate) type Flow = Result<(), Stop>;

/// The marks tonight's actions left, read by the settlement steps (mark first, kill later).
#[derive(Default)]
pub(crate) struct Marks {
    pub attacks: Vec<Attack>,
    pub protects: Vec<Mark>,
    pub saves: Vec<Mark>,
    pub poisons: Vec<Mark>,
    /// 致死伤害 marked by `blast` effects (not attacks: protections do not see them).
    pub damages: Vec<Attack>,
    /// `save-except` marks: (target, the causes that still put them out).
    pub wards: Vec<(String, Vec<String>)>,
    /// `exorcise` marks.
    pub exorcisms: Vec<Mark>,
    /// `shroud` marks with the actor's choice (what investigations of the target say).
    pub shrouds: Vec<(Mark, Option<String>)>,
    /// `burn` / `retaliate` traps.
    pub traps: Vec<Mark>,
    /// Camps whose attacks settle as poisons tonight, with the skill that made it so.
    pub poison_camps: Vec<(String, String)>,
    /// Every skill used tonight, in order.
    pub used: Vec<Used>,
    /// `recruit` actions waiting for the end of their step.
    pub recruits: Vec<Action>,
    /// Attacks raised during settlement, for a `late-kills` step.
    pub late_attacks: Vec<Attack>,
    /// Swaps of <指定> targets made tonight (交换), in order.
    pub swaps: Vec<(String, String)>,
    /// Substitutes marked tonight: (protected player, who goes out instead) (替死).
    pub substitutes: Vec<(String, String)>,
    /// Statuses granted tonight: (holder, status, who granted it), for the hand-off's notices.
    pub granted: Vec<(String, String, String)>,
}

/// What the phase reports: it becomes the `Outcome`.
#[derive(Default)]
pub(crate) struct Report {
    pub deaths: Vec<Death>,
    pub feedback: Vec<Feedback>,
    pub announcements: Vec<String>,
    pub log: Vec<LogEntry>,
    pub draws: Vec<String>,
    pub camps_lost: Vec<String>,
    /// `sense-neighbours` feedback, told at the end of the phase to holders still in the game.
    pub senses: Vec<Feedback>,
    /// Players of an individual camp who lost (see `Outcome.losers`).
    pub losers: Vec<String>,
}

/// Where the loop is.
#[derive(Default)]
pub(crate) struct Progress {
    pub step: String,
    /// Which prompt answers (by index in `input.actions`) were consumed.
    pub answered: BTreeSet<usize>,
    /// Night actions already applied (by index).
    pub applied: BTreeSet<usize>,
    /// A `settle = "follow-out"` step is still to come in this phase.
    pub follow_step_ahead: bool,
    /// The checkpoint feedback is released at (from the last step that named one).
    pub checkpoint: Option<String>,
    /// Camps at the start of the phase (for `sense-camp`).
    pub start_camps: Vec<(String, Option<String>)>,
    /// A prompt raised where the loop could not stop (a camp-lost out), raised at the end.
    pub deferred: Option<Stop>,
    /// A settlement step has run (later acting steps skip players out by then).
    pub settled: bool,
    /// Who is behind the attack or poison being settled (for `grievance`).
    pub source: Option<String>,
    /// Camps already meeting a loss condition when the phase began (not "standing before"
    /// a simultaneous loss of this phase).
    pub losing_at_start: Vec<String>,
}

/// The working state of one phase's resolution.
pub(crate) struct Ctx<'a> {
    pub rules: &'a EngineRules,
    pub st: GameState,
    pub input: &'a PhaseInput,
    pub rng: Rng,
    pub marks: Marks,
    pub report: Report,
    pub at: Progress,
}

impl<'a> Ctx<'a> {
    pub fn new(rules: &'a EngineRules, st: GameState, input: &'a PhaseInput) -> Self {
        let start_camps = st
            .players
            .iter()
            .map(|p| (p.name.clone(), p.camp.clone()))
            .collect();
        let losing_at_start = crate::conditions::losing(rules, &st);
        Ctx {
            rules,
            st,
            input,
            rng: Rng::new(input.seed),
            marks: Marks::default(),
            report: Report::default(),
            at: Progress {
                losing_at_start,
                start_camps,
                ..Progress::default()
            },
        }
    }

    pub fn note(&mut self, text: impl Into<String>, clause: &str) {
        self.report.log.push(LogEntry {
            step: self.at.step.clone(),
            text: text.into(),
            clause: clause.to_string(),
        });
    }

    pub fn tell(&mut self, player: &str, text: impl Into<String>) {
        let at = self.at.checkpoint.clone();
        self.tell_at(player, text, at);
    }

    /// Feedback released at a given checkpoint (a trap told when its victim acted).
    pub fn tell_at(&mut self, player: &str, text: impl Into<String>, at: Option<String>) {
        self.report.feedback.push(Feedback {
            player: player.to_string(),
            text: text.into(),
            at,
        });
    }

    /// Record a random draw (kept with the result and in the notes).
    pub fn draw(&mut self, text: String) {
        self.note(format!("随机：{text}"), "");
        self.report.draws.push(text);
    }

    pub fn skill_clause(&self, skill: &str) -> String {
        self.rules
            .skill(skill)
            .map(|d| d.clause.clone())
            .unwrap_or_default()
    }

    /// Holds one of the rule set's idle statuses (挂机): in the game, but cannot act.
    pub fn idle(&self, name: &str) -> bool {
        self.st
            .player(name)
            .is_some_and(|p| self.rules.idle_statuses.iter().any(|s| p.has_status(s)))
    }

    /// An answer given for (actor, skill), consumed once.
    pub fn answer(&mut self, actor: &str, skill: &str) -> Option<Action> {
        let i = self.input.actions.iter().enumerate().position(|(i, a)| {
            !self.at.answered.contains(&i) && a.actor == actor && a.skill == skill
        })?;
        self.at.answered.insert(i);
        Some(self.input.actions[i].clone())
    }

    pub fn unanswered(&self) -> bool {
        self.input.on_prompt == OnPrompt::Ask
    }

    pub fn bad(&self, a: &Action, reason: impl Into<String>) -> Stop {
        let index = self
            .input
            .actions
            .iter()
            .position(|x| x == a)
            .map_or(0, |i| i + 1);
        Stop::Bad(Box::new(Invalid {
            index,
            action: a.to_string(),
            reason: reason.into(),
        }))
    }

    /// Whether `actor` acts in this step (the step's camp filter).
    pub fn in_step(&self, step: &Step, actor: &str) -> bool {
        match &step.camp {
            None => true,
            Some(c) => self.st.player(actor).and_then(|p| p.camp.as_deref()) == Some(c),
        }
    }
}
