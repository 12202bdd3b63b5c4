//! `bansha night`, `bansha state`, and confirming a day's outcome into the timeline
//! (`bansha tally --day N --confirm`): the store's timeline replayed through the engine.

use super::*;

use bansha_engine::{ActionsFile, EngineRules, Outcome, PhaseInput, Rejected, Resolution};

use crate::config::Config;
use crate::night::{self, Until, render};
use crate::report::Format;
use crate::rules::RuleSet;
use crate::store::Store;

/// The rule set's `[engine]` section, or a clear error.
pub fn engine_rules(cfg: &Config) -> Result<(RuleSet, EngineRules), CliError> {
    let rules = RuleSet::load(&cfg.rules_path()).map_err(CliError::input)?;
    let e = rules.engine.clone().ok_or_else(|| {
        CliError::Input(format!(
            "{}: no [engine] section: this rule set cannot resolve nights yet",
            rules.path.display()
        ))
    })?;
    Ok((rules, e))
}

fn open_store(cfg: &Config) -> Result<Store, CliError> {
    Store::open(&cfg.db_path()).map_err(CliError::runtime)
}

/// The card ledger's red cards, facts of the timeline like the director's events.
fn red_cards(
    cfg: &Config,
    rules: &RuleSet,
    store: &Store,
) -> Result<Vec<night::RedCard>, CliError> {
    night::red_cards(cfg, rules, store).map_err(CliError::Input)
}

pub fn run_night(a: &NightArgs) -> CliResult {
    let cfg = load_config(&a.config)?;
    let (ruleset, rules) = engine_rules(&cfg)?;
    let file: ActionsFile = crate::tomlfile::load_toml(&a.actions).map_err(CliError::input)?;
    let mut store = open_store(&cfg)?;
    let phases = store.phases().map_err(CliError::runtime)?;
    let reds = red_cards(&cfg, &ruleset, &store)?;
    // Nights are resolved in order: every earlier night must be in the timeline.
    let first = if rules.start.is_empty() { 1 } else { 0 };
    for k in first..a.night {
        if !phases.iter().any(|p| p.kind == "night" && p.number == k) {
            return Err(CliError::Input(format!(
                "{} has no result yet: resolve it first (bansha night --night {k} --actions …)",
                night::phase_label("night", k)
            )));
        }
    }
    let tl = night::replay(
        &cfg,
        &rules,
        &phases,
        &reds,
        Until::Before(night::night_key(&rules, a.night)),
    )
    .map_err(CliError::input)?;
    if let Some(p) = tl.problems.first() {
        return Err(CliError::Input(format!(
            "the timeline before {} does not resolve: {p}",
            night::phase_label("night", a.night)
        )));
    }
    let seed = a
        .seed
        .or(file.seed)
        .unwrap_or_else(|| night::default_seed(&cfg, "night", a.night));
    let input = PhaseInput::night(a.night, night::actions_of(&file), seed);
    let label = night::phase_label("night", a.night);
    let out = resolve_or_prompt(
        &rules,
        &tl.state,
        &input,
        &label,
        a.format.format,
        Some(a.night),
        None,
        &a.actions,
    )?;
    let stale = if a.dry_run {
        Vec::new()
    } else {
        store_phase(&mut store, &rules, "night", a.night, &input, &out)?
    };
    let day_before = day_before_night(&rules, &phases, &tl, a.night);
    print_phase(
        &cfg,
        &rules,
        "night",
        a.night,
        &out,
        &stale,
        day_before,
        a.format.format,
    );
    Ok(())
}

/// The day whose vote outs the morning 公示 of night `night` lists first: the same day
/// (night n after day n), or the day before (night n before day n, as 灵族杀's), when
/// it is in the timeline.
fn day_before_night<'a>(
    rules: &EngineRules,
    phases: &[crate::store::StoredPhase],
    tl: &'a night::Timeline,
    night: u32,
) -> Option<&'a Outcome> {
    let prev_day = if rules.night_before_day {
        night.checked_sub(1)
    } else {
        Some(night)
    };
    prev_day
        .filter(|d| phases.iter().any(|p| p.kind == "day" && p.number == *d))
        .and_then(|d| {
            tl.entries
                .iter()
                .find(|e| e.kind == "day" && e.number == d)
                .and_then(|e| e.outcome.as_ref())
        })
}

/// One resolved phase of the timeline as `bansha night` prints it: the director's notes
/// (text), the public 公示 and each player's private feedback block (BBCode).
pub(crate) struct PhaseReport {
    pub label: String,
    pub stale: bool,
    pub notes: String,
    pub public_bbcode: String,
    /// (player, their private block in BBCode), seat order.
    pub feedback: Vec<(String, String)>,
}

