//! The CLI front of 暴风雪山庄 games (排球少年): `bansha night` (开局 as night 0, nights),
//! `bansha day` (a day up to its 公决), `bansha tally --confirm` (the 公决 ends the day) and
//! `bansha state`, through the library's `crate::manor` and the store's timeline.

use super::*;

use bansha_engine::manor::{DayInput, ManorResult, ManorRules};

use crate::config::Config;
use crate::manor::{self as lib, NIGHT_BEFORE_DAY, PhaseIn};
use crate::report::Format;
use crate::rules::RuleSet;
use crate::store::Store;

/// The game's `[manor]` rules when its rule set is a 暴风雪山庄 game.
pub fn rules_of(arg: &ConfigArg) -> Result<Option<(Config, ManorRules)>, CliError> {
    let cfg = load_config(arg)?;
    let rules = RuleSet::load(&cfg.rules_path()).map_err(CliError::input)?;
    Ok(rules.manor.map(|m| (cfg, m)))
}

fn open_store(cfg: &Config) -> Result<Store, CliError> {
    Store::open(&cfg.db_path()).map_err(CliError::runtime)
}

fn timeline(
    rules: &ManorRules,
    store: &Store,
    before: Option<(&str, u32)>,
) -> Result<lib::Timeline, CliError> {
    let phases = store.phases().map_err(CliError::runtime)?;
    lib::replay(rules, &phases, before).map_err(CliError::Input)
}

/// The seed of a phase when its input gives none: derived from the game and the phase.
fn seed(cfg: &Config, kind: &str, n: u32) -> u64 {
    bansha_engine::rng::seed_from(&format!("{}:manor:{kind}:{n}", cfg.game.name))
}

/// Every player a setup names must be a player of the config.
fn check_players(cfg: &Config, input: &PhaseIn, src: &std::path::Path) -> Result<(), CliError> {
    if let PhaseIn::Setup(s) = input {
        for (i, p) in s.players.iter().enumerate() {
            if !cfg.players.iter().any(|c| c.name == p.name) {
                return Err(CliError::Input(format!(
                    "{}: player[{i}].name: `{}` is not a [[player]] of the game config",
                    src.display(),
                    p.name
                )));
            }
        }
    }
    Ok(())
}

/// `bansha night` on a 暴风雪山庄 game: night 0 is 开局 (the setup file), night N a night
/// (the plan and the night skills).
pub fn run_night(a: &NightArgs, cfg: Config, rules: ManorRules) -> CliResult {
    let text = std::fs::read_to_string(&a.actions)
        .map_err(|e| CliError::Input(format!("{}: cannot read: {e}", a.actions.display())))?;
    let mut input = PhaseIn::parse("night", a.night, &text)
        .map_err(|e| CliError::Input(format!("{}: {e}", a.actions.display())))?;
    check_players(&cfg, &input, &a.actions)?;
    let s = a.seed.unwrap_or_else(|| seed(&cfg, "night", a.night));
    match &mut input {
        PhaseIn::Setup(i) => i.seed = Some(i.seed.unwrap_or(s)),
        PhaseIn::Night(_, i) => i.seed = Some(a.seed.or(i.seed).unwrap_or(s)),
        PhaseIn::Day(..) => {}
    }
    let mut store = open_store(&cfg)?;
    if a.night > 0 {
        let phases = store.phases().map_err(CliError::runtime)?;
        require_confirmed_day(&phases, a.night - 1)?;
    }
    let tl = timeline(&rules, &store, Some(("night", a.night)))?;
    resolve_and_store(
        &cfg,
        &rules,
        &mut store,
        &tl,
        input,
        a.dry_run,
        a.format.format,
        &a.actions,
    )
}

