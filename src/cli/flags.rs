//! `bansha flags` (list, `confirm`, `dismiss`) and `bansha cards` (the ledger, `withdraw`,
//! `add`, `from-activity`): arguments and output around [`crate::game::flags`].

use std::path::PathBuf;

use clap::{Args, Subcommand};

use super::*;
use crate::config::Config;
use crate::flagging;
use crate::game::Game;
use crate::game::flags::{
    FlagStatus, cards_from_activity, confirm_flag, dismiss_flag, list_flags, render_cards,
    withdraw_card,
};
use crate::model::Timestamp;
use crate::moderation::Card;
use crate::rules::RuleSet;
use crate::store::Store;
use crate::time::{Clock, SystemClock};

#[derive(Debug, Args)]
pub struct FlagsArgs {
    /// The game config (TOML).
    #[arg(long, short = 'c', global = true)]
    pub config: Option<PathBuf>,
    /// Only flags on this day's threads.
    #[arg(long)]
    pub day: Option<u32>,
    /// Only flags with this status: open, confirmed or dismissed.
    #[arg(long)]
    pub status: Option<String>,
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    #[command(subcommand)]
    pub action: Option<FlagAction>,
}

#[derive(Debug, Subcommand)]
pub enum FlagAction {
    /// Confirm a flag: record the card (default: the flag's suggested card).
    Confirm {
        id: i64,
        /// blue, yellow or red (蓝/黄/红), where the rule set has that colour.
        #[arg(long)]
        card: Option<String>,
        /// Who confirms (recorded with the card).
        #[arg(long)]
        by: String,
        /// When (`YYYY-MM-DD HH:MM[:SS]`, game timezone); default: now.
        #[arg(long)]
        at: Option<String>,
    },
    /// Dismiss a flag: the post is not flagged for this again.
    Dismiss {
        id: i64,
        /// Also whitelist the matched phrase for this game.
        #[arg(long)]
        whitelist: bool,
        #[arg(long, default_value = "moderator")]
        by: String,
        #[arg(long)]
        at: Option<String>,
    },
}

#[derive(Debug, Args)]
pub struct CardsArgs {
    #[arg(long, short = 'c', global = true)]
    pub config: Option<PathBuf>,
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    #[command(subcommand)]
    pub action: Option<CardAction>,
}

#[derive(Debug, Subcommand)]
pub enum CardAction {
    /// Withdraw a card (the director overrules); escalations are recomputed.
    Withdraw {
        id: i64,
        #[arg(long)]
        by: String,
        #[arg(long)]
        at: Option<String>,
    },
    /// Record a card not raised from a flag (e.g. 潜水 from the activity report).
    Add {
        #[arg(long)]
        player: String,
        #[arg(long)]
        card: String,
        /// The clause, quoted from the rule post (or the activity report's).
        #[arg(long)]
        clause: String,
        #[arg(long)]
        by: String,
        #[arg(long)]
        at: Option<String>,
    },
    /// Confirm the fixed cards of a day's activity report (潜水 → 黄牌: 发言不足, 未投票):
    /// one card per violation, once (running it again adds nothing).
    FromActivity {
        #[arg(long)]
        day: u32,
        #[arg(long)]
        by: String,
        #[arg(long)]
        at: Option<String>,
    },
}

fn open(config: &Option<PathBuf>) -> Result<Game, CliError> {
    let Some(path) = config else {
        return Err(CliError::Input("--config GAME.toml is required".into()));
    };
    let cfg = load_config(&ConfigArg {
        config: path.clone(),
    })?;
    let rules = RuleSet::load(&cfg.rules_path()).map_err(CliError::input)?;
    flagging::rules_of(&rules).map_err(CliError::Input)?;
    let db = cfg.db_path();
    if !db.exists() {
        return Err(CliError::Input(format!(
            "{}: no database yet (run `bansha sync` or `bansha import` first)",
            db.display()
        )));
    }
    let store = Store::open(&db).map_err(CliError::runtime)?;
    Ok(Game::from_parts(cfg, rules, store))
}

fn when(cfg: &Config, at: &Option<String>) -> Result<Timestamp, CliError> {
    match at {
        Some(s) => Ok(crate::game::tally::parse_at(cfg, s)?),
        None => Ok(SystemClock.now()),
    }
}

pub fn run_flags(a: &FlagsArgs) -> CliResult {
    let mut g = open(&a.config)?;
    match &a.action {
        None => {}
        Some(FlagAction::Confirm { id, card, by, at }) => {
            let t = when(&g.cfg, at)?;
            let msg = confirm_flag(&g.cfg, &g.rules, &mut g.store, *id, card.as_deref(), by, t)?;
            println!("{msg}");
            return Ok(());
        }
        Some(FlagAction::Dismiss {
            id,
            whitelist,
            by,
            at,
        }) => {
            let t = when(&g.cfg, at)?;
            let msg = dismiss_flag(&g.cfg, &mut g.store, *id, *whitelist, by, t)?;
            println!("{msg}");
            return Ok(());
        }
    }
    let status = match a.status.as_deref() {
        None => None,
        Some(s) => Some(FlagStatus::parse(s).ok_or_else(|| {
            CliError::Input(format!(
                "--status: `{s}` is not a status (open, confirmed, dismissed)"
            ))
        })?),
    };
    let now = SystemClock.now();
    let out = list_flags(&g.cfg, &g.rules, &mut g.store, a.day, status, now, a.format)?;
    emit(&out)
}

pub fn run_cards(a: &CardsArgs) -> CliResult {
    let mut g = open(&a.config)?;
    let forum = g.cfg.forum_key();
    match &a.action {
        None => {}
        Some(CardAction::Withdraw { id, by, at }) => {
            let t = when(&g.cfg, at)?;
            println!("{}", withdraw_card(&g.cfg, &mut g.store, *id, by, t)?);
            return Ok(());
        }
        Some(CardAction::Add {
            player,
            card,
            clause,
            by,
            at,
        }) => {
            if g.cfg.player(player).is_none() {
                return Err(CliError::Input(format!(
                    "{}: `{player}` is not a player of this game",
                    g.cfg.path.display()
                )));
            }
            let m = flagging::rules_of(&g.rules).map_err(CliError::Input)?;
            let c = Card::parse(card)
                .filter(|c| m.cards.contains(c))
                .ok_or_else(|| {
                    CliError::Input(format!(
                        "{}: this rule set has no card `{card}`",
                        g.rules.path.display()
                    ))
                })?;
            let t = when(&g.cfg, at)?;
            let id = g
                .store
                .add_card(&forum, player, c.as_str(), "manual", clause, by, t)
                .map_err(CliError::runtime)?;
            println!("card {id}: {} for {player} by {by}", c.chinese());
            return Ok(());
        }
        Some(CardAction::FromActivity { day, by, at }) => {
            let t = when(&g.cfg, at)?;
            let out = cards_from_activity(&g.cfg, &g.rules, &mut g.store, *day, by, t)?;
            return emit(&out);
        }
    }
    let out = render_cards(&g.cfg, &g.rules, &g.store).map_err(CliError::Runtime)?;
    let out = match a.format {
        Format::Json => serde_json::to_string_pretty(&out.0).map_err(CliError::runtime)?,
        Format::Text => out.1,
        Format::Bbcode => out.2,
    };
    emit(&format!("{}\n", out.trim_end()))
}