/// Every resolved phase of the stored timeline, replayed through the engine, in timeline
/// order (the web page's night view).
pub(crate) fn phase_reports(cfg: &Config, store: &Store) -> Result<Vec<PhaseReport>, CliError> {
    let (ruleset, rules) = engine_rules(cfg)?;
    let phases = store.phases().map_err(CliError::runtime)?;
    let reds = red_cards(cfg, &ruleset, store)?;
    let tl = night::replay(cfg, &rules, &phases, &reds, Until::All).map_err(CliError::input)?;
    let mut out = Vec::new();
    for e in &tl.entries {
        let Some(o) = &e.outcome else { continue };
        let day_before = match e.kind.as_str() {
            "night" => day_before_night(&rules, &phases, &tl, e.number),
            _ => None,
        };
        out.push(PhaseReport {
            label: e.label.clone(),
            stale: e.stale,
            notes: render::phase_text(&cfg.game.name, &e.label, o, &[]),
            public_bbcode: render::phase_public_bbcode(&rules, &e.kind, e.number, o, day_before),
            feedback: render::merged_feedback(o)
                .into_iter()
                .map(|(p, lines)| {
                    let b = render::feedback_block(&p, &lines);
                    (p, b.trim_start().to_string())
                })
                .collect(),
        });
    }
    Ok(out)
}

/// `bansha state` as text, JSON or BBCode (the BBCode is the public roster).
pub(crate) fn state_report(
    cfg: &Config,
    store: &Store,
    at: Option<&str>,
    format: Format,
) -> Result<String, CliError> {
    let (ruleset, rules) = engine_rules(cfg)?;
    let phases = store.phases().map_err(CliError::runtime)?;
    let reds = red_cards(cfg, &ruleset, store)?;
    let (until, as_of) = match at {
        Some(t) => (Until::At(super::tally::parse_at(cfg, t)?), t.to_string()),
        None => (Until::All, "当前".to_string()),
    };
    let tl = night::replay(cfg, &rules, &phases, &reds, until).map_err(CliError::input)?;
    let cards = match &ruleset.moderation {
        Some(m) => {
            let t = match until {
                Until::At(t) => t,
                _ => crate::model::Timestamp::MAX,
            };
            let (l, recs) =
                crate::flagging::ledger_at(cfg, &ruleset, store, t).map_err(CliError::Input)?;
            Some(render::CardsView::new(cfg, m, &rules, &l, &recs))
        }
        None => None,
    };
    let cards = cards.as_ref();
    Ok(match format {
        Format::Json => format!(
            "{}\n",
            serde_json::to_string_pretty(&render::state_json(&tl.state, &tl, as_of, cards))
                .expect("serialisable")
        ),
        Format::Text => render::state_text(&cfg.game.name, &tl.state, &tl, &as_of, cards),
        Format::Bbcode => render::state_bbcode(&cfg.game.name, &tl.state, cards),
    })
}

/// Resolve; a prompt is printed and becomes exit status 3; a rejection exit status 2.
#[allow(clippy::too_many_arguments)]
fn resolve_or_prompt(
    rules: &EngineRules,
    state: &bansha_engine::GameState,
    input: &PhaseInput,
    label: &str,
    format: Format,
    night: Option<u32>,
    day: Option<u32>,
    source: &std::path::Path,
) -> Result<Outcome, CliError> {
    match bansha_engine::resolve(rules, state, input) {
        Ok(Resolution::Done(o)) => Ok(o),
        Ok(Resolution::NeedInput { prompt, .. }) => {
            match format {
                Format::Json => println!(
                    "{}",
                    serde_json::to_string_pretty(&render::PromptJson {
                        night,
                        day,
                        need_input: &prompt,
                    })
                    .expect("serialisable")
                ),
                _ => print!("{}", render::prompt_text(label, &prompt)),
            }
            Err(CliError::NeedInput(format!(
                "{label} needs an answer from {} (<{}>): add it to {} and run again; nothing was stored",
                prompt.player,
                prompt.skill,
                source.display()
            )))
        }
        Err(Rejected::Invalid(list)) => Err(CliError::Input(format!(
            "{}: {}",
            source.display(),
            list.iter()
                .map(|i| i.to_string())
                .collect::<Vec<_>>()
                .join(&format!("\n{}: ", source.display()))
        ))),
        Err(e) => Err(CliError::Input(format!("{}: {e}", source.display()))),
    }
}

