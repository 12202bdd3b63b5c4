//! 排球少年 scenarios as data: the preparation, then nights and days in order, each with what
//! must come out (deaths, private feedback, 公告, positions, clues lying in places, the
//! question back to the director, the winner). `run` plays one and lists every mismatch.

use serde::Deserialize;

use super::input::{DayInput, NightInput, SetupInput};
use super::rules::{ManorRules, clue_shown};
use super::state::ManorState;
use super::{ManorOutcome, ManorResult, day, night, prepare};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ManorScenario {
    /// The rule sentence checked: verbatim, or a reading labelled 解读/采用/按字面/bansha.
    pub rule: String,
    #[serde(default)]
    pub title: Option<String>,
    pub setup: SetupInput,
    #[serde(default)]
    pub setup_expect: Expect,
    #[serde(default, rename = "phase")]
    pub phases: Vec<Phase>,
}

/// A night or a day: `kind`, `number`, what must come out (`expect`), and the phase's input
/// keys as the director writes them (a night file's `plan` and `action`s, a day file's
/// `confirm`, `step`, `announce_case`…), checked by their own types.
#[derive(Debug, Deserialize)]
pub struct Phase {
    /// `night` or `day`.
    pub kind: String,
    pub number: u32,
    #[serde(default)]
    pub expect: Expect,
    #[serde(flatten)]
    pub input: toml::Table,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    /// `name:cause`, exactly, in order.
    #[serde(default)]
    pub deaths: Option<Vec<String>>,
    /// `player: text` — some feedback to the player contains the text.
    #[serde(default)]
    pub feedback: Vec<String>,
    /// `player: text` — none does (`player:` alone: no feedback at all).
    #[serde(default)]
    pub no_feedback: Vec<String>,
    #[serde(default)]
    pub public: Vec<String>,
    #[serde(default)]
    pub no_public: Vec<String>,
    #[serde(default)]
    pub log: Vec<String>,
    /// `name@place` after the phase.
    #[serde(default)]
    pub positions: Vec<String>,
    /// `place:clue` (shown name) lying there as an extra clue after the phase.
    #[serde(default)]
    pub extra: Vec<String>,
    #[serde(default)]
    pub no_extra: Vec<String>,
    /// `place:victim` crime information still lying there after the phase.
    #[serde(default)]
    pub scenes: Vec<String>,
    #[serde(default)]
    pub no_scenes: Vec<String>,
    /// The phase asks the director (the text contains this).
    #[serde(default)]
    pub question: Option<String>,
    /// The input is refused (the message contains this).
    #[serde(default)]
    pub error: Option<String>,
    /// `凶手阵营`, `受困者阵营` or `none`.
    #[serde(default)]
    pub winner: Option<String>,
    #[serde(default)]
    pub fools: Option<Vec<String>>,
    #[serde(default)]
    pub targets: Option<Vec<String>>,
    #[serde(default)]
    pub murderer: Option<String>,
    #[serde(default)]
    pub trail: Option<bool>,
    /// Players whose vote does not count today (镇压), exactly.
    #[serde(default)]
    pub vote_barred: Option<Vec<String>>,
}

impl ManorScenario {
    pub fn parse(text: &str) -> Result<ManorScenario, String> {
        toml::from_str(text).map_err(|e| e.to_string())
    }

    /// Every problem of one scenario file: it does not parse, its `rule` neither quotes the
    /// post (`crate::quote`) nor is a labelled reading, or it does not play as expected.
    pub fn check_file(text: &str, post: &str, rules: &ManorRules) -> Vec<String> {
        let sc = match ManorScenario::parse(text) {
            Ok(s) => s,
            Err(e) => return vec![e],
        };
        let mut errs = Vec::new();
        if let Err(e) = crate::quote::check_quotation(&sc.rule, &crate::quote::normalize(post)) {
            errs.push(e);
        }
        if let Err(e) = sc.run(rules) {
            errs.extend(e);
        }
        errs
    }

