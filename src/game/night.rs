//! Resolving a night (`bansha night`), the state (`bansha state`), every phase's reports
//! (the web page's nights), and confirming a day's outcome into the timeline
//! (`bansha tally --day N --confirm`): the store's timeline replayed through the engine.
//! What a command prints is returned as text; a question for the director is
//! [`Resolved::NeedInput`], never printed here.

use super::Error;

use bansha_engine::{ActionsFile, EngineRules, Outcome, PhaseInput, Rejected, Resolution};

use crate::config::Config;
use crate::night::{self, Until, render};
use crate::report::Format;
use crate::rules::RuleSet;
use crate::store::Store;
use crate::votes::OutcomeKind;

/// The rule set's `[engine]` section, or a clear error.
pub fn engine_rules(cfg: &Config) -> Result<(RuleSet, EngineRules), Error> {
    let rules = RuleSet::load(&cfg.rules_path()).map_err(Error::input)?;
    let e = rules.engine.clone().ok_or_else(|| {
        Error::Input(format!(
            "{}: no [engine] section: this rule set cannot resolve nights yet",
            rules.path.display()
        ))
    })?;
    Ok((rules, e))
}

pub fn open_store(cfg: &Config) -> Result<Store, Error> {
    Store::open(&cfg.db_path()).map_err(Error::runtime)
}

/// The card ledger's red cards, facts of the timeline like the director's events.
fn red_cards(cfg: &Config, rules: &RuleSet, store: &Store) -> Result<Vec<night::RedCard>, Error> {
    night::red_cards(cfg, rules, store).map_err(Error::Input)
}

/// What resolving a phase printed: its report, or the question the engine asked (nothing
/// was stored; the director answers in the actions file and runs it again).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resolved {
    Done(String),
    NeedInput {
        /// The question, in the requested format.
        prompt: String,
        /// What to do (the command's error message).
        message: String,
    },
}

