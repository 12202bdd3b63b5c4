//! Scenario tests as data: one TOML file per case (setup, actions and answers per phase,
//! expected deaths in order with causes, feedback, announcements, state after, winner, and
//! the rule sentence it checks). `run` plays a scenario and lists every mismatch.
//! The format is described in DESIGN.md.

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::action::Action;
use crate::resolve::{PhaseInput, Resolution, resolve};
use crate::rules::EngineRules;
use crate::state::{GameState, Link};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// The rule sentence checked: a verbatim quotation of the post, or a reading labelled
    /// 解读/采用/按字面/bansha.
    pub rule: String,
    #[serde(default)]
    pub title: Option<String>,
    pub setup: Setup,
    #[serde(rename = "phase")]
    pub phases: Vec<ScPhase>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Setup {
    /// `name:role`, in seat order.
    pub seats: Vec<String>,
    #[serde(default)]
    pub sheriff: Option<String>,
    /// Links already made (instead of playing 开局).
    #[serde(default, rename = "link")]
    pub links: Vec<Link>,
    /// Camps set directly: player → camp.
    #[serde(default)]
    pub camps: BTreeMap<String, String>,
    /// `player:skill` lost before the scenario starts.
    #[serde(default)]
    pub lost: Vec<String>,
    /// `player:skill` granted before the scenario starts.
    #[serde(default)]
    pub granted: Vec<String>,
    /// player → counter → value.
    #[serde(default)]
    pub counters: BTreeMap<String, BTreeMap<String, i64>>,
    /// Players already out: `name:cause`.
    #[serde(default)]
    pub out: Vec<String>,
    /// The last night already played (for no-repeat limits).
    #[serde(default)]
    pub last_night: Option<u32>,
    /// Statuses held from the start, until removed: `name:status` (挂机…).
    #[serde(default)]
    pub statuses: Vec<String>,
    /// Camps shown to investigations (a disguise): player → camp.
    #[serde(default)]
    pub apparent_camps: BTreeMap<String, String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScPhase {
    /// `night` or `day`.
    pub kind: String,
    pub number: u32,
    #[serde(default)]
    pub seed: Option<u64>,
    #[serde(default, rename = "action")]
    pub actions: Vec<Action>,
    /// Day: `name:cause` in order.
    #[serde(default)]
    pub outs: Vec<String>,
    /// Day: elected 警长.
    #[serde(default)]
    pub sheriff: Option<String>,
    /// Day: camps the director rules defeated (投降, 红牌 判负).
    #[serde(default)]
    pub lose: Vec<String>,
    /// Prompts nobody answered are noted and passed (replaying a night recorded by hand)
    /// instead of stopping the phase.
    #[serde(default)]
    pub pass_prompts: bool,
    #[serde(default)]
    pub expect: Expect,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    /// `name:cause`, exactly, in order.
    #[serde(default)]
    pub deaths: Option<Vec<String>>,
    /// `player: text` — some feedback to `player` contains `text`.
    #[serde(default)]
    pub feedback: Vec<String>,
    /// `player: text` — no feedback to `player` contains `text` (`player:` alone: none at all).
    #[serde(default)]
    pub no_feedback: Vec<String>,
    /// `checkpoint|player: text` — that feedback is released at that checkpoint.
    #[serde(default)]
    pub feedback_at: Vec<String>,
    /// `player: text`, … — these feedback lines come in this order in the outcome (the order
    /// of release).
    #[serde(default)]
    pub feedback_order: Vec<String>,
    /// Each is contained in some announcement.
    #[serde(default)]
    pub announcements: Vec<String>,
    /// None is contained in any announcement (what the post does not publish).
    #[serde(default)]
    pub no_announcements: Vec<String>,
    /// Each is contained in some line of the director's notes.
    #[serde(default)]
    pub log: Vec<String>,
    /// A camp, several joined by `、`, `none` (game goes on) or `draw` (every camp defeated).
    #[serde(default)]
    pub winner: Option<String>,
    #[serde(default)]
    pub camps_lost: Option<Vec<String>>,
    /// Players of an individual camp who lost this phase, exactly, in order.
    #[serde(default)]
    pub losers: Option<Vec<String>>,
    /// `player:skill` of the prompt the phase must stop at.
    #[serde(default)]
    pub prompt: Option<String>,
    /// The phase must be rejected with a reason containing this text.
    #[serde(default)]
    pub rejected: Option<String>,
    #[serde(default)]
    pub sheriff: Option<String>,
    #[serde(default)]
    pub alive: Vec<String>,
    #[serde(default)]
    pub out: Vec<String>,
    #[serde(default)]
    pub player: BTreeMap<String, ExpectPlayer>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExpectPlayer {
    #[serde(default)]
    pub camp: Option<String>,
    /// Skills usable now.
    #[serde(default)]
    pub has: Vec<String>,
    /// Skills not usable now (absent, lost or used up).
    #[serde(default)]
    pub lacks: Vec<String>,
    #[serde(default)]
    pub counters: BTreeMap<String, i64>,
    #[serde(default)]
    pub linked: Vec<String>,
    /// Statuses held after the phase (any instance).
    #[serde(default)]
    pub statuses: Vec<String>,
    /// Statuses not held after the phase.
    #[serde(default)]
    pub no_statuses: Vec<String>,
}

impl Scenario {
    pub fn parse(text: &str) -> Result<Scenario, String> {
        toml::from_str(text).map_err(|e| e.to_string())
    }

    pub fn initial_state(&self, rules: &EngineRules) -> Result<GameState, String> {
        let mut seats = Vec::new();
        for s in &self.setup.seats {
            let (n, r) = s
                .split_once(':')
                .ok_or_else(|| format!("seat `{s}`: want name:role"))?;
            seats.push((n.trim().to_string(), r.trim().to_string()));
        }
        let mut st = GameState::new(rules, &seats).map_err(|e| e.to_string())?;
        st.sheriff = self.setup.sheriff.clone();
        st.links = self.setup.links.clone();
        st.last_night = self.setup.last_night;
        for s in &self.setup.statuses {
            let (p, status) = s.split_once(':').ok_or("statuses: want player:status")?;
            st.player_mut(p)
                .ok_or_else(|| format!("statuses: no player {p}"))?
                .statuses
                .push(crate::state::Status {
                    name: status.to_string(),
                    until_day: None,
                });
        }
        for (p, c) in &self.setup.camps {
            st.player_mut(p)
                .ok_or_else(|| format!("camps: no player {p}"))?
                .camp = Some(c.clone());
        }
        for (p, c) in &self.setup.apparent_camps {
            st.player_mut(p)
                .ok_or_else(|| format!("apparent_camps: no player {p}"))?
                .apparent_camp = Some(c.clone());
        }
        for l in &self.setup.lost {
            let (p, s) = l.split_once(':').ok_or("lost: want player:skill")?;
            if let Some(sk) = st.player_mut(p).and_then(|p| p.skills.get_mut(s)) {
                sk.lost = true;
            } else {
                return Err(format!("lost: {p} has no {s}"));
            }
        }
        for l in &self.setup.granted {
            let (p, s) = l.split_once(':').ok_or("granted: want player:skill")?;
            let uses = rules.skill(s).and_then(|d| d.uses);
            st.player_mut(p).ok_or("granted: no player")?.skills.insert(
                s.to_string(),
                crate::state::SkillState {
                    uses_left: uses,
                    lost: false,
                    granted: true,
                },
            );
        }
        for (p, cs) in &self.setup.counters {
            let pl = st
                .player_mut(p)
                .ok_or_else(|| format!("counters: no player {p}"))?;
            pl.counters.extend(cs.clone());
        }
        for o in &self.setup.out {
            let (p, c) = o.split_once(':').ok_or("out: want player:cause")?;
            st.player_mut(p).ok_or("out: no player")?.out = Some(crate::state::Out {
                at: crate::state::Moment {
                    day: 0,
                    phase: crate::state::Phase::Day,
                },
                cause: c.into(),
                causes: vec![c.into()],
                order: 0,
            });
            st.outs += 1;
        }
        Ok(st)
    }

    /// Play every phase and compare; returns every mismatch.
    pub fn run(&self, rules: &EngineRules) -> Result<(), Vec<String>> {
        let mut st = self.initial_state(rules).map_err(|e| vec![e])?;
        let mut errs = Vec::new();
        for (pi, ph) in self.phases.iter().enumerate() {
            let tag = format!("phase[{pi}] {} {}", ph.kind, ph.number);
            let mut input = ph.input().map_err(|e| vec![format!("{tag}: {e}")])?;
            if ph.pass_prompts {
                input.on_prompt = crate::resolve::OnPrompt::Pass;
            }
            let e = &ph.expect;
            match resolve(rules, &st, &input) {
                Err(r) => {
                    let msg = r.to_string();
                    match &e.rejected {
                        Some(want) if msg.contains(want.as_str()) => return finish(errs),
                        Some(want) => {
                            errs.push(format!("{tag}: rejected with `{msg}`, want `{want}`"))
                        }
                        None => errs.push(format!("{tag}: rejected: {msg}")),
                    }
                    return Err(errs);
                }
                Ok(Resolution::NeedInput { prompt, .. }) => {
                    let got = format!("{}:{}", prompt.player, prompt.skill);
                    match &e.prompt {
                        Some(want) if *want == got => return finish(errs),
                        _ => errs.push(format!(
                            "{tag}: stopped at prompt {got}: {}",
                            prompt.question
                        )),
                    }
                    return Err(errs);
                }
                Ok(Resolution::Done(out)) => {
                    if let Some(p) = &e.prompt {
                        errs.push(format!("{tag}: want prompt {p}, resolved without one"));
                    }
                    if let Some(r) = &e.rejected {
                        errs.push(format!("{tag}: want rejection `{r}`, resolved"));
                    }
                    compare(&tag, e, &out, &mut errs);
                    st = out.state;
                }
            }
        }
        finish(errs)
    }
}

impl ScPhase {
    /// The phase as the engine takes it (the seed defaults to the number + 1).
    pub fn input(&self) -> Result<PhaseInput, String> {
        let seed = self.seed.unwrap_or(self.number as u64 + 1);
        match self.kind.as_str() {
            "night" => Ok(PhaseInput::night(self.number, self.actions.clone(), seed)),
            "day" => {
                let mut outs = Vec::new();
                for o in &self.outs {
                    let Some((p, c)) = o.split_once(':') else {
                        return Err(format!("outs `{o}`: want name:cause"));
                    };
                    outs.push((p.to_string(), c.to_string()));
                }
                let mut i = PhaseInput::day(
                    self.number,
                    outs,
                    self.sheriff.clone(),
                    self.actions.clone(),
                    seed,
                );
                i.lose = self.lose.clone();
                Ok(i)
            }
            k => Err(format!("unknown kind `{k}`")),
        }
    }
}

fn finish(errs: Vec<String>) -> Result<(), Vec<String>> {
    if errs.is_empty() { Ok(()) } else { Err(errs) }
}

fn compare(tag: &str, e: &Expect, out: &crate::resolve::Outcome, errs: &mut Vec<String>) {
    let notes = || {
        out.log
            .iter()
            .map(|l| format!("    [{}] {}", l.step, l.text))
            .collect::<Vec<_>>()
            .join("\n")
    };
    if let Some(want) = &e.deaths {
        let got: Vec<String> = out
            .deaths
            .iter()
            .map(|d| format!("{}:{}", d.player, d.cause))
            .collect();
        if &got != want {
            errs.push(format!("{tag}: deaths {got:?}, want {want:?}\n{}", notes()));
        }
    }
    for f in &e.feedback {
        let (p, t) = f.split_once(':').unwrap_or((f, ""));
        let t = t.trim();
        if !out
            .feedback
            .iter()
            .any(|x| x.player == p.trim() && x.text.contains(t))
        {
            let got: Vec<String> = out
                .feedback
                .iter()
                .map(|x| format!("{}: {}", x.player, x.text))
                .collect();
            errs.push(format!("{tag}: no feedback `{f}`; got {got:?}"));
        }
    }
    let find = |f: &str, from: usize| {
        let (p, t) = f.split_once(':').unwrap_or((f, ""));
        out.feedback
            .iter()
            .enumerate()
            .skip(from)
            .find(|(_, x)| x.player == p.trim() && x.text.contains(t.trim()))
            .map(|(i, x)| (i, x.at.clone()))
    };
    let released = || {
        out.feedback
            .iter()
            .map(|x| {
                format!(
                    "[{}] {}: {}",
                    x.at.as_deref().unwrap_or("-"),
                    x.player,
                    x.text
                )
            })
            .collect::<Vec<_>>()
    };
    for f in &e.feedback_at {
        let (at, f) = f.split_once('|').unwrap_or(("", f));
        match find(f, 0) {
            Some((_, got)) if got.as_deref() == Some(at.trim()) => {}
            got => errs.push(format!(
                "{tag}: feedback `{f}` at {got:?}, want {at}; released {:?}",
                released()
            )),
        }
    }
    let mut from = 0;
    for f in &e.feedback_order {
        match find(f, from) {
            Some((i, _)) => from = i + 1,
            None => {
                errs.push(format!(
                    "{tag}: feedback `{f}` not found after the previous one; released {:?}",
                    released()
                ));
                break;
            }
        }
    }
    for f in &e.no_feedback {
        let (p, t) = f.split_once(':').unwrap_or((f, ""));
        let t = t.trim();
        if let Some(x) = out
            .feedback
            .iter()
            .find(|x| x.player == p.trim() && x.text.contains(t))
        {
            errs.push(format!(
                "{tag}: unexpected feedback to {}: {}",
                x.player, x.text
            ));
        }
    }
    for a in &e.announcements {
        if !out.announcements.iter().any(|x| x.contains(a.as_str())) {
            errs.push(format!(
                "{tag}: no announcement `{a}`; got {:?}",
                out.announcements
            ));
        }
    }
    for a in &e.no_announcements {
        if let Some(x) = out.announcements.iter().find(|x| x.contains(a.as_str())) {
            errs.push(format!(
                "{tag}: unexpected announcement `{x}` (contains `{a}`)"
            ));
        }
    }
    for l in &e.log {
        if !out.log.iter().any(|x| x.text.contains(l.as_str())) {
            errs.push(format!("{tag}: no note `{l}`; notes:\n{}", notes()));
        }
    }
    if let Some(w) = &e.winner {
        let got = match &out.winner {
            None => "none".to_string(),
            Some(w) if w.is_empty() => "draw".to_string(),
            Some(w) => w.join("、"),
        };
        if &got != w {
            errs.push(format!("{tag}: winner {got}, want {w}\n{}", notes()));
        }
    }
    if let Some(c) = &e.camps_lost
        && &out.state.camps_lost != c
    {
        errs.push(format!(
            "{tag}: camps lost {:?}, want {c:?}",
            out.state.camps_lost
        ));
    }
    if let Some(l) = &e.losers
        && &out.losers != l
    {
        errs.push(format!(
            "{tag}: individual losers {:?}, want {l:?}",
            out.losers
        ));
    }
    if let Some(s) = &e.sheriff {
        let got = out.state.sheriff.clone().unwrap_or_else(|| "none".into());
        if &got != s {
            errs.push(format!("{tag}: sheriff {got}, want {s}"));
        }
    }
    let st = &out.state;
    for a in &e.alive {
        if !st.player(a).is_some_and(|p| p.alive()) {
            errs.push(format!("{tag}: {a} should be alive"));
        }
    }
    for a in &e.out {
        if st.player(a).is_none_or(|p| p.alive()) {
            errs.push(format!("{tag}: {a} should be out"));
        }
    }
    for (name, ep) in &e.player {
        let Some(p) = st.player(name) else {
            errs.push(format!("{tag}: no player {name}"));
            continue;
        };
        if let Some(c) = &ep.camp
            && p.camp.as_ref() != Some(c)
        {
            errs.push(format!("{tag}: {name} camp {:?}, want {c}", p.camp));
        }
        for s in &ep.has {
            if !p.can_use(s) {
                errs.push(format!(
                    "{tag}: {name} should have <{s}> (skills {:?})",
                    p.skills
                ));
            }
        }
        for s in &ep.lacks {
            if p.can_use(s) {
                errs.push(format!("{tag}: {name} should not have <{s}>"));
            }
        }
        for (c, v) in &ep.counters {
            if p.counter(c) != *v {
                errs.push(format!("{tag}: {name} {c} = {}, want {v}", p.counter(c)));
            }
        }
        for s in &ep.statuses {
            if !p.has_status(s) {
                errs.push(format!(
                    "{tag}: {name} should hold 【{s}】 ({:?})",
                    p.statuses
                ));
            }
        }
        for s in &ep.no_statuses {
            if p.has_status(s) {
                errs.push(format!("{tag}: {name} should not hold 【{s}】"));
            }
        }
        for l in &ep.linked {
            if !st
                .links
                .iter()
                .any(|k| k.members.contains(name) && k.members.contains(l))
            {
                errs.push(format!("{tag}: {name} should be linked with {l}"));
            }
        }
    }
}

/// Load a rule file's `[engine]` section from its text (other sections are ignored here;
/// the bansha crate validates the whole file).
pub fn engine_rules_from_toml(text: &str) -> Result<EngineRules, String> {
    #[derive(Deserialize)]
    struct Wrapper {
        engine: EngineRules,
    }
    let v: toml::Table = toml::from_str(text).map_err(|e| e.to_string())?;
    let Some(engine) = v.get("engine") else {
        return Err("no [engine] section".into());
    };
    let w: Wrapper = toml::Table::from_iter([("engine".to_string(), engine.clone())])
        .try_into()
        .map_err(|e: toml::de::Error| format!("engine: {e}"))?;
    let probs = w.engine.validate();
    if !probs.is_empty() {
        return Err(probs
            .iter()
            .map(|(k, m)| format!("{k}: {m}"))
            .collect::<Vec<_>>()
            .join("\n"));
    }
    Ok(w.engine)
}
