//! bansha-engine: the pure night-resolution engine. `(rules, state, actions, seed) →
//! outcome | prompt`. No SQLite, no network, no clock: its dependency list is the proof.
//! See DESIGN.md for where a role behaviour goes and how a rule set plugs in.

pub mod action;
mod effects;
pub mod quote;
pub mod resolve;
pub mod rng;
pub mod rules;
pub mod scenario;
pub mod state;
mod validate;

pub use action::{Action, ActionsFile, Invalid};
pub use resolve::{
    Continuation, Death, Feedback, LogEntry, OnPrompt, Outcome, PhaseInput, Prompt, Rejected,
    Resolution, resolve, winner,
};
pub use rules::EngineRules;
pub use state::{GameState, Moment, Phase};
