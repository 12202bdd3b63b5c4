//! Who is in the game, and in what state, at a given moment: derived from the config's
//! players and `[[event]]` facts (and, later, the facts the night engine records).
//! Pure: data in, answers out.

use crate::config::{Config, Event};
use crate::model::Timestamp;

/// The cause of an out by the card ledger's 红牌罚下, as the roster, the timeline and the
/// rule files' `[engine.causes]` name it.
pub const RED_CARD_CAUSE: &str = "red-card";

/// A fact with its time resolved, in time order.
#[derive(Debug, Clone, PartialEq)]
pub enum Fact {
    Out { player: String, cause: String },
    Revive { player: String },
    Sheriff { player: String },
    Role { player: String, role: String },
}

#[derive(Debug, Clone, Default)]
pub struct Roster {
    pub players: Vec<String>,
    /// Timed facts, sorted by time (stable: config order breaks ties).
    pub facts: Vec<(Timestamp, Fact)>,
    /// `(player, status, from_day, to_day)`.
    pub statuses: Vec<(String, String, u32, u32)>,
}

impl Roster {
    pub fn from_config(cfg: &Config) -> Roster {
        let mut facts = Vec::new();
        let mut statuses = Vec::new();
        for e in &cfg.events {
            match e {
                Event::Out { player, at, cause } => facts.push((
                    cfg.ts(*at),
                    Fact::Out {
                        player: player.clone(),
                        cause: cause.clone(),
                    },
                )),
                Event::Revive { player, at } => facts.push((
                    cfg.ts(*at),
                    Fact::Revive {
                        player: player.clone(),
                    },
                )),
                Event::Sheriff { player, at } => facts.push((
                    cfg.ts(*at),
                    Fact::Sheriff {
                        player: player.clone(),
                    },
                )),
                Event::Role { player, role, at } => facts.push((
                    cfg.ts(*at),
                    Fact::Role {
                        player: player.clone(),
                        role: role.clone(),
                    },
                )),
                Event::Status {
                    player,
                    status,
                    from_day,
                    to_day,
                } => statuses.push((player.clone(), status.clone(), *from_day, *to_day)),
                _ => {}
            }
        }
        facts.sort_by_key(|(t, _)| *t);
        Roster {
            players: cfg.players.iter().map(|p| p.name.clone()).collect(),
            facts,
            statuses,
        }
    }

    /// Add a timed fact (e.g. one the engine recorded), keeping time order.
    pub fn push(&mut self, at: Timestamp, fact: Fact) {
        let i = self.facts.partition_point(|(t, _)| *t <= at);
        self.facts.insert(i, (at, fact));
    }

    pub fn is_player(&self, name: &str) -> bool {
        self.players.iter().any(|p| p == name)
    }

    /// In the game at `t` (a fact at exactly `t` has taken effect).
    pub fn alive_at(&self, name: &str, t: Timestamp) -> bool {
        if !self.is_player(name) {
            return false;
        }
        let mut alive = true;
        for (at, f) in &self.facts {
            if *at > t {
                break;
            }
            match f {
                Fact::Out { player, .. } if player == name => alive = false,
                Fact::Revive { player } if player == name => alive = true,
                _ => {}
            }
        }
        alive
    }

    /// When and why the player last went out at or before `t`, if they are out at `t`.
    pub fn out_at(&self, name: &str, t: Timestamp) -> Option<(Timestamp, &str)> {
        let mut out = None;
        for (at, f) in &self.facts {
            if *at > t {
                break;
            }
            match f {
                Fact::Out { player, cause } if player == name => out = Some((*at, cause.as_str())),
                Fact::Revive { player } if player == name => out = None,
                _ => {}
            }
        }
        out
    }

    /// Players in the game at `t`, in config order.
    pub fn alive(&self, t: Timestamp) -> Vec<&str> {
        self.players
            .iter()
            .filter(|p| self.alive_at(p, t))
            .map(String::as_str)
            .collect()
    }

    /// The 警长 at `t`: the latest `sheriff` fact, if that player is still in the game.
    pub fn sheriff_at(&self, t: Timestamp) -> Option<&str> {
        let mut s = None;
        for (at, f) in &self.facts {
            if *at > t {
                break;
            }
            if let Fact::Sheriff { player } = f {
                s = Some(player.as_str());
            }
        }
        s.filter(|p| self.alive_at(p, t))
    }

    /// The role (or camp) recorded for the player by `t`, if any fact says so.
    pub fn role_at(&self, name: &str, t: Timestamp) -> Option<&str> {
        let mut r = None;
        for (at, f) in &self.facts {
            if *at > t {
                break;
            }
            if let Fact::Role { player, role } = f
                && player == name
            {
                r = Some(role.as_str());
            }
        }
        r
    }

    /// Statuses the player holds on `day` (迷魂, 寡言, 不死…), with multiplicity (诽谤 ×2).
    pub fn statuses_on(&self, name: &str, day: u32) -> Vec<&str> {
        self.statuses
            .iter()
            .filter(|(p, _, from, to)| p == name && *from <= day && day <= *to)
            .map(|(_, s, _, _)| s.as_str())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roster() -> Roster {
        let mut r = Roster {
            players: vec!["a".into(), "b".into()],
            ..Default::default()
        };
        r.push(100, Fact::Sheriff { player: "a".into() });
        r.push(
            200,
            Fact::Out {
                player: "a".into(),
                cause: "vote".into(),
            },
        );
        r.push(300, Fact::Revive { player: "a".into() });
        r
    }

    #[test]
    fn alive_follows_out_and_revive() {
        let r = roster();
        assert!(r.alive_at("a", 199));
        assert!(!r.alive_at("a", 200));
        assert_eq!(r.out_at("a", 250), Some((200, "vote")));
        assert!(r.alive_at("a", 300));
        assert!(!r.alive_at("nobody", 0));
        assert_eq!(r.alive(250), vec!["b"]);
    }

    #[test]
    fn sheriff_must_be_alive() {
        let r = roster();
        assert_eq!(r.sheriff_at(150), Some("a"));
        assert_eq!(r.sheriff_at(250), None);
        assert_eq!(r.sheriff_at(50), None);
    }
}
