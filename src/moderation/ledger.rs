//! The card ledger: cards given (and not withdrawn), merged by the rule set's escalations
//! (3 蓝 → 1 黄, 3 黄 → 1 红), a 红 putting the player out (红牌罚下), and camps lost to
//! reds where the rule set says so. Pure: recomputed from the cards every time, so a
//! withdrawn card undoes the escalations it caused.

use serde::Serialize;

use super::Card;
use crate::model::Timestamp;

/// One card as recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CardRecord {
    pub id: i64,
    pub player: String,
    pub card: Card,
    pub at: Timestamp,
    /// The clause it was given under.
    pub clause: String,
    pub withdrawn: bool,
}

/// The escalation rules of a rule set's `[moderation]`.
#[derive(Debug, Clone)]
pub struct Escalation {
    pub blue_to_yellow: u32,
    pub yellow_to_red: u32,
    /// Reds in one camp that lose the camp (None: the director decides).
    pub camp_loss_reds: Option<u32>,
}

#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Merge {
    pub at: Timestamp,
    pub from: Card,
    pub to: Card,
}

/// One red card a player holds: given as red, or merged from yellows by the card `card`.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Red {
    pub at: Timestamp,
    /// The card that gave it (the red itself, or the yellow that completed the merge).
    pub card: i64,
    pub merged: bool,
}

#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct PlayerLedger {
    pub name: String,
    /// Blue cards not (yet) merged into a yellow.
    pub blue: u32,
    /// Yellow cards (given or merged) not (yet) merged into a red.
    pub yellow: u32,
    /// Red cards, given or merged.
    pub red: u32,
    /// Out by a red card (红牌罚下).
    pub out: bool,
    /// When the first red came.
    pub out_at: Option<Timestamp>,
    /// The cards given, in time order (ids).
    pub cards: Vec<i64>,
    pub merges: Vec<Merge>,
    /// Every red, in time order (the first one puts the player out; later ones still count
    /// towards a camp's loss: 「已出局角色仍可被判罚」).
    pub reds: Vec<Red>,
    pub camp: Option<String>,
}

#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Ledger {
    pub players: Vec<PlayerLedger>,
    pub camps_lost: Vec<String>,
}

/// Compute the ledger. `players` fixes the order (config order); a carded name missing
/// from it is appended. `camp_of` gives a player's camp, where the config says.
pub fn compute(
    players: &[String],
    cards: &[CardRecord],
    rules: &Escalation,
    camp_of: impl Fn(&str) -> Option<String>,
) -> Ledger {
    let mut sorted: Vec<&CardRecord> = cards.iter().filter(|c| !c.withdrawn).collect();
    sorted.sort_by_key(|c| (c.at, c.id));
    let mut out: Vec<PlayerLedger> = players
        .iter()
        .map(|p| PlayerLedger {
            name: p.clone(),
            blue: 0,
            yellow: 0,
            red: 0,
            out: false,
            out_at: None,
            cards: Vec::new(),
            merges: Vec::new(),
            reds: Vec::new(),
            camp: camp_of(p),
        })
        .collect();
    for c in sorted {
        let i = match out.iter().position(|p| p.name == c.player) {
            Some(i) => i,
            None => {
                out.push(PlayerLedger {
                    name: c.player.clone(),
                    blue: 0,
                    yellow: 0,
                    red: 0,
                    out: false,
                    out_at: None,
                    cards: Vec::new(),
                    merges: Vec::new(),
                    reds: Vec::new(),
                    camp: camp_of(&c.player),
                });
                out.len() - 1
            }
        };
        let p = &mut out[i];
        p.cards.push(c.id);
        match c.card {
            Card::Green => {}
            Card::Blue => p.blue += 1,
            Card::Yellow => p.yellow += 1,
            Card::Red => {
                p.red += 1;
                p.reds.push(Red {
                    at: c.at,
                    card: c.id,
                    merged: false,
                });
            }
        }
        if rules.blue_to_yellow > 0 && p.blue >= rules.blue_to_yellow {
            p.blue -= rules.blue_to_yellow;
            p.yellow += 1;
            p.merges.push(Merge {
                at: c.at,
                from: Card::Blue,
                to: Card::Yellow,
            });
        }
        if rules.yellow_to_red > 0 && p.yellow >= rules.yellow_to_red {
            p.yellow -= rules.yellow_to_red;
            p.red += 1;
            p.reds.push(Red {
                at: c.at,
                card: c.id,
                merged: true,
            });
            p.merges.push(Merge {
                at: c.at,
                from: Card::Yellow,
                to: Card::Red,
            });
        }
        if p.red > 0 && !p.out {
            p.out = true;
            p.out_at = Some(c.at);
        }
    }
    let mut camps_lost = Vec::new();
    if let Some(n) = rules.camp_loss_reds {
        let mut per: std::collections::BTreeMap<&str, u32> = Default::default();
        for p in &out {
            if let Some(c) = &p.camp {
                *per.entry(c.as_str()).or_default() += p.red;
            }
        }
        camps_lost = per
            .into_iter()
            .filter(|(_, r)| *r >= n.max(1))
            .map(|(c, _)| c.to_string())
            .collect();
    }
    Ledger {
        players: out,
        camps_lost,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn card(id: i64, p: &str, c: Card, at: i64) -> CardRecord {
        CardRecord {
            id,
            player: p.into(),
            card: c,
            at,
            clause: "x".into(),
            withdrawn: false,
        }
    }

    fn rules() -> Escalation {
        Escalation {
            blue_to_yellow: 3,
            yellow_to_red: 3,
            camp_loss_reds: Some(2),
        }
    }

    #[test]
    fn three_blue_make_a_yellow_and_three_yellow_a_red_that_puts_out() {
        let mut cs = vec![];
        for i in 0..3 {
            cs.push(card(i, "a", Card::Blue, 10 + i));
        }
        cs.push(card(3, "a", Card::Yellow, 20));
        cs.push(card(4, "a", Card::Yellow, 30));
        let l = compute(&["a".into()], &cs, &rules(), |_| None);
        let a = &l.players[0];
        assert_eq!((a.blue, a.yellow, a.red, a.out), (0, 0, 1, true));
        assert_eq!(a.out_at, Some(30));
        assert_eq!(a.merges.len(), 2);
        assert_eq!(
            a.reds,
            vec![Red {
                at: 30,
                card: 4,
                merged: true
            }]
        );
        // Withdrawing one blue undoes both merges.
        cs[1].withdrawn = true;
        let l = compute(&["a".into()], &cs, &rules(), |_| None);
        let a = &l.players[0];
        assert_eq!((a.blue, a.yellow, a.red, a.out), (2, 2, 0, false));
    }

    #[test]
    fn two_reds_in_one_camp_lose_it_only_where_the_rules_say() {
        let cs = vec![card(1, "a", Card::Red, 1), card(2, "b", Card::Red, 2)];
        let camp = |p: &str| Some(if p == "c" { "村民" } else { "狼人阵营" }.to_string());
        let names: Vec<String> = ["a", "b", "c"].iter().map(|s| s.to_string()).collect();
        let l = compute(&names, &cs, &rules(), camp);
        assert_eq!(l.camps_lost, vec!["狼人阵营".to_string()]);
        let mut r = rules();
        r.camp_loss_reds = None;
        assert!(compute(&names, &cs, &r, camp).camps_lost.is_empty());
    }
}
