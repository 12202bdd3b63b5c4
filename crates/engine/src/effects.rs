//! The built-in behaviours, shared by every rule set. Each kind is one payload type in one
//! family file (`effects/<family>.rs`) implementing `Behaviour`; the `catalogue!` below is the
//! one place that lists them: it makes the rule file's `Effect` (serde: `kind = "…"`) and the
//! one dispatch from an `Effect` to its `Behaviour`. Nothing here names a role or a rule set:
//! every name comes from the rule file.

mod any_out;
mod conversion;
mod costly_kill;
mod damage;
mod handoff;
mod immunity;
mod info;
mod investigate;
mod kill;
mod link;
mod on_out;
mod recruit;
mod rising;
mod status;
mod substitute;
mod traps;
mod vote;

pub(crate) use any_out::{
    announce_counters, on_any_out, public_counters, settle_follow_out, tell_senses,
};
pub(crate) use damage::{settle_damage, settle_exorcise, warded};
pub(crate) use immunity::immunity_of;
pub(crate) use info::{sense_camps, tell_team};
pub(crate) use kill::wasted_protects;
pub(crate) use link::grant;
pub(crate) use recruit::settle_recruits;
pub(crate) use rising::{grievance_morning, grievance_on_out, mutiny};
pub(crate) use status::{blocked, stops_out};
pub(crate) use substitute::stand_in;
pub(crate) use traps::{burned, holds_effect, order_key, settle_traps};

use serde::{Deserialize, Serialize};

use crate::action::Action;
use crate::ctx::{Ctx, Flow, Mark, Used};
use crate::rules::{EngineRules, SkillDef};
use crate::state::GameState;

/// What a kind of behaviour does, hook by hook. Every hook has a default (nothing), so a kind
/// implements only what it does; the loop calls the hooks and never matches on a kind.
pub(crate) trait Behaviour {
    /// A submitted (validated) use at its step: mark, tell or change the state. Passive and
    /// on-out kinds are never submitted as night actions.
    fn act(&self, _cx: &mut Ctx, _def: &SkillDef, _a: &Action) -> Flow {
        Ok(())
    }
    /// Whether it fires when its holder goes out (whatever the skill's timing says).
    fn fires_on_out(&self) -> bool {
        false
    }
    /// Its holder went out (`OwnOut`); called in the rule set's `on_out_order`.
    fn on_own_out(&self, _cx: &mut Ctx, _o: &OwnOut) -> Flow {
        Ok(())
    }
    /// The camps and roles its parameters name, as (`camp`|`role`, name), for `check-rules`.
    fn names(&self) -> Vec<(&'static str, &str)> {
        Vec::new()
    }
    /// Whether a use is noted as such (an information skill notes its own answer instead).
    fn logs_use(&self) -> bool {
        true
    }
    /// Checked with the other limits before anything runs: a refusal rejects the action.
    fn precheck(&self, _rules: &EngineRules, _st: &GameState, _a: &Action) -> Result<(), String> {
        Ok(())
    }
    /// A phase begins and `holder` (in the game) holds it through `skill`.
    fn on_phase_start(&self, _cx: &mut Ctx, _holder: &str, _skill: &str) {}
    /// Extra uses a night the skill allows `actor` now.
    fn extra_uses(&self, _st: &GameState, _actor: &str) -> u32 {
        0
    }
}

/// A holder going out, as its on-out behaviours see it: `root` is the cause that started the
/// link chain (a lover's 红牌 bars the hunter's shot).
pub(crate) struct OwnOut<'o> {
    pub name: &'o str,
    pub skill: &'o str,
    pub def: &'o SkillDef,
    pub cause: &'o str,
    pub root: &'o str,
}

/// Declares every kind: `family::Type = "kind-name"`. Makes `Effect`, its one dispatch
/// `Effect::behaviour`, and `kind::Type` for code that reads a passive kind's parameters.
macro_rules! catalogue {
    ($($family:ident::$name:ident = $kind:literal,)*) => {
        /// The payload types, by kind.
        pub mod kind {
            $(pub use super::$family::$name;)*
        }

        /// A built-in behaviour with its parameters, as a rule file writes it (`kind = "…"`).
        /// Each payload's doc comment says what it does and what its parameters mean.
        #[derive(Debug, Clone, Deserialize, Serialize)]
        #[serde(tag = "kind")]
        pub enum Effect {
            $(#[serde(rename = $kind)] $name(kind::$name),)*
        }

        impl Effect {
            /// The one dispatch from a declared effect to its behaviour.
            pub(crate) fn behaviour(&self) -> &dyn Behaviour {
                match self {
                    $(Effect::$name(b) => b,)*
                }
            }

            /// The behaviour's name as the rule file writes it.
            pub fn kind_name(&self) -> &'static str {
                match self {
                    $(Effect::$name(_) => $kind,)*
                }
            }
        }
    };
}