    /// Plays the scenario; every mismatch, or the first phase that could not run.
    pub fn run(&self, rules: &ManorRules) -> Result<(), Vec<String>> {
        let mut errs = Vec::new();
        let first = prepare(rules, &self.setup);
        let Some(mut st) = settle("setup", first, &self.setup_expect, &mut errs) else {
            return finish(errs);
        };
        for (i, ph) in self.phases.iter().enumerate() {
            let what = format!("phase[{i}] ({} {})", ph.kind, ph.number);
            let input = toml::Value::Table(ph.input.clone());
            let r = match ph.kind.as_str() {
                "night" => match input.try_into::<NightInput>() {
                    Ok(i) => night(rules, &st, ph.number, &i),
                    Err(e) => {
                        errs.push(format!("{what}: {e}"));
                        return finish(errs);
                    }
                },
                "day" => match input.try_into::<DayInput>() {
                    Ok(i) => day(rules, &st, ph.number, &i),
                    Err(e) => {
                        errs.push(format!("{what}: {e}"));
                        return finish(errs);
                    }
                },
                k => {
                    errs.push(format!("{what}: unknown kind `{k}`"));
                    return finish(errs);
                }
            };
            match settle(&what, r, &ph.expect, &mut errs) {
                Some(next) => st = next,
                None => return finish(errs),
            }
        }
        finish(errs)
    }
}

fn finish(errs: Vec<String>) -> Result<(), Vec<String>> {
    if errs.is_empty() { Ok(()) } else { Err(errs) }
}

/// Checks one phase's result; the next state, or None when the scenario ends here.
fn settle(
    what: &str,
    r: Result<ManorResult, super::ManorError>,
    ex: &Expect,
    errs: &mut Vec<String>,
) -> Option<ManorState> {
    match r {
        Err(e) => {
            match &ex.error {
                Some(want) if e.0.contains(want.as_str()) => {}
                Some(want) => errs.push(format!("{what}: error `{e}` lacks `{want}`")),
                None => errs.push(format!("{what}: refused: {e}")),
            }
            None
        }
        Ok(ManorResult::Ask(q)) => {
            match &ex.question {
                Some(want) if q.text.contains(want.as_str()) => {}
                Some(want) => errs.push(format!("{what}: question `{}` lacks `{want}`", q.text)),
                None => errs.push(format!(
                    "{what}: unexpected question to {}: {}",
                    q.player, q.text
                )),
            }
            None
        }
        Ok(ManorResult::Done(st, out)) => {
            if let Some(q) = &ex.question {
                errs.push(format!("{what}: expected a question `{q}`, the phase ran"));
            }
            if let Some(e) = &ex.error {
                errs.push(format!("{what}: expected an error `{e}`, the phase ran"));
            }
            check(what, &st, &out, ex, errs);
            Some(*st)
        }
    }
}

fn split(s: &str, sep: char) -> (&str, &str) {
    s.split_once(sep)
        .map(|(a, b)| (a.trim(), b.trim()))
        .unwrap_or((s.trim(), ""))
}

