//! Passive immunities the kill, poison and day checks consult.

use serde::{Deserialize, Serialize};

use super::{Behaviour, kind};
use crate::ctx::Ctx;
use crate::rules::Effect;

/// Passive: the first valid attack on the holder does not put them out (长寿之命).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct FirstAttackImmunity {
    pub counter: String,
}

/// Passive: attacks on the holder are invalid (统领「免疫指杀」).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct AttackImmunity {}

/// Passive: the first time the holder would go out by poison it does not (统领「免疫第一次出局」);
/// spent via `counter`.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct FirstOutImmunity {
    pub counter: String,
}

/// Passive with uses: a pending out (attack or poison) spends one use instead (避险).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Dodge {}

impl Behaviour for kind::FirstAttackImmunity {}

impl Behaviour for kind::AttackImmunity {}

impl Behaviour for kind::FirstOutImmunity {}

impl Behaviour for kind::Dodge {}

/// The unspent first-attack immunity the player holds: (skill, counter).
pub(crate) fn immunity_of(cx: &Ctx, name: &str) -> Option<(String, String)> {
    let p = cx.st.player(name)?;
    p.skills.iter().filter(|(_, s)| !s.lost).find_map(|(k, _)| {
        cx.rules.skill(k)?.effects.iter().find_map(|e| match e {
            Effect::FirstAttackImmunity(kind::FirstAttackImmunity { counter }) => {
                Some((k.clone(), counter.clone()))
            }
            _ => None,
        })
    })
}