/// Night n follows day n−1's confirmed 公决.
fn require_confirmed_day(phases: &[crate::store::StoredPhase], day: u32) -> CliResult {
    if day == 0 {
        return Ok(());
    }
    let Some(p) = phases.iter().find(|p| p.kind == "day" && p.number == day) else {
        return Err(CliError::Input(format!(
            "第{day}日 has no result yet: bansha day --day {day} --input FILE, then bansha tally --day {day} --confirm"
        )));
    };
    if let Ok(PhaseIn::Day(_, d)) = PhaseIn::parse("day", day, &p.input)
        && d.pending_vote
    {
        return Err(CliError::Input(format!(
            "第{day}日's 公决 is not confirmed yet: bansha tally --day {day} --confirm"
        )));
    }
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn resolve_and_store(
    cfg: &Config,
    rules: &ManorRules,
    store: &mut Store,
    tl: &lib::Timeline,
    input: PhaseIn,
    dry_run: bool,
    format: Format,
    src: &std::path::Path,
) -> CliResult {
    let label = input.label();
    let (kind, number) = (input.kind(), input.number());
    match input
        .resolve(rules, tl.state.as_ref())
        .map_err(CliError::Input)?
    {
        ManorResult::Ask(q) => {
            let shown = match format {
                Format::Json => format!("{}\n", lib::question_json(kind, number, &q)),
                _ => lib::question_text(&label, &q),
            };
            emit(&shown)?;
            Err(CliError::NeedInput(format!(
                "{label}: the director must ask {} ({}); add the answer to {} and run again; nothing was stored",
                q.player,
                q.text,
                src.display()
            )))
        }
        ManorResult::Done(_, out) => {
            let mut stale = Vec::new();
            if !dry_run {
                let result = lib::outcome_json(kind, number, &out).to_string();
                stale = store
                    .put_phase(kind, number, NIGHT_BEFORE_DAY, &input.to_text(), &result)
                    .map_err(CliError::runtime)?;
            }
            let mut s = match format {
                Format::Json => format!("{}\n", lib::outcome_json(kind, number, &out)),
                Format::Bbcode => lib::outcome_bbcode(&cfg.game.name, &label, &out),
                Format::Text => lib::outcome_text(&cfg.game.name, &label, &out),
            };
            if format == Format::Text && !stale.is_empty() {
                let later: Vec<String> = stale.iter().map(|(k, n)| lib::label(k, *n)).collect();
                s.push_str(&format!(
                    "注意：之后的阶段（{}）需要重新结算\n",
                    later.join("、")
                ));
            }
            emit(&s)
        }
    }
}

/// `bansha day`: a game day up to its 公决 (确认死者 skills, moves and day skills in order,
/// 【发现凶案】 requests); stored with the 公决 pending.
pub fn run_day(a: &ManorDayArgs) -> CliResult {
    let Some((cfg, rules)) = rules_of(&a.config)? else {
        return Err(CliError::Input(
            "bansha day is for 暴风雪山庄 games (a rule set with [manor]); other games confirm a day with bansha tally --day N --confirm".into(),
        ));
    };
    let text = std::fs::read_to_string(&a.input)
        .map_err(|e| CliError::Input(format!("{}: cannot read: {e}", a.input.display())))?;
    let mut d: DayInput = crate::tomlfile::parse_toml(&a.input, &text).map_err(CliError::input)?;
    if d.voted_out.is_some() || d.surrender {
        d.pending_vote = false;
    } else {
        d.pending_vote = true;
    }
    d.seed = Some(d.seed.unwrap_or_else(|| seed(&cfg, "day", a.day)));
    let mut store = open_store(&cfg)?;
    let tl = timeline(&rules, &store, Some(("day", a.day)))?;
    resolve_and_store(
        &cfg,
        &rules,
        &mut store,
        &tl,
        PhaseIn::Day(a.day, d),
        a.dry_run,
        a.format.format,
        &a.input,
    )
}

/// `bansha tally --day N --confirm` on a 暴风雪山庄 game: the tally's 公决 ends the day
/// stored by `bansha day` (or the day file given with `--answers`).
pub fn confirm_day(
    cfg: &Config,
    rules: &ManorRules,
    tally: &crate::votes::Tally,
    answers: Option<&std::path::Path>,
    format: Format,
) -> CliResult {
    let day = tally.day;
    let mut store = open_store(cfg)?;
    let phases = store.phases().map_err(CliError::runtime)?;
    let mut d: DayInput = match answers {
        Some(p) => crate::tomlfile::load_toml(p).map_err(CliError::input)?,
        None => match phases.iter().find(|p| p.kind == "day" && p.number == day) {
            Some(p) => match PhaseIn::parse("day", day, &p.input).map_err(CliError::Input)? {
                PhaseIn::Day(_, d) => d,
                _ => DayInput::default(),
            },
            None => DayInput::default(),
        },
    };
    d.voted_out = match (tally.outcome.kind, &tally.outcome.player) {
        ("eliminated", Some(p)) => Some(p.clone()),
        _ => None,
    };
    d.pending_vote = false;
    d.seed = Some(d.seed.unwrap_or_else(|| seed(cfg, "day", day)));
    let tl = timeline(rules, &store, Some(("day", day)))?;
    let src = answers
        .map(|p| p.to_path_buf())
        .unwrap_or_else(|| "--answers FILE".into());
    resolve_and_store(
        cfg,
        rules,
        &mut store,
        &tl,
        PhaseIn::Day(day, d),
        false,
        format,
        &src,
    )
}

/// `bansha state` on a 暴风雪山庄 game.
pub fn run_state(a: &StateArgs, cfg: Config, rules: ManorRules) -> CliResult {
    if a.at.is_some() {
        return Err(CliError::Input(
            "--at: a 暴风雪山庄 game's state is kept phase by phase, not by time; run bansha state without --at".into(),
        ));
    }
    let store = open_store(&cfg)?;
    let tl = timeline(&rules, &store, None)?;
    emit(&match a.format.format {
        Format::Json => format!("{}\n", lib::state_json(&tl)),
        Format::Bbcode => lib::state_bbcode(&cfg.game.name, &tl),
        Format::Text => lib::state_text(&rules, &tl),
    })
}