catalogue! {
    kill::Kill = "kill",
    kill::Protect = "protect",
    kill::Save = "save",
    kill::Poison = "poison",
    investigate::SeeKills = "see-kills",
    investigate::InvestigateCamp = "investigate-camp",
    investigate::InvestigateRole = "investigate-role",
    link::Link = "link",
    link::FollowCamp = "follow-camp",
    on_out::Shoot = "shoot",
    on_out::PassBadge = "pass-badge",
    link::DieWithLink = "die-with-link",
    immunity::FirstAttackImmunity = "first-attack-immunity",
    on_out::StripOnOut = "strip-on-out",
    damage::SaveExcept = "save-except",
    damage::Blast = "blast",
    damage::Exorcise = "exorcise",
    any_out::OutCounter = "out-counter",
    any_out::SenseNeighbours = "sense-neighbours",
    conversion::Convert = "convert",
    conversion::Disguise = "disguise",
    any_out::FollowOut = "follow-out",
    recruit::Recruit = "recruit",
    info::Shroud = "shroud",
    immunity::AttackImmunity = "attack-immunity",
    immunity::FirstOutImmunity = "first-out-immunity",
    immunity::Dodge = "dodge",
    traps::Burn = "burn",
    traps::Retaliate = "retaliate",
    traps::AttacksAsPoison = "attacks-as-poison",
    info::Restrict = "restrict",
    info::RevealCamp = "reveal-camp",
    info::Observe = "observe",
    info::CountCamps = "count-camps",
    info::Pipe = "pipe",
    info::Force = "force",
    traps::Hunt = "hunt",
    info::Relay = "relay",
    info::RefreshLimited = "refresh-limited",
    info::SenseCamp = "sense-camp",
    rising::Grievance = "grievance",
    rising::Mutiny = "mutiny",
    recruit::BecomeRole = "become-role",
    vote::Tally = "tally",
    status::GrantStatus = "grant-status",
    status::HoldStatus = "hold-status",
    handoff::Swap = "swap",
    substitute::Substitute = "substitute",
    status::NeighboursStatus = "neighbours-status",
    investigate::CampName = "camp-name",
    costly_kill::CostlyKill = "costly-kill",
}

impl Effect {
    /// The camps and roles the effect's parameters name, as (`camp`|`role`, name).
    pub fn names(&self) -> Vec<(&'static str, &str)> {
        self.behaviour().names()
    }

    /// Fires when its holder goes out (whatever the skill's timing says).
    pub fn on_out(&self) -> bool {
        self.behaviour().fires_on_out()
    }
}

/// A phase begins: every behaviour held by a player still in the game hears it.
pub(crate) fn phase_start(cx: &mut Ctx) {
    status::expire_at_night(cx);
    let mut held: Vec<(String, String)> = Vec::new();
    for p in cx.st.alive() {
        for (k, s) in &p.skills {
            if !s.lost {
                held.push((p.name.clone(), k.clone()));
            }
        }
    }
    for (name, skill) in held {
        let Some(def) = cx.rules.skill(&skill) else {
            continue;
        };
        for eff in &def.effects {
            eff.behaviour().on_phase_start(cx, &name, &skill);
        }
    }
}

/// Apply a submitted (validated) action: spend a use, lose what using it loses, run its
/// effects as marks.
pub(crate) fn apply_action(cx: &mut Ctx, def: &SkillDef, a: &Action) -> Flow {
    cx.marks.used.push(Used {
        actor: a.actor.clone(),
        skill: a.skill.clone(),
        targets: a.targets.clone(),
        void: false,
        at: cx.at.checkpoint.clone(),
    });
    // the skill's own feedback may be released at another checkpoint than its step's
    let step_checkpoint = cx.at.checkpoint.clone();
    if def.feedback_at.is_some() {
        cx.at.checkpoint = def.feedback_at.clone();
    }
    let r = apply_effects(cx, def, a);
    cx.at.checkpoint = step_checkpoint;
    r
}