fn check(what: &str, st: &ManorState, out: &ManorOutcome, ex: &Expect, errs: &mut Vec<String>) {
    let fb = |p: &str, t: &str| {
        out.feedback
            .iter()
            .any(|l| l.player == p && l.text.contains(t))
    };
    if let Some(want) = &ex.deaths {
        let got: Vec<String> = out
            .deaths
            .iter()
            .map(|d| format!("{}:{}", d.player, d.cause))
            .collect();
        if got != *want {
            errs.push(format!("{what}: deaths {got:?}, want {want:?}"));
        }
    }
    for f in &ex.feedback {
        let (p, t) = split(f, ':');
        if !fb(p, t) {
            errs.push(format!(
                "{what}: no feedback to {p} containing `{t}`; got {:?}",
                lines(out, p)
            ));
        }
    }
    for f in &ex.no_feedback {
        let (p, t) = split(f, ':');
        let bad = if t.is_empty() {
            out.feedback.iter().any(|l| l.player == p)
        } else {
            fb(p, t)
        };
        if bad {
            errs.push(format!(
                "{what}: unwanted feedback to {p} `{t}`: {:?}",
                lines(out, p)
            ));
        }
    }
    for t in &ex.public {
        if !out.public.iter().any(|l| l.contains(t.as_str())) {
            errs.push(format!(
                "{what}: no 公告 containing `{t}`; got {:?}",
                out.public
            ));
        }
    }
    for t in &ex.no_public {
        if out.public.iter().any(|l| l.contains(t.as_str())) {
            errs.push(format!("{what}: unwanted 公告 `{t}`: {:?}", out.public));
        }
    }
    for t in &ex.log {
        if !out.log.iter().any(|l| l.contains(t.as_str())) {
            errs.push(format!(
                "{what}: no note containing `{t}`; got {:?}",
                out.log
            ));
        }
    }
    for pp in &ex.positions {
        let (p, place) = split(pp, '@');
        let got = st.player(p).map(|x| x.place.as_str()).unwrap_or("?");
        if got != place {
            errs.push(format!("{what}: {p} is at {got}, want {place}"));
        }
    }
    let has_extra = |e: &str| {
        let (p, c) = split(e, ':');
        st.extra
            .get(p)
            .is_some_and(|v| v.iter().any(|x| clue_shown(x) == c))
    };
    for e in &ex.extra {
        if !has_extra(e) {
            errs.push(format!(
                "{what}: no extra clue {e}; extra clues: {:?}",
                st.extra
            ));
        }
    }
    for e in &ex.no_extra {
        if has_extra(e) {
            errs.push(format!(
                "{what}: unwanted extra clue {e}; extra clues: {:?}",
                st.extra
            ));
        }
    }
    let has_scene = |e: &str| {
        let (p, v) = split(e, ':');
        st.scenes
            .iter()
            .any(|s| s.place == p && s.victims.iter().any(|x| x == v))
    };
    for e in &ex.scenes {
        if !has_scene(e) {
            errs.push(format!(
                "{what}: no crime information {e}; scenes: {:?}",
                st.scenes
            ));
        }
    }
    for e in &ex.no_scenes {
        if has_scene(e) {
            errs.push(format!("{what}: unwanted crime information {e}"));
        }
    }
    if let Some(w) = &ex.winner {
        let got = st.winner.map(|s| s.label()).unwrap_or("none");
        if got != w {
            errs.push(format!("{what}: winner {got}, want {w}"));
        }
    }
    if let Some(f) = &ex.fools {
        let got: Vec<String> = st.fools.iter().cloned().collect();
        if got != *f {
            errs.push(format!("{what}: fools {got:?}, want {f:?}"));
        }
    }
    if let Some(t) = &ex.targets
        && st.targets != *t
    {
        errs.push(format!("{what}: targets {:?}, want {t:?}", st.targets));
    }
    if let Some(m) = &ex.murderer
        && st.murderer != *m
    {
        errs.push(format!("{what}: murderer {}, want {m}", st.murderer));
    }
    if let Some(v) = &ex.vote_barred {
        let got: Vec<String> = out.vote_barred.iter().map(|l| l.player.clone()).collect();
        if got != *v {
            errs.push(format!("{what}: vote barred {got:?}, want {v:?}"));
        }
    }
    if let Some(t) = ex.trail
        && st.trail_active != t
    {
        errs.push(format!(
            "{what}: <凶手行踪> active {}, want {t}",
            st.trail_active
        ));
    }
}

fn lines(out: &ManorOutcome, p: &str) -> Vec<String> {
    out.feedback
        .iter()
        .filter(|l| l.player == p)
        .map(|l| l.text.clone())
        .collect()
}