/// Resolve night `night` (0 = 开局) from an actions file and store it in the timeline
/// (unless `dry_run`); every earlier night must be in the timeline already.
#[allow(clippy::too_many_arguments)]
pub fn resolve_night(
    cfg: &Config,
    file: &ActionsFile,
    source: &std::path::Path,
    night: u32,
    seed: Option<u64>,
    dry_run: bool,
    format: Format,
) -> Result<Resolved, Error> {
    let (ruleset, rules) = engine_rules(cfg)?;
    let mut store = open_store(cfg)?;
    let phases = store.phases().map_err(Error::runtime)?;
    let reds = red_cards(cfg, &ruleset, &store)?;
    // Nights are resolved in order: every earlier night must be in the timeline.
    let first = if rules.start.is_empty() { 1 } else { 0 };
    for k in first..night {
        if !phases.iter().any(|p| p.kind == "night" && p.number == k) {
            return Err(Error::Input(format!(
                "{} has no result yet: resolve it first (bansha night --night {k} --actions …)",
                night::phase_label("night", k)
            )));
        }
    }
    let tl = night::replay(
        cfg,
        &rules,
        &phases,
        &reds,
        Until::Before(night::night_key(&rules, night)),
    )
    .map_err(Error::input)?;
    if let Some(p) = tl.problems.first() {
        return Err(Error::Input(format!(
            "the timeline before {} does not resolve: {p}",
            night::phase_label("night", night)
        )));
    }
    let seed = seed
        .or(file.seed)
        .unwrap_or_else(|| night::default_seed(cfg, "night", night));
    let input = PhaseInput::night(night, night::actions_of(file), seed);
    let label = night::phase_label("night", night);
    let out = match resolve_or_prompt(
        &rules,
        &tl.state,
        &input,
        &label,
        format,
        Some(night),
        None,
        source,
    )? {
        Ok(out) => out,
        Err(prompted) => return Ok(prompted),
    };
    let stale = if dry_run {
        Vec::new()
    } else {
        store_phase(&mut store, &rules, "night", night, &input, &out)?
    };
    let day_before = day_before_night(&rules, &phases, &tl, night);
    Ok(Resolved::Done(phase_output(
        cfg, &rules, "night", night, &out, &stale, day_before, format,
    )))
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
pub struct PhaseReport {
    pub label: String,
    pub stale: bool,
    pub notes: String,
    pub public_bbcode: String,
    /// (player, their private block in BBCode), seat order.
    pub feedback: Vec<(String, String)>,
}

/// Every resolved phase of the stored timeline, replayed through the engine, in timeline
/// order (the web page's night view).
pub fn phase_reports(cfg: &Config, store: &Store) -> Result<Vec<PhaseReport>, Error> {
    let (ruleset, rules) = engine_rules(cfg)?;
    let phases = store.phases().map_err(Error::runtime)?;
    let reds = red_cards(cfg, &ruleset, store)?;
    let tl = night::replay(cfg, &rules, &phases, &reds, Until::All).map_err(Error::input)?;
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
pub fn state_report(
    cfg: &Config,
    store: &Store,
    at: Option<&str>,
    format: Format,
) -> Result<String, Error> {
    let (ruleset, rules) = engine_rules(cfg)?;
    let phases = store.phases().map_err(Error::runtime)?;
    let reds = red_cards(cfg, &ruleset, store)?;
    let (until, as_of) = match at {
        Some(t) => (Until::At(super::tally::parse_at(cfg, t)?), t.to_string()),
        None => (Until::All, "当前".to_string()),
    };
    let tl = night::replay(cfg, &rules, &phases, &reds, until).map_err(Error::input)?;
    let cards = match &ruleset.moderation {
        Some(m) => {
            let t = match until {
                Until::At(t) => t,
                _ => crate::model::Timestamp::MAX,
            };
            let l = super::timeline::ledger_at(cfg, &ruleset, store, t)?;
            Some(render::CardsView::new(
                cfg, m, &rules, &l.ledger, &l.records,
            ))
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

/// Resolve; a prompt becomes [`Resolved::NeedInput`] (exit status 3 on the command line),
/// a rejection an input error.
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
) -> Result<Result<Outcome, Resolved>, Error> {
    match bansha_engine::resolve(rules, state, input) {
        Ok(Resolution::Done(o)) => Ok(Ok(o)),
        Ok(Resolution::NeedInput { prompt, .. }) => {
            let printed = match format {
                Format::Json => format!(
                    "{}\n",
                    serde_json::to_string_pretty(&render::PromptJson {
                        night,
                        day,
                        need_input: &prompt,
                    })
                    .expect("serialisable")
                ),
                _ => render::prompt_text(label, &prompt),
            };
            Ok(Err(Resolved::NeedInput {
                prompt: printed,
                message: format!(
                    "{label} needs an answer from {} (<{}>): add it to {} and run again; nothing was stored",
                    prompt.player,
                    prompt.skill,
                    source.display()
                ),
            }))
        }
        Err(Rejected::Invalid(list)) => Err(Error::Input(format!(
            "{}: {}",
            source.display(),
            list.iter()
                .map(|i| i.to_string())
                .collect::<Vec<_>>()
                .join(&format!("\n{}: ", source.display()))
        ))),
        Err(e) => Err(Error::Input(format!("{}: {e}", source.display()))),
    }
}

fn store_phase(
    store: &mut Store,
    rules: &EngineRules,
    kind: &str,
    n: u32,
    input: &PhaseInput,
    out: &Outcome,
) -> Result<Vec<String>, Error> {
    let json =
        serde_json::to_string(&render::phase_json(kind, n, out, Vec::new())).expect("serialisable");
    let input = serde_json::to_string(input).expect("serialisable");
    let stale = store
        .put_phase(kind, n, rules.night_before_day, &input, &json)
        .map_err(Error::runtime)?;
    Ok(stale
        .into_iter()
        .map(|(k, n)| night::phase_label(&k, n))
        .collect())
}

/// A resolved phase as the command prints it.
#[allow(clippy::too_many_arguments)]
fn phase_output(
    cfg: &Config,
    rules: &EngineRules,
    kind: &str,
    n: u32,
    out: &Outcome,
    stale: &[String],
    day_before: Option<&Outcome>,
    format: Format,
) -> String {
    match format {
        Format::Json => format!(
            "{}\n",
            serde_json::to_string_pretty(&render::phase_json(kind, n, out, stale.to_vec()))
                .expect("serialisable")
        ),
        Format::Text => {
            render::phase_text(&cfg.game.name, &night::phase_label(kind, n), out, stale)
        }
        Format::Bbcode => render::phase_bbcode(rules, kind, n, out, day_before),
    }
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
) -> Result<Resolved, Error> {
    let (ruleset, rules) = engine_rules(cfg)?;
    let file: ActionsFile = match answers {
        Some(p) => crate::tomlfile::load_toml(p).map_err(Error::input)?,
        None => ActionsFile::default(),
    };
    let day = tally.day;
    let mut store = open_store(cfg)?;
    let phases = store.phases().map_err(Error::runtime)?;
    let reds = red_cards(cfg, &ruleset, &store)?;
    let tl = night::replay(
        cfg,
        &rules,
        &phases,
        &reds,
        Until::Before(night::day_key(day)),
    )
    .map_err(Error::input)?;
    if let Some(p) = tl.problems.first() {
        return Err(Error::Input(format!(
            "the timeline before {} does not resolve: {p}",
            night::phase_label("day", day)
        )));
    }
    let (outs, sheriff) = match (tally.outcome.kind, &tally.outcome.player) {
        (OutcomeKind::Elected, Some(p)) => (Vec::new(), Some(p.clone())),
        (OutcomeKind::Eliminated, Some(p)) => (
            vec![(p.clone(), day_cause(&rules, &tally.outcome.via))],
            None,
        ),
        _ => (Vec::new(), None),
    };
    let seed = file
        .seed
        .unwrap_or_else(|| night::default_seed(cfg, "day", day));
    let input = PhaseInput::day(day, outs, sheriff, file.actions.clone(), seed);
    let label = night::phase_label("day", day);
    let src = answers
        .map(|p| p.to_path_buf())
        .unwrap_or_else(|| "--answers FILE".into());
    let out = match resolve_or_prompt(
        &rules,
        &tl.state,
        &input,
        &label,
        format,
        None,
        Some(day),
        &src,
    )? {
        Ok(out) => out,
        Err(prompted) => return Ok(prompted),
    };
    let stale = store_phase(&mut store, &rules, "day", day, &input, &out)?;
    Ok(Resolved::Done(phase_output(
        cfg, &rules, "day", day, &out, &stale, None, format,
    )))
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
