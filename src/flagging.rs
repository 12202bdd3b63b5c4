//! Moderation glue: the stored posts of a game → the pure detector ([`crate::moderation`])
//! → flags in the store; and the card ledger → facts (红牌罚下 is an `out` with cause
//! `red-card`) the rest of bansha reads through [`roster`].
//!
//! Scanning is incremental and idempotent: a pass reads only the revisions the store does
//! not list as scanned (`flag_scans`; an edit is a new revision, so it is read), and a post
//! gets at most one flag per category, ever — so a new post or a new revision is flagged
//! once, an edit that adds a banned phrase is flagged, a dismissed flag never comes back, and
//! a flagged post later deleted keeps its flag. 诈尸 and floods depend on the roster and on
//! the run of posts, not on one revision's text: they are checked over every post each pass
//! (no text is scanned for them).

use std::collections::{BTreeSet, HashSet};

use crate::config::Config;
use crate::model::{Post, Timestamp};
use crate::moderation::ledger::{self, CardRecord, Ledger};
use crate::moderation::{self, Card, Category, Detector, PostText};
use crate::roster::{Fact, Roster};
use crate::rules::RuleSet;
use crate::rules::moderation::ModerationRules;
use crate::store::{NewFlag, Store};

/// The `[moderation]` section, or an error naming the rule file.
pub fn rules_of(rules: &RuleSet) -> Result<&ModerationRules, String> {
    rules.moderation.as_ref().ok_or_else(|| {
        format!(
            "{}: no [moderation] section: this rule set cannot flag posts or keep cards",
            rules.path.display()
        )
    })
}

/// The game's threads, each once.
pub fn game_tids(cfg: &Config) -> Vec<u64> {
    let set: BTreeSet<u64> = cfg.threads().into_iter().map(|t| t.2).collect();
    set.into_iter().collect()
}

/// The detector for this game: the built-in lists, the players' and directors' names and
/// the phrases moderators whitelisted.
pub fn detector(cfg: &Config, store: &Store) -> Result<Detector, String> {
    let mut allow: Vec<String> = cfg.players.iter().map(|p| p.name.clone()).collect();
    allow.extend(cfg.game.directors.iter().cloned());
    allow.extend(
        store
            .flag_whitelist(&cfg.forum_key())
            .map_err(|e| e.to_string())?,
    );
    Detector::new(&allow)
}

/// The flags one thread's posts raise (not yet stored). `roster` says who was out when.
/// Revisions in `scanned` (`(pid, rev_hash)`) are not read again; the ones read are pushed
/// to `read`.
#[allow(clippy::too_many_arguments)]
pub fn thread_flags(
    cfg: &Config,
    m: &ModerationRules,
    d: &Detector,
    roster: &Roster,
    posts: &[Post],
    unstyled: &HashSet<String>,
    scanned: &HashSet<(u64, String)>,
    read: &mut Vec<(u64, String)>,
) -> Vec<NewFlag> {
    let mut out = Vec::new();
    let players: Vec<&Post> = posts
        .iter()
        .filter(|p| cfg.player(&p.author).is_some() && !cfg.is_director(&p.author))
        .filter(|p| p.locked.is_none())
        .collect();
    let mk = |p: &Post,
              cat: Category,
              matched: &str,
              excerpt: String,
              reason: String,
              card: Option<Card>,
              hash: &str,
              styled: bool| {
        let rule = m.category.get(&cat)?;
        let card = card.filter(|c| m.cards.contains(c)).unwrap_or(rule.card);
        Some(NewFlag {
            tid: p.tid,
            pid: p.pid,
            floor: p.floor,
            author: p.author.clone(),
            post_time: p.time,
            category: cat.as_str().to_string(),
            clause: rule.clause.clone(),
            card: card.as_str().to_string(),
            matched: matched.to_string(),
            excerpt,
            reason,
            rev_hash: hash.to_string(),
            styling_checked: styled,
        })
    };
    for p in &players {
        let mut seen: BTreeSet<Category> = BTreeSet::new();
        for (k, rev) in p.revisions.iter().enumerate() {
            let key = (p.pid, rev.hash.clone());
            // Read before, or the same text as an earlier revision (an edit reverted).
            if scanned.contains(&key) || p.revisions[..k].iter().any(|r| r.hash == rev.hash) {
                continue;
            }
            read.push(key);
            let styled = !unstyled.contains(&rev.hash);
            let hits = moderation::scan_post(
                d,
                &PostText {
                    text: &rev.text,
                    red: &rev.red,
                    large: &rev.large,
                },
            );
            for h in hits {
                if !seen.insert(h.category) {
                    continue;
                }
                let ex = if h.end > h.start {
                    moderation::excerpt(&rev.text, h.start, h.end, 20)
                } else {
                    format!("【{}】", h.matched)
                };
                out.extend(mk(
                    p,
                    h.category,
                    &h.matched,
                    ex,
                    h.reason.clone(),
                    h.card,
                    &rev.hash,
                    styled,
                ));
            }
        }
        if let Some((at, cause)) = roster.out_at(&p.author, p.time) {
            let text = &p.first().text;
            let reason = format!(
                "出局后发帖（{} 起已出局，{}）",
                cfg.fmt_time(at),
                out_cause_cn(cause)
            );
            let ex: String = text.chars().take(40).collect();
            out.extend(mk(
                p,
                Category::ZombiePost,
                &ex,
                ex.clone(),
                reason,
                None,
                &p.first().hash,
                true,
            ));
        }
    }
    let seq: Vec<(&str, &str)> = players
        .iter()
        .map(|p| (p.author.as_str(), p.first().text.as_str()))
        .collect();
    for i in moderation::floods(&seq, m.flood_run as usize) {
        let p = players[i];
        let reason = format!("{} 连续 {} 帖无意义发言（含本帖）", p.author, m.flood_run);
        let ex: String = p.first().text.chars().take(40).collect();
        out.extend(mk(
            p,
            Category::Flood,
            &ex,
            ex.clone(),
            reason,
            None,
            &p.first().hash,
            true,
        ));
    }
    out
}

