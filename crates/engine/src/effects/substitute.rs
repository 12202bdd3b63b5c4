//! Going out in another's place (侍从 替死): the actor stands in for the target if the
//! target would go out tonight.

use serde::{Deserialize, Serialize};

use super::{Behaviour, kind};
use crate::action::Action;
use crate::ctx::{Ctx, Flow};
use crate::rules::SkillDef;
use crate::state::Phase;

/// If the target would go out tonight (after every status and ward has had its say), the
/// actor goes out instead, by the same cause (the actor's own statuses still apply).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Substitute {}

impl Behaviour for kind::Substitute {
    fn act(&self, cx: &mut Ctx, _def: &SkillDef, a: &Action) -> Flow {
        for t in &a.targets {
            cx.marks.substitutes.push((t.clone(), a.actor.clone()));
        }
        Ok(())
    }
}

/// Who goes out in `name`'s place tonight, if anyone (still in the game, not `name`); the
/// mark is spent.
pub(crate) fn stand_in(cx: &mut Ctx, name: &str) -> Option<String> {
    if cx.input.moment.phase != Phase::Night {
        return None;
    }
    let i = cx.marks.substitutes.iter().position(|(t, by)| {
        t == name && by != name && cx.st.player(by).is_some_and(|p| p.alive())
    })?;
    Some(cx.marks.substitutes.remove(i).1)
}