fn store_phase(
    store: &mut Store,
    rules: &EngineRules,
    kind: &str,
    n: u32,
    input: &PhaseInput,
    out: &Outcome,
) -> Result<Vec<String>, CliError> {
    let json =
        serde_json::to_string(&render::phase_json(kind, n, out, Vec::new())).expect("serialisable");
    let input = serde_json::to_string(input).expect("serialisable");
    let stale = store
        .put_phase(kind, n, rules.night_before_day, &input, &json)
        .map_err(CliError::runtime)?;
    Ok(stale
        .into_iter()
        .map(|(k, n)| night::phase_label(&k, n))
        .collect())
}

#[allow(clippy::too_many_arguments)]
fn print_phase(
    cfg: &Config,
    rules: &EngineRules,
    kind: &str,
    n: u32,
    out: &Outcome,
    stale: &[String],
    day_before: Option<&Outcome>,
    format: Format,
) {
    match format {
        Format::Json => println!(
            "{}",
            serde_json::to_string_pretty(&render::phase_json(kind, n, out, stale.to_vec()))
                .expect("serialisable")
        ),
        Format::Text => print!(
            "{}",
            render::phase_text(&cfg.game.name, &night::phase_label(kind, n), out, stale)
        ),
        Format::Bbcode => print!("{}", render::phase_bbcode(rules, kind, n, out, day_before)),
    }
}

pub fn run_state(a: &StateArgs) -> CliResult {
    let cfg = load_config(&a.config)?;
    engine_rules(&cfg)?; // a rule set without [engine] is refused before any database opens
    let store = open_store(&cfg)?;
    let s = state_report(&cfg, &store, a.at.as_deref(), a.format.format)?;
    print!("{s}");
    Ok(())
}

/// `tally --day N --confirm`: the day's outcome (当选 → 警长, 出局 → an out by vote or by the
/// tie-break skill) becomes the day's entry in the timeline, through the engine, so 殉情,
/// 最后一枪, 殉职 and the like follow. Answers (最后一枪, 殉职) come from `--answers FILE`
/// (an actions file); when one is needed and missing, nothing is stored and exit status is 3.
pub fn confirm_day(
    cfg: &Config,
    tally: &crate::votes::Tally,
    answers: Option<&std::path::Path>,
    format: Format,
) -> CliResult {
    let (ruleset, rules) = engine_rules(cfg)?;
    let file: ActionsFile = match answers {
        Some(p) => crate::tomlfile::load_toml(p).map_err(CliError::input)?,
        None => ActionsFile::default(),
    };
    let day = tally.day;
    let mut store = open_store(cfg)?;
    let phases = store.phases().map_err(CliError::runtime)?;
    let reds = red_cards(cfg, &ruleset, &store)?;
    let tl = night::replay(
        cfg,
        &rules,
        &phases,
        &reds,
        Until::Before(night::day_key(day)),
    )
    .map_err(CliError::input)?;
    if let Some(p) = tl.problems.first() {
        return Err(CliError::Input(format!(
            "the timeline before {} does not resolve: {p}",
            night::phase_label("day", day)
        )));
    }
    let (outs, sheriff) = match (tally.outcome.kind, &tally.outcome.player) {
        ("elected", Some(p)) => (Vec::new(), Some(p.clone())),
        ("eliminated", Some(p)) => (
            vec![(p.clone(), day_cause(&rules, &tally.outcome.via))],
            None,
        ),
        _ => (Vec::new(), None),
    };
    let seed = file
        .seed
        .unwrap_or_else(|| night::default_seed(cfg, "day", day));
    let mut input = PhaseInput::day(day, outs, sheriff, file.actions.clone(), seed);
    // an out the tie rule decided cites the tie-break clause, not the unique-top one
    if let (Some(p), false) = (&tally.outcome.player, tally.outcome.tied.is_empty()) {
        input.out_clauses = vec![(p.clone(), tally.outcome.clause.clone())];
    }
    let label = night::phase_label("day", day);
    let src = answers
        .map(|p| p.to_path_buf())
        .unwrap_or_else(|| "--answers FILE".into());
    let out = resolve_or_prompt(
        &rules,
        &tl.state,
        &input,
        &label,
        format,
        None,
        Some(day),
        &src,
    )?;
    let stale = store_phase(&mut store, &rules, "day", day, &input, &out)?;
    print_phase(cfg, &rules, "day", day, &out, &stale, None, format);
    Ok(())
}

/// The cause of a day's elimination: a tie-break skill named in the outcome (<冤死>) when
/// the rule set knows it as a cause, else 投票.
fn day_cause(rules: &EngineRules, via: &str) -> String {
    rules
        .causes
        .keys()
        .find(|c| c.as_str() != "投票" && via.contains(&format!("<{c}>")))
        .cloned()
        .unwrap_or_else(|| "投票".into())
}