/// An `out` cause as moderators read it (known causes in Chinese, others as given).
fn out_cause_cn(cause: &str) -> &str {
    match cause {
        crate::roster::RED_CARD_CAUSE => "红牌罚下",
        "vote" => "投票出局",
        "night" => "夜间死亡",
        other => other,
    }
}

/// What one [`scan_game`] did.
#[derive(Debug, Default)]
pub struct Scan {
    /// The new flags with their ids.
    pub new: Vec<(i64, NewFlag)>,
    /// Revisions whose text was scanned (the ones not scanned by an earlier pass).
    pub revisions_scanned: usize,
}

/// Scan the game's revisions not scanned before and store what is new. `roster` is the
/// game's timeline (`game::timeline::roster`): a player out by the engine or a red card who
/// posts is 诈尸.
pub fn scan_game(
    cfg: &Config,
    rules: &RuleSet,
    roster: &Roster,
    store: &mut Store,
    now: Timestamp,
) -> Result<Scan, String> {
    let m = rules_of(rules)?;
    let d = detector(cfg, store)?;
    let forum = cfg.forum_key();
    let mut scan = Scan::default();
    for tid in game_tids(cfg) {
        let posts = store.posts(&forum, tid).map_err(|e| e.to_string())?;
        if posts.is_empty() {
            continue;
        }
        let unstyled = store
            .unstyled_revisions(&forum, tid)
            .map_err(|e| e.to_string())?;
        let scanned = store
            .scanned_revisions(&forum, tid)
            .map_err(|e| e.to_string())?;
        let mut read = Vec::new();
        let flags = thread_flags(cfg, m, &d, roster, &posts, &unstyled, &scanned, &mut read);
        for f in flags {
            if let Some(id) = store
                .insert_flag(&forum, &f, now)
                .map_err(|e| e.to_string())?
            {
                scan.new.push((id, f));
            }
        }
        // After the flags: a crash in between only costs a rescan.
        store
            .mark_scanned(&forum, tid, &read)
            .map_err(|e| e.to_string())?;
        scan.revisions_scanned += read.len();
    }
    Ok(scan)
}

/// The camp a player is in, where the config or a `role` event names one (`…阵营`).
pub fn camp_of(cfg: &Config, roster: &Roster, player: &str) -> Option<String> {
    let role = roster
        .role_at(player, Timestamp::MAX)
        .map(str::to_string)
        .or_else(|| cfg.player(player).and_then(|p| p.role.clone()))?;
    role.ends_with("阵营").then_some(role)
}

/// The card ledger as the store holds it.
pub fn ledger(
    cfg: &Config,
    rules: &RuleSet,
    store: &Store,
) -> Result<(Ledger, Vec<CardRecord>), String> {
    ledger_at(cfg, rules, store, Timestamp::MAX)
}

/// The card ledger as it stood at `t`: cards given after `t` are not counted (a card
/// withdrawn later is not counted either: the ledger is the director's current ruling).
/// Players' camps as the config names them ([`camp_of`]); the game layer passes the
/// timeline's camps instead ([`ledger_with_camps`]).
pub fn ledger_at(
    cfg: &Config,
    rules: &RuleSet,
    store: &Store,
    t: Timestamp,
) -> Result<(Ledger, Vec<CardRecord>), String> {
    let base = Roster::from_config(cfg);
    ledger_with_camps(cfg, rules, store, t, &|p| camp_of(cfg, &base, p))
}

/// [`ledger_at`] with each player's camp from `camp` (the camps lost by red cards are
/// counted per camp).
pub fn ledger_with_camps(
    cfg: &Config,
    rules: &RuleSet,
    store: &Store,
    t: Timestamp,
    camp: &dyn Fn(&str) -> Option<String>,
) -> Result<(Ledger, Vec<CardRecord>), String> {
    let m = rules_of(rules)?;
    let cards: Vec<CardRecord> = store
        .cards(&cfg.forum_key())
        .map_err(|e| e.to_string())?
        .into_iter()
        .filter_map(|c| {
            Some(CardRecord {
                id: c.id,
                player: c.player,
                card: Card::parse(&c.card)?,
                at: c.given_at,
                clause: c.clause,
                withdrawn: c.withdrawn_at.is_some(),
            })
        })
        .filter(|c| c.at <= t)
        .collect();
    let names: Vec<String> = cfg.players.iter().map(|p| p.name.clone()).collect();
    let l = ledger::compute(&names, &cards, &m.escalation(), camp);
    Ok((l, cards))
}

/// The roster with the ledger's 红牌罚下 as `out` facts (cause `red-card`). A red given at
/// a day's 关门 takes effect one second later, after that day's vote is settled.
pub fn roster(cfg: &Config, rules: &RuleSet, store: &Store) -> Result<Roster, String> {
    let mut r = Roster::from_config(cfg);
    if rules.moderation.is_none() {
        return Ok(r);
    }
    let (l, _) = ledger(cfg, rules, store)?;
    let closes: Vec<Timestamp> = cfg
        .days
        .iter()
        .filter_map(|d| d.closes.map(|c| cfg.ts(c)))
        .collect();
    for p in l.players {
        if let Some(at) = p.out_at {
            let at = if closes.contains(&at) { at + 1 } else { at };
            r.push(
                at,
                Fact::Out {
                    player: p.name,
                    cause: crate::roster::RED_CARD_CAUSE.into(),
                },
            );
        }
    }
    Ok(r)
}