fn apply_effects(cx: &mut Ctx, def: &SkillDef, a: &Action) -> Flow {
    lock_targets(cx, def, a);
    count_use(cx, a);
    if let Some(p) = cx.st.player_mut(&a.actor) {
        if let Some(s) = p.skills.get_mut(&a.skill)
            && let Some(u) = &mut s.uses_left
        {
            *u = u.saturating_sub(1);
        }
        for l in &def.on_use_lose {
            if let Some(s) = p.skills.get_mut(l) {
                s.lost = true;
            }
        }
    }
    if def.team {
        // the whole team's use of the skill this night
        let camp = cx.st.player(&a.actor).and_then(|p| p.camp.clone());
        cx.note(
            format!(
                "{}（{}）<{}>：{}",
                camp.unwrap_or_default(),
                a.actor,
                a.skill,
                targets_text(&a.targets)
            ),
            &def.clause,
        );
    } else if def.effects.iter().any(|e| e.behaviour().logs_use()) {
        cx.note(format!("{a}"), &def.clause);
    }
    if !def.on_use_lose.is_empty() {
        cx.note(
            format!(
                "{} 发动<{}>，失去<{}>",
                a.actor,
                a.skill,
                def.on_use_lose.join("><")
            ),
            &def.clause,
        );
    }
    // <指定>: the effects settle on the final targets
    let settled = if def.designated {
        handoff::settle_targets(cx, def, a)
    } else {
        a.clone()
    };
    for eff in &def.effects {
        eff.behaviour().act(cx, def, &settled)?;
    }
    refresh_gains(cx);
    Ok(())
}

/// `once_per_target` / `cooldown_by_targets`: the targets chosen are locked for the skill.
fn lock_targets(cx: &mut Ctx, def: &SkillDef, a: &Action) {
    let night = cx.input.moment.day;
    let until = if def.once_per_target {
        None
    } else if def.cooldown_by_targets {
        Some(night + a.targets.len() as u32)
    } else {
        return;
    };
    for t in &a.targets {
        cx.st.target_locks.push(crate::state::TargetLock {
            skill: a.skill.clone(),
            target: t.clone(),
            until_night: until,
        });
    }
}

/// The counter a `gains` rule reads for "uses of skill X" (`X已用`).
pub(crate) fn uses_counter(skill: &str) -> String {
    format!("{skill}已用")
}

fn count_use(cx: &mut Ctx, a: &Action) {
    let counted = cx.rules.skills.values().any(|d| {
        d.gains
            .iter()
            .any(|g| g.uses.as_deref() == Some(a.skill.as_str()))
    });
    if counted && let Some(p) = cx.st.player_mut(&a.actor) {
        let k = uses_counter(&a.skill);
        let v = p.counter(&k) + 1;
        p.counters.insert(k, v);
    }
}

/// Uses gained so far (`gains`): each holder's skill gets the uses its sources have earned
/// since last time (the earned total is kept in the counter `X+`).
pub(crate) fn refresh_gains(cx: &mut Ctx) {
    let piped = |cx: &Ctx, status: &str| {
        cx.st
            .players
            .iter()
            .filter(|p| p.has_status(status))
            .count() as i64
    };
    let mut changes: Vec<(String, String, i64, String)> = Vec::new();
    for p in &cx.st.players {
        for (k, s) in &p.skills {
            let Some(d) = cx.rules.skill(k) else { continue };
            if d.gains.is_empty() || s.lost {
                continue;
            }
            let mut earned = 0i64;
            let mut clause = String::new();
            for g in &d.gains {
                let n = if g.outs {
                    cx.st.outs as i64
                } else if let Some(u) = &g.uses {
                    p.counter(&uses_counter(u))
                } else if let Some(st) = &g.status {
                    piped(cx, st)
                } else {
                    0
                };
                let e = n / g.per.max(1) as i64;
                if e > 0 {
                    clause = g.clause.clone();
                }
                earned += e;
            }
            let key = format!("{k}+");
            let had = p.counter(&key);
            if earned > had {
                changes.push((p.name.clone(), k.clone(), earned - had, clause));
            }
        }
    }
    for (name, k, add, clause) in changes {
        let p = cx.st.player_mut(&name).expect("exists");
        let key = format!("{k}+");
        let had = p.counter(&key);
        p.counters.insert(key, had + add);
        if let Some(s) = p.skills.get_mut(&k) {
            s.uses_left = Some(s.uses_left.unwrap_or(0) + add as u32);
        }
        let alive = p.alive();
        cx.note(format!("{name} 的<{k}>次数+{add}"), &clause);
        if alive {
            cx.tell(&name, format!("你的<{k}>次数+{add}。"));
        }
    }
}

pub(crate) fn mark(list: &mut Vec<Mark>, a: &Action) {
    for t in &a.targets {
        let m = Mark {
            target: t.clone(),
            actor: a.actor.clone(),
            skill: a.skill.clone(),
        };
        list.push(m);
    }
}

fn targets_text(t: &[String]) -> String {
    if t.is_empty() {
        "放弃".into()
    } else {
        t.join("、")
    }
}
